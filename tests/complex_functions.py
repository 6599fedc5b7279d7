"""Functions that compute with complex numbers the way scientific code does (Fourier-space
operators, wave packets, quantum amplitudes, polynomials of a complex variable), each with
a real output: tests/test_complex.py differentiates them."""
import numpy as np


def spectral_derivative(u):
    """The energy of du/dx, differentiated in Fourier space (a periodic signal)."""
    n = u.shape[0]
    k = np.fft.fftfreq(n) * n
    du = np.fft.ifft(1j * k * np.fft.fft(u)).real
    return np.sum(du * du) / n


def low_pass(signal, cutoff):
    """A real signal smoothed by damping its high frequencies (rfft and irfft)."""
    spectrum = np.fft.rfft(signal)
    freq = np.arange(spectrum.shape[0])
    smooth = np.fft.irfft(spectrum * np.exp(-freq / cutoff), signal.shape[0])
    return np.sum((smooth - signal) ** 2)


def wave_packet(x, k0, width):
    """|psi|^2 weighted by position: psi = exp(i k0 x - x^2 / (2 width^2))."""
    psi = np.exp(1j * k0 * x - x ** 2 / (2.0 * width ** 2))
    density = np.abs(psi) ** 2
    return np.sum(density * x) / np.sum(density)


def two_level(omega, detuning, dt, steps):
    """The excited population after `steps` Euler steps of a driven two-level system."""
    c0 = 1.0 + 0.0j
    c1 = 0.0 + 0.0j
    for _ in range(steps):
        d0 = -0.5j * omega * c1
        d1 = -0.5j * omega * c0 - 1j * detuning * c1
        c0 = c0 + dt * d0
        c1 = c1 + dt * d1
    return abs(c1) ** 2


def horner(coeffs, z):
    """|p(z)| for the polynomial with these (complex) coefficients, by Horner's rule."""
    acc = 0j
    for i in range(coeffs.shape[0]):
        acc = acc * z + coeffs[i]
    return np.abs(acc)


def dft_by_matrix(x):
    """The power spectrum of x through an explicit DFT matrix."""
    n = x.shape[0]
    k = np.arange(n)
    m = np.exp(-2j * np.pi * np.outer(k, k) / n)
    y = m @ x
    return np.sum(y.real ** 2 + y.imag ** 2) / n


def phases(z):
    """The angles and magnitudes of complex samples, mixed."""
    return np.sum(np.angle(z) * np.abs(z)) + np.sum(z.conj().real * z.imag)


def from_parts(re, im):
    """Complex numbers built from two real arrays, one element at a time."""
    z = np.zeros(re.shape[0], dtype=np.complex128)
    for i in range(re.shape[0]):
        z[i] = complex(re[i], im[i])
    return np.sum(np.abs(np.exp(z) - z * z))


def rotate(points, theta):
    """2-d points rotated as complex numbers, then the spread of their real parts."""
    z = points * np.exp(1j * theta)
    return np.mean(z.real ** 2) - np.mean(z.real) ** 2


def mandelbrot_escape(c, steps):
    """A smooth escape measure of z -> z^2 + c, written with complex scalars."""
    z = 0j
    total = 0.0
    for _ in range(steps):
        z = z * z + c
        total = total + np.exp(-abs(z))
    return total


def complex_writes(z, scale):
    """Element writes into a complex array, and a real scale into its imaginary parts."""
    out = np.empty_like(z)
    for i in range(z.shape[0]):
        out[i] = z[i] * scale + 1j * scale * i
    return np.sum(np.abs(out) ** 2)


def log_sqrt_power(z):
    """Holomorphic functions of a complex array, and a complex power."""
    w = np.log(z) + np.sqrt(z) * np.sin(z) - z ** 1.5 + np.tanh(z) / (1.0 + z)
    return np.sum(w.real) - 0.5 * np.sum(w.imag)


def mean_of_complex(z, w):
    """Means and sums of complex arrays, mixed with a real array."""
    m = np.mean(z * w)
    return (m * np.conj(m)).real + np.sum(np.cumsum(z) * w).imag

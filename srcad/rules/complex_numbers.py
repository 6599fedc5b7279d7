"""Rules for complex numbers: their parts (`np.real imag conj angle`), `complex(a, b)`,
the magnitude and powers of complex values, and the discrete Fourier transforms.

A complex value's cotangent follows JAX's convention: for `z = x + iy`, it is
`dL/dx - i dL/dy`. So the template of a holomorphic function (`d[x] += d[ans] * f'(x)`)
holds as written, and is marked `complex=True` where it is registered; a real value's
cotangent is the real part of what flows into it (see `Adjoints.accumulate`). The rules
here are those of the functions that are not holomorphic.
"""
import builtins

import numpy as np

from srcad import runtime as rt
from srcad.rules import builtins as _builtins  # noqa: F401  (the rules given complex
from srcad.rules import numpy as _numpy  # noqa: F401  variants below are registered first)
from srcad.rules import operators as _operators  # noqa: F401
from srcad.rules import typing as ty
from srcad.rules.registry import adjoint, complex_adjoint, tangent

d = None  # templates say d[x] for "the adjoint of x"; they are never run
t = None  # tangent templates say t[x] for "the tangent of x" (forward mode)

# the parts of a complex number; of a real one, the number itself and zero


@adjoint(np.real, kind=ty.real_of, view=True, linear=True, complex=True, domain=(-2.0, 2.0))
def real(ans, x):
    d[x] += d[ans]


@adjoint(np.imag, rt.imag, kind=ty.real_of, name="rt.imag", view=True, linear=True,
         complex=True, domain=(-2.0, 2.0))
def imag(ans, x):
    d[x] += -1j * d[ans]


@adjoint(np.conj, np.conjugate, rt.conj, kind=ty.same, name="rt.conj",
         methods=("conj", "conjugate"), linear=True, complex=True, domain=(-2.0, 2.0))
def conj(ans, x):
    d[x] += rt.conj(d[ans])


# the argument of z: its derivative is Im(dz / z) (0 at z = 0, as np.abs's is there)
@adjoint(np.angle, kind=ty.real_part, complex=True, domain=(0.5, 2.0))
def angle(ans, z):
    d[z] += d[ans] * -1j * rt.inverse_or_zero(z)


@tangent(np.angle)
def angle_tangent(ans, z):
    t[ans] = np.imag(t[z] * rt.inverse_or_zero(z))


@adjoint(builtins.complex, kind=ty.to_complex, complex=True, domain=(-2.0, 2.0))
def complex_number(ans, real, imag=0.0):
    d[real] += d[ans]
    d[imag] += 1j * d[ans]


@tangent(builtins.complex)
def complex_number_tangent(ans, real, imag=0.0):
    t[ans] = t[real] + 1j * t[imag]


# |z|: its derivative is Re(conj(z) dz) / |z| (0 at z = 0, as np.sign gives for reals)
@complex_adjoint(np.abs, builtins.abs, kind=ty.real_part)
def abs_of_complex(ans, x):
    d[x] += d[ans] * rt.unit_conj(x, ans)


@tangent(np.abs, builtins.abs, complex=True)
def abs_of_complex_tangent(ans, x):
    t[ans] = np.real(t[x] * rt.unit_conj(x, ans))


@complex_adjoint("op.Pow", np.power, kind=ty.arith)
def power_of_complex(ans, x, y):
    d[x] += d[ans] * rt.cpow_dx(x, y)
    d[y] += d[ans] * ans * rt.clog_or_zero(x)


@tangent("op.Pow", np.power, complex=True)
def power_of_complex_tangent(ans, x, y):
    t[ans] = t[x] * rt.cpow_dx(x, y) + t[y] * ans * rt.clog_or_zero(x)


# the discrete Fourier transforms along `axis` (of `n` points, the input cut or padded
# with zeros to that length): linear maps, whose transposes are transforms again

@adjoint(np.fft.fft, kind=ty.fourier, broadcast=False, name="np.fft.fft", linear=True,
         complex=True, domain={"a": (-2.0, 2.0)})
def fft(ans, a, n=None, axis=-1):
    d[a] += rt.fitted(np.fft.fft(d[ans], None, axis), a, axis)


@adjoint(np.fft.ifft, kind=ty.fourier, broadcast=False, name="np.fft.ifft", linear=True,
         complex=True, domain={"a": (-2.0, 2.0)})
def ifft(ans, a, n=None, axis=-1):
    d[a] += rt.fitted(np.fft.ifft(d[ans], None, axis), a, axis)


# the transform of real input: its first n // 2 + 1 frequencies
@adjoint(np.fft.rfft, kind=ty.fourier, broadcast=False, name="np.fft.rfft", linear=True,
         domain={"a": (-2.0, 2.0)})
def rfft(ans, a, n=None, axis=-1):
    d[a] += rt.rfft_adjoint(d[ans], a, n, axis)


# the real signal of n points whose transform's first frequencies are `a` (the imaginary
# parts of the constant and, for an even n, the highest frequency are dropped)
@adjoint(np.fft.irfft, kind=ty.real_fourier, broadcast=False, name="np.fft.irfft",
         linear=True, complex=True, domain={"a": (-2.0, 2.0)})
def irfft(ans, a, n=None, axis=-1):
    d[a] += rt.irfft_adjoint(d[ans], a, axis)


# the frequencies of the transform's bins, for samples `spacing` apart (NumPy's `d=`)
@adjoint(np.fft.fftfreq, kind=ty.frequencies, broadcast=False, name="np.fft.fftfreq",
         renamed={"d": "spacing"})
def fftfreq(ans, n, spacing=1.0):
    d[spacing] += -np.sum(d[ans] * ans) / spacing


@tangent(np.fft.fftfreq)
def fftfreq_tangent(ans, n, spacing=1.0):
    t[ans] = -t[spacing] * ans / spacing


@adjoint(np.fft.rfftfreq, kind=ty.frequencies, broadcast=False, name="np.fft.rfftfreq",
         renamed={"d": "spacing"})
def rfftfreq(ans, n, spacing=1.0):
    d[spacing] += -np.sum(d[ans] * ans) / spacing


@tangent(np.fft.rfftfreq)
def rfftfreq_tangent(ans, n, spacing=1.0):
    t[ans] = -t[spacing] * ans / spacing


# srcad's helpers above, as forward-mode code calls them (differentiated for Hessians)

# conj(z) / r, for r = |z| passed on its own
@adjoint(rt.unit_conj, kind=ty.to_complex, name="rt.unit_conj", complex=True)
def unit_conj(ans, z, r):
    d[z] += np.conj(d[ans]) / r
    d[r] += -d[ans] * ans / r


@tangent(rt.unit_conj)
def unit_conj_tangent(ans, z, r):
    t[ans] = np.conj(t[z]) / r - t[r] * ans / r


# y * x ** (y - 1): its slope in y is x ** (y - 1) * (1 + y log x)
@adjoint(rt.cpow_dx, kind=ty.to_complex, name="rt.cpow_dx", complex=True)
def cpow_dx(ans, x, y):
    d[x] += d[ans] * y * rt.cpow_dx(x, y - 1.0)
    d[y] += d[ans] * x ** (y - 1.0) * (1.0 + y * rt.clog_or_zero(x))


@tangent(rt.cpow_dx)
def cpow_dx_tangent(ans, x, y):
    t[ans] = t[x] * y * rt.cpow_dx(x, y - 1.0) + t[y] * x ** (y - 1.0) * (
        1.0 + y * rt.clog_or_zero(x))


# 1 / z (0 at 0)
@adjoint(rt.inverse_or_zero, kind=ty.to_complex, name="rt.inverse_or_zero", complex=True)
def inverse_or_zero(ans, z):
    d[z] += -d[ans] * ans * ans


@tangent(rt.inverse_or_zero)
def inverse_or_zero_tangent(ans, z):
    t[ans] = -t[z] * ans * ans


@adjoint(rt.clog_or_zero, kind=ty.to_complex, name="rt.clog_or_zero", complex=True)
def clog_or_zero(ans, x):
    d[x] += d[ans] / x


@tangent(rt.clog_or_zero)
def clog_or_zero_tangent(ans, x):
    t[ans] = t[x] / x

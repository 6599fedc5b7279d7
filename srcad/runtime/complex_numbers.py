"""Helpers for complex numbers: the slopes of |z| and of powers, the adjoints of the
discrete Fourier transforms (under Numba, `np.fft` is rocket-fft's), and Numba's `@` and
np.dot of a complex and a real array (which it lacks: NumPy casts the real one)."""
import cmath
import importlib.util
import operator

import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from srcad.runtime.overloads import _is_array, _is_none, _jit_version


def missing_extension(source):
    """What Numba lacks to compile the generated module `source`, as a sentence, or None:
    Numba compiles np.fft only where rocket-fft is installed (it registers itself)."""
    if "np.fft." in source and importlib.util.find_spec("rocket_fft") is None:
        return "np.fft needs rocket-fft to compile with Numba: pip install 'srcad[fft]'"
    return None


def inverse_or_zero(z):
    """1 / z, and 0 where z is 0 (the slope of np.angle, as np.abs's is there)."""
    if np.ndim(z):
        z = np.asarray(z, dtype=np.complex128)
        out = np.zeros(z.shape, dtype=np.complex128)
        hit = z != 0
        out[hit] = 1.0 / z[hit]
        return out
    return 1.0 / complex(z) if z != 0 else 0j


@_jit_version(inverse_or_zero)
def _inverse_or_zero(z):
    if not _is_array(z):
        return lambda z: 1.0 / complex(z) if z != 0 else 0j

    def impl(z):
        out = np.zeros(z.shape, dtype=np.complex128)
        for idx in np.ndindex(z.shape):
            if z[idx] != 0:
                out[idx] = 1.0 / complex(z[idx])
        return out

    return impl


def conj(x):
    """np.conj(x), a Python complex staying one (whose arithmetic NumPy's complex128 may
    round differently)."""
    return x.conjugate() if isinstance(x, (complex, float, int)) else np.conj(x)


@_jit_version(conj)
def _conj(x):
    return lambda x: np.conj(x)


def imag(x):
    """np.imag(x): zeros for a real `x` (which Numba cannot make for every layout)."""
    return np.imag(x)


@_jit_version(imag)
def _imag(x):
    if isinstance(x, types.Array) and not isinstance(x.dtype, types.Complex):
        return lambda x: np.zeros(x.shape, x.dtype)
    return lambda x: np.imag(x)


def _unit_conj_scalar(z, r):
    return z.conjugate() / r if r != 0.0 else 0j


def unit_conj(z, r):
    """conj(z) / |z| (0 where z is 0), for `r = |z|`: the slope of |z| under JAX's
    convention."""
    if np.ndim(z):
        out = np.zeros(np.shape(z), dtype=np.complex128)
        hit = r != 0.0
        out[hit] = np.conj(z[hit]) / r[hit]
        return out
    return _unit_conj_scalar(complex(z), r)


_unit_conj_jit = register_jitable(_unit_conj_scalar)


@_jit_version(unit_conj)
def _unit_conj(z, r):
    if not _is_array(z):
        return lambda z, r: _unit_conj_jit(complex(z), r)

    def impl(z, r):
        out = np.empty(z.shape, dtype=np.complex128)
        for idx in np.ndindex(z.shape):
            out[idx] = _unit_conj_jit(complex(z[idx]), r[idx])
        return out

    return impl


def _cpow_dx_scalar(x, y):
    if y == 0:
        return 0j
    if x == 0:
        if y == 1:
            return 1 + 0j
        return 0j if y.real > 1 else complex(np.nan, np.nan)
    return y * x ** (y - 1)


def cpow_dx(x, y):
    """d(x ** y)/dx = y * x ** (y - 1) for complex x or y: 0 for y == 0, and at x == 0
    the limit (0 where Re y > 1, 1 for y == 1, else NaN)."""
    if np.ndim(x) or np.ndim(y):
        x, y = np.broadcast_arrays(np.asarray(x, dtype=complex), np.asarray(y, dtype=complex))
        return np.vectorize(_cpow_dx_scalar, otypes=[complex])(x, y)
    return _cpow_dx_scalar(complex(x), complex(y))


_cpow_dx_jit = register_jitable(_cpow_dx_scalar)


@_jit_version(cpow_dx)
def _cpow_dx(x, y):
    if not (_is_array(x) or _is_array(y)):
        return lambda x, y: _cpow_dx_jit(complex(x), complex(y))

    def impl(x, y):
        xb, yb = np.broadcast_arrays(np.asarray(x).astype(np.complex128),
                                     np.asarray(y).astype(np.complex128))
        out = np.empty(xb.shape, dtype=np.complex128)
        for idx in np.ndindex(xb.shape):
            out[idx] = _cpow_dx_jit(complex(xb[idx]), complex(yb[idx]))
        return out

    return impl


def _clog_scalar(x):
    return cmath.log(x) if x != 0 else 0j


def clog_or_zero(x):
    """log(x) for complex x (0 where x is 0: the `d/dy x ** y` factor)."""
    if np.ndim(x):
        x = np.asarray(x, dtype=complex)
        return np.log(np.where(x != 0, x, 1.0))
    return _clog_scalar(complex(x))


_clog_jit = register_jitable(_clog_scalar)


@_jit_version(clog_or_zero)
def _clog_or_zero(x):
    if not _is_array(x):
        return lambda x: _clog_jit(complex(x))

    def impl(x):
        out = np.empty(x.shape, dtype=np.complex128)
        for idx in np.ndindex(x.shape):
            out[idx] = _clog_jit(complex(x[idx]))
        return out

    return impl


def fitted(g, a, axis):
    """`g` cut or padded with zeros along `axis` to `a`'s length there: the adjoint of
    cutting or padding `a` to `g`'s length (a transform's `n`)."""
    return _fit(g, np.shape(a)[axis], axis)


def _fit(g, size, axis):
    axis = axis % g.ndim
    have = g.shape[axis]
    if have == size:
        return g
    shape = list(g.shape)
    shape[axis] = size
    out = np.zeros(tuple(shape), dtype=g.dtype)
    keep = min(have, size)
    index = tuple(slice(0, keep) if k == axis else slice(None) for k in range(g.ndim))
    out[index] = g[index]
    return out


def rfft_adjoint(g, a, n, axis):
    """Adjoint of `np.fft.rfft(a, n, axis)` (real `a`): the cotangent of the first
    frequencies, zero for the others, transformed back and cut or padded to `a`."""
    size = np.shape(a)[axis] if n is None else n
    return np.real(fitted(np.fft.fft(_fit(g, size, axis), None, axis), a, axis))


def irfft_adjoint(g, a, axis):
    """Adjoint of `np.fft.irfft(a, n, axis)` (n = `g`'s length along axis): each
    frequency's cotangent is the transform of `g` at it, twice over for those that stand
    for a conjugate pair, cut or padded to `a` (its real part, for a real `a`)."""
    out = _irfft_adjoint_py(g, a, axis)
    return out if np.iscomplexobj(a) else np.real(out)


def _irfft_adjoint_py(g, a, axis):
    axis = axis % g.ndim
    n = g.shape[axis]
    spectrum = np.conj(np.fft.rfft(g, None, axis)) / n
    weights = np.full(spectrum.shape[axis], 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    shape = [1] * g.ndim
    shape[axis] = weights.size
    return fitted(spectrum * weights.reshape(tuple(shape)), a, axis)


@register_jitable
def _fit_jit(g, size, axis, shape):
    """`_fit` under Numba; `shape`: an array holding g's shape, with `size` at `axis`."""
    gc = np.ascontiguousarray(g)
    have = gc.shape[axis]
    pre, post = 1, 1
    for k in range(axis):
        pre *= gc.shape[k]
    for k in range(axis + 1, gc.ndim):
        post *= gc.shape[k]
    g3 = gc.reshape((pre, have, post))
    out3 = np.zeros((pre, size, post), dtype=g.dtype)
    keep = min(have, size)
    out3[:, :keep, :] = g3[:, :keep, :]
    return out3


def _fit_impl(ndim):
    from numba.np.unsafe.ndarray import to_fixed_tuple

    def fit(g, size, axis):
        axis = axis % ndim
        shape = np.empty(ndim, dtype=np.int64)
        for k in range(ndim):
            shape[k] = g.shape[k]
        shape[axis] = size
        return _fit_jit(g, size, axis, shape).reshape(to_fixed_tuple(shape, ndim))

    return register_jitable(fit)


@_jit_version(fitted)
def _fitted(g, a, axis):
    fit = _fit_impl(g.ndim)
    return lambda g, a, axis: fit(g, a.shape[axis], axis)


@_jit_version(rfft_adjoint)
def _rfft_adjoint(g, a, n, axis):
    fit = _fit_impl(g.ndim)
    if _is_none(n):
        return lambda g, a, n, axis: np.real(
            fit(np.fft.fft(fit(g, a.shape[axis], axis), None, axis), a.shape[axis], axis))
    return lambda g, a, n, axis: np.real(
        fit(np.fft.fft(fit(g, n, axis), None, axis), a.shape[axis], axis))


@_jit_version(irfft_adjoint)
def _irfft_adjoint(g, a, axis):
    fit = _fit_impl(g.ndim)
    nd = g.ndim

    @register_jitable
    def impl(g, a, axis):
        ax = axis % nd
        n = g.shape[ax]
        spectrum = np.conj(np.fft.rfft(g, None, ax)) / n
        m = spectrum.shape[ax]
        pre, post = 1, 1
        for k in range(ax):
            pre *= spectrum.shape[k]
        for k in range(ax + 1, nd):
            post *= spectrum.shape[k]
        s3 = np.ascontiguousarray(spectrum).reshape((pre, m, post))
        s3[:, 1:, :] *= 2.0
        if n % 2 == 0:
            s3[:, m - 1, :] *= 0.5
        return fit(s3.reshape(spectrum.shape), a.shape[ax], ax)

    if isinstance(a.dtype, types.Complex):
        return impl
    return lambda g, a, axis: np.real(impl(g, a, axis))


def _mixed(a, b):
    """Whether Numba's products refuse `a` and `b`: arrays of a complex and a real dtype
    (NumPy casts the real one; Numba's `@` and np.dot need one dtype)."""
    return isinstance(a, types.Array) and isinstance(b, types.Array) and \
        a.dtype != b.dtype and (isinstance(a.dtype, types.Complex) or
                                isinstance(b.dtype, types.Complex))


@overload(operator.matmul, jit_options={"cache": True})
def _matmul_mixed(a, b):
    if _mixed(a, b):
        return lambda a, b: a.astype(np.complex128) @ b.astype(np.complex128)
    return None


@overload(np.dot, jit_options={"cache": True})
def _dot_mixed(a, b):
    if _mixed(a, b):
        return lambda a, b: np.dot(a.astype(np.complex128), b.astype(np.complex128))
    return None

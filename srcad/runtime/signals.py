"""np.convolve in its three modes, and the slope of np.sinc: adjoints and tangents.

A convolution in mode "same" or "valid" is a window of the full one (of n + m - 1
elements): its cotangent, put back in its window of zeros, is correlated with the other
operand.
"""
import numpy as np
from numba.extending import register_jitable

from srcad.runtime.overloads import _is_array, _jit_version


@register_jitable(cache=True)
def _window(n, m, mode):
    """(first index, length) of a mode's result within the full convolution."""
    short, long = min(n, m), max(n, m)
    if mode == "full":
        return 0, n + m - 1
    if mode == "same":
        return (short - 1) // 2, long
    if mode == "valid":
        return short - 1, long - short + 1
    raise ValueError("np.convolve: mode must be 'full', 'same' or 'valid'")


@register_jitable(cache=True)
def _full_cotangent(g, n, m, mode):
    start, length = _window(n, m, mode)
    out = np.zeros(n + m - 1)
    out[start:start + length] = g
    return out


@register_jitable(cache=True)
def convolve_da(g, a, v, mode="full"):
    """Adjoint of np.convolve(a, v, mode) in `a`: da[i] = sum_j g[i + j] v[j] (g in the
    full convolution's indices)."""
    n, m = a.shape[0], v.shape[0]
    full = _full_cotangent(g, n, m, mode)
    out = np.zeros(n)
    for i in range(n):
        for j in range(m):
            out[i] += full[i + j] * v[j]
    return out


@register_jitable(cache=True)
def convolve_dv(g, a, v, mode="full"):
    """Adjoint of np.convolve(a, v, mode) in `v`."""
    n, m = a.shape[0], v.shape[0]
    full = _full_cotangent(g, n, m, mode)
    out = np.zeros(m)
    for i in range(n):
        for j in range(m):
            out[j] += full[i + j] * a[i]
    return out


# np.sinc(x) = sin(pi x) / (pi x): its slope, (cos(pi x) - sinc(x)) / x, is 0 at 0


def sinc_dx(x):
    """The derivative of np.sinc at `x`."""
    safe = np.where(x == 0.0, 1.0, x)
    out = np.where(x == 0.0, 0.0, (np.cos(np.pi * safe) - np.sinc(safe)) / safe)
    return out if np.ndim(x) else float(out)


@register_jitable(cache=True)
def _sinc_dx_one(x):
    if x == 0.0:
        return 0.0
    return (np.cos(np.pi * x) - np.sinc(x)) / x


@_jit_version(sinc_dx)
def _sinc_dx(x):
    if not _is_array(x):
        return lambda x: _sinc_dx_one(x * 1.0)

    def impl(x):
        xs = np.ascontiguousarray(x).ravel()
        out = np.empty(xs.shape[0])
        for i in range(xs.shape[0]):
            out[i] = _sinc_dx_one(xs[i] * 1.0)
        return out.reshape(x.shape)

    return impl

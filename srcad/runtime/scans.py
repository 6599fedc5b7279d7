"""Running sums and products (np.cumsum, np.cumprod, of the flattened array or along an
axis) and their adjoints and tangent; the products' are exact where a factor is zero: they
never divide."""
import numpy as np
from numba.extending import register_jitable

from srcad.runtime.axes import lines_along
from srcad.runtime.overloads import _is_none, _jit_version


def cumsum(x, axis=None):
    """np.cumsum(x, axis), of the flattened `x` for None."""
    return np.cumsum(x, axis)


@_jit_version(cumsum)
def _cumsum(x, axis=None):
    if _is_none(axis):
        return lambda x, axis=None: np.cumsum(x)

    def along(x, axis=None):
        lines = lines_along(x, axis)
        out = np.empty(lines.shape, np.cumsum(np.zeros(1, x.dtype)).dtype)
        for i in range(lines.shape[0]):
            for j in range(lines.shape[2]):
                out[i, :, j] = np.cumsum(lines[i, :, j])
        return out.reshape(x.shape)

    return along


@register_jitable(cache=True)
def cumsum_adjoint(g, x, axis=None):
    """Adjoint of np.cumsum(x, axis), shaped like `x`: the running sums of `g` from the
    end of each line."""
    out = np.empty(np.shape(x), g.dtype)
    lines, grads = lines_along(out, axis), lines_along(g, axis)
    for i in range(lines.shape[0]):
        for j in range(lines.shape[2]):
            s = grads[i, 0, j] * 0  # a zero of g's type (float or complex)
            for k in range(lines.shape[1] - 1, -1, -1):
                s += grads[i, k, j]
                lines[i, k, j] = s
    return out


def cumprod(x, axis=None):
    """np.cumprod(x, axis), of the flattened `x` for None."""
    return np.cumprod(x, axis)


@_jit_version(cumprod)
def _cumprod(x, axis=None):
    if _is_none(axis):
        return lambda x, axis=None: np.cumprod(x)

    def along(x, axis=None):
        lines = lines_along(x, axis)
        out = np.empty(lines.shape, np.cumprod(np.zeros(1, x.dtype)).dtype)
        for i in range(lines.shape[0]):
            for j in range(lines.shape[2]):
                out[i, :, j] = np.cumprod(lines[i, :, j])
        return out.reshape(x.shape)

    return along


@register_jitable(cache=True)
def _adjoint_lines(out, g, x):
    """out[k] = sum over i >= k of g[i] * (the product of x[:i + 1] but x[k]), along each
    line (as `lines_along` gives them): the product of x[:k] times s[k], where
    s[k] = g[k] + x[k + 1] * s[k + 1]."""
    n = x.shape[1]
    for i in range(x.shape[0]):
        for j in range(x.shape[2]):
            s = 0.0
            for k in range(n - 1, -1, -1):
                s = g[i, k, j] + (x[i, k + 1, j] * s if k + 1 < n else 0.0)
                out[i, k, j] = s
            before = 1.0
            for k in range(n):
                out[i, k, j] *= before
                before *= x[i, k, j]


@register_jitable(cache=True)
def _tangent_lines(out, t, x):
    """out[k] = the tangent of the running product x[0] ... x[k] along `t`, along each line:
    out[k] = out[k - 1] * x[k] + (the product of x[:k]) * t[k]."""
    for i in range(x.shape[0]):
        for j in range(x.shape[2]):
            before, acc = 1.0, 0.0
            for k in range(x.shape[1]):
                acc = acc * x[i, k, j] + before * t[i, k, j]
                before *= x[i, k, j]
                out[i, k, j] = acc


@register_jitable(cache=True)
def cumprod_adjoint(g, x, axis=None):
    """Adjoint of np.cumprod(x, axis), shaped like `x`."""
    out = np.empty(np.shape(x))
    _adjoint_lines(lines_along(out, axis), lines_along(g, axis), lines_along(x, axis))
    return out


@register_jitable(cache=True)
def cumprod_tangent(t, x, axis=None):
    """Tangent of np.cumprod(x, axis) along `t`: shaped like the running product."""
    if axis is None:
        out = np.empty(np.size(x))
    else:
        out = np.empty(np.shape(x))
    _tangent_lines(lines_along(out, axis), lines_along(t, axis), lines_along(x, axis))
    return out

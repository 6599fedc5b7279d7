"""Reductions (sum, mean, prod, max, min, ptp) and their adjoints, for any axis and layout."""
import math

import numpy as np
from numba import types
from numba.extending import register_jitable

from srcad.runtime.loops import filled
from srcad.runtime.overloads import _is_none, _jit_version, adds_in_place
from srcad.runtime.shapes import expand_dims


def expand(g, axis):
    """A reduction's cotangent `g` with the reduced `axis` put back, to broadcast."""
    return g if axis is None else expand_dims(g, axis)


@_jit_version(expand)
def _expand(g, axis):
    if _is_none(axis):
        return lambda g, axis: g
    return lambda g, axis: expand_dims(g, axis)  # a tuple of axes too


def spread(g, axis, shape):
    """A reduction's cotangent `g` put back along `axis` and spread over `shape`, a new
    array (`filled(expand(g, axis), shape)`); a number is itself, the cotangent of each
    element of the reduced line (a kernel of `srcad.passes.element_loops`)."""
    return filled(expand(g, axis), shape) if np.ndim(g) else g


@_jit_version(spread)
def _spread(g, axis, shape):
    if isinstance(g, types.Array):
        return lambda g, axis, shape: filled(expand(g, axis), shape)
    return lambda g, axis, shape: g


def count(shape, axis):
    """How many elements a reduction over `axis` of an array of `shape` combines."""
    return math.prod(shape) if axis is None else shape[axis]


@_jit_version(count)
def _count(shape, axis):
    if _is_none(axis):
        def impl(shape, axis):
            n = 1
            for s in shape:
                n *= s
            return n
        return impl
    return lambda shape, axis: shape[axis]


@register_jitable(cache=True)
def _prod_others(v):
    """For a 1-d `v`: out[i] = product of all v[j], j != i (no division, exact with zeros)."""
    n = v.shape[0]
    out = np.empty(n)
    acc = 1.0
    for i in range(n):
        out[i] = acc
        acc *= v[i]
    acc = 1.0
    for i in range(n - 1, -1, -1):
        out[i] *= acc
        acc *= v[i]
    return out


@adds_in_place("prod_adjoint_add")
def prod_adjoint(g, x, axis, ans=None):
    """Adjoint of `np.prod(x, axis)`: g times the product of the other factors. `ans`,
    the product itself, lets the compiled version divide it by each factor when that is
    exact enough (see `_others_by_division`)."""
    if axis is None:
        return g * _prod_others(np.ravel(x)).reshape(x.shape)
    moved = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    others = np.apply_along_axis(_prod_others, -1, moved)
    return np.moveaxis(others, -1, axis) * np.expand_dims(g, axis)


@_jit_version(prod_adjoint)
def _prod_adjoint(g, x, axis, ans=None):
    if _is_none(axis):
        def flat(g, x, axis, ans=None):
            out = np.zeros(x.shape)
            _prod_adjoint_into(out.ravel(), g, np.ascontiguousarray(x).ravel(), ans)
            return out
        return flat
    if x.ndim == 1:
        def vector(g, x, axis, ans=None):
            out = np.zeros(x.shape)
            _prod_adjoint_into(out, g, x, ans)
            return out
        return vector
    if x.ndim != 2:
        return None

    def impl(g, x, axis, ans=None):
        out = np.empty(x.shape)
        ax = axis % 2
        if ax == 0:
            for j in range(x.shape[1]):
                out[:, j] = g[j] * _prod_others(np.ascontiguousarray(x[:, j]))
        else:
            for i in range(x.shape[0]):
                out[i, :] = g[i] * _prod_others(np.ascontiguousarray(x[i, :]))
        return out

    return impl


@register_jitable(cache=True)
def _others_by_division(ans):
    """Whether g * ans / x[i] is the product of the other factors to a few ulps: the
    product is finite and not zero or subnormal (so no factor is zero or infinite)."""
    return ans == ans and 2.2250738585072014e-308 <= abs(ans) < np.inf


@register_jitable(cache=True, error_model="numpy")
def _prod_adjoint_into(out, g, v, ans):
    """out[i] += g * (product of v[j], j != i) for 1-d `v`, allocating nothing when the
    product `ans` allows division. A zero `g` adds nothing (a strong zero)."""
    if g == 0.0:
        return
    n = v.shape[0]
    if ans is not None:
        if _others_by_division(ans):
            for i in range(n):
                out[i] += g * (ans / v[i])
            return
    others = _prod_others(v)
    for i in range(n):
        out[i] += g * others[i]


def prod_adjoint_add(out, g, x, axis, ans=None):
    """`out += prod_adjoint(g, x, axis, ans)`, in place: the reverse sweep's form when
    `out` is an array adjoint of its own (a view into another adjoint included)."""
    out += prod_adjoint(g, x, axis, ans)


@_jit_version(prod_adjoint_add)
def _prod_adjoint_add(out, g, x, axis, ans=None):
    if x.ndim == 1 and isinstance(g, types.Float):
        def vector(out, g, x, axis, ans=None):
            _prod_adjoint_into(out, g, x, ans)
        return vector

    def impl(out, g, x, axis, ans=None):
        out += prod_adjoint(g, x, axis, ans)
    return impl


def _is_extreme(x, ans):
    """Where `x` holds the value `ans` of its max or min: equal, or both NaN (NumPy's max
    and min are NaN when an element is)."""
    return (x == ans) | ((x != x) & (ans != ans))


@register_jitable(cache=True)
def _is_extreme_element(v, ans):
    return v == ans or (v != v and ans != ans)


@adds_in_place("select_adjoint_add")
def select_adjoint(g, x, ans, axis):
    """Adjoint of max/min reductions: all of `g` to the first extreme element (the first
    NaN, when the result is NaN)."""
    out = np.zeros(np.shape(x))
    select_adjoint_add(out, g, x, ans, axis)
    return out


def select_adjoint_add(out, g, x, ans, axis):
    """`out += select_adjoint(g, x, ans, axis)`, in place: `g` added at the first extreme
    element of each line (one element per line, so no two additions meet)."""
    if axis is None:
        out.flat[int(np.argmax(_is_extreme(np.ravel(x), ans)))] += g
        return
    if isinstance(axis, tuple):  # the axes reduced moved last, as one
        out += _select_along_axes(g, x, ans, axis)
        return
    axis %= np.ndim(x)
    kept = expand_dims(ans, axis)
    hits = x == kept
    if np.isnan(ans).any():
        hits |= (x != x) & (kept != kept)
    if axis == np.ndim(x) - 1 and out.flags.c_contiguous:  # line k starts at k * n
        n = np.shape(x)[-1]
        first = hits.argmax(axis=-1).ravel()
        first += np.arange(0, first.size * n, n)
        out.reshape(-1)[first] += np.ravel(g)
        return
    where = list(np.indices(np.shape(ans), sparse=True))
    where.insert(axis, np.argmax(hits, axis=axis))
    out[tuple(where)] += g


def _select_along_axes(g, x, ans, axes):
    """`select_adjoint` over a tuple of axes: those moved last, as one."""
    axes = [a % np.ndim(x) for a in axes]
    order = [k for k in range(np.ndim(x)) if k not in axes] + axes
    moved = np.transpose(x, order)
    lines = moved.reshape(moved.shape[:np.ndim(x) - len(axes)] + (-1,))
    picked = select_adjoint(g, lines, ans, -1).reshape(moved.shape)
    return np.transpose(picked, np.argsort(order))


@_jit_version(select_adjoint)
def _select_adjoint(g, x, ans, axis):
    if _is_none(axis):
        def impl(g, x, ans, axis):
            out = np.zeros(x.shape)
            flat = out.reshape(out.size)
            xs = np.ascontiguousarray(x).ravel()
            for i in range(xs.size):
                if _is_extreme_element(xs[i], ans):
                    flat[i] = g
                    break
            return out
        return impl
    if x.ndim == 1:
        return lambda g, x, ans, axis: select_adjoint(g, x, ans, None)
    if x.ndim != 2:
        return None

    def impl2(g, x, ans, axis):
        out = np.zeros(x.shape)
        select_adjoint_add(out, g, x, ans, axis)
        return out

    return impl2


@_jit_version(select_adjoint_add)
def _select_adjoint_add(out, g, x, ans, axis):
    if not _is_none(axis) and x.ndim == 2:
        def impl2(out, g, x, ans, axis):
            if axis % 2 == 0:
                for j in range(x.shape[1]):
                    for i in range(x.shape[0]):
                        if _is_extreme_element(x[i, j], ans[j]):
                            out[i, j] += g[j]
                            break
            else:
                for i in range(x.shape[0]):
                    for j in range(x.shape[1]):
                        if _is_extreme_element(x[i, j], ans[i]):
                            out[i, j] += g[i]
                            break
        return impl2

    def impl(out, g, x, ans, axis):
        out += select_adjoint(g, x, ans, axis)
    return impl


def mean(x, axis=None):
    """np.mean(x, axis): of a float64 array, its own sum and division without its checks
    (a third of its time for a few hundred elements; the same value)."""
    if type(x) is np.ndarray and x.dtype.char == "d" and x.size and \
            (axis is None or type(axis) is int):
        return np.add.reduce(x, axis=axis) / (x.size if axis is None else x.shape[axis])
    return np.mean(x, axis=axis)


@_jit_version(mean)
def _mean(x, axis=None):
    if _is_none(axis):
        return lambda x, axis=None: np.mean(x)
    return lambda x, axis=None: np.sum(x, axis=axis) / x.shape[axis]


def var(x, axis=None, ddof=0):
    """np.var(x, axis, ddof=ddof)."""
    return np.var(x, axis=axis, ddof=ddof)


@_jit_version(var)
def _var(x, axis=None, ddof=0):
    if _is_none(axis):
        def whole(x, axis=None, ddof=0):
            d = x - np.mean(x)
            return np.sum(d * d) / (x.size - ddof)
        return whole

    def along(x, axis=None, ddof=0):
        d = x - np.expand_dims(np.sum(x, axis=axis) / x.shape[axis], axis)
        return np.sum(d * d, axis=axis) / (x.shape[axis] - ddof)
    return along


def std(x, axis=None, ddof=0):
    """np.std(x, axis, ddof=ddof)."""
    return np.std(x, axis=axis, ddof=ddof)


@_jit_version(std)
def _std(x, axis=None, ddof=0):
    return lambda x, axis=None, ddof=0: np.sqrt(var(x, axis, ddof))


@register_jitable(cache=True)
def _nan_max(a, b):
    """max(a, b) as np.max takes it: NaN if either is NaN."""
    return a if a != a or a >= b else b


@register_jitable(cache=True)
def _nan_min(a, b):
    """min(a, b) as np.min takes it: NaN if either is NaN."""
    return a if a != a or a <= b else b


def _reduce_2d(fn_name):
    """A Numba version of np.<fn_name>(x, axis) for 1-d and 2-d arrays."""
    op = register_jitable({"prod": lambda a, b: a * b, "max": _nan_max, "min": _nan_min}[fn_name])
    whole = getattr(np, fn_name)

    def factory(x, axis=None):
        if _is_none(axis) or x.ndim == 1:
            return lambda x, axis=None: whole(x)
        if x.ndim != 2:
            return None

        def impl(x, axis=None):
            ax = axis % 2
            n = x.shape[1 - ax]
            out = np.empty(n, dtype=x.dtype)
            for j in range(n):
                acc = x[0, j] if ax == 0 else x[j, 0]
                for i in range(1, x.shape[ax]):
                    acc = op(acc, x[i, j] if ax == 0 else x[j, i])
                out[j] = acc
            return out

        return impl

    return factory


def prod(x, axis=None):
    """np.prod(x, axis)."""
    return np.prod(x, axis=axis)


def amax(x, axis=None):
    """np.max(x, axis)."""
    return _extreme(np.max, x, axis)


def amin(x, axis=None):
    """np.min(x, axis)."""
    return _extreme(np.min, x, axis)


def _extreme(reduce, x, axis):
    """`reduce(x, axis)`; along the last axis of many short float lines, over the lines
    laid out as columns (NumPy reduces a short contiguous line element by element, a
    column of lines with vector instructions: 512 lines of 10, 23 us against 10). The
    extreme of a line is one of its elements either way (NaN if one is)."""
    if type(axis) is int and type(x) is np.ndarray and x.ndim and x.dtype.kind == "f" \
            and axis in (-1, x.ndim - 1) and 1 < x.shape[-1] <= 16 \
            and x.size >= 64 * x.shape[-1] and x.flags.c_contiguous:
        columns = x.reshape(-1, x.shape[-1]).T.copy()
        return reduce(columns, axis=0).reshape(x.shape[:-1])
    return reduce(x, axis=axis)


_jit_version(prod)(_reduce_2d("prod"))
_jit_version(amax)(_reduce_2d("max"))
_jit_version(amin)(_reduce_2d("min"))


def ptp(a, axis=None):
    """np.ptp(a, axis): the range, max less min."""
    return np.ptp(a, axis)


@_jit_version(ptp)
def _ptp(a, axis=None):
    return lambda a, axis=None: amax(a, axis) - amin(a, axis)


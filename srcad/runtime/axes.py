"""Helpers that work along one axis of an array of any rank, and their adjoints: np.diff,
np.flip, np.repeat and np.sort with an `axis`, which Numba's versions lack.

An array is seen as its lines along the axis: a C-contiguous (before, along, after) array
whose line (i, j) is `[i, :, j]` (see `lines_along`); a helper that loops over the lines
runs as it is in Python and compiled.
"""
import numpy as np
from numba import types
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import register_jitable

from srcad.runtime.overloads import _is_array, _is_none, _jit_version


@register_jitable(cache=True)
def _axis(axis, ndim):
    """`axis` of an array of rank `ndim` in range(ndim), a negative one counted from the end."""
    if axis < -ndim or axis >= ndim:
        raise ValueError("axis is out of bounds for the array")
    return axis + ndim if axis < 0 else axis


@register_jitable(cache=True)
def _lines(x, axis):
    """`x` as a C-contiguous (before, along, after) array, `axis` being in range: a view
    of `x` when `x` is C-contiguous, so that writes into it land in `x`."""
    before, after = 1, 1
    for i in range(axis):
        before *= x.shape[i]
    for i in range(axis + 1, x.ndim):
        after *= x.shape[i]
    return np.ascontiguousarray(x).reshape((before, x.shape[axis], after))


def lines_along(x, axis):
    """`x` as its lines along `axis`, or flattened to one line for None (see the module)."""
    if axis is None:
        return np.ascontiguousarray(x).reshape((1, np.size(x), 1))
    return _lines(x, _axis(axis, np.ndim(x)))


@_jit_version(lines_along)
def _lines_along(x, axis):
    if _is_none(axis):
        return lambda x, axis: np.ascontiguousarray(x).reshape((1, x.size, 1))
    return lambda x, axis: _lines(x, _axis(axis, x.ndim))


# np.diff


def diff(a, n=1, axis=-1):
    """np.diff(a, n, axis); for n = 0 a copy of `a` (NumPy's is `a` itself), as compiled."""
    return np.diff(a, n, axis) if n else np.array(a, copy=True)


@_jit_version(diff)
def _diff(a, n=1, axis=-1):
    def impl(a, n=1, axis=-1):
        if n < 0:
            raise ValueError("order must be non-negative")
        ax = _axis(axis, a.ndim)
        lines = _lines(a, ax).copy()
        m = lines.shape[1]
        for _ in range(min(n, m)):
            m -= 1
            for i in range(lines.shape[0]):
                for k in range(m):
                    for j in range(lines.shape[2]):
                        lines[i, k, j] = lines[i, k + 1, j] - lines[i, k, j]
        out = np.ascontiguousarray(lines[:, :m, :])
        return out.reshape(tuple_setitem(a.shape, ax, m))

    return impl


def diff_adjoint(g, shape, n=1, axis=-1):
    """Adjoint of np.diff(a, n, axis) for `a` of `shape`: the transposed difference, n
    times (each takes a line of m - 1 to one of m: -g[0], g[0] - g[1], ..., g[m - 2]);
    zero when n differences leave nothing (n >= m)."""
    if n >= shape[axis]:
        return np.zeros(shape, dtype=np.asarray(g).dtype)
    g = np.array(g, dtype=complex if np.iscomplexobj(g) else float)
    for _ in range(n):
        pad = [(0, 0)] * g.ndim
        pad[axis] = (1, 1)
        g = -np.diff(np.pad(g, pad), axis=axis)
    return g


@_jit_version(diff_adjoint)
def _diff_adjoint(g, shape, n=1, axis=-1):
    def impl(g, shape, n=1, axis=-1):
        ax = _axis(axis, g.ndim)
        if n >= shape[ax]:
            return np.zeros(shape, dtype=g.dtype)
        lines = _lines(g, ax)
        m = lines.shape[1]
        out = np.zeros((lines.shape[0], m + n, lines.shape[2]), dtype=g.dtype)
        out[:, :m, :] = lines
        for _ in range(n):
            m += 1  # out[:, :m - 1] holds the cotangent of a line of m - 1 differences
            for i in range(out.shape[0]):
                for j in range(out.shape[2]):
                    prev = 0.0
                    for k in range(m):
                        cur = out[i, k, j] if k < m - 1 else 0.0
                        out[i, k, j] = prev - cur
                        prev = cur
        return out.reshape(shape)

    return impl


# np.flip (the adjoint of a flip is the same flip)


def flip(m, axis=None):
    """np.flip(m, axis): `axis` None, an int or a tuple of ints."""
    return np.flip(m, axis)


@register_jitable(cache=True)
def _flip_one(m, axis):
    lines = _lines(m, _axis(axis, m.ndim))
    return lines[:, ::-1, :].copy().reshape(m.shape)


@_jit_version(flip)
def _flip(m, axis=None):
    if _is_none(axis):
        return lambda m, axis=None: \
            np.ascontiguousarray(m).ravel()[::-1].copy().reshape(m.shape)
    if isinstance(axis, types.Integer):
        return lambda m, axis=None: _flip_one(m, axis)
    if axis == types.Tuple(()):
        return lambda m, axis=None: np.ascontiguousarray(m).copy()

    def along_each(m, axis=None):
        out = np.ascontiguousarray(m).copy()
        for ax in axis:
            out = _flip_one(out, ax)
        return out

    return along_each


# np.repeat


def repeat(a, repeats, axis=None):
    """np.repeat(a, repeats, axis): `repeats` an int or a 1-d array of ints."""
    return np.repeat(a, repeats, axis)


@register_jitable(cache=True)
def _counts(repeats, n):
    """`repeats` (an int, or one int per element) as n counts."""
    counts = np.empty(n, np.intp)
    counts[:] = repeats
    if np.any(counts < 0):
        raise ValueError("repeats may not contain negative values")
    return counts


@_jit_version(repeat)
def _repeat(a, repeats, axis=None):
    if _is_none(axis):
        return lambda a, repeats, axis=None: np.repeat(a, repeats)

    def impl(a, repeats, axis=None):
        ax = _axis(axis, a.ndim)
        lines = _lines(a, ax)
        counts = _counts(repeats, lines.shape[1])
        out = np.empty((lines.shape[0], np.sum(counts), lines.shape[2]), dtype=a.dtype)
        at = 0
        for k in range(lines.shape[1]):
            for _ in range(counts[k]):
                out[:, at, :] = lines[:, k, :]
                at += 1
        return out.reshape(tuple_setitem(a.shape, ax, at))

    return impl


def repeat_adjoint(g, a, repeats, axis=None):
    """Adjoint of np.repeat(a, repeats, axis): each element gets the sum of its copies."""
    n = np.size(a) if axis is None else np.shape(a)[axis]
    index = np.repeat(np.arange(n), np.broadcast_to(repeats, (n,)))
    if axis is None:
        out = np.zeros(n, dtype=np.result_type(g, 0.0))
        np.add.at(out, index, np.ravel(g))
        out = out.reshape(np.shape(a))
        return out if np.ndim(a) else out[()]
    out = np.zeros(np.shape(a), dtype=np.result_type(g, 0.0))
    np.add.at(out, (slice(None),) * (axis % np.ndim(a)) + (index,), g)
    return out


@register_jitable(cache=True)
def _add_copies(out, g, repeats):
    """Into each line k of `out` (lines as `lines_along` gives them), the sum of its
    copies in `g`."""
    counts = _counts(repeats, out.shape[1])
    at = 0
    for k in range(out.shape[1]):
        for _ in range(counts[k]):
            out[:, k, :] += g[:, at, :]
            at += 1


@_jit_version(repeat_adjoint)
def _repeat_adjoint(g, a, repeats, axis=None):
    if not _is_array(a):
        return lambda g, a, repeats, axis=None: np.sum(g)

    def impl(g, a, repeats, axis=None):
        out = np.zeros(a.shape, g.dtype)
        _add_copies(lines_along(out, axis), lines_along(g, axis), repeats)
        return out

    return impl


# np.sort: its adjoint sends each element of the cotangent back to where its value came
# from; ties stay in the order of a stable sort, compiled or not


def sort(a, axis=-1):
    """np.sort(a, axis): `axis` an int, or None for the flattened array."""
    return np.sort(a, axis)


@_jit_version(sort)
def _sort(a, axis=-1):
    if _is_none(axis):
        return lambda a, axis=-1: np.sort(np.ascontiguousarray(a).ravel())

    def along(a, axis=-1):
        lines = _lines(a, _axis(axis, a.ndim))
        out = np.empty(lines.shape, a.dtype)
        for i in range(lines.shape[0]):
            for j in range(lines.shape[2]):
                out[i, :, j] = np.sort(lines[i, :, j])
        return out.reshape(a.shape)

    return along


def sort_adjoint(g, a, axis=-1):
    """Adjoint of np.sort(a, axis): `g` scattered back through the sorting order."""
    order = np.argsort(a, axis=axis, kind="stable")
    out = np.zeros(np.shape(a))
    if axis is None:
        out.reshape(-1)[order] = np.ravel(g)
    else:
        np.put_along_axis(out, order, g, axis)
    return out


def sort_tangent(t, a, axis=-1):
    """Tangent of np.sort(a, axis) along `t`: `t` gathered in the order that sorts `a`."""
    order = np.argsort(a, axis=axis, kind="stable")
    if axis is None:
        return np.ravel(t)[order]
    return np.take_along_axis(t, order, axis)


@register_jitable(cache=True)
def _permute_lines(out, v, a, scatter):
    """For each line of `a` and its stable sorting order: out[order[k]] = v[k] (scatter)
    or out[k] = v[order[k]] (gather), lines as `lines_along` gives them."""
    for i in range(a.shape[0]):
        for j in range(a.shape[2]):
            order = np.argsort(a[i, :, j], kind="mergesort")
            for k in range(order.shape[0]):
                if scatter:
                    out[i, order[k], j] = v[i, k, j]
                else:
                    out[i, k, j] = v[i, order[k], j]


@_jit_version(sort_adjoint)
def _sort_adjoint(g, a, axis=-1):
    def impl(g, a, axis=-1):
        out = np.zeros(a.shape)
        _permute_lines(lines_along(out, axis), lines_along(g, axis), lines_along(a, axis), True)
        return out

    return impl


@_jit_version(sort_tangent)
def _sort_tangent(t, a, axis=-1):
    if _is_none(axis):
        def flat(t, a, axis=-1):
            out = np.empty(a.size)
            _permute_lines(lines_along(out, None), lines_along(t, None), lines_along(a, None),
                           False)
            return out
        return flat

    def along(t, a, axis=-1):
        out = np.empty(a.shape)
        _permute_lines(lines_along(out, axis), lines_along(t, axis), lines_along(a, axis),
                       False)
        return out

    return along

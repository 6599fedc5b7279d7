"""Array helpers: reshaping any layout, writes through an index and their adjoints,
strong zeros, `stop_gradient`, and the adjoint of `np.diag`."""

import numpy as np
from numba import literal_unroll, types
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import register_jitable

from srcad.runtime.loops import _common_shape, _unless_zero, elementwise
from srcad.runtime.overloads import _is_array, _is_none, _jit_version


def reshape(x, shape):
    """np.reshape(x, shape), for arrays of any layout."""
    return np.reshape(x, shape)


@_jit_version(reshape)
def _reshape(x, shape):
    return lambda x, shape: np.reshape(np.ascontiguousarray(x), shape)


# subscripts


def scatter_add(d, index, g):
    """d[index] += g for an integer array `index` (of any rank), or a tuple of integer
    arrays picking along the first axes (`d[r, c] += g`), repeated indices adding up."""
    np.add.at(d, index, g)


@_jit_version(scatter_add)
def _scatter_add(d, index, g):
    if isinstance(index, types.BaseTuple):
        lines_of, lead = _picks(index), len(index)
        zeros = (0,) * lead

        def picked(d, index, g):
            lines, shape = lines_of(d.shape, index)
            gl = _per_pick(g, shape, d.shape[lead:])
            for k in range(lines.shape[1]):
                d[_at(lines, k, zeros)] += gl[k]
        return picked
    if _is_array(g):
        def impl(d, index, g):
            flat = index.ravel()
            lines = np.ascontiguousarray(g).reshape((flat.shape[0],) + d.shape[1:])
            for k in range(flat.shape[0]):
                d[flat[k]] += lines[k]
        return impl

    def impl_scalar(d, index, g):
        flat = index.ravel()
        for k in range(flat.shape[0]):
            d[flat[k]] += g
    return impl_scalar


# subscripts by a tuple of integer arrays, `x[r, c]`, which Numba does not compile: the
# arrays broadcast to one shape, and each of their elements picks along the first axes


def pick(x, index):
    """x[index], for a tuple of integer arrays `index`."""
    return x[index]


def put(x, index, v):
    """x[index] = v, for a tuple of integer arrays `index` (where an index repeats, the
    last write stays)."""
    x[index] = v


@register_jitable
def _wrapped(i, n):
    """Index `i` of an axis of length `n`, counted from the end when negative."""
    if i < -n or i >= n:
        raise IndexError("index out of bounds")
    return i + n if i < 0 else i


@register_jitable
def _per_pick(v, picked, rest):
    """`v` broadcast to the selection (`picked + rest`), one row per picked element."""
    size = 1
    for n in picked:
        size *= n
    return np.ascontiguousarray(np.broadcast_to(v, picked + rest)).reshape((size,) + rest)


@register_jitable
def _at(lines, k, zeros):
    """The `k`-th tuple of indices of `lines` (one row per picked axis); `zeros`, a tuple
    of as many 0s."""
    at = zeros
    for a in range(len(zeros)):
        at = tuple_setitem(at, a, lines[a, k])
    return at


def _picks(index):
    """For the Numba type of a tuple of integer arrays: a jitted `lines_of(shape, index)`
    giving the picked indices, counted from the front, one row per array (its elements
    broadcast against the others', in C order), and the shape they broadcast to."""
    lead = len(index)
    ones = (1,) * max(t.ndim for t in index)

    def lines_of(shape, index):
        common = ones
        for arr in literal_unroll(index):
            common = _common_shape(common, arr.shape, ones)
        size = 1
        for n in common:
            size *= n
        lines = np.empty((lead, size), np.intp)
        a = 0
        for arr in literal_unroll(index):
            spread = np.ascontiguousarray(np.broadcast_to(arr, common)).reshape(size)
            for k in range(size):
                lines[a, k] = _wrapped(spread[k], shape[a])
            a += 1
        return lines, common

    return register_jitable(lines_of)


@_jit_version(pick)
def _pick(x, index):
    lines_of, lead = _picks(index), len(index)
    zeros = (0,) * lead

    def impl(x, index):
        lines, shape = lines_of(x.shape, index)
        out = np.empty((lines.shape[1],) + x.shape[lead:], x.dtype)
        for k in range(lines.shape[1]):
            out[k] = x[_at(lines, k, zeros)]
        return out.reshape(shape + x.shape[lead:])
    return impl


@_jit_version(put)
def _put(x, index, v):
    lines_of, lead = _picks(index), len(index)
    zeros = (0,) * lead

    def impl(x, index, v):
        lines, shape = lines_of(x.shape, index)
        vl = _per_pick(v, shape, x.shape[lead:])
        for k in range(lines.shape[1]):
            x[_at(lines, k, zeros)] = vl[k]
    return impl


def roll(a, shift, axis=None):
    """np.roll(a, shift, axis) for an integer shift."""
    return np.roll(a, shift, axis=axis)


@_jit_version(roll)
def _roll(a, shift, axis=None):
    if _is_none(axis):
        return lambda a, shift, axis=None: np.roll(a, shift)

    def along(a, shift, axis=None):  # 1-d and 2-d arrays
        out = np.empty_like(a)
        if a.ndim == 1:
            out[:] = np.roll(a, shift)
            return out
        n = a.shape[axis]
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                if axis % 2 == 0:
                    out[(i + shift) % n, j] = a[i, j]
                else:
                    out[i, (j + shift) % n] = a[i, j]
        return out
    return along


def take_written(d, index):
    """For `x[index] = v` with an integer array `index` (of any rank), or a tuple of them
    picking along the first axes: the cotangent of `v` (shaped like `x[index]`), and `d`
    (the cotangent of `x`) cleared where the write landed. Where `index` repeats, the
    last write is the one that stays, so only it gets the cotangent."""
    lead = len(index) if isinstance(index, tuple) else 1
    cells = np.arange(int(np.prod(d.shape[:lead]))).reshape(d.shape[:lead])[index]
    flat = np.ravel(cells)
    out = np.zeros((flat.shape[0],) + d.shape[lead:], dtype=d.dtype)
    seen = np.zeros(max(int(np.prod(d.shape[:lead])), 1), dtype=bool)
    for k in range(flat.shape[0] - 1, -1, -1):
        j = flat[k]
        if not seen[j]:
            out[k] = d[np.unravel_index(j, d.shape[:lead])]
            seen[j] = True
    d[index] = 0.0
    return out.reshape(cells.shape + d.shape[lead:])


@_jit_version(take_written)
def _take_written(d, index):
    if isinstance(index, types.BaseTuple):
        lines_of, lead = _picks(index), len(index)
        zeros = (0,) * lead

        def picked(d, index):
            lines, shape = lines_of(d.shape, index)
            size = lines.shape[1]
            out = np.zeros((size,) + d.shape[lead:], dtype=d.dtype)
            n = 1
            for a in range(lead):
                n *= d.shape[a]
            seen = np.zeros(n, dtype=np.bool_)
            for k in range(size - 1, -1, -1):
                j = 0
                for a in range(lead):
                    j = j * d.shape[a] + lines[a, k]
                if not seen[j]:
                    out[k] = d[_at(lines, k, zeros)]
                    seen[j] = True
            for k in range(size):
                d[_at(lines, k, zeros)] = 0.0
            return out.reshape(shape + d.shape[lead:])
        return picked

    def impl(d, index):
        n, flat = d.shape[0], index.ravel()
        out = np.zeros((flat.shape[0],) + d.shape[1:], dtype=d.dtype)
        seen = np.zeros(n, dtype=np.bool_)
        for k in range(flat.shape[0] - 1, -1, -1):
            j = flat[k] % n
            if not seen[j]:
                out[k] = d[j]
                seen[j] = True
        for k in range(flat.shape[0]):
            d[flat[k] % n] = 0.0
        return out.reshape(index.shape + d.shape[1:])

    return impl


@register_jitable(cache=True)
def astype(x, dtype):
    """x.astype(dtype): a new array of that dtype (a type, or another array's dtype)."""
    return x.astype(dtype)


@register_jitable(cache=True)
def flatten(x):
    """x.flatten(): a 1-d copy."""
    return np.ravel(x).copy()


def strong(g, value):
    """`value` where the cotangent `g` is nonzero, else 0: a cotangent that a mask set to
    zero stays zero through the operation (0 * inf and 0 * nan count as 0). `value` is
    an adjoint term, linear in `g`: without a NaN or an infinity in it, it is 0 where `g`
    is, and comes back as it is (one pass to sum it, where the test and the choice
    are two passes and two new arrays)."""
    if np.ndim(g) or np.ndim(value):
        if np.isfinite(np.sum(value)):
            return value
        return np.where(g == 0.0, 0.0, value)
    return 0.0 if g == 0.0 else value


@_jit_version(strong)
def _strong(g, value):
    if any(_is_array(t) and t.ndim > 0 for t in (g, value)):  # loops (srcad.runtime.loops)
        run = elementwise(_unless_zero, strong, g, value)
        return lambda g, value: run(g, value, None)
    if _is_array(g) or _is_array(value):
        return lambda g, value: np.where(g == 0.0, 0.0, value)
    return lambda g, value: 0.0 if g == 0.0 else value


@register_jitable(cache=True)
def stop_gradient(x):
    """`x` itself, through which no gradient flows (see srcad.stop_gradient)."""
    return x


def diag_adjoint(g, v, k):
    """Adjoint of np.diag(v, k): the k-th diagonal of g (v a vector), or g placed on the
    k-th diagonal of an array shaped like v (v a matrix)."""
    if np.ndim(v) == 1:
        return np.diag(g, k)
    out = np.zeros(np.shape(v))
    rows = np.arange(g.shape[0])
    out[rows + max(-k, 0), rows + max(k, 0)] = g
    return out


@_jit_version(diag_adjoint)
def _diag_adjoint(g, v, k):
    if v.ndim == 1:
        return lambda g, v, k: np.diag(g, k)

    def impl(g, v, k):
        out = np.zeros(v.shape)
        for r in range(g.shape[0]):
            out[r + max(-k, 0), r + max(k, 0)] = g[r]
        return out

    return impl

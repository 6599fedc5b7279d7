"""Helpers that gather, scatter, order and broadcast, where Numba's NumPy lacks a form, and
their adjoints: np.take (with `axis`), np.argsort along an axis, np.bincount's weights,
np.broadcast_to, np.nan_to_num, and np.interp (with `left`, `right`)."""
import numpy as np
from numba.core import types
from numba.extending import register_jitable
from numba.np.unsafe.ndarray import to_fixed_tuple

from srcad.runtime.axes import _axis, lines_along
from srcad.runtime.elementwise import unbroadcast
from srcad.runtime.overloads import _is_array, _is_none, _jit_version

# np.take: the adjoint adds each gathered element's cotangent back where it came from


def take(a, indices, axis=None):
    """np.take(a, indices, axis): `indices` an int or an array of ints."""
    return np.take(a, indices, axis)


@_jit_version(take)
def _take(a, indices, axis=None):
    if _is_none(axis):
        return lambda a, indices, axis=None: np.take(a, indices)
    if not _is_array(indices):
        return lambda a, indices, axis=None: np.take(a, indices, axis=axis)
    rank = a.ndim - 1 + indices.ndim  # Numba's np.take gathers along an axis by a vector

    def impl(a, indices, axis=None):
        ax = _axis(axis, a.ndim)
        lines = lines_along(a, ax)
        index = np.ascontiguousarray(indices).ravel()
        n = lines.shape[1]
        out = np.empty((lines.shape[0], index.shape[0], lines.shape[2]), a.dtype)
        for k in range(index.shape[0]):
            if index[k] < -n or index[k] >= n:
                raise IndexError("np.take: index out of bounds")
            out[:, k, :] = lines[:, index[k] % n, :]
        shape = np.empty(rank, np.intp)
        for i in range(rank):
            if i < ax:
                shape[i] = a.shape[i]
            elif i < ax + indices.ndim:
                shape[i] = indices.shape[i - ax]
            else:
                shape[i] = a.shape[i - indices.ndim + 1]
        return out.reshape(to_fixed_tuple(shape, rank))

    return impl


@register_jitable(cache=True)
def _scatter_lines(out, g, index):
    """out[:, index[k] % n, :] += g[:, k, :], lines as `lines_along` gives them."""
    n = out.shape[1]
    for k in range(index.shape[0]):
        j = index[k] % n
        out[:, j, :] += g[:, k, :]


def take_adjoint(g, a, indices, axis=None):
    """Adjoint of np.take(a, indices, axis) in `a`: each element gets the cotangents of
    its copies (shaped like `a`, a float for a number)."""
    out = np.zeros(np.shape(a))
    index = np.ravel(indices)
    if axis is None:
        np.add.at(out.reshape(-1), index % max(out.size, 1), np.ravel(g))
    else:
        gl = np.reshape(g, lines_along(out, axis).shape[:1] + (index.size,)
                        + lines_along(out, axis).shape[2:])
        _scatter_lines(lines_along(out, axis), gl, index)
    return out


@_jit_version(take_adjoint)
def _take_adjoint(g, a, indices, axis=None):
    def impl(g, a, indices, axis=None):
        out = np.zeros(a.shape)
        index = np.asarray(indices).ravel()
        lines = lines_along(out, axis)
        gl = np.ascontiguousarray(np.asarray(g)).reshape(
            (lines.shape[0], index.shape[0], lines.shape[2]))
        _scatter_lines(lines, gl, index)
        return out

    return impl


# np.argsort along an axis (Numba's sorts 1-d arrays only)


def argsort(a, axis=-1):
    """np.argsort(a, axis), a stable sort: `axis` an int, or None for the flattened array."""
    return np.argsort(a, axis=axis, kind="stable")


@_jit_version(argsort)
def _argsort(a, axis=-1):
    if _is_none(axis):
        return lambda a, axis=-1: np.argsort(np.ascontiguousarray(a).ravel(), kind="mergesort")

    def along(a, axis=-1):
        lines = lines_along(a, axis)
        out = np.empty(lines.shape, np.intp)
        for i in range(lines.shape[0]):
            for j in range(lines.shape[2]):
                out[i, :, j] = np.argsort(lines[i, :, j], kind="mergesort")
        return out.reshape(a.shape)

    return along


# np.bincount(x, weights): each count is the sum of the weights of its values


@register_jitable(cache=True)
def bincount_adjoint(g, x):
    """Adjoint of np.bincount(x, weights) in the weights: each its value's cotangent."""
    out = np.empty(x.shape[0])
    for k in range(x.shape[0]):
        out[k] = g[x[k]]
    return out


# np.broadcast_to: the adjoint sums the copies back


def broadcast_adjoint(g, array):
    """Adjoint of np.broadcast_to(array, shape): `g` summed over the broadcast axes, shaped
    like `array` (a float for a number)."""
    if np.ndim(array) == 0:
        return float(np.sum(g))
    return unbroadcast(np.asarray(g), np.asarray(array))


@_jit_version(broadcast_adjoint)
def _broadcast_adjoint(g, array):
    if _is_array(array):
        return lambda g, array: unbroadcast(g, array)
    return lambda g, array: np.sum(g)


def broadcast_to(array, shape):
    """np.broadcast_to(array, shape), of a number too."""
    return np.broadcast_to(array, shape)


@_jit_version(broadcast_to)
def _broadcast_to(array, shape):
    if _is_array(array):
        return lambda array, shape: np.broadcast_to(array, shape)
    return lambda array, shape: np.broadcast_to(np.full(1, array)[0], shape)


# np.nan_to_num: finite values kept (derivative 1), the others replaced (derivative 0)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """np.nan_to_num(x, copy, nan, posinf, neginf); always a new value."""
    return np.nan_to_num(x, True, nan, posinf, neginf)


@register_jitable(cache=True)
def _replaced(v, nan, posinf, neginf):
    if v != v:
        return nan
    if v == np.inf:
        return posinf
    if v == -np.inf:
        return neginf
    return v


@_jit_version(nan_to_num)
def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    big = np.finfo(np.float64).max
    hi = (lambda posinf: big) if _is_none(posinf) else (lambda posinf: posinf * 1.0)
    lo = (lambda neginf: -big) if _is_none(neginf) else (lambda neginf: neginf * 1.0)
    hi, lo = register_jitable(hi), register_jitable(lo)
    if not _is_array(x):
        return lambda x, copy=True, nan=0.0, posinf=None, neginf=None: _replaced(
            x * 1.0, nan * 1.0, hi(posinf), lo(neginf))

    def impl(x, copy=True, nan=0.0, posinf=None, neginf=None):
        out = np.empty(x.shape)
        flat, xs = out.reshape(out.size), np.ascontiguousarray(x).ravel()
        top, bottom = hi(posinf), lo(neginf)
        for i in range(xs.shape[0]):
            flat[i] = _replaced(xs[i] * 1.0, nan * 1.0, top, bottom)
        return out

    return impl


# np.interp(x, xp, fp, left, right): piecewise linear through (xp, fp); `xp` is taken as
# constant, the derivatives are in `x` (the slope of its segment, 0 outside) and in `fp`
# (the two weights of each x's segment, 1 at an end it is clamped to)


def interp(x, xp, fp, left=None, right=None):
    """np.interp(x, xp, fp, left, right)."""
    return np.interp(x, xp, fp, left, right)


@register_jitable(cache=True)
def _segment(v, xp):
    """(j, w, where) for one value: its segment [xp[j], xp[j + 1]], its weight on xp[j + 1],
    and where it lies: -1 left of xp[0], 1 right of xp[-1], 0 within."""
    n = xp.shape[0]
    if v < xp[0]:
        return 0, 0.0, -1
    if v > xp[n - 1]:
        return max(n - 2, 0), 1.0, 1
    if n == 1:
        return 0, 0.0, 0
    j = min(np.searchsorted(xp, v, side="right") - 1, n - 2)
    return j, (v - xp[j]) / (xp[j + 1] - xp[j]), 0


@register_jitable(cache=True)
def _slope(v, xp, fp):
    j, w, where = _segment(v, xp)
    if where != 0 or xp.shape[0] == 1:
        return 0.0
    return (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])


@register_jitable(cache=True)
def _fp_weights_into(out, g, xs, xp, left_given, right_given):
    """out[j] += g * (weight of fp[j]) for each value of `xs` and its cotangent in `g`."""
    n = xp.shape[0]
    for i in range(xs.shape[0]):
        j, w, where = _segment(xs[i], xp)
        if where < 0:
            if not left_given:
                out[0] += g[i]
        elif where > 0:
            if not right_given:
                out[n - 1] += g[i]
        elif n == 1:
            out[0] += g[i]
        else:
            out[j] += g[i] * (1.0 - w)
            out[j + 1] += g[i] * w


def interp_dx(x, xp, fp):
    """The slope of np.interp(x, xp, fp) at each x: its segment's, 0 outside [xp[0], xp[-1]]."""
    xs = np.ravel(np.asarray(x, dtype=float))
    out = np.array([_slope(v, np.asarray(xp, dtype=float), np.asarray(fp, dtype=float))
                    for v in xs])
    return out.reshape(np.shape(x)) if np.ndim(x) else float(out[0])


@_jit_version(interp_dx)
def _interp_dx(x, xp, fp):
    if not _is_array(x):
        return lambda x, xp, fp: _slope(x * 1.0, xp, fp)

    def impl(x, xp, fp):
        xs = np.ascontiguousarray(x).ravel()
        out = np.empty(xs.shape[0])
        for i in range(xs.shape[0]):
            out[i] = _slope(xs[i] * 1.0, xp, fp)
        return out.reshape(x.shape)

    return impl


def interp_dfp(g, x, xp, fp, left=None, right=None):
    """Adjoint of np.interp(x, xp, fp, left, right) in `fp`."""
    out = np.zeros(np.shape(fp))
    _fp_weights_into(out, np.ravel(np.asarray(g, dtype=float)) * np.ones(np.size(x)),
                     np.ravel(np.asarray(x, dtype=float)), np.asarray(xp, dtype=float),
                     left is not None, right is not None)
    return out


@_jit_version(interp_dfp)
def _interp_dfp(g, x, xp, fp, left=None, right=None):
    left_given, right_given = not _is_none(left), not _is_none(right)

    def impl(g, x, xp, fp, left=None, right=None):
        out = np.zeros(fp.shape)
        xs = np.asarray(x).ravel() * 1.0
        gs = np.asarray(g).ravel() * np.ones(xs.shape[0])
        _fp_weights_into(out, gs, xs, xp, left_given, right_given)
        return out

    return impl


def interp_tfp(x, xp, t, left=None, right=None):
    """Tangent of np.interp(x, xp, fp, left, right) along `t` in `fp` (the values replaced
    by `left` and `right` do not move)."""
    return np.interp(x, xp, t, None if left is None else 0.0, None if right is None else 0.0)


@_jit_version(interp_tfp)
def _interp_tfp(x, xp, t, left=None, right=None):
    if _is_none(left) and _is_none(right):
        return lambda x, xp, t, left=None, right=None: interp(x, xp, t, None, None)
    if _is_none(left):
        return lambda x, xp, t, left=None, right=None: interp(x, xp, t, None, 0.0)
    if _is_none(right):
        return lambda x, xp, t, left=None, right=None: interp(x, xp, t, 0.0, None)
    return lambda x, xp, t, left=None, right=None: interp(x, xp, t, 0.0, 0.0)


@_jit_version(interp)
def _interp(x, xp, fp, left=None, right=None):
    if _is_none(left) and _is_none(right):
        return lambda x, xp, fp, left=None, right=None: np.interp(x, xp, fp)
    lo = (lambda fp, left: fp[0] * 1.0) if _is_none(left) else (lambda fp, left: left * 1.0)
    hi = (lambda fp, right: fp[-1] * 1.0) if _is_none(right) else \
        (lambda fp, right: right * 1.0)
    lo, hi = register_jitable(lo), register_jitable(hi)
    if not _is_array(x):
        def one(x, xp, fp, left=None, right=None):
            if x < xp[0]:
                return lo(fp, left)
            if x > xp[-1]:
                return hi(fp, right)
            return np.interp(x, xp, fp)
        return one

    def impl(x, xp, fp, left=None, right=None):
        out = np.interp(x, xp, fp) * 1.0
        flat, xs = out.reshape(out.size), np.ascontiguousarray(x).ravel()
        for i in range(xs.shape[0]):
            if xs[i] < xp[0]:
                flat[i] = lo(fp, left)
            elif xs[i] > xp[-1]:
                flat[i] = hi(fp, right)
        return out

    return impl


# writes through a view of a local array (`u = U[1:-1]; u[i] = e`) go into the array it
# views: ViewWrites maps the view's indices to the array's (see srcad.passes.view_writes)


@register_jitable(cache=True)
def _slice_indices(n, lo, hi, step):
    """(start, stop, step) of `slice(lo, hi, step)` on an axis of length `n`, as Python's
    `slice.indices` gives them (`lo`, `hi`, `step` may be None)."""
    st = 1 if step is None else step
    if st == 0:
        raise ValueError("slice step cannot be zero")
    low, high = (-1, n - 1) if st < 0 else (0, n)
    start = high if st < 0 else low
    if lo is not None:
        start = lo + n if lo < 0 else lo
        start = max(start, low) if lo < 0 else min(start, high)
    stop = low if st < 0 else high
    if hi is not None:
        stop = hi + n if hi < 0 else hi
        stop = max(stop, low) if hi < 0 else min(stop, high)
    return start, stop, st


@register_jitable(cache=True)
def _view_length(n, lo, hi, step):
    start, stop, st = _slice_indices(n, lo, hi, step)
    if st > 0:
        return start, st, max(0, (stop - start + st - 1) // st)
    return start, st, max(0, (start - stop - st - 1) // (-st))


def view_index(i, n, lo, hi, step):
    """The index, on an axis of length `n`, of element `i` (an int, an array of ints, or
    a 1-d mask) of its slice `lo:hi:step`. IndexError past either end of the slice, as
    NumPy raises for the view."""
    start, st, length = _view_length(n, lo, hi, step)
    if np.asarray(i).dtype == np.bool_:  # a mask along the axis: the places it selects
        if np.shape(i) != (length,):
            raise IndexError("the mask's length is not the view's")
        return start + np.flatnonzero(i) * st
    k = np.where(np.asarray(i) < 0, np.asarray(i) + length, i)
    if np.any((k < 0) | (k >= length)):
        raise IndexError("index out of range of the view it indexes")
    return start + k * st if np.ndim(i) else int(start + k * st)


@_jit_version(view_index)
def _view_index(i, n, lo, hi, step):
    if _is_array(i) and isinstance(i.dtype, types.Boolean):
        def impl_mask(i, n, lo, hi, step):
            start, st, length = _view_length(n, lo, hi, step)
            if i.shape[0] != length:
                raise IndexError("the mask's length is not the view's")
            return start + np.flatnonzero(i) * st
        return impl_mask
    if _is_array(i):
        def impl(i, n, lo, hi, step):
            start, st, length = _view_length(n, lo, hi, step)
            out = np.empty(i.shape, np.intp)
            for j, v in np.ndenumerate(i):
                k = v + length if v < 0 else v
                if k < 0 or k >= length:
                    raise IndexError("index out of range of the view it indexes")
                out[j] = start + k * st
            return out
        return impl

    def impl_int(i, n, lo, hi, step):
        start, st, length = _view_length(n, lo, hi, step)
        k = i + length if i < 0 else i
        if k < 0 or k >= length:
            raise IndexError("index out of range of the view it indexes")
        return start + k * st
    return impl_int


@register_jitable(cache=True)
def view_slice(n, lo, hi, step, a, b, c):
    """(start, stop, step) on an axis of length `n` of the slice `a:b:c` of its slice
    `lo:hi:step`: `U[lo:hi:step][a:b:c]` is `U[start:stop:step]`."""
    start, st, length = _view_length(n, lo, hi, step)
    first, inner, count = _view_length(length, a, b, c)
    if count == 0:
        return 0, 0, 1
    begin, by = start + first * st, st * inner
    end = begin + count * by
    return begin, (end if end >= 0 else -n - 1), by  # past index 0 going down: not -1

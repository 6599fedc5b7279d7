"""Helpers for the rules of srcad/rules/numpy_arrangements.py: functions that rearrange,
pad, split or integrate arrays where Numba's NumPy lacks them (or their arguments), and
their adjoints. Each runs as NumPy in Python; compiled, a result's rank is known when the
helper is typed and its shape is filled in at run time (`to_fixed_tuple`).
"""
import numpy as np
from numba import types
from numba.extending import register_jitable
from numba.np.unsafe.ndarray import to_fixed_tuple

from srcad.runtime.axes import _axis, _lines, lines_along
from srcad.runtime.order import nancount, nanmean, nansum
from srcad.runtime.overloads import _is_array, _is_none, _jit_version
from srcad.runtime.reductions import expand, prod
from srcad.runtime.scans import cumprod, cumsum
from srcad.runtime.splits import split_piece, split_piece_adjoint

# ---------------------------------------------------------------------------
# moving axes: np.diagonal, np.rot90, np.rollaxis
# ---------------------------------------------------------------------------


@register_jitable(cache=True)
def _others_then(ndim, first, second):
    """The permutation putting axes `first` and `second` last, the others in order."""
    perm = np.empty(ndim, np.int64)
    k = 0
    for i in range(ndim):
        if i != first and i != second:
            perm[k] = i
            k += 1
    perm[ndim - 2], perm[ndim - 1] = first, second
    return perm


@register_jitable(cache=True)
def _inverse(perm):
    out = np.empty_like(perm)
    for i in range(perm.shape[0]):
        out[perm[i]] = i
    return out


@register_jitable(cache=True)
def _diagonal_frame(shape, offset, axis1, axis2):
    """(the permutation, the diagonal's length, its first row and column) of
    np.diagonal(offset, axis1, axis2) of an array of `shape`."""
    ndim = len(shape)
    ax1, ax2 = _axis(axis1, ndim), _axis(axis2, ndim)
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 cannot be the same")
    n1, n2 = shape[ax1], shape[ax2]
    length = min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2)
    return _others_then(ndim, ax1, ax2), max(length, 0), max(-offset, 0), max(offset, 0)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """np.diagonal(a, offset, axis1, axis2), a new array."""
    return np.diagonal(a, offset, axis1, axis2).copy()


@_jit_version(diagonal)
def _diagonal_jit(a, offset=0, axis1=0, axis2=1):
    rank = a.ndim - 1

    def impl(a, offset=0, axis1=0, axis2=1):
        perm, length, row, col = _diagonal_frame(a.shape, offset, axis1, axis2)
        moved = np.ascontiguousarray(np.transpose(a, to_fixed_tuple(perm, a.ndim)))
        n1, n2 = moved.shape[a.ndim - 2], moved.shape[a.ndim - 1]
        blocks = moved.reshape((a.size // max(n1 * n2, 1), n1, n2))
        out = np.empty((blocks.shape[0], length), a.dtype)
        for m in range(blocks.shape[0]):
            for i in range(length):
                out[m, i] = blocks[m, row + i, col + i]
        shape = np.empty(rank, np.int64)
        for i in range(rank - 1):
            shape[i] = a.shape[perm[i]]
        shape[rank - 1] = length
        return out.reshape(to_fixed_tuple(shape, rank))

    return impl


def diagonal_adjoint(g, shape, offset=0, axis1=0, axis2=1):
    """Adjoint of np.diagonal: zeros of `shape` with `g` on the diagonal."""
    out = np.zeros(shape)
    _, length, row, col = _diagonal_frame(tuple(shape), offset, axis1, axis2)
    moved = np.moveaxis(out, (axis1, axis2), (-2, -1))
    index = np.arange(length)
    moved[..., row + index, col + index] = g
    return out


@_jit_version(diagonal_adjoint)
def _diagonal_adjoint_jit(g, shape, offset=0, axis1=0, axis2=1):
    ndim = len(shape)

    def impl(g, shape, offset=0, axis1=0, axis2=1):
        perm, length, row, col = _diagonal_frame(shape, offset, axis1, axis2)
        moved_shape = np.empty(ndim, np.int64)
        for i in range(ndim):
            moved_shape[i] = shape[perm[i]]
        n1, n2 = moved_shape[ndim - 2], moved_shape[ndim - 1]
        total = 1
        for n in shape:
            total *= n
        blocks = np.zeros((total // max(n1 * n2, 1), n1, n2))
        gl = np.ascontiguousarray(g * 1.0).reshape((blocks.shape[0], length))
        for m in range(blocks.shape[0]):
            for i in range(length):
                blocks[m, row + i, col + i] = gl[m, i]
        moved = blocks.reshape(to_fixed_tuple(moved_shape, ndim))
        return np.ascontiguousarray(
            np.transpose(moved, to_fixed_tuple(_inverse(perm), ndim)))

    return impl


def rot90(m, k=1, axes=None):
    """np.rot90(m, k, axes), a new array (None: axes (0, 1))."""
    return np.rot90(m, k, (0, 1) if axes is None else axes).copy()


@register_jitable(cache=True)
def _swap(ndim, first, second):
    perm = np.arange(ndim)
    perm[first], perm[second] = second, first
    return perm


@register_jitable(cache=True)
def _flipped(m, axis):
    return np.ascontiguousarray(_lines(m, axis)[:, ::-1, :]).reshape(m.shape)


@_jit_version(rot90)
def _rot90_jit(m, k=1, axes=None):
    plane = register_jitable((lambda axes: (0, 1)) if _is_none(axes) else (lambda axes: axes))

    def impl(m, k=1, axes=None):
        first, second = plane(axes)
        ax0, ax1 = _axis(first, m.ndim), _axis(second, m.ndim)
        if ax0 == ax1:
            raise ValueError("Axes must be different.")
        turns = k % 4
        x = np.ascontiguousarray(m)
        if turns == 0:
            return x.copy()
        if turns == 2:
            return _flipped(_flipped(x, ax0), ax1)
        perm = to_fixed_tuple(_swap(m.ndim, ax0, ax1), m.ndim)
        if turns == 1:
            return np.ascontiguousarray(np.transpose(_flipped(x, ax1), perm))
        return _flipped(np.ascontiguousarray(np.transpose(x, perm)), ax1)

    return impl


@register_jitable(cache=True)
def _rolled(ndim, axis, start):
    """The permutation np.rollaxis(a, axis, start) applies to an array of rank `ndim`."""
    axis = _axis(axis, ndim)
    if start < 0:
        start += ndim
    if start < 0 or start > ndim:
        raise ValueError("rollaxis: start is out of bounds")
    if axis < start:
        start -= 1
    perm = np.empty(ndim, np.int64)
    k = 0
    for i in range(ndim):
        if k == start:
            perm[k] = axis
            k += 1
        if i != axis:
            perm[k] = i
            k += 1
    if k == start:
        perm[k] = axis
    return perm


def rollaxis(a, axis, start=0):
    """np.rollaxis(a, axis, start), a new array."""
    return np.rollaxis(a, axis, start).copy()


def rollaxis_adjoint(g, axis, start=0):
    """Adjoint of np.rollaxis(a, axis, start): `g` with its axes put back."""
    return np.transpose(g, np.argsort(_rolled(np.ndim(g), axis, start))).copy()


@_jit_version(rollaxis)
def _rollaxis_jit(a, axis, start=0):
    def impl(a, axis, start=0):
        perm = to_fixed_tuple(_rolled(a.ndim, axis, start), a.ndim)
        return np.ascontiguousarray(np.transpose(a, perm))

    return impl


@_jit_version(rollaxis_adjoint)
def _rollaxis_adjoint_jit(g, axis, start=0):
    def impl(g, axis, start=0):
        perm = to_fixed_tuple(_inverse(_rolled(g.ndim, axis, start)), g.ndim)
        return np.ascontiguousarray(np.transpose(g, perm))

    return impl


# ---------------------------------------------------------------------------
# np.pad: each axis padded through a map from the result's indices to the array's
# ---------------------------------------------------------------------------

_MODES = ("constant", "edge", "wrap", "reflect", "symmetric")


@register_jitable(cache=True)
def _mode_code(mode):
    for code, name in enumerate(("constant", "edge", "wrap", "reflect", "symmetric")):
        if mode == name:
            return code
    raise ValueError("np.pad: the mode is not one of constant, edge, wrap, reflect, "
                     "symmetric")


@register_jitable(cache=True)
def _source(i, n, code):
    """The index of the array that position `i` (before the array: negative) of a padded
    axis of `n` elements copies, or -1 for the constant."""
    if 0 <= i < n:
        return i
    if code == 0 or n == 0:
        return -1
    if code == 1:
        return 0 if i < 0 else n - 1
    if code == 2:
        return i % n
    if code == 3:
        if n == 1:
            return 0
        m = i % (2 * n - 2)
        return m if m < n else 2 * n - 2 - m
    m = i % (2 * n)
    return m if m < n else 2 * n - 1 - m


@register_jitable(cache=True)
def _pad_maps(shape, widths, code):
    """(the padded shape, for each axis the source of each of its indices)."""
    ndim = len(shape)
    out_shape = np.empty(ndim, np.int64)
    longest = 1
    for ax in range(ndim):
        if widths[ax, 0] < 0 or widths[ax, 1] < 0:
            raise ValueError("index can't contain negative values")
        out_shape[ax] = shape[ax] + widths[ax, 0] + widths[ax, 1]
        longest = max(longest, out_shape[ax])
    maps = np.empty((ndim, longest), np.int64)
    for ax in range(ndim):
        for j in range(out_shape[ax]):
            maps[ax, j] = _source(j - widths[ax, 0], shape[ax], code)
    return out_shape, maps


@register_jitable(cache=True)
def _pad_sources(shape, out_shape, maps):
    """For each element of the padded array (C order), the flat index of the element it
    copies, or -1 for the constant."""
    total = 1
    for n in out_shape:
        total *= n
    src = np.empty(total, np.int64)
    ndim = out_shape.shape[0]
    for f in range(total):
        rem, s, mult = f, 0, 1
        for ax in range(ndim - 1, -1, -1):
            j = rem % out_shape[ax]
            rem //= out_shape[ax]
            i = maps[ax, j]
            if i < 0:
                s = -1
                break
            s += i * mult
            mult *= shape[ax]
        src[f] = s
    return src


def _widths(pad_width, ndim):
    """`pad_width` (an int, a pair, or a pair per axis) as an (ndim, 2) int array."""
    return np.broadcast_to(np.asarray(pad_width, dtype=np.int64).reshape(-1, 2)
                           if np.ndim(pad_width) == 2 else np.asarray(pad_width, np.int64),
                           (ndim, 2)).copy()


def _pad_plan(shape, pad_width, mode):
    out_shape, maps = _pad_maps(tuple(shape), _widths(pad_width, len(shape)),
                                _MODES.index(mode))
    return out_shape, _pad_sources(np.asarray(shape), out_shape, maps)


def pad(array, pad_width, mode="constant", constant_values=0):
    """np.pad(array, pad_width, mode, constant_values) for the modes `_MODES`, a number
    for the constant."""
    if mode == "constant":
        return np.pad(array, pad_width, mode, constant_values=constant_values)
    return np.pad(array, pad_width, mode)


def pad_adjoint(g, shape, pad_width, mode="constant"):
    """Adjoint of np.pad in the array: each element gets the cotangents of its copies."""
    _, src = _pad_plan(shape, pad_width, mode)
    out = np.zeros(int(np.prod(shape)))
    keep = src >= 0
    np.add.at(out, src[keep], np.ravel(g)[keep])
    return out.reshape(shape)


def pad_fill_adjoint(g, shape, pad_width):
    """Adjoint of np.pad(mode "constant") in the constant: the sum of the cotangents of
    the padding."""
    _, src = _pad_plan(shape, pad_width, "constant")
    return float(np.sum(np.ravel(g)[src < 0]))


@register_jitable(cache=True)
def _widths_int(pad_width, ndim):
    out = np.empty((ndim, 2), np.int64)
    out[:, :] = pad_width
    return out


@register_jitable(cache=True)
def _widths_pair(pad_width, ndim):
    out = np.empty((ndim, 2), np.int64)
    for ax in range(ndim):
        out[ax, 0], out[ax, 1] = pad_width[0], pad_width[1]
    return out


@register_jitable(cache=True)
def _widths_pairs(pad_width, ndim):
    out = np.empty((ndim, 2), np.int64)
    for ax in range(ndim):
        pair = pad_width[ax if len(pad_width) > 1 else 0]
        out[ax, 0], out[ax, 1] = pair[0], pair[1]
    return out


def _widths_reader(pad_width):
    """The jitable function giving np.pad's widths for `pad_width`'s Numba type."""
    if isinstance(pad_width, types.Integer):
        return _widths_int
    if isinstance(pad_width, types.BaseTuple) and len(pad_width) and all(
            isinstance(t, types.BaseTuple) for t in pad_width):
        return _widths_pairs
    if isinstance(pad_width, types.BaseTuple) and len(pad_width) == 1:
        return _widths_int_of_one
    return _widths_pair


@register_jitable(cache=True)
def _widths_int_of_one(pad_width, ndim):
    return _widths_int(pad_width[0], ndim)


def _compiled_plan(array_ndim, pad_width):
    widths_of = _widths_reader(pad_width)

    @register_jitable
    def plan(shape, pad_width, mode):
        out_shape, maps = _pad_maps(shape, widths_of(pad_width, array_ndim), _mode_code(mode))
        return out_shape, _pad_sources(_shape_array(shape), out_shape, maps)

    return plan


@register_jitable(cache=True)
def _shape_array(shape):
    out = np.empty(len(shape), np.int64)
    for i in range(len(shape)):
        out[i] = shape[i]
    return out


@_jit_version(pad)
def _pad_jit(array, pad_width, mode="constant", constant_values=0):
    ndim = array.ndim
    plan = _compiled_plan(ndim, pad_width)

    def impl(array, pad_width, mode="constant", constant_values=0):
        out_shape, src = plan(array.shape, pad_width, mode)
        flat = np.ascontiguousarray(array).ravel()
        out = np.empty(src.size, array.dtype)
        for f in range(src.size):
            out[f] = flat[src[f]] if src[f] >= 0 else constant_values
        return out.reshape(to_fixed_tuple(out_shape, ndim))

    return impl


@_jit_version(pad_adjoint)
def _pad_adjoint_jit(g, shape, pad_width, mode="constant"):
    ndim = len(shape)
    plan = _compiled_plan(ndim, pad_width)

    def impl(g, shape, pad_width, mode="constant"):
        _, src = plan(shape, pad_width, mode)
        total = 1
        for n in shape:
            total *= n
        out = np.zeros(total)
        gflat = np.ascontiguousarray(g).ravel()
        for f in range(src.size):
            if src[f] >= 0:
                out[src[f]] += gflat[f]
        return out.reshape(shape)

    return impl


@_jit_version(pad_fill_adjoint)
def _pad_fill_adjoint_jit(g, shape, pad_width):
    plan = _compiled_plan(len(shape), pad_width)

    def impl(g, shape, pad_width):
        _, src = plan(shape, pad_width, "constant")
        gflat = np.ascontiguousarray(g).ravel()
        total = 0.0
        for f in range(src.size):
            if src[f] < 0:
                total += gflat[f]
        return total

    return impl


# ---------------------------------------------------------------------------
# np.partition: the order of its elements, as flat indices (np.take gathers by them)
# ---------------------------------------------------------------------------


def partition(a, kth, axis=-1):
    """np.partition(a, kth, axis)."""
    return np.partition(a, kth, axis)


def partition_order(a, kth, axis=-1):
    """Flat indices of the elements of `a` that np.partition(a, kth, axis) puts at each
    place: `np.take(a, partition_order(a, kth, axis))` is the partition."""
    order = np.argpartition(a, kth, axis)
    flat = np.arange(np.size(a)).reshape(np.shape(a))
    return np.take_along_axis(flat, order, axis)


def argpartition(a, kth, axis=-1):
    """np.argpartition(a, kth, axis)."""
    return np.argpartition(a, kth, axis)


@register_jitable(cache=True)
def _line_order(line, kth):
    """The indices that partition the line `line` around any `kth`: its stable sorting
    order (NumPy's selection leaves the elements on each side in another order)."""
    return np.argsort(line, kind="mergesort")


@_jit_version(argpartition)
def _argpartition_jit(a, kth, axis=-1):
    def impl(a, kth, axis=-1):
        lines = lines_along(a, axis)
        out = np.empty(lines.shape, np.int64)
        for i in range(lines.shape[0]):
            for j in range(lines.shape[2]):
                out[i, :, j] = _line_order(lines[i, :, j], kth)
        return out.reshape(a.shape)

    return impl


@_jit_version(partition)
def _partition_jit(a, kth, axis=-1):
    def impl(a, kth, axis=-1):
        lines = lines_along(a, axis)
        out = np.empty(lines.shape, a.dtype)
        for i in range(lines.shape[0]):
            for j in range(lines.shape[2]):
                line = lines[i, :, j]
                out[i, :, j] = line[_line_order(line, kth)]
        return out.reshape(a.shape)

    return impl


@_jit_version(partition_order)
def _partition_order_jit(a, kth, axis=-1):
    def impl(a, kth, axis=-1):
        flat = np.arange(a.size).reshape(a.shape)
        lines = lines_along(a, axis)
        places = lines_along(flat, axis)
        out = np.empty(lines.shape, np.int64)
        for i in range(lines.shape[0]):
            for j in range(lines.shape[2]):
                out[i, :, j] = places[i, :, j][_line_order(lines[i, :, j], kth)]
        return out.reshape(a.shape)

    return impl


# ---------------------------------------------------------------------------
# np.gradient (uniform spacing) and np.trapezoid, along one axis
# ---------------------------------------------------------------------------


def _along(axis):
    return -1 if axis is None else axis


@register_jitable(cache=True)
def _gradient_lines(f, h, edge_order):
    """np.gradient of the lines `f` (before, along, after) with spacing `h`."""
    n = f.shape[1]
    if n < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                         "least (edge_order + 1) elements are required.")
    out = np.empty(f.shape)
    out[:, 1:n - 1, :] = (f[:, 2:, :] - f[:, :n - 2, :]) / (2.0 * h)
    if edge_order == 1:
        out[:, 0, :] = (f[:, 1, :] - f[:, 0, :]) / h
        out[:, n - 1, :] = (f[:, n - 1, :] - f[:, n - 2, :]) / h
    else:
        a, b, c = -1.5 / h, 2.0 / h, -0.5 / h
        out[:, 0, :] = a * f[:, 0, :] + b * f[:, 1, :] + c * f[:, 2, :]
        a, b, c = 0.5 / h, -2.0 / h, 1.5 / h
        out[:, n - 1, :] = a * f[:, n - 3, :] + b * f[:, n - 2, :] + c * f[:, n - 1, :]
    return out


@register_jitable(cache=True)
def _gradient_lines_adjoint(g, h, edge_order):
    n = g.shape[1]
    out = np.zeros(g.shape)
    out[:, 2:, :] += g[:, 1:n - 1, :] / (2.0 * h)
    out[:, :n - 2, :] -= g[:, 1:n - 1, :] / (2.0 * h)
    if edge_order == 1:
        out[:, 1, :] += g[:, 0, :] / h
        out[:, 0, :] -= g[:, 0, :] / h
        out[:, n - 1, :] += g[:, n - 1, :] / h
        out[:, n - 2, :] -= g[:, n - 1, :] / h
    else:
        out[:, 0, :] += -1.5 / h * g[:, 0, :]
        out[:, 1, :] += 2.0 / h * g[:, 0, :]
        out[:, 2, :] += -0.5 / h * g[:, 0, :]
        out[:, n - 3, :] += 0.5 / h * g[:, n - 1, :]
        out[:, n - 2, :] += -2.0 / h * g[:, n - 1, :]
        out[:, n - 1, :] += 1.5 / h * g[:, n - 1, :]
    return out


def gradient(f, spacing=1.0, axis=None, edge_order=1):
    """np.gradient(f, spacing, axis=axis, edge_order=edge_order) of a 1-d `f`, or along
    one axis: one array."""
    return np.gradient(f, spacing, axis=axis, edge_order=edge_order)


def gradient_adjoint(g, spacing=1.0, axis=None, edge_order=1):
    """Adjoint of np.gradient in `f` (shaped like `g`)."""
    lines = _gradient_lines_adjoint(lines_along(g * 1.0, _along(axis)), spacing, edge_order)
    return lines.reshape(np.shape(g))


@_jit_version(gradient)
def _gradient_jit(f, spacing=1.0, axis=None, edge_order=1):
    def impl(f, spacing=1.0, axis=None, edge_order=1):
        along = -1 if axis is None else axis
        return _gradient_lines(lines_along(f * 1.0, along), spacing, edge_order).reshape(
            f.shape)

    return impl


@_jit_version(gradient_adjoint)
def _gradient_adjoint_jit(g, spacing=1.0, axis=None, edge_order=1):
    def impl(g, spacing=1.0, axis=None, edge_order=1):
        along = -1 if axis is None else axis
        return _gradient_lines_adjoint(lines_along(g * 1.0, along), spacing,
                                       edge_order).reshape(g.shape)

    return impl


def _steps_reader(x):
    """A jitable function of (x, dx, n, axis) giving the steps of the trapezoid rule as
    (before or 1, n - 1, after or 1) lines, for `x` of Numba type `x` (None: `dx`)."""
    if _is_none(x):
        return register_jitable(lambda x, dx, n, axis: np.full((1, max(n - 1, 0), 1),
                                                               dx * 1.0))
    if x.ndim == 1:
        def along(x, dx, n, axis):
            xl = np.ascontiguousarray(x * 1.0)
            return np.ascontiguousarray(xl[1:] - xl[:n - 1]).reshape((1, max(n - 1, 0), 1))
        return register_jitable(along)

    def like_y(x, dx, n, axis):
        xl = lines_along(x * 1.0, axis)
        return np.ascontiguousarray(xl[:, 1:, :] - xl[:, :n - 1, :])
    return register_jitable(like_y)


@register_jitable(cache=True)
def _trapezoid_lines(lines, d):
    out = np.zeros((lines.shape[0], lines.shape[2]))
    for i in range(lines.shape[0]):
        for j in range(lines.shape[2]):
            di, dj = min(i, d.shape[0] - 1), min(j, d.shape[2] - 1)
            for k in range(lines.shape[1] - 1):
                out[i, j] += d[di, k, dj] * (lines[i, k + 1, j] + lines[i, k, j]) / 2.0
    return out


def _x_lines(x, axis):
    if x is None:
        return None
    x = np.asarray(x, dtype=np.float64)
    return x.reshape(1, -1, 1) if x.ndim == 1 else lines_along(x, axis)


def _steps_py(x, dx, n, axis):
    if x is None:
        return np.full((1, max(n - 1, 0), 1), float(dx))
    xl = _x_lines(x, axis)
    return xl[:, 1:, :] - xl[:, :-1, :]


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """np.trapezoid(y, x, dx, axis): a float for a 1-d `y`."""
    out = np.trapezoid(y, x, dx, axis)
    return float(out) if np.ndim(out) == 0 else out


def trapezoid_dy(g, y, x=None, dx=1.0, axis=-1):
    """Adjoint of np.trapezoid in `y`: each value weighs half its two steps."""
    lines = lines_along(np.asarray(y, dtype=np.float64), axis)
    d = _steps_py(x, dx, lines.shape[1], axis)
    w = np.zeros((d.shape[0], d.shape[1] + 1, d.shape[2]))
    w[:, 1:, :] += d / 2.0
    w[:, :-1, :] += d / 2.0
    gl = np.reshape(g, (lines.shape[0], 1, lines.shape[2]))
    return (gl * w).reshape(np.shape(y))


def trapezoid_dx(g, y, x, axis=-1):
    """Adjoint of np.trapezoid in the abscissae `x` (1-d along the axis, or like `y`)."""
    lines = lines_along(np.asarray(y, dtype=np.float64), axis)
    gl = np.reshape(g, (lines.shape[0], 1, lines.shape[2]))
    pairs = gl * (lines[:, 1:, :] + lines[:, :-1, :]) / 2.0  # d(result)/d(step)
    out = np.zeros(lines.shape)
    out[:, 1:, :] += pairs
    out[:, :-1, :] -= pairs
    if np.ndim(x) == 1:
        return out.sum(axis=(0, 2))
    return out.reshape(np.shape(y))


@_jit_version(trapezoid)
def _trapezoid_jit(y, x=None, dx=1.0, axis=-1):
    rank = y.ndim - 1
    steps = _steps_reader(x)

    def lines_of(y, x, dx, axis):
        lines = lines_along(y * 1.0, axis)
        return _trapezoid_lines(lines, steps(x, dx, lines.shape[1], axis))

    lines_of = register_jitable(lines_of)
    if rank == 0:
        return lambda y, x=None, dx=1.0, axis=-1: lines_of(y, x, dx, axis)[0, 0]

    def impl(y, x=None, dx=1.0, axis=-1):
        out = lines_of(y, x, dx, axis)
        shape = np.empty(rank, np.int64)
        ax = _axis(axis, y.ndim)
        k = 0
        for i in range(y.ndim):
            if i != ax:
                shape[k] = y.shape[i]
                k += 1
        return out.reshape(to_fixed_tuple(shape, rank))

    return impl


@_jit_version(trapezoid_dy)
def _trapezoid_dy_jit(g, y, x=None, dx=1.0, axis=-1):
    steps = _steps_reader(x)

    def impl(g, y, x=None, dx=1.0, axis=-1):
        lines = lines_along(y * 1.0, axis)
        n = lines.shape[1]
        d = steps(x, dx, n, axis)
        gl = np.ascontiguousarray(np.asarray(g) * 1.0).reshape((lines.shape[0],
                                                                lines.shape[2]))
        out = np.zeros(lines.shape)
        for i in range(lines.shape[0]):
            for j in range(lines.shape[2]):
                di, dj = min(i, d.shape[0] - 1), min(j, d.shape[2] - 1)
                for k in range(n - 1):
                    half = d[di, k, dj] / 2.0 * gl[i, j]
                    out[i, k, j] += half
                    out[i, k + 1, j] += half
        return out.reshape(y.shape)

    return impl


@_jit_version(trapezoid_dx)
def _trapezoid_dx_jit(g, y, x, axis=-1):
    one_d = x.ndim == 1

    def impl(g, y, x, axis=-1):
        lines = lines_along(y * 1.0, axis)
        n = lines.shape[1]
        gl = np.ascontiguousarray(np.asarray(g) * 1.0).reshape((lines.shape[0],
                                                                lines.shape[2]))
        out = np.zeros(lines.shape)
        for i in range(lines.shape[0]):
            for j in range(lines.shape[2]):
                for k in range(n - 1):
                    pair = gl[i, j] * (lines[i, k + 1, j] + lines[i, k, j]) / 2.0
                    out[i, k + 1, j] += pair
                    out[i, k, j] -= pair
        if one_d:
            summed = np.zeros(n)
            for i in range(lines.shape[0]):
                for k in range(n):
                    for j in range(lines.shape[2]):
                        summed[k] += out[i, k, j]
            return summed.reshape(x.shape)
        return out.reshape(x.shape)

    return impl


# ---------------------------------------------------------------------------
# np.append, np.vdot, np.polyval, np.select, np.meshgrid
# ---------------------------------------------------------------------------


def append_head(g, arr, axis=None):
    """Adjoint of np.append(arr, values, axis) in `arr`: its part of `g`."""
    if axis is None:
        part = np.ravel(g)[:np.size(arr)]
        return part.reshape(np.shape(arr)) if np.ndim(arr) else float(part[0])
    return np.take(g, np.arange(np.shape(arr)[axis]), axis)


def append_tail(g, arr, values, axis=None):
    """Adjoint of np.append(arr, values, axis) in `values`."""
    if axis is None:
        part = np.ravel(g)[np.size(arr):]
        return part.reshape(np.shape(values)) if np.ndim(values) else float(part[0])
    n = np.shape(arr)[axis]
    return np.take(g, np.arange(n, n + np.shape(values)[axis]), axis)


@register_jitable(cache=True)
def _cut(g, axis, lo, hi, like_shape):
    """`g`'s elements lo:hi along `axis`, shaped `like_shape` (a tuple)."""
    return np.ascontiguousarray(_lines(g, axis)[:, lo:hi, :]).reshape(like_shape)


@_jit_version(append_head)
def _append_head_jit(g, arr, axis=None):
    if not _is_array(arr):
        return lambda g, arr, axis=None: np.ascontiguousarray(g).ravel()[0]
    if _is_none(axis):
        return lambda g, arr, axis=None: \
            np.ascontiguousarray(g).ravel()[:arr.size].copy().reshape(arr.shape)
    return lambda g, arr, axis=None: _cut(g, _axis(axis, g.ndim), 0,
                                          arr.shape[_axis(axis, g.ndim)], arr.shape)


@_jit_version(append_tail)
def _append_tail_jit(g, arr, values, axis=None):
    size = (lambda arr: arr.size) if _is_array(arr) else (lambda arr: 1)
    size = register_jitable(size)
    if not _is_array(values):
        return lambda g, arr, values, axis=None: np.ascontiguousarray(g).ravel()[size(arr)]
    if _is_none(axis):
        return lambda g, arr, values, axis=None: \
            np.ascontiguousarray(g).ravel()[size(arr):].copy().reshape(values.shape)

    def impl(g, arr, values, axis=None):
        ax = _axis(axis, g.ndim)
        n = arr.shape[ax]
        return _cut(g, ax, n, n + values.shape[ax], values.shape)

    return impl


def vdot(a, b):
    """np.vdot(a, b) of real arrays: the sum of the products of their flattened elements."""
    return float(np.vdot(a, b))


@_jit_version(vdot)
def _vdot_jit(a, b):
    def impl(a, b):
        if a.size != b.size:
            raise ValueError("cannot reshape array: vdot takes arrays of one size")
        return np.dot(np.ascontiguousarray(a * 1.0).ravel(),
                      np.ascontiguousarray(b * 1.0).ravel())

    return impl


def polyval(p, x):
    """np.polyval(p, x): the polynomial with coefficients `p` (highest power first)."""
    return np.polyval(p, x)


def polyval_dp(g, p, x):
    """Adjoint of np.polyval(p, x) in `p`: the sums of g * x ** (n - 1 - j)."""
    out = np.empty(np.shape(p))
    power = np.ones_like(np.asarray(x, dtype=np.float64))
    for j in range(out.shape[0] - 1, -1, -1):
        out[j] = np.sum(g * power)
        power = power * x
    return out


@_jit_version(polyval)
def _polyval_jit(p, x):
    if _is_array(x):
        def impl(p, x):
            y = np.zeros(x.shape)
            for k in range(p.shape[0]):
                y = y * x + p[k]
            return y
        return impl

    def scalar(p, x):
        y = 0.0
        for k in range(p.shape[0]):
            y = y * x + p[k]
        return y

    return scalar


@_jit_version(polyval_dp)
def _polyval_dp_jit(g, p, x):
    def impl(g, p, x):
        out = np.empty(p.shape[0])
        power = x * 0.0 + 1.0
        for j in range(p.shape[0] - 1, -1, -1):
            out[j] = np.sum(g * power)
            power = power * x
        return out

    return impl


def select_choice(x, y, default=0.0):
    """np.select(x, y, default) of the stacked conditions `x` and choices `y`: where the
    first true condition is, its choice; where none is, `default`."""
    return np.select(list(x), list(y), default) * 1.0


def _chosen(x):
    """Which choice each element takes: the first true condition, len(x) for none."""
    x = np.asarray(x)
    return np.where(x.any(axis=0), np.argmax(x, axis=0), x.shape[0])


def select_choice_dy(g, x, y):
    """Adjoint of np.select in the stacked choices: each its cotangent where chosen."""
    chosen = _chosen(x)
    return np.stack([np.where(chosen == k, g, 0.0) for k in range(np.shape(y)[0])])


def select_choice_ddefault(g, x, default):
    """Adjoint of np.select in `default`: the cotangent where no condition holds."""
    part = np.where(_chosen(x) == np.shape(x)[0], g, 0.0)
    return float(np.sum(part)) if np.ndim(default) == 0 else part


@register_jitable(cache=True)
def _choices(x):
    """For each element (C order) of one choice, the index of the first true condition,
    or the number of conditions."""
    n = x.shape[0]
    flat = np.ascontiguousarray(x).reshape((n, x.size // max(n, 1)))
    out = np.full(flat.shape[1], n, np.int64)
    for e in range(flat.shape[1]):
        for k in range(n):
            if flat[k, e]:
                out[e] = k
                break
    return out


@_jit_version(select_choice)
def _select_choice_jit(x, y, default=0.0):
    rank = y.ndim - 1
    fill = (lambda d, e: d) if not _is_array(default) else \
        (lambda d, e: np.ascontiguousarray(d).ravel()[e])
    fill = register_jitable(fill)

    def impl(x, y, default=0.0):
        if x.shape != y.shape:
            raise ValueError("np.select: the conditions and the choices differ in shape")
        chosen = _choices(x)
        flat = np.ascontiguousarray(y * 1.0).reshape((y.shape[0], chosen.size))
        out = np.empty(chosen.size)
        for e in range(chosen.size):
            out[e] = flat[chosen[e], e] if chosen[e] < y.shape[0] else fill(default, e)
        shape = np.empty(max(rank, 1), np.int64)
        for i in range(rank):
            shape[i] = y.shape[i + 1]
        return out.reshape(to_fixed_tuple(shape, rank))

    return impl


@_jit_version(select_choice_dy)
def _select_choice_dy_jit(g, x, y):
    def impl(g, x, y):
        chosen = _choices(x)
        gflat = np.ascontiguousarray(g * 1.0).ravel()
        out = np.zeros((y.shape[0], chosen.size))
        for e in range(chosen.size):
            if chosen[e] < y.shape[0]:
                out[chosen[e], e] = gflat[e]
        return out.reshape(y.shape)

    return impl


@_jit_version(select_choice_ddefault)
def _select_choice_ddefault_jit(g, x, default):
    scalar = not _is_array(default)

    @register_jitable
    def spread(g, x):
        chosen = _choices(x)
        gflat = np.ascontiguousarray(g * 1.0).ravel()
        out = np.zeros(chosen.size)
        for e in range(chosen.size):
            if chosen[e] == x.shape[0]:
                out[e] = gflat[e]
        return out

    if scalar:
        return lambda g, x, default: np.sum(spread(g, x))
    return lambda g, x, default: spread(g, x).reshape(default.shape)


def meshgrid_x(x, y, z=None, indexing="xy"):
    """The first array np.meshgrid(x, y, indexing=indexing) gives."""
    return np.meshgrid(x, y, indexing=indexing)[0]


def meshgrid_y(x, y, z=None, indexing="xy"):
    """The second array np.meshgrid(x, y, indexing=indexing) gives."""
    return np.meshgrid(x, y, indexing=indexing)[1]


def meshgrid_adjoint(g, indexing, which):
    """Adjoint of np.meshgrid's array `which` (0 or 1): `g` summed across the grid."""
    return np.sum(g, axis=which if indexing == "xy" else 1 - which)


@register_jitable(cache=True)
def _grid(values, others, indexing, first):
    """The grid of np.meshgrid whose values vary along `values` (the first array given,
    or the second), `others` the length of the other array."""
    n = values.shape[0]
    ij = indexing == "ij"
    along_rows = ij == first  # the values vary down the rows
    out = np.empty((n, others) if along_rows else (others, n), values.dtype)
    for i in range(n):
        for j in range(others):
            if along_rows:
                out[i, j] = values[i]
            else:
                out[j, i] = values[i]
    return out


@_jit_version(meshgrid_x)
def _meshgrid_x_jit(x, y, z=None, indexing="xy"):
    return lambda x, y, z=None, indexing="xy": _grid(x, y.shape[0], indexing, True)


@_jit_version(meshgrid_y)
def _meshgrid_y_jit(x, y, z=None, indexing="xy"):
    return lambda x, y, z=None, indexing="xy": _grid(y, x.shape[0], indexing, False)


@_jit_version(meshgrid_adjoint)
def _meshgrid_adjoint_jit(g, indexing, which):
    def impl(g, indexing, which):
        axis = which if indexing == "xy" else 1 - which
        out = np.zeros(g.shape[1 - axis])
        for i in range(g.shape[0]):
            for j in range(g.shape[1]):
                out[j if axis == 0 else i] += g[i, j]
        return out

    return impl


# ---------------------------------------------------------------------------
# np.split and np.array_split: the first piece, and any after it
# ---------------------------------------------------------------------------


def split_head(ary, indices_or_sections, axis=0):
    """The first piece of np.split(ary, indices_or_sections, axis): a view."""
    return split_piece(ary, indices_or_sections, axis, 0, True)


def split_tail(ary, indices_or_sections, axis=0, which=1):
    """Piece `which` (1 or more: the second, by default) of np.split(ary,
    indices_or_sections, axis): a view."""
    return split_piece(ary, indices_or_sections, axis, which, True)


def array_split_head(ary, indices_or_sections, axis=0):
    """The first piece of np.array_split(ary, indices_or_sections, axis): a view."""
    return split_piece(ary, indices_or_sections, axis, 0, False)


def array_split_tail(ary, indices_or_sections, axis=0, which=1):
    """Piece `which` (1 or more: the second, by default) of np.array_split(ary,
    indices_or_sections, axis): a view."""
    return split_piece(ary, indices_or_sections, axis, which, False)


def split_adjoint(g, shape, indices_or_sections, axis, which, equal):
    """Adjoint of piece `which` of a split: zeros of `shape` with `g` in its place."""
    return split_piece_adjoint(g, shape, indices_or_sections, axis, which, equal)


def _head_jit(equal):
    def factory(ary, indices_or_sections, axis=0):
        return lambda ary, indices_or_sections, axis=0: split_piece(
            ary, indices_or_sections, axis, 0, equal)

    return factory


def _tail_jit(equal):
    def factory(ary, indices_or_sections, axis=0, which=1):
        return lambda ary, indices_or_sections, axis=0, which=1: split_piece(
            ary, indices_or_sections, axis, which, equal)

    return factory


_jit_version(split_head)(_head_jit(True))
_jit_version(split_tail)(_tail_jit(True))
_jit_version(array_split_head)(_head_jit(False))
_jit_version(array_split_tail)(_tail_jit(False))


@_jit_version(split_adjoint)
def _split_adjoint_jit(g, shape, indices_or_sections, axis, which, equal):
    return lambda g, shape, indices_or_sections, axis, which, equal: split_piece_adjoint(
        g, shape, indices_or_sections, axis, which, equal)


# ---------------------------------------------------------------------------
# reductions and running sums and products that skip NaNs (a NaN counts as 0 in a sum, 1
# in a product)
# ---------------------------------------------------------------------------


def nanprod(a, axis=None):
    """np.nanprod(a, axis), in floats."""
    return np.nanprod(a, axis=axis) * 1.0


def nanvar(a, axis=None, ddof=0):
    """np.nanvar(a, axis, ddof=ddof)."""
    return np.nanvar(a, axis=axis, ddof=ddof)


def nanstd(a, axis=None, ddof=0):
    """np.nanstd(a, axis, ddof=ddof)."""
    return np.nanstd(a, axis=axis, ddof=ddof)


def nancumsum(a, axis=None):
    """np.nancumsum(a, axis), in floats."""
    return np.nancumsum(a, axis=axis) * 1.0


def nancumprod(a, axis=None):
    """np.nancumprod(a, axis), in floats."""
    return np.nancumprod(a, axis=axis) * 1.0


@_jit_version(nanprod)
def _nanprod_jit(a, axis=None):
    return lambda a, axis=None: prod(np.where(np.isnan(a), 1.0, a * 1.0), axis)


@register_jitable(cache=True)
def _nan_deviations(a, axis):
    return np.where(np.isnan(a), 0.0, a - expand(nanmean(a, axis), axis))


@_jit_version(nanvar)
def _nanvar_jit(a, axis=None, ddof=0):
    def impl(a, axis=None, ddof=0):
        dev = _nan_deviations(a, axis)
        return nansum(dev * dev, axis) / (nancount(a, axis) - ddof)

    return impl


@_jit_version(nanstd)
def _nanstd_jit(a, axis=None, ddof=0):
    def impl(a, axis=None, ddof=0):
        dev = _nan_deviations(a, axis)
        return np.sqrt(nansum(dev * dev, axis) / (nancount(a, axis) - ddof))

    return impl


@_jit_version(nancumsum)
def _nancumsum_jit(a, axis=None):
    return lambda a, axis=None: cumsum(np.where(np.isnan(a), 0.0, a * 1.0), axis)


@_jit_version(nancumprod)
def _nancumprod_jit(a, axis=None):
    return lambda a, axis=None: cumprod(np.where(np.isnan(a), 1.0, a * 1.0), axis)


# ---------------------------------------------------------------------------
# values without gradients that Numba lacks: np.isclose (of any shapes), np.fix, np.ndim
# ---------------------------------------------------------------------------


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """np.isclose(a, b, rtol, atol, equal_nan)."""
    return np.isclose(a, b, rtol, atol, equal_nan)


@_jit_version(isclose)
def _isclose_jit(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    def impl(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
        close = (np.abs(a - b) <= atol + rtol * np.abs(b)) | (a == b)
        if equal_nan:
            close = close | (np.isnan(a) & np.isnan(b))
        return close

    return impl


def fix(x):
    """np.fix(x): rounded toward zero."""
    return np.fix(x)


@_jit_version(fix)
def _fix_jit(x):
    return lambda x: np.trunc(x)


def ndim(a):
    """np.ndim(a): how many axes `a` has (0 for a number)."""
    return np.ndim(a)


@_jit_version(ndim)
def _ndim_jit(a):
    rank = a.ndim if _is_array(a) else 0
    return lambda a: rank

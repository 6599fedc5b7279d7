"""Helpers that change an array's shape where Numba's NumPy does not (a tuple `axis`, a
number for an array), and their adjoints: np.tile, np.expand_dims, np.squeeze,
np.atleast_1d/2d/3d, np.array of an array (a copy), np.linspace with `endpoint` and
`dtype`; and np.triu, np.tril of a matrix in one pass (Numba's makes four arrays).

Compiled, a result's rank must be known when the helper is typed: it is computed there,
from the argument types, and the shape filled in at run time (`to_fixed_tuple`).
"""
import numpy as np
from numba import types
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import register_jitable
from numba.np.unsafe.ndarray import to_fixed_tuple

from srcad.runtime.axes import _axis
from srcad.runtime.overloads import _is_array, _is_none, _jit_version, fresh


def array(x):
    """np.array(x): a new array, also of an array or of a list or tuple of equal-shaped
    arrays (which Numba's np.array refuses)."""
    return np.array(x)


@_jit_version(array)
def _array(x):
    if _is_array(x):
        return lambda x: x.copy()
    if isinstance(x, (types.List, types.UniTuple)) and _is_array(x.dtype):
        def stacked(x):
            out = np.empty((len(x),) + x[0].shape, x[0].dtype)
            for i in range(len(x)):
                if x[i].shape != x[0].shape:
                    raise ValueError("setting an array element with a sequence: the arrays "
                                     "have different shapes")
                out[i] = x[i]
            return out
        return stacked
    return lambda x: np.array(x)


def reshape_as(g, a):
    """`g` in the shape of `a`, a float when `a` is a number: the adjoint of a function
    that gives `a`'s elements another shape (np.atleast_1d, np.expand_dims)."""
    if type(g) is np.ndarray and type(a) is np.ndarray and a.ndim:
        return g.reshape(a.shape)
    return np.reshape(g, np.shape(a)) if np.ndim(a) else float(np.sum(g))


@_jit_version(reshape_as)
def _reshape_as(g, a):
    if _is_array(a):
        return lambda g, a: np.reshape(np.ascontiguousarray(g), a.shape)
    return lambda g, a: np.sum(g)


def outer_left(a, b):
    """`a` with as many axes of length 1 after its own as `b` has: `ufunc.outer(a, b)` is
    `ufunc(outer_left(a, b), b)`, each element of `a` against all of `b`."""
    return np.reshape(a, np.shape(a) + (1,) * np.ndim(b)) if np.ndim(a) and np.ndim(b) else a


@_jit_version(outer_left)
def _outer_left(a, b):
    if not (_is_array(a) and _is_array(b)):
        return lambda a, b: a
    ones = (1,) * b.ndim
    return lambda a, b: np.ascontiguousarray(a).reshape(a.shape + ones)


# axes given as an int or a tuple of ints


def _axis_count(axis):
    """How many axes `axis` (a Numba type: an int or a tuple of ints) names."""
    return 1 if isinstance(axis, types.Integer) else len(axis)


@register_jitable(cache=True)
def _one(axis):
    return (axis,)


@register_jitable(cache=True)
def _these(axis):
    return axis


@register_jitable(cache=True)
def _marked(axes, rank):
    """Which of `rank` axes the tuple `axes` names (negative ones from the end)."""
    mask = np.zeros(rank, np.bool_)
    for ax in axes:
        k = _axis(ax, rank)
        if mask[k]:
            raise ValueError("repeated axis")
        mask[k] = True
    return mask


def expand_dims(a, axis):
    """np.expand_dims(a, axis): `axis` an int or a tuple of ints, `a` an array or a number.
    One int axis of an array is a reshape (a view, as np.expand_dims gives, in a fifth of
    its time: a reverse sweep of array code puts an axis back for each reduction)."""
    if type(axis) is int and type(a) is np.ndarray and -a.ndim - 1 <= axis <= a.ndim:
        at = axis % (a.ndim + 1)
        return a.reshape(a.shape[:at] + (1,) + a.shape[at:])
    return np.expand_dims(a, axis)


@_jit_version(expand_dims)
def _expand_dims(a, axis):
    if axis == types.Tuple(()):
        return lambda a, axis: np.asarray(a)
    rank = (a.ndim if _is_array(a) else 0) + _axis_count(axis)
    axes = _one if isinstance(axis, types.Integer) else _these
    if not _is_array(a):
        ones = (1,) * rank
        return lambda a, axis: np.full(ones, a)

    def impl(a, axis):
        new = _marked(axes(axis), rank)
        shape = np.ones(rank, np.intp)
        k = 0
        for i in range(rank):
            if not new[i]:
                shape[i] = a.shape[k]
                k += 1
        return np.ascontiguousarray(a).reshape(to_fixed_tuple(shape, rank))

    return impl


def squeeze(a, axis):
    """np.squeeze(a, axis): `axis` an int or a tuple of ints, each of an axis of length 1."""
    return np.squeeze(a, axis)


@_jit_version(squeeze)
def _squeeze(a, axis):
    if axis == types.Tuple(()):
        return lambda a, axis: a
    rank = a.ndim - _axis_count(axis)
    axes = _one if isinstance(axis, types.Integer) else _these

    def impl(a, axis):
        gone = _marked(axes(axis), a.ndim)
        shape = np.empty(rank, np.intp)
        k = 0
        for i in range(a.ndim):
            if not gone[i]:
                shape[k] = a.shape[i]
                k += 1
            elif a.shape[i] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not "
                                 "equal to one")
        return np.ascontiguousarray(a).reshape(to_fixed_tuple(shape, rank))

    return impl


# np.atleast_1d, np.atleast_2d, np.atleast_3d: of a number too


def atleast_1d(a):
    """np.atleast_1d(a) of one array or number."""
    return np.atleast_1d(a)


def atleast_2d(a):
    """np.atleast_2d(a) of one array or number."""
    return np.atleast_2d(a)


def atleast_3d(a):
    """np.atleast_3d(a) of one array or number."""
    return np.atleast_3d(a)


def _atleast(rank, numpy_version):
    """The Numba version of np.atleast_<rank>d: NumPy's for an array, a new array of ones
    axes for a number."""
    ones = (1,) * rank

    def factory(a):
        if _is_array(a):
            return lambda a: numpy_version(a)
        return lambda a: np.full(ones, a)

    return factory


_jit_version(atleast_1d)(_atleast(1, np.atleast_1d))
_jit_version(atleast_2d)(_atleast(2, np.atleast_2d))
_jit_version(atleast_3d)(_atleast(3, np.atleast_3d))


# np.tile


def _tile_reps(reps, ndim):
    """`reps` (an int or a tuple) with ones in front, for a result of rank `ndim`."""
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    return (1,) * (ndim - len(reps)) + reps


def tile(A, reps):
    """np.tile(A, reps): `reps` an int or a tuple of ints."""
    return np.tile(A, reps)


def tile_adjoint(g, A, reps):
    """Adjoint of np.tile(A, reps): the sum of the tiles of `g`."""
    shape = np.shape(A)
    whole = (1,) * (g.ndim - len(shape)) + shape
    pairs = [n for rs in zip(_tile_reps(reps, g.ndim), whole) for n in rs]
    out = np.reshape(g, pairs).sum(axis=tuple(range(0, 2 * g.ndim, 2))).reshape(shape)
    return out if shape else float(out)


@register_jitable(cache=True)
def _tile_sources(a_shape, out_shape):
    """For each element of a tiling, in C order, the flat index of its source element
    (shapes as arrays of the same length, the tiled one padded with ones in front)."""
    total = 1
    for n in out_shape:
        total *= n
    src = np.empty(total, np.intp)
    for f in range(total):
        rem, s, mult = f, 0, 1
        for ax in range(out_shape.shape[0] - 1, -1, -1):
            s += (rem % out_shape[ax]) % a_shape[ax] * mult
            rem //= out_shape[ax]
            mult *= a_shape[ax]
        src[f] = s
    return src


def _tile_shapes(A, reps):
    """For the Numba types of np.tile's arguments: the rank of the tiling, and a function
    of A.shape and reps giving (A's shape padded with ones in front, the tiling's)."""
    ndim = A.ndim if _is_array(A) else 0
    count = _axis_count(reps)
    rank = max(ndim, count)
    reps_of = _one if isinstance(reps, types.Integer) else _these

    @register_jitable
    def shapes(a_shape, reps):
        whole = np.ones(rank, np.intp)
        for i in range(ndim):
            whole[rank - ndim + i] = a_shape[i]
        out = whole.copy()
        each = reps_of(reps)
        for i in range(count):
            out[rank - count + i] *= each[i]
        return whole, out

    return rank, shapes


def _tiles(reps):
    """Whether np.tile's compiled version takes `reps` (a Numba type): an int or a
    nonempty tuple of ints."""
    return isinstance(reps, types.Integer) or (
        isinstance(reps, types.UniTuple) and isinstance(reps.dtype, types.Integer))


@_jit_version(tile)
def _tile(A, reps):
    if not _tiles(reps):
        return None
    rank, shapes = _tile_shapes(A, reps)
    if not _is_array(A):
        return lambda A, reps: tile(np.full(1, A), reps)

    def impl(A, reps):
        whole, out_shape = shapes(A.shape, reps)
        src = _tile_sources(whole, out_shape)
        flat = np.ascontiguousarray(A).ravel()
        out = np.empty(src.size, dtype=A.dtype)
        for f in range(src.size):
            out[f] = flat[src[f]]
        return out.reshape(to_fixed_tuple(out_shape, rank))

    return impl


@_jit_version(tile_adjoint)
def _tile_adjoint(g, A, reps):
    if not _tiles(reps):
        return None
    if not _is_array(A):
        return lambda g, A, reps: np.sum(g)
    _, shapes = _tile_shapes(A, reps)

    def impl(g, A, reps):
        whole, out_shape = shapes(A.shape, reps)
        src = _tile_sources(whole, out_shape)
        gflat = np.ascontiguousarray(g).ravel()
        out = np.zeros(A.shape)
        flat = out.reshape(out.size)
        for f in range(src.size):
            flat[src[f]] += gflat[f]
        return out

    return impl


# keepdims=True of a reduction


def keep_dims(r, x, axis=None):
    """`r`, a reduction of `x` over `axis` (None, an int or a tuple of ints), with the
    reduced axes kept as axes of length 1, as `keepdims=True` gives it."""
    if axis is None:
        return np.reshape(r, (1,) * np.ndim(x))
    return expand_dims(r, axis)


@register_jitable(cache=True)
def _kept(shape, ax):
    return tuple_setitem(shape, _axis(ax, len(shape)), 1)


@register_jitable(cache=True)
def _kept_all(shape):
    for a in range(len(shape)):
        shape = tuple_setitem(shape, a, 1)
    return shape


@register_jitable(cache=True)
def _kept_each(shape, axes):
    for a in axes:
        shape = _kept(shape, a)
    return shape


@_jit_version(keep_dims)
def _keep_dims(r, x, axis=None):
    if _is_none(axis):
        def kept(x, axis):
            return _kept_all(x.shape)
    elif isinstance(axis, types.Integer):
        def kept(x, axis):
            return _kept(x.shape, axis)
    else:
        def kept(x, axis):
            return _kept_each(x.shape, axis)
    kept = register_jitable(kept)
    if _is_array(r):
        return lambda r, x, axis=None: np.ascontiguousarray(r).reshape(kept(x, axis))
    return lambda r, x, axis=None: np.full(kept(x, axis), r)


def inverse_axes(axes):
    """The order of axes that undoes `np.transpose(x, axes)`; None for None (reversing
    the axes undoes itself)."""
    if axes is None:
        return None
    n = len(axes)
    out = [0] * n
    for i, a in enumerate(axes):
        out[a % n] = i
    return tuple(out)


@_jit_version(inverse_axes)
def _inverse_axes(axes):
    if _is_none(axes):
        return lambda axes: None

    def impl(axes):
        out, n = axes, len(axes)
        for i in range(n):
            out = tuple_setitem(out, (axes[i] + n) % n, i)
        return out
    return impl


def linspace(start, stop, num=50, endpoint=True, dtype=None):
    """np.linspace(start, stop, num, endpoint, dtype), `dtype` a float type (Numba's
    np.linspace takes neither `endpoint` nor `dtype`)."""
    return np.linspace(start, stop, num, endpoint=endpoint)


@_jit_version(linspace)
def _linspace(start, stop, num=50, endpoint=True, dtype=None):
    def impl(start, stop, num=50, endpoint=True, dtype=None):
        if endpoint:
            return np.linspace(start, stop, num)
        return np.linspace(start, stop, num + 1)[:-1]  # the same steps, the last one off
    return impl


@fresh
def triu(m, k=0):
    """np.triu(m, k): compiled, a matrix's in one pass."""
    return np.triu(m, k)


@fresh
def tril(m, k=0):
    """np.tril(m, k): compiled, a matrix's in one pass."""
    return np.tril(m, k)


# Two overloads, not one factory of both: Numba's disk cache tells compiled functions
# apart by their code and argument types, not by the values a closure holds, so
# np.triu's and np.tril's would be one entry.
@_jit_version(triu)
def _triu(m, k=0):
    if not _is_array(m) or m.ndim != 2:
        return lambda m, k=0: np.triu(m, k)  # Numba's own

    def impl(m, k=0):
        out = np.zeros(m.shape, m.dtype)
        rows, cols = m.shape
        for i in range(rows):
            for j in range(max(0, i + k), cols):
                out[i, j] = m[i, j]
        return out
    return impl


@_jit_version(tril)
def _tril(m, k=0):
    if not _is_array(m) or m.ndim != 2:
        return lambda m, k=0: np.tril(m, k)  # Numba's own

    def impl(m, k=0):
        out = np.zeros(m.shape, m.dtype)
        rows, cols = m.shape
        for i in range(rows):
            for j in range(min(cols, max(0, i + k + 1))):
                out[i, j] = m[i, j]
        return out
    return impl

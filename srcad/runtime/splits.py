"""Helpers for the rules of srcad/rules/numpy_splits.py: the pieces of a split (np.split,
np.array_split, np.hsplit, np.vsplit, np.dsplit), each a view of the array as NumPy's are,
and their adjoints; np.dstack of arrays stacked along a first axis; np.real_if_close of
real values; np.array_equiv.

A piece is given by the function's arguments and its position `which`: with a number of
sections `n`, piece k holds elements k * each + min(k, extra) onwards (np.array_split:
the first `n % len` pieces one longer; np.split refuses an unequal division); with
indices `(i, j, ...)`, piece k is the slice between index k - 1 and index k (0 and the
length at the ends), with Python's slice bounds. In Python each helper calls NumPy's own
function; compiled, the piece is a slice of the array with its axis swapped first.
"""
import numpy as np
from numba import types
from numba.extending import register_jitable
from numba.np.unsafe.ndarray import to_fixed_tuple

from srcad.runtime.axes import _axis
from srcad.runtime.overloads import _is_array, _jit_version

# ---------------------------------------------------------------------------
# where a piece lies along the axis it is cut from
# ---------------------------------------------------------------------------


@register_jitable(cache=True)
def _section_bounds(n, sections, which, equal):
    """Piece `which` of `sections` pieces along an axis of `n`: (start, stop)."""
    if sections <= 0:
        raise ValueError("number sections must be larger than 0.")
    if equal and n % sections:
        raise ValueError("array split does not result in an equal division")
    each, extra = n // sections, n % sections
    start = which * each + min(which, extra)
    return start, start + each + (1 if which < extra else 0)


@register_jitable(cache=True)
def _index_bounds(n, indices, which, equal):
    """Piece `which` of a cut at `indices`: (start, stop), slice bounds as Python's."""
    start = 0 if which == 0 else indices[which - 1]
    stop = n if which == len(indices) else indices[which]
    return start, stop


@register_jitable(cache=True)
def _whole_bounds(n, indices, which, equal):
    """The one piece of a cut at no indices: (0, n)."""
    return 0, n


def _bounds(indices_or_sections):
    """The jitable giving a piece's bounds for this type of `indices_or_sections`: a
    number of sections (an int) or a tuple of indices (none: the whole axis)."""
    if isinstance(indices_or_sections, types.Integer):
        return _section_bounds
    if isinstance(indices_or_sections, types.BaseTuple) and len(indices_or_sections) == 0:
        return _whole_bounds
    return _index_bounds


@register_jitable(cache=True)
def _cut(ary, axis, start, stop):
    """`ary`'s elements start:stop along `axis`: a view."""
    return np.swapaxes(np.swapaxes(ary, 0, axis)[start:stop], 0, axis)


# ---------------------------------------------------------------------------
# pieces of any split, and their adjoint
# ---------------------------------------------------------------------------


def split_piece(ary, indices_or_sections, axis, which, equal):
    """Piece `which` of np.split(ary, indices_or_sections, axis) (`equal`), or of
    np.array_split: a view of `ary`."""
    split = np.split if equal else np.array_split
    return split(ary, indices_or_sections, axis)[which]


def split_piece_adjoint(g, shape, indices_or_sections, axis, which, equal):
    """Adjoint of `split_piece` for an array of `shape`: zeros with `g` in the piece's
    place."""
    out = np.zeros(shape)
    split_piece(out, indices_or_sections, axis, which, equal)[...] = g
    return out


@_jit_version(split_piece)
def _split_piece_jit(ary, indices_or_sections, axis, which, equal):
    bounds = _bounds(indices_or_sections)

    def impl(ary, indices_or_sections, axis, which, equal):
        ax = _axis(axis, ary.ndim)
        start, stop = bounds(ary.shape[ax], indices_or_sections, which, equal)
        return _cut(ary, ax, start, stop)

    return impl


@_jit_version(split_piece_adjoint)
def _split_piece_adjoint_jit(g, shape, indices_or_sections, axis, which, equal):
    bounds = _bounds(indices_or_sections)
    ndim = len(shape)

    def impl(g, shape, indices_or_sections, axis, which, equal):
        ax = _axis(axis, ndim)
        start, stop = bounds(shape[ax], indices_or_sections, which, equal)
        out = np.zeros(shape)
        _cut(out, ax, start, stop)[...] = g
        return out

    return impl


def hsplit_axis(shape):
    """The axis np.hsplit cuts an array of `shape` along: 1, a vector's 0."""
    return 1 if len(shape) > 1 else 0


@_jit_version(hsplit_axis)
def _hsplit_axis_jit(shape):
    axis = 1 if len(shape) > 1 else 0
    return lambda shape: axis


# ---------------------------------------------------------------------------
# the pieces of np.hsplit, np.vsplit, np.dsplit: the first, and any after it (`which`)
# ---------------------------------------------------------------------------


def hsplit_head(ary, indices_or_sections):
    """The first piece of np.hsplit(ary, indices_or_sections)."""
    return np.hsplit(ary, indices_or_sections)[0]


def hsplit_tail(ary, indices_or_sections, which=1):
    """Piece `which` (1 or more: the second, by default) of np.hsplit(ary,
    indices_or_sections)."""
    return np.hsplit(ary, indices_or_sections)[which]


def vsplit_head(ary, indices_or_sections):
    """The first piece of np.vsplit(ary, indices_or_sections)."""
    return np.vsplit(ary, indices_or_sections)[0]


def vsplit_tail(ary, indices_or_sections, which=1):
    """Piece `which` (1 or more: the second, by default) of np.vsplit(ary,
    indices_or_sections)."""
    return np.vsplit(ary, indices_or_sections)[which]


def dsplit_head(ary, indices_or_sections):
    """The first piece of np.dsplit(ary, indices_or_sections)."""
    return np.dsplit(ary, indices_or_sections)[0]


def dsplit_tail(ary, indices_or_sections, which=1):
    """Piece `which` (1 or more: the second, by default) of np.dsplit(ary,
    indices_or_sections)."""
    return np.dsplit(ary, indices_or_sections)[which]


def _head_jit(axis_of):
    """The compiled first piece of a split into equal pieces along the axis
    `axis_of(ndim)` (np.hsplit, np.vsplit and np.dsplit divide exactly, as np.split)."""

    def factory(ary, indices_or_sections):
        bounds = _bounds(indices_or_sections)
        ax = axis_of(ary.ndim)

        def impl(ary, indices_or_sections):
            start, stop = bounds(ary.shape[ax], indices_or_sections, 0, True)
            return _cut(ary, ax, start, stop)

        return impl

    return factory


def _tail_jit(axis_of):
    """The compiled piece `which` of a split as `_head_jit`'s."""

    def factory(ary, indices_or_sections, which=1):
        bounds = _bounds(indices_or_sections)
        ax = axis_of(ary.ndim)

        def impl(ary, indices_or_sections, which=1):
            start, stop = bounds(ary.shape[ax], indices_or_sections, which, True)
            return _cut(ary, ax, start, stop)

        return impl

    return factory


def _hsplit_along(ndim):
    return 1 if ndim > 1 else 0


_jit_version(hsplit_head)(_head_jit(_hsplit_along))
_jit_version(hsplit_tail)(_tail_jit(_hsplit_along))
_jit_version(vsplit_head)(_head_jit(lambda ndim: 0))
_jit_version(vsplit_tail)(_tail_jit(lambda ndim: 0))
_jit_version(dsplit_head)(_head_jit(lambda ndim: 2))
_jit_version(dsplit_tail)(_tail_jit(lambda ndim: 2))


# ---------------------------------------------------------------------------
# np.dstack of the arrays x[0], x[1], ... (a tuple written in the call, stacked)
# ---------------------------------------------------------------------------
#
# Each array is taken to 3-d as np.atleast_3d does ((n,) to (1, n, 1), (m, n) to
# (m, n, 1)) and joined along axis 2: seen as a 5-d (k, a, b, c, rest) array, `x` goes to
# (a, b, k, c, rest), whose axes 2 and 3 the result merges (k * c along its axis 2).


def _groups(ndim):
    """For arrays stacked into `ndim` dimensions, the slot of (k, a, b, c, rest) that each
    dimension counts in: k the arrays, a vector's length b, a matrix's (a, b), then c and
    the rest."""
    return ((0,), (0, 2), (0, 1, 2), (0, 1, 2, 3))[min(ndim, 4) - 1] + (4,) * max(ndim - 4, 0)


def _five(shape):
    """`shape` (of the stacked arrays) as (k, a, b, c, rest)."""
    dims = [1] * 5
    for n, slot in zip(shape, _groups(len(shape))):
        dims[slot] *= n
    return tuple(dims)


def dstack(x):
    """np.dstack(x): the arrays x[0], x[1], ... joined along their third axis."""
    return np.dstack(x)


def dstack_adjoint(g, shape):
    """Adjoint of np.dstack of arrays stacked into `shape`: each array's part of `g`."""
    k, a, b, c, rest = _five(shape)
    parts = np.reshape(np.asarray(g, dtype=float), (a, b, k, c, rest))
    return np.ascontiguousarray(np.transpose(parts, (2, 0, 1, 3, 4))).reshape(shape)


def _five_jit(ndim):
    """A jitable giving (k, a, b, c, rest) of a shape of `ndim` ints."""
    groups = _groups(ndim)

    @register_jitable
    def five(shape):
        dims = np.ones(5, np.int64)
        for i in range(ndim):
            dims[groups[i]] *= shape[i]
        return dims[0], dims[1], dims[2], dims[3], dims[4]

    return five


@_jit_version(dstack)
def _dstack_jit(x):
    ndim = x.ndim
    five = _five_jit(ndim)
    size = max(3, ndim - 1)

    def impl(x):
        k, a, b, c, rest = five(x.shape)
        lined = np.ascontiguousarray(x).reshape((k, a, b, c, rest))
        out = np.empty((a, b, k, c, rest), x.dtype)
        out[...] = np.transpose(lined, (1, 2, 0, 3, 4))
        shape = np.empty(size, np.int64)
        shape[0], shape[1], shape[2] = a, b, k * c
        for i in range(3, size):
            shape[i] = x.shape[i + 1]
        return out.reshape(to_fixed_tuple(shape, size))

    return impl


@_jit_version(dstack_adjoint)
def _dstack_adjoint_jit(g, shape):
    five = _five_jit(len(shape))

    def impl(g, shape):
        k, a, b, c, rest = five(shape)
        parts = np.ascontiguousarray(g * 1.0).reshape((a, b, k, c, rest))
        out = np.empty((k, a, b, c, rest))
        out[...] = np.transpose(parts, (2, 0, 1, 3, 4))
        return out.reshape(shape)

    return impl


# ---------------------------------------------------------------------------
# np.real_if_close of real values, np.array_equiv
# ---------------------------------------------------------------------------


def real_if_close(a, tol=100):
    """np.real_if_close(a, tol) of real values: `a` itself (a number stays a number)."""
    return np.real_if_close(a, tol) if isinstance(a, np.ndarray) else a


@_jit_version(real_if_close)
def _real_if_close_jit(a, tol=100):
    return lambda a, tol=100: a


def array_equiv(a1, a2):
    """np.array_equiv(a1, a2): whether the two broadcast together and are equal."""
    return np.array_equiv(a1, a2)


@_jit_version(array_equiv)
def _array_equiv_jit(a1, a2):
    if not (_is_array(a1) and _is_array(a2)):  # a number broadcasts against anything
        return lambda a1, a2: bool(np.all(a1 == a2))

    def impl(a1, a2):
        for i in range(1, min(a1.ndim, a2.ndim) + 1):
            n1, n2 = a1.shape[a1.ndim - i], a2.shape[a2.ndim - i]
            if n1 != n2 and n1 != 1 and n2 != 1:
                return False
        return bool(np.all(a1 == a2))

    return impl

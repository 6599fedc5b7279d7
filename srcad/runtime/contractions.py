"""Products that contract axes, which Numba's NumPy lacks or takes in fewer forms, and
their adjoints: np.inner, np.tensordot, np.kron.

Each contraction is a matrix product of its operands reshaped: the contracted axes of `a`
last and those of `b` first, as one axis each. Compiled, a result's rank is known when the
helper is typed; its shape is filled in at run time (`to_fixed_tuple`).
"""
import numpy as np
from numba import types
from numba.extending import register_jitable
from numba.np.unsafe.ndarray import to_fixed_tuple

from srcad.runtime.overloads import _is_array, _jit_version

# np.inner(a, b): the sum over the last axes of both


def inner(a, b):
    """np.inner(a, b) of arrays of one or more dimensions."""
    return np.inner(a, b)


@register_jitable(cache=True)
def _rows(a):
    """`a` as a float matrix whose rows are its lines along the last axis."""
    k = a.shape[a.ndim - 1]
    return np.ascontiguousarray(a).reshape((a.size // max(k, 1), k)) * 1.0


@_jit_version(inner)
def _inner(a, b):
    if a.ndim == 1 and b.ndim == 1:
        return lambda a, b: np.dot(np.ascontiguousarray(a) * 1.0, np.ascontiguousarray(b) * 1.0)
    rank = a.ndim + b.ndim - 2

    def impl(a, b):
        if a.shape[a.ndim - 1] != b.shape[b.ndim - 1]:
            raise ValueError("np.inner: the last dimensions of the arrays differ")
        product = _rows(a) @ np.ascontiguousarray(_rows(b).T)
        shape = np.empty(rank, np.intp)
        for i in range(a.ndim - 1):
            shape[i] = a.shape[i]
        for i in range(b.ndim - 1):
            shape[a.ndim - 1 + i] = b.shape[i]
        return product.reshape(to_fixed_tuple(shape, rank))

    return impl


def inner_da(g, a, b):
    """Adjoint of np.inner(a, b) in `a`: the cotangent's rows times those of `b`."""
    rows = np.reshape(b, (-1, np.shape(b)[-1]))
    return (np.reshape(g, (-1, rows.shape[0])) @ rows).reshape(np.shape(a))


def inner_db(g, a, b):
    """Adjoint of np.inner(a, b) in `b`."""
    rows = np.reshape(a, (-1, np.shape(a)[-1]))
    return (np.reshape(g, (rows.shape[0], -1)).T @ rows).reshape(np.shape(b))


@_jit_version(inner_da)
def _inner_da(g, a, b):
    def impl(g, a, b):
        rows = _rows(b)
        gm = np.ascontiguousarray(np.asarray(g) * 1.0).reshape((a.size // a.shape[a.ndim - 1],
                                                                rows.shape[0]))
        return (gm @ rows).reshape(a.shape)

    return impl


@_jit_version(inner_db)
def _inner_db(g, a, b):
    def impl(g, a, b):
        rows = _rows(a)
        gm = np.ascontiguousarray(np.asarray(g) * 1.0).reshape((rows.shape[0],
                                                                b.size // b.shape[b.ndim - 1]))
        return (np.ascontiguousarray(gm.T) @ rows).reshape(b.shape)

    return impl


# np.tensordot(a, b, axes): the last `axes` axes of `a` with the first of `b`, or the axes
# named by a pair of sequences


def _pair(axes, a_ndim):
    """`axes` as two tuples of axes (of `a`, of `b`), in range."""
    if isinstance(axes, (int, np.integer)):
        return tuple(range(a_ndim - axes, a_ndim)), tuple(range(axes))
    first, second = axes
    first = (first,) if isinstance(first, (int, np.integer)) else tuple(first)
    second = (second,) if isinstance(second, (int, np.integer)) else tuple(second)
    return first, second


def _orders(a_ndim, b_ndim, axes):
    """The transpositions that put `a`'s contracted axes last and `b`'s first."""
    first, second = _pair(axes, a_ndim)
    first = tuple(k % a_ndim for k in first)
    second = tuple(k % b_ndim for k in second)
    free_a = tuple(k for k in range(a_ndim) if k not in first)
    free_b = tuple(k for k in range(b_ndim) if k not in second)
    return free_a + first, second + free_b, len(first)


def tensordot(a, b, axes=2):
    """np.tensordot(a, b, axes)."""
    return np.tensordot(a, b, axes)


def tensordot_da(g, a, b, axes=2):
    """Adjoint of np.tensordot(a, b, axes) in `a`."""
    order_a, order_b, n = _orders(np.ndim(a), np.ndim(b), axes)
    bt = np.transpose(b, order_b)
    free_b = np.ndim(b) - n
    # g[free_a, free_b] times b[contracted, free_b], summed over free_b
    moved = np.tensordot(g, bt, axes=(tuple(range(np.ndim(g) - free_b, np.ndim(g))),
                                      tuple(range(n, np.ndim(b)))))
    return np.transpose(moved, np.argsort(order_a))


def tensordot_db(g, a, b, axes=2):
    """Adjoint of np.tensordot(a, b, axes) in `b`."""
    order_a, order_b, n = _orders(np.ndim(a), np.ndim(b), axes)
    at = np.transpose(a, order_a)
    free_a = np.ndim(a) - n
    moved = np.tensordot(at, g, axes=(tuple(range(free_a)), tuple(range(free_a))))
    return np.transpose(moved, np.argsort(order_b))


@register_jitable(cache=True)
def _perm(mask, paired, contracted_last):
    """The transposition that puts the axes `paired` (in order) last (or first) and the
    others (unmasked) in their order before (after) them."""
    n = mask.shape[0]
    out = np.empty(n, np.intp)
    k = 0
    if not contracted_last:
        for i in range(paired.shape[0]):
            out[k] = paired[i]
            k += 1
    for i in range(n):
        if not mask[i]:
            out[k] = i
            k += 1
    if contracted_last:
        for i in range(paired.shape[0]):
            out[k] = paired[i]
            k += 1
    return out


@register_jitable(cache=True)
def _inverse(perm):
    out = np.empty_like(perm)
    for i in range(perm.shape[0]):
        out[perm[i]] = i
    return out


@register_jitable(cache=True)
def _matrix(x, perm, rows):
    """`x` transposed by `perm` (an array), as a C-ordered float matrix of `rows` rows."""
    t = np.transpose(x, to_fixed_tuple(perm, x.ndim))
    return np.ascontiguousarray(t).reshape((rows, x.size // max(rows, 1))) * 1.0


@register_jitable(cache=True)
def _size_of(shape, mask, want):
    n = 1
    for i in range(mask.shape[0]):
        if mask[i] == want:
            n *= shape[i]
    return n


def _pairs_of(axes):
    """The Numba type `axes` as (count, a function of axes giving the two tuples) for a
    pair of ints or of tuples of ints; (count, None) for an int literal (the last axes of
    `a` with the first of `b`); (None, None) for an int whose value is not in its type."""
    if isinstance(axes, types.BaseTuple) and len(axes) == 2:
        first, second = axes.types
        if isinstance(first, types.Integer) and isinstance(second, types.Integer):
            return 1, register_jitable(lambda axes: ((axes[0],), (axes[1],)))
        if isinstance(first, types.BaseTuple) and isinstance(second, types.BaseTuple) \
                and len(first) == len(second):
            return len(first), register_jitable(lambda axes: (axes[0], axes[1]))
    if isinstance(axes, types.IntegerLiteral):
        return axes.literal_value, None
    if isinstance(axes, types.Omitted):  # the default, 2
        return axes.value, None
    if isinstance(axes, int):
        return axes, None
    return None, None


@register_jitable(cache=True)
def _last_first(n, a_ndim):
    pa = np.empty(n, np.intp)
    pb = np.empty(n, np.intp)
    for i in range(n):
        pa[i] = a_ndim - n + i
        pb[i] = i
    return pa, pb


def _paired_axes(axes, a_ndim, b_ndim):
    """Numba helper: (count, a jitable function of `axes` giving the paired axes as two
    arrays), or (None, None) when the count is not in the type of `axes`."""
    n, pairs = _pairs_of(axes)
    if n is None:
        return None, None
    if pairs is None:
        return n, register_jitable(lambda axes: _last_first(n, a_ndim))

    def arrays(axes):
        ta, tb = pairs(axes)
        pa = np.empty(n, np.intp)
        pb = np.empty(n, np.intp)
        for i in range(n):
            pa[i] = ta[i] % a_ndim
            pb[i] = tb[i] % b_ndim
        return pa, pb

    return n, register_jitable(arrays)


@register_jitable(cache=True)
def _masks(pa, pb, a_ndim, b_ndim):
    ca = np.zeros(a_ndim, np.bool_)
    cb = np.zeros(b_ndim, np.bool_)
    for i in range(pa.shape[0]):
        ca[pa[i]] = True
        cb[pb[i]] = True
    return ca, cb


@_jit_version(tensordot)
def _tensordot(a, b, axes=2):
    n, paired = _paired_axes(axes, a.ndim, b.ndim)
    if n is None:
        return None
    rank = a.ndim + b.ndim - 2 * n

    def impl(a, b, axes=2):
        pa, pb = paired(axes)
        ca, cb = _masks(pa, pb, a.ndim, b.ndim)
        inner_size = _size_of(a.shape, ca, True)
        am = _matrix(a, _perm(ca, pa, True), a.size // max(inner_size, 1))
        bm = _matrix(b, _perm(cb, pb, False), inner_size)
        shape = np.empty(rank, np.intp)
        k = 0
        for i in range(a.ndim):
            if not ca[i]:
                shape[k] = a.shape[i]
                k += 1
        for i in range(b.ndim):
            if not cb[i]:
                shape[k] = b.shape[i]
                k += 1
        return (am @ bm).reshape(to_fixed_tuple(shape, rank))

    return impl


@_jit_version(tensordot_da)
def _tensordot_da(g, a, b, axes=2):
    n, paired = _paired_axes(axes, a.ndim, b.ndim)
    if n is None:
        return None

    def impl(g, a, b, axes=2):
        pa, pb = paired(axes)
        ca, cb = _masks(pa, pb, a.ndim, b.ndim)
        inner_size = _size_of(a.shape, ca, True)
        perm_a, perm_b = _perm(ca, pa, True), _perm(cb, pb, False)
        bm = _matrix(b, perm_b, inner_size)
        gm = np.ascontiguousarray(np.asarray(g) * 1.0).reshape(
            (a.size // max(inner_size, 1), bm.shape[1]))
        moved = gm @ np.ascontiguousarray(bm.T)  # a's free axes, then the contracted
        shape = np.empty(a.ndim, np.intp)
        for i in range(a.ndim):
            shape[i] = a.shape[perm_a[i]]
        t = moved.reshape(to_fixed_tuple(shape, a.ndim))
        return np.ascontiguousarray(np.transpose(t, to_fixed_tuple(_inverse(perm_a), a.ndim)))

    return impl


@_jit_version(tensordot_db)
def _tensordot_db(g, a, b, axes=2):
    n, paired = _paired_axes(axes, a.ndim, b.ndim)
    if n is None:
        return None

    def impl(g, a, b, axes=2):
        pa, pb = paired(axes)
        ca, cb = _masks(pa, pb, a.ndim, b.ndim)
        inner_size = _size_of(a.shape, ca, True)
        perm_a, perm_b = _perm(ca, pa, True), _perm(cb, pb, False)
        am = _matrix(a, perm_a, a.size // max(inner_size, 1))
        gm = np.ascontiguousarray(np.asarray(g) * 1.0).reshape(
            (am.shape[0], b.size // max(inner_size, 1)))
        moved = np.ascontiguousarray(am.T) @ gm  # b's contracted axes, then the free
        shape = np.empty(b.ndim, np.intp)
        for i in range(b.ndim):
            shape[i] = b.shape[perm_b[i]]
        t = moved.reshape(to_fixed_tuple(shape, b.ndim))
        return np.ascontiguousarray(np.transpose(t, to_fixed_tuple(_inverse(perm_b), b.ndim)))

    return impl


# np.kron(a, b) of arrays of one or two dimensions: blocks a[i, j] * b; a vector is a
# matrix of one row


def _as_matrix(a):
    return np.reshape(a, (1, -1)) if np.ndim(a) == 1 else np.asarray(a)


@_jit_version(_as_matrix)
def _as_matrix_jit(a):
    if a.ndim == 1:
        return lambda a: np.ascontiguousarray(a).reshape((1, a.shape[0])) * 1.0
    return lambda a: np.ascontiguousarray(a) * 1.0


@register_jitable(cache=True)
def _kron_blocks(g, am, bm):
    """The cotangent of np.kron as (rows of a, rows of b, columns of a, columns of b)."""
    return np.ascontiguousarray(np.asarray(g) * 1.0).reshape(
        (am.shape[0], bm.shape[0], am.shape[1], bm.shape[1]))


@register_jitable(cache=True)
def kron_da(g, a, b):
    """Adjoint of np.kron(a, b) in `a`: each a[i, j] gets its block of `g` against `b`."""
    am, bm = _as_matrix(a), _as_matrix(b)
    blocks = _kron_blocks(g, am, bm)
    out = np.zeros(am.shape)
    for i in range(am.shape[0]):
        for k in range(bm.shape[0]):
            for j in range(am.shape[1]):
                for m in range(bm.shape[1]):
                    out[i, j] += blocks[i, k, j, m] * bm[k, m]
    return out.reshape(np.shape(a))


@register_jitable(cache=True)
def kron_db(g, a, b):
    """Adjoint of np.kron(a, b) in `b`: the blocks of `g` weighed by the elements of `a`."""
    am, bm = _as_matrix(a), _as_matrix(b)
    blocks = _kron_blocks(g, am, bm)
    out = np.zeros(bm.shape)
    for i in range(am.shape[0]):
        for k in range(bm.shape[0]):
            for j in range(am.shape[1]):
                for m in range(bm.shape[1]):
                    out[k, m] += blocks[i, k, j, m] * am[i, j]
    return out.reshape(np.shape(b))


def kron(a, b):
    """np.kron(a, b)."""
    return np.kron(a, b)


@_jit_version(kron)
def _kron(a, b):
    if _is_array(a) and _is_array(b):
        return lambda a, b: np.kron(np.ascontiguousarray(a) * 1.0, np.ascontiguousarray(b) * 1.0)
    return None

"""Elementwise arithmetic on arrays, and additions into an array, as explicit loops: what
reverse sweeps of array code spend their arithmetic on (`d_x += d_t * y`, `d_x[1:] +=
d_t`, the masks of `np.where`).

Numba compiles each `a * b` on arrays into a loop nest of its own that tests, for each
operand and each axis, whether the operand is broadcast along it; at `-O3`, LLVM copies
the nest for every outcome of those tests, so that one product of two 4-d arrays is five
megabytes of code and ten seconds of compile time. `d_x[1:] += d_t` also copies the
slice, and checks its shape with a formatted error message that takes seconds to compile
the first time. The helpers here do the same arithmetic with one loop over the elements
of contiguous operands of one shape, or otherwise a loop over the rows of the operands
broadcast to the result's shape: small code, compiled once per type signature into
Numba's disk cache and shared by every call, and as fast (the rows are contiguous, and
LLVM vectorizes the loops over them). The values are those of the operators: the same
operation on the same elements.

As plain Python they are the operators themselves.
"""
import functools
import math

import numpy as np
from numba import types
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import overload, register_jitable
from numba.np.numpy_support import as_dtype, from_dtype

from srcad.runtime.overloads import _is_array, _jit_version, fresh, result_like


@fresh
def mul(a, b):
    """a * b."""
    return a * b


@fresh
def div(a, b):
    """a / b."""
    return a / b


@fresh
def add(a, b):
    """a + b."""
    return a + b


@fresh
def sub(a, b):
    """a - b."""
    return a - b


@fresh
def neg(a):
    """-a."""
    return -a


@fresh
def greater(a, b):
    """a > b."""
    return a > b


@fresh
def greater_equal(a, b):
    """a >= b."""
    return a >= b


@fresh
def less(a, b):
    """a < b."""
    return a < b


@fresh
def less_equal(a, b):
    """a <= b."""
    return a <= b


@fresh
def equal(a, b):
    """a == b."""
    return a == b


@fresh
def not_equal(a, b):
    """a != b."""
    return a != b


def _alike(a, b):
    """Raise ValueError unless the arrays among `a` and `b` have one shape (the `_alike`
    helpers are chosen where the code says so: `srcad.passes.same_shape_loops`)."""
    if type(a) is np.ndarray and type(b) is np.ndarray and a.shape == b.shape:
        return
    shapes = {np.shape(v) for v in (a, b) if np.ndim(v)}
    if len(shapes) > 1:
        raise ValueError(f"operands of shapes {sorted(shapes)} where one shape was expected")


@fresh
def mul_alike(a, b):
    """a * b, the arrays among them of one shape."""
    _alike(a, b)
    return a * b


@fresh
def div_alike(a, b):
    """a / b, the arrays among them of one shape."""
    _alike(a, b)
    return a / b


@fresh
def add_alike(a, b):
    """a + b, the arrays among them of one shape."""
    _alike(a, b)
    return a + b


@fresh
def sub_alike(a, b):
    """a - b, the arrays among them of one shape."""
    _alike(a, b)
    return a - b


def add_to_alike(t, g):
    """`t += g` in place, `g` a number or an array of `t`'s shape."""
    _alike(t, g)
    t += g


def added(t, g):
    """`t` with `g` added into it in place (`add_to_alike`), returned: the addition as an
    expression, for a kernel of `srcad.passes.element_loops`, which on numbers is `t +
    g`."""
    add_to_alike(t, g)
    return t


def add_to(t, g):
    """`t += g` in place, `g` first summed over the axes along which `t` broadcasts to it
    (as `unbroadcast` does): `t` an adjoint array, or a view of one (`d_x[1:]`)."""
    if np.shape(g) == t.shape or not np.ndim(g):
        t += g
        return
    g = np.asarray(g)
    g = np.broadcast_to(g, np.broadcast_shapes(t.shape, g.shape))
    t += summed_over(g, t.shape)


def summed_over(g, shape):
    """The array `g` summed over the axes along which an array of `shape` broadcasts to
    `g`'s shape, as an array of `shape` (`g` itself when it has that shape). Summing the
    leading or trailing axes of a contiguous float array is a product with a vector of
    ones (BLAS, many times faster than NumPy's reduction along short rows): a reverse
    sweep's sums may round as any order of the additions does."""
    gshape = g.shape
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    axes = [*range(lead)]  # ascending, so a run of k axes is told by one end
    axes += [lead + ax for ax, n in enumerate(shape) if n == 1 and gshape[lead + ax] != 1]
    k = len(axes)
    if not k:
        return g
    if k < len(gshape) and g.dtype.kind in "fc" and g.flags.c_contiguous and g.size:
        if axes[-1] == k - 1:  # the leading axes
            rows = g.reshape(math.prod(gshape[:k]), -1)
            return (_ones(rows.shape[0], g.dtype) @ rows).reshape(shape)
        if axes[0] == len(gshape) - k:  # the trailing axes
            rows = g.reshape(-1, math.prod(gshape[len(gshape) - k:]))
            return (rows @ _ones(rows.shape[1], g.dtype)).reshape(shape)
    return np.sum(g, axis=tuple(axes)).reshape(shape)


_ONES = {}  # (length, dtype) -> a read-only vector of ones, for summed_over


def _ones(n, dtype):
    ones = _ONES.get((n, dtype))
    if ones is None:
        if len(_ONES) >= 64:
            _ONES.clear()
        ones = _ONES[n, dtype] = np.ones(n, dtype)
        ones.flags.writeable = False
    return ones


# the element functions: three operands each, the last ones placeholders where unused


@register_jitable
def _times(x, y, z):
    return x * y


@register_jitable(error_model="numpy")
def _over(x, y, z):
    return x / y


@register_jitable
def _plus(x, y, z):
    return x + y


@register_jitable
def _minus(x, y, z):
    return x - y


@register_jitable
def _negative(x, y, z):
    return -x


@register_jitable
def _gt(x, y, z):
    return x > y


@register_jitable
def _ge(x, y, z):
    return x >= y


@register_jitable
def _lt(x, y, z):
    return x < y


@register_jitable
def _le(x, y, z):
    return x <= y


@register_jitable
def _eq(x, y, z):
    return x == y


@register_jitable
def _ne(x, y, z):
    return x != y


@register_jitable
def _unless_zero(g, value, z):
    """`value`, or 0 where the cotangent `g` is 0 (`srcad.runtime.arrays.strong`)."""
    return 0.0 if g == 0.0 else value


@register_jitable
def _chosen(c, a, b):
    """`a` where `c`, else `b` (`np.where`)."""
    return a if c else b


# the loops


def _named(fn, name):
    """`fn` under the qualified name `name`. Numba names compiled code after the function's
    qualified name and a counter of the process that compiled it: two closures of one
    factory doing different things, compiled by two processes into the disk cache, could
    get one name, and one would then run for both in a function that calls the two."""
    fn.__qualname__ = fn.__name__ = name
    return fn


def _array(t):
    """Whether Numba type `t` is an array with axes (a 0-d array counts as a number)."""
    return _is_array(t) and t.ndim > 0


def _item(v, k):
    """`v[k]` of an array, `v` itself of a number: an operand at an index of the loop."""
    return v[k] if np.ndim(v) else v


@overload(_item, inline="always")
def _item_jit(v, k):
    if _array(v):
        return lambda v, k: v[k]
    if _is_array(v):  # 0-d
        return lambda v, k: v[()]
    return lambda v, k: v


def _flat_of(v):
    """A C-contiguous array as 1-d, a number as itself."""
    return np.ravel(v) if np.ndim(v) else v


@overload(_flat_of, inline="always")
def _flat_of_jit(v):
    if _array(v):
        return lambda v: v.reshape(v.size)
    return lambda v: v


def _spread(v, shape):
    """An array broadcast to `shape` (a view), a number as itself."""
    return np.broadcast_to(v, shape) if np.ndim(v) else v


@overload(_spread, inline="always")
def _spread_jit(v, shape):
    if _array(v):
        return lambda v, shape: np.broadcast_to(v, shape)
    return lambda v, shape: v


def _shape_or(v, shape):
    """The shape of an array, `shape` for a number (1s, as many as the result has axes,
    where a shape is broadcast)."""
    return np.shape(v) if np.ndim(v) else shape


@overload(_shape_or, inline="always")
def _shape_or_jit(v, shape):
    if _array(v):
        return lambda v, shape: v.shape
    return lambda v, shape: shape


@register_jitable
def _common_shape(sa, sb, ones):
    """The shape that arrays of shapes `sa` and `sb` broadcast to; `ones`, a tuple of as
    many 1s as it has axes."""
    out, n = ones, len(ones)
    for i in range(n):
        x = sa[i - n + len(sa)] if i >= n - len(sa) else 1
        y = sb[i - n + len(sb)] if i >= n - len(sb) else 1
        if x != y and x != 1 and y != 1:
            raise ValueError("operands could not be broadcast together")
        out = tuple_setitem(out, i, y if x == 1 else x)
    return out


def broadcast_shapes(*shapes):
    """np.broadcast_shapes(*shapes): compiled, one loop over the axes per shape, where
    Numba's own unrolls a loop over a list for each call (a second of compile time for
    the three calls of a five-point stencil's forward sweep)."""
    return np.broadcast_shapes(*shapes)


def _shapes_of(count):
    """`shapes -> the shape they broadcast to`, jitted, for `count` shapes (2 to 4)."""
    if count == 2:
        return lambda shapes, ones: _common_shape(shapes[0], shapes[1], ones)
    if count == 3:
        return lambda shapes, ones: _common_shape(
            _common_shape(shapes[0], shapes[1], ones), shapes[2], ones)
    return lambda shapes, ones: _common_shape(_common_shape(
        _common_shape(shapes[0], shapes[1], ones), shapes[2], ones), shapes[3], ones)


_SHAPES_OF = {count: register_jitable(_named(_shapes_of(count), f"_shapes_of_{count}"))
              for count in (2, 3, 4)}


@_jit_version(broadcast_shapes)
def _broadcast_shapes(*shapes):
    if isinstance(shapes[0], types.StarArgTuple):
        shapes = tuple(shapes[0])
    if not 2 <= len(shapes) <= 4 or not all(
            isinstance(s, types.UniTuple) and isinstance(s.dtype, types.Integer) for s in shapes):
        return lambda *shapes: np.broadcast_shapes(*shapes)
    ones = (1,) * max(len(s) for s in shapes)
    run = _SHAPES_OF[len(shapes)]
    return lambda *shapes: run(shapes, ones)


def _first(v):
    """An array's first element, a number itself."""
    return v[0] if np.ndim(v) else v


@overload(_first, inline="always")
def _first_jit(v):
    if _array(v):
        return lambda v: v[0]
    return lambda v: v


def _repeats(v):
    """Whether `v` is a row that repeats one element (broadcast along it: stride 0)."""
    return bool(np.ndim(v)) and v.strides[0] == 0


@overload(_repeats, inline="always")
def _repeats_jit(v):
    if _array(v):
        return lambda v: v.strides[0] == 0
    return lambda v: False


@functools.lru_cache(maxsize=None)
def _line(f, inplace):
    """Jitted `line(o, x, y, z, n)`: `o[k] = f(x[k], y[k], z[k])` for k < n, the operands
    1-d arrays or numbers (`inplace`: `x` is `o`, and not passed)."""
    if inplace:
        def line(o, x, y, z, n):
            for k in range(n):
                o[k] = f(o[k], _item(y, k), _item(z, k))
    else:
        def line(o, x, y, z, n):
            for k in range(n):
                o[k] = f(_item(x, k), _item(y, k), _item(z, k))
    return register_jitable(_named(line, f"_line_{f.__name__}{'_inplace' if inplace else ''}"))


@functools.lru_cache(maxsize=None)
def _each(f, lead, flat, inplace=False):
    """Jitted `each(out, x, y, z)`: `out[i] = f(x[i], y[i], z[i])` at every index `i` of
    `out`, each operand an array of `out`'s shape (maybe a broadcast view) or a number
    (`inplace`: `x` is `out`). `flat`: the arrays are C-contiguous, one loop runs over
    their elements; else a loop over the rows, `lead` the number of axes outside a row.
    A row of `x` or `y` that repeats one element (broadcast along the row) is read as
    that number, so that the loop over the row stays contiguous (and vectorized)."""
    line = _line(f, inplace)

    def rows(row, xr, yr, zr):
        n = row.shape[0]
        if _repeats(xr) and _repeats(yr):
            line(row, _first(xr), _first(yr), zr, n)
        elif _repeats(xr):
            line(row, _first(xr), yr, zr, n)
        elif _repeats(yr):
            line(row, xr, _first(yr), zr, n)
        else:
            line(row, xr, yr, zr, n)

    rows = register_jitable(_named(rows, f"_rows_{f.__name__}{'_inplace' if inplace else ''}"))

    if inplace:
        def each(out, x, y, z):
            if flat:
                of = _flat_of(out)
                line(of, None, _flat_of(y), _flat_of(z), of.size)
            elif lead == 0:
                rows(out, None, y, z)
            else:
                for idx in np.ndindex(out.shape[:lead]):
                    rows(out[idx], None, _item(y, idx), _item(z, idx))
    else:
        def each(out, x, y, z):
            if flat:
                of = _flat_of(out)
                line(of, _flat_of(x), _flat_of(y), _flat_of(z), of.size)
            elif lead == 0:
                rows(out, x, y, z)
            else:
                for idx in np.ndindex(out.shape[:lead]):
                    rows(out[idx], _item(x, idx), _item(y, idx), _item(z, idx))
    return register_jitable(_named(each, f"_each_{f.__name__}_{lead}_"
                                         f"{'flat' if flat else 'rows'}"
                                         f"{'_inplace' if inplace else ''}"))


def _dtype(numpy_version, operands):
    """The Numba dtype of `numpy_version` applied to values of the Numba types
    `operands`, as NumPy computes it."""
    def one(t):
        return np.ones(1 if _array(t) else (), as_dtype(t.dtype if _is_array(t) else t))
    return from_dtype(np.asarray(numpy_version(*map(one, operands))).dtype)


@functools.lru_cache(maxsize=None)
def elementwise(element, numpy_version, *operands):
    """For the Numba types `operands` of the operands of an elementwise helper (one to
    three, at least one an array with axes): a jitted function of three values (`None`
    for a missing one) returning a new array of `element` (a jitted function of three
    elements) at each of their broadcast indices, of the dtype NumPy gives for
    `numpy_version` (the helper's NumPy spelling). Arrays of one shape, all C-contiguous,
    are one loop over their elements; others, a loop over the rows of each broadcast to
    the result's shape."""
    arrays = [t for t in operands if _array(t)]
    n = max(t.ndim for t in arrays)
    dtype = _dtype(numpy_version, operands)
    ones = (1,) * n
    same = _each(element, n - 1, all(t.layout == "C" and t.ndim == n for t in arrays))
    spread = _each(element, n - 1, False)

    def spread_out(x, y, z):
        shape = _common_shape(_common_shape(_shape_or(x, ones), _shape_or(y, ones), ones),
                              _shape_or(z, ones), ones)
        out = np.empty(shape, dtype)
        spread(out, _spread(x, shape), _spread(y, shape), _spread(z, shape))
        return out

    if len(arrays) == 1:  # one array, the rest numbers: the result has its shape
        def run(x, y, z):
            out = np.empty(_shape_or(x, _shape_or(y, _shape_or(z, ones))), dtype)
            same(out, x, y, z)
            return out
    elif len({t.ndim for t in arrays}) > 1:  # arrays of different ranks: broadcast
        run = spread_out
    else:
        spread_out = register_jitable(_named(spread_out, f"_spread_{element.__name__}"))

        def run(x, y, z):
            shape = _shape_or(x, _shape_or(y, _shape_or(z, ones)))
            if _shape_or(x, shape) == shape and _shape_or(y, shape) == shape and \
                    _shape_or(z, shape) == shape:
                out = np.empty(shape, dtype)
                same(out, x, y, z)
                return out
            return spread_out(x, y, z)

    return register_jitable(_named(run, f"_elementwise_{element.__name__}"))


def _binary(element, numpy_version):
    """The Numba version of a helper of two operands: `element` itself on two numbers,
    else the loops of `elementwise`."""
    name = element.__name__

    def factory(a, b):
        if not (_array(a) or _array(b)):
            return _named(lambda a, b: element(a, b, None), f"_{name}_numbers")
        run = elementwise(element, numpy_version, a, b)
        return _named(lambda a, b: run(a, b, None), f"_{name}_arrays")
    return factory


@register_jitable
def same_shape(sa, sb):
    """Raise ValueError unless the shapes `sa` and `sb` are one (the `_alike` helpers, and
    the element loops of `srcad.passes.element_loops`)."""
    if sa != sb:
        raise ValueError("operands of two shapes where one shape was expected")


@functools.lru_cache(maxsize=None)
def _alike_loop(element, numpy_version, a, b):
    """For the Numba types `a`, `b` (numbers or arrays of one rank, at least one an array
    with axes): a jitted `run(a, b)`, a new array of `element` at each index, one loop
    and no broadcasting (a ValueError where two arrays differ in shape)."""
    arrays = [t for t in (a, b) if _array(t)]
    if len(arrays) == 1 or len({t.ndim for t in arrays}) > 1:
        run = elementwise(element, numpy_version, a, b)
        return _named(lambda a, b: run(a, b, None), f"_{element.__name__}_arrays")
    n = arrays[0].ndim
    dtype = _dtype(numpy_version, (a, b))
    same = _each(element, n - 1, all(t.layout == "C" for t in arrays))

    def run(a, b):
        same_shape(a.shape, b.shape)
        out = np.empty(a.shape, dtype)
        same(out, a, b, None)
        return out
    return register_jitable(_named(run, f"_alike_{element.__name__}"))


def _binary_alike(element, numpy_version):
    """The Numba version of an `_alike` helper of two operands."""
    name = element.__name__

    def factory(a, b):
        if not (_array(a) or _array(b)):
            return _named(lambda a, b: element(a, b, None), f"_{name}_numbers")
        return _alike_loop(element, numpy_version, a, b)
    return factory


_jit_version(mul)(_binary(_times, mul))
_jit_version(div)(_binary(_over, div))
_jit_version(add)(_binary(_plus, add))
_jit_version(sub)(_binary(_minus, sub))
_jit_version(greater)(_binary(_gt, greater))
_jit_version(greater_equal)(_binary(_ge, greater_equal))
_jit_version(less)(_binary(_lt, less))
_jit_version(less_equal)(_binary(_le, less_equal))
_jit_version(equal)(_binary(_eq, equal))
_jit_version(not_equal)(_binary(_ne, not_equal))
_jit_version(mul_alike)(_binary_alike(_times, mul))
_jit_version(div_alike)(_binary_alike(_over, div))
_jit_version(add_alike)(_binary_alike(_plus, add))
_jit_version(sub_alike)(_binary_alike(_minus, sub))


@_jit_version(neg)
def _neg(a):
    if not _array(a):
        return lambda a: -a
    run = elementwise(_negative, neg, a)
    return lambda a: run(a, None, None)


# sums into an array


@register_jitable
def summed_to(g, shape):
    """`g` summed over the axes along which an array of `shape` was broadcast to `g`'s
    shape (`unbroadcast`): `g` itself, contiguous, when it has that shape."""
    if g.ndim == len(shape):
        equal = True
        for ax in range(g.ndim):
            if g.shape[ax] != shape[ax]:
                equal = False
        if equal:
            return np.ascontiguousarray(g)
    out = np.zeros(shape, dtype=g.dtype)
    flat = out.reshape(out.size)
    off = g.ndim - len(shape)
    if g.ndim < 2 or len(shape) == 0:
        for v in np.nditer(g):
            flat[0] += v.item()
        return out
    step = np.ones(len(shape), np.intp)  # out's strides, in elements
    for xa in range(len(shape) - 2, -1, -1):
        step[xa] = step[xa + 1] * shape[xa + 1]
    n = g.shape[g.ndim - 1]
    whole_rows = shape[len(shape) - 1] != 1 or n == 1
    for idx in np.ndindex(g.shape[:-1]):  # a row of g at a time, added into out's row
        at = 0
        for ax in range(g.ndim - 1):
            xa = ax - off
            if xa >= 0 and shape[xa] != 1:
                at += idx[ax] * step[xa]
        row = g[idx]
        if whole_rows:
            for k in range(n):
                flat[at + k] += row[k]
        else:  # out's last axis is broadcast: the row sums into one element
            total = flat[at]
            for k in range(n):
                total += row[k]
            flat[at] = total
    return out


@_jit_version(added)
def _added(t, g):
    if not _array(t):
        return lambda t, g: t + g

    def impl(t, g):
        add_to_alike(t, g)
        return t
    return impl


@_jit_version(add_to_alike)
def _add_to_alike(t, g):
    if not _array(t):
        return None
    if not _array(g):  # a number
        each = _each(_plus, t.ndim - 1, t.layout == "C", True)
        return lambda t, g: each(t, None, _item(g, 0), None)
    if g.ndim != t.ndim:
        return None
    same = _each(_plus, t.ndim - 1, t.layout == "C" and g.layout == "C", True)

    def impl(t, g):
        same_shape(t.shape, g.shape)
        same(t, None, g, None)
    return impl


@_jit_version(add_to)
def _add_to(t, g):
    if not _array(t):
        return None
    lead = t.ndim - 1
    if not _array(g):  # a number
        each = _each(_plus, lead, t.layout == "C", True)
        return lambda t, g: each(t, None, _item(g, 0), None)
    rows = _each(_plus, lead, False, True)
    if g.ndim < t.ndim:  # g broadcasts to t
        return lambda t, g: rows(t, None, np.broadcast_to(g, t.shape), None)
    ones = (1,) * g.ndim

    @register_jitable
    def summed(t, g):  # t broadcasts to g (or both to a third shape): g summed down first
        whole = np.broadcast_to(g, _common_shape(t.shape, g.shape, ones))
        rows(t, None, summed_to(whole, t.shape), None)

    if g.ndim > t.ndim:
        return summed
    same = _each(_plus, lead, t.layout == "C" and g.layout == "C", True)

    def impl(t, g):
        if g.shape == t.shape:
            same(t, None, g, None)
        elif _common_shape(t.shape, g.shape, ones) == t.shape:  # g broadcasts to t
            rows(t, None, np.broadcast_to(g, t.shape), None)
        else:
            summed(t, g)

    return impl


@result_like(1)
@fresh
def filled(g, x):
    """A new float array of `x`'s shape (`x` an array or a shape) holding `g` broadcast:
    `d = np.zeros_like(x); d += g` in one pass, where `g` broadcasts to that shape."""
    out = np.empty(x if isinstance(x, tuple) else np.shape(x))
    np.copyto(out, g, casting="same_kind")  # a complex `g` raises, as `+=` would
    return out


@_jit_version(filled)
def _filled(g, x):
    if isinstance(x, types.BaseTuple):
        def impl(g, x):
            out = np.zeros(x)
            add_to(out, g)
            return out
        return impl

    def impl_array(g, x):
        out = np.zeros(x.shape)
        add_to(out, g)
        return out
    return impl_array

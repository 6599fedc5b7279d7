"""Helpers that generated code calls as `rt.<name>`: plain NumPy when run by Python,
compiled (through `numba.extending.overload`) when the sweeps run under Numba."""
import math

import numpy as np
from numba import types
from numba.extending import overload, register_jitable


def _jit_version(py_fn):
    """Register the decorated factory as the Numba implementation of `py_fn`."""
    return overload(py_fn, jit_options={"cache": True})


def _is_array(t):
    return isinstance(t, types.Array)


def _is_none(t):
    return t is None or isinstance(t, (types.NoneType, types.Omitted))


# tapes


@register_jitable(cache=True)
def unpruned(flag):
    """`flag` itself, in a form Numba cannot read as a constant: a forward-sweep branch
    that appends a callee's tape to a list stays compiled, so the list gets its type."""
    return flag


@register_jitable(cache=True)
def range_len(start, stop, step):
    """Number of iterations of `range(start, stop, step)`."""
    if step > 0:
        return max(0, (stop - start + step - 1) // step)
    return max(0, (start - stop - step - 1) // (-step))


@register_jitable(cache=True)
def reserve(buf, needed):
    """`buf`, or a larger copy of it, with room for `needed` entries."""
    if needed <= buf.shape[0]:
        return buf
    new = np.empty(max(needed, 2 * buf.shape[0]), dtype=buf.dtype)
    new[:buf.shape[0]] = buf
    return new


# elementwise


def select(c, a, b):
    """`a` where `c`, else `b`; scalars stay scalars."""
    if np.ndim(c) or np.ndim(a) or np.ndim(b):
        return np.where(c, a, b)
    return a if c else b


@_jit_version(select)
def _select(c, a, b):
    if _is_array(c) or _is_array(a) or _is_array(b):
        return lambda c, a, b: np.where(c, a, b)
    return lambda c, a, b: a if c else b


def _pow_dx_scalar(x, y):
    if y == 0:
        return 0.0
    if x == 0.0:
        if y > 1:
            return 0.0
        return 1.0 if y == 1 else y * math.inf
    return y * float(x) ** (y - 1)


def pow_dx(x, y):
    """d(x ** y)/dx = y * x ** (y - 1): 0 for y == 0, and at x == 0 the limit (0 for
    y > 1, 1 for y == 1, infinite below) rather than an error."""
    if np.ndim(x) or np.ndim(y):
        x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
        with np.errstate(divide="ignore", invalid="ignore"):
            out = y * np.power(x, y - 1)
        out[y == 0] = 0.0
        out[(x == 0) & (y > 1)] = 0.0
        out[(x == 0) & (y == 1)] = 1.0
        return out
    return _pow_dx_scalar(x, y)


_pow_dx_jit = register_jitable(_pow_dx_scalar)


@_jit_version(pow_dx)
def _pow_dx(x, y):
    if not (_is_array(x) or _is_array(y)):
        return lambda x, y: _pow_dx_jit(x, y)
    if not _is_array(y):
        def impl_x(x, y):
            out = np.empty(x.shape)
            for idx in np.ndindex(x.shape):
                out[idx] = _pow_dx_jit(x[idx], y)
            return out
        return impl_x
    if not _is_array(x):
        def impl_y(x, y):
            out = np.empty(y.shape)
            for idx in np.ndindex(y.shape):
                out[idx] = _pow_dx_jit(x, y[idx])
            return out
        return impl_y

    def impl(x, y):
        xb, yb = np.broadcast_arrays(x * 1.0, y * 1.0)
        out = np.empty(xb.shape)
        for idx in np.ndindex(xb.shape):
            out[idx] = _pow_dx_jit(xb[idx], yb[idx])
        return out

    return impl


def log_or_zero(x):
    """log(x) where x > 0, else 0 (the `d/dy x**y` factor; 0 where x**y has no slope in y)."""
    if np.ndim(x):
        return np.log(np.where(x > 0, x, 1.0))
    return math.log(x) if x > 0 else 0.0


@_jit_version(log_or_zero)
def _log_or_zero(x):
    if _is_array(x):
        return lambda x: np.log(np.where(x > 0, x, 1.0))
    return lambda x: math.log(x) if x > 0 else 0.0


def unbroadcast(g, x):
    """`g` summed over the axes along which `x` was broadcast to `g`'s shape."""
    if g.shape == x.shape:
        return g
    while g.ndim > x.ndim:
        g = g.sum(axis=0)
    for ax, n in enumerate(x.shape):
        if n == 1 and g.shape[ax] != 1:
            g = g.sum(axis=ax, keepdims=True)
    return g


@_jit_version(unbroadcast)
def _unbroadcast(g, x):
    same_rank = g.ndim == x.ndim

    def impl(g, x):
        if same_rank:
            equal = True
            for ax in range(g.ndim):
                if g.shape[ax] != x.shape[ax]:
                    equal = False
            if equal:
                return np.ascontiguousarray(g)
        out = np.zeros(x.shape)
        flat = out.reshape(out.size)
        gc = np.ascontiguousarray(g)
        gflat = gc.reshape(gc.size)
        off = g.ndim - x.ndim
        for f in range(gflat.size):
            rem, xf, mult = f, 0, 1
            for ax in range(g.ndim - 1, -1, -1):
                idx = rem % g.shape[ax]
                rem //= g.shape[ax]
                xa = ax - off
                if xa >= 0:
                    if x.shape[xa] != 1:
                        xf += idx * mult
                    mult *= x.shape[xa]
            flat[xf] += gflat[f]
        return out

    return impl


def arange_dstart(g, stop):
    """d np.arange(start, stop, ...) / d start: each element moves with start, unless the
    call was `np.arange(stop)` (one argument), whose values do not depend on it."""
    return 0.0 if stop is None else float(np.sum(g))


@_jit_version(arange_dstart)
def _arange_dstart(g, stop):
    if _is_none(stop):
        return lambda g, stop: 0.0
    return lambda g, stop: np.sum(g)


def within(x, lo, hi):
    """lo <= x <= hi, a missing (None) bound being no bound."""
    ok = np.ones(np.shape(x), dtype=bool) if np.ndim(x) else True
    if lo is not None:
        ok = ok & (x >= lo)
    if hi is not None:
        ok = ok & (x <= hi)
    return ok


@_jit_version(within)
def _within(x, lo, hi):
    low, high = not _is_none(lo), not _is_none(hi)
    if low and high:
        return lambda x, lo, hi: (x >= lo) & (x <= hi)
    if low:
        return lambda x, lo, hi: x >= lo
    if high:
        return lambda x, lo, hi: x <= hi
    if _is_array(x):
        return lambda x, lo, hi: np.ones(x.shape, dtype=np.bool_)
    return lambda x, lo, hi: True


# the math module as Python computes it: Numba's own `math.log(-1.0)` is nan and its
# `math.exp(1000.0)` inf, where Python raises; these raise Python's errors, compiled or not


@register_jitable(cache=True)
def _math_result(r, x, can_overflow):
    """`r`, the result of a math function at `x`, or the error Python raises for it: NaN
    from a number is a domain error, an infinity from a finite number a range error (an
    overflow, `exp(1000.0)`) or a domain error (a pole, `log(0.0)`)."""
    if r != r and x == x:
        raise ValueError("math domain error")
    if (r == math.inf or r == -math.inf) and -math.inf < x < math.inf:
        if can_overflow:
            raise OverflowError("math range error")
        raise ValueError("math domain error")
    return r


@register_jitable(cache=True)
def sqrt(x):
    """math.sqrt(x): ValueError for x < 0."""
    return _math_result(math.sqrt(x), x, False)


def log(x, base=None):
    """math.log(x), or math.log(x, base): ValueError for x <= 0 (or base <= 0)."""
    return math.log(x) if base is None else math.log(x, base)


@_jit_version(log)
def _log(x, base=None):
    if _is_none(base):
        return lambda x, base=None: _math_result(math.log(x), x, False)
    return lambda x, base=None: (_math_result(math.log(x), x, False)
                                 / _math_result(math.log(base), base, False))


def log_base(base):
    """The natural logarithm of a logarithm's `base`, 1.0 for None (base e)."""
    return 1.0 if base is None else math.log(base)


@_jit_version(log_base)
def _log_base(base):
    if _is_none(base):
        return lambda base: 1.0
    return lambda base: math.log(base)


@register_jitable(cache=True)
def log1p(x):
    """math.log1p(x): ValueError for x <= -1."""
    return _math_result(math.log1p(x), x, False)


@register_jitable(cache=True)
def exp(x):
    """math.exp(x): OverflowError above about 709.78."""
    return _math_result(math.exp(x), x, True)


@register_jitable(cache=True)
def expm1(x):
    """math.expm1(x): OverflowError above about 709.78."""
    return _math_result(math.expm1(x), x, True)


@register_jitable(cache=True)
def sinh(x):
    """math.sinh(x): OverflowError beyond about 710.48 in size."""
    return _math_result(math.sinh(x), x, True)


@register_jitable(cache=True)
def cosh(x):
    """math.cosh(x): OverflowError beyond about 710.48 in size."""
    return _math_result(math.cosh(x), x, True)


@register_jitable(cache=True)
def sin(x):
    """math.sin(x): ValueError for an infinite x."""
    return _math_result(math.sin(x), x, False)


@register_jitable(cache=True)
def cos(x):
    """math.cos(x): ValueError for an infinite x."""
    return _math_result(math.cos(x), x, False)


@register_jitable(cache=True)
def tan(x):
    """math.tan(x): ValueError for an infinite x."""
    return _math_result(math.tan(x), x, False)


@register_jitable(cache=True)
def asin(x):
    """math.asin(x): ValueError for |x| > 1."""
    return _math_result(math.asin(x), x, False)


@register_jitable(cache=True)
def acos(x):
    """math.acos(x): ValueError for |x| > 1."""
    return _math_result(math.acos(x), x, False)


@register_jitable(cache=True)
def pow(x, y):
    """math.pow(x, y): ValueError for a negative x and a fractional y, or 0 to a negative
    power; OverflowError when the result overflows (finite x and y only, as in Python)."""
    r = math.pow(x, y)
    if -math.inf < x < math.inf and -math.inf < y < math.inf:
        if r != r or ((r == math.inf or r == -math.inf) and x == 0):
            raise ValueError("math domain error")
        if r == math.inf or r == -math.inf:
            raise OverflowError("math range error")
    return r


@register_jitable(cache=True)
def _integral(x):
    """`x`, or the error Python raises converting NaN or an infinity to an integer."""
    if x != x:
        raise ValueError("cannot convert float NaN to integer")
    if x == math.inf or x == -math.inf:
        raise OverflowError("cannot convert float infinity to integer")
    return x


@register_jitable(cache=True)
def to_int(x):
    """int(x) for a number: ValueError for NaN, OverflowError for an infinity."""
    return int(_integral(x))


@register_jitable(cache=True)
def floor(x):
    """math.floor(x): ValueError for NaN, OverflowError for an infinity."""
    return math.floor(_integral(x))


@register_jitable(cache=True)
def ceil(x):
    """math.ceil(x): ValueError for NaN, OverflowError for an infinity."""
    return math.ceil(_integral(x))


@register_jitable(cache=True)
def trunc(x):
    """math.trunc(x): ValueError for NaN, OverflowError for an infinity."""
    return math.trunc(_integral(x))


# reductions


def expand(g, axis):
    """A reduction's cotangent `g` with the reduced `axis` put back, to broadcast."""
    return g if axis is None else np.expand_dims(g, axis)


@_jit_version(expand)
def _expand(g, axis):
    if _is_none(axis):
        return lambda g, axis: g
    return lambda g, axis: np.expand_dims(g, axis)


def count(shape, axis):
    """How many elements a reduction over `axis` of an array of `shape` combines."""
    return int(np.prod(shape)) if axis is None else shape[axis]


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


@register_jitable(cache=True)
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


def select_adjoint(g, x, ans, axis):
    """Adjoint of max/min reductions: all of `g` to the first extreme element (the first
    NaN, when the result is NaN)."""
    out = np.zeros(np.shape(x))
    if axis is None:
        out.flat[int(np.argmax(_is_extreme(np.ravel(x), ans)))] = g
        return out
    hit = np.argmax(_is_extreme(x, np.expand_dims(ans, axis)), axis=axis)
    np.put_along_axis(out, np.expand_dims(hit, axis), np.expand_dims(g, axis), axis)
    return out


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
        if axis % 2 == 0:
            for j in range(x.shape[1]):
                for i in range(x.shape[0]):
                    if _is_extreme_element(x[i, j], ans[j]):
                        out[i, j] = g[j]
                        break
        else:
            for i in range(x.shape[0]):
                for j in range(x.shape[1]):
                    if _is_extreme_element(x[i, j], ans[i]):
                        out[i, j] = g[i]
                        break
        return out

    return impl2


# products


def matmul_dx(g, x, y):
    """Adjoint of `x @ y` (or `np.dot`) with respect to `x`."""
    nx, ny = np.ndim(x), np.ndim(y)
    if nx == 0 or ny == 0:
        return np.sum(g * y) if nx == 0 else g * y
    if nx == 1 and ny == 1:
        return g * y
    if nx == 1:
        return y @ g
    if ny == 1:
        return np.outer(g, y)
    return g @ y.T


def matmul_dy(g, x, y):
    """Adjoint of `x @ y` (or `np.dot`) with respect to `y`."""
    nx, ny = np.ndim(x), np.ndim(y)
    if nx == 0 or ny == 0:
        return np.sum(g * x) if ny == 0 else g * x
    if nx == 1 and ny == 1:
        return g * x
    if nx == 1:
        return np.outer(x, g)
    if ny == 1:
        return x.T @ g
    return x.T @ g


def _ndims(x, y):
    return (x.ndim if _is_array(x) else 0), (y.ndim if _is_array(y) else 0)


@_jit_version(matmul_dx)
def _matmul_dx(g, x, y):
    nx, ny = _ndims(x, y)
    if nx == 0:
        return lambda g, x, y: np.sum(g * y)
    if ny == 0 or (nx == 1 and ny == 1):
        return lambda g, x, y: g * y
    if nx == 1:
        return lambda g, x, y: np.dot(np.ascontiguousarray(y), np.ascontiguousarray(g))
    if ny == 1:
        return lambda g, x, y: np.outer(g, y)
    return lambda g, x, y: np.dot(np.ascontiguousarray(g), np.ascontiguousarray(y).T)


@_jit_version(matmul_dy)
def _matmul_dy(g, x, y):
    nx, ny = _ndims(x, y)
    if ny == 0:
        return lambda g, x, y: np.sum(g * x)
    if nx == 0 or (nx == 1 and ny == 1):
        return lambda g, x, y: g * x
    if nx == 1:
        return lambda g, x, y: np.outer(x, g)
    return lambda g, x, y: np.dot(np.ascontiguousarray(x).T, np.ascontiguousarray(g))


# subscripts


def scatter_add(d, index, g):
    """d[index] += g for a 1-d integer array `index`, repeated indices adding up."""
    np.add.at(d, index, g)


@_jit_version(scatter_add)
def _scatter_add(d, index, g):
    if _is_array(g):
        def impl(d, index, g):
            for k in range(index.shape[0]):
                d[index[k]] += g[k]
        return impl

    def impl_scalar(d, index, g):
        for k in range(index.shape[0]):
            d[index[k]] += g
    return impl_scalar


# NumPy functions whose Numba versions lack `axis` or need contiguous arrays


def mean(x, axis=None):
    """np.mean(x, axis)."""
    return np.mean(x, axis=axis)


@_jit_version(mean)
def _mean(x, axis=None):
    if _is_none(axis):
        return lambda x, axis=None: np.mean(x)
    return lambda x, axis=None: np.sum(x, axis=axis) / x.shape[axis]


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
    return np.max(x, axis=axis)


def amin(x, axis=None):
    """np.min(x, axis)."""
    return np.min(x, axis=axis)


_jit_version(prod)(_reduce_2d("prod"))
_jit_version(amax)(_reduce_2d("max"))
_jit_version(amin)(_reduce_2d("min"))


def reshape(x, shape):
    """np.reshape(x, shape), for arrays of any layout."""
    return np.reshape(x, shape)


@_jit_version(reshape)
def _reshape(x, shape):
    return lambda x, shape: np.reshape(np.ascontiguousarray(x), shape)


def take_written(d, index):
    """For `x[index] = v` with an integer array `index`: the cotangent of `v`, and `d`
    (the cotangent of `x`) cleared where the write landed. Where `index` repeats, the
    last write is the one that stays, so only it gets the cotangent."""
    n = d.shape[0]
    out = np.zeros((index.shape[0],) + d.shape[1:])
    seen = np.zeros(n, dtype=bool)
    for k in range(index.shape[0] - 1, -1, -1):
        j = index[k] % n
        if not seen[j]:
            out[k] = d[j]
            seen[j] = True
    d[index] = 0.0
    return out


@_jit_version(take_written)
def _take_written(d, index):
    if d.ndim != 1:
        return None

    def impl(d, index):
        n = d.shape[0]
        out = np.zeros(index.shape[0])
        seen = np.zeros(n, dtype=np.bool_)
        for k in range(index.shape[0] - 1, -1, -1):
            j = index[k] % n
            if not seen[j]:
                out[k] = d[j]
                seen[j] = True
        for k in range(index.shape[0]):
            d[index[k] % n] = 0.0
        return out

    return impl


@register_jitable(cache=True)
def flatten(x):
    """x.flatten(): a 1-d copy."""
    return np.ravel(x).copy()


def strong(g, value):
    """`value` where the cotangent `g` is nonzero, else 0: a cotangent that a mask set to
    zero stays zero through the operation (0 * inf and 0 * nan count as 0)."""
    if np.ndim(g) or np.ndim(value):
        return np.where(g == 0.0, 0.0, value)
    return 0.0 if g == 0.0 else value


@_jit_version(strong)
def _strong(g, value):
    if _is_array(g) or _is_array(value):
        return lambda g, value: np.where(g == 0.0, 0.0, value)
    return lambda g, value: 0.0 if g == 0.0 else value


@register_jitable(cache=True)
def stop_gradient(x):
    """`x` itself, through which no gradient flows (see srcad.stop_gradient)."""
    return x


# linear algebra


def solve_db(g, a):
    """Adjoint of x = solve(a, b) with respect to b: solve(a.T, g)."""
    return np.linalg.solve(np.ascontiguousarray(a.T), g)


def solve_da(g, a, x):
    """Adjoint of x = solve(a, b) with respect to a: -solve(a.T, g) x^T."""
    u = solve_db(g, a)
    return -np.outer(u, x) if np.ndim(x) == 1 else -(u @ x.T)


@_jit_version(solve_db)
def _solve_db(g, a):
    return lambda g, a: np.linalg.solve(np.ascontiguousarray(a.T), g)


@_jit_version(solve_da)
def _solve_da(g, a, x):
    if x.ndim == 1:
        return lambda g, a, x: -np.outer(np.linalg.solve(np.ascontiguousarray(a.T), g), x)
    return lambda g, a, x: -np.dot(np.linalg.solve(np.ascontiguousarray(a.T), g),
                                   np.ascontiguousarray(x.T))


@register_jitable(cache=True)
def inv_adjoint(g, ainv):
    """Adjoint of ainv = inv(a): -ainv^T g ainv^T."""
    t = np.ascontiguousarray(ainv.T)
    return -np.dot(np.dot(t, np.ascontiguousarray(g)), t)


@register_jitable(cache=True)
def slogdet_sign(a):
    """np.linalg.slogdet(a)[0]: the sign of det(a) (0 for a singular matrix)."""
    return np.linalg.slogdet(np.ascontiguousarray(a))[0]


@register_jitable(cache=True)
def logabsdet(a):
    """np.linalg.slogdet(a)[1]: log |det(a)|, without forming det(a)."""
    return np.linalg.slogdet(np.ascontiguousarray(a))[1]


@register_jitable(cache=True)
def logabsdet_adjoint(g, a):
    """Adjoint of log |det(a)|: g inv(a)^T."""
    return g * np.ascontiguousarray(np.linalg.inv(np.ascontiguousarray(a)).T)


@register_jitable(cache=True)
def det_adjoint(g, a, d):
    """Adjoint of d = det(a): g d inv(a)^T."""
    return g * d * np.ascontiguousarray(np.linalg.inv(np.ascontiguousarray(a)).T)


@register_jitable(cache=True)
def cholesky_adjoint(g, low):
    """Adjoint of L = cholesky(a) (Murray, 2016), S = L^-T Phi(L^T g) L^-1 where Phi keeps
    the lower triangle and halves the diagonal. NumPy reads only the lower triangle of
    `a`, so that is where the gradient goes: S + S^T below the diagonal, S on it."""
    p = np.dot(np.ascontiguousarray(low.T), np.ascontiguousarray(g))
    p = np.tril(p) - 0.5 * np.diag(np.diag(p))
    linv = np.linalg.inv(np.ascontiguousarray(low))
    s = np.dot(np.dot(np.ascontiguousarray(linv.T), p), linv)
    return np.tril(s + s.T) - np.diag(np.diag(s))


@register_jitable(cache=True)
def trace_adjoint(g, a):
    """Adjoint of np.trace(a): g on the diagonal."""
    return g * np.eye(a.shape[0], a.shape[1])


# forward mode (tangents)


def dot(x, y):
    """np.dot(x, y), scalar operands included (which Numba's np.dot refuses)."""
    return np.dot(x, y)


@_jit_version(dot)
def _dot(x, y):
    if _is_array(x) and _is_array(y):
        return lambda x, y: np.dot(np.ascontiguousarray(x), np.ascontiguousarray(y))
    return lambda x, y: x * y


def arange_tstart(n, stop):
    """How the `n` elements of np.arange(start, stop, ...) move with start: all by 1, or
    none for `np.arange(stop)` (one argument), whose values do not depend on it."""
    return np.zeros(n) if stop is None else np.ones(n)


@_jit_version(arange_tstart)
def _arange_tstart(n, stop):
    if _is_none(stop):
        return lambda n, stop: np.zeros(n)
    return lambda n, stop: np.ones(n)


def prod_tangent(t, x, axis):
    """Tangent of `np.prod(x, axis)` along `t`: the sum over the reduced axis of `t` times
    the product of the other factors (no division, exact with zeros)."""
    if axis is None:
        return np.sum(t * _prod_others(np.ravel(x)).reshape(np.shape(x)))
    moved = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    others = np.moveaxis(np.apply_along_axis(_prod_others, -1, moved), -1, axis)
    return np.sum(t * others, axis=axis)


@_jit_version(prod_tangent)
def _prod_tangent(t, x, axis):
    if _is_none(axis) or x.ndim == 1:
        def impl(t, x, axis):
            others = _prod_others(np.ascontiguousarray(x).ravel()).reshape(x.shape)
            return np.sum(t * others)
        return impl
    if x.ndim != 2:
        return None

    def impl2(t, x, axis):
        others = np.empty(x.shape)
        ax = axis % 2
        if ax == 0:
            for j in range(x.shape[1]):
                others[:, j] = _prod_others(np.ascontiguousarray(x[:, j]))
        else:
            for i in range(x.shape[0]):
                others[i, :] = _prod_others(np.ascontiguousarray(x[i, :]))
        return np.sum(t * others, axis=ax)

    return impl2


@register_jitable(cache=True)
def _prod_others_dt(v, t):
    """For 1-d `v`, `t`: the derivative of `_prod_others(v)` along `t`, that is
    out[i] = sum over j != i of t[j] times the product of v[k], k not in {i, j}. Forward
    mode through the prefix and suffix products: exact with zeros, no division."""
    n = v.shape[0]
    pre = np.empty(n)
    dpre = np.empty(n)
    acc, dacc = 1.0, 0.0
    for i in range(n):
        pre[i] = acc
        dpre[i] = dacc
        dacc = dacc * v[i] + acc * t[i]
        acc *= v[i]
    out = np.empty(n)
    acc, dacc = 1.0, 0.0
    for i in range(n - 1, -1, -1):
        out[i] = dpre[i] * acc + pre[i] * dacc
        dacc = dacc * v[i] + acc * t[i]
        acc *= v[i]
    return out


def prod_tangent_dx(g, t, x, axis):
    """Adjoint with respect to `x` of `prod_tangent(t, x, axis)` for cotangent `g`: the
    second derivatives of the product along `t`."""
    x = np.asarray(x, dtype=float)
    t = np.broadcast_to(np.asarray(t, dtype=float), x.shape)
    if axis is None:
        return g * _prod_others_dt(np.ravel(x), np.ravel(t)).reshape(x.shape)
    xm, tm = np.moveaxis(x, axis, -1), np.moveaxis(t, axis, -1)
    out = np.empty(xm.shape)
    for idx in np.ndindex(xm.shape[:-1]):
        out[idx] = _prod_others_dt(xm[idx], tm[idx])
    return np.moveaxis(out, -1, axis) * np.expand_dims(np.broadcast_to(g, xm.shape[:-1]), axis)


@_jit_version(prod_tangent_dx)
def _prod_tangent_dx(g, t, x, axis):
    if _is_none(axis) or x.ndim == 1:
        def impl(g, t, x, axis):
            ts = np.ascontiguousarray(t).ravel()
            xs = np.ascontiguousarray(x).ravel()
            return g * _prod_others_dt(xs, ts).reshape(x.shape)
        return impl
    if x.ndim != 2:
        return None
    if not _is_array(g):
        def impl_scalar_g(g, t, x, axis):
            return prod_tangent_dx(np.full(x.shape[1 - axis % 2], g * 1.0), t, x, axis)
        return impl_scalar_g

    def impl2(g, t, x, axis):  # t has x's shape (it is x's tangent)
        tb = t
        out = np.empty(x.shape)
        if axis % 2 == 0:
            for j in range(x.shape[1]):
                out[:, j] = g[j] * _prod_others_dt(np.ascontiguousarray(x[:, j]),
                                                   np.ascontiguousarray(tb[:, j]))
        else:
            for i in range(x.shape[0]):
                out[i, :] = g[i] * _prod_others_dt(np.ascontiguousarray(x[i, :]),
                                                   np.ascontiguousarray(tb[i, :]))
        return out

    return impl2


def select_tangent(t, x, ans, axis):
    """Tangent of max/min reductions along `t`: the tangent of the first extreme element
    (where `select_adjoint` sends the whole cotangent)."""
    t = np.broadcast_to(t, np.shape(x))
    if axis is None:
        return t.flat[int(np.argmax(_is_extreme(np.ravel(x), ans)))]
    hit = np.argmax(_is_extreme(x, np.expand_dims(ans, axis)), axis=axis)
    out = np.squeeze(np.take_along_axis(t, np.expand_dims(hit, axis), axis), axis)
    return out[()] if out.ndim == 0 else out


@_jit_version(select_tangent)
def _select_tangent(t, x, ans, axis):
    whole = _is_none(axis) or x.ndim == 1
    if not _is_array(t):  # one tangent for all the elements of x
        if whole:
            return lambda t, x, ans, axis: t * 1.0
        return lambda t, x, ans, axis: np.full(ans.shape, t * 1.0)
    if whole:
        def impl(t, x, ans, axis):
            xs = np.ascontiguousarray(x).ravel()
            ts = np.ascontiguousarray(t).ravel()
            for i in range(xs.size):
                if _is_extreme_element(xs[i], ans):
                    return ts[i] * 1.0
            return 0.0
        return impl
    if x.ndim != 2:
        return None

    def impl2(t, x, ans, axis):
        out = np.zeros(ans.shape)
        if axis % 2 == 0:
            for j in range(x.shape[1]):
                for i in range(x.shape[0]):
                    if _is_extreme_element(x[i, j], ans[j]):
                        out[j] = t[i, j]
                        break
        else:
            for i in range(x.shape[0]):
                for j in range(x.shape[1]):
                    if _is_extreme_element(x[i, j], ans[i]):
                        out[i] = t[i, j]
                        break
        return out

    return impl2


@register_jitable(cache=True)
def cholesky_tangent(t, low):
    """Tangent of L = cholesky(a) along `t`. NumPy reads only the lower triangle of `a`,
    so `t` perturbs the symmetric da = tril(t) + tril(t, -1)^T, and
    dL = L Phi(L^-1 da L^-T), where Phi keeps the lower triangle and halves the diagonal."""
    da = np.tril(t) + np.ascontiguousarray(np.tril(t, -1).T)
    linv = np.linalg.inv(np.ascontiguousarray(low))
    p = np.dot(np.dot(linv, da), np.ascontiguousarray(linv.T))
    p = np.tril(p) - 0.5 * np.diag(np.diag(p))
    return np.dot(np.ascontiguousarray(low), p)


def clip(x, lo, hi):
    """np.clip(x, lo, hi), also for scalars under Numba."""
    return np.clip(x, lo, hi)


@_jit_version(clip)
def _clip(x, lo, hi):
    if _is_array(x) or _is_array(lo) or _is_array(hi):
        return lambda x, lo, hi: np.clip(x, lo, hi)
    if _is_none(lo):
        return lambda x, lo, hi: min(x, hi)
    if _is_none(hi):
        return lambda x, lo, hi: max(x, lo)
    return lambda x, lo, hi: min(max(x, lo), hi)


def clip_low(x, lo, hi):
    """Where np.clip(x, lo, hi) is the lower bound: x < lo, and lo does not exceed hi."""
    return (x < lo) & within(lo, None, hi)


@_jit_version(clip_low)
def _clip_low(x, lo, hi):
    if _is_none(hi):
        return lambda x, lo, hi: x < lo
    return lambda x, lo, hi: (x < lo) & (lo <= hi)


def clip_high(x, lo, hi):
    """Where np.clip(x, lo, hi) is the upper bound: max(x, lo) > hi."""
    return x > hi if lo is None else np.maximum(x, lo) > hi


@_jit_version(clip_high)
def _clip_high(x, lo, hi):
    if _is_none(lo):
        return lambda x, lo, hi: x > hi
    return lambda x, lo, hi: np.maximum(x, lo) > hi


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

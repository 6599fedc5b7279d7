"""Elementwise helpers: selection by a mask (and the masks of np.fmax and np.fmin), power
and logarithm derivatives, clipping, and the adjoint of broadcasting (`unbroadcast`)."""
import math

import numpy as np
from numba import types
from numba.extending import register_jitable

from srcad.runtime.loops import _chosen, _item, elementwise, summed_over, summed_to
from srcad.runtime.overloads import _is_array, _is_none, _jit_version, fresh, result_like


@fresh
def select(c, a, b):
    """`a` where `c`, else `b`; scalars stay scalars."""
    if np.ndim(c) or np.ndim(a) or np.ndim(b):
        return np.where(c, a, b)
    return a if c else b


@_jit_version(select)
def _select(c, a, b):
    if any(_is_array(t) and t.ndim > 0 for t in (c, a, b)):  # loops (srcad.runtime.loops)
        run = elementwise(_chosen, np.where, c, a, b)
        return lambda c, a, b: run(c, a, b)
    if _is_array(c) or _is_array(a) or _is_array(b):
        return lambda c, a, b: np.where(c, a, b)
    return lambda c, a, b: a if c else b


@register_jitable(cache=True)
def reciprocal(x):
    """1 / x for a real scalar: infinite (of x's sign) for a zero x, NaN for a subnormal
    x, whose reciprocal overflows (HoistReciprocals: `e * reciprocal(s)` stands for
    `e / s`, which may never have run)."""
    if x == 0:
        return math.copysign(math.inf, float(x))
    r = 1.0 / float(x)
    if r == math.inf or r == -math.inf:
        return math.nan
    return r


def _pow_dx_scalar(x, y):
    if y == 0:
        return 0.0
    if x == 0.0:
        if y > 1:
            return 0.0
        return 1.0 if y == 1 else y * math.inf
    return y * float(x) ** (y - 1)


@fresh
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


@register_jitable
def _atan2_dy(y, x, z):
    return 0.0 if x == 0.0 and y == 0.0 else x / (x * x + y * y)


@register_jitable
def _atan2_dx(y, x, z):
    return 0.0 if x == 0.0 and y == 0.0 else -y / (x * x + y * y)


@fresh
def atan2_dy(y, x):
    """d atan2(y, x) / dy = x / (x * x + y * y), and 0 at the origin, where atan2 jumps
    and has no derivative (`math.atan2(0.0 * a, b - b)` has the derivative 0 in `a` and
    `b`, which this gives; a division there would give NaN)."""
    return _atan2_partial(_atan2_dy, y, x)


@fresh
def atan2_dx(y, x):
    """d atan2(y, x) / dx = -y / (x * x + y * y), and 0 at the origin (see `atan2_dy`)."""
    return _atan2_partial(_atan2_dx, y, x)


def _atan2_partial(element, y, x):
    if not (np.ndim(y) or np.ndim(x)):
        return element(float(y), float(x), None)
    y, x = np.broadcast_arrays(np.asarray(y, dtype=float), np.asarray(x, dtype=float))
    origin = (x == 0.0) & (y == 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (x if element is _atan2_dy else -y) / (x * x + y * y)
    out[origin] = 0.0
    return out


def _atan2_factory(element, name):
    def factory(y, x):
        if any(_is_array(t) and t.ndim > 0 for t in (y, x)):  # loops (srcad.runtime.loops)
            run = elementwise(element, name, y, x)
            return lambda y, x: run(y, x, None)
        return lambda y, x: element(_item(y, 0) * 1.0, _item(x, 0) * 1.0, None)
    return factory


_jit_version(atan2_dy)(_atan2_factory(_atan2_dy, np.arctan2))
_jit_version(atan2_dx)(_atan2_factory(_atan2_dx, np.arctan2))


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


@result_like(1, may_return_first=True)
def unbroadcast(g, x):
    """`g` summed over the axes along which `x` (an array, or its shape) was broadcast to
    `g`'s shape."""
    return summed_over(g, x if isinstance(x, tuple) else x.shape)


@_jit_version(unbroadcast)
def _unbroadcast(g, x):
    if isinstance(x, types.BaseTuple):
        return lambda g, x: summed_to(g, x)
    return lambda g, x: summed_to(g, x.shape)


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


@register_jitable(cache=True)
def fmax_first(x, y):
    """Where np.fmax(x, y) is `x`: x >= y, or `y` is NaN (fmax takes the other number)."""
    return (x >= y) | (y != y)


@register_jitable(cache=True)
def fmin_first(x, y):
    """Where np.fmin(x, y) is `x`: x <= y, or `y` is NaN (fmin takes the other number)."""
    return (x <= y) | (y != y)

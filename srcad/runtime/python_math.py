"""The `math` module as Python computes it: Numba's own `math.log(-1.0)` is nan and
its `math.exp(1000.0)` inf, where Python raises; these raise Python's errors, compiled
or not."""
import math

import numpy as np
from numba import types
from numba.extending import register_jitable

from srcad.runtime.overloads import _is_none, _jit_version


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
def log2(x):
    """math.log2(x): ValueError for x <= 0."""
    return _math_result(math.log2(x), x, False)


@register_jitable(cache=True)
def log10(x):
    """math.log10(x): ValueError for x <= 0."""
    return _math_result(math.log10(x), x, False)


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
def _pole(x):
    """Whether `x` is 0 or a negative integer (-inf included): a pole of the gamma function."""
    return x <= 0.0 and x == np.floor(x)


@register_jitable(cache=True)
def gamma(x):
    """math.gamma(x): ValueError at 0 and the negative integers, OverflowError above
    about 171.62."""
    if _pole(x):
        raise ValueError("math domain error")
    return _math_result(math.gamma(x), x, True)


@register_jitable(cache=True)
def lgamma(x):
    """math.lgamma(x): ValueError at 0 and the negative integers, OverflowError for a
    finite x whose result overflows."""
    if _pole(x) and x > -math.inf:
        raise ValueError("math domain error")
    return _math_result(math.lgamma(x), x, True)


@register_jitable(cache=True)
def digamma(x):
    """The digamma function, gamma'(x) / gamma(x): the slope of math.lgamma (NaN at its
    poles). Reflected to x > 0, moved up to x >= 10 by psi(x) = psi(x + 1) - 1 / x, then
    the asymptotic series (its first omitted term below 3e-14)."""
    if _pole(x):
        return math.nan
    acc = 0.0
    if x < 0.0:  # psi(x) = psi(1 - x) - pi / tan(pi x)
        acc = -math.pi / math.tan(math.pi * x)
        x = 1.0 - x
    while x < 10.0:
        acc -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    series = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))))
    return acc + math.log(x) - 0.5 / x - series


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


def int_pow(x, y):
    """x ** y for integers (or integer arrays): ValueError for a negative exponent, where
    Python makes a float and compiled code would give 0."""
    if np.any(np.asarray(y) < 0):
        raise ValueError(_NEGATIVE_POWER)
    return x ** y


_NEGATIVE_POWER = ("an integer to a negative integer power: compiled code keeps integers "
                   "integers; write float(a) ** b")


@_jit_version(int_pow)
def _int_pow(x, y):
    if isinstance(y, types.Integer):
        def scalar(x, y):
            if y < 0:
                raise ValueError(_NEGATIVE_POWER)
            return x ** y
        return scalar

    def array(x, y):
        if np.any(y < 0):
            raise ValueError(_NEGATIVE_POWER)
        return x ** y
    return array


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

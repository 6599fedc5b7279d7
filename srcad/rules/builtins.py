"""Rules for Python builtins: abs, min, max, float, int, len, round, pow."""
import builtins

import gast
import numpy as np  # noqa: F401  (names used in templates)

from srcad import runtime as rt  # noqa: F401  (names used in templates)
from srcad.kinds import INT, TupleKind
from srcad.rules.registry import adjoint, nondiff, operator, tangent
from srcad.rules.typing import arith, rounded, same, scalar_int, to_float, to_int, view_index

d = None  # templates say d[x] for "the adjoint of x"; they are never run
t = None  # tangent templates say t[x] for "the tangent of x" (forward mode)


@adjoint(builtins.abs, kind=same)
def abs(ans, x):
    d[x] += d[ans] * np.sign(x)


@tangent(builtins.abs)
def abs_tangent(ans, x):
    t[ans] = t[x] * np.sign(x)


@adjoint(builtins.max, kind=same, masks=True)
def max(ans, x, y):
    d[x] += rt.select(x >= y, d[ans], 0.0)
    d[y] += rt.select(x >= y, 0.0, d[ans])


@tangent(builtins.max)
def max_tangent(ans, x, y):
    t[ans] = rt.select(x >= y, t[x], 0.0) + rt.select(x >= y, 0.0, t[y])


@adjoint(builtins.min, kind=same, masks=True)
def min(ans, x, y):
    d[x] += rt.select(x <= y, d[ans], 0.0)
    d[y] += rt.select(x <= y, 0.0, d[ans])


@tangent(builtins.min)
def min_tangent(ans, x, y):
    t[ans] = rt.select(x <= y, t[x], 0.0) + rt.select(x <= y, 0.0, t[y])


@adjoint(builtins.float, kind=to_float)
def float(ans, x):
    d[x] += d[ans]


@tangent(builtins.float)
def float_tangent(ans, x):
    t[ans] = float(t[x])


nondiff(builtins.int, rt.to_int, kind=to_int, name="rt.to_int")  # int(nan) raises
nondiff(builtins.round, kind=rounded, params=("ans", "x", "ndigits"), defaults={"ndigits": None})
nondiff(rt.int_pow, kind=arith, params=("ans", "x", "y"), name="rt.int_pow")
operator(builtins.pow, gast.Pow)  # `pow(x, y)` is `x ** y`; pow(x, y, mod) has no rule
nondiff(builtins.len, kind=scalar_int, continuous=True, complex=True)

# srcad's own runtime helpers that passes insert
nondiff(rt.fail, kind=scalar_int, name="rt.fail", pure=False,  # a `raise` (LowerRaises)
        complex=True)
nondiff(rt.show, kind=scalar_int, name="rt.show", pure=False,  # a `print` (LowerPrints)
        params=("ans", "k", "a", "b", "c", "d", "e", "f", "g", "h"),
        defaults=dict.fromkeys("abcdefgh"), complex=True)
nondiff(rt.view_index, kind=view_index, name="rt.view_index",  # writes through views
        params=("ans", "i", "n", "lo", "hi", "step"), continuous=True)
nondiff(rt.view_slice, kind=lambda k, c: TupleKind((INT,) * 3), name="rt.view_slice",
        params=("ans", "n", "lo", "hi", "step", "a", "b", "c"), continuous=True)
nondiff(rt.range_len, kind=scalar_int, params=("ans", "start", "stop", "step"),
        name="rt.range_len")

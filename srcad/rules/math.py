"""Rules for the `math` module (scalars).

A call runs as the `rt` helper of the same name (`math.log(x)` as `rt.log(x)`), which
raises Python's ValueError or OverflowError where the compiled `math` function would
return nan or inf. Where a derivative divides by zero (`math.sqrt` at 0, `math.asin` at
1) the reverse sweep raises ZeroDivisionError, compiled or not, as the Python expression
of the derivative would; `math.atan2`, which jumps at the origin, has the derivative 0
there (`rt.atan2_dy`), and so has `math.hypot` (like `abs` at 0).
"""
import math

import numpy as np  # noqa: F401  (names used in templates)

from srcad import runtime as rt  # noqa: F401  (names used in templates)
from srcad.rules.registry import adjoint, nondiff, tangent
from srcad.rules.typing import scalar_float, scalar_int

d = None  # templates say d[x] for "the adjoint of x"; they are never run
t = None  # tangent templates say t[x] for "the tangent of x" (forward mode)


@adjoint(math.sin, rt.sin, kind=scalar_float, name="rt.sin", domain=(-2.0, 2.0))
def sin(ans, x):
    d[x] += d[ans] * math.cos(x)


@tangent(math.sin)
def sin_tangent(ans, x):
    t[ans] = t[x] * math.cos(x)


@adjoint(math.cos, rt.cos, kind=scalar_float, name="rt.cos", domain=(-2.0, 2.0))
def cos(ans, x):
    d[x] += -d[ans] * math.sin(x)


@tangent(math.cos)
def cos_tangent(ans, x):
    t[ans] = -t[x] * math.sin(x)


@adjoint(math.tan, rt.tan, kind=scalar_float, name="rt.tan", domain=(-1.2, 1.2))
def tan(ans, x):
    d[x] += d[ans] * (1.0 + ans * ans)


@tangent(math.tan)
def tan_tangent(ans, x):
    t[ans] = t[x] * (1.0 + ans * ans)


@adjoint(math.exp, rt.exp, kind=scalar_float, name="rt.exp", domain=(-2.0, 2.0))
def exp(ans, x):
    d[x] += d[ans] * ans


@tangent(math.exp)
def exp_tangent(ans, x):
    t[ans] = t[x] * ans


@adjoint(math.log, rt.log, kind=scalar_float, name="rt.log", domain={"x": (0.2, 3.0)})
def log(ans, x, base=None):
    d[x] += d[ans] / (x * rt.log_base(base))
    d[base] += -d[ans] * ans / (base * rt.log_base(base))


@tangent(math.log)
def log_tangent(ans, x, base=None):
    t[ans] = t[x] / (x * rt.log_base(base)) - t[base] * ans / (base * rt.log_base(base))


@adjoint(math.log1p, rt.log1p, kind=scalar_float, name="rt.log1p", domain=(-0.5, 3.0))
def log1p(ans, x):
    d[x] += d[ans] / (1.0 + x)


@tangent(math.log1p)
def log1p_tangent(ans, x):
    t[ans] = t[x] / (1.0 + x)


@adjoint(math.expm1, rt.expm1, kind=scalar_float, name="rt.expm1", domain=(-2.0, 2.0))
def expm1(ans, x):
    d[x] += d[ans] * (ans + 1.0)


@tangent(math.expm1)
def expm1_tangent(ans, x):
    t[ans] = t[x] * (ans + 1.0)


@adjoint(math.sqrt, rt.sqrt, kind=scalar_float, name="rt.sqrt", domain=(0.2, 3.0))
def sqrt(ans, x):
    d[x] += d[ans] * 0.5 / ans


@tangent(math.sqrt)
def sqrt_tangent(ans, x):
    t[ans] = t[x] * 0.5 / ans


@adjoint(math.tanh, kind=scalar_float, domain=(-2.0, 2.0))
def tanh(ans, x):
    d[x] += d[ans] * (1.0 - ans * ans)


@tangent(math.tanh)
def tanh_tangent(ans, x):
    t[ans] = t[x] * (1.0 - ans * ans)


@adjoint(math.sinh, rt.sinh, kind=scalar_float, name="rt.sinh", domain=(-2.0, 2.0))
def sinh(ans, x):
    d[x] += d[ans] * math.cosh(x)


@tangent(math.sinh)
def sinh_tangent(ans, x):
    t[ans] = t[x] * math.cosh(x)


@adjoint(math.cosh, rt.cosh, kind=scalar_float, name="rt.cosh", domain=(-2.0, 2.0))
def cosh(ans, x):
    d[x] += d[ans] * math.sinh(x)


@tangent(math.cosh)
def cosh_tangent(ans, x):
    t[ans] = t[x] * math.sinh(x)


@adjoint(math.atan, kind=scalar_float, domain=(-2.0, 2.0))
def atan(ans, x):
    d[x] += d[ans] / (1.0 + x * x)


@tangent(math.atan)
def atan_tangent(ans, x):
    t[ans] = t[x] / (1.0 + x * x)


@adjoint(math.asin, rt.asin, kind=scalar_float, name="rt.asin", domain=(-0.9, 0.9))
def asin(ans, x):
    d[x] += d[ans] / math.sqrt(1.0 - x * x)


@tangent(math.asin)
def asin_tangent(ans, x):
    t[ans] = t[x] / math.sqrt(1.0 - x * x)


@adjoint(math.acos, rt.acos, kind=scalar_float, name="rt.acos", domain=(-0.9, 0.9))
def acos(ans, x):
    d[x] += -d[ans] / math.sqrt(1.0 - x * x)


@tangent(math.acos)
def acos_tangent(ans, x):
    t[ans] = -t[x] / math.sqrt(1.0 - x * x)


@adjoint(math.atan2, kind=scalar_float)
def atan2(ans, y, x):
    d[y] += d[ans] * rt.atan2_dy(y, x)
    d[x] += d[ans] * rt.atan2_dx(y, x)


@tangent(math.atan2)
def atan2_tangent(ans, y, x):
    t[ans] = t[y] * rt.atan2_dy(y, x) + t[x] * rt.atan2_dx(y, x)


@adjoint(math.pow, rt.pow, kind=scalar_float, name="rt.pow")
def pow(ans, x, y):
    d[x] += d[ans] * rt.pow_dx(x, y)
    d[y] += d[ans] * ans * rt.log_or_zero(x)


@tangent(math.pow)
def pow_tangent(ans, x, y):
    t[ans] = t[x] * rt.pow_dx(x, y) + t[y] * ans * rt.log_or_zero(x)


@adjoint(math.hypot, kind=scalar_float)
def hypot(ans, x, y):
    d[x] += d[ans] * rt.select(ans > 0.0, x, 0.0) / rt.select(ans > 0.0, ans, 1.0)
    d[y] += d[ans] * rt.select(ans > 0.0, y, 0.0) / rt.select(ans > 0.0, ans, 1.0)


@tangent(math.hypot)
def hypot_tangent(ans, x, y):
    t[ans] = (t[x] * (rt.select(ans > 0.0, x, 0.0) / rt.select(ans > 0.0, ans, 1.0))
              + t[y] * (rt.select(ans > 0.0, y, 0.0) / rt.select(ans > 0.0, ans, 1.0)))


@adjoint(math.fabs, kind=scalar_float, domain=(0.2, 2.0))
def fabs(ans, x):
    d[x] += d[ans] * np.sign(x)


@tangent(math.fabs)
def fabs_tangent(ans, x):
    t[ans] = t[x] * np.sign(x)


@adjoint(math.log2, rt.log2, kind=scalar_float, name="rt.log2", domain=(0.2, 3.0))
def log2(ans, x):
    d[x] += d[ans] / (x * 0.6931471805599453)  # ln 2


@tangent(math.log2)
def log2_tangent(ans, x):
    t[ans] = t[x] / (x * 0.6931471805599453)


@adjoint(math.log10, rt.log10, kind=scalar_float, name="rt.log10", domain=(0.2, 3.0))
def log10(ans, x):
    d[x] += d[ans] / (x * 2.302585092994046)  # ln 10


@tangent(math.log10)
def log10_tangent(ans, x):
    t[ans] = t[x] / (x * 2.302585092994046)


@adjoint(math.degrees, kind=scalar_float, domain=(-2.0, 2.0), linear=True)
def degrees(ans, x):
    d[x] += d[ans] * 57.29577951308232  # 180 / pi


@adjoint(math.radians, kind=scalar_float, domain=(-90.0, 90.0), linear=True)
def radians(ans, x):
    d[x] += d[ans] * 0.017453292519943295  # pi / 180


# the magnitude of x with the sign of y: its slope in x is +1 or -1, in y zero (but at 0)
@adjoint(math.copysign, kind=scalar_float, domain={"x": (0.2, 2.0), "y": (-2.0, -0.5)})
def copysign(ans, x, y):
    d[x] += d[ans] * math.copysign(1.0, x) * math.copysign(1.0, y)


@tangent(math.copysign)
def copysign_tangent(ans, x, y):
    t[ans] = t[x] * math.copysign(1.0, x) * math.copysign(1.0, y)


@adjoint(math.erf, kind=scalar_float, domain=(-2.0, 2.0))
def erf(ans, x):
    d[x] += d[ans] * 1.1283791670955126 * math.exp(-x * x)  # 2 / sqrt(pi)


@tangent(math.erf)
def erf_tangent(ans, x):
    t[ans] = t[x] * 1.1283791670955126 * math.exp(-x * x)


@adjoint(math.erfc, kind=scalar_float, domain=(-2.0, 2.0))
def erfc(ans, x):
    d[x] += -d[ans] * 1.1283791670955126 * math.exp(-x * x)


@tangent(math.erfc)
def erfc_tangent(ans, x):
    t[ans] = -t[x] * 1.1283791670955126 * math.exp(-x * x)


# gamma'(x) = gamma(x) psi(x), psi being the digamma function, the slope of lgamma
@adjoint(math.gamma, rt.gamma, kind=scalar_float, name="rt.gamma", domain=(0.3, 4.0))
def gamma(ans, x):
    d[x] += d[ans] * ans * rt.digamma(x)


@tangent(math.gamma)
def gamma_tangent(ans, x):
    t[ans] = t[x] * ans * rt.digamma(x)


@adjoint(math.lgamma, rt.lgamma, kind=scalar_float, name="rt.lgamma", domain=(0.3, 4.0))
def lgamma(ans, x):
    d[x] += d[ans] * rt.digamma(x)


@tangent(math.lgamma)
def lgamma_tangent(ans, x):
    t[ans] = t[x] * rt.digamma(x)


for _fn in (math.floor, math.ceil, math.trunc):
    nondiff(_fn, getattr(rt, _fn.__name__), kind=scalar_int, name="rt." + _fn.__name__)

"""Rules for the `math` module (scalars)."""
import math

import numpy as np  # noqa: F401  (names used in templates)

from srcad import runtime as rt  # noqa: F401  (names used in templates)
from srcad.rules.registry import adjoint, nondiff, tangent
from srcad.rules.typing import scalar_float, scalar_int

d = None  # templates say d[x] for "the adjoint of x"; they are never run
t = None  # tangent templates say t[x] for "the tangent of x" (forward mode)


@adjoint(math.sin, kind=scalar_float)
def sin(ans, x):
    d[x] += d[ans] * math.cos(x)


@tangent(math.sin)
def sin_tangent(ans, x):
    t[ans] = t[x] * math.cos(x)


@adjoint(math.cos, kind=scalar_float)
def cos(ans, x):
    d[x] += -d[ans] * math.sin(x)


@tangent(math.cos)
def cos_tangent(ans, x):
    t[ans] = -t[x] * math.sin(x)


@adjoint(math.tan, kind=scalar_float)
def tan(ans, x):
    d[x] += d[ans] * (1.0 + ans * ans)


@tangent(math.tan)
def tan_tangent(ans, x):
    t[ans] = t[x] * (1.0 + ans * ans)


@adjoint(math.exp, kind=scalar_float)
def exp(ans, x):
    d[x] += d[ans] * ans


@tangent(math.exp)
def exp_tangent(ans, x):
    t[ans] = t[x] * ans


@adjoint(math.log, kind=scalar_float)
def log(ans, x):
    d[x] += d[ans] / x


@tangent(math.log)
def log_tangent(ans, x):
    t[ans] = t[x] / x


@adjoint(math.log1p, kind=scalar_float)
def log1p(ans, x):
    d[x] += d[ans] / (1.0 + x)


@tangent(math.log1p)
def log1p_tangent(ans, x):
    t[ans] = t[x] / (1.0 + x)


@adjoint(math.expm1, kind=scalar_float)
def expm1(ans, x):
    d[x] += d[ans] * (ans + 1.0)


@tangent(math.expm1)
def expm1_tangent(ans, x):
    t[ans] = t[x] * (ans + 1.0)


@adjoint(math.sqrt, kind=scalar_float)
def sqrt(ans, x):
    d[x] += d[ans] * 0.5 / ans


@tangent(math.sqrt)
def sqrt_tangent(ans, x):
    t[ans] = t[x] * 0.5 / ans


@adjoint(math.tanh, kind=scalar_float)
def tanh(ans, x):
    d[x] += d[ans] * (1.0 - ans * ans)


@tangent(math.tanh)
def tanh_tangent(ans, x):
    t[ans] = t[x] * (1.0 - ans * ans)


@adjoint(math.sinh, kind=scalar_float)
def sinh(ans, x):
    d[x] += d[ans] * math.cosh(x)


@tangent(math.sinh)
def sinh_tangent(ans, x):
    t[ans] = t[x] * math.cosh(x)


@adjoint(math.cosh, kind=scalar_float)
def cosh(ans, x):
    d[x] += d[ans] * math.sinh(x)


@tangent(math.cosh)
def cosh_tangent(ans, x):
    t[ans] = t[x] * math.sinh(x)


@adjoint(math.atan, kind=scalar_float)
def atan(ans, x):
    d[x] += d[ans] / (1.0 + x * x)


@tangent(math.atan)
def atan_tangent(ans, x):
    t[ans] = t[x] / (1.0 + x * x)


@adjoint(math.asin, kind=scalar_float)
def asin(ans, x):
    d[x] += d[ans] / math.sqrt(1.0 - x * x)


@tangent(math.asin)
def asin_tangent(ans, x):
    t[ans] = t[x] / math.sqrt(1.0 - x * x)


@adjoint(math.acos, kind=scalar_float)
def acos(ans, x):
    d[x] += -d[ans] / math.sqrt(1.0 - x * x)


@tangent(math.acos)
def acos_tangent(ans, x):
    t[ans] = -t[x] / math.sqrt(1.0 - x * x)


@adjoint(math.atan2, kind=scalar_float)
def atan2(ans, y, x):
    d[y] += d[ans] * x / (x * x + y * y)
    d[x] += -d[ans] * y / (x * x + y * y)


@tangent(math.atan2)
def atan2_tangent(ans, y, x):
    t[ans] = t[y] * x / (x * x + y * y) - t[x] * y / (x * x + y * y)


@adjoint(math.pow, kind=scalar_float)
def pow(ans, x, y):
    d[x] += d[ans] * rt.pow_dx(x, y)
    d[y] += d[ans] * ans * rt.log_or_zero(x)


@tangent(math.pow)
def pow_tangent(ans, x, y):
    t[ans] = t[x] * rt.pow_dx(x, y) + t[y] * ans * rt.log_or_zero(x)


@adjoint(math.hypot, kind=scalar_float)
def hypot(ans, x, y):
    d[x] += d[ans] * x / ans
    d[y] += d[ans] * y / ans


@tangent(math.hypot)
def hypot_tangent(ans, x, y):
    t[ans] = t[x] * x / ans + t[y] * y / ans


@adjoint(math.fabs, kind=scalar_float)
def fabs(ans, x):
    d[x] += d[ans] * np.sign(x)


@tangent(math.fabs)
def fabs_tangent(ans, x):
    t[ans] = t[x] * np.sign(x)


nondiff(math.floor, math.ceil, math.trunc, kind=scalar_int)

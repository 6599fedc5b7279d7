"""Rules for the `math` module (scalars)."""
import math

import numpy as np  # noqa: F401  (names used in templates)

from srcad import runtime as rt  # noqa: F401  (names used in templates)
from srcad.rules.registry import adjoint, nondiff
from srcad.rules.typing import scalar_float, scalar_int

d = None  # templates say d[x] for "the adjoint of x"; they are never run


@adjoint(math.sin, kind=scalar_float)
def sin(ans, x):
    d[x] += d[ans] * math.cos(x)


@adjoint(math.cos, kind=scalar_float)
def cos(ans, x):
    d[x] += -d[ans] * math.sin(x)


@adjoint(math.tan, kind=scalar_float)
def tan(ans, x):
    d[x] += d[ans] * (1.0 + ans * ans)


@adjoint(math.exp, kind=scalar_float)
def exp(ans, x):
    d[x] += d[ans] * ans


@adjoint(math.log, kind=scalar_float)
def log(ans, x):
    d[x] += d[ans] / x


@adjoint(math.log1p, kind=scalar_float)
def log1p(ans, x):
    d[x] += d[ans] / (1.0 + x)


@adjoint(math.expm1, kind=scalar_float)
def expm1(ans, x):
    d[x] += d[ans] * (ans + 1.0)


@adjoint(math.sqrt, kind=scalar_float)
def sqrt(ans, x):
    d[x] += d[ans] * 0.5 / ans


@adjoint(math.tanh, kind=scalar_float)
def tanh(ans, x):
    d[x] += d[ans] * (1.0 - ans * ans)


@adjoint(math.sinh, kind=scalar_float)
def sinh(ans, x):
    d[x] += d[ans] * math.cosh(x)


@adjoint(math.cosh, kind=scalar_float)
def cosh(ans, x):
    d[x] += d[ans] * math.sinh(x)


@adjoint(math.atan, kind=scalar_float)
def atan(ans, x):
    d[x] += d[ans] / (1.0 + x * x)


@adjoint(math.asin, kind=scalar_float)
def asin(ans, x):
    d[x] += d[ans] / math.sqrt(1.0 - x * x)


@adjoint(math.acos, kind=scalar_float)
def acos(ans, x):
    d[x] += -d[ans] / math.sqrt(1.0 - x * x)


@adjoint(math.atan2, kind=scalar_float)
def atan2(ans, y, x):
    d[y] += d[ans] * x / (x * x + y * y)
    d[x] += -d[ans] * y / (x * x + y * y)


@adjoint(math.pow, kind=scalar_float)
def pow(ans, x, y):
    d[x] += d[ans] * rt.pow_dx(x, y)
    d[y] += d[ans] * ans * rt.log_or_zero(x)


@adjoint(math.hypot, kind=scalar_float)
def hypot(ans, x, y):
    d[x] += d[ans] * x / ans
    d[y] += d[ans] * y / ans


@adjoint(math.fabs, kind=scalar_float)
def fabs(ans, x):
    d[x] += d[ans] * np.sign(x)


nondiff(math.floor, math.ceil, math.trunc, kind=scalar_int)

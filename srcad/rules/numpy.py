"""Rules for NumPy: elementwise functions (with broadcasting) and products. Reductions are
in `numpy_reductions`, shapes, joins, sorting and constructors in `numpy_shapes`."""
import gast
import numpy as np

from srcad import runtime as rt
from srcad.rules import typing as ty
from srcad.rules.registry import adjoint, nondiff, operator, tangent

d = None  # templates say d[x] for "the adjoint of x"; they are never run
t = None  # tangent templates say t[x] for "the tangent of x" (forward mode)

# elementwise


@adjoint(np.sin, kind=ty.elementwise, domain=(-2.0, 2.0), complex=True)
def sin(ans, x):
    d[x] += d[ans] * np.cos(x)


@tangent(np.sin)
def sin_tangent(ans, x):
    t[ans] = t[x] * np.cos(x)


@adjoint(np.cos, kind=ty.elementwise, domain=(-2.0, 2.0), complex=True)
def cos(ans, x):
    d[x] += -d[ans] * np.sin(x)


@tangent(np.cos)
def cos_tangent(ans, x):
    t[ans] = -t[x] * np.sin(x)


@adjoint(np.tan, kind=ty.elementwise, domain=(-1.2, 1.2), complex=True)
def tan(ans, x):
    d[x] += d[ans] * (1.0 + ans * ans)


@tangent(np.tan)
def tan_tangent(ans, x):
    t[ans] = t[x] * (1.0 + ans * ans)


@adjoint(np.exp, kind=ty.elementwise, domain=(-2.0, 2.0), complex=True)
def exp(ans, x):
    d[x] += d[ans] * ans


@tangent(np.exp)
def exp_tangent(ans, x):
    t[ans] = t[x] * ans


@adjoint(np.log, kind=ty.elementwise, domain=(0.2, 3.0), complex=True)
def log(ans, x):
    d[x] += d[ans] / x


@tangent(np.log)
def log_tangent(ans, x):
    t[ans] = t[x] / x


@adjoint(np.log1p, kind=ty.elementwise, domain=(-0.5, 3.0), complex=True)
def log1p(ans, x):
    d[x] += d[ans] / (1.0 + x)


@tangent(np.log1p)
def log1p_tangent(ans, x):
    t[ans] = t[x] / (1.0 + x)


@adjoint(np.expm1, kind=ty.elementwise, domain=(-2.0, 2.0), complex=True)
def expm1(ans, x):
    d[x] += d[ans] * (ans + 1.0)


@tangent(np.expm1)
def expm1_tangent(ans, x):
    t[ans] = t[x] * (ans + 1.0)


@adjoint(np.sqrt, kind=ty.elementwise, domain=(0.2, 3.0), complex=True)
def sqrt(ans, x):
    d[x] += d[ans] * 0.5 / ans


@tangent(np.sqrt)
def sqrt_tangent(ans, x):
    t[ans] = t[x] * 0.5 / ans


@adjoint(np.square, kind=ty.same, domain=(-2.0, 2.0), complex=True)
def square(ans, x):
    d[x] += d[ans] * 2.0 * x


@tangent(np.square)
def square_tangent(ans, x):
    t[ans] = t[x] * 2.0 * x


@adjoint(np.tanh, kind=ty.elementwise, domain=(-2.0, 2.0), complex=True)
def tanh(ans, x):
    d[x] += d[ans] * (1.0 - ans * ans)


@tangent(np.tanh)
def tanh_tangent(ans, x):
    t[ans] = t[x] * (1.0 - ans * ans)


@adjoint(np.sinh, kind=ty.elementwise, domain=(-2.0, 2.0), complex=True)
def sinh(ans, x):
    d[x] += d[ans] * np.cosh(x)


@tangent(np.sinh)
def sinh_tangent(ans, x):
    t[ans] = t[x] * np.cosh(x)


@adjoint(np.cosh, kind=ty.elementwise, domain=(-2.0, 2.0), complex=True)
def cosh(ans, x):
    d[x] += d[ans] * np.sinh(x)


@tangent(np.cosh)
def cosh_tangent(ans, x):
    t[ans] = t[x] * np.sinh(x)


@adjoint(np.arctan, kind=ty.elementwise, domain=(-2.0, 2.0), complex=True)
def arctan(ans, x):
    d[x] += d[ans] / (1.0 + x * x)


@tangent(np.arctan)
def arctan_tangent(ans, x):
    t[ans] = t[x] / (1.0 + x * x)


@adjoint(np.arcsin, kind=ty.elementwise, domain=(-0.9, 0.9), complex=True)
def arcsin(ans, x):
    d[x] += d[ans] / np.sqrt(1.0 - x * x)


@tangent(np.arcsin)
def arcsin_tangent(ans, x):
    t[ans] = t[x] / np.sqrt(1.0 - x * x)


@adjoint(np.arccos, kind=ty.elementwise, domain=(-0.9, 0.9), complex=True)
def arccos(ans, x):
    d[x] += -d[ans] / np.sqrt(1.0 - x * x)


@tangent(np.arccos)
def arccos_tangent(ans, x):
    t[ans] = -t[x] / np.sqrt(1.0 - x * x)


@adjoint(np.log2, kind=ty.elementwise, domain=(0.2, 3.0), complex=True)
def log2(ans, x):
    d[x] += d[ans] / (x * 0.6931471805599453)  # ln 2


@tangent(np.log2)
def log2_tangent(ans, x):
    t[ans] = t[x] / (x * 0.6931471805599453)


@adjoint(np.log10, kind=ty.elementwise, domain=(0.2, 3.0), complex=True)
def log10(ans, x):
    d[x] += d[ans] / (x * 2.302585092994046)  # ln 10


@tangent(np.log10)
def log10_tangent(ans, x):
    t[ans] = t[x] / (x * 2.302585092994046)


@adjoint(np.exp2, kind=ty.elementwise, domain=(-2.0, 2.0), complex=True)
def exp2(ans, x):
    d[x] += d[ans] * ans * 0.6931471805599453


@tangent(np.exp2)
def exp2_tangent(ans, x):
    t[ans] = t[x] * ans * 0.6931471805599453


# at 0 the derivative is infinite, as that of np.sqrt
@adjoint(np.cbrt, kind=ty.elementwise, domain=(0.2, 3.0))
def cbrt(ans, x):
    d[x] += d[ans] / (3.0 * ans * ans)


@tangent(np.cbrt)
def cbrt_tangent(ans, x):
    t[ans] = t[x] / (3.0 * ans * ans)


@adjoint(np.arcsinh, kind=ty.elementwise, domain=(-2.0, 2.0), complex=True)
def arcsinh(ans, x):
    d[x] += d[ans] / np.sqrt(x * x + 1.0)


@tangent(np.arcsinh)
def arcsinh_tangent(ans, x):
    t[ans] = t[x] / np.sqrt(x * x + 1.0)


@adjoint(np.arccosh, kind=ty.elementwise, domain=(1.2, 3.0))
def arccosh(ans, x):
    d[x] += d[ans] / np.sqrt(x * x - 1.0)


@tangent(np.arccosh)
def arccosh_tangent(ans, x):
    t[ans] = t[x] / np.sqrt(x * x - 1.0)


@adjoint(np.arctanh, kind=ty.elementwise, domain=(-0.9, 0.9), complex=True)
def arctanh(ans, x):
    d[x] += d[ans] / (1.0 - x * x)


@tangent(np.arctanh)
def arctanh_tangent(ans, x):
    t[ans] = t[x] / (1.0 - x * x)


@adjoint(np.reciprocal, kind=ty.same, domain=(0.3, 2.0), complex=True)
def reciprocal(ans, x):
    d[x] += -d[ans] * ans * ans


@tangent(np.reciprocal)
def reciprocal_tangent(ans, x):
    t[ans] = -t[x] * ans * ans


@adjoint(np.deg2rad, np.radians, kind=ty.elementwise, domain=(-90.0, 90.0), linear=True)
def deg2rad(ans, x):
    d[x] += d[ans] * 0.017453292519943295  # pi / 180


@adjoint(np.rad2deg, np.degrees, kind=ty.elementwise, domain=(-2.0, 2.0), linear=True)
def rad2deg(ans, x):
    d[x] += d[ans] * 57.29577951308232  # 180 / pi


@adjoint(np.hypot, kind=ty.elementwise, domain={"x": (0.5, 2.0), "y": (-2.0, 2.0)})
def hypot(ans, x, y):
    d[x] += d[ans] * rt.select(ans > 0.0, x, 0.0) / rt.select(ans > 0.0, ans, 1.0)
    d[y] += d[ans] * rt.select(ans > 0.0, y, 0.0) / rt.select(ans > 0.0, ans, 1.0)


@tangent(np.hypot)
def hypot_tangent(ans, x, y):
    t[ans] = (t[x] * (rt.select(ans > 0.0, x, 0.0) / rt.select(ans > 0.0, ans, 1.0))
              + t[y] * (rt.select(ans > 0.0, y, 0.0) / rt.select(ans > 0.0, ans, 1.0)))


# log(exp(x) + exp(y)): each operand's share of the sum
@adjoint(np.logaddexp, kind=ty.elementwise, domain=(-2.0, 2.0))
def logaddexp(ans, x, y):
    d[x] += d[ans] * np.exp(x - ans)
    d[y] += d[ans] * np.exp(y - ans)


@tangent(np.logaddexp)
def logaddexp_tangent(ans, x, y):
    t[ans] = t[x] * np.exp(x - ans) + t[y] * np.exp(y - ans)


@adjoint(np.logaddexp2, kind=ty.elementwise, domain=(-2.0, 2.0))
def logaddexp2(ans, x, y):
    d[x] += d[ans] * np.exp2(x - ans)
    d[y] += d[ans] * np.exp2(y - ans)


@tangent(np.logaddexp2)
def logaddexp2_tangent(ans, x, y):
    t[ans] = t[x] * np.exp2(x - ans) + t[y] * np.exp2(y - ans)


# NumPy's spellings of the arithmetic operators: `np.multiply(a, b)` is `a * b`
operator(np.add, gast.Add)
operator(np.subtract, gast.Sub)
operator(np.multiply, gast.Mult)
operator(np.divide, gast.Div)
operator(np.true_divide, gast.Div)
operator(np.mod, gast.Mod)
operator(np.remainder, gast.Mod)
operator(np.floor_divide, gast.FloorDiv)


@adjoint(np.abs, kind=ty.same, domain=(0.2, 2.0))
def absolute(ans, x):
    d[x] += d[ans] * np.sign(x)


@tangent(np.abs)
def absolute_tangent(ans, x):
    t[ans] = t[x] * np.sign(x)


# always a float (np.abs of an integer is an integer)
@adjoint(np.fabs, kind=ty.elementwise, domain=(0.2, 2.0))
def fabs(ans, x):
    d[x] += d[ans] * np.sign(x)


@tangent(np.fabs)
def fabs_tangent(ans, x):
    t[ans] = t[x] * np.sign(x)


@adjoint(np.negative, kind=ty.same, domain=(-2.0, 2.0), linear=True, complex=True)
def negative(ans, x):
    d[x] += -d[ans]


@adjoint(np.power, kind=ty.arith)
def power(ans, x, y):
    d[x] += d[ans] * rt.pow_dx(x, y)
    d[y] += d[ans] * ans * rt.log_or_zero(x)


@tangent(np.power)
def power_tangent(ans, x, y):
    t[ans] = t[x] * rt.pow_dx(x, y) + t[y] * ans * rt.log_or_zero(x)


@adjoint(np.arctan2, kind=ty.elementwise, domain={"y": (-2.0, 2.0), "x": (0.5, 2.0)})
def arctan2(ans, y, x):
    d[y] += d[ans] * rt.atan2_dy(y, x)
    d[x] += d[ans] * rt.atan2_dx(y, x)


@tangent(np.arctan2)
def arctan2_tangent(ans, y, x):
    t[ans] = t[y] * rt.atan2_dy(y, x) + t[x] * rt.atan2_dx(y, x)


@adjoint(np.maximum, kind=ty.same, masks=True)
def maximum(ans, x, y):
    d[x] += rt.select(x >= y, d[ans], 0.0)
    d[y] += rt.select(x >= y, 0.0, d[ans])


@tangent(np.maximum)
def maximum_tangent(ans, x, y):
    t[ans] = rt.select(x >= y, t[x], 0.0) + rt.select(x >= y, 0.0, t[y])


@adjoint(np.minimum, kind=ty.same, masks=True)
def minimum(ans, x, y):
    d[x] += rt.select(x <= y, d[ans], 0.0)
    d[y] += rt.select(x <= y, 0.0, d[ans])


@tangent(np.minimum)
def minimum_tangent(ans, x, y):
    t[ans] = rt.select(x <= y, t[x], 0.0) + rt.select(x <= y, 0.0, t[y])


# fmax and fmin take the number where the other operand is NaN, and it gets the cotangent
@adjoint(np.fmax, kind=ty.same, masks=True, domain={"x": (-2.0, 2.0), "y": (-1.5, 2.5)})
def fmax(ans, x, y):
    d[x] += rt.select(rt.fmax_first(x, y), d[ans], 0.0)
    d[y] += rt.select(rt.fmax_first(x, y), 0.0, d[ans])


@tangent(np.fmax)
def fmax_tangent(ans, x, y):
    t[ans] = (rt.select(rt.fmax_first(x, y), t[x], 0.0)
              + rt.select(rt.fmax_first(x, y), 0.0, t[y]))


@adjoint(np.fmin, kind=ty.same, masks=True, domain={"x": (-2.0, 2.0), "y": (-1.5, 2.5)})
def fmin(ans, x, y):
    d[x] += rt.select(rt.fmin_first(x, y), d[ans], 0.0)
    d[y] += rt.select(rt.fmin_first(x, y), 0.0, d[ans])


@tangent(np.fmin)
def fmin_tangent(ans, x, y):
    t[ans] = (rt.select(rt.fmin_first(x, y), t[x], 0.0)
              + rt.select(rt.fmin_first(x, y), 0.0, t[y]))


@adjoint(np.clip, rt.clip, kind=ty.same, masks=True, name="rt.clip")
def clip(ans, x, a_min, a_max):
    d[x] += rt.select(rt.within(x, a_min, a_max), d[ans], 0.0)
    d[a_min] += rt.select(rt.clip_low(x, a_min, a_max), d[ans], 0.0)
    d[a_max] += rt.select(rt.clip_high(x, a_min, a_max), d[ans], 0.0)


@tangent(np.clip)
def clip_tangent(ans, x, a_min, a_max):
    t[ans] = (rt.select(rt.within(x, a_min, a_max), t[x], 0.0)
              + rt.select(rt.clip_low(x, a_min, a_max), t[a_min], 0.0)
              + rt.select(rt.clip_high(x, a_min, a_max), t[a_max], 0.0))


@adjoint(np.where, kind=ty.elementwise, masks=True, complex=True)
def where(ans, condition, x, y):
    d[x] += rt.select(condition, d[ans], 0.0)
    d[y] += rt.select(condition, 0.0, d[ans])


@tangent(np.where)
def where_tangent(ans, condition, x, y):
    t[ans] = rt.select(condition, t[x], 0.0) + rt.select(condition, 0.0, t[y])


@adjoint(np.float64, kind=ty.to_float, linear=True)
def float64(ans, x):
    d[x] += d[ans]


nondiff(np.sign, np.floor, np.ceil, np.trunc, np.rint, kind=ty.same)
nondiff(np.round, kind=ty.same, params=("ans", "x", "decimals"), defaults={"decimals": 0})
nondiff(np.around, kind=ty.same, params=("ans", "x", "decimals"), defaults={"decimals": 0})
nondiff(np.isnan, np.isinf, np.isfinite, kind=ty.boolean, complex=True)
nondiff(np.logical_not, kind=ty.boolean)
# comparisons and logic: values without gradients, as their operators are
nondiff(np.equal, np.not_equal, kind=ty.boolean, params=("ans", "x", "y"), complex=True)
nondiff(np.less, np.less_equal, np.greater, np.greater_equal, np.logical_and, np.logical_or,
        np.logical_xor, kind=ty.boolean, params=("ans", "x", "y"))
for _fn in (np.any, np.all):
    nondiff(_fn, kind=ty.reduction("b"), params=("ans", "x", "axis"), defaults={"axis": None},
            methods=(_fn.__name__,))
nondiff(np.count_nonzero, kind=ty.reduction("i"), params=("ans", "x", "axis"),
        defaults={"axis": None})
nondiff(np.argmax, np.argmin, kind=ty.reduction("i"), params=("ans", "x", "axis"),
        defaults={"axis": None})


# products


# np.dot of arrays of one or two dimensions (of more, it contracts differently from `@`,
# and is refused); np.matmul is the operator `@`
@adjoint(np.dot, kind=ty.dot, broadcast=False, methods=("dot",), complex=True)
def dot(ans, x, y):
    d[x] += rt.matmul_dx(d[ans], x, y)
    d[y] += rt.matmul_dy(d[ans], x, y)


operator(np.matmul, gast.MatMult)


@tangent(np.dot)
def dot_tangent(ans, x, y):
    t[ans] = rt.dot(t[x], y) + rt.dot(x, t[y])

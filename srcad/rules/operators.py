"""Rules for Python's operators, keyed `op.<gast class name>`."""
from srcad import runtime as rt
from srcad.rules.registry import adjoint, constant_adjoint, nondiff, tangent
from srcad.rules.typing import arith, boolean, logical, sum_or_product, true_div
from srcad.rules.typing import matmul as matmul_kind
from srcad.rules.typing import power as power_kind

d = None  # templates say d[x] for "the adjoint of x"; they are never run
t = None  # tangent templates say t[x] for "the tangent of x" (forward mode)


# each of `+ - * /` is also the rule of its `srcad.runtime.loops` helper (`rt.mul`), which
# sweeps call in its place between arrays of three or more dimensions (LoopedOperators), so
# that forward-mode code can itself be differentiated (second derivatives)
@adjoint(rt.add, kind=sum_or_product, name="rt.add", complex=True)
@adjoint("op.Add", kind=sum_or_product, complex=True)
def add(ans, x, y):
    d[x] += d[ans]
    d[y] += d[ans]


@tangent("op.Add", rt.add)
def add_tangent(ans, x, y):
    t[ans] = t[x] + t[y]


@adjoint(rt.sub, kind=arith, name="rt.sub", complex=True)
@adjoint("op.Sub", kind=arith, complex=True)
def sub(ans, x, y):
    d[x] += d[ans]
    d[y] += -d[ans]


@tangent("op.Sub", rt.sub)
def sub_tangent(ans, x, y):
    t[ans] = t[x] - t[y]


@adjoint(rt.mul, kind=sum_or_product, name="rt.mul", complex=True)
@adjoint("op.Mult", kind=sum_or_product, complex=True)
def mult(ans, x, y):
    d[x] += d[ans] * y
    d[y] += d[ans] * x


@tangent("op.Mult", rt.mul)
def mult_tangent(ans, x, y):
    t[ans] = t[x] * y + x * t[y]


@adjoint(rt.div, kind=true_div, name="rt.div", complex=True)
@adjoint("op.Div", kind=true_div, complex=True)
def div(ans, x, y):
    d[x] += d[ans] / y
    d[y] += -d[ans] * ans / y


@tangent("op.Div", rt.div)
def div_tangent(ans, x, y):
    t[ans] = t[x] / y - t[y] * ans / y


# 1 / y: its derivative from its value, -ans * ans, without dividing again (the value
# differs from -ans / y only by rounding)
@constant_adjoint("op.Div", "x", 1)
def reciprocal(ans, x, y):
    d[y] += -d[ans] * ans * ans


@tangent("op.Div", constant=("x", 1))
def reciprocal_tangent(ans, x, y):
    t[ans] = -t[y] * ans * ans


@adjoint("op.Pow", kind=power_kind)
def power(ans, x, y):
    d[x] += d[ans] * rt.pow_dx(x, y)
    d[y] += d[ans] * ans * rt.log_or_zero(x)


@tangent("op.Pow")
def power_tangent(ans, x, y):
    t[ans] = t[x] * rt.pow_dx(x, y) + t[y] * ans * rt.log_or_zero(x)


# x ** 2, the commonest power: its derivative 2.0 * x exactly (`rt.pow_dx`'s cases for
# other exponents and zero bases are not needed)
@constant_adjoint("op.Pow", "y", 2)
def square(ans, x, y):
    d[x] += d[ans] * (2.0 * x)


@tangent("op.Pow", constant=("y", 2))
def square_tangent(ans, x, y):
    t[ans] = t[x] * (2.0 * x)


def whole_power(y):
    """An exponent of 1 or more with no fraction (3, 6.0)."""
    return y >= 1 and float(y).is_integer()


# x ** 6: y * x ** (y - 1), one power, where `rt.pow_dx` tests for a zero base and a
# zero or negative exponent, which a whole power of 1 or more has no need of (0 ** 0 is 1)
@constant_adjoint("op.Pow", "y", whole_power)
def whole_power_of(ans, x, y):
    d[x] += d[ans] * (y * x ** (y - 1))


@tangent("op.Pow", constant=("y", whole_power))
def whole_power_tangent(ans, x, y):
    t[ans] = t[x] * (y * x ** (y - 1))


@adjoint("op.Mod", kind=arith)
def mod(ans, x, y):
    d[x] += d[ans]
    d[y] += -d[ans] * ((x - ans) / y)


@tangent("op.Mod")
def mod_tangent(ans, x, y):
    t[ans] = t[x] - t[y] * ((x - ans) / y)


@adjoint("op.USub", kind=arith, complex=True)
def neg(ans, x):
    d[x] += -d[ans]


@tangent("op.USub")
def neg_tangent(ans, x):
    t[ans] = -t[x]


@adjoint("op.MatMult", kind=matmul_kind, broadcast=False, complex=True)
def matmul(ans, x, y):
    d[x] += rt.matmul_dx(d[ans], x, y)
    d[y] += rt.matmul_dy(d[ans], x, y)


@tangent("op.MatMult")
def matmul_tangent(ans, x, y):
    t[ans] = rt.matmul(t[x], y) + rt.matmul(x, t[y])


# `x @ y` as forward-mode code spells it (a tangent may be a zero number), differentiated
# again for second derivatives
@adjoint(rt.matmul, kind=matmul_kind, broadcast=False, name="rt.matmul", complex=True)
def rt_matmul(ans, x, y):
    d[x] += rt.matmul_dx(d[ans], x, y)
    d[y] += rt.matmul_dy(d[ans], x, y)


@tangent(rt.matmul)
def rt_matmul_tangent(ans, x, y):
    t[ans] = rt.matmul(t[x], y) + rt.matmul(x, t[y])


nondiff("op.FloorDiv", kind=arith, params=("ans", "x", "y"))
for _op in ("Is", "IsNot"):
    nondiff(f"op.{_op}", kind=boolean, params=("ans", "x", "y"), complex=True)
# each comparison and its `srcad.runtime.loops` helper, which sweeps call in its place
# between arrays of three or more dimensions (LoopedOperators): one rule
for _op, _helper in (("Eq", "equal"), ("NotEq", "not_equal")):
    nondiff(f"op.{_op}", f"rt.{_helper}", getattr(rt, _helper), name=f"op.{_op}",
            kind=boolean, params=("ans", "x", "y"), complex=True)
for _op, _helper in (("Lt", "less"), ("LtE", "less_equal"), ("Gt", "greater"),
                     ("GtE", "greater_equal")):  # complex numbers have no order
    nondiff(f"op.{_op}", f"rt.{_helper}", getattr(rt, _helper), name=f"op.{_op}",
            kind=boolean, params=("ans", "x", "y"))
nondiff("op.Not", kind=boolean)
for _op in ("BitAnd", "BitOr", "BitXor"):
    nondiff(f"op.{_op}", kind=logical, params=("ans", "x", "y"))
nondiff("op.Invert", kind=logical)

"""Rules for Python's operators, keyed `op.<gast class name>`."""
from srcad import runtime as rt  # noqa: F401  (names used in templates)
from srcad.rules.registry import adjoint, nondiff
from srcad.rules.typing import arith, boolean, true_div
from srcad.rules.typing import matmul as matmul_kind

d = None  # templates say d[x] for "the adjoint of x"; they are never run


@adjoint("op.Add", kind=arith)
def add(ans, x, y):
    d[x] += d[ans]
    d[y] += d[ans]


@adjoint("op.Sub", kind=arith)
def sub(ans, x, y):
    d[x] += d[ans]
    d[y] += -d[ans]


@adjoint("op.Mult", kind=arith)
def mult(ans, x, y):
    d[x] += d[ans] * y
    d[y] += d[ans] * x


@adjoint("op.Div", kind=true_div)
def div(ans, x, y):
    d[x] += d[ans] / y
    d[y] += -d[ans] * ans / y


@adjoint("op.Pow", kind=arith)
def power(ans, x, y):
    d[x] += d[ans] * rt.pow_dx(x, y)
    d[y] += d[ans] * ans * rt.log_or_zero(x)


@adjoint("op.Mod", kind=arith)
def mod(ans, x, y):
    d[x] += d[ans]
    d[y] += -d[ans] * ((x - ans) / y)


@adjoint("op.USub", kind=arith)
def neg(ans, x):
    d[x] += -d[ans]


@adjoint("op.MatMult", kind=matmul_kind, broadcast=False)
def matmul(ans, x, y):
    d[x] += rt.matmul_dx(d[ans], x, y)
    d[y] += rt.matmul_dy(d[ans], x, y)


nondiff("op.FloorDiv", kind=arith, params=("ans", "x", "y"))
for _op in ("Eq", "NotEq", "Lt", "LtE", "Gt", "GtE", "Is", "IsNot"):
    nondiff(f"op.{_op}", kind=boolean, params=("ans", "x", "y"))
nondiff("op.Not", kind=boolean)

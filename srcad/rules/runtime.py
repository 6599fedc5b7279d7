"""Rules for srcad's own runtime helpers (`rt.*`) that forward-mode code calls.

With them, a module written by forward mode is itself a program srcad can differentiate
in reverse mode: the gradient of `<f>_jvp`'s tangent is a Hessian-vector product.
"""
import numpy as np  # noqa: F401  (names used in templates)

from srcad import runtime as rt
from srcad.rules import typing as ty
from srcad.rules.registry import adjoint, nondiff, tangent

d = None  # templates say d[x] for "the adjoint of x"; they are never run
t = None  # tangent templates say t[x] for "the tangent of x" (forward mode)


@adjoint(rt.select, kind=ty.elementwise, masks=True, name="rt.select")
def select(ans, c, a, b):
    d[a] += rt.select(c, d[ans], 0.0)
    d[b] += rt.select(c, 0.0, d[ans])


@tangent(rt.select)
def select_tangent(ans, c, a, b):
    t[ans] = rt.select(c, t[a], 0.0) + rt.select(c, 0.0, t[b])


@adjoint(rt.dot, kind=ty.matmul, broadcast=False, name="rt.dot")
def dot(ans, x, y):
    d[x] += rt.matmul_dx(d[ans], x, y)
    d[y] += rt.matmul_dy(d[ans], x, y)


@tangent(rt.dot)
def dot_tangent(ans, x, y):
    t[ans] = rt.dot(t[x], y) + rt.dot(x, t[y])


# pow_dx(x, y) = y * x ** (y - 1); its slope in y is x ** (y - 1) * (1 + y * log x) for
# x > 0, and 0 elsewhere (as `log_or_zero` takes it for x ** y)
@adjoint(rt.pow_dx, kind=ty.true_div, name="rt.pow_dx")
def pow_dx(ans, x, y):
    d[x] += d[ans] * y * rt.pow_dx(x, y - 1)
    d[y] += d[ans] * rt.select(x > 0.0, (1.0 + y * rt.log_or_zero(x))
                               * np.power(rt.select(x > 0.0, x, 1.0), y - 1.0), 0.0)


@tangent(rt.pow_dx)
def pow_dx_tangent(ans, x, y):
    t[ans] = (t[x] * y * rt.pow_dx(x, y - 1)
              + t[y] * rt.select(x > 0.0, (1.0 + y * rt.log_or_zero(x))
                                 * np.power(rt.select(x > 0.0, x, 1.0), y - 1.0), 0.0))


@adjoint(rt.log_or_zero, kind=ty.true_div, name="rt.log_or_zero")
def log_or_zero(ans, x):
    d[x] += rt.select(x > 0.0, d[ans], 0.0) / rt.select(x > 0.0, x, 1.0)


@tangent(rt.log_or_zero)
def log_or_zero_tangent(ans, x):
    t[ans] = rt.select(x > 0.0, t[x], 0.0) / rt.select(x > 0.0, x, 1.0)


# atan2's partials, dy = x / r2 and dx = -y / r2 (r2 = x * x + y * y, both 0 at the
# origin): their slopes are 2 dy dx, dx ** 2 - dy ** 2 and -2 dy dx, 0 there too
@adjoint(rt.atan2_dy, kind=ty.elementwise, name="rt.atan2_dy")
def atan2_dy(ans, y, x):
    d[y] += d[ans] * (2.0 * ans * rt.atan2_dx(y, x))
    d[x] += d[ans] * (rt.atan2_dx(y, x) ** 2 - ans * ans)


@tangent(rt.atan2_dy)
def atan2_dy_tangent(ans, y, x):
    t[ans] = t[y] * (2.0 * ans * rt.atan2_dx(y, x)) + t[x] * (rt.atan2_dx(y, x) ** 2 - ans * ans)


@adjoint(rt.atan2_dx, kind=ty.elementwise, name="rt.atan2_dx")
def atan2_dx(ans, y, x):
    d[y] += d[ans] * (ans * ans - rt.atan2_dy(y, x) ** 2)
    d[x] += d[ans] * (-2.0 * rt.atan2_dy(y, x) * ans)


@tangent(rt.atan2_dx)
def atan2_dx_tangent(ans, y, x):
    t[ans] = t[y] * (ans * ans - rt.atan2_dy(y, x) ** 2) + t[x] * (-2.0 * rt.atan2_dy(y, x) * ans)


# the natural logarithm of a logarithm's base, in the rules of `math.log(x, base)`
@adjoint(rt.log_base, kind=ty.true_div, name="rt.log_base")
def log_base(ans, base):
    d[base] += d[ans] / base


@tangent(rt.log_base)
def log_base_tangent(ans, base):
    t[ans] = t[base] / base


# max/min reductions: the tangent of the first extreme element, linear in `v`
@adjoint(rt.select_tangent, kind=ty.reduction(), name="rt.select_tangent")
def select_tangent_(ans, v, x, extreme, axis):
    d[v] += rt.select_adjoint(d[ans], x, extreme, axis)


@tangent(rt.select_tangent)
def select_tangent_tangent(ans, v, x, extreme, axis):
    t[ans] = rt.select_tangent(t[v], x, extreme, axis)


@adjoint(rt.prod_tangent, kind=ty.reduction("f"), broadcast=False, name="rt.prod_tangent")
def prod_tangent(ans, v, x, axis):
    d[v] += rt.prod_adjoint(d[ans], x, axis)
    d[x] += rt.prod_tangent_dx(d[ans], v, x, axis)


@tangent(rt.prod_tangent)
def prod_tangent_tangent(ans, v, x, axis):
    t[ans] = (rt.prod_tangent(t[v], x, axis)
              + np.sum(t[x] * rt.prod_tangent_dx(1.0, v, x, axis), axis))


# sorting: a tangent taken in the order that sorts `a`, linear in `v`; the order does not
# move with `a` (but where values tie)
@adjoint(rt.sort_tangent, kind=ty.sort, broadcast=False, name="rt.sort_tangent", sums=False,
         linear=True)
def sort_tangent(ans, v, a, axis=-1):
    d[v] += rt.sort_adjoint(d[ans], a, axis)


# masks and constants that tangent code builds from primal values only
for _mask in (rt.within, rt.clip_low, rt.clip_high):
    nondiff(_mask, kind=ty.boolean, params=("ans", "x", "lo", "hi"),
            name="rt." + _mask.__name__)
for _mask in (rt.fmax_first, rt.fmin_first):
    nondiff(_mask, kind=ty.boolean, params=("ans", "x", "y"), name="rt." + _mask.__name__)
nondiff(rt.arange_tstart, kind=ty.linspace, params=("ans", "n", "stop"), name="rt.arange_tstart")

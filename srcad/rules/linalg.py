"""Rules for linear algebra: np.linalg and the matrix helpers of numpy."""
import numpy as np

from srcad import runtime as rt
from srcad.rules import typing as ty
from srcad.rules.registry import adjoint, nondiff, parts, tangent

d = None  # templates say d[x] for "the adjoint of x"; they are never run
t = None  # tangent templates say t[x] for "the tangent of x" (forward mode)


# runs as rt.solve: Numba's np.linalg.solve takes one dtype, and `a` or `b` may be complex
@adjoint(np.linalg.solve, rt.solve, kind=ty.like_b, broadcast=False, complex=True,
         name="rt.solve")
def solve(ans, a, b):
    d[a] += rt.solve_da(d[ans], a, ans)
    d[b] += rt.solve_db(d[ans], a)


@tangent(np.linalg.solve)
def solve_tangent(ans, a, b):
    t[ans] = rt.solve(a, t[b]) - rt.solve(a, rt.dot(t[a], ans))


@adjoint(np.linalg.inv, kind=ty.inverse, broadcast=False, complex=True)
def inv(ans, a):
    d[a] += rt.inv_adjoint(d[ans], ans)


@tangent(np.linalg.inv)
def inv_tangent(ans, a):
    t[ans] = -rt.dot(rt.dot(ans, t[a]), ans)


@adjoint(np.linalg.det, kind=ty.scalar_float, broadcast=False)
def det(ans, a):
    d[a] += rt.det_adjoint(d[ans], a, ans)


@tangent(np.linalg.det)
def det_tangent(ans, a):
    t[ans] = ans * np.trace(np.linalg.solve(a, t[a]))


# slogdet(a) is the pair (sign, log |det a|), each item with a rule of its own
parts(np.linalg.slogdet, "rt.slogdet_sign", "rt.logabsdet")
nondiff(rt.slogdet_sign, kind=ty.scalar_float, params=("ans", "a"), name="rt.slogdet_sign",
        sums=True)


@adjoint(rt.logabsdet, kind=ty.scalar_float, broadcast=False, name="rt.logabsdet")
def logabsdet(ans, a):
    d[a] += rt.logabsdet_adjoint(d[ans], a)


@tangent(rt.logabsdet)
def logabsdet_tangent(ans, a):
    t[ans] = np.trace(np.linalg.solve(a, t[a]))


@adjoint(np.linalg.cholesky, kind=ty.square, broadcast=False)
def cholesky(ans, a):
    d[a] += rt.cholesky_adjoint(d[ans], ans)


@tangent(np.linalg.cholesky)
def cholesky_tangent(ans, a):
    t[ans] = rt.cholesky_tangent(t[a], ans)


@adjoint(np.linalg.norm, kind=ty.scalar_float, broadcast=False)
def norm(ans, x):
    d[x] += rt.strong(d[ans], d[ans] / ans) * x


@tangent(np.linalg.norm)
def norm_tangent(ans, x):
    t[ans] = np.sum(x * t[x]) / rt.select(ans > 0.0, ans, 1.0)  # 0 at x = 0


@adjoint(np.outer, kind=ty.square, broadcast=False)
def outer(ans, a, b):
    d[a] += np.dot(d[ans], b)
    d[b] += np.dot(a, d[ans])


@tangent(np.outer)
def outer_tangent(ans, a, b):
    t[ans] = np.outer(t[a], b) + np.outer(a, t[b])


@adjoint(np.trace, kind=ty.scalar_float, broadcast=False)
def trace(ans, a):
    d[a] += rt.trace_adjoint(d[ans], a)


@tangent(np.trace)
def trace_tangent(ans, a):
    t[ans] = np.trace(t[a])


@adjoint(np.diag, kind=ty.diag, broadcast=False, view=True, sums=False)
def diag(ans, v, k=0):
    d[v] += rt.diag_adjoint(d[ans], v, k)


@tangent(np.diag)
def diag_tangent(ans, v, k=0):
    t[ans] = np.diag(t[v], k)

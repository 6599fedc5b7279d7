"""Rules for linear algebra: np.linalg and the matrix helpers of numpy."""
import numpy as np

from srcad import runtime as rt  # noqa: F401  (names used in templates)
from srcad.rules import typing as ty
from srcad.rules.registry import adjoint

d = None  # templates say d[x] for "the adjoint of x"; they are never run


@adjoint(np.linalg.solve, kind=ty.like_b, broadcast=False)
def solve(ans, a, b):
    d[a] += rt.solve_da(d[ans], a, ans)
    d[b] += rt.solve_db(d[ans], a)


@adjoint(np.linalg.inv, kind=ty.square, broadcast=False)
def inv(ans, a):
    d[a] += rt.inv_adjoint(d[ans], ans)


@adjoint(np.linalg.det, kind=ty.scalar_float, broadcast=False)
def det(ans, a):
    d[a] += rt.det_adjoint(d[ans], a, ans)


@adjoint(np.linalg.cholesky, kind=ty.square, broadcast=False)
def cholesky(ans, a):
    d[a] += rt.cholesky_adjoint(d[ans], ans)


@adjoint(np.linalg.norm, kind=ty.scalar_float, broadcast=False)
def norm(ans, x):
    d[x] += rt.strong(d[ans], d[ans] / ans) * x


@adjoint(np.outer, kind=ty.square, broadcast=False)
def outer(ans, a, b):
    d[a] += np.dot(d[ans], b)
    d[b] += np.dot(a, d[ans])


@adjoint(np.trace, kind=ty.scalar_float, broadcast=False)
def trace(ans, a):
    d[a] += rt.trace_adjoint(d[ans], a)


@adjoint(np.diag, kind=ty.diag, broadcast=False)
def diag(ans, v, k=0):
    d[v] += np.diag(d[ans], k)

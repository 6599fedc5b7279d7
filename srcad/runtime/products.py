"""Matrix products and linear algebra: adjoints, and the tangent of a Cholesky factor."""

import numpy as np
from numba.extending import register_jitable

from srcad.runtime.overloads import _is_array, _jit_version, fresh, result_like


def matmul(x, y):
    """`x @ y`, numbers included (a tangent that is a zero number)."""
    return x * y if np.ndim(x) == 0 or np.ndim(y) == 0 else x @ y


@_jit_version(matmul)
def _matmul(x, y):
    if _is_array(x) and _is_array(y):
        return lambda x, y: np.dot(np.ascontiguousarray(x), np.ascontiguousarray(y))
    return lambda x, y: x * y


def _stacked_adjoints(g, x, y):
    """Adjoints of `x @ y` for an operand of more than two dimensions: matrix products
    stacked over broadcast leading axes, a 1-d `x` a row and a 1-d `y` a column, summed
    back to each operand's shape."""
    x2 = x[None, :] if x.ndim == 1 else x
    y2 = y[:, None] if y.ndim == 1 else y
    g2 = g[..., None, :] if x.ndim == 1 else g
    g2 = g2[..., None] if y.ndim == 1 else g2
    dx = _sum_to(g2 @ np.swapaxes(y2, -1, -2), x2.shape)
    dy = _sum_to(np.swapaxes(x2, -1, -2) @ g2, y2.shape)
    return dx.reshape(x.shape), dy.reshape(y.shape)


def _sum_to(a, shape):
    """`a`, summed over the axes that broadcasting to it added or stretched."""
    a = np.sum(a, axis=tuple(range(a.ndim - len(shape)))) if a.ndim > len(shape) else a
    stretched = tuple(k for k, n in enumerate(shape) if n == 1 and a.shape[k] != 1)
    return np.sum(a, axis=stretched, keepdims=True) if stretched else a


@result_like(1)
@fresh
def matmul_dx(g, x, y):
    """Adjoint of `x @ y` (or `np.dot`) with respect to `x`."""
    nx, ny = np.ndim(x), np.ndim(y)
    if nx > 2 or ny > 2:
        return _stacked_adjoints(g, x, y)[0]
    if nx == 0 or ny == 0:
        return np.sum(g * y) if nx == 0 else g * y
    if nx == 1 and ny == 1:
        return g * y
    if nx == 1:
        return y @ g
    if ny == 1:
        return np.outer(g, y)
    return g @ y.T


@result_like(2)
@fresh
def matmul_dy(g, x, y):
    """Adjoint of `x @ y` (or `np.dot`) with respect to `y`."""
    nx, ny = np.ndim(x), np.ndim(y)
    if nx > 2 or ny > 2:
        return _stacked_adjoints(g, x, y)[1]
    if nx == 0 or ny == 0:
        return np.sum(g * x) if ny == 0 else g * x
    if nx == 1 and ny == 1:
        return g * x
    if nx == 1:
        return np.outer(x, g)
    if ny == 1:
        return x.T @ g
    return x.T @ g


def _ndims(x, y):
    return (x.ndim if _is_array(x) else 0), (y.ndim if _is_array(y) else 0)


@_jit_version(matmul_dx)
def _matmul_dx(g, x, y):
    nx, ny = _ndims(x, y)
    if nx > 2 or ny > 2:
        return None  # Numba's `@` takes one or two dimensions: the sweeps run as Python
    if nx == 0:
        return lambda g, x, y: np.sum(g * y)
    if ny == 0 or (nx == 1 and ny == 1):
        return lambda g, x, y: g * y
    if nx == 1:
        return lambda g, x, y: np.dot(np.ascontiguousarray(y), np.ascontiguousarray(g))
    if ny == 1:
        return lambda g, x, y: np.outer(g, y)
    return lambda g, x, y: np.dot(np.ascontiguousarray(g), np.ascontiguousarray(y).T)


@_jit_version(matmul_dy)
def _matmul_dy(g, x, y):
    nx, ny = _ndims(x, y)
    if nx > 2 or ny > 2:
        return None  # Numba's `@` takes one or two dimensions: the sweeps run as Python
    if ny == 0:
        return lambda g, x, y: np.sum(g * x)
    if nx == 0 or (nx == 1 and ny == 1):
        return lambda g, x, y: g * x
    if nx == 1:
        return lambda g, x, y: np.outer(x, g)
    return lambda g, x, y: np.dot(np.ascontiguousarray(x).T, np.ascontiguousarray(g))


def solve(a, b):
    """np.linalg.solve(a, b), one real and one complex too (Numba's takes one dtype)."""
    return np.linalg.solve(a, b)


def _solved(a, b):
    """np.linalg.solve of `a` and `b` made one dtype, complex where either is."""
    return np.linalg.solve(a, b)


@_jit_version(_solved)
def _solved_jit(a, b):
    if a.dtype == b.dtype:  # types, compared as the call is typed
        return lambda a, b: np.linalg.solve(np.ascontiguousarray(a), np.ascontiguousarray(b))
    return lambda a, b: np.linalg.solve(np.ascontiguousarray(a).astype(np.complex128),
                                        np.ascontiguousarray(b).astype(np.complex128))


@_jit_version(solve)
def _solve(a, b):
    return lambda a, b: _solved(a, b)


def solve_db(g, a):
    """Adjoint of x = solve(a, b) with respect to b: solve(a.T, g)."""
    return np.linalg.solve(np.ascontiguousarray(a.T), g)


def solve_da(g, a, x):
    """Adjoint of x = solve(a, b) with respect to a: -solve(a.T, g) x^T."""
    u = solve_db(g, a)
    return -np.outer(u, x) if np.ndim(x) == 1 else -(u @ x.T)


@_jit_version(solve_db)
def _solve_db(g, a):
    return lambda g, a: _solved(a.T, g)


@_jit_version(solve_da)
def _solve_da(g, a, x):
    if x.ndim == 1:
        return lambda g, a, x: -np.outer(_solved(a.T, g), x)
    return lambda g, a, x: -np.dot(_solved(a.T, g), np.ascontiguousarray(x.T))


@register_jitable(cache=True)
def inv_adjoint(g, ainv):
    """Adjoint of ainv = inv(a): -ainv^T g ainv^T."""
    t = np.ascontiguousarray(ainv.T)
    return -np.dot(np.dot(t, np.ascontiguousarray(g)), t)


@register_jitable(cache=True)
def slogdet_sign(a):
    """np.linalg.slogdet(a)[0]: the sign of det(a) (0 for a singular matrix)."""
    return np.linalg.slogdet(np.ascontiguousarray(a))[0]


@register_jitable(cache=True)
def logabsdet(a):
    """np.linalg.slogdet(a)[1]: log |det(a)|, without forming det(a)."""
    return np.linalg.slogdet(np.ascontiguousarray(a))[1]


@register_jitable(cache=True)
def logabsdet_adjoint(g, a):
    """Adjoint of log |det(a)|: g inv(a)^T."""
    return g * np.ascontiguousarray(np.linalg.inv(np.ascontiguousarray(a)).T)


@register_jitable(cache=True)
def det_adjoint(g, a, d):
    """Adjoint of d = det(a): g d inv(a)^T."""
    return g * d * np.ascontiguousarray(np.linalg.inv(np.ascontiguousarray(a)).T)


@register_jitable(cache=True)
def cholesky_adjoint(g, low):
    """Adjoint of L = cholesky(a) (Murray, 2016), S = L^-T Phi(L^T g) L^-1 where Phi keeps
    the lower triangle and halves the diagonal. NumPy reads only the lower triangle of
    `a`, so that is where the gradient goes: S + S^T below the diagonal, S on it."""
    p = np.dot(np.ascontiguousarray(low.T), np.ascontiguousarray(g))
    p = np.tril(p) - 0.5 * np.diag(np.diag(p))
    linv = np.linalg.inv(np.ascontiguousarray(low))
    s = np.dot(np.dot(np.ascontiguousarray(linv.T), p), linv)
    return np.tril(s + s.T) - np.diag(np.diag(s))


@register_jitable(cache=True)
def trace_adjoint(g, a):
    """Adjoint of np.trace(a): g on the diagonal."""
    return g * np.eye(a.shape[0], a.shape[1])


@register_jitable(cache=True)
def cholesky_tangent(t, low):
    """Tangent of L = cholesky(a) along `t`. NumPy reads only the lower triangle of `a`,
    so `t` perturbs the symmetric da = tril(t) + tril(t, -1)^T, and
    dL = L Phi(L^-1 da L^-T), where Phi keeps the lower triangle and halves the diagonal."""
    da = np.tril(t) + np.ascontiguousarray(np.tril(t, -1).T)
    linv = np.linalg.inv(np.ascontiguousarray(low))
    p = np.dot(np.dot(linv, da), np.ascontiguousarray(linv.T))
    p = np.tril(p) - 0.5 * np.diag(np.diag(p))
    return np.dot(np.ascontiguousarray(low), p)

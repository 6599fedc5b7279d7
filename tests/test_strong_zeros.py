"""A cotangent that a mask, a triangle or an untaken branch sets to zero stays zero
through an infinite derivative (0 * inf counts as 0, a strong zero): the potential energy
of a distance matrix summed over its upper triangle has a gradient, although `np.sqrt`'s
derivative is infinite on the diagonal, and so does a sum over pairs `i != j` of
distances computed for every pair. Checked against finite differences, and forward mode
against reverse."""
import math

import numpy as np
import pytest

import srcad
from tests.fd import assert_value_and_grad


def potential(pos, mass):
    x = pos[:, 0:1]
    y = pos[:, 1:2]
    dx = x.T - x
    dy = y.T - y
    r = np.sqrt(dx ** 2 + dy ** 2)
    r[r > 0] = 1.0 / r[r > 0]
    return np.sum(np.triu(-(mass * mass.T) * r, 1))


def lower_distances(p):
    d = np.sqrt((p[:, None] - p[None, :]) ** 2)
    return np.sum(np.tril(d, -1) ** 2 * 0.5)


def pairs_skipping_the_diagonal(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            r = np.sqrt((x[j] - x[i]) ** 2)
            if i != j:
                s += r * x[i]
    return s


def math_pairs_skipping_the_diagonal(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            r = math.sqrt((x[j] - x[i]) * (x[j] - x[i]) + 0.0)
            if i != j:
                s += r
    return s


CASES = [
    (potential, lambda: (np.array([[0.1, 0.3], [0.7, -0.2], [-0.5, 0.4], [0.2, 0.9]]),
                         np.array([[1.0], [2.0], [0.5], [1.5]])), (0, 1)),
    (lower_distances, lambda: (np.array([0.3, -0.4, 1.2, 0.8]),), 0),
    (pairs_skipping_the_diagonal, lambda: (np.array([0.1, 0.5, 0.9]),), 0),
    (math_pairs_skipping_the_diagonal, lambda: (np.array([0.1, 0.5, 0.9]),), 0),
]


@pytest.mark.parametrize("fn, make, wrt", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("jit", [False, True])
def test_gradient_through_an_infinite_derivative_behind_a_mask(fn, make, wrt, jit):
    assert_value_and_grad(fn, make, wrt, jit=jit)


@pytest.mark.parametrize("fn, make, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_forward_against_reverse(fn, make, wrt):
    args = make()
    wrt = wrt if isinstance(wrt, tuple) else (wrt,)
    rng = np.random.default_rng(1)
    tangents = tuple(rng.standard_normal(np.shape(a)) for a in args)
    _, tangent = srcad.jvp(fn, args, tangents, wrt=wrt, jit=False)
    _, pullback = srcad.vjp(fn, *args, wrt=wrt, jit=False)
    grads = pullback(1.0)
    assert np.isfinite(tangent)
    assert tangent == pytest.approx(sum(float(np.sum(g * tangents[w]))
                                        for g, w in zip(grads, wrt)), rel=1e-10)

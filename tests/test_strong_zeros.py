"""A cotangent that a mask, a triangle or an untaken branch sets to zero stays zero
through an infinite derivative (0 * inf counts as 0, a strong zero): the potential energy
of a distance matrix summed over its upper triangle has a gradient, although `np.sqrt`'s
derivative is infinite on the diagonal, and so does a sum over pairs `i != j` of
distances computed for every pair, and a function that rebinds a variable to
`z * np.sqrt(0.0)` and never reads it again. Checked against finite differences, and forward mode
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


def rebound_and_left_unused(y, z, m):
    a = m * 2.0
    b = m + m
    s = np.sum(z) * y
    if y > 5.0:
        s = s + 1.0
    else:
        z = z * np.sqrt(a - b)  # z is not read again: its cotangent here is zero
    return s


def updated_in_a_branch_and_left_unused(x, y, z, m):
    x = np.tanh(y + math.fabs(z)) - x
    if y > 5.0:
        x = x + 1.0
    else:
        z *= math.cos(math.sqrt((x if y > 2.5 else np.sum(m[-1] * 0.5))
                                - (x if y > 2.5 else np.sum(m[-1] * 0.5))) + x)
    return x * y


def updated_in_a_loop_and_left_unused(x, y, z):
    s = x * math.fabs(z)
    for i in range(3):
        if y < 5.0:
            z *= math.sqrt(y * 2.0 - (y + y))  # read again only by this update
    return s + y


CASES = [
    (potential, lambda: (np.array([[0.1, 0.3], [0.7, -0.2], [-0.5, 0.4], [0.2, 0.9]]),
                         np.array([[1.0], [2.0], [0.5], [1.5]])), (0, 1)),
    (lower_distances, lambda: (np.array([0.3, -0.4, 1.2, 0.8]),), 0),
    (pairs_skipping_the_diagonal, lambda: (np.array([0.1, 0.5, 0.9]),), 0),
    (math_pairs_skipping_the_diagonal, lambda: (np.array([0.1, 0.5, 0.9]),), 0),
    (rebound_and_left_unused, lambda: (1.5, np.array([[0.5, 1.5], [2.0, 0.25]]),
                                       np.array([[0.25, 0.5], [1.0, 2.0]])), (0, 1, 2)),
    (updated_in_a_branch_and_left_unused, lambda: (1.3, -0.7, 0.2, np.array(
        [[-0.5, 0.9], [0.9, 0.4], [1.1, -0.9]])), (0, 1, 2, 3)),
    (updated_in_a_loop_and_left_unused, lambda: (1.5, 0.5, 0.7), (0, 1, 2)),
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


def test_compiled_forward_mode_skips_a_tangent_nothing_reads():
    # the tangent of the unused `z` divides by `math.sqrt(0.0)`: compiled code raised
    # ZeroDivisionError there before forward mode left such tangents out
    args = (1.3, -0.7, 0.2, np.array([[-0.5, 0.9], [0.9, 0.4], [1.1, -0.9]]))
    tangents = (0.3, -1.1, 0.7, np.array([[0.2, -0.4], [1.0, 0.5], [-0.3, 0.8]]))
    fn = updated_in_a_branch_and_left_unused
    _, tangent = srcad.jvp(fn, args, tangents, jit=True)
    h = 1e-6
    up = fn(*(a + h * t for a, t in zip(args, tangents)))
    down = fn(*(a - h * t for a, t in zip(args, tangents)))
    assert tangent == pytest.approx((up - down) / (2 * h), rel=1e-6)

"""`1 / y` is differentiated from its value (`-d * ans * ans`, no second division), in
reverse and forward mode, for numbers, arrays, complex values and an int numerator; the
gradients agree with finite differences and the two modes with each other."""
import numpy as np
import pytest

import srcad
from tests.fd import assert_value_and_grad


def sigmoid_sum(x, z):
    return np.sum(1.0 / (1.0 + np.exp(-x))) + 1 / z + np.sum(2.0 / x) + 1.0 / (z * z)


def reciprocal_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        r = 1.0 / (x[i] * x[i] + 0.5)
        s += r * r - r
    return s


def complex_reciprocal(z):
    w = 1.0 / (z + 2.0)
    return np.real(w * np.conj(w)) + np.imag(w)


CASES = [
    (sigmoid_sum, lambda: (np.linspace(-1.0, 2.0, 5), 0.7), (0, 1)),
    (reciprocal_loop, lambda: (np.linspace(-1.0, 2.0, 6),), 0),
    (complex_reciprocal, lambda: (0.3 - 0.8j,), 0),
]


@pytest.mark.parametrize("fn, make, wrt", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("jit", [False, True])
def test_gradient_against_finite_differences(fn, make, wrt, jit):
    assert_value_and_grad(fn, make, wrt, jit=jit)


def test_adjoint_reads_the_value_not_a_second_division():
    g = srcad.grad(reciprocal_loop, jit=False)
    g(np.linspace(-1.0, 2.0, 6))
    rev = srcad.source(g).split("def reciprocal_loop_rev", 1)[1]
    assert "* r * r" in rev and "/" not in rev.split("# grad of: r = ")[1].split("\n")[1]


def test_forward_against_reverse():
    x, z = np.linspace(-1.0, 2.0, 5), 0.7
    tx, tz = np.random.default_rng(0).standard_normal(5), 0.3
    _, tangent = srcad.jvp(sigmoid_sum, (x, z), (tx, tz), jit=False)
    _, pullback = srcad.vjp(sigmoid_sum, x, z, wrt=(0, 1), jit=False)
    gx, gz = pullback(1.0)
    assert tangent == pytest.approx(float(np.sum(gx * tx) + gz * tz), rel=1e-12)

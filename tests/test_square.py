"""`x ** 2` is differentiated as `2.0 * x` (its own rule for the constant exponent 2, not
the general power's), and a whole power `x ** 6` as `6 * x ** 5`, in reverse and forward
mode, for numbers, arrays, negative and zero bases, complex values and the exponent
written `2` or `2.0`; the gradients agree with finite differences and the two modes with
each other."""
import numpy as np
import pytest

import srcad
from tests.fd import assert_value_and_grad


def squares(x, z):
    return np.sum(x ** 2) + z ** 2 + np.sum((x * z) ** 2.0) + (-z) ** 2 + z * (-2.0) ** 2


def squared_loss_loop(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        s += (x[i] - y[i]) ** 2
    return s


def squared_matrix(w, x):
    return np.sum((x @ w - 1.0) ** 2)


def complex_square(z):
    w = (z + 0.5j) ** 2
    return np.real(w * np.conj(z))


def whole_powers(x, z):
    return np.sum(x ** 3) + z ** 6.0 + np.sum((x * z) ** 1) + (-z) ** 5 + np.sum(x ** 4)


CASES = [
    (whole_powers, lambda: (np.linspace(-1.0, 1.0, 5), -0.7), (0, 1)),
    (squares, lambda: (np.linspace(-1.0, 2.0, 5), -0.7), (0, 1)),
    (squared_loss_loop, lambda: (np.linspace(-1.0, 2.0, 6), np.linspace(0.5, -0.5, 6)),
     (0, 1)),
    (squared_matrix, lambda: (np.arange(6.0).reshape(3, 2) / 5.0,
                              np.linspace(-1.0, 1.0, 12).reshape(4, 3)), (0, 1)),
    (complex_square, lambda: (0.3 - 0.8j,), 0),
]


@pytest.mark.parametrize("fn, make, wrt", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("jit", [False, True])
def test_gradient_against_finite_differences(fn, make, wrt, jit):
    assert_value_and_grad(fn, make, wrt, jit=jit)


def test_adjoint_is_twice_the_base_not_the_general_power():
    g = srcad.grad(squared_matrix, wrt=(0, 1), jit=False)
    g(*next(make for fn, make, _ in CASES if fn is squared_matrix)())
    rev = srcad.source(g).split("def squared_matrix_rev", 1)[1]
    assert "pow_dx" not in rev and "2.0, tmp" in rev
    # a whole power has its own, one power; a fraction keeps the general rule
    g = srcad.grad(cube_and_root, jit=False)
    g(np.linspace(0.5, 1.0, 4))
    rev = srcad.source(g).split("def cube_and_root_rev", 1)[1]  # its kernels included
    assert "3 * x ** 2" in rev and rev.count("pow_dx") == 1


def cube_and_root(x):
    return np.sum(x ** 3) + np.sum(x ** 1.5)


def test_forward_against_reverse():
    x, z = np.linspace(-1.0, 2.0, 5), -0.7
    tx, tz = np.random.default_rng(0).standard_normal(5), 0.3
    _, tangent = srcad.jvp(squares, (x, z), (tx, tz), jit=False)
    _, pullback = srcad.vjp(squares, x, z, wrt=(0, 1), jit=False)
    gx, gz = pullback(1.0)
    assert tangent == pytest.approx(float(np.sum(gx * tx) + gz * tz), rel=1e-12)


def test_whole_powers_forward_against_reverse():
    x, z = np.linspace(-1.0, 1.0, 5), -0.7
    tx, tz = np.random.default_rng(1).standard_normal(5), -0.4
    _, tangent = srcad.jvp(whole_powers, (x, z), (tx, tz), jit=False)
    _, pullback = srcad.vjp(whole_powers, x, z, wrt=(0, 1), jit=False)
    gx, gz = pullback(1.0)
    assert tangent == pytest.approx(float(np.sum(gx * tx) + gz * tz), rel=1e-12)

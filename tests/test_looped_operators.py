"""LoopedOperators: arithmetic between arrays of three or more dimensions, spelled as the
`srcad.runtime.loops` helpers in forward, reverse and tangent sweeps. Compiled, the value is
NumPy's for every layout, broadcast and dtype the helpers take, the gradient and the
tangent are finite differences', and the sweeps name the helpers where the operators were
(so that what is checked is the rewritten code)."""
import operator
import re

import numba
import numpy as np
import pytest

import srcad
from srcad import runtime as rt
from tests.fd import fd_grad


def four_d(a, b):
    c = a * b + a / (b + 2.0) - b
    return np.sum(c * c)


def broadcast(a, v, m):
    return np.sum(np.sin(a * v) - a / (m + 2.0) + m * a)


def views(a, b):
    return np.sum(a[:, ::2] * b[:, 1::2] - np.exp(a[1:2, :2] - b[:1, 2:4]))


def with_ints(a, k):
    return np.sum(a * k + k / (a + 3.0) - (k - a) * a)


def compared(a, b):
    return np.sum(np.where(a > b, a * b, b - a)) + np.sum(b * (a != b) - (a <= b) / a)


def tangent_through_zeros(a, b):
    r = a * 0.3
    return np.sum(np.exp(r) * b) + np.sum(b / (r + 2.0))


_RNG = np.random.default_rng(11)
A3 = _RNG.uniform(0.5, 1.5, (3, 4, 5))
A4 = _RNG.uniform(0.5, 1.5, (2, 3, 4, 5))
B4 = np.asfortranarray(_RNG.uniform(0.5, 1.5, (2, 3, 4, 5)))
B3 = np.asfortranarray(_RNG.uniform(0.5, 1.5, (3, 4, 5)))  # 3-d: compiled sooner than 4-d
CASES = [
    (four_d, (A4, B4), (0, 1)),
    (broadcast, (A3, _RNG.uniform(0.5, 1.5, 5), _RNG.uniform(0.5, 1.5, (4, 1))), (0, 1, 2)),
    (views, (A3, B3[::-1]), (0, 1)),
    (with_ints, (A3, np.arange(60).reshape(3, 4, 5) % 7), (0,)),
    (compared, (A3, B3), (0, 1)),
    (tangent_through_zeros, (A3, B3), (0, 1)),
]
IDS = [c[0].__name__ for c in CASES]


# compiled: a 4-d product, comparisons and masks, integers (the helpers' layouts and
# broadcasts, compiled: tests/test_loops.py); as Python, every case
COMPILED = ("four_d", "compared", "with_ints")


@pytest.mark.parametrize("f, args, wrt, jit", [
    c + (jit,) for c in CASES for jit in (False, True) if not jit or c[0].__name__ in COMPILED],
    ids=[f"{c[0].__name__}-{jit}" for c in CASES for jit in (False, True)
         if not jit or c[0].__name__ in COMPILED])
def test_value_and_gradient(f, args, wrt, jit):
    value, grads = srcad.value_and_grad(f, wrt=wrt, jit=jit)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    for got, want in zip(grads, fd_grad(f, args, wrt)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("f, args, wrt", CASES[:1] + CASES[-1:], ids=[IDS[0], IDS[-1]])
def test_tangent_is_the_directional_derivative(f, args, wrt):
    directions = [np.random.default_rng(3).uniform(-1, 1, np.shape(args[i])) for i in wrt]
    value, tangent = srcad.jvp(f, args, directions, wrt=wrt, jit=True)
    grads = fd_grad(f, args, wrt)
    assert value == pytest.approx(f(*args), rel=1e-12)
    assert tangent == pytest.approx(sum(np.sum(g * d) for g, d in zip(grads, directions)),
                                    rel=1e-6)


def test_the_sweeps_name_the_helpers():
    g = srcad.value_and_grad(four_d, wrt=(0, 1), jit=False)
    text = srcad.source(g, A4, B4)
    fwd = text[text.index("def four_d_fwd"):text.index("def four_d_rev")]
    assert "rt.sub(rt.add(rt.mul(a, b), " in fwd and "rt.mul(c, c)" in fwd
    assert "b + 2.0" in fwd  # an array and a number: the operator stays


def test_vectors_and_matrices_keep_their_operators():
    def small(a, b):
        return np.sum(a * b + a / b)

    text = srcad.source(srcad.grad(small, jit=False), A3[0], A3[1])
    fwd = text[text.index("def small_fwd"):text.index("def small_rev")]
    assert "a * b" in fwd and not re.search(r"rt\.(add|sub|mul|div)\(", fwd)


def test_hessian_vector_product_through_the_helpers():
    a, b = A4, B4
    v = np.random.default_rng(5).uniform(-1, 1, a.shape)
    got = srcad.hvp(four_d, (a, b), v, wrt=0, jit=False)
    grad = srcad.grad(four_d, wrt=0, jit=False)
    h = 1e-6
    want = (grad(a + h * v, b) - grad(a - h * v, b)) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


COMPARISONS = {"greater": operator.gt, "greater_equal": operator.ge, "less": operator.lt,
               "less_equal": operator.le, "equal": operator.eq, "not_equal": operator.ne}


@pytest.mark.parametrize("name", sorted(COMPARISONS))
def test_comparison_helpers_are_the_operators(name):
    helper, op = getattr(rt, name), COMPARISONS[name]
    jitted = numba.njit(lambda a, b: helper(a, b))
    x = np.round(_RNG.uniform(-1, 1, (3, 4, 6)), 1)
    x[0, 0, 0] = np.nan
    ints = np.arange(24).reshape(3, 4, 2) % 5
    for a, b in ((x, x[::-1]), (x[:, :, ::2], np.round(_RNG.uniform(-1, 1, 3), 1)),
                 (ints, x[:, :, :2])):
        want = op(a, b)
        for got in (helper(a, b), jitted(a, b)):
            assert got.dtype == np.bool_ and got.shape == want.shape
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
def test_arithmetic_helpers_take_a_mask_and_numbers(name):
    helper, op = getattr(rt, name), {"add": operator.add, "sub": operator.sub,
                                     "mul": operator.mul, "div": operator.truediv}[name]
    jitted = numba.njit(lambda a, b: helper(a, b))
    x = _RNG.uniform(-1, 1, (3, 4, 5))
    for a, b in ((x > 0.0, x), (x[:, ::2], x[:, 1::2] < 0.2)):
        want = op(a, b)
        for got in (helper(a, b), jitted(a, b)):
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)

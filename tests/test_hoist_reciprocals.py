"""HoistReciprocals: a reverse sweep's adjoints divide by a loop-invariant scalar through
its reciprocal, taken once before the loop. The gradients agree with finite differences
(the divisor an argument, a value set before the loop, one set in an outer loop, one set
only on some paths before a loop that may not run), the value stays the function's own,
bit for bit, and a zero or subnormal divisor gives no error and no wrong number."""
import math

import numpy as np
import pytest

import srcad
from benchmarks.workloads import huber
from tests.fd import assert_value_and_grad


def set_before(x, w):
    s = w * w + 1.0
    total = 0.0
    for i in range(x.shape[0]):
        total += math.sin(x[i]) / s + x[i] * x[i] / s
    return total


def outer_divisor(x, w):
    total = 0.0
    for i in range(x.shape[0]):
        s = w + x[i] * x[i]
        for j in range(x.shape[0]):
            total += x[i] * x[j] / s
    return total


def divisor_on_one_path(x, n):
    if n > 0:
        s = x[0] * x[0] + 2.0
    total = 0.0
    for i in range(n):
        total += x[i] / s
    return total + np.sum(x)


def integer_divisor(x, n):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i] * x[i] / n
    return total


def changing_divisor(x):
    s = 1.0
    total = 0.0
    for i in range(x.shape[0]):
        s = s + x[i] * x[i]
        total += x[i] / s
    return total


def _huber_args():
    rng = np.random.default_rng(7)
    return rng.standard_normal(12), rng.standard_normal(12), 0.8


CASES = [
    (huber, _huber_args, (0, 1, 2)),
    (set_before, lambda: (np.linspace(-1.0, 2.0, 7), 0.6), (0, 1)),
    (outer_divisor, lambda: (np.linspace(-1.0, 2.0, 5), 0.9), (0, 1)),
    (divisor_on_one_path, lambda: (np.linspace(0.5, 2.0, 4), 3), 0),
    (divisor_on_one_path, lambda: (np.linspace(0.5, 2.0, 4), 0), 0),
    (integer_divisor, lambda: (np.linspace(-1.0, 2.0, 5), 3), 0),
    (changing_divisor, lambda: (np.linspace(-1.0, 2.0, 5),), 0),
]


@pytest.mark.parametrize("fn, make, wrt", CASES,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)])
@pytest.mark.parametrize("jit", [False, True])
def test_gradient_against_finite_differences(fn, make, wrt, jit):
    assert_value_and_grad(fn, make, wrt, jit=jit, rel=0.0)


def _reverse_sweep(fn, *args):
    g = srcad.grad(fn, jit=False)
    g(*args)
    return srcad.source(g).split(f"def {fn.__name__}_rev", 1)[1].split("\ndef ", 1)[0]


def test_adjoints_multiply_and_the_recomputed_primal_divides():
    rev = _reverse_sweep(huber, np.ones(3), np.zeros(3), 0.8)
    assert "rcp_scale = rt.reciprocal(scale)" in rev
    assert rev.index("rcp_scale = ") < rev.index("    for ")
    assert "r = tmp4 / scale" in rev  # decides the branch: the forward sweep's division
    assert "d_r / scale" not in rev and "d_r * rcp_scale" in rev


def test_a_divisor_set_in_an_outer_loop_is_taken_before_the_inner_loop():
    rev = _reverse_sweep(outer_divisor, np.linspace(-1.0, 2.0, 5), 0.9)
    loops = [line.strip() for line in rev.splitlines()
             if line.strip().startswith(("for ", "rcp_s"))]
    assert loops[0].startswith("for ") and loops[1] == "rcp_s = rt.reciprocal(s)" \
        and loops[2].startswith("for ") and len(loops) == 3


def test_a_divisor_the_loop_assigns_stays_a_division():
    assert "rt.reciprocal" not in _reverse_sweep(changing_divisor, np.ones(3))


def test_reciprocal_of_zero_and_subnormal_numbers():
    from srcad import runtime as rt

    assert rt.reciprocal(0.0) == math.inf and rt.reciprocal(-0.0) == -math.inf
    assert rt.reciprocal(0) == math.inf and rt.reciprocal(4) == 0.25
    assert math.isnan(rt.reciprocal(1e-310)) and rt.reciprocal(-2.5) == -0.4


def scaled_sum(x, s):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i] / s
    return total * 1e-5


@pytest.mark.parametrize("jit", [False, True])
def test_a_zero_divisor_over_no_iterations_raises_nothing(jit):
    value, (gx, gs) = srcad.value_and_grad(scaled_sum, wrt=(0, 1), jit=jit)(np.zeros(0), 0.0)
    assert value == 0.0 and gx.shape == (0,) and gs == 0.0


@pytest.mark.parametrize("jit", [False, True])
def test_a_subnormal_divisor_gives_nan_not_a_wrong_gradient(jit):
    x, s = np.array([1e-300, -2e-300]), 1e-310  # 1e-5 / s is finite, 1 / s is not
    gx = srcad.grad(scaled_sum, jit=jit)(x, s)
    assert np.all(np.isnan(gx))
    gx = srcad.grad(scaled_sum, jit=jit)(x, 0.5)
    assert gx == pytest.approx([2e-5, 2e-5], rel=1e-15)

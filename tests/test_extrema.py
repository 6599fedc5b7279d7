"""Python's `max` and `min` of one iterable (a list, an array, a range, a generator with
`if` clauses, with `default=`): the value Python computes, its exceptions, and the
gradient of the item Python picks; NumPy's over several axes in forward mode."""
import math

import numpy as np
import pytest

import srcad
from tests.fd import assert_value_and_grad, fd_grad


def spread(xs):
    return max(xs) * 2.0 - min(xs)


def odd_waves(x, n):
    return max(math.sin(x * k) for k in range(n) if k % 2 == 1)


def squares_or_zero(x):
    return max((v * v for v in x), default=0.0) + min(x)


def smallest_distance(p, q):
    return min(abs(p[i] - q[j]) for i in range(len(p)) for j in range(len(q)))


def of_a_range(x, n):
    return max(range(n)) * x


def shadows(x):
    v = 2.0
    return max(v * w for v in x for w in (1.0, -1.0)) + v


CASES = [
    (spread, lambda: ([0.3, 2.5, -1.0, 1.0],), 0),
    (spread, lambda: (np.array([0.3, 2.5, -1.0]),), 0),
    (odd_waves, lambda: (0.7, 6), 0),
    (squares_or_zero, lambda: (np.array([0.5, -3.0, 1.0]),), 0),
    (smallest_distance, lambda: (np.array([0.1, 0.9]), np.array([0.45, 2.0, -1.0])), (0, 1)),
    (of_a_range, lambda: (1.5, 4), 0),
    (shadows, lambda: (np.array([0.2, -0.9, 0.4]),), 0),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, make, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_extremum_of_an_iterable(fn, make, wrt, jit):
    assert_value_and_grad(fn, make, wrt, jit, rel=0.0)


@pytest.mark.parametrize("jit", [False, True])
def test_the_first_of_equal_items_gets_the_gradient_as_python_picks_it(jit):
    got = srcad.grad(spread, jit=jit)([1.0, 3.0, -2.0, 3.0, -2.0])
    assert got == [0.0, 2.0, -1.0, 0.0, 0.0]


@pytest.mark.parametrize("jit", [False, True])
def test_nan_compares_as_python_compares_it(jit):
    for xs in ([math.nan, 1.0, 2.0], [1.0, math.nan, 2.0]):
        value = srcad.value_and_grad(spread, jit=jit)(xs)[0]
        assert str(value) == str(spread(list(xs)))


@pytest.mark.parametrize("jit", [False, True])
def test_no_items_raise_pythons_error_or_give_the_default(jit):
    with pytest.raises(ValueError) as info:
        srcad.grad(spread, jit=jit)([])
    with pytest.raises(ValueError) as python:
        spread([])
    assert str(python.value) in str(info.value)
    assert "test_extrema.py" in str(info.value)

    def default_only(x, n):
        return max((x * k for k in range(n)), default=-1.0)

    assert srcad.value_and_grad(default_only, jit=jit)(2.0, 0) == (-1.0, 0.0)
    assert srcad.value_and_grad(default_only, jit=jit)(2.0, 3) == (4.0, 2.0)


def test_a_key_is_refused_by_name():
    def keyed(xs):
        return max(xs, key=abs)

    with pytest.raises(srcad.SrcadError, match="key"):
        srcad.grad(keyed, jit=False)([1.0, -2.0])


def pooled(x):
    return np.sum(np.max(x, axis=(1, 2)) ** 2) + np.sum(np.min(x, axis=(0, -1)))


def test_extrema_over_several_axes_forward_against_reverse_and_finite_differences():
    rng = np.random.default_rng(0)
    x, t = rng.standard_normal((2, 2, 2, 3)), rng.standard_normal((2, 2, 2, 3))
    _, tangent = srcad.jvp(pooled, (x,), (t,), jit=False)
    grad = srcad.grad(pooled, jit=False)(x)
    np.testing.assert_allclose(grad, fd_grad(pooled, (x,), 0), rtol=1e-6, atol=1e-8)
    assert tangent == pytest.approx(float(np.sum(grad * t)), rel=1e-12)

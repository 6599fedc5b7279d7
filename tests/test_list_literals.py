"""A list or tuple literal of scalars where NumPy or a builtin takes a sequence is ordinary
numeric Python: `np.sum([1, a * a, 2])`, `sum([...])`, `max([...])`, `np.array([...])`."""
import numpy as np
import pytest

import srcad
from tests.fd import fd_grad


def np_sum_of_list(a):
    return np.sum([1, a * a, 2])


def builtin_sum_of_list(a):
    return sum([1.0, a * a, 2.0 * a])


def builtin_max_of_list(a):
    return max([0.5, a * a, 0.1]) + min((a, 0.3 * a))


def np_max_of_array_literal(a):
    return np.max(np.array([0.1, a * a, 0.2]))


def np_mean_mixed_ints(a):
    return np.mean([a, 2.0 * a, 3])


def np_prod_of_tuple(a):
    return np.prod((a, 2.0, a))


def dot_of_lists(a):
    return np.dot([a, 1.0, 2.0], [3.0, a, -a])


CASES = [np_sum_of_list, builtin_sum_of_list, builtin_max_of_list, np_max_of_array_literal,
         np_mean_mixed_ints, np_prod_of_tuple, dot_of_lists]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_value_is_the_function_s_and_gradient_matches_fd(fn):
    value, grad = srcad.value_and_grad(fn, jit=False)(0.7)
    assert value == fn(0.7)
    assert grad == pytest.approx(fd_grad(fn, (0.7,), 0), rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("fn", [np_sum_of_list, builtin_max_of_list], ids=lambda f: f.__name__)
def test_compiled(fn):
    value, grad = srcad.value_and_grad(fn)(0.7)
    assert value == pytest.approx(fn(0.7), rel=1e-15)
    assert grad == pytest.approx(fd_grad(fn, (0.7,), 0), rel=1e-6, abs=1e-9)

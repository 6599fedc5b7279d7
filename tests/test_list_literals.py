"""A list or tuple literal of scalars where NumPy or a builtin takes a sequence is ordinary
numeric Python: `np.sum([1, a * a, 2])`, `sum([...])`, `max([...])`, `np.array([...])`."""
import warnings

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


def max_of_one_item(a):
    return max([a * a]) + min((np.sin(a),))


CASES = [max_of_one_item, np_sum_of_list, builtin_sum_of_list, builtin_max_of_list,
         np_max_of_array_literal, np_mean_mixed_ints, np_prod_of_tuple, dot_of_lists]


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


# A list literal as an index selects rows (an integer array index), where a tuple would
# pick one element: `a[[0, 2]]` is rows 0 and 2, `a[(0, 2)]` is a[0, 2].

_W = np.arange(1.0, 7.0).reshape(3, 2)


def rows_by_list(a, w):
    b = a[[0, 2]]
    return np.sum(b * w[:2])


def swap_rows_by_list(a, w, k):
    a[[0, k]] = a[[k, 0]]
    return np.sum(a * w)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, args", [
    (rows_by_list, (_W * 0.3 + 0.1, _W)),
    (swap_rows_by_list, (_W * 0.3 + 0.1, _W, 2)),
], ids=["read", "swap"])
def test_a_list_index_selects_rows(fn, args, jit):
    value, grad = srcad.value_and_grad(fn, jit=jit)(*[np.copy(a) for a in args])
    assert value == pytest.approx(fn(*[np.copy(a) for a in args]), rel=1e-15)
    np.testing.assert_allclose(grad, fd_grad(fn, args, 0), rtol=1e-6, atol=1e-9)


def rows_and_columns(a, k):
    return np.sum(a[[k, 0], 1:])


@pytest.mark.parametrize("jit", [False, True])
def test_a_list_index_beside_a_slice(jit):
    args = (_W * 0.3 + 0.1, 1)
    value, grad = srcad.value_and_grad(rows_and_columns, jit=jit)(*args)
    assert value == rows_and_columns(*args)
    np.testing.assert_allclose(grad, fd_grad(rows_and_columns, args, 0), rtol=1e-6, atol=1e-9)


# Rows written as literals inside a join are arrays, as NumPy reads them

def matrix_of_scalars(x, a):
    m = np.array([[a, 2.0 * a], [x[0], x[1] * a]])
    return np.sum(m @ m) + np.sum(np.array([[[a, 1.0]], [[x[2], a * a]]]) ** 2)


def rows_stacked(x, a):
    return np.sum(np.vstack([[a, x[0]], x[1:3]]) ** 3) + \
        np.sum(np.concatenate([[a, 2.0], x]) * np.arange(7.0)) + \
        np.sum(np.stack(([a, x[1]], (x[2], 1.0)), axis=1) * np.array([[1.0, 2.0], [3.0, 4.0]]))


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn", [matrix_of_scalars, rows_stacked])
def test_rows_written_as_literals(fn, jit):
    """Compiled without falling back to Python."""
    args = (np.array([0.3, -0.7, 1.1, 0.4, 0.9]), 0.6)
    with warnings.catch_warnings():
        warnings.simplefilter("error", srcad.SrcadWarning)
        value, grad = srcad.value_and_grad(fn, wrt=(0, 1), jit=jit)(*args)
    assert value == pytest.approx(fn(*args), rel=1e-14)
    for got, want in zip(grad, fd_grad(fn, args, (0, 1))):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)


def tuple_held_index(a, i):
    t = (2, i)
    return a[t] * 2.0 + np.sum(a[(0, 1)])


@pytest.mark.parametrize("jit", [False, True])
def test_a_tuple_in_a_variable_indexes_as_its_items(jit):
    args = (_W * 0.3 + 0.1, 1)
    value, grad = srcad.value_and_grad(tuple_held_index, jit=jit)(*args)
    assert value == tuple_held_index(*args)
    np.testing.assert_allclose(grad, fd_grad(tuple_held_index, args, 0), rtol=1e-6, atol=1e-9)

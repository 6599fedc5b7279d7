"""An integer array among the indices of a subscript, as real code indexes: columns
`x[:, idx]`, a row's elements `x[i, idx]`, rows of a slice `x[idx, 1:]`, on 2-d and 3-d
arrays, read and written, the indices repeating. Each gradient is checked against
central finite differences, and forward mode against reverse mode; so are pairs of
integer arrays, `x[r, c]`, read and written."""
import warnings

import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, assert_value_and_grad, fd_grad

IDX = np.array([2, 0, 2, -1])  # repeats, and counts from the end


def columns(x):
    return np.sum(np.sin(x[:, IDX]) * x[:, IDX])


def row_elements(x, i):
    return np.sum(x[i, IDX] ** 2) + x[i + 1, IDX[1]]


def rows_of_slice(x):
    return np.sum(np.cos(x[IDX, 1:]) * x[IDX, :-1])


def middle_axis(t):
    return np.sum(t[1, :, IDX] ** 3) + np.sum(np.tanh(t[:, IDX, 1:2]))


def chained(x):
    block = x[IDX][:, IDX]
    return np.sum(block * block.T)


def columns_written(x):
    y = x.copy()
    y[:, IDX] = np.sqrt(y[:, IDX] ** 2 + 1.0) * 2.0
    return np.sum(y * y * np.arange(y.shape[1]))


def column_set_to_number(x, a):
    y = x * 1.0
    y[:, IDX] = a
    y[1, IDX] = a * a
    return np.sum(np.exp(y))


def columns_added(x, v):
    y = x.copy()
    y[:, IDX] += v  # repeated indices add once, as NumPy buffers
    return np.sum(y ** 2)


def rows_swapped(m):
    m = m.copy()
    m[[0, 2], 1:] = m[[2, 0], 1:]
    return np.sum(m * np.arange(m.size).reshape(m.shape))


def in_a_loop(x):
    s = 0.0
    for k in range(3):
        s = s + np.sum(x[k, IDX] * x[:, IDX[k]])
    return s


def _x():
    return np.random.default_rng(0).uniform(0.2, 1.1, (4, 5))


CASES = [
    (columns, lambda: (_x(),), 0),
    (row_elements, lambda: (_x(), 1), 0),
    (rows_of_slice, lambda: (_x(),), 0),
    (middle_axis, lambda: (np.random.default_rng(1).uniform(0.1, 1.0, (3, 4, 5)),), 0),
    (chained, lambda: (_x()[:, :4],), 0),
    (columns_written, lambda: (_x(),), 0),
    (column_set_to_number, lambda: (_x(), 0.7), (0, 1)),
    (columns_added, lambda: (_x(), np.linspace(0.1, 0.4, 4)), (0, 1)),
    (rows_swapped, lambda: (_x(),), 0),
    (in_a_loop, lambda: (_x(),), 0),
]


@pytest.mark.parametrize("fn, make, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_against_finite_differences(fn, make, wrt):
    assert_value_and_grad(fn, make, wrt, jit=False)


@pytest.mark.parametrize("fn, make, wrt", [CASES[0], CASES[5], CASES[7], CASES[9]],
                         ids=["columns", "columns_written", "columns_added", "in_a_loop"])
def test_compiled(fn, make, wrt):
    with warnings.catch_warnings():
        warnings.simplefilter("error", srcad.SrcadWarning)
        assert_value_and_grad(fn, make, wrt, jit=True)


def test_caller_arrays_untouched():
    x = _x()
    before = x.copy()
    grad = srcad.grad(columns_written, jit=False)(x)
    np.testing.assert_array_equal(x, before)
    assert_grad_close(grad, fd_grad(columns_written, (before,), 0))


def pairs(x):
    r = np.array([0, 1, 2, 2])
    return np.sum(x[r, IDX] ** 2) + np.sum(np.cos(x[r[:, None], IDX[:3]]))


def pairs_3d(t):
    i = np.array([0, 2, -1])
    return np.sum(t[i, IDX[:3]] * t[i, IDX[1:], :] ** 2)


def pairs_written(x):
    y = x * 1.0
    y[IDX[:3], np.array([1, 1, 4])] = np.sin(y[IDX[:3], np.array([0, 2, 3])])
    y[IDX[:2], IDX[2:]] += y[0, 0] * 2.0
    return np.sum(y * y * np.arange(y.size).reshape(y.shape))


def upper_triangle(x):
    d = np.sqrt((x[:, None, 0] - x[None, :, 0]) ** 2 + (x[:, None, 1] - x[None, :, 1]) ** 2
                + 1e-3)
    i, j = np.triu_indices(x.shape[0], 1)
    return np.sum(1.0 / d[i, j])


PAIRS = [
    (pairs, lambda: (_x(),), 0),
    (pairs_3d, lambda: (np.random.default_rng(1).uniform(0.1, 1.0, (3, 5, 2)),), 0),
    (pairs_written, lambda: (_x(),), 0),
    (upper_triangle, lambda: (_x(),), 0),
]


@pytest.mark.parametrize("fn, make, wrt", PAIRS, ids=[c[0].__name__ for c in PAIRS])
@pytest.mark.parametrize("jit", [False, True])
def test_pairs_of_integer_arrays(fn, make, wrt, jit):
    """`x[r, c]` picks the elements at `(r[k], c[k])`, the arrays broadcast together;
    compiled, without falling back to Python."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", srcad.SrcadWarning)
        assert_value_and_grad(fn, make, wrt, jit=jit)


DUALS = [(c[0], c[1]) for c in CASES[:6] + PAIRS]


@pytest.mark.parametrize("fn, make", DUALS, ids=[c[0].__name__ for c in DUALS])
def test_forward_against_reverse(fn, make):
    """<J t, s> from jvp equals <t, J^T s> from vjp."""
    args = make()
    t = np.random.default_rng(2).standard_normal(args[0].shape)
    _, tangent = srcad.jvp(fn, args, (t,), wrt=0, jit=False)
    _, pullback = srcad.vjp(fn, *args, jit=False)
    assert tangent == pytest.approx(float(np.sum(pullback(1.0) * t)), rel=1e-10)


def arrays_apart(x):
    return np.sum(x[IDX[:2], 1:, IDX[:2]])


def pairs_out_of_bounds(x):
    return np.sum(x[np.array([0, 9]), IDX[:2]])


def test_arrays_apart_refused():
    t = np.ones((4, 5, 5))
    with pytest.raises(srcad.SrcadError, match="integer arrays in a subscript beside") as info:
        srcad.grad(arrays_apart, jit=False)(t)
    assert "`x[r][:, c]`" in str(info.value)


@pytest.mark.parametrize("jit", [False, True])
def test_pairs_out_of_bounds_raise(jit):
    with pytest.raises(IndexError):
        srcad.grad(pairs_out_of_bounds, jit=jit)(_x())

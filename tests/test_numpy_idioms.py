"""NumPy as scientific code writes it: dtypes taken from arrays (`dtype=x.dtype`,
`np.zeros(n, x.dtype)`, `x.astype(...)`) and reductions with `keepdims=` and tuples of
axes, each checked against central finite differences, compiled and not."""
import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, fd_grad


def empty_like_its_argument(x):
    y = np.empty(x.shape[0], dtype=x.dtype)
    for i in range(x.shape[0]):
        y[i] = x[i] * x[i]
    c = np.zeros((2, 2), dtype=x.dtype)
    c[0, 0] = np.sum(y)
    return np.sum(c) + np.sum(np.ones_like(x, dtype=x.dtype) * x)


def positional_dtype_of_an_index(x, idx):
    z = np.zeros(idx.shape[0], idx.dtype)
    return np.sum(x[idx + z] ** 2)


def casts(x, n):
    k = np.arange(n).astype(np.float64)
    y = x.astype(x.dtype) * k[:x.shape[0]]
    z = np.zeros(3, np.float64) + x.astype(float)
    return np.sum(y * y) + np.sum(z) + np.sum(x.astype(np.int64))


def softmax_loss(x, w):
    z = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(z)
    p = e / np.sum(e, axis=1, keepdims=True)
    return np.sum(p * w)


def standardize(x):
    m = x.mean(axis=0, keepdims=True)
    s = np.std(x, axis=0, keepdims=True)
    t = np.sum(x, keepdims=True)
    u = np.sum(x * x, axis=(0, 1), keepdims=True) + np.min(x, axis=1, keepdims=False)[0]
    return np.sum(((x - m) / s) ** 3) + np.sum(t * x) + np.sum(u)


_X = np.array([0.5, 1.5, -2.3])
_M = np.array([[0.3, 1.2, -0.5], [0.8, -0.1, 0.45]])
CASES = [
    (softmax_loss, lambda: (_M.copy(), np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]]))),
    (standardize, lambda: (_M.copy(),)),
    (empty_like_its_argument, lambda: (_X.copy(),)),
    (positional_dtype_of_an_index, lambda: (_X.copy(), np.array([0, 2]))),
    (casts, lambda: (_X.copy(), 5)),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, make", CASES, ids=[c[0].__name__ for c in CASES])
def test_dtypes_from_arrays(fn, make, jit):
    value, grad = srcad.value_and_grad(fn, jit=jit)(*make())
    assert value == fn(*make())
    assert_grad_close(grad, fd_grad(fn, make(), 0))


def test_an_int_array_made_like_an_int_array_indexes():
    # the kind follows the array's dtype: an int index stays an int index
    assert srcad.grad(positional_dtype_of_an_index, jit=False)(_X, np.array([2, 2])).tolist() \
        == [0.0, 0.0, 4 * -2.3]


def keepdims_from_a_variable(x, keep):
    return np.sum(np.max(x, axis=0, keepdims=keep))


def test_keepdims_must_be_written_as_true_or_false():
    with pytest.raises(srcad.SrcadError, match="keepdims=` must be True or False"):
        srcad.grad(keepdims_from_a_variable, jit=False)(_M, True)

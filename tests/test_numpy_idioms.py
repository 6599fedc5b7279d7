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


def ndarray_buffers(x):
    n = x.shape[0]
    y = np.ndarray(n, dtype=np.float64)
    z = np.ndarray((n, 2))
    for i in range(n):
        y[i] = x[i] ** 2
        z[i, 0] = y[i]
        z[i, 1] = x[i]
    return np.sum(y) + np.sum(z * z)


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
    (ndarray_buffers, lambda: (_X.copy(),)),
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


def covariance_of_features(data, w):
    c = np.cov(data, rowvar=False)
    r = np.corrcoef(data.T)
    return np.sum(c * w) + np.sum(r * w * w) + np.cov(data[:, 0], bias=True)


def standardized_spread(x):
    c = np.cov(x, ddof=0)
    return np.sum(np.sqrt(np.diag(c))) + np.corrcoef(x)[0, 1]


def radial_profile(r, data):
    counts = np.histogram(r, 4)[0]
    sums = np.histogram(r, 4, weights=data)[0]
    n, edges = np.histogram(r * 2.0, bins=3)
    mids = 0.5 * (edges[1:] + edges[:-1])
    return np.sum(sums / (counts + 1.0)) + np.sum(n * mids ** 2) + \
        np.sum(np.histogram(r, 3, range=(0.0, 1.0))[1])


_DATA = np.array([[0.3, 1.2, -0.5], [0.8, -0.1, 0.45], [1.3, 0.2, -0.7], [0.1, 0.9, 0.6]])
STATISTICS = [
    (covariance_of_features, lambda: (_DATA.copy(), np.cos(np.arange(9.0)).reshape(3, 3))),
    (standardized_spread, lambda: (_DATA.T.copy(),)),
    (radial_profile, lambda: (np.array([0.1, 0.52, 0.33, 0.9, 0.72, 0.45]),
                              np.array([1.0, 2.0, -0.5, 0.3, 1.2, 0.8]))),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, make", STATISTICS, ids=[c[0].__name__ for c in STATISTICS])
def test_statistics(fn, make, jit):
    value, grad = srcad.value_and_grad(fn, jit=jit)(*make())
    assert value == pytest.approx(fn(*make()), rel=1e-12)
    assert_grad_close(grad, fd_grad(fn, make(), 0))


def cov_of_two(x):
    return np.sum(np.cov(x, x))


def cov_of_one(x):
    return np.sum(np.cov(x))


def dot_of_a_stack(a):
    return np.sum(np.dot(a, a[0].T))


def test_cov_of_two_arrays_and_of_one_variable_in_a_matrix_are_refused():
    with pytest.raises(srcad.SrcadError, match="of two arrays"):
        srcad.grad(cov_of_two, jit=False)(_X)
    with pytest.raises(ValueError, match="holding one variable"):
        srcad.grad(cov_of_one, jit=False)(_X[None, :])


@pytest.mark.parametrize("shapes", [((2,), (3, 2, 2)), ((2, 3, 4), (4, 5)),
                                    ((2, 3, 4), (2, 4, 5)), ((3, 4), (2, 4, 5)),
                                    ((2, 3, 4), (4,)), ((2, 1, 3, 4), (5, 4, 2))],
                         ids=str)
def test_stacked_matrix_products(shapes):
    # `@` broadcasts over leading axes; each operand's adjoint sums back to its shape
    def f(a, b):
        return np.sum(np.sin(a @ b)) + np.sum(np.cos(np.matmul(a, b)))

    rng = np.random.default_rng(len(shapes[0]) * 10 + len(shapes[1]))
    a, b = rng.normal(size=shapes[0]), rng.normal(size=shapes[1])
    grad = srcad.grad(f, wrt=(0, 1), jit=False)(a, b)
    assert_grad_close(grad, fd_grad(f, (a, b), (0, 1)))
    t = (rng.normal(size=a.shape), rng.normal(size=b.shape))
    _, tangent = srcad.jvp(f, (a, b), t, jit=False)
    assert tangent == pytest.approx(np.sum(grad[0] * t[0]) + np.sum(grad[1] * t[1]))


def test_max_over_a_tuple_of_axes():
    x = np.sin(np.arange(24.0) * 1.7).reshape(2, 3, 4)

    def f(x):
        return np.sum(np.max(x, axis=(0, 1)) * np.arange(4.0)) + \
            np.sum(np.min(x, axis=(2, 0)) ** 2)

    assert_grad_close(srcad.grad(f, jit=False)(x), fd_grad(f, (x,), 0))


def test_np_dot_of_a_stack_is_refused_with_the_matmul_spelling():
    with pytest.raises(srcad.SrcadError, match="write `x @ y`"):
        srcad.grad(dot_of_a_stack, jit=False)(np.ones((2, 3, 3)))


def weighted_counts(r, w, edges):
    return np.sum(np.histogram(r, 5)[0] * np.arange(5.0)) + \
        np.sum(np.histogram(r, edges, weights=w)[0] * np.arange(1.0, 4.0))


@pytest.mark.parametrize("jit", [False, True])
def test_histogram_counts_values_on_edges_as_numpy_does(jit):
    r = np.array([0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 0.4])  # on the edges, the last one included
    w, edges = np.arange(1.0, 8.0), np.array([0.0, 0.4, 0.41, 1.0])
    value, grad = srcad.value_and_grad(weighted_counts, wrt=1, jit=jit)(r, w, edges)
    assert value == weighted_counts(r, w, edges)
    bins = np.searchsorted(edges, r, side="right") - 1
    bins[r == edges[-1]] = len(edges) - 2
    assert grad.tolist() == (bins + 1.0).tolist()  # each weight's gradient: its bin's factor


def smoothed(a, v):
    same = np.convolve(a, v, mode="same")
    return np.sum(same ** 2) + np.sum(np.convolve(a, v, "valid")) + \
        np.sum(np.searchsorted(a, v, side="right") * a[:2])


@pytest.mark.parametrize("jit", [False, True])
def test_string_options_of_calls(jit):
    # `mode="same"`, `side="right"`: a string is an option its rule checks
    make = lambda: (np.array([0.3, 1.2, 1.5, 2.0]), np.array([0.5, -0.2]))  # noqa: E731
    grad = srcad.grad(smoothed, wrt=(0, 1), jit=jit)(*make())
    assert_grad_close(grad, fd_grad(smoothed, make(), (0, 1)))

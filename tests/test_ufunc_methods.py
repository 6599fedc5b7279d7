"""NumPy's ufunc methods and output arguments as scientific code writes them:
`np.subtract.outer` for pairwise differences, `np.add.reduce`/`np.maximum.reduce` and
`np.add.accumulate`/`np.multiply.accumulate` (np.sum, np.max, np.cumsum, np.cumprod along
axis 0 unless given), and `out=` (keyword or positional) as an assignment into the array.
Each is checked against central finite differences, compiled and not."""
import numpy as np
import pytest

import srcad
from tests.fd import assert_value_and_grad


def gaussian_kernel_energy(x, w):
    d2 = np.subtract.outer(x, x) ** 2
    k = np.exp(-d2 / 0.5)
    return w @ k @ w


def pairwise_inverse_distances(pos, q):
    e = 0.0
    for a in range(pos.shape[1]):
        d = np.subtract.outer(pos[:, a], pos[:, a])
        e = e + np.sum(np.multiply.outer(q, q) * d * d)
    return e


def min_plus_relaxation(path):
    for k in range(path.shape[0]):
        np.minimum(path, np.add.outer(path[:, k], path[k, :]), out=path)
    return np.sum(path * path)


def log_sum_exp_rows(x):
    m = np.maximum.reduce(x, axis=1)
    return np.sum(m + np.log(np.add.reduce(np.exp(x - m[:, None]), 1)))


def cumulative_trapezoid(y, dx):
    areas = 0.5 * dx * (y[1:] + y[:-1])
    return np.sum(np.add.accumulate(areas) ** 2) + np.sum(np.cumsum(y[None, :] * y[:, None],
                                                                   axis=1))


def survival(h):
    s = np.multiply.accumulate(1.0 - h, axis=0)
    return np.sum(s * np.arange(1.0, h.shape[0] + 1.0)[:, None])


def decaying_field(u, rate, n):
    v = u.copy()
    for _ in range(n):
        np.multiply(v, 1.0 - rate, v)
        np.add(v, rate * np.roll(v, 1), out=v)
    return np.sum(v * v)


def squares_in_place(z, x):
    np.multiply(z, z, z)
    y = np.add(x, 1.0, out=z) * 2.0
    np.exp(y, out=y)
    return np.sum(y)


_V = np.array([0.3, -0.8, 1.1, 0.45])
_M = np.array([[0.3, 1.2, -0.5], [0.8, -0.1, 0.45], [1.3, 0.2, -0.7]])
CASES = [
    (gaussian_kernel_energy, lambda: (_V.copy(), np.array([1.0, -0.5, 0.3, 2.0])), (0, 1)),
    (pairwise_inverse_distances, lambda: (_M.copy(), np.array([1.0, -2.0, 0.5])), (0, 1)),
    (min_plus_relaxation, lambda: (np.abs(_M) + np.eye(3) * 0.1,), 0),
    (log_sum_exp_rows, lambda: (_M.copy(),), 0),
    (cumulative_trapezoid, lambda: (_V.copy(), 0.3), (0, 1)),
    (survival, lambda: (np.abs(_M) * 0.5,), 0),
    (decaying_field, lambda: (_V.copy(), 0.2, 3), (0, 1)),
    (squares_in_place, lambda: (_V.copy(), np.array([0.1, 0.2, -0.3, 0.4])), (0, 1)),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, make, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradients_match_finite_differences(fn, make, wrt, jit):
    assert_value_and_grad(fn, make, wrt, jit, rel=1e-12)


def into_a_slice(a, b, c):
    np.add(a, b, out=c[1:])
    return np.sum(c)


def reads_out_elsewhere(a, b, c):
    return np.sum(c * 2.0 + np.add(a, b, out=c))


def two_outputs(a):
    q, r = np.divmod(a, 0.5)
    return np.sum(q + r)


def maximum_accumulate(a):
    return np.sum(np.maximum.accumulate(a))


@pytest.mark.parametrize("fn, words", [
    (into_a_slice, ["`np.add(..., out=...)` into anything but an array's name",
                    "c[1:] = np.add(a, b)"]),
    (reads_out_elsewhere, ["in a statement that also reads `c`", "statement of its own"]),
    (maximum_accumulate, ["no derivative rule for `np.maximum.accumulate`"]),
], ids=["slice", "reads-out", "no-rule"])
def test_refusals_name_the_call_and_the_fix(fn, words):
    args = (_V.copy(), _V + 1.0, np.zeros(4))[:fn.__code__.co_argcount]
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(fn, jit=False)(*args)
    message = str(info.value)
    assert "test_ufunc_methods.py" in message
    for w in words:
        assert w in message, message

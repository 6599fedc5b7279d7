"""`for` loops over `enumerate(...)` and `zip(...)`, as Python writes them: over arrays,
lists and ranges, nested, with `start=`, stopping at the shortest sequence; each gradient
against central finite differences, compiled and not."""
import numpy as np
import pytest

import srcad
from tests.fd import assert_value_and_grad


def weighted_by_position(x):
    s = 0.0
    for i, v in enumerate(x):
        s += v * v * i
    return s


def dot_by_zip(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s += a * b
    return s


def shortest_wins(x, y):
    s = 0.0
    for a, b in zip(x, y[1:]):
        s += np.sin(a) * b
    return s


def enumerate_a_zip_from_one(x, y):
    s = 0.0
    for k, (a, b) in enumerate(zip(x, y), 1):
        s += k * a * b
    return s


def zip_with_a_range(x, n):
    s = 0.0
    for j, t in zip(range(2, n, 2), x):
        s += j * t * t
    return s


def zip_with_a_falling_range(x, n):
    s = 0.0
    for j, t in zip(range(n, 0, -3), x):
        s += j * np.tanh(t)
    return s


def sum_of_an_enumerate(x):
    return sum(i * v * v for i, v in enumerate(x))


def rows_of_a_matrix(m, w):
    s = 0.0
    for i, row in enumerate(m):
        s += np.sum(row * w) * (i + 1)
    return s


def rebinds_its_sequence(x):
    s = 0.0
    for i, v in enumerate(x):
        s += v * i
        x = x * 2.0
    return s + np.sum(x)


def over_a_list(xs, w):
    s = 0.0
    for i, v in enumerate(xs, start=2):
        s += v * w ** i
    return s


_X = np.array([0.3, -1.2, 0.8, 1.5])
_Y = np.array([1.1, 0.4, -0.7])
CASES = [
    (weighted_by_position, lambda: (_X.copy(),), 0),
    (dot_by_zip, lambda: (_X[:3].copy(), _Y.copy()), (0, 1)),
    (shortest_wins, lambda: (_X.copy(), _Y.copy()), (0, 1)),
    (enumerate_a_zip_from_one, lambda: (_X.copy(), _Y.copy()), (0, 1)),
    (zip_with_a_range, lambda: (_X.copy(), 7), 0),
    *[(zip_with_a_falling_range, (lambda n=n: (_X.copy(), n)), 0) for n in (1, 7, 11)],
    (sum_of_an_enumerate, lambda: (_X.copy(),), 0),
    (rows_of_a_matrix, lambda: (np.arange(6.0).reshape(3, 2) * 0.3, _Y[:2].copy()), (0, 1)),
    (rebinds_its_sequence, lambda: (_X.copy(),), 0),
    (over_a_list, lambda: ([0.5, -1.0, 2.0], 0.7), (0, 1)),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, make, wrt", CASES, ids=[f"{c[0].__name__}-{k}"
                                                      for k, c in enumerate(CASES)])
def test_loops_over_enumerate_and_zip(fn, make, wrt, jit):
    assert_value_and_grad(fn, make, wrt, jit, rel=1e-14)


def zip_strict(x, y):
    s = 0.0
    for a, b in zip(x, y, strict=True):
        s += a * b
    return s


def enumerate_unpacked_wrong(x):
    s = 0.0
    for t in enumerate(x):
        s += t[1]
    return s


@pytest.mark.parametrize("fn, words", [
    (zip_strict, "strict"), (enumerate_unpacked_wrong, "unpacked as `i, v`"),
], ids=["zip-strict", "enumerate-one-name"])
def test_forms_not_taken_are_refused_at_the_loop(fn, words):
    with pytest.raises(srcad.SrcadError, match=words) as info:
        srcad.grad(fn, jit=False)(_X.copy(), _X.copy()) if fn is zip_strict else \
            srcad.grad(fn, jit=False)(_X.copy())
    assert "test_iterators.py" in str(info.value) and "for " in str(info.value)

"""Lists of floats (and lists of such lists) as arguments: srcad computes with them as
arrays, returns their gradient as a list of the same shape, and refuses what a list means
differently from an array (`+` joins, `*` repeats, `==` compares whole lists)."""
import math

import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, assert_value_and_grad, fd_grad


def mean_square(xs):
    s = 0.0
    for v in xs:
        s = s + v * v
    return s / len(xs)


def horner(coeffs, x):
    y = 0.0
    for i in range(len(coeffs)):
        y = y * x + coeffs[i]
    return y


def grid_energy(m, w):
    total = 0.0
    for i in range(len(m)):
        for j in range(len(m[i])):
            total = total + math.tanh(w * m[i][j])
    return total


def through_numpy(xs, ws):
    a = np.array(xs)
    return np.sum(a * np.array(ws)) + sum(xs) / len(xs)


def _square_at(row, k):
    return row[k] * row[k]


def through_helper(xs):
    return _square_at(xs, 0) + _square_at(xs, 2)


def sliced(xs):
    tail = xs[1:]
    return sum(tail) * xs[0]


def writes_into_it(xs, w):
    for i in range(len(xs)):
        xs[i] = xs[i] * w
    return sum(xs) * xs[0]


CASES = [
    (mean_square, lambda: ([1.0, 2.0, 3.5],), 0),
    (horner, lambda: ([1.0, -2.0, 0.5], 0.3), (0, 1)),
    (grid_energy, lambda: ([[0.1, 0.2, -0.3], [0.3, 0.4, 0.05]], 0.7), (0, 1)),
    (through_numpy, lambda: ([0.1, 0.5, 0.2], [1.0, -1.0, 2.0]), (0, 1)),
    (through_helper, lambda: ([0.1, 0.5, 0.2],), 0),
    (sliced, lambda: ([0.3, 0.5, 0.2, -0.4],), 0),
    (writes_into_it, lambda: ([0.3, 0.5, 0.2], 1.5), (0, 1)),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, make, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_of_a_list_is_a_list(fn, make, wrt, jit):
    assert_value_and_grad(fn, make, wrt, jit, rel=1e-13)


def test_the_callers_list_is_untouched():
    xs = [0.3, 0.5, 0.2]
    srcad.grad(writes_into_it, jit=False)(xs, 1.5)
    assert xs == [0.3, 0.5, 0.2]


@pytest.mark.parametrize("jit", [False, True])
def test_vjp_and_jvp_take_lists(jit):
    xs = [[0.1, 0.2, -0.3], [0.3, 0.4, 0.05]]
    out, pullback = srcad.vjp(grid_energy, xs, 0.7, wrt=(0, 1), jit=jit)
    d_xs, d_w = pullback(2.0)
    want_xs, want_w = fd_grad(grid_energy, (xs, 0.7), (0, 1))
    assert_grad_close(d_xs, [[2.0 * v for v in row] for row in want_xs])
    assert d_w == pytest.approx(2.0 * want_w, rel=1e-6)
    tangent = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    _, t_out = srcad.jvp(grid_energy, (xs, 0.7), (tangent,), wrt=(0,), jit=jit)
    assert t_out == pytest.approx(want_xs[0][0] + want_xs[1][2], rel=1e-6)


def joins(xs):
    ys = xs + xs
    return ys[3]


def repeats(xs):
    return np.sum(np.array(xs * 2))


def compares(xs, ys):
    if xs == ys:
        return 1.0
    return 2.0


def negates(xs):
    return np.sum(-xs)


def tuple_index(m):
    return m[0, 1]


def list_method(xs):
    return xs.sum()


def joins_a_slice(xs):
    head = xs[:1]
    return np.sum(np.array(head + xs))


def joins_after_a_branch(xs, c):
    ys = np.zeros(2)
    if c > 0.0:
        ys = xs
    zs = ys + ys
    return zs[0]


def writes_floats_into_ints(ns, x):
    ns[0] = x
    return x * ns[0]


@pytest.mark.parametrize("fn, args, words", [
    (joins, ([1.0, 2.0],), "`+` joins lists"),
    (repeats, ([1.0, 2.0],), "`*` repeats a list"),
    (compares, ([1.0], [1.0]), "compares them whole"),
    (negates, ([1.0],), "unary `-`"),
    (tuple_index, ([[1.0, 2.0]],), "one integer or slice"),
    (list_method, ([1.0],), "no method `.sum()`"),
    (joins_a_slice, ([1.0, 2.0],), "`head` is a list"),
    (joins_after_a_branch, ([1.0, 2.0], 1.0), "`ys` is a list"),
    (writes_floats_into_ints, ([1, 2], 0.5), "list of ints"),
])
def test_what_lists_do_differently_is_refused(fn, args, words):
    wrt = len(args) - 1 if fn is writes_floats_into_ints else 0
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(fn, wrt=wrt, jit=False)(*args)
    assert words in str(info.value)
    assert "np.array" in str(info.value)


def test_a_ragged_list_is_refused_by_name():
    with pytest.raises(srcad.SrcadError, match="argument `xs` is a list that is not"):
        srcad.grad(mean_square, jit=False)([1.0, [2.0, 3.0]])

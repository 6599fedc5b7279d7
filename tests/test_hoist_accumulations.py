"""HoistAccumulations: additions into one array element from every iteration of a loop
are summed in a local, and the gradients stay those of finite differences, also where the
loop adds into the same element at another index too (`j` running over `i`), across
`break` and branches, and in a loop nest of three. Where the array is read in the loop,
its additions stay."""
import numpy as np
import pytest

import srcad
from benchmarks.workloads import lennard_jones
from tests.fd import assert_value_and_grad


def all_pairs(x, w):
    """`j` runs over every index, `i` too: d_x[i] and d_x[j] are one element once per i."""
    n = x.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(n):
            s += w[i, j] * np.sin(x[i] - 0.5 * x[j]) * x[j]
    return s


def matmul_loops(a, b):
    n, m = a.shape
    k = b.shape[1]
    c = np.zeros((n, k))
    for i in range(n):
        for p in range(k):
            for j in range(m):
                c[i, p] += a[i, j] * b[j, p]
    return np.sum(c * c)


def with_break_and_branch(x, t):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            if x[j] > t:
                s += x[i] * x[j] * 2.0
            else:
                s += x[i] - x[j] ** 2
            if j > i + 2:
                break
    return s


def _pos():
    g = np.arange(3.0)
    lattice = np.array([[a, b, c] for a in g for b in g for c in g])[:10]
    return lattice * 1.1 + np.random.default_rng(0).uniform(-0.1, 0.1, (10, 3))


CASES = [
    (lennard_jones, lambda: (_pos(),), 0),
    (all_pairs, lambda: (np.linspace(0.1, 1.3, 6),
                         np.random.default_rng(1).uniform(size=(6, 6))), (0, 1)),
    (matmul_loops, lambda: (np.random.default_rng(2).uniform(size=(3, 4)),
                            np.random.default_rng(3).uniform(size=(4, 2))), (0, 1)),
    (with_break_and_branch, lambda: (np.linspace(-1.0, 1.0, 7), 0.1), 0),
]


@pytest.mark.parametrize("fn, make, wrt", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("jit", [False, True])
def test_gradients_against_finite_differences(fn, make, wrt, jit):
    assert_value_and_grad(fn, make, wrt, jit=jit)


def _reverse_sweep(fn, args):
    g = srcad.value_and_grad(fn, jit=False)
    g(*args)
    text = srcad.source(g)
    return text[text.index(f"def {fn.__name__}_rev"):]


def test_pair_loop_sums_the_outer_element_in_a_local():
    rev = _reverse_sweep(lennard_jones, (_pos(),))
    assert "d_pos[i, 0] += acc" in rev and "d_pos[j, 0] += " in rev


def read_in_the_loop(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            out[i] += x[j] * out[j] * 0.1 + x[i] * x[j]
    return np.sum(out)


def test_an_array_read_in_the_loop_is_not_hoisted():
    """`out`'s adjoint is read in the loop and stays; `x`'s is only added into."""
    x = np.linspace(0.2, 1.0, 5)
    rev = _reverse_sweep(read_in_the_loop, (x,))
    assert "d_out1[i] += d_tmp" in rev and "d_x[i] += acc" in rev
    assert_value_and_grad(read_in_the_loop, lambda: (x.copy(),), 0, jit=False)

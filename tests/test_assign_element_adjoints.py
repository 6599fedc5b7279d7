"""AssignElementAdjoints: a loop that reads one element of a vector per iteration, over
all of it, assigns that element's adjoint instead of zeroing the vector and adding.
Gradients against finite differences, for loops it rewrites and loops it must leave
alone (a range short of the length, an element read twice, a branch around the read, a
`break`, a nested loop), compiled and not."""
import math

import numpy as np
import pytest

import srcad
from benchmarks.workloads import huber
from tests.fd import assert_value_and_grad


def recurrence(w, x):
    h = 0.0
    loss = 0.0
    for i in range(len(x)):
        h = math.tanh(w * h + x[i])
        loss += h * h
    return loss


def short_range(x, y):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += x[i] * y[i] + x[i + 1]
    return s


def read_as_one(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.sin(x[i]) * x[i]
    return s


def read_on_a_branch(x, c):
    s = 0.0
    for i in range(x.shape[0]):
        if c > 0.0:
            s += x[i] * x[i]
    return s


def stops_early(x):
    s = 0.0
    for i in range(x.shape[0]):
        if s > 1.5:
            break
        s += x[i] * x[i]
    return s


def nested(x):
    s = 0.0
    for k in range(2):
        for i in range(x.shape[0]):
            s += math.cos(x[i] + k)
    return s


def written_first(x, y):
    x[0] = y[1] * 2.0
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * y[i]
    return s


def _data():
    rng = np.random.default_rng(3)
    return rng.standard_normal(9), rng.standard_normal(9), 0.8


# (function, arguments, wrt, what its reverse sweep makes of the adjoints: the lines
# that must be there)
CASES = [
    (huber, _data, (0, 1, 2), ("d_pred = np.empty_like(pred)", "d_pred[i] = d_tmp4",
                               "d_target = np.zeros_like(target)")),  # n is pred's length
    (recurrence, lambda: (0.7, np.linspace(-1.0, 1.0, 7)), (0, 1),
     ("d_x = np.empty_like(x)",)),
    (short_range, lambda: (np.linspace(-1.0, 1.0, 6), np.linspace(0.5, 2.0, 6)), (0, 1),
     ("d_x = np.zeros_like(x)", "d_y = np.zeros_like(y)")),
    (read_as_one, lambda: (np.linspace(-1.0, 1.0, 6),), 0, ("d_x = np.empty_like(x)",)),
    (read_on_a_branch, lambda: (np.linspace(-1.0, 1.0, 6), 0.5), 0,
     ("d_x = np.zeros_like(x)",)),
    (read_on_a_branch, lambda: (np.linspace(-1.0, 1.0, 6), -0.5), 0, ()),
    (stops_early, lambda: (np.linspace(0.2, 1.0, 6),), 0, ("d_x = np.zeros_like(x)",)),
    (nested, lambda: (np.linspace(-1.0, 1.0, 5),), 0, ("d_x = np.zeros_like(x)",)),
    (written_first, lambda: (np.linspace(-1.0, 1.0, 5), np.linspace(0.5, 2.0, 5)), (0, 1),
     ()),
]
IDS = [f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)]


@pytest.mark.parametrize("fn, make, wrt, lines", CASES, ids=IDS)
@pytest.mark.parametrize("jit", [False, True])
def test_gradient_against_finite_differences(fn, make, wrt, lines, jit):
    assert_value_and_grad(fn, make, wrt, jit=jit, rel=0.0)


@pytest.mark.parametrize("fn, make, wrt, lines", [c for c in CASES if c[3]],
                         ids=[i for i, c in zip(IDS, CASES) if c[3]])
def test_which_loops_assign(fn, make, wrt, lines):
    g = srcad.value_and_grad(fn, wrt=wrt, jit=False)
    g(*make())
    rev = srcad.source(g).split(f"def {fn.__name__}_rev", 1)[1].split("\ndef ", 1)[0]
    assert all(f"    {line}\n" in rev for line in lines), rev


@pytest.mark.parametrize("jit", [False, True])
def test_an_empty_vector_gives_an_empty_gradient(jit):
    value, (gw, gx) = srcad.value_and_grad(recurrence, wrt=(0, 1), jit=jit)(0.7, np.zeros(0))
    assert value == 0.0 and gw == 0.0 and gx.shape == (0,)

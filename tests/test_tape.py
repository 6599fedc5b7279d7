"""What the tape holds: for loops, only the state the reverse sweep cannot get back.

The tape's size is measured on the tuple the forward sweep returns, at two trip counts;
the difference per iteration is what each iteration saves.
"""
import numpy as np
import pytest

import srcad
from tests.fd import fd_grad
from tests.test_workloads import rk4_lorenz, tanh_rnn


def tape_bytes(tape):
    if isinstance(tape, np.ndarray):
        return tape.nbytes
    if isinstance(tape, (tuple, list)):
        return sum(tape_bytes(t) for t in tape)
    if hasattr(tape, "__len__") and not isinstance(tape, str):  # a typed List
        return sum(tape_bytes(t) for t in tape)
    return 0


def per_iteration(g, make_args, n1=200, n2=400):
    sizes = []
    for n in (n1, n2):
        args = make_args(n)
        g(*args)
        _, tape = g.last.forward(args)
        sizes.append(tape_bytes(tape))
    return (sizes[1] - sizes[0]) / (n2 - n1)


@pytest.mark.parametrize("jit", [False, True])
def test_tanh_recurrence_saves_its_state_only(jit):
    # W1: h carries from one iteration to the next; h ** 2 is recomputed
    g = srcad.grad(tanh_rnn, wrt=(0, 1), jit=jit)
    assert per_iteration(g, lambda n: (0.7, np.linspace(-1.0, 1.0, n))) == 8


@pytest.mark.parametrize("jit", [False, True])
def test_rk4_steps_are_replayed_from_the_saved_state(jit):
    # W6: each step saves (x, y, z); the reverse sweep replays the step from them,
    # stage values and the helper's tapes included
    g = srcad.grad(rk4_lorenz, wrt=(0, 1, 2, 3, 4, 5), jit=jit)
    assert per_iteration(g, lambda n: (1.0, 1.0, 1.0, 10.0, 28.0, 8.0 / 3.0, n)) == 24
    args = (1.0, 1.2, 0.9, 10.0, 28.0, 8.0 / 3.0, 60)
    got = g(*args)
    want = fd_grad(rk4_lorenz, args, (0, 1, 2, 3, 4, 5))
    assert np.allclose(got, want, rtol=1e-6, atol=1e-6)


def branchy_state(x, c):
    """A replayed loop with a branch on the carried state and an array temporary."""
    s = 0.0
    v = 0.3
    for i in range(x.shape[0]):
        a = x[i] * v + c
        b = np.sin(a) * c
        d = a * b - v
        if d > 0.0:
            v = np.tanh(d) + 0.1 * v
        else:
            v = 0.5 * v - 0.2 * np.cos(b)
        w = np.array([a, b, d]) * v
        s += np.sum(w * w) + a * b * d
    return s + v


@pytest.mark.parametrize("jit", [False, True])
def test_replay_with_branches_and_array_temporaries(jit):
    x = np.linspace(-0.9, 1.1, 17)
    g = srcad.grad(branchy_state, wrt=(0, 1), jit=jit)
    got = g(x, 0.6)
    want = fd_grad(branchy_state, (x, 0.6), (0, 1))
    assert np.allclose(got[0], want[0], rtol=1e-6, atol=1e-7)
    assert np.isclose(got[1], want[1], rtol=1e-6, atol=1e-7)
    assert g.last.top.ctx.replay, "expected the loop to be replayed"


def tanh_then_count_down(x, a):
    t0 = np.tanh(x)
    for i in range(a.shape[0], 1, -1):
        t0 += 0.5
    return t0 * a[0]


def scaled_write_then_dot(a, m):
    b = np.zeros_like(a) + 1.0
    b[int(1.5)] /= 1.5
    m[1] += np.dot(a, b)
    return np.sum(m * m)


def never_taken_branch(m, s):
    for i in range(4):
        if s > 1.0:
            m -= np.sin(m)
    return np.sum(m * m)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, args, wrt", [
    # the value before the loop is read by tanh's adjoint: the loop must give it back
    (tanh_then_count_down, (0.9, np.array([0.7, -0.2, 0.4])), (0, 1)),
    # an element write into an array only read (not differentiated): its index is kept
    (scaled_write_then_dot, (np.array([0.3, -0.8, 0.5]), np.ones((2, 3))), (0, 1)),
    # a replayed loop whose array temporaries exist only when the branch runs
    (never_taken_branch, (np.array([[0.2, -0.4], [0.9, 0.1]]), 0.5), (0,)),
])
def test_values_the_reverse_sweep_reads_are_in_place(fn, args, wrt, jit):
    got = srcad.grad(fn, wrt=wrt, jit=jit)(*args)
    want = fd_grad(fn, args, wrt)
    for g, w in zip(got, want):
        assert np.allclose(g, w, rtol=1e-6, atol=1e-7)

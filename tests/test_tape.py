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


def cross3(a, b):
    c = np.empty_like(a)
    c[0] = a[1] * b[2] - a[2] * b[1]
    c[1] = a[2] * b[0] - a[0] * b[2]
    c[2] = a[0] * b[1] - a[1] * b[0]
    return np.sum(c * c)


def read_between_writes(m, x):
    out = m * x
    s = np.sum(out * out)  # read before the write below: the element is put back
    out[0, 1] = 2.0 * x
    return s + np.sum(out * out)


def tape_parts(tape):
    """(arrays, shapes) on a tape, one level of tuples and typed Lists followed."""
    arrays = shapes = 0
    for slot in tape:
        if isinstance(slot, np.ndarray):
            arrays += 1
        elif isinstance(slot, tuple) and all(isinstance(n, int) for n in slot):
            shapes += 1
        elif not isinstance(slot, (int, float)):
            arrays += sum(isinstance(item, np.ndarray) for item in slot)
    return arrays, shapes


@pytest.mark.parametrize("jit", [False, True])
def test_tape_keeps_shapes_and_slices_arguments_again(jit):
    # the products' shapes only (their adjoints are unbroadcast to them), no copy of a
    # view of `a` or `b` (nothing writes them), and no element of `c` (read at the end)
    a, b = np.linspace(-1.0, 1.0, 24).reshape(3, 2, 4), np.linspace(0.5, 2.0, 24).reshape(3, 2, 4)
    g = srcad.value_and_grad(cross3, wrt=(0, 1), jit=jit)
    value, grads = g(a, b)
    assert value == pytest.approx(cross3(a, b), rel=1e-12)
    for got, want in zip(grads, fd_grad(cross3, (a, b), (0, 1))):
        assert np.allclose(got, want, rtol=1e-6, atol=1e-7)
    arrays, shapes = tape_parts(g.last.forward((a, b))[1])
    assert arrays == 1 and shapes > 0  # `c` itself
    assert ".append(" not in g.last.source


@pytest.mark.parametrize("jit", [False, True])
def test_elements_read_before_a_write_are_put_back(jit):
    m = np.array([[0.5, -1.25, 0.75], [2.0, 0.125, -1.5]])
    got = srcad.grad(read_between_writes, wrt=(0, 1), jit=jit)(m, 0.7)
    for g, w in zip(got, fd_grad(read_between_writes, (m, 0.7), (0, 1))):
        assert np.allclose(g, w, rtol=1e-6, atol=1e-7)

"""TidyAdjoints: reverse sweeps without the bookkeeping, and the same gradients."""
import math

import numpy as np
import pytest

import srcad
from benchmarks.workloads import tanh_rnn
from tests.fd import assert_grad_close, fd_grad

# W1's reverse sweep as a person writes it: unpack the tape, three adjoints, the loop
# (read h back, the adjoint of loss += h * h and of the tanh line), return
HAND_WRITTEN_LINES = 14


def _reverse_sweep(g, *args):
    src = srcad.source(g, *args)
    start = src.index(f"def {g.__name__}_rev(")
    body = src[start:].split("\n\n")[0]
    return [line for line in body.splitlines() if line.strip()]


def test_w1_reverse_sweep_reads_like_a_hand_written_one():
    g = srcad.grad(tanh_rnn, wrt=(0, 1), jit=False)
    lines = _reverse_sweep(g, 0.3, np.linspace(-1.0, 1.0, 7))
    code = [line for line in lines if not line.strip().startswith("#")]
    assert len(lines) <= 2 * HAND_WRITTEN_LINES, "\n".join(lines)
    assert not [line for line in code if line.strip().startswith("d_tmp")
                and line.strip().endswith("= 0.0")], "\n".join(lines)
    assert sum("d_h" in line for line in code) <= 4, "\n".join(lines)


def accumulate_across_iterations(w, x):
    s = 0.0
    acc = 0.0
    for i in range(x.shape[0]):
        t = w * x[i]
        if t > 0.1:
            acc = acc + t * t
        else:
            acc = acc - 0.5 * t
        s = s + math.sin(acc) * w
    return s + acc * acc


def branch_local_adjoints(w, x):
    out = 0.0
    for i in range(x.shape[0]):
        a = x[i] * w
        b = a * a
        if b > 0.2:
            c = b * w
            out = out + c
        out = out * 0.9 + a
    return out


@pytest.mark.parametrize("fn", [accumulate_across_iterations, branch_local_adjoints])
@pytest.mark.parametrize("jit", [False, True])
def test_gradients_through_tidied_loops_and_branches_match_fd(fn, jit):
    x = np.array([0.3, -0.7, 1.1, 0.05, -0.2])
    got = srcad.grad(fn, wrt=(0, 1), jit=jit)(0.8, x)
    assert_grad_close(got, fd_grad(fn, (0.8, x), (0, 1)))

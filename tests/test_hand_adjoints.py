"""The hand-written adjoints of benchmarks/hand.py, at each workload's small size: the value
is the workload function's own and every gradient matches central finite differences of
the plain Python function, every component of every `wrt` argument perturbed."""
import numpy as np
import pytest

from benchmarks.hand import HAND
from benchmarks.workloads import BY_KEY
from tests.fd import fd_grad


@pytest.mark.parametrize("key", sorted(HAND))
def test_hand_adjoint(key):
    w = BY_KEY[key]
    args = w.args(w.small)
    value, grads = HAND[key](*args)
    assert value == pytest.approx(w.fn(*args), rel=1e-12, abs=0.0)
    assert isinstance(grads, tuple) and len(grads) == len(w.wrt)
    want = fd_grad(w.fn, args, tuple(w.wrt))
    for k, got, ref in zip(w.wrt, grads, want):
        if isinstance(args[k], np.ndarray):
            assert isinstance(got, np.ndarray) and got.shape == args[k].shape, f"argument {k}"
        else:
            assert np.ndim(got) == 0, f"argument {k}"
        atol = 1e-6 * float(np.max(np.abs(ref)))
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=atol, err_msg=f"argument {k}")

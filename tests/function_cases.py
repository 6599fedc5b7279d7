"""Functions as users write them, each with its arguments, checked alike by several test
modules: the gradient and a forward-mode tangent against central finite differences, as
plain Python and, for the cases marked `jit`, compiled."""
from dataclasses import dataclass

import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, fd_grad


@dataclass
class Case:
    fn: object
    args: tuple
    wrt: tuple = (0,)
    jit: bool = False


def params(cases):
    """Each case in plain Python, and compiled for those marked `jit`."""
    out = []
    for case in cases:
        out += [pytest.param(case, jit, id=f"{case.fn.__name__}-{'jit' if jit else 'py'}")
                for jit in ((False, True) if case.jit else (False,))]
    return out


def copies(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def check_gradient(case, jit):
    got = srcad.grad(case.fn, wrt=case.wrt, jit=jit, on_jit_error="raise")(*copies(case.args))
    got = got if isinstance(got, tuple) else (got,)
    assert_grad_close(got, fd_grad(case.fn, copies(case.args), case.wrt), rtol=1e-5,
                      atol=1e-7)


def check_jvp(case, jit):
    rng = np.random.default_rng(len(case.fn.__name__))
    args = copies(case.args)
    tangents = [rng.uniform(-1.0, 1.0, np.shape(args[i])) for i in case.wrt]
    tangents = [t if np.ndim(t) else float(t) for t in tangents]
    value, got = srcad.jvp(case.fn, args, tuple(tangents), wrt=case.wrt, jit=jit,
                           on_jit_error="raise")
    want = sum(float(np.sum(g * t)) for g, t in
               zip(fd_grad(case.fn, copies(case.args), case.wrt), tangents))
    np.testing.assert_allclose(value, case.fn(*copies(case.args)), rtol=1e-12)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)

"""The tape keeps a view of the function's own arrays as it is, and copies one whose array
may change before the reverse sweep reads it: an argument's (the caller may write into it
after the forward sweep), or one written in place later. Gradients against finite
differences, and the pullback of `srcad.vjp` after the caller wrote into its argument."""
import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, assert_value_and_grad, fd_grad


def shifted_softmax(z):
    """`z` bound anew to `z` less its row maxima (a name of the old array kept)."""
    z = z @ np.eye(z.shape[1]) * 1.5
    z = z - np.max(z, axis=1, keepdims=True)
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    return np.sum(p * p)


def view_of_argument(x):
    v = x[1:]
    w = v * v
    return np.sum(np.sin(v) * w)


def view_of_array_written_later(x):
    t = x * 2.0
    v = t[1:]
    w = np.sin(v)
    t[1] = 5.0
    return np.sum(w * v) + np.sum(t)


def double_buffered(x):
    u = x.copy()
    for _ in range(3):
        new = u.copy()
        new[1:-1] = u[1:-1] * u[2:] + 0.5 * u[:-2]
        u = new
    return np.sum(u * u)


def reshaped_own(x):
    t = np.exp(x)
    m = np.reshape(t, (2, 3))
    s = np.sum(m, axis=0)
    t = t * 0.5
    return np.sum(s * s) + np.sum(np.sin(m)) + np.sum(t)


CASES = [shifted_softmax, view_of_argument, view_of_array_written_later, double_buffered,
         reshaped_own]


def _args(fn):
    rng = np.random.default_rng(7)
    if fn is shifted_softmax:
        return (rng.standard_normal((4, 3)),)
    return (rng.standard_normal(6),)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_gradient(fn, jit):
    assert_value_and_grad(fn, lambda: tuple(a.copy() for a in _args(fn)), 0, jit)


def test_own_arrays_are_kept_uncopied():
    g = srcad.grad(shifted_softmax, jit=False)
    forward = srcad.source(g, *_args(shifted_softmax)).split("_rev(")[0]
    assert ".copy()" not in forward


def test_view_of_argument_is_copied():
    """The caller writes into its argument between the forward sweep and the pullback."""
    x = _args(view_of_argument)[0]
    expected = fd_grad(view_of_argument, (x.copy(),), 0)
    for jit in (False, True):
        arg = x.copy()
        _, pullback = srcad.vjp(view_of_argument, arg, jit=jit)
        arg[:] = 100.0
        assert_grad_close(pullback(1.0), expected)

"""Gradient objects pickle by reference to the user's function and options, before and
after use, so that they can be sent to process pools and cluster workers."""
import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

import srcad
from tests.fd import fd_grad


def loss(w, x):
    s = 0.0
    for i in range(x.shape[0]):
        s += np.tanh(w * x[i]) ** 2
    return s


def field(u, k):
    return np.sin(u) * k + u * u


@srcad.grad
def decorated(x):
    return np.sum(np.exp(-x * x))


_X = np.linspace(-1.0, 1.0, 5)


def _makers():
    return [
        ("grad", lambda: srcad.grad(loss), (0.7, _X)),
        ("value_and_grad", lambda: srcad.value_and_grad(loss, wrt=(0, "x"), jit=False),
         (0.7, _X)),
        ("jacobian", lambda: srcad.jacobian(field, jit=False), (_X, 1.5)),
        ("hessian", lambda: srcad.hessian(loss, wrt=1, jit=False), (0.7, _X)),
        ("decorated", lambda: decorated, (_X,)),
    ]


@pytest.mark.parametrize("name, make, args", _makers(), ids=[m[0] for m in _makers()])
def test_pickles_before_and_after_use(name, make, args):
    g = make()
    fresh = pickle.loads(pickle.dumps(g))
    want = g(*args)
    again = pickle.loads(pickle.dumps(g))
    for h in (fresh, again):
        got = h(*args)
        assert len(_leaves(got)) == len(_leaves(want))
        for a, b in zip(_leaves(got), _leaves(want)):
            np.testing.assert_array_equal(a, b)
    assert len(pickle.dumps(g)) < 1000, "pickled by reference, not as compiled code"


def test_decorated_gradient_pickles_as_its_name():
    assert pickle.loads(pickle.dumps(decorated)) is decorated


def test_a_pullback_says_it_is_not_pickled():
    _, pullback = srcad.vjp(field, _X, 1.5, jit=False)
    with pytest.raises(srcad.SrcadError, match="holds the tape"):
        pickle.dumps(pullback)


def _leaves(value):
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _spawned_pool():
    return ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn"))


@pytest.mark.parametrize("jit", [False, True])
def test_a_process_pool_maps_a_gradient(jit):
    g = srcad.grad(loss, jit=jit)
    ws = [0.3, 0.7, 1.1, -0.4]
    with _spawned_pool() as pool:
        got = list(pool.map(g, ws, [_X] * len(ws)))
    for w, gw in zip(ws, got):
        assert gw == pytest.approx(fd_grad(loss, (w, _X), 0), rel=1e-6)

"""The public API around the compiler: Numba fallback, source, dispatchers, caching."""
import math
import subprocess
import sys
import warnings

import numba
import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, fd_grad


def prod_3d(x):
    return np.sum(np.prod(x, axis=1))  # Numba's version here handles 1-d and 2-d only


def tanh_loss(w, xs):
    h = 0.0
    for i in range(xs.shape[0]):
        h = math.tanh(w * h + xs[i])
    return h * h


@numba.njit
def jitted_square_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return s


def test_numba_failure_warns_and_runs_plain():
    x = np.random.default_rng(0).uniform(0.5, 1.5, (2, 3, 2))
    g = srcad.grad(prod_3d, jit=True)
    with pytest.warns(srcad.SrcadWarning, match="Numba could not compile"):
        got = g(x)
    assert_grad_close(got, fd_grad(prod_3d, (x,), 0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g(x)  # the switch to plain Python is remembered: no second warning


def test_numba_failure_raises_on_request():
    x = np.ones((2, 3, 2))
    with pytest.raises(srcad.SrcadError, match="Numba could not compile"):
        srcad.grad(prod_3d, jit=True, on_jit_error="raise")(x)


def test_source_before_any_call_guesses_the_argument_kinds_and_says_so():
    g = srcad.grad(tanh_loss, wrt=(0, 1), jit=False)
    guessed = srcad.source(g)
    assert guessed.splitlines()[0].startswith("# `tanh_loss` has not run yet: shown for "
                                              "w: float, xs: 1-d float array (assumed")
    assert guessed.split("\n", 1)[1] == srcad.source(g, 0.3, np.ones(4))


def test_source_shows_both_sweeps_and_is_valid_python():
    g = srcad.grad(tanh_loss, wrt=(0, 1), jit=False)
    text = srcad.source(g, 0.3, np.ones(4))
    assert "def tanh_loss_fwd(" in text and "def tanh_loss_rev(" in text
    assert "# grad of: h = math.tanh(w * h + xs[i])" in text
    compile(text, "<generated>", "exec")
    g(0.3, np.ones(4))
    assert srcad.source(g) == text


def test_a_numba_dispatcher_is_differentiated_from_its_python_source():
    x = np.array([0.5, -1.0, 2.0])
    got = srcad.grad(jitted_square_sum)(x)
    np.testing.assert_allclose(got, 2 * x)


def test_gradient_has_the_argument_type():
    g = srcad.value_and_grad(tanh_loss, wrt=("w", "xs"), jit=False)
    value, (gw, gxs) = g(0.3, np.linspace(-1, 1, 5))
    assert type(value) is float and type(gw) is float
    assert gxs.dtype == np.float64 and gxs.shape == (5,)


def test_another_process_reads_the_same_module_file(tmp_path):
    """Same function, same bytes, same file: Numba's disk cache can serve a new process."""
    script = (
        "import numpy as np, srcad\n"
        "from tests.test_api import tanh_loss\n"
        "g = srcad.grad(tanh_loss, wrt=(0, 1), jit=False)\n"
        "g(0.3, np.ones(3))\n"
        "print(g.last.plain.__file__)\n"
    )
    env = {"SRCAD_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env=env, cwd=str(_root())) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    assert runs[0].stdout == runs[1].stdout
    assert len(list(tmp_path.glob("tanh_loss_*.py"))) == 1


def _root():
    import pathlib
    return pathlib.Path(__file__).resolve().parent.parent


def pushes_only_in_a_pruned_branch(x, a):
    s = 0.0
    if s > s:  # Numba folds this to False and drops the branch, with the tape's only push
        for i in range(a.shape[0]):
            t = np.tanh(a)
            s = s + np.sum(np.exp(t))
    return x * x + s + np.sum(a)


def test_a_tape_list_is_typed_when_numba_prunes_every_push():
    a = np.linspace(0.1, 0.5, 5)
    got = srcad.grad(pushes_only_in_a_pruned_branch, wrt=(0, 1), on_jit_error="raise")(0.3, a)
    assert_grad_close(got, fd_grad(pushes_only_in_a_pruned_branch, (0.3, a), (0, 1)))

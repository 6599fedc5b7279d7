"""What a first call tells the user, and how to have it done before: a compile that takes
long says so, `srcad.config(verbose=True)` / `SRCAD_VERBOSE` times each step,
`srcad.precompile` and `python -m srcad precompile` fill the cache, and
`python -m srcad cache` shows or empties it."""
import os
import subprocess
import sys

import numpy as np
import pytest

import srcad
from srcad import progress
from tests.cache_functions import loss

_XS = np.array([0.3, -0.2, 0.5])
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(*argv, env):
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, env=env,
                          cwd=_ROOT, timeout=300)


def _env(cache, **extra):
    return {**os.environ, "SRCAD_CACHE_DIR": str(cache), "PYTHONPATH": _ROOT, **extra}


def test_a_slow_compile_says_so_once(cache, new_process, monkeypatch, capfd):
    monkeypatch.setattr(progress, "SLOW", 0.0)  # every compile counts as slow
    g = srcad.grad(loss)
    g(0.5, _XS)
    err = capfd.readouterr().err
    assert "srcad: compiling `loss_fwd` with Numba…" in err
    assert "srcad: compiling `loss_rev` with Numba…" in err
    g(0.7, _XS)
    assert "compiling" not in capfd.readouterr().err, "said once, on the first call"


def test_a_quick_first_call_prints_nothing(cache, new_process, capfd):
    srcad.grad(loss, jit=False)(0.5, _XS)
    assert capfd.readouterr().err == ""


def test_verbose_times_the_transformation_and_each_sweep(cache, new_process, capfd):
    try:
        assert srcad.config(verbose=True) == {"verbose": True}
        srcad.value_and_grad(loss)(0.5, _XS)
    finally:
        srcad.config(verbose=None)
    err = capfd.readouterr().err
    assert "srcad: `loss` (rev mode): transformed in" in err
    assert "srcad: `loss_fwd`: compiled (or loaded) and ran in" in err
    assert "srcad: `loss_rev`: compiled (or loaded) and ran in" in err


def test_precompiled_sweeps_are_loaded_by_a_later_process(cache):
    env = _env(cache, SRCAD_VERBOSE="1")
    done = _run("-m", "srcad", "precompile", "tests.cache_functions:loss",
                "--args", "0.5,[0.3,-0.2,0.5]", env=env)
    assert done.returncode == 0, done.stderr
    assert "compiled in" in done.stdout
    later = _run("-c", "import numpy as np, srcad; from tests.cache_functions import loss; "
                 "print(srcad.grad(loss)(0.5, np.array([0.3, -0.2, 0.5])))", env=env)
    assert later.returncode == 0, later.stderr
    assert float(later.stdout) == pytest.approx(srcad.grad(loss, jit=False)(0.5, _XS))
    assert "transformed" not in later.stderr, later.stderr  # found in the cache


def test_precompile_from_python_fills_grad_and_vjp(cache, new_process):
    assert srcad.precompile(loss, 0.5, _XS, modes=("rev", "fwd")) > 0.0
    modules = [f for f in os.listdir(cache) if f.endswith(".py")]
    assert len(modules) == 4, modules  # reverse and forward mode, for vjp/jvp and grad/hvp


def test_the_cache_command_shows_and_clears(cache):
    srcad.precompile(loss, 0.5, _XS)
    shown = _run("-m", "srcad", "cache", env=_env(cache))
    assert shown.returncode == 0 and str(cache) in shown.stdout
    assert "2 generated modules" in shown.stdout
    cleared = _run("-m", "srcad", "cache", "--clear", env=_env(cache))
    assert "cleared" in cleared.stdout and os.listdir(cache) == []

"""jit="auto", the default: loop-free modules run plain until compiling pays, modules with
loops are compiled at once, and the gradient is right in every phase (finite differences)."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import srcad
from srcad import derivative, tiers
from tests.fd import assert_grad_close, fd_grad


def layer(x, w):
    return np.sum(np.tanh(x @ w) ** 2) + 0.5 * np.sum(w * w)


def recurrence(w, xs):
    h = 0.0
    for i in range(xs.shape[0]):
        h = np.tanh(w * h + xs[i])
    return h * h


def steps(u0, k):  # a time loop of whole-array steps: NumPy does the work
    u = u0.copy()
    for _ in range(5):
        u[1:-1] = u[1:-1] + k * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return np.sum(u * u)


def squares(x):  # a loop writing elements: the interpreter would do the work
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        y[i] = x[i] * x[i]
    return np.sum(y)


def prod_3d(x):
    return np.sum(np.prod(x, axis=1))  # Numba's np.prod takes no axis for 3-d arrays


def arrays(seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(6, 4)), rng.normal(size=4)


@pytest.fixture(autouse=True)
def own_cache(monkeypatch, tmp_path):
    """A cache directory and derivatives of this test's own: a choice made by another
    test, remembered, would decide before the first call."""
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "cache"))
    derivative.clear()
    yield
    derivative.clear()


@pytest.fixture
def eager(monkeypatch):
    """Thresholds low enough that a few calls reach every phase."""
    monkeypatch.setattr(tiers, "PLAIN_SECONDS", 0.0)
    monkeypatch.setattr(tiers, "PLAIN_CALLS", 3)


def test_loop_free_code_starts_plain_and_loops_compile_at_once():
    x, w = arrays()
    g = srcad.grad(layer, wrt=1)
    assert_grad_close(g(x, w), fd_grad(layer, (x, w), 1))
    assert g.last.module is g.last.plain and g.last.tiers is not None
    assert "jit='auto' (1 deciding)" in repr(g)
    for fn, args, at_once in ((recurrence, (0.3, w), True), (squares, (w,), True),
                              (steps, (x[0], 0.2), False)):
        h = srcad.grad(fn)
        assert_grad_close(h(*args), fd_grad(fn, args, 0))
        assert (h.last.tiers is None) is at_once, fn.__name__
        assert (h.last.module is not h.last.plain) is at_once, fn.__name__


def test_every_phase_gives_the_same_gradient(eager):
    x, w = arrays(1)
    want = fd_grad(layer, (x, w), 1)
    g = srcad.value_and_grad(layer, wrt=1)
    seen = set()
    for _ in range(3 + 1 + 2 * tiers.TRIALS + 2):
        value, got = g(x, w)
        assert value == pytest.approx(layer(x, w), rel=1e-13)
        assert_grad_close(got, want)
        c = g.last
        seen.add("deciding, plain" if c.tiers is not None and c.module is c.plain else
                 "deciding, compiled" if c.tiers is not None else "decided")
    assert seen == {"deciding, plain", "deciding, compiled", "decided"}
    assert g.last.jit in (True, False)
    assert f"(1 {'compiled' if g.last.jit else 'plain Python'})" in repr(g)


def test_a_pullback_taken_before_the_choice_still_works_after_it(eager):
    x, w = arrays(2)
    out, pullback = srcad.vjp(layer, x, w, wrt=1)
    g = srcad.grad(layer, wrt=1)
    for _ in range(3 + 1 + 2 * tiers.TRIALS + 2):
        g(x, w)
    assert g.last.tiers is None
    assert out == pytest.approx(layer(x, w), rel=1e-13)
    assert_grad_close(pullback(2.0), 2.0 * fd_grad(layer, (x, w), 1))


def test_forward_mode_is_chosen_the_same_way(eager):
    x, w = arrays(3)
    v = np.linspace(-1.0, 1.0, 4)
    want = fd_grad(layer, (x, w), 1) @ v
    for _ in range(3 + 1 + 2 * tiers.TRIALS + 2):
        out, tangent = srcad.jvp(layer, (x, w), (v,), wrt=1)
        assert tangent == pytest.approx(want, rel=1e-6)
    made = derivative.derivative(layer, (1,), "auto", "warn", False).compiled
    (compiled,) = [c for (kinds, mode), c in made.items() if mode == "fwd"]
    assert compiled.tiers is None and compiled.jit in (True, False)


def test_what_numba_cannot_compile_stays_plain_without_a_warning(eager):
    x = np.random.default_rng(4).uniform(0.5, 1.5, (2, 3, 2))
    g = srcad.grad(prod_3d)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3 + 2):
            assert_grad_close(g(x), fd_grad(prod_3d, (x,), 0))
    assert g.last.tiers is None and g.last.jit is False and g.last.module is g.last.plain


def test_the_choice_is_remembered_by_the_next_process(tmp_path):
    script = (
        "import numpy as np, srcad\n"
        "from srcad import tiers\n"
        "from tests.test_tiers import layer, arrays\n"
        "tiers.PLAIN_SECONDS, tiers.PLAIN_CALLS = 0.0, 2\n"
        "g = srcad.grad(layer, wrt=1)\n"
        "for _ in range(12):\n"
        "    g(*arrays())\n"
        "c = g.last\n"
        "print(c.tiers is None, c.jit, c.module is c.plain)\n"
    )
    env = {"SRCAD_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env=env, cwd=str(_root())) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    decided, jit, plain = runs[0].stdout.split()
    assert decided == "True" and plain == str(jit == "False")
    assert runs[1].stdout == runs[0].stdout  # decided from the first call on


def test_tiers_keep_the_faster_module(monkeypatch):
    monkeypatch.setattr(tiers, "PLAIN_SECONDS", 0.5)
    monkeypatch.setattr(tiers, "PLAIN_CALLS", 2)
    for compiled_s, keep in ((0.1, True), (0.4, False)):
        t = tiers.Tiers()
        assert t.ran("fwd", 0.1, False) is None
        assert t.ran("rev", 0.2, True) is None  # 0.3 s spent, one gradient
        assert t.ran("fwd", 0.1, False) is None
        assert t.ran("rev", 0.2, True) == "compile"  # 0.6 s, two
        assert t.first_compiled_run("fwd")
        decisions = []
        for k in range(2 * tiers.TRIALS + 1):  # compiled (compiling), then in turns
            plain = k % 2 == 1
            s = 0.3 if plain else 5.0 if k == 0 else compiled_s
            decisions += [t.ran("fwd", s / 3, False, plain), t.ran("rev", 2 * s / 3, True, plain)]
        assert decisions[:-1:2] == [None] * (2 * tiers.TRIALS + 1)  # forward sweeps
        assert decisions[1:-1:2] == ["switch"] * (2 * tiers.TRIALS)
        assert decisions[-1] is keep


def test_jit_takes_three_values():
    with pytest.raises(srcad.SrcadError, match="jit='yes' is not an option"):
        srcad.grad(layer, jit="yes")


def _root():
    import pathlib
    return pathlib.Path(__file__).resolve().parent.parent

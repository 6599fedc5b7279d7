"""One program per function: every entry point finds the compiled program of a function it
has seen, in a process-wide cache keyed weakly by the function and the options, validated
by identity checks of what the transformation read."""
import gc
import importlib
import sys
import textwrap
import threading
import weakref

import numpy as np
import pytest

import srcad
import srcad.derivative
from srcad.program import Program
from tests.cache_functions import loss, scaled_by
from tests.fd import assert_grad_close, fd_grad

XS = np.linspace(-1.0, 1.0, 5)

# an empty cache directory and no derivative in memory: every module is made anew
pytestmark = pytest.mark.usefixtures("cache", "new_process")


@pytest.fixture
def transforms(monkeypatch):
    """The functions transformed (top level only), in order, across threads."""
    seen, lock = [], threading.Lock()
    specialize = Program.specialize

    def counting(self, fn, *args, **kwargs):
        if not self.building:
            with lock:
                seen.append(fn)
        return specialize(self, fn, *args, **kwargs)

    monkeypatch.setattr(Program, "specialize", counting)
    return seen


def test_every_entry_point_reuses_the_program(transforms):
    g = srcad.grad(loss, wrt=(0, 1), jit=False)
    assert_grad_close(g(0.7, XS), fd_grad(loss, (0.7, XS), (0, 1)))
    value, grads = srcad.value_and_grad(loss, wrt=(0, 1), jit=False)(0.7, XS)
    assert_grad_close(grads, fd_grad(loss, (0.7, XS), (0, 1)))
    inline = srcad.grad(loss, wrt=(0, 1), jit=False)
    assert_grad_close(inline(0.7, XS), fd_grad(loss, (0.7, XS), (0, 1)))
    out, pullback = srcad.vjp(loss, 0.7, XS, wrt=(0, 1), jit=False)
    assert_grad_close(pullback(1.0), fd_grad(loss, (0.7, XS), (0, 1)))
    jac = srcad.jacobian(loss, wrt=(0, 1), mode="rev", jit=False)
    jw, jxs = jac(0.7, XS)  # shaped out.shape + arg.shape: a 0-d array for `w`
    assert_grad_close((float(jw), jxs), fd_grad(loss, (0.7, XS), (0, 1)))
    assert inline.derivative is g.derivative and inline.last is g.last
    assert pullback.compiled is jac.compiled
    assert transforms == [loss, loss]  # for `grad`, and for the rest (any output)
    for _ in range(3):
        srcad.jvp(loss, (0.7, XS), (1.0,), wrt=0, jit=False)
        srcad.hvp(loss, (0.7, XS), 1.0, wrt=0, jit=False)
    assert len(transforms) == 2 + 1 + 2  # jvp's module, hvp's (its own and its tangent)


def _write(folder, name, text):
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    sys.path.insert(0, str(folder))
    try:
        if name in sys.modules:
            return importlib.reload(sys.modules[name])
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(folder))


def test_a_function_redefined_with_the_same_name_gets_its_own_gradient(tmp_path):
    sys.dont_write_bytecode, old = True, sys.dont_write_bytecode
    try:
        first = _write(tmp_path, "redefined_user", "def f(x):\n    return x * x\n")
        f1 = first.f
        g1 = srcad.grad(f1)
        assert g1(3.0) == pytest.approx(6.0)
        second = _write(tmp_path, "redefined_user",
                        "def f(x):\n    return x * x * x  # edited\n")
    finally:
        sys.dont_write_bytecode = old
    assert second.f is not f1
    g2 = srcad.grad(second.f)
    assert g2(3.0) == pytest.approx(27.0)
    assert g1(3.0) == pytest.approx(6.0)  # the old function keeps its own program
    assert srcad.grad(f1).derivative is g1.derivative is not g2.derivative


def test_closures_over_different_values_get_different_programs():
    f2, f3 = scaled_by(2.0), scaled_by(3.0)
    g2, g3 = srcad.grad(f2), srcad.grad(f3)
    assert g2(0.5) == pytest.approx(2.0)
    assert g3(0.5) == pytest.approx(3.0)
    again = srcad.grad(f2)
    assert again(0.5) == pytest.approx(2.0)
    assert again.last is g2.last is not g3.last


def test_wrt_jit_and_kinds_get_programs_of_their_own():
    by_wrt = [srcad.grad(loss, wrt=w, jit=False) for w in (0, 1, (0, 1))]
    for w, g in zip((0, 1, (0, 1)), by_wrt):
        assert_grad_close(g(0.7, XS), fd_grad(loss, (0.7, XS), w))
    assert len({id(g.derivative) for g in by_wrt}) == 3
    jitted = srcad.grad(loss, wrt=0)
    assert_grad_close(jitted(0.7, XS), fd_grad(loss, (0.7, XS), 0))
    assert jitted.last.module is not jitted.last.plain
    assert by_wrt[0].last.module is by_wrt[0].last.plain
    ints = np.arange(5)
    assert_grad_close(jitted(0.7, ints), fd_grad(loss, (0.7, ints), 0))
    assert len(jitted.compiled) == 2


def test_a_collected_function_frees_its_entry():
    f = scaled_by(4.0)
    ref = weakref.ref(f)
    assert srcad.grad(f)(1.0) == pytest.approx(8.0)
    out, pullback = srcad.vjp(f, 1.0)
    assert pullback(1.0) == pytest.approx(8.0)
    assert srcad.hvp(f, (1.0,), 1.0) == pytest.approx(8.0)
    assert f in srcad.derivative._CACHE
    del f, out, pullback
    gc.collect()
    assert ref() is None
    # what is left is the derivative of the generated tangent function (for `hvp`)
    assert all(k.__module__.startswith("_srcad_generated") for k in srcad.derivative._CACHE)


def test_threads_compile_a_new_function_once(transforms):
    f = scaled_by(5.0)
    barrier = threading.Barrier(8)
    results, errors = [], []

    def work():
        try:
            barrier.wait()
            results.append(srcad.vjp(f, 2.0)[1](1.0))
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == [pytest.approx(20.0)] * 8
    assert transforms == [f]


def test_threads_making_the_first_call_of_one_gradient_object(transforms):
    f = scaled_by(6.0)
    g = srcad.grad(f)
    barrier = threading.Barrier(8)
    results = []

    def work():
        barrier.wait()
        results.append(g(1.5))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [pytest.approx(18.0)] * 8
    assert transforms == [f]

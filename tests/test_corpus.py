"""Whole-function gradients of the corpus against central finite differences.

For every entry of CORPUS: the gradient matches finite differences, has the
structure the public contract promises (a tuple for a tuple `wrt`, a bare
gradient for a single position or name; a float for a float argument, a float64
array of the argument's shape for an array), the caller's arguments are not
mutated, and `value_and_grad` returns f's value.
"""

import copy
import inspect
import math
import warnings

import numpy as np
import pytest

import srcad
from tests.corpus_functions import CORPUS, loss_damped, write_own_argument
from tests.fd import assert_grad_close, fd_grad, resolve_position
from tests.primal import assert_primal


def _positions(func, wrt):
    if isinstance(wrt, tuple):
        return tuple(resolve_position(func, w) for w in wrt)
    return resolve_position(func, wrt)


def assert_gradient_types(grad, func, args, wrt):
    """A tuple for a tuple `wrt`, else bare; each gradient typed like its argument."""
    if isinstance(wrt, tuple):
        assert isinstance(grad, tuple), f"wrt={wrt!r} must give a tuple, got {type(grad).__name__}"
        assert len(grad) == len(wrt)
        for g, pos in zip(grad, _positions(func, wrt)):
            assert_typed_like(g, args[pos])
    else:
        assert not isinstance(grad, tuple), f"wrt={wrt!r} must give a bare gradient, got a tuple"
        assert_typed_like(grad, args[_positions(func, wrt)])


def assert_typed_like(g, arg):
    if isinstance(arg, np.ndarray):
        assert isinstance(g, np.ndarray), f"gradient of an array must be an ndarray, got {type(g)}"
        assert g.dtype == np.float64, f"gradient dtype {g.dtype}, want float64"
        assert g.shape == arg.shape, f"gradient shape {g.shape}, want {arg.shape}"
    else:
        assert isinstance(g, float) and not isinstance(g, np.ndarray), (
            f"gradient of a float must be a float, got {type(g).__name__}"
        )


def assert_args_unchanged(args, before):
    assert len(args) == len(before)
    for k, (a, b) in enumerate(zip(args, before)):
        if isinstance(b, np.ndarray):
            assert isinstance(a, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
            assert np.array_equal(a, b), f"argument {k} was mutated"
        else:
            assert a == b, f"argument {k} changed"


def _srcad_warnings(records):
    """Warnings raised by srcad itself, e.g. a fall-back from Numba to plain Python."""
    return [r for r in records if r.category.__module__.split(".")[0] == "srcad"]


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_grad_matches_finite_differences(case):
    args = case.args_factory()
    before = copy.deepcopy(args)
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        grad = srcad.grad(case.func, wrt=case.wrt, jit=case.jit)(*args)
    assert_args_unchanged(args, before)
    assert_gradient_types(grad, case.func, args, case.wrt)
    assert_grad_close(grad, fd_grad(case.func, case.args_factory(), case.wrt))
    if case.jit:
        fallbacks = _srcad_warnings(records)
        assert not fallbacks, f"jit=True fell back: {fallbacks[0].message}"


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_value_and_grad(case):
    # single-position entries are asked for with a bare int/str here (a tuple above)
    wrt = case.wrt[0] if len(case.wrt) == 1 else case.wrt
    args = case.args_factory()
    before = copy.deepcopy(args)
    value, grad = srcad.value_and_grad(case.func, wrt=wrt, jit=case.jit)(*args)
    assert_args_unchanged(args, before)
    assert isinstance(value, float)
    assert_primal(case.func, case.args_factory(), value, case.jit)
    assert_gradient_types(grad, case.func, args, wrt)
    assert_grad_close(grad, fd_grad(case.func, case.args_factory(), wrt))


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_vjp_and_jvp_values_are_the_function_s(case):
    args = case.args_factory()
    out, _ = srcad.vjp(case.func, *args, wrt=case.wrt, jit=False)
    assert_primal(case.func, case.args_factory(), out, jit=False)
    tangents = [np.ones_like(args[resolve_position(case.func, w)]) for w in case.wrt]
    out, _ = srcad.jvp(case.func, args, tangents, wrt=case.wrt, jit=False)
    assert_primal(case.func, case.args_factory(), out, jit=False)


# ---------------------------------------------------------------------------
# The public API beyond the corpus
# ---------------------------------------------------------------------------

def test_decorator_bare():
    @srcad.grad
    def f(x, y):
        return x * x * y + math.sin(x)

    g = f(1.3, 0.7)
    assert isinstance(g, float)
    assert g == pytest.approx(2.0 * 1.3 * 0.7 + math.cos(1.3), rel=1e-10)


def test_decorator_with_wrt():
    @srcad.grad(wrt=1)
    def f(x, ys):
        s = 0.0
        for i in range(ys.shape[0]):
            s += x * ys[i] ** 2
        return s

    ys = np.array([0.5, -1.0, 2.0])
    g = f(1.5, ys)
    assert isinstance(g, np.ndarray) and g.shape == ys.shape
    np.testing.assert_allclose(g, 2.0 * 1.5 * ys, rtol=1e-10)


def test_decorator_with_tuple_wrt():
    @srcad.grad(wrt=(1, 0))
    def f(x, y):
        return x * y * y

    gy, gx = f(2.0, 3.0)
    assert gy == pytest.approx(12.0) and gx == pytest.approx(9.0)


def _two_params(w, xs):
    return w * np.sum(xs * xs) + math.exp(w)


def test_wrt_by_name_bare():
    xs = np.array([0.5, -1.5, 2.0])
    g = srcad.grad(_two_params, wrt="xs", jit=False)(0.3, xs)
    assert isinstance(g, np.ndarray) and g.shape == xs.shape
    np.testing.assert_allclose(g, 2.0 * 0.3 * xs, rtol=1e-10)
    gw = srcad.grad(_two_params, wrt="w", jit=False)(0.3, xs)
    assert isinstance(gw, float)
    assert gw == pytest.approx(np.sum(xs * xs) + math.exp(0.3), rel=1e-10)


def test_wrt_names_and_positions_mixed_in_order():
    xs = np.array([0.5, -1.5, 2.0])
    gxs, gw = srcad.grad(_two_params, wrt=("xs", 0), jit=False)(0.3, xs)
    np.testing.assert_allclose(gxs, 2.0 * 0.3 * xs, rtol=1e-10)
    assert gw == pytest.approx(np.sum(xs * xs) + math.exp(0.3), rel=1e-10)


def test_wrt_default_is_first_argument():
    xs = np.array([0.5, -1.5, 2.0])
    g = srcad.grad(_two_params, jit=False)(0.3, xs)
    assert isinstance(g, float)
    assert g == pytest.approx(np.sum(xs * xs) + math.exp(0.3), rel=1e-10)


def test_one_element_tuple_gives_one_element_tuple():
    xs = np.array([0.5, -1.5, 2.0])
    g = srcad.grad(_two_params, wrt=(1,), jit=False)(0.3, xs)
    assert isinstance(g, tuple) and len(g) == 1
    np.testing.assert_allclose(g[0], 2.0 * 0.3 * xs, rtol=1e-10)


def test_value_and_grad_by_name():
    xs = np.array([0.5, -1.5, 2.0])
    value, (gw, gxs) = srcad.value_and_grad(_two_params, wrt=("w", "xs"), jit=False)(0.3, xs)
    assert value == pytest.approx(_two_params(0.3, xs), rel=1e-10)
    assert gw == pytest.approx(np.sum(xs * xs) + math.exp(0.3), rel=1e-10)
    np.testing.assert_allclose(gxs, 2.0 * 0.3 * xs, rtol=1e-10)


def test_grad_keeps_signature():
    g = srcad.grad(_two_params, wrt=1, jit=False)
    assert list(inspect.signature(g).parameters) == ["w", "xs"]


def test_gradient_function_reused_with_other_sizes():
    g = srcad.grad(loss_damped, wrt=(0, 1), jit=False)
    for n, seed in [(4, 1), (9, 2), (1, 3)]:
        args = (0.8, np.random.default_rng(seed).uniform(-0.9, 0.9, n))
        assert_grad_close(g(*args), fd_grad(loss_damped, args, (0, 1)))


@pytest.mark.parametrize("jit", [False, True])
def test_caller_array_not_mutated_when_f_writes_its_argument(jit):
    a = np.array([0.3, -0.6, 0.9, 0.1, -0.4])
    before = a.copy()
    value, g = srcad.value_and_grad(write_own_argument, jit=jit)(a)
    np.testing.assert_array_equal(a, before)
    assert value == pytest.approx(write_own_argument(before.copy()), rel=1e-10)
    assert_grad_close(g, fd_grad(write_own_argument, (before,), 0))


def test_design_loss_with_branch_jit_n1000():
    # the DESIGN's tanh recurrence with an `if h > 0.5: h = h * 0.9` in the loop;
    # seed 10 keeps every pre-damping h at least 1e-3 away from 0.5
    xs = np.random.default_rng(10).uniform(-0.9, 0.9, 1000)
    args = (0.8, xs)
    before = xs.copy()
    grad = srcad.grad(loss_damped, wrt=(0, 1), jit=True)(*args)
    np.testing.assert_array_equal(xs, before)
    assert_gradient_types(grad, loss_damped, args, (0, 1))
    assert_grad_close(grad, fd_grad(loss_damped, args, (0, 1)))

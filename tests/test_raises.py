"""`raise` and `assert` in a differentiated function: they run in the forward sweep (and in
forward mode), raise what the function raises at its line, and cost the gradient nothing
where they do not fire."""
import math

import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, fd_grad


def checked(x, n):
    assert n > 0, "n must be positive"
    if x < 0.0:
        raise ValueError(f"x is {x}, must be >= 0")
    s = 0.0
    for i in range(n):
        s = s + math.sqrt(x) * i
    return s


def checked_rows(w, xs):
    if xs.ndim != 1:
        raise ValueError("xs must be 1-d")
    total = 0.0
    for i in range(xs.shape[0]):
        if xs[i] < -10.0:
            raise OverflowError("an element below -10")
        total = total + math.tanh(w * xs[i])
    assert total == total
    return total * total


def _log_positive(x):
    if x <= 0.0:
        raise ZeroDivisionError("x must be positive")
    return math.log(x)


def through_helper(x):
    return _log_positive(x) * x


def raise_without_call(x):
    if x > 100.0:
        raise OverflowError
    return x * x


def only_raises_in_loop(xs):
    s = 0.0
    k = 0
    while True:
        if k >= xs.shape[0]:
            break
        if not xs[k] > -1.0:
            raise ValueError("xs[k] <= -1")
        s = s + math.log1p(xs[k])
        k += 1
    return s


XS = np.array([0.1, 0.4, -0.3])
CASES = [
    (checked, (0.7, 3), 0),
    (checked_rows, (0.5, XS), (0, 1)),
    (through_helper, (1.5,), 0),
    (raise_without_call, (1.5,), 0),
    (only_raises_in_loop, (XS,), 0),
]
FAILING = [
    (checked, (-0.5, 3), ValueError, "must be >= 0"),
    (checked, (0.5, 0), AssertionError, "n must be positive"),
    (checked_rows, (0.5, np.array([0.1, -20.0])), OverflowError, "below -10"),
    (checked_rows, (0.5, np.ones((2, 2))), ValueError, "xs must be 1-d"),
    (through_helper, (-1.5,), ZeroDivisionError, "x must be positive"),
    (raise_without_call, (101.0,), OverflowError, ""),
    (only_raises_in_loop, (np.array([0.3, -2.0]),), ValueError, "xs[k] <= -1"),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_where_nothing_raises(fn, args, wrt, jit):
    value, grad = srcad.value_and_grad(fn, wrt=wrt, jit=jit)(*args)
    assert value == pytest.approx(fn(*args), rel=1e-12)
    assert_grad_close(grad, fd_grad(fn, args, wrt))


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, args, exc, text", FAILING,
                         ids=[f"{c[0].__name__}-{c[2].__name__}" for c in FAILING])
def test_raises_what_the_function_raises_at_its_line(fn, args, exc, text, jit):
    with pytest.raises(exc) as python:
        fn(*args)
    with pytest.raises(exc) as grad:
        srcad.grad(fn, jit=jit)(*args)
    assert text in str(grad.value)
    line = python.traceback[-1].lineno + 1  # pytest counts lines from 0
    assert f"test_raises.py:{line}:" in str(grad.value)
    with pytest.raises(exc):
        srcad.vjp(fn, *args)
    tangent = np.ones_like(args[0]) if isinstance(args[0], np.ndarray) else 1.0
    with pytest.raises(exc):
        srcad.jvp(fn, args, (tangent,), wrt=(0,), jit=jit)


def test_the_gradient_module_raises_in_the_forward_sweep_only():
    text = srcad.source(srcad.grad(checked, jit=False), 0.7, 3)
    fwd, rev = text.split("def checked_rev")
    assert "raise AssertionError('n must be positive')" in fwd
    assert "raise ValueError('x is {x}, must be >= 0')" in fwd
    assert "raise " not in rev.split("\n\n")[0] and "rt.fail" not in text


def bare_raise(x):
    if x < 0.0:
        raise
    return x


class MyError(Exception):
    pass


def own_exception(x):
    if x < 0.0:
        raise MyError("negative")
    return x


def computed_message(x):
    if x < 0.0:
        raise ValueError("x is " + str(x))
    return x


@pytest.mark.parametrize("fn, words", [
    (bare_raise, "bare `raise`"),
    (own_exception, "built-in exception"),
    (computed_message, "numbers or strings"),
])
def test_refused_raises_say_why(fn, words):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(fn, jit=False)(1.0)
    assert words in str(info.value)
    assert "test_raises.py:" in str(info.value)


def prints_as_it_goes(x, a):
    s = 0.0
    for i in range(2):
        s = s + np.sum(a * x) ** 2
        print("step", i, "s =", s)
    print(a * 2.0)
    return s


def prints_with_a_separator(x):
    print("x", x, sep=": ")
    return x


@pytest.mark.parametrize("jit", [False, True])
def test_print_runs_in_the_forward_sweep_once(jit, capfd):
    args = (0.5, np.array([1.0, 2.0]))
    prints_as_it_goes(*args)
    expected = capfd.readouterr().out
    value, grad = srcad.value_and_grad(prints_as_it_goes, wrt=(0, 1), jit=jit)(*args)
    assert capfd.readouterr().out == expected  # the reverse sweep does not print
    assert value == prints_as_it_goes(*args)
    capfd.readouterr()
    srcad.jvp(prints_as_it_goes, args, (1.0, np.zeros(2)), jit=jit)
    assert capfd.readouterr().out == expected


def test_print_with_keywords_is_refused():
    with pytest.raises(srcad.SrcadError, match="`print` with keywords"):
        srcad.grad(prints_with_a_separator, jit=False)(1.0)

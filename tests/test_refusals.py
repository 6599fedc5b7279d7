"""Refusals: every one is a srcad.SrcadError naming the construct, file and line.

The offending functions live in this file, so each message must name
`test_refusals.py` and the offending line, computed with
`inspect.getsourcelines` so that editing this file never breaks a test.
Whether srcad refuses when `grad` is called or when the gradient is first
evaluated is left open: each test does both inside `pytest.raises`.
"""

import inspect
import math
import os
import re

import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, fd_grad

FILE = os.path.basename(__file__)


def line_of(func, marker):
    """Line number in this file of the first line of `func` containing `marker`."""
    lines, start = inspect.getsourcelines(func)
    for k, line in enumerate(lines):
        if marker in line:
            return start + k
    raise AssertionError(f"{marker!r} not in the source of {func.__name__}")


def refusal(func, *args, **options):
    """The message of the SrcadError raised by differentiating `func` at `args`."""
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(func, jit=False, **options)(*args)
    return str(info.value)


def assert_names_construct(message, *alternatives):
    """The message contains one of `alternatives` as a whole word (case-insensitive)."""
    low = message.lower()
    found = (re.search(rf"\b{re.escape(alt.lower())}\b", low) for alt in alternatives)
    assert any(found), (
        f"message does not name the construct (any of {alternatives}):\n{message}"
    )


def assert_points_at(message, *lines, filename=FILE):
    assert filename in message, f"message does not name the file {filename}:\n{message}"
    assert any(re.search(rf"(?<!\d){n}(?!\d)", message) for n in lines), (
        f"message does not name line {' or '.join(map(str, lines))}:\n{message}"
    )


# ---------------------------------------------------------------------------
# Output and wrt
# ---------------------------------------------------------------------------

def returns_array(a):
    b = a * 2.0
    return np.sin(b) * a  # non-scalar output


def returns_tuple(x, y):
    return x * y, x + y  # non-scalar output


def scale_by_count(x, n):
    return x * n


def two_floats(x, y):
    return x * y


def test_non_scalar_array_output_points_to_vjp_or_jacobian():
    message = refusal(returns_array, np.array([0.1, 0.2, 0.3]))
    assert_names_construct(message, "vjp", "jacobian")
    assert_points_at(message, line_of(returns_array, "non-scalar output"))


def test_non_scalar_tuple_output_points_to_vjp_or_jacobian():
    message = refusal(returns_tuple, 0.5, 1.5)
    assert_names_construct(message, "vjp", "jacobian")
    assert_points_at(message, line_of(returns_tuple, "non-scalar output"))


def test_integer_argument_in_wrt():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(scale_by_count, wrt=1, jit=False)(2.0, 3)  # the call
    message = str(info.value)
    assert_names_construct(message, "int", "integer", "int64")
    assert "n" in re.findall(r"\w+", message), f"message does not name parameter n:\n{message}"
    call_line = line_of(test_integer_argument_in_wrt, "# the call")
    assert_points_at(message, line_of(scale_by_count, "def "), call_line)


def test_wrt_position_out_of_range():
    message = refusal(two_floats, 0.5, 1.5, wrt=7)
    assert_names_construct(message, "wrt")
    assert re.search(r"(?<!\d)7(?!\d)", message), f"message does not name position 7:\n{message}"
    assert_points_at(message, line_of(two_floats, "def "))


def test_wrt_position_out_of_range_in_tuple():
    message = refusal(two_floats, 0.5, 1.5, wrt=(0, 7))
    assert_names_construct(message, "wrt")
    assert_points_at(message, line_of(two_floats, "def "))


def test_wrt_name_not_a_parameter():
    message = refusal(two_floats, 0.5, 1.5, wrt="zeta")
    assert_names_construct(message, "zeta")
    assert_points_at(message, line_of(two_floats, "def "))


# ---------------------------------------------------------------------------
# Functions without source
# ---------------------------------------------------------------------------

_namespace = {}
exec("def made_by_exec(x):\n    return x * x\n", _namespace)  # noqa: S102
made_by_exec = _namespace["made_by_exec"]


def calls_exec_made(x):
    y = x + 1.0
    return made_by_exec(y) * 2.0  # call without source


def test_builtin_len_has_no_source():
    # the function itself has no file or line; the message must name it
    message = refusal(len, np.array([1.0, 2.0]))
    assert_names_construct(message, "len")


def test_math_sin_has_no_source():
    message = refusal(math.sin, 0.5)
    assert_names_construct(message, "sin")


def test_exec_function_has_no_source():
    message = refusal(made_by_exec, 0.5)
    assert_names_construct(message, "made_by_exec")


def test_call_to_function_without_source():
    message = refusal(calls_exec_made, 0.5)
    assert_names_construct(message, "made_by_exec")
    assert_points_at(message, line_of(calls_exec_made, "call without source"))


# ---------------------------------------------------------------------------
# Unsupported syntax
# ---------------------------------------------------------------------------

COUNTER = 0


def uses_with(x):
    y = x * 2.0
    with np.errstate(all="ignore"):
        y = np.log(y)
    return y


def uses_try(x):
    try:
        y = 1.0 / x
    except ZeroDivisionError:
        y = 0.0
    return y


def uses_lambda(x):
    return (lambda t: t * t)(x)


def uses_generator_expression(a):
    return any(v * v for v in a)


def generator_function(x):
    yield x * x


def uses_global(x):
    global COUNTER
    COUNTER += 1
    return x * x


def defines_class(x):
    class Box:
        pass
    return x * x


def uses_list_comprehension(a):
    vals = [v * v for v in a]
    return vals[0] + vals[1]


def helper_with_try(x):
    try:
        return x * x
    finally:
        pass


def calls_helper_with_try(x):
    return helper_with_try(x) + 1.0


def uses_pow_modulo(x):
    return pow(3, 2, 5) * x


def writes_a_view_by_a_2d_mask(x):
    w = x * 2.0
    v = w[1:, :]
    v[v > 1.0] = 0.0
    return np.sum(w)


@pytest.mark.parametrize("func, args, marker, names", [
    (uses_with, (0.5,), "with np.", ("with",)),
    (uses_try, (0.5,), "try:", ("try",)),
    (uses_lambda, (0.5,), "lambda t", ("lambda",)),
    (uses_generator_expression, (np.array([0.5, 1.5]),), "for v in a",
     ("generator", "generatorexp")),
    (generator_function, (0.5,), "yield", ("yield", "generator")),
    (uses_global, (0.5,), "global COUNTER", ("global",)),
    (defines_class, (0.5,), "class Box", ("class", "classdef")),
    (uses_list_comprehension, (np.array([0.5, 1.5]),), "for v in a",
     ("list comprehension", "listcomp", "comprehension")),
    (uses_pow_modulo, (0.5,), "pow(3", ("pow",)),
    (writes_a_view_by_a_2d_mask, (np.ones((3, 2)),), "v[v > 1.0]", ("view",)),
], ids=["with", "try", "lambda", "generator-expression", "yield", "global", "class",
        "list-comprehension", "pow-modulo", "view-2d-mask"])
def test_unsupported_syntax(func, args, marker, names):
    message = refusal(func, *args)
    assert_names_construct(message, *names)
    assert_points_at(message, line_of(func, marker))


def test_unsupported_syntax_in_a_called_helper_points_at_the_helper():
    message = refusal(calls_helper_with_try, 0.5)
    assert_names_construct(message, "try")
    assert_points_at(message, line_of(helper_with_try, "try:"))


# ---------------------------------------------------------------------------
# Calls without a derivative rule
# ---------------------------------------------------------------------------

def uses_fft(a):
    spec = np.fft.hfft(a)  # no derivative rule
    return np.sum(np.abs(spec))


def test_call_without_derivative_rule():
    message = refusal(uses_fft, np.array([0.5, 1.5, -0.5, 2.0]))
    assert_names_construct(message, "fft")
    assert_points_at(message, line_of(uses_fft, "no derivative rule"))


def _fill_in_a_loop(buf):
    for i in range(buf.shape[0]):
        buf[i] = 1.0


def _calls_a_helper_without_return(x):
    buf = np.zeros(3)
    _ = _fill_in_a_loop(buf)  # marker: helper without return
    return x * np.sum(buf)


def test_helper_ending_in_a_loop_without_return_fills_its_argument():
    # it crashed with an internal AttributeError, then was refused; a helper that fills
    # one argument and returns nothing is an update of that array (FillingHelpers)
    value, grad = srcad.value_and_grad(_calls_a_helper_without_return, jit=False)(2.0)
    assert value == _calls_a_helper_without_return(2.0)
    assert_grad_close(grad, fd_grad(_calls_a_helper_without_return, (2.0,), 0))


def grows_a_list(x):
    states = []
    for i in range(3):
        states.append(x * i)
    return x


def test_growing_a_list_is_told_to_fill_an_array():
    message = refusal(grows_a_list, 1.5)
    assert "srcad does not grow lists" in message and "states[i] = ..." in message
    assert_points_at(message, line_of(grows_a_list, "states.append"))


def sets_a_shape(x):
    y = x * 2.0
    y.shape = (2, 2)  # an attribute assigned
    return np.sum(y)


def test_an_attribute_assigned_is_refused_with_a_rewrite():
    message = refusal(sets_a_shape, np.ones(4))
    assert_names_construct(message, "attribute")
    assert "`.shape`" in message and "reshape" in message
    assert_points_at(message, line_of(sets_a_shape, "y.shape ="))

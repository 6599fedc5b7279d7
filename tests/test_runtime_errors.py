"""Generated code fails the way the user's function would, at the user's line.

Compiled sweeps check their indices, `math` functions raise Python's errors, and any
exception a sweep raises comes back as the same type with the user's file, line and source
line in its message. NumPy functions keep NumPy's NaN semantics, max and min included.
"""
import inspect
import math
import re
import warnings

import numba
import numpy as np
import pytest

import srcad
from srcad import runtime as rt
from tests.fd import fd_grad

HERE = __file__


def line_of(fn, text):
    """`<this file>:<n>` of the line of `fn` that holds `text`."""
    lines, first = inspect.getsourcelines(fn)
    hits = [first + i for i, line in enumerate(lines) if text in line]
    assert len(hits) == 1, (fn, text)
    return f"{HERE}:{hits[0]}: "


# ---------------------------------------------------------------------------------------
# indices


def read_past_end(x):
    y = x * 2.0
    return y[5] * 2.0


def write_past_end(x):
    y = np.zeros(3)
    y[1000] = x[0]
    return np.sum(y) * x[1]


def loop_past_end(x):
    s = 0.0
    for i in range(x.shape[0] + 100000):
        s += x[i] * x[i]
    return s


@pytest.mark.parametrize("fn, text, message", [
    (read_past_end, "return y[5]", "index 5 is out of bounds for axis 0 with size 3"),
    (write_past_end, "y[1000] =", "index 1000 is out of bounds for axis 0 with size 3"),
    (loop_past_end, "s += x[i]", "index 3 is out of bounds for axis 0 with size 3"),
])
def test_index_out_of_range_is_an_index_error_at_the_users_line(fn, text, message):
    with pytest.raises(IndexError) as info:
        srcad.grad(fn)(np.ones(3))
    got = str(info.value)
    assert got.startswith(line_of(fn, text) + "IndexError: " + message), got
    assert f"\n    {text}" in got
    assert isinstance(info.value.__cause__, IndexError)


def test_forward_mode_checks_its_indices():
    with pytest.raises(IndexError, match=re.escape(line_of(read_past_end, "return y[5]"))):
        srcad.jvp(read_past_end, (np.ones(3),), (np.ones(3),))


def tiny(x):
    return x[1] * x[2]


def test_only_forward_sweeps_are_compiled_with_bounds_checks():
    g = srcad.grad(tiny, jit=True)
    np.testing.assert_allclose(g(np.array([1.0, 2.0, 3.0])), [0.0, 3.0, 2.0])
    module = g.last.module
    assert module.tiny_fwd.targetoptions["boundscheck"] is True
    assert not module.tiny_rev.targetoptions.get("boundscheck")


# ---------------------------------------------------------------------------------------
# the math module


def domain(x, k):
    if k == 0:
        y = math.log(x)
    elif k == 1:
        y = math.sqrt(x)
    elif k == 2:
        y = int(x) * 1.0
    elif k == 3:
        y = math.exp(x)
    elif k == 4:
        y = math.asin(x)
    elif k == 5:
        y = math.pow(x, 0.5)
    elif k == 6:
        y = math.floor(x) * 1.0
    elif k == 7:
        y = math.log(2.0, x)
    else:
        y = math.sin(x)
    return y * x


DOMAIN_CASES = [  # k, x, the error Python raises, the line
    (0, -1.0, ValueError, "math domain error", "math.log(x)"),
    (0, 0.0, ValueError, "math domain error", "math.log(x)"),
    (1, -4.0, ValueError, "math domain error", "math.sqrt(x)"),
    (2, math.nan, ValueError, "cannot convert float NaN to integer", "int(x)"),
    (2, math.inf, OverflowError, "cannot convert float infinity to integer", "int(x)"),
    (3, 1000.0, OverflowError, "math range error", "math.exp(x)"),
    (4, 2.0, ValueError, "math domain error", "math.asin(x)"),
    (5, -8.0, ValueError, "math domain error", "math.pow(x, 0.5)"),
    (6, math.nan, ValueError, "cannot convert float NaN to integer", "math.floor(x)"),
    (7, -2.0, ValueError, "math domain error", "math.log(2.0, x)"),
    (8, math.inf, ValueError, "math domain error", "math.sin(x)"),
]


@pytest.mark.parametrize("jit", [True, False])
def test_math_domain_errors_are_pythons(jit):
    g = srcad.value_and_grad(domain, jit=jit)
    for k, x, error, message, text in DOMAIN_CASES:
        with pytest.raises(error) as info:
            domain(x, k)
        assert str(info.value) == message  # what Python says, and so srcad
        with pytest.raises(error) as info:
            g(x, k)
        assert str(info.value).startswith(f"{line_of(domain, text)}{error.__name__}: "
                                          f"{message}\n    y = "), (k, str(info.value))


@pytest.mark.parametrize("x", [0.3, 0.7])
def test_math_derivatives_are_unchanged_in_the_domain(x):
    for k in range(9):
        np.testing.assert_allclose(srcad.grad(domain, jit=False)(x, k), fd_grad(domain, (x, k), 0),
                                   rtol=1e-6, atol=1e-9, err_msg=str(k))


def math_mix(x, b):
    y = math.log(x, b) + math.log1p(x) * math.expm1(x) + math.cosh(x) * math.sinh(x)
    return y + math.tan(x) * math.cos(x) + math.acos(x) + math.pow(x, b) + math.log(x)


def test_compiled_math_gradients_match_finite_differences():
    args = (0.4, 2.5)
    value, grads = srcad.value_and_grad(math_mix, wrt=(0, 1))(*args)
    assert value == pytest.approx(math_mix(*args), rel=1e-14)
    np.testing.assert_allclose(grads, fd_grad(math_mix, args, (0, 1)), rtol=1e-6)


@pytest.mark.parametrize("name, args", [
    ("sqrt", (-1.0,)), ("log", (0.0,)), ("log1p", (-1.0,)), ("acos", (1.5,)),
    ("cos", (-math.inf,)), ("tan", (math.inf,)), ("expm1", (800.0,)), ("sinh", (-800.0,)),
    ("cosh", (800.0,)), ("pow", (0.0, -1.0)), ("pow", (10.0, 400.0)), ("ceil", (math.nan,)),
    ("trunc", (-math.inf,)), ("to_int", (math.nan,)),
])
def test_runtime_math_helpers_raise_as_python_does_when_compiled(name, args):
    python = {"to_int": int}.get(name) or getattr(math, name)
    with pytest.raises((ValueError, OverflowError)) as want:
        python(*args)
    helper = getattr(rt, name)
    compiled = numba.njit(lambda x: helper(x)) if len(args) == 1 else \
        numba.njit(lambda x, y: helper(x, y))
    with pytest.raises(type(want.value), match=re.escape(str(want.value))):
        compiled(*args)
    assert compiled(*[0.5] * len(args)) == python(*[0.5] * len(args))


def test_math_helpers_keep_nan_and_infinity_that_python_keeps():
    for fn, x in [(rt.log, math.inf), (rt.sqrt, math.nan), (rt.exp, math.inf), (rt.exp, -math.inf)]:
        want = getattr(math, fn.__name__)(x)
        got = fn(x)
        assert got == want or (math.isnan(got) and math.isnan(want))


def log_base_only(x, b):
    return math.log(x, b) * b


def test_two_argument_log_differentiates_in_its_base():
    args = (3.0, 1.7)
    np.testing.assert_allclose(srcad.grad(log_base_only, wrt=(0, 1), jit=False)(*args),
                               fd_grad(log_base_only, args, (0, 1)), rtol=1e-6)
    h = srcad.hessian(log_base_only, jit=False)(*args)  # through rt.log_base's own rule
    eps = 1e-5
    fd = (srcad.grad(log_base_only, jit=False)(args[0] + eps, args[1])
          - srcad.grad(log_base_only, jit=False)(args[0] - eps, args[1])) / (2 * eps)
    assert np.ravel(h)[0] == pytest.approx(fd, rel=1e-6)


def sqrt_at(x):
    y = x + 1.0
    return math.sqrt(x) * y


@pytest.mark.parametrize("jit", [True, False])
def test_math_derivative_singularity_is_a_zero_division_at_the_users_line(jit):
    assert sqrt_at(0.0) == 0.0  # the value exists; its derivative does not
    with pytest.raises(ZeroDivisionError) as info:
        srcad.grad(sqrt_at, jit=jit)(0.0)
    assert str(info.value).startswith(
        line_of(sqrt_at, "math.sqrt(x) * y") + "ZeroDivisionError: float division by zero "
        "(computing the derivative of this line)\n    return math.sqrt(x) * y"), str(info.value)


def numpy_domain(x):
    return np.log(x) + np.sqrt(x) + np.arcsin(x)


def numpy_nan(x):
    return np.sum(numpy_domain(x))


def test_numpy_functions_keep_nan_without_an_exception():
    x = np.array([-1.0, 2.0])
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.simplefilter("ignore")
        want = numpy_domain(x)
        value, grad = srcad.value_and_grad(numpy_nan)(x)
    assert np.isnan(want).all() and math.isnan(value)
    assert np.isnan(grad).all()


# ---------------------------------------------------------------------------------------
# errors that NumPy raises, from inside compiled code


def mismatch(x, y):
    z = x * y
    return np.sum(z)


def empty_max(x):
    m = np.max(x[:0])
    return m + x[0]


def test_shape_mismatch_names_the_users_line():
    with pytest.raises(ValueError) as info:
        srcad.grad(mismatch)(np.ones(3), np.ones(4))
    assert str(info.value).startswith(
        line_of(mismatch, "z = x * y") + "ValueError: operands could not be broadcast together "
        "with shapes (3,) (4,)\n    z = x * y"), str(info.value)


def test_max_of_an_empty_array_names_the_users_line():
    with pytest.raises(ValueError, match=re.escape(line_of(empty_max, "np.max(x[:0])")
                                                   + "ValueError: zero-size array")):
        srcad.grad(empty_max)(np.ones(3))


def test_a_module_loaded_from_the_cache_still_names_the_line(tmp_path, monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path))
    srcad.grad(tiny, jit=False)(np.ones(3))  # writes the module and its record
    g = srcad.grad(tiny, jit=False)
    with pytest.raises(IndexError, match=re.escape(line_of(tiny, "return x[1] * x[2]"))):
        g(np.ones(2))
    assert g.last._program is not None  # it had to transform to find the line


# ---------------------------------------------------------------------------------------
# max and min with NaN


def extremes(x):
    return np.max(x) + 2.0 * np.min(x) + 3.0 * x.max() + 4.0 * np.amin(x)


def extremes_axis(x):
    return np.sum(np.max(x, axis=0) * np.array([1.0, 2.0, 3.0])) + np.sum(x.min(axis=1))


@pytest.mark.parametrize("jit", [True, False])
def test_max_and_min_with_nan_are_nan_and_the_nan_gets_the_cotangent(jit):
    nan = math.nan
    value, grad = srcad.value_and_grad(extremes, jit=jit)(np.array([1.0, nan, 3.0, nan]))
    assert math.isnan(value)
    np.testing.assert_array_equal(grad, [0.0, 10.0, 0.0, 0.0])  # the first NaN: 1 + 2 + 3 + 4
    x = np.array([[1.0, nan, 3.0], [4.0, 0.5, nan]])
    value, grad = srcad.value_and_grad(extremes_axis, jit=jit)(x)
    assert math.isnan(value) and math.isnan(extremes_axis(x))
    np.testing.assert_array_equal(grad, [[0.0, 3.0, 0.0], [1.0, 0.0, 4.0]])
    y = np.array([[1.0, 5.0, 3.0], [4.0, 0.5, 2.0]])
    np.testing.assert_allclose(srcad.grad(extremes_axis, jit=jit)(y),
                               fd_grad(extremes_axis, (y,), 0), rtol=1e-6)


def test_max_tangent_follows_the_nan():
    x = np.array([1.0, math.nan, 3.0])
    value, tangent = srcad.jvp(extremes, (x,), (np.array([1.0, 2.0, 3.0]),), jit=False)
    assert math.isnan(value) and tangent == 20.0


# ---------------------------------------------------------------------------------------
# integer powers


def integer_power(x, n, k):
    p = n ** k
    return x * p


@pytest.mark.parametrize("jit", [True, False])
def test_an_integer_to_a_negative_integer_power_is_refused_where_it_runs(jit):
    g = srcad.grad(integer_power, jit=jit)
    assert g(1.5, 2, 3) == 8.0
    with pytest.raises(ValueError) as info:  # Python gives 0.25; compiled integers, 0
        g(1.5, 2, -2)
    assert str(info.value).startswith(line_of(integer_power, "p = n ** k") + "ValueError: "
                                      "an integer to a negative integer power"), str(info.value)
    assert "float(a) ** b" in str(info.value)


def test_an_error_inside_numbas_compiler_is_a_compile_failure_one_of_the_code_is_not():
    # Numba's lowering can fail with a bare TypeError (npbench's resnet: float32 and float64
    # buffers through one helper); that must fall back to Python like any compile failure,
    # and an exception the compiled code raises must not
    import numba
    from numba.core import types

    from codegen.jit import compile_failure
    with pytest.raises(TypeError) as inside:
        types.UniTuple(numba.float64, "a")
    assert compile_failure(inside.value)

    @numba.njit
    def raises(x):
        if x > 0:
            raise TypeError("the code's own")
        return x

    with pytest.raises(TypeError) as own:
        raises(1.0)
    assert not compile_failure(own.value)

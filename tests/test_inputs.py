"""What srcad takes as arguments. Float inputs of any precision are computed in float64:
float32 and float16 arrays are widened, NumPy float scalars and 0-d arrays act as Python
floats (their gradient is a float). Complex values, object arrays, strings, None and lists
that are not rectangular lists of numbers are refused with a `SrcadError` that names the
argument."""
import math
import warnings

import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, fd_grad


def weighted(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.tanh(w * x[i])
    return s + np.sum(x * x) * w


def scalar(x, w):
    return math.tanh(w * x) + x * x * w


def repeat(x, n):
    s = x
    for _ in range(n):
        s = math.sin(s) + x
    return s


X64 = np.linspace(-1.0, 1.0, 6)


def fd64(f, args, wrt):
    """Finite differences at the same point, in float64."""
    return fd_grad(f, [np.asarray(a, dtype=np.float64) if isinstance(a, np.ndarray) and a.ndim
                       else float(a) for a in args], wrt)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.dtype(">f8")])
def test_float_arrays_of_any_precision_are_computed_in_float64(dtype):
    x = X64.astype(dtype)
    before = x.copy()
    gx, gw = srcad.grad(weighted, wrt=(0, 1), jit=False)(x, 0.5)
    assert gx.dtype == np.float64 and gx.shape == x.shape and type(gw) is float
    assert_grad_close((gx, gw), fd64(weighted, (x, 0.5), (0, 1)), rtol=1e-6)
    assert x.dtype == dtype and np.array_equal(x, before)


def test_float32_compiled_by_numba_without_a_fallback():
    x = X64.astype(np.float32)
    g = srcad.value_and_grad(weighted, wrt=(0, 1), jit=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", srcad.SrcadWarning)
        value, grads = g(x, np.float32(0.5))
    assert g.last.module is not g.last.plain
    assert type(value) is float
    assert_grad_close(grads, fd64(weighted, (x, 0.5), (0, 1)), rtol=1e-6)


@pytest.mark.parametrize("x", [np.array(0.8), np.float64(0.8), np.float32(0.8),
                               np.array(0.8, dtype=np.float32)], ids=repr)
def test_numpy_scalars_and_0d_arrays_act_as_floats(x):
    gx, gw = srcad.grad(scalar, wrt=(0, 1), jit=False)(x, np.array(0.5))
    assert type(gx) is float and type(gw) is float
    assert_grad_close((gx, gw), fd64(scalar, (x, 0.5), (0, 1)), rtol=1e-6)


@pytest.mark.parametrize("n", [3, np.int64(3), np.int32(3), np.array(3)], ids=repr)
def test_int_arguments_outside_wrt(n):
    got = srcad.grad(repeat, jit=False)(0.4, n)
    assert_grad_close(got, fd_grad(repeat, (0.4, 3), 0))


def test_vjp_jvp_and_jacobian_take_float32():
    x = X64.astype(np.float32)
    out, pullback = srcad.vjp(weighted, x, 0.5, jit=False)
    assert type(out) is float
    assert_grad_close(pullback(1.0), fd64(weighted, (x, 0.5), 0), rtol=1e-6)
    v = np.ones(6, dtype=np.float32)
    _, tangent = srcad.jvp(weighted, (x, np.float32(0.5)), (v,), wrt=0, jit=False)
    np.testing.assert_allclose(tangent, fd64(weighted, (x, 0.5), 0) @ v, rtol=1e-6)
    jac = srcad.jacobian(weighted, wrt=1, jit=False)(x, np.float32(0.5))
    np.testing.assert_allclose(jac, fd64(weighted, (x, 0.5), 1), rtol=1e-6)


def _refused(f, args, wrt=0):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(f, wrt=wrt, jit=False)(*args)
    return str(info.value)


@pytest.mark.parametrize("w", [3, np.int64(3), np.array(3), np.array([1, 2])], ids=repr)
def test_ints_in_wrt_are_refused(w):
    message = _refused(scalar, (0.5, w), wrt="w")
    assert "`w` in `wrt`" in message and "int" in message and "float(w)" in message


def magnitude(x, w):
    return np.sum(np.abs(w * x) ** 2) + x * x


@pytest.mark.parametrize("z", [1 + 2j, np.complex128(1 + 2j), np.array(1j),
                               np.array([1j, 2.0]), np.ones(3, dtype=np.complex64)], ids=repr)
def test_complex_values_are_taken_as_complex128(z):
    got = srcad.grad(magnitude, wrt=(0, 1), jit=False)(0.5, z)
    want = fd_grad(magnitude, (0.5, np.asarray(z, dtype=np.complex128)[()]), (0, 1))
    assert_grad_close(got, want)


def test_a_function_without_complex_support_names_itself():
    message = _refused(scalar, (0.5, 1 + 2j), wrt=1)
    assert "`math.tanh` of a complex value is not supported" in message


@pytest.mark.parametrize("value, what", [
    (np.array([1.0, "a"], dtype=object), "an object array"),
    (np.array(["a", "b"]), "an array of <U1"),
    ("1.5", "a str"),
    (None, "None"),
    ([[1.0, 2.0], [3.0]], "a list that is not a rectangular list of numbers"),
    (["a", "b"], "a list that is not a rectangular list of numbers"),
    (object(), "an object"),
], ids=["object-array", "str-array", "str", "None", "ragged-list", "str-list", "object"])
def test_other_values_are_refused_naming_the_argument(value, what):
    message = _refused(weighted, (value, 0.5), wrt=1)
    assert f"argument `x` is {what}, which srcad does not take" in message
    assert "hint:" in message


def test_a_bad_value_inside_a_tuple_is_named():
    def pair(x, t):
        a, b = t
        return x * a + b

    message = _refused(pair, (0.5, (1.0, "2")))
    assert "argument `t[1]` is a str" in message

"""Rules called in the forms that the registry's cases (`tests.rule_domains`) do not write:
`n` and `axis` of np.diff, `reps` tuples of np.tile, `weights` of np.average, `k` of
np.triu, numbers where an array is expected, NaN in np.fmax (the forms srcad refuses are
in `test_rule_refusals`).

Each function's gradient (reverse mode) and its derivative along a direction (forward
mode, `srcad.jvp`) are compared with central finite differences, in plain Python and, for
the cases marked so, compiled with Numba (which must then compile: no fallback).
"""
import math
from dataclasses import dataclass

import numba
import numpy as np
import pytest

import srcad
from srcad import runtime as rt
from tests.fd import assert_grad_close, fd_grad

A23 = np.array([[0.3, -1.2, 0.8], [1.1, 0.45, -0.6]])
A234 = np.linspace(-1.3, 1.9, 24).reshape(2, 3, 4)[:, ::-1, :] ** 3
V4 = np.array([0.9, -0.4, 1.3, 0.2])
V5 = np.array([0.7, -1.1, 0.35, 1.6, -0.2])
W23 = np.array([[0.5, 1.5, 0.8], [1.2, 0.3, 0.9]])
W3 = np.array([0.5, 1.5, 0.8])
# cotangent weights, all different: a transposed or reversed adjoint does not pass
W5 = np.array([0.7, -1.3, 0.4, 2.1, -0.6])
C23 = np.array([[0.6, -1.1, 0.9], [1.7, 0.2, -0.4]])
C234 = np.cos(np.arange(24.0) * 1.7).reshape(2, 3, 4)

# np.diff


def diff_squares(x):
    return np.sum(np.diff(x) ** 2)


def diff_twice(x):
    return np.sum(np.sin(np.diff(x, 2)))


def diff_axis0(a):
    return np.sum(np.sin(np.diff(a, axis=0)))


def diff_3d_axis1(a):
    return np.sum(np.sin(np.diff(a, 2, 1)))


def diff_none(x):
    return np.sum(np.sin(np.diff(x, 0)))


def diff_too_many(x):  # 5 differences of 5 elements leave none
    return np.sum(np.diff(x, 5)) + np.sum(x * x)


# flips


def flip_axis0(a, c):
    return np.sum(np.flip(a, 0) * c)


def flip_axis_tuple(a, c):
    return np.sum(np.flip(a, axis=(0, 2)) * c)


def flip_negative_axis(a, c):
    return np.sum(np.flip(a, -1) * c)


def fliplr_3d(a, c):
    return np.sum(np.fliplr(a) * c)


def flipud_2d(a, c):
    return np.sum(np.sin(np.flipud(a)) * c)


# np.tile and np.repeat


def tile_tuple(a):
    return np.sum(np.sin(np.tile(a, (2, 1))))


def tile_more_axes(x):
    return np.sum(np.sin(np.tile(x, (2, 1, 3))))


def tile_list(x):
    return np.sum(np.sin(np.tile(x, [2, 2])))


def tile_number(s, c):
    return np.sum(np.tile(s, 3) * c)


def repeat_axis0(a):
    return np.sum(np.sin(np.repeat(a, 2, axis=0)))


def repeat_each(x, r):
    return np.sum(np.sin(np.repeat(x, r)))


def repeat_method(a):
    return np.sum(np.sin(a.repeat(2, axis=1))) + np.sum(np.cos(a.repeat(3)))


def repeat_number(s, c):
    return np.sum(np.repeat(s, 3) * c)


# np.sort


def sort_weighted(x, w):
    return np.sum(np.sort(x) * w)


def sort_axis0(a, c):
    return np.sum(np.sort(a, axis=0) * c)


def sort_all(a):
    return np.sum(np.sort(a, axis=None) * np.linspace(-1.0, 2.0, 6))


def sort_3d_axis1(a, c):
    return np.sum(np.sort(a, 1) * c)


# np.cumprod


def cumprod_axis0(a):
    return np.sum(np.sin(np.cumprod(a, axis=0)))


def cumprod_method_axis1(a):
    return np.sum(np.sin(a.cumprod(axis=1)))


def cumprod_through_zero(x, c):
    return np.sum(np.cumprod(x) * c)


# np.average and np.ptp


def average_plain(a):
    return np.average(a) + np.sum(np.sin(np.average(a, axis=0)))


def average_weighted(a, w):
    return np.sum(np.sin(np.average(a, axis=1, weights=w)))


def average_weights_along(a, w):
    return np.sum(np.sin(np.average(a, 1, w)))


def average_weights_along_axis0(a, w):
    return np.sum(np.sin(np.average(a, axis=0, weights=w)))


def average_3d(a, w):
    return np.sum(np.sin(np.average(a, axis=1, weights=w)))


def ptp_axes(a, c):
    return np.sum(np.sin(np.ptp(a, axis=0))) + np.sum(np.ptp(a, 1) * c)


# new axes and axes taken away


def atleast_numbers(s):
    return np.sum(np.atleast_1d(s) * 2.0) + np.sum(np.atleast_2d(s * s)) \
        + np.sum(np.sin(np.atleast_3d(s)))


def atleast_3d_matrix(a, c):
    return np.sum(np.atleast_3d(a) * c)


def expand_axes(x):
    return np.sum(np.sin(np.expand_dims(x, 0) * np.expand_dims(x, -1)))


def expand_tuple(a):
    return np.sum(np.sin(np.expand_dims(a, (0, 2))))


def expand_number(s):
    return np.sum(np.expand_dims(s, 0) * 3.0)


def squeeze_axis(a, c):
    return np.sum(np.squeeze(a, 0) * c)


def squeeze_axes(a):
    return np.sum(np.sin(np.squeeze(a, axis=(0, 2))))


def squeeze_method(a):
    return np.sum(np.sin(a.squeeze(1)))


# triangles, identities, copies


def triu_k(a):
    return np.sum(np.sin(np.triu(a, 1))) + np.sum(np.cos(np.triu(a, k=-1)))


def tril_k(a, c):
    return np.sum(np.sin(np.tril(a, -1))) + np.sum(np.tril(a, k=2) * c)


def triu_vector(x):
    return np.sum(np.sin(np.triu(x, 1)))


def asarray_identity(x, c):
    return np.sum(np.asarray(x) * c) + np.sum(np.asarray(x, dtype=np.float64) ** 2)


def asarray_of_list(x, y, c):
    return np.sum(np.asarray([x, y * y, 2.0]) * c)


def array_copy(a, c):
    b = np.array(a)
    b[0, 0] = 5.0
    return np.sum(b * c) + np.sum(a * a)


def array_of_arrays(x, c):
    return np.sum(np.array([x, 2.0 * x]) * c) + np.sum(np.array((x, x * x)) * c)


# elementwise: NaN in fmax and fmin, large logaddexp, fabs left of 0


def fmax_nan(x, y, c):
    return np.sum(np.fmax(x, y) * c)


def fmin_nan(x, y, c):
    return np.sum(np.fmin(x, y) * c)


def logaddexp_large(x, y, c):
    return np.sum(np.logaddexp(x, y) * c) + np.sum(np.logaddexp2(y, x) * c)


def fabs_negative(x, c):
    return np.sum(np.fabs(x) * c)


# math


def gamma_negative(x):
    return math.gamma(x) + math.lgamma(x)


def math_mix(x, y):
    return math.copysign(x, y) * math.erfc(x) + math.log2(y * y) + math.log10(x * x) \
        + math.degrees(y) * math.radians(x)


@dataclass
class Case:
    """`fn(*args)`, differentiated with respect to the arguments at `wrt`; `jit`: also
    compiled with Numba."""

    fn: object
    args: tuple
    wrt: tuple = (0,)
    jit: bool = False


_NAN4 = np.array([0.5, np.nan, -1.2, np.nan])
_ZERO4 = np.array([0.8, 0.0, -1.5, 0.6])

CASES = [
    Case(diff_squares, (V5,), jit=True),
    Case(diff_twice, (V5,), jit=True),
    Case(diff_axis0, (A23,), jit=True),
    Case(diff_3d_axis1, (A234,), jit=True),
    Case(diff_none, (V5,), jit=True),
    Case(diff_too_many, (V5,), jit=True),
    Case(flip_axis0, (A23, C23), jit=True),
    Case(flip_axis_tuple, (A234, C234), jit=True),
    Case(flip_negative_axis, (A23, C23)),
    Case(fliplr_3d, (A234, C234), jit=True),
    Case(flipud_2d, (A23, C23)),
    Case(tile_tuple, (A23,), jit=True),
    Case(tile_more_axes, (V4,), jit=True),
    Case(tile_list, (V4,), jit=True),
    Case(tile_number, (0.7, V4[:3].copy()), jit=True),
    Case(repeat_axis0, (A23,), jit=True),
    Case(repeat_each, (V4, np.array([1, 0, 3, 2])), jit=True),
    Case(repeat_method, (A23,), jit=True),
    Case(repeat_number, (0.7, V4[:3].copy()), jit=True),
    Case(sort_weighted, (V5, W5), jit=True),
    Case(sort_axis0, (A23, C23), jit=True),
    Case(sort_all, (A23,), jit=True),
    Case(sort_3d_axis1, (A234, C234), jit=True),
    Case(cumprod_axis0, (A23,), jit=True),
    Case(cumprod_method_axis1, (A234,), jit=True),
    Case(cumprod_through_zero, (_ZERO4, V4), jit=True),
    Case(average_plain, (A23,), jit=True),
    Case(average_weighted, (A23, W23), (0, 1), jit=True),
    Case(average_weights_along, (A23, W3), (0, 1), jit=True),
    Case(average_weights_along_axis0, (A23, W3[:2].copy()), (0, 1), jit=True),
    Case(average_3d, (A234, W3), (0, 1), jit=True),
    Case(ptp_axes, (A23.T.copy(), V4[:3].copy()), jit=True),
    Case(atleast_numbers, (0.6,), jit=True),
    Case(atleast_3d_matrix, (A23, C23.reshape(2, 3, 1)), jit=True),
    Case(expand_axes, (V4,), jit=True),
    Case(expand_tuple, (A23,), jit=True),
    Case(expand_number, (0.6,), jit=True),
    Case(squeeze_axis, (A23[:1].copy(), C23[0].copy()), jit=True),
    Case(squeeze_axes, (A23.reshape(1, 6, 1),), jit=True),
    Case(squeeze_method, (A23.reshape(2, 1, 3),), jit=True),
    Case(triu_k, (A23,), jit=True),
    Case(tril_k, (A23, C23), jit=True),
    Case(triu_vector, (V4,), jit=True),
    Case(asarray_identity, (V4, W5[:4].copy()), jit=True),
    Case(asarray_of_list, (0.3, -0.8, V4[:3].copy()), (0, 1), jit=True),
    Case(array_copy, (A23, C23), jit=True),
    Case(array_of_arrays, (A23[0].copy(), C23), jit=True),
    Case(fmax_nan, (V4, _NAN4, W5[:4].copy()), (0, 1), jit=True),
    Case(fmin_nan, (V4, _NAN4, W5[:4].copy()), (0, 1), jit=True),
    Case(logaddexp_large, (V4 + 700.0, V4[::-1] + 700.5, W5[:4].copy()), (0, 1), jit=True),
    Case(fabs_negative, (-np.abs(V4), W5[:4].copy()), jit=True),
    Case(gamma_negative, (-2.5,), jit=True),
    Case(gamma_negative, (0.4,)),
    Case(math_mix, (-0.7, 1.3), (0, 1), jit=True),
]


def _params():
    """Each case in plain Python, and compiled for those marked `jit`."""
    out, seen = [], {}
    for case in CASES:
        n = seen[case.fn] = seen.get(case.fn, 0) + 1
        name = case.fn.__name__ + ("" if n == 1 else f"-{n}")
        out += [pytest.param(case, jit, id=f"{name}-{'jit' if jit else 'py'}")
                for jit in ((False, True) if case.jit else (False,))]
    return out


def _copies(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _fd(case):
    """The finite-difference gradient, NaN entries of the arguments (fmax's) left at 0."""
    want = fd_grad(case.fn, _copies(case.args), case.wrt)
    return tuple(np.nan_to_num(w) if isinstance(w, np.ndarray) else w for w in want)


@pytest.mark.parametrize("case, jit", _params())
def test_gradient_matches_finite_differences(case, jit):
    got = srcad.grad(case.fn, wrt=case.wrt, jit=jit, on_jit_error="raise")(*_copies(case.args))
    got = got if isinstance(got, tuple) else (got,)
    assert_grad_close(got, _fd(case), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("case, jit", _params())
def test_jvp_matches_finite_differences(case, jit):
    rng = np.random.default_rng(len(case.fn.__name__))
    args = _copies(case.args)
    tangents = [rng.uniform(-1.0, 1.0, np.shape(args[i])) for i in case.wrt]
    tangents = [t if np.ndim(t) else float(t) for t in tangents]
    for i, t in zip(case.wrt, tangents):
        if isinstance(args[i], np.ndarray):
            t[np.isnan(args[i])] = 0.0  # fmax's NaN arguments stay NaN
    _, got = srcad.jvp(case.fn, args, tuple(tangents), wrt=case.wrt, jit=jit,
                       on_jit_error="raise")
    want = sum(float(np.sum(g * t)) for g, t in zip(_fd(case), tangents))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_sort_sends_each_cotangent_to_where_its_value_came_from():
    x = np.array([0.3, -1.2, 2.0, 0.5, -0.1])
    g = srcad.grad(sort_weighted)(x, W5)
    assert np.array_equal(g, W5[np.argsort(np.argsort(x))])


def test_cumprod_through_a_zero_is_exact():
    g = srcad.grad(cumprod_through_zero)(_ZERO4.copy(), V4)
    want = [sum(V4[i] * np.prod(np.delete(_ZERO4[:i + 1], j)) for i in range(j, 4))
            for j in range(4)]
    np.testing.assert_allclose(g, want, rtol=1e-14, atol=0.0)


def test_fmax_routes_the_cotangent_past_nan():
    gx, gy = srcad.grad(fmax_nan, wrt=(0, 1))(V4.copy(), _NAN4.copy(), W5[:4].copy())
    assert np.array_equal(gx, np.where(np.isnan(_NAN4) | (V4 >= _NAN4), W5[:4], 0.0))
    assert np.array_equal(gy, W5[:4] - gx)


def test_math_gamma_raises_at_its_poles_as_python_does():
    for jit in (False, True):
        with pytest.raises(ValueError, match="math domain error"):
            srcad.grad(gamma_negative, jit=jit, on_jit_error="raise")(-2.0)


def second_order_mix(x, c):
    y = np.sort(np.diff(x)) * c
    return np.sum(y ** 3) + np.sum(np.flip(np.tile(x, 2)) ** 3) + np.ptp(x ** 3)


@pytest.mark.parametrize("jit", [False, True])
def test_hessian_vector_products_through_sorting_and_shapes(jit):
    x, c = np.array([0.7, -1.1, 0.35, 1.6, -0.3]), W5[:4].copy()  # distinct differences
    v = np.array([0.3, -0.2, 0.5, 0.1, -0.4])
    got = srcad.hvp(second_order_mix, (x, c), v, jit=jit, on_jit_error="raise")
    grad = srcad.grad(second_order_mix, jit=False)
    want = (grad(x + 1e-6 * v, c) - grad(x - 1e-6 * v, c)) / 2e-6
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@numba.njit
def _atan2_partials(y, x):
    return rt.atan2_dy(y, x), rt.atan2_dx(y, x)


def test_atan2_partials_are_the_formula_and_zero_at_the_origin():
    y = np.array([[0.0, 0.3, -0.0], [0.0, -1.2, 2.0]])
    x = np.array([0.0, 0.0, 0.7])  # broadcast along the rows
    yb, xb = np.broadcast_arrays(y, x)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = (xb / (xb * xb + yb * yb), -yb / (xb * xb + yb * yb))
    origin = (xb == 0.0) & (yb == 0.0)
    for w in want:
        w[origin] = 0.0
    for got in ((rt.atan2_dy(y, x), rt.atan2_dx(y, x)), _atan2_partials(y, x)):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    for ys, xs in ((0.0, 0.0), (-0.0, 0.0), (0.5, -2.0), (1.0, 0.0)):
        d = ys * ys + xs * xs
        want = (0.0, 0.0) if d == 0.0 else (xs / d, -ys / d)
        assert (rt.atan2_dy(ys, xs), rt.atan2_dx(ys, xs)) == want
        assert _atan2_partials(ys, xs) == want

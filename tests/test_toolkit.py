"""vjp (one tape, many pullbacks), stop_gradient, defvjp custom rules, linear algebra."""
import math
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, fd_grad


def pairs(x):
    """A 3-output function written with element writes in a loop."""
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i] * x[(i + 1) % x.shape[0]] + math.sin(x[i])
    return out


def two_by_two(x, y):
    return x * y + math.sin(x), x - y * y


def scaled(w, xs):
    return np.sum(w * xs ** 2)


def jacobian_by_fd(f, x, eps=1e-6):
    cols = []
    for k in range(x.size):
        hi, lo = x.copy(), x.copy()
        hi[k] += eps
        lo[k] -= eps
        cols.append((f(hi) - f(lo)) / (2 * eps))
    return np.stack(cols, axis=-1)


@pytest.mark.parametrize("jit", [False, True])
def test_vjp_rows_of_the_jacobian_from_one_forward_sweep(jit):
    x = np.array([0.3, -0.5, 0.7])
    out, pullback = srcad.vjp(pairs, x, jit=jit, on_jit_error="raise")
    np.testing.assert_allclose(out, pairs(x))
    rows = np.stack([pullback(np.eye(3)[k]) for k in range(3)])
    np.testing.assert_allclose(rows, jacobian_by_fd(pairs, x), rtol=1e-6, atol=1e-9)
    assert pullback.compiled.forward_sweeps == 1


def test_vjp_weighted_cotangent_is_linear():
    x = np.array([0.3, -0.5, 0.7])
    _, pullback = srcad.vjp(pairs, x, jit=False)
    u, v = np.array([1.0, -2.0, 0.5]), np.array([0.2, 0.1, 3.0])
    np.testing.assert_allclose(pullback(2.0 * u + v), 2.0 * pullback(u) + pullback(v))


def test_vjp_tuple_output_and_tuple_wrt():
    out, pullback = srcad.vjp(two_by_two, 0.4, 0.9, wrt=(0, 1), jit=False)
    assert out == pytest.approx(two_by_two(0.4, 0.9))
    df1 = pullback((1.0, 0.0))
    df2 = pullback((0.0, 1.0))
    assert df1 == pytest.approx((0.9 + math.cos(0.4), 0.4))
    assert df2 == pytest.approx((1.0, -1.8))


def test_vjp_scalar_output_matches_grad():
    xs = np.array([0.5, 1.5])
    value, pullback = srcad.vjp(scaled, 0.7, xs, wrt="xs", jit=False)
    assert value == pytest.approx(scaled(0.7, xs))
    np.testing.assert_allclose(pullback(2.0), 2.0 * srcad.grad(scaled, wrt=1, jit=False)(0.7, xs))


def test_vjp_output_is_the_callers_to_keep():
    x = np.array([0.3, -0.5, 0.7])
    out, pullback = srcad.vjp(pairs, x, jit=False)
    before = pullback(np.ones(3))
    out[:] = 100.0  # must not reach the saved tape
    np.testing.assert_allclose(pullback(np.ones(3)), before)


@pytest.mark.parametrize("cot, message", [
    (np.ones(2), "shape"),
    (1.0, "shape"),
])
def test_vjp_refuses_a_cotangent_of_the_wrong_shape(cot, message):
    _, pullback = srcad.vjp(pairs, np.array([0.3, -0.5, 0.7]), jit=False)
    with pytest.raises(srcad.SrcadError, match=message):
        pullback(cot)


def test_vjp_refuses_a_non_tuple_cotangent_for_a_tuple_output():
    _, pullback = srcad.vjp(two_by_two, 0.4, 0.9, jit=False)
    with pytest.raises(srcad.SrcadError, match="tuple"):
        pullback(1.0)


# stop_gradient


def damped(x):
    return x * x + srcad.stop_gradient(x * x) * x


@pytest.mark.parametrize("jit", [False, True])
def test_stop_gradient_blocks_the_gradient(jit):
    got = srcad.grad(damped, jit=jit, on_jit_error="raise")(1.5)
    assert got == pytest.approx(2 * 1.5 + 1.5 ** 2)


def test_stop_gradient_is_the_identity():
    x = np.array([1.0, 2.0])
    assert srcad.stop_gradient(x) is x


# defvjp


def floor_st(x):
    return np.floor(x)


@srcad.defvjp(floor_st)
def _floor_st_vjp(g, ans, x):
    return (g,)  # straight-through


def quantized(x):
    return np.sum(floor_st(x * 3.0) * x)


def device_read(x, y):
    """Stands for foreign code: Numba cannot compile a call to a Python object."""
    return _DEVICE["gain"] * math.sin(x) * y


_DEVICE = {"gain": 2.0}


@srcad.defvjp(device_read)
def _device_vjp(g, ans, x, y):
    return (g * _DEVICE["gain"] * math.cos(x) * y, g * _DEVICE["gain"] * math.sin(x))


def uses_device(x, y):
    s = 0.0
    for i in range(1, 4):
        s += device_read(x * i, y)
    return s


@pytest.mark.parametrize("jit", [False, True])
def test_straight_through_floor(jit):
    x = np.array([0.3, 0.5])
    got = srcad.grad(quantized, jit=jit, on_jit_error="raise")(x)
    np.testing.assert_allclose(got, np.floor(3 * x) + 3 * x)  # floor passes g straight


def test_black_box_rule_runs_plain_with_a_warning():
    g = srcad.grad(uses_device, wrt=(0, 1))
    with pytest.warns(srcad.SrcadWarning, match="Numba could not compile"):
        got = g(0.3, 0.7)
    assert_grad_close(got, fd_grad(uses_device, (0.3, 0.7), (0, 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_grad_close(g(0.3, 0.7), got)


def test_a_rule_overrides_srcads_own(tmp_path):
    """In a fresh process: the override is global to np.sign there."""
    script = textwrap.dedent("""
        import numpy as np, srcad

        @srcad.defvjp(np.sign)
        def _(g, ans, x):
            return (g * 7.0,)

        def f(x):
            return np.sum(np.sign(x))

        print(srcad.grad(f, jit=False)(np.array([0.5, -2.0])).tolist())
    """)
    path = tmp_path / "override.py"
    path.write_text(script)
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                       env={"SRCAD_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[7.0, 7.0]"


# linear algebra under Numba


def flow_loglik(a, z):
    """A normalizing-flow style term: log|det A| and a solve."""
    x = np.linalg.solve(a, z)
    return np.log(abs(np.linalg.det(a))) - 0.5 * np.sum(x * x)


def gram(a):
    low = np.linalg.cholesky(a @ a.T + np.eye(a.shape[0]))
    return np.trace(np.linalg.inv(low)) + np.linalg.norm(np.diag(low))


@pytest.mark.parametrize("jit", [False, True])
def test_linear_algebra_gradients(jit):
    a = np.array([[2.0, 0.3, -0.2], [0.1, 1.5, 0.4], [-0.3, 0.2, 1.8]])
    z = np.array([0.4, -0.2, 0.9])
    got = srcad.grad(flow_loglik, wrt=(0, 1), jit=jit, on_jit_error="raise")(a, z)
    assert_grad_close(got, fd_grad(flow_loglik, (a, z), (0, 1)))
    got = srcad.grad(gram, jit=jit, on_jit_error="raise")(a)
    assert_grad_close(got, fd_grad(gram, (a,), 0))


def clip_crossed(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) * np.array([1.0, 2.0, 3.0]))


def diag_of_wide(m):
    return np.sum(np.diag(m, 1) * np.array([1.0, -2.0]))


@pytest.mark.parametrize("jit", [False, True])
def test_clip_with_crossed_bounds_and_diag_of_a_wide_matrix(jit):
    args = (np.array([0.2, 0.6, 1.4]), 1.0, 0.5)
    got = srcad.grad(clip_crossed, wrt=(0, 1, 2), jit=jit, on_jit_error="raise")(*args)
    assert_grad_close(got, fd_grad(clip_crossed, args, (0, 1, 2)))
    m = np.arange(6.0).reshape(2, 3)
    got = srcad.grad(diag_of_wide, jit=jit, on_jit_error="raise")(m)
    assert_grad_close(got, fd_grad(diag_of_wide, (m,), 0))


def soft_step(x, k):
    return 1.0 / (1.0 + math.exp(-k * x))


@srcad.defvjp(soft_step)
def _soft_step_vjp(g, ans, x, k):
    s = g * ans * (1.0 - ans)
    return (s * k, s * x)


@srcad.defjvp(soft_step)
def _soft_step_jvp(t, ans, x, k):
    return ans * (1.0 - ans) * (t[0] * k + t[1] * x)


def uses_soft_step(x, k):
    s = 0.0
    for i in range(1, 4):
        s += soft_step(x * i, k) * i
    return s


@pytest.mark.parametrize("jit", [False, True])
def test_custom_jvp_and_vjp_agree_and_match_finite_differences(jit):
    args, v = (0.3, 1.7), (0.4, -1.1)
    _, tan = srcad.jvp(uses_soft_step, args, v, jit=jit, on_jit_error="raise")
    grads = srcad.grad(uses_soft_step, wrt=(0, 1), jit=jit, on_jit_error="raise")(*args)
    assert tan == pytest.approx(grads[0] * v[0] + grads[1] * v[1], rel=1e-12)
    assert_grad_close(grads, fd_grad(uses_soft_step, args, (0, 1)))


def test_forward_mode_without_a_tangent_rule_is_refused():
    with pytest.raises(srcad.NoRuleError, match="defjvp"):
        srcad.jvp(uses_device, (0.3, 0.7), (1.0, 0.0), jit=False)


def _spectral_energy(x):
    return float(np.sum(np.abs(np.fft.fftn(x)) ** 2))  # np.fft.fftn: no rule of srcad's


@srcad.defvjp(_spectral_energy)
def _spectral_energy_vjp(g, ans, x):
    return (g * 2.0 * x.shape[0] * x,)  # Parseval: the energy is n * sum(x ** 2)


def _spectral_annotated(x) -> float:
    return float(np.sum(np.abs(np.fft.fftn(x * 2.0)) ** 2))


@srcad.defvjp(_spectral_annotated)
def _spectral_annotated_vjp(g, ans, x):
    return (g * 8.0 * x.shape[0] * x,)


def loss_through_black_boxes(x):
    return 0.5 * _spectral_energy(x) + _spectral_annotated(x) + np.sum(x)


def test_a_black_box_from_an_array_to_a_float_has_a_float_output():
    # its output's kind comes from its annotation, or from running it on stand-ins: it
    # was taken to be shaped like its argument, and `loss` refused as array-valued
    x = np.array([0.3, -0.2, 0.5])
    value, grad = srcad.value_and_grad(loss_through_black_boxes, jit=False)(x)
    assert value == pytest.approx(loss_through_black_boxes(x))
    np.testing.assert_allclose(grad, fd_grad(loss_through_black_boxes, (x,), 0), atol=1e-6)

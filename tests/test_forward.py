"""Forward mode: jvp against reverse mode (the dot-product identity), Jacobians both ways,
the mode choice, tape reuse, and worked examples."""
import math

import numpy as np
import pytest

import srcad
from tests.corpus_functions import CORPUS
from tests.fd import fd_grad


def _direction(arg, rng):
    return rng.normal(size=np.shape(arg)) if np.ndim(arg) else float(rng.normal())


def _dot(a, b):
    return float(np.sum(np.asarray(a) * np.asarray(b)))


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_jvp_agrees_with_grad_by_the_dot_product_identity(case):
    """<J v, 1> from forward mode equals <v, J^T 1> from reverse mode."""
    args = case.args_factory()
    rng = np.random.default_rng(7)
    g = srcad.grad(case.func, wrt=case.wrt, jit=False)
    positions = g.positions
    tangents = tuple(_direction(args[i], rng) for i in positions)
    value, tan = srcad.jvp(case.func, args, tangents, wrt=positions, jit=case.jit,
                           on_jit_error="raise")
    assert value == pytest.approx(case.func(*case.args_factory()), rel=1e-10, abs=1e-12)
    grads = g(*case.args_factory())
    grads = grads if isinstance(grads, tuple) else (grads,)
    want = sum(_dot(gr, t) for gr, t in zip(grads, tangents))
    assert tan == pytest.approx(want, rel=1e-9, abs=1e-9)


def residuals(p, t, y):
    """Exponential decay model a * exp(-b t) + c minus the data, written with a loop."""
    r = np.empty(t.shape[0])
    for i in range(t.shape[0]):
        r[i] = p[0] * math.exp(-p[1] * t[i]) + p[2] - y[i]
    return r


def net(x, y):
    """Two inputs, two outputs."""
    h = math.tanh(0.5 * x - 0.3 * y)
    return np.array([h * x + y, math.exp(0.2 * h) - x * y])


def wide(x):  # 100 inputs, 3 outputs
    return np.array([np.sum(np.sin(x)), np.sum(x * x), np.prod(1.0 + 0.01 * x)])


def tall(x):  # 3 inputs, 100 outputs
    out = np.empty(100)
    for k in range(100):
        out[k] = math.sin(0.01 * k * x[0]) + x[1] * k + x[2] * x[0]
    return out


def _fd_jacobian(f, x, eps=1e-6):
    cols = []
    for k in range(x.size):
        hi, lo = x.copy(), x.copy()
        hi.flat[k] += eps
        lo.flat[k] -= eps
        cols.append((f(hi) - f(lo)) / (2 * eps))
    return np.stack(cols, axis=-1)


@pytest.mark.parametrize("jit", [False, True])
def test_mode_choice_and_both_modes_agree(jit):
    x = np.linspace(-1.0, 1.0, 100)
    jw = srcad.jacobian(wide, jit=jit, on_jit_error="raise")
    jw_x = jw(x)
    assert jw.last_mode == "rev" and jw_x.shape == (3, 100)
    np.testing.assert_allclose(jw_x, srcad.jacobian(wide, mode="fwd", jit=jit)(x), rtol=1e-10)
    np.testing.assert_allclose(jw_x, _fd_jacobian(wide, x), rtol=1e-5, atol=1e-7)
    x3 = np.array([0.3, -0.2, 0.5])
    jt = srcad.jacobian(tall, jit=jit, on_jit_error="raise")
    jt_x = jt(x3)
    assert jt.last_mode == "fwd" and jt_x.shape == (100, 3)
    np.testing.assert_allclose(jt_x, srcad.jacobian(tall, mode="rev", jit=jit)(x3), rtol=1e-10)
    np.testing.assert_allclose(jt_x, _fd_jacobian(tall, x3), rtol=1e-5, atol=1e-6)


def test_reverse_jacobian_runs_the_forward_sweep_once():
    jac = srcad.jacobian(wide, mode="rev", jit=False)
    x = np.linspace(-1.0, 1.0, 100)
    jac(x)  # the module is shared by every derivative of `wide` with these options
    before = jac.compiled.forward_sweeps
    jac(x)
    assert jac.compiled.forward_sweeps - before == 1


def test_two_input_two_output_network():
    jac = srcad.jacobian(net, wrt=(0, 1), jit=False)
    dx, dy = jac(0.4, -0.7)
    assert dx.shape == (2,) and dy.shape == (2,)
    want_x = fd_grad(lambda x: net(x, -0.7)[0], (0.4,), 0), fd_grad(lambda x: net(x, -0.7)[1],
                                                                    (0.4,), 0)
    want_y = fd_grad(lambda y: net(0.4, y)[0], (-0.7,), 0), fd_grad(lambda y: net(0.4, y)[1],
                                                                    (-0.7,), 0)
    np.testing.assert_allclose(dx, want_x, rtol=1e-6)  # df1/dx, df2/dx
    np.testing.assert_allclose(dy, want_y, rtol=1e-6)  # df1/dy, df2/dy


def test_levenberg_marquardt_recovers_the_decay_parameters():
    rng = np.random.default_rng(3)
    t = np.linspace(0.0, 4.0, 40)
    true = np.array([2.5, 1.3, 0.4])
    y = true[0] * np.exp(-true[1] * t) + true[2] + 0.002 * rng.normal(size=t.size)
    jac = srcad.jacobian(residuals, wrt=0, jit=False)
    p, lam = np.array([1.0, 0.5, 0.0]), 1e-2
    for _ in range(50):
        r = residuals(p, t, y)
        j = jac(p, t, y)
        step = np.linalg.solve(j.T @ j + lam * np.diag(np.diag(j.T @ j)), -j.T @ r)
        if np.sum(residuals(p + step, t, y) ** 2) < np.sum(r ** 2):
            p, lam = p + step, lam * 0.3
        else:
            lam *= 10.0
    np.testing.assert_allclose(p, true, atol=0.02)


def test_jvp_refuses_a_wrong_number_of_tangents():
    with pytest.raises(srcad.SrcadError, match="tangents"):
        srcad.jvp(net, (0.4, 0.7), (1.0,), jit=False)


def scaled(x, y):
    return np.sum(x * y)


def test_jvp_names_the_argument_whose_tangent_has_the_wrong_shape():
    with pytest.raises(srcad.SrcadError, match=r"the tangent has shape \(2,\); `y` has shape "
                                               r"\(3,\)"):
        srcad.jvp(scaled, (np.ones(3), np.ones(3)), (np.ones(3), np.ones(2)), jit=False)
    _, pullback = srcad.vjp(scaled, np.ones(3), np.ones(3), jit=False)
    with pytest.raises(srcad.SrcadError, match="the output is a scalar; the cotangent has "
                                               r"shape \(3,\)"):
        pullback(np.ones(3))


def _edge_cases():
    from tests.test_edge_cases import GRAD_CASES
    return [pytest.param(*p.values, id=p.id) for p in GRAD_CASES]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # sqrt/log of the branch not taken
@pytest.mark.parametrize("func, make_args, wrt, jit", _edge_cases())
def test_jvp_agrees_with_grad_on_the_edge_cases(func, make_args, wrt, jit):
    rng = np.random.default_rng(11)
    g = srcad.grad(func, wrt=wrt, jit=False)
    args = make_args()
    tangents = tuple(_direction(args[i], rng) for i in g.positions)
    value, tan = srcad.jvp(func, make_args(), tangents, wrt=g.positions, jit=jit,
                           on_jit_error="raise")
    grads = g(*make_args())
    grads = grads if isinstance(grads, tuple) else (grads,)
    want = sum(_dot(gr, t) for gr, t in zip(grads, tangents))
    assert np.isfinite(tan) == np.isfinite(want)
    if np.isfinite(want):
        assert tan == pytest.approx(want, rel=1e-8, abs=1e-9)


def inner(p):
    return p * p


def outer(p, q):
    return inner(p) + q


def constant_helper_calls(x, y):
    """Helpers whose arguments carry no tangent, directly and one call down."""
    return inner(0.5) + x + outer(0.5, x) * y


@pytest.mark.parametrize("jit", [False, True])
def test_jvp_through_helpers_called_with_constants(jit):
    out, tan = srcad.jvp(constant_helper_calls, (1.0, 2.0), (1.0, 0.5), jit=jit,
                         on_jit_error="raise")
    assert out == pytest.approx(constant_helper_calls(1.0, 2.0))
    assert tan == pytest.approx(1.0 + 1.0 * 2.0 + (0.25 + 1.0) * 0.5)


def sum_of_broadcast_with_a_constant(a, m):
    w = np.zeros_like(m)
    return np.sum(np.sum(w + a, axis=1) * np.arange(m.shape[0]))


def test_tangent_keeps_the_broadcast_shape_when_an_operand_is_constant():
    a, m = np.array([0.3, -0.5, 0.8]), np.ones((2, 3))
    t = np.array([1.0, 2.0, -1.0])
    _, tangent = srcad.jvp(sum_of_broadcast_with_a_constant, (a, m), (t,), wrt=0, jit=False)
    g = srcad.grad(sum_of_broadcast_with_a_constant, jit=False)(a, m)
    assert np.isclose(tangent, np.dot(g, t))
    assert np.allclose(g, fd_grad(sum_of_broadcast_with_a_constant, (a, m), 0))

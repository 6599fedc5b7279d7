"""srcad with `scipy.optimize`, as its users write it: real optimizations that must reach a
known optimum, with srcad's value and gradient, Hessian-vector products and Jacobians
passed to SciPy as they are, and `srcad.scipy.hessp` for SciPy's `hessp(x, p, *args)`."""
import pickle
import subprocess
import sys

import numpy as np
import pytest
import scipy.optimize

import srcad
import srcad.scipy
from tests.fd import fd_grad


def rosenbrock(x, b):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += b * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return s


X0 = np.array([1.3, 0.7, 0.8, 1.9, 1.2])  # SciPy's tutorial start, n = 5; the minimum is ones


def test_importing_srcad_and_srcad_scipy_loads_no_scipy_optimize():
    code = "import sys, srcad, srcad.scipy; print('scipy.optimize' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert run.stdout.strip() == "False"


def test_value_and_grad_gives_minimize_a_float_and_a_float64_array():
    value, gradient = srcad.value_and_grad(rosenbrock)(X0, 100.0)
    assert type(value) is float
    assert type(gradient) is np.ndarray and gradient.dtype == np.float64
    assert gradient.shape == X0.shape


def test_rosenbrock_with_l_bfgs_b_and_value_and_grad():
    fit = scipy.optimize.minimize(srcad.value_and_grad(rosenbrock), X0, jac=True,
                                  args=(100.0,), method="L-BFGS-B", tol=1e-10)
    assert fit.success, fit.message
    np.testing.assert_allclose(fit.x, np.ones(5), atol=1e-6)


HESSP = {
    "lambda": lambda x, p, *args: srcad.hvp(rosenbrock, (x, *args), p),  # as users write it
    "srcad.scipy.hessp": srcad.scipy.hessp(rosenbrock),
}


@pytest.mark.parametrize("form", HESSP)
@pytest.mark.parametrize("method", ["trust-krylov", "Newton-CG"])
def test_rosenbrock_with_hessp(method, form):
    fit = scipy.optimize.minimize(srcad.value_and_grad(rosenbrock), X0, jac=True,
                                  hessp=HESSP[form], args=(100.0,), method=method, tol=1e-8)
    assert fit.success, fit.message
    np.testing.assert_allclose(fit.x, np.ones(5), atol=1e-6)


def test_rosenbrock_with_the_hessian_trust_exact():
    fit = scipy.optimize.minimize(rosenbrock, X0, jac=srcad.grad(rosenbrock),
                                  hess=srcad.hessian(rosenbrock), args=(100.0,),
                                  method="trust-exact", tol=1e-10)
    assert fit.success, fit.message
    np.testing.assert_allclose(fit.x, np.ones(5), atol=1e-6)


def test_hessp_is_the_hessian_times_p_and_pickles_as_its_call():
    p = np.array([0.3, -1.0, 0.5, 2.0, -0.7])
    hessp = srcad.scipy.hessp(rosenbrock)
    want = srcad.hessian(rosenbrock)(X0, 100.0) @ p
    np.testing.assert_allclose(hessp(X0, p, 100.0), want, rtol=1e-12)
    again = pickle.loads(pickle.dumps(hessp))
    assert again.__name__ == "hessp_of_rosenbrock"
    np.testing.assert_allclose(again(X0, p, 100.0), want, rtol=1e-12)


def test_hessp_refuses_a_function_without_source_when_made():
    with pytest.raises(srcad.SrcadError):
        srcad.scipy.hessp(np.sum)


def decay_residuals(p, t, y):
    out = np.empty(t.shape[0])
    for i in range(t.shape[0]):
        out[i] = p[0] * np.exp(-p[1] * t[i]) + p[2] - y[i]
    return out


def test_exponential_decay_with_least_squares_and_jacobian():
    rng = np.random.default_rng(3)
    t = np.linspace(0.0, 4.0, 40)
    true = np.array([2.5, 1.3, 0.4])
    y = decay_residuals(true, t, np.zeros(t.size)) + 0.01 * rng.standard_normal(t.size)
    start = np.array([1.0, 0.5, 0.0])
    jac = srcad.jacobian(decay_residuals)
    J = jac(start, t, y)  # as least_squares calls it: (x, *args)
    assert J.shape == (40, 3) and J.dtype == np.float64
    h = 1e-6  # central differences of the residual vector, a column per parameter
    fd = np.stack([(decay_residuals(start + h * e, t, y) - decay_residuals(start - h * e, t, y))
                   / (2 * h) for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(J, fd, rtol=1e-6, atol=1e-8)
    fit = scipy.optimize.least_squares(decay_residuals, start, jac=jac, args=(t, y))
    assert fit.success, fit.message
    np.testing.assert_allclose(fit.x, true, rtol=0.02)


def acceleration(x, v, omega, zeta):
    return -omega * omega * x - 2.0 * zeta * omega * v


def oscillator(params, dt, n):
    """x'' = -omega^2 x - 2 zeta omega x', from x = amplitude at rest: n RK4 steps."""
    omega, zeta, x = params[0], params[1], params[2]
    v = 0.0
    out = np.empty(n)
    for k in range(n):
        k1x, k1v = v, acceleration(x, v, omega, zeta)
        k2x = v + 0.5 * dt * k1v
        k2v = acceleration(x + 0.5 * dt * k1x, v + 0.5 * dt * k1v, omega, zeta)
        k3x = v + 0.5 * dt * k2v
        k3v = acceleration(x + 0.5 * dt * k2x, v + 0.5 * dt * k2v, omega, zeta)
        k4x = v + dt * k3v
        k4v = acceleration(x + dt * k3x, v + dt * k3v, omega, zeta)
        x = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        v = v + dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v)
        out[k] = x
    return out


def oscillator_misfit(params, observed, dt):
    r = oscillator(params, dt, observed.shape[0]) - observed
    return 0.5 * np.sum(r * r)


TRUE = np.array([2.0, 0.15, 1.0])  # omega, zeta, amplitude
START = np.array([1.7, 0.3, 0.7])
DT = 0.1
OBSERVED = oscillator(TRUE, DT, 100) + 0.01 * np.random.default_rng(7).standard_normal(100)


def test_oscillator_gradient_at_the_start_matches_finite_differences():
    value, gradient = srcad.value_and_grad(oscillator_misfit)(START, OBSERVED, DT)
    assert value == pytest.approx(oscillator_misfit(START, OBSERVED, DT), rel=1e-12)
    want = fd_grad(oscillator_misfit, (START, OBSERVED, DT))
    np.testing.assert_allclose(gradient, want, rtol=1e-6)


@pytest.mark.parametrize("method", ["L-BFGS-B", "trust-krylov"])
def test_oscillator_parameters_from_noisy_data(method):
    hessp = None if method == "L-BFGS-B" else srcad.scipy.hessp(oscillator_misfit)
    fit = scipy.optimize.minimize(srcad.value_and_grad(oscillator_misfit), START, jac=True,
                                  hessp=hessp, args=(OBSERVED, DT), method=method)
    assert fit.success, fit.message
    np.testing.assert_allclose(fit.x, TRUE, rtol=0.01)  # the noise moves the optimum a little
    gradient = srcad.grad(oscillator_misfit)(fit.x, OBSERVED, DT)
    assert np.max(np.abs(gradient)) < 1e-4


def pair(x, y):
    return x * y, x + y


def through_a_pair(x):
    a, b = pair(x[0], x[1])
    return a * b


def test_hessp_through_a_helper_returning_a_tuple():
    x, p = np.array([1.5, 2.0]), np.array([1.0, -1.0])
    hv = srcad.scipy.hessp(through_a_pair, jit=False)(x, p)
    a, b = x  # f = a b (a + b) = a^2 b + a b^2: H = [[2b, 2a + 2b], [2a + 2b, 2a]]
    np.testing.assert_allclose(hv, np.array([[2 * b, 2 * (a + b)], [2 * (a + b), 2 * a]]) @ p)

"""Second derivatives: `srcad.hvp` and `srcad.hessian`, checked against second-order
central finite differences of the function's values, and by symmetry."""
import numpy as np
import pytest

import srcad
from tests.corpus_functions import CORPUS
from tests.fd import resolve_position


def _direction(arg, rng):
    return rng.standard_normal(np.shape(arg)) if np.ndim(arg) else float(rng.standard_normal())


def _moved(args, positions, dirs, h):
    out = list(args)
    for p, d in zip(positions, dirs):
        out[p] = np.array(args[p], dtype=np.float64) + h * d if np.ndim(args[p]) \
            else args[p] + h * d
    return out


def fd_second(f, args, positions, v, w, h):
    """v' H w from four values of f (no derivative code involved)."""
    def at(a, b):
        moved = _moved(args, positions, [a * x for x in v], h)
        return float(f(*_moved(moved, positions, [b * x for x in w], h)))
    return (at(1, 1) - at(1, -1) - at(-1, 1) + at(-1, -1)) / (4 * h * h)


def _dot(a, b):
    return sum(float(np.sum(np.asarray(x) * np.asarray(y))) for x, y in zip(a, b))


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CORPUS])
def test_hvp_matches_second_differences_on_the_corpus(case):
    args = case.args_factory()
    positions = tuple(resolve_position(case.func, w) for w in case.wrt)
    rng = np.random.default_rng(7)
    v = [_direction(args[p], rng) for p in positions]
    w = [_direction(args[p], rng) for p in positions]
    hv = srcad.hvp(case.func, args, tuple(v), wrt=positions, jit=False)
    got = _dot(w, hv)
    scale = max(1.0, *(float(np.max(np.abs(args[p]))) for p in positions))
    # the difference quotient at two steps: where they disagree, a branch flips in between
    coarse, fine = (fd_second(case.func, args, positions, v, w, h * scale) for h in (2e-4, 1e-4))
    assert abs(coarse - fine) <= 1e-3 * max(1.0, abs(fine)), "a kink lies within the step"
    assert abs(got - fine) <= 2e-4 * max(1.0, abs(fine)), (got, fine)


def spring_chain(x, k):
    """Energy of a chain of springs with a cubic stiffening, written with a loop and an
    element write."""
    n = x.shape[0]
    stretch = np.zeros(n - 1)
    for i in range(n - 1):
        stretch[i] = x[i + 1] - x[i] - 1.0
    e = 0.0
    for i in range(n - 1):
        s = stretch[i]
        if s > 0.0:
            e += k * s * s + s ** 4
        else:
            e += k * s * s
    return e + 0.1 * np.sum(np.sin(x) * x)


X0 = np.array([0.1, 1.3, 2.05, 3.4, 4.2])


@pytest.mark.parametrize("jit", [False, True])
def test_hessian_of_a_loop_with_writes_and_a_branch(jit):
    h = srcad.hessian(spring_chain, wrt=0, jit=jit)(X0, 2.0)
    assert h.shape == (5, 5)
    assert np.allclose(h, h.T, atol=1e-12)
    n, e = X0.size, np.eye(X0.size)
    ref = np.array([[fd_second(spring_chain, (X0, 2.0), (0,), [e[i]], [e[j]], 1e-4)
                     for j in range(n)] for i in range(n)])
    assert np.allclose(h, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("jit", [False, True])
def test_hessian_blocks_for_a_tuple_wrt(jit):
    blocks = srcad.hessian(spring_chain, wrt=(0, "k"), jit=jit)(X0, 2.0)
    (hxx, hxk), (hkx, hkk) = blocks
    assert hxx.shape == (5, 5) and hxk.shape == (5,) and hkx.shape == (5,) \
        and isinstance(hkk, float) or np.ndim(hkk) == 0
    assert np.allclose(hxk, hkx, atol=1e-12)
    e = np.eye(5)
    for i in range(5):
        ref = fd_second(spring_chain, (X0, 2.0), (0, 1), [e[i], 0.0], [np.zeros(5), 1.0], 1e-4)
        assert abs(hxk[i] - ref) < 1e-5
    assert abs(hkk) < 1e-12  # the energy is linear in k


def test_hvp_is_the_hessian_times_the_vector():
    v = np.array([0.3, -1.0, 0.5, 2.0, -0.7])
    h = srcad.hessian(spring_chain, jit=False)(X0, 2.0)
    hv = srcad.hvp(spring_chain, (X0, 2.0), v, jit=False)
    assert np.allclose(hv, h @ v, rtol=1e-12, atol=1e-12)


def test_hvp_of_a_scalar_argument_is_a_float():
    def f(x, y):
        return x ** 3 * y + np.sin(x * y)
    hv = srcad.hvp(f, (0.7, 1.3), 1.0, wrt=0, jit=False)
    assert isinstance(hv, float)
    assert abs(hv - (6 * 0.7 * 1.3 - 1.3 ** 2 * np.sin(0.7 * 1.3))) < 1e-12


def rosenbrock(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return s


def test_newton_steps_with_the_exact_hessian_converge_quadratically():
    hess = srcad.hessian(rosenbrock, jit=True)
    grad = srcad.grad(rosenbrock, jit=True)
    x = np.array([0.9, 0.75, 0.6, 0.4])
    norms = []
    for _ in range(8):
        x = x - np.linalg.solve(hess(x), grad(x))
        norms.append(np.linalg.norm(x - 1.0))
    assert np.allclose(x, 1.0, atol=1e-12)
    close = [n for n in norms if 1e-12 < n < 1e-2]
    assert all(b < 10 * a * a for a, b in zip(close, close[1:]))  # quadratic near the end


def flow_loglik(a, b, y):
    """Log-likelihood of samples y (rows) under the affine flow y = a z + b, z ~ N(0, I):
    log N(a^-1 (y - b)) - log |det a| per sample."""
    sign, logdet = np.linalg.slogdet(a)
    total = 0.0
    for i in range(y.shape[0]):
        z = np.linalg.solve(a, y[i] - b)
        total += -0.5 * np.dot(z, z) - logdet - 0.5 * z.shape[0] * np.log(2.0 * np.pi)
    return total


A = np.array([[1.4, 0.3, -0.2], [-0.5, 0.9, 0.4], [0.2, -0.3, -1.1]])  # det < 0
B = np.array([0.2, -0.1, 0.3])
Y = np.random.default_rng(3).standard_normal((6, 3)) @ A.T + B


@pytest.mark.parametrize("jit", [False, True])
def test_flow_log_likelihood_gradient_is_the_closed_form(jit):
    ga, gb = srcad.grad(flow_loglik, wrt=(0, 1), jit=jit)(A, B, Y)
    ainv = np.linalg.inv(A)
    z = (Y - B) @ ainv.T
    # d/da = sum_i a^-T z_i z_i^T - n a^-T ; d/db = sum_i a^-T z_i
    assert np.allclose(ga, ainv.T @ z.T @ z - len(Y) * ainv.T, rtol=1e-10, atol=1e-10)
    assert np.allclose(gb, ainv.T @ z.sum(axis=0), rtol=1e-10, atol=1e-10)


def test_flow_log_likelihood_forward_and_reverse_agree():
    rng = np.random.default_rng(11)
    ta, tb = rng.standard_normal((3, 3)), rng.standard_normal(3)
    _, tangent = srcad.jvp(flow_loglik, (A, B, Y), (ta, tb), wrt=(0, 1), jit=False)
    ga, gb = srcad.grad(flow_loglik, wrt=(0, 1), jit=False)(A, B, Y)
    assert np.isclose(tangent, np.sum(ga * ta) + np.sum(gb * tb), rtol=1e-12)


def test_flow_log_likelihood_hessian_in_the_shift():
    # in b the log-likelihood is quadratic: H = -n a^-T a^-1
    h = srcad.hessian(flow_loglik, wrt=1, jit=False)(A, B, Y)
    ainv = np.linalg.inv(A)
    assert np.allclose(h, -len(Y) * ainv.T @ ainv, rtol=1e-10, atol=1e-10)


def test_hessian_refuses_a_function_without_second_derivative_rules():
    def f(a):
        return np.sum(np.linalg.cholesky(a))
    with pytest.raises(srcad.SrcadError) as err:
        srcad.hessian(f, jit=False)(np.eye(2) * 2.0)
    text = str(err.value)
    assert "test_hessian.py" in text and "cholesky" in text and "hint:" in text


def test_hessian_needs_a_scalar_output():
    def f(x):
        return x * 2.0
    with pytest.raises(srcad.SrcadError, match="scalar output"):
        srcad.hessian(f, jit=False)(np.ones(3))


def test_hvp_needs_one_vector_per_wrt_argument():
    with pytest.raises(srcad.SrcadError, match="one vector per argument"):
        srcad.hvp(spring_chain, (X0, 2.0), (np.ones(5),), wrt=(0, 1), jit=False)
    with pytest.raises(srcad.SrcadError, match="shape"):
        srcad.hvp(spring_chain, (X0, 2.0), np.ones(4), jit=False)

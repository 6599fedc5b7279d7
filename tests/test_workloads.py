"""Realistic numeric workloads, written with plain loops, against finite differences.

Every workload is a module-level function below. For each one:

- the gradient of `srcad.value_and_grad` matches central finite differences at a small
  size, with `jit=False` and with `jit=True, on_jit_error="raise"` (so a fallback to plain
  Python is a test failure, not a warning);
- at a moderate size under `jit=True` the value equals the function's own value, the
  gradient is finite, and (for smooth workloads) it matches a finite difference along one
  random direction;
- the function itself compiles with plain `numba.njit` (its helpers njit-ed too), so a
  fallback of the generated code would be srcad's fault.

Known bugs are `xfail(strict=True)` at the end of the file, each with a minimal reproducer.
"""

import functools
import math
import types

import numba
import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, fd_grad
from tests.primal import assert_primal

# ---------------------------------------------------------------------------------------
# W1: tanh recurrence


def tanh_rnn(w, x):
    h = 0.0
    loss = 0.0
    for i in range(x.shape[0]):
        h = np.tanh(w * h + x[i])
        loss += h ** 2
    return loss


def tanh_rnn_int_init(w, x):
    h = 0  # an int at first, a float after one step (Numba unifies them)
    loss = 0
    for i in range(len(x)):
        h = math.tanh(w * h + x[i])
        loss = loss + h * h
    return loss


# ---------------------------------------------------------------------------------------
# W2: Lennard-Jones energy


def lennard_jones(pos, eps, sigma):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            dz = pos[i, 2] - pos[j, 2]
            r = math.sqrt(dx * dx + dy * dy + dz * dz)
            e += 4.0 * eps * ((sigma / r) ** 12 - (sigma / r) ** 6)
    return e


def lennard_jones_pow(pos):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            dz = pos[i, 2] - pos[j, 2]
            r2 = dx ** 2 + dy ** 2 + dz ** 2
            e += r2 ** -6 - 2.0 * r2 ** -3
    return e


def lj_cutoff(pos, rc):
    n = pos.shape[0]
    e = 0.0
    for i in range(n - 1):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r2 = np.sum(d * d)
            if r2 > rc * rc:
                continue
            inv6 = 1.0 / r2 ** 3
            e += 4.0 * (inv6 * inv6 - inv6)
    return e


def lj_pair(a, b, eps):
    d = a - b
    r2 = np.dot(d, d)
    s6 = 1.0 / (r2 * r2 * r2)
    return 4.0 * eps * (s6 * s6 - s6)


def lj_helper_rows(pos, eps):
    e = 0.0
    for i in range(pos.shape[0]):
        for j in range(i + 1, pos.shape[0]):
            e += lj_pair(pos[i], pos[j], eps)
    return e


# ---------------------------------------------------------------------------------------
# W3: MLP


def mlp(W1, W2, X, T):
    H = X @ W1
    A = np.where(H > 0, H, 0.0)
    Y = A @ W2
    loss = np.sum((Y - T) ** 2)
    return loss


def mlp_loops(W1, W2, X, T):
    n, d = X.shape
    h = W1.shape[1]
    o = W2.shape[1]
    loss = 0.0
    for s in range(n):
        a = np.zeros(h)
        for k in range(h):
            z = 0.0
            for i in range(d):
                z += X[s, i] * W1[i, k]
            if z > 0:
                a[k] = z
        for m in range(o):
            y = 0.0
            for k in range(h):
                y += a[k] * W2[k, m]
            loss += (y - T[s, m]) ** 2
    return loss


# ---------------------------------------------------------------------------------------
# W4: Huber loss


def huber(pred, target, scale):
    n = pred.shape[0]
    total = 0.0
    for i in range(n):
        r = (pred[i] - target[i]) / scale
        a = abs(r)
        if a <= 1.0:
            total += 0.5 * r * r
        else:
            total += a - 0.5
    return total * scale * scale / n


# ---------------------------------------------------------------------------------------
# W5: products over box dimensions


def box_overlap(p, box):
    n = p.shape[0]
    m = box.shape[1]
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            out[i, j] = (np.prod(box[:, j]) - np.prod(p[i, :])) / np.prod(box[:, j])
    return np.sum(out ** 2)


# ---------------------------------------------------------------------------------------
# W6: RK4 Lorenz


def lorenz(x, y, z, s, r, b):
    return s * (y - x), x * (r - z) - y, x * y - b * z


def rk4_lorenz(x, y, z, s, r, b, nsteps):
    dt = 0.005
    for k in range(nsteps):
        k1x, k1y, k1z = lorenz(x, y, z, s, r, b)
        k2x, k2y, k2z = lorenz(x + 0.5 * dt * k1x, y + 0.5 * dt * k1y, z + 0.5 * dt * k1z,
                               s, r, b)
        k3x, k3y, k3z = lorenz(x + 0.5 * dt * k2x, y + 0.5 * dt * k2y, z + 0.5 * dt * k2z,
                               s, r, b)
        k4x, k4y, k4z = lorenz(x + dt * k3x, y + dt * k3y, z + dt * k3z, s, r, b)
        x = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        y = y + dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
        z = z + dt / 6.0 * (k1z + 2.0 * k2z + 2.0 * k3z + k4z)
    return (x - 1.0) ** 2 + y * z


def lorenz_arr(u, s, r, b):
    out = np.empty(3)
    out[0] = s * (u[1] - u[0])
    out[1] = u[0] * (r - u[2]) - u[1]
    out[2] = u[0] * u[1] - b * u[2]
    return out


def rk4_lorenz_arr(u0, s, r, b, nsteps):
    dt = 0.005
    u = u0.copy()
    for k in range(nsteps):
        k1 = lorenz_arr(u, s, r, b)
        k2 = lorenz_arr(u + 0.5 * dt * k1, s, r, b)
        k3 = lorenz_arr(u + 0.5 * dt * k2, s, r, b)
        k4 = lorenz_arr(u + dt * k3, s, r, b)
        u = u + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(u * u)


# ---------------------------------------------------------------------------------------
# PDE, particles, losses, solvers


def heat1d(u0, alpha, nsteps):
    n = u0.shape[0]
    u = u0.copy()
    for t in range(nsteps):
        un = np.empty(n)
        un[0] = 0.0
        un[n - 1] = 0.0
        for i in range(1, n - 1):
            un[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u = un
    total = 0.0
    for i in range(n):
        total += u[i] * u[i] * (i + 1)
    return total


def verlet(x0, v0, k, dt, nsteps):
    n = x0.shape[0]
    x = x0.copy()
    v = v0.copy()
    a = np.zeros(n)
    for i in range(n):
        a[i] = -k * x[i] - 0.1 * x[i] ** 3
    for t in range(nsteps):
        for i in range(n):
            x[i] = x[i] + v[i] * dt + 0.5 * a[i] * dt * dt
        for i in range(n):
            anew = -k * x[i] - 0.1 * x[i] ** 3
            v[i] = v[i] + 0.5 * (a[i] + anew) * dt
            a[i] = anew
    e = 0.0
    for i in range(n):
        e += 0.5 * v[i] * v[i] + 0.5 * k * x[i] * x[i]
    return e


def softmax_xent(logits, labels):
    n = logits.shape[0]
    c = logits.shape[1]
    loss = 0.0
    for i in range(n):
        m = logits[i, 0]
        for j in range(1, c):
            if logits[i, j] > m:
                m = logits[i, j]
        s = 0.0
        for j in range(c):
            s += math.exp(logits[i, j] - m)
        loss += m + math.log(s) - logits[i, labels[i]]
    return loss / n


def newton_cubic(c, x0):
    # the root of x**3 + c*x - 1; dx/dc = -x / (3x**2 + c) by the implicit function theorem
    x = x0
    it = 0
    while it < 100:
        f = x ** 3 + c * x - 1.0
        if abs(f) < 1e-13:
            break
        x = x - f / (3.0 * x * x + c)
        it += 1
    return x


def newton_per_element(cs):
    total = 0.0
    for i in range(cs.shape[0]):
        x = 1.0
        dx = 1.0
        while abs(dx) > 1e-13:
            dx = (x ** 3 + cs[i] * x - 1.0) / (3.0 * x * x + cs[i])
            x -= dx
        total += x * cs[i]
    return total


def piecewise(x, a):
    total = 0.0
    for i in range(x.shape[0]):
        v = x[i]
        if v < -2.0:
            y = -a * v - 1.0
        elif v < -1.0:
            y = v * v * a
        elif v < 0.0:
            y = math.sin(a * v)
        elif v < 1.0:
            y = math.exp(v) * a
        elif v < 2.0:
            y = a / (1.0 + v)
        else:
            y = math.log(v) + a * a
        total += y * y
    return total


def cumsum_loss(x, w):
    n = x.shape[0]
    c = np.zeros(n)
    c[0] = x[0] * w
    for i in range(1, n):
        c[i] = c[i - 1] + x[i] * w
    total = 0.0
    for i in range(n):
        total += math.sin(c[i])
    return total


def bilinear(img, px, py):
    total = 0.0
    for k in range(px.shape[0]):
        x = px[k]
        y = py[k]
        i = int(math.floor(x))
        j = int(np.floor(y))
        fx = x - math.floor(x)
        fy = y - j
        v = (img[i, j] * (1.0 - fx) * (1.0 - fy) + img[i + 1, j] * fx * (1.0 - fy)
             + img[i, j + 1] * (1.0 - fx) * fy + img[i + 1, j + 1] * fx * fy)
        total += v * v
    return total


def conv2d(img, ker):
    h = img.shape[0] - ker.shape[0] + 1
    w = img.shape[1] - ker.shape[1] + 1
    out = np.zeros((h, w))
    for i in range(h):
        for j in range(w):
            for a in range(ker.shape[0]):
                for b in range(ker.shape[1]):
                    out[i, j] += img[i + a, j + b] * ker[a, b]
    return np.sum(np.tanh(out))


def gauss_seidel(A, b):
    n = b.shape[0]
    x = np.zeros(n)
    for sweep in range(25):
        for i in range(n):
            s = b[i]
            for j in range(n):
                if j != i:
                    s -= A[i, j] * x[j]
            x[i] = s / A[i, i]
    return np.sum(x * x)


# ---------------------------------------------------------------------------------------
# inputs

_RNG_SEED = 20240607


def _rng(salt):
    return np.random.default_rng(_RNG_SEED + salt)


def _lattice(m, jitter, rng):
    g = np.array([[i, j, k] for i in range(m) for j in range(m) for k in range(m)], float)
    return g * 1.12 + jitter * rng.standard_normal(g.shape)


def _small_lattice(n, rng):
    return _lattice(3, 0.05, rng)[:n]


def _spd(n, rng):
    return rng.standard_normal((n, n)) + 2.0 * n * np.eye(n)


# name: (function, small args, wrt, moderate args or None, smooth at moderate size)
WORKLOADS = {
    "W1_tanh_rnn": (
        tanh_rnn, lambda r: (0.7, r.standard_normal(8)), (0, 1),
        lambda r: (0.7, r.standard_normal(100_000)), True),
    "W1_tanh_rnn_int_init": (
        tanh_rnn_int_init, lambda r: (0.6, r.standard_normal(6)), (0, 1), None, True),
    "W2_lennard_jones": (
        lennard_jones, lambda r: (_small_lattice(5, r), 1.0, 1.0), (0, 1, 2),
        lambda r: (_lattice(4, 0.02, r), 1.0, 1.0), True),
    "W2_lennard_jones_pow": (
        lennard_jones_pow, lambda r: (_small_lattice(5, r),), 0,
        lambda r: (_lattice(4, 0.02, r),), True),
    "W2_lj_cutoff": (
        lj_cutoff, lambda r: (_small_lattice(6, r), 1.5), 0, None, True),
    "W2_lj_helper_rows": (
        lj_helper_rows, lambda r: (_small_lattice(5, r), 1.0), (0, 1),
        lambda r: (_lattice(4, 0.02, r), 1.0), True),
    "W3_mlp": (
        mlp, lambda r: (r.standard_normal((3, 4)), r.standard_normal((4, 2)),
                        r.standard_normal((5, 3)), r.standard_normal((5, 2))), (0, 1),
        lambda r: (0.1 * r.standard_normal((32, 64)), 0.1 * r.standard_normal((64, 8)),
                   r.standard_normal((256, 32)), r.standard_normal((256, 8))), False),
    "W3_mlp_loops": (
        mlp_loops, lambda r: (r.standard_normal((3, 4)), r.standard_normal((4, 2)),
                              r.standard_normal((5, 3)), r.standard_normal((5, 2))), (0, 1),
        None, False),
    "W4_huber": (
        huber, lambda r: (2.0 * r.standard_normal(10), r.standard_normal(10), 0.8), (0, 2),
        lambda r: (2.0 * r.standard_normal(100_000), r.standard_normal(100_000), 0.8), True),
    "W5_box_overlap": (
        box_overlap, lambda r: (r.uniform(0.5, 1.5, (3, 2)), r.uniform(1.0, 2.0, (2, 2))),
        (0, 1),
        lambda r: (r.uniform(0.5, 1.5, (200, 5)), r.uniform(1.0, 2.0, (5, 30))), True),
    "W5_box_overlap_zero_coordinate": (
        box_overlap, lambda r: (np.array([[0.7, 1.2], [0.0, 0.9], [1.1, 0.6]]),
                                r.uniform(1.0, 2.0, (2, 2))), (0, 1), None, True),
    "W6_rk4_lorenz_scalars": (
        rk4_lorenz, lambda r: (1.0, 1.0, 1.0, 10.0, 28.0, 8.0 / 3.0, 100), (0, 1, 2, 3, 4, 5),
        lambda r: (1.0, 1.0, 1.0, 10.0, 28.0, 8.0 / 3.0, 2000), False),
    "W6_rk4_lorenz_array": (
        rk4_lorenz_arr, lambda r: (np.array([1.0, 1.0, 1.0]), 10.0, 28.0, 8.0 / 3.0, 100),
        (0, 1, 2, 3),
        lambda r: (np.array([1.0, 1.0, 1.0]), 10.0, 28.0, 8.0 / 3.0, 2000), False),
    "heat1d": (
        heat1d, lambda r: (r.standard_normal(8), 0.2, 5), (0, 1),
        lambda r: (r.standard_normal(200), 0.2, 500), True),
    "verlet": (
        verlet, lambda r: (r.standard_normal(4), r.standard_normal(4), 1.3, 0.05, 10),
        (0, 1, 2, 3),
        lambda r: (r.standard_normal(100), r.standard_normal(100), 1.3, 0.01, 500), True),
    "softmax_xent": (
        softmax_xent, lambda r: (r.standard_normal((4, 3)), np.array([0, 2, 1, 2])), 0,
        lambda r: (r.standard_normal((1000, 10)), r.integers(0, 10, 1000)), True),
    "newton_cubic": (
        newton_cubic, lambda r: (1.5, 1.0), (0, 1), None, True),
    "newton_per_element": (
        newton_per_element, lambda r: (r.uniform(1.0, 3.0, 5),), 0,
        lambda r: (r.uniform(1.0, 3.0, 10_000),), True),
    "piecewise": (
        piecewise, lambda r: (np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.3]), 0.7), (0, 1),
        lambda r: (r.uniform(-3.0, 3.0, 100_000), 0.7), False),
    "cumsum_scan": (
        cumsum_loss, lambda r: (r.standard_normal(6), 0.8), (0, 1),
        lambda r: (r.standard_normal(100_000), 0.8), True),
    "bilinear": (
        bilinear, lambda r: (r.standard_normal((5, 5)), r.uniform(0.2, 3.7, 4),
                             r.uniform(0.2, 3.7, 4)), (0, 1, 2),
        lambda r: (r.standard_normal((64, 64)), r.uniform(0.0, 62.9, 10_000),
                   r.uniform(0.0, 62.9, 10_000)), False),
    "conv2d": (
        conv2d, lambda r: (r.standard_normal((5, 6)), r.standard_normal((3, 2))), (0, 1),
        lambda r: (r.standard_normal((64, 64)), 0.3 * r.standard_normal((5, 5))), True),
    "gauss_seidel": (
        gauss_seidel, lambda r: (_spd(4, r), r.standard_normal(4)), (0, 1), None, True),
}

NAMES = sorted(WORKLOADS)


def _fresh(args):
    return tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)


def _small(name):
    f, make, wrt, _, _ = WORKLOADS[name]
    return f, make(_rng(NAMES.index(name))), wrt


@functools.lru_cache(maxsize=None)
def _vg(f, wrt, jit):
    return srcad.value_and_grad(f, wrt=wrt, jit=jit, on_jit_error="raise")


def _njit_with_helpers(f):
    """`numba.njit(f)`, with the module-level functions it calls njit-ed as well."""
    g = dict(f.__globals__)
    for k, v in list(g.items()):
        if isinstance(v, types.FunctionType) and v.__module__ == f.__module__:
            g[k] = numba.njit(types.FunctionType(v.__code__, g, k, v.__defaults__))
    return g[f.__name__]


def _check_fd(f, args, wrt, jit, rtol=1e-5, atol=1e-6):
    before = _fresh(args)
    value, got = _vg(f, wrt, jit)(*args)
    for a, b in zip(args, before):
        if isinstance(b, np.ndarray):
            assert np.array_equal(a, b), "srcad mutated an argument"
    want = fd_grad(f, before, wrt)
    assert_primal(f, before, value, jit)
    assert_grad_close(got, want, rtol=rtol, atol=atol)


# ---------------------------------------------------------------------------------------
# the workloads


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("name", NAMES)
def test_small_gradient_matches_fd(name, jit):
    f, args, wrt = _small(name)
    _check_fd(f, args, wrt, jit)


@pytest.mark.parametrize("name", [n for n in NAMES if WORKLOADS[n][3] is not None])
def test_moderate_size_under_jit(name):
    f, _, wrt, make_big, smooth = WORKLOADS[name]
    r = _rng(1000 + NAMES.index(name))
    args = make_big(r)
    value, grads = _vg(f, wrt, True)(*_fresh(args))
    np.testing.assert_allclose(value, f(*_fresh(args)), rtol=1e-12, atol=1e-12)
    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    grads = grads if isinstance(wrt, tuple) else (grads,)
    for g, p in zip(grads, positions):
        assert np.shape(g) == np.shape(args[p])
        assert np.all(np.isfinite(g)), f"non-finite gradient for argument {p}"
    if not smooth:
        return
    # one random direction: <grad, v> against a central difference along v
    dirs = [r.standard_normal(np.shape(args[p])) if np.ndim(args[p]) else r.standard_normal()
            for p in positions]
    h = 1e-6

    def moved(sign):
        out = list(_fresh(args))
        for p, v in zip(positions, dirs):
            out[p] = args[p] + sign * h * v
        return out

    fd = (f(*moved(1.0)) - f(*moved(-1.0))) / (2.0 * h)
    ad = sum(float(np.sum(g * v)) for g, v in zip(grads, dirs))
    np.testing.assert_allclose(ad, fd, rtol=1e-4, atol=1e-6 * max(1.0, abs(value)))


@pytest.mark.parametrize("name", NAMES)
def test_primal_compiles_with_numba(name):
    """Establishes that a jit fallback of the gradient would be srcad's fault."""
    f, args, _ = _small(name)
    got = _njit_with_helpers(f)(*_fresh(args))
    np.testing.assert_allclose(got, f(*_fresh(args)), rtol=1e-10)


def test_newton_matches_implicit_derivative():
    c = 1.5
    gc, _ = _vg(newton_cubic, (0, 1), True)(c, 1.0)[1]
    x = newton_cubic(c, 1.0)
    assert gc == pytest.approx(-x / (3.0 * x * x + c), rel=1e-10)


# ---------------------------------------------------------------------------------------
# known bugs


def interp_queries(q, xs, ys):
    """Piecewise-linear interpolation; the cell is found by a `for ... break` search."""
    s = 0.0
    for m in range(q.shape[0]):
        k = 0
        for k in range(xs.shape[0] - 2):
            if xs[k + 1] > q[m]:
                break
        t = (q[m] - xs[k]) / (xs[k + 1] - xs[k])
        v = ys[k] + t * (ys[k + 1] - ys[k])
        s += v * v
    return s


def inner_loop_var_after(X):
    """Minimal form of the bug in interp_queries."""
    s = 0.0
    for i in range(X.shape[0]):
        j = 0
        for j in range(X.shape[1]):
            s += 0.0
        s += X[i, j]  # the last column
    return s




@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_bug_interp_for_break_search(jit):
    xs = np.linspace(0.0, 5.0, 7)
    args = (np.array([0.3, 2.2, 4.1, 3.3]), xs, _rng(7).standard_normal(7))
    _check_fd(interp_queries, args, (0, 2), jit)


def test_bug_inner_loop_var_read_after_loop():
    X = np.arange(9.0).reshape(3, 3)
    got = srcad.grad(inner_loop_var_after, jit=False)(X)
    want = np.zeros((3, 3))
    want[:, 2] = 1.0
    np.testing.assert_array_equal(got, want)


def test_inner_loop_var_primal_compiles():
    args = (np.array([0.3, 2.2, 4.1]), np.linspace(0.0, 5.0, 7), _rng(7).standard_normal(7))
    assert numba.njit(interp_queries)(*args) == pytest.approx(interp_queries(*args))
    X = np.arange(9.0).reshape(3, 3)
    assert numba.njit(inner_loop_var_after)(X) == inner_loop_var_after(X)


def lj_matrix(pos):
    """Vectorized Lennard-Jones: all pairs at once, the diagonal masked by np.where."""
    n = pos.shape[0]
    r2 = np.zeros((n, n))
    for k in range(3):
        c = pos[:, k].copy()
        d = c.reshape(n, 1) - c.reshape(1, n)
        r2 = r2 + d * d
    inv2 = np.where(r2 > 0.0, 1.0 / r2, 0.0)
    inv6 = inv2 * inv2 * inv2
    return 0.5 * np.sum(4.0 * (inv6 * inv6 - inv6))


def safe_divide(x, y):
    return np.sum(np.where(y != 0, x / y, 0.0))


def sqrt_positive(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))




@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("case", ["lj_matrix", "safe_divide", "sqrt_positive"])
def test_bug_where_masks_nan(case, jit):
    r = _rng(11)
    f, args, wrt = {
        "lj_matrix": (lj_matrix, (_small_lattice(4, r),), 0),
        "safe_divide": (safe_divide, (r.standard_normal(4), np.array([0.2, 0.0, 0.5, 0.3])), 0),
        "sqrt_positive": (sqrt_positive, (np.array([0.2, -1.0, 0.5, 0.3]),), 0),
    }[case]
    with np.errstate(divide="ignore", invalid="ignore"):
        _check_fd(f, args, wrt, jit)


def test_where_cases_primal_compiles():
    pos = _small_lattice(4, _rng(11))
    x = np.array([0.2, -1.0, 0.5, 0.3])
    with np.errstate(invalid="ignore", divide="ignore"):
        assert numba.njit(lj_matrix)(pos) == pytest.approx(lj_matrix(pos))
        assert numba.njit(sqrt_positive)(x) == pytest.approx(sqrt_positive(x))
        assert numba.njit(safe_divide)(x, x) == pytest.approx(safe_divide(x, x))


def polynomial(c, x):
    s = 0.0
    for k in range(c.shape[0]):
        s += c[k] * x ** k
    return s


def polynomial_np_power(c, x):
    s = 0.0
    for k in range(c.shape[0]):
        s += c[k] * np.power(x, k)
    return s


def polynomial_on_grid(c, xs):
    s = 0.0
    for k in range(c.shape[0]):
        s += np.sum(c[k] * xs ** k)
    return s




@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("case", ["scalar", "np_power", "array"])
def test_bug_polynomial_at_zero(case, jit):
    c = np.array([0.5, -1.5, 2.0, 0.25])
    f, x = {"scalar": (polynomial, 0.0), "np_power": (polynomial_np_power, 0.0),
            "array": (polynomial_on_grid, np.array([0.0, 0.5, -1.0]))}[case]
    with np.errstate(divide="ignore", invalid="ignore"):
        _check_fd(f, (c, x), (0, 1), jit)


def test_polynomial_primal_compiles():
    c = np.array([0.5, -1.5, 2.0, 0.25])
    assert numba.njit(polynomial)(c, 0.0) == polynomial(c, 0.0)
    assert numba.njit(polynomial_on_grid)(c, np.zeros(2)) == polynomial_on_grid(c, np.zeros(2))


def pairwise_eye(pos):
    n = pos.shape[0]
    r2 = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            d = pos[i] - pos[j]
            r2[i, j] = np.sum(d * d)
    return np.sum(1.0 / (r2 + np.eye(n)))


def test_bug_np_eye_taken_for_user_function():
    pos = _small_lattice(4, _rng(3))
    _check_fd(pairwise_eye, (pos,), 0, False)


def zeros_with_dtype(x):
    y = np.zeros(x.shape[0], dtype=np.float64)
    for i in range(x.shape[0]):
        y[i] = x[i] ** 2
    return np.sum(y)


def test_limitation_constructor_dtype():
    _check_fd(zeros_with_dtype, (_rng(5).standard_normal(4),), 0, False)


def test_dtype_and_eye_primal_compile():
    x = _rng(5).standard_normal(4)
    assert numba.njit(zeros_with_dtype)(x) == pytest.approx(zeros_with_dtype(x))
    pos = _small_lattice(4, _rng(3))
    assert numba.njit(pairwise_eye)(pos) == pytest.approx(pairwise_eye(pos))

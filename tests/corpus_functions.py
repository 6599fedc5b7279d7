"""A corpus of whole numeric functions for srcad, checked against finite differences.

Every function here is plain Python with `math` and `numpy` only, returns a
scalar float, and is differentiable at the inputs its entry in CORPUS builds:
inputs sit away from kinks, branch boundaries, ties of max/min and zeros of
abs/sign, so central finite differences are a valid reference.

CORPUS is a list of `Case(name, func, args_factory, wrt, jit)`:
  name          the test id (the function's name, with a suffix for variants)
  func          the module-level function to differentiate
  args_factory  builds fresh, deterministic arguments (fixed seeds, small sizes)
  wrt           tuple of positions or parameter names to differentiate w.r.t.
  jit           True for about a third of the entries: compile with Numba
"""

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

# ---------------------------------------------------------------------------
# Helpers called by other corpus functions (not corpus entries themselves).
# ---------------------------------------------------------------------------

def sq(x):
    return x * x


def sq_plus_sin(x):
    # a helper that calls another helper
    return sq(x) + math.sin(x)


def smooth_step(x, w):
    return x * math.tanh(w * x)


def norm2(v):
    s = 0.0
    for i in range(v.shape[0]):
        s += v[i] * v[i]
    return s


def lorenz_rhs(s, sigma, rho, beta):
    out = np.empty(3)
    out[0] = sigma * (s[1] - s[0])
    out[1] = s[0] * (rho - s[2]) - s[1]
    out[2] = s[0] * s[1] - beta * s[2]
    return out


# ---------------------------------------------------------------------------
# Statements
# ---------------------------------------------------------------------------

def assign_chain(x, y):
    a = x * y
    b = a + x
    c = b * b - y
    d = c / (1.0 + a * a)
    return d


def tuple_swap_recurrence(x, y):
    a, b = x, y
    for k in range(4):
        a, b = b, a * x
    return a + 2.0 * b


def tuple_unpack_elements(v):
    a, b, c = v[0], v[1] * 2.0, v[2]
    a, c = c * a, a - c
    lo, hi = min(a, c), max(a, c)
    return lo * b + hi


def aug_assign_scalar(x, y):
    s = x
    s += y
    s -= 0.5 * x
    s *= y
    s /= 1.0 + x * x
    s **= 2
    s += 1.0
    s **= 0.5
    return s


def aug_assign_array(a, b):
    c = a.copy()
    c += b
    c -= 0.3 * a
    c *= b
    c /= 2.0 + a * a
    c **= 2
    return np.sum(c)


def piecewise_loop(xs):
    s = 0.0
    for i in range(xs.shape[0]):
        v = xs[i]
        if v < -1.0:
            s += -2.0 * v - 1.0
        elif v < 1.0:
            s += v * v * v
        else:
            s += math.exp(v - 1.0)
    return s


def nested_if_else(x, y):
    if x > y:
        z = x - y
        if z > 1.0:
            z = math.log(z)
        else:
            z = z * z
    else:
        z = y * x
    return z + x


def range_step_positive(a, start):
    s = 0.0
    for i in range(start, a.shape[0], 2):
        s += a[i] * a[i - 1]
    return s


def range_step_negative(a):
    s = 0.0
    for i in range(a.shape[0] - 1, -1, -1):
        s = 0.5 * s + a[i] * math.sin(s + a[i])
    return s


def range_negative_step_data_bounds(a, lo):
    hi = len(a) - 1
    s = 1.0
    for i in range(hi, lo, -3):
        s *= 1.0 + a[i] * a[i - lo]
    return s


def range_bound_from_float(a, t):
    n = int(t)
    s = 0.0
    for i in range(1, n, 1):
        s += a[i] ** 2 * t
    return s


def for_over_array(v):
    s = 0.0
    for x in v:
        s += math.sin(x) * x
    return s


def for_over_array_product(v, w):
    p = 1.0
    for x in v:
        p *= 1.0 + w * x
    return p


def while_newton_sqrt(a):
    y = a
    it = 0
    while abs(y * y - a) > 1e-14 * a and it < 60:
        y = 0.5 * (y + a / y)
        it += 1
    return y


def while_halving(x):
    y = x
    n = 0
    while y > 1.0:
        y = y / 2.0
        n += 1
    return y * n + y * y


def while_accumulate(xs, limit):
    i = 0
    s = 0.0
    while i < xs.shape[0] and s < limit:
        s += xs[i] * xs[i]
        i += 1
    return s * xs[0]


def while_true_break(x):
    y = x
    k = 0
    while True:
        y = math.cos(y) + 0.1 * x
        k += 1
        if k >= 5:
            break
    return y


def break_in_loop(xs, w):
    s = 0.0
    for i in range(xs.shape[0]):
        if xs[i] > 2.0:
            break
        s += w * xs[i] ** 2
    return s


def continue_in_loop(xs):
    s = 0.0
    for v in xs:
        if v < 0.0:
            continue
        s += v * math.exp(-v)
    return s


def early_return_branch(x):
    if x > 1.0:
        return x * x * 0.5
    elif x < -1.0:
        return -x
    return math.sin(x)


def early_return_loop(xs, thr):
    s = 0.0
    for i in range(xs.shape[0]):
        s += xs[i] * xs[i]
        if s > thr:
            return s * xs[i]
    return -s


def early_return_nested_loops(m):
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] > 1.5:
                return m[i, j] * i + m[0, 0]
    return np.sum(m)


def pass_statements(x, y):
    z = x * y
    if z > 0.0:
        pass
    else:
        z = -z
    for k in range(3):
        pass
    return z + x


# ---------------------------------------------------------------------------
# Expressions and builtins
# ---------------------------------------------------------------------------

def arith_ops(x, y):
    return (x + y) * (x - y) / (1.0 + y * y) + x ** 3 - (-y) * 2.0 + -x


def floordiv_float(x, y):
    q = x // y
    r = x - q * y
    return q * x + r * r


def pow_variants(x, y):
    return x ** 2 + x ** 0.5 + 2.0 ** x + x ** y + y ** -1


def unary_minus(x, a):
    b = -a
    return -x * -a[0] + np.sum(b * b) - -x


def bool_conditions(x, y):
    s = 0.0
    if x > 0.0 and y < 2.0:
        s += x * y
    if x < -5.0 or y > 1.0:
        s += y * y
    if not x > y:
        s += x
    if not (x > 10.0 or y < 0.0) and x != y:
        s -= math.sin(x * y)
    return s


def chained_comparison(x, y):
    if 0.0 < x < 2.0 <= y:
        return x * y
    return x - y


def conditional_expr(x, y):
    z = x * y if x > y else x + y
    w = z if z > 0.0 else -z
    return w * x + (y if w > 1.0 else 2.0 * y)


def builtins_abs_min_max(x, y, z):
    return abs(x - y) + min(x, y, z) * max(y, z) + max(abs(z), 0.5)


def builtins_float_int(x, a):
    n = int(x)
    k = int(a.shape[0] / 2)
    f = float(n)
    return f * x + a[k] * float(k) + float(a[0]) ** 2


def builtins_len_range(a):
    s = 0.0
    n = len(a)
    for i in range(n):
        s += a[i] * (i + 1) / n
    for i in range(1, len(a)):
        s += a[i] * a[i - 1]
    return s


# ---------------------------------------------------------------------------
# math
# ---------------------------------------------------------------------------

def math_trig(x):
    return math.sin(x) * math.cos(x) + math.tan(x)


def math_exp_log(x):
    return math.exp(-x) + math.log(x) + math.log1p(x) * math.expm1(x)


def math_sqrt_hyperbolic(x):
    return math.sqrt(x) * math.tanh(x) + math.sinh(x) / math.cosh(x)


def math_inverse_trig(x, y):
    return math.atan(x) + math.asin(y) * math.acos(y) + math.atan2(y, x)


def math_pow_hypot(x, y):
    return math.pow(x, y) + math.hypot(x, y) + math.pow(y, 2.0)


def math_floor_ceil_trunc(x):
    return math.floor(x) * x + math.ceil(x) + math.trunc(x) * x * x


def math_in_loop(xs, c):
    s = 0.0
    for i in range(xs.shape[0]):
        u = xs[i] * c
        s += math.exp(-u * u) + math.log1p(u * u) * math.cos(u)
    return s


# ---------------------------------------------------------------------------
# NumPy elementwise, broadcasting, reductions, linear algebra, construction
# ---------------------------------------------------------------------------

def np_trig(a):
    return np.sum(np.sin(a) * np.cos(a) + np.tan(a))


def np_exp_log(a):
    return np.sum(np.exp(a) + np.log(a) + np.log1p(a) * np.expm1(a))


def np_sqrt_square(a):
    return np.sum(np.sqrt(a) * np.square(a))


def np_hyperbolic(a):
    return np.sum(np.tanh(a) + np.sinh(a) * np.cosh(a))


def np_inverse_trig(a):
    return np.sum(np.arctan(a) + np.arcsin(a) * np.arccos(a))


def np_abs_sign(a):
    return np.sum(np.abs(a) * a + np.sign(a) * a * a)


def np_power(a, b):
    return np.sum(np.power(a, 3) + np.power(a, b) + np.power(2.0, a))


def np_maximum_minimum(a, b):
    return np.sum(np.maximum(a, b) * np.minimum(a, 0.5) + np.maximum(a, 0.0))


def np_clip(a):
    return np.sum(np.clip(a, -0.5, 0.5) * a)


def np_where_arrays(a, b):
    c = np.where(a > b, a * b, a - b)
    return np.sum(c * c)


def np_floor_ceil_round(a):
    return np.sum(np.floor(a) * a + np.ceil(a) * a * a + np.round(a) * np.sin(a))


def bcast_scalar_array(x, a):
    y = x * a + x
    z = a / x - 1.0
    return np.sum(y * z) + np.sum(2.0 - a)


def bcast_col_row(c, r):
    m = c + r
    return np.sum(np.sin(m) * c * r)


def bcast_row_matrix(row, m):
    d = m - row
    return np.sum(d * d * row) + np.sum(m * row)


def reduce_sum_mean(a):
    return np.sum(a) * np.mean(a) + a.sum() - a.mean() ** 2


def reduce_prod(a):
    return np.prod(a) + np.prod(a[1:])


def reduce_max_min(a):
    return np.max(a) * 2.0 - np.min(a) + np.max(a * a)


def reduce_axis(m):
    s0 = np.sum(m, axis=0)
    m1 = np.mean(m, axis=1)
    p1 = np.prod(m, axis=1)
    x0 = np.max(m, axis=0)
    n1 = np.min(m, axis=1)
    return np.sum(s0 * s0) + np.sum(m1 * p1) + np.dot(x0, x0) - np.sum(n1)


def dot_product(a, b):
    return np.dot(a, b) * np.dot(a, a)


def matmul_ops(a, x):
    y = a @ x
    b = np.matmul(a.T, a)
    return np.sum(y * y) + np.sum(b @ x)


def matrix_dot_tanh(a, b):
    c = np.dot(a, b)
    return np.sum(np.tanh(c))


def transpose_ops(a):
    return np.sum(a.T @ a) + np.sum(np.transpose(a)[0] * a[:, 1])


def reshape_ravel(a):
    m = a.reshape(2, 3)
    n = np.reshape(a, (3, 2))
    r = (m @ n).ravel()
    return np.sum(r * np.ravel(m[:, :2]))


def copy_concat_stack(a, b):
    c = np.copy(a)
    d = a.copy()
    c[0] = 2.0 * b[0]
    e = np.concatenate((c, b))
    s = np.stack((d, b))
    return np.sum(e * e) + np.sum(s[0] * s[1]) + np.sum(np.concatenate((a, a)) * 0.5)


def construct_constants(a):
    n = a.shape[0]
    z = np.zeros(n)
    o = np.ones(n)
    e = np.empty(n)
    for i in range(n):
        e[i] = a[i] * (i + 1)
    zl = np.zeros_like(a)
    ol = np.ones_like(a)
    fu = np.full(n, 2.5)
    ls = np.linspace(0.0, 1.0, n)
    ar = np.arange(n)
    y = (a + z) * o + zl + e * ol + fu * a * ls + ar * a
    return np.sum(y * a)


def outer_product_loop(a, b):
    out = np.zeros((a.shape[0], b.shape[0]))
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            out[i, j] = a[i] * b[j]
    return np.sum(np.sin(out))


def elementwise_chain_2d(m):
    p = np.exp(-m * m) + np.tanh(m) * np.cos(m)
    q = np.sqrt(1.0 + m * m)
    return np.sum(p / q) + np.mean(p * q)


# ---------------------------------------------------------------------------
# Subscripts
# ---------------------------------------------------------------------------

def index_int_negative(a):
    return a[0] * a[-1] + a[2] * a[-2] - a[-3]


def index_tuple(m):
    i, j = 1, 2
    return m[0, 1] * m[1, 0] + m[-1, -1] * m[2, -2] + m[i, j] ** 2


def slice_step(a):
    return np.sum(a[1:5:2]) * np.sum(a[::-1][:3]) + np.dot(a[::2], a[1::2])


def slice_2d(m):
    return np.sum(m[:, 0] * m[:, 1]) + np.sum(m[1, :]) * m[0, 0] + np.sum(m[1:3, ::2] ** 2)


def fancy_index_arg(a, idx):
    b = a[idx]
    return np.sum(b * b * np.arange(1, idx.shape[0] + 1))


def fancy_index_arange(a):
    idx = np.arange(0, a.shape[0], 2)
    return np.sum(np.sin(a[idx])) + np.sum(a[np.arange(3)] ** 2)


def fancy_write(a, idx):
    out = np.zeros(a.shape[0])
    out[idx] = a[idx] * 2.0 + 1.0
    out[idx] += a[idx] ** 2
    return np.sum(out * a)


def nested_loop_writes(a):
    n, m = a.shape
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            if (i + j) % 2 == 0:
                out[i, j] = a[i, j] * a[n - 1 - i, j]
            else:
                out[i, j] = math.sin(a[i, j]) + (out[i, j - 1] if j > 0 else 0.0)
    return np.sum(out * out)


def aug_write_accumulator(a, k):
    acc = np.zeros(k)
    for i in range(a.shape[0]):
        acc[i % k] += a[i] ** 2
        if i % 3 == 0:
            acc[(i + 1) % k] -= 0.5 * a[i]
    return np.sum(acc * acc)


def write_own_argument(a):
    for i in range(1, a.shape[0]):
        a[i] = a[i] + 0.5 * a[i - 1] * a[i]
    return np.sum(a * a)


def write_own_argument_2d(m, v):
    n, k = m.shape
    for i in range(n):
        for j in range(k):
            if m[i, j] > 0.0:
                m[i, j] *= v[j]
            else:
                m[i, j] += v[j] ** 2
    return np.sum(m ** 2)


def overwrite_and_reuse(a):
    x = a.copy()
    n = x.shape[0]
    for t in range(3):
        for i in range(n):
            x[i] = math.sin(x[i]) + 0.5 * x[(i + 1) % n]
    return np.sum(x * x)


def slice_write(a):
    b = np.zeros(a.shape[0] + 2)
    b[1:-1] = a * a
    b[0] = a[-1]
    b[-1] = a[0]
    return np.sum(b[1:] * b[:-1])


def bubble_sort_weighted(a):
    x = a.copy()
    n = x.shape[0]
    for i in range(n):
        for j in range(n - 1 - i):
            if x[j] > x[j + 1]:
                x[j], x[j + 1] = x[j + 1], x[j]
    w = np.arange(1, n + 1) * 1.0
    return np.dot(w, x)


def matvec_loop_aug_write(a, x):
    n, m = a.shape
    y = np.zeros(n)
    for i in range(n):
        for j in range(m):
            y[i] += a[i, j] * x[j]
    return np.sum(np.tanh(y))


def laplacian_2d(u):
    n, m = u.shape
    out = np.zeros((n, m))
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            out[i, j] = u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1] - 4.0 * u[i, j]
    return np.sum(out * out) + np.sum(u[0, :] * u[-1, :])


# ---------------------------------------------------------------------------
# Integer variables: counters, indices, shapes, // and % on ints
# ---------------------------------------------------------------------------

def int_index_arithmetic(a):
    n = a.shape[0]
    half = n // 2
    s = 0.0
    for i in range(n):
        j = (i * 3 + 1) % n
        k = i // 2
        s += a[j] * a[k] + a[half - 1 - k % half]
    return s


def int_counter_mean(a, thr):
    count = 0
    total = 0.0
    for v in a:
        if v > thr:
            count += 1
            total += v * v
    if count == 0:
        return 0.0
    return total / count


def int_shape_2d(m):
    rows, cols = m.shape
    s = 0.0
    for t in range(rows * cols):
        i = t // cols
        j = t % cols
        s += m[i, j] * (i - j) + m[i, j] ** 2 / (1 + i + j)
    return s


def int_aug_assign(a):
    k = 1
    k += 2
    k *= 3
    k //= 2
    k -= 1
    k %= a.shape[0]
    return a[k] * a[k - 1] + a[k // 2]


# ---------------------------------------------------------------------------
# The classic case: element writes of products in nested loops
# ---------------------------------------------------------------------------

def classic_box_prod(box, prod):
    n = prod.shape[0]
    m = box.shape[1]
    result = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            result[i, j] = (np.prod(box[:, j]) - np.prod(prod[i, :])) / np.prod(box[:, j])
    return np.sum(result)


def classic_box_prod_weighted(box, prod, weights):
    n = prod.shape[0]
    m = box.shape[1]
    result = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            result[i, j] = (np.prod(box[:, j]) - np.prod(prod[i, :])) / np.prod(box[:, j])
    return np.sum(result * weights)


# ---------------------------------------------------------------------------
# Routing: np.where, ternaries, if-branches, max/min/abs/maximum/minimum/clip
# ---------------------------------------------------------------------------

def where_routing(a, b, c):
    out = np.where(a > 0.0, b * a, c * c)
    return np.sum(out) + np.sum(np.where(b < c, b, c))


def routing_scalars(x, y, z):
    u = max(x, y) - min(y, z)
    v = 3.0 * abs(u - 1.0) if u < 1.0 else u * u
    w = x if x > z else z  # noqa: FURB136 (a ternary on purpose)
    return u + v + w


def routing_arrays(a, b):
    return np.sum(np.maximum(a, b) - np.minimum(a, b)
                  + np.clip(a * b, -0.3, 0.3) + np.abs(a - b))


def routing_if_in_loop(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        if a[i] > b[i]:
            s += a[i] * 2.0 - b[i]
        else:
            s += max(a[i] * b[i], 0.1) + min(b[i], 0.3)
    return s


def leaky_relu_loop(a):
    s = 0.0
    for v in a:
        if v > 0.0:
            s += v * v
        else:
            s += 0.01 * v
    return s


# ---------------------------------------------------------------------------
# Calls to helper functions
# ---------------------------------------------------------------------------

def uses_helper(x):
    return sq(x) + 2.0 * smooth_step(x, 0.5)


def helper_chain(x, y):
    return sq_plus_sin(x * y) + sq(y)


def helper_in_loop(a, w):
    s = 0.0
    for i in range(a.shape[0]):
        s += smooth_step(a[i], w) * sq(a[i])
    return s


def helper_array_arg(a, b):
    return norm2(a) * norm2(b - a)


def helper_on_rows(m):
    s = 0.0
    for i in range(m.shape[0]):
        s += math.sqrt(norm2(m[i, :]))
    return s


# ---------------------------------------------------------------------------
# Realistic functions
# ---------------------------------------------------------------------------

def loss(w, xs):
    h = 0.0
    for i in range(xs.shape[0]):
        h = math.tanh(w * h + xs[i])
    return h * h


def loss_damped(w, xs):
    h = 0.0
    for i in range(xs.shape[0]):
        h = math.tanh(w * h + xs[i])
        if h > 0.5:
            h = h * 0.9
    return h * h


def lennard_jones(pos):
    n = pos.shape[0]
    energy = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r2 = np.dot(d, d)
            inv6 = 1.0 / (r2 * r2 * r2)
            energy += 4.0 * (inv6 * inv6 - inv6)
    return energy


def huber_loss(pred, target, delta):
    total = 0.0
    for i in range(pred.shape[0]):
        r = pred[i] - target[i]
        if abs(r) <= delta:
            total += 0.5 * r * r
        else:
            total += delta * (abs(r) - 0.5 * delta)
    return total / pred.shape[0]


def rk4_lorenz(state, sigma, rho, beta):
    s = state.copy()
    dt = 0.01
    for step in range(5):
        k1 = lorenz_rhs(s, sigma, rho, beta)
        k2 = lorenz_rhs(s + 0.5 * dt * k1, sigma, rho, beta)
        k3 = lorenz_rhs(s + 0.5 * dt * k2, sigma, rho, beta)
        k4 = lorenz_rhs(s + dt * k3, sigma, rho, beta)
        s = s + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(s * s)


def mlp_relu(w1, b1, w2, b2, x):
    h = w1 @ x + b1
    h = np.where(h > 0.0, h, 0.0)
    out = w2 @ h + b2
    return np.sum(out * out)


def softmax_cross_entropy(logits, label):
    m = np.max(logits)
    z = logits - m
    lse = math.log(np.sum(np.exp(z)))
    return lse - z[label]


def horner(coeffs, x):
    p = 0.0
    for c in coeffs:
        p = p * x + c
    return p


def horner_reverse_index(coeffs, x):
    p = 0.0
    for k in range(coeffs.shape[0] - 1, -1, -1):
        p = p * x + coeffs[k]
    return p


def polynomial_pow(coeffs, x):
    s = 0.0
    for k in range(coeffs.shape[0]):
        s += coeffs[k] * x ** k
    return s


def logistic_regression(w, xmat, y):
    z = xmat @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def gaussian_kernel_sum(xmat, ell):
    n = xmat.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(n):
            d = xmat[i] - xmat[j]
            s += math.exp(-np.sum(d * d) / (2.0 * ell * ell))
    return s


def pendulum_euler(theta0, omega0, g):
    theta = theta0
    omega = omega0
    dt = 0.05
    for step in range(20):
        omega -= dt * g * math.sin(theta)
        theta += dt * omega
    return theta * theta + 0.5 * omega * omega


def gradient_descent_unrolled(x0, lr):
    x = x0.copy()
    for t in range(5):
        g = 2.0 * x * (1.0 + 0.1 * x * x)
        x = x - lr * g
    return np.sum(x * x)


def heat_explicit(u0, alpha):
    u = u0.copy()
    for t in range(4):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2.0 * u[1:-1] + u[:-2]
        u = u + alpha * lap
    return np.sum(u * u * np.linspace(0.0, 1.0, u.shape[0]))


def cosine_similarity(a, b):
    return np.dot(a, b) / (np.sqrt(np.dot(a, a)) * np.sqrt(np.dot(b, b)))


def variance_two_pass(a):
    n = a.shape[0]
    mean = 0.0
    for v in a:
        mean += v
    mean /= n
    var = 0.0
    for v in a:
        var += (v - mean) ** 2
    return var / (n - 1)


def trapezoid(ys, dx):
    s = 0.0
    for i in range(ys.shape[0] - 1):
        s += 0.5 * dx * (ys[i] + ys[i + 1])
    return s


def spring_chain_energy(x, k):
    e = 0.0
    for i in range(x.shape[0] - 1):
        d = x[i + 1] - x[i] - 1.0
        e += 0.5 * k * d * d
    return e


def bilinear_form(x, a, y):
    return x @ a @ y


def matrix_power_trace(a):
    b = a.copy()
    for k in range(3):
        b = b @ a
    t = 0.0
    for i in range(b.shape[0]):
        t += b[i, i]
    return t


def logsumexp_loop(a):
    m = a[0]
    for i in range(1, a.shape[0]):
        if a[i] > m:  # noqa: PLR1730 (an if-branch on purpose)
            m = a[i]
    s = 0.0
    for v in a:
        s += math.exp(v - m)
    return m + math.log(s)


def exponential_moving_average(xs, alpha):
    ema = xs[0]
    for i in range(1, xs.shape[0]):
        ema = alpha * xs[i] + (1.0 - alpha) * ema
    return ema * ema


def normalize_weighted(v, w):
    u = v / np.sqrt(np.sum(v * v))
    return np.dot(u, w)


def cross_entropy_loop(p, q):
    s = 0.0
    for i in range(p.shape[0]):
        s -= p[i] * math.log(q[i])
    return s


def sigmoid_scan(xs, w, b):
    h = 0.0
    total = 0.0
    for x in xs:
        h = 1.0 / (1.0 + math.exp(-(w * x + b + 0.5 * h)))
        total += h
    return total


def damped_oscillator_energy(x0, v0, k, c):
    x = x0
    v = v0
    dt = 0.02
    n_steps = 30
    for step in range(n_steps):
        a = -k * x - c * v
        v = v + dt * a
        x = x + dt * v
    return 0.5 * k * x * x + 0.5 * v * v


def coupled_writes_scan(a):
    n = a.shape[0]
    s = np.zeros(n)
    s[0] = a[0]
    for i in range(1, n):
        s[i] = s[i - 1] * 0.8 + math.sin(a[i]) * a[i - 1]
    return np.sum(s * s) + s[n - 1]


# ---------------------------------------------------------------------------
# The corpus
# ---------------------------------------------------------------------------

class Case(NamedTuple):
    name: str
    func: Callable
    args_factory: Callable[[], tuple]
    wrt: tuple
    jit: bool


def _rng(seed):
    return np.random.default_rng(seed)


def _uniform(seed, lo, hi, shape):
    return _rng(seed).uniform(lo, hi, shape)


def _away_from(seed, shape, gap=0.15, scale=1.0):
    """Random values in [-scale, scale] with |v| >= gap (no kinks at 0)."""
    r = _rng(seed)
    mag = r.uniform(gap, scale, shape)
    sign = np.where(r.uniform(0.0, 1.0, shape) < 0.5, -1.0, 1.0)
    return mag * sign


def _lj_positions():
    grid = np.array([
        [0.0, 0.0, 0.0],
        [1.2, 0.0, 0.0],
        [0.0, 1.2, 0.0],
        [0.0, 0.0, 1.2],
        [1.2, 1.2, 0.0],
    ])
    return grid + _uniform(31, -0.05, 0.05, grid.shape)


def _mlp_args():
    r = _rng(47)
    w1 = r.normal(0.0, 0.8, (4, 3))
    b1 = r.normal(0.0, 0.3, 4)
    w2 = r.normal(0.0, 0.8, (2, 4))
    b2 = r.normal(0.0, 0.3, 2)
    x = r.normal(0.0, 1.0, 3)
    return w1, b1, w2, b2, x


def _rnn_args(n, seed=5):
    return 0.8, _uniform(seed, -0.9, 0.9, n)


def _c(func, args_factory, wrt=(0,), jit=False, name=None):
    return Case(name or func.__name__, func, args_factory, tuple(wrt), jit)


CORPUS = [
    # statements
    _c(assign_chain, lambda: (0.7, -1.3), (0, 1)),
    _c(tuple_swap_recurrence, lambda: (0.9, 1.1), (0, 1), jit=True),
    _c(tuple_unpack_elements, lambda: (np.array([0.5, 1.5, -0.8, 0.3]),)),
    _c(aug_assign_scalar, lambda: (0.6, 1.7), (0, 1)),
    _c(aug_assign_array, lambda: (_uniform(1, -1.0, 1.0, 5), _uniform(2, -1.0, 1.0, 5)),
       (0, 1), jit=True),
    _c(piecewise_loop, lambda: (np.array([-2.1, -0.3, 0.4, 1.7, -1.5, 0.8]),)),
    _c(nested_if_else, lambda: (3.0, 0.5), (0, 1), name="nested_if_else[log]"),
    _c(nested_if_else, lambda: (1.2, 0.7), (0, 1), jit=True, name="nested_if_else[square]"),
    _c(nested_if_else, lambda: (0.2, 0.9), ("x", "y"), name="nested_if_else[else]"),
    _c(range_step_positive, lambda: (_uniform(3, -1.0, 1.0, 7), 1)),
    _c(range_step_negative, lambda: (_uniform(4, -1.0, 1.0, 6),), jit=True),
    _c(range_negative_step_data_bounds, lambda: (_uniform(5, -1.0, 1.0, 8), 1)),
    _c(range_bound_from_float, lambda: (_uniform(6, -1.0, 1.0, 6), 4.6), (0, 1)),
    _c(for_over_array, lambda: (_uniform(7, -2.0, 2.0, 6),), jit=True),
    _c(for_over_array_product, lambda: (_uniform(8, -1.0, 1.0, 5), 0.7), (0, 1)),
    _c(while_newton_sqrt, lambda: (2.7,)),
    _c(while_halving, lambda: (5.3,), jit=True),
    _c(while_accumulate, lambda: (np.array([0.9, -1.2, 0.7, 1.1, 0.5, -0.8]), 2.9), (0, 1)),
    _c(while_true_break, lambda: (0.4,)),
    _c(break_in_loop, lambda: (np.array([0.5, 1.2, -0.7, 2.6, 0.3]), 1.3), (0, 1), jit=True),
    _c(continue_in_loop, lambda: (np.array([0.5, -1.2, 0.7, 2.6, -0.3, 1.1]),)),
    _c(early_return_branch, lambda: (1.7,), name="early_return_branch[if]"),
    _c(early_return_branch, lambda: (-0.4,), jit=True, name="early_return_branch[fallthrough]"),
    _c(early_return_branch, lambda: (-2.2,), name="early_return_branch[elif]"),
    _c(early_return_loop, lambda: (np.array([0.5, 0.8, 1.1, 0.3, 0.9]), 2.0)),
    _c(early_return_nested_loops, lambda: (np.array([[0.2, 0.7, 1.1], [0.4, 1.8, 0.3]]),),
       jit=True),
    _c(pass_statements, lambda: (-0.8, 1.3), (0, 1)),
    # expressions and builtins
    _c(arith_ops, lambda: (0.8, -1.4), (0, 1)),
    _c(floordiv_float, lambda: (7.3, 2.1), (0, 1), jit=True),
    _c(pow_variants, lambda: (1.3, 0.7), (0, 1)),
    _c(unary_minus, lambda: (0.6, _uniform(9, -1.0, 1.0, 4)), (0, 1)),
    _c(bool_conditions, lambda: (0.8, 1.4), (0, 1), jit=True, name="bool_conditions[a]"),
    _c(bool_conditions, lambda: (2.5, 0.5), (0, 1), name="bool_conditions[b]"),
    _c(chained_comparison, lambda: (1.2, 2.5), (0, 1)),
    _c(conditional_expr, lambda: (1.5, 0.9), (0, 1), jit=True),
    _c(builtins_abs_min_max, lambda: (0.3, 1.1, -0.7), (0, 1, 2)),
    _c(builtins_float_int, lambda: (3.7, _uniform(10, -1.0, 1.0, 5)), (0, 1)),
    _c(builtins_len_range, lambda: (_uniform(11, -1.0, 1.0, 6),), jit=True),
    # math
    _c(math_trig, lambda: (0.6,)),
    _c(math_exp_log, lambda: (0.8,)),
    _c(math_sqrt_hyperbolic, lambda: (1.3,), jit=True),
    _c(math_inverse_trig, lambda: (0.7, 0.4), (0, 1)),
    _c(math_pow_hypot, lambda: (1.4, 0.6), (0, 1)),
    _c(math_floor_ceil_trunc, lambda: (2.3,), jit=True),
    _c(math_in_loop, lambda: (_uniform(12, -1.0, 1.0, 5), 1.3), (0, 1)),
    # numpy
    _c(np_trig, lambda: (_uniform(13, -1.0, 1.0, 6),)),
    _c(np_exp_log, lambda: (_uniform(14, 0.5, 1.5, 6),), jit=True),
    _c(np_sqrt_square, lambda: (_uniform(15, 0.5, 2.0, 6),)),
    _c(np_hyperbolic, lambda: (_uniform(16, -1.0, 1.0, 6),)),
    _c(np_inverse_trig, lambda: (_uniform(17, -0.8, 0.8, 6),), jit=True),
    _c(np_abs_sign, lambda: (_away_from(18, 6),)),
    _c(np_power, lambda: (_uniform(19, 0.5, 1.5, 5), _uniform(20, -1.0, 2.0, 5)), (0, 1)),
    _c(np_maximum_minimum, lambda: (np.array([-0.8, 0.2, 0.9, -0.3, 0.7]),
                                     np.array([0.4, -0.5, 0.3, 0.6, 1.1])), (0, 1), jit=True),
    _c(np_clip, lambda: (np.array([-0.9, -0.2, 0.3, 0.7, 0.05, -0.65]),)),
    _c(np_where_arrays, lambda: (np.array([0.5, -0.3, 1.2, 0.1, -0.9]),
                                  np.array([0.2, 0.4, 0.8, -0.6, -0.2])), (0, 1)),
    _c(np_floor_ceil_round, lambda: (np.array([-1.3, -0.2, 0.3, 0.8, 1.6, 2.2]),), jit=True),
    _c(bcast_scalar_array, lambda: (1.3, _uniform(21, -1.0, 1.0, 5)), (0, 1)),
    _c(bcast_col_row, lambda: (_uniform(22, -1.0, 1.0, (4, 1)), _uniform(23, -1.0, 1.0, (1, 3))),
       (0, 1)),
    _c(bcast_row_matrix, lambda: (_uniform(24, -1.0, 1.0, 3), _uniform(25, -1.0, 1.0, (4, 3))),
       (0, 1), jit=True),
    _c(reduce_sum_mean, lambda: (_uniform(26, -1.0, 1.0, 6),)),
    _c(reduce_prod, lambda: (_uniform(27, 0.5, 1.5, 5),)),
    _c(reduce_max_min, lambda: (np.array([0.3, -1.4, 0.9, 1.7, -0.2]),), jit=True),
    _c(reduce_axis, lambda: (_uniform(28, 0.5, 1.5, (4, 3)),)),
    _c(dot_product, lambda: (_uniform(29, -1.0, 1.0, 5), _uniform(30, -1.0, 1.0, 5)), (0, 1)),
    _c(matmul_ops, lambda: (_uniform(32, -1.0, 1.0, (4, 3)), _uniform(33, -1.0, 1.0, 3)),
       (0, 1)),
    _c(matrix_dot_tanh, lambda: (_uniform(34, -1.0, 1.0, (3, 4)), _uniform(35, -1.0, 1.0, (4, 2))),
       (0, 1), jit=True),
    _c(transpose_ops, lambda: (_uniform(36, -1.0, 1.0, (3, 2)),)),
    _c(reshape_ravel, lambda: (_uniform(37, -1.0, 1.0, 6),), jit=True),
    _c(copy_concat_stack, lambda: (_uniform(38, -1.0, 1.0, 4), _uniform(39, -1.0, 1.0, 4)),
       (0, 1)),
    _c(construct_constants, lambda: (_uniform(40, -1.0, 1.0, 5),)),
    _c(outer_product_loop, lambda: (_uniform(41, -1.0, 1.0, 4), _uniform(42, -1.0, 1.0, 3)),
       (0, 1), jit=True),
    _c(elementwise_chain_2d, lambda: (_uniform(43, -1.0, 1.0, (3, 4)),)),
    # subscripts
    _c(index_int_negative, lambda: (_uniform(44, -1.0, 1.0, 6),)),
    _c(index_tuple, lambda: (_uniform(45, -1.0, 1.0, (3, 3)),), jit=True),
    _c(slice_step, lambda: (_uniform(46, -1.0, 1.0, 8),)),
    _c(slice_2d, lambda: (_uniform(48, -1.0, 1.0, (4, 3)),)),
    _c(fancy_index_arg, lambda: (_uniform(49, -1.0, 1.0, 6), np.array([0, 3, 3, 1, 5, 0])),
       jit=True),
    _c(fancy_index_arange, lambda: (_uniform(50, -1.0, 1.0, 7),)),
    _c(fancy_write, lambda: (_uniform(51, -1.0, 1.0, 6), np.array([4, 0, 2]))),
    _c(nested_loop_writes, lambda: (_uniform(52, -1.0, 1.0, (3, 4)),), jit=True),
    _c(aug_write_accumulator, lambda: (_uniform(53, -1.0, 1.0, 7), 3)),
    _c(write_own_argument, lambda: (_uniform(54, -1.0, 1.0, 6),)),
    _c(write_own_argument_2d, lambda: (_away_from(55, (3, 3)), _uniform(56, -1.0, 1.0, 3)),
       (0, 1), jit=True),
    _c(overwrite_and_reuse, lambda: (_uniform(57, -1.0, 1.0, 5),)),
    _c(slice_write, lambda: (_uniform(58, -1.0, 1.0, 5),)),
    _c(bubble_sort_weighted, lambda: (np.array([0.7, -0.4, 1.3, 0.1, -1.1, 0.5]),), jit=True),
    _c(matvec_loop_aug_write, lambda: (_uniform(59, -1.0, 1.0, (3, 4)), _uniform(60, -1.0, 1.0, 4)),
       (0, 1)),
    _c(laplacian_2d, lambda: (_uniform(61, -1.0, 1.0, (4, 5)),)),
    # integer variables
    _c(int_index_arithmetic, lambda: (_uniform(62, -1.0, 1.0, 6),), jit=True),
    _c(int_counter_mean, lambda: (np.array([0.5, -0.2, 1.3, 0.9, -0.7]), 0.1), (0, 1)),
    _c(int_shape_2d, lambda: (_uniform(63, -1.0, 1.0, (3, 4)),)),
    _c(int_aug_assign, lambda: (_uniform(64, -1.0, 1.0, 6),), jit=True),
    # the classic case
    _c(classic_box_prod, lambda: (_uniform(65, 0.5, 1.5, (3, 4)), _uniform(66, 0.5, 1.5, (2, 3))),
       (0, 1)),
    _c(classic_box_prod_weighted,
       lambda: (_uniform(67, 0.5, 1.5, (3, 4)), _uniform(68, 0.5, 1.5, (2, 3)),
                _uniform(69, -1.0, 1.0, (2, 4))),
       (0, 1, 2)),
    _c(classic_box_prod, lambda: (_uniform(65, 0.5, 1.5, (3, 4)), _uniform(66, 0.5, 1.5, (2, 3))),
       ("box", "prod"), jit=True, name="classic_box_prod[jit]"),
    # routing
    _c(where_routing, lambda: (np.array([0.5, -0.3, 1.2, -0.8]), np.array([0.2, 0.9, -0.4, 0.6]),
                               np.array([0.7, 0.1, 0.3, -0.5])), (0, 1, 2)),
    _c(routing_scalars, lambda: (0.9, 0.4, -0.6), (0, 1, 2), name="routing_scalars[a]"),
    _c(routing_scalars, lambda: (-0.9, 0.4, 0.2), (0, 1, 2), jit=True, name="routing_scalars[b]"),
    _c(routing_arrays, lambda: (np.array([0.5, -0.3, 1.2, -0.8, 0.2]),
                                np.array([0.2, 0.9, -0.4, 0.6, 0.7])), (0, 1)),
    _c(routing_if_in_loop, lambda: (np.array([0.5, -0.3, 1.2, 0.2, 0.8]),
                                    np.array([0.2, 0.9, -0.4, 0.7, 1.5])), (0, 1)),
    _c(leaky_relu_loop, lambda: (_away_from(70, 6),), jit=True),
    # helpers
    _c(uses_helper, lambda: (0.9,)),
    _c(helper_chain, lambda: (0.7, 1.2), (0, 1)),
    _c(helper_in_loop, lambda: (_uniform(71, -1.0, 1.0, 5), 0.8), (0, 1), jit=True),
    _c(helper_array_arg, lambda: (_uniform(72, -1.0, 1.0, 4), _uniform(73, -1.0, 1.0, 4)), (0, 1)),
    _c(helper_on_rows, lambda: (_uniform(74, -1.0, 1.0, (3, 4)),)),
    # realistic
    _c(loss, lambda: _rnn_args(6), (0, 1), jit=True),
    _c(loss_damped, lambda: _rnn_args(8, seed=6), (0, 1)),
    _c(lennard_jones, lambda: (_lj_positions(),)),
    _c(huber_loss, lambda: (np.array([0.5, 2.3, -0.4, 1.1, -1.9, 0.2]),
                            np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]), 1.0), (0, 1, 2), jit=True),
    _c(rk4_lorenz, lambda: (np.array([1.0, 1.2, 0.9]), 10.0, 28.0, 8.0 / 3.0), (0, 1, 2, 3)),
    _c(mlp_relu, _mlp_args, (0, 1, 2, 3, 4)),
    _c(softmax_cross_entropy, lambda: (_uniform(75, -2.0, 2.0, 5), 2), jit=True),
    _c(horner, lambda: (np.array([0.5, -1.2, 0.3, 2.0, -0.7]), 0.9), (0, 1)),
    _c(horner_reverse_index, lambda: (np.array([0.5, -1.2, 0.3, 2.0, -0.7]), -1.1), (0, 1)),
    _c(polynomial_pow, lambda: (np.array([0.5, -1.2, 0.3, 2.0]), 1.3), (0, 1), jit=True),
    _c(logistic_regression, lambda: (_uniform(76, -1.0, 1.0, 3), _uniform(77, -1.0, 1.0, (6, 3)),
                                     np.array([1.0, 0.0, 1.0, 1.0, 0.0, 0.0])), (0, 1)),
    _c(gaussian_kernel_sum, lambda: (_uniform(78, -1.0, 1.0, (4, 2)), 0.7), (0, 1)),
    _c(pendulum_euler, lambda: (0.6, 0.1, 9.81), (0, 1, 2), jit=True),
    _c(gradient_descent_unrolled, lambda: (_uniform(79, -1.0, 1.0, 4), 0.1), (0, 1)),
    _c(heat_explicit, lambda: (_uniform(80, -1.0, 1.0, 7), 0.2), (0, 1)),
    _c(cosine_similarity, lambda: (_uniform(81, -1.0, 1.0, 5), _uniform(82, -1.0, 1.0, 5)),
       (0, 1), jit=True),
    _c(variance_two_pass, lambda: (_uniform(83, -1.0, 1.0, 6),)),
    _c(trapezoid, lambda: (_uniform(84, -1.0, 1.0, 6), 0.25), (0, 1)),
    _c(spring_chain_energy, lambda: (np.array([0.0, 1.1, 1.9, 3.2, 4.0]), 2.0), (0, 1), jit=True),
    _c(bilinear_form, lambda: (_uniform(85, -1.0, 1.0, 3), _uniform(86, -1.0, 1.0, (3, 4)),
                               _uniform(87, -1.0, 1.0, 4)), (0, 1, 2)),
    _c(matrix_power_trace, lambda: (_uniform(88, -1.0, 1.0, (3, 3)),)),
    _c(logsumexp_loop, lambda: (np.array([0.3, -1.2, 1.4, 0.8, -0.1]),), jit=True),
    _c(exponential_moving_average, lambda: (_uniform(89, -1.0, 1.0, 6), 0.3), (0, 1)),
    _c(normalize_weighted, lambda: (_uniform(90, -1.0, 1.0, 4), _uniform(91, -1.0, 1.0, 4)),
       ("v", "w")),
    _c(cross_entropy_loop, lambda: (_uniform(92, 0.1, 1.0, 5), _uniform(93, 0.1, 1.0, 5)),
       (0, 1), jit=True),
    _c(sigmoid_scan, lambda: (_uniform(94, -1.0, 1.0, 6), 0.7, -0.2), (0, 1, 2)),
    _c(damped_oscillator_energy, lambda: (1.0, 0.0, 4.0, 0.3), (0, 1, 2, 3)),
    _c(coupled_writes_scan, lambda: (_uniform(95, -1.0, 1.0, 6),), jit=True),
]

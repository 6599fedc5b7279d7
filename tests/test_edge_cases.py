"""Edge cases that try to break srcad, checked against central finite differences.

Every function differentiated here is valid Python inside srcad's documented subset
(module-level functions; floats, ints, 1-d/2-d float arrays; loops, branches,
subscripts, calls to module-level helpers). Each gradient case checks, for
`jit=False` (and `jit=True` for a handful):

- the gradient matches central finite differences (tests/fd.py);
- the caller's arguments are not mutated;
- with `jit=True`, srcad did not fall back to plain Python.

Cases that currently fail are kept, marked `xfail(strict=True)` with the reason, so
the suite stays green while the bugs stay visible: a fix turns them into XPASS,
which fails the run until the marker is removed.

Refusal cases check that unsupported constructs raise `srcad.SrcadError` (never
another exception type).
"""

import copy
import math
import re
import warnings

import numba
import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, fd_grad
from tests.primal import assert_primal

# ---------------------------------------------------------------------------
# Helpers called by the functions under test
# ---------------------------------------------------------------------------


def sq(x):
    return x * x


def mul2(a, b):
    return a * b + a


def helper_tuple(x, y):
    return x * y, x + y


def helper_tuple_branch(x, y):
    if x > y:
        return x * y, y
    return y, x + y


def helper_ident(a):
    return a


def helper_first_row(m):
    return m[0]


def helper_early(x, t):
    s = x
    for i in range(5):
        s = s * x
        if s > t:
            return s
    return -s


def helper_arr_loop(v, w):
    for i in range(2):
        v = np.tanh(v * w)
    return v


def helper_range(x, n):
    s = x
    for i in range(n):
        s = s * x + 0.1
    return s


def helper_branch(x):
    if x > 0.5:
        y = x * x
    else:
        y = math.sin(x)
    return y


def helper_writes(a, w):
    a[0] = a[0] * w
    return np.sum(a)


def helper_default(x, c=2.0):
    return x * c


def helper_rec(x, n):
    if n <= 0:
        return x
    return helper_rec(x * 0.5, n - 1)


def pair_force(dx, k):
    r = math.sqrt(dx * dx + 0.1)
    return k * dx / r


@numba.njit
def nb_helper(x):
    return x * x + 1.0


@numba.njit
def nb_step(x, w):
    return np.tanh(x * w)


# ---------------------------------------------------------------------------
# Branches and reassignment
# ---------------------------------------------------------------------------


def both_branches(x, y):
    if x > y:
        z = x * y
    else:
        z = x + y
    return z * z


def else_if_chain(x):
    if x < -1.0:
        y = x * x
    elif x < 0.0:
        y = -x
    elif x < 1.0:
        y = x * 3.0
    else:
        y = math.exp(x)
    return y * x


def both_branch_arrays(a, c):
    for i in range(3):
        if c > i:
            v = a * 2.0
        else:
            v = np.sin(a)
        a = v * a
    return np.sum(a)


def ifexp_arrays(a, b, c):
    v = a if c > 0.0 else b
    return np.sum(v * v)


def cmp_chain(x):
    if 0.0 < x < 1.0:
        return x * x
    return x


def shadow_param(x):
    x = x * 2.0
    x = math.sin(x)
    return x


def clash_names(x, tape):
    d_x = x * tape
    d_out = d_x * x
    return d_out + d_x


def var_tmp_names(x):
    tmp1 = x * 2.0
    tmp2 = tmp1 * x + 1.0
    branch1 = tmp2 > 0.0
    if branch1:
        tmp3 = tmp2 * tmp1
    else:
        tmp3 = tmp2
    return tmp3


def var_k_names(a):
    k = 0.5
    s = 0.0
    for i in range(a.shape[0]):
        s = s + a[i] * k * s + a[i]
    return s * k


def var_math(x, a):
    math = x * 2.0
    return np.sum(np.sin(a) * math) + math


def var_List_no_stack(x):
    List = x * 2.0
    s = 0.0
    for i in range(3):
        s = s + List * s + x
    return s


def defaults(x, c=2.0):
    return x ** c


def annotated(x: float, n: int = 2) -> float:
    return x ** n


def list_target(x):
    [a, b] = [x * 2.0, x]
    return a * b


def returns_param(x):
    return x


def returns_const(x):
    return 1.0


# ---------------------------------------------------------------------------
# Arithmetic, builtins, numpy
# ---------------------------------------------------------------------------


def self_ops(x):
    return x * x + x / x + x ** x


def pow_variants(x):
    return -x ** 2 + x ** -1 + 2 ** x + x ** 0.5


def builtins_mm(x, y):
    return max(x, y) * min(x, y) + abs(x - y)


def max_nested(x, y, z):
    return max(x, y, z) * min(x, y, z)


def int_mixed(x, n):
    return x * n + n / x


def int_param_reassigned(x, c):
    c = c * 0.5
    return x * c + c * c * x


def bool_param(x, flag):
    if flag:
        return x * x
    return x


def bool_mult(x, a):
    return (x > 0.0) * x * x + np.sum((a > 0.2) * a * a) + x * (a[0] > 0.0)


def nondiff_mix(x):
    return (x // 1.0) * x + math.floor(x) * x + int(x) * x + round(x) * x + (x % 1.0) * x


def sign_mix(a):
    return np.sum(np.sign(a) * a * a) + np.sum(np.floor(a) * a)


def mod_neg(x, y):
    return (x % y) * x


def mixed_int_loop(x, n):
    s = 0
    for i in range(n):
        s = s + i
    return x * s + x * n


def int_init_acc(xs, w):
    s = 0
    for i in range(xs.shape[0]):
        s = s + xs[i] * w
    return s * s


def int_array_arith(x, idx):
    return np.sum(x * idx) + np.sum(x[idx])


def int_array_float_mix(a, counts):
    return np.sum(a / counts) + np.sum(a * counts.shape[0])


def tuple_param(x, p):
    a, b = p
    return x * a + b * x * x


def reduce_bcast(a):
    m = np.mean(a)
    return np.sum((a - m) ** 2)


def xT_y(x, y):
    return np.sum(x.T @ y)


def sum_axis1(m):
    r = np.sum(m, axis=1)
    return np.sum(m / r[:, None])


def sum_tuple_axis(m):
    return np.sum(np.sum(m * m, axis=(0, 1)) * m)


def mean_neg_axis(m):
    r = np.mean(m, axis=-1)
    return np.sum(r * r)


def max_axis0(m):
    return np.sum(np.max(m, axis=0) ** 2) + np.sum(np.min(m, axis=1))


def prod_zero(a):
    return np.prod(a) + np.sum(np.prod(np.reshape(a, (2, 2)), axis=0))


def where_scalar_branch(a, t):
    return np.sum(np.where(a > t, a * t, t))


def clip_arr_bounds(a, lo, hi):
    return np.sum(np.clip(a, lo, hi) ** 2)


def pairwise(a, b):
    d = a[:, None] - b[None, :]
    return np.sum(np.exp(-d * d))


def mat_vec_1d(x, w):
    return np.sum(x @ w) + np.dot(x, x)


def lin_alg_mix(w, x, b):
    h = np.tanh(w @ x + b)
    g = w.T @ h
    return np.dot(g, x)


def mat_power(m):
    return np.sum(m ** 2 @ m)


def grow(x):
    v = x[0:1]
    for i in range(1, x.shape[0]):
        v = np.concatenate((v, x[i:i + 1] * v[i - 1]))
    return np.sum(v * v)


def softmax_rows(z):
    out = np.empty(z.shape)
    for i in range(z.shape[0]):
        row = z[i]
        e = np.exp(row - np.max(row))
        out[i] = e / np.sum(e)
    return np.sum(out * z)


def where_sqrt_negative(a):
    return np.sum(np.where(a > 0.0, np.sqrt(a), 0.0))


def where_log_zero(a):
    return np.sum(np.where(a > 0.0, np.log(a), a))


def where_one_arg_scalar(a):
    return np.sum(np.where(a > 0.3, 1.0, a) * a)


def max_reduce_1d(a):
    return np.max(a, axis=0)


def mean_int(a, n):
    return np.mean(a * n)


def round_decimals(x):
    return np.round(x, 2) * x + x


def minimum_scalar(a, t):
    return np.sum(np.minimum(a, t)) + np.sum(np.maximum(t, a))


def power_arrays(a, b):
    return np.sum(np.power(a, b)) + np.sum(a ** 2.0)


def dot_2d(m, n):
    return np.sum(np.dot(m, n))


def stack_axis1(a, b):
    return np.sum(np.stack((a, b), axis=1) ** 2 * np.arange(2.0))


def concat_2d_axis1(m, n):
    c = np.concatenate((m, n), axis=1)
    return np.sum(c * c * np.arange(c.shape[1]))


def axis_none(a):
    return np.sum(a * a, axis=None) + np.mean(a, axis=None) + np.max(a, axis=None)


def reshape_neg(a):
    return np.sum(np.reshape(a, -1) * a.reshape(3, -1)[:, 0])


def sum_axis_var(m, ax):
    return np.sum(np.sum(m * m, axis=ax) * 2.0)


def full_active(x):
    v = np.full(3, x)
    return np.sum(v * v)


def full_2d(x):
    v = np.full((2, 2), x)
    return np.sum(v * v)


def linspace_active(x):
    v = np.linspace(0.0, x, 5)
    return np.sum(v * v)


def arange_scaled(x):
    v = np.arange(0.0, 3.0, 1.0) * x
    return np.sum(v * v)


def clip_no_upper(a):
    return np.sum(np.clip(a, 0.0, None) ** 2)


def clip_no_lower(a):
    return np.sum(np.clip(a, None, 0.5) ** 2)


def unused(x, y):
    return y * y


def cond_only(x, y):
    if x > 0.0:
        return y * 2.0
    return y


def index_only(a, x):
    return a[int(x)] * 2.0


def unused_array(a, y):
    return y * 3.0


def multi_spec_h(a, b):
    return a * b + np.sin(a)


def multi_spec_g(a, b):
    return multi_spec_h(a, b) * multi_spec_h(b, a)


def multi_spec(x, v, c):
    s = multi_spec_h(x, c)
    t = multi_spec_h(c, x)
    u = np.sum(multi_spec_h(v, x))
    w = multi_spec_h(3, x)
    return s + t + u + w + multi_spec_g(x, x) + np.sum(multi_spec_g(v, c))


# ---------------------------------------------------------------------------
# Subscripts
# ---------------------------------------------------------------------------


def same_elem_twice(a):
    b = np.zeros(3)
    for i in range(a.shape[0]):
        b[0] = b[0] * a[i] + 1.0
        b[0] = b[0] * a[i]
    return b[0]


def recurrence(x, w):
    for i in range(1, x.shape[0]):
        x[i] = x[i - 1] * w
    return np.sum(x * x)


def read_arg_after_write(a):
    b = a[0] * 2.0
    a[0] = a[1] * a[2]
    return a[0] * b + np.sum(a)


def neg_slice_write(a):
    out = np.zeros(a.shape[0])
    for k in range(2):
        out[::-1] = a * out + a
    return np.sum(out * out)


def fancy_read_rep(a, idx):
    return np.sum(a[idx] ** 2)


def fancy_rows(m, idx):
    r = m[idx]
    return np.sum(r * r)


def fancy_write_rep(a, v, idx):
    a[idx] = v
    return np.sum(a * a)


def fancy_aug_rep(a, v, idx):
    a[idx] += v
    return np.sum(a * a)


def aug_k(a, t):
    acc = np.zeros(3)
    for i in range(a.shape[0]):
        k = int(a[i] * 0.0 + i) % 3
        acc[k] += a[i] * t
        acc[i // 2] += a[i]
    return np.sum(acc * acc)


def branch_in_loop_elem(a):
    b = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        if a[i] > 0.5:
            b[i] = a[i] * a[i]
        else:
            b[i] = b[i - 1] * a[i]
        b[i] = b[i] + b[i - 1]
    return np.sum(b * b)


def elem_then_whole(a, w):
    for i in range(a.shape[0]):
        a[i] = a[i] * w
        s = np.sum(np.sin(a))
        a[0] = a[0] + s
    return np.sum(a * a)


def idx_rebound(a, idx):
    s = 0.0
    for k in range(3):
        s = s + np.sum(a[idx] * a[idx]) * s + np.sum(a[idx])
        idx = idx[::-1] % 2
    return s


def view_rebound(a):
    v = a
    s = 0.0
    for k in range(3):
        s = s + np.sum(np.sin(v) * v)
        v = v[1:]
    return s


def two_d_col_pushed(m):
    s = 0.0
    for j in range(m.shape[1]):
        c = m[:, j] * 2.0
        if j > 0:
            c = m[:, j - 1]
        s = s + np.sum(c * c) * s
    return s


def view_pushed(m):
    s = 0.0
    v = np.zeros(m.shape[0])
    for j in range(m.shape[1]):
        v = np.tanh(v + m[:, j])
        s = s + np.sum(v * v)
    return s


def swap_arrays(a, b):
    for i in range(3):
        a, b = b, a * b
    return np.sum(a) + np.sum(b * b)


def reverse_inplace(a, w):
    a[:] = a[::-1] * 1.0
    a[:] = a[::-1]
    return np.sum(a * np.arange(a.shape[0]) * w)


def neg_step_2d(m, w):
    for j in range(m.shape[1]):
        m[::-1, j] = m[:, j] * w + 0.1
    return np.sum(m * m * np.arange(m.shape[0])[:, None])


def self_write(a):
    a[0] = a[0]
    a[1:] = a[1:]
    return np.sum(a * a)


def strided_write(a, w):
    out = np.zeros(6)
    out[::2] = a * w
    out[1::2] = a * a
    out[4:0:-2] = out[0:4:2] * w
    return np.sum(out * np.arange(6.0))


def shift_overlap(a, w):
    a[1:] = a[:-1]
    return np.sum(a * np.arange(a.shape[0]) * w)


# written through a view or an alias of another array in ways the alias check misses


def alias_through_helper(x):
    y = helper_ident(x)
    y[0] = 1.0
    return np.sum(x * x)


def alias_through_tuple(x, z):
    p = (x, z)
    a = p[0]
    a[0] = 1.0
    return np.sum(x * x)


def alias_view_helper(m):
    r = helper_first_row(m)
    r[0] = 5.0
    return np.sum(m * m)


def inplace_alias(x, w):
    v = x
    v += w
    return np.sum(x * v)


def inplace_alias_loop(a, w):
    out = np.zeros(3)
    hist = out
    for i in range(3):
        out += a * w
    return np.sum(hist * hist)


def inplace_alias_tuple_loop(x, w):
    z = x * w
    y = z
    for v in (1.0, w):
        y += v
    return np.sum(z * x)


def inplace_row(m, w):
    r = m[0]
    r *= w
    return np.sum(m * m)


# valid writes that never observe a stale view (refused since the alias check)


def row_recurrence(m, w):
    for i in range(1, m.shape[0]):
        m[i, :] = m[i - 1, :] * w + m[i, :]
    return np.sum(m * m)


def shift_slice(a, w):
    for k in range(2):
        a[1:] = a[:-1] * w + a[1:]
    return np.sum(a * a)


def row_read_then_write(m):
    r = np.sum(m[0] * 2.0)
    m[0, 0] = r
    return np.sum(m * m)


def row_used_once(m, w):
    for i in range(1, m.shape[0]):
        prev = m[i - 1]
        m[i] = prev * w
    return np.sum(m * m)


def row_aug(m, v):
    acc = np.zeros((2, 3))
    for i in range(2):
        acc[i, :] += m[i, :] * v
    return np.sum(acc * acc)


def slice_aug(a, v):
    out = np.zeros(4)
    out[1:3] += a[0:2] * v
    return np.sum(out * out)


def row_aug_plain(m, v):
    acc = np.zeros((2, 3))
    acc[0] += v
    return np.sum(acc * m)


def grid_smooth(u, alpha):
    n = u.shape[0]
    m = u.shape[1]
    for it in range(3):
        new = u.copy()
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
                new[i, j] = u[i, j] + alpha * lap
        u = new
    return np.sum(u * u)


def flatten_write(m):
    f = m.flatten()
    f[0] = 0.0
    return np.sum(f * m[0, 1])


# ---------------------------------------------------------------------------
# Loops
# ---------------------------------------------------------------------------


def aliased_loop_read(x, w):
    s = 0.0
    for i in range(3):
        x[i] = x[i] * w
        y = x
        s = s + np.sum(y * y)
    return s


def array_rebound(v, a):
    for i in range(3):
        v = v * a
    return np.sum(v)


def rnn(w, v):
    for i in range(3):
        v = np.tanh(w @ v)
    return np.sum(v)


def nested_break_continue(m):
    s = 0.0
    for i in range(m.shape[0]):
        if m[i, 0] < 0.0:
            continue
        for j in range(m.shape[1]):
            if m[i, j] > 0.8:
                break
            s = s + m[i, j] * s + m[i, j]
    return s


def while_in_for(xs):
    s = 0.0
    for i in range(xs.shape[0]):
        t = xs[i]
        while t < 4.0:
            t = t * 1.5 + 0.1
        s = s + t * xs[i]
    return s


def early_ret_while_for(xs, c):
    s = c
    for i in range(xs.shape[0]):
        k = 0
        while k < 3:
            s = s * xs[i]
            if s > 5.0:
                return s * c
            k = k + 1
    return s


def loop_var_after(xs):
    s = 0.0
    for i in range(xs.shape[0]):
        s = s + xs[i]
    return s * xs[i]


def loopvar_after_break(a):
    s = 0.0
    for i in range(a.shape[0]):
        s = s + a[i]
        if s > 1.0:
            break
    return s * a[i]


def zero_iter(x, n):
    s = x
    for i in range(n):
        s = s * x
    return s


def neg_step_data(a, lo):
    s = 0.0
    for i in range(a.shape[0] - 1, lo, -2):
        s = s * 0.5 + a[i] * a[i]
    return s


def neg_range_empty(a, n):
    s = 0.0
    for i in range(n, n - 3, -1):
        s = s + a[i] * s + a[i]
    for i in range(n, n + 3, -1):
        s = s * a[0]
    return s


def nested_zero(a, n):
    s = 0.0
    for i in range(3):
        for j in range(n):
            s = s + a[i] * a[j] + s * a[i]
    return s


def zero_trip_while(x):
    s = x
    while s > 100.0:
        s = s * 0.5
    return s * x


def while_break_for_continue(xs, w):
    s = 0.0
    for i in range(xs.shape[0]):
        if xs[i] < 0.2:
            continue
        t = xs[i]
        while True:
            t = t * w
            if t > 3.0:
                break
            s = s + t
    return s


def while_cond_bool(x, lim):
    s = x
    n = 0
    while s < lim and n < 10:
        s = s * 1.3 + x
        n = n + 1
    return s


def while_continue(x):
    s = 0.0
    n = 0
    while n < 6:
        n = n + 1
        if n % 2 == 0:
            continue
        s = s + x * n + s * x
    return s


def while_counter_index(a):
    i = 0
    s = 0.0
    while i < a.shape[0]:
        s = s + a[i] * s + a[i]
        i = i + 2
    return s * a[i - 2]


def nested_whiles(x, y):
    s = 0.0
    i = 0
    while i < 4:
        i = i + 1
        if i == 2:
            continue
        t = x * i
        while True:
            t = t * y + 0.3
            if t > 2.0:
                break
            s = s + t * x
    return s


def early_ret_array(a):
    for i in range(a.shape[0]):
        if a[i] > 1.0:
            return np.sum(a[:i] * a[i])
    return np.sum(a * a)


def ret_in_while_in_for(m, thr):
    s = 0.0
    for i in range(m.shape[0]):
        j = 0
        while j < m.shape[1]:
            s = s + m[i, j] * s + m[i, j]
            if s > thr:
                return s * 2.0
            j = j + 1
    return s


def ret_int_or_float(x):
    if x < 0.0:
        return 0
    return x * x


def break_then_more(xs, w):
    s = 0.0
    for i in range(xs.shape[0]):
        s = s * w + xs[i]
        if s > 1.5:
            s = s * 0.5
            break
        s = s + 0.1 * xs[i]
    s = s * w
    for j in range(2):
        s = s + w * s
    return s


def continue_break_same(xs, w):
    s = 1.0
    for i in range(xs.shape[0]):
        if xs[i] < 0.0:
            continue
        if s > 3.0:
            break
        s = s * (1.0 + w * xs[i])
    return s


def for_rows(m):
    s = 0.0
    for row in m:
        s = s + np.sum(row * row) * s
    return s


def for_elems_2(v):
    s = 1.0
    for x in v:
        for y in v:
            s = s * (1.0 + x * y)
    return s


def iter_2d_constant(x):
    s = 0.0
    for v in np.ones(3):
        s = s + v * x
    return s


def rnn_like(w, xs):
    h = 0.0
    for i in range(xs.shape[0]):
        h = np.tanh(w * h + xs[i])
        if h > 0.3:
            h = h * 0.9
    return h * h


def elem_after(xs):
    s = 0.0
    for v in xs:
        s = s + v * s + v
    return s * v


def pass_loop_index(a):
    for i in range(2):
        pass
    return a[i] * a[i]


def loopvar_branch_after(a, c):
    i = 0
    if c > 0.0:
        for i in range(3):
            a = a * 1.0
    return a[i] * a[i]


def while_after_for(a):
    s = 0.0
    for i in range(3):
        s = s + a[i] * s
    while i > 0:
        s = s * a[i] + a[i]
        i = i - 1
    return s


# the loop variable reassigned, shadowing or reused


def loopvar_reassigned(a):
    s = 0.0
    for i in range(2):
        i = i + 1
        s = s + a[i] * a[i]
    return s


def loopvar_shadows(a):
    i = 1
    s = a[i] * a[i]
    for i in range(3):
        s = s + a[i] * s
    return s


def loopvar_reused(a):
    s = 0.0
    for i in range(3):
        s = s + a[i] * s + a[i]
    t = a[i] * s
    for i in range(1, 2):
        t = t * a[i]
    return t + s * a[i]


def same_loopvar_nested(a):
    s = 0.0
    for i in range(2):
        s = s + a[i] * s + a[i]
        for i in range(3):
            s = s * a[i] + 0.1
        s = s + a[i]
    return s


def same_loopvar_nested_small(a):
    s = 0.0
    for i in range(2):
        for i in range(3):
            s = s * a[i] + 0.1
        s = s + a[i]
    return s


def iter_tuple(a, b):
    s = 0.0
    for v in (a, b):
        s = s + v * v
    return s


# ---------------------------------------------------------------------------
# Calls to the user's helpers
# ---------------------------------------------------------------------------


def same_var_twice(x):
    return mul2(x, x)


def nested_helpers(x):
    return mul2(mul2(x, x), x)


def use_ident(x):
    return helper_ident(x) * x


def same_helper_twice_arrays(v):
    s = 0.0
    for i in range(2):
        s = s + np.sum(mul2(v, v))
        v = v * 0.5
    return s


def call_early_in_loop(xs, t):
    acc = 0.0
    for i in range(xs.shape[0]):
        acc = acc + helper_early(xs[i], t)
    return acc


def caller_arr_loop(v, w):
    s = 0.0
    for j in range(3):
        u = helper_arr_loop(v, w)
        s = s + np.sum(u * u)
        v = v + u
    return s


def caller_range(x):
    t = 0.0
    k = 0
    while k < 3:
        t = t + helper_range(x, k)
        k = k + 1
    return t


def caller_const(x):
    return mul2(x, 2.0) + mul2(2.0, x) + mul2(x * x, 3)


def caller_branch_top(x, c):
    if c > 0.0:
        y = helper_branch(x)
    else:
        y = helper_branch(x * 2.0)
    z = helper_branch(y)
    return y * z


def nb_top_body(x, y):
    return nb_helper(x) * y


nb_top = numba.njit(nb_top_body)


def nb_loop(xs, w):
    s = 0.0
    for i in range(xs.shape[0]):
        s = s + nb_step(xs[i] + s, w)
    return s


def particles(pos, k, dt):
    n = pos.shape[0]
    vel = np.zeros(n)
    for step in range(4):
        force = np.zeros(n)
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                f = pair_force(pos[i] - pos[j], k)
                force[i] += f
        vel = vel + dt * force
        pos = pos + dt * vel
        if np.max(np.abs(pos)) > 10.0:
            break
    return np.sum(pos * pos) + np.sum(vel * vel)


def ode_adaptive(y0, a, t_end):
    t = 0.0
    y = y0
    h = 0.1
    n = 0
    while t < t_end:
        if t + h > t_end:
            h = t_end - t
        k1 = -a * y
        k2 = -a * (y + 0.5 * h * k1)
        y = y + h * k2
        t = t + h
        n = n + 1
        if n > 1000:
            break
    return y


# tuples: returned by helpers, or held in variables


def tuple_call_top(x, y):
    a, b = helper_tuple(x, y)
    return a * b


def tuple_call_rebind(x, y):
    x, y = helper_tuple(x, y)
    return x * y


def tuple_call_loop(x, y):
    for i in range(3):
        x, y = helper_tuple(x, y)
    return x + y


def tuple_branch_loop(x, y):
    s = 0.0
    for i in range(3):
        a, b = helper_tuple_branch(x, y)
        s = s + a * b
        x = x * 0.9
    return s


def tuple_var_unpack(x):
    t = (x * 2.0, x)
    a, b = t
    return a * b


def tuple_var_single(x):
    t = (x * 2.0,)
    y, = t
    return y * y


def tuple_var_index(x, y):
    p = (x, y * 3.0)
    return p[0] * p[1]


def tuple_var_arrays(a, b):
    p = (a, b)
    return np.sum(p[0] * p[1])


def call_default(x):
    return helper_default(x) + helper_default(x, 3.0)


def log_base(x):
    return math.log(x, 2.0)


# user variables named like srcad's generated module-level names


def var_rt(x):
    rt = x * 2.0
    s = 0.0
    for i in range(3):
        s = s + rt * s + x
    return s


def var_List_stack(v):
    List = 2.0
    for i in range(2):
        v = np.sin(v) * List
    return np.sum(v)


def var_np_int(x):
    np = 3
    s = 0.0
    for i in range(np):
        s = s + x * s + x
    return s


def var_named_fwd(x):
    sq_fwd = x * 2.0
    return sq(sq_fwd)


def var_named_rev(x):
    sq_rev = x * 2.0
    return sq(sq_rev) * sq_rev


# ---------------------------------------------------------------------------
# The table of gradient cases
# ---------------------------------------------------------------------------

_M23 = np.array([[0.3, 0.5, 0.2], [0.7, 0.1, 0.4]])
_U45 = np.random.default_rng(2).normal(size=(4, 5))
_W32 = np.random.default_rng(3).normal(size=(3, 2))


def _rand(seed, shape):
    return np.random.default_rng(seed).normal(size=shape)


def _a(*values):
    return np.array(values, dtype=float)


def case(func, args, wrt=0, jit=False, xfail=None, id=None):
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    name = id or func.__name__ + ("[jit]" if jit else "")
    return pytest.param(func, args, wrt, jit, marks=marks, id=name)


CRASH_TUPLE_RETURN = ("crash: the callee's forward sweep returns `a, b, tape` instead of "
                      "`(a, b), tape` (ValueError: too many values to unpack)")
WRONG_FANCY_WRITE = ("silently wrong gradient: with repeated indices only the last write "
                     "lands, but the adjoint gives every written value d_a[idx]")
WRONG_ALIAS = ("silently wrong gradient and the caller's array is mutated: a write through "
               "an alias the alias check does not see")
WRONG_INPLACE = ("silently wrong gradient: `v += w` on an array is an in-place update seen "
                 "through every alias, but srcad treats it as the rebinding `v = v + w`")
FALSE_REFUSAL = ("valid program refused by CheckAliases (`new` is written element by element "
                 "while `u` may still see its memory), though `new` is a fresh copy each time")
NAME_CLASH = ("crash: a user variable shadows a module-level name the generated code uses "
              "(rt, np, List, <helper>_fwd/_rev)")

def kw_in_helper_call(x):
    return annotated(x, n=3)


def array_literal(a):
    idx = np.array([0, 0, 2])
    return np.sum(a[idx] ** 2)


def sum_keepdims(m):
    return np.sum(m / np.sum(m, axis=1, keepdims=True))


def enumerate_loop(a):
    s = 0.0
    for i, v in enumerate(a):
        s = s + v * i
    return s


def rebound_to_a_sum(x):
    x = np.sum(x * x)
    return x * 2.0


def rebound_after_a_loop(x, n):
    y = x * 3.0
    for i in range(n):
        y = y * 0.5 + x
    y = np.sum(y)
    y = y * y
    return y


def rebound_to_an_array(x):
    s = x[0]
    s = np.array([s, 2.0 * s])
    return np.sum(s * x[:2])


def tuple_item_reads_what_the_body_writes(x, y, a):
    for v in (0.5, a[0] * x):
        a[0] = 2.5
    return v * y + np.sum(a)


GRAD_CASES = [
    # a tuple of values with gradients held in a name, read by constant index or unpacked
    *[case(f, a, w, jit=j) for f, a, w in [
        (tuple_var_unpack, lambda: (0.7,), 0),
        (tuple_var_single, lambda: (1.3,), 0),
        (tuple_var_index, lambda: (0.7, 0.2), (0, 1)),
        (tuple_var_arrays, lambda: (_a(0.3, 0.4), _a(0.5, 0.1)), (0, 1))] for j in (False, True)],
    # branches and names
    case(both_branches, lambda: (1.3, 0.4), (0, 1), id="both_branches[then]"),
    case(both_branches, lambda: (0.3, 0.4), (0, 1), id="both_branches[else]"),
    case(both_branches, lambda: (0.3, 0.4), (0, 1)),
    *[case(else_if_chain, (lambda v=v: (v,)), id=f"else_if_chain[{v}]")
      for v in (-1.5, -0.5, 0.5, 1.5)],
    case(both_branch_arrays, lambda: (_a(0.1, 0.5), 1.5)),
    case(ifexp_arrays, lambda: (_a(0.5, 0.2), _a(0.1, 0.4), 1.0), (0, 1)),
    case(cmp_chain, lambda: (0.3,)),
    case(shadow_param, lambda: (0.4,)),
    case(clash_names, lambda: (0.4, 1.3), (0, 1)),
    case(var_tmp_names, lambda: (0.3,)),
    case(var_k_names, lambda: (_a(0.3, 0.4),)),
    case(var_math, lambda: (0.4, _a(0.3, 0.5)), (0, 1)),
    case(var_List_no_stack, lambda: (0.4,)),
    case(defaults, lambda: (1.4,)),
    case(defaults, lambda: (1.4, 3), id="defaults[int c]"),
    case(annotated, lambda: (1.3,)),
    case(list_target, lambda: (1.3,)),
    case(returns_param, lambda: (1.3,)),
    case(returns_const, lambda: (1.3,)),
    # arithmetic, builtins, numpy
    case(self_ops, lambda: (1.3,)),
    case(pow_variants, lambda: (1.3,)),
    case(builtins_mm, lambda: (0.3, 1.2), (0, 1)),
    case(max_nested, lambda: (0.5, 0.2, 0.9), (0, 1, 2)),
    case(int_mixed, lambda: (1.3, 3)),
    case(int_mixed, lambda: (1.3, 3.0), (0, 1), id="int_mixed[float n]"),
    case(int_param_reassigned, lambda: (1.5, 3), jit=True),
    case(bool_param, lambda: (1.5, True), id="bool_param[True]"),
    case(bool_param, lambda: (1.5, False), id="bool_param[False]"),
    case(bool_mult, lambda: (0.7, _a(0.1, 0.5, -0.3)), (0, 1)),
    case(nondiff_mix, lambda: (2.3,)),
    case(sign_mix, lambda: (_a(0.1, 1.5, -0.3),)),
    case(mod_neg, lambda: (-1.3, 0.7), (0, 1)),
    case(mixed_int_loop, lambda: (0.7, 4)),
    case(int_init_acc, lambda: (_a(0.5, 1.7, 3.2), 0.4), (0, 1)),
    case(int_array_arith, lambda: (_a(0.5, 0.2, 0.3), np.array([2, 0, 2]))),
    case(int_array_float_mix, lambda: (_a(0.1, 1.5, -0.3), np.array([1, 2, 3]))),
    case(tuple_param, lambda: (0.7, (0.3, 0.2))),
    case(reduce_bcast, lambda: (_a(0.5, 1.7, 3.2),)),
    case(xT_y, lambda: (_rand(5, (3, 2)), _rand(6, (3, 4))), (0, 1)),
    case(sum_axis1, lambda: (np.random.default_rng(4).uniform(1, 2, size=(3, 2)),)),
    case(sum_tuple_axis, lambda: (_M23.copy(),)),
    case(mean_neg_axis, lambda: (_M23.copy(),)),
    case(max_axis0, lambda: (_M23.copy(),)),
    case(prod_zero, lambda: (_a(0.0, 1.5, 2.0, 0.5),)),
    case(where_scalar_branch, lambda: (_a(0.5, 0.2, 0.9), 0.4), (0, 1)),
    case(clip_arr_bounds, lambda: (_a(0.5, 0.2, 0.9), _a(0.3, 0.3, 0.3), _a(0.6, 0.6, 0.6)),
         (0, 1, 2)),
    case(pairwise, lambda: (_a(0.1, -0.4, 0.8), _a(0.3, 0.2)), (0, 1)),
    case(mat_vec_1d, lambda: (_a(0.1, -0.4, 0.8), _W32.copy()), (0, 1)),
    case(lin_alg_mix, lambda: (_W32.copy(), _a(0.3, -0.2), _a(0.1, 0.2, -0.3)), (0, 1, 2)),
    case(mat_power, lambda: (np.array([[0.3, 0.4], [0.5, 0.1]]),)),
    case(grow, lambda: (_a(0.5, 0.2, 0.3),)),
    case(softmax_rows, lambda: (_U45.copy(),)),
    case(where_one_arg_scalar, lambda: (_a(-0.3, 0.5, 0.9),)),
    case(max_reduce_1d, lambda: (_a(-0.3, 0.5, 0.9),)),
    case(mean_int, lambda: (_a(-0.3, 0.5, 0.9), 3)),
    case(round_decimals, lambda: (0.737,)),
    case(minimum_scalar, lambda: (_a(-0.3, 0.5, 0.9), 0.2), (0, 1)),
    case(power_arrays, lambda: (_a(0.4, 0.6, 1.0), _a(1.5, 2.0, 0.5)), (0, 1)),
    case(dot_2d, lambda: (_M23.copy(), _M23.T.copy()), (0, 1)),
    case(stack_axis1, lambda: (_a(-0.3, 0.5, 0.9), _a(0.2, 0.1, -0.4)), (0, 1)),
    case(concat_2d_axis1, lambda: (_M23.copy(), _M23[:, :2] * 2.0), (0, 1)),
    case(axis_none, lambda: (_a(-0.3, 0.5, 0.9),)),
    case(reshape_neg, lambda: (_a(-0.3, 0.5, 0.9),)),
    case(sum_axis_var, lambda: (_M23.copy(), 1), id="sum_axis_var[1]"),
    case(sum_axis_var, lambda: (_M23.copy(), 0), id="sum_axis_var[0]"),
    case(full_active, lambda: (0.7,)),
    case(full_2d, lambda: (0.7,)),
    case(linspace_active, lambda: (0.7,)),
    case(arange_scaled, lambda: (0.7,)),
    case(clip_no_upper, lambda: (_a(-0.3, 0.5, 0.9),)),
    case(clip_no_lower, lambda: (_a(-0.3, 0.45, 0.9),)),
    case(unused, lambda: (0.3, 0.5), (0, 1)),
    case(cond_only, lambda: (0.3, 0.5), (0, 1)),
    case(index_only, lambda: (_a(0.3, 0.5), 1.2), (0, 1)),
    case(unused_array, lambda: (_a(0.3, 0.5), 1.2)),
    case(multi_spec, lambda: (0.4, _a(0.3, 0.2), 1.5), (0, 1, 2)),
    case(where_sqrt_negative, lambda: (_a(-1.0, 4.0, 2.0),)),
    case(kw_in_helper_call, lambda: (0.3,)),
    case(array_literal, lambda: (_a(0.5, 1.7, 3.2),)),
    # subscripts
    case(same_elem_twice, lambda: (_a(0.5, 1.2, 0.9),)),
    case(recurrence, lambda: (_a(1.1, 0.2, 0.3, 0.4), 0.7), (0, 1)),
    case(read_arg_after_write, lambda: (_a(0.5, 1.7, 3.2),)),
    case(neg_slice_write, lambda: (_a(0.5, 1.7, 3.2),)),
    case(fancy_read_rep, lambda: (_a(0.5, 1.7, 3.2), np.array([0, 0, 2]))),
    case(fancy_rows, lambda: (_W32.copy(), np.array([0, 2, 0])), jit=True),
    case(aug_k, lambda: (_a(0.5, 1.7, 3.2, 0.4), 1.5), (0, 1)),
    case(branch_in_loop_elem, lambda: (_a(0.1, 0.6, 0.2, 0.9),), jit=True),
    case(elem_then_whole, lambda: (_a(0.1, 0.6, 0.2), 0.9), (0, 1)),
    case(idx_rebound, lambda: (_a(0.3, 0.5, 0.2), np.array([0, 2, 1]))),
    case(view_rebound, lambda: (_a(0.3, 0.5, 0.2, 0.7),)),
    case(two_d_col_pushed, lambda: (_M23.copy(),)),
    case(view_pushed, lambda: (_M23.copy(),), jit=True),
    case(swap_arrays, lambda: (_a(0.5, 1.7), _a(0.3, 0.9)), (0, 1)),
    case(reverse_inplace, lambda: (_a(0.3, 0.5, 0.2, 0.9), 0.7), (0, 1)),
    case(neg_step_2d, lambda: (np.array([[0.3, 0.5, 0.2], [0.7, 0.1, 0.4], [0.2, 0.6, 0.3]]),
                               0.7), (0, 1)),
    case(self_write, lambda: (_a(0.3, 0.5, 0.2),)),
    case(strided_write, lambda: (_a(0.3, 0.5, 0.2), 0.7), (0, 1)),
    case(shift_overlap, lambda: (_a(0.3, 0.5, 0.2, 0.9), 0.7), (0, 1)),
    case(fancy_write_rep, lambda: (_a(0.5, 1.7, 3.2), _a(1.0, 2.0, 3.0), np.array([0, 0, 2])),
         (0, 1)),
    case(fancy_aug_rep, lambda: (_a(0.5, 1.7, 3.2), _a(1.0, 2.0, 3.0), np.array([0, 0, 2])),
         (0, 1)),
    case(row_recurrence, lambda: (_M23.T.copy(), 0.9), (0, 1)),
    case(shift_slice, lambda: (_a(0.1, 0.6, 0.2), 0.9), (0, 1)),
    case(row_read_then_write, lambda: (np.array([[0.1, 0.6], [0.2, 0.3]]),)),
    case(row_used_once, lambda: (np.array([[0.1, 0.6], [0.2, 0.3]]), 0.7), (0, 1)),
    case(row_aug, lambda: (_M23.copy(), _a(0.4, -0.2, 0.9)), (0, 1)),
    case(slice_aug, lambda: (_a(0.1, 0.6, 0.2, 0.5), 0.3), (0, 1)),
    case(row_aug_plain, lambda: (_M23.copy(), _a(0.4, -0.2, 0.9)), (0, 1)),
    case(grid_smooth, lambda: (_U45.copy(), 0.1), (0, 1)),
    case(flatten_write, lambda: (np.array([[0.5, 0.2], [0.3, 0.4]]),)),
    # loops
    case(aliased_loop_read, lambda: (_a(0.5, 0.2, 0.3), 0.7), (0, 1)),
    case(array_rebound, lambda: (_a(1.1, 0.2), _a(0.9, 1.3)), (0, 1)),
    case(rnn, lambda: (_rand(7, (3, 3)), _rand(8, 3)), (0, 1), jit=True),
    case(nested_break_continue, lambda: (np.array([[0.1, 0.2, 0.9, 0.3], [-0.5, 0.3, 0.2, 0.1],
                                                   [0.3, 0.4, 0.5, 0.85]]),), jit=True),
    case(while_in_for, lambda: (_a(0.5, 1.7, 3.2, 5.0),)),
    case(early_ret_while_for, lambda: (_a(1.5, 1.7, 1.2), 1.1), (0, 1),
         id="early_ret_while_for[returns]"),
    case(early_ret_while_for, lambda: (_a(0.9, 0.7, 1.2), 1.1), (0, 1)),
    case(loop_var_after, lambda: (_a(0.5, 1.7, 3.2),)),
    case(loopvar_after_break, lambda: (_a(0.5, 0.7, 0.3),)),
    case(zero_iter, lambda: (1.3, 0), id="zero_iter[0]"),
    case(zero_iter, lambda: (1.3, 3), id="zero_iter[3]"),
    case(neg_step_data, lambda: (_a(0.5, 1.7, 3.2, 0.1, 0.2, 0.7), 0), id="neg_step_data[0]"),
    case(neg_step_data, lambda: (_a(0.5, 1.7, 3.2, 0.1, 0.2, 0.7), 7), id="neg_step_data[7]"),
    case(neg_range_empty, lambda: (_a(0.1, 0.6, 0.2, 0.9), 3)),
    case(nested_zero, lambda: (_a(0.1, 0.6, 0.2, 0.9), 0), id="nested_zero[0]"),
    case(nested_zero, lambda: (_a(0.1, 0.6, 0.2, 0.9), 2), id="nested_zero[2]"),
    case(zero_trip_while, lambda: (1.5,)),
    case(while_break_for_continue, lambda: (_a(0.1, 0.5, 1.2), 1.7), (0, 1)),
    case(while_cond_bool, lambda: (0.3, 5.0)),
    case(while_continue, lambda: (0.3,)),
    case(while_counter_index, lambda: (_a(0.5, 0.7, 0.3, 0.2, 0.1),)),
    case(nested_whiles, lambda: (0.4, 1.3), (0, 1)),
    case(early_ret_array, lambda: (_a(0.1, 0.5, 1.2, 0.3),), id="early_ret_array[returns]"),
    case(early_ret_array, lambda: (_a(0.1, 0.5, 0.2, 0.3),), id="early_ret_array[falls]"),
    case(ret_in_while_in_for, lambda: (np.array([[0.1, 0.5], [1.2, 0.3]]), 1.0), jit=True),
    case(ret_int_or_float, lambda: (-0.5,), id="ret_int_or_float[int]"),
    case(ret_int_or_float, lambda: (0.5,), id="ret_int_or_float[float]"),
    case(break_then_more, lambda: (_a(0.5, 0.8, 0.9, 0.2), 0.9), (0, 1)),
    case(continue_break_same, lambda: (_a(0.5, -0.8, 0.9, 0.7, 0.6, 0.9), 0.9), (0, 1)),
    case(for_rows, lambda: (_M23.copy(),)),
    case(for_elems_2, lambda: (_a(0.5, 0.2, 0.3),)),
    case(iter_2d_constant, lambda: (0.4,)),
    case(elem_after, lambda: (_a(0.3, 0.5, 0.2),)),
    case(pass_loop_index, lambda: (_a(0.3, 0.5, 0.2),)),
    case(loopvar_branch_after, lambda: (_a(0.3, 0.5, 0.2, 0.1), 1.0), id="lv_branch[+]"),
    case(loopvar_branch_after, lambda: (_a(0.3, 0.5, 0.2, 0.1), -1.0), id="lv_branch[-]"),
    case(while_after_for, lambda: (_a(0.3, 0.5, 0.2, 0.1),)),
    case(loopvar_reassigned, lambda: (_a(0.5, 1.7, 3.2),)),
    case(loopvar_shadows, lambda: (_a(0.5, 0.2, 0.3),)),
    case(loopvar_reused, lambda: (_a(0.5, 0.2, 0.3),)),
    case(same_loopvar_nested, lambda: (_a(0.5, 0.2, 0.3),)),
    case(same_loopvar_nested_small, lambda: (_a(0.5, 0.2, 0.3),)),
    case(same_loopvar_nested, lambda: (_a(0.5, 0.2, 0.3),), jit=True),
    case(iter_tuple, lambda: (0.3, 0.4), (0, 1)),
    # helpers
    case(same_var_twice, lambda: (0.7,)),
    case(nested_helpers, lambda: (0.7,)),
    case(use_ident, lambda: (0.6,)),
    case(same_helper_twice_arrays, lambda: (_a(0.5, 0.2),)),
    case(call_early_in_loop, lambda: (_a(1.5, 0.5, 1.2), 2.0), (0, 1), jit=True),
    case(caller_arr_loop, lambda: (_a(0.3, -0.2), 0.8), (0, 1)),
    case(caller_range, lambda: (0.7,)),
    case(caller_const, lambda: (0.7,)),
    case(caller_branch_top, lambda: (0.7, 1.0), id="caller_branch_top[then]"),
    case(caller_branch_top, lambda: (0.2, -1.0), id="caller_branch_top[else]"),
    case(nb_top, lambda: (0.5, 0.3), (0, 1)),
    case(nb_loop, lambda: (_a(0.3, 0.4), 0.8), (0, 1)),
    case(particles, lambda: (_a(0.1, 0.5, -0.3), 0.8, 0.05), (0, 1, 2)),
    case(ode_adaptive, lambda: (1.0, 0.7, 0.55), (0, 1, 2)),
    case(tuple_call_top, lambda: (0.5, 0.7), (0, 1)),
    case(tuple_call_rebind, lambda: (0.5, 0.7), (0, 1)),
    case(tuple_call_loop, lambda: (0.5, 0.7), (0, 1)),
    case(tuple_branch_loop, lambda: (0.5, 0.7), (0, 1)),
    case(call_default, lambda: (0.7,)),
    case(log_base, lambda: (3.0,)),
    case(log_base, lambda: (3.0,), jit=True),
    # names the generated module uses
    case(var_rt, lambda: (0.4,)),
    case(var_List_stack, lambda: (_a(0.3, 0.4),)),
    case(var_np_int, lambda: (0.3,)),
    case(var_named_fwd, lambda: (0.7,)),
    case(var_named_rev, lambda: (0.7,)),
    case(sum_keepdims, lambda: (_M23.copy(),)),
    case(sum_keepdims, lambda: (_M23.copy(),), jit=True),
    case(enumerate_loop, lambda: (_a(0.3, 0.4),)),
    # a name rebound to a value of another kind is a new variable from there on
    *[case(fn, make, jit=jit) for fn, make in (
        (rebound_to_a_sum, lambda: (_a(0.5, 1.5),)),
        (rebound_after_a_loop, lambda: (_a(0.5, 1.5), 3)),
        (rebound_to_an_array, lambda: (_a(0.5, 1.5, 2.0),))) for jit in (False, True)],
    # Python builds the tuple before the loop: its items see the array before the body writes
    *[case(tuple_item_reads_what_the_body_writes, lambda: (0.7, 1.3, _a(0.3, 0.4)), (0, 1, 2),
           jit=jit) for jit in (False, True)],
]


def _srcad_warnings(records):
    return [r for r in records if r.category.__module__.split(".")[0] == "srcad"]


def assert_args_unchanged(args, before):
    for k, (a, b) in enumerate(zip(args, before)):
        if isinstance(b, np.ndarray):
            assert np.array_equal(a, b), f"argument {k} was mutated: {b} -> {a}"


def run_grad(func, args, wrt, jit):
    """srcad's gradient, checking the caller's arguments, the value (the function's own)
    and (jit) no fall-back."""
    before = copy.deepcopy(args)
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        value, got = srcad.value_and_grad(func, wrt=wrt, jit=jit)(*args)
    assert_args_unchanged(args, before)
    assert_primal(func, before, value, jit)
    if jit:
        fallbacks = _srcad_warnings(records)
        assert not fallbacks, f"jit=True fell back: {fallbacks[0].message}"
    return got


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("func, make_args, wrt, jit", GRAD_CASES)
def test_grad_matches_finite_differences(func, make_args, wrt, jit):
    got = run_grad(func, make_args(), wrt, jit)
    assert_grad_close(got, fd_grad(func, make_args(), wrt))


# ---------------------------------------------------------------------------
# Cases the finite-difference reference cannot check, or that may be refused
# ---------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_where_log_at_zero_is_finite():
    # at a == 0 the branch taken is `a` (slope 1); log(0) = -inf is not taken
    a = _a(-1.0, 4.0, 0.0)
    got = srcad.grad(where_log_zero, jit=False)(a)
    np.testing.assert_allclose(got, [1.0, 0.25, 1.0])


ALIAS_WRITES = [
    pytest.param(alias_through_helper, lambda: (_a(0.5, 0.2),), (0,), id="through_helper"),
    pytest.param(alias_through_tuple, lambda: (_a(0.5, 0.2), _a(0.1, 0.2)), (0, 1),
                 id="through_tuple"),
    pytest.param(alias_view_helper, lambda: (np.array([[1.0, 0.5], [0.3, 0.2]]),), (0,),
                 id="view_from_helper"),
]
INPLACE_AUG = [
    pytest.param(inplace_alias, lambda: (_a(0.3, 0.4), _a(0.5, 0.1)), (0, 1), id="name"),
    pytest.param(inplace_alias_loop, lambda: (_a(0.3, 0.4, 0.1), 0.7), (0, 1), id="loop"),
    pytest.param(inplace_alias_tuple_loop, lambda: (_a(0.3, 0.4), 0.7), (0, 1),
                 id="tuple_loop"),
    pytest.param(inplace_row, lambda: (np.array([[0.3, 0.4], [0.1, 0.2]]), 0.7), (0, 1),
                 id="row"),
]


def _refused_or_correct(func, make_args, wrt):
    """Either a SrcadError (the write is refused) or the right gradient with the
    caller's arrays untouched; never a silently wrong one."""
    args = make_args()
    try:
        got = run_grad(func, args, wrt, jit=False)
    except srcad.SrcadError:
        return
    assert_grad_close(got, fd_grad(func, make_args(), wrt))


@pytest.mark.parametrize("func, make_args, wrt", ALIAS_WRITES)
def test_alias_write_refused_or_correct(func, make_args, wrt):
    _refused_or_correct(func, make_args, wrt)


@pytest.mark.parametrize("func, make_args, wrt", INPLACE_AUG)
def test_inplace_aug_assign_on_alias_refused_or_correct(func, make_args, wrt):
    _refused_or_correct(func, make_args, wrt)


def test_same_gradient_function_reused_across_shapes():
    for jit in (False, True):
        g = srcad.grad(rnn_like, wrt=(0, 1), jit=jit)
        for n in (3, 0, 7, 1):
            xs = np.linspace(-0.5, 1.0, n)
            assert_grad_close(g(0.8, xs), fd_grad(rnn_like, (0.8, xs), (0, 1)))


def test_value_and_grad_matches_function():
    xs = _a(0.5, -0.8, 0.9, 0.7, 0.6, 0.9)
    value, grad = srcad.value_and_grad(continue_break_same, wrt=(0, 1), jit=False)(xs, 0.9)
    assert value == pytest.approx(continue_break_same(xs.copy(), 0.9))
    assert_grad_close(grad, fd_grad(continue_break_same, (xs, 0.9), (0, 1)))


def test_wrt_names_positions_and_duplicates():
    g = srcad.grad(both_branches, wrt=("y", 0), jit=False)(1.3, 0.4)
    assert_grad_close(g, fd_grad(both_branches, (1.3, 0.4), (1, 0)))
    assert_grad_close(srcad.grad(both_branches, wrt=-1, jit=False)(1.3, 0.4),
                      fd_grad(both_branches, (1.3, 0.4), 1))


# ---------------------------------------------------------------------------
# Refusals: a SrcadError, never another exception
# ---------------------------------------------------------------------------


def alias_name(x):
    y = x
    y[0] = 1.0
    return np.sum(x * x)


def alias_row(m):
    r = m[0]
    r[1] = 2.0
    return np.sum(m * m)


def alias_ifexp(x, z, c):
    y = x if c > 0 else z
    y[0] = 1.0
    return np.sum(x * x) + np.sum(z)


def unpack_view(m):
    a, b = m[0], m[1]
    a[0] = 3.0
    return np.sum(m * b)


def recursion(x):
    return helper_rec(x, 3)


def call_local(x):
    f = x
    return f(2.0)


def itemsize_attr(x):
    return x.itemsize


def string_op(x):
    s = "abc" + "d"
    return x * len(s)


def string_arg(x, name):
    if name == "a":
        return x
    return x * 2.0


def call_helper_writes(a, w):
    return helper_writes(a, w) + a[0]


def zip_loop(a, b):
    s = 0.0
    for u in zip(a, b):
        s = s + u[0]
    return s


def sub_of_sub_write(m):
    m[0:2][1] = 2.0  # a slice first: NumPy's element is m[1], refused
    return np.sum(m * m)


def none_then_float(x, c):
    y = None
    if c > 0.0:
        y = x * 2.0
    return y * x


def ret_tuple(x):
    return x, x


def slice_obj(a):
    s = slice(0, 2)
    return np.sum(a[s])


def in_test(x):
    if x in (1.0, 2.0):
        return x
    return x * 2.0






def method_call_other(a):
    return np.sum(a.tolist())


def ellipsis_index(a):
    return np.sum(a[...] * a)


REFUSALS = [
    (alias_name, lambda: (_a(0.5, 0.2),)),
    (alias_row, lambda: (np.ones((2, 2)),)),
    (alias_ifexp, lambda: (_a(0.5, 0.2), _a(0.1, 0.2), 1.0)),
    (unpack_view, lambda: (np.ones((2, 2)) * 0.5,)),
    (recursion, lambda: (0.3,)),
    (call_local, lambda: (0.3,)),
    (itemsize_attr, lambda: (_a(0.3, 0.2),)),
    (string_op, lambda: (0.3,)),
    (string_arg, lambda: (0.3, "b")),
    (call_helper_writes, lambda: (_a(0.5, 1.7, 3.2), 0.8)),
    (zip_loop, lambda: (_a(0.3, 0.4), _a(0.3, 0.4))),
    (sub_of_sub_write, lambda: (np.ones((2, 2)),)),
    (none_then_float, lambda: (0.3, 1.0)),
    (ret_tuple, lambda: (0.3,)),
    (slice_obj, lambda: (np.ones(3),)),
    (in_test, lambda: (0.3,)),
    (method_call_other, lambda: (np.ones(3),)),
    (ellipsis_index, lambda: (_a(0.3, 0.4),)),
]


@pytest.mark.parametrize("func, make_args", REFUSALS, ids=[f.__name__ for f, _ in REFUSALS])
def test_refused_with_srcad_error(func, make_args):
    args = make_args()
    before = copy.deepcopy(args)
    with pytest.raises(srcad.SrcadError):
        srcad.grad(func, jit=False)(*args)
    assert_args_unchanged(args, before)


@pytest.mark.parametrize("func, make_args", [
    (alias_ifexp, lambda: (_a(0.5, 0.2), _a(0.1, 0.2), 1.0)),
    (unpack_view, lambda: (np.ones((2, 2)) * 0.5,)),
], ids=["ifexp", "unpack"])
def test_refusal_message_names_no_temporaries(func, make_args):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(func, jit=False)(*make_args())
    message = str(info.value)
    first = message.splitlines()[0].split(": ", 1)[1]  # after `file:line: `
    assert not re.search(r"\btmp\d", first), message

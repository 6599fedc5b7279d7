"""Boolean-mask subscripts, read and written as NumPy code writes them.

`x[m]` for a boolean array `m` of x's shape is the 1-d array of the selected elements in
C order; a 1-d mask along one axis of a 2-d array (`X[m]`, `X[m, :]`, `X[:, m]`) keeps
those rows or columns. Each function below is checked against central finite differences
(tests/fd.py) with `jit=False`, a third of them also compiled; the points keep away from
the masks' boundaries, so that the finite differences never flip an element in or out.
Forward mode is checked against reverse mode by the dot-product identity; what srcad does
not take is refused with a SrcadError that names the line.
"""

import copy
import inspect
import os
import re
import warnings

import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, fd_grad
from tests.primal import assert_primal

FILE = os.path.basename(__file__)

# ---------------------------------------------------------------------------
# Reads: select, then reduce
# ---------------------------------------------------------------------------


def sum_of_squares_above(x, t):
    return np.sum(x[x > t] ** 2)


def masked_mean(x, t):
    return np.mean(x[x > t])


def small_entries_2d(X):
    return np.sum(X[np.abs(X) < 1.0] ** 3)


def method_sum_of_selection(x):
    keep = np.abs(x) < 1.0
    return (x[keep] * x[keep]).sum() + x[x >= 1.0].mean()


def huber(r, delta):
    """The Huber loss, quadratic near zero and linear beyond `delta`."""
    a = np.abs(r)
    small = a <= delta
    large = a > delta
    return np.sum(0.5 * r[small] ** 2) + np.sum(delta * (a[large] - 0.5 * delta))


def weighted_selection(x, w, t):
    m = x > t
    return np.dot(w[m], x[m])


def given_mask(x, m):
    return np.sum(np.exp(x[m]))


def band(x, lo, hi):
    """Elements inside (lo, hi): select with one test, then the other."""
    above = x[x > lo]
    return np.sum(np.sin(above[above < hi]))


def selection_of_a_transpose(X):
    Xt = X.T
    sel = Xt[Xt > 0.0]
    return np.sum(sel * np.arange(sel.shape[0]))


def rows_of_a_class(X, labels):
    sel = labels > 0.5
    return np.mean(X[sel, :] ** 2) + np.sum(X[sel] * 0.5)


def kept_columns(X, scores):
    keep = scores > 0.0
    return np.sum(np.tanh(X[:, keep]))


def row_losses(X, t):
    total = 0.0
    for i in range(X.shape[0]):
        row = X[i]
        total += np.sum(row[row > t] ** 2)
    return total


# ---------------------------------------------------------------------------
# Writes: x[m] = number, x[m] = array, x[m] += v, x[m] *= c
# ---------------------------------------------------------------------------


def relu_by_write(x, w):
    y = x * w
    y[y < 0.0] = 0.0
    return np.sum(y * y)


def clip_outliers(x, t):
    y = x.copy()
    y[y > t] = t
    y[y < -t] = -t
    return np.sum(y ** 2 + y)


def fill_from_other(x, y, t):
    m = x > t
    x[m] = y[m]
    return np.sum(x * x * np.arange(x.shape[0]))


def into_zeros(x, y):
    out = np.zeros_like(x)
    m = y > 0.0
    out[m] = x[m] * y[m]
    return np.sum(np.sin(out))


def bump_positive(x, v):
    x[x > 0.0] += v
    return np.sum(x ** 3)


def double_negative(x):
    x[x < 0.0] *= 2.0
    return np.sum(x * np.cos(x))


def relu_2d(X, w):
    Y = X * w
    Y[Y < 0.0] = 0.0
    return np.sum(Y @ w)


def zero_rows(X, flags):
    Y = X * 1.5
    Y[flags < 0.0, :] = 0.0
    Y[:, X[0] > 0.0] *= 2.0
    return np.sum(Y ** 2)


def shrink_steps(x, lam):
    """A few steps of shrinkage, in a loop: the mask changes from step to step."""
    z = x * 1.0
    for k in range(3):
        m = np.abs(z) > lam
        z[m] = z[m] * 0.5 + lam * 0.1 * k
    return np.sum(z * z)


def halve_while_big(x):
    y = x.copy()
    n = 0
    while n < 3:
        y[np.abs(y) > 1.0] *= 0.5
        n += 1
    return np.sum(y ** 2)


def per_element_loop(x, t):
    y = x.copy()
    for i in range(x.shape[0]):
        y[y > t + 0.1 * i] -= 0.01 * i
    return np.sum(y * x)


def write_in_branch(x, s):
    if s > 0.0:
        x[x < 0.0] = s * 0.5
    else:
        x[x > 0.0] = s
    return np.sum(x * x)


def relu_helper(v):
    y = v.copy()
    y[y < 0.0] = 0.0
    return y


def calls_relu_helper(x, w):
    return np.sum(relu_helper(x * w) ** 2)


def _a(*values):
    return np.array(values, dtype=float)


X34 = np.array([[0.3, -1.4, 0.8, 2.1], [-0.6, 0.45, -2.3, 0.15],
                [1.7, -0.25, 0.9, -0.8]])


def case(func, args, wrt=0, jit=False):
    return pytest.param(func, args, wrt, jit, id=func.__name__ + ("[jit]" if jit else ""))


CASES = [
    case(sum_of_squares_above, lambda: (_a(0.3, -0.7, 1.2, 0.55, -0.1), 0.1), (0, 1)),
    case(masked_mean, lambda: (_a(0.3, -0.7, 1.2, 0.55, -0.1), 0.2)),
    case(small_entries_2d, lambda: (X34.copy(),)),
    case(method_sum_of_selection, lambda: (_a(0.3, -1.7, 1.2, 0.55, 2.5),)),
    case(huber, lambda: (_a(0.3, -1.7, 1.2, 0.55, -0.2), 1.0), (0, 1)),
    case(weighted_selection, lambda: (_a(0.3, -0.7, 1.2, 0.55), _a(1.0, 2.0, -0.5, 0.3), 0.1),
         (0, 1)),
    case(given_mask, lambda: (_a(0.3, -0.7, 1.2, 0.55), np.array([True, False, True, True]))),
    case(band, lambda: (_a(0.3, -0.7, 1.2, 0.55, -0.1, 0.8), 0.0, 1.0), (0, 1)),
    case(selection_of_a_transpose, lambda: (X34.copy(),)),
    case(rows_of_a_class, lambda: (X34.copy(), _a(1.0, 0.0, 1.0))),
    case(kept_columns, lambda: (X34.copy(), _a(0.4, -0.3, 0.2, 0.9))),
    case(row_losses, lambda: (X34.copy(), 0.1), (0, 1)),
    case(relu_by_write, lambda: (_a(0.3, -0.7, 1.2, 0.55, -0.1), _a(1.0, 2.0, -0.5, 0.3, 0.4)),
         (0, 1)),
    case(clip_outliers, lambda: (_a(0.3, -1.7, 1.2, 0.55, -0.1), 1.0), (0, 1)),
    case(fill_from_other, lambda: (_a(0.3, -0.7, 1.2, 0.55), _a(1.0, 2.0, -0.5, 0.3), 0.4),
         (0, 1)),
    case(into_zeros, lambda: (_a(0.3, -0.7, 1.2, 0.55), _a(1.0, -2.0, -0.5, 0.3)), (0, 1)),
    case(bump_positive, lambda: (_a(0.3, -0.7, 1.2, 0.55), 0.25), (0, 1)),
    case(double_negative, lambda: (_a(0.3, -0.7, 1.2, -0.55),)),
    case(relu_2d, lambda: (X34.copy(), _a(0.5, -1.0, 2.0, 0.7)), (0, 1)),
    case(zero_rows, lambda: (X34.copy(), _a(0.5, -1.0, 2.0)), 0),
    case(shrink_steps, lambda: (_a(0.3, -0.7, 1.2, 0.05, -2.0), 0.5), (0, 1)),
    case(halve_while_big, lambda: (_a(0.3, -2.7, 1.6, 5.0, -0.4),)),
    case(per_element_loop, lambda: (_a(0.36, -0.7, 1.27, 0.55), 0.0), 0),
    case(write_in_branch, lambda: (_a(0.3, -0.7, 1.2, -0.55), 0.8), (0, 1)),
    case(write_in_branch, lambda: (_a(0.3, -0.7, 1.2, -0.55), -0.8), (0, 1)),
    case(calls_relu_helper, lambda: (_a(0.3, -0.7, 1.2, 0.55), _a(1.0, 2.0, -0.5, 0.3)),
         (0, 1)),
]
COMPILED = [case(f, make, wrt, jit=True) for f, make, wrt, _ in
            (c.values for c in CASES[::3])]


def run_grad(func, args, wrt, jit):
    """srcad's gradient, checking the caller's arguments, the value (the function's own)
    and (jit) no fall-back to plain Python."""
    before = copy.deepcopy(args)
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        value, got = srcad.value_and_grad(func, wrt=wrt, jit=jit)(*args)
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b)
    assert_primal(func, before, value, jit)
    fallbacks = [r for r in records if "srcad" in str(r.message).lower()]
    assert not (jit and fallbacks), f"jit=True fell back: {fallbacks[0].message}"
    return got


@pytest.mark.parametrize("func, make_args, wrt, jit", CASES + COMPILED)
def test_grad_matches_finite_differences(func, make_args, wrt, jit):
    got = run_grad(func, make_args(), wrt, jit)
    assert_grad_close(got, fd_grad(func, make_args(), wrt))


@pytest.mark.parametrize("jit", [False, True])
def test_arrays_of_any_layout(jit):
    """Transposed, Fortran-ordered and reversed arguments: C order of the selection,
    writes into their copies, adjoints added in place."""
    fortran = np.asfortranarray(X34)
    for func, args in [(small_entries_2d, (X34.T,)), (selection_of_a_transpose, (fortran,)),
                       (relu_2d, (fortran, _a(0.5, -1.0, 2.0, 0.7))),
                       (zero_rows, (fortran, _a(0.5, -1.0, 2.0))),
                       (kept_columns, (X34[:, ::-1], _a(0.4, -0.3, 0.2, 0.9)))]:
        assert_grad_close(run_grad(func, args, 0, jit), fd_grad(func, args))


def test_the_mask_gets_no_gradient_and_unselected_elements_none():
    x = _a(0.3, -0.7, 1.2, 0.55, -0.1)
    np.testing.assert_array_equal(srcad.grad(sum_of_squares_above, jit=False)(x, 0.1),
                                  [0.6, 0.0, 2.4, 1.1, 0.0])
    with pytest.raises(srcad.SrcadError, match="bool"):
        srcad.grad(given_mask, wrt=1, jit=False)(x[:4], np.ones(4, dtype=bool))


def test_an_overwritten_element_passes_its_cotangent_to_the_value_stored():
    x = _a(0.3, -0.7, 1.2, 0.55)
    # clipped at t: those elements' slope goes to t, none to the old values
    gx, gt = srcad.grad(clip_outliers, wrt=(0, 1), jit=False)(x, 1.0)
    np.testing.assert_allclose(gx, [1.6, -0.4, 0.0, 2.1])
    assert gt == pytest.approx(3.0)


# ---------------------------------------------------------------------------
# Forward mode: <J v, 1> equals <v, J^T 1>
# ---------------------------------------------------------------------------

JVP_CASES = [c for c in CASES if c.values[0] in (
    sum_of_squares_above, huber, kept_columns, clip_outliers, fill_from_other, zero_rows,
    shrink_steps, calls_relu_helper)]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("func, make_args, wrt, _", JVP_CASES)
def test_jvp_agrees_with_vjp(func, make_args, wrt, _, jit):
    args = make_args()
    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    rng = np.random.default_rng(3)
    tangents = tuple(rng.normal(size=np.shape(args[i])) if np.ndim(args[i])
                     else float(rng.normal()) for i in positions)
    value, tan = srcad.jvp(func, args, tangents, wrt=positions, jit=jit, on_jit_error="raise")
    out, pullback = srcad.vjp(func, *make_args(), wrt=positions, jit=jit)
    assert value == pytest.approx(out, rel=1e-12)
    cotangents = pullback(1.0)
    want = sum(float(np.sum(np.asarray(c) * np.asarray(t)))
               for c, t in zip(cotangents, tangents))
    assert tan == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_generated_code_names_the_masks():
    g = srcad.grad(relu_by_write, jit=False)
    g(_a(0.3, -0.7), _a(1.0, 2.0))
    source = srcad.source(g)
    assert "rt.set_masked(y, tmp1, 0.0)" in source  # y[y < 0.0] = 0.0
    assert "rt.set_masked(d_y, tmp1, 0.0)" in source  # what it overwrote gets no gradient


# ---------------------------------------------------------------------------
# Refusals and errors
# ---------------------------------------------------------------------------


def line_of(func, marker):
    lines, start = inspect.getsourcelines(func)
    return start + next(k for k, line in enumerate(lines) if marker in line)


def refusal(func, *args):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(func, jit=False)(*args)
    return str(info.value)


def mask_of_another_rank(x, M):
    return np.sum(x[M > 0.0])


def mask_on_one_axis_of_3d(T, m):
    return np.sum(T[m])


def mask_and_an_integer(X):
    m = X[:, 0] > 0.0
    return np.sum(X[m, 0])


def mask_and_a_slice(X):
    m = X[0] > 0.0
    return np.sum(X[1:, m])


def two_masks(X):
    return np.sum(X[X[:, 0] > 0.0, X[0] > 0.0])


def array_into_a_selection(x, A):
    x[x > 0.0] = A
    return np.sum(x)


def mask_of_a_list(xs, m):
    return np.sum(xs[m])


def index_is_a_bool(x):
    b = x[0] > 0.0
    return x[b] * 2.0


def relu_in_place(v):
    v[v < 0.0] = 0.0
    return np.sum(v)


def calls_relu_in_place(x):
    y = x * 2.0
    return relu_in_place(y) + np.sum(y)


def inverted_mask(x):
    m = x > 0.0
    return np.sum(x[~m])


def two_tests(x, a, b):
    return np.sum(x[(x > a) & (x < b)])


REFUSALS = [
    pytest.param(mask_of_another_rank, lambda: (_a(1.0, 2.0), np.ones((2, 2))),
                 "M > 0.0", ("mask", "shape"), id="rank"),
    pytest.param(mask_on_one_axis_of_3d, lambda: (np.ones((2, 2, 2)), np.ones(2, dtype=bool)),
                 "T[m]", ("mask", "X[m, :]"), id="3-d"),
    pytest.param(mask_and_an_integer, lambda: (X34.copy(),), "X[m, 0]",
                 ("other indices", "y = x[m]"), id="mask_and_integer"),
    pytest.param(mask_and_a_slice, lambda: (X34.copy(),), "X[1:, m]",
                 ("other indices", "X[:, m]"), id="mask_and_slice"),
    pytest.param(two_masks, lambda: (X34.copy(),), "X[X[:, 0]", ("other indices",),
                 id="two_masks"),
    pytest.param(array_into_a_selection, lambda: (_a(1.0, -2.0), np.ones((2, 2))),
                 "= A", ("mask selects", "x[m] = y[m]"), id="2-d_value"),
    pytest.param(mask_of_a_list, lambda: ([1.0, 2.0], np.ones(2, dtype=bool)), "xs[m]",
                 ("list", "np.array"), id="list"),
    pytest.param(index_is_a_bool, lambda: (_a(1.0, 2.0),), "x[b]", ("bool", "int("),
                 id="bool_scalar"),
    pytest.param(calls_relu_in_place, lambda: (_a(1.0, -2.0),), "relu_in_place(y)",
                 ("writes into its argument", "copy"), id="helper_writes_its_argument"),
]


def invert_a_bool(x, flag):
    return x * ~flag  # <- ~True is -2 in Python


def and_of_floats(x, a):
    return np.sum(x[x & a])


REFUSALS += [
    pytest.param(invert_a_bool, lambda: (1.0, True), "~flag", ("~", "not"), id="invert_bool"),
    pytest.param(and_of_floats, lambda: (_a(1.0, -2.0), 0.5), "x & a", ("not floats",),
                 id="and_of_floats"),
]


@pytest.mark.parametrize("func, make_args, marker, words", REFUSALS)
def test_refused_with_the_line_and_a_rewrite(func, make_args, marker, words):
    message = refusal(func, *make_args())
    assert FILE in message and re.search(rf"\b{line_of(func, marker)}\b", message), message
    for word in words:
        assert word in message, f"{word!r} not in:\n{message}"


@pytest.mark.parametrize("jit", [False, True])
def test_masks_combined_with_and_and_invert(jit):
    x = _a(0.3, -0.7, 1.2, 0.55, -0.1, 0.8)
    assert_grad_close(run_grad(two_tests, (x, 0.0, 1.0), (0, 1), jit),
                      fd_grad(two_tests, (x, 0.0, 1.0), (0, 1)))
    assert_grad_close(run_grad(inverted_mask, (x,), 0, jit), fd_grad(inverted_mask, (x,)))


def mask_of_another_shape(x, m):
    return np.sum(x[m] ** 2)


def write_with_mask_of_another_shape(x, m):
    x[m] = 1.0
    return np.sum(x * x)


def too_many_values(x, v):
    x[x > 0.0] = v
    return np.sum(x * x)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("func, args, error, marker", [
    (mask_of_another_shape, (np.ones(3), np.ones(4, dtype=bool)), IndexError, "x[m]"),
    (mask_of_another_shape, (np.ones(3), np.ones(2, dtype=bool)), IndexError, "x[m]"),
    (mask_of_another_shape, (np.ones((2, 3)), np.ones((3, 2), dtype=bool)), IndexError,
     "x[m]"),
    (write_with_mask_of_another_shape, (np.ones(3), np.ones(2, dtype=bool)), IndexError,
     "x[m]"),
    (too_many_values, (_a(1.0, -1.0, 2.0), np.ones(3)), ValueError, "x[x > 0.0]"),
], ids=["longer", "shorter", "2-d", "write", "values"])
def test_a_mask_of_another_shape_fails_as_numpy_does_at_the_line(func, args, error, marker,
                                                                 jit):
    with pytest.raises(error) as info:
        srcad.grad(func, jit=jit)(*args)
    message = str(info.value)
    assert FILE in message and re.search(rf"\b{line_of(func, marker)}\b", message), message

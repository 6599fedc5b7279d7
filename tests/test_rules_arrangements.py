"""The rules of srcad/rules/einsum.py and srcad/rules/numpy_arrangements.py in the forms
the registry's cases (`tests.rule_domains`) do not write: subscripts of np.einsum beyond
one, pad modes and widths, offsets and axes, NaNs, splits and grids, spacings and
abscissae; whole functions written as people write them; and the refusals.

Each function's gradient (reverse mode) and its derivative along a direction (forward
mode, `srcad.jvp`) are compared with central finite differences, in plain Python and, for
the cases marked so, compiled with Numba (which must then compile: no fallback).
"""

import numpy as np
import pytest

import srcad
from srcad import runtime as rt
from srcad.errors import SrcadError
from tests.fd import assert_value_and_grad
from tests.function_cases import Case, check_gradient, check_jvp, params

A23 = np.array([[0.3, -1.2, 0.8], [1.1, 0.45, -0.6]])
A34 = np.cos(np.arange(12.0) * 1.3).reshape(3, 4)
A234 = np.linspace(-1.3, 1.9, 24).reshape(2, 3, 4)[:, ::-1, :] ** 3
S33 = np.array([[1.2, -0.4, 0.3], [0.7, 0.9, -1.1], [-0.2, 0.5, 1.6]])
V3 = np.array([0.5, -1.5, 0.25])
V4 = np.array([0.9, -0.4, 1.3, 0.2])
V5 = np.array([0.7, -1.1, 0.35, 1.6, -0.2])
V6 = np.array([0.3, -0.8, 1.2, 0.45, -0.15, 0.9])
W5 = np.array([0.7, -1.3, 0.4, 2.1, -0.6])
C23 = np.array([[0.6, -1.1, 0.9], [1.7, 0.2, -0.4]])
_NAN23 = np.array([[0.3, np.nan, 0.8], [1.1, 0.45, np.nan]])

# np.einsum


def einsum_matmul(a, b):
    return np.sum(np.sin(np.einsum("ij,jk->ik", a, b)))


def einsum_three(x, a, y):
    return np.einsum("i,ij,j->", x, a, y)


def einsum_trace_diagonal(s):
    return np.einsum("ii->", s) * 2.0 + np.sum(np.einsum("ii->i", s) ** 3)


def einsum_transpose_sum(a, c):
    return np.sum(np.einsum("ij->ji", a) * c) + np.sum(np.einsum("ij->j", a) ** 2)


def einsum_batch(a, b):
    return np.sum(np.cos(np.einsum("bij,jk->bik", a, b)))


def einsum_outer(x, y):
    return np.sum(np.sin(np.einsum("i,j->ij", x, y)))


def einsum_spaced(a, b):
    return np.sum(np.einsum("ij , kj -> ik", a, b, optimize=True) ** 2)


# diagonals, rotations, rolled axes


def diagonal_offsets(a):
    return np.sum(np.sin(np.diagonal(a, 1))) + np.sum(np.diagonal(a, -1) ** 2) \
        + np.sum(a.diagonal() * np.array([0.3, -0.7, 1.1]))


def diagonal_3d_axes(a, c):
    return np.sum(np.diagonal(a, 0, 2, 1) * c)


def rot90_turns(a):
    return np.sum(np.sin(np.rot90(a, 3)) * np.rot90(a, -1)) + np.sum(np.rot90(a, 2)[0] ** 2)


def rot90_axes(a, c):
    return np.sum(np.rot90(a, 1, (2, 0)) * c)


def rollaxis_start(a, c):
    return np.sum(np.rollaxis(a, 2, 1) * c)


def diagflat_offset(x):
    return np.sum(np.sin(np.diagflat(x, 1) + np.diagflat(x * x, -1)[:5, :5]))


# np.pad


def pad_constant(x, c):
    return np.sum(np.pad(x, (2, 1), constant_values=c) * np.linspace(-1.0, 1.0, 8))


def pad_modes(a):
    total = 0.0
    for mode_value in (np.pad(a, 2, "edge"), np.pad(a, ((1, 2), (3, 0)), "wrap"),
                       np.pad(a, ((2, 1),), mode="reflect"),
                       np.pad(a, (1, 4), mode="symmetric")):
        total = total + np.sum(np.sin(mode_value) * np.cos(mode_value.shape[0] * 1.0))
    return total


# np.partition


def partition_smallest(x):
    return np.sum(np.partition(x, 2)[:3] ** 2)


def partition_axis0(a):
    return np.sum(np.partition(a, 1, axis=0)[1] * np.array([0.5, -1.0, 2.0]))


# splits into two, grids


def split_halves(x):
    a, b = np.split(x, 2)
    return np.sum(a * b) + np.sum(np.sin(a))


def split_index(x):
    return np.sum(np.split(x, [2])[1] ** 2) + np.split(x, [-1])[0][1]


def array_split_axis1(a):
    left, right = np.array_split(a, 2, axis=1)
    return np.sum(left ** 2) - np.sum(np.sin(right))


def meshgrid_xy(x, y):
    gx, gy = np.meshgrid(x, y)
    return np.sum(np.sin(gx * gy + gx))


def meshgrid_ij(x, y):
    gx, gy = np.meshgrid(x, y, indexing="ij")
    return np.sum(gx ** 2 * np.cos(gy)) + np.meshgrid(x, y)[1][0, 0]


# derivatives and integrals of samples


def gradient_spacing(x, h):
    return np.sum(np.gradient(x, h) ** 2)


def gradient_axis_edge(a):
    return np.sum(np.sin(np.gradient(a, 0.5, axis=1, edge_order=2))) \
        + np.sum(np.gradient(a, axis=0) ** 2)


def trapezoid_dx(y, dx):
    return np.trapezoid(y ** 2, dx=dx)


def trapezoid_x(y, x):
    return np.trapezoid(np.sin(y), x)


def trapezoid_axis0(a, x):
    return np.sum(np.trapezoid(a, x, axis=0) ** 2) + np.sum(np.trapezoid(a * a, axis=1))


# np.append, np.vdot, np.polyval, np.correlate, np.select


def append_number(x, s):
    return np.sum(np.sin(np.append(x, s)) * np.arange(6.0))


def append_axis(a, b):
    return np.sum(np.sin(np.append(a, b, axis=0)) * np.arange(15.0).reshape(5, 3))


def vdot_mixed(a, x):
    return np.vdot(a, x) + np.vdot(x, x)


def polyval_scalar(p, x):
    return np.polyval(p, x) + np.sum(np.polyval(p, np.array([0.5, -1.0]))) ** 2


def correlate_modes(a, v):
    return np.sum(np.sin(np.correlate(a, v, "full"))) + np.sum(np.correlate(a, v) ** 2) \
        + np.sum(np.correlate(v, a, mode="same") * np.arange(5.0))


def select_three(x, d):
    y = np.select([x < -0.5, x > 1.0], [x * x, np.sin(x)], d)
    return np.sum(y * np.arange(1.0, 6.0))


def select_default_array(x, d):
    return np.sum(np.select([x > 0.0], [2.0 * x], d) ** 2)


# the NaN-skipping reductions and scans


def nan_reductions(a):
    b = np.where(a > 1.0, np.nan, a)
    return np.nanprod(b + 2.0) + np.sum(np.nanvar(b, axis=0)) + np.sum(np.nanstd(b, 1)) \
        + np.nanstd(b, ddof=1)


def nan_scans(a):
    b = np.where(a > 1.0, np.nan, a)
    return np.sum(np.sin(np.nancumsum(b, axis=1))) + np.sum(np.nancumprod(b + 1.0)) \
        + np.sum(np.nancumprod(b, 0) ** 2) + np.nanprod(b, axis=1)[0]


_X5 = np.array([0.7, -1.1, 0.35, 1.6, -0.2])

CASES = [
    Case(einsum_matmul, (A23, A34[:, :2].copy()), (0, 1), jit=True),
    Case(einsum_three, (V3, A34, V4), (0, 1, 2), jit=True),
    Case(einsum_trace_diagonal, (S33,), jit=True),
    Case(einsum_transpose_sum, (A23, C23.T.copy()), jit=True),
    Case(einsum_batch, (A234, A34.T.copy()), (0, 1), jit=True),
    Case(einsum_outer, (V3, V4), (0, 1)),
    Case(einsum_spaced, (A23, C23), (0, 1), jit=True),
    Case(diagonal_offsets, (A34[:, :3].copy(),), jit=True),
    Case(diagonal_3d_axes, (A234[:, :, :3].copy(), np.ones((2, 3)) * V3), jit=True),
    Case(rot90_turns, (A23,), jit=True),
    Case(rot90_axes, (A234, np.cos(np.arange(24.0)).reshape(4, 3, 2)), jit=True),
    Case(rollaxis_start, (A234, np.cos(np.arange(24.0)).reshape(2, 4, 3)), jit=True),
    Case(diagflat_offset, (V4,), jit=True),
    Case(pad_constant, (V5, 0.7), (0, 1), jit=True),
    Case(pad_modes, (A23,), jit=True),
    Case(partition_smallest, (V6,), jit=True),
    Case(partition_axis0, (A34[:, :3].copy(),), jit=True),
    Case(split_halves, (V6,), jit=True),
    Case(split_index, (V5,), jit=True),
    Case(array_split_axis1, (A23,), jit=True),
    Case(meshgrid_xy, (V3, V4), (0, 1), jit=True),
    Case(meshgrid_ij, (V3, V4), (0, 1), jit=True),
    Case(gradient_spacing, (V5, 0.7), (0, 1), jit=True),
    Case(gradient_axis_edge, (A34,), jit=True),
    Case(trapezoid_dx, (V5, 0.3), (0, 1), jit=True),
    Case(trapezoid_x, (V5, np.array([0.0, 0.4, 1.1, 1.5, 2.6])), (0, 1), jit=True),
    Case(trapezoid_axis0, (A34, np.array([0.0, 0.7, 1.1])), (0, 1), jit=True),
    Case(append_number, (V5, 0.4), (0, 1), jit=True),
    Case(append_axis, (A23, np.vstack([V3, V3[::-1] * 0.5, -V3])), (0, 1), jit=True),
    Case(vdot_mixed, (A23, V6), (0, 1), jit=True),
    Case(polyval_scalar, (V4, 0.6), (0, 1), jit=True),
    Case(correlate_modes, (V5, V3), (0, 1), jit=True),
    Case(select_three, (_X5, 0.3), (0, 1), jit=True),
    Case(select_default_array, (_X5, W5), (0, 1), jit=True),
    Case(nan_reductions, (A34 * 1.2,), jit=True),
    Case(nan_scans, (A34 * 1.2,), jit=True),
]


@pytest.mark.parametrize("case, jit", params(CASES))
def test_gradient_matches_finite_differences(case, jit):
    check_gradient(case, jit)


@pytest.mark.parametrize("case, jit", params(CASES))
def test_jvp_matches_finite_differences(case, jit):
    check_jvp(case, jit)


# ---------------------------------------------------------------------------
# second derivatives: forward mode's code differentiated again
# ---------------------------------------------------------------------------


def second_order_mix(x, a):
    y = np.einsum("i,ij->j", x, a) ** 2
    return np.sum(np.pad(y, 1, "edge") ** 3) + np.trapezoid(np.gradient(x) ** 2) \
        + np.vdot(x, np.partition(x ** 3, 2))


@pytest.mark.parametrize("jit", [False, True])
def test_hessian_vector_products(jit):
    x, a = V3.copy(), A34[:, :3].copy()
    v = np.array([0.3, -0.2, 0.5])
    got = srcad.hvp(second_order_mix, (x, a), v, jit=jit, on_jit_error="raise")
    grad = srcad.grad(second_order_mix, jit=False)
    want = (grad(x + 1e-6 * v, a) - grad(x - 1e-6 * v, a)) / 2e-6
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_jacobian_of_an_einsum():
    def f(a, b):
        return np.einsum("ij,jk->ik", a, b).ravel()

    b = A34[:, :2].copy()
    got = srcad.jacobian(f, jit=False)(A34.T[:2].copy(), b)
    want = np.stack([np.kron(np.eye(2)[i], b[:, k]) for i in range(2) for k in range(2)])
    np.testing.assert_allclose(np.reshape(got, (4, 6)), want, atol=1e-12)


# ---------------------------------------------------------------------------
# the helpers compiled give NumPy's values
# ---------------------------------------------------------------------------


def _compiled(source, **names):
    from numba import njit
    namespace = {"np": np, "rt": rt, **names}
    exec(source, namespace)
    return njit(namespace["f"])


@pytest.mark.parametrize("spec, shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ii->", [(3, 3)]), ("ii->i", [(3, 3)]),
    ("ij,kj,k->i", [(2, 3), (4, 3), (4,)]), ("bij,bjk->bik", [(2, 3, 2), (2, 2, 3)]),
    ("iji->j", [(3, 2, 3)]), ("i,j->ji", [(3,), (2,)]),
])
def test_einsum_and_its_adjoints_compiled(spec, shapes):
    rng = np.random.default_rng(3)
    ops = [rng.normal(size=s) for s in shapes]
    params = ", ".join("abc"[:len(ops)])
    f = _compiled(f"def f({params}):\n    return rt.einsum('{spec}', {params})\n")
    np.testing.assert_allclose(f(*ops), np.einsum(spec, *ops), rtol=1e-12)
    g = rng.normal(size=np.shape(np.einsum(spec, *ops)))
    for k in range(len(ops)):
        adj = _compiled(f"def f(g, {params}):\n    return rt.einsum_grad('{spec}', {k + 1}, "
                        f"g, {params})\n")
        np.testing.assert_allclose(adj(g, *ops), rt.einsum_grad(spec, k + 1, g, *ops),
                                   rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("mode", ["constant", "edge", "wrap", "reflect", "symmetric"])
@pytest.mark.parametrize("width", [2, (1, 3), ((0, 2), (5, 1)), ((3, 1),)])
def test_pad_compiled_is_numpys(mode, width):
    f = _compiled(f"def f(a):\n    return rt.pad(a, {width!r}, {mode!r})\n")
    np.testing.assert_array_equal(f(A23), np.pad(A23, width, mode))


@pytest.mark.parametrize("call", [
    "rt.diagonal(a, 1)", "rt.diagonal(a, -1, 1, 0)", "rt.rot90(a, 1)", "rt.rot90(a, 3, (1, 0))",
    "rt.rollaxis(a, 1)", "rt.gradient(a, 0.5, 1, 2)", "rt.gradient(a, 2.0, 0)",
    "rt.trapezoid(a)", "rt.trapezoid(a, None, 0.5, 0)", "rt.trapezoid(a, a * a, 1.0, 1)",
    "rt.meshgrid_x(a[0], a[1])", "rt.meshgrid_y(a[0], a[1], None, 'ij')",
    "rt.split_tail(a, 2, 1)", "rt.array_split_head(a, 2, 1)", "rt.split_head(a, (-1,), 1)",
    "rt.nanvar(a, 0)", "rt.nanstd(a, None, 1)", "rt.nanprod(a, 1)", "rt.nancumsum(a, 0)",
    "rt.nancumprod(a)", "rt.select_choice(a > 0.0, a, 3.0)", "rt.polyval(a[0], a[1])",
    "rt.vdot(a, a)", "rt.isclose(a, a + 1e-9)", "rt.fix(a * 3.0)", "rt.ndim(a)",
])
def test_helpers_compiled_are_numpys(call):
    a = np.array([[0.3, -1.2, 0.8, 2.1], [1.1, np.nan, -0.6, 0.2], [0.5, 1.5, -2.2, 0.9]]) \
        if "nan" in call else A34 * 1.5
    if call.startswith("rt.meshgrid") or call.startswith("rt.polyval"):
        a = A23
    f = _compiled(f"def f(a):\n    return {call}\n")
    np.testing.assert_allclose(f(a), eval(call, {"rt": rt, "np": np, "a": a}), rtol=1e-12)


def test_partition_compiled_keeps_the_kth_elements():
    f = _compiled("def f(a):\n    return rt.partition(a, 2), rt.partition_order(a, 2)\n")
    got, order = f(V6)
    want = np.partition(V6, 2)
    assert got[2] == want[2] and set(got[:2]) == set(want[:2])
    np.testing.assert_array_equal(V6[order], got)


# ---------------------------------------------------------------------------
# functions written the way people write them, against finite differences
# ---------------------------------------------------------------------------


def bilinear_energy(x, w, y):
    """x^T W y plus a quadratic form, written with einsum."""
    return np.einsum("i,ij,j->", x, w, y) + 0.5 * np.einsum("i,ij,j->", x, w @ w.T, x)


def padded_stencil(u, k):
    """A periodic three-point stencil on a grid padded by wrapping, and a Dirichlet one."""
    up = np.pad(u, 1, mode="wrap")
    lap = up[:-2] - 2.0 * up[1:-1] + up[2:]
    ud = np.pad(u, (1, 1), constant_values=0.0)
    return np.sum(k * lap ** 2) + np.sum((ud[2:] - ud[:-2]) ** 2)


def halves_energy(q):
    """Positions and momenta stored one after the other, split into halves."""
    pos, mom = np.split(q, 2)
    return 0.5 * np.sum(mom ** 2) + np.sum(np.cos(pos[1:] - pos[:-1]))


def grid_integral(xs, ys, c):
    """The integral over a grid of c * exp(-(x^2 + y^2)), by the trapezoid rule."""
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    f = c * np.exp(-(gx ** 2 + gy ** 2))
    return np.trapezoid(np.trapezoid(f, ys, axis=1), xs)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, make, wrt", [
    (bilinear_energy, lambda: (V3.copy(), A34[:, :3].copy(), V3[::-1].copy()), (0, 1, 2)),
    (padded_stencil, lambda: (np.sin(np.linspace(0.0, 3.0, 7)), 0.8), (0, 1)),
    (halves_energy, lambda: (np.linspace(-1.0, 1.3, 8) ** 3,), 0),
    (grid_integral, lambda: (np.linspace(-1.0, 1.0, 5), np.linspace(-0.5, 1.5, 4), 1.3),
     (0, 1, 2)),
], ids=["bilinear_energy", "padded_stencil", "halves_energy", "grid_integral"])
def test_functions_as_written(fn, make, wrt, jit):
    assert_value_and_grad(fn, make, wrt, jit, rel=1e-12 if not jit else 1e-10)


# ---------------------------------------------------------------------------
# refusals: the function, the line, and what to write instead
# ---------------------------------------------------------------------------


def einsum_implicit(a, b):
    return np.sum(np.einsum("ij,jk", a, b))


def einsum_ellipsis(a, b):
    return np.sum(np.einsum("...ij,jk->...ik", a, b))


def einsum_four(a, b):
    return np.sum(np.einsum("ij,jk,kl,lm->im", a, b, a, b))


SUBSCRIPTS = "ij,jk->ik"


def einsum_variable(a, b):  # strings other than constants are refused where they are read
    return np.sum(np.einsum(SUBSCRIPTS, a, b))


def einsum_wrong_rank(a, b):
    return np.sum(np.einsum("ijk,jk->i", a, b))


def meshgrid_three(x):
    gx, gy, gz = np.meshgrid(x, x, x)
    return np.sum(gx * gy * gz)


def gradient_every_axis(a):
    return np.sum(np.gradient(a))


def pad_constant_in_edge_mode(x):
    return np.sum(np.pad(x, 1, "edge", constant_values=1.0))


@pytest.mark.parametrize("fn, args, words", [
    (einsum_implicit, (A23, C23.T.copy()), ["np.einsum", "implicit output", "->"]),
    (einsum_ellipsis, (A23, C23.T.copy()), ["np.einsum", "ellipsis", "letter"]),
    (einsum_four, (S33, S33), ["np.einsum", "more than three operands", "in steps"]),
    (einsum_variable, (A23, C23.T.copy()), ["`SUBSCRIPTS`", "np.einsum(SUBSCRIPTS"]),
    (einsum_wrong_rank, (A23, C23), ["np.einsum", "3 dimensions", "'ijk'"]),
    (meshgrid_three, (V3,), ["np.meshgrid", "three arrays", "broadcast"]),
    (gradient_every_axis, (A23,), ["np.gradient", "one array per axis", "axis=0"]),
    (pad_constant_in_edge_mode, (V3,), ["np.pad", "constant_values", "'edge'"]),
])
def test_refusals_name_the_function_the_line_and_a_rewrite(fn, args, words):
    with pytest.raises(SrcadError) as info:
        srcad.grad(fn, jit=False)(*args)
    message = str(info.value)
    for word in words:
        assert word in message, message
    assert "test_rules_arrangements.py" in message, message


def test_values_without_gradients_add_none():
    def f(x, y):
        n = np.sum(np.argpartition(x, 1)) + np.sum(np.argwhere(x > 0.0)) \
            + np.sum(np.flatnonzero(x > 0.0)) + np.ndim(x) + np.size(x)
        same = np.allclose(x, y) + np.array_equal(x, y) + np.sum(np.isclose(x, y)) \
            + np.iscomplexobj(x) + np.isscalar(y[0])
        kinds = np.sum(np.isneginf(x) + np.isposinf(x) + np.isreal(x) + np.iscomplex(x))
        return np.sum(x * y) + n + same + kinds + np.sum(np.fix(x * 3.0))

    for jit in (False, True):
        gx, gy = srcad.grad(f, wrt=(0, 1), jit=jit, on_jit_error="raise")(V4.copy(),
                                                                           W5[:4].copy())
        np.testing.assert_array_equal(gx, W5[:4])
        np.testing.assert_array_equal(gy, V4)


def test_writing_an_array_while_a_piece_of_its_split_is_in_use_is_refused():
    # the pieces of np.split are views of the array (they were copies, and the value and
    # gradient were wrong when the array was written afterwards)
    def f(x):
        y = x * 1.0
        a, b = np.split(y, 2)
        s = np.sum(np.sin(a) * b)
        y[0] = 5.0
        return s + np.sum(y * y) + np.sum(a)

    with pytest.raises(srcad.SrcadError, match="`y` is written element by element while `a`"):
        srcad.grad(f, jit=False)(np.linspace(0.1, 0.8, 6))


@pytest.mark.parametrize("which", ["triu", "tril"])
def test_triangles_compiled_are_numpys(which):
    """rt.triu, rt.tril (the spelling of np.triu, np.tril in generated code): compiled, a
    matrix's triangle in one pass; equal to NumPy's for every diagonal offset, dtype and
    layout, and Numba's own for a vector or a stack of matrices."""
    from numba import njit

    ours = getattr(rt, which)
    compiled = njit(lambda m, k: ours(m, k))
    m = np.arange(1.0, 13.0).reshape(3, 4)
    for x in (m, m.T, m[:, ::2], m.astype(np.int64), m > 5, m + 1j * m,
              np.arange(4.0), np.arange(24.0).reshape(2, 3, 4)):
        for k in (-4, -1, 0, 1, 2, 5):
            want = getattr(np, which)(x, k)
            got = compiled(x, k)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(ours(x, k), want)

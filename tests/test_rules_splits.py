"""The rules of srcad/rules/numpy_splits.py (np.split, np.array_split, np.hsplit,
np.vsplit, np.dsplit into any number of pieces known from the call, a split held in a
name, np.dstack, np.real_if_close, np.array_equiv), and the joins and stacks next to
them that already had rules (np.stack with `axis`, np.column_stack), in the forms the
registry's cases (`tests.test_rules`) do not write: whole functions written as people
write them, the pieces' tangents beside their adjoints, the helpers compiled, and the
refusals.

Each function's gradient (reverse mode) and its derivative along a direction (forward
mode, `srcad.jvp`) are compared with central finite differences, in plain Python and, for
the cases marked so, compiled with Numba (which must then compile: no fallback).
"""

import ast

import gast
import numpy as np
import pytest
from numba import njit

import srcad
from srcad import runtime as rt
from srcad.errors import SrcadError
from srcad.passes.resolve_calls import _grid
from tests.fd import assert_value_and_grad
from tests.function_cases import Case, check_gradient, check_jvp, copies, params
from tests.test_tangents import Case as TangentCase
from tests.test_tangents import _direction, _setup, adjoints, evaluate, finite_difference

A46 = np.cos(np.arange(24.0) * 1.3).reshape(4, 6)
A234 = np.linspace(-1.3, 1.9, 24).reshape(2, 3, 4)[:, ::-1, :] ** 3
A2345 = np.sin(np.arange(120.0) * 0.37).reshape(2, 3, 4, 5)
V6 = np.array([0.3, -0.8, 1.2, 0.45, -0.15, 0.9])
V4 = np.array([0.9, -0.4, 1.3, 0.2])

# ---------------------------------------------------------------------------
# functions as written
# ---------------------------------------------------------------------------


def hsplit_halves(a):
    left, right = np.hsplit(a, 2)
    return np.sum(np.sin(left) * right) + np.sum(left ** 2)


def hsplit_vector_index(x):
    head, tail = np.hsplit(x, [2])
    return np.sum(head ** 3) - np.sum(np.cos(tail))


def hsplit_items(a):
    return np.sum(np.hsplit(a, 2)[1] ** 2) + np.hsplit(a, [-1])[0][1, 2] * 3.0


def vsplit_index(a):
    top, bottom = np.vsplit(a, [1])
    return np.sum(np.sin(top)) * np.sum(bottom ** 2)


def vsplit_3d(a):
    top, bottom = np.vsplit(a, 2)
    return np.sum(top * bottom)


def dsplit_halves(a):
    front, back = np.dsplit(a, 2)
    return np.sum(np.sin(front) * back)


def dsplit_index(a):
    first, rest = np.dsplit(a, [-3])
    return np.sum(first ** 2) + np.sum(np.exp(rest * 0.5))


def dstack_planes(a, b):
    rgb = np.dstack((a, b, a * b))
    return np.sum(np.sin(rgb) * np.arange(72.0).reshape(4, 6, 3))


def dstack_vectors(x, y):
    return np.sum(np.cos(np.dstack([x, y, x * y])) * np.arange(18.0).reshape(1, 6, 3))


def dstack_volumes(a):
    return np.sum(np.sin(np.dstack((a, a ** 2))) * np.arange(48.0).reshape(2, 3, 8))


def dstack_split_back(a):
    """Channels joined, then taken apart again."""
    first, second = np.dsplit(np.dstack((a, 2.0 * a)), 2)
    return np.sum(first[:, :, 0] * np.sin(second[:, :, 0]))


def stack_axes(a, b):
    return np.sum(np.sin(np.stack((a, b), axis=1)) * np.arange(48.0).reshape(4, 2, 6)) \
        + np.sum(np.stack([a, b * b, a * b], axis=-1) ** 2)


def column_stack_mixed(x, a):
    return np.sum(np.sin(np.column_stack((x, a, x * x))) * np.arange(20.0).reshape(4, 5))


def real_if_close_real(x):
    return np.sum(np.sin(np.real_if_close(x, tol=1000))) + np.real_if_close(x[0] * x[1]) ** 2


def array_equiv_gate(x, y):
    """Tests that stay true (false) when x and y move a little: no jump at the point."""
    same = np.array_equiv(np.sign(x), np.sign(x)) + np.array_equiv(x, y) \
        + np.array_equiv(np.floor(x[:, :1] * 0.0), np.zeros(3)) + np.array_equiv(x, x[0])
    return np.sum(x * y) * (1.0 + same)


# ---------------------------------------------------------------------------
# splits into more (or fewer) than two pieces, and a split held in a name
# ---------------------------------------------------------------------------

M67 = np.sin(np.arange(42.0) * 0.7).reshape(6, 7)
V10 = np.cos(np.arange(10.0) * 1.1)


def split_three(x):
    a, b, c = np.split(x, 3)
    return np.sum(a * b * np.sin(c)) + np.sum(c ** 2)


def split_indices_axis1(a):
    p, q, r = np.split(a, [2, 5], axis=1)
    return np.sum(np.sin(p)) * np.sum(q ** 2) + np.sum(r * np.arange(2.0))


def array_split_four_axis1(a):
    p, q, r, s = np.array_split(a, 4, axis=1)  # widths 2, 2, 2, 1
    return np.sum(p * q) + np.sum(np.sin(r)) * 2.0 + np.sum(s ** 3)


def array_split_unequal(x):
    parts = np.array_split(x, 3)  # lengths 4, 3, 3
    return np.sum(parts[0] ** 2) + np.sum(np.sin(parts[1])) * np.sum(parts[2])


def split_odd_indices(x):
    """Negative, beyond the axis, decreasing: pieces as NumPy cuts them (some empty)."""
    a, b, c, d, e = np.split(x, [-7, 5, 3, 12])
    return np.sum(a ** 2) + np.sum(np.sin(b)) * 2.0 + np.sum(c) + np.sum(d * 1.5) \
        + np.sum(np.cos(e))


def split_one(x):
    (whole,) = np.split(x, 1)
    (rest,) = np.array_split(x, [])
    return np.sum(whole * rest)


def hsplit_three(a):
    p, q, r = np.hsplit(a, [1, 4])
    return np.sum(p * q[:, :1] * r[:, :1]) + np.sum(np.sin(q))


def hsplit_vector_three(x):
    a, b, c = np.hsplit(x, 3)
    return np.sum(a * c) - np.sum(b ** 2)


def vsplit_three(a):
    top, middle, bottom = np.vsplit(a, 3)
    return np.sum(top * middle * bottom) + np.sum(np.sin(bottom))


def dsplit_four(a):
    p, q, r, s = np.dsplit(a, [1, 2, -1])
    return np.sum(p * q) + np.sum(np.exp(r * 0.3)) * np.sum(s)


def held_split(x):
    parts = np.split(x, 5)
    a, b = parts[0], parts[-1]
    total = np.sum(parts[2] * 2.0) + len(parts)
    for p in parts:
        total = total + np.sum(np.sin(p) * a)
    return total + np.sum(b ** 2)


def held_split_unpacked(a):
    cols = np.array_split(a, 3, axis=1)
    p, q, r = cols
    return np.sum(p ** 2) + np.sum(q * r[:, :1]) + np.sum(np.concatenate(cols, axis=1) ** 3)


def split_pieces_vector(a):
    """Every piece of several splits, weighted apart, as one vector."""
    a0, a1, a2, a3 = np.split(a, [1, -2, 9], axis=1)  # the last one empty
    b0, b1, b2, b3 = np.array_split(a, 4)  # 2, 2, 1, 1 rows
    c0, c1, c2 = np.hsplit(a, [4, 2])  # the middle one empty
    return np.concatenate((np.ravel(np.sin(a0)), np.ravel(a1) * 2.0, np.ravel(a2 ** 2),
                           np.ravel(a3) * 3.0, np.ravel(b0 * b1), np.ravel(b2), np.ravel(b3),
                           np.ravel(c0) * 0.5, np.ravel(c1), np.ravel(c2) ** 2))


CASES = [
    Case(hsplit_halves, (A46,), jit=True),
    Case(hsplit_vector_index, (V6,), jit=True),
    Case(hsplit_items, (A46,)),
    Case(vsplit_index, (A46,), jit=True),
    Case(vsplit_3d, (np.cos(np.arange(24.0)).reshape(4, 3, 2),)),
    Case(dsplit_halves, (A234,), jit=True),
    Case(dsplit_index, (A2345,), jit=True),
    Case(dstack_planes, (A46, A46[::-1] * 0.5), (0, 1), jit=True),
    Case(dstack_vectors, (V6, V6[::-1] - 0.2), (0, 1), jit=True),
    Case(dstack_volumes, (A234,), jit=True),
    Case(dstack_split_back, (A46,)),
    Case(stack_axes, (A46, A46 * A46), (0, 1), jit=True),
    Case(column_stack_mixed, (V4, A46[:, :3].copy()), (0, 1), jit=True),
    Case(real_if_close_real, (V6,), jit=True),
    Case(array_equiv_gate, (A46[:2, :3].copy(), A46[2:, :3].copy()), (0, 1), jit=True),
    Case(split_three, (V6,), jit=True),
    Case(split_indices_axis1, (M67,), jit=True),
    Case(array_split_four_axis1, (M67,), jit=True),
    Case(array_split_unequal, (V10,), jit=True),
    Case(split_odd_indices, (V10,), jit=True),
    Case(split_one, (V6,), jit=True),
    Case(hsplit_three, (A46,), jit=True),
    Case(hsplit_vector_three, (V6,), jit=True),
    Case(vsplit_three, (M67,), jit=True),
    Case(dsplit_four, (A2345,), jit=True),
    Case(held_split, (V10,), jit=True),
    Case(held_split_unpacked, (M67,), jit=True),
]


@pytest.mark.parametrize("case, jit", params(CASES))
def test_gradient_matches_finite_differences(case, jit):
    check_gradient(case, jit)


@pytest.mark.parametrize("case, jit", params(CASES))
def test_jvp_matches_finite_differences(case, jit):
    check_jvp(case, jit)


@pytest.mark.parametrize("jit", [False, True])
def test_values_are_numpys(jit):
    for case in CASES:
        value, _ = srcad.value_and_grad(case.fn, wrt=case.wrt, jit=jit,
                                        on_jit_error="raise")(*copies(case.args))
        assert value == pytest.approx(case.fn(*copies(case.args)), rel=1e-12, abs=0.0), \
            case.fn.__name__


# ---------------------------------------------------------------------------
# forward mode against reverse mode: a Jacobian by columns equals one by rows, and
# <J v, w> = <v, J^T w> through vjp and jvp
# ---------------------------------------------------------------------------


def pieces_vector(a):
    left, right = np.hsplit(a, [2])
    top, bottom = np.vsplit(a, 2)
    return np.concatenate((np.ravel(np.sin(left) * 2.0), np.ravel(right ** 2),
                           np.ravel(top * bottom), np.ravel(np.dstack((a, a * a)))))


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, a", [(pieces_vector, A46), (split_pieces_vector, M67)])
def test_forward_mode_is_the_transpose_of_reverse_mode(fn, a, jit):
    a = a.copy()
    rng = np.random.default_rng(5)
    v = rng.uniform(-1.0, 1.0, a.shape)
    out, pullback = srcad.vjp(fn, a, jit=jit, on_jit_error="raise")
    np.testing.assert_array_equal(out, fn(a.copy()))  # the pieces NumPy cuts
    w = rng.uniform(-1.0, 1.0, np.shape(out))
    _, jv = srcad.jvp(fn, (a,), (v,), jit=jit, on_jit_error="raise")
    np.testing.assert_allclose(np.sum(jv * w), np.sum(v * pullback(w)), rtol=1e-12)
    by_rows = srcad.jacobian(fn, mode="rev", jit=jit)(a)
    by_columns = srcad.jacobian(fn, mode="fwd", jit=jit)(a)
    np.testing.assert_allclose(by_rows, by_columns, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("jit", [False, True])
def test_hessian_vector_products(jit):
    def f(a):
        left, right = np.hsplit(a, 2)
        top, bottom = np.vsplit(a, [1])
        return np.sum(np.sin(left * right) ** 2) + np.sum(np.sin(np.dstack((a, a * a))) ** 2) \
            + np.sum(top ** 2 * bottom) + np.sum(np.real_if_close(a) ** 3)

    a, v = A46[:2].copy(), np.cos(np.arange(12.0)).reshape(2, 6)
    got = srcad.hvp(f, (a,), v, jit=jit, on_jit_error="raise")
    grad = srcad.grad(f, jit=False)
    np.testing.assert_allclose(got, (grad(a + 1e-6 * v) - grad(a - 1e-6 * v)) / 2e-6,
                               rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------
# the pieces' tangent templates, as tests/test_tangents.py checks the registry's: against
# finite differences, and dual to their adjoint templates
# ---------------------------------------------------------------------------

_PIECES = [
    *[TangentCase(fn, {"ary": A46, "indices_or_sections": 2}, "halves")
      for fn in (rt.hsplit_head, rt.hsplit_tail)],
    *[TangentCase(fn, {"ary": V6, "indices_or_sections": (-2,)}, "vector-index")
      for fn in (rt.hsplit_head, rt.hsplit_tail)],
    *[TangentCase(fn, {"ary": A46, "indices_or_sections": (1,)}, "index")
      for fn in (rt.vsplit_head, rt.vsplit_tail)],
    *[TangentCase(fn, {"ary": A234, "indices_or_sections": 2}, "halves")
      for fn in (rt.dsplit_head, rt.dsplit_tail)],
    *[TangentCase(fn, {"ary": A2345, "indices_or_sections": (3,)}, "4d-index")
      for fn in (rt.dsplit_head, rt.dsplit_tail)],
    TangentCase(np.dstack, {"x": np.stack([A46, A46 * 2.0, -A46])}, "planes"),
    TangentCase(np.dstack, {"x": np.stack([A234, A234 ** 2])}, "volumes"),
    TangentCase(np.real_if_close, {"a": 0.7}, "scalar"),
]


def _ids(cases):
    return [c.id for c in cases]


@pytest.mark.parametrize("case", _PIECES, ids=_ids(_PIECES))
def test_piece_tangent_matches_finite_differences(case):
    values, ans, tangents = _setup(case)
    got = evaluate(case, values, ans, tangents)
    assert np.shape(got) == np.shape(ans)
    np.testing.assert_allclose(got, finite_difference(case, values, tangents), rtol=1e-6,
                               atol=1e-8)


@pytest.mark.parametrize("case", _PIECES, ids=_ids(_PIECES))
def test_piece_tangent_is_dual_to_its_adjoint(case):
    values, ans, tangents = _setup(case, seed=1)
    cot = _direction(np.asarray(ans) * 1.0 if np.ndim(ans) else float(ans),
                     np.random.default_rng(7))
    forward = float(np.sum(cot * np.asarray(evaluate(case, values, ans, tangents))))
    grads = adjoints(case, _setup(case, seed=1)[0], ans, cot, set(tangents))
    reverse = sum(float(np.sum(grads[p] * tv)) for p, tv in tangents.items())
    assert forward == pytest.approx(reverse, rel=1e-12, abs=1e-14)


# ---------------------------------------------------------------------------
# the helpers compiled give NumPy's values (and views where NumPy gives views)
# ---------------------------------------------------------------------------

_SPLITS = [(np.arange(6.0), 3, 0, True), (np.arange(7.0), 3, 0, False),
           (np.arange(7.0), 7, 0, False), (A234, (1, 3), 2, True), (A234, (-1,), 1, True),
           (A234, 2, -3, True), (np.arange(10.0), (2, 5, 20), 0, False),
           (A234, (3, 1), 2, True), (A2345, 4, 3, False), (V10, (-7, 5, 3, 12), 0, False),
           (V10, (), 0, True), (A2345, 3, -3, False)]


@pytest.mark.parametrize("ary, ios, axis, equal", _SPLITS)
def test_split_pieces_compiled_are_numpys(ary, ios, axis, equal):
    piece = njit(lambda a, i, ax, w, e: rt.split_piece(a, i, ax, w, e))
    adjoint = njit(lambda g, s, i, ax, w, e: rt.split_piece_adjoint(g, s, i, ax, w, e))
    pieces = (np.split if equal else np.array_split)(ary, ios, axis)
    rng = np.random.default_rng(2)
    for which, want in enumerate(pieces):
        got = piece(ary, ios, axis, which, equal)
        assert got.shape == want.shape and np.array_equal(got, want)
        assert np.shares_memory(got, ary) or got.size == 0  # a view, as NumPy's
        g = rng.normal(size=want.shape)
        adj = rt.split_piece_adjoint(g, ary.shape, ios, axis, which, equal)
        np.testing.assert_array_equal(adjoint(g, ary.shape, ios, axis, which, equal), adj)
        assert np.sum(want * g) == pytest.approx(np.sum(ary * adj), rel=1e-12)


@pytest.mark.parametrize("function, ary", [
    (np.hsplit, V6), (np.hsplit, A46), (np.hsplit, A234[:, :2]), (np.vsplit, A46),
    (np.vsplit, A2345), (np.dsplit, A234), (np.dsplit, A2345),
])
@pytest.mark.parametrize("ios", [2, (1,), (-1,)])
def test_hvd_pieces_compiled_are_numpys(function, ary, ios):
    name = function.__name__
    for which, part in enumerate(("head", "tail")):
        helper = getattr(rt, f"{name}_{part}")
        compiled = njit(lambda a, i: helper(a, i))
        want = function(ary, ios)[which]
        for got in (helper(ary, ios), compiled(ary, ios)):
            assert got.shape == want.shape and np.array_equal(got, want)
            assert np.shares_memory(got, ary)


def test_unequal_sections_raise_as_numpy():
    compiled = njit(lambda a: rt.hsplit_head(a, 4))
    with pytest.raises(ValueError, match="equal division"):
        np.hsplit(V6, 4)
    with pytest.raises(ValueError, match="equal division"):
        compiled(V6)


@pytest.mark.parametrize("shape", [(3,), (2, 5), (3, 4, 2), (2, 3, 2, 4), (2, 2, 3, 2, 3)])
def test_dstack_and_its_adjoint_compiled(shape):
    x = np.cos(np.arange(float(np.prod(shape)))).reshape(shape)
    want = np.dstack(x)
    got = njit(lambda x: rt.dstack(x))(x)
    assert got.shape == want.shape and np.array_equal(got, want)
    assert not np.shares_memory(got, x)
    g = np.sin(np.arange(float(want.size))).reshape(want.shape)
    adj = rt.dstack_adjoint(g, x.shape)
    np.testing.assert_array_equal(njit(lambda g, s: rt.dstack_adjoint(g, s))(g, x.shape), adj)
    assert np.sum(want * g) == pytest.approx(np.sum(x * adj), rel=1e-12)


@pytest.mark.parametrize("a, b", [
    (V6, V6.copy()), (V6, V6[::-1].copy()), (A46, A46[0]), (A46, A46[:, 0]),
    (A46[:, :1], A46[:1]), (np.ones((2, 1)), np.ones((1, 3))), (V6, 0.3),
])
def test_array_equiv_compiled_is_numpys(a, b):
    assert njit(lambda a, b: rt.array_equiv(a, b))(a, b) == np.array_equiv(a, b)


def test_real_if_close_of_real_values_is_the_value():
    assert rt.real_if_close(V6) is V6 and rt.real_if_close(0.25) == 0.25
    got = njit(lambda a: rt.real_if_close(a))(V6)
    assert np.shares_memory(got, V6) and np.array_equal(got, V6)


# ---------------------------------------------------------------------------
# the pieces are views: a write into the array afterwards is refused, not read back
# ---------------------------------------------------------------------------


def write_after_hsplit(x):
    y = x * 1.0
    a, b = np.hsplit(y, 2)
    s = np.sum(np.sin(a) * b)
    y[0] = 5.0
    return s + np.sum(a)


def write_after_copy(x):
    y = x * 1.0
    a, b = np.hsplit(y, 2)
    a = a.copy()
    s = np.sum(np.sin(a) * b)
    y[0] = 5.0
    return s + np.sum(a) + np.sum(y * y)


def test_a_write_while_a_piece_sees_the_array_is_refused():
    with pytest.raises(SrcadError) as info:
        srcad.grad(write_after_hsplit, jit=False)(V6.copy())
    assert "`y` is written" in str(info.value) and "`a`" in str(info.value)


@pytest.mark.parametrize("jit", [False, True])
def test_a_copied_piece_is_independent(jit):
    assert_value_and_grad(write_after_copy, lambda: (V6.copy(),), 0, jit)


# ---------------------------------------------------------------------------
# refusals: the function, the line, and what to write instead
# ---------------------------------------------------------------------------


def hsplit_counted(a, n):
    p, q, r = np.hsplit(a, n)
    return np.sum(p * q * r)


def split_counted(x, n):
    a, b = np.split(x, n)
    return np.sum(a * b)


def vsplit_vector(x):
    a, b = np.vsplit(x, 2)
    return np.sum(a * b)


def dsplit_matrix(a):
    p, q = np.dsplit(a, 2)
    return np.sum(p * q)


def dstack_held_tuple(a):
    planes = (a, a * a)
    return np.sum(np.dstack(planes))


def real_if_close_complex(x):
    return np.sum(np.real_if_close(x * 1j).imag)


@pytest.mark.parametrize("fn, args, words", [
    (hsplit_counted, (A46, 3), ["np.hsplit", "a number of pieces known from the call",
                                "x[:, :2], x[:, 2:5], x[:, 5:]"]),
    (split_counted, (V6, 2), ["np.split", "a number of pieces known from the call",
                              "x[:2], x[2:5], x[5:]"]),
    (vsplit_vector, (V6,), ["np.vsplit", "2 or more dimensions", "1-d float array"]),
    (dsplit_matrix, (A46,), ["np.dsplit", "3 or more dimensions"]),
    (dstack_held_tuple, (A46,), ["np.dstack", "written out as a tuple", "np.dstack((a, b))"]),
    (real_if_close_complex, (V6,), ["np.real_if_close", "complex"]),
])
def test_refusals_name_the_function_the_line_and_a_rewrite(fn, args, words):
    with pytest.raises(SrcadError) as info:
        srcad.grad(fn, jit=False)(*args)
    message = str(info.value)
    for word in words:
        assert word in message, message
    assert "test_rules_splits.py" in message, message


@pytest.mark.parametrize("jit", [False, True])
def test_split_into_unequal_sections_raises_as_numpy(jit):
    with pytest.raises(ValueError, match="equal division"):
        np.split(V10, 3)
    with pytest.raises(ValueError, match="equal division"):
        srcad.grad(split_three, jit=jit, on_jit_error="raise")(V10.copy())


def held_split_counted(x, n):
    parts = np.split(x, n)
    return np.sum(parts[0] * parts[1])


def test_a_split_held_in_a_name_needs_its_count_from_the_call():
    with pytest.raises(SrcadError) as info:
        srcad.grad(held_split_counted, jit=False)(V6.copy(), 2)
    message = str(info.value)
    for words in ("`np.split`", "a number of pieces known from the call", "parts = np.split"):
        assert words in message, message


# ---------------------------------------------------------------------------
# np.mgrid and np.ogrid: their ranges (np.arange, np.linspace for a count `5j`), so a
# bound taken from a differentiated argument carries its gradient
# ---------------------------------------------------------------------------


def mgrid_weights(x):
    rows, cols = np.mgrid[0:4, 0:6]
    return np.sum(x * rows) + np.sum(np.sin(x) * cols)


def mgrid_counted(x):
    g = np.mgrid[-1:1:4j, 0:3:0.5]
    return np.sum(np.cos(x) * g[0] * g[1]) + np.sum(np.mgrid[0:1:6j] * x[0])


def ogrid_distance(x):
    y, z = np.ogrid[0:4, 1:7]
    return np.sum(x * np.sqrt((y - 1.5) ** 2 + (z * 0.5) ** 2)) + np.sum(np.ogrid[0:6:2] * x[1, :3])


def mgrid_bounds(a, b):
    """Bounds from the arguments: the grid moves with them."""
    g = np.mgrid[a:b:5j, 0:3]
    return np.sum(g[0] ** 2 * (g[1] + 1.0)) + np.sum(np.ogrid[a:b:0.25] ** 3)


GRID_CASES = [
    Case(mgrid_weights, (A46,), jit=True),
    Case(mgrid_counted, (A46,), jit=True),
    Case(ogrid_distance, (A46,), jit=True),
    Case(mgrid_bounds, (0.3, 1.6), (0, 1), jit=True),
]


@pytest.mark.parametrize("case, jit", params(GRID_CASES))
def test_grid_gradient_matches_finite_differences(case, jit):
    check_gradient(case, jit)
    check_jvp(case, jit)


def test_grid_forms_give_numpys_arrays():
    """What np.mgrid and np.ogrid become gives NumPy's arrays: shapes, types, values."""
    for text in ("np.mgrid[0:3, 0:4]", "np.mgrid[0:1:5j, 2:4]", "np.mgrid[0.5:2.0:0.5]",
                 "np.mgrid[1:3:3j, 0:2:1j]", "np.ogrid[0:3, 0:4, 1:2]", "np.ogrid[0:2:3j, 0:3]",
                 "np.ogrid[5:0:-2]", "np.mgrid[:4]", "np.mgrid[0:2, 0:3, 1:3:0.5]"):
        node = gast.parse(text, mode="eval").body
        expr = _grid("np", text.startswith("np.ogrid"), node.slice, None)
        tree = ast.fix_missing_locations(gast.gast_to_ast(gast.Expression(body=expr)))
        got = eval(compile(tree, text, "eval"), {"np": np})
        want = eval(text)
        for g, w in zip(got if isinstance(got, tuple) else [got],
                        want if isinstance(want, (list, tuple)) else [want]):
            assert g.shape == w.shape and g.dtype == w.dtype, text
            np.testing.assert_allclose(g, w, rtol=1e-15, err_msg=text)


def mgrid_counted_by_name(x, n):
    return np.sum(np.mgrid[0:1:n * 1j] * x[0])


def mgrid_index(x):
    return np.sum(np.mgrid[3] * x)


@pytest.mark.parametrize("fn, words", [
    (mgrid_counted_by_name, ["`np.mgrid` takes a count written as a number", "np.linspace"]),
    (mgrid_index, ["`np.mgrid` takes ranges with an end", "np.mgrid[0:n, 0:m]"]),
])
def test_grid_refusals(fn, words):
    with pytest.raises(SrcadError) as info:
        srcad.grad(fn, jit=False)(V6.copy(), *((4,) if fn is mgrid_counted_by_name else ()))
    message = str(info.value)
    for word in words:
        assert word in message, message
    assert "test_rules_splits.py" in message, message

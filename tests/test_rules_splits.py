"""The rules of srcad/rules/numpy_splits.py (np.hsplit, np.vsplit, np.dsplit into two
pieces, np.dstack, np.real_if_close, np.array_equiv), and the joins and stacks next to
them that already had rules (np.stack with `axis`, np.column_stack), in the forms the
registry's cases (`tests.test_rules`) do not write: whole functions written as people
write them, the pieces' tangents beside their adjoints, the helpers compiled, and the
refusals.

Each function's gradient (reverse mode) and its derivative along a direction (forward
mode, `srcad.jvp`) are compared with central finite differences, in plain Python and, for
the cases marked so, compiled with Numba (which must then compile: no fallback).
"""

import numpy as np
import pytest
from numba import njit

import srcad
from srcad import runtime as rt
from srcad.errors import SrcadError
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
def test_forward_mode_is_the_transpose_of_reverse_mode(jit):
    a = A46.copy()
    rng = np.random.default_rng(5)
    v = rng.uniform(-1.0, 1.0, a.shape)
    out, pullback = srcad.vjp(pieces_vector, a, jit=jit, on_jit_error="raise")
    w = rng.uniform(-1.0, 1.0, np.shape(out))
    _, jv = srcad.jvp(pieces_vector, (a,), (v,), jit=jit, on_jit_error="raise")
    np.testing.assert_allclose(np.sum(jv * w), np.sum(v * pullback(w)), rtol=1e-12)
    by_rows = srcad.jacobian(pieces_vector, mode="rev", jit=jit)(a)
    by_columns = srcad.jacobian(pieces_vector, mode="fwd", jit=jit)(a)
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
           (A234, (3, 1), 2, True), (A2345, 4, 3, False)]


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


def hsplit_three(a):
    p, q, r = np.hsplit(a, [1, 4])
    return np.sum(p * q[:, :1] * r[:, :1])


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
    (hsplit_three, (A46,), ["np.hsplit", "two pieces", "x[:, :2], x[:, 2:5], x[:, 5:]"]),
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

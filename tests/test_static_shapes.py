"""Shapes read from the code (srcad.passes.static_shapes): two slices are taken for one
length exactly when they have one length for every length of the axis, and gradients
whose sums down to an operand's shape were left out on that ground match finite
differences, next to look-alike slices that differ by a row and operands that do
broadcast."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import srcad
from srcad.passes.static_shapes import _lengths
from tests.fd import fd_grad

bound = st.one_of(st.none(), st.integers(-7, 7))


@settings(max_examples=400, deadline=None)
@given(bound, bound, bound, bound)
def test_two_slices_share_a_token_exactly_when_their_lengths_agree_everywhere(a, b, c, d):
    agree = all(len(range(n)[a:b]) == len(range(n)[c:d]) for n in range(60))
    assert (_lengths(a, b, None) == _lengths(c, d, None)) == agree


def laplacian(u):
    lap = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * u[1:-1, 1:-1]
    return np.sum(lap * lap)


def off_by_one_row(u, c):
    """`u[1:]` and `u[:-1]` have one shape, `c[:, None]` broadcasts along columns."""
    a = u[1:] - u[:-1]
    b = np.tanh(a) * c[:, None]
    return np.sum(b * a)


def rows_broadcast(u, r):
    """`r` (one row) broadcasts against `u[1:]`; `u[:, 0]` drops an axis."""
    s = u[1:] * r + u[:-1]
    t = np.exp(s) * 0.5 - u[1:, 0][:, None]
    return np.sum(t * s)


def rebound(u):
    """A name assigned twice has no shape of its own here."""
    v = u[1:]
    v = v[:, 1:] + u[1:, :-1]
    return np.sum(v * v)


def strided(u):
    """Steps other than one: `u[::2]` and `u[1::2]` differ when `u` has an odd length."""
    return np.sum(u[::2][:2] * u[1::2][:2]) + np.sum(u[2:] * u[:-2])


def outer(u, v):
    """`u[:, None] * v[None, :]` broadcasts both; adding `v` broadcasts it again."""
    c = u[:, None] * v[None, :]
    d = np.sin(c) + v
    return np.sum(d * c)


def pairs(x):
    """Differences of every pair of rows, by broadcasting to 3-d."""
    diff = x[:, None, :] - x[None, :, :]
    return np.sum(np.exp(-diff * diff))


def normalized(x, g):
    """Reductions along constant axes, broadcast back against the rows they came from."""
    n = x.shape[1]
    mu = np.sum(x, axis=1) / n
    xc = x - mu[:, None]
    var = np.sum(xc * xc, axis=-1) / n
    top = np.max(xc, axis=1, keepdims=True)
    y = xc / np.sqrt(var[:, None] + 1e-5) * g - 0.1 * top
    return np.sum(y * y) + np.sum(np.mean(y, axis=0) * g)


def sums_reused(u, w):
    """`np.sum(t)`'s adjoint, a number spread over `t`'s shape, meets other terms of `t`'s
    adjoint; `np.sum(p * w)` spreads one over a product with a broadcast row."""
    t = u[1:] * u[:-1]
    p = np.tanh(t)
    return np.sum(t) ** 2 + np.sum(np.sin(t)) + np.sum(p * w) + np.sum(t * t)


def sum_added_into(u):
    """`np.sum(t)`'s adjoint, spread over `t`'s shape, is then added into."""
    t = u[1:] * u[:-1]
    return np.sum(t * t) + np.sum(t)


def row_sums_spread(x):
    """`np.sum(d, axis=1)`'s adjoint is spread back along the rows it summed."""
    d = x[:, 1:] - x[:, :-1]
    r = np.sum(d * d, axis=1)
    return np.sum(np.sqrt(r + 1.0)) + np.sum(np.sum(d, axis=-1) * r)


def upper_pairs(x, v, w):
    """`np.triu` and `np.flip` keep a matrix's shape; `np.triu` of a vector is a square,
    whose adjoint sums back down to the vector."""
    d = x[:, None, :] - x[None, :, :]
    r2 = np.sum(d * d, axis=-1) + 1.0
    e = 1.0 / r2 ** 3
    return np.sum(np.triu(e, 1)) + np.sum(np.flip(e, 0) * e) + np.sum(np.triu(v, 1) * w)


CASES = [(upper_pairs, [(4, 3), (5,), (5, 5)]), (sum_added_into, [(5, 4)]),
         (row_sums_spread, [(4, 6)]),
         (sums_reused, [(5, 4), (4,)]), (normalized, [(4, 5), (5,)]),
         (outer, [(3,), (4,)]), (pairs, [(4, 3)]), (laplacian, [(6, 7)]),
         (off_by_one_row, [(5, 4), (4,)]), (rows_broadcast, [(5, 4), (4,)]),
         (rebound, [(5, 4)]), (strided, [(7,)])]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, shapes", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradients_with_sums_left_out_match_finite_differences(fn, shapes, jit):
    rng = np.random.default_rng(11)
    args = tuple(rng.uniform(-1, 1, s) for s in shapes)
    wrt = tuple(range(len(args)))
    got = srcad.grad(fn, wrt=wrt, jit=jit)(*args)
    got = got if isinstance(got, tuple) else (got,)
    for g, want in zip(got, fd_grad(fn, args, wrt)):
        assert g.shape == want.shape
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-8)


def test_the_laplacian_sweep_sums_nothing_down():
    g = srcad.grad(laplacian, jit=False)
    g(np.ones((5, 6)))
    rev = srcad.source(g)
    assert "rt.unbroadcast" not in rev[rev.index("def laplacian_rev"):]


def test_the_laplacian_sweep_adds_without_broadcasting():
    """Its five slices and its adjoint have one shape: every addition into a view is the
    helper that does not broadcast."""
    g = srcad.grad(laplacian, jit=False)
    g(np.ones((5, 6)))
    rev = srcad.source(g)
    rev = rev[rev.index("def laplacian_rev"):]
    assert rev.count("rt.add_to_alike(d_u[") == 5 and "rt.add_to(" not in rev
    # `np.sum`'s adjoint spread `d_out` over `lap * lap` only to multiply it by `lap`;
    # the numbers multiply first
    assert "rt.mul(2.0 * d_out, lap)" in rev and "rt.filled" not in rev


def test_a_broadcast_operand_is_still_summed_down():
    g = srcad.grad(off_by_one_row, wrt=(0, 1), jit=False)
    g(np.ones((5, 4)), np.ones(4))
    rev = srcad.source(g)
    rev = rev[rev.index("def off_by_one_row_rev"):]
    assert "rt.unbroadcast" in rev
    assert "_alike(d_c" not in rev and "_alike(c" not in rev

"""The reverse sweep does each piece of work once and allocates nothing per iteration where
it need not: repeated expressions are computed once (CommonSubexpressions), the adjoint of
a slice of a read-only argument is that slice of the argument's adjoint, and the product's
adjoint adds into it in place. Each gradient is checked against finite differences."""
import re

import numpy as np
import pytest

import srcad
from benchmarks.workloads import box_products
from srcad import runtime as rt
from tests.fd import fd_grad


def box_args(seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(0.8, 1.2, (4, 3)), rng.uniform(0.8, 1.2, (3, 5))


def loop_source(source, fn):
    """The reverse sweep's innermost loop body."""
    rev = source[source.index(f"def {fn}_rev"):]
    return rev[rev.rindex("for k"):]


@pytest.mark.parametrize("jit", [False, True])
def test_box_products_work_once_and_allocate_nothing_per_pair(jit):
    g = srcad.grad(box_products, wrt=(0, 1), jit=jit)
    args = box_args()
    got = g(*args)
    want = fd_grad(box_products, args, (0, 1))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
    source = srcad.source(g)
    fwd = source[source.index("def box_products_fwd"):source.index("def box_products_rev")]
    assert fwd.count("rt.prod(") == 2  # box[:, j]'s product once, p[i, :]'s once
    body = loop_source(source, "box_products")
    assert "zeros_like" not in body and "rt.prod_adjoint(" not in body
    assert "rt.prod(" not in body  # each product comes from the tape, not a second pass
    assert re.search(r"d_\w+ = d_box\[:, j\]", body)
    assert re.search(r"d_\w+ = d_p\[i, :\]", body)


def overwritten_then_read_again(x, y):
    v = x[0] * 2.0
    x[0] = 5.0 * y
    w = x[0] * 2.0
    a = np.zeros(3)
    b = np.zeros(3)
    b[1] = y
    return v * w + np.sum(a) + b[1] * np.sum(x)


def rebinding_between_repeats(x, y):
    s = x * y
    x = x + 1.0
    t = x * y
    return s * t


@pytest.mark.parametrize("fn", [overwritten_then_read_again, rebinding_between_repeats])
@pytest.mark.parametrize("jit", [False, True])
def test_repeats_across_a_change_are_computed_again(fn, jit):
    args = (np.array([0.7, -0.3, 1.1]), 0.9) if fn is overwritten_then_read_again else (0.7, 0.9)
    g = srcad.value_and_grad(fn, wrt=(0, 1), jit=jit)
    value, grads = g(*[np.copy(a) for a in args])
    assert value == pytest.approx(fn(*[np.copy(a) for a in args]), rel=1e-12)
    for a, b in zip(grads, fd_grad(fn, args, (0, 1))):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


def written_columns(p, box):
    box = box.copy()
    total = 0.0
    for j in range(box.shape[1]):
        col = box[:, j]
        total += np.prod(col) * p[0, j % p.shape[1]]
        box[0, j] = total
    return total


@pytest.mark.parametrize("jit", [False, True])
def test_slices_of_a_written_array_keep_their_own_adjoints(jit):
    args = box_args(1)
    g = srcad.grad(written_columns, wrt=(0, 1), jit=jit)
    for a, b in zip(g(*args), fd_grad(written_columns, args, (0, 1))):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


def rows_in_a_replayed_loop(x, m):
    s = x
    for i in range(m.shape[0]):
        row = m[i, :]
        s = np.tanh(s + np.prod(row) * np.sum(row * row))
    return s


@pytest.mark.parametrize("jit", [False, True])
def test_row_adjoints_in_a_loop_of_carried_state(jit):
    m = np.random.default_rng(2).uniform(0.5, 1.0, (6, 3))
    g = srcad.grad(rows_in_a_replayed_loop, wrt=(0, 1), jit=jit)
    for a, b in zip(g(0.3, m), fd_grad(rows_in_a_replayed_loop, (0.3, m), (0, 1))):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)


PRODUCTS = [
    np.array([0.9, 1.3, 0.7, 1.1]),
    np.array([1.0, 0.0, 2.0, 3.0]),          # one zero: only its own entry is nonzero
    np.array([0.0, 0.0, 2.0]),               # two zeros: all zero
    np.array([1e300, 1e10, 1e-300]),         # the product overflows
    np.array([1e-200, 1e-200, 1e100]),       # the product underflows to zero
    np.array([np.inf, 1.0, 2.0]),
]


@pytest.mark.parametrize("v", PRODUCTS, ids=range(len(PRODUCTS)))
def test_compiled_product_adjoint_matches_the_exact_one(v):
    import numba

    @numba.njit
    def both(g, v, ans):
        out = np.full(v.shape, 0.25)
        rt.prod_adjoint_add(out, g, v, None, ans)
        return rt.prod_adjoint(g, v, None, ans), out

    with np.errstate(all="ignore"):
        exact = np.array([1.5 * np.prod(np.delete(v, i)) for i in range(v.size)])
        fresh, added = both(1.5, v, np.prod(v))
    np.testing.assert_allclose(fresh, exact, rtol=1e-13)
    np.testing.assert_allclose(added, exact + 0.25, rtol=1e-13)


def test_zero_cotangent_adds_nothing_through_an_infinite_product():
    import numba

    @numba.njit
    def add(v):
        out = np.zeros(v.shape)
        rt.prod_adjoint_add(out, 0.0, v, None, np.prod(v))
        return out

    with np.errstate(all="ignore"):
        assert np.array_equal(add(np.array([np.inf, 1e308, 0.5])), np.zeros(3))


# Terms of a sum share the sum's adjoint (LeanArrayAdjoints): no copy, no chain of arrays
# between, unless something writes one of them or the caller gets it.


def five_point(u):
    lap = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * u[1:-1, 1:-1]
    return np.sum(lap * lap)


def broadcast_terms(a, b, c):
    t = a + b + c - 2.0 * a  # (3, 1) + (3, 4) + (4,)
    return np.sum(np.sin(t))


def term_read_twice(a, b, c):
    t = a + b
    u = t + c
    return np.sum(u * t)


def arguments_summed(x, y):
    return np.sum(np.cos(x + y))


def chain_through_a_slice(x):
    t = x[1:] + x[:-1]
    u = t + x[1:] * 2.0
    v = u[1:] + t[:-1]
    return np.sum(v * v)


SHARED = [
    (five_point, lambda r: (r.uniform(-1, 1, (5, 6)),), (0,)),
    (broadcast_terms, lambda r: (r.uniform(-1, 1, (3, 1)), r.uniform(-1, 1, (3, 4)),
                                 r.uniform(-1, 1, 4)), (0, 1, 2)),
    (term_read_twice, lambda r: (r.uniform(-1, 1, (2, 3)), r.uniform(-1, 1, 3),
                                 r.uniform(-1, 1, (2, 1))), (0, 1, 2)),
    (arguments_summed, lambda r: (r.uniform(-1, 1, (2, 3)), r.uniform(-1, 1, (2, 3))),
     (0, 1)),
    (chain_through_a_slice, lambda r: (r.uniform(-1, 1, 7),), (0,)),
]


@pytest.mark.parametrize("fn,make,wrt", SHARED, ids=[c[0].__name__ for c in SHARED])
@pytest.mark.parametrize("jit", [False, True])
def test_terms_sharing_an_adjoint_match_finite_differences(fn, make, wrt, jit):
    args = make(np.random.default_rng(3))
    g = srcad.grad(fn, wrt=wrt, jit=jit)
    got = g(*args)
    for a, b in zip(got, fd_grad(fn, args, wrt)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
    # each gradient the caller gets is its own array
    arrays = [a for a in got if isinstance(a, np.ndarray)]
    for i, a in enumerate(arrays):
        assert all(not np.shares_memory(a, b) for b in arrays[i + 1:])
        assert all(not np.shares_memory(a, x) for x in args)


def test_five_point_stencil_sweeps_copy_nothing_and_tape_one_array():
    g = srcad.grad(five_point, jit=False)
    u = np.random.default_rng(4).uniform(-1, 1, (5, 6))
    g(u)
    source = srcad.source(g)
    rev = source[source.index("def five_point_rev"):]
    assert ".copy()" not in rev
    # every term's adjoint is the stencil's own, added into its slice of d_u directly
    assert len(re.findall(r"rt\.add_to(_alike)?\(d_u\[[^]]*\], d_lap\)", rev)) == 4
    assert "rt.unbroadcast(d_lap" not in rev
    _, tape = g.last.forward((u,))
    assert sum(isinstance(t, np.ndarray) for t in tape) == 1  # `lap`


def test_an_adjoint_added_into_later_keeps_its_own_array():
    g = srcad.grad(term_read_twice, wrt=(0, 1, 2), jit=False)
    args = SHARED[2][1](np.random.default_rng(5))
    g(*args)
    rev = srcad.source(g)
    rev = rev[rev.index("def term_read_twice_rev"):]
    assert "rt.add_to(d_t, d_u)" in rev
    # d_t, added into, is no other adjoint's array
    assert re.search(r"\bd_t = rt\.unbroadcast\(rt\.mul\(", rev)
    assert not re.search(r"\bd_t = rt\.unbroadcast\(d_\w+, \w+\)\n", rev)


def _lean(source, adjoints):
    import gast

    from codegen import to_source
    from srcad.passes.lean_array_adjoints import LeanArrayAdjoints
    return to_source(LeanArrayAdjoints(adjoints).run(gast.parse(source).body[0]))


def test_an_adjoint_keeps_its_copy_when_its_source_is_written_after_it():
    rev = _lean('''def f_rev(x, tape, d_out):
    s, = tape
    d_t = rt.mul(d_out, s)
    d_a = rt.unbroadcast(d_t, x).copy()
    rt.add_to(d_t, s)
    return np.sum(d_a * d_t)''', {"d_t", "d_a"})
    assert "d_a = rt.unbroadcast(d_t, x).copy()" in rev
    # written through a name that shares its array
    rev = _lean('''def f_rev(x, tape, d_out):
    s, = tape
    d_t = rt.mul(d_out, s)
    d_b = rt.unbroadcast(d_t, s)
    d_a = rt.unbroadcast(d_t, x).copy()
    rt.add_to(d_b, s)
    return np.sum(d_a * d_b)''', {"d_t", "d_a", "d_b"})
    assert "d_a = rt.unbroadcast(d_t, x).copy()" in rev
    # the same, written before it: shared
    rev = _lean('''def f_rev(x, tape, d_out):
    s, = tape
    d_t = rt.mul(d_out, s)
    rt.add_to(d_t, s)
    d_a = rt.unbroadcast(d_t, x).copy()
    return np.sum(d_a * d_t)''', {"d_t", "d_a"})
    assert "d_a = rt.unbroadcast(d_t, x)\n" in rev
    # returned: the caller's gradient is its own array
    rev = _lean('''def f_rev(x, tape, d_out):
    s, = tape
    d_t = rt.mul(d_out, s)
    d_a = rt.unbroadcast(d_t, x).copy()
    return d_a, d_t''', {"d_t", "d_a"})
    assert "d_a = rt.unbroadcast(d_t, x).copy()" in rev


def views_broadcast(x, z):
    """Slices of `x` broadcast against a column: their adjoints are sums over rows."""
    y = x[1:] * 2.0 + z[:, None]
    w = x[:-1] - y
    v = np.exp(x[2:]) + x[:3]
    return np.sum(w * w) + np.sum(v * v)


@pytest.mark.parametrize("jit", [False, True])
def test_a_slice_read_adds_its_broadcast_adjoint_summed_into_place(jit):
    rng = np.random.default_rng(8)
    args = (rng.uniform(-1, 1, 5), rng.uniform(-1, 1, 4))
    g = srcad.grad(views_broadcast, wrt=(0, 1), jit=jit)
    got = g(*args)
    for a, b in zip(got, fd_grad(views_broadcast, args, (0, 1))):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
    rev = srcad.source(g)
    rev = rev[rev.index("def views_broadcast_rev"):]
    # `x[:-1]`'s adjoint is `w`'s, summed over the rows by rt.add_to itself
    assert re.search(r"rt\.add_to\(d_x\[:-1\], d_w\)", rev)


def heat_ping_pong(a, b, n):
    """Two buffers, each step written from the other through slices (the usual stencil
    loop): every temporary of a step lives and dies in that step."""
    a = a.copy()
    b = b.copy()
    for t in range(n):
        b[1:-1, 1:-1] = 0.2 * (a[2:, 1:-1] + a[:-2, 1:-1] + a[1:-1, 2:] + a[1:-1, :-2]
                               - 4.0 * a[1:-1, 1:-1]) + a[1:-1, 1:-1]
        a[1:-1, 1:-1] = 0.2 * (b[2:, 1:-1] + b[:-2, 1:-1] + b[1:-1, 2:] + b[1:-1, :-2]
                               - 4.0 * b[1:-1, 1:-1]) + b[1:-1, 1:-1]
    return np.sum(a * a) + np.sum(b)


def carried_and_kept(x, w, n):
    """`s` is carried from step to step, `u` read after the loop, `v` added into after its
    first term (its adjoint must keep an array of its own), `p` read in a branch."""
    s = x * 1.0
    u = x * 0.0
    for t in range(n):
        v = s * w
        v = v + s[::-1]
        p = np.sin(v)
        if t % 2 == 0:
            p = p * v
        u = p + v * 0.5
        s = u * 0.7 + s * 0.2
    return np.sum(s * s) + np.sum(u * w)


def step_temporaries_read_twice(x, n):
    """A step's temporary `d` read twice in that step, and once more in a later line."""
    y = x.copy()
    for t in range(n):
        d = y[1:] - y[:-1]
        e = d * d + 1.0
        y[1:] = y[1:] + 0.1 * d / e
        y[0] = y[0] + 0.05 * np.sum(d)
    return np.sum(y * y)


def names_reused_across_loops(x, w):
    """`g` and `c` serve in two loops one after the other (a sweep down the columns and
    back up, as a tridiagonal solve is written); `g` is read once more between them."""
    y = x * 0.0
    for k in range(1, x.shape[1]):
        g = 0.25 * (x[:, k] + x[:, k - 1])
        c = g * x[:, k]
        y[:, k] = y[:, k - 1] * w[0] + c
    y[:, 0] = g * 2.0
    for k in range(x.shape[1] - 2, -1, -1):
        g = y[:, k + 1] - x[:, k]
        c = g * g
        y[:, k] = y[:, k] + 0.1 * c
    return np.sum(y * x)


LOOPS = [
    (heat_ping_pong, lambda r: (r.uniform(-1, 1, (5, 6)), r.uniform(-1, 1, (5, 6)), 3),
     (0, 1)),
    (carried_and_kept, lambda r: (r.uniform(-1, 1, 6), r.uniform(-1, 1, 6), 4), (0, 1)),
    (step_temporaries_read_twice, lambda r: (r.uniform(-1, 1, 7), 3), (0,)),
    (names_reused_across_loops, lambda r: (r.uniform(-1, 1, (3, 5)), r.uniform(-1, 1, 3)),
     (0, 1)),
]


@pytest.mark.parametrize("fn,make,wrt", LOOPS, ids=[c[0].__name__ for c in LOOPS])
@pytest.mark.parametrize("jit", [False, True])
def test_step_temporaries_set_their_adjoints_and_match_finite_differences(fn, make, wrt,
                                                                          jit):
    args = make(np.random.default_rng(6))
    got = srcad.grad(fn, wrt=wrt, jit=jit)(*args)
    got = got if isinstance(got, tuple) else (got,)
    for a, b in zip(got, fd_grad(fn, args, wrt)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


def test_a_stencil_step_keeps_no_stack_for_its_temporaries():
    """The temporaries of a step are fused into one expression per line in the forward
    sweep, as the user wrote it, and need no stack of shapes: the reverse sweep sets
    their adjoints from their first terms. Only what a step writes into the buffers
    (which the assignment may broadcast) keeps its shape."""
    g = srcad.grad(heat_ping_pong, wrt=(0, 1), jit=False)
    g(*LOOPS[0][1](np.random.default_rng(7)))
    source = srcad.source(g)
    fwd = source[source.index("def heat_ping_pong_fwd"):source.index("def heat_ping_pong_rev")]
    step = fwd[fwd.index("for t in"):fwd.index("return")]
    # per line written: the centre's copy (read twice), the stencil, its sum with the centre
    assert len(re.findall(r"^ {8}\w+ = ", step, re.M)) == 6
    assert len(re.findall(r"\btape_\w+ = List\(\)", fwd)) == 2
    body = loop_source(source, "heat_ping_pong")
    body = body[:body.index("\n    # grad of")]  # the loop's own lines
    assert body.count("np.zeros(") == 2
    # an adjoint is copied only where it is added into later (the centre's)
    assert body.count(".copy()") == 2


def recurrence_on_a_copy(u, c):
    u = u.copy()  # the usual guard against writing into the caller's array
    for i in range(1, u.shape[0]):
        u[i] = u[i - 1] * c + u[i]
    return np.sum(u ** 2)


@pytest.mark.parametrize("jit", [False, True])
def test_a_copy_of_an_argument_is_made_once(jit):
    g = srcad.grad(recurrence_on_a_copy, wrt=(0, 1), jit=jit)
    args = (np.random.default_rng(6).uniform(-1, 1, 7), 0.8)
    for got, want in zip(g(*args), fd_grad(recurrence_on_a_copy, args, (0, 1))):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    source = srcad.source(g)
    fwd = source[source.index("def recurrence_on_a_copy_fwd"):
                 source.index("def recurrence_on_a_copy_rev")]
    body = fwd[:fwd.index("for i")]  # before the loop: one copy, not a copy of the copy
    assert body.count("copy(") == 1

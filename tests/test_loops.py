"""srcad.runtime.loops: arithmetic on arrays and additions into arrays as explicit loops,
which reverse sweeps of array code call instead of Numba's broadcasting operators. Compiled,
each helper gives what the operator gives, for every layout, broadcast, dtype and number
operand; and a reverse sweep uses them on arrays of two or more dimensions, with gradients
equal to finite differences."""
import operator

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import srcad
from srcad import runtime as rt
from srcad.runtime import loops
from tests.fd import fd_grad

OPS = {"mul": (rt.mul, operator.mul), "div": (rt.div, operator.truediv),
       "add": (rt.add, operator.add), "sub": (rt.sub, operator.sub)}


def _compiled(helper):
    return numba.njit(lambda a, b: helper(a, b))


JIT = {name: _compiled(helper) for name, (helper, _) in OPS.items()}
# Numba's own operators, as the sweeps spelled them (an array expression; `operator.truediv`
# called on arrays is NumPy's ufunc, whose complex division differs in the last bit)
NATIVE = {"mul": numba.njit(lambda a, b: a * b), "div": numba.njit(lambda a, b: a / b),
          "add": numba.njit(lambda a, b: a + b), "sub": numba.njit(lambda a, b: a - b)}


@numba.njit
def _jit_neg(a):
    return rt.neg(a)


@numba.njit
def _jit_add_to(t, g):
    rt.add_to(t, g)


@numba.njit
def _jit_add_to_view(t, g):
    rt.add_to(t[1:, ::2], g)


def _operands(rng):
    """(a, b) pairs: one shape, broadcasts either way, views, Fortran order, empty."""
    x = rng.uniform(0.5, 1.5, (3, 4, 5))
    return [(x, rng.uniform(0.5, 1.5, (3, 4, 5))), (x, rng.uniform(0.5, 1.5, 5)),
            (rng.uniform(0.5, 1.5, (4, 1)), x), (x[:, 1:, ::2], rng.uniform(0.5, 1.5, (3, 3, 3))),
            (x[0].T, rng.uniform(0.5, 1.5, (5, 4))), (np.asfortranarray(x), x),
            (rng.uniform(0.5, 1.5, (2, 1, 3, 1)), rng.uniform(0.5, 1.5, (4, 1, 2))),
            (rng.uniform(0.5, 1.5, 6), rng.uniform(0.5, 1.5, 6)), (np.ones((0, 3)), np.ones(3))]


def _rotated(count):
    """(case index, operator name) pairs: each case with one operator, the operators in
    turn. The four helpers share their loops over layouts and broadcasts (`elementwise`),
    and differ only in the element function, which every case of an operator checks: so
    each layout is compiled once, not once per operator (each compilation takes Numba
    about a second)."""
    names = sorted(OPS)
    return [(k, names[k % len(names)]) for k in range(count)]


@pytest.mark.parametrize("k, name", _rotated(9))
def test_binary_helpers_are_the_operators(k, name):
    helper, op = OPS[name]
    a, b = _operands(np.random.default_rng(0))[k]
    want = op(a, b)
    for got in (helper(a, b), JIT[name](a, b)):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(JIT[name](b, a), op(b, a))


@pytest.mark.parametrize("name", sorted(OPS))
def test_binary_helpers_take_numbers_and_other_dtypes(name):
    x = np.random.default_rng(1).uniform(0.5, 1.5, (3, 4))
    ints = np.arange(1, 13).reshape(3, 4)
    cases = [(x, 2.5), (3.0, x), (x[:, ::2], 0.5), (ints, 2), (ints, 1.5), (x, ints),
             (x + 1j, x), (x, np.array(2.0)), (2.0, 4.0)]
    for a, b in cases:
        want = NATIVE[name](a, b)
        got = JIT[name](a, b)
        assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == \
            np.asarray(want).dtype, (a, b)
        np.testing.assert_array_equal(got, want)


def test_neg_is_minus():
    x = np.random.default_rng(2).uniform(-1.0, 1.0, (3, 4))
    for a in (x, x[:, ::2], x.T, np.arange(6).reshape(2, 3), np.array([0.0, -0.0])):
        np.testing.assert_array_equal(_jit_neg(a), -a)
        assert np.array_equal(np.signbit(_jit_neg(a)), np.signbit(-a))
    assert _jit_neg(1.5) == -1.5


def test_broadcast_mismatch_is_an_error():
    with pytest.raises(ValueError):
        JIT["mul"](np.ones((3, 4)), np.ones((2, 4)))


ALIKE = {"mul": rt.mul_alike, "div": rt.div_alike, "add": rt.add_alike, "sub": rt.sub_alike}
JIT_ALIKE = {name: _compiled(helper) for name, helper in ALIKE.items()}


@numba.njit
def _jit_add_to_alike(t, g):
    rt.add_to_alike(t[1:, ::2], g)


def _alike_cases():
    x = np.random.default_rng(5).uniform(0.5, 1.5, (3, 4, 6))
    ints = np.arange(1, 25).reshape(3, 4, 2)
    return [(x, x * 2.0), (x[:, :, ::2], x[:, :, 1::2]), (np.asfortranarray(x), x),
            (x[0].T, x[1].T.copy()), (x, 2.5), (1.5, x[1:]), (ints, ints + 1),
            (ints, x[:, :, :2]), (x + 1j, x), (np.ones((0, 3)), np.ones((0, 3))), (2.0, 4.0)]


@pytest.mark.parametrize("k, name", _rotated(11))
def test_alike_twins_are_the_operators_on_one_shape(k, name):
    """The helpers for operands the code says have one shape: views, orders, numbers, int
    and complex dtypes, empty arrays (each case with one operator, as above)."""
    a, b = _alike_cases()[k]
    op = OPS[name][1]
    # as Python, NumPy's operator; compiled, Numba's
    for got, want in ((ALIKE[name](a, b), op(a, b)), (JIT_ALIKE[name](a, b),
                                                      NATIVE[name](a, b))):
        assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == \
            np.asarray(want).dtype, (a, b)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(OPS))
def test_alike_twins_refuse_two_shapes_that_would_broadcast(name):
    for a, b in [(np.ones((3, 4)), np.ones((1, 4))), (np.ones((3, 4)), np.ones((4, 3)))]:
        for helper in (ALIKE[name], JIT_ALIKE[name]):
            with pytest.raises(ValueError, match="one shape"):
                helper(a, b)


def test_add_to_alike_takes_a_number_and_refuses_a_broadcast():
    rng = np.random.default_rng(6)
    t, g = rng.uniform(size=(5, 6)), rng.uniform(size=(4, 3))
    for add in (lambda t, g: rt.add_to_alike(t[1:, ::2], g), _jit_add_to_alike):
        got = t.copy()
        add(got, 0.5)
        np.testing.assert_array_equal(got[1:, ::2], t[1:, ::2] + 0.5)
        with pytest.raises(ValueError, match="one shape"):
            add(t.copy(), g[:1])


def test_add_to_adds_summing_over_the_broadcast_axes():
    rng = np.random.default_rng(3)
    cases = [((3, 4), (3, 4)), ((3, 1), (3, 4)), ((4,), (3, 4)), ((3, 4), (4,)),
             ((1, 4), (3, 1)), ((2, 1, 4), (5, 2, 3, 4)), ((2, 3), ()), ((0, 2), (2,))]
    for t_shape, g_shape in cases:
        t, g = rng.uniform(size=t_shape), rng.uniform(size=g_shape)
        whole = np.broadcast_shapes(t_shape, g_shape)
        want = t + rt.unbroadcast(np.broadcast_to(g, whole), t)
        for add in (rt.add_to, _jit_add_to):
            got = t.copy()
            add(got, g if g_shape else float(g))
            np.testing.assert_allclose(got, want, rtol=1e-15, err_msg=f"{t_shape} {g_shape}")


@numba.njit
def _jit_summed_to(g, shape):
    return loops.summed_to(g, shape)


@settings(max_examples=90, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=4), st.integers(0, 2 ** 16),
       st.sampled_from(["broadcast", "strided", "contiguous"]))
def test_summed_to_is_numpys_sum_over_the_broadcast_axes(whole, seed, layout):
    """Each axis of the target kept, set to 1 or dropped from the front; `g` a broadcast
    view, a strided one or a new array, as `add_to` and `unbroadcast` pass it: compiled
    (`summed_to`) and as Python (`summed_over`, which sums leading or trailing axes of a
    new array as a product with ones)."""
    rng = np.random.default_rng(seed)
    whole = tuple(whole)
    lead = int(rng.integers(0, len(whole) + 1))
    shape = tuple(1 if rng.random() < 0.4 else n for n in whole[lead:])
    if layout == "strided":
        g = rng.uniform(-1, 1, tuple(2 * n for n in whole))[tuple(slice(None, None, 2)
                                                                for _ in whole)]
    elif layout == "contiguous":
        g = rng.uniform(-1, 1, whole)
    else:
        g = np.broadcast_to(rng.uniform(-1, 1, whole[:-1] + (1,)), whole) if whole[-1] \
            else np.ones(whole)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape)
                                      if n == 1 and whole[lead + i] != 1)
    want = g.sum(axis=axes, keepdims=True).reshape(shape) if axes else g
    for got in (_jit_summed_to(g, shape), loops.summed_over(g, shape)):
        assert got.shape == shape and got.dtype == g.dtype
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("helper", ["add_to", "add_to_alike"])
def test_add_to_writes_through_a_view(helper):
    rng = np.random.default_rng(4)
    t, g = rng.uniform(size=(5, 6)), rng.uniform(size=(4, 3))
    want = t.copy()
    want[1:, ::2] += g
    jitted = {"add_to": _jit_add_to_view, "add_to_alike": _jit_add_to_alike}[helper]
    for add in (lambda t, g: getattr(rt, helper)(t[1:, ::2], g), jitted):
        got = t.copy()
        add(got, g)
        np.testing.assert_array_equal(got, want)


def test_each_loop_has_a_name_of_its_own():
    """Numba names compiled code after the qualified name and a per-process counter: two
    different loops under one name, from two processes' disk caches, would clash."""
    names = {loops._each(f, lead, flat).__qualname__
             for f in (loops._times, loops._plus, loops._negative)
             for lead in (0, 1) for flat in (False, True)}
    assert len(names) == 12


@numba.njit
def _jit_masks(c, a, b):
    return rt.select(c, a, b), rt.strong(a, b)


def test_select_and_strong_are_numpys():
    """`rt.select` is np.where; `rt.strong(g, v)` is `v`, or 0 where `g` is 0 (a mask's
    zero cotangent stays zero through 0 * inf)."""
    rng = np.random.default_rng(6)
    x = rng.uniform(-1.0, 1.0, (3, 4))
    x[0, 0] = 0.0
    y = np.full(4, np.inf)
    for c, a, b in [(x > 0, x, y), (x[:, 1:] > 0, 0.0, x[:, :3]), (x > 0, x.T.T, 2.0),
                    (np.array([True, False, True, True]), x, x)]:
        got = _jit_masks(c, a, b)
        want = (np.where(c, a, b), np.where(np.asarray(a) == 0.0, 0.0, b))
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


def products(x, w):
    """Products, quotients, negation and slices of 2-d arrays, with a broadcast row."""
    y = x[1:, :] * w - x[:-1, :] / (w + 2.0)
    return np.sum(y * y) + np.sum(-x * x[:, :1])


def vector_products(x, w):
    return np.sum(x * w - x / w)


@pytest.mark.parametrize("jit", [False, True])
def test_reverse_sweeps_of_arrays_use_the_loops(jit):
    rng = np.random.default_rng(5)
    args = rng.uniform(0.5, 1.5, (4, 3)), rng.uniform(0.5, 1.5, 3)
    g = srcad.grad(products, wrt=(0, 1), jit=jit)
    for a, b in zip(g(*args), fd_grad(products, args, (0, 1))):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
    source = srcad.source(g, *args)
    rev = source[source.index("def products_rev"):]
    assert "rt.mul(" in rev and "rt.div(" in rev and "rt.neg(" in rev
    assert "rt.add_to(d_x[1:, :]" in rev and " += " not in rev


def test_reverse_sweeps_of_vectors_keep_the_operators():
    args = np.linspace(0.5, 1.5, 5), np.linspace(1.0, 2.0, 5)
    g = srcad.grad(vector_products, wrt=(0, 1), jit=False)
    for a, b in zip(g(*args), fd_grad(vector_products, args, (0, 1))):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
    rev = srcad.source(g, *args).split("def vector_products_rev", 1)[1]
    assert "rt.mul(" not in rev and " * " in rev


@numba.njit
def _jit_broadcast_shapes(a, b, c, d):
    return (rt.broadcast_shapes(a.shape, b.shape), rt.broadcast_shapes(a.shape, b.shape, c.shape),
            rt.broadcast_shapes(a.shape, b.shape, c.shape, d.shape),
            rt.broadcast_shapes(d.shape, c.shape, b.shape, a.shape, a.shape))


def test_broadcast_shapes_is_numpys():
    a, b, c, d = np.ones((3, 1, 4)), np.ones((2, 1)), np.ones(4), np.ones((5, 1, 1, 1))
    want = (np.broadcast_shapes(a.shape, b.shape), np.broadcast_shapes(a.shape, b.shape, c.shape),
            np.broadcast_shapes(a.shape, b.shape, c.shape, d.shape),
            np.broadcast_shapes(d.shape, c.shape, b.shape, a.shape, a.shape))
    assert _jit_broadcast_shapes(a, b, c, d) == want
    with pytest.raises(ValueError):
        _jit_broadcast_shapes(a, np.ones((3, 1)), np.ones(5), d)


def test_division_by_zero_gives_what_numpy_gives():
    """Compiled, an array divided by zeros is inf and nan as in NumPy, not
    ZeroDivisionError (Numba's error model for scalars)."""
    a = np.array([[1.0, -2.0], [0.0, 3.0]])
    b = np.array([[0.0, 0.0], [0.0, 2.0]])
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_array_equal(JIT["div"](a, b), a / b)

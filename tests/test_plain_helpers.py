"""The plain-Python runtime helpers that take shortcuts past NumPy's own calls (a reshape
for `np.expand_dims`, `np.add.reduce` for `np.mean`, flat indices for a max's adjoint)
against NumPy itself or a loop over the lines, on random shapes, axes, layouts, ties and
NaNs."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from srcad import runtime as rt

SHAPES = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


def _array(rng, shape, layout):
    """Small integers (ties are common) as floats, with some NaNs, in a given layout."""
    a = rng.integers(-2, 3, shape).astype(float)
    a[rng.random(shape) < 0.1] = np.nan
    if layout == "fortran":
        return np.asfortranarray(a)
    if layout == "strided":
        wide = np.zeros(tuple(2 * n for n in shape))
        view = wide[tuple(slice(None, None, 2) for _ in shape)]
        view[...] = a
        return view
    return a


@settings(max_examples=150, deadline=None)
@given(SHAPES, st.integers(-5, 5), st.integers(0, 2 ** 16))
def test_expand_dims_is_numpys_view(shape, axis, seed):
    a = np.random.default_rng(seed).uniform(size=shape)
    try:
        want = np.expand_dims(a, axis)
    except ValueError as e:  # NumPy's AxisError
        with pytest.raises(type(e)):
            rt.expand_dims(a, axis)
        return
    got = rt.expand_dims(a, axis)
    assert got.shape == want.shape and np.shares_memory(got, a) == np.shares_memory(want, a)
    np.testing.assert_array_equal(got, want)
    assert rt.keep_dims(a, a, axis).shape == want.shape


@settings(max_examples=150, deadline=None)
@given(SHAPES, st.sampled_from([None, 0, 1, -1]), st.integers(0, 2 ** 16),
       st.sampled_from(["f8", "f4", "i8"]))
def test_mean_is_numpys_to_the_bit(shape, axis, seed, dtype):
    x = np.random.default_rng(seed).uniform(-1e3, 1e3, shape).astype(dtype)
    if axis is not None and not -len(shape) <= axis < len(shape) or 0 in shape:
        return  # NumPy's own errors and warnings: rt.mean passes those cases to np.mean
    want = np.mean(x, axis=axis)
    got = rt.mean(x, axis)
    assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


def _first_extreme_reference(out, g, x, ans, axis):
    """`g` added at the first element of each line equal to its extreme, or the first NaN."""
    moved, target = np.moveaxis(x, axis, -1), np.moveaxis(out, axis, -1)
    g = np.broadcast_to(g, moved.shape[:-1])
    for line in np.ndindex(moved.shape[:-1]):
        want = np.asarray(ans)[line]
        for k, v in enumerate(moved[line]):
            if v == want or (v != v and want != want):
                target[line + (k,)] += g[line]
                break


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), st.integers(-3, 2),
       st.integers(0, 2 ** 16), st.sampled_from(["c", "fortran", "strided"]),
       st.sampled_from(["new", "view"]), st.sampled_from([np.max, np.min]))
def test_a_max_adjoint_goes_to_the_first_extreme_of_each_line(shape, axis, seed, layout,
                                                             out_kind, reduce):
    if not -len(shape) <= axis < len(shape):
        return
    rng = np.random.default_rng(seed)
    x = _array(rng, shape, layout)
    ans = reduce(x, axis=axis)
    g = rng.uniform(1, 2, np.shape(ans))
    start = rng.uniform(size=shape)
    want = start.copy()
    _first_extreme_reference(want, g, x, ans, axis)
    if out_kind == "view":  # an adjoint's slice: `d_x[1:]` seen as the whole
        whole = np.zeros((shape[0] + 1,) + shape[1:])
        whole[1:] = start
        rt.select_adjoint_add(whole[1:], g, x, ans, axis)
        got = whole[1:]
    else:
        got = start.copy()
        rt.select_adjoint_add(got, g, x, ans, axis)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(rt.select_adjoint(g, x, ans, axis) + start, want)


@pytest.mark.parametrize("g", [2.5, np.arange(3.0)[:, None], np.arange(12.0).reshape(3, 4)])
def test_filled_is_a_new_array_of_the_value(g):
    got = rt.filled(g, (3, 4))
    assert got.shape == (3, 4) and got.dtype == np.float64 and not np.shares_memory(got, g)
    np.testing.assert_array_equal(got, np.broadcast_to(g, (3, 4)))
    with pytest.raises(TypeError):
        rt.filled(np.ones(4) * 1j, (3, 4))


def test_alike_helpers_refuse_two_shapes_and_take_numbers():
    a, b = np.ones((2, 3)), np.ones(3)
    with pytest.raises(ValueError, match="one shape"):
        rt.mul_alike(a, b)
    np.testing.assert_array_equal(rt.div_alike(a, 2.0), a / 2.0)
    np.testing.assert_array_equal(rt.sub_alike(a, a), np.zeros((2, 3)))
    np.testing.assert_array_equal(rt.reshape_as(np.arange(6.0), a), np.arange(6.0).reshape(2, 3))
    assert rt.reshape_as(np.arange(3.0), 1.0) == 3.0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 70), min_size=1, max_size=3).map(tuple), st.integers(1, 18),
       st.integers(0, 2 ** 16), st.sampled_from(["c", "fortran", "strided"]))
def test_max_and_min_along_short_lines_are_numpys(lead, n, seed, layout):
    """Many short lines (rt.amax reduces them laid out as columns) or a few long ones."""
    rng = np.random.default_rng(seed)
    x = _array(rng, lead + (n,), layout) * rng.uniform(size=lead + (n,))
    for axis in (-1, len(lead), 0):
        for mine, numpys in ((rt.amax, np.max), (rt.amin, np.min)):
            want = numpys(x, axis=axis)
            got = mine(x, axis)
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want)

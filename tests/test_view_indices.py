"""The runtime's map from a view's indices to its array's (`rt.view_index`,
`rt.view_slice`), which a write through a view of a local array uses, against NumPy's
own views: every slice of axes of several lengths, every index and slice of it."""
import itertools

import numba
import numpy as np
import pytest

from srcad import runtime as rt

BOUNDS = [None, -7, -3, -1, 0, 1, 2, 5, 8]
STEPS = [None, 1, 2, 3, -1, -2]


@numba.njit
def _index_compiled(i, n, lo, hi, step):
    return rt.view_index(i, n, lo, hi, step)


@numba.njit
def _slice_compiled(n, lo, hi, step, a, b, c):
    return rt.view_slice(n, lo, hi, step, a, b, c)


def _views():
    for n in (0, 1, 5, 6):
        for lo, hi, step in itertools.product(BOUNDS, BOUNDS, STEPS):
            yield n, lo, hi, step


def test_an_index_into_a_view_is_the_same_element_of_its_array():
    for n, lo, hi, step in _views():
        U = np.arange(n)
        v = U[lo:hi:step]
        for i in range(-len(v) - 1, len(v) + 1):
            if -len(v) <= i < len(v):
                assert U[rt.view_index(i, n, lo, hi, step)] == v[i]
            else:
                with pytest.raises(IndexError):
                    rt.view_index(i, n, lo, hi, step)
        if len(v):
            idx = np.array([0, -1, len(v) // 2])
            assert np.array_equal(U[rt.view_index(idx, n, lo, hi, step)], v[idx])
            mask = np.arange(len(v)) % 2 == 0
            assert np.array_equal(U[rt.view_index(mask, n, lo, hi, step)], v[mask])


def test_a_slice_of_a_view_is_the_same_elements_of_its_array():
    for n, lo, hi, step in _views():
        U = np.arange(n)
        v = U[lo:hi:step]
        for a, b, c in itertools.product(BOUNDS[::2], BOUNDS[::2], STEPS[::2]):
            start, stop, by = rt.view_slice(n, lo, hi, step, a, b, c)
            assert np.array_equal(U[start:stop:by], v[a:b:c]), (n, lo, hi, step, a, b, c)


def test_compiled_maps_agree_with_python():
    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.choice([1, 5, 6]))
        lo, hi = (BOUNDS[k] for k in rng.integers(len(BOUNDS), size=2))
        step = STEPS[rng.integers(len(STEPS))]
        a, b = (BOUNDS[k] for k in rng.integers(len(BOUNDS), size=2))
        c = STEPS[rng.integers(len(STEPS))]
        assert _slice_compiled(n, lo, hi, step, a, b, c) == \
            rt.view_slice(n, lo, hi, step, a, b, c)
        length = len(range(n)[lo:hi:step])
        if length:
            i = int(rng.integers(-length, length))
            assert _index_compiled(i, n, lo, hi, step) == rt.view_index(i, n, lo, hi, step)
            idx = np.array([i, 0])
            assert np.array_equal(_index_compiled(idx, n, lo, hi, step),
                                  rt.view_index(idx, n, lo, hi, step))
    with pytest.raises(IndexError):
        _index_compiled(3, 6, 1, 3, None)

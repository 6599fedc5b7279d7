"""Functions with `numba.prange` loops (tests/test_prange.py)."""
import math

import numba
import numpy as np
from numba import prange

# W2 with prange, its energy and its forces (each iteration writing its own row)
from benchmarks.parallel import lennard_jones_forces_p as pair_forces  # noqa: F401
from benchmarks.parallel import lennard_jones_p as pair_energy  # noqa: F401


def weighted_sines(x, w):
    s = 0.0
    for i in prange(x.shape[0]):
        t = math.sin(x[i]) * w
        s += t * x[i]
    return s


def squares_into(x, out):
    total = 0.0
    for i in numba.prange(x.shape[0]):
        out[i] = x[i] * x[i]
        total += out[i]
    return total + np.sum(out * x)


def rows_scaled(m, c):
    out = np.empty_like(m)
    for i in prange(m.shape[0]):
        out[i, :] = m[i, :] * (c + i)
    return np.sum(np.tanh(out))


def smoothed_rows(m, out):
    """Each `i` writes its row of an argument, reading what the row held before."""
    k = m.shape[1]
    for i in prange(m.shape[0]):
        acc = 0.0
        for j in range(k):
            acc += math.sin(m[i, j]) * out[i]
        out[i] = acc + m[i, 0]
    return np.sum(out * out)


def tuple_loop_inside(x, a):
    """An inner loop over a tuple runs: its variable is the iteration's own after it."""
    acc = 0.0
    for i in prange(a.shape[0]):
        for v in (x, a[i], 2.0):
            v = 0.5 * math.atan(v + i)
        acc += math.sin(v) * a[i]
    return acc


def checked_sums(x, a):
    """A `raise` in the loop: its sweeps stay serial (Numba's parallel loops lose it)."""
    acc = 0.0
    for i in prange(a.shape[0]):
        if a[i] > 10.0:
            raise ValueError("too big")
        for j in range(3):
            acc += a[i] * x * j
    return acc


parallel_weighted_sines = numba.njit(parallel=True)(weighted_sines)


# refused: each is a data race in the parallel primal
def carried(x):
    s = 1.0
    for i in prange(x.shape[0]):
        s = s * 0.5 + x[i]
    return s


def shared_index(x):
    out = np.zeros(3)
    for i in prange(x.shape[0]):
        out[0] = x[i]
    return np.sum(out)


def neighbour(x):
    a = x.copy()
    for i in prange(1, x.shape[0]):
        a[i] = a[i - 1] + x[i]
    return np.sum(a)


def reads_its_sum(x):
    s = 0.0
    for i in prange(x.shape[0]):
        s += x[i] * s
    return s


def exits(x):
    s = 0.0
    for i in prange(x.shape[0]):
        if x[i] > 0.5:
            break
        s += x[i]
    return s

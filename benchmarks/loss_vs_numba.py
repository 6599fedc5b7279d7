"""The README's headline ratio: value and gradient of the tanh recurrence with a branch,
against the same function compiled by numba.njit, at n = 10**6, in one process.

    python benchmarks/loss_vs_numba.py [n]
"""
import math
import sys
import time

import numba
import numpy as np

import srcad


def loss(w, xs):
    h = 0.0
    for i in range(xs.shape[0]):
        h = math.tanh(w * h + xs[i])
        if h > 0.5:
            h = h * 0.9
    return h * h


def median_time(f, repeats=15):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main(n=10**6):
    xs = np.linspace(-1.0, 1.0, n)
    start = time.perf_counter()
    dloss = srcad.grad(loss, wrt=(0, 1))
    dloss(0.3, xs)
    first = time.perf_counter() - start
    primal = numba.njit(loss)
    primal(0.3, xs)
    p, g = [], []
    for _ in range(5):  # alternate, so both see the same machine state
        p.append(median_time(lambda: primal(0.3, xs)))
        g.append(median_time(lambda: dloss(0.3, xs)))
    p, g = float(np.median(p)), float(np.median(g))
    print(f"n = {n}: primal {p * 1e3:.2f} ms, srcad grad {g * 1e3:.2f} ms, "
          f"ratio {g / p:.2f}, first call {first:.2f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10**6)

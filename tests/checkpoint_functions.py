"""Functions with long loops, differentiated with and without `tape_limit`
(tests/test_checkpoint.py)."""
import math

import numpy as np

from benchmarks.checkpoint import heat  # noqa: F401  (a case of tests/test_checkpoint.py)


def lorenz(x, y, z, s, r, b):
    return s * (y - x), x * (r - z) - y, x * y - b * z


def rk4(x, y, z, s, r, b, nsteps):
    dt = 1e-3
    for k in range(nsteps):
        k1x, k1y, k1z = lorenz(x, y, z, s, r, b)
        k2x, k2y, k2z = lorenz(x + 0.5 * dt * k1x, y + 0.5 * dt * k1y, z + 0.5 * dt * k1z,
                               s, r, b)
        x, y, z = x + dt * k2x, y + dt * k2y, z + dt * k2z
    return x * x + y * y + z * z + s * r


def recurrence(w, x0, nsteps):
    """A carried vector, a weight matrix read in every iteration, an accumulator that
    starts as an int and a loop that counts down."""
    h = x0
    acc = 0
    for i in range(nsteps - 1, -1, -2):
        h = np.tanh(w @ h + 0.1 * i)
        acc = acc + np.sum(h) * math.cos(i)
    return acc + np.sum(w * w)


def simulate(p, nsteps):
    v = 0.0
    q = p[0]
    for k in range(nsteps):
        v = v - 0.01 * math.sin(q) * p[1]
        q = q + 0.01 * v
    return q


def with_helper(p, nsteps):
    return simulate(p, nsteps) + simulate(2.0 * p, nsteps // 2)


def early_exit(x, nsteps):
    s = x
    for k in range(nsteps):
        s = math.sin(s) + x
        if s > 10.0:
            break
    return s


def settle(x, t_end):
    """A `while` loop whose test reads a value it only passes through."""
    y = x
    t = 0.0
    while t < t_end:
        y = y + 0.01 * math.sin(y) * x
        t = t + 0.01
    return y


def heat_until(u, kappa, t_end):
    """The heat stencil as a `while` loop over time, writing slices of a copy."""
    t = 0.0
    u = u.copy()
    while t < t_end:
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + kappa * lap
        t += 1.0
    return np.sum(u * u)


def nested(w, x0, nout, nin):
    """A loop within a loop, both checkpointed."""
    h = x0
    acc = 0.0
    for t in range(nout):
        for i in range(nin):
            h = np.tanh(w @ h + 0.01 * i)
        acc = acc + np.sum(h) * math.cos(t)
    return acc


def halvings(x, n):
    """A `while` loop within a `for` loop, its trip count different each time."""
    s = 0.0
    for k in range(n):
        y = x * (k + 1)
        while y > 1.0:
            y = y * 0.5
        s = s + y * y
    return s

"""The six workloads of issue 4, written with plain loops as a user writes them.

Each is a module-level function of float64 arrays and floats returning a scalar, plus a
`Workload` record: its inputs at a given size (fixed seeds), which arguments the gradient
is taken with respect to, the sizes used for the table, the finite-difference check and
the smoke run, and the goal for the ratio (srcad value+grad time / numba.njit primal time).

This module imports only numpy and math, so a fresh process can load it before srcad.
"""
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

SEED = 20240607

# ---------------------------------------------------------------------------------------
# The functions


def tanh_rnn(w, x):
    """W1: a scalar recurrence; the loss sums h**2 over the loop."""
    h = 0.0
    loss = 0.0
    for i in range(x.shape[0]):
        h = math.tanh(w * h + x[i])
        loss += h * h
    return loss


def lennard_jones(pos):
    """W2: Lennard-Jones energy (epsilon = sigma = 1) over all pairs i < j."""
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            dz = pos[i, 2] - pos[j, 2]
            r2 = dx * dx + dy * dy + dz * dz
            s6 = 1.0 / (r2 * r2 * r2)
            e += 4.0 * (s6 * s6 - s6)
    return e


def mlp(W1, W2, X, T):
    """W3: a one-hidden-layer ReLU network with a squared loss."""
    H = X @ W1
    A = np.where(H > 0, H, 0.0)
    Y = A @ W2
    return np.sum((Y - T) ** 2)


def huber(pred, target, scale):
    """W4: the Huber loss with an if/else per element."""
    n = pred.shape[0]
    total = 0.0
    for i in range(n):
        r = (pred[i] - target[i]) / scale
        a = abs(r)
        if a <= 1.0:
            total += 0.5 * r * r
        else:
            total += a - 0.5
    return total * scale * scale / n


def box_products(p, box):
    """W5: out[i, j] from products over the d dimensions of a point and of a box."""
    n = p.shape[0]
    m = box.shape[1]
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            out[i, j] = (np.prod(box[:, j]) - np.prod(p[i, :])) / np.prod(box[:, j])
    return np.sum(out)


def lorenz(x, y, z, s, r, b):
    return s * (y - x), x * (r - z) - y, x * y - b * z


def rk4_lorenz(x, y, z, s, r, b, nsteps):
    """W6: classic RK4 on the Lorenz system; the loss is the final state's squared norm."""
    dt = 1e-5
    for k in range(nsteps):
        k1x, k1y, k1z = lorenz(x, y, z, s, r, b)
        k2x, k2y, k2z = lorenz(x + 0.5 * dt * k1x, y + 0.5 * dt * k1y, z + 0.5 * dt * k1z,
                               s, r, b)
        k3x, k3y, k3z = lorenz(x + 0.5 * dt * k2x, y + 0.5 * dt * k2y, z + 0.5 * dt * k2z,
                               s, r, b)
        k4x, k4y, k4z = lorenz(x + dt * k3x, y + dt * k3y, z + dt * k3z, s, r, b)
        x = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        y = y + dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
        z = z + dt / 6.0 * (k1z + 2.0 * k2z + 2.0 * k3z + k4z)
    return x * x + y * y + z * z


# ---------------------------------------------------------------------------------------
# Inputs: `make(size, rng)` gives the argument tuple; `units(size)` the work done, used
# to scale a peer's time measured at a smaller size.


def _tanh_rnn_args(n, rng):
    return 0.7, 0.5 * rng.standard_normal(n)


def _lattice_args(n, rng):
    side = math.ceil(round(n ** (1.0 / 3.0), 6))
    grid = np.array([[i, j, k] for i in range(side) for j in range(side) for k in range(side)])
    pos = 1.12 * grid[:n] + 0.05 * rng.standard_normal((n, 3))
    return (pos,)


def _mlp_args(dims, rng):
    n, d, h, o = dims
    return (rng.standard_normal((d, h)) / math.sqrt(d), rng.standard_normal((h, o)) / math.sqrt(h),
            rng.standard_normal((n, d)), rng.standard_normal((n, o)))


def _huber_args(n, rng):
    return rng.standard_normal(n), rng.standard_normal(n), 0.8


def _box_args(dims, rng):
    n, d, m = dims
    return 1.0 + 0.02 * rng.standard_normal((n, d)), 1.0 + 0.03 * rng.random((d, m))


def _lorenz_args(nsteps, rng):
    x, y, z = 1.0 + 0.1 * rng.standard_normal(3)
    return float(x), float(y), float(z), 10.0, 28.0, 8.0 / 3.0, nsteps


@dataclass(frozen=True)
class Workload:
    key: str
    title: str
    fn: Callable
    wrt: tuple
    make: Callable
    units: Callable
    full: object
    small: object  # for the finite-difference checks
    smoke: object
    peer_probe: object  # where slow (loop) peers are timed when the full size is too slow
    goal: float

    def args(self, size):
        return self.make(size, np.random.default_rng(SEED))


WORKLOADS = [
    Workload("W1", "tanh recurrence", tanh_rnn, (0, 1), _tanh_rnn_args, lambda n: n,
             full=10**6, small=8, smoke=1000, peer_probe=2000, goal=1.2),
    Workload("W2", "Lennard-Jones", lennard_jones, (0,), _lattice_args,
             lambda n: n * (n - 1) // 2, full=2744, small=8, smoke=27, peer_probe=27,
             goal=2.8),
    Workload("W3", "MLP", mlp, (0, 1), _mlp_args, lambda dims: dims[0] * dims[1] * dims[2],
             full=(2048, 512, 512, 10), small=(6, 5, 4, 3), smoke=(64, 32, 32, 10),
             peer_probe=(2048, 512, 512, 10), goal=1.3),
    Workload("W4", "Huber if/else", huber, (0, 2), _huber_args, lambda n: n,
             full=10**6, small=8, smoke=1000, peer_probe=2000, goal=1.2),
    Workload("W5", "box products", box_products, (0, 1), _box_args,
             lambda dims: dims[0] * dims[1] * dims[2], full=(300, 64, 300), small=(4, 5, 3),
             smoke=(10, 16, 10), peer_probe=(20, 64, 20), goal=3.0),
    Workload("W6", "RK4 Lorenz", rk4_lorenz, (0, 1, 2, 3, 4, 5), _lorenz_args, lambda n: n,
             full=500_000, small=50, smoke=500, peer_probe=500, goal=2.4),
]

BY_KEY = {w.key: w for w in WORKLOADS}
HELPERS = {"W6": (lorenz,)}

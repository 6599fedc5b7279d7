"""The vectorized workloads of `python -m benchmarks --vectorized`, written in NumPy as
people write them: whole-array arithmetic, broadcasting, reductions along an axis,
slices, matmul and `np.linalg`, with no loop over elements.

Each is a module-level function of float64 arrays (and a float) returning a scalar, plus a
`Workload` record: its inputs at a given size (fixed seeds), which arguments the gradient
is taken with respect to, and the sizes used for the table, the finite-difference check
and the smoke run.

This module imports only numpy, so a fresh process can load it before srcad.
"""
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

SEED = 20240607
EPS = 1e-9  # keeps the diagonal of V2's r2 (each particle with itself) off zero
STEPS = 100  # V3's time steps, as the peers' spellings need it too

# ---------------------------------------------------------------------------------------
# The functions


def softmax_xent(W, b, X, Y):
    """V1: softmax cross-entropy of a linear model, the mean over a batch of one-hot rows."""
    logits = X @ W + b
    logits = logits - np.max(logits, axis=1, keepdims=True)
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * logp, axis=1))


def pair_energy(pos):
    """V2: a pair energy over i < j, from all pairwise differences by broadcasting."""
    d = pos[:, None, :] - pos[None, :, :]
    r2 = np.sum(d * d, axis=-1) + EPS
    e = 1.0 / r2**3 - 1.0 / r2**6
    return np.sum(np.triu(e, 1))


def heat(u0, k):
    """V3: an explicit 2-d heat equation, 100 steps of a five-point stencil by slices."""
    u = u0.copy()
    for _ in range(STEPS):
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + k * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:]
                                             + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])
    return np.sum(u * u)


def gauss_loglik(A, r):
    """V4: a Gaussian log-likelihood (without its constant) of residuals r under the
    covariance A A^T + n I."""
    n = A.shape[0]
    K = A @ A.T + n * np.eye(n)
    sign, logdet = np.linalg.slogdet(K)
    return -0.5 * (r @ np.linalg.solve(K, r)) - 0.5 * logdet


# ---------------------------------------------------------------------------------------
# Inputs: `make(size, rng)` gives the argument tuple.


def _softmax_args(dims, rng):
    n, d, c = dims
    W = rng.standard_normal((d, c)) / math.sqrt(d)
    b = 0.1 * rng.standard_normal(c)
    X = rng.standard_normal((n, d))
    Y = np.eye(c)[rng.integers(0, c, n)]
    return W, b, X, Y


def _lattice_args(n, rng):
    """n particles near the sites of a cubic lattice of spacing 1.12 (no two close)."""
    side = math.ceil(round(n ** (1.0 / 3.0), 6))
    grid = np.array([[i, j, k] for i in range(side) for j in range(side) for k in range(side)])
    return (1.12 * grid[:n] + 0.05 * rng.standard_normal((n, 3)),)


def _heat_args(m, rng):
    return rng.random((m, m)), 0.2  # k < 0.25: the explicit scheme is stable


def _gauss_args(n, rng):
    return rng.standard_normal((n, n)) / math.sqrt(n), rng.standard_normal(n)


@dataclass(frozen=True)
class Workload:
    key: str
    title: str
    fn: Callable
    wrt: tuple
    make: Callable
    full: object
    small: object  # for the finite-difference checks, which visit every component
    smoke: object

    def args(self, size):
        return self.make(size, np.random.default_rng(SEED))


WORKLOADS = [
    Workload("V1", "softmax cross-entropy", softmax_xent, (0, 1), _softmax_args,
             full=(512, 64, 10), small=(6, 4, 3), smoke=(32, 8, 4)),
    Workload("V2", "pair energy", pair_energy, (0,), _lattice_args,
             full=200, small=8, smoke=27),
    Workload("V3", "heat stencil x100", heat, (0, 1), _heat_args,
             full=128, small=6, smoke=16),
    Workload("V4", "Gaussian log-lik", gauss_loglik, (0, 1), _gauss_args,
             full=64, small=5, smoke=8),
]

BY_KEY = {w.key: w for w in WORKLOADS}

"""Vectorized functions of 1-d to 4-d arrays, written as people write them, for
`python -m benchmarks.compile`: slices, broadcasting, reductions along an axis,
`np.where`, element writes of slices, a stencil, matmul, a cross product on 4-d arrays,
a softmax, pairwise distances, and a loop over time steps with slice updates.

Each `Case` gives its function, the shapes of its array arguments (small: compile time
does not depend on them, and the finite-difference check visits every component) and
the positions to differentiate.
"""
from dataclasses import dataclass

import numpy as np


def huber(r, delta):
    """1-d: np.where between two branches of a loss."""
    a = np.abs(r)
    return np.sum(np.where(a < delta, 0.5 * r * r, delta * (a - 0.5 * delta)))


def heat_steps(u0, k):
    """1-d: a loop over time steps, each updating a slice from shifted slices."""
    u = u0.copy()
    for _ in range(20):
        u[1:-1] = u[1:-1] + k * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return np.sum(u * u)


def softmax_xent(z, y):
    """2-d: a row softmax (the largest entry subtracted: Numba's np.max takes no axis),
    and cross-entropy."""
    e = np.exp(z - np.max(z))
    p = e / np.sum(e, axis=1)[:, None]
    return -np.sum(y * np.log(p))


def stencil(u):
    """2-d: a five-point Laplacian by slices."""
    lap = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * u[1:-1, 1:-1]
    return np.sum(lap * lap)


def finite_diffs(x):
    """2-d: element writes of slices into a new array."""
    out = np.zeros_like(x)
    out[:, 0] = x[:, 0]
    out[:, 1:] = x[:, 1:] - x[:, :-1]
    return np.sum(out * out)


def mlp(x, w1, w2):
    """2-d: two matmuls and a tanh."""
    h = np.tanh(x @ w1)
    out = h @ w2
    return np.sum(out * out)


def pairwise(x):
    """2-d: pairwise distances by broadcasting to 3-d, summed along the last axis."""
    diff = x[:, None, :] - x[None, :, :]
    d = np.sqrt(np.sum(diff * diff, axis=2) + 1e-9)
    return np.sum(np.exp(-d))


def layer_norm(x, g):
    """3-d: normalized along the last axis, with a broadcast 1-d gain (Numba's np.mean
    takes no axis)."""
    n = x.shape[2]
    mu = np.sum(x, axis=2) / n
    xc = x - mu[:, :, None]
    var = np.sum(xc * xc, axis=2) / n
    y = xc / np.sqrt(var[:, :, None] + 1e-5) * g
    return np.sum(y * y)


def smooth3(v):
    """3-d: neighbour averages along each axis by slices."""
    s = v[1:-1, 1:-1, 1:-1]
    a = (v[2:, 1:-1, 1:-1] + v[:-2, 1:-1, 1:-1]) * 0.5 - s
    b = (v[1:-1, 2:, 1:-1] + v[1:-1, :-2, 1:-1]) * 0.5 - s
    return np.sum(a * a) + np.sum(b * b)


def cross4(a, b):
    """4-d: a cross product along the first axis of (3, n, m, k) arrays."""
    c = np.empty_like(a)
    c[0] = a[1] * b[2] - a[2] * b[1]
    c[1] = a[2] * b[0] - a[0] * b[2]
    c[2] = a[0] * b[1] - a[1] * b[0]
    return np.sum(c * c)


def gated4(x, w):
    """4-d: a gate reduced along the first axis and broadcast back."""
    gate = 1.0 / (1.0 + np.exp(-np.sum(x * w, axis=0)))
    return np.sum(x * gate)


@dataclass(frozen=True)
class Case:
    fn: object
    shapes: tuple  # one shape per argument; () is a float
    wrt: tuple

    @property
    def name(self):
        return self.fn.__name__

    @property
    def ndim(self):
        return max(len(s) for s in self.shapes)

    def args(self, seed=0):
        rng = np.random.default_rng(seed)
        out = []
        for shape in self.shapes:
            out.append(float(rng.uniform(0.3, 0.6)) if shape == () else
                       rng.uniform(-1.0, 1.0, shape))
        if self.fn is softmax_xent:  # labels: one-hot rows
            out[1] = np.eye(self.shapes[1][1])[rng.integers(0, self.shapes[1][1],
                                                            self.shapes[1][0])]
        return tuple(out)


CASES = [
    Case(huber, ((12,), ()), (0,)),
    Case(heat_steps, ((10,), ()), (0, 1)),
    Case(softmax_xent, ((4, 5), (4, 5)), (0,)),
    Case(stencil, ((5, 6),), (0,)),
    Case(finite_diffs, ((4, 5),), (0,)),
    Case(mlp, ((4, 3), (3, 5), (5, 2)), (0, 1, 2)),
    Case(pairwise, ((5, 3),), (0,)),
    Case(layer_norm, ((2, 3, 4), (4,)), (0, 1)),
    Case(smooth3, ((4, 4, 5),), (0,)),
    Case(cross4, ((3, 2, 3, 2), (3, 2, 3, 2)), (0, 1)),
    Case(gated4, ((3, 2, 2, 3), (3, 2, 2, 3)), (0, 1)),
]
BY_NAME = {c.name: c for c in CASES}
QUICK = ("huber", "softmax_xent", "stencil")

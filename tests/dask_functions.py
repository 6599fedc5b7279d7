"""Functions the Dask tests (tests/test_dask.py) differentiate, in a module of their own:
the cluster's worker processes unpickle a gradient object by importing its function from
here, by name, as they would import a user's module on a real cluster."""
import math
import os
import time

import numpy as np


def loss(w, xs):
    """A recurrence: a float and an array argument, a float output."""
    h = 0.0
    for i in range(xs.shape[0]):
        h = math.tanh(w * h + xs[i])
    return h * h


def field(u, k):
    """An array output, for `srcad.jacobian`."""
    return np.sin(u) * k + u * u


def decay_cost(p, ts, ys):
    """Least squares of ys ≈ p[0] exp(-p[1] ts): the README's example."""
    s = 0.0
    for i in range(ts.shape[0]):
        s += (p[0] * math.exp(-p[1] * ts[i]) - ys[i]) ** 2
    return s


def chain_energy(x, k):
    """Differentiated only by the test of the shared cache, so that no worker has made
    its sweeps before."""
    e = 0.0
    for i in range(x.shape[0] - 1):
        stretch = x[i + 1] - x[i] - 1.0
        e += k * stretch * stretch + 0.1 * stretch ** 4
    return e


def first_call(g, *args):
    """`g(*args)`, run on a worker, and what it took there: the seconds, how many
    functions srcad transformed, and how many of the sweeps Numba compiled or loaded from
    its cache (the counts of the dispatchers' `stats`)."""
    from srcad.derivative import Derivative

    transformed = []
    transform = Derivative.transform

    def counted(self, *a, **k):
        transformed.append(self.name)
        return transform(self, *a, **k)

    Derivative.transform = counted
    try:
        start = time.perf_counter()
        result = g(*args)
        seconds = time.perf_counter() - start
    finally:
        Derivative.transform = transform
    compiled = g.last
    stats = [getattr(compiled.module, name).stats
             for name in (compiled.top.fwd_name, compiled.top.rev_name)]
    return {"result": result, "seconds": seconds, "transformed": len(transformed),
            "numba_compiled": sum(sum(s.cache_misses.values()) for s in stats),
            "numba_loaded": sum(sum(s.cache_hits.values()) for s in stats),
            "cache_dir": os.environ.get("SRCAD_CACHE_DIR"), "pid": os.getpid()}

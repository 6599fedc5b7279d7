"""Measuring tools: finite-difference checks, alternated timing, tape sizes."""
import math
import statistics
import time

import numpy as np

FD_STEP = 1e-6
RTOL = 1e-5


def _with(args, k, value):
    args = list(args)
    args[k] = value
    return args


def _value(fn, args):
    return float(fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args]))


def fd_gradients(fn, args, wrt):
    """Central finite differences of scalar `fn(*args)`, one entry per `wrt` position,
    each shaped like its argument (every component, so only for small inputs)."""
    grads = []
    for k in wrt:
        x = args[k]
        if isinstance(x, np.ndarray):
            g = np.zeros(x.shape)
            for idx in np.ndindex(x.shape):
                h = FD_STEP * max(1.0, abs(x[idx]))
                plus, minus = x.copy(), x.copy()
                plus[idx] += h
                minus[idx] -= h
                g[idx] = (_value(fn, _with(args, k, plus))
                          - _value(fn, _with(args, k, minus))) / (plus[idx] - minus[idx])
            grads.append(g)
        else:
            h = FD_STEP * max(1.0, abs(x))
            grads.append((_value(fn, _with(args, k, x + h))
                          - _value(fn, _with(args, k, x - h))) / (2 * h))
    return tuple(grads)


def compare(value, grads, want_value, want_grads):
    """'ok', or what is wrong: the value, or the largest gradient error."""
    if not math.isclose(value, want_value, rel_tol=1e-9, abs_tol=1e-12):
        return f"value {value!r} != {want_value!r}"
    if len(grads) != len(want_grads):
        return f"{len(grads)} gradients, expected {len(want_grads)}"
    for k, (got, want) in enumerate(zip(grads, want_grads)):
        got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
        if got.shape != want.shape:
            return f"gradient {k} has shape {got.shape}, expected {want.shape}"
        scale = max(1.0, float(np.max(np.abs(want))))
        err = float(np.max(np.abs(got - want))) / scale
        if not err <= RTOL:
            return f"gradient {k} is off by {err:.2e} (relative to its largest entry)"
    return "ok"


def once(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


class Timer:
    """Per-call times of `fn`, one sample per `sample()` call, each sample running
    `fn` often enough to last about 20 ms; a call slower than `slow` seconds gets only
    three samples."""

    def __init__(self, fn, slow=0.5):
        self.fn, self.samples = fn, []
        first = once(fn)  # warm-up
        self.number = max(1, int(0.02 / max(first, 1e-7)))
        self.max_samples = 3 if first > slow else None

    def sample(self):
        if self.max_samples is not None and len(self.samples) >= self.max_samples:
            return
        start = time.perf_counter()
        for _ in range(self.number):
            self.fn()
        self.samples.append((time.perf_counter() - start) / self.number)

    def median(self):
        return statistics.median(self.samples)


def alternate(timers, rounds):
    """Sample every timer once per round, in turn, so all see the same machine state."""
    for _ in range(rounds):
        for t in timers:
            t.sample()


def tape_bytes(tape):
    """Bytes of the arrays in a tape: tuples and typed Lists are followed."""
    if isinstance(tape, np.ndarray):
        return tape.nbytes
    if isinstance(tape, (tuple, list)) or type(tape).__name__ == "List":
        return sum(tape_bytes(item) for item in tape)
    return 0


SETTLE_S = 120.0  # how long the default (jit="auto") may run before it must have chosen


def settled(g, args):
    """Call the gradient `g` on `args` until jit="auto" has chosen how to run its module
    (at once for one with loops): "jit", "no-jit", or "undecided" after `SETTLE_S`."""
    start = time.perf_counter()
    while time.perf_counter() - start < SETTLE_S:
        g(*args)
        if g.last.tiers is None:
            return "jit" if g.last.jit else "no-jit"
    return "undecided"

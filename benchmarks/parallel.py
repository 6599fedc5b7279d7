"""Parallel loops: `python -m benchmarks.parallel [--smoke]`.

W2, W4 and W5 written with `numba.prange` over their outer loop, each iteration adding
into the loss (W2 over every j for each i, each pair counted twice; W5 summing its
products instead of storing them), and W2f: W2's forces, each iteration writing the row
of its own particle. For 1 and 2 threads (`NUMBA_NUM_THREADS`, a fresh
process each): the `numba.njit(parallel=True)` primal's seconds and srcad's value and
gradient (compiled; both sweeps run their stretches in parallel), medians of 5 runs after
a warm-up, and the gradient's speed-up from 1 to 2 threads.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from numba import prange


def lennard_jones_p(pos):
    """W2 with prange: each i adds its terms with every other j (each pair twice)."""
    n = pos.shape[0]
    e = 0.0
    for i in prange(n):
        for j in range(n):
            if j != i:
                dx = pos[i, 0] - pos[j, 0]
                dy = pos[i, 1] - pos[j, 1]
                dz = pos[i, 2] - pos[j, 2]
                r2 = dx * dx + dy * dy + dz * dz
                s6 = 1.0 / (r2 * r2 * r2)
                e += 2.0 * (s6 * s6 - s6)
    return e


def lennard_jones_forces_p(pos):
    """W2's forces with prange: each i adds up the force on its own particle, row i of
    `f` (each pair twice); the loss is their squared sum and the energy."""
    n = pos.shape[0]
    f = np.zeros((n, 3))
    e = 0.0
    for i in prange(n):
        for j in range(n):
            if j != i:
                dx = pos[i, 0] - pos[j, 0]
                dy = pos[i, 1] - pos[j, 1]
                dz = pos[i, 2] - pos[j, 2]
                r2 = dx * dx + dy * dy + dz * dz
                s6 = 1.0 / (r2 * r2 * r2)
                w = (12.0 * s6 * s6 - 6.0 * s6) / r2
                f[i, 0] += w * dx
                f[i, 1] += w * dy
                f[i, 2] += w * dz
                e += s6 * s6 - s6
    return 1e-6 * np.sum(f * f) + e


def huber_p(pred, target, scale):
    """W4 with prange."""
    n = pred.shape[0]
    total = 0.0
    for i in prange(n):
        r = (pred[i] - target[i]) / scale
        a = abs(r)
        if a <= 1.0:
            total += 0.5 * r * r
        else:
            total += a - 0.5
    return total * scale * scale / n


def box_products_p(p, box):
    """W5 with prange over the points, the products summed as they come."""
    n = p.shape[0]
    m = box.shape[1]
    total = 0.0
    for i in prange(n):
        for j in range(m):
            total += (np.prod(box[:, j]) - np.prod(p[i, :])) / np.prod(box[:, j])
    return total


def _cases(smoke):
    from benchmarks.workloads import BY_KEY
    sizes = {"W2": 216, "W4": 10 ** 4, "W5": (20, 16, 20)} if smoke else \
        {"W2": 2744, "W4": 10 ** 7, "W5": (600, 64, 300)}
    sizes["W2f"] = sizes["W2"]
    fns = {"W2": lennard_jones_p, "W2f": lennard_jones_forces_p, "W4": huber_p,
           "W5": box_products_p}
    out = {}
    for key, fn in fns.items():
        w = BY_KEY[key.rstrip("f")]
        out[key] = (fn, w.args(sizes[key]), w.wrt)
    return out


def _median_seconds(call, rounds=5):
    call()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def run_one(key, smoke):
    import numba

    import srcad
    fn, args, wrt = _cases(smoke)[key]
    primal = numba.njit(parallel=True)(fn)
    g = srcad.value_and_grad(fn, wrt=wrt)
    print(json.dumps({"threads": numba.get_num_threads(),
                      "primal": _median_seconds(lambda: primal(*args)),
                      "gradient": _median_seconds(lambda: g(*args))}))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.one:
        return run_one(opts.one, opts.smoke)
    cache = os.environ.get("SRCAD_CACHE_DIR") or tempfile.mkdtemp(prefix="srcad_par_")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'workload':>8} {'threads':>7} {'primal s':>9} {'gradient s':>11} "
          f"{'gradient ÷ primal':>18} {'speed-up':>9}")
    for key in _cases(opts.smoke):
        base = None
        for threads in (1, 2):
            env = dict(os.environ, NUMBA_NUM_THREADS=str(threads), SRCAD_CACHE_DIR=cache)
            cmd = [sys.executable, "-m", "benchmarks.parallel", "--one", key] + \
                (["--smoke"] if opts.smoke else [])
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if proc.returncode:
                print(f"{key:>8} {threads:>7} failed: {proc.stderr.strip().splitlines()[-1]}")
                continue
            got = json.loads(proc.stdout.strip().splitlines()[-1])
            base = base or got["gradient"]
            print(f"{key:>8} {got['threads']:>7} {got['primal']:>9.4f} {got['gradient']:>11.4f} "
                  f"{got['gradient'] / got['primal']:>18.2f} {base / got['gradient']:>9.2f}")


if __name__ == "__main__":
    main()


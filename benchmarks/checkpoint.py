"""Checkpointed loops: `python -m benchmarks.checkpoint [--quick] [--only W6|heat]`.

Two long loops, each differentiated without a limit and with `tape_limit` of 1, 16 and
256 MB: W6 (RK4 on the Lorenz system, 5·10⁷ steps, a state of three floats) and an
explicit heat-equation stencil over a 512×512 field, 2,000 steps (a state of 2 MB).
Every configuration runs in a fresh process, compiled on two iterations and then timed,
with how far its resident set grew during the timed call (Linux: the peak is reset after
the warm-up, so compiling does not count). The table gives that growth above the
primal's (`numba.njit` of the function on the same inputs), the gradient's seconds
and their ratio to the unlimited gradient's, and the schedule's runs of the loop body per
iteration (the taped run included; 1 without a limit) — the recompute factor that
binomial checkpointing predicts for that limit.

`--quick`: 10⁶ RK4 steps and 200 stencil steps over 256×256.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

MB = 2 ** 20
LIMITS = (None, 1 * MB, 16 * MB, 256 * MB)


def heat(u0, kappa, nsteps):
    """An explicit 2-d heat-equation step, iterated; the loss is the final field's energy."""
    u = u0.copy()
    for t in range(nsteps):
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + kappa * lap
    return np.sum(u * u)


def _cases(quick):
    from benchmarks.workloads import rk4_lorenz
    n = 10 ** 6 if quick else 5 * 10 ** 7
    side, steps = (256, 200) if quick else (512, 2000)
    u0 = np.random.default_rng(0).uniform(0.0, 1.0, (side, side))
    return {
        "W6": (rk4_lorenz, (1.0, 1.0, 1.0, 10.0, 28.0, 8.0 / 3, n), (0, 1, 2, 3, 4, 5), n,
               24, 24),
        # the stencil's iteration tapes one array of the field's size, `lap` (srcad.source)
        "heat": (heat, (u0, 0.2, steps), (0, 1), steps, u0.nbytes, u0.nbytes),
    }


def _status_mb(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def _timed(call):
    """(seconds, MB): one call, and how far the resident set grew above where it was
    before it (Linux: the peak is reset first, so compiling earlier does not count)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass
    before = _status_mb("VmRSS")
    start = time.perf_counter()
    call()
    seconds = time.perf_counter() - start
    return seconds, _status_mb("VmHWM") - before


def run_one(case, limit, quick):
    """In this process: one configuration; prints a JSON line."""
    fn, args, wrt = _cases(quick)[case][:3]
    # warmed up (compiled) on two iterations: a full warm-up would leave its freed tape
    # with malloc (whose mmap threshold grows to the largest block freed), and the timed
    # call's growth would not show
    short = args[:-1] + (2,)
    if limit == "primal":
        import types

        import numba

        from benchmarks.workloads import HELPERS
        helpers = {h.__name__: numba.njit(h) for h in HELPERS.get(case, ())}
        jitted = numba.njit(types.FunctionType(fn.__code__, dict(fn.__globals__, **helpers),
                                               fn.__name__))
        jitted(*short)
        seconds, grown = _timed(lambda: jitted(*args))
    else:
        import srcad
        g = srcad.grad(fn, wrt=wrt, tape_limit=None if limit == "none" else int(limit))
        g(*short)
        seconds, grown = _timed(lambda: g(*args))
    print(json.dumps({"seconds": seconds, "grown_mb": grown}))


def runs_per_iteration(trip, limit, state_bytes, iteration_bytes):
    """Runs of the loop body per iteration that the schedule makes for `limit` (the
    taped one included)."""
    from srcad import runtime as rt
    block, blocks, snaps = rt.checkpoint_plan(limit, state_bytes, iteration_bytes, trip)
    sched = rt.revolve_start(blocks, snaps)
    runs = 0
    while True:
        act, k0, k1 = rt.revolve_next(sched)
        if act == rt.DONE:
            break
        if act == rt.ADVANCE:
            runs += min(k1 * block, trip) - min(k0 * block, trip)
        elif act == rt.YOUTURN:
            runs += 2 * (min(k0 * block + block, trip) - k0 * block)
    return runs / trip


def _spawn(case, limit, quick, cache):
    env = dict(os.environ, SRCAD_CACHE_DIR=cache)
    env.pop("SRCAD_TAPE_LIMIT", None)
    cmd = [sys.executable, "-m", "benchmarks.checkpoint", "--one", case, str(limit)]
    if quick:
        cmd.append("--quick")
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"
    return json.loads(proc.stdout.strip().splitlines()[-1]), None


def _available():
    """Bytes of memory available to a new process (Linux), else a large number."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 2 ** 60


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", choices=("W6", "heat"))
    ap.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.one:
        return run_one(opts.one[0], opts.one[1], opts.quick)
    cache = os.environ.get("SRCAD_CACHE_DIR") or tempfile.mkdtemp(prefix="srcad_ckpt_")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for case, (fn, args, wrt, trip, state, per_iteration) in _cases(opts.quick).items():
        if opts.only and case != opts.only:
            continue
        print(f"\n{case}: {trip} iterations, state {state} bytes")
        primal, err = _spawn(case, "primal", opts.quick, cache)
        if primal is None:
            print(f"  primal failed: {err}")
            continue
        print(f"  primal (numba.njit): {primal['seconds']:.3f} s, memory during the call "
              f"{primal['grown_mb']:.0f} MB")
        print(f"  {'tape_limit':>10} {'memory above primal':>20} {'seconds':>9} "
              f"{'÷ unlimited':>12} {'runs/iteration':>15}")
        base = None
        for limit in LIMITS:
            name = "none" if limit is None else f"{limit // MB} MB"
            if limit is None and trip * per_iteration > 0.6 * _available():
                print(f"  {name:>10} skipped: its tape, about {trip * per_iteration / 2 ** 30:.0f}"
                      f" GB, does not fit in this machine's memory")
                continue
            runs = 1.0 if limit is None else runs_per_iteration(trip, limit, state,
                                                                per_iteration)
            if runs > 20:
                print(f"  {name:>10} skipped: {runs:.0f} runs of the loop body per iteration")
                continue
            got, err = _spawn(case, "none" if limit is None else limit, opts.quick, cache)
            if got is None:
                print(f"  {name:>10} failed: {err}")
                continue
            base = got["seconds"] if limit is None else base
            ratio = f"{got['seconds'] / base:.2f}" if base else "-"  # none skipped: "-"
            print(f"  {name:>10} {got['grown_mb'] - primal['grown_mb']:>17.0f} MB "
                  f"{got['seconds']:>9.3f} {ratio:>12} {runs:>15.2f}")


if __name__ == "__main__":
    main()

"""The benchmark table of issue 4: srcad against numba.njit, the hand-written adjoints
(`hand.py`) and the peers.

    python -m benchmarks [--smoke] [--only W1,W3] [--no-peers] [--rounds N] [--json PATH]
    python -m benchmarks --vectorized [the same options, workloads V1..V4]

For each workload: two fresh processes measure the start-up (the first with an empty
$SRCAD_CACHE_DIR, the second reusing it); then, in this process, every gradient (srcad's
and each installed peer's) is checked against central finite differences of the plain
Python function at a small size; then the numba.njit primal and every gradient are timed
at the full size, in alternation, and the medians are reported. A failed check shows as
FAIL in the table, with the reason below it, and is not timed; the exit status is 1 when
any srcad check failed. `--vectorized` runs the vectorized NumPy set instead
(`vectorized_run.py`).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import types
import warnings
from pathlib import Path

import numba
import numpy as np

import srcad
from benchmarks import measure, peers, vectorized_run, vectorized_workloads
from benchmarks.hand import HAND
from benchmarks.table import render
from benchmarks.workloads import HELPERS, WORKLOADS

SLOW_PEER_S = 3.0  # a loop peer slower than this at full size is timed at a smaller size
ROOT = Path(__file__).resolve().parent.parent


def parse(argv):
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    p.add_argument("--smoke", action="store_true", help="tiny sizes, for CI")
    p.add_argument("--only", help="comma-separated workload keys, e.g. W1,W3")
    p.add_argument("--no-peers", action="store_true", help="srcad and numba only")
    p.add_argument("--rounds", type=int, help="timing rounds (default 7, 3 with --smoke)")
    p.add_argument("--json", help="also write the results to this file")
    p.add_argument("--vectorized", action="store_true",
                   help="the vectorized NumPy workloads V1..V4 instead of the loops")
    opts = p.parse_args(argv)
    opts.size = "smoke" if opts.smoke else "full"
    opts.rounds = opts.rounds or (3 if opts.smoke else 7)
    catalog = vectorized_workloads.WORKLOADS if opts.vectorized else WORKLOADS
    keys = opts.only.split(",") if opts.only else [w.key for w in catalog]
    unknown = set(keys) - {w.key for w in catalog}
    if unknown:
        p.error(f"unknown workloads: {', '.join(sorted(unknown))}")
    opts.workloads = [w for w in catalog if w.key in keys]
    return opts


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def startup(w, size, cache):
    """First-call seconds (empty cache), warm-start seconds and peak RSS (filled cache);
    `w` None: the floor, a trivial cached numba.njit function (its own Numba cache)."""
    env = dict(os.environ, SRCAD_CACHE_DIR=cache)
    if w is None:
        env["NUMBA_CACHE_DIR"] = os.path.join(cache, "numba")
    results = []
    for _ in ("cold", "warm"):
        what = [w.key, size] if w is not None else ["floor"]
        proc = subprocess.run([sys.executable, "-m", "benchmarks.startup", *what],
                              cwd=ROOT, env=env, capture_output=True, text=True)
        if proc.returncode != 0 or "SrcadWarning" in proc.stderr:
            return None, proc.stderr.strip().splitlines()[-1:] or ["no output"]
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    cold, warm = results
    return {"first_s": cold["compile_seconds"], "warm_s": warm["seconds"],
            "rss_mb": warm["peak_rss_mb"]}, None


def njit_primal(w):
    """numba.njit of the workload function, its helper functions njit-ed too."""
    fn = w.fn
    env = dict(fn.__globals__, **{h.__name__: numba.njit(h) for h in HELPERS.get(w.key, ())})
    return numba.njit(types.FunctionType(fn.__code__, env, fn.__name__))


def check(run):
    """`run()`'s result, or the reason it failed: (result, None) or (None, reason)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = run()
        except Exception as exc:  # a failure to report, not to crash the table on
            return None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    fallbacks = [c for c in caught if c.category.__name__ == "SrcadWarning"]
    if fallbacks:
        return None, f"SrcadWarning: {str(fallbacks[0].message)[:200]}"
    return result, None


def checked(run, ref):
    result, error = check(run)
    return error or measure.compare(*result, *ref)


def peer_timer(peer, w, size, args, ref):
    """(timer, scale, probe size or None) for a peer, or (None, reason, None)."""
    small = w.args(w.small)
    status = checked(lambda: peer.prepare(w.key, small, w.wrt)(), ref)
    if status != "ok":
        return None, status, None
    try:
        target = getattr(w, size)
        if w.key in peer.loops and w.units(w.peer_probe) < w.units(target):
            probe = peer.prepare(w.key, w.args(w.peer_probe), w.wrt)
            measure.once(probe)
            scale = w.units(target) / w.units(w.peer_probe)
            if measure.once(probe) * scale > SLOW_PEER_S:
                return measure.Timer(probe), scale, w.peer_probe
        return measure.Timer(peer.prepare(w.key, args, w.wrt)), 1.0, None
    except Exception as exc:  # say so in the table, and go on with the others
        return None, f"at the timed size: {type(exc).__name__}: {exc}"[:200], None


def run_workload(w, opts, active_peers, cache):
    row = {"key": w.key, "title": w.title, "goal": w.goal, "notes": [], "peers": {}}
    if not opts.smoke:  # two more compilations' worth of time: too slow for CI
        log(f"{w.key} {w.title}: start-up processes")
        start, error = startup(w, opts.size, cache)
        row.update(start or {})
        if error:
            row["notes"].append(f"start-up process failed: {error[0]}")
    os.environ["SRCAD_CACHE_DIR"] = cache
    log(f"{w.key}: finite-difference checks")
    small = w.args(w.small)
    ref = (float(w.fn(*small)), measure.fd_gradients(w.fn, small, w.wrt))
    args = w.args(getattr(w, opts.size))
    primal = njit_primal(w)
    timers = [measure.Timer(lambda: primal(*args))]
    g = srcad.value_and_grad(w.fn, wrt=w.wrt)
    row["check"] = checked(lambda: _tuple_grads(g(*small)), ref)
    if row["check"] == "ok":
        row["check"] = full_size_check(g, primal, args)
    if row["check"] == "ok":
        row["auto"] = measure.settled(g, args)  # what the default runs, once it chose
        if row["auto"] == "no-jit":
            row["notes"].append("jit='auto' (the default, timed here) runs it as NumPy: no "
                                "loop computes scalars, and NumPy ran it faster than Numba")
        elif row["auto"] == "undecided":
            row["notes"].append("jit='auto' had not chosen a module after "
                                f"{measure.SETTLE_S:.0f} s of calls")
        row["tape_mb"] = measure.tape_bytes(g.last.forward(args)[1]) / 2**20
        timers.append(measure.Timer(lambda: g(*args)))
    hand = HAND[w.key]  # the hand-written adjoint: what "at the hand-written" measures
    row["hand_check"] = checked(lambda: _tuple_grads(hand(*small)), ref)
    hand_timer = measure.Timer(lambda: hand(*args)) if row["hand_check"] == "ok" else None
    timers += [hand_timer] if hand_timer else []
    pending = {}
    for peer in active_peers:
        log(f"{w.key}: {peer.name}")
        timer, scale, probe = peer_timer(peer, w, opts.size, args, ref)
        if timer is None:
            row["peers"][peer.name] = {"check": scale}
        else:
            pending[peer.name] = (timer, scale, probe)
            timers.append(timer)
    log(f"{w.key}: timing, {opts.rounds} rounds")
    measure.alternate(timers, opts.rounds)
    row["primal_ms"] = timers[0].median() * 1e3
    if row["check"] == "ok":
        row["srcad_ms"] = timers[1].median() * 1e3
    if hand_timer:
        row["hand_ms"] = hand_timer.median() * 1e3
    for name, (timer, scale, probe) in pending.items():
        row["peers"][name] = {"check": "ok", "ms": timer.median() * scale * 1e3,
                              "probe": probe}
    return row


def full_size_check(g, primal, args):
    """At the timed size: no error or fallback, numba's value, finite gradients."""
    result, error = check(lambda: _tuple_grads(g(*args)))
    if error:
        return error
    value, grads = result
    want = float(primal(*args))
    if not math.isclose(value, want, rel_tol=1e-8, abs_tol=1e-12):
        return f"value {value!r} at the timed size, numba.njit gives {want!r}"
    if not all(np.all(np.isfinite(x)) for x in grads):
        return "a gradient at the timed size is not finite"
    return "ok"


def _tuple_grads(result):
    value, grads = result
    return float(value), grads if isinstance(grads, tuple) else (grads,)


def main(argv=None):
    opts = parse(sys.argv[1:] if argv is None else argv)
    if opts.vectorized:
        return vectorized_run.main(opts)
    active = [] if opts.no_peers else [p for p in peers.ALL if p.available()]
    rows, floor = [], None
    with tempfile.TemporaryDirectory(prefix="srcad-bench-") as tmp:
        if not opts.smoke:
            floor = (startup(None, None, os.path.join(tmp, "floor"))[0] or {}).get("warm_s")
        for w in opts.workloads:
            rows.append(run_workload(w, opts, active, os.path.join(tmp, w.key)))
    print(render(rows, [p.name for p in active], opts, peers.NOTES, floor))
    if opts.json:
        Path(opts.json).write_text(json.dumps(rows, indent=1, default=str))
    return 0 if all(r["check"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

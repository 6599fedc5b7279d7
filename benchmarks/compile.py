"""Compile time and tape size of srcad's sweeps for vectorized array code:
`python -m benchmarks.compile [--quick] [--only cross4,pairwise] [--json out.json]`.

Each function of `benchmarks/vectorized.py` runs in a fresh process with an empty
SRCAD_CACHE_DIR, so what is timed is compilation, not loading from a cache:

- primal s: `numba.njit` of the function itself, its first call minus a second call;
- srcad s: `srcad.value_and_grad(f)`, its first call (transform, and Numba compiling the
  forward and the reverse sweep) minus a warm call; fwd s and rev s are Numba's own
  compile times of each sweep (its dispatcher's `compiler_lock` timer);
- ratio: srcad s / primal s;
- tape: the arrays and scalars the forward sweep saves for one call, and their bytes;
- check: the gradient against central finite differences at the same (small) inputs.

Both compilations run after each tool has compiled a small function once, so neither
pays its one-time start-up (Numba's, and srcad's own, which imports the transform; the
`start s` column prints srcad's, `python -m benchmarks.startup` measures both); srcad's
runtime helpers come from Numba's disk cache when an
earlier run filled it, as they do for a user. Nothing here asserts a timing.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import measure
from benchmarks.table import _sig
from benchmarks.vectorized import BY_NAME, CASES, QUICK

ROOT = Path(__file__).resolve().parent.parent


def _first_minus_warm(fn):
    start = time.perf_counter()
    fn()
    first = time.perf_counter() - start
    start = time.perf_counter()
    fn()
    return first - (time.perf_counter() - start)


def _numba_seconds(dispatcher):
    return sum(cres.metadata.get("timers", {}).get("compiler_lock", 0.0)
               for cres in dispatcher.overloads.values())


def tape_counts(tape):
    """(arrays, scalars, bytes of the arrays) on a tape: tuples and typed Lists are
    followed, a List's arrays counted one by one."""
    if isinstance(tape, np.ndarray):
        return 1, 0, tape.nbytes
    if isinstance(tape, (tuple, list)) or type(tape).__name__ == "List":
        parts = [tape_counts(item) for item in tape]
        return tuple(sum(p[i] for p in parts) for i in range(3)) if parts else (0, 0, 0)
    return 0, 1, 0


def _twice(x):
    return x * 2.0


def measure_one(name):
    """One function's row (a dict), measured in this process."""
    import numba

    import srcad
    case = BY_NAME[name]
    args = case.args()
    numba.njit(lambda x: x * 2.0)(np.ones(2))  # Numba's own start-up, paid by neither
    start = time.perf_counter()
    srcad.grad(_twice, jit=True)(1.0)  # and srcad's (importing the transform)
    row = {"name": name, "ndim": case.ndim, "start_s": time.perf_counter() - start}
    primal = numba.njit(case.fn)
    row["primal_s"] = _first_minus_warm(lambda: primal(*args))
    g = srcad.value_and_grad(case.fn, wrt=case.wrt, jit=True)
    row["srcad_s"] = _first_minus_warm(lambda: g(*args))
    c = g.last
    row["fwd_s"] = _numba_seconds(getattr(c.module, c.top.fwd_name))
    row["rev_s"] = _numba_seconds(getattr(c.module, c.top.rev_name))
    row["tape_arrays"], row["tape_scalars"], row["tape_bytes"] = \
        tape_counts(c.forward(args)[1])
    value, grads = g(*args)
    grads = grads if isinstance(grads, tuple) else (grads,)
    want = float(case.fn(*args)), measure.fd_gradients(case.fn, args, case.wrt)
    row["check"] = measure.compare(float(value), grads, *want)
    return row


def run_fresh(name, cache):
    """`measure_one(name)` in a fresh process whose SRCAD_CACHE_DIR is `cache`."""
    env = dict(os.environ, SRCAD_CACHE_DIR=cache)
    proc = subprocess.run([sys.executable, "-m", "benchmarks.compile", "--one", name],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        reason = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"name": name, "ndim": BY_NAME[name].ndim, "check": f"FAIL: {reason}"}
    return json.loads(lines[-1])


def render(rows):
    head = ["function", "ndim", "primal s", "srcad s", "fwd s", "rev s", "ratio",
            "start s", "tape arrays", "tape scalars", "tape kB", "check"]
    body = []
    for r in rows:
        ok = "srcad_s" in r
        ratio = r["srcad_s"] / r["primal_s"] if ok and r["primal_s"] > 0 else None
        body.append([r["name"], str(r["ndim"])] + [
            _sig(r.get(k)) for k in ("primal_s", "srcad_s", "fwd_s", "rev_s")] + [
            _sig(ratio), _sig(r.get("start_s")), str(r.get("tape_arrays", "-")),
            str(r.get("tape_scalars", "-")),
            _sig(r["tape_bytes"] / 1e3) if ok else "-",
            "ok" if r["check"] == "ok" else "FAIL"])
    widths = [max(len(c) for c in col) for col in zip(head, *body)]
    fmt = "| " + " | ".join(f"{{:{'<' if i == 0 else '>'}{w}}}" for i, w in
                            enumerate(widths)) + " |"
    out = [fmt.format(*head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [fmt.format(*line) for line in body]
    out.append("")
    out.append("primal s: numba.njit of the function, first call minus a second call; "
               "srcad s: value_and_grad, first call (transform and both sweeps compiled) "
               "minus a warm call, each function in a fresh process with an empty "
               "SRCAD_CACHE_DIR; fwd s / rev s: Numba's compile time of each sweep; "
               "ratio = srcad s / primal s; start s: srcad's one-time start-up in that "
               "process, before either was timed (not in srcad s); tape: what one forward "
               "sweep saves.")
    passed = sum(r["check"] == "ok" for r in rows)
    out.append(f"srcad gradient checks: {passed}/{len(rows)} passed.")
    out += [f"{r['name']}: {r['check']}" for r in rows if r["check"] != "ok"]
    return "\n".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.compile")
    p.add_argument("--quick", action="store_true", help="only " + ", ".join(QUICK))
    p.add_argument("--only", help="function names, comma separated")
    p.add_argument("--json", help="also write the rows to this file")
    p.add_argument("--one", help=argparse.SUPPRESS)  # the child process: one JSON row
    opts = p.parse_args(argv)
    if opts.one:
        print(json.dumps(measure_one(opts.one)))
        return
    names = opts.only.split(",") if opts.only else QUICK if opts.quick else \
        [c.name for c in CASES]
    rows = []
    with tempfile.TemporaryDirectory(prefix="srcad-compile-") as tmp:
        for name in names:
            print(f"{name}: compiling", file=sys.stderr, flush=True)
            rows.append(run_fresh(name, os.path.join(tmp, name)))
    print(render(rows))
    if opts.json:
        Path(opts.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

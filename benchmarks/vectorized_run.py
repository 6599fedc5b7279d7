"""`python -m benchmarks --vectorized`: srcad on vectorized NumPy against its peers.

For each workload of `vectorized_workloads.py`: two fresh processes (each with an empty
$SRCAD_CACHE_DIR) measure srcad's first call, compiled and not; then, in this process,
srcad's gradient in both modes is checked against central finite differences of the
NumPy function at a small size; at the timed size srcad's value is checked against the
NumPy function's, and the value and gradients of srcad without jit and of every peer
against srcad's compiled ones (to `AGREE` relative to each gradient's largest entry).
Then the NumPy primal and every value-and-gradient are timed in alternation, and the
medians are reported as ratios to the primal. A failed check shows as FAIL, with the
reason under the table, and is not timed; the exit status is 1 when a srcad check failed.

`python -m benchmarks.vectorized_run V1 full jit` is the fresh process: it prints one
JSON line with the seconds from building the gradient to its first result.
"""
import functools
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import srcad
from benchmarks import measure
from benchmarks import vectorized_peers as vp
from benchmarks.vectorized_workloads import BY_KEY

AGREE = 1e-8  # relative agreement with srcad's compiled gradient, at the timed size
MODES = {"jit": True, "no-jit": False, "auto": "auto"}
ROOT = Path(__file__).resolve().parent.parent


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def first_call(w, size, cache):
    """{mode: seconds to the first gradient in a fresh process with an empty cache}."""
    out, notes = {}, []
    for mode in MODES:
        env = dict(os.environ, SRCAD_CACHE_DIR=os.path.join(cache, mode))
        proc = subprocess.run([sys.executable, "-m", "benchmarks.vectorized_run", w.key,
                               size, mode], cwd=ROOT, env=env, capture_output=True, text=True)
        if proc.returncode != 0 or "SrcadWarning" in proc.stderr:
            last = proc.stderr.strip().splitlines()[-1:] or ["no output"]
            notes.append(f"{mode} first-call process failed: {last[0][:200]}")
        else:
            out[mode] = json.loads(proc.stdout.strip().splitlines()[-1])["seconds"]
    return out, notes


def attempt(run):
    """(result, None), or (None, why `run()` failed)."""
    try:
        return run(), None
    except Exception as exc:  # a failure to report, not to crash the table on
        return None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"


def srcad_run(w, mode, args):
    """A function of no arguments giving srcad's (value, gradients) in `mode`; building
    it transforms (or raises srcad's refusal)."""
    g = srcad.value_and_grad(w.fn, wrt=w.wrt, jit=MODES[mode], on_jit_error="raise")

    def run():
        value, grads = g(*args)
        return float(value), grads if isinstance(grads, tuple) else (grads,)
    run.g = g
    return run


def difference(result, ref):
    """The largest relative difference of `result` from `ref`: of the values, and of each
    gradient relative to its largest entry."""
    (value, grads), (want_value, want_grads) = result, ref
    worst = abs(value - want_value) / max(abs(want_value), 1e-300)
    for got, want in zip(grads, want_grads):
        got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
        if got.shape != want.shape:
            return math.inf
        scale = max(float(np.max(np.abs(want))), 1e-300)
        worst = max(worst, float(np.max(np.abs(got - want))) / scale)
    return worst


def agreement(run, ref):
    """('ok', largest relative difference from `ref`) or (reason, None)."""
    result, error = attempt(run)
    if error:
        return error, None
    diff = difference(result, ref)
    if not diff <= AGREE:
        return f"differs from srcad jit by {diff:.1e} (relative)", None
    return "ok", diff


def srcad_checks(w, small, args):
    """{mode: 'ok' or why not}, and srcad jit's (value, gradients) at the timed size
    (None when a check of it failed)."""
    ref = (float(w.fn(*small)), measure.fd_gradients(w.fn, small, w.wrt))
    status = {}
    for mode in MODES:
        result, error = attempt(lambda: srcad_run(w, mode, small)())
        status[mode] = error or measure.compare(*result, *ref)
    if status["jit"] != "ok":
        return status, None
    full, error = attempt(lambda: srcad_run(w, "jit", args)())
    want = float(w.fn(*args))
    if error or not math.isclose(full[0], want, rel_tol=AGREE):
        status["jit"] = error or f"value {full[0]!r} at the timed size, NumPy gives {want!r}"
        return status, None
    return status, full


def run_workload(w, opts, active, cache):
    row = {"key": w.key, "title": w.title, "notes": [], "ms": {}, "check": {},
           "diff": {}, "first_s": {}}
    if not opts.smoke:
        log(f"{w.key} {w.title}: first-call processes")
        row["first_s"], row["notes"] = first_call(w, opts.size, cache)
    os.environ["SRCAD_CACHE_DIR"] = os.path.join(cache, "jit")
    log(f"{w.key}: finite-difference checks")
    args = w.args(getattr(w, opts.size))
    row["check"], ref = srcad_checks(w, w.args(w.small), args)
    timers = {"primal": measure.Timer(lambda: w.fn(*args))}
    if ref is not None:
        timers["jit"] = measure.Timer(srcad_run(w, "jit", args))
        if row["check"]["auto"] == "ok" and not opts.smoke:
            auto = srcad_run(w, "auto", args)
            log(f"{w.key}: the default (jit='auto') until it chooses")
            row["auto"] = measure.settled(auto.g, args)
            timers["auto"] = measure.Timer(auto)
    others = {"no-jit": lambda: srcad_run(w, "no-jit", args)}
    others.update({p.name: functools.partial(p.prepare, w.key, args, w.wrt) for p in active})
    for name, prepare in others.items():
        if row["check"].get(name, "ok") != "ok":  # srcad no-jit failed at the small size
            continue
        if ref is None:
            row["check"][name] = "not compared: srcad jit failed its check"
            continue
        log(f"{w.key}: {name}")
        run, error = attempt(prepare)
        row["check"][name], row["diff"][name] = (error, None) if error else \
            agreement(run, ref)
        if row["check"][name] == "ok":
            timers[name] = measure.Timer(run)
    log(f"{w.key}: timing, {opts.rounds} rounds")
    measure.alternate(list(timers.values()), opts.rounds)
    row["ms"] = {name: t.median() * 1e3 for name, t in timers.items()}
    return row


# ---------------------------------------------------------------------------------------
# The table


def _sig(x):
    """Three significant digits, without an exponent."""
    if x is None:
        return "-"
    if x == 0:
        return "0"
    return f"{x:.{max(0, 2 - math.floor(math.log10(abs(x))))}f}"


def _ratio(ms, a, b):
    return ms[a] / ms[b] if a in ms and b in ms else None


def _faster(ms):
    """Which of jit=True and jit=False ran faster, and by how much."""
    if "jit" not in ms or "no-jit" not in ms:
        return "-"
    fast, slow = ("jit", "no-jit") if ms["jit"] <= ms["no-jit"] else ("no-jit", "jit")
    return f"{fast}, {ms[slow] / ms[fast]:.1f}x"


def _cell(row, name):
    if row["check"].get(name, "ok") != "ok":
        return "FAIL"
    return _sig(_ratio(row["ms"], name, "primal"))


def render(rows, peer_names, missing, opts):
    tools = ["jit", "no-jit", "auto"] + peer_names
    head = (["workload", "primal ms"] + [f"{t if t in peer_names else 'srcad ' + t} /primal"
                                         for t in tools]
            + [f"srcad jit /{p}" for p in ("autograd", "jax") if p in peer_names]
            + ["faster srcad mode", "auto keeps"] + [f"first call s {m}" for m in MODES])
    body, notes = [], []
    for r in rows:
        line = [f"{r['key']} {r['title']}", _sig(r["ms"]["primal"])]
        line += [_cell(r, t) for t in tools]
        line += [_sig(_ratio(r["ms"], "jit", p)) for p in ("autograd", "jax")
                 if p in peer_names]
        line += [_faster(r["ms"]), r.get("auto", "-")]
        line += [_sig(r["first_s"].get(m)) for m in MODES]
        body.append(line)
        notes += [f"{r['key']} {'srcad ' + t if t in MODES else t} FAIL: {c}"
                  for t, c in r["check"].items() if c != "ok"]
        notes += [f"{r['key']} {n}" for n in r["notes"]]
    widths = [max(len(str(c)) for c in col) for col in zip(head, *body)]
    fmt = "| " + " | ".join(f"{{:{'<' if i == 0 else '>'}{w}}}" for i, w in
                            enumerate(widths)) + " |"
    out = [fmt.format(*head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [fmt.format(*line) for line in body]
    out += [""] + _footnotes(rows, peer_names, missing, opts) + notes
    return "\n".join(out)


def _footnotes(rows, peer_names, missing, opts):
    out = [f"sizes: {opts.size}; times are medians of {opts.rounds} alternated rounds after "
           "warm-up. /primal = time of one value and gradient / time of the NumPy function "
           "itself (primal ms); srcad jit /peer = srcad jit=True's time / the peer's time.",
           "srcad auto: the default, jit='auto', timed after it chose (auto keeps: the mode "
           "it chose, having run plain, compiled, and timed both).",
           "faster srcad mode: jit (jit=True) or no-jit (jit=False), and by how much. "
           "first call s: from building the gradient to its first result in a fresh process "
           "with an empty SRCAD_CACHE_DIR (transform, and for jit the Numba compilation; "
           "auto runs loop-free code plain at first).",
           "Checked before timing: srcad's gradients (both modes) against central finite "
           "differences at a small size; at the timed size srcad's value against NumPy's, "
           f"and every other tool's value and gradients against srcad jit's, to {AGREE:g} "
           "relative (to each gradient's largest entry)."]
    if opts.smoke:
        out.append("--smoke does not measure first calls, nor the default once it chose.")
    if opts.no_peers:
        out.append("peers not run (--no-peers).")
    out += [f"{name}: not installed, skipped." for name in missing]
    for r in rows:
        if r["diff"]:
            out.append(f"{r['key']} agrees with srcad jit to: " + ", ".join(
                f"{name} {d:.0e}" for name, d in r["diff"].items() if d is not None))
    passed = sum(all(r["check"][m] == "ok" for m in MODES) for r in rows)
    out.append(f"srcad gradient checks: {passed}/{len(rows)} passed.")
    agreed = sum(all(c == "ok" for c in r["check"].values()) for r in rows)
    if peer_names:
        out.append(f"all tools agree with srcad: {agreed}/{len(rows)} workloads.")
    return out


def main(opts):
    """Run the vectorized set with the options `benchmarks.__main__.parse` gives."""
    peers = [] if opts.no_peers else [p for p in vp.ALL if p.available()]
    missing = [] if opts.no_peers else [p.name for p in vp.ALL if not p.available()]
    rows = []
    with tempfile.TemporaryDirectory(prefix="srcad-vbench-") as tmp:
        for w in opts.workloads:
            rows.append(run_workload(w, opts, peers, os.path.join(tmp, w.key)))
    print(render(rows, [p.name for p in peers], missing, opts))
    if opts.json:
        Path(opts.json).write_text(json.dumps(rows, indent=1, default=str))
    return 0 if all(r["check"][m] == "ok" for r in rows for m in MODES) else 1


def _fresh_process(key, size_name, mode):
    w = BY_KEY[key]
    args = w.args(getattr(w, size_name))
    start = time.perf_counter()
    srcad.value_and_grad(w.fn, wrt=w.wrt, jit=MODES[mode])(*args)
    print(json.dumps({"seconds": time.perf_counter() - start}))


if __name__ == "__main__":
    _fresh_process(*sys.argv[1:4])

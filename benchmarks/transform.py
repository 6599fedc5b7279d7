"""Transform time against the size of the code: `python -m benchmarks.transform [--quick]`.

Two families of generated functions, written to a temporary module file (srcad reads
their source) and imported:

- straight-line functions of N lines (100, 250, 500, 1000): numeric code as people write
  it, a mix of scalar and array arithmetic, `np.sin`/`np.exp`/`np.sum` and friends,
  subscripts, `if`/`else` on scalars, `+=`, and reads of names made long before;
- helper chains of depth D (5, 10, 20): `f0` calls `f1` calls ... `fD`, each doing a little
  arithmetic on its two arrays and passing them on.

For each it prints the lines of source transformed, the transform's seconds, milliseconds
per line, and the same seconds in CPU time of the process (steadier when other processes
share the machine). What is timed is `srcad.value_and_grad(f, jit=False)`, made and called
once, minus a second call: parsing, every pass, emitting the generated module and loading
it as plain Python (no Numba). Each function is timed in a fresh process (`--in-process`:
all in this one), after a small function has been transformed there once, so that it pays
neither srcad's imports nor what an earlier function left on the heap, with an empty
SRCAD_CACHE_DIR of its own, so that the cache on disk does not stand in for the
transform. The gradient is then checked against central finite differences at a
4-element input, so a broken transform cannot pass as a fast one. `--passes` adds the
passes that took longest on each function (from a second transform, not timed).
Nothing here asserts a timing.
"""
import argparse
import gc
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import measure
from benchmarks.table import _sig

LINES, QUICK_LINES = (100, 250, 500, 1000), (20, 40)
DEPTHS, QUICK_DEPTHS = (5, 10, 20), (2, 3)
SEED = 7
ROOT = Path(__file__).resolve().parent.parent


def _sample(rng, names, recent=8):
    """A name made not long ago, now and then one from anywhere before."""
    pool = names if rng.random() < 0.25 else names[-recent:]
    return rng.choice(pool)


def _statement(rng, arrays, scalars, k):
    """Lines assigning `a{k}` or `s{k}`: every value stays within [-1, 1], however long
    the function, when the names it reads do."""
    a, s = (lambda: _sample(rng, arrays)), (lambda: _sample(rng, scalars))
    array_lines = [
        lambda t: [f"{t} = 0.5 * ({a()} * {s()} + {a()})"],
        lambda t: [f"{t} = np.sin({a()} + {a()})"],
        lambda t: [f"{t} = np.tanh(2.0 * {a()} - {s()})"],
        lambda t: [f"{t} = np.exp(-{a()} * {a()}) * {s()}"],
        lambda t: [f"{t} = np.cos({a()}) * {a()}"],
        lambda t: [f"{t} = {a()}[::-1] * {s()}"],
    ]
    scalar_lines = [
        lambda t: [f"{t} = np.sum({a()} * {a()}) / n"],
        lambda t: [f"{t} = np.mean(np.sin({a()}))"],
        lambda t: [f"{t} = {s()} * {s()}"],
        lambda t: [f"{t} = 0.5 * ({s()} - {s()})"],
        lambda t: [f"{t} = {a()}[{rng.randrange(3)}] * {s()}"],
        lambda t: [f"{t} = np.sqrt({s()} * {s()} + 1.0) - 1.0"],
        lambda t: [f"{t} = 0.5 * {s()}", f"{t} += 0.5 * np.tanh({s()})"],
        lambda t: [f"if {s()} > {s()}:", f"    {t} = {s()} * {a()}[0]", "else:",
                   f"    {t} = 0.5 * np.cos({s()})"],
    ]
    if rng.random() < 0.5:
        name = f"a{k}"
        lines = rng.choice(array_lines)(name)
        arrays.append(name)
    else:
        name = f"s{k}"
        lines = rng.choice(scalar_lines)(name)
        scalars.append(name)
    return lines


def straight_line(name, n_lines, seed=SEED):
    """The source of `def name(x)`, a straight-line function of at least `n_lines` lines
    (the `def` and `return` lines included) that returns a scalar."""
    rng = random.Random(seed * 100003 + n_lines)
    body = ["n = x.shape[0]", "a0 = np.sin(x)", "s0 = np.mean(np.cos(x))"]
    arrays, scalars = ["a0"], ["s0"]
    k = 1
    while len(body) < n_lines - 2:
        body += _statement(rng, arrays, scalars, k)
        k += 1
    result = " + ".join([f"np.sum({v})" for v in arrays[-3:]] + scalars[-3:])
    return "\n".join([f"def {name}(x):"] + ["    " + line for line in body] +
                     [f"    return {result}", "", ""])


def helper_chain(name, depth):
    """The source of `name_0(x)`, which calls `name_1`, ... down to `name_{depth}`."""
    parts = [f"def {name}_0(x):", f"    return {name}_1(np.sin(x), x)", "", ""]
    for i in range(1, depth):
        parts += [f"def {name}_{i}(a, b):",
                  "    c = 0.5 * (a * b + np.cos(a))",
                  "    d = np.tanh(c - 0.1 * b)",
                  f"    return {name}_{i + 1}(d, c)", "", ""]
    parts += [f"def {name}_{depth}(a, b):", "    return np.sum(a * b) + np.mean(np.exp(-a))",
              "", ""]
    return "\n".join(parts)


def cases(quick=False):
    """(label, size in lines, entry function's name, source) of each function to time."""
    out = []
    for n in QUICK_LINES if quick else LINES:
        src = straight_line(f"straight_{n}", n)
        out.append((f"straight {n}", len(src.strip().splitlines()), f"straight_{n}", src))
    for depth in QUICK_DEPTHS if quick else DEPTHS:
        src = helper_chain(f"chain_{depth}", depth)
        out.append((f"chain depth {depth}", sum(1 for line in src.splitlines() if line),
                    f"chain_{depth}_0", src))  # its functions' lines, blank lines aside
    return out


def load_module(sources, folder):
    """The module made of `sources`, written to a file in `folder` (for inspect)."""
    path = Path(folder) / "srcad_transform_bench.py"
    path.write_text("import numpy as np\n\n\n" + "".join(sources))
    spec = importlib.util.spec_from_file_location("srcad_transform_bench", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # the transform looks helpers up in their module
    spec.loader.exec_module(module)
    return module


def transform_seconds(fn, x):
    """Seconds (elapsed, and this process's CPU) to make `value_and_grad(fn, jit=False)`
    and call it the first time, minus a second call; what the first call returned; and
    the gradient function."""
    import srcad

    start, cpu = time.perf_counter(), time.process_time()
    g = srcad.value_and_grad(fn, jit=False)
    result = g(x)
    first, first_cpu = time.perf_counter() - start, time.process_time() - cpu
    start, cpu = time.perf_counter(), time.process_time()
    g(x)
    return (first - (time.perf_counter() - start),
            first_cpu - (time.process_time() - cpu)), result, g


def slowest_passes(g, count=5):
    """`name seconds` of the passes that took longest on the function of `g` (transformed
    again); a pass that builds a helper's sweeps counts the helper's passes too."""
    totals = {}
    for name, seconds in g.last.transformed()[1].ctx.timings:
        totals[name] = totals.get(name, 0.0) + seconds
    top = sorted(totals.items(), key=lambda kv: -kv[1])[:count]
    return ", ".join(f"{name} {_sig(seconds)}" for name, seconds in top)


def measure_one(fn, x, cache, passes=False):
    """One function's row: transform seconds and the finite-difference check."""
    os.environ["SRCAD_CACHE_DIR"] = cache
    (seconds, cpu), (value, grad), g = transform_seconds(fn, x)
    want = float(fn(x)), measure.fd_gradients(fn, (x,), (0,))
    row = {"seconds": seconds, "cpu_seconds": cpu,
           "check": measure.compare(float(value), (grad,), *want)}
    if passes:
        row["passes"] = slowest_passes(g)
    return row


def run(table, passes=False, log=None):
    """The rows (dicts) of the cases in `table` (see `cases`), measured in this process,
    one after another, after a small function has been transformed once."""
    x = np.linspace(-0.7, 0.9, 4)
    rows = []
    saved = os.environ.get("SRCAD_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="srcad-transform-") as tmp:
        module = load_module([straight_line("warm_up", 12)] + [c[3] for c in table], tmp)
        try:
            measure_one(module.warm_up, x, os.path.join(tmp, "warm_up"))
            for label, lines, name, _ in table:
                if log:
                    log(f"{label}: transforming")
                gc.collect()  # what earlier cases left behind is not collected in this one
                row = measure_one(getattr(module, name), x, os.path.join(tmp, name), passes)
                rows.append({"label": label, "lines": lines, **row})
        finally:
            sys.modules.pop("srcad_transform_bench", None)
            if saved is None:
                os.environ.pop("SRCAD_CACHE_DIR", None)
            else:
                os.environ["SRCAD_CACHE_DIR"] = saved
    return rows


def run_fresh(case, passes=False):
    """The row of `case`, measured in a fresh process (`--one`), as a user's first
    gradient in a new session meets it."""
    args = [sys.executable, "-m", "benchmarks.transform", "--one", case[0]]
    proc = subprocess.run(args + (["--passes"] if passes else []), cwd=ROOT,
                          capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        reason = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"label": case[0], "lines": case[1], "seconds": None, "cpu_seconds": None,
                "check": f"FAIL: {reason}"}
    return json.loads(lines[-1])


def render(rows):
    head = ["function", "lines", "transform s", "ms per line", "CPU s", "check"]
    body = [[r["label"], str(r["lines"]), _sig(r["seconds"]),
             _sig(r["seconds"] and 1e3 * r["seconds"] / r["lines"]), _sig(r["cpu_seconds"]),
             "ok" if r["check"] == "ok" else "FAIL"] for r in rows]
    widths = [max(len(c) for c in col) for col in zip(head, *body)]
    fmt = "| " + " | ".join(f"{{:{'<' if i == 0 else '>'}{w}}}" for i, w in
                            enumerate(widths)) + " |"
    out = [fmt.format(*head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [fmt.format(*line) for line in body]
    out.append("")
    out.append("transform s: srcad.value_and_grad(f, jit=False), made and called once, minus "
               "a second call (parse, passes, emission, loading the module as plain Python), "
               "each function in a fresh process (unless --in-process) with an empty "
               "SRCAD_CACHE_DIR; CPU s: the same in the process's CPU time (steadier on a "
               "busy machine); lines: the source lines transformed (a chain's: all its "
               "functions').")
    passed = sum(r["check"] == "ok" for r in rows)
    out.append(f"gradient checks against finite differences: {passed}/{len(rows)} passed.")
    out += [f"{r['label']}: {r['check']}" for r in rows if r["check"] != "ok"]
    out += [f"{r['label']} slowest passes: {r['passes']}" for r in rows if "passes" in r]
    return "\n".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.transform",
                                description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="small sizes only, for the tests")
    p.add_argument("--passes", action="store_true",
                   help="also list each function's slowest passes")
    p.add_argument("--in-process", action="store_true",
                   help="every function in this process, one after another")
    p.add_argument("--one", help=argparse.SUPPRESS)  # the child process: one JSON row
    opts = p.parse_args(argv)
    table = cases(opts.quick)
    if opts.one:
        print(json.dumps(run([c for c in cases() + cases(True) if c[0] == opts.one][:1],
                             opts.passes)[0]))
        return 0
    rows = []
    for case in table:
        print(f"{case[0]}: transforming", file=sys.stderr, flush=True)
        rows += run([case], opts.passes) if opts.in_process else [run_fresh(case, opts.passes)]
    print(render(rows))
    return 0 if all(r["check"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

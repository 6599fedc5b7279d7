"""Random-program gradient fuzzer for srcad.

`generate(seed)` (in `srcad.fuzz.programs`) writes the source of a module holding
`f(x, y, a, m)` and helpers it calls, in the subset of Python srcad supports.

`check(seed)` imports that module from a file (srcad reads source with `inspect`) and
compares `srcad.grad(f, wrt=(0, 1, 2, 3))` with central finite differences, and forward
mode with reverse mode (<J t, 1> == <grad, t>).  An input where finite differences at two
step sizes disagree lies near a kink or branch flip and is replaced by another random input.

    python -m srcad.fuzz 1000 --seed 2000 --jit-every 20 --out /tmp/fuzz-failures
    python -m srcad.fuzz --minimize /tmp/fuzz-failures/wrong_seed2345.py

Outcomes: ok, skipped (every input tried was near a kink), REFUSED (SrcadError on a
program the generator believes supported), WRONG (a gradient mismatch), CRASH (any other
exception).  Each non-ok, non-skipped program is written to the output folder;
`--minimize` shrinks one of them (see `srcad.fuzz.shrink`).
"""

import argparse
import importlib.util
import math
import os
import sys
import tempfile
import traceback
from dataclasses import dataclass, field

import numpy as np

from srcad.fuzz.programs import generate

OK, SKIPPED, REFUSED, WRONG, CRASH = "ok", "skipped", "refused", "wrong", "crash"
OUTCOMES = (OK, SKIPPED, REFUSED, WRONG, CRASH)

REL_STEP = 1e-6      # finite-difference step, relative to max(1, |value|)
FD_RTOL = 1e-5       # gradient vs finite differences
KINK_RTOL = 1e-4     # finite differences at h and h/10 must agree this well
JVP_RTOL = 1e-8      # forward mode vs reverse mode
TRIES = 3            # random inputs tried before a program is "skipped"


# --------------------------------------------------------------------------- checker

@dataclass
class Result:
    seed: int
    outcome: str
    detail: str = ""
    source: str = ""
    jit: bool = False
    notes: list = field(default_factory=list)


def load(source, name, folder):
    """Write `source` to folder/name.py and import it as a module."""
    path = os.path.join(folder, name + ".py")
    with open(path, "w") as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _copies(args):
    return [np.array(v) if isinstance(v, np.ndarray) else v for v in args]


def _call(f, args):
    return float(f(*_copies(args)))     # f may write into its arrays: every call gets copies


def _partials(f, args, h_rel):
    """Central differences of f at args in every coordinate of every argument, flattened."""
    out = []
    for k, v in enumerate(args):
        for j in range(np.size(v)):
            p, m = _copies(args), _copies(args)
            if isinstance(v, np.ndarray):
                h = h_rel * max(1.0, abs(v.flat[j]))
                p[k].flat[j] += h
                m[k].flat[j] -= h
            else:
                h = h_rel * max(1.0, abs(v))
                p[k] += h
                m[k] -= h
            out.append((_call(f, p) - _call(f, m)) / (2 * h))
    return np.array(out)


def _flat(values):
    return np.concatenate([np.asarray(v, dtype=float).ravel() for v in values])


def _close(got, want, rtol, scale=0.0):
    return np.abs(got - want) <= rtol * (1.0 + np.abs(want) + scale)


def _inputs(rng, shapes):
    n, rows = shapes
    return (rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5, n),
            rng.uniform(-1.5, 1.5, (rows, n)))


def check_program(f, shapes, rng, jits):
    """Check f(x, y, a, m) on up to TRIES random inputs.  (outcome, detail)."""
    import srcad

    skipped = 0
    wrt = (0, 1, 2, 3)
    for _ in range(TRIES):
        args = _inputs(rng, shapes)
        value = _call(f, args)
        if not math.isfinite(value) or abs(value) > 1e6:
            skipped += 1
            continue
        fd = _partials(f, args, REL_STEP)
        fd_small = _partials(f, args, REL_STEP / 10)
        if not (np.all(np.isfinite(fd)) and np.all(_close(fd, fd_small, KINK_RTOL, abs(value)))):
            skipped += 1
            continue
        for jit in jits:
            g = srcad.grad(f, wrt=wrt, jit=jit, on_jit_error="raise")
            given = _copies(args)
            got = _flat(g(*given))
            if not all(np.array_equal(u, v) for u, v in zip(given, args)):
                return WRONG, f"jit={jit}: grad mutated an array argument"
            ok = _close(got, fd, FD_RTOL, 1e-3 * abs(value))
            if not np.all(ok):
                bad = np.flatnonzero(~ok)
                rows = "\n".join(f"  d/d{_coord(k, args)}: srcad {got[k]!r}  fd {fd[k]!r}"
                                 for k in bad)
                return WRONG, (f"jit={jit}: grad vs finite differences at\n"
                               f"  {_show(args)}\n{rows}")
            t = rng.standard_normal(got.size)
            tangents, at = [], 0
            for v in args:
                tangents.append(t[at:at + np.size(v)].reshape(np.shape(v)) if np.ndim(v)
                                else float(t[at]))
                at += np.size(v)
            out, tan = srcad.jvp(f, _copies(args), tangents, wrt=wrt, jit=jit,
                                 on_jit_error="raise")
            want = float(got @ t)
            if not _close(float(tan), want, JVP_RTOL, float(np.abs(got) @ np.abs(t))):
                return WRONG, (f"jit={jit}: jvp {float(tan)!r} != <grad, t> {want!r} at\n"
                               f"  {_show(args)}\n  t = {t.tolist()!r}")
            if not _close(float(out), value, 1e-12):
                return WRONG, f"jit={jit}: jvp value {float(out)!r} != f {value!r}"
        return OK, ""
    return SKIPPED, f"{skipped} inputs near a kink or out of range"


def _coord(k, args):
    names, at = "xyam", 0
    for name, v in zip(names, args):
        if k < at + np.size(v):
            j = k - at
            return name if np.ndim(v) == 0 else \
                f"{name}[{', '.join(map(str, np.unravel_index(j, np.shape(v))))}]"
        at += np.size(v)
    return str(k)


def _show(args):
    x, y, a, m = args
    return f"x = {x!r}, y = {y!r}, a = np.array({a.tolist()!r}), m = np.array({m.tolist()!r})"


def check_source(source, seed, shapes, jit=False, folder=None, name=None):
    """Check the program `source` (defining f(x, y, a, m)) with inputs drawn from `seed`."""
    import srcad

    jits = (False, True) if jit else (False,)
    own = folder is None
    folder = folder or tempfile.mkdtemp(prefix="srcad-fuzz-")
    name = name or f"srcad_fuzz_prog_{seed}"
    try:
        module = load(source, name, folder)
        rng = np.random.default_rng(seed)
        outcome, detail = check_program(module.f, shapes, rng, jits)
    except srcad.SrcadError as exc:
        outcome, detail = REFUSED, f"{type(exc).__name__}: {exc}"
    except Exception:  # noqa: BLE001  (the fuzzer classifies every failure)
        outcome, detail = CRASH, traceback.format_exc()
    finally:
        sys.modules.pop(name, None)
        if own:
            try:
                os.remove(os.path.join(folder, name + ".py"))
                os.rmdir(folder)
            except OSError:
                pass
    return Result(seed, outcome, detail, source, jit)


def check(seed, jit=False, folder=None):
    """Generate program `seed` and check it; jit=True also checks the Numba-compiled sweeps."""
    source, shapes = generate(seed)
    return check_source(source, seed, shapes, jit, folder)


def write_failure(result, out, tag=""):
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"{result.outcome}_seed{result.seed}{tag}.py")
    with open(path, "w") as fh:
        fh.write(result.source)
        fh.write(f"\n# {result.outcome.upper()} (jit={result.jit})\n")
        fh.write("".join("# " + line + "\n" for line in result.detail.splitlines()))
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m srcad.fuzz",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("n", type=int, nargs="?", default=100, help="number of programs")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--jit-every", type=int, default=5,
                        help="also check jit=True on every K-th program (0: never)")
    parser.add_argument("--out", default="fuzz-failures", help="folder for failing programs")
    parser.add_argument("--minimize", metavar="FILE_OR_SEED",
                        help="shrink one failing program (a file written to --out, or a seed) "
                             "and write it next to the others as *_min.py")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per program")
    opts = parser.parse_args(argv)

    import warnings
    warnings.simplefilter("ignore")
    if opts.minimize:
        from srcad.fuzz.shrink import minimize_main
        return minimize_main(opts.minimize, opts.out)
    counts = dict.fromkeys(OUTCOMES, 0)
    jitted = 0
    folder = tempfile.mkdtemp(prefix="srcad-fuzz-")
    for seed in range(opts.seed, opts.seed + opts.n):
        jit = opts.jit_every > 0 and (seed - opts.seed) % opts.jit_every == 0
        jitted += jit
        result = check(seed, jit=jit, folder=folder)
        counts[result.outcome] += 1
        if opts.verbose:
            print(f"seed {seed}: {result.outcome}", flush=True)
        elif (seed - opts.seed + 1) % 100 == 0:
            print(f"after seed {seed} (jit on {jitted}): "
                  + " ".join(f"{k}={v}" for k, v in counts.items()), flush=True)
        if result.outcome in (REFUSED, WRONG, CRASH):
            path = write_failure(result, opts.out)
            first = result.detail.strip().splitlines()[-1] if result.detail.strip() else ""
            print(f"seed {seed}: {result.outcome.upper()} -> {path}\n    {first[:200]}", flush=True)
    print(f"{opts.n} programs (jit on {jitted}, off {opts.n - jitted}): "
          + " ".join(f"{k}={v}" for k, v in counts.items()), flush=True)
    return 1 if counts[WRONG] or counts[CRASH] else 0


if __name__ == "__main__":
    sys.exit(main())

"""Random-program gradient fuzzer for srcad.

Two generators write the source of a module holding `f` and return it with the shapes of
f's arguments: `programs` (`srcad.fuzz.programs`: `f(x, y, a, m)` and helpers it calls, in
the shapes of code srcad supports) and `grammar` (`srcad.fuzz.grammar`: `f(x, y, z)` or
`f(x, y, z, a)` drawn from Python's expression grammar, with surprising literals,
operators and precedence).

`check(seed)` imports that module from a file (srcad reads source with `inspect`) and
compares `srcad.value_and_grad(f, wrt=<every argument>)` with central finite differences,
and forward mode with reverse mode (<J t, 1> == <grad, t>).  An input where finite
differences at two step sizes disagree lies near a kink or branch flip and is replaced by
another random input.  The primal must be kept exactly: the value `value_and_grad` and
`jvp` return equals `f(*args)` bit for bit with `jit=False`, and with `jit=True` equals
`numba.njit(f)(*args)` (the module's functions all compiled by Numba) or, where Numba
cannot compile f, `f(*args)` within a few ulps of the larger of the value and 1.0: the
inputs and intermediates are of order one, and Numba's library functions and sums (np.mean
adds in order, NumPy pairwise) round them differently, which a cancellation to a small
result magnifies.

    python -m srcad.fuzz 1000 --seed 2000 --jit-every 20 --out /tmp/fuzz-failures
    python -m srcad.fuzz 3000 --generator grammar --jit-every 10
    python -m srcad.fuzz --minimize /tmp/fuzz-failures/wrong_seed2345.py

Outcomes: ok, skipped (every input tried was near a kink), REFUSED (SrcadError on a
program the generator believes supported), WRONG (a gradient, jvp or primal mismatch),
CRASH (any other exception, `srcad.errors.InternalError` included).  Each non-ok,
non-skipped program is written to the output folder; `--minimize` shrinks one of them
(see `srcad.fuzz.shrink`).
"""

import argparse
import importlib.util
import math
import os
import re
import sys
import tempfile
import traceback
import types
from dataclasses import dataclass, field

import numpy as np

OK, SKIPPED, REFUSED, WRONG, CRASH = "ok", "skipped", "refused", "wrong", "crash"
OUTCOMES = (OK, SKIPPED, REFUSED, WRONG, CRASH)

REL_STEP = 1e-6      # finite-difference step, relative to max(1, |value|)
FD_RTOL = 1e-5       # gradient vs finite differences
KINK_RTOL = 1e-4     # finite differences at h and h/10 must agree this well
JVP_RTOL = 1e-8      # forward mode vs reverse mode
TRIES = 3            # random inputs tried before a program is "skipped"
ULPS = 4             # jit=True value vs f where Numba cannot compile f


# --------------------------------------------------------------------------- generators

def _generator(name):
    if name == "programs":
        from srcad.fuzz.programs import generate
    elif name == "grammar":
        from srcad.fuzz.grammar import generate
    else:
        raise ValueError(f"unknown generator {name!r}; choose from {GENERATORS}")
    return generate


GENERATORS = ("programs", "grammar")


def generate(seed, generator="programs", avoid=()):
    """(source, spec) of program `seed` from `generator`; `avoid` only for "grammar"."""
    if generator == "grammar":
        return _generator(generator)(seed, avoid=avoid)
    return _generator(generator)(seed)


def as_spec(shapes):
    """The argument spec ((name, shape), ...) for a generator's second result: a spec
    already, or the (n, rows) of a `programs` program, f(x, y, a, m)."""
    if len(shapes) == 2 and all(isinstance(v, int) for v in shapes):
        n, rows = shapes
        return (("x", ()), ("y", ()), ("a", (n,)), ("m", (rows, n)))
    return tuple((name, tuple(shape)) for name, shape in shapes)


_PROGRAMS_HEADER = re.compile(r"seed (-?\d+), a: \((\d+),\), m: \((\d+), (\d+)\)")
_GRAMMAR_HEADER = re.compile(r"grammar program, seed (-?\d+), args: (.*)$")
_ARG = re.compile(r"(\w+): \(([\d, ]*)\)")


def parse_header(line):
    """(generator, seed, spec) from the first line of a generated program."""
    match = _GRAMMAR_HEADER.search(line)
    if match:
        spec = tuple((name, tuple(int(v) for v in dims.replace(" ", "").split(",") if v))
                     for name, dims in _ARG.findall(match[2]))
        return "grammar", int(match[1]), spec
    match = _PROGRAMS_HEADER.search(line)
    if match is None:
        raise ValueError(f"not the header of a srcad.fuzz program: {line!r}")
    return "programs", int(match[1]), as_spec((int(match[2]), int(match[3])))


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


def same_bits(a, b):
    """Whether two floats are the same IEEE double, sign of zero included."""
    return np.float64(a).tobytes() == np.float64(b).tobytes()


def within_ulps(a, b, ulps=ULPS, floor=0.0):
    """Whether `a` and `b` differ by at most `ulps` units in the last place of the larger
    of them (and of `floor`)."""
    return same_bits(a, b) or abs(a - b) <= ulps * np.spacing(max(abs(a), abs(b), floor))


def _inputs(rng, spec):
    """Random inputs in [-1.5, 1.5] for every argument of `spec`, in order: Python floats
    (as srcad computes with them, and as f then does) and float arrays."""
    return tuple(float(rng.uniform(-1.5, 1.5)) if shape == () else rng.uniform(-1.5, 1.5, shape)
                 for _, shape in as_spec(spec))


def _primal(jit, got, value, reference, args, where, what):
    """None when `got` (srcad's value) keeps f's value, else what is wrong.  `reference`
    is Numba's f, or None where Numba cannot compile f."""
    if not jit:
        if same_bits(got, value):
            return None
        return (f"jit=False: primal {what} {got!r} != f {value!r} "
                f"(differs by {got - value!r}) at\n  {where}")
    if reference is not None:
        want = reference(args)
        if want is not None and same_bits(got, want):
            return None
        if want is not None and not within_ulps(want, value) and within_ulps(got, value):
            return None     # Numba's semantics differ from Python's; srcad kept Python's
        if want is not None:
            return (f"jit=True: primal {what} {got!r} != numba.njit(f) {want!r} "
                    f"(f {value!r}) at\n  {where}")
    if within_ulps(got, value, floor=1.0):
        return None
    return (f"jit=True: primal {what} {got!r} != f {value!r} beyond {ULPS} ulps (of 1.0 at "
            f"least) at\n  {where}")


def _tangents(t, args):
    tangents, at = [], 0
    for v in args:
        tangents.append(t[at:at + np.size(v)].reshape(np.shape(v)) if np.ndim(v)
                        else float(t[at]))
        at += np.size(v)
    return tangents


def _check_at(f, args, names, value, fd, rng, jit, reference):
    """(outcome, detail) of one input for one setting of jit."""
    import srcad

    wrt = tuple(range(len(args)))
    g = srcad.value_and_grad(f, wrt=wrt, jit=jit, on_jit_error="raise")
    given = _copies(args)
    out, grads = g(*given)
    got = _flat(grads)
    if not all(np.array_equal(u, v) for u, v in zip(given, args)):
        return WRONG, f"jit={jit}: grad mutated an array argument"
    where = _show(args, names)
    bad = _primal(jit, float(out), value, reference, args, where, "value")
    if bad:
        return WRONG, bad
    ok = _close(got, fd, FD_RTOL, 1e-3 * abs(value))
    if not np.all(ok):
        rows = "\n".join(f"  d/d{_coord(k, args, names)}: srcad {got[k]!r}  fd {fd[k]!r}"
                         for k in np.flatnonzero(~ok))
        return WRONG, f"jit={jit}: grad vs finite differences at\n  {where}\n{rows}"
    t = rng.standard_normal(got.size)
    out, tan = srcad.jvp(f, _copies(args), _tangents(t, args), wrt=wrt, jit=jit,
                         on_jit_error="raise")
    bad = _primal(jit, float(out), value, reference, args, where, "jvp value")
    if bad:
        return WRONG, bad
    want = float(got @ t)
    if not _close(float(tan), want, JVP_RTOL, float(np.abs(got) @ np.abs(t))):
        return WRONG, (f"jit={jit}: jvp {float(tan)!r} != <grad, t> {want!r} at\n"
                       f"  {where}\n  t = {t.tolist()!r}")
    return OK, ""


def check_program(f, spec, rng, jits, reference=None):
    """Check f on up to TRIES random inputs for the arguments of `spec` (a spec or the
    (n, rows) of a `programs` program).  `reference(args)` is Numba's value of f (None
    where it has none).  (outcome, detail)."""
    spec = as_spec(spec)
    names = [name for name, _ in spec]
    skipped = 0
    for _ in range(TRIES):
        args = _inputs(rng, spec)
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
            outcome, detail = _check_at(f, args, names, value, fd, rng, jit, reference)
            if outcome != OK:
                return outcome, detail
        return OK, ""
    return SKIPPED, f"{skipped} inputs near a kink or out of range"


def _coord(k, args, names):
    at = 0
    for name, v in zip(names, args):
        if k < at + np.size(v):
            j = k - at
            return name if np.ndim(v) == 0 else \
                f"{name}[{', '.join(map(str, np.unravel_index(j, np.shape(v))))}]"
        at += np.size(v)
    return str(k)


def _show(args, names):
    return ", ".join(f"{name} = np.array({v.tolist()!r})" if isinstance(v, np.ndarray)
                     else f"{name} = {v!r}" for name, v in zip(names, args))


def numba_reference(source, name, folder):
    """A function of args giving `numba.njit(f)(*args)`, every function of the module
    compiled by Numba; it gives None where Numba cannot compile or run f."""
    import numba

    try:
        module = load(source, name, folder)
    finally:
        sys.modules.pop(name, None)
    for key, value in list(vars(module).items()):
        if isinstance(value, types.FunctionType) and value.__module__ == name:
            setattr(module, key, numba.njit(value))
    state = {"broken": False}

    def reference(args):
        if state["broken"]:
            return None
        try:
            return _call(module.f, args)
        except Exception:  # noqa: BLE001  (Numba could not type or run f)
            state["broken"] = True
            return None

    return reference


def check_source(source, seed, shapes, jit=False, folder=None, name=None):
    """Check the program `source` (defining f with the arguments of `shapes`, a spec or
    the (n, rows) of a `programs` program) with inputs drawn from `seed`."""
    import srcad

    jits = (False, True) if jit else (False,)
    own = folder is None
    folder = folder or tempfile.mkdtemp(prefix="srcad-fuzz-")
    name = name or f"srcad_fuzz_prog_{seed}"
    try:
        module = load(source, name, folder)
        reference = numba_reference(source, name + "_njit", folder) if jit else None
        rng = np.random.default_rng(seed)
        outcome, detail = check_program(module.f, shapes, rng, jits, reference)
    except srcad.errors.InternalError:  # a SrcadError, but a bug in srcad
        outcome, detail = CRASH, traceback.format_exc()
    except srcad.SrcadError as exc:
        outcome, detail = REFUSED, f"{type(exc).__name__}: {exc}"
    except Exception:  # noqa: BLE001  (the fuzzer classifies every failure)
        outcome, detail = CRASH, traceback.format_exc()
    finally:
        sys.modules.pop(name, None)
        if own:
            for leftover in (name, name + "_njit"):
                try:
                    os.remove(os.path.join(folder, leftover + ".py"))
                except OSError:
                    pass
            try:
                os.rmdir(folder)
            except OSError:
                pass
    return Result(seed, outcome, detail, source, jit)


def check(seed, jit=False, folder=None, generator="programs", avoid=()):
    """Generate program `seed` and check it; jit=True also checks the Numba-compiled sweeps."""
    source, shapes = generate(seed, generator, avoid)
    return check_source(source, seed, shapes, jit, folder)


def write_failure(result, out, tag=""):
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"{result.outcome}_seed{result.seed}{tag}.py")
    with open(path, "w") as fh:
        fh.write(result.source)
        fh.write(f"\n# {result.outcome.upper()} (jit={result.jit})\n")
        fh.write("".join("# " + line + "\n" for line in result.detail.splitlines()))
    return path


def _summary(result):
    """One line about a failure: a crash's exception, else the first line of the detail."""
    lines = result.detail.strip().splitlines() or [""]
    return lines[-1] if result.outcome == CRASH else lines[0]


def _parser():
    parser = argparse.ArgumentParser(prog="python -m srcad.fuzz",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("n", type=int, nargs="?", default=100, help="number of programs")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--generator", choices=GENERATORS, default="programs",
                        help="programs: shapes of supported code; grammar: Python's "
                             "expression grammar (default: programs)")
    parser.add_argument("--avoid", default="",
                        help="grammar only: comma-separated constructs to leave out while a "
                             "known bug in them is fixed (neg-base, sum-list)")
    parser.add_argument("--jit-every", type=int, default=5,
                        help="also check jit=True on every K-th program (0: never)")
    parser.add_argument("--check-passes", action="store_true",
                        help="parse back the tree after every pass (SRCAD_CHECK_PASSES=1)")
    parser.add_argument("--out", default="fuzz-failures", help="folder for failing programs")
    parser.add_argument("--minimize", metavar="FILE_OR_SEED",
                        help="shrink one failing program (a file written to --out, or a seed "
                             "of --generator) and write it next to the others as *_min.py")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per program")
    return parser


def main(argv=None):
    opts = _parser().parse_args(argv)
    avoid = tuple(a for a in opts.avoid.split(",") if a)
    if opts.check_passes:
        os.environ["SRCAD_CHECK_PASSES"] = "1"
    import warnings
    warnings.simplefilter("ignore")
    if opts.minimize:
        from srcad.fuzz.shrink import minimize_main
        return minimize_main(opts.minimize, opts.out, opts.generator, avoid)
    counts = dict.fromkeys(OUTCOMES, 0)
    jitted = 0
    folder = tempfile.mkdtemp(prefix="srcad-fuzz-")
    for seed in range(opts.seed, opts.seed + opts.n):
        jit = opts.jit_every > 0 and (seed - opts.seed) % opts.jit_every == 0
        jitted += jit
        result = check(seed, jit=jit, folder=folder, generator=opts.generator, avoid=avoid)
        counts[result.outcome] += 1
        if opts.verbose:
            print(f"seed {seed}: {result.outcome}", flush=True)
        elif (seed - opts.seed + 1) % 100 == 0:
            print(f"after seed {seed} (jit on {jitted}): "
                  + " ".join(f"{k}={v}" for k, v in counts.items()), flush=True)
        if result.outcome in (REFUSED, WRONG, CRASH):
            path = write_failure(result, opts.out)
            first = _summary(result)
            print(f"seed {seed}: {result.outcome.upper()} -> {path}\n    {first[:200]}", flush=True)
    print(f"{opts.n} programs (jit on {jitted}, off {opts.n - jitted}): "
          + " ".join(f"{k}={v}" for k, v in counts.items()), flush=True)
    return 1 if counts[WRONG] or counts[CRASH] else 0


if __name__ == "__main__":
    sys.exit(main())

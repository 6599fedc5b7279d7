"""Random-program gradient fuzzer for srcad.

Two generators write the source of a module holding `f` and return it with the shapes of
f's arguments: `programs` (`srcad.fuzz.programs`: `f(x, y, a, m)` and helpers it calls, in
the shapes of code srcad supports) and `grammar` (`srcad.fuzz.grammar`: `f(x, y, z)`,
`f(x, y, z, a)`, `f(x, y, z, m)` or `f(x, y, z, a, m)` drawn from Python's grammar, with
surprising literals, operators and precedence, and the indexing, masks, extremes, checks
and buffer swaps srcad learned late).

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
    python -m srcad.fuzz 1000 --generator grammar --in-place --out /tmp/fuzz-failures
    python -m srcad.fuzz --minimize /tmp/fuzz-failures/wrong_seed2345.py

An input where a `raise` or `assert` of f fires is checked for srcad raising the same
exception with f's message (`srcad.fuzz.kernels`); any other exception from f is a bug of
the generator and the program's outcome is CRASH.  In-place kernels (`--in-place`, from
the grammar generator: they write their result into argument `a` and return nothing)
are checked through `srcad.vjp(f, ..., out=a)` and `srcad.jvp(..., out=a)` against a's
final contents and the finite differences of their sum times a random cotangent.

Programs with `numba.prange` loops (`from numba import prange`, which is `range` in plain
Python) are checked the same way, their primal within rounding of f's (srcad and Numba
may add up a parallel loop's sums in another order), and Numba's reference compiles them
with `parallel=True`.  A program whose header says `; carried: i7` has a prange loop over
`i7` that carries a dependence between iterations (a data race in parallel): srcad must
refuse it with a SrcadError naming that loop's line, which is its "ok"; a gradient of it
is WRONG, and a refusal of anything else is REFUSED.

Outcomes: ok, skipped (every input tried was near a kink, or was a point where a rule's
derivative divides by zero, which srcad raises as ZeroDivisionError at the line),
REFUSED (SrcadError on a program the generator believes supported, a dependence-free
prange loop included), WRONG (a gradient, jvp or primal mismatch, an exception unlike
f's, or a carried dependence not refused), CRASH (any other exception,
`srcad.errors.InternalError` included).  Each non-ok, non-skipped program is written to
the output folder; `--minimize` shrinks one of
them (see `srcad.fuzz.shrink`).
"""

import argparse
import importlib.util
import os
import re
import sys
import tempfile
import traceback
import types
from dataclasses import dataclass, field

import numpy as np

from srcad.fuzz import kernels
from srcad.fuzz.compare import (
    JVP_RTOL,
    KINK_RTOL,
    REL_STEP,
    close,
    copies,
    flat,
    mismatched_gradient,
    partials,
    primal_mismatch,
    show,
    split,
    sums_reassociated,
    sums_summed_in_numpy,
    value_of,
)

OK, SKIPPED, REFUSED, WRONG, CRASH = "ok", "skipped", "refused", "wrong", "crash"
OUTCOMES = (OK, SKIPPED, REFUSED, WRONG, CRASH)

TRIES = 3            # random inputs tried before a program is "skipped"


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


def generate(seed, generator="programs", avoid=(), in_place=False, families=()):
    """(source, spec) of program `seed` from `generator`; `avoid`, `in_place` (an
    in-place kernel, whose header names the argument it writes) and `families` (opt-in
    families of constructs, such as "complex") only for "grammar"."""
    if generator == "grammar":
        if families:
            return _generator(generator)(seed, avoid=avoid, in_place=in_place,
                                         families=families)
        return _generator(generator)(seed, avoid=avoid, in_place=in_place)
    if in_place or families:
        raise ValueError("in-place programs and families come from the grammar generator "
                         "only")
    return _generator(generator)(seed)


def as_spec(shapes):
    """The argument spec ((name, shape), ...) for a generator's second result: a spec
    already, or the (n, rows) of a `programs` program, f(x, y, a, m).  A complex
    argument's entry is (name, shape, "complex")."""
    if len(shapes) == 2 and all(isinstance(v, int) for v in shapes):
        n, rows = shapes
        return (("x", ()), ("y", ()), ("a", (n,)), ("m", (rows, n)))
    return tuple((name, tuple(shape), *kind) for name, shape, *kind in shapes)


def arg_names(spec):
    """The names of the arguments of `spec`, in order."""
    return [entry[0] for entry in as_spec(spec)]


_PROGRAMS_HEADER = re.compile(r"seed (-?\d+), a: \((\d+),\), m: \((\d+), (\d+)\)")
_GRAMMAR_HEADER = re.compile(r"grammar program, seed (-?\d+), args: (.*)$")
_ARG = re.compile(r"(\w+): (complex )?\(([\d, ]*)\)")


def parse_header(line):
    """(generator, seed, spec) from the first line of a generated program."""
    match = _GRAMMAR_HEADER.search(line)
    if match:
        spec = tuple((name, tuple(int(v) for v in dims.replace(" ", "").split(",") if v))
                     + (("complex",) if kind else ())
                     for name, kind, dims in _ARG.findall(match[2]))
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


_OUT = re.compile(r"; out: (\w+)\s*$")
_CARRIED = re.compile(r"; carried: (\w+)")
_PRANGE = re.compile(r"\bprange\(")


def parse_out(line):
    """The position of the argument an in-place program writes its result into, from its
    header line; None for a program that returns its result."""
    match = _OUT.search(line)
    if match is None:
        return None
    names = arg_names(parse_header(line)[2])
    return names.index(match[1])


def parse_carried(line):
    """The variable of the prange loop that carries a dependence between iterations, from
    a program's header line; None when it has none."""
    match = _CARRIED.search(line)
    return match[1] if match else None


# NumPy functions and methods that add many terms (pairwise in NumPy, in order when Numba
# compiles them), and the matrix product `a @ b`; not Python's own `sum`, which adds in
# order either way, nor a decorator
_SUMS = re.compile(r"\.(sum|mean|average|var|std|cumsum|nansum|nanmean|dot|vdot|inner|matmul|"
                   r"tensordot|einsum|trace|norm|trapz|trapezoid)\(|[\w)\]] @ ")


def sums_in_numpy(source):
    """Whether the program calls a NumPy function that adds many terms."""
    return bool(_SUMS.search(source))


def has_prange(source):
    """Whether the program has `prange` loops (whose sums srcad may reassociate)."""
    return bool(_PRANGE.search(source))


def prange_line(source, index):
    """The line number of `for <index> in ...prange(...):` in `source`, or None."""
    loop = re.compile(rf"^\s*for {index} in .*\bprange\(")
    return next((k for k, line in enumerate(source.splitlines(), 1) if loop.match(line)),
                None)


_WHERE = re.compile(r"\.py:(\d+): ")


def refused_loop(source, index, f, spec, rng, jits, out=None):
    """(outcome, detail) for a program whose prange loop over `index` carries a
    dependence: OK when srcad refuses it by a SrcadError that names the loop's line, for
    every setting of jit; REFUSED for another refusal; WRONG when srcad differentiates the
    loop instead."""
    import srcad

    line = prange_line(source, index)
    args = _inputs(rng, spec)
    wrt = tuple(range(len(args)))
    for jit in jits:
        options = {"wrt": wrt, "jit": jit, "on_jit_error": "raise"}
        try:
            if out is None:
                srcad.value_and_grad(f, **options)(*copies(args))
            else:
                srcad.vjp(f, *copies(args), out=out, **options)
        except srcad.errors.InternalError:
            raise
        except srcad.SrcadError as exc:
            text = f"{type(exc).__name__}: {exc}"
            where = _WHERE.search(str(exc))
            if "prange" in str(exc) and where and int(where[1]) == line:
                continue
            return REFUSED, text
        except Exception as exc:  # noqa: BLE001  (it ran the loop: a check of f's fired)
            if not kernels.from_check(exc, f):
                raise
        return WRONG, (f"jit={jit}: differentiated the prange loop over `{index}` (line "
                       f"{line}), which carries a dependence between iterations, instead "
                       "of refusing it")
    return OK, f"refused the prange loop over `{index}` (line {line}), as it must"


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


def _inputs(rng, spec):
    """Random inputs in [-1.5, 1.5] for every argument of `spec`, in order: Python floats
    (as srcad computes with them, and as f then does) and float arrays; for a complex
    argument, Python complex numbers and complex arrays whose parts are in that range."""
    return tuple(_input(rng, shape) if not kind else _complex_input(rng, shape)
                 for _, shape, *kind in as_spec(spec))


def _input(rng, shape):
    return float(rng.uniform(-1.5, 1.5)) if shape == () else rng.uniform(-1.5, 1.5, shape)


def _complex_input(rng, shape):
    re, im = _input(rng, shape), _input(rng, shape)
    return complex(re, im) if shape == () else re + 1j * im


def _wrong_type(grads, args, names, jit):
    """None when every gradient has its argument's type (complex for a complex argument,
    real for a real one) and shape, else what is wrong."""
    for name, g, v in zip(names, grads, args):
        if np.shape(g) != np.shape(v):
            return f"jit={jit}: grad of {name} has shape {np.shape(g)}, not {np.shape(v)}"
        if np.iscomplexobj(v) != np.iscomplexobj(g):
            want = "complex" if np.iscomplexobj(v) else "real"
            return (f"jit={jit}: grad of {name} is {type(g).__name__} "
                    f"{getattr(g, 'dtype', '')}, not {want}")
    return None


def _mismatch(f, args, names, value, fd, rng, jit, reference):
    """None when srcad keeps f's value and differentiates it right at one input for one
    setting of jit, else what is wrong."""
    import srcad

    wrt = tuple(range(len(args)))
    g = srcad.value_and_grad(f, wrt=wrt, jit=jit, on_jit_error="raise")
    given = copies(args)
    out, grads = g(*given)
    if not all(np.array_equal(u, v) for u, v in zip(given, args)):
        return f"jit={jit}: grad mutated an array argument"
    bad = _wrong_type(grads, args, names, jit)
    if bad:
        return bad
    got = flat(grads, args)
    where = show(args, names)
    want = reference(args) if jit and reference is not None else None
    bad = primal_mismatch(jit, float(out), value, want, where, "value")
    if bad:
        return bad
    bad = mismatched_gradient(jit, got, fd, args, names, where, 1e-3 * abs(value))
    if bad:
        return bad
    t = rng.standard_normal(got.size)
    out, tan = srcad.jvp(f, copies(args), split(t, args), wrt=wrt, jit=jit,
                         on_jit_error="raise")
    bad = primal_mismatch(jit, float(out), value, want, where, "jvp value")
    if bad:
        return bad
    want = float(got @ t)
    if not close(float(tan), want, JVP_RTOL, float(np.abs(got) @ np.abs(t))):
        return (f"jit={jit}: jvp {float(tan)!r} != <grad, t> {want!r} at\n"
                f"  {where}\n  t = {t.tolist()!r}")
    return None


def _point(f, args, rng, out):
    """(value, cotangent, fd) of f at one input: f's value (for an in-place kernel, its
    final contents, and a random cotangent for them) and the finite differences of f (of
    the sum of the contents times the cotangent); None where the value is out of range or
    lies near a kink (finite differences at two steps disagree)."""
    if out is None:
        value = value_of(f, args)
        cotangent, objective, scalar = None, f, value
    else:
        value = kernels.final_contents(f, args, out)
        cotangent = rng.standard_normal(value.shape)
        objective = kernels.objective(f, out, cotangent)
        scalar = float(np.sum(cotangent * value))
    if not (np.all(np.isfinite(value)) and np.max(np.abs(value), initial=0.0) <= 1e6):
        return None
    try:
        fd = partials(objective, args, REL_STEP)
        fd_small = partials(objective, args, REL_STEP / 10)
    except Exception:  # noqa: BLE001  (a check fired near the input: a kink of its own)
        return None
    if not (np.all(np.isfinite(fd)) and np.all(close(fd, fd_small, KINK_RTOL, abs(scalar)))):
        return None
    return value, cotangent, fd


def check_program(f, spec, rng, jits, reference=None, out=None, notes=None):
    """Check f on up to TRIES random inputs for the arguments of `spec` (a spec or the
    (n, rows) of a `programs` program).  `reference(args)` is Numba's value of f (None
    where it has none); `out` is the argument an in-place kernel writes its result into.
    An input where a check of f's fires is checked for srcad raising alike, and noted in
    `notes`.  (outcome, detail)."""
    spec = as_spec(spec)
    names = arg_names(spec)
    notes = [] if notes is None else notes
    skipped = 0
    for _ in range(TRIES):
        args = _inputs(rng, spec)
        try:
            found = _point(f, args, rng, out)
        except Exception as exc:  # noqa: BLE001  (f's own checks fire; others propagate)
            if not kernels.from_check(exc, f):
                raise
            for jit in jits:
                bad = kernels.unlike_raise(f, args, names, exc, jit, out)
                if bad:
                    return WRONG, bad
            notes.append(f"raised {type(exc).__name__}")
            continue
        if found is None:
            skipped += 1
            continue
        value, _, fd = found
        try:
            for jit in jits:
                if out is None:
                    bad = _mismatch(f, args, names, value, fd, rng, jit, reference)
                else:
                    bad = kernels.in_place_mismatch(f, args, names, out, found, rng, jit,
                                                    reference)
                if bad:
                    return WRONG, bad
        except ZeroDivisionError as exc:
            if not undefined_derivative(exc):
                raise
            skipped += 1
            continue
        return OK, ""
    if skipped == 0:
        return OK, f"f raised on all {TRIES} inputs, as srcad did"
    return SKIPPED, f"{skipped} inputs near a kink or out of range"


def undefined_derivative(exc):
    """Whether `exc`, raised by srcad where f itself ran, is a derivative rule dividing by
    zero at the user's line: `math.atan2` at (0, 0) reached by a tangent or adjoint that is
    exactly zero (the rules' documented ZeroDivisionError). The input is a point where f
    has no derivative, which is a kink, not a failure."""
    return isinstance(exc, ZeroDivisionError) and hasattr(exc, "srcad_line")


def numba_reference(source, name, folder, out=None):
    """A function of args giving `numba.njit(f)(*args)` (for an in-place kernel, the final
    contents of argument `out`), every function of the module compiled by Numba, with
    `parallel=True` where it has prange loops; it gives None where Numba cannot compile or
    run f."""
    import numba

    try:
        module = load(source, name, folder)
    finally:
        sys.modules.pop(name, None)
    jit = numba.njit(parallel=True) if has_prange(source) else numba.njit
    for key, value in list(vars(module).items()):
        if isinstance(value, types.FunctionType) and value.__module__ == name:
            setattr(module, key, jit(value))
    state = {"broken": False}

    def reference(args):
        if state["broken"]:
            return None
        try:
            if out is None:
                return value_of(module.f, args)
            return kernels.final_contents(module.f, args, out)
        except Exception:  # noqa: BLE001  (Numba could not type or run f)
            state["broken"] = True
            return None

    return reference


def check_source(source, seed, shapes, jit=False, folder=None, name=None, out=None):
    """Check the program `source` (defining f with the arguments of `shapes`, a spec or
    the (n, rows) of a `programs` program; writing its result into argument `out` if that
    is not None) with inputs drawn from `seed`; a program whose header names a carried
    prange loop must be refused there (`refused_loop`)."""
    import srcad

    jits = (False, True) if jit else (False,)
    own = folder is None
    folder = folder or tempfile.mkdtemp(prefix="srcad-fuzz-")
    name = name or f"srcad_fuzz_prog_{seed}"
    notes = []
    carried = parse_carried(source.splitlines()[0])
    try:
        module = load(source, name, folder)
        rng = np.random.default_rng(seed)
        if carried is not None:
            outcome, detail = refused_loop(source, carried, module.f, as_spec(shapes), rng,
                                           jits, out)
        else:
            reference = numba_reference(source, name + "_njit", folder, out) if jit else None
            with sums_reassociated(has_prange(source)), \
                    sums_summed_in_numpy(sums_in_numpy(source)):
                outcome, detail = check_program(module.f, shapes, rng, jits, reference, out,
                                                notes)
    except srcad.errors.InternalError:  # a SrcadError, but a bug in srcad
        outcome, detail = CRASH, traceback.format_exc()
    except srcad.SrcadError as exc:
        outcome, detail = REFUSED, f"{type(exc).__name__}: {exc}"
    except Exception:  # noqa: BLE001  (the fuzzer classifies every failure)
        outcome, detail = CRASH, traceback.format_exc()
    finally:
        sys.modules.pop(name, None)
        if own:
            _remove(folder, (name, name + "_njit"))
    return Result(seed, outcome, detail, source, jit, notes)


def _remove(folder, names):
    for leftover in names:
        try:
            os.remove(os.path.join(folder, leftover + ".py"))
        except OSError:
            pass
    try:
        os.rmdir(folder)
    except OSError:
        pass


def check(seed, jit=False, folder=None, generator="programs", avoid=(), in_place=False,
          families=()):
    """Generate program `seed` and check it; jit=True also checks the Numba-compiled sweeps."""
    source, shapes = generate(seed, generator, avoid, in_place, families)
    out = parse_out(source.splitlines()[0])
    return check_source(source, seed, shapes, jit, folder, out=out)


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


def refusal_message(detail):
    """A refusal's first line without colours, file, line, names and numbers: what is
    refused, for counting refusals by message."""
    first = re.sub(r"\x1b\[[0-9;]*m", "", (detail.splitlines() or [""])[0])
    first = re.sub(r"\S+\.py:\d+: ", "", first)
    return re.sub(r"`[^`]*`|'[^']*'|\d+", "_", first)


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
                             "known bug in them is fixed (neg-base, sum-list, zero-singular, "
                             "one-item, swap-twice, complex-aug), or recent ones (matrix, "
                             "int-index, tuple-index, mask, extremum, raise, swap, idioms, "
                             "prange; "
                             "avoiding them all gives the programs of seeds before they were "
                             "added)")
    parser.add_argument("--in-place", action="store_true",
                        help="grammar only: in-place kernels, which write their result into "
                             "argument a and return nothing, checked through "
                             "srcad.vjp(f, ..., out=a)")
    parser.add_argument("--family", default="",
                        help="grammar only: comma-separated families of constructs drawn "
                             "only when asked for (complex: complex arguments and "
                             "intermediates, checked along real and imaginary parts; "
                             "prange: prange loops for most loops, carried dependences more "
                             "often, and spellings srcad once refused or missed)")
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
    opts.families = tuple(a for a in opts.family.split(",") if a)
    if opts.check_passes:
        os.environ["SRCAD_CHECK_PASSES"] = "1"
    import warnings
    warnings.simplefilter("ignore")
    if opts.minimize:
        from srcad.fuzz.shrink import minimize_main
        return minimize_main(opts.minimize, opts.out, opts.generator, avoid, opts.in_place,
                             opts.families)
    counts, jitted, raised, refusals = _run(opts, avoid)
    print(f"{opts.n} programs (jit on {jitted}, off {opts.n - jitted}): "
          + " ".join(f"{k}={v}" for k, v in counts.items())
          + f"; a check fired in {raised}", flush=True)
    for message, k in sorted(refusals.items(), key=lambda item: -item[1]):
        print(f"  refused {k}: {message[:160]}")
    return 1 if counts[WRONG] or counts[CRASH] else 0


def _run(opts, avoid):
    """Check the programs `opts` names: (counts by outcome, how many with jit, how many
    where one of f's checks fired, refusals by message)."""
    counts = dict.fromkeys(OUTCOMES, 0)
    jitted = raised = 0
    refusals = {}
    folder = tempfile.mkdtemp(prefix="srcad-fuzz-")
    for seed in range(opts.seed, opts.seed + opts.n):
        jit = opts.jit_every > 0 and (seed - opts.seed) % opts.jit_every == 0
        jitted += jit
        result = check(seed, jit=jit, folder=folder, generator=opts.generator, avoid=avoid,
                       in_place=opts.in_place, families=opts.families)
        counts[result.outcome] += 1
        raised += any(note.startswith("raised") for note in result.notes)
        if opts.verbose:
            print(f"seed {seed}: {result.outcome}", flush=True)
        elif (seed - opts.seed + 1) % 100 == 0:
            print(f"after seed {seed} (jit on {jitted}): "
                  + " ".join(f"{k}={v}" for k, v in counts.items()), flush=True)
        if result.outcome == REFUSED:
            message = refusal_message(result.detail)
            refusals[message] = refusals.get(message, 0) + 1
        if result.outcome in (REFUSED, WRONG, CRASH):
            tag = ("_in_place" if opts.in_place else "") + "".join(
                "_" + family for family in opts.families)
            path = write_failure(result, opts.out, tag)
            first = _summary(result)
            print(f"seed {seed}: {result.outcome.upper()} -> {path}\n    {first[:200]}", flush=True)
    return counts, jitted, raised, refusals


if __name__ == "__main__":
    sys.exit(main())

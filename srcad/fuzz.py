"""Random-program gradient fuzzer for srcad.

`generate(seed)` writes the source of a module holding `f(x, y, a)` (x, y floats, a a
1-d float array) and up to two module-level helpers it calls, using only constructs that
srcad documents as supported: arithmetic, `math` and NumPy functions with rules,
`if/elif/else`, `for` and `while` loops with `break`/`continue`, early returns,
ternaries, `max/min/abs`, element writes and helper calls.  Values are squashed with
`tanh`/`sin` so gradients stay O(1).

`check(seed)` imports that module from a file (srcad reads source with `inspect`) and
compares `srcad.grad(f, wrt=(0, 1, 2))` with central finite differences, and forward mode
with reverse mode (<J t, 1> == <grad, t>).  An input where finite differences at two step
sizes disagree lies near a kink or branch flip and is replaced by another random input.

    python -m srcad.fuzz 1000 --seed 0 --jit-every 10 --out /tmp/fuzz-failures

Outcomes: ok, skipped (every input tried was near a kink), REFUSED (SrcadError on a
program the generator believes supported), WRONG (a gradient mismatch), CRASH (any other
exception).  Each non-ok, non-skipped program is written to the output folder.
"""

import argparse
import importlib.util
import math
import os
import random
import sys
import tempfile
import traceback
from dataclasses import dataclass, field

import numpy as np

OK, SKIPPED, REFUSED, WRONG, CRASH = "ok", "skipped", "refused", "wrong", "crash"
OUTCOMES = (OK, SKIPPED, REFUSED, WRONG, CRASH)

REL_STEP = 1e-6      # finite-difference step, relative to max(1, |value|)
FD_RTOL = 1e-5       # gradient vs finite differences
KINK_RTOL = 1e-4     # finite differences at h and h/10 must agree this well
JVP_RTOL = 1e-8      # forward mode vs reverse mode
TRIES = 3            # random inputs tried before a program is "skipped"


# --------------------------------------------------------------------------- generator

class _Gen:
    """Emits statements for one function body, tracking which names are defined."""

    def __init__(self, rng, helpers, in_helper=False):
        self.rng = rng
        self.helpers = helpers            # [(name, params, returns_pair)] callable from here
        self.in_helper = in_helper
        self.lines = []
        self.floats = [[]]                # scopes of float names
        self.arrays = [[]]                # scopes of array names (same length as the input)
        self.writable = [[]]              # arrays that may be written (not parameters of a helper)
        self.accs = [[]]                  # (name, length) of small accumulator arrays
        self.ints = []                    # enclosing loop indices: (name, lo_offset, hi_offset)
        self.counter = 0
        self.loop_depth = 0
        self.budget = 0

    # names
    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def all(self, scopes):
        return [n for s in scopes for n in s]

    def push(self):
        for s in (self.floats, self.arrays, self.writable, self.accs):
            s.append([])

    def pop(self):
        for s in (self.floats, self.arrays, self.writable, self.accs):
            s.pop()

    def emit(self, indent, text):
        self.lines.append("    " * indent + text)

    def const(self):
        return repr(round(self.rng.uniform(-2.0, 2.0), 2))

    # expressions
    def index(self):
        """An index expression valid for any array of the input's length (>= 4)."""
        r = self.rng
        if self.ints and r.random() < 0.8:
            name, lo, hi = r.choice(self.ints)
            # the loop variable ranges over [lo, n - hi): shifts that stay in bounds
            shifts = [0] + ([-1] if lo >= 1 else []) + ([1] if hi >= 1 else [])
            s = r.choice(shifts)
            return name if s == 0 else f"{name} {'+' if s > 0 else '-'} {abs(s)}"
        return str(r.randrange(-4, 4))

    def fatom(self):
        r = self.rng
        floats = self.all(self.floats)
        arrays = self.all(self.arrays)
        roll = r.random()
        if roll < 0.55 and floats:
            return r.choice(floats)
        if roll < 0.75 and arrays:
            return f"{r.choice(arrays)}[{self.index()}]"
        if roll < 0.8 and self.ints:
            return f"0.1 * {r.choice(self.ints)[0]}"
        if roll < 0.9 and arrays:
            return self.reduction()
        return self.const()

    def reduction(self):
        r = self.rng
        arr = self.aexpr(1)
        k = r.randrange(5)
        if k == 0:
            return f"np.sum({arr})"
        if k == 1:
            return f"np.mean({arr})"
        if k == 2:
            return f"np.prod(1.0 + 0.1 * np.tanh({arr}))"
        if k == 3:
            return f"np.max({arr})"
        return f"np.min({arr})"

    def cond(self):
        r = self.rng
        op = r.choice(["<", ">", "<=", ">="])
        rhs = r.choice(self.all(self.floats) + [self.const()])
        return f"{self.fatom()} {op} {rhs}"

    def fexpr(self, depth=2):
        r = self.rng
        if depth <= 0 or r.random() < 0.25:
            return self.fatom()
        d = depth - 1
        k = r.randrange(13)
        if k == 0:
            return f"({self.fexpr(d)} {r.choice('+-*')} {self.fexpr(d)})"
        if k == 1:
            return f"{self.fexpr(d)} / ({r.choice(['1.5', '2.0'])} + {self.squash(d)} ** 2)"
        if k == 2:
            return f"{self.fexpr(d)} / (2.0 + math.sin({self.fexpr(d)}))"
        if k == 3:
            return f"(-{self.fexpr(d)})"
        if k == 4:
            return f"{self.squash(d)} ** {r.choice([2, 3])}"
        if k == 5:
            return f"math.{r.choice(['sin', 'cos', 'tanh'])}({self.fexpr(d)})"
        if k == 6:
            return f"math.exp({self.squash(d)})"
        if k == 7:
            return f"math.{r.choice(['sqrt', 'log'])}(1.0 + {self.squash(d)} ** 2)"
        if k == 8:
            return f"({self.fexpr(d)} if {self.cond()} else {self.fexpr(d)})"
        if k == 9:
            return f"{r.choice(['max', 'min'])}({self.fexpr(d)}, {self.fexpr(d)})"
        if k == 10:
            return f"abs({self.fexpr(d)})"
        if k == 11:
            call = self.float_call()
            if call:
                return call
        return f"({self.fexpr(d)} + {self.fexpr(d)})"

    def squash(self, depth):
        return f"math.{self.rng.choice(['tanh', 'sin'])}({self.fexpr(depth)})"

    def float_call(self):
        singles = [h for h in self.callable() if not h[2]]
        if not singles:
            return None
        name, params, _ = self.rng.choice(singles)
        return f"{name}({self.call_args(params)})"

    def callable(self):
        """Helpers whose array parameters can be filled from the arrays in scope."""
        if self.all(self.arrays):
            return self.helpers
        return [h for h in self.helpers if "arr" not in h[1]]

    def call_args(self, params):
        arrays = self.all(self.arrays)
        args = []
        for kind in params:
            if kind == "arr":
                args.append(self.rng.choice(arrays))
            else:
                args.append(self.fexpr(1))
        return ", ".join(args)

    def aexpr(self, depth=1):
        r = self.rng
        arrays = self.all(self.arrays)
        base = r.choice(arrays)
        if depth <= 0 or r.random() < 0.3:
            return base
        d = depth - 1
        k = r.randrange(8)
        if k == 0:
            return f"np.sin({self.aexpr(d)})"
        if k == 1:
            return f"np.tanh({self.const()} * {self.aexpr(d)} + {self.fatom()})"
        if k == 2:
            return f"np.exp(np.tanh({self.aexpr(d)}))"
        if k == 3:
            return f"np.{r.choice(['maximum', 'minimum'])}({self.aexpr(d)}, {self.fatom()})"
        if k == 4:
            return f"np.{r.choice(['maximum', 'minimum'])}({self.aexpr(d)}, {self.aexpr(d)})"
        if k == 5:
            return (f"np.where({base} > {self.const()}, {self.aexpr(d)}, "
                    f"{self.fatom()} * {self.aexpr(d)})")
        if k == 6:
            return f"({self.aexpr(d)} {r.choice('+-*')} {self.fatom()})"
        return f"({self.aexpr(d)} {r.choice('+-*')} {self.aexpr(d)})"

    # statements
    def block(self, indent, n, allow_exit=None):
        """Emit n statements in a new scope; `allow_exit` ('loop' or 'return') may end it."""
        self.push()
        for _ in range(n):
            self.stmt(indent)
        if allow_exit and self.rng.random() < 0.3:
            self.exit_stmt(indent, allow_exit)
        self.pop()

    def exit_stmt(self, indent, where):
        r = self.rng
        if where == "loop" and self.loop_depth and r.random() < 0.7:
            self.emit(indent, r.choice(["break", "continue"]))
        elif not self.in_helper:
            self.emit(indent, f"return {self.fexpr(2)}")
        elif self.loop_depth:
            self.emit(indent, "break")

    def assign_float(self, indent):
        r = self.rng
        floats = self.floats[-1] + self.floats[0]
        expr = self.fexpr(2)
        if self.loop_depth or r.random() < 0.5:
            expr = f"math.{r.choice(['tanh', 'sin'])}({expr})"
        if floats and r.random() < 0.4:
            name = r.choice([v for v in self.all(self.floats) if v not in ("x", "y")] or ["x"])
            self.emit(indent, f"{name} = {expr}")
        else:
            name = self.fresh("t")
            self.emit(indent, f"{name} = {expr}")
            self.floats[-1].append(name)

    def stmt(self, indent):
        r = self.rng
        self.budget -= 1
        floats = [v for v in self.all(self.floats) if v not in ("x", "y")]
        roll = r.random()
        nested_ok = self.budget > 0 and len(self.lines) < 60
        if roll < 0.3 or not floats:
            self.assign_float(indent)
        elif roll < 0.4:
            s = r.choice(floats)
            k = r.randrange(3)
            if k == 0:
                self.emit(indent, f"{s} += {self.squash(1)}")
            elif k == 1:
                self.emit(indent, f"{s} -= 0.5 * {self.fexpr(1)}")
            else:
                self.emit(indent, f"{s} *= 1.0 + 0.2 * {self.squash(1)}")
        elif roll < 0.47 and self.all(self.arrays):
            name = self.fresh("b")
            k = r.randrange(3)
            if k == 0:
                expr = self.aexpr(2)
                if expr.isidentifier():     # `b = a` would alias: srcad refuses writes to b
                    expr += ".copy()"
                self.emit(indent, f"{name} = {expr}")
            elif k == 1:
                self.emit(indent, f"{name} = {r.choice(self.all(self.arrays))}.copy()")
            else:
                self.emit(indent, f"{name} = np.zeros_like({r.choice(self.all(self.arrays))})")
            self.arrays[-1].append(name)
            self.writable[-1].append(name)
        elif roll < 0.52 and not self.loop_depth:
            name = self.fresh("acc")
            size = r.randrange(2, 4)
            self.emit(indent, f"{name} = np.zeros({size})")
            self.accs[-1].append((name, size))
        elif roll < 0.6 and self.ints and (self.all(self.writable) or self.all(self.accs)):
            targets = [("w", b) for b in self.all(self.writable)]
            targets += [("acc", a) for a in self.all(self.accs)]
            kind, target = r.choice(targets)
            if kind == "w":
                op = r.choice(["=", "+="])
                self.emit(indent, f"{target}[{self.index()}] {op} {self.squash(1)}")
            else:
                name, size = target
                i = r.choice(self.ints)[0]
                self.emit(indent, f"{name}[{i} % {size}] += {self.squash(1)}")
        elif roll < 0.68 and r.random() < 0.8:
            self.if_stmt(indent, nested_ok)
        elif roll < 0.8 and nested_ok and self.loop_depth < 2:
            self.for_stmt(indent)
        elif roll < 0.85 and nested_ok and self.loop_depth < 2:
            self.while_stmt(indent)
        elif roll < 0.93 and self.callable():
            self.call_stmt(indent)
        else:
            self.assign_float(indent)

    def if_stmt(self, indent, nested_ok):
        r = self.rng
        exit_kind = "loop" if self.loop_depth else "return"
        self.emit(indent, f"if {self.cond()}:")
        self.block(indent + 1, r.randrange(1, 3) if nested_ok else 1, exit_kind)
        for _ in range(r.randrange(0, 2)):
            self.emit(indent, f"elif {self.cond()}:")
            self.block(indent + 1, 1, exit_kind)
        if r.random() < 0.5:
            self.emit(indent, "else:")
            self.block(indent + 1, 1)

    def for_stmt(self, indent):
        r = self.rng
        i = self.fresh("i")
        arrays = self.all(self.arrays)
        arr = "a" if "a" in arrays else r.choice(arrays) if arrays else None
        n = f"{arr}.shape[0]" if arr else "4"
        forms = [
            (f"range({n})", 0, 0),
            (f"range({r.randrange(2, 5)})", 0, 0),   # arrays have length >= 4
            (f"range({n} - 1, -1, -1)", 0, 0),
            (f"range(1, {n})", 1, 0),
            (f"range({n} - 1)", 0, 1),
            (f"range({n} - 1, 0, -1)", 1, 0),
        ]
        rng_text, lo, hi = r.choice(forms)
        self.emit(indent, f"for {i} in {rng_text}:")
        self.ints.append((i, lo, hi))
        self.loop_depth += 1
        self.block(indent + 1, r.randrange(1, 4))
        self.loop_depth -= 1
        self.ints.pop()

    def while_stmt(self, indent):
        r = self.rng
        k = self.fresh("k")
        floats = [v for v in self.all(self.floats) if v not in ("x", "y")]
        s = r.choice(floats)
        self.emit(indent, f"{k} = 0")
        self.emit(indent, f"while {k} < {r.randrange(2, 5)} and {s} < 50.0:")
        self.emit(indent + 1, f"{k} += 1")
        self.loop_depth += 1
        self.block(indent + 1, r.randrange(1, 3))
        self.emit(indent + 1, f"{s} += 0.5 * {self.squash(1)}")
        self.loop_depth -= 1

    def call_stmt(self, indent):
        name, params, pair = self.rng.choice(self.callable())
        args = self.call_args(params)
        if pair:
            u, v = self.fresh("u"), self.fresh("v")
            self.emit(indent, f"{u}, {v} = {name}({args})")
            self.floats[-1] += [u, v]
        else:
            t = self.fresh("t")
            self.emit(indent, f"{t} = {name}({args})")
            self.floats[-1].append(t)

    def final_return(self, indent):
        floats = self.all(self.floats)
        picks = self.rng.sample(floats, min(len(floats), 3))
        terms = picks + [f"0.1 * np.sum({self.rng.choice(self.all(self.arrays))})"]
        self.emit(indent, f"return {' + '.join(terms)}")


def _helper(rng, name, callable_helpers):
    params = rng.choice([["float", "float"], ["float", "arr"], ["arr"], ["float"]])
    pair = rng.random() < 0.4
    g = _Gen(rng, callable_helpers, in_helper=True)
    pnames = []
    for j, kind in enumerate(params):
        pname = f"p{j}" if kind == "float" else f"q{j}"
        pnames.append(pname)
        (g.floats if kind == "float" else g.arrays)[0].append(pname)
    g.emit(1, "h = 0.1")
    g.floats[0].append("h")
    g.budget = rng.randrange(2, 5)
    while g.budget > 0:
        g.stmt(1)
    floats = g.all(g.floats)
    if pair:
        g.emit(1, f"return {rng.choice(floats)}, {g.fexpr(1)}")
    else:
        g.emit(1, f"return {' + '.join(rng.sample(floats, min(2, len(floats))))}")
    header = f"def {name}({', '.join(pnames)}):"
    return "\n".join([header] + g.lines), (name, ["arr" if p.startswith("q") else "float"
                                                  for p in pnames], pair)


def generate(seed):
    """(module source, length of `a`) for program `seed`."""
    rng = random.Random(seed)
    helpers, sources = [], []
    for k in range(rng.randrange(0, 3)):
        src, sig = _helper(rng, f"helper{k}", list(helpers))
        sources.append(src)
        helpers.append(sig)
    g = _Gen(rng, helpers)
    g.floats[0] += ["x", "y"]
    g.arrays[0].append("a")
    g.writable[0].append("a")       # f may write into its own argument: srcad copies it
    g.emit(1, "s = 0.0")
    g.emit(1, f"t0 = math.tanh(x * {g.const()} + y)")
    g.floats[0] += ["s", "t0"]
    g.budget = rng.randrange(4, 10)
    while g.budget > 0:
        g.stmt(1)
    g.final_return(1)
    body = "\n".join(["def f(x, y, a):"] + g.lines)
    n = rng.randrange(4, 7)
    header = f"# srcad fuzz program, seed {seed}, len(a) = {n}\nimport math\n\nimport numpy as np\n"
    return "\n\n\n".join([header.rstrip("\n")] + sources + [body]) + "\n", n


# --------------------------------------------------------------------------- checker

@dataclass
class Result:
    seed: int
    outcome: str
    detail: str = ""
    source: str = ""
    skips: int = 0
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


def _partials(f, args, h_rel):
    """Central differences of f at args in every coordinate of (x, y, a)."""
    a = args[2]
    out = []
    for k in range(2 + a.size):
        if k < 2:      # f may write into `a`: every call gets a fresh copy
            h = h_rel * max(1.0, abs(args[k]))
            p, m = list(args), list(args)
            p[k] += h
            m[k] -= h
            plus, minus = f(p[0], p[1], a.copy()), f(m[0], m[1], a.copy())
        else:
            j = k - 2
            h = h_rel * max(1.0, abs(a[j]))
            p, m = a.copy(), a.copy()
            p[j] += h
            m[j] -= h
            plus, minus = f(args[0], args[1], p), f(args[0], args[1], m)
        out.append((float(plus) - float(minus)) / (2 * h))
    return np.array(out)


def _flat(grads):
    gx, gy, ga = grads
    return np.concatenate([[float(gx), float(gy)], np.asarray(ga, dtype=float).ravel()])


def _close(got, want, rtol, scale=0.0):
    return np.abs(got - want) <= rtol * (1.0 + np.abs(want) + scale)


def check_program(f, n, rng, jits):
    """Check f on up to TRIES random inputs.  (outcome, detail)."""
    import srcad

    skipped = 0
    for _ in range(TRIES):
        x, y = rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5)
        a = rng.uniform(-1.5, 1.5, n)
        args = (x, y, a)
        value = float(f(x, y, a.copy()))
        if not math.isfinite(value) or abs(value) > 1e6:
            skipped += 1
            continue
        fd = _partials(f, args, REL_STEP)
        fd_small = _partials(f, args, REL_STEP / 10)
        if not (np.all(np.isfinite(fd)) and np.all(_close(fd, fd_small, KINK_RTOL, abs(value)))):
            skipped += 1
            continue
        for jit in jits:
            g = srcad.grad(f, wrt=(0, 1, 2), jit=jit, on_jit_error="raise")
            a_in = a.copy()
            got = _flat(g(x, y, a_in))
            if not np.array_equal(a_in, a):
                return WRONG, f"jit={jit}: grad mutated its array argument"
            ok = _close(got, fd, FD_RTOL, 1e-3 * abs(value))
            if not np.all(ok):
                bad = np.flatnonzero(~ok)
                rows = "\n".join(f"  d/d{_coord(k)}: srcad {got[k]!r}  fd {fd[k]!r}" for k in bad)
                return WRONG, (f"jit={jit}: grad vs finite differences at\n  {_inputs(args)}\n"
                               f"{rows}")
            t = rng.standard_normal(2 + n)
            out, tan = srcad.jvp(f, (x, y, a.copy()), (t[0], t[1], t[2:].copy()),
                                 wrt=(0, 1, 2), jit=jit, on_jit_error="raise")
            want = float(got @ t)
            if not _close(float(tan), want, JVP_RTOL, float(np.abs(got) @ np.abs(t))):
                return WRONG, (f"jit={jit}: jvp {float(tan)!r} != <grad, t> {want!r} at\n"
                               f"  {_inputs(args)}\n  t = {t.tolist()!r}")
            if not _close(float(out), value, 1e-12):
                return WRONG, f"jit={jit}: jvp value {float(out)!r} != f {value!r}"
        return OK, ""
    return SKIPPED, f"{skipped} inputs near a kink or out of range"


def _coord(k):
    return "x" if k == 0 else "y" if k == 1 else f"a[{k - 2}]"


def _inputs(args):
    x, y, a = args
    return f"x = {x!r}, y = {y!r}, a = np.array({a.tolist()!r})"


def check(seed, jit=False, folder=None):
    """Generate program `seed` and check it; jit=True also checks the Numba-compiled sweeps."""
    import srcad

    source, n = generate(seed)
    jits = (False, True) if jit else (False,)
    own = folder is None
    folder = folder or tempfile.mkdtemp(prefix="srcad-fuzz-")
    name = f"srcad_fuzz_prog_{seed}"
    try:
        module = load(source, name, folder)
        rng = np.random.default_rng(seed)
        outcome, detail = check_program(module.f, n, rng, jits)
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
    return Result(seed, outcome, detail, source)


def write_failure(result, out):
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"{result.outcome}_seed{result.seed}.py")
    with open(path, "w") as fh:
        fh.write(result.source)
        fh.write("\n# " + result.outcome.upper() + "\n")
        fh.write("".join("# " + line + "\n" for line in result.detail.splitlines()))
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m srcad.fuzz",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("n", type=int, help="number of programs")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--jit-every", type=int, default=5,
                        help="also check jit=True on every K-th program (0: never)")
    parser.add_argument("--out", default="fuzz-failures", help="folder for failing programs")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per program")
    opts = parser.parse_args(argv)

    import warnings
    warnings.simplefilter("ignore")
    counts = dict.fromkeys(OUTCOMES, 0)
    folder = tempfile.mkdtemp(prefix="srcad-fuzz-")
    for seed in range(opts.seed, opts.seed + opts.n):
        jit = opts.jit_every > 0 and (seed - opts.seed) % opts.jit_every == 0
        result = check(seed, jit=jit, folder=folder)
        counts[result.outcome] += 1
        if opts.verbose:
            print(f"seed {seed}: {result.outcome}", flush=True)
        if result.outcome in (REFUSED, WRONG, CRASH):
            path = write_failure(result, opts.out)
            first = result.detail.strip().splitlines()[-1] if result.detail.strip() else ""
            print(f"seed {seed}: {result.outcome.upper()} -> {path}\n    {first[:200]}", flush=True)
    print(f"{opts.n} programs: " + " ".join(f"{k}={v}" for k, v in counts.items()))
    return 1 if counts[WRONG] or counts[CRASH] else 0


if __name__ == "__main__":
    sys.exit(main())

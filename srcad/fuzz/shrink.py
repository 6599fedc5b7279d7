"""Shrink a failing fuzz program while it keeps failing the same way.

    python -m srcad.fuzz --minimize /tmp/fuzz-failures/wrong_seed2345.py
    python -m srcad.fuzz --minimize 2345
    python -m srcad.fuzz --minimize 2345 --generator grammar
    python -m srcad.fuzz --minimize 2345 --generator grammar --in-place

Greedy and syntactic: delete a statement (a helper function, an `else`), replace a compound
statement by its body, or replace an expression by one of its operands or by `0.5`; keep
the change when the program still runs as plain Python (to a finite value, or to one of
its own `raise` or `assert` checks) and `srcad.fuzz` still reports the same outcome (for
a crash, the same exception type; for a refusal, the same message up to names and
numbers; for a wrong result, the same property: primal value, gradient, jvp or raises)
and the program got smaller.  A refusal while building the gradient is reproduced by that
build alone, which keeps Numba failures quick to shrink.  The inputs come from the
program's seed and argument shapes, read from its first line, as in the fuzzer (which
also names the argument an in-place kernel writes into).  The result is written next to
the input as `*_min.py` (for a seed, into --out).
"""

import ast
import copy
import linecache
import os
import re
import signal
import sys
import tempfile

import numpy as np

from srcad.fuzz import checker as fuzz
from srcad.fuzz import kernels


def minimize(source, seed, shapes, jit, log=print, out=None):
    """The smallest program found that fails like `source` (an in-place kernel writing
    into argument `out`, if not None), and its `fuzz.Result`."""
    folder = tempfile.mkdtemp(prefix="srcad-min-")
    counter = [0]

    def run(src, quick=False):
        counter[0] += 1
        name = f"srcad_min_{os.getpid()}_{counter[0]}"
        if quick:
            return _grad_only(src, seed, shapes, jit, folder, name, out)
        return fuzz.check_source(src, seed, shapes, jit, folder, name=name, out=out)

    first = run(source)
    want = _key(first)
    if first.outcome not in (fuzz.WRONG, fuzz.CRASH, fuzz.REFUSED):
        raise SystemExit(f"the program does not fail (outcome: {first.outcome})")
    # a refusal while building the gradient needs only that build to reproduce
    quick = first.outcome == fuzz.REFUSED and _key(run(source, quick=True)) == want
    log(f"minimizing a {want} failure, {len(source.splitlines())} lines", flush=True)
    tree, best = ast.parse(source), first
    changed = True
    while changed:             # passes over every edit until none is kept
        changed, i, edits = False, 0, _edits(tree)
        while i < len(edits):
            candidate = _apply(tree, edits[i])
            text = ast.unparse(candidate)
            if _runs(text, seed, shapes, out):
                result = run(_with_header(source, text), quick)
                if _key(result) == want and _size(candidate) < _size(tree):
                    tree, best, changed, edits = candidate, result, True, _edits(candidate)
                    log(f"  {len(text.splitlines())} lines", flush=True)
                    continue   # the edit at position i is a new one now
            i += 1
    return _with_header(source, ast.unparse(tree)) + "\n", best


def _grad_only(source, seed, shapes, jit, folder, name, out=None):
    """Build and call `srcad.grad` (for an in-place kernel `srcad.vjp`) of the program
    once, without checking the result."""
    import srcad

    try:
        module = fuzz.load(source, name, folder)
        args = fuzz._inputs(np.random.default_rng(seed), shapes)
        wrt = tuple(range(len(args)))
        if out is None:
            srcad.grad(module.f, wrt=wrt, jit=jit, on_jit_error="raise")(*args)
        else:
            srcad.vjp(module.f, *args, wrt=wrt, out=out, jit=jit, on_jit_error="raise")
        return fuzz.Result(seed, fuzz.OK, "", source, jit)
    except srcad.SrcadError as exc:
        return fuzz.Result(seed, fuzz.REFUSED, f"{type(exc).__name__}: {exc}", source, jit)
    except Exception as exc:  # noqa: BLE001
        return fuzz.Result(seed, fuzz.CRASH, f"{type(exc).__name__}: {exc}", source, jit)
    finally:
        sys.modules.pop(name, None)


def _key(result):
    """What must stay the same: the outcome, and for a crash the exception type, for a
    refusal its message without file, line, names and numbers, for a wrong result the
    property that failed."""
    if result.outcome == fuzz.CRASH:
        last = result.detail.strip().splitlines()[-1]
        return f"crash:{last.split(':')[0]}"
    if result.outcome == fuzz.REFUSED:
        first = fuzz.refusal_message(result.detail)
        return f"refused:{first[:60]}...{first[-100:]}"
    if result.outcome == fuzz.WRONG:
        match = re.match(r"jit=\w+: (primal \w+|\w+)", result.detail)
        return f"wrong:{match[1] if match else ''}"
    return result.outcome


def _size(tree):
    return sum(1 for _ in ast.walk(tree))


def _with_header(original, body):
    return original.splitlines()[0] + "\n" + body


def _runs(text, seed, shapes, out=None):
    """Whether the program defines f and, within a second, returns a finite float (an
    in-place kernel: leaves finite contents in argument `out`) or fails one of its own
    checks."""
    def alarm(*_):
        raise TimeoutError

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(1)
    f = None
    linecache.cache["<minimize>"] = (len(text), None, text.splitlines(True), "<minimize>")
    try:
        ns = {}
        exec(compile(text, "<minimize>", "exec"), ns)
        f = ns["f"]
        args = fuzz._inputs(np.random.default_rng(seed), shapes)
        value = f(*args) if out is None else kernels.final_contents(f, args, out)
        return bool(np.all(np.isfinite(np.asarray(value, dtype=float))))
    except Exception as exc:  # noqa: BLE001  (any other failure of the program rejects the edit)
        return f is not None and kernels.from_check(exc, f)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        linecache.cache.pop("<minimize>", None)


def _edits(tree):
    """The possible edits of `tree`, statements first, as (node index in `ast.walk` order,
    edit function, its arguments)."""
    stmt_edits, expr_edits = [], []
    for at, node in enumerate(ast.walk(tree)):
        for name, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                for pos, s in enumerate(value):
                    stmt_edits.append((at, _delete, (name, pos)))
                    if isinstance(s, (ast.If, ast.For, ast.While)):
                        stmt_edits.append((at, _hoist, (name, pos)))
                    if isinstance(s, ast.If) and s.orelse:
                        stmt_edits.append((at, _drop_else, (name, pos)))
            elif name not in ("targets", "target"):
                values = value if isinstance(value, list) else [value]
                for pos, v in enumerate(values):
                    if isinstance(v, ast.expr) and _is_load(v):
                        pos = pos if isinstance(value, list) else None
                        expr_edits += [(at, _replace, (name, pos, k))
                                       for k in range(len(_replacements(v)))]
    return stmt_edits + expr_edits


def _apply(tree, edit):
    at, fn, args = edit
    new = copy.deepcopy(tree)
    fn(list(ast.walk(new))[at], *args)
    return new


def _delete(node, field, pos):
    body = getattr(node, field)
    del body[pos]
    if not body and field != "orelse" and not isinstance(node, ast.Module):
        body.append(ast.Pass())


def _hoist(node, field, pos):
    body = getattr(node, field)
    body[pos:pos + 1] = body[pos].body


def _drop_else(node, field, pos):
    getattr(node, field)[pos].orelse = []


def _is_load(expr):
    return isinstance(getattr(expr, "ctx", ast.Load()), ast.Load)


def _replacements(expr):
    """What an expression may shrink to: one of its operands, or the constant 0.5."""
    subs = [c for c in ast.iter_child_nodes(expr) if isinstance(c, ast.expr) and _is_load(c)]
    if not (isinstance(expr, ast.Constant) and expr.value == 0.5):
        subs.append(ast.Constant(0.5))
    return subs


def _replace(node, field, pos, k):
    value = getattr(node, field)
    old = value[pos] if pos is not None else value
    new = copy.deepcopy(_replacements(old)[k])
    if pos is None:
        setattr(node, field, new)
    else:
        value[pos] = new


def minimize_main(target, out, generator="programs", avoid=(), in_place=False, families=()):
    """CLI: minimize a failure file (or the program of a seed of `generator`, an in-place
    one with `in_place`, one with the opt-in `families`) and write `*_min.py`."""
    if os.path.exists(target):
        with open(target) as fh:
            source = fh.read()
        jit = "(jit=True)" in source
        source = source.split("\n# REFUSED")[0].split("\n# WRONG")[0].split("\n# CRASH")[0]
        path = os.path.splitext(target)[0] + "_min.py"
    else:
        source, _ = fuzz.generate(int(target), generator, avoid, in_place, families)
        jit = fuzz.check(int(target), generator=generator, avoid=avoid, in_place=in_place,
                         families=families).outcome in (fuzz.OK, fuzz.SKIPPED)
        os.makedirs(out, exist_ok=True)
        path = os.path.join(out, f"{generator}_seed{target}_min.py")
    _, seed, shapes = fuzz.parse_header(source.splitlines()[0])
    position = fuzz.parse_out(source.splitlines()[0])
    small, result = minimize(source, seed, shapes, jit, out=position)
    with open(path, "w") as fh:
        fh.write(small)
        fh.write(f"\n# {result.outcome.upper()} (jit={jit})\n")
        fh.write("".join("# " + line + "\n" for line in result.detail.splitlines()))
    print(f"{result.outcome}: {len(small.splitlines())} lines -> {path}")
    return 0

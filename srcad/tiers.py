"""`jit="auto"` (the default): whether a generated module runs as plain Python/NumPy or
compiled by Numba.

A module with a loop that computes scalars (or writes array elements) is compiled at
once: run by the interpreter, such a loop is a hundred times slower. Any other module
(vectorized array code, a time loop over whole-array steps, straight-line scalar code)
spends its time in NumPy's own loops, where Numba's version is often no faster, while
compiling it costs seconds (a minute for arithmetic on slices of 4-d arrays). Such a
module runs as plain Python first; once its sweeps have taken `PLAIN_SECONDS` over at
least `PLAIN_CALLS` gradients, Numba compiles it, and the compiled sweeps are timed
against the plain ones for `TRIALS` calls: the faster way is kept for the rest of the
process and remembered in the cache directory for the next one. Like a user paying for
skis only once renting them has cost as much, a function called a few times never pays
for a compile, and one called in a long loop spends at most `PLAIN_SECONDS` before it.

`jit=True` compiles every module at once, `jit=False` never compiles.

A loop of whole-array steps with tiny arrays and many iterations is the case this
guesses wrong: its first call runs plain, slowly, and the next ones compiled.
"""
import ast

import gast

from srcad.kinds import Kind

PLAIN_SECONDS = 1.0  # plain sweep time spent before Numba compiles a loop-free module
PLAIN_CALLS = 10  # and at least this many gradients (reverse or tangent sweeps)
TRIALS = 3  # compiled runs of each sweep timed against the plain ones

AUTO = "auto"


def check(jit):
    """`jit` if it is one of True, False and "auto", else a `SrcadError`."""
    if jit is True or jit is False or jit == AUTO:
        return jit
    from srcad.errors import SrcadError
    raise SrcadError(f"jit={jit!r} is not an option", hint="pass jit=True (compile with "
                     "Numba), jit=False (plain Python/NumPy) or jit='auto' (the default)")


def at_once(program):
    """Whether Numba should compile `program`'s module at once: one of its functions has a
    loop that assigns a scalar or an array element, or runs its loops in parallel, or in
    checkpointed stretches."""
    for spec in program.order:
        role = getattr(getattr(spec.fn, "__srcad_local__", None), "role", None)
        if role is not None or getattr(spec, "parallel", False):
            return True
        kinds = spec.ctx.kinds
        for loop in gast.walk(spec.ctx.fnode):
            if isinstance(loop, (gast.For, gast.While)) and any(
                    _scalar_assign(node, kinds) for node in gast.walk(loop)):
                return True
    return False


def _scalar_assign(node, kinds):
    if not isinstance(node, gast.Assign):
        return False
    return any(_scalar_target(t, node.value, kinds) for t in node.targets)


def _scalar_target(target, value, kinds):
    if isinstance(target, (gast.Tuple, gast.List)):
        return any(_scalar_target(t, value, kinds) for t in target.elts)
    if isinstance(target, gast.Name):
        return _scalar(kinds.get(target.id))
    if isinstance(target, gast.Subscript):  # an element, or a slice written whole
        return isinstance(value, gast.Constant) or \
            isinstance(value, gast.Name) and _scalar(kinds.get(value.id))
    return False


def _scalar(kind):
    return isinstance(kind, Kind) and kind.ndim == 0 and not kind.listed


def has_loops(source):
    """Whether the module `source` has a `for` or `while` loop: what decides for a module
    recorded before `at_once` was (compiled at once when it has one).

    >>> has_loops("def f(x):\\n    return x * 2.0\\n")
    False
    >>> has_loops("def f(x):\\n    for i in range(3):\\n        x = x * 2.0\\n    return x\\n")
    True
    """
    return any(isinstance(node, (ast.For, ast.While)) for node in ast.walk(ast.parse(source)))


class Tiers:
    """The running record of one loop-free module under `jit="auto"`: what its sweeps have
    cost before the trial, then, during it, the plain and compiled modules' runs taken in
    turns (a call each, so that both meet the same load), and the decision."""

    def __init__(self):
        self.plain = {}  # sweep name -> its plain runs during the trial, seconds
        self.compiled = {}  # sweep name -> its compiled runs after the first (a compile)
        self.spent = 0.0
        self.calls = 0
        self.trying = False  # compiled, and on trial against the plain module

    def ran(self, sweep, seconds, gradient, plain=True):
        """Note one run of `sweep` by the `plain` module or the compiled one (`gradient`: a
        reverse or tangent sweep, which ends a call). Returns what to do next: "compile"
        (start the trial), "switch" (run the other module for the next call), True (keep
        the compiled module), False (keep the plain one) or None (go on as now)."""
        if not self.trying:
            self.spent += seconds
            self.calls += gradient
            if gradient and self.spent >= PLAIN_SECONDS and self.calls >= PLAIN_CALLS:
                self.trying = True
                return "compile"
            return None
        if plain:
            self.plain.setdefault(sweep, []).append(seconds)
        elif sweep in self.compiled:
            self.compiled[sweep].append(seconds)
        else:  # its first compiled run: Numba compiled it, not timed
            self.compiled[sweep] = []
        if not gradient:
            return None
        sweeps = set(self.compiled) | set(self.plain)
        if any(len(self.compiled.get(s, ())) < TRIALS or len(self.plain.get(s, ())) < TRIALS
               for s in sweeps):
            return "switch"
        return sum(min(self.compiled[s]) for s in sweeps) < \
            sum(min(self.plain[s]) for s in sweeps)

    def first_compiled_run(self, sweep):
        """Whether the next compiled run of `sweep` is its first (where Numba compiles)."""
        return self.trying and sweep not in self.compiled

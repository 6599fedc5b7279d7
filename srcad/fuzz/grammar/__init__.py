"""Programs drawn from Python's expression grammar, for `srcad.fuzz`.

`generate(seed)` writes the source of a module holding `f(x, y, z)`, `f(x, y, z, a)`,
`f(x, y, z, m)` or `f(x, y, z, a, m)` (x, y, z floats, a a 1-d float array of length
3..6, m a float matrix with as many columns) and returns it with the argument spec
`((name, shape), ...)`.  Where `srcad.fuzz.programs` writes the shapes of code srcad is
known to support, this generator walks Python's own grammar: every operator and
precedence level nested (unary chains, `-x ** 2`, `(-c) ** k`, `2 ** -x`, `a // b`,
`a % b`, chained comparisons, `and`/`or`/`not` as conditions and as values, conditional
expressions inside arithmetic), literals of every sign, size and kind (`-0.0`, `1e-320`,
`1e300`, ints, module-level constants, `math.pi`, `np.inf`), `math` functions and the
builtins `abs`, `min`, `max`, `float`, names rebound in branches and loops (also by
parallel and chained assignment, and in loops that never run), `break`, `continue` and
early returns, element reads, reductions and writes of arrays, literal chains that are not
reassociable (`e + 1e-16 + 1.0`), zeros whose sign decides a value
(`math.atan2(e * 0.0, -1.5)`), expressions written again after a name in them was rebound,
and functions at an argument that is zero for every input (`abs(x * 0.0)`).

It also writes what srcad learned later (`RECENT`): a matrix argument ("matrix"), list
literals as indices, read and written (`a[[i, j]]`, `m[[0, k]] = m[[k, 0]]`,
"int-index"), tuples held in names as indices (`t = (i, j); m[t]`, "tuple-index"),
boolean masks in reductions and writes (`np.sum(a[a > c])`, `w[w < c] *= 0.5`, a mean
guarded against an empty selection, "mask"), Python's `max`/`min` of one iterable
(`min((e for v in a if c), default=d)`, "extremum"), `raise` and `assert` checks, some of
which fire on some inputs ("raise"), buffers swapped in a loop (`u, w = w, u`,
"swap"), and `numba.prange` loops whose iterations only read what was bound before them,
add into sums and write the elements they own, now and then one that carries a
dependence between iterations instead, which srcad must refuse (`parallel_loops`,
"prange").  `generate(seed, avoid=RECENT)` writes the program the generator wrote for that
seed before these were added.  `generate(seed, in_place=True)` writes an in-place kernel
instead: `a` is always an argument, and f writes its result into it and returns nothing.

Programs are built as trees and printed with `ast.unparse`, so the text has exactly the
parentheses the grammar needs.  Every float expression carries an interval that bounds
its value for inputs in [-1.5, 1.5]: an expression that may grow past `LIMIT` is squashed
(`math.tanh`, `math.sin`, ...), a denominator, a logarithm's or square root's argument
and the base of a non-integer power are bounded away from zero, so values and gradients
stay finite and finite differences meaningful.

`generate(seed, families=("complex",))` writes a program of a family drawn only when asked
for (`FAMILIES`; the other programs stay as they were): "complex" adds complex arguments
`c` and `q` and complex intermediates (literals, arithmetic mixing real and complex
values, powers, np.exp log sqrt and the trigonometric functions, parts, moduli and
angles, Fourier transforms, element writes in loops), checked along the real and
imaginary parts of the complex arguments (`complex_values`); "prange" draws prange loops
for most loops, carried dependences more often, and the spellings srcad refuses or misses
today (`parallel_loops`).

`avoid` names constructs to leave out while a known bug in them is being fixed:
"neg-base" (a negative literal as the base of `**`), "sum-list" (`np.sum` of a list
literal), "zero-singular" (a function at an argument that is zero for every input,
where the function's derivative is infinite but the composite's is zero:
`math.sqrt(x * 0.0)`), "one-item" (`max([e])`, refused as a `max` missing its second
argument), "swap-twice" (buffers that swap names again outside the loop that swapped
them, or in a loop over a tuple, which srcad unrolls: refused as aliases) and
"complex-aug" (`w *= s`, `w[i] *= s` into a complex array, written `w = w * s` instead:
an internal error in srcad's kind inference); or any of the recent constructs.  The
default produces all of them.

The generator, leaves first: `trees` (tree builders, the interval-carrying `V`, the
bounds), `atoms` (literals, names, array reads and reductions), `bounded` (squashed,
positive and nonzero expressions), `exprs` (every operator and call, and tests),
`selections` (the recent expressions), `writes` (the recent statements), `idioms`,
`complex_values` (the "complex" family), `parallel_loops` (prange loops), `statements`
(assignments, branches, loops) and `program` (the module and `generate`).
"""

from srcad.fuzz.grammar.program import format_spec, generate
from srcad.fuzz.grammar.trees import (
    AVOIDABLE,
    FAMILIES,
    INPUT_RANGE,
    LIMIT,
    LOOP_BOUND,
    RECENT,
)

__all__ = ["AVOIDABLE", "FAMILIES", "INPUT_RANGE", "LIMIT", "LOOP_BOUND", "RECENT",
           "format_spec", "generate"]

"""Programs drawn from Python's expression grammar, for `srcad.fuzz`.

`generate(seed)` writes the source of a module holding `f(x, y, z)` or `f(x, y, z, a)`
(x, y, z floats, a a 1-d float array of length 3..6) and returns it with the argument
spec `((name, shape), ...)`.  Where `srcad.fuzz.programs` writes the shapes of code
srcad is known to support, this generator walks Python's own grammar: every operator
and precedence level nested (unary chains, `-x ** 2`, `(-c) ** k`, `2 ** -x`, `a // b`,
`a % b`, chained comparisons, `and`/`or`/`not` as conditions and as values, conditional
expressions inside arithmetic), literals of every sign, size and kind (`-0.0`, `1e-320`,
`1e300`, ints, module-level constants, `math.pi`, `np.inf`), `math` functions and the
builtins `abs`, `min`, `max`, `float`, names rebound in branches and loops (also by
parallel and chained assignment, and in loops that never run), `break`, `continue` and
early returns, element reads, reductions and writes of arrays, literal chains that are not
reassociable (`e + 1e-16 + 1.0`), zeros whose sign decides a value
(`math.atan2(e * 0.0, -1.5)`), expressions written again after a name in them was rebound,
and functions at an argument that is zero for every input (`abs(x * 0.0)`).

Programs are built as trees and printed with `ast.unparse`, so the text has exactly the
parentheses the grammar needs.  Every float expression carries an interval that bounds
its value for inputs in [-1.5, 1.5]: an expression that may grow past `LIMIT` is squashed
(`math.tanh`, `math.sin`, ...), a denominator, a logarithm's or square root's argument
and the base of a non-integer power are bounded away from zero, so values and gradients
stay finite and finite differences meaningful.

`avoid` names constructs to leave out while a known bug in them is being fixed:
"neg-base" (a negative literal as the base of `**`), "sum-list" (`np.sum` of a list
literal) and "zero-singular" (a function at an argument that is zero for every input,
where the function's derivative is infinite but the composite's is zero:
`math.sqrt(x * 0.0)`).  The default produces all three.

The generator, leaves first: `trees` (tree builders, the interval-carrying `V`, the
bounds), `atoms` (literals, names, array reads and reductions), `bounded` (squashed,
positive and nonzero expressions), `exprs` (every operator and call, and tests),
`statements` (assignments, branches, loops) and `program` (the module and `generate`).
"""

from srcad.fuzz.grammar.program import format_spec, generate
from srcad.fuzz.grammar.trees import AVOIDABLE, INPUT_RANGE, LIMIT, LOOP_BOUND

__all__ = ["AVOIDABLE", "INPUT_RANGE", "LIMIT", "LOOP_BOUND", "format_spec", "generate"]

"""Trees and intervals for the grammar generator: a float expression is a `V`, its tree
with an interval [lo, hi] holding its value for every input in [-INPUT_RANGE, INPUT_RANGE]."""

import ast
import math

LIMIT = 6.0          # bound on |value| of an expression before it is squashed
LOOP_BOUND = 4.0     # bound on a value rebound inside a loop
RECENT = ("matrix", "int-index", "tuple-index", "mask", "extremum", "raise", "swap",
          "idioms", "prange")
"""Constructs added to the generator after it ran its first 10,000 programs; avoiding all
of them gives the programs it wrote before, seed for seed."""
FAMILIES = ("complex", "prange")
"""Families of constructs drawn only when asked for (`generate(seed, families=...)`): the
programs of the other families stay as they were, seed for seed."""
AVOIDABLE = ("neg-base", "sum-list", "zero-singular", "one-item", "swap-twice",
             "complex-aug") + RECENT
INPUT_RANGE = 1.5    # the checker draws every input from [-1.5, 1.5]


# --------------------------------------------------------------------------- trees

def num(value):
    """A literal as the parser reads it: a negative number is a unary minus."""
    if value < 0 or (value == 0 and math.copysign(1.0, value) < 0):
        return ast.UnaryOp(ast.USub(), ast.Constant(-value))
    return ast.Constant(value)


def ref(dotted):
    """`math.pi` or `x` as a load expression."""
    parts = dotted.split(".")
    node = ast.Name(parts[0], ast.Load())
    for attr in parts[1:]:
        node = ast.Attribute(node, attr, ast.Load())
    return node


def call(fn, *args):
    """`fn(*args)` for a dotted name `fn`."""
    return ast.Call(ref(fn), list(args), [])


def binop(a, op, b):
    return ast.BinOp(a, op, b)


class V:
    """A float expression and an interval [lo, hi] holding its value."""

    __slots__ = ("node", "lo", "hi")

    def __init__(self, node, lo, hi):
        self.node, self.lo, self.hi = node, float(lo), float(hi)

    @property
    def mag(self):
        return max(abs(self.lo), abs(self.hi))


def span(node, values):
    """`node` with the hull of `values` as its interval."""
    return V(node, min(values), max(values))


def mul_iv(a, b):
    """The four products of the ends of two intervals: their hull bounds a * b."""
    return [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]


def pow_iv(lo, hi, k):
    """Bounds of v ** k for v in [lo, hi] (k an int; 0 not in [lo, hi] when k < 0)."""
    values = [lo ** k, hi ** k]
    if k > 0 and k % 2 == 0 and lo < 0 < hi:
        values.append(0.0)
    return values


# --------------------------------------------------------------------------- literals

TINY = (1e-320, 5e-324, 2.5e-310, 1e-300, 2.2250738585072014e-308)
NAMED = {"math.pi": math.pi, "math.e": math.e, "np.pi": math.pi, "np.e": math.e,
         "math.tau": math.tau}

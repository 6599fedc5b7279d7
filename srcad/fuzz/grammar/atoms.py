"""The leaves of grammar expressions: literals, constants, names, element reads and
reductions of arrays."""

import ast
import contextlib
import math

from srcad.fuzz.grammar.trees import NAMED, RECENT, TINY, V, binop, call, num, ref

_PLAIN_FLOATS = (0.5, 1.5, 2.0, 0.25, 3.0, 0.1, 1.25, 0.75, 2.5, 1e-3, 4.0)
RECENT_ATOM = 0.06   # the chance that a leaf is one of the recent forms (`Selections`)
COMPLEX_ATOM = 0.2   # with the "complex" family, the chance that a leaf reads a complex value


class Atoms:
    """Expressions over the names in scope, each with an interval for its value: this class
    holds the scope and writes the leaves.  `squashed`, `expr`, `recent_atom` and
    `complex_atom`, which the leaves call back, come from its subclasses `Bounded`,
    `Exprs`, `Selections` and `ComplexValues`."""

    def __init__(self, rng, consts, avoid):
        self.rng = rng
        self.consts = consts            # module-level constants: name -> value
        self.avoid = avoid
        self.floats = {}                # float name -> (lo, hi)
        self.ints = {}                  # int name -> (lo, hi)
        self.arrays = {}                # 1-d array name -> (length, lo, hi)
        self.bools = []                 # names holding the result of a test
        self.pool = []                  # (V, bounds of the names it reads) for reuse
        self.recent = [c for c in RECENT if c not in avoid]     # recent constructs drawn
        self.matrices = {}              # 2-d array name -> (rows, cols, lo, hi)
        self.tuples = {}                # tuple-of-indices name -> the shape it indexes
        self.masks = {}                 # boolean-array name -> its shape
        self.selections = {}            # masked selection name -> (lo, hi, most elements)
        self.lazy = 0                   # > 0 where an expression may go unevaluated
        self.int_valued = set()         # float names that may hold a Python int
        self.families = ()              # opt-in families drawn (`FAMILIES`)

    def chance(self, p):
        return self.rng.random() < p

    def maybe_int(self, node):
        """Whether `node` may evaluate to a Python int (or bool): built from int literals,
        int names and constants, comparisons, and operators and calls that keep ints."""
        if isinstance(node, ast.Constant):
            return isinstance(node.value, int)
        if isinstance(node, ast.Name):
            return node.id in self.ints or node.id in self.int_valued or \
                isinstance(self.consts.get(node.id), int)
        if isinstance(node, ast.UnaryOp):
            return isinstance(node.op, ast.Not) or self.maybe_int(node.operand)
        if isinstance(node, ast.BinOp):
            return not isinstance(node.op, ast.Div) and self.maybe_int(node.left) \
                and self.maybe_int(node.right)
        if isinstance(node, ast.IfExp):
            return self.maybe_int(node.body) or self.maybe_int(node.orelse)
        if isinstance(node, (ast.BoolOp, ast.List, ast.Tuple)):
            return any(map(self.maybe_int, getattr(node, "values", None) or node.elts))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return node.func.id in ("len", "int") or \
                node.func.id in ("max", "min", "abs") and any(map(self.maybe_int, node.args))
        return isinstance(node, ast.Compare)

    def power(self, base, exponent):
        """`base ** exponent`, with `float(base)` where both may be ints (an int to a
        negative int power is a float in Python; srcad keeps ints ints and refuses it):
        left as it was with every recent construct avoided."""
        if self.recent and self.maybe_int(base) and self.maybe_int(exponent):
            base = call("float", base)
        return binop(base, ast.Pow(), exponent)

    @contextlib.contextmanager
    def lazily(self, on=True):
        """Expressions written in this block may be evaluated conditionally, or again (a
        branch of `a if c else b`, an operand after `and`/`or`, a comparison after the
        first of a chain, a `while` test), where srcad refuses to lower `max(e for ...)`."""
        self.lazy += on
        try:
            yield
        finally:
            self.lazy -= on

    def pick(self, seq):
        return self.rng.choice(list(seq))

    # literals and atoms

    def literal(self, kind=None):
        """A literal of any sign and size whose value is usable anywhere."""
        r = self.rng
        kind = kind or r.choices(["float", "int", "zero", "tiny", "sci"], [8, 4, 2, 2, 2])[0]
        sign = r.choice([1, -1])
        if kind == "float":
            value = sign * r.choice(_PLAIN_FLOATS)
        elif kind == "int":
            value = r.randrange(-3, 5)
        elif kind == "zero":
            value = r.choice([0, 0.0, -0.0])
        elif kind == "tiny":
            value = sign * r.choice(TINY)
        else:
            value = float(f"{r.choice([1, 2.5, 5])}e{r.randrange(-8, 1)}") * sign
        return V(num(value), value, value)

    def constant(self):
        """A module-level constant or a named one from math/numpy."""
        if self.consts and self.chance(0.6):
            name = self.pick(sorted(self.consts))
            value = self.consts[name]
            return V(ref(name), value, value)
        name = self.pick(NAMED)
        return V(ref(name), NAMED[name], NAMED[name])

    def atom(self):
        r = self.rng
        if "complex" in self.families and self.chance(COMPLEX_ATOM):
            v = self.complex_atom()
            if v is not None:
                return v
        if self.recent and self.chance(RECENT_ATOM):
            v = self.recent_atom()
            if v is not None:
                return v
        roll = r.random()
        if roll < 0.45 and self.floats:
            name = self.pick(self.floats)
            return V(ref(name), *self.floats[name])
        if roll < 0.6:
            return self.literal()
        if roll < 0.68:
            return self.constant()
        if roll < 0.76 and "neg-base" not in self.avoid:
            return self.negative_base()
        if roll < 0.86 and self.arrays:
            return self.element()
        if roll < 0.92 and self.ints:
            name = self.pick(self.ints)
            lo, hi = self.ints[name]
            if self.chance(0.5):
                return V(ref(name), lo, hi)
            return V(call("float", ref(name)), lo, hi)
        if roll < 0.96:
            return self.int_arith()
        if self.arrays:
            return self.reduction()
        return self.literal()

    def negative_base(self):
        """`(-c) ** k`: a negative literal as the base of an integer power."""
        c = -self.pick([1.5, 2.0, 0.5, 2, 3, 1.25, 1])
        k = self.pick([2, 3, -1, -2, 2.0, 0, 1, 4])
        value = c ** k
        return V(binop(num(c), ast.Pow(), num(k)), value, value)

    def int_arith(self):
        """Integer arithmetic on literals: `-7 // 2`, `7 % -3`, `(-3) ** 2`, `2 ** -1`."""
        r = self.rng
        a = r.choice([7, -7, 5, -5, 3, -3, 9, 1])
        b = r.choice([2, -2, 3, -3, 4])
        op = r.choice([ast.FloorDiv(), ast.Mod(), ast.Pow(), ast.Sub(), ast.Mult()])
        if isinstance(op, ast.Pow):
            a, b = r.choice([(-3, 2), (2, -1), (-2, 3), (2, -2), (10, -1), (-1, 5)])
        value = {ast.FloorDiv: lambda: a // b, ast.Mod: lambda: a % b,
                 ast.Pow: lambda: a ** b, ast.Sub: lambda: a - b,
                 ast.Mult: lambda: a * b}[type(op)]()
        return V(binop(num(a), op, num(b)), value, value)

    # arrays

    def index(self, n):
        """An index expression in bounds for an axis of length n."""
        r = self.rng
        loops = [(k, v) for k, v in self.ints.items() if -n <= v[0] and v[1] <= n - 1]
        if loops and r.random() < 0.7:
            name, (lo, hi) = r.choice(loops)
            forms = [(ref(name), lo, hi)]
            if lo - 1 >= -n:
                forms.append((binop(ref(name), ast.Sub(), ast.Constant(1)), lo - 1, hi - 1))
            if -hi - 1 >= -n and -lo - 1 <= n - 1:
                forms.append((binop(ast.UnaryOp(ast.USub(), ref(name)), ast.Sub(),
                                    ast.Constant(1)), -hi - 1, -lo - 1))
            if lo >= 0:
                forms.append((binop(ref(name), ast.FloorDiv(), ast.Constant(2)),
                              lo // 2, hi // 2))
                forms.append((binop(binop(ref(name), ast.Add(), ast.Constant(1)), ast.Mod(),
                                    ast.Constant(n)), 0, n - 1))
            return r.choice(forms)[0]
        k = r.randrange(-n, n)
        return num(k)

    def element(self):
        name = self.pick(self.arrays)
        n, lo, hi = self.arrays[name]
        return V(ast.Subscript(ref(name), self.index(n), ast.Load()), lo, hi)

    def array_expr(self, name):
        """An elementwise expression of array `name` with scalars: (node, lo, hi)."""
        n, lo, hi = self.arrays[name]
        a = ref(name)
        s = self.squashed(self.expr(1), 1.0)
        form = self.rng.randrange(6)
        if form == 0:
            return call("np.sin", binop(a, ast.Mult(), s.node)), -1.0, 1.0
        if form == 1:
            return call("np.tanh", binop(a, ast.Sub(), s.node)), -1.0, 1.0
        if form == 2:
            m = max(abs(lo), abs(hi))
            return binop(binop(a, ast.Mult(), a), ast.Add(), s.node), -1.0, m * m + 1.0
        if form == 3:
            return call("np.exp", call("np.tanh", a)), math.exp(-1), math.e
        if form == 4:
            return binop(a, ast.Pow(), ast.Constant(2)), 0.0, max(lo * lo, hi * hi)
        return binop(call("np.cos", a), ast.Mult(), s.node), -1.0, 1.0

    def reduction(self):
        """A scalar from an array: sums, products, extremes, dot products."""
        r = self.rng
        name = self.pick(self.arrays)
        n, lo, hi = self.arrays[name]
        m = max(abs(lo), abs(hi))
        form = r.randrange(11 if "idioms" in self.recent else 9)
        a = ref(name)
        if form >= 9:
            return self.ufunc_reduction(name)
        if form == 0:
            return V(call("np.sum", a), -n * m, n * m)
        if form == 1:
            node, elo, ehi = self.array_expr(name)
            em = max(abs(elo), abs(ehi))
            return V(call(r.choice(["np.sum", "np.mean"]), node), -n * em, n * em)
        if form == 2:
            return V(call("np.dot", a, a), 0.0, n * m * m)
        if form == 3:
            return V(call(r.choice(["np.max", "np.min"]), a), lo, hi)
        if form == 4:
            return V(call("np.prod", call("np.cos", a)), -1.0, 1.0)
        if form == 5:
            return V(ast.Call(ast.Attribute(a, r.choice(["sum", "mean"]), ast.Load()), [], []),
                     -n * m, n * m)
        if form == 6:
            return V(self.sum_of_slice(a), -n * m, n * m)
        if form == 7 and "sum-list" not in self.avoid:
            return self.sum_of_list()
        return V(call("np.sum", binop(a, ast.Mult(), self.squashed(self.expr(1), 1.0).node)),
                 -n * m, n * m)

    def sum_of_slice(self, a):
        """`np.sum(a[1:] * np.sin(a[1:]))`, over one of a few slices of array `a`."""
        sl = self.rng.choice([ast.Slice(ast.Constant(1), None, None),
                              ast.Slice(None, num(-1), None),
                              ast.Slice(None, None, num(-1)),
                              ast.Slice(None, None, ast.Constant(2))])
        return call("np.sum", binop(ast.Subscript(a, sl, ast.Load()), ast.Mult(),
                                    call("np.sin", ast.Subscript(a, sl, ast.Load()))))

    def sum_of_list(self):
        """`np.sum([e1, c, e2])`: the sum of a list literal of two expressions and a literal."""
        items = [self.squashed(self.expr(1), 2.0), self.literal("float"),
                 self.squashed(self.expr(1), 2.0)]
        self.rng.shuffle(items)
        total = sum(v.mag for v in items)
        return V(call("np.sum", ast.List([v.node for v in items], ast.Load())), -total, total)


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
"""

import ast
import copy
import math
import random
import re

LIMIT = 6.0          # bound on |value| of an expression before it is squashed
LOOP_BOUND = 4.0     # bound on a value rebound inside a loop
AVOIDABLE = ("neg-base", "sum-list", "zero-singular")
INPUT_RANGE = 1.5    # the checker draws every input from [-1.5, 1.5]


# --------------------------------------------------------------------------- trees

def _num(value):
    """A literal as the parser reads it: a negative number is a unary minus."""
    if value < 0 or (value == 0 and math.copysign(1.0, value) < 0):
        return ast.UnaryOp(ast.USub(), ast.Constant(-value))
    return ast.Constant(value)


def _ref(dotted):
    """`math.pi` or `x` as a load expression."""
    parts = dotted.split(".")
    node = ast.Name(parts[0], ast.Load())
    for attr in parts[1:]:
        node = ast.Attribute(node, attr, ast.Load())
    return node


def _call(fn, *args):
    return ast.Call(_ref(fn), list(args), [])


def _bin(a, op, b):
    return ast.BinOp(a, op, b)


class V:
    """A float expression and an interval [lo, hi] holding its value."""

    __slots__ = ("node", "lo", "hi")

    def __init__(self, node, lo, hi):
        self.node, self.lo, self.hi = node, float(lo), float(hi)

    @property
    def mag(self):
        return max(abs(self.lo), abs(self.hi))


def _span(node, values):
    return V(node, min(values), max(values))


def _mul_iv(a, b):
    return [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]


def _pow_iv(lo, hi, k):
    """Bounds of v ** k for v in [lo, hi] (k an int; 0 not in [lo, hi] when k < 0)."""
    values = [lo ** k, hi ** k]
    if k > 0 and k % 2 == 0 and lo < 0 < hi:
        values.append(0.0)
    return values


# --------------------------------------------------------------------------- literals

_PLAIN_FLOATS = (0.5, 1.5, 2.0, 0.25, 3.0, 0.1, 1.25, 0.75, 2.5, 1e-3, 4.0)
_TINY = (1e-320, 5e-324, 2.5e-310, 1e-300, 2.2250738585072014e-308)
_HUGE = (1e300, 1.7976931348623157e308, 1e200, 8.98846567431158e307)
_NAMED = {"math.pi": math.pi, "math.e": math.e, "np.pi": math.pi, "np.e": math.e,
          "math.tau": math.tau}
_BASES = (2, 0.5, 1.5, 2.0, 3, "math.e", 10)


class _Exprs:
    """Expressions over the names in scope, each with an interval for its value."""

    def __init__(self, rng, consts, avoid):
        self.rng = rng
        self.consts = consts            # module-level constants: name -> value
        self.avoid = avoid
        self.floats = {}                # float name -> (lo, hi)
        self.ints = {}                  # int name -> (lo, hi)
        self.arrays = {}                # 1-d array name -> (length, lo, hi)
        self.bools = []                 # names holding the result of a test
        self.pool = []                  # (V, bounds of the names it reads) for reuse

    def chance(self, p):
        return self.rng.random() < p

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
            value = sign * r.choice(_TINY)
        else:
            value = float(f"{r.choice([1, 2.5, 5])}e{r.randrange(-8, 1)}") * sign
        return V(_num(value), value, value)

    def constant(self):
        """A module-level constant or a named one from math/numpy."""
        if self.consts and self.chance(0.6):
            name = self.pick(sorted(self.consts))
            value = self.consts[name]
            return V(_ref(name), value, value)
        name = self.pick(_NAMED)
        return V(_ref(name), _NAMED[name], _NAMED[name])

    def atom(self):
        r = self.rng
        roll = r.random()
        if roll < 0.45 and self.floats:
            name = self.pick(self.floats)
            return V(_ref(name), *self.floats[name])
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
                return V(_ref(name), lo, hi)
            return V(_call("float", _ref(name)), lo, hi)
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
        return V(_bin(_num(c), ast.Pow(), _num(k)), value, value)

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
        return V(_bin(_num(a), op, _num(b)), value, value)

    # arrays

    def index(self, n):
        """An index expression in bounds for an axis of length n."""
        r = self.rng
        loops = [(k, v) for k, v in self.ints.items() if -n <= v[0] and v[1] <= n - 1]
        if loops and r.random() < 0.7:
            name, (lo, hi) = r.choice(loops)
            forms = [(_ref(name), lo, hi)]
            if lo - 1 >= -n:
                forms.append((_bin(_ref(name), ast.Sub(), ast.Constant(1)), lo - 1, hi - 1))
            if -hi - 1 >= -n and -lo - 1 <= n - 1:
                forms.append((_bin(ast.UnaryOp(ast.USub(), _ref(name)), ast.Sub(),
                                   ast.Constant(1)), -hi - 1, -lo - 1))
            if lo >= 0:
                forms.append((_bin(_ref(name), ast.FloorDiv(), ast.Constant(2)),
                              lo // 2, hi // 2))
                forms.append((_bin(_bin(_ref(name), ast.Add(), ast.Constant(1)), ast.Mod(),
                                   ast.Constant(n)), 0, n - 1))
            return r.choice(forms)[0]
        k = r.randrange(-n, n)
        return _num(k)

    def element(self):
        name = self.pick(self.arrays)
        n, lo, hi = self.arrays[name]
        return V(ast.Subscript(_ref(name), self.index(n), ast.Load()), lo, hi)

    def array_expr(self, name):
        """An elementwise expression of array `name` with scalars: (node, lo, hi)."""
        n, lo, hi = self.arrays[name]
        a = _ref(name)
        s = self.squashed(self.expr(1), 1.0)
        form = self.rng.randrange(6)
        if form == 0:
            return _call("np.sin", _bin(a, ast.Mult(), s.node)), -1.0, 1.0
        if form == 1:
            return _call("np.tanh", _bin(a, ast.Sub(), s.node)), -1.0, 1.0
        if form == 2:
            m = max(abs(lo), abs(hi))
            return _bin(_bin(a, ast.Mult(), a), ast.Add(), s.node), -1.0, m * m + 1.0
        if form == 3:
            return _call("np.exp", _call("np.tanh", a)), math.exp(-1), math.e
        if form == 4:
            return _bin(a, ast.Pow(), ast.Constant(2)), 0.0, max(lo * lo, hi * hi)
        return _bin(_call("np.cos", a), ast.Mult(), s.node), -1.0, 1.0

    def reduction(self):
        """A scalar from an array: sums, products, extremes, dot products."""
        r = self.rng
        name = self.pick(self.arrays)
        n, lo, hi = self.arrays[name]
        m = max(abs(lo), abs(hi))
        form = r.randrange(9)
        a = _ref(name)
        if form == 0:
            return V(_call("np.sum", a), -n * m, n * m)
        if form == 1:
            node, elo, ehi = self.array_expr(name)
            em = max(abs(elo), abs(ehi))
            return V(_call(r.choice(["np.sum", "np.mean"]), node), -n * em, n * em)
        if form == 2:
            return V(_call("np.dot", a, a), 0.0, n * m * m)
        if form == 3:
            return V(_call(r.choice(["np.max", "np.min"]), a), lo, hi)
        if form == 4:
            return V(_call("np.prod", _call("np.cos", a)), -1.0, 1.0)
        if form == 5:
            return V(ast.Call(ast.Attribute(a, r.choice(["sum", "mean"]), ast.Load()), [], []),
                     -n * m, n * m)
        if form == 6:
            sl = r.choice([ast.Slice(ast.Constant(1), None, None),
                           ast.Slice(None, _num(-1), None),
                           ast.Slice(None, None, _num(-1)),
                           ast.Slice(None, None, ast.Constant(2))])
            return V(_call("np.sum", _bin(ast.Subscript(a, sl, ast.Load()), ast.Mult(),
                                          _call("np.sin", ast.Subscript(a, sl, ast.Load())))),
                     -n * m, n * m)
        if form == 7 and "sum-list" not in self.avoid:
            items = [self.squashed(self.expr(1), 2.0), self.literal("float"),
                     self.squashed(self.expr(1), 2.0)]
            r.shuffle(items)
            total = sum(v.mag for v in items)
            return V(_call("np.sum", ast.List([v.node for v in items], ast.Load())),
                     -total, total)
        return V(_call("np.sum", _bin(a, ast.Mult(), self.squashed(self.expr(1), 1.0).node)),
                 -n * m, n * m)

    # squashing and bounded forms

    def squashed(self, v, limit=1.0):
        """`v`, or `v` passed through a bounded function when it may exceed `limit`."""
        if v.mag <= limit:
            return v
        fn = self.pick(["math.tanh", "math.sin", "math.atan", "np.tanh", "math.cos"])
        if fn in ("math.tanh", "np.tanh"):
            out = V(_call(fn, v.node), math.tanh(v.lo), math.tanh(v.hi))
        elif fn == "math.atan":
            out = V(_call(fn, v.node), math.atan(v.lo), math.atan(v.hi))
        else:
            out = V(_call(fn, v.node), -1.0, 1.0)
        if out.mag <= limit:
            return out
        scale = self.pick([0.5, 0.25, 0.1])
        return V(_bin(ast.Constant(scale), ast.Mult(), out.node), out.lo * scale, out.hi * scale)

    def positive(self, d):
        """An expression whose value is at least 0.3 and at most LIMIT."""
        r = self.rng
        form = r.randrange(12)
        if form == 0 or d <= 0:
            s = self.squashed(self.expr(d - 1), 1.0)
            c = self.pick([1.5, 2.0, 2.5, "math.pi", "np.e", 2])
            cv = _NAMED.get(c, c) if isinstance(c, str) else c
            node = _ref(c) if isinstance(c, str) else ast.Constant(c)
            if r.random() < 0.5:
                v = V(_bin(node, ast.Add(), s.node), cv + s.lo, cv + s.hi)
            else:
                v = V(_bin(node, ast.Sub(), s.node), cv - s.hi, cv - s.lo)
        elif form == 1:
            s = self.squashed(self.expr(d - 1), 1.5)
            v = V(_call(self.pick(["math.exp", "np.exp"]), s.node),
                  math.exp(s.lo), math.exp(s.hi))
        elif form == 2:
            e = self.squashed(self.expr(d - 1), 2.0)
            c = self.pick([0.5, 1.0, 1, 0.75])
            sq = (_bin(e.node, ast.Pow(), ast.Constant(2)) if r.random() < 0.5
                  else _bin(e.node, ast.Mult(), e.node))
            v = V(_bin(sq, ast.Add(), ast.Constant(c)), c, e.mag ** 2 + c)
        elif form == 3:
            e = self.squashed(self.expr(d - 1), 3.0)
            c = self.pick([0.5, 1.0, 2])
            v = V(_call("math.hypot", e.node, ast.Constant(c)), c, math.hypot(e.mag, c))
        elif form == 4:
            e = self.squashed(self.expr(d - 1), 3.0)
            c = self.pick([0.5, 1.0, 0.3])
            v = V(_bin(_call(self.pick(["abs", "math.fabs", "np.abs"]), e.node), ast.Add(),
                       ast.Constant(c)), c, e.mag + c)
        elif form == 5:
            p = self.positive(d - 1)
            v = V(_call(self.pick(["math.sqrt", "np.sqrt"]), p.node),
                  math.sqrt(p.lo), math.sqrt(p.hi))
        elif form == 6:
            p = self.positive(d - 1)
            v = V(ast.UnaryOp(ast.USub(), ast.UnaryOp(ast.USub(), p.node)), p.lo, p.hi) \
                if r.random() < 0.6 else V(ast.UnaryOp(ast.UAdd(), p.node), p.lo, p.hi)
        elif form == 7:
            e = self.squashed(self.expr(d - 1), 3.0)
            c = self.pick([0.5, 1.0, 0.3])
            fn = self.pick(["max", "np.maximum"])
            args = [e.node, ast.Constant(c)] if r.random() < 0.5 else [ast.Constant(c), e.node]
            v = V(_call(fn, *args), c, max(c, e.hi))
        elif form == 8:
            a, b = self.positive(d - 1), self.positive(d - 1)
            v = V(ast.IfExp(self.cond(d - 1), a.node, b.node), min(a.lo, b.lo), max(a.hi, b.hi))
        elif form == 9:
            s = self.squashed(self.expr(d - 1), 1.5)
            base = self.pick([2, 2.0, 1.5, "math.e", 3])
            bv = math.e if base == "math.e" else base
            bnode = _ref(base) if isinstance(base, str) else ast.Constant(base)
            if r.random() < 0.5:
                v = V(_bin(bnode, ast.Pow(), ast.UnaryOp(ast.USub(), s.node)),
                      bv ** -s.hi, bv ** -s.lo)
            else:
                v = V(_bin(bnode, ast.Pow(), s.node), bv ** s.lo, bv ** s.hi)
        elif form == 10:
            s = self.squashed(self.expr(d - 1), 1.5)
            v = V(_call(self.pick(["math.cosh", "np.cosh"]), s.node), 1.0, math.cosh(s.mag))
        else:
            names = [k for k, (lo, hi) in self.floats.items() if lo >= 0.3 and hi <= LIMIT]
            consts = [k for k, c in self.consts.items() if 0.3 <= c <= LIMIT]
            if names or consts:
                name = self.pick(names + consts)
                lo, hi = self.floats.get(name, (self.consts.get(name),) * 2)
                v = V(_ref(name), lo, hi)
            else:
                c = self.pick([0.5, 1.5, 2.0, 3, 1e2 / 50])
                v = V(ast.Constant(c), c, c)
        if v.hi > LIMIT:
            v = V(_bin(ast.Constant(1.0), ast.Add(), _call("math.tanh", v.node)),
                  1.0 + math.tanh(v.lo), 2.0)
        return v

    def nonzero(self, d):
        """A value at least 0.3 away from zero, of either sign."""
        p = self.positive(d)
        if self.chance(0.5):
            return p
        if self.chance(0.5):
            return V(ast.UnaryOp(ast.USub(), p.node), -p.hi, -p.lo)
        return V(_bin(_num(-1.0), ast.Mult(), p.node), -p.hi, -p.lo)

    # expressions

    def expr(self, d):
        """A float expression of nesting depth at most d, bounded by LIMIT."""
        if d <= 0 or self.chance(0.2):
            return self.atom()
        if self.pool and self.chance(0.08):
            again = self.reuse()
            if again is not None:
                return again
        forms = [("arith", 10), ("div", 4), ("ipow", 4), ("fpow", 2), ("cpow", 2),
                 ("floordiv", 1), ("mod", 2), ("unary", 4), ("call1", 6), ("call2", 3),
                 ("ifexp", 3), ("inf", 1), ("huge", 1), ("tiny", 1), ("boolval", 1),
                 ("chain", 2), ("signed_zero", 1), ("mixed", 1), ("active_zero", 1)]
        form = self.rng.choices([f for f, _ in forms], [w for _, w in forms])[0]
        v = self.squashed(getattr(self, "_" + form)(d - 1), LIMIT)
        if d >= 2 and self.chance(0.3):
            self.pool.append((v, self.bounds_read(v.node)))
        return v

    def bounds_read(self, node):
        """The current bounds of every name `node` reads."""
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        scopes = (self.floats, self.ints, self.arrays)
        return {n: next((s[n] for s in scopes if n in s), None) for n in names}

    def reuse(self):
        """An expression written before, again (common subexpressions, also after a name in
        it was rebound), when every name it reads is bound within its earlier bounds."""
        v, then = self.pool[self.rng.randrange(len(self.pool))]
        now = self.bounds_read(v.node)
        for name, bound in then.items():
            if bound is None:
                if name not in ("math", "np") and name not in self.consts:
                    return None
                continue
            cur = now.get(name)
            if cur is None or len(cur) != len(bound) or not _within(cur, bound):
                return None
        return V(copy.deepcopy(v.node), v.lo, v.hi)

    def _arith(self, d):
        a, b = self.expr(d), self.expr(d)
        op = self.pick(["+", "-", "*"])
        if op == "+":
            return V(_bin(a.node, ast.Add(), b.node), a.lo + b.lo, a.hi + b.hi)
        if op == "-":
            return V(_bin(a.node, ast.Sub(), b.node), a.lo - b.hi, a.hi - b.lo)
        return _span(_bin(a.node, ast.Mult(), b.node), _mul_iv(a, b))

    def _div(self, d):
        a = self.expr(d)
        if self.chance(0.3):
            b, c = self.nonzero(d), self.nonzero(d)
            den = _span(_bin(b.node, ast.Mult(), c.node), _mul_iv(b, c))
        else:
            den = self.nonzero(d)
        inv = V(None, 1.0 / den.hi, 1.0 / den.lo)
        return _span(_bin(a.node, ast.Div(), den.node), _mul_iv(a, inv))

    def _ipow(self, d):
        k = self.pick([2, 3, 4, -1, -2, -3, 0, 1, 2.0, "K", "i"])
        if k == "K":
            ks = [n for n, c in self.consts.items() if isinstance(c, int) and -3 <= c <= 3]
            k = self.pick(ks) if ks else 2
        if k == "i":
            idx = [n for n, (lo, hi) in self.ints.items() if 0 <= lo and hi <= 3]
            k = self.pick(idx) if idx else 3
        kv = self.consts.get(k, k) if isinstance(k, str) else k
        if isinstance(k, str) and k in self.ints:
            lo, hi = self.ints[k]
            base = self.squashed(self.expr(d), 1.5)
            values = [v for kk in range(lo, hi + 1) for v in _pow_iv(base.lo, base.hi, kk)]
            return _span(_bin(base.node, ast.Pow(), _ref(k)), values)
        base = self.nonzero(d) if kv < 0 else self.squashed(self.expr(d), 2.0)
        knode = _ref(k) if isinstance(k, str) else _num(k)
        values = _pow_iv(base.lo, base.hi, int(kv))
        return _span(_bin(base.node, ast.Pow(), knode), values)

    def _fpow(self, d):
        base = self.positive(d)
        if self.chance(0.5):
            e = self.pick([0.5, -0.5, 1.5, -1.5, 2.5, 0.25, 1 / 3])
            enode, elo, ehi = _num(e), e, e
        else:
            s = self.squashed(self.expr(d), 2.0)
            enode, elo, ehi = s.node, s.lo, s.hi
        values = [b ** e for b in (base.lo, base.hi) for e in (elo, ehi)]
        if self.chance(0.3):
            return _span(_call(self.pick(["math.pow", "np.power"]), base.node, enode),
                         values)
        return _span(_bin(base.node, ast.Pow(), enode), values)

    def _cpow(self, d):
        """`2 ** -x`: a positive constant to a bounded power."""
        s = self.squashed(self.expr(d), 2.0)
        base = self.pick(_BASES)
        bv = math.e if base == "math.e" else base
        if bv == 10:
            s = self.squashed(s, 0.5)
        bnode = _ref(base) if isinstance(base, str) else ast.Constant(base)
        if self.chance(0.5):
            return _span(_bin(bnode, ast.Pow(), ast.UnaryOp(ast.USub(), s.node)),
                         [bv ** -s.lo, bv ** -s.hi])
        return _span(_bin(bnode, ast.Pow(), s.node), [bv ** s.lo, bv ** s.hi])

    def _floordiv(self, d):
        a = self.expr(d)
        c = self.pick([0.5, 1, 2, 0.25, -1.5, 3, -1])
        values = [math.floor(a.lo / c), math.floor(a.hi / c)]
        return _span(_bin(a.node, ast.FloorDiv(), _num(c)), values)

    def _mod(self, d):
        a = self.expr(d)
        if self.chance(0.5):
            c = self.pick([0.5, 1, 2, 0.7, -1.5, 3, -1])
            return _span(_bin(a.node, ast.Mod(), _num(c)), [0.0, c])
        p = self.positive(d)
        return V(_bin(a.node, ast.Mod(), p.node), 0.0, p.hi)

    def _unary(self, d):
        """Unary chains `- -x`, `-+x`, and `-x ** k` (the power binds tighter)."""
        if self.chance(0.3):
            k = self.pick([2, 3])
            base = self.squashed(self.expr(d), 2.0)
            powv = _span(_bin(base.node, ast.Pow(), ast.Constant(k)),
                         _pow_iv(base.lo, base.hi, k))
            return V(ast.UnaryOp(ast.USub(), powv.node), -powv.hi, -powv.lo)
        v = self.expr(d)
        for _ in range(self.rng.choice([1, 2, 2, 3])):
            if self.chance(0.7):
                v = V(ast.UnaryOp(ast.USub(), v.node), -v.hi, -v.lo)
            else:
                v = V(ast.UnaryOp(ast.UAdd(), v.node), v.lo, v.hi)
        return v

    def _call1(self, d):
        r = self.rng
        fn = self.pick(["sin", "cos", "tanh", "atan", "exp", "log", "sqrt", "fabs", "abs",
                        "float", "log_base", "np"])
        if fn in ("sin", "cos"):
            e = self.expr(d)
            return V(_call("math." + fn, e.node), -1.0, 1.0)
        if fn in ("tanh", "atan"):
            e = self.expr(d)
            f = getattr(math, fn)
            return V(_call("math." + fn, e.node), f(e.lo), f(e.hi))
        if fn == "exp":
            e = self.squashed(self.expr(d), 1.5)
            return V(_call("math.exp", e.node), math.exp(e.lo), math.exp(e.hi))
        if fn == "log":
            p = self.positive(d)
            return V(_call("math.log", p.node), math.log(p.lo), math.log(p.hi))
        if fn == "log_base":
            p = self.positive(d)
            base = self.pick([2, 10, 2.0, 0.5])
            values = [math.log(p.lo, base), math.log(p.hi, base)]
            return _span(_call("math.log", p.node, _num(base)), values)
        if fn == "sqrt":
            p = self.positive(d)
            return V(_call("math.sqrt", p.node), math.sqrt(p.lo), math.sqrt(p.hi))
        if fn in ("fabs", "abs"):
            e = self.expr(d)
            node = _call("math.fabs" if fn == "fabs" else "abs", e.node)
            return V(node, 0.0 if e.lo <= 0 <= e.hi else min(abs(e.lo), abs(e.hi)), e.mag)
        if fn == "float":
            e = self.expr(d) if r.random() < 0.7 else self.literal("int")
            return V(_call("float", e.node), e.lo, e.hi)
        e = self.squashed(self.expr(d), 1.5)
        f = self.pick(["sin", "tanh", "exp", "arctan"])
        values = {"sin": (-1.0, 1.0), "tanh": (math.tanh(e.lo), math.tanh(e.hi)),
                  "exp": (math.exp(e.lo), math.exp(e.hi)),
                  "arctan": (math.atan(e.lo), math.atan(e.hi))}[f]
        return V(_call("np." + f, e.node), *values)

    def _call2(self, d):
        r = self.rng
        fn = self.pick(["hypot", "minmax", "minmax3", "atan2", "pow_int"])
        if fn == "hypot":
            a, b = self.expr(d), self.expr(d)
            return V(_call("math.hypot", a.node, b.node), 0.0, math.hypot(a.mag, b.mag))
        if fn in ("minmax", "minmax3"):
            vs = [self.expr(d) for _ in range(2 if fn == "minmax" else 3)]
            name = r.choice(["min", "max"])
            f = min if name == "min" else max
            return V(_call(name, *[v.node for v in vs]), f(v.lo for v in vs),
                     f(v.hi for v in vs))
        if fn == "atan2":
            a, p = self.expr(d), self.positive(d)
            return V(_call("math.atan2", a.node, p.node), -math.pi / 2, math.pi / 2)
        base = self.squashed(self.expr(d), 2.0)
        k = self.pick([2, 3, 2.0])
        values = _pow_iv(base.lo, base.hi, int(k))
        return _span(_call("math.pow", base.node, _num(k)), values)

    def _ifexp(self, d):
        a, b = self.expr(d), self.expr(d)
        v = V(ast.IfExp(self.cond(d), a.node, b.node), min(a.lo, b.lo), max(a.hi, b.hi))
        if self.chance(0.4):      # (a if c else b) ** 2
            values = _pow_iv(v.lo, v.hi, 2)
            return _span(_bin(v.node, ast.Pow(), ast.Constant(2)), values)
        if self.chance(0.4):      # a conditional expression inside arithmetic
            e = self.expr(d)
            return _span(_bin(e.node, ast.Mult(), v.node), _mul_iv(e, v))
        return v

    def _inf(self, d):
        """`min(e, np.inf)`, `max(-math.inf, e)`: infinities where a finite value follows."""
        e = self.expr(d)
        node = _ref(self.pick(["np.inf", "math.inf", "np.inf"]))
        if self.chance(0.5):
            args = [e.node, node] if self.chance(0.5) else [node, e.node]
            return V(_call(self.pick(["min", "np.minimum"]), *args), e.lo, e.hi)
        neg = ast.UnaryOp(ast.USub(), node)
        args = [e.node, neg] if self.chance(0.5) else [neg, e.node]
        return V(_call(self.pick(["max", "np.maximum"]), *args), e.lo, e.hi)

    def _huge(self, d):
        """A huge literal where the result stays finite."""
        e = self.squashed(self.expr(d), LIMIT)
        big = self.pick(_HUGE[:2] if self.chance(0.5) else (1e300,))
        form = self.rng.randrange(4)
        if form == 0:
            return V(_call("min", e.node, ast.Constant(big)), e.lo, e.hi)
        if form == 1:
            return V(_call("max", _num(-big), e.node), e.lo, e.hi)
        if form == 2:       # scaled up and back: exact for |e| < LIMIT, far from overflow
            node = _bin(_bin(e.node, ast.Div(), ast.Constant(1e300)), ast.Mult(),
                        ast.Constant(1e300))
            return V(node, e.lo * 1.0000001 - 1e-300, e.hi * 1.0000001 + 1e-300)
        return V(_bin(_bin(ast.Constant(1e300), ast.Div(), ast.Constant(1e300)), ast.Mult(),
                      e.node), e.lo, e.hi)

    def _tiny(self, d):
        """A tiny or subnormal literal added, multiplied or compared."""
        e = self.expr(d)
        t = self.pick(_TINY)
        form = self.rng.randrange(4)
        if form == 0:
            return V(_bin(e.node, ast.Add(), _num(t)), e.lo, e.hi + t)
        if form == 1:
            return V(_bin(e.node, ast.Mult(), _num(t)), -e.mag * t, e.mag * t)
        if form == 2:
            p = self.positive(d)
            return V(_call("math.sqrt", _bin(p.node, ast.Add(), _num(t))),
                     math.sqrt(p.lo), math.sqrt(p.hi + t))
        z = self.pick([-0.0, 0.0, 0])
        if self.chance(0.5):
            return V(_bin(e.node, ast.Mult(), _num(z)), 0.0, 0.0)
        return V(_bin(_num(z), ast.Sub(), e.node), -e.hi, -e.lo)

    def _chain(self, d):
        """Literals around an operand: `e + 1.0 + 2.0`, `0.1 * e * 3.0`, `1.5 - (e - 2)`,
        which are not reassociable in floating point."""
        e = self.squashed(self.expr(d), 2.0)
        c1, c2 = (self.pick([0.1, 0.2, 0.3, 1.0, 2.0, 3, 1e-3, 0.7, 1e-16]) for _ in "12")
        form = self.rng.randrange(5)
        if form == 0:
            return V(_bin(_bin(e.node, ast.Add(), _num(c1)), ast.Add(), _num(c2)),
                     e.lo + c1 + c2, e.hi + c1 + c2)
        if form == 1:
            return V(_bin(_bin(e.node, ast.Sub(), _num(c1)), ast.Sub(), _num(c2)),
                     e.lo - c1 - c2, e.hi - c1 - c2)
        if form == 2:
            return _span(_bin(_bin(_num(c1), ast.Mult(), e.node), ast.Mult(), _num(c2)),
                         [e.lo * c1 * c2, e.hi * c1 * c2])
        if form == 3:
            return V(_bin(_num(c1), ast.Sub(), _bin(e.node, ast.Sub(), _num(c2))),
                     c1 - e.hi + c2, c1 - e.lo + c2)
        return V(_bin(_num(c1), ast.Add(), _bin(_num(c2), ast.Add(), e.node)),
                 e.lo + c1 + c2, e.hi + c1 + c2)

    def _signed_zero(self, d):
        """A zero whose sign matters: `math.atan2(e * 0.0 + 0.0, -1.5)` is pi or -pi."""
        e = self.expr(d)
        zero = self.pick([
            _bin(e.node, ast.Mult(), ast.Constant(0.0)),
            _bin(e.node, ast.Mult(), _num(-0.0)),
            _bin(_bin(e.node, ast.Mult(), ast.Constant(0.0)), ast.Add(), ast.Constant(0.0)),
            _bin(_bin(e.node, ast.Mult(), ast.Constant(0.0)), ast.Sub(), ast.Constant(0.0)),
            ast.UnaryOp(ast.USub(), _bin(e.node, ast.Sub(), copy.deepcopy(e.node))),
            _bin(_num(-0.0), ast.Sub(), _bin(e.node, ast.Mult(), ast.Constant(0.0))),
            _bin(_num(-0.0), ast.Add(), _bin(e.node, ast.Mult(), _num(-0.0)))])
        if self.chance(0.7):
            return V(_call("math.atan2", zero, _num(self.pick([-1.5, -1.0, -2]))),
                     -math.pi, math.pi)
        return V(_bin(_call(self.pick(["max", "min"]), zero, _num(self.pick([0.0, -0.0]))),
                      ast.Add(), e.node), e.lo, e.hi)

    def active_zero(self, d):
        """An expression that is exactly zero for every input but reads one: `x * 0.0`,
        `y - y`, `0.0 * math.sin(z)`.  Its gradient is zero."""
        e = self.expr(d)
        return self.pick([
            _bin(e.node, ast.Mult(), ast.Constant(0.0)),
            _bin(e.node, ast.Mult(), _num(-0.0)),
            _bin(e.node, ast.Sub(), copy.deepcopy(e.node)),
            _bin(ast.Constant(0.0), ast.Mult(), _call("math.sin", e.node))])

    def _active_zero(self, d):
        """A function at a zero argument where it is finite: `abs(x * 0.0)`,
        `(y - y) ** 2`, `math.hypot(x * 0.0, 1.5)`; with "zero-singular" not avoided also
        where its derivative is not (`math.sqrt(x * 0.0)`, `math.hypot(x * 0.0, y * 0.0)`),
        though the composite's derivative is zero."""
        z = self.active_zero(d)
        forms = [
            lambda: _call(self.pick(["abs", "math.fabs", "np.abs"]), z),
            lambda: _bin(z, ast.Pow(), _num(self.pick([2, 1, 0, 3, 2.0]))),
            lambda: _call("math.pow", z, _num(self.pick([2.0, 3, 1.0]))),
            lambda: _call("math.hypot", z, _num(self.pick([1.5, -0.5]))),
            lambda: _call("math.atan2", z, _num(self.pick([1.0, 2.5]))),
            lambda: _call(self.pick(["max", "min"]), z, _num(self.pick([0.0, -0.0, 0]))),
            lambda: _call(self.pick(["math.sin", "math.tanh", "math.atan"]), z)]
        if "zero-singular" not in self.avoid:
            forms += [
                lambda: _call(self.pick(["math.sqrt", "np.sqrt"]), z),
                lambda: _bin(z, ast.Pow(), _num(self.pick([0.5, 1.5, 2.5]))),
                lambda: _call("math.hypot", z, self.active_zero(d)),
                lambda: _call("math.atan2", z, self.active_zero(d))]
        node = self.pick(forms)()
        e = self.squashed(self.expr(d), 2.0)
        return V(_bin(node, ast.Add(), e.node), e.lo - math.pi, e.hi + math.pi)

    def _mixed(self, d):
        """Ints and floats and bools mixed: `max(0, e)`, `min(1, e)`, `flag * e`."""
        e = self.expr(d)
        if self.bools and self.chance(0.4):
            flag = _ref(self.pick(self.bools))
            args = [flag, e.node] if self.chance(0.5) else [e.node, flag]
            return V(_bin(args[0], ast.Mult(), args[1]), min(0.0, e.lo), max(0.0, e.hi))
        k = self.pick([0, 1, -1])
        if self.chance(0.5):
            return V(_call("max", _num(k), e.node), max(k, e.lo), max(k, e.hi))
        return V(_call("min", e.node, _num(k)), min(k, e.lo), min(k, e.hi))

    def _boolval(self, d):
        """`e1 or e2`, `e1 and e2`: a value chosen by truthiness."""
        a, b = self.expr(d), self.expr(d)
        op = ast.Or() if self.chance(0.5) else ast.And()
        return V(ast.BoolOp(op, [a.node, b.node]), min(a.lo, b.lo), max(a.hi, b.hi))

    # conditions

    def cond(self, d):
        """A test: comparisons (chained), `and`/`or`/`not`, truthiness of a value."""
        r = self.rng
        form = r.choices(["cmp", "chain", "not", "boolop", "truth", "const", "int", "flag"],
                         [6, 3, 2, 3, 1, 1, 1, 1 if self.bools else 0])[0]
        if form == "flag":
            return _ref(self.pick(self.bools))
        if d <= 0 and form in ("not", "boolop"):
            form = "cmp"
        if form == "cmp":
            a, b = self.expr(d), self.expr(d) if r.random() < 0.6 else self.literal()
            op = r.choice([ast.Lt(), ast.LtE(), ast.Gt(), ast.GtE(), ast.NotEq(), ast.Eq()])
            return ast.Compare(a.node, [op], [b.node])
        if form == "chain":
            items = [self.expr(d) for _ in range(r.choice([3, 3, 4]))]
            ops = [r.choice([ast.Lt(), ast.LtE()]) for _ in items[1:]]
            if r.random() < 0.3:
                ops = [r.choice([ast.Gt(), ast.GtE(), ast.NotEq()]) for _ in items[1:]]
            return ast.Compare(items[0].node, ops, [v.node for v in items[1:]])
        if form == "not":
            return ast.UnaryOp(ast.Not(), self.cond(d - 1))
        if form == "boolop":
            op = ast.And() if r.random() < 0.5 else ast.Or()
            return ast.BoolOp(op, [self.cond(d - 1) for _ in range(r.choice([2, 2, 3]))])
        if form == "truth":
            return self.expr(d).node
        if form == "const":
            return ast.BoolOp(r.choice([ast.And(), ast.Or()]),
                              [ast.Constant(r.choice([True, False])), self.cond(d - 1)])
        if self.ints:
            name = self.pick(self.ints)
            return ast.Compare(_bin(_ref(name), ast.Mod(), ast.Constant(2)), [ast.Eq()],
                               [ast.Constant(r.randrange(2))])
        return ast.Compare(self.expr(d).node, [ast.Gt()], [_num(0)])


# --------------------------------------------------------------------------- statements

class _Body(_Exprs):
    """Statements of one function body; names rebound in branches and loops keep the
    interval of every value they may hold."""

    def __init__(self, rng, consts, avoid):
        super().__init__(rng, consts, avoid)
        self.counter = 0
        self.carried = None       # in a loop: names the body may rebind, with their bounds
        self.accs = {}            # in a loop: accumulator -> increment bound
        self.loop_depth = 0
        self.budget = 0
        self.writable = []        # local arrays the body may write into

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def assign(self, name, v):
        """`name = v`, squashed to fit the loop-carried bound of `name` if it has one."""
        if self.carried is not None and name in self.carried:
            v = self.squashed(v, LOOP_BOUND if self.carried[name] is None else 1.0)
            lo, hi = self.carried[name] or (-LOOP_BOUND, LOOP_BOUND)
            v = V(v.node, lo, hi)
        self.floats[name] = (v.lo, v.hi)
        return ast.Assign([ast.Name(name, ast.Store())], v.node)

    def block(self, d):
        """A list of statements, at least one."""
        out = []
        for _ in range(self.rng.randrange(1, 4)):
            out += self.stmt(d)
            if self.budget <= 0:
                break
        return out or [ast.Pass()]

    def stmt(self, d):
        self.budget -= 1
        r = self.rng
        forms = [("new", 5), ("rebind", 4), ("aug", 3), ("if", 3 if d > 0 else 0),
                 ("for", 2 if d > 0 and self.loop_depth < 2 else 0),
                 ("while", 1 if d > 0 and self.loop_depth < 2 else 0),
                 ("jump", 2 if self.loop_depth else 0), ("intvar", 1), ("parallel", 2),
                 ("multi", 1), ("flag", 1), ("write", 3 if self.writable else 0)]
        form = r.choices([f for f, _ in forms], [w for _, w in forms])[0]
        return getattr(self, "_s_" + form)(d)

    def targets(self):
        """Float names a statement here may rebind: in a loop, only loop-carried ones."""
        if self.carried is not None:
            names = sorted(self.carried) + sorted(self.accs)
            return [n for n in names if n in self.floats]
        return sorted(self.floats)

    def _s_new(self, d):
        name = self.fresh("v")
        v = self.expr(self.rng.randrange(1, 4))
        if self.carried is not None:
            self.carried[name] = None
        return [self.assign(name, v)]

    def _s_rebind(self, d):
        names = [n for n in self.targets() if n not in self.accs]
        if not names:
            return self._s_new(d)
        name = self.pick(names)
        v = self.expr(self.rng.randrange(1, 4))
        return [self.assign(name, v)]

    def _s_aug(self, d):
        r = self.rng
        if self.carried is not None and self.accs and r.random() < 0.6:
            name = self.pick(sorted(self.accs))
            inc = self.squashed(self.expr(2), self.accs[name])
            op = r.choice([ast.Add(), ast.Sub()])
            return [ast.AugAssign(ast.Name(name, ast.Store()), op, inc.node)]
        names = [n for n in self.targets() if n not in self.accs]
        if not names:
            return self._s_new(d)
        name = self.pick(names)
        lo, hi = self.floats[name]
        cur = V(None, lo, hi)
        kind = r.choice(["add", "mul", "div", "pow"])
        if self.carried is not None and kind == "add":
            kind = "mul"
        if kind == "add":
            e = self.expr(2)
            op = r.choice([ast.Add(), ast.Sub()])
            new = (lo + e.lo, hi + e.hi) if isinstance(op, ast.Add) else (lo - e.hi, hi - e.lo)
        elif kind == "mul":
            e = self.squashed(self.expr(2), 1.0)
            op = ast.Mult()
            new = (min(_mul_iv(cur, e)), max(_mul_iv(cur, e)))
        elif kind == "div":
            e = self.positive(1)
            e = e if e.lo >= 1.0 else V(_bin(ast.Constant(1.0), ast.Add(), e.node),
                                         1.0 + e.lo, 1.0 + e.hi)
            op = ast.Div()
            new = (min(lo / e.lo, lo / e.hi, 0.0), max(hi / e.lo, hi / e.hi, 0.0))
        else:
            op, k = ast.Pow(), r.choice([2, 3])
            e = V(ast.Constant(k), k, k)
            values = _pow_iv(lo, hi, k)
            new = (min(values), max(values))
            if max(map(abs, new)) > LIMIT:
                return self._s_rebind(d)
        if self.carried is not None and name in self.carried:
            bound = self.carried[name] or (-LOOP_BOUND, LOOP_BOUND)
            if new[0] < bound[0] or new[1] > bound[1]:
                return self._s_rebind(d)
        if max(map(abs, new)) > LIMIT:
            return self._s_rebind(d)
        self.floats[name] = new
        return [ast.AugAssign(ast.Name(name, ast.Store()), op, e.node)]

    def _s_parallel(self, d):
        """`p, q = q, p` and `p, q = e1, e2`: every right side is read before any write."""
        names = [n for n in self.targets() if n not in self.accs]
        if len(names) < 2:
            return self._s_new(d)
        p, q = self.rng.sample(names, 2)
        if self.chance(0.5):
            vp, vq = V(_ref(q), *self.floats[q]), V(_ref(p), *self.floats[p])
        else:
            vp, vq = self.expr(2), self.expr(2)
        nodes = []
        for name, v in ((p, vp), (q, vq)):
            nodes.append(self.assign(name, v).value)
        return [ast.Assign([ast.Tuple([ast.Name(p, ast.Store()), ast.Name(q, ast.Store())],
                                      ast.Store())], ast.Tuple(nodes, ast.Load()))]

    def _s_multi(self, d):
        """`u = w = e`: one value bound to two names."""
        u, w = self.fresh("v"), self.fresh("w")
        v = self.expr(2)
        if self.carried is not None:
            self.carried[u] = self.carried[w] = None
        first = self.assign(u, v)
        self.assign(w, V(first.value, v.lo, v.hi))
        first.targets.append(ast.Name(w, ast.Store()))
        self.floats[w] = self.floats[u]
        return [first]

    def _s_write(self, d):
        """`w[i] = e`, `w[-1] *= e`, `w[i - 1] += e` into a local array."""
        r = self.rng
        name = self.pick(self.writable)
        n, lo, hi = self.arrays[name]
        target = ast.Subscript(_ref(name), self.index(n), ast.Store())
        kind = r.choice(["set", "mul", "add"])
        if kind == "add" and (self.carried is not None or max(-lo, hi) + 1.0 > LIMIT):
            kind = "set"
        if kind == "set":
            v = self.squashed(self.expr(2), 1.0)
            stmt = ast.Assign([target], v.node)
        elif kind == "mul":
            v = self.squashed(self.expr(2), 1.0)
            stmt = ast.AugAssign(target, ast.Mult(), v.node)
        else:
            v = self.squashed(self.expr(2), 1.0)
            stmt = ast.AugAssign(target, r.choice([ast.Add(), ast.Sub()]), v.node)
            lo, hi = lo - 1.0, hi + 1.0
        self.arrays[name] = (n, min(lo, -1.0), max(hi, 1.0))
        return [stmt]

    def _s_flag(self, d):
        """A name holding the result of a test, used later in tests and arithmetic."""
        name = self.fresh("flag")
        test = self.cond(2)
        if self.carried is None:
            self.bools.append(name)
        return [ast.Assign([ast.Name(name, ast.Store())], test)]

    def _s_intvar(self, d):
        name = self.fresh("n")
        r = self.rng
        if self.arrays and r.random() < 0.5:
            arr = self.pick(self.arrays)
            n = self.arrays[arr][0]
            node = (_call("len", _ref(arr)) if r.random() < 0.5 else
                    ast.Subscript(ast.Attribute(_ref(arr), "shape", ast.Load()),
                                  ast.Constant(0), ast.Load()))
            self.ints[name] = (n, n)
            return [ast.Assign([ast.Name(name, ast.Store())], node)]
        v = self.int_arith()
        if not isinstance(eval(ast.unparse(v.node)), int):
            v = self.literal("int")     # `2 ** -1` is a float
        self.ints[name] = (int(v.lo), int(v.hi))
        return [ast.Assign([ast.Name(name, ast.Store())], v.node)]

    def _branch(self, d):
        """Statements of one branch, and the float names it leaves with their bounds."""
        saved = dict(self.floats), dict(self.ints), list(self.bools)
        body = self.block(d - 1)
        after = dict(self.floats)
        self.floats, self.ints, self.bools = dict(saved[0]), saved[1], saved[2]
        return body, after

    def _s_if(self, d):
        r = self.rng
        test = self.cond(2)
        before = dict(self.floats)
        body, after_body = self._branch(d)
        branches = [after_body]
        orelse = []
        if r.random() < 0.6:
            if r.random() < 0.3:
                inner_test = self.cond(2)
                inner, after_inner = self._branch(d)
                other, after_other = self._branch(d)
                orelse = [ast.If(inner_test, inner, other)]
                branches += [after_inner, after_other]
            else:
                orelse, after_else = self._branch(d)
                branches.append(after_else)
        else:
            branches.append(before)
        if self.loop_depth == 0 and r.random() < 0.1:
            body.append(ast.Return(self.expr(2).node))
            branches = branches[1:]
        self.floats = _merge(branches)
        return [ast.If(test, body, orelse)]

    def _loop(self, header_stmts, make_loop, trips, d, index=None):
        """Generate a loop body with every visible float name allowed to be rebound within
        LOOP_BOUND; `make_loop(body)` builds the loop statement."""
        saved_carried, saved_accs = self.carried, self.accs
        acc_stmts = []
        accs = {}
        for _ in range(self.rng.choice([0, 1, 1, 2])):
            name = self.fresh("acc")
            step = self.pick([1.0, 0.5])
            accs[name] = step
            acc_stmts.append(ast.Assign([ast.Name(name, ast.Store())], _num(self.pick(
                [0.0, 0, 1.0, -0.0]))))
        before, ints_before = dict(self.floats), dict(self.ints)
        carried = {}
        for name, (lo, hi) in self.floats.items():
            if -LOOP_BOUND <= lo and hi <= LOOP_BOUND:
                carried[name] = (-LOOP_BOUND, LOOP_BOUND)
        self.carried = dict(carried)
        self.accs = accs
        for name in carried:
            self.floats[name] = carried[name]
        for name, step in accs.items():
            self.floats[name] = (-trips * step - 1.0, trips * step + 1.0)
        if index is not None:
            self.ints[index[0]] = index[1]
        self.loop_depth += 1
        body = self.block(d - 1)
        self.loop_depth -= 1
        self.ints = ints_before
        self.carried, self.accs = saved_carried, saved_accs
        floats = {k: v for k, v in before.items()}
        for name in carried:
            floats[name] = (min(before[name][0], -LOOP_BOUND), max(before[name][1], LOOP_BOUND))
        for name, step in accs.items():
            floats[name] = (-trips * step - 1.0, trips * step + 1.0)
        if saved_carried is not None:
            for name in accs:
                saved_carried[name] = floats[name]
        self.floats = floats
        return header_stmts + acc_stmts + [make_loop(body)]

    def _s_for(self, d):
        r = self.rng
        i = self.fresh("i")
        arr = self.pick(self.arrays) if self.arrays else None
        n = self.arrays[arr][0] if arr else 4
        form = r.randrange(9)
        if form == 7:       # a loop that never runs
            it = r.choice([_call("range", ast.Constant(0)),
                           _call("range", ast.Constant(2), ast.Constant(2)),
                           _call("range", ast.Constant(3), ast.Constant(0)),
                           _call("range", _num(-2))])
            return self._loop([], lambda body: ast.For(ast.Name(i, ast.Store()), it, body, []),
                              0, d, index=(i, (0, 0)))
        if form == 8:       # over a tuple of values
            items = [self.expr(1) for _ in range(r.randrange(2, 4))]
            self.floats[i] = (min(v.lo for v in items), max(v.hi for v in items))
            tup = ast.Tuple([v.node for v in items], ast.Load())
            return self._loop([], lambda body: ast.For(ast.Name(i, ast.Store()), tup, body, []),
                              len(items), d)
        if form == 0 or (arr is None and form in (1, 2, 5)):
            t = r.randrange(1, 5)
            it, rng_iv, trips = _call("range", ast.Constant(t)), (0, t - 1), t
        elif form == 1:
            it, rng_iv, trips = _call("range", _call("len", _ref(arr))), (0, n - 1), n
        elif form == 2:
            shape = ast.Subscript(ast.Attribute(_ref(arr), "shape", ast.Load()),
                                  ast.Constant(0), ast.Load())
            it = _call("range", _bin(shape, ast.Sub(), ast.Constant(1)), _num(-1), _num(-1))
            rng_iv, trips = (0, n - 1), n
        elif form == 3:
            t = r.randrange(2, 5)
            it, rng_iv, trips = (_call("range", ast.Constant(1), ast.Constant(t + 1)),
                                 (1, t), t)
        elif form == 4:
            it = _call("range", _num(-2), ast.Constant(2))
            rng_iv, trips = (-2, 1), 4
        elif form == 5:     # over the elements of an array: i is a float
            _, lo, hi = self.arrays[arr]
            self.floats[i] = (lo, hi)
            return self._loop([], lambda body: ast.For(ast.Name(i, ast.Store()), _ref(arr),
                                                       body, []), n, d)
        else:
            t = r.randrange(2, 5)
            it = _call("range", ast.Constant(t), ast.Constant(0), _num(-1))
            rng_iv, trips = (1, t), t
        return self._loop([], lambda body: ast.For(ast.Name(i, ast.Store()), it, body, []),
                          trips, d, index=(i, rng_iv))

    def _s_while(self, d):
        r = self.rng
        k = self.fresh("k")
        trips = r.randrange(1, 4)
        test = ast.Compare(_ref(k), [ast.Lt()], [ast.Constant(trips)])
        if r.random() < 0.5:
            test = ast.BoolOp(r.choice([ast.And()]), [test, self.cond(1)])
        init = ast.Assign([ast.Name(k, ast.Store())], ast.Constant(0))
        step = ast.AugAssign(ast.Name(k, ast.Store()), ast.Add(), ast.Constant(1))

        def make(body):
            return ast.While(test, [step] + body, [])
        return self._loop([init], make, trips, d, index=(k, (1, trips)))

    def _s_jump(self, d):
        """`if c: break`, `continue`, or an early `return` from inside the loop."""
        roll = self.rng.random()
        body = [ast.Break() if roll < 0.4 else ast.Continue() if roll < 0.8
                else ast.Return(self.expr(2).node)]
        return [ast.If(self.cond(2), body, [])]


def _within(inner, outer):
    """Whether bounds `inner` lie within `outer` (intervals, or array (n, lo, hi))."""
    if len(inner) == 3:
        return inner[0] == outer[0] and _within(inner[1:], outer[1:])
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def _merge(branches):
    """The float names defined on every branch, with the hull of their bounds."""
    names = set(branches[0])
    for b in branches[1:]:
        names &= set(b)
    return {n: (min(b[n][0] for b in branches), max(b[n][1] for b in branches))
            for n in sorted(names)}


# --------------------------------------------------------------------------- programs

def _constants(rng):
    """Module-level constants: ints and floats of both signs, tiny ones too."""
    pool = [("K", rng.choice([-3, -2, 2, 3, 0, 1])),
            ("C", rng.choice([-0.5, 2.5, -1.25, 0.75, 1e-3])),
            ("TINY", rng.choice([1e-320, 5e-324, -1e-310])),
            ("NEG", rng.choice([-2.0, -1, -0.0])),
            ("HALF", 0.5)]
    return dict(rng.sample(pool, rng.randrange(0, 4)))


def generate(seed, avoid=()):
    """(module source, argument spec) of grammar program `seed`; the spec is a tuple of
    (name, shape) pairs, () for a float."""
    avoid = frozenset(avoid)
    unknown = avoid - set(AVOIDABLE)
    if unknown:
        raise ValueError(f"unknown constructs to avoid: {sorted(unknown)}; known: {AVOIDABLE}")
    rng = random.Random(f"grammar-{seed}")
    consts = _constants(rng)
    g = _Body(rng, consts, avoid)
    spec = [("x", ()), ("y", ()), ("z", ())]
    for name in ("x", "y", "z"):
        g.floats[name] = (-INPUT_RANGE, INPUT_RANGE)
    if rng.random() < 0.5:
        n = rng.randrange(3, 7)
        spec.append(("a", (n,)))
        g.arrays["a"] = (n, -INPUT_RANGE, INPUT_RANGE)
    body = []
    if g.arrays and rng.random() < 0.4:
        name = g.fresh("b")
        node, lo, hi = g.array_expr("a")
        body.append(ast.Assign([ast.Name(name, ast.Store())], node))
        g.arrays[name] = (g.arrays["a"][0], lo, hi)
    if g.arrays and rng.random() < 0.4:
        body.append(_writable(g))
    g.budget = rng.randrange(2, 9)
    while g.budget > 0:
        body += g.stmt(2)
    body.append(ast.Return(_final(g)))
    args = ast.arguments(posonlyargs=[], args=[ast.arg(name) for name, _ in spec],
                         kwonlyargs=[], kw_defaults=[], defaults=[])
    fn = ast.FunctionDef(name="f", args=args, body=body, decorator_list=[], returns=None,
                         type_params=[])
    module = ast.Module([ast.Import([ast.alias("math")]),
                         ast.Import([ast.alias("numpy", "np")])]
                        + [ast.Assign([ast.Name(k, ast.Store())], _num(v))
                           for k, v in consts.items()] + [fn], [])
    if "neg-base" in avoid:
        module = _FoldNegativeBases().visit(module)
    ast.fix_missing_locations(module)
    text = ast.unparse(module)
    header = f"# srcad grammar program, seed {seed}, args: {format_spec(spec)}\n"
    return _layout(header + text) + "\n", tuple(spec)


def _writable(g):
    """`w = a.copy()` (or zeros, or an expression of a): a local array to write into."""
    name = g.fresh("w")
    n = g.arrays["a"][0]
    node, lo, hi = g.pick([
        (ast.Call(ast.Attribute(_ref("a"), "copy", ast.Load()), [], []), -INPUT_RANGE,
         INPUT_RANGE),
        (_call("np.zeros", ast.Constant(n)), 0.0, 0.0),
        (_call("np.zeros_like", _ref("a")), 0.0, 0.0),
        (_bin(_ref("a"), ast.Mult(), ast.Constant(1.0)), -INPUT_RANGE, INPUT_RANGE),
        (_call("np.sin", _ref("a")), -1.0, 1.0)])
    g.arrays[name] = (n, lo, hi)
    g.writable.append(name)
    return ast.Assign([ast.Name(name, ast.Store())], node)


class _FoldNegativeBases(ast.NodeTransformer):
    """`(-c) ** k` with literal c and k becomes the literal it equals."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        left = node.left
        if isinstance(node.op, ast.Pow) and isinstance(left, ast.UnaryOp) and \
                isinstance(left.op, ast.USub) and isinstance(left.operand, ast.Constant):
            try:
                return _num(eval(ast.unparse(node)))
            except (ArithmeticError, ValueError):
                return node
        return node


def _final(g):
    """The returned value: an expression plus the names bound last, so that most of the
    body reaches the output."""
    names = [n for n in g.floats if n not in ("x", "y", "z")][-3:]
    names += g.rng.sample(["x", "y", "z"], g.rng.randrange(0, 3))
    node = g.expr(g.rng.randrange(1, 4)).node
    for name in names:
        op = g.pick([ast.Add(), ast.Sub(), ast.Add()])
        node = _bin(node, op, _ref(name))
    return node


def format_spec(spec):
    """`x: (), y: (), a: (5,)` for a spec."""
    return ", ".join(f"{name}: {shape!r}" for name, shape in spec)


def _layout(text):
    """PEP 8 blank lines around the function."""
    text = text.replace("import numpy as np\n", "import numpy as np\n\n", 1)
    return re.sub(r"\n+def ", "\n\n\ndef ", text)

"""Grammar expressions: every operator and precedence level, calls, conditional
expressions, literals that test floating point, and the conditions of tests."""

import ast
import copy
import math

from srcad.fuzz.grammar.bounded import Bounded
from srcad.fuzz.grammar.trees import LIMIT, TINY, V, binop, call, mul_iv, num, pow_iv, ref, span

_HUGE = (1e300, 1.7976931348623157e308, 1e200, 8.98846567431158e307)
_BASES = (2, 0.5, 1.5, 2.0, 3, "math.e", 10)


class Exprs(Bounded):
    """Float expressions of every form, with the interval of their value, and tests."""

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

    # the forms of `expr`, each given the depth left for its operands

    def _arith(self, d):
        a, b = self.expr(d), self.expr(d)
        op = self.pick(["+", "-", "*"])
        if op == "+":
            return V(binop(a.node, ast.Add(), b.node), a.lo + b.lo, a.hi + b.hi)
        if op == "-":
            return V(binop(a.node, ast.Sub(), b.node), a.lo - b.hi, a.hi - b.lo)
        return span(binop(a.node, ast.Mult(), b.node), mul_iv(a, b))

    def _div(self, d):
        a = self.expr(d)
        if self.chance(0.3):
            b, c = self.nonzero(d), self.nonzero(d)
            den = span(binop(b.node, ast.Mult(), c.node), mul_iv(b, c))
        else:
            den = self.nonzero(d)
        inv = V(None, 1.0 / den.hi, 1.0 / den.lo)
        return span(binop(a.node, ast.Div(), den.node), mul_iv(a, inv))

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
            values = [v for kk in range(lo, hi + 1) for v in pow_iv(base.lo, base.hi, kk)]
            return span(binop(base.node, ast.Pow(), ref(k)), values)
        base = self.nonzero(d) if kv < 0 else self.squashed(self.expr(d), 2.0)
        knode = ref(k) if isinstance(k, str) else num(k)
        values = pow_iv(base.lo, base.hi, int(kv))
        return span(self.power(base.node, knode), values)

    def _fpow(self, d):
        base = self.positive(d)
        if self.chance(0.5):
            e = self.pick([0.5, -0.5, 1.5, -1.5, 2.5, 0.25, 1 / 3])
            enode, elo, ehi = num(e), e, e
        else:
            s = self.squashed(self.expr(d), 2.0)
            enode, elo, ehi = s.node, s.lo, s.hi
        values = [b ** e for b in (base.lo, base.hi) for e in (elo, ehi)]
        if self.chance(0.3):
            return span(call(self.pick(["math.pow", "np.power"]), base.node, enode),
                        values)
        return span(self.power(base.node, enode), values)

    def _cpow(self, d):
        """`2 ** -x`: a positive constant to a bounded power."""
        s = self.squashed(self.expr(d), 2.0)
        base = self.pick(_BASES)
        bv = math.e if base == "math.e" else base
        if bv == 10:
            s = self.squashed(s, 0.5)
        bnode = ref(base) if isinstance(base, str) else ast.Constant(base)
        if self.chance(0.5):
            return span(self.power(bnode, ast.UnaryOp(ast.USub(), s.node)),
                        [bv ** -s.lo, bv ** -s.hi])
        return span(self.power(bnode, s.node), [bv ** s.lo, bv ** s.hi])

    def _floordiv(self, d):
        a = self.expr(d)
        c = self.pick([0.5, 1, 2, 0.25, -1.5, 3, -1])
        values = [math.floor(a.lo / c), math.floor(a.hi / c)]
        return span(binop(a.node, ast.FloorDiv(), num(c)), values)

    def _mod(self, d):
        a = self.expr(d)
        if self.chance(0.5):
            c = self.pick([0.5, 1, 2, 0.7, -1.5, 3, -1])
            return span(binop(a.node, ast.Mod(), num(c)), [0.0, c])
        p = self.positive(d)
        return V(binop(a.node, ast.Mod(), p.node), 0.0, p.hi)

    def _unary(self, d):
        """Unary chains `- -x`, `-+x`, and `-x ** k` (the power binds tighter)."""
        if self.chance(0.3):
            k = self.pick([2, 3])
            base = self.squashed(self.expr(d), 2.0)
            powv = span(binop(base.node, ast.Pow(), ast.Constant(k)),
                        pow_iv(base.lo, base.hi, k))
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
            return V(call("math." + fn, e.node), -1.0, 1.0)
        if fn in ("tanh", "atan"):
            e = self.expr(d)
            f = getattr(math, fn)
            return V(call("math." + fn, e.node), f(e.lo), f(e.hi))
        if fn == "exp":
            e = self.squashed(self.expr(d), 1.5)
            return V(call("math.exp", e.node), math.exp(e.lo), math.exp(e.hi))
        if fn == "log":
            p = self.positive(d)
            return V(call("math.log", p.node), math.log(p.lo), math.log(p.hi))
        if fn == "log_base":
            p = self.positive(d)
            base = self.pick([2, 10, 2.0, 0.5])
            values = [math.log(p.lo, base), math.log(p.hi, base)]
            return span(call("math.log", p.node, num(base)), values)
        if fn == "sqrt":
            p = self.positive(d)
            return V(call("math.sqrt", p.node), math.sqrt(p.lo), math.sqrt(p.hi))
        if fn in ("fabs", "abs"):
            e = self.expr(d)
            node = call("math.fabs" if fn == "fabs" else "abs", e.node)
            return V(node, 0.0 if e.lo <= 0 <= e.hi else min(abs(e.lo), abs(e.hi)), e.mag)
        if fn == "float":
            e = self.expr(d) if r.random() < 0.7 else self.literal("int")
            return V(call("float", e.node), e.lo, e.hi)
        e = self.squashed(self.expr(d), 1.5)
        f = self.pick(["sin", "tanh", "exp", "arctan"])
        values = {"sin": (-1.0, 1.0), "tanh": (math.tanh(e.lo), math.tanh(e.hi)),
                  "exp": (math.exp(e.lo), math.exp(e.hi)),
                  "arctan": (math.atan(e.lo), math.atan(e.hi))}[f]
        return V(call("np." + f, e.node), *values)

    def _call2(self, d):
        r = self.rng
        fn = self.pick(["hypot", "minmax", "minmax3", "atan2", "pow_int"])
        if fn == "hypot":
            a, b = self.expr(d), self.expr(d)
            return V(call("math.hypot", a.node, b.node), 0.0, math.hypot(a.mag, b.mag))
        if fn in ("minmax", "minmax3"):
            vs = [self.expr(d) for _ in range(2 if fn == "minmax" else 3)]
            name = r.choice(["min", "max"])
            f = min if name == "min" else max
            return V(call(name, *[v.node for v in vs]), f(v.lo for v in vs),
                     f(v.hi for v in vs))
        if fn == "atan2":
            a, p = self.expr(d), self.positive(d)
            return V(call("math.atan2", a.node, p.node), -math.pi / 2, math.pi / 2)
        base = self.squashed(self.expr(d), 2.0)
        k = self.pick([2, 3, 2.0])
        values = pow_iv(base.lo, base.hi, int(k))
        return span(call("math.pow", base.node, num(k)), values)

    def _ifexp(self, d):
        with self.lazily():
            a, b = self.expr(d), self.expr(d)
        v = V(ast.IfExp(self.cond(d), a.node, b.node), min(a.lo, b.lo), max(a.hi, b.hi))
        if self.chance(0.4):      # (a if c else b) ** 2
            values = pow_iv(v.lo, v.hi, 2)
            return span(binop(v.node, ast.Pow(), ast.Constant(2)), values)
        if self.chance(0.4):      # a conditional expression inside arithmetic
            e = self.expr(d)
            return span(binop(e.node, ast.Mult(), v.node), mul_iv(e, v))
        return v

    def _inf(self, d):
        """`min(e, np.inf)`, `max(-math.inf, e)`: infinities where a finite value follows."""
        e = self.expr(d)
        node = ref(self.pick(["np.inf", "math.inf", "np.inf"]))
        if self.chance(0.5):
            args = [e.node, node] if self.chance(0.5) else [node, e.node]
            return V(call(self.pick(["min", "np.minimum"]), *args), e.lo, e.hi)
        neg = ast.UnaryOp(ast.USub(), node)
        args = [e.node, neg] if self.chance(0.5) else [neg, e.node]
        return V(call(self.pick(["max", "np.maximum"]), *args), e.lo, e.hi)

    def _huge(self, d):
        """A huge literal where the result stays finite."""
        e = self.squashed(self.expr(d), LIMIT)
        big = self.pick(_HUGE[:2] if self.chance(0.5) else (1e300,))
        form = self.rng.randrange(4)
        if form == 0:
            return V(call("min", e.node, ast.Constant(big)), e.lo, e.hi)
        if form == 1:
            return V(call("max", num(-big), e.node), e.lo, e.hi)
        if form == 2:       # scaled up and back: exact for |e| < LIMIT, far from overflow
            node = binop(binop(e.node, ast.Div(), ast.Constant(1e300)), ast.Mult(),
                         ast.Constant(1e300))
            return V(node, e.lo * 1.0000001 - 1e-300, e.hi * 1.0000001 + 1e-300)
        return V(binop(binop(ast.Constant(1e300), ast.Div(), ast.Constant(1e300)), ast.Mult(),
                       e.node), e.lo, e.hi)

    def _tiny(self, d):
        """A tiny or subnormal literal added, multiplied or compared."""
        e = self.expr(d)
        t = self.pick(TINY)
        form = self.rng.randrange(4)
        if form == 0:
            return V(binop(e.node, ast.Add(), num(t)), e.lo, e.hi + t)
        if form == 1:
            return V(binop(e.node, ast.Mult(), num(t)), -e.mag * t, e.mag * t)
        if form == 2:
            p = self.positive(d)
            return V(call("math.sqrt", binop(p.node, ast.Add(), num(t))),
                     math.sqrt(p.lo), math.sqrt(p.hi + t))
        z = self.pick([-0.0, 0.0, 0])
        if self.chance(0.5):
            return V(binop(e.node, ast.Mult(), num(z)), 0.0, 0.0)
        return V(binop(num(z), ast.Sub(), e.node), -e.hi, -e.lo)

    def _chain(self, d):
        """Literals around an operand: `e + 1.0 + 2.0`, `0.1 * e * 3.0`, `1.5 - (e - 2)`,
        which are not reassociable in floating point."""
        e = self.squashed(self.expr(d), 2.0)
        c1, c2 = (self.pick([0.1, 0.2, 0.3, 1.0, 2.0, 3, 1e-3, 0.7, 1e-16]) for _ in "12")
        form = self.rng.randrange(5)
        if form == 0:
            return V(binop(binop(e.node, ast.Add(), num(c1)), ast.Add(), num(c2)),
                     e.lo + c1 + c2, e.hi + c1 + c2)
        if form == 1:
            return V(binop(binop(e.node, ast.Sub(), num(c1)), ast.Sub(), num(c2)),
                     e.lo - c1 - c2, e.hi - c1 - c2)
        if form == 2:
            return span(binop(binop(num(c1), ast.Mult(), e.node), ast.Mult(), num(c2)),
                        [e.lo * c1 * c2, e.hi * c1 * c2])
        if form == 3:
            return V(binop(num(c1), ast.Sub(), binop(e.node, ast.Sub(), num(c2))),
                     c1 - e.hi + c2, c1 - e.lo + c2)
        return V(binop(num(c1), ast.Add(), binop(num(c2), ast.Add(), e.node)),
                 e.lo + c1 + c2, e.hi + c1 + c2)

    def _signed_zero(self, d):
        """A zero whose sign matters: `math.atan2(e * 0.0 + 0.0, -1.5)` is pi or -pi."""
        e = self.expr(d)
        zero = self.pick([
            binop(e.node, ast.Mult(), ast.Constant(0.0)),
            binop(e.node, ast.Mult(), num(-0.0)),
            binop(binop(e.node, ast.Mult(), ast.Constant(0.0)), ast.Add(), ast.Constant(0.0)),
            binop(binop(e.node, ast.Mult(), ast.Constant(0.0)), ast.Sub(), ast.Constant(0.0)),
            ast.UnaryOp(ast.USub(), binop(e.node, ast.Sub(), copy.deepcopy(e.node))),
            binop(num(-0.0), ast.Sub(), binop(e.node, ast.Mult(), ast.Constant(0.0))),
            binop(num(-0.0), ast.Add(), binop(e.node, ast.Mult(), num(-0.0)))])
        if self.chance(0.7):
            return V(call("math.atan2", zero, num(self.pick([-1.5, -1.0, -2]))),
                     -math.pi, math.pi)
        return V(binop(call(self.pick(["max", "min"]), zero, num(self.pick([0.0, -0.0]))),
                       ast.Add(), e.node), e.lo, e.hi)

    def active_zero(self, d):
        """An expression that is exactly zero for every input but reads one: `x * 0.0`,
        `y - y`, `0.0 * math.sin(z)`.  Its gradient is zero."""
        e = self.expr(d)
        return self.pick([
            binop(e.node, ast.Mult(), ast.Constant(0.0)),
            binop(e.node, ast.Mult(), num(-0.0)),
            binop(e.node, ast.Sub(), copy.deepcopy(e.node)),
            binop(ast.Constant(0.0), ast.Mult(), call("math.sin", e.node))])

    def _active_zero(self, d):
        """A function at a zero argument where it is finite: `abs(x * 0.0)`,
        `(y - y) ** 2`, `math.hypot(x * 0.0, 1.5)`; with "zero-singular" not avoided also
        where its derivative is not (`math.sqrt(x * 0.0)`, `math.hypot(x * 0.0, y * 0.0)`),
        though the composite's derivative is zero."""
        z = self.active_zero(d)
        forms = [
            lambda: call(self.pick(["abs", "math.fabs", "np.abs"]), z),
            lambda: binop(z, ast.Pow(), num(self.pick([2, 1, 0, 3, 2.0]))),
            lambda: call("math.pow", z, num(self.pick([2.0, 3, 1.0]))),
            lambda: call("math.hypot", z, num(self.pick([1.5, -0.5]))),
            lambda: call("math.atan2", z, num(self.pick([1.0, 2.5]))),
            lambda: call(self.pick(["max", "min"]), z, num(self.pick([0.0, -0.0, 0]))),
            lambda: call(self.pick(["math.sin", "math.tanh", "math.atan"]), z)]
        if "zero-singular" not in self.avoid:
            forms += [
                lambda: call(self.pick(["math.sqrt", "np.sqrt"]), z),
                lambda: binop(z, ast.Pow(), num(self.pick([0.5, 1.5, 2.5]))),
                lambda: call("math.hypot", z, self.active_zero(d)),
                lambda: call("math.atan2", z, self.active_zero(d))]
        node = self.pick(forms)()
        e = self.squashed(self.expr(d), 2.0)
        return V(binop(node, ast.Add(), e.node), e.lo - math.pi, e.hi + math.pi)

    def _mixed(self, d):
        """Ints and floats and bools mixed: `max(0, e)`, `min(1, e)`, `flag * e`."""
        e = self.expr(d)
        if self.bools and self.chance(0.4):
            flag = ref(self.pick(self.bools))
            args = [flag, e.node] if self.chance(0.5) else [e.node, flag]
            return V(binop(args[0], ast.Mult(), args[1]), min(0.0, e.lo), max(0.0, e.hi))
        k = self.pick([0, 1, -1])
        if self.chance(0.5):
            return V(call("max", num(k), e.node), max(k, e.lo), max(k, e.hi))
        return V(call("min", e.node, num(k)), min(k, e.lo), min(k, e.hi))

    def _boolval(self, d):
        """`e1 or e2`, `e1 and e2`: a value chosen by truthiness."""
        a = self.expr(d)
        with self.lazily():
            b = self.expr(d)
        op = ast.Or() if self.chance(0.5) else ast.And()
        return V(ast.BoolOp(op, [a.node, b.node]), min(a.lo, b.lo), max(a.hi, b.hi))

    # conditions

    def cond(self, d):
        """A test: comparisons (chained), `and`/`or`/`not`, truthiness of a value."""
        r = self.rng
        form = r.choices(["cmp", "chain", "not", "boolop", "truth", "const", "int", "flag"],
                         [6, 3, 2, 3, 1, 1, 1, 1 if self.bools else 0])[0]
        if form == "flag":
            return ref(self.pick(self.bools))
        if d <= 0 and form in ("not", "boolop"):
            form = "cmp"
        if form == "cmp":
            a, b = self.expr(d), self.expr(d) if r.random() < 0.6 else self.literal()
            op = r.choice([ast.Lt(), ast.LtE(), ast.Gt(), ast.GtE(), ast.NotEq(), ast.Eq()])
            return ast.Compare(a.node, [op], [b.node])
        if form == "chain":
            items = []
            for k in range(r.choice([3, 3, 4])):
                with self.lazily(k >= 2):
                    items.append(self.expr(d))
            ops = [r.choice([ast.Lt(), ast.LtE()]) for _ in items[1:]]
            if r.random() < 0.3:
                ops = [r.choice([ast.Gt(), ast.GtE(), ast.NotEq()]) for _ in items[1:]]
            return ast.Compare(items[0].node, ops, [v.node for v in items[1:]])
        if form == "not":
            return ast.UnaryOp(ast.Not(), self.cond(d - 1))
        if form == "boolop":
            op = ast.And() if r.random() < 0.5 else ast.Or()
            operands = []
            for k in range(r.choice([2, 2, 3])):
                with self.lazily(k >= 1):
                    operands.append(self.cond(d - 1))
            return ast.BoolOp(op, operands)
        if form == "truth":
            return self.expr(d).node
        if form == "const":
            op, first = r.choice([ast.And(), ast.Or()]), ast.Constant(r.choice([True, False]))
            with self.lazily():
                return ast.BoolOp(op, [first, self.cond(d - 1)])
        if self.ints:
            name = self.pick(self.ints)
            return ast.Compare(binop(ref(name), ast.Mod(), ast.Constant(2)), [ast.Eq()],
                               [ast.Constant(r.randrange(2))])
        return ast.Compare(self.expr(d).node, [ast.Gt()], [num(0)])


def _within(inner, outer):
    """Whether bounds `inner` lie within `outer` (intervals, or array (n, lo, hi))."""
    if len(inner) == 3:
        return inner[0] == outer[0] and _within(inner[1:], outer[1:])
    return outer[0] <= inner[0] and inner[1] <= outer[1]


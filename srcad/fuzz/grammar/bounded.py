"""Grammar expressions bounded on purpose: squashed below a limit, or kept positive or
away from zero (denominators, logarithms, square roots, bases of powers)."""

import ast
import math

from srcad.fuzz.grammar.atoms import Atoms
from srcad.fuzz.grammar.trees import LIMIT, NAMED, V, binop, call, num, ref

# the forms of `Bounded.positive`, drawn uniformly; form 0 also ends the recursion
_POSITIVE_FORMS = ("offset", "exp", "square", "hypot", "abs", "sqrt", "unary", "max",
                   "ifexp", "power", "cosh", "named")


class Bounded(Atoms):
    """Squashed, positive and nonzero expressions (`expr` and `cond`, which they nest,
    come from the subclass `Exprs`)."""

    def squashed(self, v, limit=1.0):
        """`v`, or `v` passed through a bounded function when it may exceed `limit`."""
        if v.mag <= limit:
            return v
        fn = self.pick(["math.tanh", "math.sin", "math.atan", "np.tanh", "math.cos"])
        if fn in ("math.tanh", "np.tanh"):
            out = V(call(fn, v.node), math.tanh(v.lo), math.tanh(v.hi))
        elif fn == "math.atan":
            out = V(call(fn, v.node), math.atan(v.lo), math.atan(v.hi))
        else:
            out = V(call(fn, v.node), -1.0, 1.0)
        if out.mag <= limit:
            return out
        scale = self.pick([0.5, 0.25, 0.1])
        return V(binop(ast.Constant(scale), ast.Mult(), out.node), out.lo * scale, out.hi * scale)

    def positive(self, d):
        """An expression whose value is at least 0.3 and at most LIMIT."""
        form = self.rng.randrange(len(_POSITIVE_FORMS))
        if d <= 0:
            form = 0
        v = getattr(self, "_positive_" + _POSITIVE_FORMS[form])(d)
        if v.hi > LIMIT:
            v = V(binop(ast.Constant(1.0), ast.Add(), call("math.tanh", v.node)),
                  1.0 + math.tanh(v.lo), 2.0)
        return v

    def nonzero(self, d):
        """A value at least 0.3 away from zero, of either sign."""
        p = self.positive(d)
        if self.chance(0.5):
            return p
        if self.chance(0.5):
            return V(ast.UnaryOp(ast.USub(), p.node), -p.hi, -p.lo)
        return V(binop(num(-1.0), ast.Mult(), p.node), -p.hi, -p.lo)

    # the forms of `positive`, each given the depth `positive` was called with

    def _positive_offset(self, d):
        """`2.5 + s` or `math.pi - s` for s squashed into [-1, 1]."""
        s = self.squashed(self.expr(d - 1), 1.0)
        c = self.pick([1.5, 2.0, 2.5, "math.pi", "np.e", 2])
        cv = NAMED.get(c, c) if isinstance(c, str) else c
        node = ref(c) if isinstance(c, str) else ast.Constant(c)
        if self.rng.random() < 0.5:
            return V(binop(node, ast.Add(), s.node), cv + s.lo, cv + s.hi)
        return V(binop(node, ast.Sub(), s.node), cv - s.hi, cv - s.lo)

    def _positive_exp(self, d):
        s = self.squashed(self.expr(d - 1), 1.5)
        return V(call(self.pick(["math.exp", "np.exp"]), s.node),
                 math.exp(s.lo), math.exp(s.hi))

    def _positive_square(self, d):
        """`e ** 2 + c` or `e * e + c`."""
        e = self.squashed(self.expr(d - 1), 2.0)
        c = self.pick([0.5, 1.0, 1, 0.75])
        sq = (binop(e.node, ast.Pow(), ast.Constant(2)) if self.rng.random() < 0.5
              else binop(e.node, ast.Mult(), e.node))
        return V(binop(sq, ast.Add(), ast.Constant(c)), c, e.mag ** 2 + c)

    def _positive_hypot(self, d):
        e = self.squashed(self.expr(d - 1), 3.0)
        c = self.pick([0.5, 1.0, 2])
        return V(call("math.hypot", e.node, ast.Constant(c)), c, math.hypot(e.mag, c))

    def _positive_abs(self, d):
        """`abs(e) + c`, also spelled `math.fabs` and `np.abs`."""
        e = self.squashed(self.expr(d - 1), 3.0)
        c = self.pick([0.5, 1.0, 0.3])
        return V(binop(call(self.pick(["abs", "math.fabs", "np.abs"]), e.node), ast.Add(),
                       ast.Constant(c)), c, e.mag + c)

    def _positive_sqrt(self, d):
        p = self.positive(d - 1)
        return V(call(self.pick(["math.sqrt", "np.sqrt"]), p.node),
                 math.sqrt(p.lo), math.sqrt(p.hi))

    def _positive_unary(self, d):
        """`- -p` or `+p`."""
        p = self.positive(d - 1)
        if self.rng.random() < 0.6:
            return V(ast.UnaryOp(ast.USub(), ast.UnaryOp(ast.USub(), p.node)), p.lo, p.hi)
        return V(ast.UnaryOp(ast.UAdd(), p.node), p.lo, p.hi)

    def _positive_max(self, d):
        """`max(e, c)` or `np.maximum(c, e)`."""
        e = self.squashed(self.expr(d - 1), 3.0)
        c = self.pick([0.5, 1.0, 0.3])
        fn = self.pick(["max", "np.maximum"])
        args = [e.node, ast.Constant(c)] if self.rng.random() < 0.5 else [ast.Constant(c), e.node]
        return V(call(fn, *args), c, max(c, e.hi))

    def _positive_ifexp(self, d):
        with self.lazily():
            a, b = self.positive(d - 1), self.positive(d - 1)
        return V(ast.IfExp(self.cond(d - 1), a.node, b.node), min(a.lo, b.lo), max(a.hi, b.hi))

    def _positive_power(self, d):
        """`2 ** s` or `math.e ** -s` for a bounded s."""
        s = self.squashed(self.expr(d - 1), 1.5)
        base = self.pick([2, 2.0, 1.5, "math.e", 3])
        bv = math.e if base == "math.e" else base
        bnode = ref(base) if isinstance(base, str) else ast.Constant(base)
        if self.rng.random() < 0.5:
            return V(self.power(bnode, ast.UnaryOp(ast.USub(), s.node)),
                     bv ** -s.hi, bv ** -s.lo)
        return V(self.power(bnode, s.node), bv ** s.lo, bv ** s.hi)

    def _positive_cosh(self, d):
        s = self.squashed(self.expr(d - 1), 1.5)
        return V(call(self.pick(["math.cosh", "np.cosh"]), s.node), 1.0, math.cosh(s.mag))

    def _positive_named(self, d):
        """A name or module constant known to lie in [0.3, LIMIT], else a literal."""
        names = [k for k, (lo, hi) in self.floats.items() if lo >= 0.3 and hi <= LIMIT]
        consts = [k for k, c in self.consts.items() if 0.3 <= c <= LIMIT]
        if names or consts:
            name = self.pick(names + consts)
            lo, hi = self.floats.get(name, (self.consts.get(name),) * 2)
            return V(ref(name), lo, hi)
        c = self.pick([0.5, 1.5, 2.0, 3, 1e2 / 50])
        return V(ast.Constant(c), c, c)

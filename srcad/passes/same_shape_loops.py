"""SameShapeLoops: the arithmetic of a reverse sweep on arrays the code says have one
shape runs as the helpers that do not broadcast.

`rt.mul(a, b)` and `rt.add_to(t, g)` (srcad.runtime.loops) take operands of any shapes
that broadcast: besides their one loop over equal shapes, each links a loop over
broadcast rows, and `rt.add_to` the summing of `g` down to `t`'s shape, into every
compiled sweep that calls it, where Numba optimizes and compiles that code again. Where
`srcad.passes.static_shapes` tells that two array operands have one shape whatever the
arguments, the call becomes its `_alike` twin (`rt.mul_alike`, `rt.add_to_alike`),
which is the one loop and a check that the shapes agree (a ValueError, never a silent
broadcast, should they not). A number spread over such a shape only to be multiplied
(the adjoint of `np.sum(t)` in `np.sum(t * y)`) stays the number.

An adjoint `d_v` has `v`'s shape; a view `d_x[1:-1]` the shape of `x[1:-1]`; a call of
the helpers here, or arithmetic, the shape of its array operands; a constant or a scalar
none to check.

>>> import gast
>>> from codegen import to_source
>>> from srcad.rules.typing import Kind
>>> fn = gast.parse('''def f_rev(u, tape, d_out):
...     lap, c, tmp_shape = tape
...     d_u = np.zeros_like(u)
...     d_tmp = rt.filled(rt.expand(d_out, None), tmp_shape)
...     d_lap = rt.mul(2.0, rt.mul(d_tmp, lap))
...     rt.add_to(d_u[1:-1, :-2], d_lap)
...     rt.add_to(d_u[1:-1, :-1], d_lap)
...     rt.add_to(d_c, rt.mul(d_lap, c))
...     return d_u,''').body[0]
>>> lap = (("slice", ("arg", "u", 0), ((0, 0), 1, -2)), ("slice", ("arg", "u", 1), ((0, 0), 1, -2)))
>>> shapes = {"u": (("arg", "u", 0), ("arg", "u", 1)), "lap": lap, "tmp": lap}
>>> kinds = {v: Kind("f", 2) for v in ("u", "lap", "tmp", "c")}
>>> adjoints = {"u": "d_u", "lap": "d_lap", "tmp": "d_tmp", "c": "d_c"}
>>> print(to_source(SameShapeLoops(shapes, kinds, adjoints).run(fn)).strip())
def f_rev(u, tape, d_out):
    lap, c, tmp_shape = tape
    d_u = np.zeros_like(u)
    d_lap = rt.mul(2.0 * d_out, lap)
    rt.add_to_alike(d_u[1:-1, :-2], d_lap)
    rt.add_to(d_u[1:-1, :-1], d_lap)
    rt.add_to(d_c, rt.mul(d_lap, c))
    return d_u,

`d_tmp * lap` became the twin, whose operands have one shape, and then `d_out * lap`:
`d_tmp` only spread the number `d_out` over that shape; the two numbers then multiply
first. `d_u[1:-1, :-1]` has a column
more than `lap`, and `c`'s shape is not known: those keep the helpers that broadcast. A
product with a number has one array and nothing to broadcast already.

A rule's template that sums its adjoint down (`np.triu`'s, for a vector operand) sums
nothing where the shapes agree:

>>> fn = gast.parse('''def f_rev(u, tape, d_out):
...     lap, = tape
...     d_lap = rt.unbroadcast(rt.triu(d_tmp, 1), lap)
...     return d_lap,''').body[0]
>>> print(to_source(SameShapeLoops(shapes, kinds, adjoints).run(fn)).strip())
def f_rev(u, tape, d_out):
    lap, = tape
    d_lap = rt.triu(d_tmp, 1)
    return d_lap,
"""
import copy

import gast

from srcad.passes import ir
from srcad.passes.static_shapes import _ELEMENTWISE as ELEMENTWISE_KINDS
from srcad.passes.static_shapes import _indexed
from srcad.rules import registry

# each helper that broadcasts, and its twin for operands of one shape
_ALIKE = {"rt.mul": "rt.mul_alike", "rt.div": "rt.div_alike", "rt.add": "rt.add_alike",
          "rt.sub": "rt.sub_alike", "rt.add_to": "rt.add_to_alike"}
# elementwise: of the shape their array operands share
_HELPERS = set(_ALIKE.values()) | set(_ALIKE) - {"rt.add_to"} | {"rt.neg", "rt.select",
                                                                  "rt.strong"}
_ORIGINAL = {twin: helper for helper, twin in _ALIKE.items()}
NUMBER = "number"  # the shape of a number, which broadcasts to any


def _rule(call):
    """The rule of a call of a NumPy function (or of the helper a rule spells it as,
    `rt.triu`), or None."""
    if not isinstance(call, gast.Call):
        return None
    name = ir.dotted_text(call.func)
    return registry.by_name(name) if name and name.startswith(("np.", "rt.")) else None


def _elementwise(call):
    """Whether `call` has the shape its array operands share: the helpers here, and
    NumPy's functions whose rules are typed elementwise (`np.cos`)."""
    if ir.dotted_text(call.func) in _HELPERS:
        return True
    rule = _rule(call)
    return rule is not None and rule.kind in ELEMENTWISE_KINDS


class SameShapeLoops:
    """Transformation of one reverse sweep (see the module): `shapes` are the static
    shapes of the primal's variables, `kinds` their kinds, `adjoints` maps each variable
    to its adjoint's name."""

    needs = ("kinds", "adjoint_names")
    provides = ()

    def __init__(self, shapes, kinds, adjoints):
        self.shapes = shapes
        self.kinds = kinds
        self.primal_of = {d: v for v, d in adjoints.items()}
        self.numbers = set()  # names the sweep never assigns, found to hold numbers

    def run(self, fn):
        self._summed_nowhere(fn)
        for node in ir.walk(fn):
            if isinstance(node, gast.Call) and not node.keywords and len(node.args) == 2:
                twin = _ALIKE.get(ir.dotted_text(node.func))
                if twin is not None and self._alike(node.args):
                    node.func = ir.dotted(twin)
        fn = self._numbers_kept(fn)
        for node in ir.walk(fn):
            self._numbers_first(node)
        return fn

    def _numbers_first(self, call):
        """`rt.mul(c, rt.mul(s, y))`, `c` and `s` numbers, multiplies the numbers first:
        `rt.mul(c * s, y)`, one pass over `y` (the reverse sweeps may reassociate
        products: `srcad.passes.safe_reassociation`)."""
        if not (isinstance(call, gast.Call) and ir.dotted_text(call.func) == "rt.mul"
                and len(call.args) == 2 and not call.keywords):
            return
        for k in (0, 1):
            c, inner = call.args[k], call.args[1 - k]
            if self.shape(c) != NUMBER or not (
                    isinstance(inner, gast.Call) and ir.dotted_text(inner.func) == "rt.mul"
                    and len(inner.args) == 2 and not inner.keywords):
                continue
            for j in (0, 1):
                if self.shape(inner.args[j]) == NUMBER and self.shape(inner.args[1 - j]) \
                        not in (None, NUMBER):
                    product = gast.BinOp(left=c, op=gast.Mult(), right=inner.args[j])
                    call.args = [product, inner.args[1 - j]]
                    return

    def _numbers_kept(self, fn):
        """A number spread over an adjoint's shape (`d_t = rt.filled(d_out, shape)`, the
        adjoint of `np.sum(t)`) and read only as an operand of the `_alike` twins (`d_t *
        y`, `y` of `t`'s shape) is the number itself in those operations (`d_out * y`):
        one array and one pass fewer. So is an array spread along axes (the adjoint of
        `np.sum(t, axis=2)`), which the twins' broadcasting helpers then broadcast. `d_t`
        must be assigned once, in the function's body (not a loop or a branch), and what
        it spreads not assigned again after."""
        stored, loads, last_store = {}, {}, {}
        for i, top in enumerate(fn.body):
            for n in ir.walk(top):
                if isinstance(n, gast.Name):
                    if isinstance(n.ctx, gast.Load):
                        loads.setdefault(n.id, []).append(n)
                    elif not isinstance(n.ctx, gast.Param):
                        stored[n.id] = stored.get(n.id, 0) + 1
                        last_store[n.id] = i
        parent = None
        spread = {}
        for i, s in enumerate(fn.body):  # top-level statements: `value` is stored before
            if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                    and isinstance(s.targets[0], gast.Name) and stored[s.targets[0].id] == 1
                    and isinstance(s.value, gast.Call)
                    and ir.dotted_text(s.value.func) == "rt.filled"):
                continue
            value, number = self._spread(s.value)
            if value is None or any(last_store.get(n.id, -1) >= i for n in ir.names(value)):
                continue
            t = s.targets[0].id
            if parent is None:
                parent = ir.parents(fn)
            if number and isinstance(value, gast.Name) and value.id not in stored:
                self.numbers.add(value.id)
            if all(self._twin_operand(parent, n) for n in loads.get(t, ())):
                spread[t] = (s, value)
        if not spread:
            return fn
        for t, (s, value) in spread.items():
            for n in loads.get(t, ()):
                call = parent[n]
                call.args = [copy.deepcopy(value) if a is n else a for a in call.args]
                if ir.dotted_text(call.func) in _ORIGINAL:
                    call.func = ir.dotted(_ORIGINAL[ir.dotted_text(call.func)])
        dropped = {id(s) for s, _ in spread.values()}
        fn.body = ir.rewrite_blocks(fn.body, lambda s: [] if id(s) in dropped else [s])
        return fn

    def _spread(self, call):
        """What `rt.filled(g, shape)` spreads over `shape`, and whether it is a number:
        `g` a number; or the cotangent of a whole reduction, `rt.expand(g, None)`, which
        is `g`, a number; or, put back along constant axes, `rt.expand(g, 1)`, which
        broadcasts. (None, False) for anything else."""
        g = call.args[0] if len(call.args) == 2 and not call.keywords else None
        if isinstance(g, gast.Call) and ir.dotted_text(g.func) == "rt.expand" \
                and len(g.args) == 2 and not g.keywords and isinstance(g.args[0], gast.Name):
            axis = g.args[1]
            if isinstance(axis, gast.Constant) and axis.value is None:
                return g.args[0], True
            constant = (gast.Constant, gast.UnaryOp, gast.Tuple)
            if isinstance(axis, constant) and not ir.names(axis):
                return g, False
            return None, False
        if g is not None and self.shape(g) == NUMBER:
            return g, True
        return None, False

    @staticmethod
    def _twin_operand(parent, name):
        """Whether the load `name` is an operand that an `_alike` twin reads (not the
        array `rt.add_to_alike` adds into)."""
        call = parent.get(name)
        if not (isinstance(call, gast.Call) and ir.dotted_text(call.func) in _ORIGINAL):
            return False
        read = call.args[1:] if ir.dotted_text(call.func) == "rt.add_to_alike" else call.args
        return any(a is name for a in read)

    def _alike(self, operands):
        """Whether `operands` are two arrays of one known shape."""
        a, b = (self.shape(x) for x in operands)
        return a is not None and a != NUMBER and a == b

    def shape(self, node):
        """The static shape of the value of `node` in the sweep, NUMBER for a number, or
        None where it is not known."""
        if isinstance(node, gast.Constant):
            return NUMBER if type(node.value) in (int, float) else None
        if isinstance(node, gast.Name):
            if node.id in self.numbers:
                return NUMBER
            v = self.primal_of.get(node.id, node.id)
            if getattr(self.kinds.get(v), "ndim", None) == 0:
                return NUMBER
            return self.shapes.get(v)
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):
            whole = self.shape(node.value)
            if whole is None or whole == NUMBER:
                return None
            return _indexed(whole, node.slice, self.kinds)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            return self.shape(node.operand)
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Pow) \
                and self.shape(node.right) == NUMBER:
            return self.shape(node.left)
        arithmetic = isinstance(node, gast.BinOp) and isinstance(
            node.op, (gast.Add, gast.Sub, gast.Mult, gast.Div))
        if arithmetic or isinstance(node, gast.Call) and not node.keywords \
                and _elementwise(node):
            operands = (node.left, node.right) if arithmetic else node.args
            found = {self.shape(a) for a in operands} - {NUMBER}
            if len(found) == 1 and None not in found:
                return found.pop()
            return NUMBER if not found else None
        rule = _rule(node)
        if rule is not None and getattr(rule.kind, "shape_of", None):
            try:  # np.triu(g, 1): g's shape, when of the result's rank
                x = rule.bind(node.args, node.keywords, ValueError).get(rule.kind.shape_of)
            except ValueError:
                return None
            return self.shape(x) if x is not None else None
        return None

    def _summed_nowhere(self, fn):
        """`rt.unbroadcast(e, v)` of an `e` of `v`'s known shape is `e` (a rule's own
        template may sum down where the operand could have been a vector: `np.triu`)."""
        def keep(node):
            if isinstance(node, gast.Call) and ir.dotted_text(node.func) == "rt.unbroadcast" \
                    and len(node.args) == 2 and not node.keywords:
                e, v = node.args
                shape = self.shape(e)
                if shape is not None and shape != NUMBER and shape == self.shape(v):
                    return e
            return None
        for node in ir.walk(fn):
            for field, value in gast.iter_fields(node):
                if isinstance(value, gast.AST):
                    new = keep(value)
                    if new is not None:
                        setattr(node, field, new)
                elif isinstance(value, list):
                    value[:] = [keep(v) or v if isinstance(v, gast.AST) else v for v in value]

    def _shape_named(self, node):
        """The shape `rt.unbroadcast` sums to: a variable's, or one its tape kept
        (`e_shape`, the shape of `e`)."""
        if isinstance(node, gast.Name) and node.id.endswith("_shape") \
                and node.id[:-len("_shape")] in self.shapes:
            return self.shapes[node.id[:-len("_shape")]]
        return self.shape(node)

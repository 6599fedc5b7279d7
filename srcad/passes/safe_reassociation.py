"""SafeReassociation: whether Numba may reorder the floating-point arithmetic of a reverse sweep.

A reverse sweep adds each adjoint up from many contributions. In a loop such a sum
(`d_scale += -d_r * r / scale`) is a chain through every iteration, which the CPU can
neither overlap nor run in SIMD lanes unless the compiler may reorder the additions: LLVM's
`reassoc` flag (W4, the Huber loss, runs its reverse sweep 7x faster with it). Reordering
changes a gradient only by rounding. It also lets the compiler reorder the primal arithmetic
that the reverse sweep computes again, and there one rounding matters when the value decides
something: a branch test, an index, a sign. The forward sweep, compiled without the flag,
could have decided the other way, and the gradient would come from the other branch.

So the flag is given only when no decision in the reverse sweep reads a primal value that
reordering could change: one computed by a chain of two or more additions or two or more
multiplications (`s = x + y` then `t = s + z`), or by a call that sums inside (`np.sum`,
`np.dot`: its rule says `sums=True`, and so is any function without a rule), or from such
a value; and no call that jumps (`np.floor`, `int`: `continuous=False`) reads one.
Adjoints are not followed: a decision on an adjoint (a strong zero's test) can only differ
where the rounding of a sum already decides it.

>>> import gast
>>> safe = lambda text: SafeReassociation({"d_x", "d_out"}).run(gast.parse(text).body[0])
>>> safe('''def f_rev(x, y, d_out):
...     r = (x - y) / 2.0
...     if abs(r) <= 1.0:
...         d_x = d_out * r''')
True
>>> safe('''def f_rev(x, y, z, d_out):
...     s = x + y
...     t = s + z
...     if t > 0.0:
...         d_x = d_out''')
False
"""
import gast

from srcad.passes import ir
from srcad.rules import registry

_FAMILY = {gast.Add: "sum", gast.Sub: "sum", gast.Mult: "product", gast.Div: "product"}

_DISCONTINUOUS_OPS = (gast.Mod, gast.FloorDiv)


def _callee(func):
    """`np.linalg.norm` -> "norm"; a method `x.copy` -> "copy"; `abs` -> "abs"."""
    if isinstance(func, gast.Attribute):
        return func.attr
    return func.id if isinstance(func, gast.Name) else None


_MODULES = {"np", "math", "rt"}


def _rule(call):
    """The rule of the function that `call` calls (a method by its name), or None: an
    unknown function, which may sum inside and may jump."""
    text = ir.dotted_text(call.func)
    rule = registry.by_spelling(text) if text else None
    if rule is None and isinstance(call.func, gast.Attribute) and \
            ir.dotted_text(call.func.value) not in _MODULES:
        rule = registry.by_method(call.func.attr)
    return rule


def _elementwise(call):
    """Whether reordering arithmetic leaves `call`'s value as it is, given its arguments:
    it sums nothing inside (its rule says `sums=False`)."""
    rule = _rule(call)
    return rule is not None and not rule.sums


def _continuous(call):
    """Whether `call`'s value moves only by rounding when its arguments do."""
    rule = _rule(call)
    return rule is not None and rule.continuous


def _loads(node):
    return {n.id for n in ir.names(node) if isinstance(n.ctx, gast.Load)}


def _stored(target):
    """Names an assignment to `target` changes: `x`, `(a, b)`, and `x` of `x[i]`."""
    while isinstance(target, gast.Subscript):
        target = target.value
    if isinstance(target, (gast.Tuple, gast.List)):
        return {n for t in target.elts for n in _stored(t)}
    return {target.id} if isinstance(target, gast.Name) else set()


class SafeReassociation:
    """Analysis of a generated reverse sweep: `run(fnode)` is True when Numba may compile it
    with `fastmath={"reassoc"}` without any decision it makes differing from the forward
    sweep's. `adjoints` are the names of adjoints and of the incoming cotangent; `integers`
    the names known to hold integer scalars (the sweep's own counters are found here)."""

    needs = ("kinds", "adjoint_names")
    provides = ("reassociable",)

    def __init__(self, adjoints, integers=()):
        self.adjoints, self.integers = set(adjoints), set(integers)

    def run(self, fnode):
        assignments, nodes = [], ir.walk(fnode)
        for node in nodes:
            if isinstance(node, gast.Assign):
                assignments += [(t, node.value) for t in node.targets]
            elif isinstance(node, gast.AugAssign):
                value = gast.BinOp(left=node.target, op=node.op, right=node.value)
                assignments.append((node.target, value))
            elif isinstance(node, gast.For) and isinstance(node.target, gast.Name) and \
                    isinstance(node.iter, gast.Call) and _callee(node.iter.func) == "range":
                self.integers.add(node.target.id)
        self.find_integers([(_stored(t), v) for t, v in assignments
                            if not isinstance(t, gast.Tuple)])
        assignments = [(_stored(t) - self.adjoints, v) for t, v in assignments]
        self.families = {}
        for names, value in assignments:
            if isinstance(value, gast.BinOp) and type(value.op) in _FAMILY and \
                    not self.integer(value):
                for n in names:
                    self.families.setdefault(n, set()).add(_FAMILY[type(value.op)])
        self.find_changeable(assignments)
        return not any(self.decides(node) for node in nodes)

    def find_changeable(self, assignments):
        """`changeable`: the names of the assignments whose values reordering may change
        (`may_change`). First those that may change by themselves, then, through a
        worklist, those reading a name found so (a fixed point, without going over every
        assignment again while it grows)."""
        self.changeable = set()
        readers, todo = {}, []
        for names, value in assignments:
            if self.may_change(value):  # nothing is changeable yet: by itself
                todo.append(names)
            else:
                for n in _loads(value):
                    readers.setdefault(n, []).append(names)
        while todo:
            for n in todo.pop() - self.changeable:
                self.changeable.add(n)
                todo += readers.pop(n, [])

    def find_integers(self, assignments):
        """Adds the names that every assignment gives an integer expression, counters
        included (`top = top - 1`); unpacking a tuple, as of the tape, says nothing."""
        values = {}
        for names, value in assignments:
            for n in names:
                values.setdefault(n, []).append(value)
        known = set(self.integers)
        self.integers |= set(values)
        shrank = True
        while shrank:
            shrank = False
            for n in list(self.integers - known):
                if not all(self.integer(v) for v in values[n]):
                    self.integers.discard(n)
                    shrank = True

    def integer(self, expr):
        """Whether `expr` is integer arithmetic on integer names and constants."""
        if isinstance(expr, gast.Constant):
            return type(expr.value) is int
        if isinstance(expr, gast.Name):
            return expr.id in self.integers
        if isinstance(expr, gast.BinOp):
            return not isinstance(expr.op, gast.Div) and \
                self.integer(expr.left) and self.integer(expr.right)
        if isinstance(expr, gast.UnaryOp):
            return self.integer(expr.operand)
        if isinstance(expr, gast.Call):
            return _callee(expr.func) in ("len", "range_len")
        return False

    def may_change(self, expr):
        """Whether reordering may change `expr`'s value: it reads a changeable name, chains
        arithmetic of one family, or calls something that sums inside."""
        if _loads(expr) & self.changeable:
            return True
        for node in ir.walk(expr):
            if isinstance(node, gast.BinOp) and type(node.op) in _FAMILY and \
                    not self.integer(node):
                family = _FAMILY[type(node.op)]
                for side in (node.left, node.right):
                    if isinstance(side, gast.BinOp) and _FAMILY.get(type(side.op)) == family:
                        return True
                    if isinstance(side, gast.Name) and family in self.families.get(side.id, ()):
                        return True
            elif isinstance(node, gast.BinOp) and isinstance(node.op, gast.MatMult):
                return True
            elif isinstance(node, gast.Call) and not _elementwise(node) and \
                    not self.integer(node):
                return True
        return False

    def decides(self, node):
        """Whether `node` makes a decision from a changeable value."""
        reads = lambda expr: bool(_loads(expr) & self.changeable)  # noqa: E731
        if isinstance(node, gast.Compare):
            return reads(node)
        if isinstance(node, (gast.If, gast.While, gast.IfExp)):
            return reads(node.test)
        if isinstance(node, gast.Subscript):
            return reads(node.slice)
        if isinstance(node, gast.BinOp) and isinstance(node.op, _DISCONTINUOUS_OPS):
            return reads(node)
        if isinstance(node, gast.Call) and not _continuous(node):
            return any(reads(a) for a in node.args + [k.value for k in node.keywords])
        return False

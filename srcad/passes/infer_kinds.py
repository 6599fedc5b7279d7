"""InferKinds: the kind (dtype class and rank) of every variable, from the arguments'."""
import gast

from srcad.errors import SrcadError, UnsupportedError
from srcad.kinds import BOOL, FLOAT, INT, NONE, Kind, OtherKind, TupleKind, join
from srcad.passes import ir
from srcad.rules import registry


class InferKinds:
    """Analysis: `ctx.kinds[name]`, one kind per variable over the whole function.

    A variable holding an int at one place and a float at another is a float (as Numba
    unifies it); one holding arrays of different ranks is refused. Loops are iterated to a
    fixed point. Calls to the user's own functions are typed by specializing the callee
    (`ctx.program.specialize`). Also records `ctx.return_kind`.
    """

    needs = ("user_functions", "custom_calls", "calls")
    provides = ("kinds", "item_kinds", "return_kind")

    def __init__(self, ctx, arg_kinds):
        self.ctx = ctx
        self.kinds = dict(arg_kinds)
        self.returns = None
        ctx.item_kinds = {}

    def run(self, fnode):
        for _ in range(20):
            before = dict(self.kinds)
            self.block(fnode.body)
            if before == self.kinds:
                break
        self.ctx.kinds = self.kinds
        self.ctx.return_kind = self.returns
        return fnode

    def error(self, message, node, hint=None):
        return self.ctx.fsrc.error(message, node, hint, UnsupportedError)

    def set(self, name, kind, node):
        try:
            self.kinds[name] = join(self.kinds.get(name), kind)
        except TypeError:
            raise self.error(f"`{name}` holds a {self.kinds[name]} here and a {kind} elsewhere",
                             node, "use a separate variable for each") from None

    def block(self, stmts):
        for s in stmts:
            self.stmt(s)

    def stmt(self, s):
        self.node = s
        if isinstance(s, gast.Assign):
            target = s.targets[0]
            if isinstance(target, gast.Name):
                self.set(target.id, self.expr(s.value), s)
            elif isinstance(target, gast.Tuple):
                kind = self.expr(s.value)
                items = kind.items if isinstance(kind, TupleKind) else ()
                if len(items) != len(target.elts):
                    raise self.error(f"cannot unpack a {kind} into {len(target.elts)} names", s)
                for t, k in zip(target.elts, items):
                    self.set(t.id, k, s)
            else:  # element write
                self.expr(s.value)
                self.ctx.item_kinds[s] = self.kind_Subscript(target)
        elif isinstance(s, gast.If):
            self.block(s.body)
            self.block(s.orelse)
        elif isinstance(s, gast.For):
            for a in s.iter.args:
                k = self.expr(a)
                if not (isinstance(k, Kind) and k.dtype != "f" and k.ndim == 0):
                    raise self.error(f"`range` needs integers, got a {k}", s,
                                     "convert with int(...)")
            self.set(s.target.id, INT, s)
            self.block(s.body)
        elif isinstance(s, gast.While):
            self.block(s.body)
        elif isinstance(s, gast.Return):
            self.returns = join(self.returns, self.expr(s.value))

    def expr(self, e):
        return getattr(self, "kind_" + type(e).__name__)(e)

    def kind_Constant(self, e):
        v = e.value
        if isinstance(v, bool):
            return BOOL
        if isinstance(v, int):
            return INT
        if isinstance(v, float):
            return FLOAT
        if v is None:
            return NONE
        raise self.error(f"the constant {v!r} is not supported", self.node)

    def kind_Name(self, e):
        if e.id not in self.kinds:
            return None  # assigned later in a loop; the next iteration of the fixed point sees it
        return self.kinds[e.id]

    def kind_Tuple(self, e):
        return TupleKind(tuple(self.expr(x) for x in e.elts))

    kind_List = kind_Tuple

    def kind_Slice(self, e):
        return OtherKind("slice")

    def rule_kind(self, rule, bound):
        k = {p: (self.expr(a) if a is not None else None) for p, a in bound.items()}
        if any(v is None for p, v in k.items() if bound[p] is not None):
            return None
        for p in rule.params[1:]:
            k.setdefault(p, None)
        return rule.kind(k, bound)

    def kind_BinOp(self, e):
        rule = registry.by_name("op." + type(e.op).__name__)
        if rule is None:
            raise self.error(f"the operator `{type(e.op).__name__}` is not supported", self.node)
        return self.rule_kind(rule, {"x": e.left, "y": e.right})

    def kind_UnaryOp(self, e):
        k = self.expr(e.operand)
        if isinstance(e.op, gast.Not):
            return BOOL
        if isinstance(e.op, gast.Invert):
            raise self.error("`~` is not supported", self.node, "use np.logical_not")
        return k.with_(dtype="i") if isinstance(k, Kind) and k.dtype == "b" else k

    def kind_Compare(self, e):
        a, b = self.expr(e.left), self.expr(e.comparators[0])
        ndim = max(getattr(a, "ndim", 0), getattr(b, "ndim", 0))
        return Kind("b", ndim)

    def kind_Attribute(self, e):
        if ir.dotted_text(e) and ir.dotted_text(e).startswith("np."):
            return OtherKind("dtype")
        k = self.expr(e.value)
        if k is None:
            return None
        if e.attr == "shape":
            return TupleKind((INT,) * k.ndim)
        return INT

    def kind_Subscript(self, e):
        k = self.expr(e.value)
        if k is None:
            return None
        parts = e.slice.elts if isinstance(e.slice, gast.Tuple) else [e.slice]
        if isinstance(k, TupleKind):
            if len(parts) == 1 and isinstance(parts[0], gast.Constant):
                return k.items[parts[0].value]
            raise self.error("tuples can only be indexed with a constant", self.node)
        if not isinstance(k, Kind) or k.ndim == 0:
            raise self.error(f"cannot index a {k}", self.node)
        ndim = k.ndim
        for p in parts:
            pk = self.expr(p)
            if isinstance(pk, Kind) and pk.ndim == 0:
                ndim -= 1
            elif isinstance(pk, Kind) and pk.ndim == 1 and pk.dtype == "i":
                pass
            elif pk == NONE:
                ndim += 1
            elif isinstance(pk, Kind):
                raise self.error(f"indexing with a {pk} is not supported", self.node,
                                 "index with integers, slices or a 1-d integer array")
        if ndim < 0:
            raise self.error("too many indices", self.node)
        return k.with_(ndim=ndim)

    def kind_Call(self, e):
        site = self.ctx.site(e)
        text = site.name
        if site.kind == "user":
            arg_kinds = [self.expr(a) for a in e.args]
            if None in arg_kinds:
                return None
            if e.keywords:
                raise self.error("keyword arguments to your own functions are not supported",
                                 self.node, "pass them by position")
            callee = self.ctx.program.specialize(self.ctx.user_functions[text],
                                                 tuple(arg_kinds), self.node, self.ctx.fsrc)
            return callee.return_kind
        if site.kind == "custom":
            return self.custom_kind(text, e)
        rule = site.rule
        bound = rule.bind(e.args, e.keywords, lambda m: self.error(m, self.node))
        return self.rule_kind(rule, bound)

    def custom_kind(self, text, e):
        """A function with a defvjp rule: typed like srcad's own rule for it, or from its
        source, or else as a float of the arguments' broadcast rank."""
        fn, _ = self.ctx.custom_calls[text]
        arg_kinds = [self.expr(a) for a in e.args]
        if None in arg_kinds:
            return None
        rule = registry.lookup(fn)
        if rule is not None:
            bound = rule.bind(e.args, e.keywords, lambda m: self.error(m, self.node))
            return self.rule_kind(rule, bound)
        try:
            callee = self.ctx.program.specialize(fn, tuple(arg_kinds), self.node, self.ctx.fsrc)
            return callee.return_kind
        except SrcadError:
            return Kind("f", max((getattr(k, "ndim", 0) for k in arg_kinds), default=0))

"""Activity: which variables carry derivatives (depend on `wrt` and reach the output)."""
import gast

from srcad.errors import UnsupportedError
from srcad.kinds import TupleKind
from srcad.passes import ir
from srcad.rules import registry


def statements(stmts, loops=()):
    """Every statement in program order, with the loops (their ids) that enclose it."""
    for s in stmts:
        yield s, loops
        if isinstance(s, gast.If):
            yield from statements(s.body, loops)
            yield from statements(s.orelse, loops)
        elif isinstance(s, (gast.For, gast.While)):
            yield from statements(s.body, loops + (id(s),))


def names(atoms):
    out = []
    for a in atoms:
        if isinstance(a, gast.Name):
            out.append(a.id)
        elif isinstance(a, (gast.Tuple, gast.List)):
            out += names(a.elts)
    return out


def bound_args(op, ctx):
    """(rule, {param: atom}) for an operation, or (None, None) if it is not a rule call.
    The rule is the one for the operands' kinds (`Rule.for_kinds`: a complex operand
    may have its own) and constants (`Rule.for_constants`: `1.0 / y` has its own)."""
    if isinstance(op, gast.BinOp):
        rule, bound = registry.by_name("op." + type(op.op).__name__), {"x": op.left,
                                                                      "y": op.right}
    elif isinstance(op, gast.UnaryOp):
        rule, bound = registry.by_name("op." + type(op.op).__name__), {"x": op.operand}
    elif isinstance(op, gast.Call) and ctx.site(op).kind == "rule":
        rule = ctx.site(op).rule
        bound = rule.bind(op.args, op.keywords, lambda m: ValueError(m))
    else:
        return None, None
    if rule is None:
        return rule, bound
    rule = rule.for_constants(bound)
    if rule.complex is None or rule.complex is True:
        return rule, bound
    return rule.for_kinds(ctx.kinds.get(a.id) for a in bound.values()
                          if isinstance(a, gast.Name)), bound


def diff_operands(op, ctx, root=lambda name: name):
    """Names whose derivatives flow into the result of `op` (`root` names the variable a
    copy holds the value of: `e - t` with `t = e` cancels too)."""
    if isinstance(op, gast.Name):
        return [op.id]
    if isinstance(op, gast.Subscript):
        return [op.value.id]
    if isinstance(op, (gast.Tuple, gast.List)):
        return names(op.elts)
    if isinstance(op, gast.Call) and ctx.site(op).kind != "rule":
        return names(op.args)
    rule, bound = bound_args(op, ctx)
    if rule is None:
        return []
    flowing = names([bound[p] for p in rule.diff if bound.get(p) is not None])
    return [v for v in flowing if v not in _cancelled(op, root)]


def _cancelled(op, root):
    """The operands (names) whose derivatives cancel wherever they are finite: against a
    literal zero (`e * 0.0`, `0.0 * e`, `0.0 / e`, `e ** 0`), or themselves (`e - e`).
    They carry none: through `np.sqrt(y * 0.0)` or `np.sqrt(y - y)`, whose values never
    change, `y`'s gradient is 0, not 0 * inf = nan."""
    if not isinstance(op, gast.BinOp):
        return ()
    if isinstance(op.op, gast.Sub) and isinstance(op.left, gast.Name) and \
            isinstance(op.right, gast.Name) and root(op.left.id) == root(op.right.id):
        return (op.left.id, op.right.id)
    side = None
    if isinstance(op.op, gast.Mult):
        side = op.left if _zero(op.right) else op.right if _zero(op.left) else None
    elif isinstance(op.op, gast.Div) and _zero(op.left):
        side = op.right
    elif isinstance(op.op, gast.Pow) and _zero(op.right):
        side = op.left
    return tuple(names([side])) if side is not None else ()


def _zero(node):
    return isinstance(node, gast.Constant) and type(node.value) in (int, float) and \
        node.value == 0


def targets(stmt):
    t = stmt.targets[0]
    if isinstance(t, gast.Tuple):
        return [e.id for e in t.elts]
    if isinstance(t, gast.Subscript):
        return [t.value.id]
    return [t.id]


class Activity:
    """Analysis: `ctx.active`, the float variables that depend on a `wrt` parameter and
    reach the returned value; only they get adjoints.

    A small fixed point over the assignments, flow-insensitive (a variable is active if any
    of its definitions is). Integer and boolean variables are never active; neither are
    results of rules without derivatives (comparisons, floor, constructors).
    """

    needs = ("kinds", "custom_calls", "user_functions", "calls")
    provides = ("active", "varied")

    def __init__(self, ctx, wrt_names):
        self.ctx = ctx
        self.wrt = set(wrt_names)

    def run(self, fnode):
        ctx = self.ctx
        assigns = [s for s, _ in statements(fnode.body) if isinstance(s, gast.Assign)]
        root = _copies(fnode, assigns)
        flows = []  # (sources, targets): derivatives may flow from sources to targets
        for s in assigns:
            t = s.targets[0]
            if isinstance(t, gast.Subscript):
                flows.append((names([s.value]), [t.value.id]))
            else:
                flows.append((diff_operands(s.value, ctx, root), targets(s)))
        floats = {n for n, k in ctx.kinds.items() if _has_float(k)}
        varied = self.wrt & floats
        useful = set(names([s.value for s, _ in statements(fnode.body)
                            if isinstance(s, gast.Return)]))
        forward, backward = {}, {}  # name -> the names a flow from (to) it reaches
        for sources, outs in flows:
            for v in sources:
                forward.setdefault(v, []).extend(o for o in outs if o in floats)
            for o in outs:
                backward.setdefault(o, []).extend(sources)
        varied, useful = _reached(varied, forward), _reached(useful, backward)
        ctx.active = varied & useful & floats
        ctx.varied = varied
        for s in assigns:  # a tuple held in a variable would need a tuple of adjoints
            call = s.value
            if isinstance(call, gast.Call) and ctx.site(call).kind == "user" and any(
                    isinstance(a, (gast.Tuple, gast.List)) and
                    any(n in varied and n in floats for n in names([a]))
                    for a in call.args):
                raise ctx.fsrc.error(
                    f"the call passes `{ir.dotted_text(call.func)}` a tuple or list of "
                    "values that carry gradients", s, "pass the values as separate "
                    "arguments, and unpack nothing in the helper", UnsupportedError)
            for t in targets(s):
                if t in ctx.active and isinstance(ctx.kinds[t], TupleKind):
                    code = getattr(ctx.fsrc.fn, "__code__", None)
                    held = f"`{t}` holds" if code is None or t in code.co_varnames \
                        else "this line keeps"
                    raise ctx.fsrc.error(
                        f"{held} a tuple or list of values that carry gradients", s,
                        "unpack it where it is built (`a, b = x * 2.0, x`), or bind it once "
                        "and read its items by constant index only (`t[1]`)",
                        UnsupportedError)
        return fnode


def _reached(start, edges):
    """The names reached from `start` along `edges` (`start` included)."""
    seen, todo = set(start), list(start)
    while todo:
        for w in edges.get(todo.pop(), ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def _copies(fnode, assigns):
    """`root(name)`: the variable whose value `name` holds through copies (`t = e`), each
    bound once, so that the two always hold one value."""
    stores = {a.id: 1 for a in fnode.args.args}  # a parameter holds its first value
    for n in ir.names(fnode):
        if isinstance(n.ctx, gast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
    copies = {s.targets[0].id: s.value.id for s in assigns
              if isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Name)
              and stores[s.targets[0].id] == 1 and stores.get(s.value.id, 0) <= 1}

    def root(name):
        seen = set()
        while name in copies and name not in seen:
            seen.add(name)
            name = copies[name]
        return name

    return root


def _has_float(kind):
    if isinstance(kind, TupleKind):
        return any(_has_float(k) for k in kind.items)
    return getattr(kind, "is_float", False)

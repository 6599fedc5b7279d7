"""CommonSubexpressions: one computation where straight-line code repeats it.

`out[i, j] = (np.prod(box[:, j]) - np.prod(p[i, :])) / np.prod(box[:, j])` computes the
slice and the product of `box[:, j]` twice. The primal's compiler merges the two, but the
reverse sweep would not: it would recompute both and run the product's adjoint twice. After
ToANF the repeats are `tmp8 = box[:, j]` and `tmp9 = rt.prod(tmp8)`; this pass drops them
and reads `tmp3` and `tmp4` instead, so both sweeps do the work once.
"""
import math

import gast

from srcad.passes import ir
from srcad.rules import registry


def _names(node, ctx_type):
    return [n.id for n in ir.names(node) if isinstance(n.ctx, ctx_type)]


def _written_arrays(fnode):
    """Names written element by element: `x[i] = ...` (after ExpandAugAssign, also `+=`)."""
    out = set()
    nodes = [fnode] if isinstance(fnode, (gast.Assign, gast.AugAssign)) else ir.walk(fnode)
    for node in nodes:  # (an assignment holds no other)
        targets = node.targets if isinstance(node, gast.Assign) else \
            [node.target] if isinstance(node, gast.AugAssign) else []
        for t in targets:
            while isinstance(t, gast.Subscript):
                t = t.value
                if isinstance(t, gast.Name):
                    out.add(t.id)
    return out


def _shape(node):
    """A hashable description of an expression: equal for two expressions only when they
    print alike, and whenever they do but for rare spellings (a NaN or complex constant).
    Number constants count by type and `repr`, a negative one as the minus it prints as
    (see `codegen.emit`); contexts do not count. (It replaces the printed text, which
    cost a whole emission per statement.)"""
    if isinstance(node, gast.Constant):
        v = node.value
        if isinstance(v, (int, float)) and not isinstance(v, bool) and \
                (v < 0 or (isinstance(v, float) and math.copysign(1.0, v) < 0)):
            return ("UnaryOp", ("USub",), ("Constant", type(v).__name__, repr(-v)))
        return ("Constant", type(v).__name__, repr(v))
    if isinstance(node, gast.AST):
        return (type(node).__name__,) + tuple(
            _shape(getattr(node, f, None)) for f in node._fields if f != "ctx")
    if isinstance(node, list):
        return ("[",) + tuple(_shape(v) for v in node)
    return node


class CommonSubexpressions:
    """Transformation: within one statement list, `t2 = e` after `t1 = e` (the same pure
    expression of the same, unchanged operands) is dropped and later reads of `t2` read
    `t1`. Only names assigned once and never written element by element take part, so no
    array gains a second name that a write could show through; any call to a function whose
    rule is not pure (or that has no rule), any element write and any nested block
    forgets what was computed before it."""

    needs = ()
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        stores, self.loads = {}, {}
        for n in ir.names(fnode):
            counts = stores if isinstance(n.ctx, gast.Store) else \
                self.loads if isinstance(n.ctx, gast.Load) else {}
            counts[n.id] = counts.get(n.id, 0) + 1
        params = {a.id for a in fnode.args.args}
        written = _written_arrays(fnode)
        self.single = {n for n, c in stores.items() if c == 1} - params - written
        fnode.body = self.block(fnode.body)
        return fnode

    def block(self, stmts):
        """One pass down the list. A dropped repeat's reads are renamed as each later
        statement is reached (`renamed`), and `later` counts the reads still ahead in
        this list, so that the pass does not walk the rest of the list at each repeat."""
        table, out, renamed = _Table(), [], {}
        later = {}
        found = [ir.names(s) for s in stmts]  # the Name nodes of each statement
        for names in found:
            for n in names:
                if isinstance(n.ctx, gast.Load):
                    later[n.id] = later.get(n.id, 0) + 1
        for s, names in zip(stmts, found):
            if renamed:
                for n in names:
                    if n.id in renamed:
                        n.id = renamed[n.id]
            for n in names:
                if isinstance(n.ctx, gast.Load):
                    later[n.id] -= 1
            for field in ("body", "orelse"):
                if isinstance(s, (gast.If, gast.For, gast.While)):
                    setattr(s, field, self.block(getattr(s, field)))
            key = self.key(s)
            if key is not None and key in table and self.movable(s, later):
                old, new = s.targets[0].id, table[key]
                renamed[old] = new
                later[new] = later.get(new, 0) + later.pop(old, 0)
                self.loads[new] = self.loads.get(new, 0) + self.loads.pop(old, 0)
                continue
            out.append(s)
            self.forget(table, s, key, names)
            if key is not None and s.targets[0].id in self.single:
                table.add(key, s.targets[0].id, set(_names(s.value, gast.Load)))
        return out

    def movable(self, s, later):
        """Whether every read of `s`'s target comes after it in this list (`later`: the
        reads of each name still ahead)."""
        old = s.targets[0].id
        return old in self.single and later.get(old, 0) == self.loads.get(old, 0)

    def key(self, s):
        """A description of a repeatable pure expression assigned to one name, else None."""
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name)):
            return None
        e = s.value
        if isinstance(e, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Subscript,
                          gast.Attribute)):
            pure = True
        elif isinstance(e, gast.Call):
            pure = registry.is_pure(ir.dotted_text(e.func))
        else:
            return None
        inner = [n for n in ir.walk(e) if isinstance(n, gast.Call) and n is not e]
        if not pure or inner:
            return None
        return _shape(e)

    def forget(self, table, s, key, names):
        """Drop what `s` (its `key`, its Name nodes) may change: entries reading a name it
        assigns; everything after an element write, a call statement or a nested block."""
        if isinstance(s, (gast.If, gast.For, gast.While, gast.Expr)) or \
                _written_arrays(s) or (isinstance(s, gast.Assign) and key is None
                                       and isinstance(s.value, gast.Call)):
            table.clear()
            return
        for n in names:
            if isinstance(n.ctx, gast.Store):
                table.forget(n.id)


class _Table:
    """The expressions computed so far: description -> the name holding it, with, for
    each name, the descriptions that read it or are held by it (so that forgetting a
    name does not scan every entry)."""

    def __init__(self):
        self.clear()

    def clear(self):
        self.held = {}  # description -> (name, names it reads)
        self.by_name = {}  # name -> descriptions to drop when it changes

    def __contains__(self, key):
        return key in self.held

    def __getitem__(self, key):
        return self.held[key][0]

    def add(self, key, name, reads):
        if key in self.held:
            self.drop(key)
        self.held[key] = (name, reads)
        for n in reads | {name}:
            self.by_name.setdefault(n, set()).add(key)

    def drop(self, key):
        name, reads = self.held.pop(key)
        for n in reads | {name}:
            self.by_name[n].discard(key)

    def forget(self, name):
        for key in list(self.by_name.get(name, ())):
            self.drop(key)

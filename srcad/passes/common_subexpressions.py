"""CommonSubexpressions: one computation where straight-line code repeats it.

`out[i, j] = (np.prod(box[:, j]) - np.prod(p[i, :])) / np.prod(box[:, j])` computes the
slice and the product of `box[:, j]` twice. The primal's compiler merges the two, but the
reverse sweep would not: it would recompute both and run the product's adjoint twice. After
ToANF the repeats are `tmp8 = box[:, j]` and `tmp9 = rt.prod(tmp8)`; this pass drops them
and reads `tmp3` and `tmp4` instead, so both sweeps do the work once.
"""
import gast

from codegen import to_source
from srcad.passes import ir
from srcad.rules import registry


def _names(node, ctx_type):
    return [n.id for n in gast.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, ctx_type)]


def _written_arrays(fnode):
    """Names written element by element: `x[i] = ...` (after ExpandAugAssign, also `+=`)."""
    out = set()
    for node in gast.walk(fnode):
        targets = node.targets if isinstance(node, gast.Assign) else \
            [node.target] if isinstance(node, gast.AugAssign) else []
        for t in targets:
            while isinstance(t, gast.Subscript):
                t = t.value
                if isinstance(t, gast.Name):
                    out.add(t.id)
    return out


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
        stores = {}
        for n in _names(fnode, gast.Store):
            stores[n] = stores.get(n, 0) + 1
        params = {a.id for a in fnode.args.args}
        written = _written_arrays(fnode)
        self.single = {n for n, c in stores.items() if c == 1} - params - written
        self.loads = {}
        for n in _names(fnode, gast.Load):
            self.loads[n] = self.loads.get(n, 0) + 1
        fnode.body = self.block(fnode.body)
        return fnode

    def block(self, stmts):
        """One pass down the list. A dropped repeat's reads are renamed as each later
        statement is reached (`renamed`), and `later` counts the reads still ahead in
        this list, so that the pass does not walk the rest of the list at each repeat."""
        table, out, renamed = {}, [], {}
        later = {}
        for s in stmts:
            for n in _names(s, gast.Load):
                later[n] = later.get(n, 0) + 1
        for s in stmts:
            if renamed:
                for n in gast.walk(s):
                    if isinstance(n, gast.Name) and n.id in renamed:
                        n.id = renamed[n.id]
            for n in _names(s, gast.Load):
                later[n] -= 1
            for field in ("body", "orelse"):
                if isinstance(s, (gast.If, gast.For, gast.While)):
                    setattr(s, field, self.block(getattr(s, field)))
            key = self.key(s)
            if key is not None and key in table and self.movable(s, later):
                old, new = s.targets[0].id, table[key][0]
                renamed[old] = new
                later[new] = later.get(new, 0) + later.pop(old, 0)
                self.loads[new] = self.loads.get(new, 0) + self.loads.pop(old, 0)
                continue
            out.append(s)
            self.forget(table, s)
            if key is not None and s.targets[0].id in self.single:
                table[key] = (s.targets[0].id, set(_names(s.value, gast.Load)))
        return out

    def movable(self, s, later):
        """Whether every read of `s`'s target comes after it in this list (`later`: the
        reads of each name still ahead)."""
        old = s.targets[0].id
        return old in self.single and later.get(old, 0) == self.loads.get(old, 0)

    def key(self, s):
        """The text of a repeatable pure expression assigned to one name, else None."""
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
        inner = [n for n in gast.walk(e) if isinstance(n, gast.Call) and n is not e]
        if not pure or inner:
            return None
        return to_source(gast.Expr(value=e)).strip()

    def forget(self, table, s):
        """Drop what `s` may change: entries reading a name it assigns; everything after
        an element write, a call statement or a nested block."""
        if isinstance(s, (gast.If, gast.For, gast.While, gast.Expr)) or \
                _written_arrays(s) or (isinstance(s, gast.Assign) and self.key(s) is None
                                       and isinstance(s.value, gast.Call)):
            table.clear()
            return
        changed = set(_names(s, gast.Store))
        for key, (name_, reads) in list(table.items()):
            if name_ in changed or reads & changed:
                del table[key]

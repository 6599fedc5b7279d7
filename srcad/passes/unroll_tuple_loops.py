"""UnrollTupleLoops: a loop over a tuple of values becomes one copy of its body per value."""
import copy

import gast

from srcad.passes import ir
from srcad.passes.constants import Constants


class UnrollTupleLoops:
    """Transformation: `for v in (a, b): body` (a tuple or list literal, or a module-level
    tuple of numbers) becomes `v = a; body; v = b; body`. Python builds the tuple once,
    before the first trip, so an item that the body changes is taken into a temporary
    first. When the loop's own `break`/`continue` occur, each copy runs in a loop of one
    trip, and a `break` sets a flag that skips the copies after it. Copies keep their
    calls' `CallSite`s and their marks as augmented assignments.

    >>> from srcad.passes.testing import show_resolved
    >>> show_resolved('''
    ... def f(a, s):
    ...     for v in (a, s):
    ...         if v > 1.0:
    ...             break
    ...         s = s * v
    ...     return s''', UnrollTupleLoops)
    def f(a, s):
        tmp1 = s
        broke1 = False
        if not broke1:
            for k1 in range(1):
                v = a
                if v > 1.0:
                    broke1 = True
                    break
                s = s * v
        if not broke1:
            for k2 in range(1):
                v = tmp1
                if v > 1.0:
                    broke1 = True
                    break
                s = s * v
        return s
    """

    needs = ("resolve", "calls", "augmented")
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx
        self.consts = Constants(ctx.resolve)

    def run(self, fnode):
        fnode.body = self.block(fnode.body)
        return fnode

    def block(self, stmts):
        return ir.rewrite_blocks(
            stmts, lambda stmt: self.unrolled(stmt) if self.over_tuple(stmt) else [stmt])

    def over_tuple(self, stmt):
        """Whether `stmt` is a loop over a tuple (`stmt.iter` then is its literal)."""
        if not isinstance(stmt, gast.For) or not isinstance(stmt.target, gast.Name):
            return False
        tup = self.consts.global_tuple(stmt.iter)
        if tup is not None:
            stmt.iter = gast.copy_location(tup, stmt.iter)
        return isinstance(stmt.iter, (gast.Tuple, gast.List))

    def unrolled(self, node):
        out = self.snapshot_items(node)
        if not ir.contains(node.body, (gast.Break, gast.Continue)):
            for elt in node.iter.elts:
                out += [ir.assign(node.target.id, elt, like=node)] + self.copied(node.body)
            return out
        flag = self.ctx.namer.fresh("broke")
        out.append(ir.assign(flag, ir.const(False), like=node))
        for elt in node.iter.elts:
            body = [ir.assign(node.target.id, elt, like=node)]
            body += _flag_breaks(self.copied(node.body), flag)
            once = gast.Call(func=ir.name("range"), args=[ir.const(1)], keywords=[])
            loop = gast.For(target=ir.name(self.ctx.namer.fresh("k"), store=True),
                            iter=once, body=body, orelse=[], type_comment=None)
            out.append(ir.if_(ir.not_(ir.name(flag)), [gast.copy_location(loop, node)],
                              like=node))
        return out

    def copied(self, stmts):
        """Deep copies of `stmts` whose calls keep their `CallSite`s and whose expanded
        `x += e` stay marked as such."""
        out = [copy.deepcopy(s) for s in stmts]
        for a, b in zip(ir.walk(gast.Module(body=stmts, type_ignores=[])),
                        ir.walk(gast.Module(body=out, type_ignores=[]))):
            if a in self.ctx.calls:
                self.ctx.calls[b] = self.ctx.calls[a]
            if a in self.ctx.augmented:
                self.ctx.augmented.add(b)
        return out

    def snapshot_items(self, node):
        """Statements taking the items the body changes (`s` in `for v in (a, s)` with
        `s -= ...` in the body) into temporaries; `node.iter.elts` becomes the values
        each copy starts from."""
        rebound = {n.id for n in ir.walk(node) if isinstance(n, gast.Name)
                   and isinstance(n.ctx, gast.Store)}
        written = {_root(n) for n in ir.walk(node)  # arrays written element by element
                   if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store)}
        out, elts = [], []
        for elt in node.iter.elts:
            reads = {n.id for n in ir.walk(elt) if isinstance(n, gast.Name)}
            # the tuple holds a name's object itself, so the body's writes into it show, as
            # in Python; a value computed from what the body changes is computed first
            if isinstance(elt, gast.Constant) or not reads & (rebound | written) or \
                    isinstance(elt, gast.Name) and elt.id not in rebound:
                elts.append(elt)
                continue
            tmp = self.ctx.namer.fresh("tmp")
            out.append(ir.assign(tmp, elt, like=node))
            elts.append(ir.name(tmp))
        node.iter.elts = elts
        return out


def _root(node):
    """The variable an element write `x[i][j] = ...` writes into (`x`)."""
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _flag_breaks(stmts, flag):
    """`stmts` with each `break` of their own loop preceded by `flag = True`."""
    out = []
    for s in stmts:
        if isinstance(s, gast.Break):
            out.append(ir.assign(flag, ir.const(True), like=s))
        elif isinstance(s, gast.If):
            s.body, s.orelse = _flag_breaks(s.body, flag), _flag_breaks(s.orelse, flag)
        out.append(s)
    return out

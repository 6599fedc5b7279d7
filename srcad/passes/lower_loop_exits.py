"""LowerLoopExits: `break` and `continue` become flags; a loop exits only at its end."""
import gast

from srcad.passes import ir


class LowerLoopExits:
    """Transformation: `continue` is gone, and `break` appears only as the last statement
    of a loop body (`if broke: break`) or as the exit test at the top of a `while True:`.

    Statements after a place that may have left the iteration run under `if not flag:`,
    so the reverse sweep replays a partial last iteration through ordinary branches.

    >>> from srcad.passes.testing import show
    >>> show(LowerLoopExits, '''
    ... def f(xs):
    ...     s = 0.0
    ...     for i in range(10):
    ...         if xs[i] < 0:
    ...             break
    ...         s = s + xs[i]
    ...     return s''')
    def f(xs):
        s = 0.0
        broke = False
        for i in range(10):
            if xs[i] < 0:
                broke = True
            if not broke:
                s = s + xs[i]
            if broke:
                break
        return s
    """

    needs = ()
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        fnode.body = self.block(fnode.body)
        return fnode

    def block(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, gast.If):
                s.body, s.orelse = self.block(s.body), self.block(s.orelse)
                out.append(s)
            elif isinstance(s, (gast.For, gast.While)):
                out += self.loop(s)
            else:
                out.append(s)
        return out

    def loop(self, node):
        body = self.block(node.body)
        head = []
        if isinstance(node, gast.While) and body and _is_exit_test(body[0]):
            head, body = body[:1], body[1:]
        flags = {}
        if ir.contains(body, gast.Break):
            flags[gast.Break] = self.ctx.namer.fresh("broke", numbered=False)
        if ir.contains(body, gast.Continue):
            flags[gast.Continue] = self.ctx.namer.fresh("skip", numbered=False)
        if not flags:
            node.body = head + body
            return [node]
        self.flags = flags
        body = self.guard(body)
        pre = []
        if gast.Continue in flags:
            body = [ir.assign(flags[gast.Continue], ir.const(False), like=node)] + body
        if gast.Break in flags:
            pre = [ir.assign(flags[gast.Break], ir.const(False), like=node)]
            body.append(ir.if_(ir.name(flags[gast.Break]), [gast.Break()], like=node))
        node.body = head + body
        return pre + [node]

    def guard(self, stmts):
        out = []
        for idx, s in enumerate(stmts):
            if isinstance(s, (gast.Break, gast.Continue)):
                out.append(ir.assign(self.flags[type(s)], ir.const(True), like=s))
                return out
            if isinstance(s, gast.If):
                s.body, s.orelse = self.guard(s.body), self.guard(s.orelse)
            out.append(s)
            exits = [f for t, f in self.flags.items() if isinstance(s, gast.If)
                     and (ir.contains(s.body, t) or ir.contains(s.orelse, t)
                          or _sets(s, f))]
            rest = stmts[idx + 1:]
            if exits and rest:
                guarded = self.guard(rest)
                for flag in exits:
                    guarded = [ir.if_(ir.not_(ir.name(flag)), guarded, like=rest[0])]
                return out + guarded
        return out


def _sets(stmt, flag):
    return any(isinstance(n, gast.Name) and n.id == flag and isinstance(n.ctx, gast.Store)
               for n in ir.walk(stmt))


def _is_exit_test(s):
    return (isinstance(s, gast.If) and len(s.body) == 1 and isinstance(s.body[0], gast.Break)
            and not s.orelse)

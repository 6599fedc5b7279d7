"""RecordControl: branch decisions and loop trip counts become ordinary variables."""
import gast

from srcad.passes import ir


def _atom(text):
    return ir.const(int(text)) if text.lstrip("-").isdigit() else ir.name(text)


def _has_break(stmts):
    return ir.contains(stmts, gast.Break)


class RecordControl:
    """Transformation: every `if` tests a fresh flag, every loop has a trip-count variable.

    The reverse sweep replays control flow from these variables; since they are ordinary
    variables the tape machinery saves them like any other value it needs. Afterwards:

    - `if c:` reads `if branch1:` after `branch1 = c`;
    - `for i in range(a, b, s):` is preceded by `start1 = a`, `step1 = s`,
      `trip1 = rt.range_len(start1, b, s)` and loops over `range(start1, b, step1)`;
    - a loop that may `break` (every `while True:`) counts its iterations in `count1` and
      sets `trip1 = count1` after it.

    Side table: `ctx.loops[loop] = (trip, start, step, bound)` (start/step None for while).
    `ctx.no_push` holds the counters, which the reverse sweep never reads mid-loop.
    """

    needs = ()
    provides = ("flags", "loops", "no_push")

    def __init__(self, ctx):
        self.ctx = ctx
        ctx.loops = {}
        ctx.flags = set()
        ctx.no_push = set()

    def run(self, fnode):
        fnode.body = self.block(fnode.body)
        return fnode

    def fresh(self, stem):
        return self.ctx.namer.fresh(stem)

    def block(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, gast.If):
                out += self.if_(s)
            elif isinstance(s, gast.For):
                out += self.for_(s)
            elif isinstance(s, gast.While):
                out += self.while_(s)
            else:
                out.append(s)
        return out

    def if_(self, node):
        if len(node.body) == 1 and isinstance(node.body[0], gast.Break) and not node.orelse:
            return [node]  # a loop exit: the trip count already records it
        flag = self.fresh("branch")
        self.ctx.flags.add(flag)
        test = node.test
        node.test = ir.name(flag)
        node.body = self.block(node.body)
        node.orelse = self.block(node.orelse)
        return [ir.assign(flag, test, like=node), node]

    def for_(self, node):
        args = node.iter.args
        start, stop, step = ((ir.const(0), args[0], ir.const(1)) if len(args) == 1 else
                             (args[0], args[1], ir.const(1)) if len(args) == 2 else args)
        pre = []
        start_v, step_v = self.fixed(start, "start", pre, node), self.fixed(step, "step", pre, node)
        bound = self.fresh("trip")
        pre.append(ir.assign(bound, ir.call("rt.range_len", _atom(start_v), stop,
                                            _atom(step_v)), like=node))
        node.iter.args = ([stop] if start_v == "0" and step_v == "1" else
                          [_atom(start_v), stop] if step_v == "1" else
                          [_atom(start_v), stop, _atom(step_v)])
        node.body = self.block(node.body)
        if not _has_break(node.body):
            self.ctx.loops[node] = (bound, start_v, step_v, bound)
            return pre + [node]
        trip, post = self.counted(node)
        self.ctx.loops[node] = (trip, start_v, step_v, bound)
        return pre + post

    def fixed(self, atom, stem, pre, node):
        """The source of a loop bound's value at loop entry: a constant, or a fresh name."""
        if isinstance(atom, gast.Constant):
            return repr(atom.value)
        name = self.fresh(stem)
        pre.append(ir.assign(name, atom, like=node))
        return name

    def while_(self, node):
        node.body = self.block(node.body)
        trip, stmts = self.counted(node)
        self.ctx.loops[node] = (trip, None, None, None)
        return stmts

    def counted(self, node):
        count, trip = self.fresh("count"), self.fresh("trip")
        self.ctx.no_push.add(count)
        bump = ir.assign(count, gast.BinOp(left=ir.name(count), op=gast.Add(), right=ir.const(1)),
                         like=node)
        node.body = [bump] + node.body
        return trip, [ir.assign(count, ir.const(0), like=node), node,
                      ir.assign(trip, ir.name(count), like=node)]

"""LowerIterators: `for i, v in enumerate(xs)` and `for a, b in zip(xs, ys)` become loops
over an index."""
import builtins

import gast

from srcad.errors import UnsupportedError
from srcad.passes import ir


class LowerIterators:
    """Transformation: a `for` loop over `enumerate(...)` or `zip(...)` (nested in each
    other too) becomes `for k in range(n):` whose body starts by binding the loop's
    targets to item `k` of each sequence: `xs[k]` for an array or list, `a + k * s` for a
    `range(a, b, s)`. `n` is the shortest length, as zip stops at the shortest. The
    sequences are taken once, before the loop, as Python does: one the body assigns
    anew is held in a temporary first, as is the sequence of a plain `for v in xs:` whose
    body binds `xs` again.

    >>> from srcad.passes.testing import show_names
    >>> _ = show_names(LowerIterators, '''
    ... def f(x, y, n):
    ...     s = 0.0
    ...     for k, (a, b) in enumerate(zip(x, y[1:]), 1):
    ...         s = s + k * a * b
    ...     for j, t in zip(range(2, n), x):
    ...         s = s + j * t
    ...     for v in x:
    ...         x = x * 2.0
    ...     return s''')
    def f(x, y, n):
        s = 0.0
        tmp1 = y[1:]
        for k1 in range(min(len(x), len(tmp1))):
            k = k1 + 1
            a = x[k1]
            b = tmp1[k1]
            s = s + k * a * b
        for k2 in range(min(max(0, n - 2), len(x))):
            j = 2 + k2
            t = x[k2]
            s = s + j * t
        tmp2 = x
        for v in tmp2:
            x = x * 2.0
        return s
    """

    needs = ("local_functions",)
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx
        fn = getattr(ctx.fsrc, "fn", None)
        self.env = {**vars(builtins), **getattr(fn, "__globals__", {}), **ctx.local_functions}

    def run(self, fnode):
        self.locals = {n.id for n in ir.walk(fnode)
                       if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param))}
        fnode.body = ir.rewrite_blocks(fnode.body, self.lowered_loop)
        return fnode

    def lowered_loop(self, s):
        lower = isinstance(s, gast.For) and self.which(s.iter) in (enumerate, zip)
        return self.lowered(s) if lower else self.taken_once(s)

    def taken_once(self, s):
        """`for v in xs:` whose body binds `xs` again iterates over a temporary that
        holds `xs` from before the loop, as Python takes the sequence once."""
        if not isinstance(s, gast.For) or not isinstance(s.iter, gast.Name) or \
                s.iter.id not in _assigned(s.body):
            return [s]
        self.loop, self.pre = s, []
        s.iter = self.atom(s.iter, always=True)
        return self.pre + [s]

    def which(self, node):
        """`enumerate`, `zip` or `range` when `node` calls that builtin, else None."""
        if not isinstance(node, gast.Call) or not isinstance(node.func, gast.Name) or \
                node.func.id in self.locals:
            return None
        obj = self.env.get(node.func.id)
        return next((f for f in (enumerate, zip, range) if obj is f), None)

    def lowered(self, loop):
        self.loop, self.pre = loop, []
        for name in ("len", "min", "max", "range"):  # what the lowered loop calls
            if name in self.locals or self.env.get(name) is not getattr(builtins, name):
                raise self.error(f"this loop is written with `{name}`, which this module "
                                 "defines anew", "loop over an index instead: "
                                 "`for k in range(len(x)):`")
        index = self.ctx.namer.fresh("k")
        length, binds = self.items(loop.iter, loop.target, ir.name(index))
        new = gast.For(target=ir.name(index, store=True), iter=ir.call("range", length),
                       body=binds + loop.body, orelse=loop.orelse, type_comment=None)
        return self.pre + [gast.copy_location(new, loop)]

    def items(self, seq, target, index):
        """(the number of items of `seq`, statements binding `target` to item `index`)."""
        which = self.which(seq)
        if which is enumerate:
            return self.enumerated(seq, target, index)
        if which is zip:
            return self.zipped(seq, target, index)
        if which is range:
            start, stop, step = self.bounds(seq)
            item = index if _is(step, 1) else gast.BinOp(left=index, op=gast.Mult(), right=step)
            item = item if _is(start, 0) else gast.BinOp(left=start, op=gast.Add(), right=item)
            return self.range_length(start, stop, step), [self.bind(target, item)]
        held = self.held(seq)
        item = gast.Subscript(value=ir.name(held.id), slice=index, ctx=gast.Load())
        return ir.call("len", ir.name(held.id)), [self.bind(target, item)]

    def enumerated(self, call, target, index):
        start = call.args[1] if len(call.args) > 1 else \
            next((k.value for k in call.keywords if k.arg == "start"), None)
        if not call.args or len(call.args) + len(call.keywords) > 2 or \
                not _pair(target, 2):
            raise self.error("`enumerate` takes one sequence (and `start`) here, unpacked "
                             "as `i, v`")
        length, binds = self.items(call.args[0], target.elts[1], index)
        count = index if start is None else \
            gast.BinOp(left=index, op=gast.Add(), right=self.atom(start))
        return length, [self.bind(target.elts[0], count)] + binds

    def zipped(self, call, target, index):
        if call.keywords or not call.args or not _pair(target, len(call.args)):
            raise self.error("`zip` takes sequences here, unpacked into as many names "
                             "(`for a, b in zip(x, y)`)", "zip(..., strict=...) is not "
                             "supported")
        lengths, binds = [], []
        for seq, t in zip(call.args, target.elts):
            n, b = self.items(seq, t, index)
            lengths.append(n)
            binds += b
        length = lengths[0]
        for n in lengths[1:]:
            length = ir.call("min", length, n)
        return length, binds

    def bounds(self, call):
        """(start, stop, step) of a `range(...)` call, each an atom evaluated once."""
        args = [self.atom(a) for a in call.args]
        if call.keywords or not 1 <= len(args) <= 3:
            raise self.error("`range` takes one to three positional arguments")
        start, stop, step = ([ir.const(0)] + args + [ir.const(1)])[:3] if len(args) == 1 \
            else (args + [ir.const(1)])[:3]
        return start, stop, step

    def range_length(self, start, stop, step):
        """`len(range(start, stop, step))` for a literal step, in integer arithmetic."""
        value = _int_literal(step)
        if not value:
            raise self.error("a `range` with a computed step in `zip` or `enumerate`",
                             "loop over an index instead: `for k in range(len(x)):`")
        up = value > 0
        span = gast.BinOp(left=stop if up else start, op=gast.Sub(), right=start if up else stop)
        size = abs(value)
        count = span if size == 1 else gast.BinOp(
            left=gast.BinOp(left=span, op=gast.Add(), right=ir.const(size - 1)),
            op=gast.FloorDiv(), right=ir.const(size))
        return ir.call("max", ir.const(0), count)

    def held(self, seq):
        """`seq` as a name the loop can index: itself when the body never assigns it,
        else a temporary that holds it from before the loop."""
        if isinstance(seq, gast.Name) and seq.id not in _assigned(self.loop.body):
            return seq
        return self.atom(seq, always=True)

    def atom(self, node, always=False):
        literal = _int_literal(node) is not None or isinstance(node, gast.Constant)
        if not always and (literal or isinstance(node, gast.Name) and
                           node.id not in _assigned(self.loop.body)):
            return node
        tmp = self.ctx.namer.fresh("tmp")
        self.pre.append(ir.assign(tmp, node, like=self.loop))
        return ir.name(tmp)

    def bind(self, target, value):
        return ir.assign(target, value, like=self.loop)

    def error(self, message, hint=None):
        return self.ctx.fsrc.error(message, self.loop, hint, UnsupportedError)


def _int_literal(node):
    """The int that `node` writes literally (`3`, `-3`), else None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = _int_literal(node.operand)
        return None if inner is None else -inner
    ok = isinstance(node, gast.Constant) and type(node.value) is int
    return node.value if ok else None


def _is(node, value):
    return isinstance(node, gast.Constant) and node.value == value


def _pair(target, n):
    return isinstance(target, (gast.Tuple, gast.List)) and len(target.elts) == n


def _assigned(stmts):
    return {n.id for s in stmts for n in ir.walk(s)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


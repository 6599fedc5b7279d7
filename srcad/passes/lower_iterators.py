"""LowerIterators: `for i, v in enumerate(xs)`, `for a, b in zip(xs, ys)` and loops over
`itertools.product`, `combinations`, `combinations_with_replacement`, `permutations` and
`pairwise` become loops over indices."""
import builtins
import copy
import itertools
import types

import gast

from srcad.errors import UnsupportedError
from srcad.passes import ir

_PAIRWISE = getattr(itertools, "pairwise", None)  # Python 3.10 and later
# lowered into one loop per item of the tuple: positions i < j, i <= j, or all distinct
_NESTED = (itertools.combinations, itertools.combinations_with_replacement,
           itertools.permutations)
_KNOWN = tuple(f for f in (enumerate, zip, range, itertools.product, _PAIRWISE) + _NESTED
               if f is not None)
_ITERTOOLS = {id(v): k for k, v in vars(itertools).items()
              if not k.startswith("_") and callable(v)}
_LOWERED = ("itertools.product, combinations, combinations_with_replacement, permutations "
            "and pairwise")
_BY_INDEX = "write the loop over an index: `for k in range(len(x)): v = x[k]`"
_REWRITES = {
    "chain": "loop over each sequence in turn (`for v in x: ...` then `for v in y: ...`), "
             "or over `np.concatenate((x, y))`",
    "islice": "loop over a slice, `for v in x[start:stop:step]`, or over "
              "`for k in range(start, stop, step): v = x[k]`",
    "count": "loop over `range(start, stop, step)`, or count in a `while` loop",
    "cycle": "loop over `range(n)` and take `x[k % len(x)]`",
    "repeat": "loop over `range(n)` and use the value itself",
    "accumulate": "keep the running value in the loop: `acc = acc + x[k]` inside "
                  "`for k in range(len(x)):`",
    "zip_longest": "loop over `range(max(len(x), len(y)))` and test `k < len(x)` before "
                   "reading `x[k]`",
}


class LowerIterators:
    """Transformation: a `for` loop over `enumerate(...)`, `zip(...)`,
    `itertools.product(...)` or `itertools.pairwise(...)` (nested in each other too)
    becomes `for k in range(n):` whose body starts by binding the loop's targets to item
    `k` of each sequence: `xs[k]` for an array or list, `a + k * s` for a
    `range(a, b, s)`. `n` is the shortest length, as zip stops at the shortest; for a
    product it is the product of the lengths, and item `k` takes item `k // n_b % n_a` of
    `a`, `k % n_b` of `b` (the last sequence runs fastest), so `break` and `continue`
    keep their meaning. The sequences are taken once, before the loop, as Python
    does: one the body assigns anew is held in a temporary first, as is the sequence of a
    plain `for v in xs:` whose body binds `xs` again.

    `combinations(x, r)`, `combinations_with_replacement(x, r)` and `permutations(x, r)`
    with a constant `r` become `r` nested loops over positions (`j` from `i + 1`, from
    `i`, or every `j` but `i`), the innermost binding the items; a `break` sets a flag
    that each enclosing loop of the nest tests to leave too. A single name bound to the
    whole tuple (`for p in product(x, y)`) is read as `p[0]`, `p[1]` only; anything else
    of itertools in a loop, and itertools outside of a `for` loop, is refused.

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

    >>> _ = show_names(LowerIterators, '''
    ... import itertools
    ... def f(x, y):
    ...     s = 0.0
    ...     for a, b in itertools.product(x, y[1:]):
    ...         s = s + a * b
    ...     for i, j in itertools.combinations(range(len(x)), 2):
    ...         s = s + x[i] * x[j]
    ...     return s''')
    def f(x, y):
        s = 0.0
        n1 = len(x)
        tmp1 = y[1:]
        n2 = len(tmp1)
        for k1 in range(n1 * n2):
            i1 = k1 // n2
            i2 = k1 % n2
            a = x[i1]
            b = tmp1[i2]
            s = s + a * b
        tmp2 = len(x)
        for i in range(tmp2):
            for j in range(i + 1, tmp2):
                s = s + x[i] * x[j]
        return s
    """

    needs = ("local_functions",)
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx
        fn = getattr(ctx.fsrc, "fn", None)
        self.env = {**vars(builtins), **getattr(fn, "__globals__", {}), **ctx.local_functions}

    def run(self, fnode):
        self.fnode = fnode
        self.locals = {n.id for n in ir.walk(fnode)
                       if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param))}
        fnode.body = ir.rewrite_blocks(fnode.body, self.lowered_loop)
        self.refuse_itertools_left(fnode)
        return fnode

    def lowered_loop(self, s):
        if not isinstance(s, gast.For):
            return [s]
        self.loop, self.pre = s, []
        which = self.which(s.iter)
        if which in _NESTED:
            return self.nested(s)
        if which is not None and which is not range:
            return self.lowered(s)
        self.refuse_other(s.iter)
        return self.taken_once(s)

    def taken_once(self, s):
        """`for v in xs:` whose body binds `xs` again iterates over a temporary that
        holds `xs` from before the loop, as Python takes the sequence once."""
        if not isinstance(s, gast.For) or not isinstance(s.iter, gast.Name) or \
                s.iter.id not in _assigned(s.body):
            return [s]
        self.loop, self.pre = s, []
        s.iter = self.atom(s.iter, always=True)
        return self.pre + [s]

    def callee(self, node):
        """What call `node` calls, looked up in the function's globals and builtins
        (`it.product` through the module `it`); None for a local name or no call."""
        text = ir.dotted_text(node.func) if isinstance(node, gast.Call) else None
        head, *attrs = text.split(".") if text else [None]
        if head is None or head in self.locals:
            return None
        obj = self.env.get(head)
        for attr in attrs:
            obj = getattr(obj, attr, None) if isinstance(obj, types.ModuleType) else None
        return obj

    def which(self, node):
        """`enumerate`, `zip`, `range` or the itertools function this pass lowers, when
        `node` calls it, else None."""
        obj = self.callee(node)
        return next((f for f in _KNOWN if obj is f), None)

    def check_builtins(self):
        for name in ("len", "min", "max", "range"):  # what the lowered loop calls
            if name in self.locals or self.env.get(name) is not getattr(builtins, name):
                raise self.error(f"this loop is written with `{name}`, which this module "
                                 "defines anew", "loop over an index instead: "
                                 "`for k in range(len(x)):`")

    def lowered(self, loop):
        self.loop, self.pre = loop, []
        self.check_builtins()
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
        if which is itertools.product:
            return self.product(seq, target, index)
        if which is not None and which is _PAIRWISE:
            return self.pairwise(seq, target, index)
        if which in _NESTED:
            raise self.error(f"`{_spelled(seq)}` inside `enumerate`, `zip` or "
                             "`itertools.product`", "loop over it on its own, and count "
                             "with a variable of your own: `c = 0` before the loop, "
                             "`c += 1` in it")
        length, item = self.element(seq, "the loop")
        return length, [self.bind(target, item(index))]

    def element(self, seq, within):
        """(the length of `seq`, a function from an index to its item) for a `range`, an
        array or a list: what `within` (the call that holds `seq`) goes over."""
        self.refuse_other(seq)
        which = self.which(seq)
        if which is range:
            whole = _counts_up(which, seq) and _is_len(seq.args[min(1, len(seq.args) - 1)])
            start, stop, step = self.bounds(seq)

            def item(index):
                index = copy.deepcopy(index)
                if not _is(step, 1):
                    index = gast.BinOp(left=index, op=gast.Mult(), right=copy.deepcopy(step))
                return index if _is(start, 0) else \
                    gast.BinOp(left=copy.deepcopy(start), op=gast.Add(), right=index)
            return stop if whole else self.range_length(start, stop, step), item
        if which is not None:
            raise self.error(f"`{_spelled(seq)}` inside `{within}`", "loop over a range, "
                             "an array or a list here, and bind the rest in the loop")
        held = self.held(seq)
        return ir.call("len", ir.name(held.id)), lambda index: gast.Subscript(
            value=ir.name(held.id), slice=copy.deepcopy(index), ctx=gast.Load())

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

    def product(self, call, target, index):
        """`itertools.product(a, b, ...)`: `n_a * n_b * ...` items, item `index` made of
        item `index // (n_b * ...) % n_a` of `a` and so on, the last sequence the fastest."""
        text = _spelled(call)
        keywords = {kw.arg: kw.value for kw in call.keywords}
        repeat = self.constant(keywords.get("repeat", ir.const(1)))
        if not call.args or set(keywords) - {"repeat"} or repeat is None or repeat < 1 or \
                any(isinstance(a, gast.Starred) for a in call.args):
            raise self.error(f"`{text}` takes sequences here, and a constant `repeat=`",
                             f"write them out: `{text}(x, y)`, `{text}(range(n), repeat=2)`")
        seqs = call.args if repeat == 1 else [self.once(s) for s in call.args]
        seqs = [copy.deepcopy(s) for _ in range(repeat) for s in seqs]
        target = self.unpacked(target, len(seqs), text)
        positions = [t.id if isinstance(t, gast.Name) and _counts_up(self.which(s), s)
                     else self.ctx.namer.fresh("i") for s, t in zip(seqs, target.elts)]
        lengths, binds = [], []
        for seq, t, position in zip(seqs, target.elts, positions):
            n, b = self.items(seq, t, ir.name(position))
            lengths.append(self.atom(n, stem="n"))
            binds += [s for s in b if not _copies_itself(s)]
        at = []
        for d, position in enumerate(positions):
            stride = _times(lengths[d + 1:])
            value = copy.deepcopy(index) if _is(stride, 1) else \
                gast.BinOp(left=copy.deepcopy(index), op=gast.FloorDiv(), right=stride)
            if d:
                value = gast.BinOp(left=value, op=gast.Mod(), right=copy.deepcopy(lengths[d]))
            at.append(self.bind(ir.name(position, store=True), value))
        return _times(lengths), at + binds

    def once(self, seq):
        """`seq`, which `repeat=` repeats, made of names evaluated once before the loop."""
        which = self.which(seq)
        if which is range:
            seq.args = [self.atom(a) for a in seq.args]
            return seq
        if which is not None:
            raise self.error(f"`repeat=` of `{_spelled(seq)}`",
                             "write the repeated sequences out, without `repeat=`")
        self.refuse_other(seq)
        return self.held(seq)

    def pairwise(self, call, target, index):
        """`itertools.pairwise(x)`: `len(x) - 1` items, item `index` is
        `(x[index], x[index + 1])`."""
        text = _spelled(call)
        if len(call.args) != 1 or call.keywords or isinstance(call.args[0], gast.Starred):
            raise self.error(f"`{text}` takes one sequence")
        target = self.unpacked(target, 2, text)
        length, item = self.element(call.args[0], text)
        after = gast.BinOp(left=copy.deepcopy(index), op=gast.Add(), right=ir.const(1))
        return _less_one(length), [self.bind(target.elts[0], item(index)),
                                   self.bind(target.elts[1], item(after))]

    def nested(self, loop):
        """`for a, b in combinations(x, 2):` as `for i in range(n): for j in range(i + 1,
        n):` binding `a = x[i]`, `b = x[j]` (the names themselves when they count over a
        `range(n)`); `j` from `i` with replacement; every `j` but `i` for permutations."""
        self.check_builtins()
        which, call, text = self.which(loop.iter), loop.iter, _spelled(loop.iter)
        r = self.tuple_size(call, which, text)
        target = self.unpacked(loop.target, r, text)
        length, item = self.element(call.args[0], text)
        n = self.atom(length, stem="n")
        names = [t.id for t in target.elts if isinstance(t, gast.Name)]
        own = _counts_up(self.which(call.args[0]), call.args[0]) and \
            len(set(names)) == r and not set(names) & _assigned(loop.body)
        positions = names if own else [self.ctx.namer.fresh("i") for _ in range(r)]
        broke = self.flag_breaks(loop.body)
        body = list(loop.body) if own else \
            [self.bind(t, item(ir.name(p))) for t, p in zip(target.elts, positions)] + loop.body
        for d in reversed(range(r)):
            if d < r - 1 and broke:
                body.append(ir.if_(ir.name(broke), [gast.Break()], like=loop))
            if which is itertools.permutations and d:
                body = [ir.if_(_distinct(positions[d], positions[:d]), body, like=loop)]
            start = None if not d or which is itertools.permutations else \
                ir.name(positions[d - 1]) if which is itertools.combinations_with_replacement \
                else gast.BinOp(left=ir.name(positions[d - 1]), op=gast.Add(), right=ir.const(1))
            bounds = [copy.deepcopy(n)] if start is None else [start, copy.deepcopy(n)]
            new = gast.For(target=ir.name(positions[d], store=True),
                           iter=ir.call("range", *bounds), body=body,
                           orelse=loop.orelse if d == 0 else [], type_comment=None)
            body = [gast.copy_location(new, loop)]
        return self.pre + body

    def tuple_size(self, call, which, text):
        """The constant `r` of `combinations(x, r)` and its like."""
        keywords = {kw.arg: kw.value for kw in call.keywords}
        given = call.args[1:2] + list(keywords.values())
        r = self.constant(given[0]) if len(given) == 1 else None
        if len(call.args) not in (1, 2) or set(keywords) - {"r"} or r is None or r < 1 or \
                any(isinstance(a, gast.Starred) for a in call.args):
            why = ": its default, len(x), is not known when srcad compiles" \
                if not given and which is itertools.permutations else ""
            raise self.error(f"`{text}` needs one sequence and a constant `r` of at least "
                             f"1 here{why}", f"write the size as a number: `{text}(x, 2)`, "
                             "and unpack the items: `for a, b in ...`")
        return r

    def flag_breaks(self, body):
        """The name of a flag that each `break` of the loop running `body` sets first
        (assigned False before the loop), or None when `body` has no `break`."""
        blocks = _own_blocks(body)
        if not any(isinstance(s, gast.Break) for b in blocks for s in b):
            return None
        broke = self.ctx.namer.fresh("broke")
        for block in blocks:
            block[:] = [t for s in block for t in
                        ([ir.assign(broke, ir.const(True), like=s), s]
                         if isinstance(s, gast.Break) else [s])]
        self.pre.append(ir.assign(broke, ir.const(False), like=self.loop))
        return broke

    def unpacked(self, target, size, text):
        """`target` as a tuple of `size` targets: a single name `p` read only as `p[0]`,
        `p[1]` ... in the loop becomes names `p_0`, `p_1` ..."""
        if _pair(target, size):
            return target
        letters = ", ".join("abcdefgh"[:size]) if size <= 8 else "a, b, ..."
        hint = f"unpack the items in the loop: `for {letters} in {text}(...):`"
        if not isinstance(target, gast.Name):
            raise self.error(f"`{text}` gives tuples of {size} items here: unpack them "
                             f"into {size} names", hint)
        p = target.id
        inside = {id(n) for s in self.loop.body for n in ir.walk(s)}
        reads = {}
        for node in (n for s in self.loop.body for n in ir.walk(s)):
            at = _int_literal(node.slice) if isinstance(node, gast.Subscript) and \
                isinstance(node.value, gast.Name) and node.value.id == p else None
            if at is not None and -size <= at < size and isinstance(node.ctx, gast.Load):
                reads[node] = at % size
        used = [n for n in ir.walk(self.fnode) if isinstance(n, gast.Name) and n.id == p]
        seen = {id(s.value) for s in reads}
        if any(id(n) not in seen and (id(n) in inside or isinstance(n.ctx, gast.Load))
               for n in used):
            raise self.error(f"`{p}` holds a whole tuple of `{text}`: srcad reads such a "
                             f"name only as `{p}[0]` ... `{p}[{size - 1}]` inside the loop",
                             hint)
        names = [self.ctx.namer.fresh(f"{p}_{d}", numbered=False) for d in range(size)]
        for s in self.loop.body:
            _replace(s, {node: ir.name(names[d]) for node, d in reads.items()})
        return gast.Tuple(elts=[ir.name(n, store=True) for n in names], ctx=gast.Store())

    def constant(self, node):
        """The int `node` writes, or names in the module (not a local), else None."""
        value = _int_literal(node)
        if value is None and isinstance(node, gast.Name) and node.id not in self.locals:
            value = self.env.get(node.id)
        return value if type(value) is int else None

    def refuse_other(self, node):
        """A SrcadError for a call of a function of itertools that is not lowered here."""
        obj = self.callee(node)
        name = _ITERTOOLS.get(id(obj))
        if name is not None and not any(obj is f for f in _KNOWN):
            raise self.ctx.fsrc.error(
                f"`{_spelled(node)}` (itertools.{name}) is not supported: of itertools, "
                f"srcad lowers loops over {_LOWERED}", node, _REWRITES.get(name, _BY_INDEX),
                UnsupportedError)

    def refuse_itertools_left(self, fnode):
        """itertools anywhere but as what a `for` loop runs over is refused."""
        for node in ir.walk(fnode):
            if isinstance(node, gast.Call) and id(self.callee(node)) in _ITERTOOLS:
                self.refuse_other(node)
                text = _spelled(node)
                raise self.ctx.fsrc.error(
                    f"`{text}` is supported only as what a `for` loop runs over", node,
                    f"loop over it and use the items in the loop: `for a, b in {text}(...):`",
                    UnsupportedError)

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
            raise self.error("a `range` with a computed step in `zip`, `enumerate` or "
                             "itertools", "loop over an index instead: "
                             "`for k in range(len(x)):`")
        ends = [_int_literal(start), _int_literal(stop)]
        if None not in ends:
            return ir.const(len(range(ends[0], ends[1], value)))
        up = value > 0
        span = stop if up and _is(start, 0) else gast.BinOp(
            left=stop if up else start, op=gast.Sub(), right=start if up else stop)
        size = abs(value)
        count = span if size == 1 else gast.BinOp(
            left=gast.BinOp(left=span, op=gast.Add(), right=ir.const(size - 1)),
            op=gast.FloorDiv(), right=ir.const(size))
        return ir.call("max", ir.const(0), count)

    def held(self, seq):
        """`seq` as a name the loop can index: itself when the loop never assigns it,
        else a temporary that holds it from before the loop."""
        if isinstance(seq, gast.Name) and seq.id not in self.rebound():
            return seq
        return self.atom(seq, always=True)

    def rebound(self):
        """The names the loop assigns: its targets and what its body assigns."""
        return _assigned(self.loop.body) | _assigned([self.loop.target])

    def atom(self, node, always=False, stem="tmp"):
        literal = _int_literal(node) is not None or isinstance(node, gast.Constant)
        if not always and (literal or isinstance(node, gast.Name) and
                           node.id not in self.rebound()):
            return node
        tmp = self.ctx.namer.fresh(stem)
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


def _spelled(call):
    """How a call names its function: `itertools.product`, `it.product`, `product`."""
    return ir.dotted_text(call.func) or "the call"


def _counts_up(which, seq):
    """Whether `seq` is `range(n)` (or `range(0, n)`, `range(0, n, 1)`): its item `k` is `k`."""
    args = seq.args if which is range else []
    return 1 <= len(args) <= 3 and not seq.keywords and (
        len(args) == 1 or _int_literal(args[0]) == 0 and
        (len(args) == 2 or _int_literal(args[2]) == 1))


def _is_len(node):
    return isinstance(node, gast.Call) and ir.dotted_text(node.func) == "len"


def _copies_itself(stmt):
    """`i = i`."""
    return isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Name) \
        and stmt.targets[0].id == stmt.value.id


def _times(factors):
    """The product of `factors` as an expression, literal ints folded (1 when none)."""
    known = 1
    for f in factors:
        known *= _int_literal(f) if _int_literal(f) is not None else 1
    terms = [copy.deepcopy(f) for f in factors if _int_literal(f) is None]
    if known != 1 or not terms:
        terms.insert(0, ir.const(known))
    out = terms[0]
    for t in terms[1:]:
        out = gast.BinOp(left=out, op=gast.Mult(), right=t)
    return out


def _less_one(length):
    """`max(0, length - 1)`, simpler when `length` is a literal or already `max(0, ...)`."""
    if _int_literal(length) is not None:
        return ir.const(max(0, _int_literal(length) - 1))
    if isinstance(length, gast.Call) and ir.dotted_text(length.func) == "max" and \
            _is(length.args[0], 0):
        length = length.args[1]
    return ir.call("max", ir.const(0),
                   gast.BinOp(left=length, op=gast.Sub(), right=ir.const(1)))


def _distinct(position, before):
    """`j != i`, `k != i and k != j` ..."""
    tests = [gast.Compare(left=ir.name(position), ops=[gast.NotEq()],
                          comparators=[ir.name(p)]) for p in before]
    return tests[0] if len(tests) == 1 else gast.BoolOp(op=gast.And(), values=tests)


_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def _own_blocks(stmts):
    """`stmts` and the blocks inside it whose `break` leaves the loop that runs `stmts`
    (not those of a nested loop, but its `else:`)."""
    blocks = [stmts]
    for s in stmts:
        if isinstance(s, (gast.For, gast.AsyncFor, gast.While)):
            blocks += _own_blocks(s.orelse)
        elif not isinstance(s, _SCOPES):
            inner = [getattr(s, f, None) for f in ("body", "orelse", "finalbody")]
            inner += [h.body for h in getattr(s, "handlers", None) or []]
            for block in inner:
                if type(block) is list:
                    blocks += _own_blocks(block)
    return blocks


def _replace(node, swap):
    """Put `swap[child]` in place of each child of `node` (at any depth) that is a key."""
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, gast.AST):
            if value in swap:
                setattr(node, field, swap[value])
            else:
                _replace(value, swap)
        elif type(value) is list:
            for k, v in enumerate(value):
                if isinstance(v, gast.AST):
                    if v in swap:
                        value[k] = swap[v]
                    else:
                        _replace(v, swap)

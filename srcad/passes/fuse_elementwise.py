"""FuseElementwise: the forward sweep computes an elementwise array expression in one go.

ToANF gives each operation a statement of its own, and Numba compiles each array
operation of its own into its own loop nest; at `-O3`, LLVM versions and unrolls each
nest for every way its operands may broadcast, so that a product of two 3-d arrays alone
is a megabyte of machine code and seconds of compile time. Numba fuses an expression
written in one statement (`a[1] * b[2] - a[2] * b[1]`) into one loop nest, as it does in
the user's own function.

So an array temporary of the compiler's whose one use in the forward sweep is an operand
of a later arithmetic expression (or the whole value of an assignment) is written into
that use, when nothing in between writes into an array, calls a function or assigns a
name the temporary's value reads: in the function's body, and in a loop's body, where
the use is then in the same iteration. A copy of a slice (`a[1:-1].copy()`, taken
because `a` is written later) is read as the slice where it is used. A temporary
whose shape the tape keeps (see LeanTape) keeps it as the broadcast of its operands'
shapes (`rt.broadcast_shapes`: Numba's `np.broadcast_shapes` costs a third of a second
of compile time per call). The values are the same: the same operations on the same
operands, in the same order.

>>> import gast
>>> from codegen import to_source
>>> from srcad.kinds import Kind
>>> fwd = gast.parse('''def f_fwd(a, b):
...     tmp1 = a[1]
...     tmp2 = tmp1 * b
...     tmp3 = tmp2 - a[0]
...     return np.sum(tmp3), (tmp2.shape,)''').body[0]
>>> kinds = {n: Kind("f", 1) for n in ("a", "b", "tmp1", "tmp2", "tmp3")}
>>> print(to_source(FuseElementwise(kinds, {"a", "b"}).run(fwd)).strip())
def f_fwd(a, b):
    tmp1 = a[1]
    tmp3 = tmp1 * b - a[0]
    return np.sum(tmp3), (rt.broadcast_shapes(tmp1.shape, b.shape),)

A time step, whose temporaries the tape does not keep:

>>> fwd = gast.parse('''def g_fwd(a, b, n):
...     for t in range(n):
...         tmp1 = a[2:].copy()
...         tmp2 = tmp1 + a[:-2]
...         tmp3 = 0.5 * tmp2
...         b[1:-1] = tmp3
...     return np.sum(b), ()''').body[0]
>>> kinds.update({n: Kind("f", 1) for n in ("a", "b")})
>>> print(to_source(FuseElementwise(kinds, {"a", "b", "n", "t"}).run(fwd)).strip())
def g_fwd(a, b, n):
    for t in range(n):
        b[1:-1] = 0.5 * (a[2:] + a[:-2])
    return np.sum(b), ()
"""
import copy

import gast

from srcad.passes import ir

_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div)
_CALM = (gast.BinOp, gast.UnaryOp, gast.Subscript, gast.Name, gast.Constant, gast.Attribute)


def _loads(fnode):
    out = {}
    for n in ir.walk(fnode):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            out[n.id] = out.get(n.id, 0) + 1
    return out


def _shape_reads(node):
    """How many times `node` reads `x.shape`, per name `x`."""
    out = {}
    for n in ir.walk(node):
        if isinstance(n, gast.Attribute) and n.attr == "shape" and \
                isinstance(n.value, gast.Name):
            out[n.value.id] = out.get(n.value.id, 0) + 1
    return out


def _stores(fnode):
    out = {}
    for n in ir.walk(fnode):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            out[n.id] = out.get(n.id, 0) + 1
    return out


def _calm(s):
    """A statement that writes no array and calls nothing but `.copy()`:
    `name = <arithmetic, a read, a copy>`."""
    return isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
        and all(isinstance(n, _CALM + (gast.expr_context, gast.operator, gast.unaryop,
                                       gast.Slice, gast.Tuple, gast.Name))
                or _copy_call(n) for n in ir.walk(s.value))


def _copy_call(n):
    return isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
        and n.func.attr == "copy" and not n.args and not n.keywords


class FuseElementwise:
    """Transformation of a forward sweep (see the module). `kinds`: the variables' kinds;
    `user`: the names in the user's function (never fused away)."""

    needs = ("kinds",)
    provides = ()

    def __init__(self, kinds, user):
        self.kinds, self.user = kinds, set(user)

    def array(self, node):
        return isinstance(node, gast.Name) and getattr(self.kinds.get(node.id), "ndim", 0) > 0

    def candidate(self, s, stores):
        """The temporary that `s` defines, when its value is elementwise arithmetic of
        names and constants (itself fused, maybe) or a copy of a slice of an array
        (`a[1:-1].copy()`: fused, the slice is read where the copy was), else None."""
        if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)):
            return None
        t, v = s.targets[0].id, s.value
        if t in self.user or not self.array(s.targets[0]) or stores.get(t) != 1:
            return None
        if self.sliced(v, stores) is not None:
            return t
        operands = [v.left, v.right] if isinstance(v, gast.BinOp) and isinstance(v.op, _OPS) \
            else [v.operand] if isinstance(v, gast.UnaryOp) and isinstance(v.op, gast.USub) \
            else None
        if operands is None:
            return None
        for n in ir.walk(v):  # names, constants, slices of arrays
            if isinstance(n, (gast.Call, gast.Attribute, gast.Compare)) or isinstance(
                    n, gast.Subscript) and not self.basic_view(n, stores):
                return None
        return t

    def sliced(self, v, stores):
        """`a[index]` when `v` is `a[index].copy()`, `a` an array and `index` basic
        (constants, slices, integers assigned once), else None."""
        if not (_copy_call(v) and isinstance(v.func.value, gast.Subscript)):
            return None
        view = v.func.value
        return view if self.basic_view(view, stores) else None

    def basic_view(self, view, stores):
        """Whether `view` is `a[index]`, `a` an array and `index` basic (constants,
        slices, integers assigned once)."""
        if not self.array(view.value):
            return False
        for n in ir.walk(view.slice):
            if isinstance(n, gast.Name):
                kind = self.kinds.get(n.id)
                if kind is None or getattr(kind, "ndim", 1) or stores.get(n.id, 0) > 1:
                    return False
            elif not isinstance(n, (gast.Constant, gast.Slice, gast.Tuple, gast.UnaryOp,
                                    gast.USub, gast.expr_context)):
                return False
        return True

    def run(self, fnode):
        """One pass down the sweep (a temporary fused into a later statement may be
        fused again from there), then down each loop's body; the counts of reads are
        kept up to date as it goes."""
        body, stores, loads = fnode.body, _stores(fnode), _loads(fnode)
        shape_reads = _shape_reads(body[-1]) if body else {}
        self.shapes = {}  # a fused temporary whose shape the tape keeps -> that shape
        self.fuse_block(body, stores, loads, shape_reads, len(body) - 1)
        for loop in ir.walk(fnode):
            if isinstance(loop, (gast.For, gast.While)):
                self.fuse_block(loop.body, stores, loads, {}, len(loop.body))
        if self.shapes:
            self.replace_shapes(body[-1], self.shapes)
        return fnode

    def fuse_block(self, body, stores, loads, shape_reads, end):
        """Fuse in the statements `body[:end]`."""
        k = 0
        while k < end:
            if self.fuse_at(body, k, stores, loads, shape_reads, end):
                end -= 1
            else:
                k += 1

    def fuse_at(self, body, k, stores, loads, shape_reads, end):
        """Fuse the temporary that `body[k]` defines into its one use; whether it did."""
        s = body[k]
        t = self.candidate(s, stores)
        if t is None:
            return False
        use = self.single_use(body, k, t, loads, shape_reads.get(t, 0), end)
        if use is None:
            return False
        moved = shape_reads.get(t, 0)  # `t.shape` in the tape: its operands' shapes now
        shape = self.shape(s.value) if moved else None
        if moved and (shape is None or any(  # operands assigned once: their shapes stay
                isinstance(n, gast.Name) and stores.get(n.id, 0) > 1
                for n in ir.walk(s.value))):
            return False
        value = self.sliced(s.value, stores) or s.value
        self.substitute(body[use], t, value)
        shape_reads.pop(t, None)
        if moved:
            self.shapes[t] = shape
        loads[t] = loads.get(t, 0) - 1 - moved
        for n in ir.walk(shape) if moved else ():
            if isinstance(n, gast.Attribute) and isinstance(n.value, gast.Name):
                loads[n.value.id] = loads.get(n.value.id, 0) + moved
                shape_reads[n.value.id] = shape_reads.get(n.value.id, 0) + moved
        del body[k]
        stores[t] = 0
        return True

    def single_use(self, body, k, t, loads, shape_reads, end):
        """The position of the one statement in `body[k + 1:end]` that reads `t` as an
        operand of arithmetic (or as its whole value), with only calm statements between
        that assign none of the names `t`'s value reads; None when `t` is read otherwise
        (the tape's `t.shape` aside, `shape_reads` times)."""
        read = {n.id for n in ir.names(body[k].value)}
        for j in range(k + 1, end):
            s = body[j]
            here = sum(1 for n in ir.walk(s) if isinstance(n, gast.Name) and n.id == t)
            if here == 0:
                if not _calm(s) or s.targets[0].id in read:
                    return None
                continue
            if here != 1 or loads.get(t, 0) != 1 + shape_reads or \
                    not isinstance(s, gast.Assign) or not self.operand_of(s.value, t):
                return None
            return j
        return None

    @staticmethod
    def operand_of(value, t):
        if isinstance(value, gast.Name):
            return value.id == t
        if isinstance(value, gast.BinOp) and isinstance(value.op, _OPS):
            return any(isinstance(o, gast.Name) and o.id == t
                       for o in (value.left, value.right))
        if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
            return isinstance(value.operand, gast.Name) and value.operand.id == t
        return False

    def shape(self, value):
        """The shape of elementwise `value`, broadcast from its array operands' (an
        expression), or None when an operand's kind is unknown or none is an array."""
        leaves = self.array_leaves(value)
        if not leaves:
            return None
        shapes = [gast.Attribute(value=ir.name(n), attr="shape", ctx=gast.Load())
                  for n in dict.fromkeys(leaves)]
        return shapes[0] if len(shapes) == 1 else ir.call("rt.broadcast_shapes", *shapes)

    def array_leaves(self, value):
        """The array names that elementwise `value` reads, or None if a kind is unknown."""
        out = []
        for n in ir.walk(value):
            if isinstance(n, gast.Subscript):
                return None  # a slice's shape is not its array's
            if isinstance(n, gast.Name):
                kind = self.kinds.get(n.id)
                if kind is None:
                    return None
                if getattr(kind, "ndim", 0):
                    out.append(n.id)
        return out

    @staticmethod
    def substitute(s, t, value):
        if isinstance(s.value, gast.Name):
            s.value = value
            return
        v = s.value
        for field in ("left", "right", "operand"):
            o = getattr(v, field, None)
            if isinstance(o, gast.Name) and o.id == t:
                setattr(v, field, value)

    @staticmethod
    def replace_shapes(ret, shapes):
        """`t.shape` -> the shape of its operands, for every fused `t` in `shapes` (one
        walk of the tape)."""
        _Shapes(shapes).visit(ret)


class _Shapes(gast.NodeTransformer):
    """`t.shape` -> a copy of `shapes[t]`."""

    def __init__(self, shapes):
        self.shapes = shapes

    def visit_Attribute(self, node):
        if node.attr == "shape" and isinstance(node.value, gast.Name) \
                and node.value.id in self.shapes:
            return copy.deepcopy(self.shapes[node.value.id])
        return self.generic_visit(node)

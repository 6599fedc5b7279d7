"""AssignElementAdjoints: the adjoint of a vector that a loop reads one element per
iteration, over all its elements, is assigned element by element, not zeroed and added to.

A loss over data (`for i in range(x.shape[0]): ... x[i] ...`) gives a reverse sweep that
makes `d_x = np.zeros_like(x)` and adds each iteration's term into `d_x[i]`: the zeros
are written, then every element read and written again. When the reverse loop visits
every index of `x` exactly once, the term is the element's whole adjoint: `d_x` can be
made without zeros (`np.empty_like`) and each term assigned (W4, the Huber loss, spent a
fifth of its reverse sweep on the zeros and the reads).

That holds when the forward sweep counts the loop's trips as
`rt.range_len(0, n, 1)` with `n` the length of `x` (`x.shape[0]`, `len(x)`, or an item
of `x.shape` named once), `x` a one-dimensional argument the function never assigns;
the reverse sweep's loop is `for k in range(trip - 1, -1, -1)` at its top level with
that count off the tape, its body starting `i = k`; and `d_x`, zeroed at the top level
before the loop and not mentioned between, is mentioned in the loop once: by
`d_x[i] += e` at the top level of its body, which has no `break`, `continue` or
`return`.

>>> import gast
>>> from codegen import to_source
>>> from srcad.kinds import Kind
>>> fwd, rev = gast.parse('''def f_fwd(x, w):
...     tmp1 = x.shape
...     n = tmp1[0]
...     s = 0.0
...     trip1 = rt.range_len(0, n, 1)
...     for i in range(n):
...         s = s + w * x[i]
...     return s, (trip1,)
... def f_rev(x, w, tape, d_out):
...     trip1, = tape
...     d_x = np.zeros_like(x)
...     d_w = 0.0
...     for k1 in range(trip1 - 1, -1, -1):
...         i = k1
...         d_x[i] += d_out * w
...         d_w += d_out * x[i]
...     return d_x, d_w''').body
>>> kinds = {"x": Kind("f", 1), "w": Kind("f")}
>>> fwd, rev = AssignElementAdjoints(kinds, "tape").run(fwd, rev)
>>> print(to_source(rev).strip())
def f_rev(x, w, tape, d_out):
    trip1, = tape
    d_x = np.empty_like(x)
    d_w = 0.0
    for k1 in range(trip1 - 1, -1, -1):
        i = k1
        d_x[i] = d_out * w
        d_w += d_out * x[i]
    return d_x, d_w
"""
import gast

from srcad.passes import ir
from srcad.passes.lean_tape import _tape_parts

_EXITS = (gast.Break, gast.Continue, gast.Return)


def _stores(fn):
    """name -> how many times `fn` assigns it (as a name: `x[i] = ...` does not count)."""
    counts = {}
    for n in ir.names(fn):
        if isinstance(n.ctx, gast.Store):
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def _int(node):
    """The value of an integer literal (`-1` included), else None."""
    sign = 1
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        sign, node = -1, node.operand
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def _single(s):
    """(the name, the value) of `name = value`, else (None, None)."""
    if isinstance(s, gast.Assign) and len(s.targets) == 1 and \
            isinstance(s.targets[0], gast.Name):
        return s.targets[0].id, s.value
    return None, None


class AssignElementAdjoints:
    """Transformation of a forward and reverse sweep pair (see the module). `kinds`: the
    function's variables' kinds; `tape_param`: the reverse sweep's tape parameter."""

    needs = ("kinds",)
    provides = ()

    def __init__(self, kinds, tape_param):
        self.kinds, self.tape_param = kinds, tape_param

    def run(self, fwd, rev):
        parts = _tape_parts(fwd, rev, self.tape_param)
        if parts is None:
            return fwd, rev
        tape, unpack = parts
        lengths = self.trip_lengths(fwd)
        rev_stores = _stores(rev)
        counted = {}  # the reverse sweep's name of a trip count -> the vector it spans
        for sent, got in zip(tape.elts, unpack.targets[0].elts):
            if isinstance(sent, gast.Name) and isinstance(got, gast.Name) and \
                    sent.id in lengths and rev_stores.get(got.id) == 1:
                counted[got.id] = lengths[sent.id]
        for loop in [s for s in rev.body if isinstance(s, gast.For)]:
            counter = self.counter(loop, counted)
            if counter is not None:
                self.assign(rev, loop, *counter)
        return fwd, rev

    def trip_lengths(self, fwd):
        """trip count -> x, for the top-level `trip = rt.range_len(0, n, 1)` of the forward
        sweep with `n` the length of a one-dimensional float argument `x` it never
        assigns."""
        stores, params = _stores(fwd), {a.id for a in fwd.args.args}
        values = {}
        for s in fwd.body:
            name, value = _single(s)
            if name is not None and stores.get(name) == 1:
                values[name] = value

        def vector(node):  # the argument whose length `node` is, or None
            if isinstance(node, gast.Name) and node.id in values:
                return vector(values[node.id])
            if isinstance(node, gast.Call) and ir.dotted_text(node.func) == "len" and \
                    len(node.args) == 1:
                return _argument(node.args[0])
            if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant) \
                    and node.slice.value == 0:
                shape = node.value
                if isinstance(shape, gast.Name) and shape.id in values:
                    shape = values[shape.id]
                if isinstance(shape, gast.Attribute) and shape.attr == "shape":
                    return _argument(shape.value)
            return None

        def _argument(node):
            if not (isinstance(node, gast.Name) and node.id in params and
                    node.id not in stores):
                return None
            kind = self.kinds.get(node.id)
            ok = getattr(kind, "ndim", None) == 1 and getattr(kind, "dtype", None) == "f" \
                and not getattr(kind, "listed", 0)
            return node.id if ok else None

        out = {}
        for name, value in values.items():
            if isinstance(value, gast.Call) and ir.dotted_text(value.func) == "rt.range_len" \
                    and len(value.args) == 3 and not value.keywords:
                start, n, step = value.args
                if all(isinstance(c, gast.Constant) and type(c.value) is int
                       for c in (start, step)) and (start.value, step.value) == (0, 1):
                    x = vector(n)
                    if x is not None:
                        out[name] = x
        return out

    @staticmethod
    def counter(loop, counted):
        """(the index name, the vector it runs over) when `loop` is `for k in range(trip -
        1, -1, -1)` over a counted trip with a body starting `i = k` and no exits."""
        it = loop.iter
        if not (isinstance(loop.target, gast.Name) and isinstance(it, gast.Call)
                and ir.dotted_text(it.func) == "range" and len(it.args) == 3
                and not loop.orelse and loop.body):
            return None
        top, stop, step = it.args
        if not (isinstance(top, gast.BinOp) and isinstance(top.op, gast.Sub)
                and isinstance(top.left, gast.Name) and top.left.id in counted
                and isinstance(top.right, gast.Constant) and top.right.value == 1
                and _int(stop) == -1 and _int(step) == -1):
            return None
        name, value = _single(loop.body[0])
        if name is None or not (isinstance(value, gast.Name) and value.id == loop.target.id):
            return None
        if _stores(loop).get(name) != 1 or any(isinstance(n, _EXITS) for n in ir.walk(loop)):
            return None
        return name, counted[top.left.id]

    def assign(self, rev, loop, index, x):
        """Make each `d = np.zeros_like(x)` before `loop` that the loop only adds into at
        `d[index]`, once per iteration, an `np.empty_like(x)` set there."""
        at = rev.body.index(loop)
        for k in range(at - 1, -1, -1):
            d, value = _single(rev.body[k])
            if d is None or not (isinstance(value, gast.Call) and not value.keywords
                                 and ir.dotted_text(value.func) == "np.zeros_like"
                                 and len(value.args) == 1 and isinstance(value.args[0], gast.Name)
                                 and value.args[0].id == x):
                continue
            between = rev.body[k + 1:at]
            if any(n.id == d for s in between for n in ir.names(s)):
                continue
            mentions = [n for n in ir.names(loop) if n.id == d]
            term = next((s for s in loop.body if isinstance(s, gast.AugAssign)
                         and isinstance(s.op, gast.Add) and isinstance(s.target, gast.Subscript)
                         and s.target.value is mentions[0]), None) if len(mentions) == 1 \
                else None
            if term is None or not (isinstance(term.target.slice, gast.Name)
                                    and term.target.slice.id == index):
                continue
            value.func = ir.dotted("np.empty_like")
            loop.body[loop.body.index(term)] = gast.copy_location(gast.Assign(
                targets=[term.target], value=term.value, type_comment=None), term)

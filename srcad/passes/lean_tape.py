"""LeanTape: a tape without the arrays that the reverse sweep can do without.

Four rewrites of a forward sweep and its reverse sweep, none changing a value:

- a slot that the reverse sweep never reads is not saved;
- a slot whose array the reverse sweep only reads for its shape (the second argument of
  `rt.unbroadcast` or `rt.filled`, `np.zeros_like` of a float array, `.shape`) keeps the
  shape;
- so does the stack on which a loop pushes such an array each iteration (a temporary of
  a time step whose value the reverse sweep never reads);
- a view of an argument that neither sweep writes (`tmp1 = a[1]` at the top of the
  function, constant indices) is not saved, nor copied: the reverse sweep slices the
  argument again.

>>> import gast
>>> from codegen import to_source
>>> from codegen.names import Namer
>>> from srcad.kinds import Kind
>>> fwd, rev = gast.parse('''def f_fwd(a, b):
...     tmp1 = a[1]
...     tmp2 = tmp1 * b
...     return np.sum(tmp2), (tmp1.copy(), tmp2)
... def f_rev(a, b, tape, d_out):
...     tmp1, tmp2, = tape
...     d_tmp2 = np.zeros_like(tmp2)
...     d_tmp2 += d_out
...     d_b = rt.unbroadcast(d_tmp2 * tmp1, b)
...     return d_b,''').body
>>> kinds = {"tmp1": Kind("f", 1), "tmp2": Kind("f", 1)}
>>> fwd, rev = LeanTape(["a", "b"], set(), kinds, Namer()).run(fwd, rev)
>>> print(to_source([fwd, rev]).strip())
def f_fwd(a, b):
    tmp1 = a[1]
    tmp2 = tmp1 * b
    return np.sum(tmp2), (tmp2.shape,)
<BLANKLINE>
<BLANKLINE>
def f_rev(a, b, tape, d_out):
    tmp2_shape, = tape
    tmp1 = a[1]
    d_tmp2 = np.zeros(tmp2_shape)
    d_tmp2 += d_out
    d_b = rt.unbroadcast(d_tmp2 * tmp1, b)
    return d_b,
>>> fwd, rev = gast.parse('''def g_fwd(u, n):
...     tape_tmp1 = List()
...     tape_tmp1.append(np.empty((0,), dtype=np.float64))
...     for t in range(n):
...         tape_tmp1.append(tmp1.copy())
...         tmp1 = u * 0.5
...         u = tmp1
...     return np.sum(u), (tape_tmp1, tmp1.copy())
... def g_rev(u, n, tape, d_out):
...     tape_tmp1, tmp1, = tape
...     top_tmp1 = len(tape_tmp1)
...     d_u = rt.expand(d_out, None)
...     for t in range(n - 1, -1, -1):
...         d_tmp1 = rt.unbroadcast(d_u, tmp1)
...         top_tmp1 -= 1
...         tmp1 = tape_tmp1[top_tmp1]
...         d_u = d_tmp1 * 0.5
...     return d_u,''').body
>>> fwd, rev = LeanTape(["u", "n"], set(), {"tmp1": Kind("f", 1)}, Namer()).run(fwd, rev)
>>> print(to_source([fwd, rev]).strip())
def g_fwd(u, n):
    tape_tmp1 = List()
    tape_tmp1.append(np.empty((0,), dtype=np.float64).shape)
    for t in range(n):
        tape_tmp1.append(tmp1.shape)
        tmp1 = u * 0.5
        u = tmp1
    return np.sum(u), (tape_tmp1, tmp1.shape)
<BLANKLINE>
<BLANKLINE>
def g_rev(u, n, tape, d_out):
    tape_tmp1, tmp1_shape = tape
    top_tmp1 = len(tape_tmp1)
    d_u = rt.expand(d_out, None)
    for t in range(n - 1, -1, -1):
        d_tmp1 = rt.unbroadcast(d_u, tmp1_shape)
        top_tmp1 -= 1
        tmp1_shape = tape_tmp1[top_tmp1]
        d_u = d_tmp1 * 0.5
    return d_u,
"""
import copy

import gast

from codegen import to_source
from codegen.emit import is_comment
from srcad.kinds import dummy
from srcad.passes import ir


def _stores(nodes):
    """How often each name is assigned or deleted, among `nodes` (a function's, walked)."""
    counts = {}
    for n in nodes:
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def _constant_index(index):
    """An index made of constants and slices of constants only."""
    return all(isinstance(n, (gast.Constant, gast.Slice, gast.Tuple, gast.UnaryOp,
                              gast.USub, gast.UAdd, gast.Load))
               for n in gast.walk(index))


def _read_shape(uses, shape):
    """Each call that reads the array (`uses`) reads the tuple `shape` instead (its
    `.shape` reads: `_read_shapes`)."""
    for parent, field, node in uses:
        if isinstance(parent, gast.Call):
            if ir.dotted_text(parent.func) == "np.zeros_like":
                parent.func = ir.dotted("np.zeros")
            parent.args = [ir.name(shape) if a is node else a for a in parent.args]


def _read_shapes(nodes, shapes):
    """`x.shape` -> `x_shape` in the children of `nodes` (a tree's, walked before the
    tape's reads were rewritten: no `.shape` read is made since), for the arrays `shapes`
    maps to their shapes' names."""

    def shape_read(node):
        return isinstance(node, gast.Attribute) and node.attr == "shape" and \
            isinstance(node.value, gast.Name) and node.value.id in shapes

    for node in nodes:
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for k, item in enumerate(value):
                    if shape_read(item):
                        value[k] = ir.name(shapes[item.value.id])
            elif shape_read(value):
                setattr(node, field, ir.name(shapes[value.value.id]))


def _tape_parts(fwd, rev, tape_param):
    """(the forward sweep's returned tape tuple, the reverse sweep's unpacking of it), or
    None when either is not in the form ReverseAD writes."""
    ret = fwd.body[-1] if fwd.body else None
    if not (isinstance(ret, gast.Return) and isinstance(ret.value, gast.Tuple)
            and len(ret.value.elts) == 2 and isinstance(ret.value.elts[1], gast.Tuple)):
        return None
    unpack = next((s for s in rev.body if isinstance(s, gast.Assign)
                   and isinstance(s.value, gast.Name) and s.value.id == tape_param), None)
    if unpack is None or not isinstance(unpack.targets[0], gast.Tuple):
        return None
    tape = ret.value.elts[1]
    if len(tape.elts) != len(unpack.targets[0].elts):
        return None
    return tape, unpack


def _text(expr):
    return to_source(gast.Expr(value=expr)).strip()


def _drop_placeholders(fwd, names, kinds):
    """The placeholders of `names` at the top of `fwd` (`srcad.kinds.dummy`) go: their
    stacks went, and nothing reads them before the variables are assigned."""
    def placeholder(s):
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name) and s.targets[0].id in names):
            return False
        kind = kinds.get(s.targets[0].id)
        return kind is not None and _text(s.value) in (
            _text(gast.parse(dummy(kind, view=view)).body[0].value) for view in (False, True))

    fwd.body = [s for s in fwd.body if not placeholder(s)]


class LeanTape:
    """Transformation of a forward sweep and its reverse sweep (see the module).
    `written`: the arrays the function writes; `kinds`: the variables' kinds."""

    needs = ("kinds", "written", "tape_slots")
    provides = ("tape_slots", "shapes_stacked")

    def __init__(self, params, written, kinds, namer, tape_param="tape"):
        self.params, self.written, self.kinds = list(params), set(written), kinds
        self.namer, self.tape_param = namer, tape_param
        self.slots = None  # the tape's slots after the rewrite
        self.shapes_stacked = set()  # the arrays whose stacks keep their shapes only

    def run(self, fwd, rev):
        parts = _tape_parts(fwd, rev, self.tape_param)
        if parts is None:
            return fwd, rev
        tape, unpack = parts
        names = [e.id if isinstance(e, gast.Name) else None for e in unpack.targets[0].elts]
        fwd_nodes, rev_nodes = ir.walk(fwd), ir.walk(rev)  # each sweep walked once
        fwd_stores, rev_stores = _stores(fwd_nodes), _stores(rev_nodes)
        unread = self.unread_stacks(fwd, rev, names, rev_nodes, unpack, rev_stores)
        if unread:  # walked again without them
            fwd_nodes, rev_nodes = ir.walk(fwd), ir.walk(rev)
            fwd_stores, rev_stores = _stores(fwd_nodes), _stores(rev_nodes)
        sliced = self.argument_views(fwd, fwd_stores, rev_stores)
        uses = self.uses(rev_nodes, unpack)
        shapes = self.stacked_shapes(fwd_nodes, rev_nodes, names, uses, rev_stores)
        self.shapes_stacked = set(shapes)
        keep_elts, keep_names, again = [], [], []
        shape_reads = {}  # array -> its shape's name, for one walk of `rev` at the end
        for elt, name in zip(tape.elts, names):
            if name in shapes:  # its stack keeps shapes: so does its slot
                base = elt.func.value if isinstance(elt, gast.Call) else elt
                keep_elts.append(gast.Attribute(value=base, attr="shape", ctx=gast.Load()))
                keep_names.append(shapes[name])
            elif name is None or rev_stores.get(name, 0) != 1:
                keep_elts.append(elt)
                keep_names.append(name)
            elif not uses.get(name):
                continue  # nothing reads it (a later rewrite took its last read)
            elif name in sliced:
                again.append(ir.assign(name, copy.deepcopy(sliced[name])))
            elif self.shape_only(name, uses.get(name, [])):
                shape = self.namer.fresh(name + "_shape", numbered=False)
                _read_shape(uses[name], shape)
                shape_reads[name] = shape
                base = elt.func.value if isinstance(elt, gast.Call) else elt
                keep_elts.append(gast.Attribute(value=base, attr="shape", ctx=gast.Load()))
                keep_names.append(shape)
            else:
                keep_elts.append(elt)
                keep_names.append(name)
        if shape_reads:
            _read_shapes(rev_nodes, shape_reads)
        tape.elts = keep_elts
        if unread:
            _drop_placeholders(fwd, unread - {n.id for e in keep_elts for n in ir.names(e)},
                               self.kinds)
        k = rev.body.index(unpack)
        unpack.targets[0].elts = [ir.name(n, store=True) for n in keep_names]
        rev.body[k:k + 1] = ([unpack] if keep_names else []) + again
        self.slots = keep_names
        return fwd, rev

    def unread_stacks(self, fwd, rev, names, rev_nodes, unpack, rev_stores):
        """Drop each stack of the tape whose popped values the reverse sweep never reads
        (`t = stack[top]` and nothing reads `t`: LeanLoopAdjoints took the zeros that
        read its shape): its pushes, its pops, its counter. The names popped, or an
        empty set."""
        uses = self.uses(rev_nodes, unpack)
        pops = {}  # popped name -> [(its pop, the stack, the counter)]
        for s in rev_nodes:
            if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                    and isinstance(s.targets[0], gast.Name) \
                    and isinstance(s.value, gast.Subscript) \
                    and isinstance(s.value.value, gast.Name) and s.value.value.id in names \
                    and isinstance(s.value.slice, gast.Name):
                pops.setdefault(s.targets[0].id, []).append(
                    (s, s.value.value.id, s.value.slice.id))
        lists = {s.targets[0].id for s in fwd.body if isinstance(s, gast.Assign)
                 and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call)
                 and ir.dotted_text(s.value.func) == "List"}
        popped_by = {}
        for name, popped in pops.items():
            for _, st, _ in popped:
                popped_by.setdefault(st, set()).add(name)
        dropped, tops, out = set(), set(), set()
        for name, popped in pops.items():
            stacks = {st for _, st, _ in popped}
            counters = {top for _, _, top in popped}
            if uses.get(name) or rev_stores.get(name, 0) != len(popped) + (name in names) \
                    or not stacks <= lists or any(popped_by[st] != {name} for st in stacks):
                continue
            pop_values = {id(s.value) for s, _, _ in popped}
            # each stack read by its pops and `len` only; each counter by the pops only
            if any(not (id(parent) in pop_values or isinstance(parent, gast.Call)
                        and ir.dotted_text(parent.func) == "len")
                   for st in stacks for parent, _, _ in uses.get(st, ())):
                continue
            if any(id(parent) not in pop_values
                   for top in counters for parent, _, _ in uses.get(top, ())):
                continue
            dropped |= stacks
            tops |= counters
            out.add(name)
        if not dropped:
            return out

        def mentions(s, among):
            return any(n.id in among for n in ir.names(s))

        def keep_fwd(s):
            if isinstance(s, (gast.Assign, gast.Expr)) and not isinstance(
                    s, (gast.For, gast.While, gast.If)) and mentions(s, dropped):
                return []
            return [s]

        def keep_rev(s):
            if s is not unpack and isinstance(s, (gast.Assign, gast.AugAssign)) \
                    and mentions(s, dropped | tops):
                return []
            return [s]

        fwd.body = ir.rewrite_blocks(fwd.body, keep_fwd)
        rev.body = ir.rewrite_blocks(rev.body, keep_rev)
        for fn in (fwd, rev):  # a block left with its comments only
            for n in ir.walk(fn):
                if isinstance(n, (gast.For, gast.While, gast.If)):
                    if all(is_comment(s) for s in n.body):
                        n.body = n.body + [gast.Pass()]
                    if all(is_comment(s) for s in n.orelse):
                        n.orelse = []
        return out

    def stacked_shapes(self, fwd_nodes, rev_nodes, names, uses, rev_stores):
        """{name: its shape's name} for each array that a loop pushes on a stack of the
        tape (`stack.append(x)` in the forward sweep, `x = stack[top]` in the reverse
        sweep) and that the reverse sweep only reads for its shape: its stacks keep its
        shapes from now on, and the reverse sweep reads those."""
        pops = {}  # name -> [(its pop, the stack)]
        for s in rev_nodes:
            if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                    and isinstance(s.targets[0], gast.Name) \
                    and isinstance(s.value, gast.Subscript) \
                    and isinstance(s.value.value, gast.Name) and s.value.value.id in names:
                pops.setdefault(s.targets[0].id, []).append((s, s.value.value.id))
        appends = {}  # stack -> its `stack.append(...)` calls in the forward sweep
        loads = {}
        for n in fwd_nodes:
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                    and n.func.attr == "append" and isinstance(n.func.value, gast.Name) \
                    and len(n.args) == 1:
                appends.setdefault(n.func.value.id, []).append(n)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                loads[n.id] = loads.get(n.id, 0) + 1
        ret = fwd_nodes[0].body[-1].value.elts[1].elts
        shapes = {}
        for name, popped in pops.items():
            stacks = {stack for _, stack in popped}
            if rev_stores.get(name, 0) != len(popped) + (name in names) or \
                    not self.shape_only(name, uses.get(name, [])):
                continue
            # each stack: filled by appends only, read by the pops and `len` only
            if any(loads.get(st, 0) != len(appends.get(st, ())) + sum(
                    isinstance(e, gast.Name) and e.id == st for e in ret) or
                    any(not (isinstance(parent, gast.Subscript) or isinstance(
                        parent, gast.Call) and ir.dotted_text(parent.func) == "len")
                        for parent, _, _ in uses.get(st, ())) or
                    len(pops.get(name, ())) != sum(isinstance(p, gast.Subscript)
                                                   for p, _, _ in uses.get(st, ()))
                    for st in stacks):
                continue
            shapes[name] = shape = self.namer.fresh(name + "_shape", numbered=False)
            for st in stacks:
                for call in appends[st]:
                    value = call.args[0]
                    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
                            and value.func.attr == "copy" and not value.args:
                        value = value.func.value
                    call.args = [gast.Attribute(value=value, attr="shape", ctx=gast.Load())]
            for pop, _ in popped:
                pop.targets = [ir.name(shape, store=True)]
            _read_shape(uses.get(name, []), shape)
        if shapes:
            _read_shapes(rev_nodes, shapes)
        return shapes

    def argument_views(self, fwd, fwd_stores, rev_stores):
        """{name: its value} for `name = p[<constants>]` at the top of the forward sweep,
        its one assignment, `p` an argument that neither sweep assigns or writes."""
        out = {}
        for s in fwd.body:
            if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
                    and isinstance(s.value, gast.Subscript)
                    and isinstance(s.value.value, gast.Name)):
                continue
            name, p = s.targets[0].id, s.value.value.id
            if p in self.params and p not in self.written and not fwd_stores.get(p) \
                    and not rev_stores.get(p) and fwd_stores.get(name) == 1 \
                    and _constant_index(s.value.slice):
                out[name] = s.value
        return out

    @staticmethod
    def uses(rev_nodes, unpack):
        """{name: [(parent, field, node)]} for every read of a name in the reverse sweep
        (`rev_nodes`: its nodes)."""
        out = {}
        for parent in rev_nodes:
            if parent is unpack:
                continue
            for field in parent._fields:
                value = getattr(parent, field, None)
                for node in value if type(value) is list else [value]:
                    if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                        out.setdefault(node.id, []).append((parent, field, node))
        return out

    def shape_only(self, name, uses):
        """Whether every read of `name` only asks for its shape."""
        kind = self.kinds.get(name)
        if not uses or not getattr(kind, "ndim", 0):
            return False
        for parent, field, node in uses:
            if isinstance(parent, gast.Attribute) and parent.attr == "shape":
                continue
            if isinstance(parent, gast.Call) and field == "args" and not parent.keywords:
                func = ir.dotted_text(parent.func)
                if func in ("rt.unbroadcast", "rt.filled") and len(parent.args) == 2 \
                        and parent.args[1] is node:
                    continue
                if func == "np.zeros_like" and len(parent.args) == 1 \
                        and getattr(kind, "dtype", None) == "f":
                    continue
            return False
        return True

"""ViewWrites: writes through a view of a local array go into the array it views."""
import copy

import gast

from srcad.passes import ir
from srcad.passes.resolve_calls import CallSite
from srcad.rules import registry


class ViewWrites:
    """Transformation: where the function's own body binds a name once to a slice of an
    array (`u = U[1:-1, 1:-1]`, every index a slice whose bounds never change), a write
    through the view becomes the same write into `U`: of the whole view (`u[:] = e`,
    `u += e`) into `U[1:-1, 1:-1]`; of elements (`u[i, j] = e`, `u[1:, k] *= e`, `u[m] = 0`
    with a mask along one axis) at the places `rt.view_index` and `rt.view_slice` compute
    from the view's slices. After every write into `U`, `u` is taken again: it sees what
    NumPy's view would see, and no two names write one memory. A view read only element
    by element, at ints and loop counters, is read from `U` instead: it is never bound,
    nor taken again (a loop writing a view element by element copies nothing). Writes
    that select otherwise (`...`, `None`, a mask of more than one axis) are left to
    CheckAliases, which refuses them.

    >>> from srcad.passes.testing import show
    >>> show(ViewWrites, '''
    ... def f(x):
    ...     U = np.zeros((4, 4))
    ...     u = U[1:-1, 1:-1]
    ...     u[:] = 1.0
    ...     U[0, :] = x
    ...     for i in range(3):
    ...         u += U[:-2, 1:-1] * x
    ...     return np.sum(U) + np.sum(u)''')
    def f(x):
        U = np.zeros((4, 4))
        u = U[1:-1, 1:-1]
        U[1:-1, 1:-1] = 1.0
        u = U[1:-1, 1:-1]
        U[0, :] = x
        u = U[1:-1, 1:-1]
        for i in range(3):
            U[1:-1, 1:-1] += U[:-2, 1:-1] * x
            u = U[1:-1, 1:-1]
        return np.sum(U) + np.sum(u)
    >>> show(ViewWrites, '''
    ... def f(x):
    ...     w = x * 2.0
    ...     u = w[1:]
    ...     for i in range(1, 3):
    ...         u[i] = u[i - 1] * x[i]
    ...     u[2:] *= 0.5
    ...     return np.sum(w)''')
    def f(x):
        w = x * 2.0
        for i in range(1, 3):
            i1 = rt.view_index(i, w.shape[0], 1, None, None)
            w[i1] = w[rt.view_index(i - 1, w.shape[0], 1, None, None)] * x[i]
        start1, stop1, step1 = rt.view_slice(w.shape[0], 1, None, None, 2, None,
            None)
        w[start1:stop1:step1] *= 0.5
        return np.sum(w)
    """

    needs = ()
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        stores, every = _stores(fnode, updates=False), _stores(fnode)
        params = {a.id for a in fnode.args.args}
        self.views = {}  # view name -> (base name, index)
        for s in fnode.body:
            for name, value in _bindings(s):
                if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) \
                        and stores.get(name) == 1 and name not in params \
                        and stores.get(value.value.id, 0) <= 1 \
                        and _fixed_slices(value.slice, every):
                    self.views[name] = (value.value.id, value.slice)
        if not self.views:
            return fnode
        self.bound = set()  # the views bound so far, in program order
        # a view read only element by element is read from its array, and never taken again
        self.indexed = {view for view in self.views if self.indexed_only(view, fnode)}
        fnode.body = ir.rewrite_blocks(fnode.body, self.refreshed)
        return fnode

    def indexed_only(self, view, fnode):
        """Whether every mention of `view` but its binding indexes it by ints and `:`
        that a read can compose in place: `u[i, j - 1]`, `u[k] = e`, no call in a read's
        index."""
        binding = [t for s in fnode.body for name, _ in _bindings(s) if name == view
                   for t in ir.walk(s) if isinstance(t, gast.Name) and t.id == view
                   and isinstance(t.ctx, gast.Store)]
        parents = {id(c): n for n in ir.walk(fnode) for c in gast.iter_child_nodes(n)}
        self.counters = _range_counters(fnode)
        for n in ir.walk(fnode):
            if not isinstance(n, gast.Name) or n.id != view or n in binding:
                continue
            up = parents.get(id(n))
            if not (isinstance(up, gast.Subscript) and up.value is n and
                    self.composable(up.slice, read=isinstance(up.ctx, gast.Load))):
                return False
        return True

    def composable(self, index, read):
        inner = index.elts if isinstance(index, gast.Tuple) else [index]
        if _selects_otherwise(inner):
            return False
        return not read or all(_whole(q) or self.integer(q) for q in inner)

    def integer(self, node):
        """Whether `node` is an int for sure: ints, loop counters of `range` loops
        (assigned nowhere else), and `+ - * //` of them."""
        if isinstance(node, gast.Constant):
            return type(node.value) is int
        if isinstance(node, gast.Name):
            return node.id in self.counters
        if isinstance(node, gast.UnaryOp):
            return isinstance(node.op, gast.USub) and self.integer(node.operand)
        return isinstance(node, gast.BinOp) and \
            isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv)) and \
            self.integer(node.left) and self.integer(node.right)

    def refreshed(self, s):
        """`s` (a write through a view redirected into its array, after the statements
        that compute the array's indices; its element reads of views read from their
        arrays), then every view of an array it writes into taken again."""
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and \
                s.targets[0].id in self.indexed:
            return []  # every use of it reads or writes its array instead
        before, s = self.redirected(s)
        self.read_through(s)
        written = _written(s)
        self.bound |= {name for name, _ in _bindings(s) if name in self.views}
        return before + [s] + [ir.assign(view, self.slice_of(view), like=s)
                               for view in self.views if self.views[view][0] in written
                               and view in self.bound and view not in self.indexed]

    def read_through(self, s):
        """Element reads `u[i]` of the views in `self.indexed` in the expressions of `s`
        (not its nested statements) become reads of their arrays."""
        for field, value in gast.iter_fields(s):
            for e in value if isinstance(value, list) else [value]:
                if not isinstance(e, gast.expr):
                    continue
                for n in ir.walk(e):
                    if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Load) and \
                            isinstance(n.value, gast.Name) and n.value.id in self.indexed:
                        view = n.value.id
                        n.slice = self.composed_inline(view, n.slice)
                        n.value = ir.name(self.views[view][0])

    def composed_inline(self, view, index):
        """The index into the base array of the read `view[index]` (ints and `:` only,
        with no call), its positions computed in place by `rt.view_index`."""
        parts = []
        for axis, p, q in self.axes(view, index):
            parts.append(copy.deepcopy(p if q is None or _whole(q) else q)
                         if p is None or q is None or _whole(p) or _whole(q) else
                         self.site(ir.call("rt.view_index", q, *self.bounds(view, axis, p))))
        return parts[0] if len(parts) == 1 else gast.Tuple(elts=parts, ctx=gast.Load())

    def axes(self, view, index):
        """(axis, the view's slice or None, the index's part or None) for each axis."""
        outer = self.views[view][1]
        outer = outer.elts if isinstance(outer, gast.Tuple) else [outer]
        inner = index.elts if isinstance(index, gast.Tuple) else [index]
        return [(axis, outer[axis] if axis < len(outer) else None,
                 inner[axis] if axis < len(inner) else None)
                for axis in range(max(len(outer), len(inner)))]

    def bounds(self, view, axis, part):
        """The arguments that place `part` (a slice of the view) on its array's axis: the
        axis's length, the slice's lower and upper bound and step."""
        base = self.views[view][0]
        n = gast.Subscript(value=gast.Attribute(value=ir.name(base), attr="shape",
                                                ctx=gast.Load()),
                           slice=ir.const(axis), ctx=gast.Load())
        return [n] + _bounds(part)

    def redirected(self, s):
        """(statements, `s`): `s` turned into a write into the base array, if it writes
        through a view, after the statements that compute where."""
        target = s.targets[0] if isinstance(s, gast.Assign) and len(s.targets) == 1 else \
            s.target if isinstance(s, gast.AugAssign) else None
        name = target.id if isinstance(target, gast.Name) else \
            target.value.id if isinstance(target, gast.Subscript) and \
            isinstance(target.value, gast.Name) else None
        if name not in self.views or isinstance(target, gast.Name) and \
                not isinstance(s, gast.AugAssign):
            return [], s
        if isinstance(target, gast.Name) or _whole(target.slice):  # the whole view
            new, before = self.slice_of(name, store=True), []
        else:
            before, index = self.composed(name, target.slice, s)
            if index is None:
                return [], s  # CheckAliases refuses it
            new = gast.Subscript(value=ir.name(self.views[name][0]), slice=index,
                                 ctx=gast.Store())
        if isinstance(s, gast.AugAssign):
            s.target = new
        else:
            s.targets = [new]
        return before, s

    def composed(self, view, index, like):
        """(statements, index into the base array) for the elements `view[index]`: along
        each axis the view slices, an int (or array of ints) `i` is `rt.view_index(i, n,
        lo, hi, step)` and a slice is the slice `rt.view_slice` computes; the index is
        None where it selects otherwise (a mask, `...`, `None`, a list)."""
        inner = index.elts if isinstance(index, gast.Tuple) else [index]
        if _selects_otherwise(inner):
            return [], None
        before, parts = [], []
        for axis, p, q in self.axes(view, index):
            if p is None or q is None or _whole(p) or _whole(q):
                parts.append(copy.deepcopy(p if q is None or _whole(q) else q))
                continue
            bounds = self.bounds(view, axis, p)
            if not isinstance(q, gast.Slice):
                if not _plain(q):
                    before.append(ir.assign(self.ctx.namer.fresh("i"), q, like=like))
                    q = ir.name(before[-1].targets[0].id)
                before.append(ir.assign(self.ctx.namer.fresh("i"), self.site(
                    ir.call("rt.view_index", q, *bounds)), like=like))
                parts.append(ir.name(before[-1].targets[0].id))
                continue
            names = [self.ctx.namer.fresh(stem) for stem in ("start", "stop", "step")]
            before.append(ir.assign(
                gast.Tuple(elts=[ir.name(k, store=True) for k in names], ctx=gast.Store()),
                self.site(ir.call("rt.view_slice", *bounds, *_bounds(q))), like=like))
            parts.append(gast.Slice(*[ir.name(k) for k in names]))
        return before, parts[0] if len(parts) == 1 else gast.Tuple(elts=parts,
                                                                   ctx=gast.Load())

    def site(self, call):
        """`call` of a runtime helper, resolved here (its arguments are names, numbers
        and shapes)."""
        self.ctx.calls[call] = CallSite("rule", ir.dotted_text(call.func),
                                        registry.by_name(ir.dotted_text(call.func)))
        return call

    def slice_of(self, view, store=False):
        base, index = self.views[view]
        return gast.Subscript(value=ir.name(base), slice=copy.deepcopy(index),
                              ctx=gast.Store() if store else gast.Load())


def _bindings(s):
    """(name, value) pairs that the statement `s` binds: `u = e`, `u, v = e1, e2`."""
    if not isinstance(s, gast.Assign) or len(s.targets) != 1:
        return []
    t, v = s.targets[0], s.value
    if isinstance(t, gast.Name):
        return [(t.id, v)]
    if isinstance(t, gast.Tuple) and isinstance(v, gast.Tuple) and len(t.elts) == len(v.elts):
        return [(e.id, x) for e, x in zip(t.elts, v.elts) if isinstance(e, gast.Name)]
    return []


def _stores(fnode, updates=True):
    """How many times each name is bound (parameters count once); `x op= e` counts only
    with `updates` (on an array, it writes into it)."""
    out = {a.id: 1 for a in fnode.args.args}
    skipped = set() if updates else \
        {id(n.target) for n in ir.walk(fnode) if isinstance(n, gast.AugAssign)}
    for n in ir.walk(fnode):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) and id(n) not in skipped:
            out[n.id] = out.get(n.id, 0) + 1
    return out


def _fixed_slices(index, stores):
    """Every index a slice (so the result is a view), bounded by arithmetic of numbers and
    of names bound once (parameters never again)."""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    if not all(isinstance(p, gast.Slice) for p in parts):
        return False
    nodes = [n for p in parts for n in ir.walk(p)]
    if not all(isinstance(n, _BOUND_NODES) for n in nodes):
        return False  # `U[:m[0]]`, `U[:f(x)]`: a bound that may read what changes
    names = {n.id for n in nodes if isinstance(n, gast.Name)}
    return all(stores.get(n, 0) <= 1 for n in names)


# what the bounds of a fixed slice are made of: numbers and names, in arithmetic
_BOUND_NODES = (gast.Slice, gast.Constant, gast.Name, gast.Load, gast.BinOp, gast.UnaryOp,
                gast.operator, gast.unaryop)


def _range_counters(fnode):
    """The names that only `for ... in range(...)` loops assign: ints."""
    stores = _stores(fnode)
    loops = [n.target.id for n in ir.walk(fnode) if isinstance(n, gast.For) and
             isinstance(n.target, gast.Name) and isinstance(n.iter, gast.Call) and
             isinstance(n.iter.func, gast.Name) and n.iter.func.id == "range"]
    return {name for name in loops if stores.get(name) == loops.count(name)}


def _selects_otherwise(inner):
    """Whether the parts of an index select other than by ints and slices: a mask (a
    comparison, `~m`, `not`), `...`, `None`, a list."""
    return any(isinstance(q, (gast.Constant, gast.List, gast.Compare, gast.BoolOp)) and
               not isinstance(getattr(q, "value", 0), int) or
               isinstance(q, gast.UnaryOp) and isinstance(q.op, (gast.Not, gast.Invert))
               for q in inner)


def _plain(node):
    """A name, a number, or a negative number."""
    return ir.is_atom(node) or isinstance(node, gast.UnaryOp) and \
        isinstance(node.op, gast.USub) and isinstance(node.operand, gast.Constant)


def _bounds(index):
    """The lower bound, upper bound and step of the slice `index`, copied (None where
    it has none)."""
    return [copy.deepcopy(b) if b is not None else ir.const(None)
            for b in (index.lower, index.upper, index.step)]


def _whole(index):
    """`:` or `...`: the whole array."""
    return isinstance(index, gast.Slice) and index.lower is None and index.upper is None \
        and index.step is None or isinstance(index, gast.Constant) and index.value is Ellipsis


def _written(s):
    """The names whose elements `s` writes (`x[...] = `, `x op= `), not inside nested
    statements (each is handled where it is)."""
    if isinstance(s, gast.Assign):
        return {t.value.id for t in s.targets if isinstance(t, gast.Subscript)
                and isinstance(t.value, gast.Name)}
    if isinstance(s, gast.AugAssign):
        t = s.target
        return {t.value.id if isinstance(t, gast.Subscript) else t.id} \
            if isinstance(t, (gast.Subscript, gast.Name)) else set()
    return set()

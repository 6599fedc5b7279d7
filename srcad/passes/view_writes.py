"""ViewWrites: writes through a view of a local array go into the array it views."""
import copy

import gast

from srcad.passes import ir


class ViewWrites:
    """Transformation: where the function's own body binds a name once to a slice of an
    array (`u = U[1:-1, 1:-1]`, every index a slice whose bounds never change), a write
    of the whole view (`u[:] = e`, `u[...] = e`, `u += e`) becomes the same write into
    `U[1:-1, 1:-1]`, and after every write into `U` or the view, `u` is taken again: it
    sees what NumPy's view would see, and no two names write one memory. Other writes
    through the view are left to CheckAliases, which refuses them.

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
        if self.views:
            fnode.body = ir.rewrite_blocks(fnode.body, self.refreshed)
        return fnode

    def refreshed(self, s):
        """`s` (a whole-view write redirected into its array), then every view of an
        array it writes into taken again."""
        s = self.redirected(s)
        written = _written(s)
        return [s] + [ir.assign(view, self.slice_of(view), like=s) for view in self.views
                      if self.views[view][0] in written]

    def redirected(self, s):
        """`s`, a whole-view write turned into a write into the base array."""
        target = s.targets[0] if isinstance(s, gast.Assign) and len(s.targets) == 1 else \
            s.target if isinstance(s, gast.AugAssign) else None
        whole = isinstance(s, gast.AugAssign) and isinstance(target, gast.Name) or \
            isinstance(s, gast.Assign) and isinstance(target, gast.Subscript) and \
            isinstance(target.value, gast.Name) and _whole(target.slice)
        name = target.id if isinstance(target, gast.Name) else \
            target.value.id if isinstance(target, gast.Subscript) else None
        if not whole or name not in self.views:
            return s
        new = self.slice_of(name, store=True)
        if isinstance(s, gast.AugAssign):
            s.target = new
        else:
            s.targets = [new]
        return s

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

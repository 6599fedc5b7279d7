"""Which views the forward sweep copies onto its tape.

A view kept on the tape (`v = x[1:]`, `v = np.reshape(x, ...)`, `v = x`) is copied when
the array behind it may change before the reverse sweep reads it: it is an argument (the
caller may write into it after the forward sweep), or something writes into it in place
(`x[i] = e`, an update `x += e`, `out=x`), or it reaches code that might (a call of a
function without a rule, the return value). A view of the function's own new arrays that
nothing writes is kept as it is: no copy.

Names that share an array (an assignment of a name, a slice or a view of another) form a
group; the group's arrays are private when no name of it is a parameter, none is bound to
a value that may share another's array (a call of the user's, an unpacked tuple), and
every use of each is a read that makes a new array or another name of the group.

>>> import gast
>>> from srcad.kinds import Kind
>>> body = gast.parse('''
... t = x * 2.0
... u = t
... v = x[1:]
... w = np.reshape(t, (3, 2))
... y = w + u
... z = y[0:2]
... z[0] = 1.0
... '''.strip()).body
>>> kinds = {n: Kind("float64", 1) for n in "tuvwxyz"}
>>> sorted(copied_views(body, {"u", "v", "w", "z"}, {"x"}, kinds, set()))
['v', 'z']
"""
import gast

from srcad.passes import ir
from srcad.passes.spell_masks import mask_of
from srcad.rules import registry

_SHAPE_READS = ("shape", "ndim", "size", "dtype")


def copied_views(body, views, params, kinds, augmented):
    """The names of `views` (those `ReverseAD.may_be_views` finds) whose arrays may change
    after the forward sweep keeps them: see the module's docstring. `augmented`: the
    assignments that are updates in place (`x += e` on an array)."""
    module = gast.Module(body=body, type_ignores=[])
    parent = ir.parents(*body)
    group = {}  # name -> its group's representative (union-find)

    def find(n):
        while group.setdefault(n, n) != n:
            group[n] = group[group[n]]
            n = group[n]
        return n

    def join(a, b):
        group[find(a)] = find(b)

    tainted = set(params)
    for node in ir.walk(module):
        if isinstance(node, gast.Assign):
            target = node.targets[0] if len(node.targets) == 1 else None
            if not isinstance(target, gast.Name):
                continue
            source = _source(node.value, kinds)
            if source is True:
                tainted.add(target.id)
            elif source is not None:
                join(target.id, source)
            if node in augmented:
                tainted.add(target.id)
        elif isinstance(node, gast.Name):
            if isinstance(node.ctx, gast.Load) and _escapes(node, parent):
                tainted.add(node.id)
            elif isinstance(node.ctx, gast.Store) and not _bound(node, parent):
                tainted.add(node.id)
    bad = {find(n) for n in tainted}
    return {v for v in views if find(v) in bad}


def _source(value, kinds):
    """The name whose array `value` may share (a name, a slice of one, a view call of
    one); None when `value` is a new array (arithmetic, a call with a rule that makes
    one, a number); True when it may share an array that cannot be named."""
    if isinstance(value, gast.Name):
        return value.id
    if isinstance(value, gast.Subscript):
        if mask_of(value.slice, kinds):
            return None
        return value.value.id if isinstance(value.value, gast.Name) else True
    if isinstance(value, gast.Call):
        func = ir.dotted_text(value.func)
        if registry.is_view(func):
            first = value.args[0] if value.args else None
            return first.id if isinstance(first, gast.Name) else True
        return None if registry.is_pure(func) else True
    if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.BoolOp,
                          gast.Constant)):
        return None
    return True


def _bound(node, parent):
    """Whether the stored name `node` is the one target of an assignment (other stores,
    an unpacked tuple or a loop variable, may bind an array that another name holds)."""
    p = parent.get(node)
    return isinstance(p, gast.Assign) and len(p.targets) == 1 and p.targets[0] is node


def _escapes(node, parent):
    """Whether the read `node` (a name or an expression of it) may let its array be
    written or outlive the call: anything but arithmetic, an index, a shape read, a
    copy, an argument of a function with a rule (not `out=`), or an assignment to a name
    (which then joins the array's group)."""
    p = parent.get(node)
    if isinstance(p, gast.Assign):
        return p.value is not node
    if isinstance(p, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.BoolOp)):
        return False
    if isinstance(p, gast.Subscript):
        if p.value is not node:
            return False  # an index
        if not isinstance(p.ctx, gast.Load):
            return True  # an element written
        return _escapes(p, parent)
    if isinstance(p, gast.Attribute):
        called = isinstance(parent.get(p), gast.Call) and parent[p].func is p
        return not (p.attr in _SHAPE_READS or (p.attr == "copy" and called))
    if isinstance(p, gast.Call) and any(a is node for a in p.args):
        func = ir.dotted_text(p.func)
        if not registry.is_pure(func):
            return True
        return registry.is_view(func) and _escapes(p, parent)
    return True

"""Shapes that are equal whatever the arguments, read from the code: `u[2:, 1:-1]` and
`u[:-2, 1:-1]` have one shape (two rows fewer than `u`, two columns fewer), and so do
their sum and its product with a number.

A reverse sweep sums the adjoint of an operand of a broadcasting operation down to the
operand's shape (`rt.unbroadcast(d_t * y, x)`); where the operand has the result's shape
there is nothing to sum, and the call, the code Numba links in for it, and the array it
makes are left out (`Adjoints.accumulate`).

A shape is a tuple of tokens, one per axis; two variables have the same shape when their
tuples are equal. A token is an argument's axis, `("arg", name, axis)`; the axis of an
array assigned once outside loops whose shape is not known otherwise (a product of
matrices), `("of", name, axis)`; an axis of length one that `None` adds, `("one",)`; or
a slice of an axis, `("slice", token, lengths)`, where
`lengths` says how long the slice is for every length of the axis (for a step of one,
slices of the same lengths are one token: `2:` and `:-2`). Only variables assigned once
get a shape, from arguments, slices with constant bounds, integer indices and `None`,
elementwise operations (arithmetic, comparisons, and rules typed elementwise) of
operands that broadcast to a shape known here, reductions along constant axes, and
functions whose rule says their result has an operand's shape (`np.triu(m, 1)`,
`np.flip(m)`); any other array assigned once outside loops has its own, equal to no
other but what is elementwise of it alone (`h = x @ w; a = np.where(h > 0, h, 0.0)`:
`a` has `h`'s shape); the rest has none, and is never taken for equal.

>>> import gast
>>> from srcad.rules.typing import Kind
>>> fn = gast.parse('''def f(u, c):
...     a = u[2:, 1:-1]
...     b = u[:-2, 1:-1]
...     s = a + b
...     t = 2.0 * s
...     w = u[1:, 1:-1]
...     r = w + c
...     q = t * r
...     return s''').body[0]
>>> kinds = {"u": Kind("f", 2), "c": Kind("f", 0)}
>>> kinds.update({v: Kind("f", 2) for v in "abstwrq"})
>>> from srcad.rules import registry
>>> def rule_of(op):  # arithmetic only, here
...     if isinstance(op, gast.BinOp):
...         return registry.by_name("op." + type(op.op).__name__), {"x": op.left, "y": op.right}
...     return None, None
>>> shapes = static_shapes(fn, kinds, rule_of)
>>> shapes["a"] == shapes["b"] == shapes["s"] == shapes["t"]
True
>>> shapes["r"] == shapes["a"], shapes["q"] == shapes["a"]  # `w`: one row more than `a`
(False, False)
>>> shapes["q"]  # its own, whatever broadcasting makes of `t` and `r`
(('of', 'q', 0), ('of', 'q', 1))

Broadcasting against `None`'s axes:

>>> fn = gast.parse('''def f(u, v):
...     a = u[:, None]
...     b = v[None, :]
...     c = a * b
...     d = c + v
...     return d''').body[0]
>>> kinds = {"u": Kind("f", 1), "v": Kind("f", 1), "a": Kind("f", 2), "b": Kind("f", 2),
...          "c": Kind("f", 2), "d": Kind("f", 2)}
>>> shapes = static_shapes(fn, kinds, rule_of)
>>> shapes["c"] == (("arg", "u", 0), ("arg", "v", 0)) == shapes["d"]
True
>>> _lengths(2, None, None) == _lengths(None, -2, None) == _lengths(1, -1, None)
True
>>> _lengths(None, None, None), _lengths(-3, None, None), _lengths(1, 5, None)
(((), 1, 0), ((0, 1, 2), 0, 3), ((0, 0, 1, 2, 3), 0, 4))
"""
import gast

from srcad.passes import ir
from srcad.passes.activity import statements
from srcad.rules import typing as ty

ONE = ("one",)  # an axis of length one, as `None` adds

# the typing functions of rules whose result has the broadcast shape of their operands
_ELEMENTWISE = (ty.elementwise, ty.same, ty.arith, ty.true_div, ty.power, ty.sum_or_product,
                ty.logical)


def _constant(node):
    """The int a slice bound is (None for none), or False when it is not a constant."""
    if node is None:
        return None
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) \
            and isinstance(node.operand, gast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    return False


def _lengths(lower, upper, step):
    """How long `x[lower:upper:step]` is, for every length n of `x`'s axis: (its lengths
    for n below some n0, a, b), its length being a * n + b from n0 on. For a step of one,
    that holds from 2m on, m the largest bound (the slice's ends are then n - m' or m'
    for m' <= m, and its length a difference of two), so lengths up to 4m + 5 find
    it. A step other than one keeps the slice itself."""
    if step not in (None, 1):
        return ("step", lower, upper, step)
    m = max(abs(b) for b in (lower, upper, 0) if b is not None)
    values = [len(range(n)[lower:upper]) for n in range(4 * m + 6)]
    a = values[-1] - values[-2]
    b = values[-1] - a * (len(values) - 1)
    n0 = len(values)
    while n0 > 0 and values[n0 - 1] == a * (n0 - 1) + b:
        n0 -= 1
    return tuple(values[:n0]), a, b


def _indexed(shape, index, kinds):
    """The shape of `x[index]` for `x` of `shape`, or None."""
    items = index.elts if isinstance(index, gast.Tuple) else [index]
    out, axis = [], 0
    for item in items:
        if isinstance(item, gast.Constant) and item.value is None:
            out.append(ONE)
            continue
        if axis >= len(shape):
            return None
        if isinstance(item, gast.Slice):
            bounds = [_constant(b) for b in (item.lower, item.upper, item.step)]
            if any(b is False for b in bounds):
                return None
            lengths = _lengths(*bounds)
            whole = lengths == ((), 1, 0)  # `:`, `0:`: the axis itself
            out.append(shape[axis] if whole else ("slice", shape[axis], lengths))
        elif isinstance(item, gast.Constant) and type(item.value) is int:
            pass  # an integer drops its axis
        elif isinstance(item, gast.Name) and getattr(kinds.get(item.id), "ndim", 1) == 0 \
                and kinds[item.id].dtype == "i":
            pass  # so does an integer variable
        else:
            return None
        axis += 1
    return tuple(out) + tuple(shape[axis:])


def _broadcast(operands, shapes, kinds):
    """The shape the array operands broadcast to (numbers broadcast to anything), or None
    where that depends on the arguments: axes of one token, or of one token and `None`'s
    axis of length one, broadcast; two other tokens might be of length one, or not."""
    found = ()
    for a in operands:
        if isinstance(a, gast.Constant):
            continue
        if not isinstance(a, gast.Name):
            return None
        if getattr(kinds.get(a.id), "ndim", None) == 0:
            continue
        if a.id not in shapes:
            return None
        shape = shapes[a.id]
        n = max(len(shape), len(found))
        padded = [(ONE,) * (n - len(x)) + tuple(x) for x in (found, shape)]
        axes = []
        for p, q in zip(*padded):
            if p != q and ONE not in (p, q):
                return None
            axes.append(q if p == ONE else p)
        found = tuple(axes)
    return found or None


def _reduced(rule, bound, shapes):
    """The shape a reduction (`np.sum(x, axis=1)`: a rule typed `ty.reduction`) leaves of
    its operand's, for constant axes and no `keepdims`, or None."""
    x, axis = bound.get(rule.kind.reduces), bound.get("axis")
    keep = bound.get("keepdims")
    if not isinstance(x, gast.Name) or x.id not in shapes or axis is None \
            or not (keep is None or isinstance(keep, gast.Constant) and keep.value is False):
        return None
    shape = shapes[x.id]
    axes = set()
    for a in (axis.elts if isinstance(axis, gast.Tuple) else [axis]):
        if not (isinstance(a, gast.Constant) and type(a.value) is int):
            if isinstance(a, gast.UnaryOp) and isinstance(a.op, gast.USub) \
                    and isinstance(a.operand, gast.Constant) and type(a.operand.value) is int:
                a = gast.Constant(value=-a.operand.value, kind=None)
            else:
                return None
        if not -len(shape) <= a.value < len(shape):
            return None
        axes.add(a.value % len(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def static_shapes(fnode, kinds, rule_of):
    """{variable: shape} for the variables of `fnode` (in A-normal form) whose shapes this
    module can tell; `kinds` gives each variable's rank, `rule_of(op)` the (rule,
    {parameter: atom}) of an operation, as `activity.bound_args` does."""
    stored = {}
    for n in ir.walk(fnode):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            stored[n.id] = stored.get(n.id, 0) + 1
    shapes = {}
    for a in fnode.args.args:
        k = kinds.get(a.id)
        if a.id not in stored and getattr(k, "ndim", 0) > 0:
            shapes[a.id] = tuple(("arg", a.id, i) for i in range(k.ndim))
    # a name assigned more than once (a variable of the user's that serves in two loops)
    # has a shape when each of its assignments gives that one shape: every value it holds
    # has it. Its shape may make others known: rounds until no more are.
    for _ in range(1 + sum(1 for n in stored.values() if n > 1)):
        found = _assigned_shapes(fnode, kinds, rule_of, stored, shapes)
        again = {t: s.pop() for t, s in found.items()
                 if stored[t] > 1 and len(s) == 1 and None not in s and t not in shapes}
        if not again:
            break
        shapes.update(again)
    return shapes


def _assigned_shapes(fnode, kinds, rule_of, stored, shapes):
    """Records in `shapes` the shapes of the names assigned once; {name: the set of the
    shapes its assignments give} for all names, None for one not known."""
    found, count = {}, {}
    for s, loops in statements(fnode.body):
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name)):
            continue
        t, op = s.targets[0].id, s.value
        count[t] = count.get(t, 0) + 1
        k = kinds.get(t)
        if getattr(k, "ndim", 0) == 0:
            continue
        shape = None
        if isinstance(op, gast.Name):
            shape = shapes.get(op.id)
        elif isinstance(op, gast.Subscript) and isinstance(op.value, gast.Name) \
                and op.value.id in shapes:
            shape = _indexed(shapes[op.value.id], op.slice, kinds)
        elif isinstance(op, gast.Compare) and len(op.comparators) == 1:  # `h > 0`
            shape = _broadcast([op.left, op.comparators[0]], shapes, kinds)
        else:
            rule, bound = rule_of(op)
            if rule is not None and rule.kind in _ELEMENTWISE \
                    and rule.name.startswith(("np.", "op.")):
                shape = _broadcast(bound.values(), shapes, kinds)
            elif rule is not None and getattr(rule.kind, "reduces", None):
                shape = _reduced(rule, bound, shapes)
            elif rule is not None and getattr(rule.kind, "shape_of", None):
                x = bound.get(rule.kind.shape_of)  # np.triu(m, 1): m's shape, of m's rank
                shape = shapes.get(x.id) if isinstance(x, gast.Name) else None
        if shape is not None and len(shape) != k.ndim:
            shape = None
        if shape is None and not loops and stored.get(t) == 1:
            # its own shape, whatever it is: what is elementwise of it alone shares it
            shape = tuple(("of", t, i) for i in range(k.ndim))
        found.setdefault(t, set()).add(shape)
        if shape is not None and stored.get(t) == 1:
            shapes[t] = shape
    # a name assigned other than by `name = value` too (a loop's target, a tuple): unknown
    return {t: s for t, s in found.items() if count[t] == stored.get(t)}


def same_shape(shapes, a, b):
    """Whether the variables `a` and `b` have one shape whatever the arguments."""
    return a in shapes and shapes.get(b) == shapes[a]


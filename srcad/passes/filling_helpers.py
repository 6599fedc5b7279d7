"""FillingHelpers: a call of a helper that fills one of its array arguments is an update of
that array."""
from dataclasses import dataclass

import gast

from srcad.errors import SrcadError, UnsupportedError
from srcad.passes import ir
from srcad.source import FunctionSource


class FillingHelpers:
    """Transformation: a statement that calls a helper of the user's and drops its result
    (`build_up_b(b, u, dt)`, bound to an unread name by BindExpressions), where the helper
    writes into one of its parameters and returns nothing, becomes `b = build_up_b(b, u,
    dt)`: the helper is built as an in-place kernel (ReturnArgument, `out=` that
    parameter) that returns the array's final contents. The caller's `b` is updated in
    place, so the assignment counts as one (`ctx.augmented`): CheckAliases refuses it
    where another name still shares `b`'s array. A helper that fills several of its
    parameters (`jacobi(A, B)`) returns their contents as a tuple, which the caller
    unpacks into each, each assignment an update in place; one that also returns values
    (`Q, R = gramschmidt(A)`) returns the filled arrays, then its values (`A, Q, R =
    gramschmidt(A)`: bound after the updates, as in Python). A parameter updated whole
    (`x1 += A @ y`) fills too once a call found it an array (`Program.in_place`: the
    kinds tell, not the syntax; a call that passes a number there is then refused).

    >>> from srcad.passes.testing import show_resolved
    >>> fill = gast.parse("def fill(b, x):\\n    b[0] = x").body[0]
    >>> show_resolved('''
    ... def fill(b, x):
    ...     b[0] = x
    ... def f(x):
    ...     b = np.zeros(2)
    ...     unused = fill(b, x)
    ...     return np.sum(b)''', lambda ctx: FillingHelpers(ctx, lambda fn: fill))
    def f(x):
        b = np.zeros(2)
        b = fill(b, x)
        return np.sum(b)
    >>> sweep = gast.parse("def sweep(a, b):\\n    b[1:] = a[:-1]\\n    a[0] = 0.0\\n"
    ...                    "    a *= 0.5").body[0]
    >>> show_resolved('''
    ... def sweep(a, b):
    ...     b[1:] = a[:-1]
    ...     a[0] = 0.0
    ...     a *= 0.5
    ... def f(x):
    ...     a = x * 1.0
    ...     b = np.zeros(2)
    ...     unused = sweep(a, b)
    ...     return np.sum(a * b)''', lambda ctx: FillingHelpers(ctx, lambda fn: sweep))
    def f(x):
        a = x * 1.0
        b = np.zeros(2)
        a, b = sweep(a, b)
        return np.sum(a * b)
    """

    needs = ("calls", "user_functions")
    provides = ()

    def __init__(self, ctx, source_of=None):
        self.ctx = ctx
        self.source_of = source_of or _source_of
        self.outputs = getattr(ctx.program, "outputs", {})

    def run(self, fnode):
        read = {n.id for n in ir.walk(fnode) if isinstance(n, gast.Name)
                and isinstance(n.ctx, gast.Load)}
        fnode.body = ir.rewrite_blocks(fnode.body, lambda s: self.updated(s, read))
        return fnode

    def updated(self, s, read):
        if not (isinstance(s, gast.Assign) and isinstance(s.value, gast.Call) and
                isinstance(s.targets[0], (gast.Name, gast.Tuple))):
            return [s]
        site = self.ctx.calls.get(s.value)
        if site is None or site.kind != "user":
            return [s]
        fn = self.ctx.user_functions[site.name]
        node = self.source_of(fn)
        in_place = getattr(self.ctx.program, "in_place", {}).get(fn, ())
        ks, arity = ([], 0) if node is None else _filled_parameters(node, in_place)
        if not ks or ks[-1] >= len(s.value.args) or \
                not all(isinstance(s.value.args[k], gast.Name) for k in ks):
            return [s]
        target = s.targets[0]
        dropped = isinstance(target, gast.Name) and target.id not in read
        if arity == 0 and not dropped:  # the caller reads the None it returns
            return [s]
        held = []  # a tuple it returns held whole (`r = f(a)`, then `r[0]`): its items
        if arity > 1 and isinstance(target, gast.Name):
            items = [self.ctx.namer.fresh(f"{target.id}_item") for _ in range(arity)]
            held = [ir.assign(target.id, gast.Tuple(elts=[ir.name(v) for v in items],
                                                    ctx=gast.Load()), like=s)]
            target = gast.Tuple(elts=[ir.name(v, store=True) for v in items],
                                ctx=gast.Store())
        values = [] if arity == 0 else [target] if isinstance(target, gast.Name) else \
            target.elts if len(target.elts) == arity and \
            all(isinstance(e, gast.Name) for e in target.elts) else None
        if values is None:
            return [s]
        filled = [s.value.args[k].id for k in ks]
        for k, name in zip(ks, filled):
            others = [a for i, a in enumerate(s.value.args) if i != k] + \
                [kw.value for kw in s.value.keywords]
            if any(_names(a, name) for a in others):
                raise self.ctx.fsrc.error(
                    f"`{site.name}` fills its argument `{name}` and also reads it through "
                    "another argument, which sees the writes as they happen", s,
                    f"pass a copy as the other argument (`{name}.copy()`)", UnsupportedError)
        params = tuple(node.args.args[k].id for k in ks)
        outs = params[0] if len(params) == 1 and not values else \
            Filled(params, arity > 0)
        if self.outputs.setdefault(fn, outs) != outs:
            return [s]
        if isinstance(outs, str):
            s.targets = [ir.name(filled[0], store=True)]
        else:  # the filled arrays, then what it returned (bound after them, as in Python)
            s.targets = [gast.Tuple(elts=[ir.name(name, store=True) for name in filled] +
                                    list(values), ctx=gast.Store())]
            self.ctx.filled_targets[s] = len(filled)
        self.ctx.augmented.add(s)
        return [s] + held


@dataclass(frozen=True)
class Filled:
    """What the build of a helper that fills several parameters, or fills some and returns
    values, returns instead of its result (ReturnArgument): the final contents of the
    parameters `params`, then, if `values`, the values it returned, as one tuple."""
    params: tuple
    values: bool

    def __contains__(self, name):
        return name in self.params


def _names(arg, name):
    """Whether the argument expression `arg` is `name` or a view of it (`b`, `b[1:]`,
    `b.T`): arithmetic (`b * 2.0`) makes a new array."""
    while isinstance(arg, (gast.Subscript, gast.Attribute)):
        arg = arg.value
    return isinstance(arg, gast.Name) and arg.id == name


def _source_of(fn):
    """The tree of `fn`, or None when its source cannot be read or it is a nested function
    that HoistLocalFunctions took out (a loop that CheckpointLoops or LowerPrange took out
    returns what it updates itself)."""
    if hasattr(fn, "__srcad_local__"):
        return None
    try:
        return FunctionSource(fn).node
    except SrcadError:
        return None


def _filled_parameters(node, in_place=()):
    """(positions, arity): the positions of the parameters the function `node` writes
    elements of, or that a call found it updates in place (`in_place`: `x += e` on an
    array), and binds again only by augmented assignments (`u *= k`, in place on an
    array); and how many values each of its `return`s gives (0: none; a tuple literal of
    n: n). ([], 0) where its returns differ or it may also end without one."""
    params = [a.id for a in node.args.args]
    arities = {_arity(n.value) for n in ir.walk(node) if isinstance(n, gast.Return)}
    if not node.body or not isinstance(node.body[-1], gast.Return):
        arities.add(0)
    if len(arities) != 1:
        return [], 0
    augmented = {id(n.target) for n in ir.walk(node) if isinstance(n, gast.AugAssign)}
    bound = {n.id for n in ir.walk(node) if isinstance(n, gast.Name) and
             isinstance(n.ctx, gast.Store) and id(n) not in augmented}
    written = set(in_place)
    for n in ir.walk(node):
        target = n.target if isinstance(n, gast.AugAssign) else \
            n.targets[0] if isinstance(n, gast.Assign) else None
        if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
            written.add(target.value.id)
    return [k for k, p in enumerate(params) if p in written and p not in bound], arities.pop()


def _arity(value):
    if value is None or isinstance(value, gast.Constant) and value.value is None:
        return 0
    return len(value.elts) if isinstance(value, gast.Tuple) else 1

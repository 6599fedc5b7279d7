"""FillingHelpers: a call of a helper that fills one of its array arguments is an update of
that array."""
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
    unpacks into each, each assignment an update in place. A parameter updated whole
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
        if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and
                s.targets[0].id not in read and isinstance(s.value, gast.Call)):
            return [s]
        site = self.ctx.calls.get(s.value)
        if site is None or site.kind != "user":
            return [s]
        fn = self.ctx.user_functions[site.name]
        node = self.source_of(fn)
        in_place = getattr(self.ctx.program, "in_place", {}).get(fn, ())
        ks = [] if node is None else _filled_parameters(node, in_place)
        if not ks or ks[-1] >= len(s.value.args) or \
                not all(isinstance(s.value.args[k], gast.Name) for k in ks):
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
        params = [node.args.args[k].id for k in ks]
        outs = params[0] if len(params) == 1 else tuple(params)
        if self.outputs.setdefault(fn, outs) != outs:
            return [s]
        target = ir.name(filled[0], store=True) if len(filled) == 1 else gast.Tuple(
            elts=[ir.name(name, store=True) for name in filled], ctx=gast.Store())
        s.targets = [target]  # several: the helper returns their contents as a tuple
        self.ctx.augmented.add(s)
        return [s]


def _names(arg, name):
    """Whether the argument expression `arg` is `name` or a view of it (`b`, `b[1:]`,
    `b.T`): arithmetic (`b * 2.0`) makes a new array."""
    while isinstance(arg, (gast.Subscript, gast.Attribute)):
        arg = arg.value
    return isinstance(arg, gast.Name) and arg.id == name


def _source_of(fn):
    """The tree of `fn`, or None when its source cannot be read."""
    try:
        return FunctionSource(fn).node
    except SrcadError:
        return None


def _filled_parameters(node, in_place=()):
    """The positions of the parameters the function `node` writes elements of, or that a
    call found it updates in place (`in_place`: `x += e` on an array), and binds again
    only by augmented assignments (`u *= k`, in place on an array), when it returns
    nothing; else []."""
    params = [a.id for a in node.args.args]
    if any(isinstance(n, gast.Return) and n.value is not None and
           not (isinstance(n.value, gast.Constant) and n.value.value is None)
           for n in ir.walk(node)):
        return []
    augmented = {id(n.target) for n in ir.walk(node) if isinstance(n, gast.AugAssign)}
    bound = {n.id for n in ir.walk(node) if isinstance(n, gast.Name) and
             isinstance(n.ctx, gast.Store) and id(n) not in augmented}
    written = set()
    for n in ir.walk(node):
        target = n.target if isinstance(n, gast.AugAssign) else \
            n.targets[0] if isinstance(n, gast.Assign) else None
        if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
            written.add(target.value.id)
    written |= set(in_place)
    return [k for k, p in enumerate(params) if p in written and p not in bound]

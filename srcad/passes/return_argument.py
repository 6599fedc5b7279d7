"""ReturnArgument: a function that writes its result into an argument (`out=` of
`srcad.vjp`, `jvp` and `jacobian`) returns that argument's final contents instead."""
import gast

from srcad.errors import UnsupportedError
from srcad.passes import ir

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


class ReturnArgument:
    """Transformation, when `ctx.out_argument` names a parameter `u`: every `return`
    becomes `return u`, and a body that can end without a return ends with one (a value
    it returned, such as a step count, is not what `out=` asks for, and is dropped). The
    caller's array is then what the function returns, and its gradient flows to every
    argument's initial contents, `u`'s own included.

    Buffers may swap names (`u, w = w, u`, and any permutation of names): an int
    `holder` then follows which of them holds the caller's array, and the return takes
    that one. A name that swaps may be bound to a new buffer (`w = np.zeros_like(u)`)
    where it does not hold the caller's array: `holder` checks that when it runs. `out`
    bound before any swap, or any name bound otherwise (`for u in ...`), is refused.
    `u += e` on an array updates it in place, as in NumPy.

    >>> from srcad.passes.testing import show_names
    >>> _ = show_names(lambda ctx: ReturnArgument(ctx, "u"), '''
    ... def diffuse(u, tmp, k, n):
    ...     for t in range(n):
    ...         if k < 0.0:
    ...             return
    ...         tmp[1:-1] = u[1:-1] + k * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    ...         u[:] = tmp''')
    def diffuse(u, tmp, k, n):
        for t in range(n):
            if k < 0.0:
                return u
            tmp[1:-1] = u[1:-1] + k * (u[2:] - 2.0 * u[1:-1] + u[:-2])
            u[:] = tmp
        return u
    >>> _ = show_names(lambda ctx: ReturnArgument(ctx, "u"), '''
    ... def pingpong(u, w, k, n):
    ...     for t in range(n):
    ...         w[1:-1] = u[1:-1] + k * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    ...         u, w = w, u''')
    def pingpong(u, w, k, n):
        holder = 0
        for t in range(n):
            w[1:-1] = u[1:-1] + k * (u[2:] - 2.0 * u[1:-1] + u[:-2])
            u, w = w, u
            holder = 1 - holder
        return u if holder == 0 else w
    """

    needs = ()
    provides = ()

    def __init__(self, ctx, out=None):
        self.ctx = ctx
        self.out = out or ctx.out_argument

    def run(self, fnode):
        if self.out is None:
            return fnode
        if not isinstance(self.out, str):  # FillingHelpers' `Filled`
            return self.several(fnode)
        self.group = _swap_group(fnode.body, self.out)
        self.holder = None if len(self.group) == 1 else \
            self.ctx.namer.fresh("holder", numbered=False)
        params = {a.id for a in fnode.args.args}
        for node in _own_nodes(_before_swaps(fnode.body, self.group)):
            if isinstance(node, gast.Name) and node.id not in params:
                node._in_place = True  # a local buffer made before it takes part in swaps
        self.guarded = {}  # {`w = ...` of a swapped name: that name}
        early = {id(n) for n in _own_nodes(_before_swaps(fnode.body, self.group))}
        for node in _own_nodes(fnode.body):
            if isinstance(node, gast.Assign) and self.holder is not None and \
                    isinstance(node.targets[0], gast.Name) and node.targets[0].id in \
                    self.group and not getattr(node.targets[0], "_in_place", False) and \
                    not (node.targets[0].id == self.out and id(node) in early):
                node.targets[0]._in_place = True  # checked by `holder` when it runs
                self.guarded[node] = node.targets[0].id
            if isinstance(node, gast.Name) and node.id in self.group and \
                    isinstance(node.ctx, gast.Store) and not getattr(node, "_in_place", False):
                raise self.rebound(node)
            if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
                node.target._in_place = True  # `u += e`: NumPy updates the array itself
            if isinstance(node, gast.Assign) and _permutation(node) and \
                    set(_permutation(node)) & set(self.group):
                for target in node.targets[0].elts:
                    target._in_place = True  # a swap: followed by `holder`
            if isinstance(node, gast.Return):  # what it returned besides is not asked for
                node.value = self.holding()
        if not isinstance(fnode.body[-1], gast.Return):
            fnode.body.append(gast.copy_location(gast.Return(value=self.holding()),
                                                 fnode.body[-1]))
        if self.holder is not None:
            fnode.body = [ir.assign(self.holder, ir.const(0), like=fnode.body[0])] + \
                self.follow(fnode.body)
        return fnode

    def several(self, fnode):
        """A helper that fills several parameters, or fills some and returns values
        (FillingHelpers, which picks parameters bound again only by augmented assignments),
        returns the tuple of their final contents, then of the values it returned."""
        outs = [ir.name(u) for u in self.out.params]
        for node in _own_nodes(fnode.body):
            if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
                node.target._in_place = True  # `u += e`: NumPy updates the array itself
            if isinstance(node, gast.Return):
                values = [] if not self.out.values else node.value.elts if isinstance(
                    node.value, gast.Tuple) else [node.value]
                node.value = gast.Tuple(elts=outs + values, ctx=gast.Load())
        if not isinstance(fnode.body[-1], gast.Return):
            fnode.body.append(gast.copy_location(gast.Return(value=gast.Tuple(
                elts=outs, ctx=gast.Load())), fnode.body[-1]))
        return fnode

    def follow(self, stmts):
        """`stmts`, each swap of the group's names followed by the update of `holder`."""
        return ir.rewrite_blocks(stmts, self.followed)

    def followed(self, s):
        out = [self.guard(s, self.guarded[s])] if s in self.guarded else []
        out.append(s)
        moves = _permutation(s) if isinstance(s, gast.Assign) else None
        if moves and set(moves) & set(self.group):
            out.append(ir.assign(self.holder, self.moved(moves), like=s))
        return out

    def guard(self, s, name):
        """`if holder == k: raise ValueError(...)` before `name = ...`: binding the name
        that holds the caller's array to another value would lose where it is."""
        message = (f"srcad: `{name}` is bound to a new value here while it holds "
                   f"the caller's array that `out={self.out!r}` names, so srcad cannot follow "
                   f"that array any more; bind `{name}` only while it holds a buffer of the "
                   f"function's own, or copy into it (`{name}[:] = ...`)")
        fail = gast.copy_location(
            gast.Raise(exc=ir.call("ValueError", ir.const(message)), cause=None), s)
        return ir.if_(_equals(self.holder, self.group.index(name)), [fail], [], like=s)

    def moved(self, moves):
        """Where the caller's array is after the names move as `moves` says."""
        value = ir.name(self.holder)
        if len(self.group) == 2:  # two buffers swap
            return gast.BinOp(left=ir.const(1), op=gast.Sub(), right=value)
        for target, source in reversed(list(moves.items())):
            value = gast.IfExp(test=_equals(self.holder, self.group.index(source)),
                               body=ir.const(self.group.index(target)), orelse=value)
        return value

    def holding(self):
        """The name that holds the caller's array: `out`, or, when it swaps with others,
        the one `holder` says."""
        value = ir.name(self.group[-1])
        for k in range(len(self.group) - 2, -1, -1):
            value = gast.IfExp(test=_equals(self.holder, k), body=ir.name(self.group[k]),
                               orelse=value)
        return value

    def rebound(self, node):
        return self.refused(
            node, f"`{node.id}` is bound to another value here, so srcad cannot follow where "
            f"the caller's array that `out={self.out!r}` names is",
            f"write into it instead (`{self.out}[:] = tmp` copies a whole buffer back), swap "
            f"buffers only as `{self.out}, tmp = tmp, {self.out}`, or return the array that "
            "holds the result and leave out `out=`")

    def refused(self, node, message, hint):
        return self.ctx.fsrc.error(message, node, hint, UnsupportedError)


def _permutation(assign):
    """{target: source} when `assign` only permutes names (`u, w = w, u`), else None."""
    t, v = assign.targets[0], assign.value
    if not (isinstance(t, gast.Tuple) and isinstance(v, gast.Tuple) and
            len(t.elts) == len(v.elts) and
            all(isinstance(e, gast.Name) for e in t.elts + v.elts)):
        return None
    targets, sources = [e.id for e in t.elts], [e.id for e in v.elts]
    if sorted(targets) != sorted(sources) or len(set(targets)) != len(targets):
        return None
    return {a: b for a, b in zip(targets, sources) if a != b}


def _swap_group(stmts, out):
    """`out` and the names it swaps with, directly or through others, `out` first."""
    group = [out]
    swaps = [m for n in _own_nodes(stmts) if isinstance(n, gast.Assign)
             for m in [_permutation(n)] if m]
    grown = True
    while grown:
        grown = False
        for moves in swaps:
            names = set(moves) | set(moves.values())
            if names & set(group) and not names <= set(group):
                group += sorted(names - set(group))
                grown = True
    return group


def _before_swaps(stmts, group):
    """The statements of the body before the first that holds a swap of `group`'s names."""
    for k, s in enumerate(stmts):
        if any(isinstance(n, gast.Assign) and set(_permutation(n) or ()) & set(group)
               for n in _own_nodes([s])):
            return stmts[:k]
    return stmts


def _equals(name, k):
    return gast.Compare(left=ir.name(name), ops=[gast.Eq()], comparators=[ir.const(k)])


def _own_nodes(stmts):
    """The nodes of `stmts`, not descending into nested functions, lambdas or classes,
    AugAssign nodes before their targets."""
    todo = list(reversed(stmts))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, _SCOPES):
            todo.extend(reversed(list(gast.iter_child_nodes(node))))

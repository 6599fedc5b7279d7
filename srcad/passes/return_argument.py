"""ReturnArgument: a function that writes its result into an argument (`out=` of
`srcad.vjp`, `jvp` and `jacobian`) returns that argument's final contents instead."""
import gast

from srcad.errors import UnsupportedError
from srcad.passes import ir

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


class ReturnArgument:
    """Transformation, when `ctx.out_argument` names a parameter `u`: every `return`,
    `return None` and `return u` becomes `return u`, and a body that can end without a
    return ends with one. The caller's array is then what the function returns, and its
    gradient flows to every argument's initial contents, `u`'s own included.

    `u` must hold the caller's array to the end: a statement that binds the name `u` to
    another value (`u = ...`, `for u in ...`, `u, v = v, u`) is refused, as is a return
    of anything else. `u += e` on an array updates it in place, as in NumPy.

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
    """

    needs = ()
    provides = ()

    def __init__(self, ctx, out=None):
        self.ctx = ctx
        self.out = out or ctx.out_argument

    def run(self, fnode):
        if self.out is None:
            return fnode
        for node in _own_nodes(fnode.body):
            if isinstance(node, gast.Name) and node.id == self.out and \
                    isinstance(node.ctx, gast.Store) and not getattr(node, "_in_place", False):
                raise self.refused(node, f"`{self.out}` is bound to another value here, so "
                                   "it no longer holds the caller's array that `out=` names",
                                   f"write into it instead (`{self.out}[:] = tmp` copies "
                                   "a whole buffer back), or return the array that holds "
                                   "the result and leave out `out=`")
            if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
                node.target._in_place = True  # `u += e`: NumPy updates the array itself
            if isinstance(node, gast.Return):
                self.check_return(node)
                node.value = ir.name(self.out)
        if not isinstance(fnode.body[-1], gast.Return):
            fnode.body.append(gast.copy_location(gast.Return(value=ir.name(self.out)),
                                                 fnode.body[-1]))
        return fnode

    def check_return(self, node):
        v = node.value
        if v is None or isinstance(v, gast.Constant) and v.value is None or \
                isinstance(v, gast.Name) and v.id == self.out:
            return
        raise self.refused(node, f"with `out={self.out!r}`, `{self.ctx.fsrc.name}` returns a "
                           f"value other than `{self.out}`",
                           f"return nothing (or `{self.out}`): the result is what "
                           f"`{self.out}` holds when the function ends")

    def refused(self, node, message, hint):
        return self.ctx.fsrc.error(message, node, hint, UnsupportedError)


def _own_nodes(stmts):
    """The nodes of `stmts`, not descending into nested functions, lambdas or classes,
    AugAssign nodes before their targets."""
    todo = list(reversed(stmts))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, _SCOPES):
            todo.extend(reversed(list(gast.iter_child_nodes(node))))

"""RenameReserved: the user's own names never collide with the generated module's."""
import gast

from srcad.passes import ir

RESERVED = {"np", "math", "rt", "List", "numba"}


class RenameReserved:
    """Transformation: a local variable or parameter named like something the generated
    module defines at top level (`np`, `math`, `rt`, `List`, `<name>_fwd`, `<name>_rev`)
    gets a trailing underscore (a fresh name).

    >>> from srcad.passes.testing import show
    >>> show(RenameReserved, '''
    ... def f(x):
    ...     rt = x * 2.0
    ...     return rt''')
    def f(x):
        rt_ = x * 2.0
        return rt_
    """

    needs = ("resolve",)
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        resolve = self.ctx.resolve
        locals_ = resolve.locals if resolve is not None else None
        if locals_ is None:
            locals_ = {n.id for n in ir.walk(fnode)
                       if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param))}
        clashes = {n for n in locals_ if n in RESERVED or n.endswith(("_fwd", "_rev"))}
        renames = {n: self.ctx.namer.fresh(n + "_", numbered=False) for n in sorted(clashes)}
        for node in ir.walk(fnode):
            if isinstance(node, gast.Name) and node.id in renames:
                node.id = renames[node.id]
        if resolve is not None:
            resolve.locals = (self.ctx.resolve.locals - clashes) | set(renames.values())
        return fnode

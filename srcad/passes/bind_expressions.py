"""BindExpressions: an expression statement's value is bound to a name nobody reads."""
import gast

from srcad.passes import ir


class BindExpressions:
    """Transformation: an expression statement other than a string (a docstring, or text
    used as a comment) becomes an assignment to a fresh name. A call whose result is
    unused (`np.sum(y)`) still runs, so it raises where Python would; its value is read
    by nothing, so it gets no adjoint. What the call is, and whether srcad takes it, is
    decided later, as for any call (`print(...)` is refused by ResolveCalls).

    >>> from srcad.passes.testing import show
    >>> show(BindExpressions, '''
    ... def f(x):
    ...     "The sum of x's squares."
    ...     np.sum(x)
    ...     for v in x:
    ...         check(v)
    ...     return np.sum(x * x)''')
    def f(x):
        \"\"\"The sum of x's squares.\"\"\"
        unused = np.sum(x)
        for v in x:
            unused1 = check(v)
        return np.sum(x * x)
    """

    needs = ("namer",)
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        for node in ir.walk(fnode):
            for field in ("body", "orelse", "finalbody"):
                stmts = getattr(node, field, None)
                if isinstance(stmts, list):
                    setattr(node, field, [self.bind(s) for s in stmts])
        return fnode

    def bind(self, stmt):
        if not isinstance(stmt, gast.Expr) or _is_text(stmt):
            return stmt
        name = gast.Name(id=self.ctx.namer.fresh("unused", numbered=False), ctx=gast.Store(),
                         annotation=None, type_comment=None)
        return gast.copy_location(gast.Assign(targets=[name], value=stmt.value,
                                              type_comment=None), stmt)


def _is_text(stmt):
    return isinstance(stmt.value, gast.Constant) and isinstance(stmt.value.value, str)

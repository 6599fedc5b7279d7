"""SplitReturns: every early `return` becomes a flag, a saved value and a `break`."""
import gast

from srcad.passes import ir


def _has_return(stmts):
    return any(isinstance(n, gast.Return) for s in stmts for n in ir.walk(s))


class SplitReturns:
    """Transformation: the body ends with the function's only `return`.

    An early `return e` sets `retval = e` and `returned = True` and leaves enclosing loops
    with `break`; statements after a place that may have returned run under
    `if not returned:`. A differentiated function that may reach the end of its body
    without a `return` (and so return None) is refused here, where its line can be named
    (a helper's call is refused where it is called).

    >>> from srcad.passes.testing import show
    >>> show(SplitReturns, '''
    ... def f(x):
    ...     if x > 0:
    ...         return x
    ...     y = 2.0 * x
    ...     return y''')
    def f(x):
        returned = False
        if x > 0:
            retval = x
            returned = True
        if not returned:
            y = 2.0 * x
            retval = y
            returned = True
        return retval
    """

    needs = ()
    provides = ("return_values",)

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        body = fnode.body
        helper = len(getattr(self.ctx.program, "building", ())) > 1  # refused at its call
        if not helper and not _always_returns(body):
            raise self.ctx.fsrc.error(
                f"`{fnode.name}` can end without returning a value (Python then returns "
                "None)", body[-1] if body else fnode,
                "end it with a `return`; for a function that writes its result into an "
                "argument, name that argument: `srcad.vjp(f, *args, out=...)` (also jvp and "
                "jacobian)")
        if helper and len(body) > 1 and isinstance(body[-1], gast.Return) and (
                body[-1].value is None or isinstance(body[-1].value, gast.Constant)
                and body[-1].value.value is None):
            fnode.body = body = body[:-1]  # as ending without one (see `helper`)
        only_final = (body and isinstance(body[-1], gast.Return)
                      and not _has_return(body[:-1]))
        if only_final or not _has_return(body):
            return fnode
        self.flag = self.ctx.namer.fresh("returned", numbered=False)
        self.width = self.tuple_width(fnode)
        if self.width:
            self.values = [self.ctx.namer.fresh(f"retval{k + 1}_", numbered=False)
                           for k in range(self.width)]
            result = gast.Tuple(elts=[ir.name(v) for v in self.values], ctx=gast.Load())
        else:
            self.values = [self.ctx.namer.fresh("retval", numbered=False)]
            result = ir.name(self.values[0])
        self.ctx.return_values = list(self.values)
        new_body = self.block(body, in_loop=False)
        first = body[0]
        fnode.body = ([ir.assign(self.flag, ir.const(False), like=first)] + new_body
                      + [gast.copy_location(gast.Return(value=result), body[-1])])
        return fnode

    def tuple_width(self, fnode):
        """n if the function returns n-tuples (`return a, b`), else 0."""
        returns = [n for n in ir.walk(fnode) if isinstance(n, gast.Return)]
        widths = {len(r.value.elts) if isinstance(r.value, gast.Tuple) else 0 for r in returns}
        if len(widths) > 1:
            raise self.ctx.fsrc.error(
                "the function returns tuples of different lengths, or a tuple and a "
                "non-tuple", next(r for r in returns if isinstance(r.value, gast.Tuple)),
                "return the same number of values everywhere")
        return widths.pop()

    def block(self, stmts, in_loop):
        out = []
        for idx, stmt in enumerate(stmts):
            if isinstance(stmt, gast.Return):
                value = stmt.value if stmt.value is not None else ir.const(None)
                parts = value.elts if self.width else [value]
                out += [ir.assign(v, p, like=stmt) for v, p in zip(self.values, parts)]
                out.append(ir.assign(self.flag, ir.const(True), like=stmt))
                if in_loop:
                    out.append(gast.copy_location(gast.Break(), stmt))
                return out
            if not _has_return([stmt]):
                out.append(stmt)
                continue
            if isinstance(stmt, gast.If):
                stmt.body = self.block(stmt.body, in_loop)
                stmt.orelse = self.block(stmt.orelse, in_loop)
            else:  # a loop
                stmt.body = self.block(stmt.body, in_loop=True)
            out.append(stmt)
            rest = stmts[idx + 1:]
            if in_loop and not isinstance(stmt, gast.If):
                out.append(ir.if_(ir.name(self.flag), [gast.Break()], like=stmt))
            if rest and in_loop:  # LowerLoopExits guards what follows a `break`
                out += self.block(rest, in_loop)
            elif rest:
                guarded = self.block(rest, in_loop)
                out.append(ir.if_(ir.not_(ir.name(self.flag)), guarded, like=rest[0]))
            return out
        return out


def _always_returns(stmts):
    """Whether running `stmts` always ends in a `return` (or a `raise`, lowered to
    `rt.fail`), never by reaching their end."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, gast.Return):
        return True
    if isinstance(last, gast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    return isinstance(last, gast.Assign) and isinstance(last.value, gast.Call) and \
        ir.dotted_text(last.value.func) == "rt.fail"

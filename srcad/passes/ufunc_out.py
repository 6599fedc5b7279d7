"""UfuncOut: a ufunc that writes into `out` is an assignment into that array."""
import copy

import gast
import numpy as np

from srcad.errors import UnsupportedError
from srcad.passes import ir

_LAZY = (gast.IfExp, gast.BoolOp, gast.ListComp, gast.GeneratorExp, gast.SetComp,
         gast.DictComp)


class UfuncOut:
    """Transformation: a call of a NumPy ufunc with an output argument, `out=c` or
    positional after its inputs (`np.multiply(z, z, z)`), becomes the assignment
    `c[:] = ufunc(inputs)` before the statement, and the call's value is `c`, as NumPy
    returns it. The array written is then differentiated as any element write is.

    `c` must be a name that the rest of the statement does not read (where Python reads
    it before or after the write would differ), and the call must run whenever its
    statement does (not under `if`-expressions, `and`/`or` or a `while` test).

    >>> from srcad.passes.testing import show_names
    >>> _ = show_names(UfuncOut, '''
    ... def f(x, z):
    ...     np.multiply(z, z, z)
    ...     y = np.add(x, 1.0, out=z) * 2.0
    ...     return np.sum(y)''')
    def f(x, z):
        z[:] = np.multiply(z, z)
        z
        z[:] = np.add(x, 1.0)
        y = z * 2.0
        return np.sum(y)
    """

    needs = ("resolve",)
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        fnode.body = ir.rewrite_blocks(fnode.body, self.written_first)
        return fnode

    def written_first(self, s):
        """`s` after the writes of the ufuncs it calls with `out=`."""
        self.stmt, self.writes = s, []
        self.visit(s, lazy=False)
        return self.writes + [s]

    def visit(self, node, lazy):
        """Replace the ufunc calls with `out` under `node` (not in nested statements)."""
        for field, value in gast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for k, child in enumerate(items):
                if not isinstance(child, gast.expr):
                    continue
                inner_lazy = lazy or isinstance(node, _LAZY) or \
                    isinstance(node, gast.While) and field == "test"
                self.visit(child, inner_lazy)
                new = self.written(child, inner_lazy) if isinstance(child, gast.Call) else None
                if new is None:
                    continue
                if isinstance(value, list):
                    value[k] = new
                else:
                    setattr(node, field, new)

    def written(self, call, lazy):
        """`out` for a ufunc call with an output argument (its write recorded), else None."""
        text = ir.dotted_text(call.func)
        ufunc = self.ctx.resolve.lookup(text) if text else None
        if not isinstance(ufunc, np.ufunc):
            return None
        given = [kw for kw in call.keywords if kw.arg == "out"]
        if len(call.args) <= ufunc.nin and not given:
            return None
        if ufunc.nout != 1 or len(call.args) > ufunc.nin + 1 or \
                given and len(call.args) > ufunc.nin:
            raise self.error(f"`{text}` with more than one output", call)
        target = given[0].value if given else call.args[ufunc.nin]
        if isinstance(target, (gast.Tuple, gast.List)) and len(target.elts) == 1:
            target = target.elts[0]
        if not isinstance(target, gast.Name):
            raise self.error(f"`{text}(..., out=...)` into anything but an array's name", call,
                             "write into a name (`out=c`), or assign the result: "
                             "`c[1:] = np.add(a, b)`")
        if lazy:
            raise self.error(f"`{text}(..., out={target.id})` under an `if`-expression, "
                             "`and`/`or` or a `while` test", call,
                             "call it in a statement of its own")
        if _count(self.stmt, target.id) > _count(call, target.id):
            raise self.error(f"`{text}(..., out={target.id})` in a statement that also "
                             f"reads `{target.id}`", call,
                             f"call it in a statement of its own, then use `{target.id}`")
        computed = gast.Call(func=call.func, args=call.args[:ufunc.nin],
                             keywords=[kw for kw in call.keywords if kw.arg != "out"])
        whole = gast.Subscript(value=ir.name(target.id), ctx=gast.Store(),
                               slice=gast.Slice(lower=None, upper=None, step=None))
        write = gast.copy_location(
            gast.Assign(targets=[whole], value=computed, type_comment=None), self.stmt)
        self.ctx.augmented.add(write)  # in place: NumPy casts only within a kind
        self.writes.append(write)
        return copy.deepcopy(target)

    def error(self, message, node, hint=None):
        return self.ctx.fsrc.error(message + " is not supported", self.stmt,
                                   hint, UnsupportedError)


def _count(node, name):
    """How many times `node` names `name`."""
    return sum(isinstance(n, gast.Name) and n.id == name for n in ir.walk(node))

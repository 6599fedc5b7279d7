"""LowerRaises, LowerPrints and RestoreRaises: `raise`, `assert` and `print` run in the
forward sweep, as in the function, and nowhere else.

Between the passes a raise is the statement `unused = rt.fail(k)`, an inactive call of
no derivative that every pass already knows how to carry; `ctx.failures[k]` keeps the
`raise` statement it stands for, which RestoreRaises puts back in the generated code. A
print is `unused = rt.show(k, values...)` the same way, its text kept in
`ctx.prints[k]`.
"""
import builtins

import gast

from codegen import to_source
from srcad.errors import UnsupportedError
from srcad.passes import ir
from srcad.passes.resolve_calls import CallSite
from srcad.rules import registry


class LowerRaises:
    """Transformation: `raise E(args)` (E a built-in exception, args numbers and strings)
    becomes `unused = rt.fail(k)`, and `assert c, msg` becomes `if not c:` around the
    same for `raise AssertionError(msg)`. An f-string message keeps its text, fields
    unformatted (`{n}`): compiled code raises with constant messages only.

    >>> from srcad.passes.testing import show_names
    >>> ctx = show_names(LowerRaises, '''
    ... def f(x, n):
    ...     assert n > 0, "n must be positive"
    ...     if x < 0.0:
    ...         raise ValueError(f"x is {x}, must be >= 0")
    ...     return math.sqrt(x) * n''')
    def f(x, n):
        if not n > 0:
            unused = rt.fail(0)
        if x < 0.0:
            unused1 = rt.fail(1)
        return math.sqrt(x) * n
    >>> for k, s in enumerate(ctx.failures): print(k, to_source(s).strip())
    0 raise AssertionError('n must be positive')
    1 raise ValueError('x is {x}, must be >= 0')
    """

    needs = ("resolve",)
    provides = ("failures",)

    def __init__(self, ctx):
        self.ctx = ctx
        self.rule = registry.by_name("rt.fail")
        self.asserts = set()  # the raises that asserts stand for

    def run(self, fnode):
        for node in ir.walk(fnode):
            for field in ("body", "orelse"):
                stmts = getattr(node, field, None)
                if isinstance(stmts, list):
                    setattr(node, field, [self.lowered(s) for s in stmts])
        return fnode

    def lowered(self, stmt):
        if isinstance(stmt, gast.Assert):
            message = [stmt.msg] if stmt.msg is not None else []
            failure = gast.Raise(exc=ir.call("AssertionError", *message), cause=None)
            failure = gast.copy_location(failure, stmt)
            self.asserts.add(failure)
            return ir.if_(ir.not_(stmt.test), [self.failing(failure)], like=stmt)
        if isinstance(stmt, gast.Raise):
            return self.failing(stmt)
        return stmt

    def failing(self, stmt):
        """`unused = rt.fail(k)` for the `raise` statement `stmt`, kept as failure k."""
        exc = stmt.exc
        if exc is None:
            raise self.error("a bare `raise` is not supported", stmt)
        call = exc if isinstance(exc, gast.Call) else gast.Call(func=exc, args=[], keywords=[])
        name = ir.dotted_text(call.func)
        cls = getattr(builtins, name, None) if stmt in self.asserts else \
            self.ctx.resolve.lookup(name) if name else None
        if not (isinstance(cls, type) and issubclass(cls, Exception)
                and getattr(builtins, name, None) is cls):
            raise self.error(f"`raise {to_source(exc).strip()}` is not supported", stmt,
                             "raise a built-in exception such as `ValueError(\"...\")`")
        if call.keywords:
            raise self.error("keyword arguments of an exception are not supported", stmt)
        args = [self.constant(a, stmt) for a in call.args]
        failure = gast.Raise(exc=ir.call(name, *args), cause=None)
        self.ctx.failures.append(gast.copy_location(failure, stmt))
        fail = ir.call("rt.fail", ir.const(len(self.ctx.failures) - 1))
        self.ctx.calls[fail] = CallSite("rule", "rt.fail", self.rule)
        target = self.ctx.namer.fresh("unused", numbered=False)
        return ir.assign(target, fail, like=stmt)

    def constant(self, arg, stmt):
        if isinstance(arg, gast.Constant) and isinstance(arg.value, (str, int, float, bool)):
            return arg
        if isinstance(arg, gast.JoinedStr):
            return ir.const("".join(v.value if isinstance(v, gast.Constant) else
                                    "{" + to_source(v.value).strip() + "}" for v in arg.values))
        raise self.error("an exception's arguments must be numbers or strings", stmt,
                         "compiled code raises with constant messages: write the message "
                         "as a string or an f-string (its fields are shown unformatted)")

    def error(self, message, node, hint=None):
        return self.ctx.fsrc.error(message, node, hint, UnsupportedError)


_SHOWN = 8  # values one print may show (the parameters of rt.show)


class LowerPrints:
    """Transformation: a statement `print(a, "text", b)` becomes `unused = rt.show(k, a,
    b)`, the values it prints as arguments that later passes flatten like any other, and
    `ctx.prints[k]` the order of texts and values. The call has no derivative and is not
    pure, so no sweep runs it again (a replayed loop, a recomputed value).

    >>> from srcad.passes.testing import show_names
    >>> ctx = show_names(LowerPrints, '''
    ... def f(x, n):
    ...     unused = print("x is", x * 2.0, "after", n)
    ...     return x''')
    def f(x, n):
        unused = rt.show(0, x * 2.0, n)
        return x
    >>> ctx.prints
    [['x is', 0, 'after', 1]]
    """

    needs = ("resolve",)
    provides = ("prints",)

    def __init__(self, ctx):
        self.ctx = ctx
        self.rule = registry.by_name("rt.show")

    def run(self, fnode):
        for node in ir.walk(fnode):
            if isinstance(node, gast.Assign) and isinstance(node.value, gast.Call) and \
                    self.ctx.resolve.lookup(ir.dotted_text(node.value.func) or "") is print:
                node.value = self.lowered(node.value, node)
        return fnode

    def lowered(self, call, stmt):
        if call.keywords:
            raise self.ctx.fsrc.error("`print` with keywords is not supported", stmt,
                                      "print the values alone: compiled code prints them "
                                      "separated by spaces", UnsupportedError)
        texts, values = [], []
        for a in call.args:
            if isinstance(a, gast.Constant) and isinstance(a.value, str):
                texts.append(a.value)
            elif isinstance(a, (gast.JoinedStr, gast.Starred)):
                raise self.ctx.fsrc.error("`print` of an f-string or `*args` is not supported",
                                          stmt, "print the text and the values as separate "
                                          "arguments: `print(\"loss\", x)`", UnsupportedError)
            else:
                texts.append(len(values))
                values.append(a)
        if len(values) > _SHOWN:
            raise self.ctx.fsrc.error(f"`print` of more than {_SHOWN} values is not "
                                      "supported", stmt, "print them in several calls",
                                      UnsupportedError)
        self.ctx.prints.append(texts)
        show = ir.call("rt.show", ir.const(len(self.ctx.prints) - 1), *values)
        self.ctx.calls[show] = CallSite("rule", "rt.show", self.rule)
        return show


class RestoreRaises:
    """Transformation of generated code: each `unused = rt.fail(k)` becomes the `raise`
    statement it stands for (`ctx.failures[k]`), each `unused = rt.show(k, ...)` the
    `print` (`ctx.prints[k]`)."""

    needs = ("failures",)
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        if not (self.ctx.failures or self.ctx.prints):
            return fnode  # nothing was lowered
        for node in ir.walk(fnode):
            for field in ("body", "orelse"):
                stmts = getattr(node, field, None)
                if isinstance(stmts, list):
                    setattr(node, field, [self.restored(s) for s in stmts])
        return fnode

    def restored(self, stmt):
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call)):
            return stmt
        func, args = ir.dotted_text(stmt.value.func), stmt.value.args
        if func == "rt.fail":
            failure = self.ctx.failures[args[0].value]
            return gast.copy_location(gast.Raise(exc=failure.exc, cause=None), stmt)
        if func == "rt.show":
            shown = [ir.const(p) if isinstance(p, str) else args[1 + p]
                     for p in self.ctx.prints[args[0].value]]
            return gast.copy_location(gast.Expr(value=ir.call("print", *shown)), stmt)
        return stmt

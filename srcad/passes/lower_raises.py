"""LowerRaises and RestoreRaises: `raise` and `assert` run in the forward sweep, as in the
function, and nowhere else.

Between the two passes a raise is the statement `unused = rt.fail(k)`, an inactive call
of no derivative that every pass already knows how to carry; `ctx.failures[k]` keeps the
`raise` statement it stands for, which RestoreRaises puts back in the generated code.
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
        for node in gast.walk(fnode):
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


class RestoreRaises:
    """Transformation of generated code: each `unused = rt.fail(k)` becomes the `raise`
    statement it stands for (`ctx.failures[k]`)."""

    needs = ("failures",)
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        for node in gast.walk(fnode):
            for field in ("body", "orelse"):
                stmts = getattr(node, field, None)
                if isinstance(stmts, list):
                    setattr(node, field, [self.restored(s) for s in stmts])
        return fnode

    def restored(self, stmt):
        if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call) \
                and ir.dotted_text(stmt.value.func) == "rt.fail":
            failure = self.ctx.failures[stmt.value.args[0].value]
            return gast.copy_location(gast.Raise(exc=failure.exc, cause=None), stmt)
        return stmt

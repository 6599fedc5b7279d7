"""BindArguments: a call of a user's helper passes every parameter by position."""
import inspect

import gast

from srcad.errors import UnsupportedError
from srcad.passes import ir


class BindArguments:
    """Transformation: in each call of a user's helper (a `CallSite` of kind "user"),
    keyword arguments move to their parameters' positions and omitted parameters get
    their default values (numbers, bools or None), so later passes match arguments to
    parameters by position. A missing argument, an unknown keyword or a default that
    is not a number is refused. The arguments are atoms already (after ToANF), so the
    order in which Python evaluates them is kept.

    >>> from srcad.passes.testing import show_anf
    >>> show_anf('''
    ... def step(x, h=0.5, scale=2):
    ...     return scale * x * h
    ... def f(x):
    ...     return step(x, scale=3)''')
    def f(x):
        tmp1 = step(x, 0.5, 3)
        return tmp1
    """

    needs = ("calls", "user_functions")
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        for stmt in ir.walk(fnode):
            if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call):
                site = self.ctx.calls.get(stmt.value)
                if site is not None and site.kind == "user":
                    self.bind(site.name, stmt.value, stmt)
        return fnode

    def bind(self, name, call, stmt):
        """Fill `call.args` with one atom per parameter of `name`; no keywords left."""
        params = list(inspect.signature(self.ctx.user_functions[name]).parameters.values())
        names = [p.name for p in params]
        if len(call.args) > len(params):
            raise self.error(f"`{name}` takes {len(params)} arguments, {len(call.args)} given",
                             stmt)
        slots = list(call.args) + [None] * (len(params) - len(call.args))
        for kw in call.keywords:
            if kw.arg not in names or slots[names.index(kw.arg)] is not None:
                raise self.error(f"`{name}` got an unexpected keyword `{kw.arg}`", stmt)
            slots[names.index(kw.arg)] = kw.value
        for k, p in enumerate(params):
            if slots[k] is None:
                slots[k] = self.default(name, p, stmt)
        call.args, call.keywords = slots, []

    def default(self, name, param, stmt):
        if param.default is inspect.Parameter.empty:
            raise self.error(f"`{name}` is missing its argument `{param.name}`", stmt)
        if not isinstance(param.default, (bool, int, float, type(None))):
            raise self.error(f"the default value of `{param.name}` in `{name}` is not a number",
                             stmt, "pass it explicitly")
        return ir.const(float(param.default) if isinstance(param.default, float)
                        else param.default)

    def error(self, message, node, hint=None):
        return self.ctx.fsrc.error(message, node, hint, UnsupportedError)

"""ResolveNames: which names are the function's own, and what the others refer to."""
import builtins
import copy
import inspect
import types

import beniget
import gast

from srcad.passes import ir


class _Chains(beniget.DefUseChains):
    def warn(self, msg, node):  # unbound names are globals; resolved below
        pass


def _without_branches(stmts):
    """`stmts` with each `if` (at any depth) as its test and then both its branches: the
    names a function binds do not depend on which branch runs, and beniget copies every
    definition seen so far at each branch, which makes a long function with many `if`s
    quadratic."""
    out = []
    for s in stmts:
        if isinstance(s, gast.If):
            out.append(gast.Expr(value=s.test))
            out += _without_branches(s.body) + _without_branches(s.orelse)
            continue
        fields = [f for f in ("body", "orelse", "finalbody")
                  if isinstance(getattr(s, f, None), list)]
        if fields and not isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef,
                                         gast.ClassDef)):
            s = copy.copy(s)
            for f in fields:
                setattr(s, f, _without_branches(getattr(s, f)))
        out.append(s)
    return out


class ResolveNames:
    """Analysis: the local names of the function and the objects its free names refer to.

    Locals come from beniget's def-use chains; a free name is looked up in the function's
    closure, then its module globals, then builtins; `scope` (the helpers that
    HoistLocalFunctions lifted out of it or its parents) comes first.

    >>> import math
    >>> def f(x):
    ...     y = math.sin(x)
    ...     return y
    >>> from srcad.source import FunctionSource
    >>> r = ResolveNames(FunctionSource(f))
    >>> sorted(r.locals), r.free["math"] is math
    (['x', 'y'], True)
    """

    needs = ("local_functions",)
    provides = ("resolve",)

    MISSING = object()

    def __init__(self, fsrc, scope=None):
        flat = copy.copy(fsrc.node)
        flat.body = _without_branches(flat.body)
        chains = _Chains()
        chains.visit(gast.Module(body=[flat], type_ignores=[]))
        self.locals = {d.name() for d in chains.locals[flat]}
        vars(chains).clear()  # its tables refer to each other: freed now, not by a collection
        loads = {n.id for n in ir.names(fsrc.node) if isinstance(n.ctx, gast.Load)}
        env = dict(vars(builtins))
        env.update(fsrc.fn.__globals__)
        try:
            env.update(inspect.getclosurevars(fsrc.fn).nonlocals)
        except (TypeError, ValueError):
            pass
        env.update(scope or {})
        self.free = {name: env.get(name, self.MISSING) for name in loads - self.locals}

    def lookup(self, dotted):
        """The object that a dotted name such as `np.linalg.solve` refers to, or MISSING."""
        head, *rest = dotted.split(".")
        obj = self.free.get(head, self.MISSING)
        for attr in rest:
            if not isinstance(obj, types.ModuleType) and not hasattr(obj, attr):
                return self.MISSING
            obj = getattr(obj, attr, self.MISSING)
        return obj

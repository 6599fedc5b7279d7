"""ResolveNames: which names are the function's own, and what the others refer to."""
import builtins
import inspect
import types

import beniget
import gast


class _Chains(beniget.DefUseChains):
    def warn(self, msg, node):  # unbound names are globals; resolved below
        pass


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
        module = gast.Module(body=[fsrc.node], type_ignores=[])
        chains = _Chains()
        chains.visit(module)
        self.locals = {d.name() for d in chains.locals[fsrc.node]}
        loads = {n.id for n in gast.walk(fsrc.node)
                 if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
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

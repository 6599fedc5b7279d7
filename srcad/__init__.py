"""srcad: exact gradients of numeric Python by source transformation, compiled by Numba.

>>> import math, srcad
>>> def f(x):
...     return math.sin(x) * x
>>> g = srcad.grad(f, jit=False)
>>> round(g(1.0), 6) == round(math.cos(1.0) + math.sin(1.0), 6)
True
"""
from srcad.api import grad, jvp, precompile, source, value_and_grad, vjp
from srcad.custom import defjvp, defvjp
from srcad.errors import NoRuleError, SrcadError, SrcadWarning, UnsupportedError
from srcad.hessian import hessian, hvp
from srcad.jacobians import jacobian
from srcad.progress import config
from srcad.runtime import stop_gradient

__all__ = ["NoRuleError", "SrcadError", "SrcadWarning", "UnsupportedError", "config", "defjvp",
           "defvjp", "grad", "hessian", "hvp", "jacobian", "jvp", "precompile", "source",
           "stop_gradient", "value_and_grad", "vjp"]


def __getattr__(name):
    """The compiler (`srcad.program`, `srcad.pipeline`, `srcad.passes`, `srcad.rules`) loads
    on first use: a process that finds its gradients in the cache never needs it; so does
    `srcad.scipy`, the adapters for scipy.optimize."""
    if name in ("passes", "pipeline", "program", "rules", "scipy"):
        import importlib
        return importlib.import_module(f"srcad.{name}")
    raise AttributeError(f"module 'srcad' has no attribute {name!r}")

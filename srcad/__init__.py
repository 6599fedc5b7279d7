"""srcad: exact gradients of numeric Python by source transformation, compiled by Numba.

>>> import math, srcad
>>> def f(x):
...     return math.sin(x) * x
>>> g = srcad.grad(f, jit=False)
>>> round(g(1.0), 6) == round(math.cos(1.0) + math.sin(1.0), 6)
True
"""
from srcad import rules  # noqa: F401  (registers the derivative rules)
from srcad.api import grad, jacobian, jvp, source, value_and_grad, vjp
from srcad.custom import defjvp, defvjp
from srcad.errors import NoRuleError, SrcadError, SrcadWarning, UnsupportedError
from srcad.hessian import hessian, hvp
from srcad.runtime import stop_gradient

__all__ = ["NoRuleError", "SrcadError", "SrcadWarning", "UnsupportedError", "defjvp", "defvjp",
           "grad", "hessian", "hvp", "jacobian", "jvp", "source", "stop_gradient",
           "value_and_grad", "vjp"]

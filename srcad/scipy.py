"""srcad's derivatives in the forms `scipy.optimize` calls.

SciPy calls `fun(x, *args)`, `jac(x, *args)` and `hess(x, *args)`. srcad's gradient,
Jacobian and Hessian functions take the arguments of `f` and return what SciPy wants (a
float value, float64 arrays shaped like `x`, an `(m, n)` Jacobian), so they are passed as
they are:

    minimize(srcad.value_and_grad(f), x0, jac=True, args=args, method="L-BFGS-B")
    minimize(f, x0, jac=srcad.grad(f), hess=srcad.hessian(f), args=args, method="trust-exact")
    least_squares(residuals, x0, jac=srcad.jacobian(residuals), args=args)

Only the Hessian-vector product comes in an order of SciPy's own, `hessp(x, p, *args)`,
where `srcad.hvp` takes `(f, primals, vector)`: `hessp(f)` makes that function. This
module does not import SciPy; nothing in it needs to.
"""
from srcad.hessian import hvp, second_order
from srcad.jacobians import MadeFunction


def hessp(f, jit="auto", on_jit_error="warn"):
    """`hessp(x, p, *args)` for `scipy.optimize.minimize` (Newton-CG, trust-ncg,
    trust-krylov, trust-constr): the exact Hessian of `f(x, *args)` in `x`, times `p`.

    The same as `lambda x, p, *args: srcad.hvp(f, (x, *args), p)`, named, and pickled
    as this call. SciPy always passes the variable first, so that is the argument
    differentiated.

    >>> import numpy as np, scipy.optimize, srcad, srcad.scipy
    >>> def cost(x, target):
    ...     return np.sum((x - target) ** 4 + (x - target) ** 2)
    >>> fit = scipy.optimize.minimize(
    ...     srcad.value_and_grad(cost, jit=False), np.zeros(3), jac=True,
    ...     hessp=srcad.scipy.hessp(cost, jit=False), args=(np.array([1.0, 2.0, 3.0]),),
    ...     method="trust-krylov")
    >>> np.round(fit.x, 6)
    array([1., 2., 3.])
    """
    name = second_order(f, 0, jit, on_jit_error)[0].fsrc.name  # refuses `f` now, not in SciPy

    def product(x, p, *args):
        return hvp(f, (x, *args), p, jit=jit, on_jit_error=on_jit_error)

    product.__doc__ = f"H(x) @ p for `{name}(x, *args)`, exact (see `srcad.scipy.hessp`)."
    product.__name__ = f"hessp_of_{name}"
    return MadeFunction(product, hessp, f, jit, on_jit_error)


__all__ = ["hessp"]

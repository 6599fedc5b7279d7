"""Second derivatives: Hessian-vector products and Hessians, exact.

Forward mode writes `<f>_jvp(args, tangents) -> (value, tangent)`, whose tangent is
grad f . v for a direction v. That module is ordinary numeric Python, so srcad
differentiates it once more, in reverse mode, with respect to the arguments: the pullback
of the cotangent (0, 1), the gradient of grad f . v, is H v. Both steps are source
transformations compiled with Numba; nothing is approximated by finite differences.
"""
import weakref

import numpy as np

from srcad import derivative as derivatives
from srcad.api import GradFunction, _cotangent_like, refuse_complex
from srcad.errors import NoRuleError
from srcad.jacobians import MadeFunction, unit_directions

_SECOND = weakref.WeakKeyDictionary()  # f -> {options: SecondOrder}


def second_order(f, wrt, jit, on_jit_error):
    """(the gradient object of `f`, its `SecondOrder`): the one made before for `f` and
    these options while `f`'s derivative is the same (see `srcad.derivative`)."""
    first = GradFunction(f, wrt, jit, with_value=False, on_jit_error=on_jit_error)
    options = (derivatives._hashable(wrt), jit, on_jit_error if jit else None)
    so = _SECOND.get(first.fn, {}).get(options)
    if so is None or so.derivative is not first.derivative:
        with derivatives._LOCK:
            so = SecondOrder(first.derivative, jit, on_jit_error)
            if options[0] is not None:
                _SECOND.setdefault(first.fn, {})[options] = so
    return first, so


class SecondOrder:
    """H v for the scalar output of the function of `derivative` (a first-order
    `Derivative`), for its `wrt` arguments; one module per kinds. It keeps no reference
    to the function: each method takes its gradient object, `first`."""

    def __init__(self, derivative, jit, on_jit_error):
        self.derivative = derivative
        self.jit, self.on_jit_error = jit, on_jit_error
        self.by_kinds = {}

    def tangent_program(self, first, args):
        """The reverse mode of `<f>_jvp`, for arguments like `args`: its gradient for the
        cotangent (0, 1) of its output (value, tangent) is H v."""
        kinds = first.kinds(args)
        second = self.by_kinds.get(kinds)
        if second is None:
            with derivatives._LOCK:
                second = self.by_kinds.get(kinds)
                if second is None:
                    compiled = first.build_kinds(kinds, mode="fwd")
                    jvp = getattr(compiled.plain, compiled.top.jvp_name)  # has a file
                    second = self.by_kinds[kinds] = GradFunction(
                        jvp, first.positions, self.jit, with_value=False,
                        on_jit_error=self.on_jit_error, scalar_output=False)
        return second

    def hvp(self, first, args, vectors):
        """H v, one block per `wrt` argument (bare for a bare `wrt`)."""
        second = self.tangent_program(first, args)
        full = args + vectors
        try:
            full, runner = second.prepare(full)
        except NoRuleError as exc:
            fsrc = first.fsrc
            raise fsrc.error(
                f"no second derivative of `{fsrc.name}`: its forward-mode code calls a "
                f"function with no rule of its own ({exc})", fsrc.node,
                "second derivatives through that function are not supported; take it "
                "out of the function or give it a custom rule (srcad.defvjp)") from None
        _, tape = runner.forward(full)
        blocks = second.package(runner.reverse(full, tape, (0.0, 1.0)), full)
        return blocks[0] if first.bare else blocks

    @staticmethod
    def directions(first, args, vector):
        """`vector` as one float64 tangent per `wrt` argument, each shaped like it."""
        g = first
        vecs = (vector,) if g.bare else tuple(vector) if isinstance(vector, (tuple, list)) \
            else None
        if vecs is None or len(vecs) != len(g.positions):
            raise g._error(f"hvp needs one vector per argument in `wrt` "
                           f"({len(g.positions)}), as a tuple for a tuple `wrt`")
        return tuple(_cotangent_like(v, args[i], g) for v, i in zip(vecs, g.positions))


def hvp(f, primals, vector, wrt=0, jit="auto", on_jit_error="warn"):
    """H·v: the Hessian of `f`'s scalar output at `primals` (the tuple of all arguments)
    times `vector` (shaped like the `wrt` argument; a tuple of them for a tuple `wrt`).

    Exact, by reverse mode over srcad's forward-mode code (no finite differences): one
    forward and one reverse sweep of the tangent program per product.
    """
    first, so = second_order(f, wrt, jit, on_jit_error)
    args = first._bind(tuple(primals), {})
    refuse_complex(first, args, "Hessian")
    return so.hvp(first, args, so.directions(first, args, vector))


def hessian(f, wrt=0, jit="auto", on_jit_error="warn"):
    """A function giving the Hessian of `f`'s scalar output: an array of shape
    `x.shape + x.shape` for the argument `x` named by `wrt`. For a tuple `wrt`, a tuple
    of rows of blocks: `H[i][j]` has shape `xi.shape + xj.shape`.

    Built column by column from exact Hessian-vector products (see `srcad.hvp`): one
    sweep pair of the tangent program per element of the `wrt` arguments.
    """
    name = second_order(f, wrt, jit, on_jit_error)[0].fsrc.name

    def hess(*args, **kwargs):
        g, so = second_order(f, wrt, jit, on_jit_error)
        args = g._bind(args, kwargs)
        refuse_complex(g, args, "Hessian")
        blocks = [[None] * len(g.positions) for _ in g.positions]
        for j, i in enumerate(g.positions):
            columns = []
            for direction in unit_directions(args, g.positions, j):
                column = so.hvp(g, args, direction)
                columns.append((column,) if g.bare else column)
            for r, ir in enumerate(g.positions):
                stacked = np.stack([np.asarray(c[r], dtype=np.float64) for c in columns], -1)
                blocks[r][j] = stacked.reshape(np.shape(args[ir]) + np.shape(args[i]))
        if g.bare:
            return blocks[0][0]
        return tuple(tuple(row) for row in blocks)

    hess.__doc__ = hessian.__doc__
    hess.__name__ = f"hessian_of_{name}"
    return MadeFunction(hess, hessian, f, wrt, jit, on_jit_error)


__all__ = ["hessian", "hvp"]

"""Second derivatives: Hessian-vector products and Hessians, exact.

Forward mode writes `<f>_jvp(args, tangents) -> (value, tangent)`, whose tangent is
grad f . v for a direction v. That module is ordinary numeric Python, so srcad
differentiates it once more, in reverse mode, with respect to the arguments: the pullback
of the cotangent (0, 1), the gradient of grad f . v, is H v. Both steps are source
transformations compiled with Numba; nothing is approximated by finite differences.
"""
import numpy as np

from srcad.api import GradFunction, _cotangent_like, unit_directions
from srcad.errors import NoRuleError


class SecondOrder:
    """H v for `f`'s scalar output, for the arguments in `wrt`; one module per kinds."""

    def __init__(self, f, wrt, jit, on_jit_error):
        self.first = GradFunction(f, wrt, jit, with_value=False, on_jit_error=on_jit_error)
        self.jit, self.on_jit_error = jit, on_jit_error
        self.by_kinds = {}

    def tangent_program(self, args):
        """The reverse mode of `<f>_jvp`, for arguments like `args`: its gradient for the
        cotangent (0, 1) of its output (value, tangent) is H v."""
        kinds = self.first.kinds(args)
        if kinds not in self.by_kinds:
            compiled = self.first.build_kinds(kinds, mode="fwd")
            jvp = getattr(compiled.plain, compiled.top.jvp_name)  # a function with a file
            wrt = self.first.positions[0] if self.first.bare else self.first.positions
            self.by_kinds[kinds] = GradFunction(jvp, wrt, self.jit, with_value=False,
                                                on_jit_error=self.on_jit_error,
                                                scalar_output=False)
        return self.by_kinds[kinds]

    def hvp(self, args, vectors):
        """H v, one block per `wrt` argument (bare for a bare `wrt`)."""
        second = self.tangent_program(args)
        full = args + vectors
        try:
            compiled = second.build(full)
        except NoRuleError as exc:
            fsrc = self.first.fsrc
            raise fsrc.error(
                f"no second derivative of `{fsrc.name}`: its forward-mode code calls a "
                f"function with no rule of its own ({exc})", fsrc.node,
                "second derivatives through that function are not supported; take it "
                "out of the function or give it a custom rule (srcad.defvjp)") from None
        _, tape = compiled.forward(full)
        return second.package(compiled.reverse(full, tape, (0.0, 1.0)), full)

    def directions(self, args, vector):
        """`vector` as one float64 tangent per `wrt` argument, each shaped like it."""
        g = self.first
        vecs = (vector,) if g.bare else tuple(vector) if isinstance(vector, (tuple, list)) \
            else None
        if vecs is None or len(vecs) != len(g.positions):
            raise g._error(f"hvp needs one vector per argument in `wrt` "
                           f"({len(g.positions)}), as a tuple for a tuple `wrt`")
        return tuple(_cotangent_like(v, args[i], g) for v, i in zip(vecs, g.positions))


def hvp(f, primals, vector, wrt=0, jit=True, on_jit_error="warn"):
    """H·v: the Hessian of `f`'s scalar output at `primals` (the tuple of all arguments)
    times `vector` (shaped like the `wrt` argument; a tuple of them for a tuple `wrt`).

    Exact, by reverse mode over srcad's forward-mode code (no finite differences): one
    forward and one reverse sweep of the tangent program per product.
    """
    so = SecondOrder(f, wrt, jit, on_jit_error)
    args = so.first._bind(tuple(primals), {})
    result = so.hvp(args, so.directions(args, vector))
    return result


def hessian(f, wrt=0, jit=True, on_jit_error="warn"):
    """A function giving the Hessian of `f`'s scalar output: an array of shape
    `x.shape + x.shape` for the argument `x` named by `wrt`. For a tuple `wrt`, a tuple
    of rows of blocks: `H[i][j]` has shape `xi.shape + xj.shape`.

    Built column by column from exact Hessian-vector products (see `srcad.hvp`): one
    sweep pair of the tangent program per element of the `wrt` arguments.
    """
    so = SecondOrder(f, wrt, jit, on_jit_error)
    g = so.first

    def hess(*args, **kwargs):
        args = g._bind(args, kwargs)
        blocks = [[None] * len(g.positions) for _ in g.positions]
        for j, i in enumerate(g.positions):
            columns = []
            for direction in unit_directions(args, g.positions, j):
                column = so.hvp(args, direction)
                columns.append((column,) if g.bare else column)
            for r, ir in enumerate(g.positions):
                stacked = np.stack([np.asarray(c[r], dtype=np.float64) for c in columns], -1)
                blocks[r][j] = stacked.reshape(np.shape(args[ir]) + np.shape(args[i]))
        if g.bare:
            return blocks[0][0]
        return tuple(tuple(row) for row in blocks)

    hess.__doc__ = hessian.__doc__
    hess.__name__ = f"hessian_of_{g.fsrc.name}"
    return hess


__all__ = ["hessian", "hvp"]

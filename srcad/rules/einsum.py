"""The rule of np.einsum: one to three operands, the subscripts a string written in the
call, with an explicit output (`np.einsum('ij,jk->ik', a, b)`).

The adjoint of each operand is the contraction of the cotangent with the other operands
to that operand's letters (`rt.einsum_grad`, srcad/runtime/einsum.py); the einsum is
linear in each operand, so its tangent is a sum of einsums, one per operand's tangent.
"""
import gast
import numpy as np

from srcad import runtime as rt
from srcad.kinds import Kind
from srcad.rules.registry import adjoint, tangent
from srcad.rules.typing import refuse
from srcad.runtime.einsum import parse

d = None  # templates say d[x] for "the adjoint of x"; they are never run
t = None  # tangent templates say t[x] for "the tangent of x" (forward mode)

_HINT = "write the subscripts in the call, with the output: np.einsum('ij,jk->ik', a, b)"


def _given(c, param):
    """Whether the call gives `param` a value other than None."""
    node = c.get(param)
    return node is not None and not (isinstance(node, gast.Constant) and node.value is None)


def einsum_kind(k, c):
    """np.einsum(subscripts, a, b, c): floats of as many dimensions as the output has
    letters; the subscripts a string constant that `parse` takes, one term per operand,
    each of its operand's rank."""
    node = c.get("subscripts")
    if not (isinstance(node, gast.Constant) and isinstance(node.value, str)):
        raise refuse("np.einsum", "takes its subscripts as a string written in the call",
                     _HINT)
    if _given(c, "more"):
        raise refuse("np.einsum", "of more than three operands is not supported",
                     "contract in steps: np.einsum('ij,jk->ik', np.einsum('ij,jk->ik', a, "
                     "b), c) for np.einsum('ij,jk,kl->il', a, b, c)... ")
    operands = [(p, k[p]) for p in ("a", "b", "c") if _given(c, p)]
    text = node.value
    if "->" not in text:
        raise refuse("np.einsum", f"with an implicit output ({text!r}) is not supported",
                     "write the output after `->`: np.einsum('ij,jk->ik', a, b)")
    if "." in text:
        raise refuse("np.einsum", f"with an ellipsis ({text!r}) is not supported",
                     "name every axis with a letter: np.einsum('nij,njk->nik', a, b)")
    try:
        terms, out = parse(text, len(operands))
    except ValueError as exc:
        raise refuse("np.einsum", f"cannot take these subscripts: {exc}", _HINT) from None
    for (p, kind), term in zip(operands, terms):
        if not (isinstance(kind, Kind) and kind.ndim == len(term) and kind.ndim > 0):
            raise refuse("np.einsum", f"takes `{p}` here as an array of {len(term)} "
                         f"dimensions (its letters {term!r}), not a {kind}",
                         "multiply by a number outside: 2.0 * np.einsum('i,i->', a, b)"
                         if isinstance(kind, Kind) and kind.ndim == 0 else None)
    return Kind("f", len(out))


@adjoint(np.einsum, rt.einsum, kind=einsum_kind, broadcast=False, name="rt.einsum",
         domain={"subscripts": "ij,kj->ik", "a": (-2.0, 2.0), "b": (-1.0, 1.5)})
def einsum(ans, subscripts, a, b=None, c=None, more=None, *, optimize=False):
    d[a] += rt.einsum_grad(subscripts, 1, d[ans], a.shape, b, c)
    d[b] += rt.einsum_grad(subscripts, 2, d[ans], a, b.shape, c)
    d[c] += rt.einsum_grad(subscripts, 3, d[ans], a, b, c.shape)


@tangent(np.einsum)
def einsum_tangent(ans, subscripts, a, b=None, c=None, more=None, optimize=False):
    t[ans] = (rt.einsum(subscripts, t[a], b, c) + rt.einsum(subscripts, a, t[b], c)
              + rt.einsum(subscripts, a, b, t[c]))

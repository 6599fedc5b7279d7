"""Rules for NumPy's splits (np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit)
into any number of pieces known when the call is transformed, np.dstack, np.real_if_close
of real values, and np.array_equiv (no gradient).

A split is tuple-valued: each of its pieces is a rule of its own (`registry.parts`), a
view of the array as NumPy's pieces are, whose adjoint puts the piece's cotangent in its
place: the first piece one rule (`rt.hsplit_head`), any after it another (`rt.hsplit_tail`,
piece `which`, the second by default); into a number of pieces other than two
(`np.split(x, 3)`, `np.split(x, [2, 5])`), ToANF writes each (see `SPLITS`). The runtime
helpers are in srcad/runtime/splits.py.
"""
import gast
import numpy as np

from srcad import runtime as rt
from srcad.kinds import BOOL, INT, Kind, TupleKind
from srcad.rules.registry import adjoint, nondiff, parts
from srcad.rules.typing import refuse

d = None  # templates say d[x] for "the adjoint of x"; they are never run

# the splits ToANF writes piece by piece when their number of pieces is known from the call
# (a number, or a list of indices, written there) and is not two: the first piece by the
# `head` rule, piece k after it by the `tail` rule given `which=k` (`registry.parts`)
SPLITS = ("np.split", "np.array_split", "np.hsplit", "np.vsplit", "np.dsplit")


# ---------------------------------------------------------------------------
# np.hsplit (axis 1, a vector's 0), np.vsplit (axis 0), np.dsplit (axis 2): the first
# piece, and piece `which` after it
# ---------------------------------------------------------------------------

_SLICED = {"np.hsplit": "x[:, :2], x[:, 2:5], x[:, 5:]", "np.vsplit": "x[:2], x[2:5], x[5:]",
           "np.dsplit": "x[:, :, :2], x[:, :, 2:5], x[:, :, 5:]"}


def _first_pieces(function, least):
    """The kind of a piece of `function` (np.hsplit...) of an array of `least` or more
    dimensions, into a number of pieces known from the call: like the array."""

    def kind(k, c):
        ary = k.get("ary")
        if not isinstance(ary, Kind) or ary.ndim < least:
            raise refuse(function, f"takes an array of {least} or more dimensions, not a "
                         f"{ary}")
        node, ios = c.get("indices_or_sections"), k.get("indices_or_sections")
        sections = isinstance(node, gast.Constant) and type(node.value) is int \
            and node.value > 0
        indices = isinstance(ios, TupleKind) and all(i == INT for i in ios.items)
        if not (sections or indices):
            raise refuse(function, "is supported here into a number of pieces known from "
                         "the call: a number of sections or a list of indices written there",
                         f"or slice: `a, b, c = {_SLICED[function]}`")
        return ary.with_()

    kind.__name__ = "pieces"
    return kind


@adjoint(rt.hsplit_head, kind=_first_pieces("np.hsplit", 1), broadcast=False,
         name="rt.hsplit_head", view=True, sums=False, linear=True)
def hsplit_head(ans, ary, indices_or_sections):
    d[ary] += rt.split_piece_adjoint(d[ans], ary.shape, indices_or_sections,
                                     rt.hsplit_axis(ary.shape), 0, True)


@adjoint(rt.hsplit_tail, kind=_first_pieces("np.hsplit", 1), broadcast=False,
         name="rt.hsplit_tail", view=True, sums=False, linear=True)
def hsplit_tail(ans, ary, indices_or_sections, which=1):
    d[ary] += rt.split_piece_adjoint(d[ans], ary.shape, indices_or_sections,
                                     rt.hsplit_axis(ary.shape), which, True)


@adjoint(rt.vsplit_head, kind=_first_pieces("np.vsplit", 2), broadcast=False,
         name="rt.vsplit_head", view=True, sums=False, linear=True)
def vsplit_head(ans, ary, indices_or_sections):
    d[ary] += rt.split_piece_adjoint(d[ans], ary.shape, indices_or_sections, 0, 0, True)


@adjoint(rt.vsplit_tail, kind=_first_pieces("np.vsplit", 2), broadcast=False,
         name="rt.vsplit_tail", view=True, sums=False, linear=True)
def vsplit_tail(ans, ary, indices_or_sections, which=1):
    d[ary] += rt.split_piece_adjoint(d[ans], ary.shape, indices_or_sections, 0, which, True)


@adjoint(rt.dsplit_head, kind=_first_pieces("np.dsplit", 3), broadcast=False,
         name="rt.dsplit_head", view=True, sums=False, linear=True)
def dsplit_head(ans, ary, indices_or_sections):
    d[ary] += rt.split_piece_adjoint(d[ans], ary.shape, indices_or_sections, 2, 0, True)


@adjoint(rt.dsplit_tail, kind=_first_pieces("np.dsplit", 3), broadcast=False,
         name="rt.dsplit_tail", view=True, sums=False, linear=True)
def dsplit_tail(ans, ary, indices_or_sections, which=1):
    d[ary] += rt.split_piece_adjoint(d[ans], ary.shape, indices_or_sections, 2, which, True)


_PIECES = {"params": ("ans", "ary", "indices_or_sections")}
parts(np.hsplit, "rt.hsplit_head", "rt.hsplit_tail", **_PIECES)
parts(np.vsplit, "rt.vsplit_head", "rt.vsplit_tail", **_PIECES)
parts(np.dsplit, "rt.dsplit_head", "rt.dsplit_tail", **_PIECES)

# ---------------------------------------------------------------------------
# np.dstack: the tuple written in the call becomes one array (ResolveCalls makes an
# array of a list or tuple passed to a parameter named x), then joined along axis 2
# ---------------------------------------------------------------------------


def dstack_kind(k, c):
    """np.dstack(x) of arrays stacked into `x`: three dimensions, or those of the arrays."""
    x = k.get("x")
    if not isinstance(x, Kind) or x.ndim == 0:
        raise refuse("np.dstack", "takes arrays written out as a tuple here",
                     "write `np.dstack((a, b))`")
    return Kind(x.dtype, max(3, x.ndim - 1))


# each array's adjoint is its part of the cotangent; the arrays are stacked first, so they
# have one shape (NumPy lets arrays of three or more dimensions differ in depth)
@adjoint(np.dstack, rt.dstack, kind=dstack_kind, broadcast=False, name="rt.dstack",
         sums=False, linear=True, domain={"x": (-2.0, 2.0)})
def dstack(ans, x):
    d[x] += rt.dstack_adjoint(d[ans], x.shape)


# ---------------------------------------------------------------------------
# np.real_if_close of real values (the array itself), np.array_equiv
# ---------------------------------------------------------------------------


def real_if_close_kind(k, c):
    """np.real_if_close(a, tol) of real values: like `a` (complex ones, whose result's type
    depends on their values, are refused: the rule takes no complex operands)."""
    a = k.get("a")
    if not isinstance(a, Kind):
        raise refuse("np.real_if_close", f"takes an array or a number, not a {a}")
    return a.with_()


@adjoint(np.real_if_close, rt.real_if_close, kind=real_if_close_kind, broadcast=False,
         name="rt.real_if_close", view=True, sums=False, linear=True,
         domain={"a": (-2.0, 2.0)})
def real_if_close(ans, a, tol=100):
    d[a] += d[ans]


nondiff(np.array_equiv, rt.array_equiv, kind=lambda k, c: BOOL, name="rt.array_equiv",
        params=("ans", "a1", "a2"))

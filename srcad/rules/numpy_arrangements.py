"""Rules for NumPy's arrangements: diagonals, padding, rotating and rolling axes,
partitions, splits, grids (np.meshgrid), derivatives and integrals of samples
(np.gradient, np.trapezoid), np.append, np.vdot, np.diagflat, np.polyval, np.correlate,
np.select, the NaN-skipping products, variances and running sums, and values without
gradients (comparisons of whole arrays, indices, tests of types).

Their runtime helpers are in srcad/runtime/arrangements.py; each rule's result kind is
the function below it named `<rule>_kind` (or one of srcad/rules/typing.py).
"""
import gast
import numpy as np

from srcad import runtime as rt
from srcad.kinds import BOOL, INT, NONE, Kind, TupleKind, promote
from srcad.rules import typing as ty
from srcad.rules.registry import adjoint, nondiff, parts, tangent
from srcad.rules.typing import refuse
from srcad.runtime.arrangements import _MODES

d = None  # templates say d[x] for "the adjoint of x"; they are never run
t = None  # tangent templates say t[x] for "the tangent of x" (forward mode)


def _given(c, param):
    """Whether the call gives `param` a value other than None."""
    node = c.get(param)
    return node is not None and not (isinstance(node, gast.Constant) and node.value is None)


def _array(k, param, function, least=1, most=None):
    """The kind of array argument `param`, refused outside `least`..`most` dimensions."""
    kind = k.get(param)
    if not isinstance(kind, Kind) or kind.ndim < least or (most and kind.ndim > most):
        many = f"{least}" if most == least else f"{least} or more" if most is None else \
            f"{least} to {most}"
        raise refuse(function, f"takes `{param}` as an array of {many} dimensions here, "
                     f"not a {kind}")
    return kind


def _int(k, param, function):
    kind = k.get(param)
    if kind is not None and kind != NONE and kind != INT:
        raise refuse(function, f"takes `{param}` as an int, not a {kind}")


def _option(c, param, function, choices):
    node = c.get(param)
    if node is not None and not (isinstance(node, gast.Constant) and node.value in choices):
        raise refuse(function, f"takes `{param}` as one of {', '.join(map(repr, choices))} "
                     "written in the call")
    return node.value if node is not None else choices[0]


def _number(k, param, function):
    kind = k.get(param)
    if kind is not None and kind != NONE and not (isinstance(kind, Kind) and kind.ndim == 0):
        raise refuse(function, f"takes `{param}` as a number here, not a {kind}")


# ---------------------------------------------------------------------------
# diagonals, rotations, rolled axes
# ---------------------------------------------------------------------------


def diagonal_kind(k, c):
    """np.diagonal(a, offset, axis1, axis2): one dimension fewer than `a`."""
    a = _array(k, "a", "np.diagonal", 2)
    for p in ("offset", "axis1", "axis2"):
        _int(k, p, "np.diagonal")
    return Kind(a.dtype, a.ndim - 1)


# the elements a[..., i, i + offset] of axes axis1, axis2 (moved last); the adjoint puts
# the cotangent back on that diagonal of zeros
@adjoint(np.diagonal, rt.diagonal, kind=diagonal_kind, broadcast=False, name="rt.diagonal",
         methods=("diagonal",), sums=False, linear=True, domain={"a": (-2.0, 2.0), "offset": 0})
def diagonal(ans, a, offset=0, axis1=0, axis2=1):
    d[a] += rt.diagonal_adjoint(d[ans], a.shape, offset, axis1, axis2)


def rot90_kind(k, c):
    """np.rot90(m, k, axes): like `m`, of two or more dimensions."""
    _int(k, "k", "np.rot90")
    axes = k.get("axes")
    if axes is not None and not (isinstance(axes, TupleKind) and len(axes.items) == 2
                                 and all(i == INT for i in axes.items)):
        raise refuse("np.rot90", f"takes `axes` as a pair of ints, not a {axes}")
    return _array(k, "m", "np.rot90", 2)


# a rotation by quarter turns (in the plane of `axes`, None for (0, 1)): its adjoint
# turns back
@adjoint(np.rot90, rt.rot90, kind=rot90_kind, broadcast=False, name="rt.rot90", sums=False,
         linear=True, domain={"m": (-2.0, 2.0)})
def rot90(ans, m, k=1, axes=None):
    d[m] += rt.rot90(d[ans], -k, axes)


def rollaxis_kind(k, c):
    """np.rollaxis(a, axis, start): like `a`, axes reordered."""
    _int(k, "axis", "np.rollaxis")
    _int(k, "start", "np.rollaxis")
    return _array(k, "a", "np.rollaxis")


@adjoint(np.rollaxis, rt.rollaxis, kind=rollaxis_kind, broadcast=False, name="rt.rollaxis",
         sums=False, linear=True, domain={"a": (-2.0, 2.0), "axis": -1})
def rollaxis(ans, a, axis, start=0):
    d[a] += rt.rollaxis_adjoint(d[ans], axis, start)


def diagflat_kind(k, c):
    """np.diagflat(v, k): the square with the flattened `v` on a diagonal."""
    _int(k, "k", "np.diagflat")
    return Kind(_array(k, "v", "np.diagflat").dtype, 2)


@adjoint(np.diagflat, kind=diagflat_kind, broadcast=False, sums=False, linear=True,
         domain={"v": (-2.0, 2.0)})
def diagflat(ans, v, k=0):
    d[v] += rt.reshape(np.diag(d[ans], k), v.shape)


# ---------------------------------------------------------------------------
# np.pad
# ---------------------------------------------------------------------------


def _pad_width(kind):
    """Whether `kind` is a pad width np.pad takes here: an int, a tuple of one or two, or
    a tuple of such pairs."""
    def ints(k, n=None):
        return isinstance(k, TupleKind) and all(i == INT for i in k.items) and (
            n is None or len(k.items) in n)

    return kind == INT or ints(kind, (1, 2)) or isinstance(kind, TupleKind) and all(
        ints(i, (2,)) for i in kind.items) and kind.items


def pad_kind(k, c):
    """np.pad(array, pad_width, mode, constant_values): like `array`."""
    array = _array(k, "array", "np.pad")
    if not _pad_width(k["pad_width"]):
        raise refuse("np.pad", f"takes `pad_width` as an int, a pair of ints or a pair per "
                     f"axis, not a {k['pad_width']}")
    mode = _option(c, "mode", "np.pad", _MODES)
    if _given(c, "constant_values"):
        if mode != "constant":
            raise refuse("np.pad", f"takes `constant_values` only in mode 'constant', not "
                         f"{mode!r}")
        if not (isinstance(k["constant_values"], Kind) and k["constant_values"].ndim == 0):
            raise refuse("np.pad", "takes `constant_values` as one number here",
                         "pad with one number, then set the edges: `y[0] = a`")
    return array


# each element of the padded array copies one of the array's (edge, wrap, reflect,
# symmetric) or the constant; the adjoint adds the cotangents of the copies back
@adjoint(np.pad, rt.pad, kind=pad_kind, broadcast=False, name="rt.pad", sums=False,
         domain={"array": (-2.0, 2.0), "pad_width": 1})
def pad(ans, array, pad_width, mode="constant", constant_values=0):
    d[array] += rt.pad_adjoint(d[ans], array.shape, pad_width, mode)
    d[constant_values] += rt.pad_fill_adjoint(d[ans], array.shape, pad_width)


@tangent(np.pad)
def pad_tangent(ans, array, pad_width, mode="constant", constant_values=0):
    t[ans] = (rt.pad(t[array], pad_width, mode)
              + rt.pad(np.zeros_like(array), pad_width, mode, t[constant_values]))


# ---------------------------------------------------------------------------
# np.partition: the gradient follows the elements, as np.sort's does
# ---------------------------------------------------------------------------


def partition_kind(k, c):
    """np.partition(a, kth, axis): like `a`; `kth` an int or a tuple of ints."""
    a = _array(k, "a", "np.partition")
    kth = k.get("kth")
    if not (kth == INT or isinstance(kth, TupleKind) and all(i == INT for i in kth.items)):
        raise refuse("np.partition", f"takes `kth` as an int or a tuple of ints, not a {kth}")
    _int(k, "axis", "np.partition")
    return a


def partition_order_kind(k, c):
    return Kind("i", partition_kind(k, c).ndim)


nondiff(rt.partition_order, kind=partition_order_kind, params=("ans", "a", "kth", "axis"),
        defaults={"axis": -1}, name="rt.partition_order")
nondiff(np.argpartition, rt.argpartition, kind=partition_order_kind,
        params=("ans", "a", "kth", "axis"), defaults={"axis": -1}, name="rt.argpartition",
        methods=("argpartition",))


# compiled, the elements on each side of the k-th are in sorted order (NumPy's are in
# the order its selection leaves them; the k-th elements are the same)
@adjoint(np.partition, rt.partition, kind=partition_kind, broadcast=False,
         name="rt.partition", sums=False, domain={"a": (-2.0, 2.0), "kth": 1})
def partition(ans, a, kth, axis=-1):
    d[a] += rt.take_adjoint(d[ans], a, rt.partition_order(a, kth, axis))


@tangent(np.partition)
def partition_tangent(ans, a, kth, axis=-1):
    t[ans] = rt.take(t[a], rt.partition_order(a, kth, axis))


# ---------------------------------------------------------------------------
# splits into pieces (the first, and those after it: see srcad/rules/numpy_splits.py), and
# grids: tuple-valued, each item a rule of its own
# ---------------------------------------------------------------------------


def _halves(function):
    """The kind of a piece of np.split or np.array_split (`function`) into a number of
    pieces known from the call: like the array."""

    def kind(k, c):
        ary = _array(k, "ary", function)
        node, ios = c.get("indices_or_sections"), k.get("indices_or_sections")
        sections = isinstance(node, gast.Constant) and type(node.value) is int \
            and node.value > 0
        indices = isinstance(ios, TupleKind) and all(i == INT for i in ios.items)
        if not (sections or indices):
            raise refuse(function, "is supported here into a number of pieces known from "
                         "the call: a number of sections or a list of indices written there",
                         "or slice: `a, b, c = x[:2], x[2:5], x[5:]`")
        _int(k, "axis", function)
        return ary

    kind.__name__ = "halves"
    return kind


# np.split cuts into equal pieces (or raises), np.array_split gives the first `n % pieces`
# pieces one more element; the tail is piece `which` after the first (the second, by
# default); each piece's adjoint is its cotangent in its place
@adjoint(rt.split_head, kind=_halves("np.split"), broadcast=False, name="rt.split_head", view=True,
         sums=False, linear=True)
def split_head(ans, ary, indices_or_sections, axis=0):
    d[ary] += rt.split_adjoint(d[ans], ary.shape, indices_or_sections, axis, 0, True)


@adjoint(rt.split_tail, kind=_halves("np.split"), broadcast=False, name="rt.split_tail", view=True,
         sums=False, linear=True)
def split_tail(ans, ary, indices_or_sections, axis=0, which=1):
    d[ary] += rt.split_adjoint(d[ans], ary.shape, indices_or_sections, axis, which, True)


@adjoint(rt.array_split_head, kind=_halves("np.array_split"), broadcast=False,
         name="rt.array_split_head", view=True, sums=False, linear=True)
def array_split_head(ans, ary, indices_or_sections, axis=0):
    d[ary] += rt.split_adjoint(d[ans], ary.shape, indices_or_sections, axis, 0, False)


@adjoint(rt.array_split_tail, kind=_halves("np.array_split"), broadcast=False,
         name="rt.array_split_tail", view=True, sums=False, linear=True)
def array_split_tail(ans, ary, indices_or_sections, axis=0, which=1):
    d[ary] += rt.split_adjoint(d[ans], ary.shape, indices_or_sections, axis, which, False)


_SPLIT = {"params": ("ans", "ary", "indices_or_sections", "axis"), "defaults": {"axis": 0}}
parts(np.split, "rt.split_head", "rt.split_tail", **_SPLIT)
parts(np.array_split, "rt.array_split_head", "rt.array_split_tail", **_SPLIT)


def meshgrid_kind(k, c):
    """Either array of np.meshgrid(x, y, indexing): a matrix."""
    if _given(c, "z"):
        raise refuse("np.meshgrid", "of three arrays is not supported",
                     "broadcast them instead: x[:, None, None], y[None, :, None], "
                     "z[None, None, :] (the 'ij' grids)")
    x = _array(k, "x", "np.meshgrid", 1, 1)
    y = _array(k, "y", "np.meshgrid", 1, 1)
    _option(c, "indexing", "np.meshgrid", ("xy", "ij"))
    return Kind(promote(x, y), 2)


# X varies along the rows of its grid, Y down the columns ('xy'; the other way for 'ij'):
# each adjoint sums the cotangent across
@adjoint(rt.meshgrid_x, kind=meshgrid_kind, broadcast=False, name="rt.meshgrid_x", sums=False)
def meshgrid_x(ans, x, y, z=None, *, indexing="xy"):
    d[x] += rt.meshgrid_adjoint(d[ans], indexing, 0)


@tangent(rt.meshgrid_x)
def meshgrid_x_tangent(ans, x, y, z=None, indexing="xy"):
    t[ans] = rt.meshgrid_x(t[x], y, z, indexing)


@adjoint(rt.meshgrid_y, kind=meshgrid_kind, broadcast=False, name="rt.meshgrid_y", sums=False)
def meshgrid_y(ans, x, y, z=None, *, indexing="xy"):
    d[y] += rt.meshgrid_adjoint(d[ans], indexing, 1)


@tangent(rt.meshgrid_y)
def meshgrid_y_tangent(ans, x, y, z=None, indexing="xy"):
    t[ans] = rt.meshgrid_y(x, t[y], z, indexing)


parts(np.meshgrid, "rt.meshgrid_x", "rt.meshgrid_y", params=("ans", "x", "y", "indexing"),
      defaults={"indexing": "xy"})


# ---------------------------------------------------------------------------
# derivatives and integrals of samples
# ---------------------------------------------------------------------------


def gradient_kind(k, c):
    """np.gradient(f, spacing, axis=, edge_order=): one array like `f` (a 1-d `f`, or
    along one axis), a uniform spacing."""
    f = _array(k, "f", "np.gradient")
    if f.ndim > 1 and not _given(c, "axis"):
        raise refuse("np.gradient", f"of a {f} without `axis` gives one array per axis, "
                     "which srcad does not take", "ask for one axis at a time: "
                     "np.gradient(f, h, axis=0), np.gradient(f, h, axis=1)")
    spacing = k.get("spacing")
    if spacing is not None and not (isinstance(spacing, Kind) and spacing.ndim == 0):
        raise refuse("np.gradient", "takes one number as the spacing here, not coordinates",
                     "for uneven samples, divide np.diff of values by np.diff of coordinates")
    _int(k, "axis", "np.gradient")
    _option(c, "edge_order", "np.gradient", (1, 2))
    return Kind("f", f.ndim)


# central differences inside, one-sided ones (of `edge_order`) at the ends: linear in
# `f`, and in 1 / spacing
@adjoint(np.gradient, rt.gradient, kind=gradient_kind, broadcast=False, name="rt.gradient",
         sums=False, domain={"f": (-2.0, 2.0), "spacing": 0.5})
def gradient(ans, f, spacing=1.0, *, axis=None, edge_order=1):
    d[f] += rt.gradient_adjoint(d[ans], spacing, axis, edge_order)
    d[spacing] += -np.sum(d[ans] * ans) / spacing


@tangent(np.gradient)
def gradient_tangent(ans, f, spacing=1.0, axis=None, edge_order=1):
    t[ans] = (rt.gradient(t[f], spacing, axis=axis, edge_order=edge_order)
              - t[spacing] * ans / spacing)


def trapezoid_kind(k, c):
    """np.trapezoid(y, x, dx, axis): one dimension fewer than `y`; `x` the abscissae along
    the axis (1-d) or one per value."""
    y = _array(k, "y", "np.trapezoid")
    if _given(c, "x"):
        x = _array(k, "x", "np.trapezoid")
        if x.ndim not in (1, y.ndim):
            raise refuse("np.trapezoid", f"takes `x` as a 1-d array or one shaped like `y` "
                         f"({y}), not a {x}")
        if _given(c, "dx"):
            raise refuse("np.trapezoid", "takes `x` or `dx`, not both")
    _number(k, "dx", "np.trapezoid")
    _int(k, "axis", "np.trapezoid")
    return Kind("f", y.ndim - 1)


# the integral is bilinear in `y` and `x` (its steps), linear in `dx`
@adjoint(np.trapezoid, rt.trapezoid, kind=trapezoid_kind, broadcast=False,
         name="rt.trapezoid", domain={"y": (-2.0, 2.0), "x": (0.0, 3.0)})
def trapezoid(ans, y, x=None, dx=1.0, axis=-1):
    d[y] += rt.trapezoid_dy(d[ans], y, x, dx, axis)
    d[x] += rt.trapezoid_dx(d[ans], y, x, axis)
    d[dx] += np.sum(d[ans] * rt.trapezoid(y, None, 1.0, axis))


@tangent(np.trapezoid)
def trapezoid_tangent(ans, y, x=None, dx=1.0, axis=-1):
    t[ans] = (rt.trapezoid(t[y], x, dx, axis) + rt.trapezoid(y, t[x], dx, axis)
              + t[dx] * rt.trapezoid(y, None, 1.0, axis))


# ---------------------------------------------------------------------------
# np.append, np.vdot, np.polyval, np.correlate, np.select
# ---------------------------------------------------------------------------


def append_kind(k, c):
    """np.append(arr, values, axis): a vector without an axis, else like `arr`."""
    arr, values = k["arr"], k["values"]
    for p, kind in (("arr", arr), ("values", values)):
        if not isinstance(kind, Kind):
            raise refuse("np.append", f"takes `{p}` as an array or a number, not a {kind}")
    if not _given(c, "axis"):
        return Kind(promote(arr, values), 1)
    _int(k, "axis", "np.append")
    if arr.ndim == 0 or arr.ndim != values.ndim:
        raise refuse("np.append", f"along an axis takes arrays of one rank, not a {arr} and "
                     f"a {values}")
    return Kind(promote(arr, values), arr.ndim)


@adjoint(np.append, kind=append_kind, broadcast=False, sums=False,
         domain={"arr": (-2.0, 2.0), "values": (-1.0, 1.5)})
def append(ans, arr, values, axis=None):
    d[arr] += rt.append_head(d[ans], arr, axis)
    d[values] += rt.append_tail(d[ans], arr, values, axis)


@tangent(np.append)
def append_tangent(ans, arr, values, axis=None):
    t[ans] = (np.append(t[arr], np.zeros_like(values), axis)
              + np.append(np.zeros_like(arr), t[values], axis))


def vdot_kind(k, c):
    """np.vdot(a, b) of two real arrays of one size: a float."""
    _array(k, "a", "np.vdot")
    _array(k, "b", "np.vdot")
    return Kind("f", 0)


@adjoint(np.vdot, rt.vdot, kind=vdot_kind, broadcast=False, name="rt.vdot",
         domain={"a": (-2.0, 2.0), "b": (-1.0, 1.5)})
def vdot(ans, a, b):
    d[a] += d[ans] * rt.reshape(b, a.shape)
    d[b] += d[ans] * rt.reshape(a, b.shape)


@tangent(np.vdot)
def vdot_tangent(ans, a, b):
    t[ans] = rt.vdot(t[a], b) + rt.vdot(a, t[b])


def polyval_kind(k, c):
    """np.polyval(p, x): like `x`, in floats; `p` a vector of coefficients."""
    _array(k, "p", "np.polyval", 1, 1)
    return Kind("f", k["x"].ndim)


# Horner's rule; in `x`, the derivative's polynomial (np.polyder's coefficients)
@adjoint(np.polyval, rt.polyval, kind=polyval_kind, broadcast=False, name="rt.polyval",
         domain={"p": (-2.0, 2.0), "x": (-1.0, 1.0)})
def polyval(ans, p, x):
    d[p] += rt.polyval_dp(d[ans], p, x)
    d[x] += d[ans] * rt.polyval(p[:-1] * np.arange(p.shape[0] - 1.0, 0.0, -1.0), x)


@tangent(np.polyval)
def polyval_tangent(ans, p, x):
    t[ans] = (rt.polyval(t[p], x)
              + t[x] * rt.polyval(p[:-1] * np.arange(p.shape[0] - 1.0, 0.0, -1.0), x))


def correlate_kind(k, c):
    """np.correlate(a, v, mode): a vector."""
    a = _array(k, "a", "np.correlate", 1, 1)
    v = _array(k, "v", "np.correlate", 1, 1)
    _option(c, "mode", "np.correlate", ("valid", "same", "full"))
    return Kind(promote(a, v, Kind("f")), 1)


# of real vectors, the convolution with `v` reversed
@adjoint(np.correlate, kind=correlate_kind, broadcast=False,
         domain={"a": (-2.0, 2.0), "v": (-1.0, 1.5)})
def correlate(ans, a, v, mode="valid"):
    d[a] += rt.convolve_da(d[ans], a, v[::-1], mode)
    d[v] += rt.convolve_dv(d[ans], a, v[::-1], mode)[::-1]


@tangent(np.correlate)
def correlate_tangent(ans, a, v, mode="valid"):
    t[ans] = np.correlate(t[a], v, mode) + np.correlate(a, t[v], mode)


def select_kind(k, c):
    """np.select(condlist, choicelist, default) of lists of arrays of one shape (stacked
    into `x` and `y`): an array of that shape."""
    x, y = k["x"], k["y"]
    if not (isinstance(x, Kind) and x.dtype == "b" and isinstance(y, Kind) and
            x.ndim == y.ndim and y.ndim >= 2):
        raise refuse("np.select", f"takes lists of arrays of one shape here (conditions "
                     f"and choices), not a {x} and a {y}",
                     "write both lists in the call: np.select([x < 0, x > 1], [-x, x - 1], "
                     "0.0)")
    default = k.get("default")
    if default is not None and not (isinstance(default, Kind) and default.ndim in (
            0, y.ndim - 1)):
        raise refuse("np.select", f"takes `default` as a number or an array like a choice, "
                     f"not a {default}")
    return Kind("f", y.ndim - 1)


# each element the choice of its first true condition (`default` where none is): the
# cotangent routed there, as np.where routes it; the lists become arrays (ResolveCalls
# makes an array of a list passed to parameters named x and y)
@adjoint(np.select, rt.select_choice, kind=select_kind, broadcast=False,
         name="rt.select_choice", masks=True, sums=False)
def select(ans, x, y, default=0.0):
    d[y] += rt.select_choice_dy(d[ans], x, y)
    d[default] += rt.select_choice_ddefault(d[ans], x, default)


@tangent(np.select)
def select_tangent(ans, x, y, default=0.0):
    t[ans] = (rt.select_choice(x, t[y], 0.0)
              + rt.select_choice(x, np.zeros_like(y), t[default]))


# ---------------------------------------------------------------------------
# the NaN-skipping products, variances and running sums and products: a NaN counts as
# 0 in a sum, 1 in a product, and gets no gradient
# ---------------------------------------------------------------------------


def _nan_scan(function):
    """np.nancumsum, np.nancumprod (`function`)(a, axis): floats like `a` along an axis,
    a vector for None."""

    def kind(k, c):
        a = _array(k, "a", function)
        _int(k, "axis", function)
        return Kind("f", a.ndim if _given(c, "axis") else 1)

    kind.__name__ = "nan_scan"
    return kind


@adjoint(np.nanprod, rt.nanprod, kind=ty.nan_reduction("np.nanprod", "f"), broadcast=False,
         name="rt.nanprod", masks=True, domain={"a": (0.3, 1.8)})
def nanprod(ans, a, axis=None):
    d[a] += rt.select(np.isnan(a), 0.0,
                      rt.prod_adjoint(d[ans], rt.select(np.isnan(a), 1.0, a), axis))


@tangent(np.nanprod)
def nanprod_tangent(ans, a, axis=None):
    t[ans] = rt.prod_tangent(rt.select(np.isnan(a), 0.0, t[a]),
                             rt.select(np.isnan(a), 1.0, a), axis)


@adjoint(np.nanvar, rt.nanvar, kind=ty.nan_reduction("np.nanvar", "f"), broadcast=False,
         name="rt.nanvar", masks=True, domain={"a": (-2.0, 2.0)})
def nanvar(ans, a, axis=None, *, ddof=0):
    d[a] += rt.select(np.isnan(a), 0.0, rt.expand(
        d[ans] * 2.0 / (rt.nancount(a, axis) - ddof), axis) * (
        a - rt.expand(rt.nanmean(a, axis), axis)))


@tangent(np.nanvar)
def nanvar_tangent(ans, a, axis=None, ddof=0):
    t[ans] = rt.nansum(rt.select(np.isnan(a), 0.0, 2.0 * (
        a - rt.expand(rt.nanmean(a, axis), axis)) * t[a]), axis) / (rt.nancount(a, axis) - ddof)


@adjoint(np.nanstd, rt.nanstd, kind=ty.nan_reduction("np.nanstd", "f"), broadcast=False,
         name="rt.nanstd", masks=True, domain={"a": (-2.0, 2.0)})
def nanstd(ans, a, axis=None, *, ddof=0):
    d[a] += rt.select(np.isnan(a), 0.0, rt.expand(
        d[ans] / ((rt.nancount(a, axis) - ddof) * ans), axis) * (
        a - rt.expand(rt.nanmean(a, axis), axis)))


@tangent(np.nanstd)
def nanstd_tangent(ans, a, axis=None, ddof=0):
    t[ans] = rt.nansum(rt.select(np.isnan(a), 0.0, (
        a - rt.expand(rt.nanmean(a, axis), axis)) * t[a]), axis) / (
        (rt.nancount(a, axis) - ddof) * ans)


@adjoint(np.nancumsum, rt.nancumsum, kind=_nan_scan("np.nancumsum"), broadcast=False,
         name="rt.nancumsum", masks=True, domain={"a": (-2.0, 2.0)})
def nancumsum(ans, a, axis=None):
    d[a] += rt.select(np.isnan(a), 0.0, rt.cumsum_adjoint(d[ans], a, axis))


@tangent(np.nancumsum)
def nancumsum_tangent(ans, a, axis=None):
    t[ans] = rt.cumsum(rt.select(np.isnan(a), 0.0, t[a]), axis)


@adjoint(np.nancumprod, rt.nancumprod, kind=_nan_scan("np.nancumprod"), broadcast=False,
         name="rt.nancumprod", masks=True, domain={"a": (0.3, 1.8)})
def nancumprod(ans, a, axis=None):
    d[a] += rt.select(np.isnan(a), 0.0,
                      rt.cumprod_adjoint(d[ans], rt.select(np.isnan(a), 1.0, a), axis))


@tangent(np.nancumprod)
def nancumprod_tangent(ans, a, axis=None):
    t[ans] = rt.cumprod_tangent(rt.select(np.isnan(a), 0.0, t[a]),
                                rt.select(np.isnan(a), 1.0, a), axis)


# ---------------------------------------------------------------------------
# values without gradients
# ---------------------------------------------------------------------------


def _scalar_bool(k, c):
    return BOOL


nondiff(np.allclose, kind=_scalar_bool, params=("ans", "a", "b", "rtol", "atol", "equal_nan"),
        defaults={"rtol": 1e-05, "atol": 1e-08, "equal_nan": False})
nondiff(np.isclose, rt.isclose, kind=ty.boolean, name="rt.isclose",
        params=("ans", "a", "b", "rtol", "atol", "equal_nan"),
        defaults={"rtol": 1e-05, "atol": 1e-08, "equal_nan": False})
nondiff(np.array_equal, kind=_scalar_bool, params=("ans", "a1", "a2"))
nondiff(np.argwhere, kind=lambda k, c: Kind("i", 2), params=("ans", "a"))  # (count, rank)
nondiff(np.flatnonzero, kind=lambda k, c: Kind("i", 1), params=("ans", "a"))
# the row and column indices of a triangle of an n x m matrix, as two int vectors
nondiff(np.triu_indices, np.tril_indices, kind=lambda k, c: TupleKind((Kind("i", 1),) * 2),
        params=("ans", "n", "k", "m"), defaults={"k": 0, "m": None})
nondiff(np.fix, rt.fix, kind=ty.same, name="rt.fix")
nondiff(np.isneginf, np.isposinf, np.isreal, np.iscomplex, kind=ty.boolean)
nondiff(np.iscomplexobj, np.isscalar, kind=_scalar_bool, continuous=True)
nondiff(np.ndim, rt.ndim, kind=ty.scalar_int, name="rt.ndim", params=("ans", "a"),
        continuous=True)
nondiff(np.size, kind=ty.scalar_int, params=("ans", "a"), continuous=True)

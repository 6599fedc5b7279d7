"""More rules for NumPy: orders and indices without derivatives (argsort, searchsorted,
digitize, nonzero, bincount's counts), gathering and moving axes (take, swapaxes,
moveaxis, broadcast_to), contractions (inner, tensordot, kron, cross), signals (convolve,
sinc, interp), order statistics (median, percentile, quantile) and the reductions that
skip NaNs (nansum, nanmean, nanmax, nanmin, nan_to_num).

Their runtime helpers are in srcad/runtime/indexing.py, contractions.py, signals.py and
order.py.
"""
import numpy as np

from srcad import runtime as rt
from srcad.rules import typing as ty
from srcad.rules.registry import adjoint, nondiff, tangent

d = None  # templates say d[x] for "the adjoint of x"; they are never run
t = None  # tangent templates say t[x] for "the tangent of x" (forward mode)

# orders and indices: integers, without derivatives

nondiff(np.argsort, rt.argsort, name="rt.argsort", kind=ty.argsort, params=("ans", "a", "axis"),
        defaults={"axis": -1}, methods=("argsort",))
nondiff(np.searchsorted, kind=ty.searchsorted, params=("ans", "a", "v", "side"),
        defaults={"side": "left"})
nondiff(np.digitize, kind=ty.digitize, params=("ans", "x", "bins", "right"),
        defaults={"right": False})
nondiff(np.nonzero, kind=ty.nonzero, params=("ans", "a"), methods=("nonzero",))


# the counts of each value of `x`; given weights, the sums of its weights, linear in them
@adjoint(np.bincount, kind=ty.bincount, broadcast=False)
def bincount(ans, x, weights=None, minlength=0):
    d[weights] += rt.bincount_adjoint(d[ans], x)


@tangent(np.bincount)
def bincount_tangent(ans, x, weights=None, minlength=0):
    t[ans] = np.bincount(x, t[weights], minlength)


# gathering and moving axes


# the elements at `indices` (of the flattened array, or along `axis`): each element's
# adjoint sums the cotangents of its copies
@adjoint(np.take, rt.take, kind=ty.take, broadcast=False, name="rt.take", methods=("take",),
         sums=False, linear=True)
def take(ans, a, indices, axis=None):
    d[a] += rt.take_adjoint(d[ans], a, indices, axis)


@adjoint(np.swapaxes, kind=ty.swapaxes, broadcast=False, methods=("swapaxes",), view=True,
         sums=False, linear=True, domain={"a": (-2.0, 2.0), "axis1": 0, "axis2": -1})
def swapaxes(ans, a, axis1, axis2):
    d[a] += np.swapaxes(d[ans], axis1, axis2)


@adjoint(np.moveaxis, kind=ty.moveaxis, broadcast=False, view=True, sums=False, linear=True,
         domain={"a": (-2.0, 2.0), "source": 0, "destination": -1})
def moveaxis(ans, a, source, destination):
    d[a] += np.moveaxis(d[ans], destination, source)


# copies along new or length-1 axes: the adjoint sums them back
@adjoint(np.broadcast_to, rt.broadcast_to, kind=ty.broadcast_to, broadcast=False,
         name="rt.broadcast_to", view=True, sums=False, linear=True)
def broadcast_to(ans, array, shape):
    d[array] += rt.broadcast_adjoint(d[ans], array)


# contractions


@adjoint(np.inner, rt.inner, kind=ty.inner, broadcast=False, name="rt.inner",
         domain={"a": (-2.0, 2.0), "b": (-1.0, 1.5)})
def inner(ans, a, b):
    d[a] += rt.inner_da(d[ans], a, b)
    d[b] += rt.inner_db(d[ans], a, b)


@tangent(np.inner)
def inner_tangent(ans, a, b):
    t[ans] = rt.inner(t[a], b) + rt.inner(a, t[b])


# `axes` an int (the last axes of `a` with the first of `b`) or a pair of tuples of axes
@adjoint(np.tensordot, rt.tensordot, kind=ty.tensordot, broadcast=False, name="rt.tensordot")
def tensordot(ans, a, b, axes=2):
    d[a] += rt.tensordot_da(d[ans], a, b, axes)
    d[b] += rt.tensordot_db(d[ans], a, b, axes)


@tangent(np.tensordot)
def tensordot_tangent(ans, a, b, axes=2):
    t[ans] = rt.tensordot(t[a], b, axes) + rt.tensordot(a, t[b], axes)


# blocks a[i, j] * b
@adjoint(np.kron, rt.kron, kind=ty.kron, broadcast=False, name="rt.kron",
         domain={"a": (-2.0, 2.0), "b": (-1.0, 1.5)})
def kron(ans, a, b):
    d[a] += rt.kron_da(d[ans], a, b)
    d[b] += rt.kron_db(d[ans], a, b)


@tangent(np.kron)
def kron_tangent(ans, a, b):
    t[ans] = rt.kron(t[a], b) + rt.kron(a, t[b])


# <g, a x b> = <a, b x g> = <b, g x a>; a vector against rows is broadcast
@adjoint(np.cross, kind=ty.cross, broadcast=False)
def cross(ans, a, b):
    d[a] += rt.unbroadcast(np.cross(b, d[ans]), a)
    d[b] += rt.unbroadcast(np.cross(d[ans], a), b)


@tangent(np.cross)
def cross_tangent(ans, a, b):
    t[ans] = np.cross(t[a], b) + np.cross(a, t[b])


# signals


# in mode "same" or "valid", a window of the full convolution
@adjoint(np.convolve, kind=ty.convolve, broadcast=False,
         domain={"a": (-2.0, 2.0), "v": (-1.0, 1.5)})
def convolve(ans, a, v, mode="full"):
    d[a] += rt.convolve_da(d[ans], a, v, mode)
    d[v] += rt.convolve_dv(d[ans], a, v, mode)


@tangent(np.convolve)
def convolve_tangent(ans, a, v, mode="full"):
    t[ans] = np.convolve(t[a], v, mode) + np.convolve(a, t[v], mode)


@adjoint(np.sinc, kind=ty.elementwise, domain=(-2.0, 2.0))
def sinc(ans, x):
    d[x] += d[ans] * rt.sinc_dx(x)


@tangent(np.sinc)
def sinc_tangent(ans, x):
    t[ans] = t[x] * rt.sinc_dx(x)


# piecewise linear through (xp, fp), `xp` taken as constant: it moves with `x` by the slope
# of its segment (0 outside, where it is clamped), with `fp` by the weights of its two ends
@adjoint(np.interp, rt.interp, kind=ty.interp, broadcast=False, name="rt.interp", sums=False)
def interp(ans, x, xp, fp, left=None, right=None):
    d[x] += d[ans] * rt.interp_dx(x, xp, fp)
    d[fp] += rt.interp_dfp(d[ans], x, xp, fp, left, right)


@tangent(np.interp)
def interp_tangent(ans, x, xp, fp, left=None, right=None):
    t[ans] = t[x] * rt.interp_dx(x, xp, fp) + rt.interp_tfp(x, xp, t[fp], left, right)


# finite values kept (derivative 1), NaN and infinities replaced (derivative 0)
@adjoint(np.nan_to_num, rt.nan_to_num, kind=ty.nan_to_num, name="rt.nan_to_num", masks=True,
         domain={"x": (-2.0, 2.0)})
def nan_to_num(ans, x, copy=True, nan=0.0, posinf=None, neginf=None):
    d[x] += rt.select(np.isfinite(x), d[ans], 0.0)


@tangent(np.nan_to_num)
def nan_to_num_tangent(ans, x, copy=True, nan=0.0, posinf=None, neginf=None):
    t[ans] = rt.select(np.isfinite(x), t[x], 0.0)


# order statistics: read from the sorted values, between two neighbours; the gradient goes
# to the elements read (see srcad/runtime/order.py), and in q, the slope between them


@adjoint(np.median, rt.median, kind=ty.quantile("np.median"), broadcast=False,
         name="rt.median", sums=False, domain={"a": (-2.0, 2.0)})
def median(ans, a, axis=None):
    d[a] += rt.quantile_adjoint(d[ans], a, 0.5, axis)


@tangent(np.median)
def median_tangent(ans, a, axis=None):
    t[ans] = rt.quantile_tangent(t[a], a, 0.5, axis)


@adjoint(np.quantile, rt.quantile, kind=ty.quantile("np.quantile"), broadcast=False,
         name="rt.quantile", sums=False, domain={"a": (-2.0, 2.0), "q": (0.05, 0.95)})
def quantile(ans, a, q, axis=None):
    d[a] += rt.quantile_adjoint(d[ans], a, q, axis)
    d[q] += rt.quantile_dq(d[ans], a, q, axis)


@tangent(np.quantile)
def quantile_tangent(ans, a, q, axis=None):
    t[ans] = rt.quantile_tangent(t[a], a, q, axis) + rt.quantile_tq(t[q], a, q, axis)


@adjoint(np.percentile, rt.percentile, kind=ty.quantile("np.percentile"), broadcast=False,
         name="rt.percentile", sums=False, domain={"a": (-2.0, 2.0), "q": (5.0, 95.0)})
def percentile(ans, a, q, axis=None):
    d[a] += rt.quantile_adjoint(d[ans], a, q / 100.0, axis)
    d[q] += rt.quantile_dq(d[ans], a, q / 100.0, axis) / 100.0


@tangent(np.percentile)
def percentile_tangent(ans, a, q, axis=None):
    t[ans] = (rt.quantile_tangent(t[a], a, q / 100.0, axis)
              + rt.quantile_tq(t[q] / 100.0, a, q / 100.0, axis))


# reductions that skip NaNs: the NaNs get no gradient


@adjoint(np.nansum, rt.nansum, kind=ty.nan_reduction("np.nansum"), broadcast=False,
         name="rt.nansum", masks=True, domain={"a": (-2.0, 2.0)})
def nansum(ans, a, axis=None):
    d[a] += rt.select(np.isnan(a), 0.0, rt.expand(d[ans], axis))


@tangent(np.nansum)
def nansum_tangent(ans, a, axis=None):
    t[ans] = rt.nansum(rt.select(np.isnan(a), 0.0, t[a]), axis)


@adjoint(np.nanmean, rt.nanmean, kind=ty.nan_reduction("np.nanmean", "f"), broadcast=False,
         name="rt.nanmean", masks=True, domain={"a": (-2.0, 2.0)})
def nanmean(ans, a, axis=None):
    d[a] += rt.select(np.isnan(a), 0.0, rt.expand(d[ans] / rt.nancount(a, axis), axis))


@tangent(np.nanmean)
def nanmean_tangent(ans, a, axis=None):
    t[ans] = rt.nansum(rt.select(np.isnan(a), 0.0, t[a]), axis) / rt.nancount(a, axis)


# the first largest (smallest) value that is not NaN gets the cotangent
@adjoint(np.nanmax, rt.nanmax, kind=ty.nan_reduction("np.nanmax"), broadcast=False,
         name="rt.nanmax", sums=False, domain={"a": (-2.0, 2.0)})
def nanmax(ans, a, axis=None):
    d[a] += rt.select_adjoint(d[ans], a, ans, axis)


@tangent(np.nanmax)
def nanmax_tangent(ans, a, axis=None):
    t[ans] = rt.select_tangent(t[a], a, ans, axis)


@adjoint(np.nanmin, rt.nanmin, kind=ty.nan_reduction("np.nanmin"), broadcast=False,
         name="rt.nanmin", sums=False, domain={"a": (-2.0, 2.0)})
def nanmin(ans, a, axis=None):
    d[a] += rt.select_adjoint(d[ans], a, ans, axis)


@tangent(np.nanmin)
def nanmin_tangent(ans, a, axis=None):
    t[ans] = rt.select_tangent(t[a], a, ans, axis)

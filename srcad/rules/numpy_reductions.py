"""Rules for NumPy's reductions: sums, means and spreads, products, extremes and averages,
over every element or along an `axis`."""
import numpy as np

from srcad import runtime as rt
from srcad.rules import typing as ty
from srcad.rules.registry import adjoint, parts, tangent, ufunc_method

d = None  # templates say d[x] for "the adjoint of x"; they are never run
t = None  # tangent templates say t[x] for "the tangent of x" (forward mode)


@adjoint(np.sum, kind=ty.reduction(), broadcast=False, methods=("sum",), linear=True, complex=True)
def sum(ans, x, axis=None):
    d[x] += rt.expand(d[ans], axis)


@adjoint(np.mean, rt.mean, kind=ty.reduction("f"), broadcast=False, name="rt.mean",
         methods=("mean",), linear=True, complex=True)
def mean(ans, x, axis=None):
    d[x] += rt.expand(d[ans], axis) / rt.count(x.shape, axis)


# the deviations from the mean, over `axis`, divided by the count less `ddof`
@adjoint(np.var, rt.var, kind=ty.reduction("f"), broadcast=False, name="rt.var",
         methods=("var",), domain={"x": (-2.0, 2.0)})
def var(ans, x, axis=None, *, ddof=0):
    d[x] += rt.expand(d[ans], axis) * 2.0 * (x - rt.expand(rt.mean(x, axis), axis)) / (
        rt.count(x.shape, axis) - ddof)


@tangent(np.var)
def var_tangent(ans, x, axis=None, ddof=0):
    t[ans] = np.sum(2.0 * (x - rt.expand(rt.mean(x, axis), axis)) * t[x], axis) / (
        rt.count(x.shape, axis) - ddof)


@adjoint(np.std, rt.std, kind=ty.reduction("f"), broadcast=False, name="rt.std",
         methods=("std",), domain={"x": (-2.0, 2.0)})
def std(ans, x, axis=None, *, ddof=0):
    d[x] += rt.expand(d[ans] / ans, axis) * (x - rt.expand(rt.mean(x, axis), axis)) / (
        rt.count(x.shape, axis) - ddof)


@tangent(np.std)
def std_tangent(ans, x, axis=None, ddof=0):
    t[ans] = np.sum((x - rt.expand(rt.mean(x, axis), axis)) * t[x], axis) / (
        (rt.count(x.shape, axis) - ddof) * ans)


@adjoint(np.prod, rt.prod, kind=ty.reduction(), broadcast=False, name="rt.prod",
         methods=("prod",))
def prod(ans, x, axis=None):
    d[x] += rt.prod_adjoint(d[ans], x, axis, ans)


@tangent(np.prod)
def prod_tangent(ans, x, axis=None):
    t[ans] = rt.prod_tangent(t[x], x, axis)


# max and min are NaN when an element is, and that NaN gets the cotangent (the first one)
@adjoint(np.max, np.amax, rt.amax, kind=ty.reduction(), broadcast=False, name="rt.amax",
         methods=("max",), sums=False)
def max(ans, x, axis=None):
    d[x] += rt.select_adjoint(d[ans], x, ans, axis)


@tangent(np.max)
def max_tangent(ans, x, axis=None):
    t[ans] = rt.select_tangent(t[x], x, ans, axis)


@adjoint(np.min, np.amin, rt.amin, kind=ty.reduction(), broadcast=False, name="rt.amin",
         methods=("min",), sums=False)
def min(ans, x, axis=None):
    d[x] += rt.select_adjoint(d[ans], x, ans, axis)


@tangent(np.min)
def min_tangent(ans, x, axis=None):
    t[ans] = rt.select_tangent(t[x], x, ans, axis)


# the range: the cotangent goes to the first maximum, less to the first minimum
@adjoint(np.ptp, rt.ptp, kind=ty.reduction(of="a"), broadcast=False, name="rt.ptp", sums=False,
         domain={"a": (-2.0, 2.0)})
def ptp(ans, a, axis=None):
    d[a] += (rt.select_adjoint(d[ans], a, rt.amax(a, axis), axis)
             - rt.select_adjoint(d[ans], a, rt.amin(a, axis), axis))


@tangent(np.ptp)
def ptp_tangent(ans, a, axis=None):
    t[ans] = (rt.select_tangent(t[a], a, rt.amax(a, axis), axis)
              - rt.select_tangent(t[a], a, rt.amin(a, axis), axis))


# the weighted mean: each value moves it by its weight's share, each weight by its value's
# distance from it
@adjoint(np.average, rt.average, kind=ty.average, broadcast=False, name="rt.average",
         domain={"a": (-2.0, 2.0), "axis": None, "weights": (0.5, 2.0)})
def average(ans, a, axis=None, weights=None):
    d[a] += rt.average_da(d[ans], a, axis, weights)
    d[weights] += rt.average_dw(d[ans], a, axis, weights, ans)


@tangent(np.average)
def average_tangent(ans, a, axis=None, weights=None):
    t[ans] = rt.average(t[a], axis, weights) + rt.average_tw(t[weights], a, axis, weights, ans)


# `keepdims=True` (ResolveCalls wraps the reduction): the reduced axes kept, of length 1
@adjoint(rt.keep_dims, kind=ty.keep_dims, broadcast=False, name="rt.keep_dims", view=True,
         sums=False, linear=True)
def keep_dims(ans, r, x, axis=None):
    d[r] += rt.reshape_as(d[ans], r)


# a ufunc's reduce along `axis`, 0 unless given, as its reduction
for _ufunc, _function in ((np.add, np.sum), (np.multiply, np.prod), (np.maximum, np.max),
                          (np.minimum, np.min), (np.logical_and, np.all),
                          (np.logical_or, np.any)):
    ufunc_method(_ufunc, "reduce", _function, axis=0)


# covariances and correlations of the variables in the rows of `m` (in its columns for
# rowvar=False): see srcad/runtime/statistics.py
@adjoint(np.cov, rt.cov, kind=ty.statistic("np.cov", "m"), broadcast=False, name="rt.cov",
         domain={"m": (-2.0, 2.0)})
def cov(ans, m, y=None, rowvar=True, bias=False, ddof=None):
    d[m] += rt.cov_adjoint(d[ans], m, y, rowvar, bias, ddof)


@tangent(np.cov)
def cov_tangent(ans, m, y=None, rowvar=True, bias=False, ddof=None):
    t[ans] = rt.cov_tangent(t[m], m, y, rowvar, bias, ddof)


@adjoint(np.corrcoef, rt.corrcoef, kind=ty.statistic("np.corrcoef", "x"), broadcast=False,
         name="rt.corrcoef", domain={"x": (-2.0, 2.0)})
def corrcoef(ans, x, y=None, rowvar=True):
    d[x] += rt.corrcoef_adjoint(d[ans], x, y, rowvar)


@tangent(np.corrcoef)
def corrcoef_tangent(ans, x, y=None, rowvar=True):
    t[ans] = rt.corrcoef_tangent(t[x], x, y, rowvar)



# np.histogram: the counts (sums of the weights) move with the weights alone, the edges
# with the smallest and largest value (see srcad/runtime/statistics.py)
_HISTOGRAM = ("ans", "a", "bins", "range", "weights", "density")
parts(np.histogram, "rt.histogram_counts", "rt.histogram_edges", params=_HISTOGRAM,
      defaults={"bins": 10, "range": None, "weights": None, "density": None})


@adjoint(rt.histogram_counts, kind=ty.histogram("counts"), broadcast=False,
         name="rt.histogram_counts", sums=True)
def histogram_counts(ans, a, bins=10, range=None, weights=None, density=None):
    d[weights] += rt.histogram_weights_adjoint(d[ans], a, bins, range)


@tangent(rt.histogram_counts)
def histogram_counts_tangent(ans, a, bins=10, range=None, weights=None, density=None):
    t[ans] = rt.histogram_counts(a, bins, range, t[weights])


@adjoint(rt.histogram_edges, kind=ty.histogram("edges"), broadcast=False,
         name="rt.histogram_edges")
def histogram_edges(ans, a, bins=10, range=None, weights=None, density=None):
    d[a] += rt.histogram_edges_adjoint(d[ans], a, bins, range)


@tangent(rt.histogram_edges)
def histogram_edges_tangent(ans, a, bins=10, range=None, weights=None, density=None):
    t[ans] = rt.histogram_edges_tangent(t[a], a, bins, range)

"""Order statistics (np.median, np.percentile, np.quantile) and the reductions that skip
NaNs (np.nansum, np.nanmean, np.nanmax, np.nanmin), of the flattened array or along an
axis, with their adjoints and tangents.

A quantile is read from the sorted values, between two neighbours (NumPy's "linear"
method: position q (n - 1), weight its fraction on the upper one): its gradient goes to the
two elements it reads, through the order that sorts them (a stable sort's, where values
tie). The helpers work on lines (see `srcad.runtime.axes.lines_along`) and give results
of shape q's shape + the shape without the axis, as NumPy does.
"""
import numpy as np
from numba.extending import register_jitable
from numba.np.unsafe.ndarray import to_fixed_tuple

from srcad.runtime.axes import _axis, lines_along
from srcad.runtime.overloads import _is_array, _is_none, _jit_version


def _qs(q):
    """The quantiles `q` (a number or an array) as a 1-d float array."""
    return np.ravel(np.asarray(q, dtype=float))


@_jit_version(_qs)
def _qs_jit(q):
    if _is_array(q):
        return lambda q: np.ascontiguousarray(q).ravel() * 1.0
    return lambda q: np.full(1, q * 1.0)


def _reduced_shape(a, axis):
    if axis is None:
        return ()
    ax = axis % np.ndim(a)
    return np.shape(a)[:ax] + np.shape(a)[ax + 1:]


def _shaped(out, a, q, axis):
    """A (len q, before, after) result in NumPy's shape: q's, then `a`'s without `axis`
    (a float when that has no axes)."""
    shape = np.shape(q) + _reduced_shape(a, axis)
    return out.reshape(shape) if shape else float(out.ravel()[0])


@_jit_version(_shaped)
def _shaped_jit(out, a, q, axis):
    q_rank = q.ndim if _is_array(q) else 0
    rank = q_rank + (0 if _is_none(axis) else a.ndim - 1)
    if rank == 0:
        return lambda out, a, q, axis: np.ascontiguousarray(out).ravel()[0]

    def impl(out, a, q, axis):
        shape = np.empty(rank, np.intp)
        for i in range(q_rank):
            shape[i] = np.shape(q)[i]
        if rank > q_rank:
            ax = _axis(axis, a.ndim)
            k = q_rank
            for i in range(a.ndim):
                if i != ax:
                    shape[k] = a.shape[i]
                    k += 1
        return np.ascontiguousarray(out).reshape(to_fixed_tuple(shape, rank))

    return impl


def _like_q(values, q):
    """One value per quantile, shaped like `q` (a float for a number)."""
    return values.reshape(np.shape(q)) if np.ndim(q) else float(values[0])


@_jit_version(_like_q)
def _like_q_jit(values, q):
    if _is_array(q):
        return lambda values, q: values.reshape(q.shape)
    return lambda values, q: values[0]


@register_jitable(cache=True)
def _read(q, n):
    """(lower index, upper index, weight of the upper) of quantile `q` of n sorted values."""
    position = q * (n - 1)
    lo = min(max(int(np.floor(position)), 0), n - 1)
    return lo, min(lo + 1, n - 1), position - lo


@register_jitable(cache=True)
def _slope_at(s, q):
    """How the quantile `q` of the sorted values `s` moves with q."""
    n = s.shape[0]
    if n < 2:
        return 0.0
    lo = min(int(np.floor(q * (n - 1))), n - 2)
    return (s[lo + 1] - s[lo]) * (n - 1)


@register_jitable(cache=True)
def _quantile_lines(lines, qs):
    out = np.empty((qs.shape[0], lines.shape[0], lines.shape[2]))
    for i in range(lines.shape[0]):
        for j in range(lines.shape[2]):
            s = np.sort(lines[i, :, j])
            for r in range(qs.shape[0]):
                lo, hi, w = _read(qs[r], s.shape[0])
                out[r, i, j] = s[lo] + (s[hi] - s[lo]) * w
    return out


@register_jitable(cache=True)
def _route_lines(out, g, lines, qs, scatter):
    """Scatter (adjoint) g[r, i, j] to the two elements quantile r reads from line (i, j),
    or gather (tangent) them into out[r, i, j]."""
    for i in range(lines.shape[0]):
        for j in range(lines.shape[2]):
            order = np.argsort(lines[i, :, j], kind="mergesort")
            for r in range(qs.shape[0]):
                lo, hi, w = _read(qs[r], order.shape[0])
                if scatter:
                    out[i, order[lo], j] += g[r, i, j] * (1.0 - w)
                    out[i, order[hi], j] += g[r, i, j] * w
                else:
                    out[r, i, j] = g[i, order[lo], j] * (1.0 - w) + g[i, order[hi], j] * w


@register_jitable(cache=True)
def _slopes(lines, qs):
    out = np.empty((qs.shape[0], lines.shape[0], lines.shape[2]))
    for i in range(lines.shape[0]):
        for j in range(lines.shape[2]):
            s = np.sort(lines[i, :, j])
            for r in range(qs.shape[0]):
                out[r, i, j] = _slope_at(s, qs[r])
    return out


@register_jitable(cache=True)
def _as_results(g, qs, lines):
    """A cotangent or tangent of the result as (len q, before, after)."""
    return np.ascontiguousarray(np.asarray(g) * 1.0).reshape(
        (qs.shape[0], lines.shape[0], lines.shape[2]))


@register_jitable(cache=True)
def _quantile(a, q, axis=None):
    lines = lines_along(a, axis)
    return _shaped(_quantile_lines(lines, _qs(q)), a, q, axis)


@register_jitable(cache=True)
def quantile_adjoint(g, a, q, axis=None):
    """Adjoint of np.quantile(a, q, axis) in `a`, shaped like `a`."""
    qs, lines = _qs(q), lines_along(a, axis)
    out = np.zeros(a.shape)
    _route_lines(lines_along(out, axis), _as_results(g, qs, lines), lines, qs, True)
    return out


@register_jitable(cache=True)
def quantile_tangent(t, a, q, axis=None):
    """Tangent of np.quantile(a, q, axis) along `t` (shaped like `a`)."""
    qs, lines = _qs(q), lines_along(a, axis)
    out = np.empty((qs.shape[0], lines.shape[0], lines.shape[2]))
    tl = lines_along(np.ascontiguousarray(np.asarray(t) * 1.0) + np.zeros(a.shape), axis)
    _route_lines(out, tl, lines, qs, False)
    return _shaped(out, a, q, axis)


@register_jitable(cache=True)
def quantile_dq(g, a, q, axis=None):
    """Adjoint of np.quantile(a, q, axis) in `q`, shaped like `q`."""
    qs, lines = _qs(q), lines_along(a, axis)
    slopes = _slopes(lines, qs) * _as_results(g, qs, lines)
    out = np.empty(qs.shape[0])
    for r in range(qs.shape[0]):
        out[r] = np.sum(slopes[r])
    return _like_q(out, q)


@register_jitable(cache=True)
def quantile_tq(t, a, q, axis=None):
    """Tangent of np.quantile(a, q, axis) along `t` in `q`."""
    qs, lines = _qs(q), lines_along(a, axis)
    ts = _qs(t) * np.ones(qs.shape[0])
    slopes = _slopes(lines, qs)
    for r in range(qs.shape[0]):
        slopes[r] *= ts[r]
    return _shaped(slopes, a, q, axis)


def quantile(a, q, axis=None):
    """np.quantile(a, q, axis): `q` a number or a 1-d array, `axis` None or an int."""
    return np.quantile(a, q, axis=axis)


def percentile(a, q, axis=None):
    """np.percentile(a, q, axis)."""
    return np.percentile(a, q, axis=axis)


def median(a, axis=None):
    """np.median(a, axis)."""
    return np.median(a, axis=axis)


@_jit_version(quantile)
def _quantile_jit(a, q, axis=None):
    if _is_none(axis):
        return lambda a, q, axis=None: np.quantile(a, q)
    return lambda a, q, axis=None: _quantile(a, q, axis)


@_jit_version(percentile)
def _percentile_jit(a, q, axis=None):
    if _is_none(axis):
        return lambda a, q, axis=None: np.percentile(a, q)
    return lambda a, q, axis=None: _quantile(a, q / 100.0, axis)


@_jit_version(median)
def _median_jit(a, axis=None):
    if _is_none(axis):
        return lambda a, axis=None: np.median(a)
    return lambda a, axis=None: _quantile(a, 0.5, axis)


# reductions that skip NaNs: the NaNs get no gradient

_SUM, _MEAN, _MAX, _MIN, _COUNT = 0, 1, 2, 3, 4


@register_jitable(cache=True)
def _nan_lines(lines, op):
    out = np.empty((lines.shape[0], lines.shape[2]))
    for i in range(lines.shape[0]):
        for j in range(lines.shape[2]):
            acc, count = 0.0, 0
            for k in range(lines.shape[1]):
                v = lines[i, k, j]
                if v != v:
                    continue
                if op == _MAX:
                    acc = v if count == 0 or v > acc else acc
                elif op == _MIN:
                    acc = v if count == 0 or v < acc else acc
                else:
                    acc += v
                count += 1
            if op == _MEAN:
                acc = acc / count if count else np.nan
            elif op == _COUNT:
                acc = count
            elif op != _SUM and count == 0:
                acc = np.nan
            out[i, j] = acc
    return out


def _along(a, axis, op):
    """The reduction `op` of `a`'s lines along `axis` (an int), shaped without it."""
    out = _nan_lines(lines_along(a * 1.0, axis), op)
    return _shaped(out.reshape((1,) + out.shape), a, 0.0, axis)


@_jit_version(_along)
def _along_jit(a, axis, op):
    def impl(a, axis, op):
        out = _nan_lines(lines_along(a * 1.0, axis), op)
        return _shaped(out.reshape((1,) + out.shape), a, 0.0, axis)

    return impl


def nansum(a, axis=None):
    """np.nansum(a, axis)."""
    return np.nansum(a, axis=axis)


def nanmean(a, axis=None):
    """np.nanmean(a, axis)."""
    return np.nanmean(a, axis=axis)


def nanmax(a, axis=None):
    """np.nanmax(a, axis)."""
    return np.nanmax(a, axis=axis)


def nanmin(a, axis=None):
    """np.nanmin(a, axis)."""
    return np.nanmin(a, axis=axis)


def nancount(a, axis=None):
    """How many values that are not NaN np.nanmean(a, axis) averages."""
    return np.sum(~np.isnan(a), axis=axis)


def _nan_version(whole, op):
    def factory(a, axis=None):
        if _is_none(axis):
            return lambda a, axis=None: whole(a)
        return lambda a, axis=None: _along(a, axis, op)
    return factory


def _count_whole(a):
    return np.sum(~np.isnan(a))


_jit_version(nansum)(_nan_version(np.nansum, _SUM))
_jit_version(nanmean)(_nan_version(np.nanmean, _MEAN))
_jit_version(nanmax)(_nan_version(np.nanmax, _MAX))
_jit_version(nanmin)(_nan_version(np.nanmin, _MIN))
_jit_version(nancount)(_nan_version(register_jitable(_count_whole), _COUNT))


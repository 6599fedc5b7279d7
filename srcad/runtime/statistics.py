"""np.cov and np.corrcoef of one array, np.histogram's counts and edges, and their
adjoints and tangents.

The array holds variables in rows (`rowvar=False`: in columns), as NumPy reads it. Each
function works on the variables as rows of a C-ordered float matrix (`_as_variables`)
and gives its result the rank NumPy gives it: a float for a 1-d array (one variable), a
matrix for a 2-d one. Compiled, that rank must be known when the call is typed, so a 2-d
array that holds a single variable (NumPy returns a 0-d array) is refused when it runs.
"""
import numpy as np
from numba.extending import register_jitable

from srcad.runtime.overloads import _is_array, _is_none, _jit_version

_ONE_VARIABLE = ("np.cov/np.corrcoef of a 2-d array holding one variable: srcad gives a "
                 "float only for a 1-d array; pass the variable as a 1-d array")


def _as_variables(m, rowvar):
    x = np.atleast_2d(np.asarray(m, dtype=np.float64))
    return np.ascontiguousarray(x.T if not rowvar and x.shape[0] != 1 else x)


@_jit_version(_as_variables)
def _as_variables_jit(m, rowvar):
    if m.ndim == 1:
        return lambda m, rowvar: np.ascontiguousarray(m).reshape((1, m.shape[0])) * 1.0

    def rows(m, rowvar):
        if not rowvar and m.shape[0] != 1:
            return np.ascontiguousarray(m.T) * 1.0
        return np.ascontiguousarray(m) * 1.0

    return rows


def _from_variables(g, m, rowvar):
    """A gradient with respect to the rows of `_as_variables(m, rowvar)`, shaped like `m`."""
    if np.ndim(m) == 1:
        return g[0].copy()
    return g.T.copy() if not rowvar and np.shape(m)[0] != 1 else g


@_jit_version(_from_variables)
def _from_variables_jit(g, m, rowvar):
    if m.ndim == 1:
        return lambda g, m, rowvar: g[0].copy()

    def back(g, m, rowvar):
        if not rowvar and m.shape[0] != 1:
            return np.ascontiguousarray(g.T)
        return g

    return back


def _result(c, m):
    if np.ndim(m) == 1:
        return float(c[0, 0])
    if c.shape[0] == 1:
        raise ValueError(_ONE_VARIABLE)
    return c


@_jit_version(_result)
def _result_jit(c, m):
    if m.ndim == 1:
        return lambda c, m: c[0, 0]

    def matrix(c, m):
        if c.shape[0] == 1:
            raise ValueError(_ONE_VARIABLE)
        return c

    return matrix


def _as_matrix(g, m):
    """A cotangent or tangent of the result as a matrix (a float's as 1 x 1)."""
    return np.full((1, 1), g) if np.ndim(m) == 1 else np.ascontiguousarray(g) * 1.0


@_jit_version(_as_matrix)
def _as_matrix_jit(g, m):
    if m.ndim == 1:
        return lambda g, m: np.full((1, 1), g)
    return lambda g, m: np.ascontiguousarray(g) * 1.0


def _dof(n, bias, ddof):
    """The divisor: the observations less `ddof` (by default 1, or 0 given `bias`)."""
    return n - (0 if bias else 1) if ddof is None else n - ddof


@_jit_version(_dof)
def _dof_jit(n, bias, ddof):
    if _is_none(ddof):
        return lambda n, bias, ddof: n - (0 if bias else 1)
    return lambda n, bias, ddof: n - ddof


@register_jitable(cache=True)
def _centered(x):
    """The rows of `x` less their means."""
    out = np.empty(x.shape)
    for i in range(x.shape[0]):
        mean = 0.0
        for j in range(x.shape[1]):
            mean += x[i, j]
        mean /= x.shape[1]
        for j in range(x.shape[1]):
            out[i, j] = x[i, j] - mean
    return out


@register_jitable(cache=True)
def _covariances(x, fact):
    xc = _centered(x)
    return xc @ np.ascontiguousarray(xc.T) / fact


@register_jitable(cache=True)
def cov(m, y=None, rowvar=True, bias=False, ddof=None):
    """np.cov(m, rowvar=, bias=, ddof=) (`y` is refused where the call is typed)."""
    x = _as_variables(m, rowvar)
    return _result(_covariances(x, _dof(x.shape[1], bias, ddof)), m)


@register_jitable(cache=True)
def _cov_adjoint_rows(g, x, fact):
    """Adjoint of `_covariances(x, fact)`: centering is a projection, so the gradient of
    the centred rows, centred again."""
    gs = g + np.ascontiguousarray(g.T)
    return _centered(gs @ _centered(x) / fact)


@register_jitable(cache=True)
def cov_adjoint(g, m, y=None, rowvar=True, bias=False, ddof=None):
    x = _as_variables(m, rowvar)
    fact = _dof(x.shape[1], bias, ddof)
    return _from_variables(_cov_adjoint_rows(_as_matrix(g, m), x, fact), m, rowvar)


@register_jitable(cache=True)
def _cov_tangent_rows(t, x, fact):
    p = _centered(t) @ np.ascontiguousarray(_centered(x).T)
    return (p + np.ascontiguousarray(p.T)) / fact


@register_jitable(cache=True)
def cov_tangent(t, m, y=None, rowvar=True, bias=False, ddof=None):
    x = _as_variables(m, rowvar)
    fact = _dof(x.shape[1], bias, ddof)
    return _result(_cov_tangent_rows(_as_variables(t, rowvar), x, fact), m)


@register_jitable(cache=True)
def _correlations(c):
    """c[i, j] / sqrt(c[i, i] c[j, j]), kept within [-1, 1] as NumPy keeps it."""
    r = np.empty(c.shape)
    for i in range(c.shape[0]):
        for j in range(c.shape[1]):
            r[i, j] = min(max(c[i, j] / np.sqrt(c[i, i] * c[j, j]), -1.0), 1.0)
    return r


@register_jitable(cache=True)
def corrcoef(x, y=None, rowvar=True):
    """np.corrcoef(x, rowvar=) (`y` is refused where the call is typed)."""
    v = _as_variables(x, rowvar)
    return _result(_correlations(_covariances(v, 1.0)), x)


@register_jitable(cache=True)
def corrcoef_adjoint(g, x, y=None, rowvar=True):
    """r = c / (s s^T), s = sqrt(diag c): dc = g / (s s^T), and each c[k, k] also gets
    -(the sum over row and column k of g * r) / (2 c[k, k])."""
    v = _as_variables(x, rowvar)
    c = _covariances(v, 1.0)
    r = _correlations(c)
    gm = _as_matrix(g, x)
    dc = np.empty(c.shape)
    for i in range(c.shape[0]):
        for j in range(c.shape[1]):
            dc[i, j] = gm[i, j] / np.sqrt(c[i, i] * c[j, j])
    for k in range(c.shape[0]):
        s = 0.0
        for j in range(c.shape[0]):
            s += gm[k, j] * r[k, j] + gm[j, k] * r[j, k]
        dc[k, k] -= 0.5 * s / c[k, k]
    return _from_variables(_cov_adjoint_rows(dc, v, 1.0), x, rowvar)


@register_jitable(cache=True)
def corrcoef_tangent(t, x, y=None, rowvar=True):
    v = _as_variables(x, rowvar)
    c = _covariances(v, 1.0)
    r = _correlations(c)
    dc = _cov_tangent_rows(_as_variables(t, rowvar), v, 1.0)
    out = np.empty(c.shape)
    for i in range(c.shape[0]):
        for j in range(c.shape[1]):
            out[i, j] = dc[i, j] / np.sqrt(c[i, i] * c[j, j]) - 0.5 * r[i, j] * (
                dc[i, i] / c[i, i] + dc[j, j] / c[j, j])
    return _result(out, x)


# np.histogram(a, bins, range, weights): counts (sums of the weights) per bin, and the bin
# edges; a value on an edge counts in the bin it starts, the last edge in the last bin


def histogram_edges(a, bins=10, range=None, weights=None, density=None):
    return np.histogram_bin_edges(a, bins, range)


@_jit_version(histogram_edges)
def _histogram_edges(a, bins=10, range=None, weights=None, density=None):
    if _is_array(bins):
        return lambda a, bins=10, range=None, weights=None, density=None: bins * 1.0

    def uniform(a, bins=10, range=None, weights=None, density=None):
        lo, hi = _limits(a, range)
        return np.linspace(lo, hi, bins + 1)

    return uniform


def _limits(a, range):
    lo, hi = (float(np.min(a)), float(np.max(a))) if range is None else range
    return (lo - 0.5, hi + 0.5) if lo == hi else (float(lo), float(hi))


@_jit_version(_limits)
def _limits_jit(a, range):
    if _is_none(range):
        def spread(a, range):
            lo, hi = np.min(a) * 1.0, np.max(a) * 1.0
            return (lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)
        return spread

    def given(a, range):
        lo, hi = range[0] * 1.0, range[1] * 1.0
        return (lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)

    return given


@register_jitable(cache=True)
def _bins_of(a, edges):
    """Each value's bin (-1 outside the edges)."""
    x = np.ascontiguousarray(a).ravel()
    out = np.searchsorted(edges, x, side="right") - 1
    last = edges.shape[0] - 1
    for i in range(x.shape[0]):
        if x[i] == edges[last]:
            out[i] = last - 1
        elif out[i] >= last:
            out[i] = -1
    return out


def histogram_counts(a, bins=10, range=None, weights=None, density=None):
    return np.histogram(a, bins, range, weights=weights)[0]


@_jit_version(histogram_counts)
def _histogram_counts(a, bins=10, range=None, weights=None, density=None):
    if _is_none(weights):
        def counted(a, bins=10, range=None, weights=None, density=None):
            edges = histogram_edges(a, bins, range)
            out = np.zeros(edges.shape[0] - 1, np.int64)
            for b in _bins_of(a, edges):
                if b >= 0:
                    out[b] += 1
            return out
        return counted

    def weighed(a, bins=10, range=None, weights=None, density=None):
        edges = histogram_edges(a, bins, range)
        out = np.zeros(edges.shape[0] - 1)
        w = np.ascontiguousarray(weights).ravel()
        for i, b in enumerate(_bins_of(a, edges)):
            if b >= 0:
                out[b] += w[i]
        return out

    return weighed


@register_jitable(cache=True)
def histogram_weights_adjoint(g, a, bins=10, range=None):
    """Adjoint of the weighted counts in the weights: each weight gets its bin's `g`."""
    edges = histogram_edges(a, bins, range)
    out = np.zeros(a.size)
    for i, b in enumerate(_bins_of(a, edges)):
        if b >= 0:
            out[i] = g[b]
    return out.reshape(a.shape)


def _moves_edges(bins, range):
    """Whether the edges move with the values: computed from their extremes."""
    return range is None and np.ndim(bins) == 0


@_jit_version(_moves_edges)
def _moves_edges_jit(bins, range):
    moves = _is_none(range) and not _is_array(bins)
    return lambda bins, range: moves


@register_jitable(cache=True)
def histogram_edges_adjoint(g, a, bins=10, range=None):
    """Adjoint of the edges in the values: edge k is lo + (hi - lo) k / n, lo and hi the
    first smallest and first largest value (nothing when `range` or the edges are given)."""
    out = np.zeros(a.size)
    if _moves_edges(bins, range):
        x = np.ascontiguousarray(a).ravel()
        n = g.shape[0] - 1
        low, high = 0.0, 0.0
        for k in np.arange(n + 1):
            low += g[k] * (1.0 - k / n)
            high += g[k] * (k / n)
        out[np.argmin(x)] += low
        out[np.argmax(x)] += high
    return out.reshape(a.shape)


@register_jitable(cache=True)
def histogram_edges_tangent(t, a, bins=10, range=None):
    n = histogram_edges(a, bins, range).shape[0] - 1
    out = np.zeros(n + 1)
    if _moves_edges(bins, range):
        x = np.ascontiguousarray(a).ravel()
        ts = np.ascontiguousarray(t).ravel()
        for k in np.arange(n + 1):
            out[k] = ts[np.argmin(x)] * (1.0 - k / n) + ts[np.argmax(x)] * (k / n)
    return out

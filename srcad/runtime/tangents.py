"""Helpers of forward mode (tangents) that NumPy or Numba lack."""

import numpy as np
from numba.extending import register_jitable

from srcad.runtime.overloads import _is_array, _is_none, _jit_version
from srcad.runtime.reductions import _is_extreme, _is_extreme_element, _prod_others


def dot(x, y):
    """np.dot(x, y), scalar operands included (which Numba's np.dot refuses)."""
    return np.dot(x, y)


@_jit_version(dot)
def _dot(x, y):
    if _is_array(x) and _is_array(y):
        return lambda x, y: np.dot(np.ascontiguousarray(x), np.ascontiguousarray(y))
    return lambda x, y: x * y


def arange_tstart(n, stop):
    """How the `n` elements of np.arange(start, stop, ...) move with start: all by 1, or
    none for `np.arange(stop)` (one argument), whose values do not depend on it."""
    return np.zeros(n) if stop is None else np.ones(n)


@_jit_version(arange_tstart)
def _arange_tstart(n, stop):
    if _is_none(stop):
        return lambda n, stop: np.zeros(n)
    return lambda n, stop: np.ones(n)


def prod_tangent(t, x, axis):
    """Tangent of `np.prod(x, axis)` along `t`: the sum over the reduced axis of `t` times
    the product of the other factors (no division, exact with zeros)."""
    if axis is None:
        return np.sum(t * _prod_others(np.ravel(x)).reshape(np.shape(x)))
    moved = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    others = np.moveaxis(np.apply_along_axis(_prod_others, -1, moved), -1, axis)
    return np.sum(t * others, axis=axis)


@_jit_version(prod_tangent)
def _prod_tangent(t, x, axis):
    if _is_none(axis) or x.ndim == 1:
        def impl(t, x, axis):
            others = _prod_others(np.ascontiguousarray(x).ravel()).reshape(x.shape)
            return np.sum(t * others)
        return impl
    if x.ndim != 2:
        return None

    def impl2(t, x, axis):
        others = np.empty(x.shape)
        ax = axis % 2
        if ax == 0:
            for j in range(x.shape[1]):
                others[:, j] = _prod_others(np.ascontiguousarray(x[:, j]))
        else:
            for i in range(x.shape[0]):
                others[i, :] = _prod_others(np.ascontiguousarray(x[i, :]))
        return np.sum(t * others, axis=ax)

    return impl2


@register_jitable(cache=True)
def _prod_others_dt(v, t):
    """For 1-d `v`, `t`: the derivative of `_prod_others(v)` along `t`, that is
    out[i] = sum over j != i of t[j] times the product of v[k], k not in {i, j}. Forward
    mode through the prefix and suffix products: exact with zeros, no division."""
    n = v.shape[0]
    pre = np.empty(n)
    dpre = np.empty(n)
    acc, dacc = 1.0, 0.0
    for i in range(n):
        pre[i] = acc
        dpre[i] = dacc
        dacc = dacc * v[i] + acc * t[i]
        acc *= v[i]
    out = np.empty(n)
    acc, dacc = 1.0, 0.0
    for i in range(n - 1, -1, -1):
        out[i] = dpre[i] * acc + pre[i] * dacc
        dacc = dacc * v[i] + acc * t[i]
        acc *= v[i]
    return out


def prod_tangent_dx(g, t, x, axis):
    """Adjoint with respect to `x` of `prod_tangent(t, x, axis)` for cotangent `g`: the
    second derivatives of the product along `t`."""
    x = np.asarray(x, dtype=float)
    t = np.broadcast_to(np.asarray(t, dtype=float), x.shape)
    if axis is None:
        return g * _prod_others_dt(np.ravel(x), np.ravel(t)).reshape(x.shape)
    xm, tm = np.moveaxis(x, axis, -1), np.moveaxis(t, axis, -1)
    out = np.empty(xm.shape)
    for idx in np.ndindex(xm.shape[:-1]):
        out[idx] = _prod_others_dt(xm[idx], tm[idx])
    return np.moveaxis(out, -1, axis) * np.expand_dims(np.broadcast_to(g, xm.shape[:-1]), axis)


@_jit_version(prod_tangent_dx)
def _prod_tangent_dx(g, t, x, axis):
    if _is_none(axis) or x.ndim == 1:
        def impl(g, t, x, axis):
            ts = np.ascontiguousarray(t).ravel()
            xs = np.ascontiguousarray(x).ravel()
            return g * _prod_others_dt(xs, ts).reshape(x.shape)
        return impl
    if x.ndim != 2:
        return None
    if not _is_array(g):
        def impl_scalar_g(g, t, x, axis):
            return prod_tangent_dx(np.full(x.shape[1 - axis % 2], g * 1.0), t, x, axis)
        return impl_scalar_g

    def impl2(g, t, x, axis):  # t has x's shape (it is x's tangent)
        tb = t
        out = np.empty(x.shape)
        if axis % 2 == 0:
            for j in range(x.shape[1]):
                out[:, j] = g[j] * _prod_others_dt(np.ascontiguousarray(x[:, j]),
                                                   np.ascontiguousarray(tb[:, j]))
        else:
            for i in range(x.shape[0]):
                out[i, :] = g[i] * _prod_others_dt(np.ascontiguousarray(x[i, :]),
                                                   np.ascontiguousarray(tb[i, :]))
        return out

    return impl2


def select_tangent(t, x, ans, axis):
    """Tangent of max/min reductions along `t`: the tangent of the first extreme element
    (where `select_adjoint` sends the whole cotangent)."""
    t = np.broadcast_to(t, np.shape(x))
    if axis is None:
        return t.flat[int(np.argmax(_is_extreme(np.ravel(x), ans)))]
    if isinstance(axis, tuple):  # the reduced axes last, as one: a reduction along it
        reduced = [a % x.ndim for a in axis]
        kept = [a for a in range(x.ndim) if a not in reduced]
        shape = [x.shape[a] for a in kept] + [-1]
        return select_tangent(np.transpose(t, kept + reduced).reshape(shape),
                              np.transpose(x, kept + reduced).reshape(shape), ans, -1)
    hit = np.argmax(_is_extreme(x, np.expand_dims(ans, axis)), axis=axis)
    out = np.squeeze(np.take_along_axis(t, np.expand_dims(hit, axis), axis), axis)
    return out[()] if out.ndim == 0 else out


@_jit_version(select_tangent)
def _select_tangent(t, x, ans, axis):
    whole = _is_none(axis) or x.ndim == 1
    if not _is_array(t):  # one tangent for all the elements of x
        if whole:
            return lambda t, x, ans, axis: t * 1.0
        return lambda t, x, ans, axis: np.full(ans.shape, t * 1.0)
    if whole:
        def impl(t, x, ans, axis):
            xs = np.ascontiguousarray(x).ravel()
            ts = np.ascontiguousarray(t).ravel()
            for i in range(xs.size):
                if _is_extreme_element(xs[i], ans):
                    return ts[i] * 1.0
            return 0.0
        return impl
    if x.ndim != 2:
        return None

    def impl2(t, x, ans, axis):
        out = np.zeros(ans.shape)
        if axis % 2 == 0:
            for j in range(x.shape[1]):
                for i in range(x.shape[0]):
                    if _is_extreme_element(x[i, j], ans[j]):
                        out[j] = t[i, j]
                        break
        else:
            for i in range(x.shape[0]):
                for j in range(x.shape[1]):
                    if _is_extreme_element(x[i, j], ans[i]):
                        out[i] = t[i, j]
                        break
        return out

    return impl2

"""np.average with weights, and its adjoints and tangent in the values and the weights.

The weights are as many as the values, or (given an axis) one per element along it;
without weights, the average is the mean. Compiled, `axis` is None or an int.
"""
import numpy as np
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import register_jitable

from srcad.runtime.axes import _axis, lines_along
from srcad.runtime.overloads import _is_none, _jit_version
from srcad.runtime.reductions import count, expand, mean


def average(a, axis=None, weights=None):
    """np.average(a, axis, weights)."""
    return np.average(a, axis, weights)


def _spread(weights, a, axis):
    """`weights` broadcastable to `a`: as they are, or (one per element along `axis`)
    given that axis alone."""
    if np.ndim(weights) == np.ndim(a):
        return weights
    shape = [1] * np.ndim(a)
    shape[axis] = -1
    return np.reshape(weights, shape)


@_jit_version(_spread)
def _spread_jit(weights, a, axis):
    if weights.ndim == a.ndim:
        return lambda weights, a, axis: weights

    def along(weights, a, axis):
        shape = a.shape
        for i in range(a.ndim):
            shape = tuple_setitem(shape, i, 1)
        shape = tuple_setitem(shape, _axis(axis, a.ndim), weights.shape[0])
        return np.ascontiguousarray(weights).reshape(shape)

    return along


def _whole(a, axis):
    """Whether an average over `axis` (Numba types) takes every element of `a`."""
    return _is_none(axis) or a.ndim == 1


@_jit_version(average)
def _average(a, axis=None, weights=None):
    if _is_none(weights):
        return lambda a, axis=None, weights=None: mean(a, axis)
    if _whole(a, axis):
        return lambda a, axis=None, weights=None: np.sum(a * weights) / np.sum(weights)

    def along(a, axis=None, weights=None):
        w = _spread(weights, a, axis)
        return np.sum(a * w, axis) / np.sum(w, axis)

    return along


def average_da(g, a, axis=None, weights=None):
    """Adjoint of np.average(a, axis, weights) in `a`: `g` shared out in proportion to
    the weights (equally, without them)."""
    if weights is None:
        return np.zeros(np.shape(a)) + expand(g, axis) / count(np.shape(a), axis)
    w = _spread(weights, a, axis)
    return expand(g, axis) * w / expand(np.sum(w, axis), axis)


@_jit_version(average_da)
def _average_da(g, a, axis=None, weights=None):
    if _is_none(weights):
        return lambda g, a, axis=None, weights=None: \
            np.zeros(a.shape) + expand(g, axis) / count(a.shape, axis)
    if _whole(a, axis):
        return lambda g, a, axis=None, weights=None: g * weights / np.sum(weights)

    def along(g, a, axis=None, weights=None):
        w = _spread(weights, a, axis)
        return np.expand_dims(g, axis) * w / np.expand_dims(np.sum(w, axis), axis)

    return along


def average_dw(g, a, axis, weights, ans):
    """Adjoint of np.average(a, axis, weights) in the weights: `g` times each value's
    distance from the average `ans`, over the weights' sum, summed to the weights' shape."""
    w = _spread(weights, a, axis)
    full = expand(g, axis) * (a - expand(ans, axis)) / expand(np.sum(w, axis), axis)
    if np.ndim(weights) == np.ndim(a):
        return full
    return np.sum(lines_along(full, axis), axis=(0, 2))


@register_jitable(cache=True)
def _weighted_distances(g, a, axis, weights, ans):
    """`average_dw` before the sum to the weights' shape, for an int `axis`."""
    w = _spread(weights, a, axis)
    return np.expand_dims(g, axis) * (a - np.expand_dims(ans, axis)) / np.expand_dims(
        np.sum(w, axis), axis)


@_jit_version(average_dw)
def _average_dw(g, a, axis, weights, ans):
    if _whole(a, axis):
        return lambda g, a, axis, weights, ans: g * (a - ans) / np.sum(weights)
    if weights.ndim == a.ndim:
        return _weighted_distances

    def along(g, a, axis, weights, ans):
        lines = lines_along(_weighted_distances(g, a, axis, weights, ans), axis)
        out = np.zeros(lines.shape[1])
        for k in range(lines.shape[1]):
            out[k] = np.sum(lines[:, k, :])
        return out

    return along


def average_tw(t, a, axis, weights, ans):
    """Tangent of np.average(a, axis, weights) along `t`, a tangent of the weights."""
    w = _spread(weights, a, axis)
    return np.sum(_spread(t, a, axis) * (a - expand(ans, axis)), axis) / np.sum(w, axis)


@_jit_version(average_tw)
def _average_tw(t, a, axis, weights, ans):
    if _whole(a, axis):
        return lambda t, a, axis, weights, ans: np.sum(t * (a - ans)) / np.sum(weights)

    def along(t, a, axis, weights, ans):
        w = _spread(weights, a, axis)
        return np.sum(_spread(t, a, axis) * (a - np.expand_dims(ans, axis)), axis) / np.sum(
            w, axis)

    return along

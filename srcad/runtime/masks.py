"""Boolean-mask subscripts, as the sweeps write them: `x[m]` read, written and added into.

`m` is a boolean array of x's shape (`x[m]` is then the 1-d array of the selected elements
in C order), or a 1-d mask along one axis of a 2-d `x` (`axis` 0 for `x[m]` and `x[m, :]`,
1 for `x[:, m]`). Run by Python, each helper is that NumPy subscript. Numba indexes with a
1-d mask only and does not check its length, so the compiled helpers loop over the
elements, and raise IndexError where NumPy would (ValueError for a value of the wrong
length).
"""

import numpy as np
from numba import types
from numba.extending import register_jitable

from srcad.runtime.overloads import _is_array, _is_none, _jit_version, fresh


def _index(m, axis):
    return m if axis is None else (slice(None),) * axis + (m,)


@fresh
def masked(x, m, axis=None):
    """x[m] (`axis` 1: x[:, m])."""
    return x[_index(m, axis)]


def set_masked(x, m, v, axis=None):
    """x[m] = v (`axis` 1: x[:, m] = v)."""
    x[_index(m, axis)] = v


def add_masked(x, m, v, axis=None):
    """x[m] += v (`axis` 1: x[:, m] += v): a mask selects each element once, so this
    adds `v` into the selected elements exactly."""
    x[_index(m, axis)] += v


# compiled: checks


@register_jitable(cache=True)
def _check_shape(shape, mask_shape):
    if shape != mask_shape:
        raise IndexError("boolean index did not match indexed array")


@register_jitable(cache=True)
def _check_axis(shape, mask_shape, axis):
    if mask_shape[0] != shape[axis]:
        raise IndexError("boolean index did not match indexed array along the masked axis")


@register_jitable(cache=True)
def _check_count(m, v):
    n = np.count_nonzero(m)
    if v.shape[0] != n and v.shape[0] != 1:
        raise ValueError("NumPy boolean array indexing assignment cannot assign this many "
                         "input values to the output values where the mask is true")


def _form(x, m, axis):
    """Which subscript the types make: "elements" (m of x's shape), "axis" (1-d m along
    one axis of a 2-d x), or None (not a mask subscript the compiled helpers take)."""
    if not (_is_array(x) and _is_array(m) and isinstance(m.dtype, types.Boolean)):
        return None
    if _is_none(axis) and m.ndim == x.ndim:
        return "elements"
    if m.ndim == 1 and x.ndim == 2:
        return "axis"
    return None


# compiled: the helpers


@_jit_version(masked)
def _masked(x, m, axis=None):
    form = _form(x, m, axis)
    if form == "axis":
        def along(x, m, axis=None):
            a = 0 if axis is None else axis
            _check_axis(x.shape, m.shape, a)
            if a == 0:
                return x[m, :]
            return x[:, m]
        return along
    if form != "elements":
        return None

    def elements(x, m, axis=None):
        _check_shape(x.shape, m.shape)
        out = np.empty(np.count_nonzero(m), dtype=x.dtype)
        k = 0
        for idx in np.ndindex(m.shape):
            if m[idx]:
                out[k] = x[idx]
                k += 1
        return out
    return elements


def _elementwise_write(add):
    """The compiled `x[m] = v` (or `+=`, `add`) for a mask of x's shape."""
    def factory(x, m, v, axis=None):
        if _is_array(v):
            if v.ndim != 1:
                return None

            def from_array(x, m, v, axis=None):
                _check_shape(x.shape, m.shape)
                _check_count(m, v)
                step = 1 if v.shape[0] > 1 else 0
                k = 0
                for idx in np.ndindex(m.shape):
                    if m[idx]:
                        x[idx] = x[idx] + v[k] if add else v[k]
                        k += step
            return from_array

        def from_scalar(x, m, v, axis=None):
            _check_shape(x.shape, m.shape)
            for idx in np.ndindex(m.shape):
                if m[idx]:
                    x[idx] = x[idx] + v if add else v
        return from_scalar
    return factory


def _masked_write(add):
    """The Numba implementation of `add_masked` (`add`) or of `set_masked`."""
    def factory(x, m, v, axis=None):
        form = _form(x, m, axis)
        if form == "elements":
            return _elementwise_write(add)(x, m, v, axis)
        if form != "axis":
            return None

        def along(x, m, v, axis=None):
            a = 0 if axis is None else axis
            _check_axis(x.shape, m.shape, a)
            if a == 0:
                x[m, :] = x[m, :] + v if add else v
            else:
                x[:, m] = x[:, m] + v if add else v
        return along
    return factory


_jit_version(set_masked)(_masked_write(False))
_jit_version(add_masked)(_masked_write(True))

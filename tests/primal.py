"""The value srcad returns is the function's own: a forward sweep that computes a different
value is a wrong gradient waiting.

`assert_primal(f, args, value, jit)` compares the value that `value_and_grad`, `vjp` or
`jvp` returned with `f(*args)`: bit for bit with `jit=False` (the generated module runs
the same operations in the same order), and with `jit=True` bit for bit with
`numba.njit(f)(*args)` where Numba compiles `f`, else within a few ulps of `f(*args)`
(Numba's `math` and reductions may round differently from CPython's and NumPy's).
"""
import types

import numba
import numpy as np

ULPS = 8


def _fresh(args):
    return [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]


def _njit(f):
    """`numba.njit(f)`, with the module-level functions it calls njit-ed as well."""
    g = dict(f.__globals__)
    for k, v in list(g.items()):
        if isinstance(v, types.FunctionType) and v.__module__ == f.__module__:
            g[k] = numba.njit(types.FunctionType(v.__code__, g, k, v.__defaults__,
                                                 v.__closure__))
    return numba.njit(types.FunctionType(f.__code__, g, f.__name__, f.__defaults__,
                                         f.__closure__))


def _flat(value):
    if isinstance(value, tuple):
        return [x for v in value for x in _flat(v)]
    return [np.asarray(value, dtype=np.float64)]


def _equal(got, want):
    return len(got) == len(want) and all(
        g.shape == w.shape and np.array_equal(g, w, equal_nan=True) for g, w in zip(got, want))


def _close_in_ulps(got, want):
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        if g.shape != w.shape:
            return False
        finite = np.isfinite(w)
        if not np.array_equal(np.isnan(g), np.isnan(w)) or \
                not np.array_equal(g[~finite & ~np.isnan(w)], w[~finite & ~np.isnan(w)]):
            return False
        spacing = np.spacing(np.maximum(np.abs(w[finite]), np.finfo(float).tiny))
        if np.any(np.abs(g[finite] - w[finite]) > ULPS * spacing):
            return False
    return True


def assert_primal(f, args, value, jit):
    """`value` (from srcad, at `args`) is `f`'s own value at `args` (see the module)."""
    got = _flat(value)
    with np.errstate(all="ignore"):
        want = _flat(f(*_fresh(args)))
    if not jit:
        assert _equal(got, want), f"srcad's value {value!r} is not f's own {want!r}"
        return
    try:
        compiled = _flat(_njit(f)(*_fresh(args)))
    except Exception:  # noqa: BLE001  (Numba cannot compile f: compare with f itself)
        compiled = None
    if compiled is not None:
        assert _equal(got, compiled), \
            f"srcad's compiled value {value!r} is not numba.njit(f)'s {compiled!r}"
    else:
        assert _close_in_ulps(got, want), \
            f"srcad's compiled value {value!r} is not within {ULPS} ulps of f's {want!r}"

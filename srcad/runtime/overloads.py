"""How a helper gets its Numba version: `_jit_version(py_fn)` registers a factory
as the Numba implementation of `py_fn` (a `numba.extending.overload`)."""
from numba import types
from numba.extending import overload


def _jit_version(py_fn):
    """Register the decorated factory as the Numba implementation of `py_fn`."""
    return overload(py_fn, jit_options={"cache": True})


def _is_array(t):
    return isinstance(t, types.Array)


def _is_none(t):
    return t is None or isinstance(t, (types.NoneType, types.Omitted))

"""Compiling a generated module's functions with Numba."""
import types

import numba


def compile_module(module, names):
    """Replace each function `names` in `module` by a `numba.njit(cache=True)` dispatcher.

    Globals are looked up when Numba compiles, so functions calling each other by
    name get each other's dispatchers. Compilation itself is lazy (first call).
    """
    for name in names:
        fn = getattr(module, name)
        if isinstance(fn, types.FunctionType):
            setattr(module, name, numba.njit(cache=True)(fn))
    return module


def typing_errors():
    """Exceptions that mean 'Numba could not compile this', as opposed to a user error."""
    return (numba.core.errors.NumbaError, NotImplementedError, AssertionError)

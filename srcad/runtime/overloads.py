"""How a helper gets its Numba version: `_jit_version(py_fn)` registers a factory
as the Numba implementation of `py_fn` (a `numba.extending.overload`); and what a helper
tells the passes that call it (`result_like`, `fresh`, `adds_in_place`)."""
from numba import types
from numba.extending import overload


def _jit_version(py_fn):
    """Register the decorated factory as the Numba implementation of `py_fn`."""
    return overload(py_fn, jit_options={"cache": True})


def result_like(position, may_return_first=False):
    """Mark a helper whose result is a new array shaped like its argument at `position`
    (`may_return_first`: or its first argument itself, unchanged), so that an adjoint
    first set from it needs no zero fill (see LeanArrayAdjoints)."""
    def mark(fn):
        fn.result_like = (position, may_return_first)
        return fn
    return mark


def fresh(fn):
    """Mark a helper whose array result is always a new array, never an argument itself,
    so that an adjoint set from it needs no copy (see LeanArrayAdjoints)."""
    fn.fresh = True
    return fn


def adds_in_place(name):
    """Mark a helper that also comes as `rt.<name>`, which adds its result into its first
    argument in place (`d += f(...)` becomes `f_add(d, ...)`)."""
    def mark(fn):
        fn.adds_in_place = "rt." + name
        return fn
    return mark


def _is_array(t):
    return isinstance(t, types.Array)


def _is_none(t):
    return t is None or isinstance(t, (types.NoneType, types.Omitted))

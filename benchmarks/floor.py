"""The warm-start floor: a trivial function under `numba.njit(cache=True)`, imported and
called by `python -m benchmarks.startup floor` in a fresh process. With Numba's cache
filled, that process pays what any cached Numba code pays before its first result
(importing Numba, loading a compiled function from disk) and nothing of srcad's."""
import numba


@numba.njit(cache=True)
def trivial(x):
    return x * 2.0 + 1.0

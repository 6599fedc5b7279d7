"""Compiling a generated module's functions with Numba."""
import os
import types

import numba

from codegen.module import cache_problem, warn_once

# A generated module's global that tells its code how it runs: True as written, where
# Numba compiles the module (and drops the branch not taken), set to False where the
# module runs as plain Python.
LOOPS_FLAG = "ELEMENT_LOOPS"


def compile_module(module, names, warning=UserWarning):
    """Replace each function `names` in `module` by a `numba.njit` dispatcher.

    Globals are looked up when Numba compiles, so functions calling each other by
    name get each other's dispatchers. Compilation itself is lazy (first call).
    A module-level dict `JIT_OPTIONS` gives a function further `numba.njit` options by name
    (`{"f_rev": {"fastmath": {"reassoc"}}}`), so the module's source says how it is compiled.
    A module backed by a file is compiled with `cache=True`. Numba's on-disk cache can
    only cost time, never a result: when its files cannot be read (corrupt) or written
    (read-only, full disk), the functions compile in memory and a `warning` says so, once.
    """
    path = getattr(module, "__file__", None)
    options = getattr(module, "JIT_OPTIONS", {})
    for name in names:
        fn = getattr(module, name)
        if isinstance(fn, types.FunctionType):
            setattr(module, name, _njit(fn, path, warning, options.get(name, {})))
    return module


def _njit(fn, path, warning, options):
    if path is None:
        return numba.njit(**options)(fn)
    try:
        dispatcher = numba.njit(cache=True, **options)(fn)
    except (RuntimeError, OSError) as exc:  # RuntimeError: "no locator available"
        folder = os.path.join(os.path.dirname(path), "__pycache__")
        reason = exc if isinstance(exc, OSError) else \
            "not writable, and neither is Numba's own cache directory"
        warn_once(cache_problem("write Numba's cache files", folder, reason,
                                "compiling without a disk cache"), warning)
        return numba.njit(**options)(fn)
    dispatcher._cache = _GuardedCache(dispatcher._cache, warning)
    return dispatcher


class _GuardedCache:
    """Numba's disk cache for one function, where a failure only turns the cache off: a
    corrupt index or data file is a miss, a read-only or full disk skips the save."""

    def __init__(self, cache, warning):
        self._cache, self._warning = cache, warning

    def __getattr__(self, name):
        return getattr(self._cache, name)

    def load_overload(self, sig, target_context):
        try:
            return self._cache.load_overload(sig, target_context)
        except Exception as exc:  # anything in a cache file is untrusted
            self._give_up("read Numba's cache files", exc)
            return None

    def save_overload(self, sig, data):
        try:
            self._cache.save_overload(sig, data)
        except Exception as exc:
            self._give_up("write Numba's cache files", exc)

    def _give_up(self, what, exc):
        self._cache.disable()
        warn_once(cache_problem(what, self._cache.cache_path, exc,
                                "compiling without a disk cache"), self._warning)


def compile_failure(exc):
    """Whether `exc` means that Numba could not compile a function, as opposed to an error
    the compiled code raised: an error of Numba's, or any other exception raised inside
    Numba's compiler or llvmlite (a TypeError of its lowering, an AssertionError of its
    own checks). Compiled code raising an exception, an `assert` of the user's, has no
    frame there: the dispatcher returns the compiled function, which runs after it."""
    if isinstance(exc, numba.core.errors.NumbaError):
        return True
    tb = exc.__traceback__
    while tb is not None:
        module = tb.tb_frame.f_globals.get("__name__", "")
        if module.startswith(("numba.", "llvmlite.")) and module != "numba.core.dispatcher":
            return True
        tb = tb.tb_next
    return False

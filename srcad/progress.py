"""What srcad tells while it works: a compile that takes more than a second says so once,
and with `srcad.config(verbose=True)` (or `SRCAD_VERBOSE=1`) every transformation and
compile prints its time, on stderr."""
import os
import sys
import threading
import time
from contextlib import contextmanager

SLOW = 1.0  # seconds after which a compile still running is announced

_settings = {"verbose": None}


def config(verbose=None):
    """Set how much srcad prints while it works: `verbose=True` prints the time of each
    transformation and each sweep's compile, `False` only announces compiles that take
    more than a second, None (the default) follows the `SRCAD_VERBOSE` environment
    variable. Returns the settings now in force."""
    _settings["verbose"] = verbose
    return {"verbose": verbose_now()}


def verbose_now():
    if _settings["verbose"] is not None:
        return bool(_settings["verbose"])
    return os.environ.get("SRCAD_VERBOSE", "").strip().lower() not in ("", "0", "false", "no")


def say(text):
    print(f"srcad: {text}", file=sys.stderr, flush=True)


@contextmanager
def compiling(what):
    """Around the first run of a compiled sweep, where Numba compiles it (or loads it from
    its cache): announced once it has taken `SLOW` seconds, timed when verbose."""
    start = time.perf_counter()
    timer = threading.Timer(SLOW, say, (f"compiling {what} with Numba…",))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if verbose_now():
            say(f"{what}: compiled (or loaded) and ran in {time.perf_counter() - start:.2f} s")


@contextmanager
def transforming(what):
    """Around a source transformation: timed when verbose."""
    start = time.perf_counter()
    yield
    if verbose_now():
        say(f"{what}: transformed in {time.perf_counter() - start:.2f} s")

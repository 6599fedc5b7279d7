"""One fresh process's start-up cost: `python -m benchmarks.startup W1 full`, or
`python -m benchmarks.startup floor` for a trivial cached `numba.njit` function
(`benchmarks/floor.py`): run twice, its second process is the floor under every warm start.

Prints one JSON line: `seconds` from `import srcad` to the first `(value, gradients)`
returned (with an empty $SRCAD_CACHE_DIR that is the transform and the compilation; with
a filled one, the warm start), `compile_seconds` for building and the first call alone,
and `peak_rss_mb` of this process (inputs, imports and one gradient).
"""
import json
import resource
import sys
import time

from benchmarks.workloads import BY_KEY


def peak_rss_mb():
    """This process's peak resident set size. Linux's VmHWM, because `ru_maxrss` keeps
    the parent's peak across fork and exec."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # kB on Linux


def floor():
    start = time.perf_counter()
    from benchmarks.floor import trivial
    trivial(1.0)
    end = time.perf_counter()
    print(json.dumps({"seconds": end - start, "compile_seconds": end - start,
                      "peak_rss_mb": peak_rss_mb()}))


def main(key, size_name=None):
    if key == "floor":
        return floor()
    w = BY_KEY[key]
    args = w.args(getattr(w, size_name))
    start = time.perf_counter()
    import srcad
    built = time.perf_counter()
    g = srcad.value_and_grad(w.fn, wrt=w.wrt)
    g(*args)
    end = time.perf_counter()
    rss = peak_rss_mb()
    print(json.dumps({"seconds": end - start, "compile_seconds": end - built,
                      "peak_rss_mb": rss}))


if __name__ == "__main__":
    main(*sys.argv[1:3])

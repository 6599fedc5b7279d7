"""Where a srcad gradient spends its time: `python -m benchmarks.profile W4 [--smoke]`.

Times the numba.njit primal, `value_and_grad`, and the forward and reverse sweeps apart
(`g.last.forward` / `g.last.reverse`), alternated, medians, with the minor page faults
each call takes (fresh memory mapped in); then lists the tape's largest slots by name.
`--source` also prints the generated module.
"""
import argparse
import re
import resource

import srcad
from benchmarks import measure
from benchmarks.__main__ import njit_primal
from benchmarks.workloads import BY_KEY


def tape_names(source, fn_name):
    """The tape slots' names, from the reverse sweep's unpacking of `tape`."""
    match = re.search(rf"def {fn_name}_rev\(.*?\):\s*\(?([\w,\s]+?)\)?\s*=\s*tape", source, re.S)
    return [n.strip() for n in match.group(1).split(",") if n.strip()] if match else []


def _page_faults(fn, calls=5):
    """Minor page faults per call of `fn`: memory the C allocator handed back to the system
    and maps again (each a zeroed 4 kB page), which the time above includes."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        fn()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.profile")
    p.add_argument("key")
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--source", action="store_true")
    opts = p.parse_args(argv)
    w = BY_KEY[opts.key]
    args = w.args(w.smoke if opts.smoke else w.full)
    g = srcad.value_and_grad(w.fn, wrt=w.wrt)
    g(*args)
    c = g.last
    primal = njit_primal(w)
    _, tape = c.forward(args)
    timers = {"primal": measure.Timer(lambda: primal(*args)),
              "value_and_grad": measure.Timer(lambda: g(*args)),
              "forward sweep": measure.Timer(lambda: c.forward(args)),
              "reverse sweep": measure.Timer(lambda: c.reverse(args, tape, 1.0))}
    measure.alternate(list(timers.values()), opts.rounds)
    base = timers["primal"].median()
    for name, t in timers.items():
        print(f"{name:>15}: {t.median() * 1e3:9.3f} ms  ({t.median() / base:5.2f} x primal)"
              f"  {_page_faults(t.fn):8.0f} page faults a call")
    slots = getattr(tape, "tape", tape)  # under jit="auto" before its choice: tagged
    slots = sorted(zip(tape_names(c.source, w.fn.__name__), slots),
                   key=lambda s: -measure.tape_bytes(s[1]))
    print("tape:", ", ".join(f"{n} {measure.tape_bytes(v) / 2**20:.2f} MB"
                             for n, v in slots if measure.tape_bytes(v)) or "no arrays")
    if opts.source:
        print(c.source)


if __name__ == "__main__":
    main()

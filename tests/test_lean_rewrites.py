"""LeanArrayAdjoints rewrites a reverse sweep without changing a value: random
straight-line sweeps of array adjoints (new arrays, copies, shared arrays, additions in
place, returns) give the same gradients before and after the rewrite, run as NumPy."""
import random

import gast
import numpy as np
import pytest

from codegen import to_source
from srcad import runtime as rt
from srcad.passes.lean_array_adjoints import LeanArrayAdjoints

NAMES = ["d_a", "d_b", "d_c", "d_e", "d_f"]


def _program(rng):
    """A reverse sweep `f_rev(x, tape, d_out)` of 4-12 statements over the adjoints
    `NAMES`, each an array of x's shape, and the names it defines."""
    lines, defined = ["d_t = rt.mul(d_out, x)"], ["d_t"]
    for _ in range(rng.randint(4, 12)):
        src, target = rng.choice(defined), rng.choice(NAMES)
        kind = rng.random()
        if kind < 0.3:
            lines.append(f"{target} = rt.unbroadcast({src}, x).copy()")
        elif kind < 0.4:
            lines.append(f"{target} = {src}.copy()")
        elif kind < 0.5:
            lines.append(f"{target} = rt.unbroadcast({src}, x)")
        elif kind < 0.65:
            lines.append(f"{target} = rt.mul({src}, x)")
        elif kind < 0.75:
            lines.append(f"{target} = rt.neg({src})")
        else:
            into = rng.choice(defined)
            term = src if rng.random() < 0.5 else f"rt.mul({src}, x)"
            lines.append(f"rt.add_to({into}, {term})")
            continue
        if target not in defined:
            defined.append(target)
    outs = rng.sample(defined, min(len(defined), rng.randint(1, 3)))
    lines.append("return " + ", ".join(outs) + ",")
    return "def f_rev(x, tape, d_out):\n" + "".join(f"    {s}\n" for s in lines)


def _run(source, x):
    space = {"rt": rt, "np": np}
    exec(source, space)
    return [np.array(v, copy=True) for v in space["f_rev"](x.copy(), None, 1.5)]


@pytest.mark.parametrize("seed", range(0, 600, 100))
def test_random_sweeps_keep_their_values(seed):
    x = np.array([0.5, -1.25, 2.0])
    rewritten = 0
    for k in range(seed, seed + 100):
        source = _program(random.Random(k))
        fn = gast.parse(source).body[0]
        lean = to_source(LeanArrayAdjoints(set(NAMES) | {"d_t"}).run(fn))
        rewritten += lean.strip() != source.strip()
        for got, want in zip(_run(lean, x), _run(source, x), strict=True):
            np.testing.assert_array_equal(got, want, err_msg=f"seed {k}:\n{source}\n{lean}")
    assert rewritten > 10  # the pass had copies to take away

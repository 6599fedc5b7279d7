"""LeanArrayAdjoints rewrites a reverse sweep without changing a value: random
straight-line sweeps of array adjoints (new arrays, copies, arrays shared by two names,
additions in place, returns) give the same gradients before and after the rewrite, run as NumPy."""
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
        elif kind < 0.7:
            lines.append(f"{target} = rt.neg({src})")
        elif kind < 0.78:
            lines.append(f"{target} = {src}")  # one array, two names
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


@pytest.mark.parametrize("between", ["d_z = d_h", "d_z = rt.unbroadcast(d_h, x)"])
def test_a_copy_stays_when_a_third_name_shares_the_array(between):
    """`d_g` took `d_h`'s array and `d_z` shares it too: the copy `d_e` of `d_g` must stay
    a copy, or the write into `d_e` reaches `d_z`."""
    source = ("def f_rev(x, tape, d_out):\n"
              "    d_h = rt.mul(d_out, x)\n"
              "    d_g = d_h\n"
              f"    {between}\n"
              "    d_e = d_g.copy()\n"
              "    rt.add_to(d_e, x)\n"
              "    return d_e, d_z,\n")
    lean = to_source(LeanArrayAdjoints({"d_h", "d_g", "d_z", "d_e"}).run(
        gast.parse(source).body[0]))
    x = np.array([0.5, -1.25, 2.0])
    for got, want in zip(_run(lean, x), _run(source, x), strict=True):
        np.testing.assert_array_equal(got, want, err_msg=lean)


def test_a_copy_of_an_array_passed_on_by_names_no_one_reads_again_is_taken():
    """`d_b` takes `d_a`'s array, `d_c` takes `d_b`'s; neither `d_a` nor `d_b` is read
    after the copy: `d_c` needs no copy of its own (V1's `logits = logits - m`)."""
    source = ("def f_rev(x, tape, d_out):\n"
              "    d_a = rt.mul(d_out, x)\n"
              "    d_b = rt.unbroadcast(d_a, x)\n"
              "    d_t = rt.neg(d_a)\n"
              "    d_c = d_b.copy()\n"
              "    rt.add_to(d_c, d_t)\n"
              "    return d_c,\n")
    lean = to_source(LeanArrayAdjoints({"d_a", "d_b", "d_c", "d_t"}).run(
        gast.parse(source).body[0]))
    assert ".copy()" not in lean
    x = np.array([0.5, -1.25, 2.0])
    for got, want in zip(_run(lean, x), _run(source, x), strict=True):
        np.testing.assert_array_equal(got, want, err_msg=lean)

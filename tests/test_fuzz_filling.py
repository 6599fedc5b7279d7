"""Helpers that write into their array arguments, drawn at random: which arguments they
write (elements, slices, `+=`, `*=`), what they return (nothing, an argument, a number, a
tuple), how the caller calls them (a statement, a name, unpacked, held whole) and what the
caller's other names share (a second name, a view, the same array passed twice). For every
program srcad either refuses it with a `SrcadError` or gives the function's own value
(computed by Python on copies of the arguments) and a gradient equal to central finite
differences: never a silently wrong number.

`python -m tests.test_fuzz_filling N [SEED]` checks N programs and prints the counts."""
import random
import sys
import types

import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, fd_grad

WRITES = [
    "{p}[1:-1] = {q}[:-2] * k + {p}[2:]",
    "{p}[0] = {q}[1] * k",
    "{p}[2:4] += {q}[0:2] * 0.5",
    "{p} += {q} * k",
    "{p} *= k",
    "{p} -= np.mean({q})",
]
READS = ["t = {q} * 2.0", "t = np.sin({q})"]


def program(seed):
    """Source of a module with a helper `h` and a loss `loss(x, y, k)`."""
    rng = random.Random(seed)
    params = ["p0", "p1", "p2"]
    body = []
    for _ in range(rng.randint(1, 4)):
        p, q = rng.choice(params), rng.choice(params)
        if rng.random() < 0.2:
            body.append(rng.choice(READS).format(q=q))
            body.append(f"{p}[3] = t[1] + {p}[3]")
        else:
            body.append(rng.choice(WRITES).format(p=p, q=q))
    p, q = rng.choice(params), rng.choice(params)
    returns = rng.choice(["none", "array", "number", "pair"])
    body.append({"none": "return", "array": f"return {p}",
                 "number": f"return np.sum({p} * {q})",
                 "pair": f"return {p} * k, np.sum({q})"}[returns])
    helper = "def h(p0, p1, p2, k):\n" + "".join(f"    {s}\n" for s in body)

    names = ["a", "b", "c"]
    caller = ["a = x * 1.0", "b = y + 0.5"]
    shared = rng.random() < 0.3  # `c` another name for `a` or `b`'s array
    caller.append(rng.choice(["c = a", "c = a[:]", "c = b[::1]"]) if shared else
                  "c = np.cos(x)")
    args = [rng.choice(names) for _ in range(3)] if rng.random() < 0.15 else \
        rng.sample(names, 3)
    call = f"h({', '.join(args)}, k)"
    terms = ["np.sum(a * a)", "np.sum(np.sin(b))", "np.sum(c * 0.5)"]
    form = rng.choice(["statement", "name", "unpacked", "held"])
    if returns == "none" or form == "statement":
        caller.append(call if rng.random() < 0.5 else f"_ = {call}")
    elif returns == "pair" and form == "unpacked":
        caller.append(f"r1, r2 = {call}")
        terms += ["np.sum(r1)", "r2"]
    elif returns == "pair":
        caller.append(f"r = {call}")
        terms += ["np.sum(r[0])", "r[1]"]
    else:
        caller.append(f"r = {call}")
        terms.append("np.sum(r * r)" if returns == "array" else "r")
    caller.append("return " + " + ".join(terms))
    loss = "def loss(x, y, k):\n" + "".join(f"    {s}\n" for s in caller)
    return "import numpy as np\n\n\n" + helper + "\n\n" + loss


def load(source, seed):
    module = types.ModuleType(f"filling_{seed}")
    module.__file__ = f"<filling {seed}>"
    code = compile(source, f"<filling {seed}>", "exec")
    import linecache

    linecache.cache[f"<filling {seed}>"] = (len(source), None, source.splitlines(True),
                                            f"<filling {seed}>")
    exec(code, module.__dict__)
    return module


def check(seed):
    """'refused', 'skipped' (Python itself fails) or 'ok'; raises AssertionError on a
    wrong value or gradient."""
    source = program(seed)
    loss = load(source, seed).loss
    x, y, k = np.linspace(0.2, 1.0, 5), np.cos(np.arange(5.0)), 0.7
    make = lambda: (x.copy(), y.copy(), k)  # noqa: E731
    try:
        with np.errstate(all="raise"):
            expected = loss(*make())
    except (ValueError, FloatingPointError, IndexError):
        return "skipped"
    try:
        value, grad = srcad.value_and_grad(loss, wrt=(0, 1, 2), jit=False)(*make())
    except srcad.SrcadError:
        return "refused"
    assert value == pytest.approx(expected, rel=1e-9, abs=1e-12), source
    assert_grad_close(grad, fd_grad(loss, make(), (0, 1, 2)), rtol=1e-5, atol=1e-7)
    return "ok"


@pytest.mark.parametrize("block", range(4))
def test_random_filling_helpers_are_right_or_refused(block):
    outcomes = [check(seed) for seed in range(block * 15, block * 15 + 15)]
    assert outcomes.count("ok") >= 3, outcomes  # the draws reach accepted programs


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    start = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    tally = {}
    for seed in range(start, start + count):
        try:
            outcome = check(seed)
        except AssertionError as exc:
            outcome = "WRONG"
            print(f"seed {seed}: WRONG\n{program(seed)}\n{str(exc)[:400]}\n")
        tally[outcome] = tally.get(outcome, 0) + 1
    print(tally)

"""Random losses over data, written as loops the way people write them: a loop over a
vector's length (spelled `x.shape[0]`, `len(x)`, a name for it, or one short of it)
reading `x[i]` and `y[i]`, with a carried state, a branch, divisions by a number the loop
does not change, an early `break`. Their reverse sweeps take the paths of
AssignElementAdjoints and HoistReciprocals, or not, by chance; the gradients must agree
with central finite differences and the value be the function's own, either way."""
import numpy as np
import pytest

from tests.fd import assert_value_and_grad


def _loss_program(seed):
    """(source, arguments, wrt) of a random loss over the data `x`, `y` with a weight `w`."""
    rng = np.random.default_rng(seed)
    pick = lambda options: options[rng.integers(len(options))]  # noqa: E731
    length = pick(["x.shape[0]", "len(x)", "n", "x.shape[0] - 1", "y.shape[0]"])
    divisor = pick(["s", "w", "n", None])
    over = f" / {divisor}" if divisor else ""
    lines = ["    n = x.shape[0]", "    s = w * w + 1.0", "    h = 0.0", "    acc = 0.0",
             f"    for i in range({length}):"]
    carried = rng.random() < 0.4
    if carried:
        lines.append("        h = math.tanh(w * h + x[i])")
    term = pick(["(x[i] - y[i])", "x[i] * y[i]", "math.sin(x[i]) + y[i]", "x[i]"])
    lines.append(f"        t = {term}{over}" + (" + h" if carried else ""))
    if length == "x.shape[0] - 1" and rng.random() < 0.5:
        lines.append("        t = t + 0.5 * x[i + 1]")
    if rng.random() < 0.5:
        lines += ["        if abs(t) <= 1.0:", "            acc += 0.5 * t * t",
                  "        else:", f"            acc += abs(t) - 0.5{over}"]
    else:
        lines.append(f"        acc += t * t{over}")
    if rng.random() < 0.2:
        lines += ["        if acc > 2.0:", "            break"]
    lines.append(pick(["    return acc", "    return acc * w / n", "    return acc / s"]))
    source = f"def loss_{seed}(x, y, w):\n" + "\n".join(lines) + "\n"
    data = np.random.default_rng(1000 + seed)
    args = (data.standard_normal(7), data.standard_normal(7), 0.6 + 0.5 * data.random())
    return source, args, (0, 1, 2)


SEEDS = range(24)


@pytest.fixture(scope="module")
def loss_programs(tmp_path_factory):
    from benchmarks.transform import load_module
    cases = [_loss_program(seed) for seed in SEEDS]
    module = load_module(["import math\n\n"] + [c[0] + "\n\n" for c in cases],
                         tmp_path_factory.mktemp("losses"))
    return [(getattr(module, f"loss_{seed}"),) + c[1:] for seed, c in zip(SEEDS, cases)]


@pytest.mark.parametrize("seed", SEEDS)
def test_random_losses_over_data_have_finite_difference_gradients(loss_programs, seed):
    f, args, wrt = loss_programs[seed]
    assert_value_and_grad(f, lambda: (np.copy(args[0]), np.copy(args[1]), args[2]), wrt,
                          jit=seed % 4 == 0, rel=0.0)


def test_the_programs_take_both_paths(loss_programs):
    """The generator reaches the rewrites and the code they must leave alone."""
    import srcad

    seen = {"assigned": 0, "zeroed": 0, "reciprocal": 0}
    for f, args, wrt in loss_programs:
        text = srcad.source(srcad.value_and_grad(f, wrt=wrt, jit=False), *args)
        seen["assigned"] += "d_x = np.empty_like(x)" in text
        seen["zeroed"] += "d_x = np.zeros_like(x)" in text
        seen["reciprocal"] += "rt.reciprocal(" in text
    assert min(seen.values()) >= 3, seen

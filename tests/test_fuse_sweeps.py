"""FuseSweeps: `grad` of a loop that only adds into sums reaching the output linearly runs
one fused pass (`<f>_vg`); every other loop keeps its two sweeps. Either way the value is
the function's own and the gradient agrees with central finite differences and with the
two sweeps of `vjp`."""
import math

import numpy as np
import pytest

import srcad
from benchmarks.workloads import huber
from tests.fd import assert_grad_close, fd_grad


def squared_error(x, y, w):
    s = 0.0
    for i in range(x.shape[0]):
        e = w * x[i] - y[i]
        s += e * e
    return 0.5 * s / x.shape[0]


def two_sums(x, a, b):
    pos = 0.0
    neg = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            pos += a * x[i] * x[i]
        else:
            neg = neg - b * x[i]
    return pos * a + 3.0 * neg


def logistic(X, y, w0, w1):
    total = 0.0
    for i in range(X.shape[0]):
        z = w0 * X[i, 0] + w1 * X[i, 1]
        total += math.log(1.0 + math.exp(-y[i] * z))
    return total / X.shape[0]


def scaled_by_a_sum(w, x):
    c = np.sum(w * w)  # before the loop: its adjoint is added in the loop, used after it
    s = 0.0
    for i in range(x.shape[0]):
        s += c * math.sin(x[i]) + w[i % w.shape[0]] * x[i]
    return 2.0 * s - c


def norm_of_sum(x, w):  # the sum's adjoint needs the sum: two sweeps
    s = 0.0
    for i in range(x.shape[0]):
        s += w * x[i] * x[i]
    return math.sqrt(s)


def recurrence(w, x):  # carried state: two sweeps
    h = 0.0
    for i in range(x.shape[0]):
        h = math.tanh(w * h + x[i])
    return h * h


def product(x):  # the adjoint reads the running product: two sweeps
    p = 1.0
    for i in range(x.shape[0]):
        p = p * x[i]
    return p


def running_max(x):  # a carried maximum decides what is added: two sweeps
    m = x[0]
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > m:
            m = x[i]
        s += m * x[i]
    return s


def writes_elements(x, w):  # writes an array in the loop: two sweeps
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        y[i] = w * x[i]
    return np.sum(y * y)


RNG = np.random.default_rng(7)
X, Y = RNG.normal(size=12), RNG.normal(size=12)
CASES = [
    (huber, (X, Y, 0.8), (0, 1, 2), True),
    (squared_error, (X, Y, 1.3), (0, 1, 2), True),
    (two_sums, (X, 0.7, -1.1), (0, 1, 2), True),
    (logistic, (RNG.normal(size=(9, 2)), np.sign(RNG.normal(size=9)), 0.4, -0.3), (0, 2, 3),
     True),
    (scaled_by_a_sum, (RNG.normal(size=5), X), (0, 1), True),
    (norm_of_sum, (X, 0.9), (0, 1), False),
    (recurrence, (0.6, X), (0, 1), False),
    (product, (RNG.uniform(0.5, 1.5, 8),), 0, False),
    (running_max, (X,), 0, False),
    (writes_elements, (X, 0.5), (0, 1), False),
]


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("fn, args, wrt, fused", CASES, ids=[c[0].__name__ for c in CASES])
def test_fused_where_it_may_be_and_right_everywhere(fn, args, wrt, fused, jit):
    g = srcad.value_and_grad(fn, wrt=wrt, jit=jit, on_jit_error="raise")
    value, grads = g(*args)
    assert (vars(g.last.top).get("vg_name") is not None) is fused
    assert value == pytest.approx(fn(*args), rel=1e-13 if jit else 0.0)
    assert_grad_close(grads, fd_grad(fn, args, wrt))
    out, pullback = srcad.vjp(fn, *args, wrt=wrt, jit=jit)
    swept = pullback(1.0)
    for a, b in zip(grads if isinstance(wrt, tuple) else (grads,),
                    swept if isinstance(wrt, tuple) else (swept,)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
    assert g.last.forward_sweeps >= 1


def test_the_fused_sweep_is_in_the_source_and_keeps_no_tape():
    g = srcad.grad(huber, wrt=(0, 2), jit=False)
    g(X, Y, 0.8)
    text = srcad.source(g)
    assert "def huber_vg(pred, target, scale, d_out):" in text
    assert "huber_vg(args, d_out) -> (value, gradients) does both in one pass" in text
    body = text.split("def huber_vg")[1]
    assert "tape" not in body.split("return")[0]


def test_an_error_in_the_fused_sweep_names_the_users_line():
    g = srcad.grad(squared_error, wrt=2, jit=False)
    with pytest.raises(IndexError, match=r"test_fuse_sweeps.py:\d+: IndexError"):
        g(X, Y[:5], 1.0)


# ---------------------------------------------------------------------------------------
# Random reduction loops: fused or not, the gradient is right.

_UNARY = ["math.sin({})", "math.tanh({})", "abs({})", "({}) * ({})", "math.exp(-({}) ** 2)"]
_BINARY = ["{} + {}", "{} - {}", "{} * {}", "{} * 0.5 - {}"]


def _expr(rng, atoms, depth=2):
    if depth == 0 or rng.random() < 0.3:
        return str(rng.choice(atoms))
    if rng.random() < 0.4:
        form = str(rng.choice(_UNARY))
        inner = _expr(rng, atoms, depth - 1)
        return form.format(inner, inner)
    return str(rng.choice(_BINARY)).format(_expr(rng, atoms, depth - 1),
                                           _expr(rng, atoms, depth - 1))


def reduction_program(seed):
    """The source of `f(x, y, a, b)`: a loop over x and y adding into two sums, with a
    branch, locals and invariants computed before it, then a (linear or not) result."""
    rng = np.random.default_rng(seed)
    lines = ["def f(x, y, a, b):", "    c = a * b + 0.5", "    s0 = 0.0", "    s1 = 0.0",
             "    for i in range(x.shape[0]):"]
    atoms = ["x[i]", "y[i]", "a", "b", "c", "1.5"]
    for k in range(int(rng.integers(1, 4))):
        lines.append(f"        t{k} = {_expr(rng, atoms)}")
        atoms.append(f"t{k}")
    test = f"{rng.choice(atoms[:2])} > {rng.choice(['0.0', 'a', 't0'])}"
    body = [f"s{int(rng.integers(0, 2))} {rng.choice(['+=', '-='])} {_expr(rng, atoms)}"
            for _ in range(2)]
    if rng.random() < 0.6:
        lines += [f"        if {test}:", f"            {body[0]}", "        else:",
                  f"            {body[1]}"]
    else:
        lines += [f"        {body[0]}", f"        {body[1]}"]
    if rng.random() < 0.3:
        lines.append(f"        s1 = s1 + {_expr(rng, atoms, 1)}")
    result = str(rng.choice(["s0 * a + s1 / x.shape[0]", "s0 - 2.0 * s1 * b",
                             "math.sqrt(s0 * s0 + 1.0) + s1", "s0 * s1", "(s0 + s1) * c"]))
    return "\n".join(lines + [f"    return {result}", ""])


def test_random_reduction_loops(tmp_path):
    import importlib.util

    fused = 0
    for seed in range(40):
        source = reduction_program(seed)
        path = tmp_path / f"reduction_{seed}.py"
        path.write_text("import math\nimport numpy as np\n\n\n" + source)
        spec = importlib.util.spec_from_file_location(f"reduction_{seed}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        f = module.f
        rng = np.random.default_rng(1000 + seed)
        args = (rng.normal(size=7), rng.normal(size=7), 0.7, -0.4)
        g = srcad.value_and_grad(f, wrt=(0, 1, 2, 3), jit=False)
        value, grads = g(*args)
        fused += vars(g.last.top).get("vg_name") is not None
        assert value == f(*args), source
        assert_grad_close(grads, fd_grad(f, args, (0, 1, 2, 3)))
        swept = srcad.vjp(f, *args, wrt=(0, 1, 2, 3), jit=False)[1](1.0)
        for a, b in zip(grads, swept):
            np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-13, err_msg=source)
    assert 10 <= fused < 40, fused  # both ways taken

"""Double loops that only add into a sum run their adjoint in the forward sweep
(UnitSeedLoops), for a unit cotangent of the sum; the reverse sweep scales. Each function
is checked against central finite differences, compiled and not, through `grad` and
through `vjp` with a cotangent other than 1; the sources show where the fusion applies
and where it does not (single loops, whose reverse the compiler may vectorize, keep it;
loops whose reverse needs its order must)."""
import re

import numpy as np
import pytest

import srcad
from benchmarks.workloads import huber, lennard_jones
from tests.fd import fd_grad


def squared_error(w, x, y):
    total = 0.0
    for i in range(x.shape[0]):
        r = x[i] * w[0] + w[1] - y[i]
        total += r * r
    return total / x.shape[0]


def masked_logistic(w, x, labels):
    loss = 0.0
    for i in range(1, x.shape[0], 2):  # a start and a step
        z = w[0] * x[i] + w[1]
        if labels[i] > 0.5:
            loss += np.log1p(np.exp(-z))
        else:
            loss += np.log1p(np.exp(z))
    return np.sqrt(loss + 1.0)  # reaches the output through a function of it


def two_sums(x, c):
    s = 0.0
    q = 0.0
    for i in range(x.shape[0]):
        s += x[i] * c
        q += x[i] * x[i]
    return s * q  # two sums: no one seed


def carried_product(x):
    p = 1.0
    acc = 0.0
    for i in range(x.shape[0]):
        p = p * x[i]  # carried from one iteration to the next
        acc += p
    return acc


def writes_its_input(x, c):
    y = x.copy()
    total = 0.0
    for i in range(1, y.shape[0]):
        y[i] = y[i - 1] * c + y[i]  # the loop changes what it reads
        total += y[i] * y[i]
    return total


def term_read_after(x):
    total = 0.0
    t = 0.0
    for i in range(x.shape[0]):
        t = np.sin(x[i])
        total += t * t
    return total + t  # the last term again


def stepped_sum_then_more(x, c):
    total = 0.0
    for i in range(x.shape[0]):
        total += np.tanh(c * x[i])
    for i in range(x.shape[0]):
        total += 0.5 * x[i] * total  # reads the sum: not only added into
    return total


def row_sums_squared(x, c):
    total = 0.0
    for i in range(x.shape[0]):
        s = 0.0
        for j in range(x.shape[1]):
            s += x[i, j] * c
        total += s * s  # the inner sum, squared: adjoint work between the loops
    return total


def pairs_within(x, cutoff):
    total = 0.0
    for i in range(x.shape[0]):
        for j in range(i + 1, x.shape[0]):
            d = x[i] - x[j]
            if abs(d) < cutoff:
                total += np.cos(d) * cutoff
    return 2.0 * total


def _args(name, rng):
    x = rng.uniform(-1.5, 1.5, 9)
    return {
        "squared_error": (rng.normal(size=2), x, rng.normal(size=9)),
        "masked_logistic": (rng.normal(size=2), x, (rng.uniform(size=9) > 0.5) * 1.0),
        "two_sums": (x, 0.7),
        "carried_product": (x,),
        "writes_its_input": (x, 0.6),
        "term_read_after": (x,),
        "stepped_sum_then_more": (x, 0.8),
        "huber": (rng.normal(size=9) * 2.0, rng.normal(size=9), 0.9),
        "lennard_jones": (rng.uniform(0.0, 4.0, (6, 3)),),
        "row_sums_squared": (rng.normal(size=(3, 4)), 0.7),
        "pairs_within": (x, 1.3),
    }[name]


FUSED = [lennard_jones, pairs_within]
NOT_FUSED = [squared_error, masked_logistic, huber,  # single loops
             two_sums, carried_product, writes_its_input, term_read_after, row_sums_squared]
FUNCTIONS = FUSED + NOT_FUSED + [stepped_sum_then_more]


def _rev_source(g, fn):
    source = srcad.source(g)
    return source[source.index(f"def {fn.__name__}_rev"):]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("jit", [False, True])
def test_gradients_match_finite_differences(fn, jit):
    rng = np.random.default_rng(7)
    args = _args(fn.__name__, rng)
    wrt = tuple(k for k, a in enumerate(args) if fn is not masked_logistic or k < 2)
    value, grad = srcad.value_and_grad(fn, wrt=wrt, jit=jit)(*args)
    assert value == pytest.approx(fn(*args), rel=1e-12)
    want = fd_grad(fn, args, wrt)
    for got, w in zip(grad, want):
        np.testing.assert_allclose(got, w, rtol=1e-6, atol=1e-8)
    out, pullback = srcad.vjp(fn, *args, wrt=wrt, jit=jit)
    for got, w in zip(pullback(-2.5), want):
        np.testing.assert_allclose(got, -2.5 * np.asarray(w), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn", FUSED, ids=lambda f: f.__name__)
def test_an_energy_over_pairs_runs_its_loops_once(fn):
    args = _args(fn.__name__, np.random.default_rng(8))
    g = srcad.grad(fn, wrt=tuple(range(min(2, len(args)))), jit=False)
    g(*args)
    rev = _rev_source(g, fn)
    assert not re.search(r"^ +for ", rev, re.M)  # it only scales what the forward sweep added
    assert " * u_d_" in rev
    source = srcad.source(g)
    fwd = source[source.index(f"def {fn.__name__}_fwd"):source.index(f"def {fn.__name__}_rev")]
    # what every pair with `i` adds at `i` is summed in a local, written once per `i`
    assert re.search(r"\n        u_d_\w+\[i(, \d)?\] \+= acc\d+\n", fwd)


@pytest.mark.parametrize("fn", NOT_FUSED, ids=lambda f: f.__name__)
def test_loops_whose_adjoint_needs_the_reverse_order_keep_it(fn):
    args = _args(fn.__name__, np.random.default_rng(9))
    g = srcad.grad(fn, wrt=0, jit=False)
    g(*args)
    rev = _rev_source(g, fn)
    assert re.search(r"^ +for ", rev, re.M) and "u_d_" not in rev


def _pair_programs():
    """Energies over pairs in the forms the fusion takes, and some near them, each a
    program in the fuzzer's form `f(x, y, a, m)`."""
    starts = ["i + 1", "0", "i"]
    terms = ["np.sin(d) * x", "d * d", "math.exp(-d * d) * y", "d * m[0, j % m.shape[1]]",
             "s * d"]
    conds = ["", "if d > 0.1:", "if i % 2 == 0:"]
    out = []
    for k, (start, term, cond) in enumerate(
            (s, t, c) for s in starts for t in terms for c in conds):
        pre = "s = a[i] * 0.5" if k % 2 else "s = 0.7"
        body = f"e += {term}" if not cond else f"{cond}\n                e += {term}"
        after = "e * x + np.sum(m)" if k % 3 else "np.tanh(e) + np.sum(a * a) * e"
        out.append(f"""
def f(x, y, a, m):
    e = 0.0
    for i in range(a.shape[0]):
        {pre}
        for j in range({start}, a.shape[0]):
            d = a[i] - a[j] * y + s
            {body}
    return {after}
""")
    return out


@pytest.mark.parametrize("source", _pair_programs())
def test_pair_energies_match_finite_differences_and_forward_mode(source):
    from srcad import fuzz
    program = "import math\n\nimport numpy as np\n" + source
    result = fuzz.check_source(program, 11, (5, 3), jit=False)
    assert result.outcome == fuzz.OK, result.detail


@pytest.mark.parametrize("fn", FUSED, ids=lambda f: f.__name__)
def test_the_moved_adjoint_is_a_kernel_of_its_own_and_the_value_is_the_primals(fn):
    """The adjoint arithmetic moved into the forward loop is a function compiled with
    reassociation and contraction (AdjointKernels); the forward sweep is compiled without
    them, so its value is bit for bit the Numba primal's."""
    import numba

    args = _args(fn.__name__, np.random.default_rng(10))
    g = srcad.value_and_grad(fn, wrt=0, jit=True)
    value, _ = g(*args)
    assert value == numba.njit(fn)(*args)
    source = srcad.source(g)
    fwd = source[source.index(f"def {fn.__name__}_fwd"):source.index(f"def {fn.__name__}_rev")]
    kernel = re.search(rf"= ({fn.__name__}_fwd_adjoint\d*)\(", fwd)
    assert kernel and f"def {kernel.group(1)}(" in fwd
    assert re.search(rf'"{kernel.group(1)}": {{"fastmath": {{"contract", "reassoc"}}}}', source)


@pytest.mark.parametrize("source", _pair_programs()[::9])
def test_compiled_pair_energies_match_finite_differences_and_forward_mode(source):
    from srcad import fuzz
    program = "import math\n\nimport numpy as np\n" + source
    result = fuzz.check_source(program, 12, (5, 3), jit=True)
    assert result.outcome == fuzz.OK, result.detail

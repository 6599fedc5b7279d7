"""Reverse sweeps that Numba may reorder (SafeReassociation, `JIT_OPTIONS` in the module):
they give the gradients of finite differences, and a reverse sweep that computes a decision
again from arithmetic that reordering could round differently is compiled without it."""
import ast
import textwrap

import gast
import numpy as np
import pytest

import srcad
from benchmarks.workloads import huber
from codegen import compile_module, load_module
from srcad.passes.safe_reassociation import SafeReassociation
from tests.fd import fd_grad


def jit_options(g):
    """The generated module's JIT_OPTIONS, {} when it has none."""
    for line in srcad.source(g).splitlines():
        if line.startswith("JIT_OPTIONS = "):
            return ast.literal_eval(line.split(" = ", 1)[1])
    return {}


def huber_args(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n), rng.standard_normal(n), 0.8


def test_huber_reverse_sweep_is_reordered_and_matches_finite_differences():
    g = srcad.grad(huber, wrt=(0, 2))
    args = huber_args()
    got = g(*args)
    assert jit_options(g) == {"huber_rev": {"fastmath": {"reassoc"}},
                              "huber_fwd": {"boundscheck": True}}
    assert g.last.module.huber_rev.targetoptions["fastmath"] == {"reassoc"}
    assert "fastmath" not in g.last.module.huber_fwd.targetoptions
    want = fd_grad(huber, args, (0, 2))
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    plain = srcad.grad(huber, wrt=(0, 2), jit=False)(*args)
    np.testing.assert_allclose(got[0], plain[0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got[1], plain[1], rtol=1e-10)


def branch_on_sum(x, y, z):
    t = 0.0
    for i in range(x.shape[0]):
        s = x[i] + y[i] + z[i]
        if s > 0.0:
            t += s * s
        else:
            t += 2.0 * s
    return t


def index_from_product(x, a):
    t = 0.0
    n = x.shape[0]
    for i in range(n):
        k = int(a * x[i] * 3.0) % n
        t += x[k] * a
    return t


@pytest.mark.parametrize("fn, wrt", [(branch_on_sum, (0, 1, 2)), (index_from_product, (0, 1))])
def test_decisions_on_reorderable_arithmetic_keep_the_order(fn, wrt):
    rng = np.random.default_rng(1)
    args = (rng.uniform(0.5, 2.0, 12), rng.uniform(-1.0, 1.0, 12), rng.uniform(-1.0, 1.0, 12))
    args = args[:len(wrt)] if fn is branch_on_sum else (args[0], 1.7)
    g = srcad.grad(fn, wrt=wrt)
    got = g(*args)
    assert f"{fn.__name__}_rev" in srcad.source(g)
    assert f"{fn.__name__}_rev" not in jit_options(g)
    for a, b in zip(got, fd_grad(fn, args, wrt)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)


def safe(body, adjoints=("d_x", "d_out"), integers=()):
    fnode = gast.parse("def f_rev(x, y, z, tape, d_out):\n"
                       + textwrap.indent(textwrap.dedent(body), "    ")).body[0]
    return SafeReassociation(set(adjoints), integers).run(fnode)


@pytest.mark.parametrize("body, expected", [
    ("r = (x - y) / z\nif r > 0.0:\n    d_x += d_out", True),  # one operation of each kind
    ("s = x + y\nt = s - z\nif t > 0.0:\n    d_x += d_out", False),  # a chain of sums
    ("s = x * y\nt = s / z\nb = t < 1.0", False),  # a chain of products, then a test
    ("s = x * y\nt = s * z\nk = int(t)", False),  # an index from it
    ("s = x + y\nt = s + z\nd_x += d_out * np.sign(t)", False),  # a sign from it
    ("s = x + y\nt = s + z\nv = y[t]", False),  # used as an index
    ("s = np.sum(x)\nif s > 0.0:\n    d_x += d_out", False),  # a sum inside a call
    ("s = x @ y\nw = np.where(s > 0.0, s, 0.0)", False),
    ("s = x + y\nt = s + z\nu = np.exp(t) * d_out", True),  # continuous uses only
    ("s = x + y\nt = s * z\nif t > 0.0:\n    d_x += d_out", True),  # sum then product
    ("d_x += d_out\nd_x += x\nif d_x == 0.0:\n    y = 1.0", True),  # adjoints not followed
    ("top = len(y)\ntop -= 1\ntop -= 1\nv = y[top]", True),  # integer counters
    ("(a, top) = tape\ntop = top - 1\nv = y[top]", True),
    ("(a, top) = tape\ntop = top - 1.5\nv = y[top]", False),
    ("for k in range(3):\n    j = k + 1 + 2\n    v = y[j]", True),
    ("s = x + y\nt = s + z\nu = helper_fwd(t)", False),  # a callee may branch on it
    ("s = x + y\nt = s + z\nu = t % 2.0", False),
])
def test_what_counts_as_a_decision_on_reorderable_arithmetic(body, expected):
    assert safe(body) is expected


def test_compile_module_takes_numba_options_from_the_module():
    source = textwrap.dedent("""
        def total(x):
            t = 0.0
            for i in range(x.shape[0]):
                t += x[i]
            return t

        def plain(x):
            return x

        JIT_OPTIONS = {"total": {"fastmath": {"reassoc"}}}
        """)
    module = compile_module(load_module(source, "options_test", variant="_jit"),
                            ["total", "plain"])
    assert module.total.targetoptions["fastmath"] == {"reassoc"}
    assert "fastmath" not in module.plain.targetoptions
    x = np.arange(1.0, 101.0)
    assert module.total(x) == 5050.0

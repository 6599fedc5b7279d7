"""`numba.prange` loops: differentiated as the serial loops they compute, once their
iterations are checked independent; a dependence between iterations is refused by name."""
import os
import subprocess
import sys

import numpy as np
import pytest

import srcad
from tests import prange_functions as pf
from tests.fd import assert_grad_close, fd_grad

RNG = np.random.default_rng(5)
X = RNG.uniform(-1.0, 1.0, 9)
POS = np.array([[0.0, 0.0, 0.0], [1.1, 0.1, 0.0], [0.2, 1.2, 0.1], [1.0, 1.1, 0.9],
                [-0.9, 0.4, 0.8]])
M = RNG.normal(0.0, 1.0, (4, 3))

CASES = [
    (pf.weighted_sines, (X, 0.7), (0, 1)),
    (pf.squares_into, (X, np.zeros(9)), 0),
    (pf.pair_energy, (POS,), 0),
    (pf.rows_scaled, (M, 0.3), (0, 1)),
    (pf.pair_forces, (POS,), 0),
    (pf.smoothed_rows, (M, RNG.uniform(0.5, 1.0, 4)), (0, 1)),
]


@pytest.mark.parametrize("fn,args,wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_prange_loops_against_finite_differences(fn, args, wrt):
    # compiled: test_every_case_on_one_and_two_threads
    value, got = srcad.value_and_grad(fn, wrt=wrt, jit=False)(*_copies(args))
    assert value == pytest.approx(fn(*_copies(args)), rel=1e-12)
    assert_grad_close(got, fd_grad(fn, _copies(args), wrt))


def _copies(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def test_a_parallel_njit_function_is_differentiated_from_its_source():
    got = srcad.grad(pf.parallel_weighted_sines, wrt=(0, 1))(X, 0.7)
    assert_grad_close(got, fd_grad(pf.weighted_sines, (X, 0.7), (0, 1)))


@pytest.mark.parametrize("fn,message", [
    (pf.carried, "carries `s` from one iteration to the next"),
    (pf.shared_index, "writes `out` at an index that does not involve `i`"),
    (pf.neighbour, "reads `a` at other indices than it writes"),
    (pf.reads_its_sum, "reads the sum `s` it accumulates"),
    (pf.exits, "can leave early"),
])
def test_dependences_between_iterations_are_refused(fn, message):
    with pytest.raises(srcad.SrcadError, match=message.replace("`", ".")) as err:
        srcad.grad(fn, jit=False)(X)
    assert "prange_functions.py" in str(err.value) and "data race" in str(err.value)


@pytest.mark.parametrize("threads", ["1", "2"])
def test_every_case_on_one_and_two_threads(threads, tmp_path):
    # compiled, in a process of its own (Numba fixes its threads when it starts); the
    # suite's cache directory, where the compiled cases above may be already
    code = ("import numpy as np, srcad\nfrom tests import prange_functions as pf\n"
            "from tests import test_prange as tp\nfrom tests.fd import fd_grad\n"
            "import numba\nassert numba.get_num_threads() == " + threads + "\n"
            "x = np.linspace(-1.0, 1.0, 101)\n"
            "p = pf.parallel_weighted_sines(x, 0.7)\n"
            "bad = []\n"
            "for fn, args, wrt in tp.CASES + [(pf.weighted_sines, (x, 0.7), (0, 1))]:\n"
            "    v, g = srcad.value_and_grad(fn, wrt=wrt)(*tp._copies(args))\n"
            "    want = fd_grad(fn, tp._copies(args), wrt)\n"
            "    g, want = (g, want) if isinstance(wrt, tuple) else ((g,), (want,))\n"
            "    if abs(v - fn(*tp._copies(args))) > 1e-12 * abs(v) or not all(\n"
            "            np.allclose(a, b, rtol=1e-6, atol=1e-8) for a, b in zip(g, want)):\n"
            "        bad.append(fn.__name__)\n"
            "v = srcad.value_and_grad(pf.weighted_sines, wrt=(0, 1))(x, 0.7)[0]\n"
            "if abs(v - p) > 1e-12 * abs(p):\n"
            "    bad.append('parallel primal')\n"
            "print(bad or 'ok')\n")
    env = dict(os.environ, NUMBA_NUM_THREADS=threads)
    env.setdefault("SRCAD_CACHE_DIR", str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(__file__)))
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "ok"


def test_a_loop_that_only_adds_into_sums_gets_parallel_sweeps():
    g = srcad.grad(pf.pair_energy, jit=False)
    g(POS)
    text = srcad.source(g)
    assert text.count("rt.prange(") == 2  # the forward sweep and the reverse sweep
    assert '"parallel": True' in text


@pytest.mark.parametrize("fn,args,wrt", CASES[4:], ids=[c[0].__name__ for c in CASES[4:]])
def test_a_loop_that_writes_rows_of_its_own_gets_parallel_sweeps(fn, args, wrt):
    # (their gradients: test_prange_loops_against_finite_differences)
    g = srcad.value_and_grad(fn, wrt=wrt, jit=False)
    caller = _copies(args)
    value, _ = g(*caller)
    assert value == pytest.approx(fn(*_copies(args)), rel=1e-14)  # sums: in stretches
    assert all(np.array_equal(a, b) for a, b in zip(caller, args) if isinstance(a, np.ndarray))
    text = srcad.source(g)
    assert "rt.copy_rows(" in text and text.count("rt.prange(") == 2


def test_the_variable_of_an_inner_loop_over_a_tuple_is_not_carried():
    got = srcad.grad(pf.tuple_loop_inside, wrt=(0, 1), jit=False)(0.7, X)
    assert_grad_close(got, fd_grad(pf.tuple_loop_inside, (0.7, X), (0, 1)))


def test_a_loop_that_may_raise_runs_its_sweeps_serially():
    g = srcad.grad(pf.checked_sums, wrt=(0, 1), jit=False)
    assert_grad_close(g(0.5, X), fd_grad(pf.checked_sums, (0.5, X), (0, 1)))
    assert "rt.prange(" not in srcad.source(g)
    with pytest.raises(ValueError, match="too big"):
        g(0.5, X + 20.0)


def test_a_loop_that_writes_an_array_runs_its_sweeps_serially():
    g = srcad.grad(pf.squares_into, jit=False)
    g(X, np.zeros(9))
    assert "rt.prange(" not in srcad.source(g)


@pytest.mark.parametrize("limit", [None, 64])
def test_parallel_sweeps_with_and_without_a_tape_limit(limit):
    got = srcad.grad(pf.pair_energy, tape_limit=limit)(POS)
    assert_grad_close(got, fd_grad(pf.pair_energy, (POS,), 0))

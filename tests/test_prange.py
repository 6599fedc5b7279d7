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
    (pf.pair_forces, (POS, 0.8), (0, 1)),
    (pf.smoothed_rows, (M, RNG.uniform(0.5, 1.0, 4)), (0, 1)),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn,args,wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_prange_loops_against_finite_differences(fn, args, wrt, jit):
    value, got = srcad.value_and_grad(fn, wrt=wrt, jit=jit)(*_copies(args))
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
def test_value_matches_the_parallel_primal_on_any_number_of_threads(threads, tmp_path):
    code = ("import numpy as np, srcad\nfrom tests import prange_functions as pf\n"
            "from tests.fd import fd_grad\n"
            "x = np.linspace(-1.0, 1.0, 101)\n"
            "v, g = srcad.value_and_grad(pf.weighted_sines, wrt=(0, 1))(x, 0.7)\n"
            "p = pf.parallel_weighted_sines(x, 0.7)\n"
            "want = fd_grad(pf.weighted_sines, (x, 0.7), (0, 1))\n"
            "ok = abs(v - p) <= 1e-12 * abs(p) and np.allclose(g[0], want[0], rtol=1e-6, "
            "atol=1e-8) and abs(g[1] - want[1]) <= 1e-6 * abs(want[1])\n"
            "print('ok' if ok else (v, p, g, want))\n")
    env = dict(os.environ, NUMBA_NUM_THREADS=threads, SRCAD_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(__file__)), check=True)
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


def test_a_loop_that_writes_an_array_runs_its_sweeps_serially():
    g = srcad.grad(pf.squares_into, jit=False)
    g(X, np.zeros(9))
    assert "rt.prange(" not in srcad.source(g)


@pytest.mark.parametrize("limit", [None, 64])
def test_parallel_sweeps_with_and_without_a_tape_limit(limit):
    got = srcad.grad(pf.pair_energy, tape_limit=limit)(POS)
    assert_grad_close(got, fd_grad(pf.pair_energy, (POS,), 0))

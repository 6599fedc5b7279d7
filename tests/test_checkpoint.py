"""Checkpointed loops (`tape_limit`): the same gradient, bit for bit, as without a limit,
snapshots within the limit, and the loops that stay as they are say why."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import srcad
from srcad import runtime as rt
from srcad.errors import SrcadWarning
from tests import checkpoint_functions as cf
from tests.fd import assert_grad_close, fd_grad

RNG = np.random.default_rng(3)
U0 = RNG.uniform(0.0, 1.0, (12, 10))
W = RNG.normal(0.0, 0.4, (5, 5))
X0 = RNG.normal(0.0, 1.0, 5)
P = np.array([0.7, 1.3])

CASES = [
    (cf.rk4, (1.0, 1.0, 1.0, 10.0, 28.0, 8.0 / 3, 200), (0, 1, 2, 3, 4, 5)),
    (cf.heat, (U0, 0.2, 30), (0, 1)),
    (cf.recurrence, (W, X0, 41), (0, 1)),
    (cf.with_helper, (P, 300), 0),
    (cf.settle, (0.7, 1.0), 0),
    (cf.heat_until, (U0[:8, :7], 0.2, 20.0), (0, 1)),
    (cf.nested, (W[:4, :4], X0[:4], 7, 9), (0, 1)),
    (cf.halvings, (0.3, 6), 0),
]
COMPILED = [CASES[0], CASES[1], CASES[6], CASES[7]]  # and loops within loops


def _same(a, b):
    for u, v in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        assert np.array_equal(np.asarray(u), np.asarray(v)), (u, v)


@pytest.mark.parametrize("limit", [1, 200, 5000, 10 ** 9])
@pytest.mark.parametrize("fn,args,wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_same_gradient_bit_for_bit(fn, args, wrt, limit):
    want = srcad.value_and_grad(fn, wrt=wrt, jit=False)(*args)
    got = srcad.value_and_grad(fn, wrt=wrt, jit=False, tape_limit=limit)(*args)
    assert got[0] == want[0]
    _same(got[1], want[1])


@pytest.mark.parametrize("fn,args,wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_checkpointed_gradient_against_finite_differences(fn, args, wrt):
    got = srcad.grad(fn, wrt=wrt, jit=False, tape_limit=300)(*args)
    assert_grad_close(got, fd_grad(fn, args, wrt), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("fn,args,wrt", COMPILED, ids=[c[0].__name__ for c in COMPILED])
def test_compiled_checkpointed_gradient(fn, args, wrt):
    # compiled, the reverse sweeps may reassociate their sums (SafeReassociation), and a
    # checkpointed loop sums each iteration's adjoints in another function: equal to
    # rounding, not bit for bit
    want = srcad.grad(fn, wrt=wrt, jit=False)(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SrcadWarning)  # no fallback to Python
        got = srcad.grad(fn, wrt=wrt, tape_limit="1KB")(*args)
    assert_grad_close(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("t_end", [0.0, 0.005, 0.015, 0.025, 0.035, 0.045, 0.055, 0.095,
                                   0.175])
def test_a_while_loop_of_any_length_is_reversed_bit_for_bit(t_end):
    # 0 to 18 iterations with a room of 2 snapshots: thinned again and again
    want = srcad.value_and_grad(cf.settle, jit=False)(0.7, t_end)
    got = srcad.value_and_grad(cf.settle, jit=False, tape_limit=1)(0.7, t_end)
    assert got == want


def test_a_while_loop_keeps_its_snapshots_within_its_room():
    # half of the limit for them: room for 5 states of 8 + U0.nbytes bytes is 4
    g = srcad.grad(cf.heat_until, wrt=0, jit=False, tape_limit=10 * U0.nbytes)
    args = (U0, 0.2, 300.0)
    _, tape = g.runner(args).forward(args)
    kept = [len(item) for item in _lists(tape)]
    # the snapshots of `t` and of `u` (slot 0 only types a stack), and no longer list
    assert max(kept) == 1 + 4 and kept.count(1 + 4) == 2
    assert_grad_close(g(*args), srcad.grad(cf.heat_until, wrt=0, jit=False)(*args),
                      rtol=0, atol=0)


def _lists(tape):
    if isinstance(tape, list):
        yield tape
    elif isinstance(tape, tuple):
        for item in tape:
            yield from _lists(item)


def test_vjp_takes_a_tape_limit():
    out, back = srcad.vjp(cf.heat, U0, 0.2, 25, wrt=(0, 1), jit=False, tape_limit=4096)
    out0, back0 = srcad.vjp(cf.heat, U0, 0.2, 25, wrt=(0, 1), jit=False)
    assert out == out0
    _same(back(1.5), back0(1.5))


def test_the_generated_module_shows_the_schedule():
    g = srcad.grad(cf.heat, wrt=0, jit=False, tape_limit="1MB")
    g(U0, 0.2, 3)
    text = srcad.source(g)
    assert "rt.revolve_next" in text and "rt.keep(" in text and "heat_loop" in text


@pytest.mark.parametrize("n,s", [(0, 3), (1, 1), (2, 1), (7, 1), (10, 2), (100, 3), (1000, 5),
                                 (12, 100), (5000, 12)])
def test_schedule_reverses_every_iteration_once_within_its_snapshots(n, s):
    sched = rt.revolve_start(n, s)
    state, stack, turns, runs, most = 0, [], [], 0, 0
    while True:
        act, k0, k1 = rt.revolve_next(sched)
        if act == rt.DONE:
            break
        if act == rt.TAKESHOT:
            assert state == k0
            stack.append(state)
        elif act == rt.RESTORE:
            state = stack[-1]
            assert state == k0
        elif act == rt.POP:
            stack.pop()
        elif act == rt.ADVANCE:
            assert state == k0 < k1
            state, runs = k1, runs + k1 - k0
        else:
            assert act == rt.YOUTURN and state == k0
            turns.append(k0)
        most = max(most, len(stack))
    assert turns == list(range(n - 1, -1, -1))
    assert most <= s
    t = 1
    while rt.checkpoints._binomial(s + t, s) < n:
        t += 1
    assert runs <= t * n  # no iteration runs forward more than t times untaped


@pytest.mark.parametrize("trip", [0, 1, 30, 5 * 10 ** 7])
def test_snapshots_and_one_block_stay_within_the_limit(trip):
    state = U0.nbytes
    for per_iteration in (8, state, 12 * state):
        for limit in (1, state, 2 * state, 5 * state + 7, 10 ** 9):
            block, blocks, snaps = rt.checkpoint_plan(limit, state, per_iteration, trip)
            assert block >= 1 and snaps >= 1
            assert block * blocks >= trip > block * (blocks - 1)
            if limit >= 2 * max(state, per_iteration):  # else one of each, whatever they take
                assert block * per_iteration + snaps * state <= limit
            else:
                assert block == 1 or block * per_iteration <= limit // 2
                assert snaps == 1 or snaps * state <= limit


def test_a_loop_that_exits_early_is_left_as_it_is_with_a_warning():
    with pytest.warns(SrcadWarning, match=r"not checkpointed \(it has a `break`\)"):
        got = srcad.grad(cf.early_exit, jit=False, tape_limit=64)(0.4, 50)
    assert_grad_close(got, fd_grad(cf.early_exit, (0.4, 50), 0))


def test_no_warning_without_a_limit():
    with warnings.catch_warnings():
        warnings.simplefilter("error", SrcadWarning)
        srcad.grad(cf.early_exit, jit=False)(0.4, 50)


@pytest.mark.parametrize("bad", [0, -5, "lots", 1.5e-3, True])
def test_a_bad_limit_is_refused(bad):
    with pytest.raises(srcad.SrcadError, match="tape_limit"):
        srcad.grad(cf.simulate, tape_limit=bad)


def test_the_environment_sets_the_default_limit(tmp_path):
    code = ("import numpy as np, srcad\nfrom tests import checkpoint_functions as cf\n"
            "g = srcad.grad(cf.simulate, jit=False)\n"
            "print(g.tape_limit, 'revolve_next' in (g(np.array([0.7, 1.3]), 30) is not None "
            "and srcad.source(g)))\n")
    env = dict(os.environ, SRCAD_TAPE_LIMIT="16MB", SRCAD_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, cwd=os.path.dirname(os.path.dirname(__file__)), check=True)
    assert out.stdout.split() == [str(16 * 2 ** 20), "True"]


def test_a_tape_over_memory_checkpoints_the_loops_with_one_warning(monkeypatch):
    from srcad.runtime import tapes
    args = (1.0, 1.0, 1.0, 10.0, 28.0, 8.0 / 3, 400)
    want = srcad.value_and_grad(cf.rk4, wrt=(0, 3), jit=False)(*args)
    monkeypatch.setattr(tapes, "TAPE_CEILING", 1000)  # 125 floats: less than the loop's tape
    g = srcad.value_and_grad(cf.rk4, wrt=(0, 3), jit=False)
    with pytest.warns(SrcadWarning, match=r"tape of `rk4` would not fit in memory: its loops "
                                          r"are checkpointed"):
        got = g(*args)
    assert got[0] == want[0]
    _same(got[1], want[1])
    assert g.tape_limit is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error", SrcadWarning)  # said once
        _same(g(*args)[1], want[1])
        out, back = srcad.vjp(cf.rk4, *args, wrt=0, jit=False)
        assert back(1.0) == want[1][0]


def test_a_tape_over_memory_with_a_limit_given_is_a_memory_error(monkeypatch):
    from srcad.runtime import tapes
    monkeypatch.setattr(tapes, "TAPE_CEILING", 8)
    with pytest.raises(MemoryError, match="tape would not fit in memory"):
        srcad.grad(cf.early_exit, jit=False, tape_limit=10 ** 9)(0.4, 50)


def test_forward_runs_is_the_least_count_that_covers_the_loop():
    """The doubling-then-halving search finds what counting up one at a time finds (the
    least t with binomial(s + t, s) >= n), for one snapshot up to many."""
    import math

    from srcad.runtime.checkpoints import forward_runs

    def least(n, s):
        t = 1
        while math.comb(s + t, s) < n:
            t += 1
        return t

    for n in list(range(1, 200)) + [1000, 4097, 10 ** 5 + 3]:
        for s in (1, 2, 3, 5, 8, 40):
            assert forward_runs(n, s) == least(n, s), (n, s)

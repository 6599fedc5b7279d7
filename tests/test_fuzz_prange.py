"""`numba.prange` loops from the grammar generator (`srcad.fuzz.grammar.parallel_loops`):
drawn at the intended rate, differentiated right where their iterations are independent,
and refused by name where one carries a dependence (the header says `; carried: i7`); the
checker's verdicts on both; and what the generator found srcad doing wrong, now
regression tests."""

import ast
import re

import numpy as np
import pytest
from numba import prange

import srcad
from srcad import fuzz
from srcad.fuzz import checker, compare, grammar
from tests.fd import assert_grad_close, fd_grad

RATE_SEEDS = range(300)
# srcad's one refusal a dependence-free program may meet: a write into an array while a
# view of it is still read (conservative; its hint asks for a copy)
KNOWN_REFUSAL = "is written element by element while"


def _loops(source):
    return [n for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.For) and "prange(" in ast.unparse(n.iter)]


def _seeds(carried, count, families=(), start=0):
    """The first `count` seeds from `start` whose program has prange loops, one of which
    carries a dependence (or none does)."""
    found = []
    seed = start
    while len(found) < count:
        source, _ = grammar.generate(seed, families=families)
        header = source.splitlines()[0]
        if _loops(source) and (checker.parse_carried(header) is not None) == carried:
            found.append(seed)
        seed += 1
    return found


# --------------------------------------------------------------------------- the generator

def test_prange_loops_are_drawn_at_the_intended_rate():
    programs = [grammar.generate(seed)[0] for seed in RATE_SEEDS]
    with_prange = [s for s in programs if _loops(s)]
    carried = [s for s in programs if checker.parse_carried(s.splitlines()[0])]
    assert 0.2 <= len(with_prange) / len(programs) <= 0.5
    assert 0.01 <= len(carried) / len(programs) <= 0.1
    for source in programs:
        assert ("from numba import prange\n" in source) == bool(_loops(source)), source
    loops = [loop for s in with_prange for loop in _loops(s)]
    writes = [loop for loop in loops if any(isinstance(n, ast.Subscript) and
                                            isinstance(n.ctx, ast.Store) for n in ast.walk(loop))]
    inner = [loop for loop in loops if any(isinstance(n, (ast.For, ast.While))
                                           for s in loop.body for n in ast.walk(s))]
    assert len(writes) >= 0.15 * len(loops) and len(inner) >= 0.25 * len(loops)
    spellings = {ast.unparse(n.iter).split("(")[0] for loop in loops for n in [loop]}
    assert spellings == {"prange"}


def test_a_dependence_free_body_only_reads_adds_and_writes_its_own_element():
    for seed in _seeds(False, 40):
        source, _ = grammar.generate(seed)
        for loop in _loops(source):
            i = loop.target.id
            for node in ast.walk(ast.Module(loop.body, [])):
                if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
                    index = ast.unparse(node.slice)
                    assert re.match(rf"\(?{i}\b", index), (index, source)
                if isinstance(node, (ast.Break, ast.Return)):
                    raise AssertionError(source)
                if isinstance(node, ast.AugAssign) and ast.unparse(node.target).startswith("acc"):
                    assert isinstance(node.op, (ast.Add, ast.Sub)), source


def test_avoiding_prange_and_the_family():
    for seed in range(60):
        assert not _loops(grammar.generate(seed, avoid=("prange",))[0])
    family = [grammar.generate(seed, families=("prange",))[0] for seed in range(100)]
    assert sum(bool(_loops(s)) for s in family) >= 50
    assert sum("carried:" in s.splitlines()[0] for s in family) >= 15
    assert any(re.search(r"(acc\d+) = \1 [+-] ", s) for s in family)
    assert any(_loops(grammar.generate(seed, in_place=True)[0]) for seed in range(30))


# --------------------------------------------------------------------------- the checker

def test_dependence_free_prange_programs_differentiate():
    results = [fuzz.check(seed, generator="grammar") for seed in _seeds(False, 30)]
    bad = [r for r in results if r.outcome in (fuzz.WRONG, fuzz.CRASH) or
           r.outcome == fuzz.REFUSED and KNOWN_REFUSAL not in r.detail]
    assert not bad, "\n\n".join(f"seed {r.seed}: {r.outcome}\n{r.detail}\n{r.source}"
                                for r in bad)
    assert sum(r.outcome == fuzz.OK for r in results) >= 28


def test_carried_prange_loops_are_refused_by_line():
    for seed in _seeds(True, 8):
        result = fuzz.check(seed, generator="grammar")
        assert result.outcome == fuzz.OK, (result.detail, result.source)
        assert result.detail.startswith("refused the prange loop over")
        source, spec = grammar.generate(seed)
        index = checker.parse_carried(source.splitlines()[0])
        module = checker.load(source, f"srcad_prange_carried_{seed}", _folder())
        args = checker._inputs(np.random.default_rng(seed), spec)
        with pytest.raises(srcad.SrcadError, match="prange") as err:
            srcad.grad(module.f, wrt=tuple(range(len(args))), jit=False)(*args)
        assert f":{checker.prange_line(source, index)}: " in str(err.value)


def _folder():
    import tempfile
    return tempfile.mkdtemp(prefix="srcad-prange-test-")


DEPENDENCE_FREE = """def f(x, y, z, a):
    s = 0.0
    out = np.zeros_like(a)
    for i in prange(len(a)):
        for j in range(2):
            s += math.sin(a[i] * x + j)
        out[i] = a[i] * y
    return s + np.sum(out * z)
"""
CARRIED = """def f(x, y, z, a):
    s = 0.0
    for i in prange(len(a)):
        s = 0.5 * s + a[i] * x
    return s + y * z
"""


def _program(body, carried=None):
    header = "# srcad grammar program, seed 4, args: x: (), y: (), z: (), a: (4,)"
    header += f"; carried: {carried}" if carried else ""
    return header + "\nimport math\nimport numpy as np\nfrom numba import prange\n\n\n" + body


def test_the_checker_verdicts_on_carried_loops():
    spec = (("x", ()), ("y", ()), ("z", ()), ("a", (4,)))
    ok = fuzz.check_source(_program(CARRIED, "i"), 4, spec)
    assert ok.outcome == fuzz.OK and "(line 9)" in ok.detail
    # srcad differentiating a loop the header says carries a dependence is WRONG
    wrong = fuzz.check_source(_program(DEPENDENCE_FREE, "i"), 4, spec)
    assert wrong.outcome == fuzz.WRONG and "instead of refusing it" in wrong.detail
    # a refusal of another line (here: no `i2` loop) is REFUSED
    other = fuzz.check_source(_program(CARRIED, "i2"), 4, spec)
    assert other.outcome == fuzz.REFUSED
    # a refusal of a program that carries nothing is REFUSED
    refused = fuzz.check_source(_program(CARRIED), 4, spec)
    assert refused.outcome == fuzz.REFUSED and "carries `s`" in refused.detail
    plain = fuzz.check_source(_program(DEPENDENCE_FREE), 4, spec)
    assert plain.outcome == fuzz.OK, plain.detail


def test_a_prange_programs_primal_is_kept_within_rounding():
    where = "x = 1.0"
    one_ulp = np.nextafter(1.0, 2.0)
    assert compare.primal_mismatch(False, one_ulp, 1.0, None, where, "value")
    with compare.sums_reassociated():
        assert compare.primal_mismatch(False, one_ulp, 1.0, None, where, "value") is None
        assert compare.primal_mismatch(True, 1.0 + 1e-12, 1.0, 1.0, where, "value") is None
        assert compare.primal_mismatch(False, 1.0 + 1e-6, 1.0, None, where, "value")
    assert compare.primal_mismatch(False, one_ulp, 1.0, None, where, "value")


def test_a_compiled_parallel_loop_against_numba_and_finite_differences(tmp_path):
    seed = 75  # a loop at the top of f that adds into a sum and runs an inner loop
    source, spec = grammar.generate(seed)
    module = checker.load(source, "srcad_prange_compiled", str(tmp_path))
    g = srcad.value_and_grad(module.f, wrt=tuple(range(len(spec))), jit=False)
    args = checker._inputs(np.random.default_rng(0), spec)
    g(*args)
    assert "rt.prange(" in srcad.source(g), "the sweeps do not run in parallel"
    reference = checker.numba_reference(source, "srcad_prange_compiled_njit", str(tmp_path))
    assert compare.close(reference(args), module.f(*args), 1e-9)  # parallel=True compiles
    result = fuzz.check(seed, jit=True, generator="grammar")
    assert result.outcome == fuzz.OK, result.detail


# --------------------------------------------------------------------------- srcad's gaps
# Found by this generator: each is a valid (or, for `shared_by_two`, an invalid) prange
# loop that srcad once handled wrongly.  The "prange" family draws these spellings.

def argument_written_before(a):
    a[0] = 1.0
    s = 0.0
    for i in prange(2):
        for j in range(1):
            s += a[j]
    return s


def argument_written_before_owned(a):
    a[0] = 1.0
    out = np.zeros_like(a)
    for i in prange(3):
        out[i] = a[i] * a[i]
        for j in range(2):
            pass
    return np.sum(out)


def generator_expression(x, a):
    s = 0.0
    for i in prange(2):
        s += max(v * x for v in a)
    return s


def sum_spelled_out(x, a):
    s = 0.0
    for i in prange(len(a)):
        s = s + a[i] * x
    return s


def break_in_inner_loop(x, a):
    s = 0.0
    for i in prange(len(a)):
        for j in range(3):
            if a[j] > 2.0:
                break
            s += a[j] * a[i] * x
    return s


def shared_by_two(x, a):
    w = np.zeros(4)
    for i in prange(4):
        w[i // 2] = a[i] * x
    return np.sum(w * w)


A = np.array([0.3, -0.5, 0.9, 1.2])


@pytest.mark.parametrize("fn", [argument_written_before, argument_written_before_owned])
def test_an_argument_written_before_a_parallel_loop(fn):
    got = srcad.grad(fn, jit=False)(A.copy())
    assert_grad_close(got, fd_grad(fn, (A.copy(),), 0))


@pytest.mark.parametrize("fn", [generator_expression, sum_spelled_out, break_in_inner_loop])
def test_valid_prange_loops_srcad_refuses(fn):
    got = srcad.grad(fn, wrt=(0, 1), jit=False)(0.7, A.copy())
    assert_grad_close(got, fd_grad(fn, (0.7, A.copy()), (0, 1)))


def test_an_element_two_iterations_write_is_refused():
    with pytest.raises(srcad.SrcadError, match=r"two iterations may share \(`w\[i // 2\]`\)"):
        srcad.grad(shared_by_two, jit=False)(0.7, A.copy())

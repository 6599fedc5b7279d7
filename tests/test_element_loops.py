"""A run of a reverse sweep's elementwise statements over arrays of one shape becomes a
kernel and its loop (ElementLoops): one pass over the elements when compiled, the same
statements on whole arrays as plain Python. Each gradient is checked against central
finite differences, compiled and not; the source shows where the loops are, and where
they must not be."""
import numpy as np
import pytest

import srcad
from benchmarks.vectorized_workloads import pair_energy
from srcad import runtime as rt
from tests.fd import fd_grad


def smooth_loss(x, y):
    r = x * y - np.sin(x)
    s = np.exp(-r * r) + np.tanh(r) * y
    return np.sum(s * s) + np.sum(r)


def two_results(x):
    a = np.cos(x) * x
    b = a * a + np.sqrt(x)
    return np.sum(a) * 2.0 + np.sum(b * x)


def broadcast_row(x, w):
    return np.sum(np.sin(x * w) * w)  # x: (n, m), w: (m,), broadcast along rows


def steps(x, w):
    total = 0.0
    for k in range(3):  # each step adds into the adjoints of x and w
        y = np.sin(x * w) * (k + 1.0) + np.cos(x)
        total = total + np.sum(y * y)
    return total


def outer_gauss(x, y):
    d = x[:, None] - y[None, :]  # adjoints added into views of d_x and d_y
    return np.sum(np.exp(-d * d) * d)


def self_pairs(p):
    d = p[:, None, :] - p[None, :, :]  # two views of one adjoint, meeting on the diagonal
    r = np.sum(d * d, axis=-1) + 1.0
    return np.sum(np.sqrt(r) * np.cos(d[:, :, 0]))


def lattice(n, seed=0):
    rng = np.random.default_rng(seed)
    side = int(np.ceil(n ** (1 / 3)))
    grid = np.array([[i, j, k] for i in range(side) for j in range(side)
                     for k in range(side)], dtype=float)
    return (1.12 * grid[:n] + 0.05 * rng.standard_normal((n, 3)),)


CASES = [
    (pair_energy, lattice(8), (0,)),
    (smooth_loss, (np.linspace(-1.0, 1.2, 7), np.linspace(0.3, 0.9, 7)), (0, 1)),
    (two_results, (np.linspace(0.2, 1.5, 6).reshape(2, 3),), (0,)),
    (steps, (np.linspace(-0.5, 0.7, 5), np.linspace(0.8, 1.2, 5)), (0, 1)),
    (broadcast_row, (np.linspace(-1, 1, 12).reshape(3, 4), np.linspace(0.5, 1.5, 4)),
     (0, 1)),
    (outer_gauss, (np.linspace(-1.0, 1.0, 5), np.linspace(-0.5, 1.5, 4)), (0, 1)),
    (self_pairs, (np.linspace(-1.0, 1.3, 12).reshape(4, 3),), (0,)),
]


def _check(f, args, wrt, jit):
    g = srcad.grad(f, wrt=wrt, jit=jit)
    got = g(*args)
    want = fd_grad(f, args, wrt)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
    return srcad.source(g, *args)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f, args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradients_with_element_loops(f, args, wrt, jit):
    _check(f, args, wrt, jit)


def _sweep(source, name):
    rev = source[source.index(f"def {name}_rev("):]
    return rev[:rev.index("\ndef ")] if "\ndef " in rev else rev


def test_pair_energy_runs_its_chain_of_adjoints_as_one_loop():
    source = _check(pair_energy, lattice(8), (0,), jit=False)
    rev = _sweep(source, "pair_energy")
    assert "pair_energy_rev_loop1(" in rev
    assert "rt.strong" not in rev and "rt.mul_alike" not in rev
    kernel = source[source.index("def pair_energy_rev_kernel1"):]
    assert "rt.strong(" in kernel  # the sweep's own statements, on numbers when compiled
    assert "ELEMENT_LOOPS = True" in source
    # the cotangent of np.sum(d * d, axis=-1), read along each line, never spread out
    assert "rt.spread(d_tmp4, 2, tmp3_shape)" in kernel and "d_tmp4[i0, i1]" in kernel
    assert "rt.filled(rt.expand(d_tmp4" not in rev


def test_a_run_inside_a_loop_adds_into_the_arrays_of_the_sweep():
    source = _check(steps, CASES[3][1], (0, 1), jit=False)
    rev = _sweep(source, "steps")
    assert "_loop1(" in rev[rev.index("for "):]  # the run inside the reverse loop


def test_a_run_returns_only_what_the_sweep_reads_after_it():
    source = _check(two_results, CASES[2][1], (0,), jit=False)
    rev = _sweep(source, "two_results")
    # one loop from `b`'s line to `a`'s adds into `d_a` and `d_x`; only `d_x` is read after
    assert "d_x = two_results_rev_loop1(" in rev and "d_a = two_results" not in rev
    loop = source[source.index("def two_results_rev_loop1("):]
    assert "d_x[i0, i1] = two_results_rev_kernel1(" in loop and "    return d_x\n" in loop


def test_operands_broadcast_against_each_other_are_left_as_they_were():
    source = _check(broadcast_row, CASES[4][1], (0, 1), jit=False)
    kernels = source[source.index("def broadcast_row_rev("):]
    # `w` is a row broadcast over `x`'s rows: no loop reads it as one of its elements
    assert "w[i0, i1]" not in kernels and "w[i0]" not in kernels


def test_the_loops_refuse_operands_of_two_shapes():
    rt.same_shape((2, 3), (2, 3))
    with pytest.raises(ValueError, match="two shapes"):
        rt.same_shape((2, 3), (3, 2))


@pytest.mark.parametrize("jit", [False, True])
def test_shapes_that_differ_at_run_time_raise_not_broadcast(jit):
    g = srcad.grad(smooth_loss, wrt=(0, 1), jit=jit)
    with pytest.raises((ValueError, srcad.SrcadError)):
        g(np.ones(5), np.ones(4))


def test_additions_into_broadcast_views_are_made_in_the_loop():
    source = _check(outer_gauss, CASES[5][1], (0, 1), jit=False)
    rev = _sweep(source, "outer_gauss")
    assert "rt.add_to(d_x[:, None]" not in rev and "rt.add_to(d_y[None, :]" not in rev
    loop = source[source.index("def outer_gauss_rev_loop1("):]
    loop = loop[:loop.index("\ndef ")] if "\ndef " in loop else loop
    # each element of the pair's adjoint adds into d_x and d_y where it came from
    assert "d_y[i1] += v" in loop and "d_x[i0] += v" in loop
    # run as Python, the loop adds the kernel's arrays into the views
    assert "rt.add_to(d_y[None, :], d_y_add" in loop


@pytest.mark.parametrize("shape", [(1, 3), (2, 3), (9, 3)])
def test_views_that_meet_on_the_diagonal_add_both_terms(shape):
    p = np.linspace(-0.8, 1.1, int(np.prod(shape))).reshape(shape)
    _check(self_pairs, (p,), (0,), jit=True)


def _broadcast_program(seed):
    """A random function of pairwise broadcasting as vectorized code writes it: a
    difference, sum or product of `a[:, None]` and `b[None, :]` (rows of points when
    `points`), elementwise functions of it, and a sum; (source, arguments, wrt)."""
    rng = np.random.default_rng(seed)
    points, same = bool(rng.integers(2)), rng.random() < 0.75  # mostly one set's pairs
    op = ["-", "-", "+", "*"][rng.integers(4)]
    left, right = ("a[:, None, :]", "b[None, :, :]") if points else ("a[:, None]", "b[None, :]")
    if same:
        right = right.replace("b", "a")
    f1 = ["np.sin({})", "np.exp(-({}) ** 2)", "np.tanh({})", "({0}) * ({0})"][rng.integers(4)]
    f2 = ["np.cos({})", "np.sqrt({} * {} + 1.0)".replace("{} * {}", "({0}) * ({0})"),
          "({}) * 0.5"][rng.integers(3)]
    lines, e = [f"    d = {left} {op} {right}", f"    e1 = {f1.format('d')}"], "e1"
    if points:
        lines.append("    e2 = np.sum(e1, axis=-1)" if rng.integers(2)
                     else "    e2 = e1[:, :, 0] * e1[:, :, 1]")
        e = "e2"
    if rng.integers(2):
        lines.append(f"    e3 = {e} * {'a[:, 0:1]' if points else 'a[:, None]'}")
        e = "e3"
    triu = f" * np.triu({e}, 1)" if rng.integers(2) else ""
    lines.append(f"    return np.sum({f2.format(e)}{triu})")
    params = "a" if same else "a, b"
    source = f"def bcast_{seed}({params}):\n" + "\n".join(lines) + "\n"
    shape_a, shape_b = ((4, 3), (3, 3)) if points else ((5,), (4,))
    args = (np.linspace(-0.9, 1.1, int(np.prod(shape_a))).reshape(shape_a),)
    if not same:
        args += (np.linspace(-0.4, 0.8, int(np.prod(shape_b))).reshape(shape_b),)
    return source, args, tuple(range(len(args)))


SEEDS = range(16)


@pytest.fixture(scope="module")
def broadcast_programs(tmp_path_factory):
    from benchmarks.transform import load_module
    cases = [_broadcast_program(seed) for seed in SEEDS]
    module = load_module([c[0] + "\n\n" for c in cases], tmp_path_factory.mktemp("bcast"))
    return [(getattr(module, f"bcast_{seed}"),) + c[1:] for seed, c in zip(SEEDS, cases)]


@pytest.mark.parametrize("seed", SEEDS)
def test_random_broadcasting_programs_have_finite_difference_gradients(broadcast_programs,
                                                                       seed):
    f, args, wrt = broadcast_programs[seed]
    _check(f, args, wrt, jit=seed % 4 == 0)  # compiled: a quarter, for the suite's time

"""`for` loops over itertools: `product` (also `repeat=`), `combinations`,
`combinations_with_replacement`, `permutations` and `pairwise`, as LowerIterators lowers
them into loops over indices; with `break` and `continue`; and the refusals of the rest
of itertools. Each value is the function's own and each gradient matches
central finite differences."""
import itertools
import itertools as it
import warnings
from itertools import combinations, pairwise, permutations, product

import numpy as np
import pytest

import srcad
from tests.fd import assert_value_and_grad

PAIR = 2  # a module-level constant `r`


def product_of_ranges(x, y, n):
    s = 0.0
    for i, j in itertools.product(range(n), range(1, len(y))):
        s += x[i] * y[j] * (i + 2 * j)
    return s


def product_of_arrays(x, y):
    s = 0.0
    for a, b in itertools.product(x, y):
        s += np.sin(a) * b
    return s


def product_of_three(x, cs, w):
    s = 0.0
    for a, c, k in product(x, cs, range(3, 0, -1)):
        s += a * c * w ** k
    return s


def product_repeated(x):
    s = 0.0
    for i, j in product(range(len(x)), repeat=2):
        s += x[i] * x[j] / (1.0 + abs(i - j))
    return s


def product_through_an_alias(x, y):
    s = 0.0
    for a, b, c, d in it.product(x, y[1:], repeat=2):
        s += a * b - c * d * d
    return s


def product_as_one_name(x, y):
    s = 0.0
    for p in itertools.product(x, y):
        s += p[0] * np.cos(p[-1])
    return s


def product_of_an_enumerate(x, y):
    s = 0.0
    for (i, a), b in product(enumerate(x), y):
        s += i * a * b
    return s


def enumerate_a_product(x, y):
    s = 0.0
    for k, (a, b) in enumerate(product(x, y), 1):
        s += k * a * b
    return s


def product_rebinding_its_sequence(x):
    s = 0.0
    for a, b in product(x, x):
        s += a * b
        x = x * 0.5
    return s + np.sum(x)


def product_with_break(x, y):
    s = 0.0
    for a, b in itertools.product(x, y):
        if a * b > 0.5:
            break
        s += a * b
    return s


def product_with_continue(x, y):
    s = 0.0
    for i, j in product(range(len(x)), range(len(y))):
        if i == j:
            continue
        s += x[i] * y[j]
    return s


def empty_product(x, n):
    s = x[0]
    for i, j in product(range(n), range(3)):
        s += x[i] * j
    return s


def pairs_of_positions(x):
    s = 0.0
    for i, j in itertools.combinations(range(len(x)), 2):
        s += x[i] * x[j] / (j - i)
    return s


def triples(x):
    s = 0.0
    for a, b, c in combinations(x, 3):
        s += a * b * c
    return s


def pairs_as_one_name(x):
    s = 0.0
    for p in combinations(x, r=PAIR):
        s += (p[1] - p[0]) ** 2
    return s


def pairs_with_replacement(x):
    s = 0.0
    for a, b in itertools.combinations_with_replacement(x, 2):
        s += a * np.exp(b)
    return s


def ordered_pairs(x):
    s = 0.0
    for a, b in permutations(x, 2):
        s += a * b * b
    return s


def ordered_triples_of_positions(x):
    s = 0.0
    for i, j, k in it.permutations(range(len(x)), 3):
        s += x[i] * x[j] ** 2 * (k + 1)
    return s


def pairs_with_break(x):
    s = 0.0
    for a, b in combinations(x, 2):
        if a * b > 1.0:
            break
        s += a * b
    return s


def triples_with_two_breaks(x, limit):
    s = 0.0
    for i, j, k in combinations(range(len(x)), 3):
        for t in range(3):  # this break leaves only `for t`
            if t > i:
                break
            s += x[t] * x[k]
        if x[i] + x[j] + x[k] > limit:
            break
        s += x[j]
    return s


def breaks_inside_an_outer_loop(x):
    s = 0.0
    for t in range(3):
        for a, b in combinations(x, 2):  # its flag starts False again each time
            if a * b > t * 0.4:
                break
            s += a * b * t
    return s


def more_than_there_are(x):
    s = x[0]
    for a, b, c in combinations(x[:2], 3):
        s += a * b * c
    return s


def ordered_pairs_as_one_name(x):
    s = 0.0
    for p in permutations(x, 2):
        s += p[0] * p[1] ** 2
    return s


def ordered_pairs_with_continue(x):
    s = 0.0
    for a, b in permutations(x, 2):
        if a > b:
            continue
        s += np.tanh(a - b)
    return s


def neighbours(x):
    s = 0.0
    for a, b in pairwise(x):
        s += (b - a) ** 2
    return s


def neighbours_zipped(x, w):
    s = 0.0
    for (a, b), c in zip(itertools.pairwise(x), w):
        s += a * b * c
    return s


def neighbours_of_a_range(x):
    s = 0.0
    for i, j in pairwise(range(0, len(x), 2)):
        s += x[i] * x[j]
    return s


def sum_over_pairs(x):
    return sum(x[i] * x[j] for i, j in combinations(range(len(x)), 2))


def nested_loops(x, y):
    s = 0.0
    for i, j in product(range(2), range(2)):
        for a, b in pairwise(y):
            s += x[i] * x[j] * a * b
    return s


_X = np.array([0.3, -1.2, 0.8, 1.5])
_Y = np.array([1.1, 0.4, -0.7])
_X5 = np.array([0.3, 2.0, 0.8, 1.5, 0.1])  # breaks with outer iterations left to run
CASES = [
    (product_of_ranges, lambda: (_X.copy(), _Y.copy(), 3), (0, 1)),
    (product_of_arrays, lambda: (_X.copy(), _Y.copy()), (0, 1)),
    (product_of_three, lambda: ([0.5, -1.0, 2.0], [0.5, -2.0], 0.7), (0, 2)),
    (product_repeated, lambda: (_X.copy(),), 0),
    (product_through_an_alias, lambda: (_X[:2].copy(), _Y.copy()), (0, 1)),
    (product_as_one_name, lambda: (_X.copy(), _Y.copy()), (0, 1)),
    (product_of_an_enumerate, lambda: (_X.copy(), _Y.copy()), (0, 1)),
    (enumerate_a_product, lambda: (_X.copy(), _Y.copy()), (0, 1)),
    (product_rebinding_its_sequence, lambda: (_X.copy(),), 0),
    (product_with_break, lambda: (_X.copy(), _Y.copy()), (0, 1)),
    (product_with_continue, lambda: (_X.copy(), _Y.copy()), (0, 1)),
    *[(empty_product, (lambda n=n: (_X.copy(), n)), 0) for n in (0, 2)],
    (pairs_of_positions, lambda: (_X.copy(),), 0),
    (triples, lambda: (_X.copy(),), 0),
    (pairs_as_one_name, lambda: (_X.copy(),), 0),
    (pairs_with_replacement, lambda: (_X.copy(),), 0),
    (ordered_pairs, lambda: (_X.copy(),), 0),
    (ordered_triples_of_positions, lambda: (_X.copy(),), 0),
    (pairs_with_break, lambda: (_X5.copy(),), 0),
    *[(triples_with_two_breaks, (lambda lim=lim: (_X5.copy(), lim)), 0)
      for lim in (1.0, 10.0)],
    (ordered_pairs_with_continue, lambda: (_X.copy(),), 0),
    (breaks_inside_an_outer_loop, lambda: (_X5.copy(),), 0),
    (more_than_there_are, lambda: (_X.copy(),), 0),
    (ordered_pairs_as_one_name, lambda: (_X.copy(),), 0),
    (neighbours, lambda: (_X.copy(),), 0),
    (neighbours_zipped, lambda: (_X.copy(), _Y.copy()), (0, 1)),
    (neighbours_of_a_range, lambda: (np.linspace(-1.0, 1.5, 7),), 0),
    (sum_over_pairs, lambda: (_X.copy(),), 0),
    (nested_loops, lambda: (_X.copy(), _Y.copy()), (0, 1)),
]
# compiled with Numba as well: a flat product, a nest with a break flag, pairwise
JITTED = {product_with_break, triples_with_two_breaks, neighbours_zipped}


@pytest.mark.parametrize("fn, make, wrt", CASES, ids=[f"{c[0].__name__}-{k}"
                                                      for k, c in enumerate(CASES)])
def test_loops_over_itertools(fn, make, wrt):
    assert_value_and_grad(fn, make, wrt, jit=False, rel=1e-14)


@pytest.mark.parametrize("fn, make, wrt", [c for c in CASES if c[0] in JITTED],
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)
                              if c[0] in JITTED])
def test_loops_over_itertools_compiled(fn, make, wrt):
    """Compiled by Numba, not run as Python after a failed compile."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", srcad.SrcadWarning)
        assert_value_and_grad(fn, make, wrt, jit=True, rel=1e-14)


def test_a_break_leaves_the_whole_nest():
    """The break of a combinations loop, lowered into nested loops, leaves all of them."""
    x = _X5.copy()
    g = srcad.grad(pairs_with_break, jit=False)
    assert srcad.value_and_grad(pairs_with_break, jit=False)(x)[0] == pairs_with_break(x)
    assert pairs_with_break(x) != _inner_break_only(x)  # x tells the two apart
    assert "if broke" in srcad.source(g, x)


def _inner_break_only(x):
    """What a `break` that left only the inner loop of the nest would compute."""
    s = 0.0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            if x[i] * x[j] > 1.0:
                break
            s += x[i] * x[j]
    return s


def chained(x, y):
    s = 0.0
    for v in itertools.chain(x, y):
        s += v
    return s


def accumulated(x):
    s = 0.0
    for v in it.accumulate(x):
        s += v * v
    return s


def counted(x):
    s = 0.0
    for i, v in zip(itertools.count(), x):
        s += i * v
    return s


def sliced(x):
    s = 0.0
    for v in itertools.islice(x, 1, 3):
        s += v
    return s


def permutations_of_unknown_size(x):
    s = 0.0
    for p in permutations(x):
        s += p[0]
    return s


def combinations_of_an_argument_size(x, r):
    s = 0.0
    for a, b in combinations(x, r):
        s += a * b
    return s


def repeated_an_argument_times(x, r):
    s = 0.0
    for p in product(x, repeat=r):
        s += p[0]
    return s


def one_name_used_whole(x, y):
    s = 0.0
    for p in product(x, y):
        s += np.sum(np.array(p))
    return s


def one_name_used_after(x, y):
    s = 0.0
    for p in product(x, y):
        s += p[0] * p[1]
    return s + p[0]


def unpacked_wrong(x, y):
    s = 0.0
    for a, b in product(x, y, x):
        s += a * b
    return s


def combinations_enumerated(x):
    s = 0.0
    for k, (a, b) in enumerate(combinations(x, 2)):
        s += k * a * b
    return s


def outside_a_loop(x):
    s = 0.0
    pairs = list(itertools.combinations(range(len(x)), 2))
    for i, j in pairs:
        s += x[i] * x[j]
    return s


@pytest.mark.parametrize("fn, args, words", [
    (chained, (_X, _Y), r"`itertools.chain` \(itertools.chain\) is not supported.*"
                        r"loop over each sequence in turn"),
    (accumulated, (_X,), r"`it.accumulate` \(itertools.accumulate\).*running value"),
    (counted, (_X,), r"itertools.count.*range\(start, stop, step\)"),
    (sliced, (_X,), r"itertools.islice.*x\[start:stop:step\]"),
    (permutations_of_unknown_size, (_X,), r"needs one sequence and a constant `r`.*"
                                          r"len\(x\), is not known"),
    (combinations_of_an_argument_size, (_X, 2), r"needs one sequence and a constant `r`"),
    (repeated_an_argument_times, (_X, 2), r"`product` takes sequences here, and a "
                                          r"constant `repeat=`"),
    (one_name_used_whole, (_X, _Y), r"`p` holds a whole tuple of `product`.*"
                                    r"for a, b in product"),
    (one_name_used_after, (_X, _Y), r"`p` holds a whole tuple"),
    (unpacked_wrong, (_X, _Y), r"gives tuples of 3 items here.*for a, b, c in product"),
    (combinations_enumerated, (_X,), r"`combinations` inside `enumerate`"),
    (outside_a_loop, (_X,), r"`itertools.combinations` is supported only as what a "
                            r"`for` loop runs over"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_what_is_not_lowered_is_refused_at_its_line(fn, args, words):
    with pytest.raises(srcad.SrcadError, match="(?s)" + words) as info:
        srcad.grad(fn, jit=False)(*[a.copy() if isinstance(a, np.ndarray) else a
                                   for a in args])
    message = str(info.value)
    assert "test_itertools.py" in message and "no derivative rule" not in message

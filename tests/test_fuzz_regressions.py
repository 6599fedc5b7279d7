"""Bugs found by `python -m srcad.fuzz`, each kept as its minimized program.

Every program defines `f(x, y, a, m)` (a of shape (n,), m of shape (r, n)); `check` draws
inputs from the seed, compares reverse mode with central finite differences and forward
mode with reverse mode, exactly as the fuzzer does (for an in-place kernel, `out=2`, the
final contents of `a` through `vjp` and `jvp`).  A bug not fixed yet is marked
`xfail(strict=True)` with what goes wrong: the test starts failing once it is fixed, so
that the mark comes off."""

import textwrap

import pytest

from srcad import fuzz

HEADER = "import math\n\nimport numpy as np\n\n\n"


def check(body, seed=0, shapes=(4, 2), jit=False, out=None):
    result = fuzz.check_source(HEADER + textwrap.dedent(body), seed, shapes, jit=jit, out=out)
    assert result.outcome == fuzz.OK, result.detail


def test_scalar_clip_compiles_under_numba():
    # Numba's np.clip takes arrays only; the forward sweep called it on a float.
    check("""
        def f(x, y, a, m):
            return np.clip(x * y, -1.0, 0.5) + np.sum(a) + np.sum(m)
        """, jit=True)


def test_return_inside_loop_over_tuple():
    # Refused as "`break`/`continue` in a loop over a tuple": the unrolled loop could not
    # exit.  Now each unrolled copy runs in a one-trip loop and `break` skips the rest.
    check("""
        def f(x, y, a, m):
            s = 0.0
            for v in (x, y, x):
                s += math.sin(v)
                if s > 0.5:
                    return s * 2.0
            return s + np.sum(a) + np.sum(m)
        """, seed=1)


def test_break_and_continue_in_loop_over_tuple_of_arrays():
    check("""
        def f(x, y, a, m):
            s = 0.0
            for v in (a, m[0], a * y):
                for i in range(2):
                    if v[i] > 1.2:
                        break
                    s += v[i] * x
                if np.sum(v) > 2.5:
                    continue
                s += np.sum(np.sin(v)) * x
                if s > 1.0:
                    break
            return s + y + np.sum(m)
        """, seed=3)


def test_early_return_in_branch_numba_prunes():
    # `h > 0.0` with h = 0.1 is constant to Numba, which pruned the other branches; the
    # return values SplitReturns sets only there and at the end were then "Undefined".
    check("""
        def helper(p0, p1):
            h = 0.1
            if h > 0.0:
                h = h * p1
            elif p1 > 0.0:
                return p0, p1
            else:
                h += 0.5
            return h * p0, p1

        def f(x, y, a, m):
            u1, u2 = helper(x, y)
            return u1 * u2 + np.sum(a) + np.sum(m)
        """, seed=1, jit=True)


# Three regressions of replaying loops in the reverse sweep (bac4e90), fixed in TapeNeeds
# by `names_before` and by keeping the indices of saved elements; found by seeds 3033,
# 8458 and 8230 of the fuzzer.

def test_replayed_loop_with_conditional_array_update():
    # crashed: UnboundLocalError in the reverse sweep (a replayed temporary never set)
    check("""
        def f(x, y, a, m):
            s = 0.0
            for i4 in range(4):
                if s:
                    m -= np.sin(m)
            return np.sum(m)
        """, seed=3033, shapes=(6, 2))


def test_replayed_loop_with_constant_ternary():
    # crashed: UnboundLocalError in the reverse sweep
    check("""
        def f(x, y, a, m):
            t1 = 0.5
            for i2 in range(len(a), 0, -1):
                t1 -= 0.5 if 0.5 else np.prod(np.tanh(m))
            return t1 + x
        """, seed=8458, shapes=(4, 3))


def test_loop_after_tanh_whose_adjoint_reads_its_result():
    # wrong gradient: tanh's adjoint read t0 after the loop had overwritten it
    check("""
        def f(x, y, a, m):
            t0 = math.tanh(x)
            for i1 in range(len(a), 1, -1):
                t0 += 0.5
            return t0
        """, seed=8230, shapes=(6, 3))



def test_helper_keeps_no_alias_of_an_argument_the_caller_writes_later():
    # seed 8619: the helper kept `q0` itself on its tape (through a ternary, in a loop),
    # and the caller's later write into `a` changed what the helper's reverse sweep read
    for jit in (False, True):
        check("""
            def helper0(q0):
                h = 0.1
                while h < 1.62:
                    h += 0.5 / np.dot(q0 if 0.5 else q0, q0)
                return (h, 0.5)

            def f(x, y, a, m):
                u2, u3 = helper0(a)
                a[int(1.5)] /= 1.5
                return u2 + x + y + np.sum(m)
            """, seed=8619, jit=jit)


def test_loop_over_tuple_takes_an_item_the_body_changes_before_the_first_trip():
    # Seed 3993: `for v2 in (0.5, 0.5, s)` read `s` when the third copy ran (after the
    # body had lowered it twice), not when the tuple was built.
    check("""
        def f(x, y, a, m):
            s = 0.0
            for v2 in (0.5, 0.5, s):
                s -= 0.5
                if v2:
                    m /= 1.5
            return np.sum(m) + s * x
        """, seed=3993, shapes=(6, 2))


def test_helper_tape_copies_a_row_of_its_argument():
    # Seed 4043: `r0[0]` of a 2-d argument is a view too (no slice in the index); the
    # helper's tape kept it, and the caller's later `m[:] *= 2` changed what its reverse
    # sweep read.
    check("""
        def helper0(r0, p1):
            e = np.sin(r0[0])
            return (e[0], 0.5)

        def f(x, y, a, m):
            u2, c3 = helper0(m, 0.5)
            m[:] *= 2
            return u2 + x * np.sum(a)
        """, seed=4043, shapes=(5, 2))


def test_helper_tape_in_a_branch_numba_finds_constant():
    # Seed 7500: the helper's tapes go into a typed list, appended to only in a branch
    # whose test Numba folds to False (`s < -0.73` with s = 0.0); Numba dropped the
    # branch and could not type the list, so the gradient ran as plain Python.
    check("""
        def helper0(q0, r1):
            h = 0.1
            k2 = 0
            while h < 4.0 and k2 < 3:
                k2 += 1
                h += 0.5 * math.sin(h + np.sum(q0) * r1)
            return h * q0[0]

        def f(x, y, a, m):
            s = 0.0
            t0 = math.tanh(x * 1.2 + y)
            if s < -0.73:
                t0 += helper0(a, y)
            elif t0 > -2.0:
                t0 += 0.5 * helper0(a, x)
            return x + t0 + 0.1 * np.sum(a) + 0.1 * np.sum(m)
        """, seed=7500, jit=True)


def test_forward_mode_leaves_values_that_never_reach_the_output():
    # Found by the grammar generator: the jvp differentiated `flag`, which the output never
    # reads, and the derivative of atan2 at (0, 0) divided by zero; reverse mode was right.
    check("""
        def f(x, y, a, m):
            flag = math.atan2(0.0, y * 0.0)
            return x * y + np.sum(a) + np.sum(m)
        """)


def test_integer_powers_of_literals_are_pythons():
    # Found by the grammar generator: `3 ** (-1 ** 4)` is 1/3 in Python, which folds it when
    # it compiles f; split into temporaries, compiled code computed 3 ** -1 in integers: 0.
    check("""
        def f(x, y, a, m):
            k = 3 ** (-1 ** 4) + (2 + 1) ** (-3)
            return x * k + y + np.sum(a) + np.sum(m)
        """, jit=True)


# Found by the grammar generator's recent constructs (integer-array and tuple indices,
# masks, max/min of an iterable, raise/assert, buffer swaps, in-place kernels).

def test_loop_over_tuple_reads_an_array_before_the_body_writes_it():
    # In-place seeds 401, 636 and 1214 (`for i2 in (c, np.sum(a)): a[[3, 3]] = ...`, then
    # `a *= i2`): the items were read when each unrolled copy ran, after the body's write
    # (seed 3993's fix covered a scalar item only): a wrong value and gradient.
    check("""
        def f(x, y, a, m):
            for v in (0.5, a[0] * x):
                a[0] = 2.5
            return v * y + np.sum(m)
        """, jit=True)


def test_loop_over_an_array_whose_name_the_body_binds_again():
    # seed 40044 (`for i3 in a:` around a ping-pong loop that swaps `a` with a new buffer):
    # srcad iterated over whatever `a` named when each trip ran (f 0.63, srcad 2.59)
    check("""
        def f(x, y, a, m):
            s = 0.0
            for v in a:
                s = s + v * x
                a = a * 2.0
            return s + y + np.sum(m)
        """)


def test_masked_read_in_a_loop_then_the_array_overwritten():
    # in-place seed 40967 (`acc5 -= np.min(a[a <= 2.0])` in a loop, then
    # `a[:] = np.tanh(a + acc5)`: the minimum's gradient went to a[0], not the argmin). A
    # replayed loop reads `a` again in the reverse sweep, after `a[:] = s` has overwritten
    # it, unless the elements it overwrites are saved (the gradient was 23.744 everywhere)
    check("""
        def f(x, y, a, m):
            s = 0.0
            for i in range(2):
                s -= np.sum(a[a <= 0.0] ** 2)
            a[:] = s
            return np.sum(a) * x + y + np.sum(m)
        """)
    check("""
        def f(x, y, a, m):
            s = 0.0
            for i in range(3):
                s -= np.min(a[a <= 2.0]) * x
            a[:] = np.tanh(a + s)
            return np.sum(a) + y + np.sum(m)
        """, jit=True)


def test_tuple_index_bound_again_in_a_loop_with_an_inner_loop():
    # seeds 2402, 2569 and 20031 (compiled too: Numba cannot type the forward sweep, and
    # the plain-Python one raises the same NameError): a tuple's saved values are a list,
    # but the room reserved before the loop read the counter that only array tapes have
    for jit in (False, True):
        check("""
            def f(x, y, a, m):
                s = 0.0
                for k in range(3):
                    t = (2,)
                    v = a[t] * x
                    for i in range(3):
                        s = math.cos(s + v)
                return s + y + np.sum(m)
            """, jit=jit)


def test_max_of_a_one_item_list():
    check("""
        def f(x, y, a, m):
            return max([x * y]) + min((x,)) + np.sum(a) + np.sum(m)
        """)


def test_buffers_swapped_twice_are_no_aliases():
    check("""
        def f(x, y, a, m):
            w = np.zeros(4)
            u = np.zeros(4)
            u, w = w, u
            w[0] = x
            u, w = w, u
            return np.sum(u * a) * y + np.sum(m)
        """)


@pytest.mark.parametrize("body", ["""
    def f(x, y, a, m):
        if x > -2.0:
            u = np.zeros_like(a)
            for k in range(2):
                u[0] = a[0] * y + np.sum(m)
                a, u = u, a
    """, """
    def f(x, y, a, m):
        u = np.zeros_like(a)
        for k in range(2):
            u[0] = a[0] * y + np.sum(m)
            a, u = u, a
        w = np.zeros_like(a)
        for k in range(2):
            w[0] = u[0] * x
            u, w = w, u
    """], ids=["in-a-branch", "after-a-swap"])
def test_in_place_buffer_bound_where_srcad_cannot_follow_it(body):
    # in-place seeds 11, 131 and 30106 of the grammar generator (in a branch, in an outer
    # loop, after the argument's first swap)
    check(body, out=2)


@pytest.mark.parametrize("body", ["""
    def f(x, y, a, m):
        return math.sqrt(y * 0.0) + math.hypot(0.0, x * 0.0) + x * y + np.sum(a) + np.sum(m)
    """, """
    def f(x, y, a, m):
        t2 = 1
        return math.atan2(a[t2] * 0.0, math.cos(0.5) - math.cos(0.5)) + x + np.sum(m)
    """, """
    def f(x, y, a, m):
        a[:] = np.sqrt(np.tanh(x) - np.tanh(x)) + np.sqrt(y ** 0 - 1.0) + y
        return np.sum(a) + np.sum(m)
    """, """
    def f(x, y, a, m):
        x = math.sqrt(y - y)
        a[a > 0.7] = x + y
        return np.sum(a * a) + np.sum(m)
    """], ids=["times-zero", "atan2-zeros", "less-itself", "masked"])
def test_a_derivative_cancelled_by_a_literal_zero_or_by_itself_is_zero(body):
    # grammar seeds 60038, 60163 and in-place 50043, 50202, 50210, 50358: through
    # `math.sqrt(y * 0.0)` or `np.sqrt(e - e)`, whose values never change, the gradient was
    # 0 * inf = nan (or a ZeroDivisionError in the reverse sweep), finite differences 0
    for jit in (False, True):
        check(body, jit=jit)


def test_a_difference_of_a_value_and_its_copy_cancels():
    # grammar seed 80339: `-y - +-y` is `tmp1 - tmp3` with `tmp3 = tmp1`: the sqrt at 0
    # gave nan; a variable bound again (a parameter) is no copy of its first value
    for jit in (False, True):
        check("""
            def f(x, y, a, m):
                t = y
                y = y * 2.0
                return np.sqrt(-x - +-x) + np.sqrt(t - y + 3.0) * x + np.sum(a) + np.sum(m)
            """, jit=jit)


def test_ufunc_out_into_the_array_a_view_looks_at():
    # grammar seed 80276: `np.multiply(w, s, out=w)` with `u = w[:-1]` alive was refused
    # as aliasing: the write is into `w`, and the view is taken again after it
    for jit in (False, True):
        check("""
            def f(x, y, a, m):
                w = a.copy()
                u = w[:-1]
                np.multiply(w, 0.1 * math.atan(y), out=w)
                np.tanh(u, out=u)
                return np.sum(np.tanh(np.add.outer(u, u))) * x + np.sum(w) + np.sum(m)
            """, jit=jit)


def test_outer_product_of_an_array_written_afterwards_through_a_view():
    # grammar seed 140028: `np.multiply.outer(w, w)` is `rt.outer_left(w, w) * w`, and
    # rt.outer_left returns a reshaped view of `w`; the tape kept it as it was, so the
    # reverse sweep read it with the later write through `u` in it (gradient -1.6, not
    # 2 sum(a) = -2.3). Such rules are views now, and their results are copied to the tape.
    for jit in (False, True):
        check("""
            def f(x, y, a, m):
                w = a.copy()
                u = w[:1]
                s = np.sum(np.multiply.outer(w, w))
                u *= 0.5
                return s * x + y + np.sum(m)
            """, jit=jit)


def test_masked_write_then_a_replayed_loop_that_reads_the_array():
    # grammar seed 151010: the replayed loop reads `w` (its mask), so the elements the
    # masked write overwrote are saved and put back; the mask itself was not kept for
    # the reverse sweep (NameError in the generated code)
    check("""
        def f(x, y, a, m):
            b = 0.5 * a + math.cos(1.25)
            w = np.sin(a)
            w[0.5 * b > 2.1] = math.cos(x + 1e-300)
            z = 0.5 * y
            for i in range(2):
                x, y = (0.1 * math.atan(-np.sum(np.sin(a[np.abs(w) <= 0.59])
                                                * math.tanh(b[i] - y))), (0.25 + z) % 1)
                z = 3
            a *= math.tanh(0.5 + x) + np.sum(m)
        """, out=2)


def test_a_negative_power_of_integer_literals_is_a_float_through_a_loop_tape():
    # grammar seed 3325: `v3 = 3 ** (-2)` is 0.111 (Python computes it), but was typed an
    # integer, so the tape of the parallel loop's caller (an int64 array) kept 0 for the
    # reverse sweep, whose replayed `max` then picked another item: a wrong gradient
    for jit in (False, True):
        check("""
            from numba import prange


            def f(x, y, a, m):
                v1 = math.e ** 0.1 / math.e ** (-y)
                v3 = 3 ** (-2)
                acc6 = 1.0
                for i5 in prange(4):
                    for i8 in range(3):
                        pass
                    acc6 += max([np.tanh(math.atan(max((0.5, 0.5, 2 ** v3)))), 0.5,
                                 math.cos(v1 / (1.5 + 0.25))])
                    acc6 += x * v3
                return acc6 + np.sum(a) + np.sum(m)
            """, seed=3325, jit=jit)


@pytest.mark.parametrize("jit", [False, True])
def test_atan2_at_the_origin_has_the_derivative_zero(jit):
    # atan2(0 * s, x - x) is 0 whatever x and s: its adjoint divided 0 by 0 (NaN, or
    # ZeroDivisionError in forward mode); atan2 jumps at the origin, and its derivative
    # there is taken to be 0, as PyTorch takes it.
    check("""
        def f(x, y, a, m):
            w = (x if y > -100.0 else x) - (x if y > -100.0 else x)
            b = a + x
            c = a + x
            u = math.atan2(0.0 * math.sin(y), w) + np.sum(np.arctan2(0.0 * a, b - c))
            return u + x * y + np.sum(np.arctan2(m, a + 2.0))
        """, jit=jit)


@pytest.mark.parametrize("jit", [False, True])
def test_hypot_at_the_origin_has_the_derivative_zero(jit):
    # hypot(0, x - x) is 0 whatever x: its partials x / ans and y / ans divided 0 by 0
    # (NaN). hypot has a kink there, as abs has at 0, and its derivative there is 0.
    check("""
        def f(x, y, a, m):
            w = (y if x > -100.0 else y) - (y if x > -100.0 else y)
            b = a * y
            u = math.hypot(0.0 * math.sin(x), w) + np.sum(np.hypot(a * 0.0, b - a * y))
            return u + x * y + np.sum(np.hypot(m, a + 2.0)) + math.hypot(x, y + 3.0)
        """, jit=jit)


@pytest.mark.parametrize("jit", [False, True])
def test_a_parallel_loop_reads_a_view_whose_array_was_written(jit):
    # The loop's helpers took the view `u` as a value passed through and returned it: `u`
    # bound twice was no longer a view that ViewWrites takes again after the write into
    # `w`, and the write was refused as aliasing (fuzz seed 43141, in-place generator).
    check("""
        from numba import prange

        def f(x, y, a, m):
            w = np.sin(a)
            u = w[::2]
            w[-3] -= np.tanh(a[0]) * x
            acc = 0.0
            for i in prange(len(m)):
                s = 0.0
                for j in range(len(u)):
                    s += u[j] * m[i, j] * y
                acc += s
            return acc + np.sum(w)
        """, jit=jit)


@pytest.mark.parametrize("jit", [False, True])
def test_a_parallel_loop_reads_an_array_updated_through_a_view(jit):
    # `u *= c` writes into `w` through the view `u`; the loop after it read `w`, passed
    # through its helpers and bound again, and the update was refused (fuzz seed 43011).
    check("""
        from numba import prange

        def f(x, y, a, m):
            w = np.sin(a)
            u = w[::2]
            u *= 0.5 * math.atan(a[1] * x)
            acc = 1.0
            for i in prange(len(m)):
                for v in w:
                    acc += v * m[i, 0] * y
            return acc + np.sum(u)
        """, jit=jit)


@pytest.mark.parametrize("jit", [False, True])
def test_an_update_written_into_afterwards_keeps_its_value_for_the_reverse_sweep(jit):
    # `a /= d` is `tmp = a / d; a = tmp`; a later `a[1::2] += c` writes into what the
    # quotient's adjoint reads (`tmp`). Taking `a = tmp` as a hand-over, not an alias to
    # copy (right for `u = u.copy()`), made that gradient wrong (fuzz seed 52).
    check("""
        def f(x, y, a, m):
            a /= 1.5 + np.sin(a)
            a[1::2] += math.sin(y / (1.5 + math.tanh(y) ** 2))
            return y + x + 0.1 * np.sum(a) + 0.1 * np.sum(m)
        """, jit=jit)


@pytest.mark.parametrize("jit", [False, True])
def test_a_parallel_loop_after_a_ufunc_writes_its_output_argument(jit):
    # `np.add(w, x, w)` writes into `w`; the loop's helpers did not count that write and
    # passed `w` through as a value they return, and the write was refused as aliasing,
    # naming a temporary (fuzz seed 89149, grammar generator).
    check("""
        from numba import prange

        def f(x, y, a, m):
            w = np.zeros(4)
            np.add(w, x * a, w)
            acc = 0.0
            for i in prange(1, 3):
                c = 1.0
                for j in range(1, 3):
                    c = c * y
                acc += math.cos(c + np.prod(np.cos(w)))
            return acc
        """, jit=jit)


def test_a_compiled_value_may_round_numpys_pairwise_sum_differently():
    # grammar seed 91810: Numba cannot compile f (a boolean mask of a matrix), so the
    # compiled value is checked against f's own; `m.sum()` adds pairwise in NumPy and in
    # order compiled, an ulp apart at 12.6, which the cosine makes 6 ulps of 1.0. The
    # check allowed 4; it allows a relative 1e-12 where f sums with NumPy. (Seed 1 draws
    # inputs with the same effect for this form of the program.)
    check("""
        def f(x, y, a, m):
            m[m[0] > 0.22] *= 0.5
            m[m <= 0.11] = 0.5
            m[1] = math.sin(1.5)
            return math.cos(m.sum() + 0.01 * (x + y + np.sum(a)))
        """, seed=1, shapes=(4, 4), jit=True)

"""Argument forms of NumPy rules that srcad refuses: each is a SrcadError that names the
function and what to write instead, compiled or not, never a wrong gradient.

Forms a rule's parameters do not take (`kind=` of np.sort) are refused where the call is
bound, with the file and line; forms refused by their argument kinds (a tuple `axis`, a
float `repeats`, np.squeeze without `axis`) are refused while the call is typed, and the
message does not give the line yet (see `srcad.rules.typing.refuse`).
"""
import re

import numpy as np
import pytest

import srcad

A23 = np.array([[0.3, -1.2, 0.8], [1.1, 0.45, -0.6]])
V4 = np.array([0.9, -0.4, 1.3, 0.2])
W3 = np.array([0.5, 1.5, 0.8])


def sort_kind(x):
    return np.sum(np.sort(x, kind="stable"))


def sort_axes(a):
    return np.sum(np.sort(a, axis=(0, 1)))


def squeeze_all(a):
    return np.sum(np.squeeze(a))


def squeeze_all_method(a):
    return np.sum(a.squeeze())


def squeeze_to_number(x):
    return np.squeeze(x, 0) * 2.0


def tile_array_reps(x, r):
    return np.sum(np.tile(x, r))


def repeat_float(x):
    return np.sum(np.repeat(x, 2.0))


def repeat_matrix_of_counts(x, r):
    return np.sum(np.repeat(x, r))


def average_returned(a, w):
    return np.sum(np.average(a, 0, w, returned=True)[0])


def average_axes(a):
    return np.sum(np.average(a, axis=(0, 1)))


def average_vector_weights_without_axis(a, w):
    return np.average(a, weights=w)


def diff_prepend(x):
    return np.sum(np.diff(x, prepend=0.0))


def diff_float_order(x):
    return np.sum(np.diff(x, 1.5))


def fliplr_vector(x):
    return np.sum(np.fliplr(x))


def asarray_number(s):
    return np.asarray(s) * 2.0


def cumprod_number(s):
    return np.sum(np.cumprod(s))


def cumprod_dtype(x):
    return np.sum(np.cumprod(x, dtype=np.float64))


def atleast_two(x, y):
    return np.sum(np.atleast_1d(x, y)[0])


def expand_no_axis(x):
    return np.sum(np.expand_dims(x))


def triu_number(s):
    return np.sum(np.triu(s))


def sort_number(s):
    return np.sum(np.sort(s))


REFUSALS = [
    (sort_kind, (V4,), "`np.sort` takes no argument `kind`"),
    (sort_axes, (A23,), "`np.sort` takes one `axis`"),
    (squeeze_all, (A23[:1].copy(),), "`np.squeeze` without `axis`"),
    (squeeze_all_method, (A23[:1].copy(),), "`np.squeeze` without `axis`"),
    (squeeze_to_number, (V4[:1].copy(),), "0-d array"),
    (tile_array_reps, (V4, np.array([2, 2])), "`np.tile` takes `reps` as an int or a tuple"),
    (repeat_float, (V4,), "`np.repeat` takes `repeats` as an int or a vector of ints"),
    (repeat_matrix_of_counts, (V4, np.ones((2, 2), dtype=np.int64)), "`np.repeat` takes "),
    (average_returned, (A23, W3[:2].copy()), "`np.average` takes no argument `returned`"),
    (average_axes, (A23,), "`np.average` takes one `axis`"),
    (average_vector_weights_without_axis, (A23, W3), "`np.average` takes weights shaped"),
    (diff_prepend, (V4,), "`np.diff` takes no argument `prepend`"),
    (diff_float_order, (V4,), "`np.diff` takes an int `n`"),
    (fliplr_vector, (V4,), "`np.fliplr` takes an array of 2 or more dimensions"),
    (asarray_number, (0.4,), "`np.asarray` takes an array here"),
    (cumprod_number, (0.4,), "`np.cumprod` takes an array here"),
    (cumprod_dtype, (V4,), "`np.cumprod` takes no argument `dtype`"),
    (atleast_two, (V4, V4), "`np.atleast_1d` takes at most 1 positional argument"),
    (expand_no_axis, (V4,), "`np.expand_dims` is missing its argument `axis`"),
    (triu_number, (0.4,), "`np.triu` takes an array here"),
    (sort_number, (0.4,), "`np.sort` takes an array here"),
]


# refused where the call is bound to the rule's parameters: the message gives the line
LOCATED = {sort_kind, average_returned, diff_prepend, cumprod_dtype, atleast_two,
           expand_no_axis}


@pytest.mark.parametrize("fn, args, message", REFUSALS, ids=[r[0].__name__ for r in REFUSALS])
def test_unsupported_forms_are_refused(fn, args, message):
    for jit in (False, True):
        with pytest.raises(srcad.SrcadError, match=re.escape(message)) as info:
            srcad.grad(fn, jit=jit)(*[a.copy() if isinstance(a, np.ndarray) else a
                                      for a in args])
        if fn in LOCATED:
            assert info.value.filename == __file__ and info.value.lineno is not None

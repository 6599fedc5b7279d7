"""Bad inputs: every case gets the correct gradient or a `srcad.SrcadError` that points at
the user's code; never a traceback from srcad's internals, never a wrong number, never a
mutated caller array.

One table, `CASES`. A supported case is checked against central finite differences
(tests/fd.py), with `jit=False` and, where marked, `jit=True` without falling back to plain
Python. A refused case must raise `SrcadError` whose message names the construct, this
file, the offending line (marked `# <-` in the source below, found with
`inspect.getsourcelines` so editing this file never breaks a test) and a hint. Functions
without source have no file or line to name; their message names the function instead.
Some cases repeat ones in test_refusals.py and test_edge_cases.py, so that this table is
the whole catalogue.
"""

import copy
import functools
import inspect
import math
import os
import re
import warnings

import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, fd_grad
from tests.primal import assert_primal

FILE = os.path.basename(__file__)
MARK = "# <-"


def _a(*values):
    return np.array(values, dtype=np.float64)


# ---------------------------------------------------------------------------
# Helpers the functions under test call
# ---------------------------------------------------------------------------


def rec_pow(x, n):
    if n <= 0:
        return x
    return rec_pow(x * 0.5, n - 1)  # <-


def ping(x, n):
    if n <= 0:
        return x
    return pong(x * 0.5, n - 1)


def pong(x, n):
    return ping(x + 1.0, n)  # <-  (the call that closes the cycle)


def helper_with_try(x):
    try:  # <-
        return x * x
    finally:
        pass


def helper_array_default(x, w=np.ones(3)):
    return np.sum(w * x)


def helper_writes(a, w):
    a[0] = a[0] * w
    return np.sum(a)


def scaled(x, c=2.0):
    return c * x


_namespace = {}
exec("def made_by_exec(x):\n    return x * x\n", _namespace)  # noqa: S102
made_by_exec = _namespace["made_by_exec"]
partial_scaled = functools.partial(scaled, c=3.0)


def doubled(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return 2.0 * fn(*args)
    return wrapper


@doubled
def decorated_with_wraps(x):  # <-
    return x * x


def register(fn):
    return fn


@register
def decorated_transparent(x):
    return math.sin(x) * x


# ---------------------------------------------------------------------------
# Supported: each gets the gradient finite differences give
# ---------------------------------------------------------------------------


def nested_def(x, w):
    def sq(v):
        return v * v * w
    return sq(x) + sq(w)


def nested_def_rebinds_capture(x, w):
    def f(v):
        return v * w
    a = f(x)
    w = w * 3.0  # a closure reads `w` when it is called
    return a + f(x)


def nested_def_in_loop(xs, w):
    s = 0.0
    for i in range(xs.shape[0]):
        def term(v):
            return math.tanh(v * w + i)
        s = s + term(xs[i])
    return s


def nested_def_calls_sibling(x, w):
    def a(v):
        return v * w
    def b(v, c=2.0):
        if v > 0.0:
            return c * a(v)
        return math.sin(a(v))
    return b(x) + b(-x, c=0.5)


def nested_def_nested(x, w):
    def outer(v):
        def inner(u):
            return u * w
        return inner(v) * v
    return outer(x)


def nested_def_tuple(x, y):
    def polar(a, b):
        r = math.sqrt(a * a + b * b)
        return r, math.atan2(b, a)
    r, t = polar(x, y)
    return r * t


def nested_def_loop_inside(xs, w):
    def norm2(v):
        s = 0.0
        for i in range(v.shape[0]):
            s = s + v[i] * v[i]
        return s
    return norm2(xs * w)


def lambda_named(x):
    sq = lambda v: v * v  # noqa: E731
    return sq(x) * 3.0 + sq(math.sin(x))


def lambda_closure(xs, w):
    f = lambda v: np.tanh(v * w)  # noqa: E731
    return np.sum(f(xs))


def gen_into_sum(xs, w):
    return sum(w * xs[i] ** 2 for i in range(xs.shape[0]))


def listcomp_into_sum(xs, w):
    return sum([math.sin(w * v) for v in xs])


def listcomp_into_np_sum(xs, w):
    return np.sum([xs[i] * w for i in range(xs.shape[0])])


def listcomp_into_np_sum_arrays(m, w):
    return np.sum([m[i] * w for i in range(m.shape[0])])


def gen_filtered_two_fors(m):
    return sum(m[i, j] * m[j, i] for i in range(m.shape[0]) for j in range(m.shape[1]) if i < j)


def gen_nested_sums(m, w):
    return sum(w * sum(m[i, j] ** 2 for j in range(m.shape[1])) for i in range(m.shape[0]))


def gen_with_start(xs, w):
    s = sum((v * w for v in xs), 1.5)
    return s * s


def gen_shadows_local(xs, w):
    i = 1
    s = sum(xs[i] * w for i in range(xs.shape[0]))
    return s * xs[i]


def gen_in_loop_and_branch(xs, w):
    s = 0.0
    for k in range(2):
        if w > 0.0:
            s = s + sum(xs[i] * w ** k for i in range(k, xs.shape[0]))
    return s


def gen_calls_lambda(xs):
    sq = lambda v: v * v  # noqa: E731
    return sum(sq(xs[i]) for i in range(xs.shape[0]))


def gen_integer_count(xs, w):
    n = sum(1 for v in xs if v > 0.0)
    s = 0.0
    for i in range(n):
        s = s + xs[i] * w
    return s


def while_true_break(x):
    s = 0.0
    k = 0
    while True:
        s = s + x * k
        k += 1
        if k > 4:
            break
    return s


def while_true_data_break(x):
    s = x
    while True:
        s = s * 1.5
        if s > 10.0:
            break
        if s < 0.5:
            s = s + 1.0
            continue
    return s


def mutates_argument(a):
    a[0] = a[0] * 2.0
    a += 1.0
    return np.sum(a * a)


def array_default(x, w=np.ones(3)):
    return np.sum(w * x)


# ---------------------------------------------------------------------------
# Refused
# ---------------------------------------------------------------------------

COUNTER = 0


def uses_try(x):
    try:  # <-
        y = 1.0 / x
    except ZeroDivisionError:
        y = 0.0
    return y


def uses_with(x):
    with np.errstate(all="ignore"):  # <-
        y = np.log(x)
    return y


def generator_function(x):
    yield x * x  # <-


async def async_function(x):  # <-
    return x * x


def nested_async(x):
    async def inner(v):  # <-
        return v
    return x


def defines_class(x):
    class Box:  # <-
        pass
    return x * x


def global_write(x):
    global COUNTER  # <-
    COUNTER += 1
    return x * x


def nonlocal_write(x):
    s = 0.0

    def add(v):
        nonlocal s  # <-
        s = s + v
        return s
    return add(x)


def direct_recursion(x):
    return rec_pow(x, 3)


def mutual_recursion(x):
    return ping(x, 2)


def nested_recursion(x):
    def fact(v, n):
        if n <= 0:
            return v
        return v * fact(v, n - 1)  # <-
    return fact(x, 3)


def lambda_called_inline(x):
    return (lambda v: v * v)(x)  # <-


def nested_used_as_value(x):
    def sq(v):
        return v * v
    g = sq  # <-
    return g(x)


def nested_writes_capture(x):
    acc = np.zeros(2)

    def put(v):
        acc[0] = v
        return v
    y = put(x)  # <-
    return y + np.sum(acc)


def nested_rebound(x):
    def g(v):  # <-
        return v * v
    y = g(x)
    g = 2.0
    return y * g


def nested_varargs(x):
    def total(*vs):  # <-
        return vs[0]
    return total(x)


def nested_decorated(x):
    @np.vectorize
    def sq(v):  # <-
        return v * v
    return sq(x)


def nested_array_default(x):
    def dot(v, w=np.ones(2)):  # <-
        return np.sum(v * w)
    return dot(x)


def nested_try(x):
    def inv(v):
        try:  # <-
            return 1.0 / v
        except ZeroDivisionError:
            return 0.0
    return inv(x)


def listcomp_kept(xs):
    vals = [v * v for v in xs]  # <-
    return vals[0] + vals[1]


def dictcomp(xs):
    d = {i: xs[i] for i in range(2)}  # <-
    return d[0]


def setcomp(xs):
    s = {v for v in xs}  # <-
    return xs[0] * len(s)


def gen_into_np_sum(xs):
    return np.sum(v * v for v in xs)  # <-  (NumPy refuses a generator itself)


def gen_into_any(xs):
    return any(v * v for v in xs)  # <-


def gen_sum_conditional(xs, w):
    return w if w > 1.0 else sum(v * w for v in xs)  # <-


def gen_sum_in_while_test(xs, w):
    while sum(v * w for v in xs) < 10.0:  # <-
        w = w * 2.0
    return w


def gen_sum_of_arrays(m, w):
    return np.sum(sum(m[i] * w for i in range(m.shape[0])))  # <-


def gen_zip_one_name(xs):
    return sum(t[0] for t in zip(xs, xs))  # <-


def dict_literal(x):
    d = {"a": x}  # <-
    return d["a"]


def list_append(x):
    out = []
    out.append(x * 2.0)  # <-
    return out[0]


def list_literal_of_active(x):
    vals = [x, x * 2.0]
    return vals[0] * vals[1]


def string_concat(x):
    s = "abc" + "d"  # <-
    return x * len(s)


def string_compare(x, name):  # <-
    if name == "a":
        return x
    return x * 2.0



def asserts(x):
    assert x > 0.0
    return x * x


def fstring(x):
    label = f"{x}"  # <-
    return x * len(label)


def walrus(x):
    if (y := x * 2.0) > 1.0:  # <-
        return y
    return x


def match_statement(x, n):
    match n:  # <-
        case 1:
            return x
        case _:
            return x * 2.0


def varargs(x, *rest):  # <-
    return x * 2.0


def kwargs(x, **options):  # <-  (srcad binds options={} first, a dict it does not take)
    return x * 2.0


def keyword_only(x, *, c=2.0):  # <-
    return x * c


def calls_exec_made(x):
    return made_by_exec(x + 1.0) * 2.0  # <-


def calls_partial(x):
    return partial_scaled(x) * 2.0  # <-


def uses_fft(a):
    spec = np.fft.hfft(a)  # <-
    return np.sum(np.abs(spec))


def uses_unwrap(a):
    b = np.unwrap(a)  # <-
    return np.sum(a * b)


def calls_helper_with_try(x):
    return helper_with_try(x) + 1.0


def calls_helper_array_default(x):
    return helper_array_default(x)  # <-


def calls_helper_writes(a, w):
    return helper_writes(a, w) + a[0]  # <- inside an expression: not an update of `a`


def calls_decorated_with_wraps(x):
    return decorated_with_wraps(x) + 1.0


def float_only(x, y):  # <-
    return x * y + math.sin(x)


def list_times(x, y):
    return x * y  # <-


def scale_by_count(x, n):  # <-
    return x * n


def returns_array(a):
    return np.sin(a) * 2.0  # <-


def returns_tuple(x, y):
    return x * y, x + y  # <-


def returns_bool(x):
    return x > 0.0  # <-


def returns_nothing(x):
    x = x * 2.0
    return  # <-




def for_else(xs):
    s = 0.0
    for v in xs:  # <-
        s = s + v
    else:
        s = s * 2.0
    return s


def in_test(x):
    if x in (1.0, 2.0):  # <-
        return x
    return x * 2.0


def alias_write(x):
    y = x
    y[0] = 1.0  # <-
    return np.sum(x * x)


def attribute_itemsize(x):
    return x.itemsize * x  # <-


def raises(x):
    if x < 0.0:
        raise ValueError("negative")
    return x


def deletes(x):
    y = x * 2.0
    del y  # <-
    return x


def imports(x):
    import cmath  # <-  # noqa: F401
    return x * x


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------


def ok(func, make_args, wrt=0, jit=False, id=None):
    """A supported case: gradient equal to finite differences (also with jit when `jit`)."""
    return pytest.param(func, make_args, wrt, None, jit, id=id or func.__name__)


def refused(func, make_args, words, where=None, wrt=0, id=None):
    """A refused case: a SrcadError naming one of `words`, pointing at the `# <-` line of
    `where` (default `func`; "none" for a function without source)."""
    return pytest.param(func, make_args, wrt, (words, where or func), False,
                        id=id or func.__name__)


_M = np.array([[0.3, -0.7, 1.1], [0.5, 0.2, -0.4]])
_SQ = np.array([[0.3, -0.7, 1.1], [0.5, 0.2, -0.4], [0.9, -0.1, 0.6]])

CASES = [
    # nested functions and lambdas bound to names: hoisted, captures passed as arguments
    ok(nested_def, lambda: (0.5, 1.5), (0, 1), jit=True),
    ok(nested_def_rebinds_capture, lambda: (0.5, 1.5), (0, 1)),
    ok(nested_def_in_loop, lambda: (_a(0.1, -0.5, 0.8), 0.7), (0, 1), jit=True),
    ok(nested_def_calls_sibling, lambda: (0.6, 1.3), (0, 1), jit=True),
    ok(nested_def_nested, lambda: (0.5, 1.5), (0, 1)),
    ok(nested_def_tuple, lambda: (0.5, 1.5), (0, 1)),
    ok(nested_def_loop_inside, lambda: (_a(0.1, -0.5, 0.8), 0.7), (0, 1)),
    ok(lambda_named, lambda: (0.4,), jit=True),
    ok(lambda_closure, lambda: (_a(0.1, -0.5, 0.8), 0.7), (0, 1), jit=True),
    # comprehensions into sum: lowered to accumulator loops
    ok(gen_into_sum, lambda: (_a(0.1, -0.5, 0.8), 0.7), (0, 1), jit=True),
    ok(listcomp_into_sum, lambda: (_a(0.1, -0.5, 0.8), 0.7), (0, 1), jit=True),
    ok(listcomp_into_np_sum, lambda: (_a(0.1, -0.5, 0.8), 0.7), (0, 1), jit=True),
    ok(listcomp_into_np_sum_arrays, lambda: (_M.copy(), 0.7), (0, 1)),
    ok(gen_filtered_two_fors, lambda: (_SQ.copy(),), jit=True),
    ok(gen_nested_sums, lambda: (_M.copy(), 0.7), (0, 1), jit=True),
    ok(gen_with_start, lambda: (_a(0.1, -0.5, 0.8), 0.7), (0, 1)),
    ok(gen_shadows_local, lambda: (_a(0.1, -0.5, 0.8), 0.7), (0, 1)),
    ok(gen_in_loop_and_branch, lambda: (_a(0.1, -0.5, 0.8), 0.7), (0, 1)),
    ok(gen_calls_lambda, lambda: (_a(0.1, -0.5, 0.8),), jit=True),
    ok(gen_integer_count, lambda: (_a(0.1, -0.5, 0.8), 0.7), (0, 1)),
    # while True with break
    ok(while_true_break, lambda: (0.5,), jit=True),
    ok(while_true_data_break, lambda: (0.3,), jit=True),
    # mutated arguments, array defaults, decorators that return the function itself
    ok(mutates_argument, lambda: (_a(0.1, -0.5, 0.8),), jit=True),
    ok(array_default, lambda: (_a(0.1, -0.5, 0.8),)),
    ok(array_default, lambda: (0.5, _a(0.1, -0.5, 0.8)), "w", id="array_default[wrt=w]"),
    ok(decorated_transparent, lambda: (0.5,)),
    # syntax srcad does not differentiate
    refused(uses_try, lambda: (0.5,), ("try",)),
    refused(uses_with, lambda: (0.5,), ("with",)),
    refused(generator_function, lambda: (0.5,), ("yield",)),
    refused(async_function, lambda: (0.5,), ("def", "async")),
    refused(nested_async, lambda: (0.5,), ("async", "asyncfunctiondef")),
    refused(defines_class, lambda: (0.5,), ("class", "classdef")),
    refused(global_write, lambda: (0.5,), ("global",)),
    refused(nonlocal_write, lambda: (0.5,), ("nonlocal",)),
    refused(match_statement, lambda: (0.5, 1), ("match",)),
    refused(walrus, lambda: (0.5,), ("walrus",)),
    refused(fstring, lambda: (0.5,), ("f-string",)),
    ok(asserts, lambda: (0.5,), jit=True),
    ok(raises, lambda: (0.5,), jit=True),
    refused(deletes, lambda: (0.5,), ("del",)),
    refused(imports, lambda: (0.5,), ("import",)),
    refused(for_else, lambda: (_a(0.1, 0.2),), ("else",)),
    refused(in_test, lambda: (0.5,), ("in",)),
    refused(varargs, lambda: (0.5,), ("*args",)),
    refused(kwargs, lambda: (0.5,), ("**kwargs", "dict")),
    refused(keyword_only, lambda: (0.5,), ("keyword-only",)),
    # recursion, direct and mutual
    refused(direct_recursion, lambda: (0.5,), ("recursion",), where=rec_pow),
    refused(mutual_recursion, lambda: (0.5,), ("recursion",), where=pong),
    refused(nested_recursion, lambda: (0.5,), ("recursion",)),
    # nested functions and lambdas srcad does not hoist
    refused(lambda_called_inline, lambda: (0.5,), ("lambda",)),
    refused(nested_used_as_value, lambda: (0.5,), ("value",)),
    refused(nested_writes_capture, lambda: (0.5,), ("writes",)),
    refused(nested_rebound, lambda: (0.5,), ("assigned",)),
    refused(nested_varargs, lambda: (0.5,), ("*args",)),
    refused(nested_decorated, lambda: (0.5,), ("decorated",)),
    refused(nested_array_default, lambda: (_a(0.1, 0.2),), ("default",)),
    refused(nested_try, lambda: (0.5,), ("try",)),
    # comprehensions that are not a sum that always runs
    refused(listcomp_kept, lambda: (_a(0.1, 0.2),), ("list comprehension",)),
    refused(dictcomp, lambda: (_a(0.1, 0.2),), ("dict comprehension",)),
    refused(setcomp, lambda: (_a(0.1, 0.2),), ("set comprehension",)),
    refused(gen_into_np_sum, lambda: (_a(0.1, 0.2),), ("generator expression",)),
    refused(gen_into_any, lambda: (_a(0.1, 0.2),), ("generator expression",)),
    refused(gen_sum_conditional, lambda: (_a(0.1, 0.2), 0.5), ("generator expression",)),
    refused(gen_sum_in_while_test, lambda: (_a(0.1, 0.2), 0.5), ("generator expression",)),
    refused(gen_sum_of_arrays, lambda: (_M.copy(), 0.7), ("array",)),
    refused(gen_zip_one_name, lambda: (_a(0.1, 0.2),), ("zip",)),
    # dicts, lists, strings, globals, attributes, aliases
    refused(dict_literal, lambda: (0.5,), ("dict",)),
    refused(list_append, lambda: (0.5,), ("expression statement", "append")),
    ok(list_literal_of_active, lambda: (0.5,)),  # read by constant index: one name per item
    refused(string_concat, lambda: (0.5,), ("str", "string")),
    refused(string_compare, lambda: (0.5, "b"), ("str", "string")),
    refused(attribute_itemsize, lambda: (_a(0.5, 0.2),), ("attribute",)),
    refused(alias_write, lambda: (_a(0.1, 0.2),), ("memory", "copy")),
    # functions without source, or without a derivative rule
    refused(len, lambda: (_a(0.1, 0.2),), ("len",), where="none"),
    refused(math.sin, lambda: (0.5,), ("sin",), where="none"),
    refused(made_by_exec, lambda: (0.5,), ("made_by_exec",), where="none"),
    refused(partial_scaled, lambda: (0.5,), ("partial",), where="none", id="partial"),
    refused(calls_exec_made, lambda: (0.5,), ("made_by_exec",)),
    refused(calls_partial, lambda: (0.5,), ("partial_scaled",)),
    refused(uses_fft, lambda: (_a(0.1, 0.2, 0.3, 0.4),), ("np.fft.hfft",)),
    refused(uses_unwrap, lambda: (_a(0.1, 0.2, 0.3),), ("np.unwrap",)),
    refused(calls_helper_with_try, lambda: (0.5,), ("try",), where=helper_with_try),
    refused(calls_helper_array_default, lambda: (0.5,), ("default",)),
    refused(calls_helper_writes, lambda: (_a(0.1, 0.2), 0.5), ("writes",)),
    refused(decorated_with_wraps, lambda: (0.5,), ("decorator",)),
    refused(calls_decorated_with_wraps, lambda: (0.5,), ("decorator",),
            where=decorated_with_wraps),
    # wrong arguments at call time, and wrt
    refused(float_only, lambda: ("abc", 0.5), ("str",), id="arg_string"),
    refused(float_only, lambda: ([[0.5, 1.0], [2.0]], 0.5), ("list",), id="arg_ragged_list"),
    refused(list_times, lambda: ([0.5, 1.0], 0.5), ("list",), id="arg_list_repeated"),
    refused(float_only, lambda: (None, 0.5), ("nonetype", "none"), id="arg_none"),
    pytest.param(float_only, lambda: (0.5,), 0, (("missing",), float_only), False,
                 id="arg_missing"),
    refused(scale_by_count, lambda: (0.5, 3), ("int", "int64"), wrt=1, id="wrt_int"),
    refused(float_only, lambda: (0.5, 1.5), ("wrt",), wrt=7, id="wrt_out_of_range"),
    refused(float_only, lambda: (0.5, 1.5), ("wrt",), wrt=(0, -3), id="wrt_tuple_out_of_range"),
    refused(float_only, lambda: (0.5, 1.5), ("zeta",), wrt="zeta", id="wrt_no_such_name"),
    refused(float_only, lambda: (0.5, 1.5), ("wrt",), wrt=1.0, id="wrt_float"),
    refused(float_only, lambda: (0.5, 1.5), ("wrt",), wrt=(), id="wrt_empty"),
    # outputs grad cannot take
    refused(returns_array, lambda: (_a(0.1, 0.2),), ("vjp", "jacobian")),
    refused(returns_tuple, lambda: (0.5, 1.5), ("vjp", "jacobian")),
    refused(returns_bool, lambda: (0.5,), ("scalar",)),
    refused(returns_nothing, lambda: (0.5,), ("return",)),
]


def line_of(func, marker=MARK):
    lines, start = inspect.getsourcelines(func)
    for k, line in enumerate(lines):
        if marker in line:
            return start + k
    raise AssertionError(f"{marker!r} not in the source of {func.__name__}")


def _srcad_warnings(records):
    return [r for r in records if r.category.__module__.split(".")[0] == "srcad"]


def _unchanged(args, before):
    for k, (a, b) in enumerate(zip(args, before)):
        if isinstance(b, np.ndarray):
            assert np.array_equal(a, b), f"argument {k} was mutated: {b} -> {a}"


def _grad(func, args, wrt, jit):
    """srcad's gradient; the caller's arguments must be unchanged and jit must not fall back."""
    before = copy.deepcopy(args)
    try:
        with warnings.catch_warnings(record=True) as records:
            warnings.simplefilter("always")
            value, grad = srcad.value_and_grad(func, wrt=wrt, jit=jit)(*args)
        assert_primal(func, before, value, jit)
        return grad
    finally:
        _unchanged(args, before)
        if jit:
            fallbacks = _srcad_warnings(records)
            assert not fallbacks, f"jit=True fell back: {fallbacks[0].message}"


def _check_refusal(func, args, wrt, words, where):
    with pytest.raises(srcad.SrcadError) as info:
        _grad(func, args, wrt, jit=False)
    message = str(info.value)
    low = message.lower()
    assert any(re.search(rf"(?<!\w){re.escape(w.lower())}(?!\w)", low) for w in words), \
        f"message does not name the construct (any of {words}):\n{message}"
    assert "hint:" in message, f"message gives no hint:\n{message}"
    if where == "none":  # no source: no file and line to name
        return
    assert FILE in message, f"message does not name {FILE}:\n{message}"
    line = line_of(where) if inspect.isfunction(where) else None
    assert re.search(rf"{re.escape(FILE)}:{line}\b", message), \
        f"message does not point at line {line}:\n{message}"


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("func, make_args, wrt, refusal, jit", CASES)
def test_bad_input(func, make_args, wrt, refusal, jit):
    if refusal is not None:
        _check_refusal(func, make_args(), wrt, *refusal)
        return
    for j in (False, True) if jit else (False,):
        got = _grad(func, make_args(), wrt, j)
        assert_grad_close(got, fd_grad(func, make_args(), wrt))


def test_corpus_size():
    supported = sum(1 for p in CASES if p.values[3] is None)
    assert len(CASES) >= 40 and supported >= 20, (len(CASES), supported)


def test_hoisted_helpers_read_in_the_generated_source():
    g = srcad.grad(nested_def, wrt=(0, 1), jit=False)
    g(0.5, 1.5)
    text = srcad.source(g)
    assert "def nested_def_sq_fwd(w, v):" in text
    assert "nested_def_sq_fwd(w, x)" in text


def test_numba_njit_function_with_nested_def():
    numba = pytest.importorskip("numba")
    fn = numba.njit(nested_def)
    assert_grad_close(srcad.grad(fn, wrt=(0, 1))(0.5, 1.5), fd_grad(nested_def, (0.5, 1.5),
                                                                     (0, 1)))

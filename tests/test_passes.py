"""Unit tests per pass: what each pass guarantees afterwards, and that it keeps the meaning.

The passes run exactly as `srcad.pipeline.normalize` / `analyze` run them (a test checks
that `stages` below follows the pipeline's order). A transformation keeps the meaning of
the function when its output, emitted with `codegen.to_source` and exec'd next to math,
np and `rt`, returns what the original returns on sample inputs.
"""
import copy
import inspect
import math

import gast
import numpy as np
import pytest

import srcad
from codegen import to_source
from srcad import runtime as rt
from srcad.errors import UnsupportedError
from srcad.kinds import BOOL, FLOAT, INT, Kind, TupleKind
from srcad.passes import ir
from srcad.passes.check_supported import CheckSupported
from srcad.passes.expand_aug_assign import ExpandAugAssign
from srcad.pipeline import Context, analyze, normalize, normalize_steps
from srcad.program import Program
from srcad.source import FunctionSource
from tests.fd import fd_grad

F1, F2 = Kind("f", 1), Kind("f", 2)

# ---------------------------------------------------------------------------
# Running the passes
# ---------------------------------------------------------------------------


def _steps(ctx):
    """The normalize passes, in the pipeline's order, as `(name, tree -> tree)`."""
    return [(cls.__name__, step) for cls, step in normalize_steps(ctx)]


TRANSFORMS = ["ExpandAugAssign", "SplitReturns", "ToANF", "LowerLoopExits", "RecordControl"]


def stages(fn, until="RecordControl"):
    """(ctx, {pass name: a copy of the tree after it}, the live tree after `until`)."""
    ctx = Context(FunctionSource(fn), Program())
    fnode, snapshots = ctx.fsrc.node, {}
    for name, step in _steps(ctx):
        fnode = step(fnode)
        snapshots[name] = copy.deepcopy(fnode)
        if name == until:
            break
    ctx.fnode = fnode
    return ctx, snapshots, fnode


def after(fn, until):
    return stages(fn, until)[2]


def analyzed(fn, arg_kinds, wrt):
    ctx = Context(FunctionSource(fn), Program())
    normalize(ctx)
    analyze(ctx, arg_kinds, wrt)
    return ctx


def compiled(fnode, fn):
    """The function defined by the emitted source of `fnode`, in `fn`'s module namespace."""
    text = to_source(fnode)
    namespace = dict(fn.__globals__, math=math, np=np, rt=rt)
    exec(compile(text, f"<{fn.__name__} transformed>", "exec"), namespace)
    return namespace[fnode.name]


def fresh(args):
    return tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)


def assert_same_results(original, transformed, inputs, text=""):
    for args in inputs:
        want, got = original(*fresh(args)), transformed(*fresh(args))
        try:
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        except AssertionError as err:
            raise AssertionError(f"inputs {args}: {err}\n{text}") from None


def line_of(fn, marker):
    lines, start = inspect.getsourcelines(fn)
    return start + next(k for k, line in enumerate(lines) if marker in line)


def assigned_names(fnode):
    return {n.id for n in gast.walk(fnode)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


# ---------------------------------------------------------------------------
# Functions whose meaning every transformation keeps
# ---------------------------------------------------------------------------


def helper(a, b):
    return a * b + 1.0


def pair(x):
    return x, x * 2.0


def branches(x, y):
    if x > y:
        z = x - y
    elif x < -y:
        z = x * y
    else:
        z = 0.5
    return z * 2.0


def early_return_if(x):
    if x > 1.0:
        return x * 2.0
    if x < -1.0:
        return -x
    y = x * x
    return y + 1.0


def early_return_else(x):
    if x > 0.0:
        y = x + 1.0
    else:
        return x * 3.0
    return y * y


def early_return_loop(xs, thr):
    s = 0.0
    for i in range(xs.shape[0]):
        s = s + xs[i]
        if s > thr:
            return s * 10.0
    return s


def early_return_nested_loops(m, thr):
    acc = 0.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            acc = acc + m[i, j]
            if acc > thr:
                return acc + i * 100.0 + j
        acc = acc * 0.5
    return acc


def early_return_while(x):
    k = 0
    while x < 100.0:
        x = x * 1.7 + 0.1
        k += 1
        if k > 5:
            return -x
    return x


def early_return_loop_in_branch(xs, flag):
    if flag > 0.0:
        for i in range(xs.shape[0]):
            if xs[i] < 0.0:
                return float(i)
        t = 1.0
    else:
        t = 2.0
    return t


def early_return_deep(m, thr):
    total = 0.0
    for i in range(m.shape[0]):
        if m[i, 0] > 0.0:
            for j in range(m.shape[1]):
                total = total + m[i, j]
                if total > thr:
                    return total * 2.0
        total = total + 0.25
    return total


def early_return_uses_name_returned(x):
    returned = x * 2.0
    if returned > 1.0:
        return returned
    retval = returned + 5.0
    return retval


def break_continue(xs):
    s = 0.0
    for i in range(xs.shape[0]):
        if xs[i] < 0.0:
            continue
        if xs[i] > 2.0:
            break
        s = s + xs[i] * xs[i]
    return s


def while_break_continue(x):
    n = 0
    s = 0.0
    while True:
        n = n + 1
        if n % 3 == 0:
            continue
        s = s + x / n
        if s > 5.0 or n > 20:
            break
    return s


def nested_break(m):
    total = 0.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] < 0.0:
                break
            total = total + m[i, j]
        if total > 3.0:
            break
        total = total * 1.5
    return total


def break_in_else_branch(xs, thr):
    s = 0.0
    for i in range(xs.shape[0]):
        if xs[i] > 0.0:
            s = s + xs[i]
        else:
            s = s - 1.0
            if s < thr:
                break
            s = s * 2.0
        s = s + 0.5
    return s


def while_condition(x):
    while x > 0.01 and x < 1e6:
        x = x * 0.5
    return x


def aug_assigns(a, x):
    b = a.copy()
    s = x
    s += 1.0
    s *= x
    s -= 0.5
    s /= 2.0
    s **= 2
    for i in range(b.shape[0]):
        b[i] += s * i
        b[i] *= x
    return np.sum(b) + s


def expressions(x, y, v):
    a = x if x > y else y
    b = (x > 0.0 and y > 0.0) or x < -1.0
    c = 0.0 < x < 1.0
    d = -x + +y - math.pi
    e = v.sum() + v.T[0] + v.shape[0] + v.size
    f = g = x * y
    p, q = x, y + 1.0
    w = np.sin(v) ** 2 + np.exp(-v)
    return a + b + c + d + e + f + g + p * q + np.sum(w) + max(x, y, 0.5)


def for_over_array(v):
    s = 0.0
    for t in v:
        s = s * 0.9 + t
    return s


def calls_helpers(x, v):
    s = 0.0
    for i in range(v.shape[0]):
        s = s + helper(x, v[i])
    p, q = pair(x)
    return s + p * q


def range_variants(v, n):
    s = 0.0
    for i in range(1, v.shape[0], 2):
        s = s + v[i]
    for i in range(v.shape[0] - 1, -1, -1):
        s = s * 0.5 + v[i]
    for i in range(n):
        s = s + 1.0
    for i in range(n, 0, -2):
        s = s - 0.25 * i
    return s


def element_writes(m, x):
    out = np.zeros((m.shape[0], m.shape[1]))
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            out[i, j] = m[i, j] * x + out[i, j - 1]
    out[0, 1] = out[1, 2] * 2.0
    return np.sum(out * out)


_M = np.array([[0.5, 1.25, -0.75], [2.0, 0.125, 1.5], [-1.0, 0.25, 0.375]])
_V = np.array([0.5, -0.25, 1.5, 2.5, 0.75])

SEMANTICS = [
    (branches, [(1.0, 0.5), (-2.0, 0.5), (0.1, 0.5), (0.5, 0.5)]),
    (early_return_if, [(2.0,), (-3.0,), (0.5,), (1.0,)]),
    (early_return_else, [(2.0,), (-3.0,)]),
    (early_return_loop, [(_V, 1.0), (_V, 100.0), (_V, -1.0)]),
    (early_return_nested_loops, [(_M, 1.5), (_M, 100.0), (_M, 3.9)]),
    (early_return_while, [(0.5,), (60.0,), (200.0,)]),
    (early_return_loop_in_branch, [(_V, 1.0), (np.abs(_V), 1.0), (_V, -1.0)]),
    (early_return_deep, [(_M, 1.0), (_M, 100.0), (-_M, 1.0)]),
    (early_return_uses_name_returned, [(1.0,), (0.25,)]),
    (break_continue, [(_V,), (np.array([0.5, -1.0, 3.0, 1.0]),), (-_V,)]),
    (while_break_continue, [(1.0,), (0.1,), (-1.0,)]),
    (nested_break, [(_M,), (np.abs(_M),), (-_M,)]),
    (break_in_else_branch, [(_V, -10.0), (-_V, -1.2), (_V, 0.0)]),
    (while_condition, [(3.0,), (0.001,), (2e6,)]),
    (aug_assigns, [(_V, 0.5), (_V, -2.0)]),
    (expressions, [(0.5, 0.25, _V), (-2.0, 0.75, _V), (0.5, -0.25, _V)]),
    (for_over_array, [(_V,), (_V[:0],)]),
    (calls_helpers, [(0.5, _V), (-1.5, _V)]),
    (range_variants, [(_V, 3), (_V, 0), (_V[:1], 4)]),
    (element_writes, [(_M, 0.5), (_M, -2.0)]),
]


@pytest.mark.parametrize("name", TRANSFORMS)
@pytest.mark.parametrize("fn,inputs", SEMANTICS, ids=[f.__name__ for f, _ in SEMANTICS])
def test_transformation_keeps_meaning(fn, inputs, name):
    _, snapshots, _ = stages(fn)
    tree = snapshots[name]
    assert_same_results(fn, compiled(tree, fn), inputs, to_source(tree))


def test_stages_follow_the_pipeline():
    ctx = Context(FunctionSource(early_return_nested_loops), Program())
    final = to_source(normalize(ctx))
    assert [name for name, _ in ctx.timings] == [name for name, _ in _steps(ctx)]
    assert to_source(stages(early_return_nested_loops)[2]) == final


# ---------------------------------------------------------------------------
# CheckSupported
# ---------------------------------------------------------------------------


def uses_with(x):
    y = x
    with np.errstate(all="ignore"):  # refused
        y = np.log(x)
    return y


def uses_try(x):
    try:  # refused
        y = 1.0 / x
    except ZeroDivisionError:
        y = 0.0
    return y


def uses_lambda(x):
    y = x * 2.0
    return (lambda t: t * t)(y)  # refused


def uses_list_comprehension(xs):
    ys = [t * t for t in xs]  # refused
    return ys[0]


def uses_set_comprehension(xs):
    ys = {t for t in xs}  # refused
    return len(ys)


def uses_dict_comprehension(xs):
    ys = {t: t for t in xs}  # refused
    return len(ys)


def uses_generator(xs):
    return any(t > 0.0 for t in xs)  # refused


def uses_yield(x):
    y = x + 1.0
    yield y  # refused


def uses_yield_from(xs):
    yield from xs  # refused


def uses_global(x):
    global _SOME_GLOBAL  # refused
    return x


def _make_nonlocal():
    v = 1.0

    def uses_nonlocal(x):
        nonlocal v  # refused
        v = x
        return v

    return uses_nonlocal


uses_nonlocal = _make_nonlocal()


def uses_class(x):
    class Box:  # refused
        pass
    return x


def uses_nested_def(x):
    @np.vectorize
    def inner(t):  # refused
        return t
    return inner(x)


def uses_del(x):
    y = x * 2.0
    del y  # refused
    return x


def uses_import(x):
    import cmath  # refused  # noqa: F401
    return x


def uses_import_from(x):
    from math import sin  # refused
    return sin(x)


def uses_dict(x):
    d = {"a": x}  # refused
    return d["a"]


def uses_set(x):
    s = {x, 1.0}  # refused
    return len(s)


def uses_fstring(x):
    s = f"{x}"  # refused
    return len(s)


def uses_walrus(x):
    if (y := x * 2.0) > 1.0:  # refused
        return y
    return x


def uses_starred(xs):
    return max(*xs)  # refused


def uses_annotation(x):
    y: float = x * 2.0  # refused
    return y


def uses_match(x):
    match x:  # refused
        case 1.0:
            return x
    return x


def uses_for_else(xs):
    s = 0.0
    for i in range(xs.shape[0]):  # refused
        s = s + xs[i]
    else:
        s = -s
    return s


def uses_while_else(x):
    while x > 1.0:  # refused
        x = x * 0.5
    else:
        x = -x
    return x


def uses_bare_expression(x):
    y = x * 2.0
    print(y, end="")  # refused: compiled code prints without keywords
    return y


def unused_results(x):
    """A docstring."""
    y = x * 2.0
    "a note"
    np.sum(y)
    math.sqrt(x[0])
    return np.sum(y * y)


def test_a_call_whose_result_is_unused_runs_and_gets_no_adjoint():
    x = np.array([0.5, 1.5])
    np.testing.assert_allclose(srcad.grad(unused_results)(x), fd_grad(unused_results, (x,), 0),
                               rtol=1e-7)
    with pytest.raises(ValueError, match="math domain error"):  # as Python raises it
        srcad.grad(unused_results)(-x)


def test_a_print_with_keywords_is_refused_by_name():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(uses_bare_expression, jit=False)(1.5)
    assert "`print`" in str(info.value) and info.value.lineno == line_of(
        uses_bare_expression, "# refused")


def uses_varargs(x, *rest):  # refused
    return x


def uses_kwargs(x, **options):  # refused
    return x


def uses_keyword_only(x, *, scale):  # refused
    return x * scale


def uses_positional_only(x, /, y):  # refused
    return x * y


REFUSED = [
    (uses_with, "with"), (uses_try, "try"), (uses_lambda, "lambda"),
    (uses_list_comprehension, "list comprehension"),
    (uses_set_comprehension, "set comprehension"),
    (uses_dict_comprehension, "dict comprehension"),
    (uses_generator, "generator expression"), (uses_yield, "yield"),
    (uses_yield_from, "yield"), (uses_global, "global"), (uses_nonlocal, "nonlocal"),
    (uses_class, "class"), (uses_nested_def, "nested function"), (uses_del, "del"),
    (uses_import, "import"),
    (uses_import_from, "import"), (uses_dict, "dict"), (uses_set, "set"),
    (uses_fstring, "f-string"), (uses_walrus, "walrus"), (uses_starred, "starred"),
    (uses_annotation, "annotated assignment"), (uses_match, "match"),
    (uses_for_else, "else"), (uses_while_else, "else"),
    (uses_varargs, "*args"),
    (uses_kwargs, "**kwargs"), (uses_keyword_only, "keyword-only"),
    (uses_positional_only, "*args"),
]


@pytest.mark.parametrize("fn,construct", REFUSED, ids=[f.__name__ for f, _ in REFUSED])
def test_check_supported_refuses(fn, construct):
    with pytest.raises(UnsupportedError) as info:
        CheckSupported(FunctionSource(fn))
    err = info.value
    assert construct in str(err).lower(), f"`{construct}` not named in:\n{err}"
    assert err.filename == __file__
    assert err.lineno == line_of(fn, "# refused"), str(err)
    assert "# refused" in err.construct
    assert err.hint, "a refusal says what to do instead"


def test_check_supported_refuses_through_the_pipeline():
    ctx = Context(FunctionSource(uses_try), Program())
    with pytest.raises(UnsupportedError, match="try"):
        normalize(ctx)
    assert ctx.timings == [], "CheckSupported runs before any pass"


def accepted(xs, w):
    """A docstring is fine."""
    s = 0.0
    for i in range(xs.shape[0]):
        if xs[i] > 0.0 and w > 0.0:
            s += w * xs[i]
        elif xs[i] < -1.0:
            continue
        else:
            pass
        while s > 10.0:
            s = s * 0.5
            if s < 1.0:
                break
    return s if s > 0.0 else -s


def accepted_checks(xs, w):
    assert w > 0.0, "w must be positive"
    if xs.shape[0] == 0:
        raise ValueError(f"no data for w={w}")
    return max(xs) * w + sum(v for v in xs if v > 0.0)


@pytest.mark.parametrize("fn", [accepted, accepted_checks])
def test_check_supported_accepts_the_subset(fn):
    CheckSupported(FunctionSource(fn))


# ---------------------------------------------------------------------------
# ExpandAugAssign
# ---------------------------------------------------------------------------


def _expand(text):
    tree = gast.parse(text)
    return ExpandAugAssign().visit(tree)


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%", "**", "@"])
def test_expand_aug_assign_every_operator(op):
    tree = _expand(f"x {op}= y")
    assert to_source(tree).strip() == f"x = x {op} y"
    assert not any(isinstance(n, gast.AugAssign) for n in gast.walk(tree))


def test_expand_aug_assign_subscript_target():
    tree = _expand("acc[i, j + 1] += v")
    assert to_source(tree).strip() == "acc[i, j + 1] = acc[i, j + 1] + v"
    stmt = tree.body[0]
    target, load = stmt.targets[0], stmt.value.left
    assert isinstance(target.ctx, gast.Store) and isinstance(load.ctx, gast.Load)
    assert all(not isinstance(getattr(n, "ctx", None), gast.Store) for n in gast.walk(load))
    assert load is not target and load.slice is not target.slice


def test_expand_aug_assign_keeps_line_numbers():
    tree = _expand("a = 1\n\nb += a")
    assert tree.body[1].lineno == 3


def test_expand_aug_assign_leaves_nothing_in_a_function():
    tree = after(aug_assigns, "ExpandAugAssign")
    assert not any(isinstance(n, gast.AugAssign) for n in gast.walk(tree))
    writes = [s for s in gast.walk(tree) if isinstance(s, gast.Assign)
              and isinstance(s.targets[0], gast.Subscript)]
    assert len(writes) == 2


# ---------------------------------------------------------------------------
# SplitReturns
# ---------------------------------------------------------------------------

EARLY_RETURNS = [f for f, _ in SEMANTICS if f.__name__.startswith("early_return")]


@pytest.mark.parametrize("fn", EARLY_RETURNS, ids=[f.__name__ for f in EARLY_RETURNS])
def test_split_returns_leaves_one_final_return(fn):
    tree = after(fn, "SplitReturns")
    returns = [n for n in gast.walk(tree) if isinstance(n, gast.Return)]
    assert len(returns) == 1 and tree.body[-1] is returns[0]
    assert isinstance(returns[0].value, gast.Name)


def test_split_returns_leaves_a_single_return_alone():
    tree = after(branches, "SplitReturns")
    assert {"returned", "retval"}.isdisjoint(assigned_names(tree))
    assert to_source(tree) == to_source(after(branches, "ExpandAugAssign"))


def test_split_returns_picks_fresh_names():
    tree = after(early_return_uses_name_returned, "SplitReturns")
    final = tree.body[-1].value.id
    assert final not in ("returned", "retval")
    assert {"returned", "retval"} <= assigned_names(tree)


def test_split_returns_leaves_loops_with_break():
    tree = after(early_return_nested_loops, "SplitReturns")
    loops = [n for n in gast.walk(tree) if isinstance(n, gast.For)]
    assert len(loops) == 2
    for loop in loops:
        assert any(isinstance(n, gast.Break) for n in gast.walk(loop))


# ---------------------------------------------------------------------------
# ToANF
# ---------------------------------------------------------------------------

_ATTRS = {"shape", "size", "ndim"}


def _is_atom(node):
    return isinstance(node, (gast.Name, gast.Constant))


def _atoms(node):
    if isinstance(node, (gast.Tuple, gast.List)):
        return all(_is_atom(e) for e in node.elts)
    return _is_atom(node)


def _index(node):
    if isinstance(node, gast.Tuple):
        return all(_index(e) for e in node.elts)
    if isinstance(node, gast.Slice):
        return all(p is None or _is_atom(p) for p in (node.lower, node.upper, node.step))
    return _is_atom(node)


def _one_op(value):
    """Whether `value` is one operation on atoms."""
    if _is_atom(value):
        return True
    if isinstance(value, gast.BinOp):
        return _is_atom(value.left) and _is_atom(value.right)
    if isinstance(value, gast.UnaryOp):
        return _is_atom(value.operand)
    if isinstance(value, gast.Compare):
        return len(value.ops) == 1 and _is_atom(value.left) and _is_atom(value.comparators[0])
    if isinstance(value, gast.Call):
        return (ir.dotted_text(value.func) is not None and all(_atoms(a) for a in value.args)
                and all(_atoms(k.value) for k in value.keywords))
    if isinstance(value, gast.Subscript):
        return isinstance(value.value, gast.Name) and _index(value.slice)
    if isinstance(value, gast.Attribute):
        return isinstance(value.value, gast.Name) and value.attr in _ATTRS
    if isinstance(value, (gast.Tuple, gast.List)):
        return _atoms(value)
    return False


def anf_violations(fnode, user_functions=(), counters=()):
    """Statements of `fnode` that are not in ToANF's output form, as source lines.

    `counters` may be their own operand (RecordControl's `count = count + 1`).
    """
    bad = []

    def check(stmts):
        for s in stmts:
            if not _stmt_ok(s, user_functions, counters):
                bad.append(to_source(s).splitlines()[0])
            if isinstance(s, gast.If):
                check(s.body)
                check(s.orelse)
            elif isinstance(s, (gast.For, gast.While)):
                check(s.body)

    check(fnode.body)
    return bad


def _stmt_ok(s, user_functions, counters=()):
    if isinstance(s, gast.Assign):
        if len(s.targets) != 1:
            return False
        target, value = s.targets[0], s.value
        if isinstance(target, gast.Name):
            operands = {n.id for n in gast.walk(value) if isinstance(n, gast.Name)}
            return _one_op(value) and (target.id not in operands or target.id in counters)
        if isinstance(target, gast.Subscript):
            return isinstance(target.value, gast.Name) and _index(target.slice) \
                and _is_atom(value)
        if isinstance(target, gast.Tuple):
            return (all(isinstance(e, gast.Name) for e in target.elts)
                    and isinstance(value, gast.Call) and isinstance(value.func, gast.Name)
                    and value.func.id in user_functions and all(_atoms(a) for a in value.args))
        return False
    if isinstance(s, gast.If):
        test = s.test
        if isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
            test = test.operand
        return _is_atom(test)
    if isinstance(s, gast.For):
        it = s.iter
        return (isinstance(s.target, gast.Name) and isinstance(it, gast.Call)
                and ir.dotted_text(it.func) == "range" and all(_is_atom(a) for a in it.args)
                and not s.orelse)
    if isinstance(s, gast.While):
        return isinstance(s.test, gast.Constant) and s.test.value is True and not s.orelse
    if isinstance(s, (gast.Break, gast.Continue)):
        return True
    if isinstance(s, gast.Return):
        return _atoms(s.value)
    return False


def test_anf_checker_catches_nested_operations():
    tree = gast.parse(
        "def f(x, a):\n"
        "    y = x * 2.0 + 1.0\n"
        "    y = y + 1.0\n"
        "    a[x + 1] = y\n"
        "    if x > 0.0:\n"
        "        pass\n"
        "    while x > 0.0:\n"
        "        x = math.sin(x * x)\n"
        "    return y * y\n").body[0]
    assert anf_violations(tree) == ["y = x * 2.0 + 1.0", "y = y + 1.0", "a[x + 1] = y",
                                    "if x > 0.0:", "pass", "while x > 0.0:",
                                    "x = math.sin(x * x)", "return y * y"]


ANF_CASES = [f for f, _ in SEMANTICS]


@pytest.mark.parametrize("fn", ANF_CASES, ids=[f.__name__ for f in ANF_CASES])
def test_to_anf_gives_one_op_per_statement(fn):
    ctx, _, tree = stages(fn, "ToANF")
    assert anf_violations(tree, ctx.user_functions) == [], to_source(tree)


@pytest.mark.parametrize("fn", ANF_CASES, ids=[f.__name__ for f in ANF_CASES])
def test_anf_form_survives_the_later_passes(fn):
    ctx, _, tree = stages(fn)
    assert anf_violations(tree, ctx.user_functions, ctx.no_push) == [], to_source(tree)


def swap(x, y):
    a, b = x, y * 3.0
    a, b = b, a
    return a - 2.0 * b


def rotate(x, y):
    a, b = x, y
    a, b = b * 2.0, a
    return a - 2.0 * b


@pytest.mark.parametrize("fn", [swap, rotate])
def test_to_anf_tuple_assignment_reads_before_it_writes(fn):
    tree = after(fn, "ToANF")
    assert_same_results(fn, compiled(tree, fn), [(0.5, 0.75)], to_source(tree))


def test_to_anf_names_canonical_functions():
    tree = after(expressions, "ToANF")
    calls = {ir.dotted_text(n.func) for n in gast.walk(tree) if isinstance(n, gast.Call)}
    assert {"np.sum", "np.transpose", "np.sin", "np.exp", "max"} <= calls
    in_funcs = {id(n) for c in gast.walk(tree) if isinstance(c, gast.Call)
                for n in gast.walk(c.func)}
    attrs = {n.attr for n in gast.walk(tree)
             if isinstance(n, gast.Attribute) and id(n) not in in_funcs}
    assert attrs <= _ATTRS, "methods and `.T` become calls"
    consts = {n.value for n in gast.walk(tree) if isinstance(n, gast.Constant)}
    assert math.pi in consts, "module constants are folded"


def test_to_anf_records_user_functions():
    ctx, _, tree = stages(calls_helpers, "ToANF")
    assert ctx.user_functions == {"helper": helper, "pair": pair}
    unpack = [s for s in gast.walk(tree) if isinstance(s, gast.Assign)
              and isinstance(s.targets[0], gast.Tuple)]
    assert len(unpack) == 1 and unpack[0].value.func.id == "pair"


def test_to_anf_turns_for_over_array_into_range():
    tree = after(for_over_array, "ToANF")
    loop = next(n for n in gast.walk(tree) if isinstance(n, gast.For))
    first = loop.body[0]
    assert isinstance(first.value, gast.Subscript) and first.targets[0].id == "t"
    assert first.value.slice.id == loop.target.id


def test_to_anf_while_becomes_while_true_with_exit_test():
    tree = after(while_condition, "ToANF")
    loop = next(n for n in gast.walk(tree) if isinstance(n, gast.While))
    assert loop.test.value is True
    # the test's computation (`and` is an `if`), then `if not test: break`
    k = next(k for k, s in enumerate(loop.body) if _exit_if(s))
    head = loop.body[k]
    assert isinstance(head.test, gast.UnaryOp) and isinstance(head.test.op, gast.Not)
    assert head.test.operand.id == loop.body[k - 1].targets[0].id
    assert all(not isinstance(n, gast.Break) for s in loop.body[k + 1:] for n in gast.walk(s))


# ---------------------------------------------------------------------------
# LowerLoopExits
# ---------------------------------------------------------------------------


def loop_exit_violations(fnode, counters=()):
    """`continue` anywhere, or a `break` that is not `if flag: break` ending its loop's body
    or the exit test opening a `while True:` (after RecordControl's `count = count + 1`)."""
    bad = [to_source(n).strip() for n in gast.walk(fnode) if isinstance(n, gast.Continue)]
    for loop in (n for n in gast.walk(fnode) if isinstance(n, (gast.For, gast.While))):
        allowed = set()
        body = loop.body
        if body and isinstance(body[0], gast.Assign) and body[0].targets[0].id in counters:
            body = body[1:]
        if isinstance(loop, gast.While) and body and _exit_if(body[0]):
            allowed.add(id(body[0].body[0]))
        if body and _exit_if(body[-1]) and isinstance(body[-1].test, gast.Name):
            allowed.add(id(body[-1].body[0]))
        for s in ir.walk_no_loops(body):
            if isinstance(s, gast.Break) and id(s) not in allowed:
                bad.append(f"misplaced break in loop at line {loop.lineno}")
    return bad


def _exit_if(s):
    return (isinstance(s, gast.If) and len(s.body) == 1 and isinstance(s.body[0], gast.Break)
            and not s.orelse)


def test_loop_exit_checker_catches_misplaced_exits():
    tree = gast.parse(
        "def f(xs):\n"
        "    for i in range(3):\n"
        "        if xs[i] > 0.0:\n"
        "            break\n"
        "        s = 1.0\n"
        "        continue\n"
        "    return s\n").body[0]
    assert loop_exit_violations(tree) == ["continue", "misplaced break in loop at line 2"]


LOOP_EXITS = [break_continue, while_break_continue, nested_break, break_in_else_branch,
              early_return_loop, early_return_nested_loops, early_return_while,
              early_return_deep, while_condition, accepted]


@pytest.mark.parametrize("fn", LOOP_EXITS, ids=[f.__name__ for f in LOOP_EXITS])
def test_lower_loop_exits_places_breaks(fn):
    before = after(fn, "ToANF")
    assert any(isinstance(n, (gast.Break, gast.Continue)) for n in gast.walk(before))
    tree = after(fn, "LowerLoopExits")
    assert loop_exit_violations(tree) == [], to_source(tree)
    ctx, _, tree = stages(fn)
    assert loop_exit_violations(tree, ctx.no_push) == [], to_source(tree)


def test_lower_loop_exits_flags_start_false():
    tree = after(break_continue, "LowerLoopExits")
    loop = next(s for s in tree.body if isinstance(s, gast.For))
    broke = loop.body[-1].test.id
    init = tree.body[tree.body.index(loop) - 1]
    assert init.targets[0].id == broke and init.value.value is False
    skip = loop.body[0]
    assert skip.value.value is False and skip.targets[0].id != broke


def test_lower_loop_exits_keeps_meaning_of_continue_in_elif():
    # `continue` in an `elif`, in a loop that also holds a `while` with a `break`
    _, snapshots, _ = stages(accepted)
    assert_same_results(accepted, compiled(snapshots["LowerLoopExits"], accepted),
                        [(_V, 0.5), (_V * 10.0, 2.0), (-_V, -1.0)])


# ---------------------------------------------------------------------------
# RecordControl
# ---------------------------------------------------------------------------


def trip_counts(v, n, thr):
    s = 0.0
    for i in range(2, n, 3):
        s = s + v[i]
    k = 0
    while s < 50.0:
        s = s * 2.0 + 1.0
        k = k + 1
    m = 0
    for j in range(v.shape[0]):
        m = m + 1
        if v[j] > thr:
            break
    if s > 60.0:
        s = s - 1.0
    return s + k + m


def _with_locals(fnode):
    """A copy of `fnode` that returns `(value, locals())`."""
    tree = copy.deepcopy(fnode)
    ret = tree.body[-1]
    ret.value = gast.Tuple(elts=[ret.value, ir.call("locals")], ctx=gast.Load())
    return tree


def test_record_control_every_if_tests_a_flag():
    ctx, _, tree = stages(trip_counts)
    ifs = [n for n in gast.walk(tree) if isinstance(n, gast.If) and not _exit_if(n)]
    assert ifs
    for node in ifs:
        assert isinstance(node.test, gast.Name) and node.test.id in ctx.flags
    blocks = [b for n in gast.walk(tree) for b in (getattr(n, "body", None),
                                                    getattr(n, "orelse", None)) if b]
    for stmts in blocks:
        for k, s in enumerate(stmts):
            if isinstance(s, gast.If) and not _exit_if(s):
                before = stmts[k - 1]
                assert isinstance(before, gast.Assign) and before.targets[0].id == s.test.id


def test_record_control_every_loop_has_a_trip_count():
    ctx, _, tree = stages(trip_counts)
    loops = [n for n in gast.walk(tree) if isinstance(n, (gast.For, gast.While))]
    assert len(loops) == 3 and set(ctx.loops) == set(loops)
    first_for, while_loop, broken_for = loops
    trip, start, step, bound = ctx.loops[first_for]
    assert trip == bound and (start, step) == ("2", "3")
    pre = tree.body[tree.body.index(first_for) - 1]
    assert pre.targets[0].id == trip and ir.dotted_text(pre.value.func) == "rt.range_len"
    for loop in (while_loop, broken_for):
        trip = ctx.loops[loop][0]
        bump = loop.body[0]
        count = bump.targets[0].id
        assert count in ctx.no_push
        assert to_source(bump).strip() == f"{count} = {count} + 1"
        after_loop = tree.body[tree.body.index(loop) + 1]
        assert to_source(after_loop).strip() == f"{trip} = {count}"
    assert ctx.loops[while_loop][1:] == (None, None, None)


_V9 = np.linspace(-1.0, 3.0, 9)


@pytest.mark.parametrize("args", [(_V9, 5, 1.0), (_V9, 0, 0.0), (_V9, 9, 100.0),
                                  (_V9, 3, -5.0), (_V9, 8, 2.4)])
def test_record_control_trip_counts_count_iterations(args):
    ctx, _, tree = stages(trip_counts)
    value, scope = compiled(_with_locals(tree), trip_counts)(*fresh(args))
    assert value == trip_counts(*fresh(args))
    loops = [node for node in gast.walk(tree) if isinstance(node, (gast.For, gast.While))]
    first_for, while_loop, broken_for = (ctx.loops[loop][0] for loop in loops)
    assert scope[first_for] == len(range(2, args[1], 3))
    assert scope[while_loop] == scope["k"] + 1, "the pass that evaluates the test counts"
    assert scope[broken_for] == scope["m"], "the iteration that breaks counts"


def test_record_control_keeps_negative_steps():
    ctx, _, tree = stages(range_variants)
    steps = sorted((start, step) for _, start, step, _ in ctx.loops.values())
    assert ("0", "1") in steps and any(step == "-1" for _, step in steps)
    assert any(step == "-2" for _, step in steps) and any(step == "2" for _, step in steps)


# ---------------------------------------------------------------------------
# InferKinds
# ---------------------------------------------------------------------------


def kinds_example(x, n, xs, m):
    k = 0
    for i in range(n):
        k = k + 1
    c = 0
    c = c + 0.5
    shape = m.shape
    rows = m.shape[0]
    col = m[:, 0]
    elem = m[0, 1]
    flags = xs > x
    ints = np.arange(n)
    tot = np.sum(m, axis=0)
    whole = np.sum(m)
    prod = m @ xs
    half = n / 2
    floor = n // 2
    return (x * c + elem + rows + np.sum(col) + np.sum(tot * prod) + whole + half + floor
            + shape[1] + np.sum(flags) + np.sum(ints))


def test_infer_kinds_of_variables():
    ctx = analyzed(kinds_example, (FLOAT, INT, F1, F2), ["x"])
    k = ctx.kinds
    expected = {"x": FLOAT, "n": INT, "xs": F1, "m": F2, "k": INT, "i": INT, "c": FLOAT,
                "shape": TupleKind((INT, INT)), "rows": INT, "col": F1, "elem": FLOAT,
                "flags": Kind("b", 1), "ints": Kind("i", 1), "tot": F1, "whole": FLOAT,
                "prod": F1, "half": FLOAT, "floor": INT}
    assert {name: k[name] for name in expected} == expected
    assert ctx.return_kind == FLOAT


def poly(a):
    b = a * 2
    c = b > 1
    return b + c


@pytest.mark.parametrize("kind,b", [(INT, INT), (FLOAT, FLOAT), (F1, F1), (Kind("i", 1),
                                                                          Kind("i", 1))])
def test_infer_kinds_follow_the_argument(kind, b):
    ctx = analyzed(poly, (kind,), [])
    assert ctx.kinds["b"] == b
    assert ctx.kinds["c"] == Kind("b", b.ndim)
    assert ctx.return_kind == b


def test_infer_kinds_bool_argument_promotes():
    ctx = analyzed(poly, (BOOL,), [])
    assert ctx.kinds["b"] == INT


def masked_reads(X, v):
    rows = X[v > 0.0]
    cols = X[:, X[0] > 0.0]
    picked = X[X > 0.0]
    return np.sum(rows) + np.sum(cols) + np.sum(picked)


def test_infer_kinds_of_boolean_masks():
    ctx = analyzed(masked_reads, (F2, F1), [])
    assert (ctx.kinds["rows"], ctx.kinds["cols"], ctx.kinds["picked"]) == (F2, F2, F1)


def rank_change(x, xs):
    y = x
    if x > 0.0:
        y = xs  # rank changes
    return np.sum(y)


def rebinds_to_another_kind(x, xs):
    y = x * 2.0
    z = y + 1.0
    y = xs * z
    return np.sum(y)


def test_infer_kinds_renames_a_top_level_rebinding_to_another_kind():
    ctx = analyzed(rebinds_to_another_kind, (FLOAT, F1), [])
    assert ctx.kinds["y"] == FLOAT and ctx.kinds["y1"] == F1
    assert "tmp1 = np.sum(y1)" in to_source(ctx.fnode)


def rank_change_in_loop(xs, m):
    acc = xs * 1.0
    for i in range(m.shape[0]):
        acc = m * 2.0  # rank changes
    return np.sum(acc)


@pytest.mark.parametrize("fn,kinds,name", [(rank_change, (FLOAT, F1), "y"),
                                           (rank_change_in_loop, (F1, F2), "acc")])
def test_infer_kinds_refuses_rank_changes(fn, kinds, name):
    with pytest.raises(UnsupportedError) as info:
        analyzed(fn, kinds, [])
    err = info.value
    assert f"`{name}`" in str(err) and "array" in str(err)
    assert err.filename == __file__ and err.lineno == line_of(fn, "# rank changes")
    assert err.hint


def test_infer_kinds_types_user_calls():
    ctx = analyzed(calls_helpers, (FLOAT, F1), ["x"])
    assert ctx.kinds["p"] == FLOAT and ctx.kinds["q"] == FLOAT and ctx.kinds["s"] == FLOAT


# ---------------------------------------------------------------------------
# CheckAliases
# ---------------------------------------------------------------------------


def writes_through_alias(xs):
    ys = xs
    ys[0] = 2.0  # aliased write
    return np.sum(xs * ys)


def shifts_rows(m):
    out = m.copy()
    for i in range(1, out.shape[0]):
        out[i, :] = out[i - 1, :] * 0.5 + out[i, :]
    return np.sum(out * out)


def test_check_aliases_refuses_a_write_through_another_name():
    with pytest.raises(UnsupportedError) as info:
        analyzed(writes_through_alias, (F1,), ["xs"])
    err = info.value
    assert "`ys`" in str(err) and ".copy()" in err.hint
    assert err.lineno == line_of(writes_through_alias, "# aliased write")


def test_check_aliases_accepts_a_slice_consumed_before_the_write():
    ctx = analyzed(shifts_rows, (F2,), ["m"])
    assert "out" in ctx.written


# ---------------------------------------------------------------------------
# Activity
# ---------------------------------------------------------------------------


def activity_example(x, y, xs):
    n = xs.shape[0]
    k = 0
    s = 0.0
    for i in range(n):
        big = xs[i] > x
        if big:
            s = s + xs[i] * x
        k = k + 1
    unused = math.sin(x)  # noqa: F841  (never reaches the output)
    const = y * 2.0
    fl = np.floor(x)
    idx = int(x)
    t = s * const + fl + k + idx
    return t


def test_activity_active_variables():
    ctx = analyzed(activity_example, (FLOAT, FLOAT, F1), ["x", "xs"])
    user = {v for v in ctx.kinds if not v.startswith(("tmp", "branch", "trip", "count"))}
    assert ctx.active & user == {"x", "xs", "s", "t"}


def test_activity_integers_and_booleans_are_inactive():
    ctx = analyzed(activity_example, (FLOAT, FLOAT, F1), ["x", "xs"])
    for v in ("n", "k", "i", "big", "idx"):
        assert v not in ctx.active and v not in ctx.varied
    assert all(ctx.kinds[v].is_float for v in ctx.active)
    assert not any(v.startswith(("branch", "trip")) for v in ctx.active)


def test_activity_needs_a_path_from_wrt_to_the_output():
    ctx = analyzed(activity_example, (FLOAT, FLOAT, F1), ["x", "xs"])
    assert "unused" in ctx.varied and "unused" not in ctx.active
    assert "const" not in ctx.varied and "const" not in ctx.active, "y is not in wrt"
    assert "fl" not in ctx.varied, "floor has no derivative"
    ctx = analyzed(activity_example, (FLOAT, FLOAT, F1), ["y"])
    assert {"y", "const", "t"} <= ctx.active and "s" not in ctx.active


def test_activity_flows_through_element_writes_and_calls():
    ctx = analyzed(element_writes, (F2, FLOAT), ["x"])
    assert {"x", "out"} <= ctx.active and "m" not in ctx.active
    ctx = analyzed(calls_helpers, (FLOAT, F1), ["x"])
    assert {"x", "s", "p", "q"} <= ctx.active and "v" not in ctx.active


# ---------------------------------------------------------------------------
# TapeNeeds
# ---------------------------------------------------------------------------


def loss(w, xs):
    h = 0.0
    for i in range(xs.shape[0]):
        h = math.tanh(w * h + xs[i])
    return h * h


def test_tape_needs_loss_saves_only_h():
    ctx = analyzed(loss, (FLOAT, F1), ["w", "xs"])
    assert ctx.pushed == {"h"}
    assert not ctx.elem_saved
    assert not any(v.startswith("tmp") for v in ctx.pushed)


def test_tape_needs_loss_needs_the_loop_values():
    ctx = analyzed(loss, (FLOAT, F1), ["w", "xs"])
    trip = next(iter(ctx.loops.values()))[0]
    assert {"h", "w", "i", trip} <= ctx.needed
    assert not any(v.startswith("tmp") for v in ctx.needed)


def once_outside(x, xs):
    a = math.sin(x)
    s = 0.0
    for i in range(xs.shape[0]):
        s = s + a * xs[i]
    return s * a


def assigned_twice(x):
    a = math.sin(x)
    b = a * a
    a = math.cos(x)
    return a * b


def test_tape_needs_value_assigned_once_outside_loops_is_not_pushed():
    ctx = analyzed(once_outside, (FLOAT, F1), ["x", "xs"])
    assert "a" in ctx.needed and "a" not in ctx.pushed


def test_tape_needs_value_assigned_twice_is_pushed():
    ctx = analyzed(assigned_twice, (FLOAT,), ["x"])
    assert "a" in ctx.needed and "a" in ctx.pushed


def read_between_writes(m, x):
    out = m * x
    s = np.sum(out * out)  # its adjoint reads `out` as it is before the write below
    out[0, 1] = 2.0 * x
    return s + np.sum(out)


def test_tape_needs_overwritten_elements_are_saved():
    ctx = analyzed(read_between_writes, (F2, FLOAT), ["x"])
    assert "out" in ctx.elem_saved and "out" in ctx.written


def test_tape_needs_elements_read_only_at_the_end_are_not_saved():
    # `out * out` reads `out` after every write: as the forward sweep leaves it
    ctx = analyzed(element_writes, (F2, FLOAT), ["x"])
    assert "out" in ctx.written and "out" in ctx.needed and "out" not in ctx.elem_saved

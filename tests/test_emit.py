"""Emitted source means the tree it was printed from: a property over random expression
trees (every operator and precedence level, constants of every sign and size), the
parse-back guard itself, and the line map from generated code to the user's lines."""
import ast
import math
from pathlib import Path

import astor
import gast
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import srcad
from codegen.emit import EmissionError, _AsParsed, _check_round_trip, emit, to_source
from tests.fd import fd_grad

NUMBERS = st.one_of(
    st.sampled_from([-2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 2.0, 3, -3, 0, 1e-320, -1e-320, 1e300,
                     -1e300, math.inf, -math.inf, math.nan, 7, -1]),
    st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 5))
BINARY = [ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.FloorDiv, ast.Mod]
UNARY = [ast.USub, ast.UAdd, ast.Not]
COMPARE = [ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq]


def _expressions():
    leaves = st.one_of(NUMBERS.map(lambda v: ast.Constant(value=v)),
                       st.sampled_from(["x", "y"]).map(lambda n: ast.Name(id=n, ctx=ast.Load())))

    def extend(sub):
        return st.one_of(
            st.builds(lambda a, op, b: ast.BinOp(left=a, op=op(), right=b),
                      sub, st.sampled_from(BINARY), sub),
            st.builds(lambda op, a: ast.UnaryOp(op=op(), operand=a), st.sampled_from(UNARY), sub),
            st.builds(lambda a, ops, bs: ast.Compare(left=a, ops=[o() for o in ops],
                                                     comparators=bs[:len(ops)] or [a]),
                      sub, st.lists(st.sampled_from(COMPARE), min_size=1, max_size=2),
                      st.lists(sub, min_size=2, max_size=2)),
            st.builds(lambda c, a, b: ast.IfExp(test=c, body=a, orelse=b), sub, sub, sub),
            st.builds(lambda op, vs: ast.BoolOp(op=op(), values=vs),
                      st.sampled_from([ast.And, ast.Or]), st.lists(sub, min_size=2, max_size=3)))

    return st.recursive(leaves, extend, max_leaves=8)


def _evaluate(code, x, y):
    try:
        with np.errstate(all="ignore"):
            return "value", eval(code, {}, {"x": x, "y": y})
    except (ArithmeticError, ValueError, TypeError) as exc:
        return "raises", type(exc).__name__


def _same(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == "raises":
        return a[1] == b[1]
    u, v = a[1], b[1]
    if isinstance(u, complex) or isinstance(v, complex):
        return repr(u) == repr(v)
    return type(u) is type(v) and (u == v and math.copysign(1, u) == math.copysign(1, v)
                                   or u != u and v != v)


@settings(max_examples=400, deadline=None)
@given(_expressions(), st.sampled_from([-2.0, -0.0, 0.5, 3.0]), st.sampled_from([-1.5, 2.0]))
def test_emitted_expression_computes_what_its_tree_computes(tree, x, y):
    module = ast.Module(body=[ast.Expr(value=tree)], type_ignores=[])
    ast.fix_missing_locations(module)
    direct = compile(ast.Expression(body=tree), "<tree>", "eval")
    text = to_source(gast.ast_to_gast(module)).strip()
    assert _same(_evaluate(direct, x, y), _evaluate(text, x, y)), text


def test_negative_constant_bases_are_parenthesized():
    tree = gast.parse("y = b * c ** 2 + d ** e")
    rhs = tree.body[0].value
    rhs.left.right.left = gast.Constant(value=-2.0, kind=None)
    rhs.right.right = gast.Constant(value=-1, kind=None)
    text = to_source(tree).strip()
    assert text == "y = b * (-2.0) ** 2 + d ** -1"
    assert eval(text.split(" = ")[1], {"b": 0.7, "d": 2.0}) == pytest.approx(0.7 * 4.0 + 0.5)


def test_the_guard_refuses_text_that_means_another_tree():
    tree = ast.parse("y = (-2.0) ** 2")
    tree.body[0].value.left = ast.Constant(value=-2.0)  # what a constant-folding pass builds
    text = astor.to_source(tree)  # the printer alone: `y = -2.0 ** 2`
    assert text.strip() == "y = -2.0 ** 2"
    with pytest.raises(EmissionError, match="does not parse back"):
        _check_round_trip(tree, text)


def _modules():
    """Source files with most of Python's syntax: this project's and some of the standard
    library's (those without `match`, which the printer does not know)."""
    root = Path(__file__).resolve().parent.parent
    stdlib = Path(ast.__file__).parent
    paths = sorted(root.glob("srcad/**/*.py"))[::4] + sorted(root.glob("codegen/*.py")) + \
        sorted(stdlib.glob("*.py"))[::25]
    return [p for p in paths if "match " not in p.read_text(encoding="utf-8")]


def test_printed_modules_parse_back_to_the_tree_python_makes_of_their_source():
    """Printing goes straight from gast to `ast` in one walk: whole modules, printed, mean
    what the parser makes of their own source, with the positions gast's own converter
    gives (which the line map uses)."""
    checked = 0
    for path in _modules():
        source = path.read_text(encoding="utf-8")
        tree = gast.parse(source)
        text = to_source(tree)
        assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(source)), path
        assert ast.dump(_AsParsed([]).visit(tree), include_attributes=True) == \
            ast.dump(gast.gast_to_ast(tree), include_attributes=True), path
        checked += 1
    assert checked > 40


def test_lines_map_generated_statements_to_their_source_lines():
    tree = gast.parse("def f(x):\n    y = x * 2.0\n\n    return y\n")
    extra = gast.parse("z = 1.0").body[0]
    for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        extra.__dict__.pop(attr)
    tree.body[0].body.insert(1, extra)
    text, lines = emit(tree)
    assert text.splitlines()[1].strip() == "y = x * 2.0" and lines[2] == 2
    assert 3 not in lines  # `z = 1.0` carried no position
    assert lines[4] == 4


def b_times_square(b):
    return b * (-2.0) ** 2


def square_int(b):
    return (-2) ** 2 * b + (-1e-3) ** 2


def mixed_powers(b):
    return (b - 1.0) ** 2 * (-1.0) ** 2 + (-2.0) ** 2.0 * (-1.0) ** 3 * b


def exp_of_negative_square(b):
    s = 0.0
    for k in range(3):
        s = s + b * k
    return math.exp(-(-0.97) ** 2) * s


def root_of_square(b):
    return ((-2.0) ** 2) ** 0.5 * b


CASES = [(fn, False) for fn in (b_times_square, square_int, mixed_powers,
                                exp_of_negative_square, root_of_square)] + \
    [(b_times_square, True), (mixed_powers, True)]


@pytest.mark.parametrize("fn, jit", CASES)
def test_negative_literal_bases_give_the_function_s_value_and_gradient(fn, jit):
    value, grad = srcad.value_and_grad(fn, jit=jit)(0.7)
    assert value == fn(0.7)
    assert grad == pytest.approx(fd_grad(fn, (0.7,), 0), rel=1e-7)

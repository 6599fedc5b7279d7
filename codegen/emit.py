"""Turning gast trees into Python source, comments included, and checking that the source
means the tree it came from.

Printers parenthesize by operator, not by value: a negative number constant, which the
parser itself never produces (it reads `-2.0` as a minus applied to `2.0`), comes out
bare, so `(-2.0) ** 2` built as a tree would print as `-2.0 ** 2`, which is `-4.0`.
`to_source` therefore first spells every negative constant as the parser would read it,
and then parses its own output back: a difference from the tree is an `EmissionError`,
never a silently different program.

>>> import gast
>>> tree = gast.parse("y = b * c ** 2")
>>> tree.body[0].value.right.left = gast.Constant(value=-2.0, kind=None)
>>> print(to_source(tree).strip())
y = b * (-2.0) ** 2
"""
import ast
import cmath
import contextlib
import gc
import math
import re

import astor
import gast

_COMMENT_FN = "__comment__"
_COMMENT_LINE = re.compile(r"^(\s*)" + _COMMENT_FN + r"\((\d+)\)\s*$", re.M)


class EmissionError(Exception):
    """Emitted source that does not parse back to the tree it was printed from."""

    def __init__(self, message, lineno=None, line=None):
        self.lineno, self.line = lineno, line
        where = f" at line {lineno} of the emitted code: {line.strip()}" if lineno else ""
        super().__init__(message + where)


def comment(text, like=None):
    """A statement that is emitted as the line `# text`; at the source position of the
    node `like`, if given. The text travels on the node."""
    call = gast.Call(
        func=gast.Name(id=_COMMENT_FN, ctx=gast.Load(), annotation=None, type_comment=None),
        args=[gast.Constant(value=" ".join(text.split()), kind=None)],
        keywords=[],
    )
    node = gast.Expr(value=call)
    return gast.copy_location(node, like) if like is not None else node


def is_comment(stmt):
    """Whether `stmt` is a statement made by `comment`."""
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and \
        isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == _COMMENT_FN


def to_source(nodes):
    """Python source for a gast module, statement or list of statements, checked to parse
    back to the same tree (see `emit`)."""
    return emit(nodes)[0]


def emit(nodes):
    """(source, lines) for a gast module, statement or list of statements.

    `lines` maps each line of `source` that starts a statement to the `lineno` the
    statement's node carried (statements built without one are left out), so a line of
    generated code can be traced to the line it was made from. Raises `EmissionError`
    when the source does not parse back to the tree.
    """
    if isinstance(nodes, list):
        nodes = gast.Module(body=nodes, type_ignores=[])
    with collection_paused():  # two copies of the tree, garbage when `_printed` returns
        text, lines, comments = _printed(nodes)
    return _COMMENT_LINE.sub(lambda m: f"{m.group(1)}# {comments[int(m.group(2))]}", text), lines


def _printed(nodes):
    """(source with comments as calls, lines, comments) of a gast tree; the copies of the
    tree made on the way are freed when it returns (before collection resumes, which
    would otherwise scan them all)."""
    as_parsed = _AsParsed()
    tree = as_parsed.visit(gast.gast_to_ast(nodes))  # a new tree: `nodes` is kept
    if isinstance(tree, ast.expr):
        tree = ast.Expr(value=tree)
    if isinstance(tree, ast.stmt):
        tree = ast.Module(body=[tree], type_ignores=[])
    text = astor.to_source(tree)
    return text, _check_round_trip(tree, text), as_parsed.comments


@contextlib.contextmanager
def collection_paused():
    """No cyclic garbage collection inside: code that builds large trees it drops again
    (ASTs hold no cycles; reference counting frees them) would otherwise pay for full
    collections that scan every object of the process, repeatedly as the heap grows."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


class _AsParsed(ast.NodeTransformer):
    """Number constants as Python's parser builds them: no negative constants (a unary
    minus applied to a positive one), no NaN constant (`inf - inf`), and complex constants
    only of the form `2.5j` (others are `complex(re, im)`). The text of each
    comment moves to `comments`, its call keeping the index (one short line to print)."""

    def __init__(self):
        self.comments = []

    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and node.func.id == _COMMENT_FN:
            self.comments.append(node.args[0].value)
            node.args = [ast.Constant(value=len(self.comments) - 1)]
            return node
        return self.generic_visit(node)

    def visit_Constant(self, node):
        v = node.value
        if isinstance(v, float) and math.isnan(v):
            inf = ast.Constant(value=math.inf)
            return ast.copy_location(ast.BinOp(left=inf, op=ast.Sub(),
                                               right=ast.Constant(value=math.inf)), node)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and \
                (v < 0 or (isinstance(v, float) and math.copysign(1.0, v) < 0)):
            return ast.copy_location(ast.UnaryOp(op=ast.USub(), operand=ast.copy_location(
                ast.Constant(value=-v), node)), node)
        if isinstance(v, complex) and (v.real != 0.0 or math.copysign(1.0, v.imag) < 0
                                       or not cmath.isfinite(v)):
            return self.visit(ast.copy_location(ast.Call(  # `complex(re, im)`
                func=ast.Name(id="complex", ctx=ast.Load()),
                args=[ast.Constant(value=v.real), ast.Constant(value=v.imag)],
                keywords=[]), node))
        return node


def _check_round_trip(tree, text):
    """Parse `text` back and compare it with `tree` (comments are still calls in both); the
    map from lines of `text` to the source line numbers its statements carried."""
    try:
        parsed = ast.parse(text)
    except SyntaxError as exc:
        raise EmissionError(f"emitted code is not valid Python ({exc.msg})", exc.lineno,
                            exc.text or "") from None
    want, got = list(_statements(tree)), list(_statements(parsed))
    lines = {}
    for w, g in zip(want, got):
        if not _same_shallow(w, g):
            raise EmissionError("emitted code does not parse back to the tree it was printed "
                                "from", g.lineno, text.splitlines()[g.lineno - 1])
        if getattr(w, "lineno", None) is not None:
            lines.setdefault(g.lineno, w.lineno)
    if len(want) != len(got):
        raise EmissionError(f"emitted code has {len(got)} statements, the tree {len(want)}")
    return lines


# the nodes that hold statements: an expression never does
_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


def _statements(tree):
    """Every statement of `tree`, breadth first (the same order for equal trees; that of
    `ast.walk`, which would also visit every expression on the way)."""
    holders = [tree]
    for node in holders:  # the list grows as it is read
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                holders.extend([v for v in value if isinstance(v, _HOLDERS)])
        for field in ("body", "orelse", "finalbody"):
            value = getattr(node, field, None)
            if type(value) is list:
                for s in value:
                    if isinstance(s, ast.stmt):
                        yield s


def _same_shallow(a, b):
    """Whether statements `a` and `b` have the same own content: their expressions in full,
    their nested statements left out (they are compared on their own)."""
    if type(a) is not type(b):
        return False
    for name in a._fields:
        if name not in ("body", "orelse", "finalbody", "type_comment") and \
                not _same(getattr(a, name, None), getattr(b, name, None)):
            return False
    return True


def _same(a, b):
    """Whether two field values are alike as `ast.dump` shows them (positions aside)."""
    if isinstance(a, ast.AST):
        return type(a) is type(b) and all(
            _same(getattr(a, name, None), getattr(b, name, None)) for name in a._fields)
    if type(a) is list:
        return type(b) is list and len(a) == len(b) and all(map(_same, a, b))
    return repr(a) == repr(b)

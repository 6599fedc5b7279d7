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
    comments = []
    tree = _AsParsed(comments).visit(nodes)  # a new tree: `nodes` is kept
    if isinstance(tree, ast.expr):
        tree = ast.Expr(value=tree)
    if isinstance(tree, ast.stmt):
        tree = ast.Module(body=[tree], type_ignores=[])
    text = astor.to_source(tree)
    return text, _check_round_trip(tree, text), comments


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


# positions, copied from each gast node that has them
_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _placed(new, node):
    """`new`, with the source positions `node` has."""
    for attr in _POSITIONS:
        value = getattr(node, attr, None)
        if value is not None:
            setattr(new, attr, value)
    return new


class _AsParsed:
    """A gast tree as the `ast` tree Python's parser would build for its source: what
    `gast.gast_to_ast` makes (a `Name` that is a parameter becomes an `arg`, an
    exception handler's name a string), in one walk that also spells number constants
    as the parser builds them: no negative constants (a unary minus applied to a
    positive one), no NaN constant (`inf - inf`), and complex constants only of the form
    `2.5j` (others are `complex(re, im)`). The text of each comment moves to `comments`,
    its call keeping the index (one short line to print).

    >>> print(ast.dump(_AsParsed([]).visit(gast.parse("y = -2.0").body[0].value)))
    UnaryOp(op=USub(), operand=Constant(value=2.0))
    """

    # gast class -> (ast class, the fields both have), or the one shared instance of a
    # class without fields or positions (contexts, operators)
    _classes = {}

    def __init__(self, comments):
        self.comments = comments

    def visit(self, node):
        if type(node) is list:
            return [self.visit(n) for n in node]
        if not isinstance(node, gast.AST):
            return node
        special = self._special.get(type(node))
        new = special(self, node) if special is not None else self._plain(node)
        if new is None or not new._attributes:  # no such node in `ast`; no positions
            return new
        return _placed(new, node)

    def _plain(self, node):
        kind = self._classes.get(type(node), False)
        if kind is False:
            kind = self._learn(type(node))
        if not isinstance(kind, tuple):
            return kind
        cls, fields = kind
        visit = self.visit
        return cls(**{f: visit(getattr(node, f, None)) for f in fields})

    @classmethod
    def _learn(cls, gcls):
        target = getattr(ast, gcls.__name__, None)
        kind = None if target is None else \
            target() if not target._fields and not target._attributes else \
            (target, tuple(f for f in target._fields if f in gcls._fields))
        cls._classes[gcls] = kind
        return kind

    def _name(self, node):
        return ast.Name(id=node.id, ctx=self.visit(node.ctx))

    def _arg(self, node):
        if node is None:
            return None
        return _placed(ast.arg(arg=node.id, annotation=self.visit(node.annotation),
                               type_comment=node.type_comment), node)

    def _arguments(self, node):
        arg, visit = self._arg, self.visit
        return ast.arguments(posonlyargs=[arg(a) for a in node.posonlyargs],
                             args=[arg(a) for a in node.args], vararg=arg(node.vararg),
                             kwonlyargs=[arg(a) for a in node.kwonlyargs],
                             kw_defaults=visit(node.kw_defaults), kwarg=arg(node.kwarg),
                             defaults=visit(node.defaults))

    def _handler(self, node):
        return ast.ExceptHandler(type=self.visit(node.type),
                                 name=node.name.id if node.name else None,
                                 body=self.visit(node.body))

    def _assign(self, node):
        return ast.Assign(targets=self.visit(node.targets), value=self.visit(node.value))

    def _call(self, node):
        func = node.func
        if type(func) is gast.Name and func.id == _COMMENT_FN:
            self.comments.append(node.args[0].value)
            return ast.Call(func=self.visit(func),
                            args=[ast.Constant(value=len(self.comments) - 1)], keywords=[])
        return ast.Call(func=self.visit(func), args=self.visit(node.args),
                        keywords=self.visit(node.keywords))

    def _constant(self, node):
        v = node.value
        if isinstance(v, float) and math.isnan(v):
            return ast.BinOp(left=ast.Constant(value=math.inf), op=ast.Sub(),
                             right=ast.Constant(value=math.inf))
        if isinstance(v, (int, float)) and not isinstance(v, bool) and \
                (v < 0 or (isinstance(v, float) and math.copysign(1.0, v) < 0)):
            return ast.UnaryOp(op=ast.USub(), operand=_placed(ast.Constant(value=-v), node))
        if isinstance(v, complex) and (v.real != 0.0 or math.copysign(1.0, v.imag) < 0
                                       or not cmath.isfinite(v)):
            return self.visit(gast.copy_location(gast.Call(  # `complex(re, im)`
                func=gast.Name(id="complex", ctx=gast.Load(), annotation=None,
                               type_comment=None),
                args=[gast.Constant(value=v.real, kind=None),
                      gast.Constant(value=v.imag, kind=None)],
                keywords=[]), node))
        return ast.Constant(value=v, kind=node.kind)

    _special = {gast.Name: _name, gast.arguments: _arguments, gast.ExceptHandler: _handler,
                gast.Assign: _assign, gast.Call: _call, gast.Constant: _constant}


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
    todo = [(a, b)]
    while todo:
        a, b = todo.pop()
        if a is b:
            continue
        if type(a) is not type(b):
            return False
        if isinstance(a, ast.AST):
            todo.extend([(getattr(a, name, None), getattr(b, name, None))
                         for name in a._fields])
        elif type(a) is list:
            if len(a) != len(b):
                return False
            todo.extend(zip(a, b))
        elif type(a) in (float, complex):  # `-0.0` is not `0.0`, and NaN is NaN
            if repr(a) != repr(b):
                return False
        elif a != b:
            return False
    return True

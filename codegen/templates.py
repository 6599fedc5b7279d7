"""Source templates: small Python functions whose bodies are filled in, never run."""
import ast
import copy
import inspect
import linecache
import textwrap

import gast


def template_body(fn):
    """The statements of `fn`'s body as gast nodes, with its docstring dropped.

    Line numbers count from the function's first line (its first decorator), as in
    `inspect.getsource(fn)`.
    """
    code = fn.__code__
    node = _top_level_functions(code.co_filename).get(code.co_firstlineno)
    if node is not None and node.name == code.co_name:  # one parse per file, not per template
        tree = gast.ast_to_gast(node)
        ast.increment_lineno(tree, 1 - code.co_firstlineno)
    else:
        tree = gast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    body = tree.body
    if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant):
        body = body[1:]
    return body


_PARSED = {}  # file name -> (its lines as linecache holds them, its top-level functions)


def _top_level_functions(filename):
    """The module-level functions of a source file, by their first line (decorators
    included); parsed again when the file changes, {} when it cannot be read or parsed."""
    linecache.checkcache(filename)
    lines = linecache.getlines(filename)
    parsed = _PARSED.get(filename)
    if parsed is None or parsed[0] is not lines:
        try:
            body = ast.parse("".join(lines)).body
        except (SyntaxError, ValueError):
            body = []
        parsed = _PARSED[filename] = (lines, {
            min([n.lineno] + [d.lineno for d in n.decorator_list]): n for n in body
            if isinstance(n, ast.FunctionDef)})
    return parsed[1]


_FOLDED = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
           gast.Mult: lambda a, b: a * b}


def _number(node):
    return isinstance(node, gast.Constant) and type(node.value) in (int, float)


def _filled(node, replacements):
    """A copy of `node` without source positions, each name in `replacements` swapped for
    its value (copied, itself not filled again), and `+ - *` of two numbers that the swap
    leaves written as its value (`6 - 1` as `5`), the number the same arithmetic gives
    when it runs: one walk."""
    if isinstance(node, ast.AST):
        cls = node.__class__
        if cls is gast.Name:
            new = replacements.get(node.id)
            if new is not None:
                if isinstance(new, str):
                    return gast.Name(id=new, ctx=_filled(node.ctx, replacements),
                                     annotation=None, type_comment=None)
                new = without_positions(clone(new))
                if hasattr(new, "ctx"):
                    new.ctx = _filled(node.ctx, replacements)
                return new
        copied = cls.__new__(cls)
        copied.__dict__.update({k: _filled(v, replacements)
                                for k, v in node.__dict__.items() if k not in _POSITIONS})
        if cls is gast.BinOp:
            fold = _FOLDED.get(type(copied.op))
            if fold is not None and _number(copied.left) and _number(copied.right):
                value = fold(copied.left.value, copied.right.value)
                if not (type(value) is int and not -2 ** 63 <= value < 2 ** 63):  # int64
                    return gast.Constant(value=value, kind=None)
        return copied
    if type(node) is list:
        return [_filled(v, replacements) for v in node]
    return node if isinstance(node, _ATOMS) else copy.deepcopy(node)


def fill(statements, replacements):
    """Copies of `statements` with each name in `replacements` swapped for its value.

    A value is a name (str) or a gast expression.

    >>> import gast
    >>> from codegen.emit import to_source
    >>> stmts = gast.parse("z = a * b").body
    >>> print(to_source(fill(stmts, {"a": "x", "b": gast.Constant(2.0, None)})).strip())
    z = x * 2.0
    >>> stmts = gast.parse("z = y * x ** (y - 1)").body
    >>> print(to_source(fill(stmts, {"x": "r", "y": gast.Constant(6, None)})).strip())
    z = 6 * r ** 5
    """
    return [_filled(s, replacements) for s in statements]


def statements(text):
    """The statements of `text`, parsed as gast nodes without source positions: code that
    srcad writes has no line of the user's of its own (see `codegen.emit.emit`)."""
    return [without_positions(s) for s in gast.parse(text).body]


_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def without_positions(tree):
    """`tree` with the source positions of its nodes removed (in place)."""
    todo = [tree]
    for node in todo:  # every node, as `gast.walk` finds them: the list grows as it is read
        attrs = node.__dict__
        for attr in _POSITIONS:
            attrs.pop(attr, None)
        for field in node._fields:
            value = attrs.get(field)
            if isinstance(value, ast.AST):
                todo.append(value)
            elif type(value) is list:
                todo.extend([v for v in value if isinstance(v, ast.AST)])
    return tree


_ATOMS = (str, int, float, complex, bytes, type(None), type(Ellipsis))


def clone(tree):
    """A deep copy of a gast tree, as `copy.deepcopy` makes (several times faster: nodes,
    lists and constants are all a tree holds)."""
    if isinstance(tree, ast.AST):
        new = tree.__class__.__new__(tree.__class__)
        new.__dict__.update({k: clone(v) for k, v in tree.__dict__.items()})
        return new
    if type(tree) is list:
        return [clone(v) for v in tree]
    return tree if isinstance(tree, _ATOMS) else copy.deepcopy(tree)

"""Source templates: small Python functions whose bodies are filled in, never run."""
import copy
import inspect
import textwrap

import gast


def template_body(fn):
    """The statements of `fn`'s body as gast nodes, with its docstring dropped."""
    tree = gast.parse(textwrap.dedent(inspect.getsource(fn)))
    body = tree.body[0].body
    if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant):
        body = body[1:]
    return body


class _Filler(gast.NodeTransformer):
    def __init__(self, replacements):
        self.replacements = replacements

    def visit_Name(self, node):
        new = self.replacements.get(node.id)
        if new is None:
            return node
        if isinstance(new, str):
            return gast.Name(id=new, ctx=node.ctx, annotation=None, type_comment=None)
        new = copy.deepcopy(new)
        if hasattr(new, "ctx"):
            new.ctx = node.ctx
        return new


def fill(statements, replacements):
    """Copies of `statements` with each name in `replacements` swapped for its value.

    A value is a name (str) or a gast expression.

    >>> import gast
    >>> from codegen.emit import to_source
    >>> stmts = gast.parse("z = a * b").body
    >>> print(to_source(fill(stmts, {"a": "x", "b": gast.Constant(2.0, None)})).strip())
    z = x * 2.0
    """
    filler = _Filler(replacements)
    return [filler.visit(copy.deepcopy(s)) for s in statements]

"""Turning gast trees into Python source, comments included."""
import re

import astor
import gast

_COMMENT_FN = "__comment__"
_COMMENT_LINE = re.compile(r"^(\s*)" + _COMMENT_FN + r"\((\d+)\)\s*$", re.M)
_COMMENTS = []


def comment(text):
    """A statement that is emitted as the line `# text`."""
    _COMMENTS.append(" ".join(text.split()))
    call = gast.Call(
        func=gast.Name(id=_COMMENT_FN, ctx=gast.Load(), annotation=None, type_comment=None),
        args=[gast.Constant(value=len(_COMMENTS) - 1, kind=None)],
        keywords=[],
    )
    return gast.Expr(value=call)


def to_source(nodes):
    """Python source for a gast module, statement or list of statements."""
    if isinstance(nodes, list):
        nodes = gast.Module(body=nodes, type_ignores=[])
    tree = gast.gast_to_ast(nodes)
    source = astor.to_source(tree)
    return _COMMENT_LINE.sub(lambda m: f"{m.group(1)}# {_COMMENTS[int(m.group(2))]}", source)

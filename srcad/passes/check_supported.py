"""CheckSupported: refuse Python that srcad does not differentiate, before any rewriting."""
import gast

from srcad.errors import UnsupportedError

_HINTS = {
    gast.With: "move the `with` block outside the differentiated function",
    gast.Try: "handle errors outside the differentiated function",
    gast.Lambda: "define a module-level function with `def` and call it",
    gast.ListComp: "write the loop out, filling a preallocated array (`np.empty(n)`)",
    gast.SetComp: "write the loop out",
    gast.DictComp: "write the loop out",
    gast.GeneratorExp: "write the loop out, filling a preallocated array",
    gast.Yield: "return an array instead of yielding values",
    gast.YieldFrom: "return an array instead of yielding values",
    gast.Await: "differentiate a plain synchronous function",
    gast.Global: "pass the value as an argument",
    gast.Nonlocal: "pass the value as an argument",
    gast.ClassDef: "define classes outside the differentiated function",
    gast.FunctionDef: "define helper functions at module level; srcad differentiates calls to them",
    gast.AsyncFunctionDef: "differentiate a plain synchronous function",
    gast.Delete: "drop the `del`; the value goes away when the function returns",
    gast.Raise: "check inputs before calling the gradient",
    gast.Assert: "check inputs before calling the gradient",
    gast.Import: "import at module level",
    gast.ImportFrom: "import at module level",
    gast.Dict: "use arrays or separate variables",
    gast.Set: "use arrays or separate variables",
    gast.JoinedStr: "format strings outside the differentiated function",
    gast.NamedExpr: "assign on a separate line",
    gast.Starred: "pass arguments one by one",
    gast.AnnAssign: "drop the annotation",
    gast.Match: "use if/elif/else",
}

_NAMES = {gast.ListComp: "list comprehension", gast.GeneratorExp: "generator expression",
          gast.SetComp: "set comprehension", gast.DictComp: "dict comprehension",
          gast.JoinedStr: "f-string", gast.NamedExpr: "walrus `:=`",
          gast.FunctionDef: "nested function", gast.AnnAssign: "annotated assignment"}


class CheckSupported:
    """Analysis: raises `UnsupportedError` at the first construct outside srcad's subset.

    Afterwards the body holds only assignments, `if`, `for`, `while`, `return`, `break`,
    `continue`, `pass`, docstrings and expressions srcad knows how to read.
    """

    def __init__(self, fsrc):
        args = fsrc.node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            raise fsrc.error("`*args`, `**kwargs` and keyword-only parameters are not supported",
                             fsrc.node, "give every parameter a plain name", UnsupportedError)
        for node in gast.walk(fsrc.node):
            if node is fsrc.node:
                continue
            hint = _HINTS.get(type(node))
            if hint is not None:
                what = _NAMES.get(type(node), f"`{type(node).__name__.lower()}`")
                raise fsrc.error(f"{what} is not supported in a differentiated function",
                                 node, hint, UnsupportedError)
            if isinstance(node, (gast.For, gast.While)) and node.orelse:
                raise fsrc.error("`else` on a loop is not supported", node,
                                 "set a flag before `break` and test it after the loop",
                                 UnsupportedError)
            if isinstance(node, gast.Expr) and not _is_docstring(node):
                raise fsrc.error("a bare expression statement is not supported", node,
                                 "assign its value, or move side effects such as print "
                                 "outside the differentiated function", UnsupportedError)


def _is_docstring(node):
    return isinstance(node.value, gast.Constant) and isinstance(node.value.value, str)

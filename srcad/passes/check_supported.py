"""CheckSupported: refuse Python that srcad does not differentiate, before any rewriting."""
import inspect

import gast

from srcad.errors import UnsupportedError
from srcad.passes import ir
from srcad.passes.lower_comprehensions import lowerable

_HINTS = {
    gast.With: "move the `with` block outside the differentiated function",
    gast.Try: "handle errors outside the differentiated function",
    gast.Lambda: "bind it to a name (`sq = lambda v: v * v`) and call that, or use `def`",
    gast.ListComp: "only `sum([...])` and `np.sum([...])` of a comprehension are supported, "
                   "where the sum always runs; otherwise write the loop out, filling a "
                   "preallocated array (`np.empty(n)`)",
    gast.SetComp: "write the loop out",
    gast.DictComp: "write the loop out",
    gast.GeneratorExp: "only `sum(... for ...)` and `np.sum([... for ...])` are supported, where "
                       "the sum always runs (not in `a if c else b`, after `and`/`or`, or in a "
                       "`while` test); otherwise write the loop out",
    gast.Yield: "return an array instead of yielding values",
    gast.YieldFrom: "return an array instead of yielding values",
    gast.Await: "differentiate a plain synchronous function",
    gast.Global: "pass the value as an argument",
    gast.Nonlocal: "pass the value as an argument",
    gast.ClassDef: "define classes outside the differentiated function",
    gast.AsyncFunctionDef: "differentiate a plain synchronous function",
    gast.Delete: "drop the `del`; the value goes away when the function returns",
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
          gast.AnnAssign: "annotated assignment"}


class CheckSupported:
    """Analysis: raises `UnsupportedError` at the first construct outside srcad's subset.

    Afterwards the body holds only assignments, `if`, `for`, `while`, `return`, `break`,
    `continue`, `pass`, docstrings and expressions srcad knows how to read, plus what the
    next passes rewrite: nested `def`s and lambdas bound to a name (HoistLocalFunctions),
    `sum`/`np.sum` of a comprehension where the sum always runs (LowerComprehensions),
    and `raise`/`assert` with their messages (LowerRaises).
    """

    needs = ()
    provides = ()

    def __init__(self, fsrc):
        if inspect.unwrap(fsrc.fn) is not fsrc.fn:
            raise fsrc.error(f"`{fsrc.name}` is wrapped by a decorator, and srcad would read "
                             "the source of the undecorated function", fsrc.node,
                             "differentiate the undecorated function and apply the decorator "
                             "outside", UnsupportedError)
        _check_params(fsrc, fsrc.node)
        nodes = ir.walk(fsrc.node)  # walked once for all the checks
        allowed = lowerable(fsrc.node, fsrc.fn) | {
            s.value for s in nodes
            if isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Lambda)}
        texts = _allowed_strings(nodes)
        messages = _messages(nodes)  # raise E(f"..."), assert c, "...": LowerRaises
        allowed |= messages
        texts |= messages
        for node in nodes:
            if node is fsrc.node or node in allowed:
                continue
            if isinstance(node, gast.FunctionDef):
                _check_nested(fsrc, node)
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
            if isinstance(node, gast.Constant) and isinstance(node.value, (str, bytes)) \
                    and node not in texts:
                raise fsrc.error("a string is not supported in a differentiated function",
                                 node, "srcad differentiates numbers and arrays; keep strings "
                                 "outside the differentiated function", UnsupportedError)


def _check_params(fsrc, fnode):
    args = fnode.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        raise fsrc.error("`*args`, `**kwargs` and keyword-only parameters are not supported",
                         fnode, "give every parameter a plain name", UnsupportedError)


def _check_nested(fsrc, node):
    """A nested `def` is a helper that HoistLocalFunctions lifts out: plain parameters,
    no decorators."""
    _check_params(fsrc, node)
    if node.decorator_list:
        raise fsrc.error("a decorated nested function is not supported", node,
                         "define it without decorators, or decorate a module-level function "
                         "and call that", UnsupportedError)


def _messages(nodes):
    """The nodes of the messages of `raise` and `assert` statements (among `nodes`)."""
    out = set()
    for n in nodes:
        parts = [n.msg] if isinstance(n, gast.Assert) and n.msg is not None else \
            n.exc.args if isinstance(n, gast.Raise) and isinstance(n.exc, gast.Call) else []
        out.update(m for part in parts for m in ir.walk(part))
    return out


def _allowed_strings(nodes):
    """Docstrings, annotations, and strings passed to a call (options such as `ord="fro"`),
    among `nodes`."""
    out = set()
    for n in nodes:
        if isinstance(n, gast.Expr) and _is_docstring(n):
            out.add(n.value)
        elif isinstance(n, gast.Call):
            out.update(n.args + [k.value for k in n.keywords])
        elif isinstance(n, (gast.FunctionDef, gast.Name)):
            for a in (n.returns,) if isinstance(n, gast.FunctionDef) else (n.annotation,):
                out.update(ir.walk(a) if a is not None else ())
    return out


def _is_docstring(node):
    return isinstance(node.value, gast.Constant) and isinstance(node.value.value, str)

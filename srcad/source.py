"""Getting a function's source as a gast tree, with its place in the user's file."""
import inspect
import textwrap

import gast

from srcad.errors import SrcadError


class FunctionSource:
    """A parsed user function: its gast `FunctionDef`, file, line offset and source lines."""

    def __init__(self, fn):
        self.fn = _python_function(fn)
        self.name = getattr(self.fn, "__name__", repr(fn))
        try:
            lines, first = inspect.getsourcelines(self.fn)
            self.filename = inspect.getsourcefile(self.fn) or inspect.getfile(self.fn)
        except (OSError, TypeError) as exc:
            raise SrcadError(
                f"cannot read the source of {self.name!r}",
                filename=getattr(getattr(self.fn, "__code__", None), "co_filename", None),
                hint="srcad differentiates Python functions defined in a file or notebook cell; "
                "builtins, C functions and code made by exec/eval have no source to read",
            ) from exc
        self.lines = lines
        self.offset = first - 1
        tree = gast.parse(textwrap.dedent("".join(lines)))
        node = tree.body[0]
        if not isinstance(node, gast.FunctionDef):
            raise SrcadError(
                f"{self.name!r} is not a `def` function", filename=self.filename, lineno=first,
                construct=lines[0].strip(), hint="define it with `def` at module level")
        node.decorator_list = []
        self.node = node

    def line(self, node):
        """The line number in the user's file of `node`."""
        return getattr(node, "lineno", 1) + self.offset

    def text(self, node):
        """The user's source line of `node`, stripped."""
        lineno = getattr(node, "lineno", None)
        if lineno is None or lineno - 1 >= len(self.lines):
            return ""
        return self.lines[lineno - 1].strip()

    def error(self, message, node, hint=None, cls=SrcadError):
        """A `SrcadError` (or `cls`) pointing at `node` in the user's file."""
        return cls(message, filename=self.filename, lineno=self.line(node),
                   construct=self.text(node), hint=hint)


def _python_function(fn):
    """The plain Python function behind `fn` (a Numba dispatcher gives its `py_func`)."""
    py_func = getattr(fn, "py_func", None)
    if py_func is not None:
        return py_func
    if inspect.isfunction(fn):
        return fn
    raise SrcadError(
        f"{fn!r} is not a Python function",
        hint="pass a function defined with `def`; builtins and C functions have no source")

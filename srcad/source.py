"""Getting a function's source as a gast tree, with its place in the user's file."""
import inspect
import re
import sys
import textwrap

import gast

from srcad.errors import SrcadError


class FunctionSource:
    """A parsed user function: its gast `FunctionDef`, file, line offset and source lines."""

    cell = None  # `Cell In[3]` when the function was defined in a notebook or IPython cell

    def __init__(self, fn):
        self.fn = _python_function(fn)
        self.name = getattr(self.fn, "__name__", repr(fn))
        try:
            lines, first = inspect.getsourcelines(self.fn)
            self.path = inspect.getsourcefile(self.fn) or inspect.getfile(self.fn)
            # a notebook or IPython cell shows as `Cell In[3]`, as in IPython's tracebacks
            self.cell = _cell_label(self.path)
            self.filename = self.cell or self.path
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

    def location(self, lineno):
        """`file.py:12`, or `Cell In[3], line 4` for a notebook or IPython cell."""
        return f"{self.cell}, line {lineno}" if self.cell else f"{self.filename}:{lineno}"

    def error(self, message, node, hint=None, cls=SrcadError):
        """A `SrcadError` (or `cls`) pointing at `node` in the user's file."""
        lineno = self.line(node)
        if not self.cell:
            return cls(message, filename=self.filename, lineno=lineno,
                       construct=self.text(node), hint=hint)
        exc = cls(message, filename=self.location(lineno), construct=self.text(node), hint=hint)
        exc.filename, exc.lineno = self.filename, lineno
        return exc


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


_IPYTHON_INPUT = re.compile(r"<ipython-input-(\d+)-[0-9a-f]+>")


def _cell_label(filename):
    """`Cell In[3]` when `filename` is the code name IPython gave a cell, else None.

    Inside IPython or Jupyter the running shell knows each cell's execution count (it prints
    the same label in its tracebacks); without a shell, the terminal's `<ipython-input-3-…>`
    names still carry it.
    """
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    try:
        label = shell.compile.format_code_name(filename) if shell is not None else None
    except Exception:  # an unusual shell: fall back to the name itself
        label = None
    if label:
        return " ".join(label)
    match = _IPYTHON_INPUT.fullmatch(filename or "")
    return f"Cell In[{match.group(1)}]" if match else None

"""Getting a function's source as a gast tree, with its place in the user's file."""
import inspect
import linecache
import re
import sys
import textwrap
import threading
import types
import weakref

import gast

from srcad.errors import SrcadError


class FunctionSource:
    """A parsed user function: its gast `FunctionDef`, file, line offset and source lines."""

    cell = None  # `Cell In[3]` when the function was defined in a notebook or IPython cell

    def __init__(self, fn):
        fn = self.fn = _python_function(fn)
        self.name = getattr(fn, "__name__", repr(fn))
        try:
            self.path = inspect.getsourcefile(self.fn) or inspect.getfile(self.fn)
            lines, first, checked = _source_lines(fn, self.path)
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
        if not checked and not hasattr(fn, "__srcad_local__"):  # a hoisted helper: its own tree
            self._check_is_the_code(node, first)
        _remember(fn, self.path, lines, first)
        node.decorator_list = []
        self.node = node

    @property
    def fn(self):
        """The function (held weakly: a cache of parsed functions does not keep them)."""
        return self._fn()

    @fn.setter
    def fn(self, fn):
        self._fn = weakref.ref(fn)

    def _check_is_the_code(self, node, first):
        """Refuse source text that is not the code of `fn`: its file was edited (or lines
        were inserted above it) after `fn` was defined, and the text read is now another
        version of it, or another function."""
        read = inspect.unwrap(self.fn)  # whose source inspect reads
        if node.name == read.__code__.co_name and _compiles_to(read, self.path, first):
            return
        raise SrcadError(
            f"the source of `{self.name}` in its file is not the code that runs: the file "
            "changed after the function was defined", filename=self.filename, lineno=first,
            construct=self.lines[0].strip(),
            hint="reload the module (importlib.reload) or run the cell that defines it "
            "again, then take the derivative again")

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


_READ = {}  # (code, file) -> (the file's lines as linecache held them, the function's, first)
_READ_KEPT = 64  # functions remembered, the most recently read
_READ_LOCK = threading.Lock()  # builds in several threads trim the same dict


def _source_lines(fn, path):
    """(lines, first line, whether that text was checked to be `fn`'s code): as
    `inspect.getsourcelines` reads them, or as an earlier reading found them while
    linecache holds the same text of the file (a build reads each function more than
    once; an edited file is a new text)."""
    read = inspect.unwrap(fn)
    linecache.checkcache(path)
    text = linecache.getlines(path, getattr(read, "__globals__", None))
    known = _READ.get((getattr(read, "__code__", None), path))
    if known is not None and text and known[0] is text:
        return known[1], known[2], True
    lines, first = inspect.getsourcelines(fn)
    return lines, first, False


def _remember(fn, path, lines, first):
    """Keep the checked reading of `fn` for `_source_lines`."""
    read = inspect.unwrap(fn)
    key = (getattr(read, "__code__", None), path)
    text = linecache.getlines(path, getattr(read, "__globals__", None))
    if key[0] is None or not text:
        return
    with _READ_LOCK:
        _READ.pop(key, None)
        _READ[key] = (text, lines, first)
        while len(_READ) > _READ_KEPT:
            del _READ[next(iter(_READ))]


def _compiles_to(fn, path, first):
    """Whether the text of `fn`'s file, as srcad reads it now, compiles to `fn`'s code at
    line `first`: the same bytecode, names and constants. The bytecode depends on the
    imports compiled with it, so both the whole file and the `def` alone (as IPython
    compiles a cell, statement by statement) are tried; when the file does not compile
    as a whole, all but the bytecode is compared. Inside a module whose asserts pytest
    rewrote, only the line is compared."""
    code = fn.__code__
    if code.co_firstlineno != first:
        return False
    if "@py_builtins" in fn.__globals__:
        return True
    lines = linecache.getlines(path, fn.__globals__)
    module = _compiled(path, lines)
    whole = [c for c in _code_objects(module)
             if (c.co_name, c.co_firstlineno) == (code.co_name, first)]
    text = textwrap.dedent("".join(inspect.getblock(lines[first - 1:])))
    if code.co_freevars:  # parameters of an enclosing function give the same cells
        text = f"def _srcad_outer({', '.join(code.co_freevars)}):\n" + \
            textwrap.indent(text, "    ")
    try:
        alone = compile("\n" * (first - 1 - bool(code.co_freevars)) + text,
                        code.co_filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        alone = None
    candidates = whole + list(_code_objects(alone))
    if any(_same_code(code, c) for c in candidates):
        return True
    # text that does not compile as a whole (a cell with magics): all but the bytecode
    return module is None and any(_same_code(code, c, bytecode=False) for c in candidates)


def _compiled(path, lines):
    """The code of the module text `lines`, or None when it does not compile; the last
    one per file is kept, as srcad often reads several functions of one file."""
    known = _COMPILED.get(path)
    if known is None or known[0] is not lines:
        try:
            code = compile("".join(lines), path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            code = None
        known = _COMPILED[path] = (lines, code)
    return known[1]


_COMPILED = {}  # file -> (its lines as linecache has them, their code)


def _code_objects(code):
    for const in code.co_consts if code is not None else ():
        if isinstance(const, types.CodeType):
            yield const
            yield from _code_objects(const)


def _same_code(a, b, bytecode=True):
    """Whether code objects `a` and `b` are the same code, placed at the same line."""
    same = (a.co_name, a.co_firstlineno, a.co_names, a.co_varnames, a.co_freevars,
            a.co_cellvars, len(a.co_consts)) == \
        (b.co_name, b.co_firstlineno, b.co_names, b.co_varnames, b.co_freevars,
         b.co_cellvars, len(b.co_consts))
    code = types.CodeType
    return same and (not bytecode or a.co_code == b.co_code) and all(
        _same_code(x, y, bytecode) if isinstance(x, code) and isinstance(y, code)
        else (type(x), repr(x)) == (type(y), repr(y)) for x, y in zip(a.co_consts, b.co_consts))


def _python_function(fn):
    """The plain Python function behind `fn` (a Numba dispatcher gives its `py_func`)."""
    if type(fn) is types.FunctionType:
        return fn
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


def wrt_positions(wrt, params, who):
    """`wrt` (positions or names, bare or a tuple) as a tuple of positions into `params`,
    or a SrcadError naming `who` (the call that took it) and the parameters."""
    positions = []
    for w in wrt if isinstance(wrt, (tuple, list)) else (wrt,):
        if isinstance(w, str) and w in params:
            positions.append(params.index(w))
        elif isinstance(w, int) and -len(params) <= w < len(params):
            positions.append(w % len(params))
        else:
            raise SrcadError(f"{who}: `wrt` names {w!r}, which is not a parameter "
                             f"({', '.join(params)})")
    return tuple(positions)

"""What a source transformation of a function reads, as one digest, to cache its output.

A transformation of `fn` reads its source text and where it stands, its defaults and
closure, and whatever the names in its source refer to: modules (and those of their
attributes that the source names), constants it may fold in, other Python functions it
may transform in turn, with all of theirs. `function_digest(fn)` hashes a description of
all of that, so an edit to any of it gives a new digest. What has no description that
stays the same from one process to the next (an array, an object) gives None: then the
transformation has to run.

>>> import math
>>> def f(x):
...     return math.sin(x) * SCALE
>>> SCALE = 2.0
>>> a = function_digest(f)
>>> SCALE = 3.0
>>> a != function_digest(f), function_digest(f) == function_digest(f)
(True, True)
>>> SCALE = [object()]
>>> function_digest(f) is None
True
"""
import builtins
import hashlib
import importlib.util
import inspect
import io
import os
import textwrap
import tokenize
import types

_SCALARS = (type(None), bool, int, float, complex, str, bytes)
_MAX_FUNCTIONS = 64  # beyond this many functions, transforming is as cheap as describing


class Uncacheable(Exception):
    """Something the transformation reads has no stable description."""


def function_digest(fn, refuse=None):
    """A hex digest of everything a transformation of `fn` can read, or None when some of
    it cannot be described. `refuse(obj)` true marks more objects as such."""
    try:
        text = _Describer(refuse).function(fn)
    except (Uncacheable, RecursionError):
        return None
    return hashlib.sha256(text.encode()).hexdigest()


def packages_digest(names):
    """A hex digest of the source files of the installed packages `names` (found without
    importing them), for a cache that must not outlive a change to the code making it.

    A file counts by its size and modification time, as for Python's own `.pyc` files.
    """
    digest = hashlib.sha256()
    for name in names:
        spec = importlib.util.find_spec(name)
        folders = list(spec.submodule_search_locations or []) if spec else []
        digest.update(f"package {name} {folders}\n".encode())
        for folder in folders:
            for root, dirs, files in os.walk(folder):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for file in sorted(f for f in files if f.endswith(".py")):
                    stat = os.stat(os.path.join(root, file))
                    digest.update(f"{os.path.relpath(root, folder)}/{file} {stat.st_size} "
                                  f"{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


class _Describer:
    def __init__(self, refuse):
        self.refuse = refuse or (lambda obj: False)
        self.functions = {}  # id -> number, for functions already described (or underway)
        self.keep = []  # the functions numbered, alive while their ids are in use

    def function(self, fn):
        fn = getattr(fn, "py_func", fn)
        if id(fn) in self.functions:
            return f"function #{self.functions[id(fn)]}"
        if len(self.functions) >= _MAX_FUNCTIONS:
            raise Uncacheable(fn)
        self.functions[id(fn)] = len(self.functions)
        self.keep.append(fn)
        try:
            lines, first = inspect.getsourcelines(fn)
            filename = inspect.getsourcefile(fn) or inspect.getfile(fn)
        except (OSError, TypeError):
            raise Uncacheable(fn) from None
        source = "".join(lines)
        names = _names(source)
        out = [f"function #{self.functions[id(fn)]} {fn.__module__}.{fn.__qualname__} "
               f"at {filename}:{first}", source,
               f"defaults {self.value(fn.__defaults__, names)}",
               f"keyword defaults {self.value(sorted((fn.__kwdefaults__ or {}).items()), names)}"]
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                out.append(f"closure {name} = {self.value(cell.cell_contents, names)}")
            except ValueError:  # an empty cell: a name assigned later
                out.append(f"closure {name} unbound")
        scope = fn.__globals__
        for name in sorted(names):
            if name in scope:
                out.append(f"global {name} = {self.value(scope[name], names)}")
            elif hasattr(builtins, name):
                out.append(f"builtin {name} = {self.value(getattr(builtins, name), names)}")
        return "\n".join(out)

    def value(self, obj, names, modules=()):
        """A description of `obj` as code whose source uses `names` sees it."""
        if self.refuse(obj):
            raise Uncacheable(obj)
        if isinstance(obj, _SCALARS):
            return f"{type(obj).__name__} {obj!r}"
        if type(obj) in (tuple, list):
            return f"{type(obj).__name__}(" + ", ".join(
                self.value(v, names, modules) for v in obj) + ")"
        if isinstance(obj, types.ModuleType):
            return self.module(obj, names, modules)
        if isinstance(getattr(obj, "py_func", obj), types.FunctionType):
            return self.function(obj)
        if type(obj).__module__ == "numpy" and hasattr(obj, "dtype") and not obj.shape:
            return f"{type(obj).__name__} {obj!r}"  # a NumPy scalar
        return _named(obj)

    def module(self, module, names, modules):
        """A module by its name, and whichever of its attributes `names` has."""
        if module in modules:  # a module that (indirectly) contains itself
            return f"module {module.__name__}"
        modules = modules + (module,)
        attrs = vars(module)  # not getattr: never triggers a lazy import
        described = [f"{name}: {self.value(attrs[name], names, modules)}"
                     for name in sorted(names) if name in attrs]
        return f"module {module.__name__} {{" + "; ".join(described) + "}"


def _named(obj):
    """A builtin, class, ufunc or other library callable: by what it is called."""
    module = getattr(obj, "__module__", None) or getattr(type(obj), "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if not isinstance(module, str) or not isinstance(name, str):
        raise Uncacheable(obj)
    return f"{type(obj).__qualname__} {module}.{name}"


def _names(source):
    """The identifiers in the function `source` from its `def` on (not its decorators,
    which a transformation drops, nor its strings or comments)."""
    try:
        tokens = tokenize.generate_tokens(io.StringIO(textwrap.dedent(source)).readline)
        names = [t.string for t in tokens if t.type == tokenize.NAME]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        raise Uncacheable(source) from None
    return set(names[names.index("def"):] if "def" in names else names)

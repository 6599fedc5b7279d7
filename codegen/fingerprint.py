"""What a source transformation of a function reads, as one digest, to cache its output.

A transformation of `fn` reads its source text and where it stands, its defaults and
closure, and whatever the names in its source refer to: modules, classes and functions
(and those of their attributes that the source names, such as `Cls.SCALE`, an enum
member's value or a function's attribute), constants it may fold in, other Python
functions it may transform in turn (static and class methods too), with all of theirs,
and whatever a caller registered for any of them (custom derivative rules).
`function_digest(fn)` hashes a description of all of that, so an edit to any of it gives
a new digest. What has no description that stays the same from one process to the next
(an array, an object) gives None: then the transformation has to run. `read(fn)` also
gives identity checks of all it read, to tell cheaply, within a process, whether any of
it changed (see `Reading`).

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
import enum
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
_MISSING = object()


class Uncacheable(Exception):
    """Something the transformation reads has no stable description."""


def function_digest(fn, refuse=None, registries=None):
    """A hex digest of everything a transformation of `fn` can read, or None when some of
    it cannot be described. `refuse(obj)` true marks more objects as such; for
    `registries`, see `Reading`."""
    return read(fn, refuse, registries).digest


def read(fn, refuse=None, registries=None, versions=()):
    """What a transformation of `fn` reads: its digest and how to tell it unchanged.

    `registries(obj)` gives (mapping, key) pairs where something may be registered for
    `obj` (a derivative rule, say): whatever is there is part of the description. They
    are not watched one by one: `versions`, (mapping, key) pairs whose value is a new
    object whenever any registry changes, are checked with the code (see `Reading`)."""
    describer = _Describer(refuse, registries)
    describer.watch.extend((True, _ITEM, mapping, key, mapping[key]) for mapping, key in versions)
    try:
        text = describer.function(fn)
    except RecursionError:
        describer.uncacheable = True
        text = ""
    digest = None if describer.uncacheable else hashlib.sha256(text.encode()).hexdigest()
    return Reading(digest, describer.watch)


class Reading:
    """What a transformation of one function read, as a `digest` (None when some of it has
    no stable description) and as identity checks that tell, in microseconds, whether
    anything read has changed since.

    The checks come in two tiers. `code_unchanged(fn)` looks at code: `fn`'s and every
    reachable helper's `__code__`, `__defaults__`, `__kwdefaults__` and closure cells, the
    global names bound to functions and classes, and the `versions` given to `read` (of
    the registries: rules registered for any of them). `unchanged(fn)` also looks at
    every other value read: global constants, module, class and function attributes. A value is the
    same when it is the same object: a constant rebound is a change, an array written in
    place is not. `fn` itself is not kept (checks take it as an argument), so a cache of
    Readings keyed weakly by functions lets them go.
    """

    def __init__(self, digest, watch):
        self.digest = digest
        unique = list({(how, id(obj), key): (code, how, obj, key, value)
                       for code, how, obj, key, value in watch}.values())
        self.code = _Checks([w for w in unique if w[0]])
        self.rest = _Checks([w for w in unique if not w[0]])

    def code_unchanged(self, fn):
        """Whether the code read (see the class) is the same objects as when read."""
        return self.code.same(fn)

    def unchanged(self, fn):
        """Whether everything read is the same objects as when read."""
        return self.code.same(fn) and self.rest.same(fn)


_ATTR, _ITEM, _CELL = range(3)


class _Checks:
    """Identity checks, by kind: attributes of the top function (given at each check),
    attributes of other objects, items of mappings, closure cells."""

    def __init__(self, watch):
        self.own = tuple((key, value) for _, how, obj, key, value in watch
                         if how == _ATTR and obj is None)
        self.attrs = tuple((obj, key, value) for _, how, obj, key, value in watch
                           if how == _ATTR and obj is not None)
        self.items = tuple((obj, key, value) for _, how, obj, key, value in watch
                           if how == _ITEM)
        self.cells = tuple((obj, value) for _, how, obj, key, value in watch if how == _CELL)

    def same(self, fn):
        for key, want in self.own:
            if getattr(fn, key) is not want:
                return False
        for obj, key, want in self.attrs:
            if getattr(obj, key) is not want:
                return False
        for mapping, key, want in self.items:
            if mapping.get(key, _MISSING) is not want:
                return False
        for cell, want in self.cells:
            try:
                if cell.cell_contents is not want:
                    return False
            except ValueError:  # an empty cell
                if want is not _MISSING:
                    return False
        return True


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
    """Describes a function and all it reads as text, and lists identity checks of what
    it read (`watch`: (code?, how, object or None for the top function, key, value)).
    Something without a stable description sets `uncacheable` and the walk goes on, so
    that the checks are whole."""

    def __init__(self, refuse, registries):
        self.refuse = refuse or (lambda obj: False)
        self.registries = registries or (lambda obj: ())
        self.functions = {}  # id -> number, for functions already described (or underway)
        self.keep = []  # the functions numbered, alive while their ids are in use
        self.watch = []
        self.uncacheable = False

    def function(self, fn):
        fn = getattr(fn, "py_func", fn)
        if id(fn) in self.functions:
            return f"function #{self.functions[id(fn)]}"
        if len(self.functions) >= _MAX_FUNCTIONS:
            return self.unknown(fn)
        number = self.functions[id(fn)] = len(self.functions)
        self.keep.append(fn)
        owner = None if number == 0 else fn
        for attr in ("__code__", "__defaults__", "__kwdefaults__"):
            self.watch.append((True, _ATTR, owner, attr, getattr(fn, attr)))
        try:
            lines, first = inspect.getsourcelines(fn)
            filename = inspect.getsourcefile(fn) or inspect.getfile(fn)
            source = "".join(lines)
            names = _names(source)
        except (OSError, TypeError, Uncacheable):
            lines, first, filename, source, names = [], 0, "?", "", set()
            self.unknown(fn)
        out = [f"function #{number} {fn.__module__}.{fn.__qualname__} at {filename}:{first}",
               source, f"defaults {self.value(fn.__defaults__, names)}",
               f"keyword defaults {self.value(sorted((fn.__kwdefaults__ or {}).items()), names)}"]
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                contents = cell.cell_contents
            except ValueError:  # an empty cell: a name assigned later
                self.watch.append((True, _CELL, cell, None, _MISSING))
                out.append(f"closure {name} unbound")
                continue
            self.watch.append((True, _CELL, cell, None, contents))
            out.append(f"closure {name} = {self.value(contents, names)}")
        out.extend(self.scope(fn.__globals__, names - {fn.__name__}))
        return "\n".join(out)

    def scope(self, scope, names):
        """The globals (and builtins) among `names`, described and watched."""
        out = []
        for name in sorted(names):
            value = scope.get(name, _MISSING)
            if value is not _MISSING or hasattr(builtins, name):  # a global may shadow it
                self.watch.append((_is_code(value), _ITEM, scope, name, value))
            if value is not _MISSING:
                out.append(f"global {name} = {self.value(value, names)}")
            elif hasattr(builtins, name):
                out.append(f"builtin {name} = {self.value(getattr(builtins, name), names)}")
        return out

    def value(self, obj, names, modules=()):
        """A description of `obj` as code whose source uses `names` sees it."""
        if self.refuse(obj):
            return self.unknown(obj)
        if isinstance(obj, _SCALARS):
            return f"{type(obj).__name__} {obj!r}"
        if type(obj) in (tuple, list):
            return f"{type(obj).__name__}(" + ", ".join(
                self.value(v, names, modules) for v in obj) + ")"
        rules = self.rules(obj, names)
        if isinstance(obj, types.ModuleType):
            return self.module(obj, names, modules)
        if isinstance(obj, (staticmethod, classmethod)):
            return f"{type(obj).__name__} {self.value(obj.__func__, names, modules)}"
        if isinstance(getattr(obj, "py_func", obj), types.FunctionType):
            fn = getattr(obj, "py_func", obj)
            return self.function(obj) + rules + self.attributes(fn.__dict__, names, modules)
        if isinstance(obj, enum.Enum):
            return f"{_named(type(obj))}.{obj.name} = {self.value(obj.value, names, modules)}"
        if type(obj).__module__ == "numpy" and getattr(obj, "shape", None) == ():
            return f"{type(obj).__name__} {obj!r}"  # a NumPy scalar
        if isinstance(obj, type):
            return self.cls(obj, names, modules) + rules
        try:
            return _named(obj) + rules
        except Uncacheable:
            return self.unknown(obj)

    def rules(self, obj, names):
        """The entries that `registries(obj)` has for `obj` (rules registered for it),
        described (`versions` watch them: see `read`)."""
        out = []
        for mapping, key in self.registries(obj):
            entry = mapping.get(key, _MISSING)
            if entry is not _MISSING:
                out.append(f" registered {self.value(entry, names)}")
        return "".join(out)

    def cls(self, cls, names, modules):
        """A class by its name, and whichever of its attributes `names` has, found along
        its method resolution order as attribute access does."""
        described = []
        for name in sorted(names):
            for klass in cls.__mro__:
                attrs = vars(klass)
                if name in attrs:
                    self.watch.append((_is_code(attrs[name]), _ITEM, attrs, name, attrs[name]))
                    described.append(f"{name}: {self.attribute(attrs[name], names, modules)}")
                    break
        return f"class {_named(cls)} {{" + "; ".join(described) + "}"

    def attribute(self, obj, names, modules):
        """A class attribute: a descriptor (a property, a slot) by its type, a value as
        any other."""
        if hasattr(type(obj), "__get__") and not isinstance(
                obj, (types.FunctionType, staticmethod, classmethod)):
            return f"descriptor {type(obj).__module__}.{type(obj).__qualname__}"
        return self.value(obj, names, modules)

    def attributes(self, attrs, names, modules):
        """Whichever of `attrs` (a function's or module's `__dict__`) `names` has."""
        described = []
        for name in sorted(names):
            if name in attrs:
                self.watch.append((_is_code(attrs[name]), _ITEM, attrs, name, attrs[name]))
                described.append(f"{name}: {self.value(attrs[name], names, modules)}")
        return " {" + "; ".join(described) + "}" if described else ""

    def module(self, module, names, modules):
        """A module by its name, and whichever of its attributes `names` has."""
        if module in modules:  # a module that (indirectly) contains itself
            return f"module {module.__name__}"
        # vars, not getattr: never triggers a lazy import
        return f"module {module.__name__}" + (
            self.attributes(vars(module), names, modules + (module,)) or " {}")

    def unknown(self, obj):
        """Something without a stable description: nothing that reads it is cached."""
        self.uncacheable = True
        return "?"


def _is_code(value):
    """Whether a global bound to `value` counts as code (checked on every call)."""
    value = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
    return isinstance(getattr(value, "py_func", value), (types.FunctionType, type))


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

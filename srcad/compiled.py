"""One generated module for one tuple of argument kinds, and how it runs: compiled by
Numba, or as plain Python when Numba cannot compile it."""
import warnings

from codegen.jit import compile_module, typing_errors
from codegen.module import cached_source, load_module, module_name
from srcad.errors import SrcadError, SrcadWarning


class GeneratedSource(str):
    """The generated module's source. `print` shows it as it is; Jupyter shows it highlighted,
    each `# grad of:` comment marked with the place of the user's line it comes from."""

    functions = {}  # generated function name -> the user's FunctionSource (srcad.display)

    @classmethod
    def of(cls, compiled):
        """The source of a `Compiled`, knowing which user function each sweep comes from."""
        from srcad.display import user_functions
        text = cls(compiled.source)
        text.functions = user_functions(compiled.program)
        return text

    def _repr_html_(self):
        from srcad.display import to_html
        return to_html(self, self.functions)

    def _repr_pretty_(self, printer, cycle):  # the IPython terminal: plain text, not a repr
        printer.text(str(self))


class Compiled:
    """One generated module for one tuple of argument kinds, run compiled or plain.

    Made from a transformed `program` whose specialization `top` is the user's function,
    or by `from_record` from the module file that an earlier process wrote, without
    transforming anything until `program` (or a detail of `top`) is asked for. The plain
    Python module is loaded when first needed: with `jit`, only after a fall-back.
    """

    def __init__(self, program, top, jit, on_jit_error):
        self._program, self.top = program, top
        self._load(program.source(top), program.function_names(), program.externals,
                   jit, on_jit_error)

    @classmethod
    def from_record(cls, record, transform, jit, on_jit_error):
        """The module that `record` (see `record`) names, loaded from the cache directory
        without transforming; `transform()` gives (program, top) once they are needed.
        None when the record or the module file is not whole."""
        try:
            source = cached_source(record["module"])
            top, functions = record["top"], record["functions"]
            whole = source is not None and isinstance(top["name"], str) and all(
                f"\ndef {f}(" in source for f in functions) and all(
                top[k] in functions for k in ("fwd_name", "rev_name", "jvp_name") if k in top)
        except (TypeError, KeyError):  # no record, or not one that srcad wrote
            return None
        if not whole:
            return None
        self = cls.__new__(cls)
        self._program, self._transform = None, transform
        self.top = _CachedTop(top, self)
        self._load(source, functions, {}, jit, on_jit_error)
        return self

    def record(self):
        """What `from_record` needs to load this module in a later process (JSON), or None
        when it cannot: the module has no file, or calls objects bound in at run time."""
        if self.externals or not getattr(self.module, "__file__", None):
            return None
        names = {attr: getattr(self.top, attr) for attr in ("name", "fwd_name", "rev_name",
                                                            "jvp_name", "mode")
                 if isinstance(getattr(self.top, attr, None), str)}
        return {"module": module_name(self.source, self.top.name), "top": names,
                "functions": self.program.function_names()}

    def _load(self, source, functions, externals, jit, on_jit_error):
        self.source = GeneratedSource(source)
        self.externals = externals  # name in the module -> (object, object for compiled code)
        self.jit, self.on_jit_error = jit, on_jit_error
        self.forward_sweeps = 0  # how many times the forward sweep ran (for tests)
        self._plain = None
        if jit:
            module = load_module(source, self.top.name, variant="_jit", warning=SrcadWarning)
            for name, (fn, jitted) in externals.items():
                setattr(module, name, jitted)
            self.module = compile_module(module, functions, warning=SrcadWarning)
        else:
            self.module = self.plain

    @property
    def plain(self):
        """The generated module run as plain Python/NumPy."""
        if self._plain is None:
            plain = load_module(self.source, self.top.name, variant="_py",
                                warning=SrcadWarning)
            plain.List = list
            for name, (fn, _) in self.externals.items():
                setattr(plain, name, fn)
            self._plain = plain
        return self._plain

    def transformed(self):
        """(program, top) that generated the module, transforming now if it was cached."""
        if self._program is None:
            self._program, self.top = self._transform()
        return self._program, self.top

    @property
    def program(self):
        return self.transformed()[0]

    @property
    def fell_back(self):
        """Whether a compiled module now runs as plain Python."""
        return self.jit and self._plain is not None and self.module is self._plain

    def run(self, args, d_out=1.0):
        """One forward sweep and one reverse sweep: (value, gradients)."""
        out, tape = self.forward(args)
        return out, self.reverse(args, tape, d_out)

    def forward(self, args):
        """(value, tape)."""
        self.forward_sweeps += 1
        module = self.module
        try:
            return getattr(module, self.top.fwd_name)(*args)
        except typing_errors() as exc:
            self.fall_back(module, exc)
            return self.forward(args)

    def reverse(self, args, tape, d_out):
        """The gradients for cotangent `d_out`, from a tape of `forward(args)`."""
        module = self.module
        try:
            return getattr(module, self.top.rev_name)(*args, tape, d_out)
        except typing_errors() as exc:
            self.fall_back(module, exc)
            _, tape = self.forward(args)  # a tape the plain reverse sweep reads natively
            return self.reverse(args, tape, d_out)

    def jvp(self, args, tangents):
        """(value, output tangent) of a forward-mode module."""
        module = self.module
        try:
            return getattr(module, self.top.jvp_name)(*args, *tangents)
        except typing_errors() as exc:
            self.fall_back(module, exc)
            return self.jvp(args, tangents)

    def fall_back(self, module, exc):
        if module is self.plain:
            raise exc
        if self.on_jit_error == "raise":
            raise SrcadError(f"Numba could not compile the gradient of "
                             f"`{self.top.name}`: {_first_line(exc)}",
                             hint="run with jit=False, or use functions Numba supports"
                             ) from exc
        warnings.warn(f"Numba could not compile the gradient of `{self.top.name}`; "
                      f"running it as plain Python/NumPy instead. Numba said: "
                      f"{_first_line(exc)}", SrcadWarning, stacklevel=5)
        self.module = self.plain


class _CachedTop:
    """The names of a cached module's top specialization (`name`, `fwd_name`, ...); any
    other detail of it (its analysis context, say) transforms the function, once."""

    def __init__(self, names, compiled):
        self.__dict__.update(names)
        self._compiled = compiled

    def __getattr__(self, attr):  # not one of the names
        if attr.startswith("_"):
            raise AttributeError(attr)
        return getattr(self._compiled.transformed()[1], attr)


def _first_line(exc):
    text = str(exc).strip().splitlines()
    return " ".join(text[:3])[:400] if text else type(exc).__name__


__all__ = ["Compiled", "GeneratedSource"]

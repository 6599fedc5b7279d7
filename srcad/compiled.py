"""One generated module for one tuple of argument kinds, and how it runs: compiled by
Numba, or as plain Python when Numba cannot compile it."""
import re
import time
import warnings
from contextlib import nullcontext

import numpy as np

from codegen.jit import LOOPS_FLAG, compile_failure, compile_module
from codegen.module import cached_source, load_module, module_name
from srcad import progress, tiers
from srcad import runtime as rt
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
    With `jit="auto"`, a module without loops runs plain until `srcad.tiers` decides;
    `remember(tier)` (if set) keeps the decision for a later process.
    """

    remember = None

    def __init__(self, program, top, jit, on_jit_error):
        self._program, self.top, self._transform = program, top, None
        self.at_once = tiers.at_once(program)
        self._load(program.source(top), program.function_names(), program.externals,
                   jit, on_jit_error)
        self._lines = dict(program.user_lines)

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
        self.at_once = record.get("at_once")
        if jit == tiers.AUTO and record.get("tier") in (True, False):
            jit = record["tier"]  # decided by an earlier process
        self._load(source, functions, {}, jit, on_jit_error)
        return self

    def record(self):
        """What `from_record` needs to load this module in a later process (JSON), or None
        when it cannot: the module has no file, or calls objects bound in at run time."""
        if self.externals or not getattr(self.module, "__file__", None):
            return None
        record = {"module": module_name(self.source, self.top.name), "top": self._top_names(),
                  "functions": self.program.function_names()}
        if self.at_once is not None:
            record["at_once"] = self.at_once
        return record

    def _top_names(self):
        return {attr: getattr(self.top, attr) for attr in ("name", "fwd_name", "rev_name",
                                                           "jvp_name", "mode")
                if isinstance(getattr(self.top, attr, None), str)}

    def release(self, transform=None):
        """Drop the program, which holds the user's functions, and keep only the names of
        the top specialization, as `from_record` does; `transform()` (by default, the one
        given before) gives the program back when it is needed (a line map, `srcad.source`)."""
        self._transform = transform or self._transform
        if self._transform is None:
            return  # nothing would give it back
        self.top = _CachedTop(self._top_names(), self)
        self._program, self._lines = None, None

    def _load(self, source, functions, externals, jit, on_jit_error):
        self.source = GeneratedSource(source)
        self.externals = externals  # name in the module -> (object, object for compiled code)
        self.forward_sweeps = 0  # how many times the forward sweep ran (for tests)
        self.warm = set()  # the sweeps that have run once (Numba compiles on a first run)
        self._plain = None
        self._functions = functions
        self._lines = None  # line of the module -> (FunctionSource, line of the user's file)
        self.tiers = None  # jit="auto" on a module without loops, until it is decided
        self._jitted = None  # its compiled module, once the trial began
        if jit == tiers.AUTO:
            jit = self.at_once if self.at_once is not None else tiers.has_loops(source)
            self.tiers = None if jit else tiers.Tiers()
        self.jit, self.on_jit_error = jit, on_jit_error
        missing = rt.missing_extension(str(source)) if jit else None
        if missing:
            self.module = None
            self.fall_back(None, SrcadError(missing))
        else:
            self.module = self.compiled_module() if jit else self.plain

    def compiled_module(self):
        """The generated module with its functions compiled by Numba (lazily: each on its
        first call)."""
        module = load_module(self.source, self.top.name, variant="_jit", warning=SrcadWarning)
        for name, (fn, jitted) in self.externals.items():
            setattr(module, name, jitted)
        return compile_module(module, self._functions, warning=SrcadWarning)

    @property
    def plain(self):
        """The generated module run as plain Python/NumPy."""
        if self._plain is None:
            plain = load_module(self.source, self.top.name, variant="_py",
                                warning=SrcadWarning)
            plain.List = list
            setattr(plain, LOOPS_FLAG, False)  # element loops call their kernels once
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
        name = self.top.fwd_name
        if self.tiers is not None:  # the tape says which module made it
            return self._tiered(lambda module: _tagged(getattr(module, name)(*args), module),
                                lambda: self.forward(args), sweep=name)
        return self._call(lambda module: getattr(module, name)(*args),
                          lambda: self.forward(args), sweep=name)

    def reverse(self, args, tape, d_out):
        """The gradients for cotangent `d_out`, from a tape of `forward(args)`."""
        fwd, rev = self.top.fwd_name, self.top.rev_name
        if type(tape) is _Tape:
            if tape.module is not self.module:  # made before `jit="auto"` chose a module
                try:
                    return getattr(tape.module, rev)(*args, tape.tape, d_out)
                except Exception:  # noqa: BLE001  (run again, and reported, as now)
                    return self.reverse(args, self.forward(args)[1], d_out)
            tape = tape.tape
        again = (  # a tape the plain reverse sweep reads natively
            lambda: self.reverse(args, self.forward(args)[1], d_out),
            lambda plain: getattr(plain, rev)(*args, getattr(plain, fwd)(*args)[1], d_out))
        if self.tiers is not None:
            return self._tiered(lambda module: getattr(module, rev)(*args, tape, d_out),
                                *again, sweep=rev, gradient=True)
        return self._call(lambda module: getattr(module, rev)(*args, tape, d_out), *again,
                          sweep=rev)

    def jvp(self, args, tangents):
        """(value, output tangent) of a forward-mode module."""
        name = self.top.jvp_name
        run = (lambda module: getattr(module, name)(*args, *tangents),
               lambda: self.jvp(args, tangents))
        if self.tiers is not None:
            return self._tiered(*run, sweep=name, gradient=True)
        return self._call(*run, sweep=name)

    def _call(self, run, again, rerun=None, sweep=None):
        """`run(module)` for the module that runs now. When Numba cannot compile it, falls
        back to plain Python and returns `again()`; any other exception is raised at the
        user's line (`rerun(plain)` runs the same sweep from the start; default `run`).
        The first compiled run of a `sweep` is where Numba compiles it: one that takes
        long says so (see `srcad.progress`)."""
        module = self.module
        try:
            if sweep in self.warm:
                return run(module)
            if module is self._plain:
                out = run(module)
            else:
                with progress.compiling(f"`{sweep}`"):
                    out = run(module)
            self.warm.add(sweep)
            return out
        except Exception as exc:  # noqa: BLE001  (re-raised as it is, at the user's line)
            if compile_failure(exc) and module is not self.plain:
                self.fall_back(module, exc)
                return again()
            self.raise_at_user_line(exc, rerun or run)

    def _tiered(self, run, again, rerun=None, sweep=None, gradient=False):
        """`_call` under `jit="auto"` before the choice is made: each run is timed for
        `srcad.tiers`, which says when to compile, when to run the other module, and
        which to keep. Numba failing to compile keeps the plain module, without a warning
        (it was not asked for)."""
        choice, module = self.tiers, self.module
        plain = module is self.plain
        first = not plain and choice.first_compiled_run(sweep)
        start = time.perf_counter()
        try:
            with progress.compiling(f"`{sweep}`") if first else nullcontext():
                out = run(module)
        except Exception as exc:  # noqa: BLE001  (re-raised as it is, at the user's line)
            if compile_failure(exc) and not plain:
                self._settle(False)
                return again()
            self.raise_at_user_line(exc, rerun or run)
        decision = choice.ran(sweep, time.perf_counter() - start, gradient, plain)
        if decision == "compile":
            self._jitted = self.module = self.compiled_module()
        elif decision == "switch":
            self.module = self._jitted if plain else self.plain
        elif decision is not None:
            self._settle(decision)
        return out

    def _settle(self, compiled):
        """Keep the compiled module (True) or the plain one from now on, and remember it."""
        if self.tiers is None:
            return
        self.tiers, self.jit = None, compiled
        self.module = self._jitted if compiled else self.plain
        if self.remember is not None:
            self.remember(compiled)

    def raise_at_user_line(self, exc, rerun):
        """Raise `exc`, which a sweep raised, as an exception of its type whose message
        names the user's line that failed, from `exc`.

        A traceback through compiled code does not tell that line, so `rerun(module)`
        runs the same sweep in the plain Python module, where the traceback does (a jit
        failure that plain Python does not reproduce keeps its message, with a note)."""
        if isinstance(exc, SrcadError) or hasattr(exc, "srcad_line"):
            raise exc
        found = exc if self.module is self.plain else _raised_by(rerun, self.plain)
        place = self._place(found) if found is not None else None
        if place is None:
            if found is not exc:
                _add_note(exc, f"raised by the compiled code of `{self.top.name}`, where srcad "
                          "cannot tell the line; the same sweep run as plain Python " +
                          ("does not fail" if found is None else f"raises {found!r}"))
            raise exc
        message = place.message(type(found).__name__, str(found).strip())
        if not (isinstance(found, type(exc)) or isinstance(exc, type(found))):
            _add_note(exc, "the same sweep run as plain Python raises instead:\n" + message)
            raise exc
        message = place.message(type(exc).__name__, str(found).strip())
        placed = _same_type(exc, message)
        if placed is None:
            _add_note(exc, message)
            raise exc
        placed.srcad_line = (place.fsrc.filename, place.lineno)
        raise placed from exc

    def _place(self, exc):
        """Where the innermost frame of `exc`'s traceback in the plain module is, in the
        user's code: a `_Place`, or None when no frame ran generated code."""
        frame = None
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_globals is self.plain.__dict__:
                frame = (tb.tb_frame.f_code.co_name, tb.tb_lineno)
            tb = tb.tb_next
        if frame is None:
            return None
        function, line = frame
        lines = self.source.splitlines()
        for n in range(line, 0, -1):  # the statement, or the nearest one above it mapped
            if n in self.line_map():
                fsrc, lineno = self.line_map()[n]
                return _Place(fsrc, lineno, function, line, self._reverse_sweep(function))
            if lines[n - 1].startswith("def "):
                break
        return self._place_by_comment(function, line, lines)

    def _place_by_comment(self, function, line, lines):
        """Without a line map: the line of the nearest `# grad of:` comment above `line`
        found in the user's function, else the function's `def` line."""
        fsrc = self._user_functions().get(function)
        if fsrc is None:
            return None
        lineno = fsrc.offset + 1
        for n in range(line, 0, -1):
            match = _GRAD_OF.match(lines[n - 1])
            if lines[n - 1].startswith("def ") or match:
                numbers = [i for i, text in enumerate(fsrc.lines)
                           if match and text.strip() == match.group(1).strip()]
                lineno += numbers[0] if len(numbers) == 1 else 0
                break
        return _Place(fsrc, lineno, function, line, self._reverse_sweep(function))

    def line_map(self):
        """Line of the generated module -> (the user's `FunctionSource`, line in its file).
        Empty when the transformation no longer gives this module's source."""
        if self._lines is None:
            program, top = self.transformed()
            self._lines = dict(program.user_lines) if program.source(top) == self.source \
                else {}
        return self._lines

    def _user_functions(self):
        from srcad.display import user_functions
        return user_functions(self.program)

    def _reverse_sweep(self, function):
        return any(getattr(spec, "rev_name", None) == function for spec in self.program.order)

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


class _Tape:
    """A tape of a module under `jit="auto"` before the choice, with the module that made
    it, which alone can read it."""

    __slots__ = ("tape", "module")

    def __init__(self, tape, module):
        self.tape, self.module = tape, module


def _tagged(result, module):
    value, tape = result
    return value, _Tape(tape, module)


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


_GRAD_OF = re.compile(r"\s*# grad of: (.*)$")


class _Place:
    """A line of the user's code where a sweep failed, and the generated line that did."""

    def __init__(self, fsrc, lineno, function, line, reverse):
        self.fsrc, self.lineno, self.function, self.line = fsrc, lineno, function, line
        self.reverse = reverse

    def message(self, kind, text):
        """`model.py:12: IndexError: <text>`, then the user's line and the generated one."""
        lines = self.fsrc.lines
        code = lines[self.lineno - self.fsrc.offset - 1].strip() \
            if 0 <= self.lineno - self.fsrc.offset - 1 < len(lines) else ""
        during = " (computing the derivative of this line)" if self.reverse else ""
        return (f"{self.fsrc.location(self.lineno)}: {kind}: {text}{during}\n    {code}\n"
                f"  in the generated `{self.function}`, line {self.line} (see srcad.source)")


def _raised_by(run, module):
    """The exception that `run(module)` raises, or None."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            run(module)
    except Exception as exc:  # noqa: BLE001  (any failure is the one being looked for)
        return exc
    return None


def _same_type(exc, message):
    """A new exception of `exc`'s type with `message`, or None if the type cannot be made
    from a message alone."""
    try:
        placed = type(exc)(message)
    except Exception:  # noqa: BLE001  (an exception type with a constructor of its own)
        return None
    return placed if str(placed) == message else None


def _add_note(exc, note):
    if hasattr(exc, "add_note"):  # Python 3.11
        exc.add_note(note)


def _first_line(exc):
    text = str(exc).strip().splitlines()
    return " ".join(text[:3])[:400] if text else type(exc).__name__


__all__ = ["Compiled", "GeneratedSource"]

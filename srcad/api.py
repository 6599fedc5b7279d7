"""The user's API: grad, value_and_grad, vjp, jvp, jacobian, source.

What a gradient object sees of its function
-------------------------------------------
A derivative is made once per function and options in a process (see
`srcad.derivative`) and checked, by identity, before it is reused. A gradient object
(`srcad.grad(f)`) checks on every call, in about a microsecond, that the code it was made
from is still the code: `f.__code__`, `f.__defaults__` and `__kwdefaults__`, its closure
cells, and the same for every helper it calls (static and class methods too), the global
names and class attributes bound to those helpers and classes, whether a custom rule
(`srcad.defvjp`, `srcad.defjvp`) was registered since, and the values the transformation
folded into the generated code as constants (module-level constants, module attributes,
class and enum attributes that are not functions, function attributes). When one of them
is another object than before (a function or cell redefined, a default or a constant
reassigned, a rule registered), the next call transforms again, or loads the module made
before for those values. An object is compared by identity, not by value: an array
changed in place, or a mutable object's attribute set, is not seen (srcad refuses global
arrays; pass them as arguments).
"""
import sys
import weakref

import numpy as np

from codegen.module import KEY_LINE, key_of
from srcad import derivative as derivatives
from srcad.compiled import GeneratedSource
from srcad.errors import SrcadError
from srcad.kinds import Kind, ListArgument, of_value
from srcad.source import _python_function


class GradFunction:
    """The gradient of `fn` with respect to `wrt`; call it like `fn`.

    A thin handle on the `Derivative` of `fn` for these options, which every gradient
    object of `fn` shares (see `srcad.derivative`); making one costs microseconds once
    `fn` has been seen."""

    def __init__(self, fn, wrt, jit, with_value, on_jit_error="warn", scalar_output=True,
                 out=None, tape_limit=None):
        self.fn = _python_function(fn)
        self.out = out
        self.tape_limit = _tape_limit(tape_limit)
        self.wrt, self.with_value, self.scalar_output = wrt, with_value, scalar_output
        self.bare = not isinstance(wrt, (tuple, list))
        self.jit, self.on_jit_error = jit, on_jit_error
        self.derivative = derivatives.derivative(self.fn, wrt, jit, on_jit_error,
                                                 scalar_output, out, self.tape_limit)
        self.last = None
        self.__name__ = self.fn.__name__
        self.__qualname__ = self.fn.__qualname__
        self.__module__ = self.fn.__module__
        self.__wrapped__ = self.fn
        self.__doc__ = self.derivative.docs[with_value]

    def current(self):
        """The derivative to run: the same as before while the code it was made from, and
        every value it read, is unchanged (see the module's docstring), else a new one."""
        d = self.derivative
        if not d.reading.unchanged(self.fn):
            d = self.derivative = derivatives.derivative(
                self.fn, self.wrt, self.jit, self.on_jit_error, self.scalar_output, self.out,
                self.tape_limit)
        return d

    fsrc = property(lambda self: self.derivative.fsrc)
    signature = property(lambda self: self.derivative.signature)
    params = property(lambda self: self.derivative.params)
    positions = property(lambda self: self.derivative.positions)
    compiled = property(lambda self: self.derivative.compiled)

    def _error(self, message, hint=None):
        return self.derivative.error(message, hint)

    def _bind(self, args, kwargs):
        """All arguments, in order, as srcad computes with them (defaults filled in), or a
        `SrcadError` that names the argument that does not fit."""
        signature = self.current().signature  # its defaults as they are now
        params = signature.parameters
        if not kwargs and len(args) == len(params):
            return tuple(_canonical(v) for v in args)
        name = self.fsrc.name
        hint = f"call it as `{name}{signature}`"
        for key in kwargs:
            if key not in params:
                raise self._error(f"`{name}` has no parameter `{key}`", hint)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise self._error(f"bad arguments for `{name}`: {exc}", hint) from None
        bound.apply_defaults()
        return tuple(_canonical(v) for v in bound.arguments.values())

    def kinds(self, args):
        """The kinds of `args`, or a `SrcadError` naming an argument srcad does not take
        (or one in `wrt` that is not a float)."""
        kinds = []
        for name, value in zip(self.params, args):
            kind = of_value(value)
            if kind is None:
                raise self._error(*_refusal(name, value))
            kinds.append(kind)
        for i in self.positions:
            k = kinds[i]
            if not (isinstance(k, Kind) and k.is_float):
                raise self._error(
                    f"argument `{self.params[i]}` in `wrt` is {_a(str(k))}; only float values have "
                    "gradients", f"pass a float (e.g. float({self.params[i]}) or "
                    f"{self.params[i]}.astype(float)), or leave it out of `wrt`")
        j = self.derivative.out
        if j is not None and not (isinstance(kinds[j], Kind) and kinds[j].ndim and
                                  kinds[j].is_float):
            raise self._error(f"argument `{self.params[j]}`, named by `out=`, is "
                              f"{_a(str(kinds[j]))}, which cannot be written in place",
                              "name the float array the function writes its result into")
        return tuple(kinds)

    def prepare(self, args, mode="rev", fresh=False):
        """(arguments, runner) for positional `args`: they are as given when they pass the
        fast check of the module that ran last, else bound and made canonical. The runner
        is that module's `Fast` runner (see `srcad.derivative.Fast`). `fresh`: this object
        was made just now, so its derivative was checked already."""
        d = self.derivative if fresh else self.current()
        fast = d.fast.get(mode)
        if fast is None or not fast.accepts(args):
            args = self._bind(args, {})
            fast = self.runner(args, mode)
        self.last = fast.compiled
        return args, fast

    def runner(self, args, mode="rev"):
        """The fast runner (see `prepare`) of the module for `args`, bound and canonical."""
        d = self.current()
        fast = d.fast.get(mode)
        if fast is not None and fast.accepts(args):
            self.last = fast.compiled
            return fast
        compiled = self.build_kinds(self.kinds(args), mode)
        return derivatives.fast_for(d, args, compiled, mode)

    def build(self, args, mode="rev"):
        """The compiled module for `args` (bound and canonical)."""
        return self.runner(args, mode).compiled

    def build_kinds(self, kinds, mode="rev"):
        """The compiled module for arguments of these kinds (reverse or forward mode): the
        one this process made already, the one an earlier process generated for this same
        function (found in the cache directory), or else a new transformation."""
        self.last = self.current().build(self.fn, kinds, mode)
        return self.last

    def package_many(self, arrays):
        return arrays[0] if self.bare else tuple(arrays)

    def package(self, grads, args):
        """The reverse sweep's gradients, each like its argument; bare or a tuple."""
        result = []
        for i, g in zip(self.positions, grads):
            a = args[i]
            if isinstance(a, ListArgument):
                result.append(a.like(g))
                continue
            if not (type(g) is float and type(a) is float or type(g) is np.ndarray and
                    type(a) is np.ndarray and g.dtype is _FLOAT64 and g.shape == a.shape):
                g = _like(g, a)
            result.append(g)
        return result[0] if self.bare else tuple(result)

    def tangent(self, args, tangents):
        """(value, output tangent) by forward mode, one tangent per `wrt` argument."""
        return self.runner(args, mode="fwd").jvp(args, tangents)

    def forward(self, fast, args):
        """(runner, (value, tape)): `fast`'s forward sweep, or, when its tape would not fit
        in memory and no `tape_limit` was given, the forward sweep of the function with
        its loops checkpointed within a quarter of the memory available (said once per
        function, in a `SrcadWarning`)."""
        try:
            return fast, fast.forward(args)
        except MemoryError as exc:
            from srcad.runtime import tapes
            if tapes.TAPE_OVER not in str(exc) or self.tape_limit is not None:
                raise
            limit = max(1, min(tapes.available_bytes() // 4, tapes.TAPE_CEILING // 2))
        if self.fn not in _CHECKPOINTED:
            _CHECKPOINTED.add(self.fn)
            import warnings

            from srcad.errors import SrcadWarning
            warnings.warn(f"{self.fsrc.filename}:{self.fsrc.line(self.fsrc.node)}: the tape of "
                          f"`{self.fsrc.name}` would not fit in memory: its loops are "
                          f"checkpointed (tape_limit={limit} bytes) from now on; pass "
                          "tape_limit= or set SRCAD_TAPE_LIMIT to choose the limit",
                          SrcadWarning, stacklevel=3)
        self.tape_limit = limit
        self.derivative = derivatives.derivative(self.fn, self.wrt, self.jit,
                                                 self.on_jit_error, self.scalar_output,
                                                 self.out, limit)
        fast = self.runner(args)
        return fast, fast.forward(args)

    def __repr__(self):
        what = "value_and_grad" if self.with_value else "grad" if self.scalar_output \
            else "derivative"
        wrt = ", ".join(self.params[i] for i in self.positions)
        modes = sorted({mode for _, mode in self.compiled}) or ["rev"]
        plain = sum(c.fell_back for c in self.compiled.values())
        jit = ("jit" + (f" ({plain} fell back to plain Python)" if plain else "")
               if self.jit is True else "jit=False" if not self.jit else _auto(self.compiled))
        n = len(self.compiled)
        return (f"<srcad.{what} of {self.fsrc.name}({', '.join(self.params)}) wrt {wrt}: "
                f"{'/'.join(modes)} mode, {jit}, {n} compiled specialization"
                f"{'' if n == 1 else 's'}>")

    def __reduce__(self):
        """Pickled by reference to the function and the options, never as compiled code:
        unpickled in another process, it finds or makes the derivative there (from the
        cache directory when that process shares it)."""
        if _global(self.fn) is self:  # `@srcad.grad` on a module-level def
            return self.fn.__qualname__
        return GradFunction, (self.fn, self.wrt, self.jit, self.with_value,
                              self.on_jit_error, self.scalar_output, self.out, self.tape_limit)

    def __call__(self, *args, **kwargs):
        d = self.derivative
        fast = d.fast.get("rev")
        if fast is None or kwargs or not fast.accepts(args) or \
                not d.reading.unchanged(self.fn):
            args = self._bind(args, kwargs)
            fast = self.runner(args)
        self.last = fast.compiled
        fast, (out, tape) = self.forward(fast, args)
        grad = self.package(fast.reverse(args, tape, 1.0), args)
        if self.with_value:
            return (out if type(out) is float else _plain(out)), grad
        return grad


_FLOAT64 = np.dtype(np.float64)
_CHECKPOINTED = weakref.WeakSet()  # functions whose tape did not fit: said once


def _global(fn):
    """What the name of `fn` refers to in its module now, or None."""
    obj = sys.modules.get(getattr(fn, "__module__", None) or "")
    for part in getattr(fn, "__qualname__", "<locals>").split("."):
        obj = getattr(obj, part, None)
    return obj


def _canonical(value):
    """An argument as srcad computes with it: float arrays as float64 (float32 and float16
    are widened) and complex arrays as complex128, 0-d arrays and NumPy float and complex
    scalars as Python scalars."""
    if type(value) is tuple:
        return tuple(map(_canonical, value))
    if type(value) is list:
        listed = ListArgument.of(value)
        return value if listed is None else listed
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufc":
        if value.ndim == 0:
            return value.item()
        if value.dtype.kind == "f" and value.dtype != np.float64:
            return value.astype(np.float64)
        if value.dtype.kind == "c" and value.dtype != np.complex128:
            return value.astype(np.complex128)
    elif isinstance(value, np.floating):
        return float(value)
    elif isinstance(value, np.complexfloating):
        return complex(value)
    return value


def _refusal(name, value):
    """(message, hint) for argument `name`, a `value` that srcad does not take."""
    if isinstance(value, tuple):
        k = next(k for k, v in enumerate(value) if of_value(v) is None)
        return _refusal(f"{name}[{k}]", value[k])
    hint = "pass floats, ints, bools, NumPy arrays of them, or tuples of those"
    if isinstance(value, np.ndarray):
        what = "an object array" if value.dtype == object else f"an array of {value.dtype}"
        hint = f"pass a float array, e.g. np.asarray({name}, dtype=float)"
    elif value is None:
        what = "None"
    elif isinstance(value, list):
        what, hint = ("a list that is not a rectangular list of numbers",
                      "pass a list of numbers, of equal-length lists of them, or a NumPy array")
    else:
        what = _a(type(value).__name__)
    return f"argument `{name}` is {what}, which srcad does not take", hint


def _a(noun):
    """`noun` with its indefinite article."""
    return ("an " if noun[:1].lower() in "aeiou" or noun[:1].isdigit() and noun[:1] == "8"
            else "a ") + noun


def _plain(value):
    if type(value) is float:
        return value
    if np.ndim(value) == 0 and np.iscomplexobj(value):
        return complex(value)
    return float(value) if np.ndim(value) == 0 and not isinstance(value, (int, bool)) else value


def refuse_complex(g, args, what, out=None):
    """A SrcadError for a Jacobian or Hessian (`what`) of a function of complex `wrt`
    arguments, or with a complex output `out`: only gradients and vector products
    (grad, vjp, jvp) take complex values."""
    names = [g.params[i] for i in g.positions if np.iscomplexobj(args[i])]
    if names or np.iscomplexobj(out):
        which = f"argument `{names[0]}` is" if names else "output is"
        raise g._error(f"the {what} of a function whose {which} complex is not supported",
                       "srcad.grad, srcad.vjp and srcad.jvp take complex values (JAX's "
                       "convention); for this, pass the real and imaginary parts as float "
                       "arguments, or return them as floats")


_UNITS = {"": 1, "B": 1, "KB": 2 ** 10, "MB": 2 ** 20, "GB": 2 ** 30, "K": 2 ** 10,
          "M": 2 ** 20, "G": 2 ** 30}


def _tape_limit(limit):
    """`tape_limit` in bytes (an int; a string such as "16MB" or "1.5G"), or the
    environment's `SRCAD_TAPE_LIMIT`, or None."""
    import os
    import re

    source = "tape_limit"
    if limit is None:
        limit, source = os.environ.get("SRCAD_TAPE_LIMIT") or None, "SRCAD_TAPE_LIMIT"
        if limit is None:
            return None
    if isinstance(limit, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([KMG]?B?)\s*", limit.upper())
        if m is None:
            raise SrcadError(f"{source}={limit!r} is not a size",
                             hint='give bytes as an int, or a string such as "16MB" or "1GB"')
        limit = float(m.group(1)) * _UNITS[m.group(2)]
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit >= 1:
        raise SrcadError(f"{source}={limit!r} is not a positive number of bytes",
                         hint='give bytes as an int, or a string such as "16MB"')
    return int(limit)


def _like(g, arg):
    """A gradient as the argument it belongs to: a float64 array or float, complex for a
    complex argument."""
    if isinstance(arg, np.ndarray):
        dtype = np.complex128 if arg.dtype.kind == "c" else np.float64
        return np.asarray(g, dtype=dtype).reshape(arg.shape)
    return complex(g) if isinstance(arg, complex) else float(g)


def _auto(compiled):
    """How `jit="auto"` runs each specialization so far, e.g. "jit='auto': 1 compiled, 1
    plain Python, 1 deciding"."""
    ways = [c.jit if c.tiers is None else "deciding" for c in compiled.values()]
    counts = [(ways.count(w), name) for w, name in ((True, "compiled"), (False, "plain Python"),
                                                   ("deciding", "deciding"))]
    said = ", ".join(f"{n} {name}" for n, name in counts if n)
    return "jit='auto'" + (f" ({said})" if said else "")


def _decorator(with_value):
    def make(f=None, wrt=0, *, jit="auto", on_jit_error="warn", tape_limit=None):
        if on_jit_error not in ("warn", "raise"):
            raise SrcadError("on_jit_error must be 'warn' or 'raise'")
        if f is None:
            return lambda fn: GradFunction(fn, wrt, jit, with_value, on_jit_error,
                                           tape_limit=tape_limit)
        return GradFunction(f, wrt, jit, with_value, on_jit_error, tape_limit=tape_limit)

    return make


grad = _decorator(with_value=False)
grad.__name__ = "grad"
grad.__doc__ = """The gradient of `f`'s scalar output with respect to `wrt`.

`wrt` is a position or parameter name (a bare gradient) or a tuple of them (a tuple of
gradients, in that order). Each gradient has its argument's type: a float for a float, a
float64 array of the same shape for an array. `jit=True` compiles the generated forward
and reverse sweeps with Numba; `jit=False` runs them as plain Python/NumPy; `jit="auto"`
(the default) compiles sweeps with loops at once, and runs loop-free ones (vectorized
NumPy) as plain Python until they have taken a second, then keeps whichever of the two
runs faster (see `srcad.tiers`). Works as
`@srcad.grad` (first argument) and `@srcad.grad(wrt=...)`.

`tape_limit` (bytes, or a string such as "16MB"; default: the environment variable
`SRCAD_TAPE_LIMIT`, else none) bounds what a loop keeps for the reverse sweep: each
`for ... in range(...)` loop at the top level of the function and of the helpers it calls
keeps snapshots of the values it carries, at most `tape_limit` bytes of them, and the
reverse sweep runs its iterations forward again from them (binomial checkpointing). The
gradient is the same, bit for bit; the time grows with the number of runs again.
"""

value_and_grad = _decorator(with_value=True)
value_and_grad.__name__ = "value_and_grad"
value_and_grad.__doc__ = """Like `grad`, but returns `(value, gradient)` from one forward sweep."""


def vjp(f, *primals, wrt=0, out=None, jit="auto", on_jit_error="warn", tape_limit=None):
    """`(out, pullback)`: `f(*primals)` and a function from a cotangent (shaped like
    `out`: a float, an array, or a tuple of them) to the cotangents of the `wrt`
    arguments (bare for a position or name, a tuple for a tuple).

    The forward sweep runs once, here; every call of `pullback` runs only the reverse
    sweep over the saved tape.

    `out` (a position or name) differentiates a function that writes its result into
    that argument and returns nothing (or returns it): `out` is then the argument's final
    contents, and the gradients are those of the `wrt` arguments' initial contents. The
    caller's arrays are left as they were. `tape_limit` is `grad`'s.
    """
    g = GradFunction(f, wrt, jit, with_value=False, on_jit_error=on_jit_error,
                     scalar_output=False, out=out, tape_limit=tape_limit)
    args, runner = g.prepare(primals, fresh=True)
    runner, (out, tape) = g.forward(runner, args)
    out = _copy_out(out)
    return _plain(out) if not isinstance(out, tuple) else tuple(map(_plain, out)), \
        Pullback(g, runner, _held(args), tape, out)


def _held(value):
    """The arguments a pullback keeps for its reverse sweeps: copies of their arrays, which
    the caller may write into after `vjp` returns (a list argument's array is srcad's
    own)."""
    kind = type(value)
    if kind is float or kind is int or kind is ListArgument:
        return value
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple
        return type(value)(*map(_held, value))
    if isinstance(value, (tuple, list)):
        return type(value)(map(_held, value))
    return value


def precompile(f, *example_args, wrt=0, modes=("rev",), out=None):
    """Transform and compile `f`'s sweeps now, for arguments like `example_args` (their
    kinds: types and ranks, not their values), running each once, so that they are in
    the cache directory (`SRCAD_CACHE_DIR`) for the first call of this and every later
    process: call it in a Docker build or a warm-up script. `modes`: "rev" (grad, vjp)
    and/or "fwd" (jvp, hvp). Returns the seconds it took."""
    from time import perf_counter

    start = perf_counter()
    scalar = False  # vjp's and jacobian's modules; grad's too when the output is a float
    while True:
        g = GradFunction(f, wrt, True, with_value=False, on_jit_error="warn",
                         scalar_output=scalar, out=out)
        for mode in modes:
            args, runner = g.prepare(example_args, mode=mode, fresh=True)
            if mode == "rev":
                value, tape = runner.forward(args)
                runner.reverse(args, tape, _ones_like(value))
            else:
                value = runner.jvp(args, tuple(_ones_like(args[i]) for i in g.positions))[0]
        if scalar or type(value) is not float or out is not None:
            return perf_counter() - start
        scalar = True


def _ones_like(value):
    if isinstance(value, tuple):
        return tuple(map(_ones_like, value))
    return np.ones(np.shape(value)) if np.ndim(value) else 1.0


class Pullback:
    """The pullback that `srcad.vjp` returns: called with a cotangent of the output, it
    gives the cotangents of the differentiated inputs, running only the reverse sweep over
    the tape that `vjp`'s forward sweep saved."""

    __slots__ = ("_g", "_runner", "_args", "_tape", "_out")

    def __init__(self, g, runner, args, tape, out):
        self._g, self._runner, self._args, self._tape, self._out = g, runner, args, tape, out

    def __call__(self, cotangent):
        cot = _cotangent_like(cotangent, self._out, self._g)
        return self._g.package(self._runner.reverse(self._args, self._tape, cot), self._args)

    @property
    def compiled(self):
        """The compiled module whose sweeps run (see `srcad.source`)."""
        return self._runner.compiled

    def __repr__(self):
        return f"<pullback of {self._g.fsrc.name}>"

    def __reduce__(self):
        raise SrcadError(f"a pullback of `{self._g.fsrc.name}` holds the tape of one forward "
                         "sweep and is not pickled",
                         hint="send the function and its arguments and call srcad.vjp in the "
                         "worker, or send a srcad.grad object")


def jvp(f, primals, tangents, wrt=None, out=None, jit="auto", on_jit_error="warn"):
    """`(out, out_tangent)`: `f(*primals)` and its directional derivative, by forward mode
    (a source transformation of its own, compiled like the reverse sweeps).

    `primals` is the tuple of all arguments; `tangents` has one entry per differentiated
    argument: every float argument when `wrt` is None, else those in `wrt`, in order.
    `out` names the argument the function writes its result into, as in `vjp`.
    """
    primals = tuple(primals)
    if wrt is None:
        wrt = tuple(i for i, v in enumerate(primals)
                    if getattr(of_value(v), "is_float", False))
        if not wrt:
            raise SrcadError("jvp: no float argument to differentiate",
                             hint="pass float values, or name them with wrt=")
    g = GradFunction(f, wrt if isinstance(wrt, (tuple, list)) else (wrt,), jit,
                     with_value=False, on_jit_error=on_jit_error, scalar_output=False,
                     out=out)
    args, runner = g.prepare(primals, mode="fwd", fresh=True)
    tangents = tuple(tangents) if isinstance(tangents, (tuple, list)) else (tangents,)
    if len(tangents) != len(g.positions):
        raise g._error(f"jvp got {len(tangents)} tangents for {len(g.positions)} "
                       f"differentiated arguments ({', '.join(g.params[i] for i in g.positions)})")
    tangents = tuple(_cotangent_like(t, args[i], g, "tangent", f"`{g.params[i]}`")
                     for t, i in zip(tangents, g.positions))
    out, tan = runner.jvp(args, tangents)
    if isinstance(out, tuple):
        return tuple(map(_plain, out)), tuple(_like_out(t, o) for t, o in zip(tan, out))
    return _plain(out), _like_out(tan, out)


def _like_out(t, out):
    if np.iscomplexobj(out):
        return complex(t) if np.ndim(out) == 0 else \
            np.asarray(t, dtype=np.complex128).reshape(np.shape(out))
    if type(out) is float:
        return float(t)
    if np.ndim(out) == 0:
        return float(t)
    return np.asarray(t, dtype=np.float64).reshape(np.shape(out))


def _copy_out(out):
    if isinstance(out, tuple):
        return tuple(_copy_out(o) for o in out)
    if isinstance(out, np.ndarray):
        return np.array(out, dtype=np.complex128 if out.dtype.kind == "c" else np.float64)
    return out


def _cotangent_like(cot, out, g, what="cotangent", of="the output"):
    """`cot` as float64 values shaped like `out`, or a SrcadError that names both shapes
    (`what`: "cotangent" of the output, or "tangent" of an argument, named by `of`)."""
    if type(out) is float and type(cot) in (float, int):
        return float(cot)
    if type(out) is type(cot) is np.ndarray and cot.dtype is _FLOAT64 and \
            cot.shape == out.shape and cot.flags.c_contiguous:
        return cot
    if isinstance(out, tuple):
        if not isinstance(cot, (tuple, list)) or len(cot) != len(out):
            raise g._error(f"{of} is a tuple of {len(out)}; pass a tuple of as many "
                           f"{what}s")
        return tuple(_cotangent_like(c, o, g, what, of) for c, o in zip(cot, out))
    complex_out = np.iscomplexobj(out)
    if np.ndim(out) == 0:
        if np.ndim(cot) != 0:
            raise g._error(f"{of} is a scalar; the {what} has shape {np.shape(cot)}")
        return complex(cot) if complex_out else float(cot)
    cot = np.asarray(cot, dtype=np.complex128 if complex_out else np.float64)
    if cot.shape != np.shape(out):
        raise g._error(f"the {what} has shape {cot.shape}; {of} has shape {np.shape(out)}")
    return np.ascontiguousarray(cot)


def source(g, *args, **kwargs):
    """The generated module that runs `g` (made by grad/value_and_grad, or the pullback
    that vjp returned).

    With arguments, the module for those argument types; without, the one that ran last.
    """
    if isinstance(g, Pullback) and not (args or kwargs):
        g, g.last = g._g, g.compiled
    if not isinstance(g, GradFunction):
        raise SrcadError(f"srcad.source takes a function made by srcad.grad or the pullback "
                         f"of srcad.vjp, not {g!r}")
    assumed = None
    if args or kwargs:
        compiled = g.build(g._bind(args, kwargs))
    elif g.last is None:  # not run yet: argument kinds as the command line guesses them
        from srcad.guess import guess_kinds

        assumed = [k if i not in g.positions or getattr(k, "is_float", False) else
                   Kind("f", getattr(k, "ndim", 0)) for i, k in enumerate(guess_kinds(g.fn))]
        compiled = g.build_kinds(tuple(assumed))
    else:
        compiled = g.last
    shown = GeneratedSource.of(compiled)
    compiled.release()  # the program it needed no longer kept
    body = shown[:len(shown) - len(shown.rpartition(KEY_LINE)[2]) - len(KEY_LINE)] \
        if key_of(shown) else shown
    if assumed is not None:
        kinds = ", ".join(f"{p}: {k}" for p, k in zip(g.params, assumed))
        body = (f"# `{g.fsrc.name}` has not run yet: shown for {kinds} (assumed; "
                "srcad.source(g, *args) shows the module for those arguments)\n" + body)
    text = GeneratedSource(body)
    text.functions = shown.functions
    return text

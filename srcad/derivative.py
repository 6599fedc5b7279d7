"""One program per function: the derivatives srcad has made, kept for the whole process.

`derivative(fn, wrt, ...)` returns the `Derivative` of `fn` for those options (the parsed
function, its compiled modules by argument kinds and mode), the same object every time
until something the transformation read changes. Every entry point (`grad`, `vjp`,
`jvp`, `jacobian`, `hvp`, `hessian`) goes through it, so taking a derivative of a function
seen before costs microseconds, and `srcad.vjp(f, x)` in a loop costs what a reused
gradient object costs.

The cache holds functions weakly (a function redefined in a notebook cell, or made in a
loop, is collected with its derivatives), and a `Derivative` does not keep its function:
its compiled modules keep only names, and transform again (from the function, as long as
it lives) when a detail of the transformation is asked for, as after a warm start.
"""
import hashlib
import inspect
import os
import sys
import threading
import weakref

import numpy as np

from codegen.emit import collection_paused
from codegen.fingerprint import packages_digest, read
from codegen.module import load_record, save_record, with_key
from srcad import custom, progress, tiers
from srcad.compiled import Compiled, _Tape
from srcad.errors import SrcadWarning
from srcad.kinds import Kind
from srcad.source import FunctionSource

_CACHE = weakref.WeakKeyDictionary()  # function -> {options: Derivative}
_LOCK = threading.RLock()  # one transformation at a time, and one per function and kinds


def derivative(fn, wrt, jit, on_jit_error, scalar_output, out=None, tape_limit=None):
    """The `Derivative` of the Python function `fn` for these options: the cached one
    when nothing it read has changed (see `codegen.fingerprint.Reading`), else a new one
    (which replaces it)."""
    wrt = tuple(wrt) if isinstance(wrt, (tuple, list)) else (wrt,)
    jit = tiers.check(jit)
    options = (_hashable(wrt), jit, on_jit_error if jit else None, scalar_output,
               _hashable(out), tape_limit)
    found = _find(fn, options)
    if found is not None:
        return found
    with _LOCK:
        found = _find(fn, options)
        if found is None:
            found = Derivative(fn, wrt, jit, on_jit_error, scalar_output, out, tape_limit)
            if options[0] is not None:
                _CACHE.setdefault(fn, {})[options] = found
        return found


def _find(fn, options):
    found = _CACHE.get(fn, {}).get(options)
    return found if found is not None and found.reading.unchanged(fn) else None


def _hashable(wrt):
    """`wrt` (a tuple), or None when it is not hashable (it is then refused with a
    message, when the positions are read)."""
    try:
        hash(wrt)
    except TypeError:
        return None
    return wrt


def clear():
    """Forget every derivative made so far in this process (as a new process would)."""
    with _LOCK:
        _CACHE.clear()


class Derivative:
    """The derivative of one function for one set of options (`wrt` as a tuple, `jit`,
    `on_jit_error`, whether the output must be scalar, the argument it writes its result
    into, if any): its parsed source, signature, `wrt` positions and `out` position, what
    the transformation reads (`reading`), and one compiled module per argument kinds and
    mode, shared by every gradient object of this function."""

    def __init__(self, fn, wrt, jit, on_jit_error, scalar_output, out=None, tape_limit=None):
        self.fsrc = FunctionSource(fn)
        self._tree = self.fsrc  # its tree, not yet handed to a transformation (`_transform`)
        self.name = self.fsrc.name
        self.signature = inspect.signature(fn)
        self.params = list(self.signature.parameters)
        self.positions = self._positions(wrt)
        self.out = None if out is None else self._positions((out,), "out")[0]
        self.jit, self.on_jit_error, self.scalar_output = jit, on_jit_error, scalar_output
        self.tape_limit = tape_limit  # bytes of snapshots a loop may keep (CheckpointLoops)
        self.reading = read(fn, registries=custom.registries,
                            versions=[(custom.VERSION, "rules")])
        self.compiled = {}  # (kinds, mode) -> Compiled
        self.fast = {}  # mode -> the `Fast` check of the kinds that ran last
        wrt_text = ", ".join(self.params[i] for i in self.positions)
        self.docs = {with_value: f"The {kind} of `{self.name}` with respect to {wrt_text}."
                     f"\n\n{fn.__doc__ or ''}"
                     for with_value, kind in ((False, "gradient"), (True, "value and gradient"))}

    def _positions(self, wrt, option="wrt"):
        items = list(wrt)
        if not items:
            raise self.error(f"`{option}` is empty", "name at least one parameter")
        params, out = self.params, []
        for w in items:
            if isinstance(w, bool) or not isinstance(w, (int, str)):
                raise self.error(f"`{option}` entry {w!r} is neither a position nor a "
                                 "parameter name", f"parameters: {', '.join(params)}")
            if isinstance(w, str):
                if w not in params:
                    raise self.error(f"`{option}={w!r}` is not a parameter of `{self.name}`",
                                     f"parameters: {', '.join(params)}")
                w = params.index(w)
            elif not -len(params) <= w < len(params):
                raise self.error(f"`{option}={w}` is out of range: `{self.name}` has "
                                 f"{len(params)} parameters", f"parameters: {', '.join(params)}")
            out.append(w % len(params))
        return tuple(out)

    def error(self, message, hint=None):
        """A `SrcadError` pointing at the function's `def` line."""
        return self.fsrc.error(message, self.fsrc.node, hint)

    def build(self, fn, kinds, mode="rev"):
        """The compiled module of `fn` (this derivative's function) for arguments of these
        kinds (reverse or forward mode): made once per process, under a lock. It is the
        one an earlier process generated for this same function, found in the cache
        directory, or else a new transformation."""
        key = (tuple(kinds), mode)
        compiled = self.compiled.get(key)
        if compiled is None:
            with _LOCK:
                compiled = self.compiled.get(key)
                if compiled is None:
                    compiled = self.compiled[key] = self._build(fn, *key)
        return compiled

    def _build(self, fn, kinds, mode):
        digest = self.module_key(kinds, mode)
        record_key = digest and f"{self.name}_{digest[:24]}"
        weak = weakref.ref(fn)

        def transform():  # for details of a module loaded by name (only while fn lives)
            program, top = self.transform(weak(), kinds, mode)
            return _Keyed(program, digest), top

        compiled = record = None
        if record_key and not os.environ.get("SRCAD_SHOW"):  # showing passes: transform
            record = load_record(record_key, digest, warning=SrcadWarning)
            if record is not None:
                compiled = Compiled.from_record(record, transform, self.jit, self.on_jit_error)
        if compiled is None:
            with collection_paused():  # the program's trees are garbage when `_made` returns
                compiled, record = self._made(fn, kinds, mode, digest, transform)
            if record_key and record:
                save_record(record_key, digest, record)
        if record_key and record and compiled.tiers is not None:  # jit="auto": its choice
            compiled.remember = lambda tier: save_record(record_key, digest,
                                                         dict(record, tier=tier))
        return compiled

    def _made(self, fn, kinds, mode, digest, transform):
        """(compiled, record) of a new transformation, its program released (`transform`
        gives it back)."""
        with progress.transforming(f"`{self.name}` ({mode} mode)"):
            program, top = self.transform(fn, kinds, mode)
        compiled = Compiled(_Keyed(program, digest), top, self.jit, self.on_jit_error)
        record = compiled.record()
        compiled.release(transform)
        program.dismantle()
        return compiled, record

    def transform(self, fn, kinds, mode):
        """(program, top): the source transformation, for arguments of these kinds."""
        from srcad.program import Program, UpdatedInPlace  # the compiler: loaded on use

        in_place = {}  # grows on each UpdatedInPlace; a function's parameters are finite
        with collection_paused():  # trees hold no cycles: full collections only cost time
            while True:
                try:
                    return self._transform(fn, kinds, mode, Program(in_place))
                except UpdatedInPlace:
                    continue

    def _transform(self, fn, kinds, mode, program):
        if mode == "rev":
            program.tape_limit = self.tape_limit
        if self.out is not None:
            program.outputs[getattr(fn, "py_func", fn)] = self.params[self.out]
        fsrc, self._tree = self._tree, None  # the passes rewrite a tree: it serves one program
        if fsrc is not None and fsrc.fn is getattr(fn, "py_func", fn):
            program.parsed[fsrc.fn] = fsrc  # a long function is not parsed twice
        top = program.specialize(fn, kinds, wrt=self.positions, mode=mode)
        if self.scalar_output:
            _check_output(top)
        return program, top

    def module_key(self, kinds, mode):
        """A hash of everything the module for these kinds and mode depends on: srcad's
        own code (its runtime and rules) and the libraries it uses, everything the
        transformation reads (see `codegen.fingerprint`), the kinds, mode and options.
        None when some of that has no stable description: then the module is neither
        recorded nor written to the cache directory."""
        if self.reading.digest is None:
            return None
        what = repr((_toolchain(), self.reading.digest, tuple(kinds), mode, self.positions,
                     self.scalar_output, self.out, self.tape_limit if mode == "rev" else None))
        return hashlib.sha256(what.encode()).hexdigest()


class _Keyed:
    """A transformed program whose module source ends with its key (`with_key`), so
    that the module's file name, and Numba's cache of it, change with the key."""

    def __init__(self, program, key):
        self._program, self._key = program, key

    def source(self, top):
        return with_key(self._program.source(top), self._key)

    def __getattr__(self, name):
        return getattr(self._program, name)


def _check_output(top):
    rk = top.return_kind
    ret = top.ctx.fnode.body[-1]
    if isinstance(rk, Kind) and rk.ndim == 0 and rk.is_complex:
        raise top.ctx.fsrc.error(
            f"`grad` needs a real output, but `{top.name}` returns a complex number", ret,
            "return a real number made of it (`abs(z) ** 2`, `z.real`), or use srcad.vjp "
            "with a complex cotangent")
    if not (isinstance(rk, Kind) and rk.ndim == 0 and rk.dtype != "b"):
        raise top.ctx.fsrc.error(
            f"`grad` needs a scalar output, but `{top.name}` returns a {rk}", ret,
            "for arrays or tuples use srcad.vjp (one cotangent per output) or "
            "srcad.jacobian (the full Jacobian)")


_TOOLCHAIN = []


def _toolchain():
    """What decides the generated code besides the user's: srcad's source (its runtime
    and rules included), and that of the libraries it parses and prints with; NumPy's
    and Python's versions."""
    if not _TOOLCHAIN:
        _TOOLCHAIN.append((packages_digest(["srcad", "codegen", "gast", "beniget", "astor"]),
                           np.__version__, sys.version))
    return _TOOLCHAIN[0]


class Fast:
    """A precomputed check that arguments have the kinds of one compiled module, without
    deriving their kinds: exact types, and for arrays the exact dtype and rank. Arguments
    it does not accept (tuples, other dtypes, NumPy scalars) take the full path.

    It runs the module's sweeps like `Compiled` does (`forward`, `reverse`, `run`,
    `jvp`), calling them directly; when one raises, the same call through `Compiled`
    runs it again, which falls back to plain Python or reports the error at the user's
    line."""

    def __init__(self, args, compiled):
        self.compiled = compiled
        self.types = tuple(map(type, args))
        self.arrays = tuple((i, a.dtype, a.ndim) for i, a in enumerate(args)
                            if type(a) is np.ndarray)
        self.usable = all(t in (float, int, bool, np.ndarray) for t in self.types)
        names = vars(compiled.top)  # not getattr: a name it lacks would transform
        self.fwd, self.rev, self.tangent = (names.get(f"{n}_name") for n in ("fwd", "rev", "jvp"))

    def accepts(self, args):
        if tuple(map(type, args)) != self.types:
            return False
        for i, dtype, ndim in self.arrays:
            a = args[i]
            if a.dtype is not dtype or a.ndim != ndim:
                return False
        return True

    def forward(self, args):
        """(value, tape)."""
        if self.fwd not in self.compiled.warm:  # its first run compiles: through Compiled
            return self.compiled.forward(args)
        try:
            result = getattr(self.compiled.module, self.fwd)(*args)
        except Exception:  # noqa: BLE001  (reported by the same call through Compiled)
            return self.compiled.forward(args)
        self.compiled.forward_sweeps += 1
        return result

    def reverse(self, args, tape, d_out):
        """The gradients for cotangent `d_out`, from a tape of `forward(args)`."""
        if self.rev not in self.compiled.warm or type(tape) is _Tape:
            return self.compiled.reverse(args, tape, d_out)
        try:
            return getattr(self.compiled.module, self.rev)(*args, tape, d_out)
        except Exception:  # noqa: BLE001
            return self.compiled.reverse(args, tape, d_out)

    def run(self, args):
        """(value, gradients) for the cotangent 1.0."""
        out, tape = self.forward(args)
        return out, self.reverse(args, tape, 1.0)

    def jvp(self, args, tangents):
        """(value, output tangent) of a forward-mode module."""
        if self.tangent not in self.compiled.warm:
            return self.compiled.jvp(args, tangents)
        try:
            return getattr(self.compiled.module, self.tangent)(*args, *tangents)
        except Exception:  # noqa: BLE001
            return self.compiled.jvp(args, tangents)


def fast_for(d, args, compiled, mode):
    """The `Fast` runner of `compiled` for arguments like `args`, remembered as the one
    to try first when their types can be checked fast."""
    fast = Fast(args, compiled)
    if fast.usable:
        d.fast[mode] = fast
    return fast

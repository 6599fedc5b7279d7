"""A srcad function as one JAX operation: `srcad.jax.function(f)`.

JAX sees the function as a `jax.custom_vjp` whose forward and backward are host calls
(`jax.pure_callback`) into srcad's compiled sweeps, so it works under `jax.jit`,
`jax.grad`, `jax.vjp`, `jax.jacrev` and `jax.vmap` (one call per batch element), and a
loop that JAX would unroll or rewrite as `lax.scan` stays a compiled loop.
`srcad.jax.function(f, mode="forward")` is the same operation for forward mode instead.

    >>> import jax, jax.numpy as jnp, numpy as np, srcad.jax
    >>> jax.config.update("jax_enable_x64", True)
    >>> def energy(x, k):
    ...     e = 0.0
    ...     for i in range(x.shape[0] - 1):
    ...         e += k * (x[i + 1] - x[i]) ** 2
    ...     return e
    >>> layer = srcad.jax.function(energy, jit=False)
    >>> jax.jit(jax.grad(layer))(jnp.array([0.0, 1.0, 3.0]), 0.5)
    Array([-1., -1.,  2.], dtype=float64)

**float64.** srcad computes in float64 and this bridge does not narrow its results to fit
JAX's default float32: it refuses float32 arrays, saying to call
`jax.config.update("jax_enable_x64", True)` at the start of the program (or to pass
float64 arrays when that is on already). It does not switch the flag itself on import,
since that would change the dtypes of all of the program's other JAX code.

**Arguments.** Arrays (JAX or NumPy) and traced values are the operation's inputs: the
float ones get gradients (`wrt` narrows that), integer ones none. A Python float passed
as such gets no gradient (`jax.grad` traces the arguments it differentiates, so those do
get one). Python ints and bools are constants of the operation, as `static_argnums` would
make them, so they may set shapes and trip counts (under `jax.jit` without
`static_argnums` they are traced, hence integer inputs).

**The tape.** The forward rule's host call runs srcad's forward sweep and keeps its
pullback in this process, under a number that is the rule's residual; the backward rule's
host call runs only the reverse sweep over that tape. A backward whose tape is gone (more
than `KEPT` forward sweeps have run since without a backward, or its output was
recomputed by JAX elsewhere) runs the forward sweep again: the gradient is the same.

**Forward mode.** `mode="forward"` makes the operation a `jax.custom_jvp` instead, whose
rule is one host call of srcad's forward-mode sweep (`srcad.jvp`): `jax.jvp`,
`jax.jacfwd` (one sweep per input direction) and `jax.linearize` work, under `jax.jit`
and `jax.vmap` too. JAX does not let one operation serve both modes: it refuses `jax.jvp`
of a `custom_vjp`, and takes reverse mode of a `custom_jvp` by transposing its rule's
tangent computation, which a host call cannot be ("Pure callbacks do not support
transpose"). A rule that multiplied the tangents by a Jacobian made on the host would
transpose, but would cost a whole Jacobian per product. So the caller chooses by the
derivatives the program takes: the default `mode="reverse"` for `jax.grad`, `vjp` and
`jacrev`; `mode="forward"` for `jvp`, `jacfwd`, and Jacobians with fewer inputs than
outputs. Both are first-order: JAX cannot differentiate a host call again, so
`jax.hessian` through either fails (`srcad.hessian` and `srcad.hvp` give second
derivatives outside JAX).

    >>> def springs(x, k):
    ...     f = np.zeros_like(x)
    ...     for i in range(x.shape[0] - 1):
    ...         f[i] += k * (x[i + 1] - x[i])
    ...         f[i + 1] -= k * (x[i + 1] - x[i])
    ...     return f
    >>> forces = srcad.jax.function(springs, mode="forward", jit=False)
    >>> jax.jit(jax.jacfwd(forces))(jnp.array([0.0, 1.0, 3.0]), 0.5)
    Array([[-0.5,  0.5,  0. ],
           [ 0.5, -1. ,  0.5],
           [ 0. ,  0.5, -0.5]], dtype=float64)

**Output shapes.** JAX needs the shape of a host call's result before it runs. The first
trace for given argument shapes and constants runs the forward sweep once on the
arguments when they are concrete, else on stand-ins (float arrays of ones, integer arrays
of zeros), and keeps the shapes. A function whose output shape depends on the values of
traced arguments (not only on their shapes) cannot be a JAX operation; one that fails on
the stand-ins takes `out_shape=` (a `jax.ShapeDtypeStruct`, a tuple of them, or a function
of the arguments, arrays given as `ShapeDtypeStruct`s, returning that).
"""
import itertools
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import partial

import numpy as np

try:
    import jax
    import jax.numpy as jnp
except ImportError as exc:  # pragma: no cover  (jax is an optional extra)
    raise ImportError("srcad.jax needs JAX: pip install srcad[jax]") from exc

from srcad.api import jvp, vjp
from srcad.bridge import Bridged
from srcad.errors import SrcadError

KEPT = 16  # tapes kept for backward rules that have not run yet
MODES = ("reverse", "forward")


def function(f, wrt=None, jit="auto", on_jit_error="warn", out_shape=None, mode="reverse"):
    """`f` as a JAX function whose derivative is srcad's compiled reverse sweep, or with
    `mode="forward"` its compiled forward-mode sweep (see the module's docstring).

    `wrt` (a position, a parameter name or a tuple of them) names the arrays that get
    gradients (or whose tangents count, in forward mode); None means every float array
    argument. `out_shape` is only needed when the output shape cannot be learnt by running
    `f` (see the module's docstring). `jit` and `on_jit_error` are as for `srcad.grad`."""
    return JaxFunction(f, wrt, jit, on_jit_error, out_shape, mode)


class JaxFunction(Bridged):
    """The function `srcad.jax.function` returns: call it like `f`, with JAX arrays."""

    kind = "jax"

    def __init__(self, f, wrt, jit, on_jit_error, out_shape, mode="reverse"):
        super().__init__(f, wrt, jit, on_jit_error)
        if mode not in MODES:
            raise self._error(f"mode={mode!r} is not a mode",
                              'pass mode="reverse" (jax.grad, vjp, jacrev) or mode="forward" '
                              "(jax.jvp, jacfwd, linearize)")
        self.mode = mode
        self.out_shape = out_shape
        self.shapes = {}  # Layout -> output ShapeDtypeStruct(s)
        self.tapes = _Tapes(KEPT)

    def __call__(self, *args, **kwargs):
        args = self._bind(args, kwargs)
        inputs = tuple(i for i, a in enumerate(args) if not _is_constant(a))
        values = tuple(jnp.asarray(args[i]) for i in inputs)
        for i, v in zip(inputs, values):
            self._check(v, self.params[i])
        floats = tuple(i for i, v in zip(inputs, values) if type(args[i]) is not float
                       and jnp.issubdtype(v.dtype, jnp.floating))
        layout = Layout(self, inputs, tuple((i, type(a), a) for i, a in enumerate(args)
                                            if i not in inputs),
                        tuple((v.shape, v.dtype) for v in values), self._wanted(floats))
        self.output(layout, values)
        operation = _vjp_operation if self.mode == "reverse" else _jvp_operation
        return operation(layout, *values)

    def _wanted(self, floats):
        """The positions differentiated: the float array inputs, or those in `wrt`."""
        if self.wrt is None:
            return floats
        for i in self.wrt:
            if i not in floats:
                raise self._error(f"argument `{self.params[i]}` in `wrt` is not a float "
                                  "array, so it has no gradient",
                                  "pass it as a float64 array, or leave it out of `wrt`")
        return self.wrt

    def _check(self, value, name):
        """Refuse what srcad would have to compute in another dtype than JAX's."""
        if jnp.issubdtype(value.dtype, jnp.complexfloating):
            raise self._error(f"argument `{name}` is complex; the bridge takes real "
                              "arrays (srcad.grad and srcad.vjp take complex ones)",
                              f"pass `{name}.real` and `{name}.imag` as two arguments")
        if jnp.issubdtype(value.dtype, jnp.floating) and value.dtype != jnp.float64:
            if not jax.config.jax_enable_x64:
                hint = ('call jax.config.update("jax_enable_x64", True) at the start of the '
                        "program: without it JAX makes float32 arrays")
            else:
                hint = f"pass `{name}.astype(jnp.float64)`"
            raise self._error(f"argument `{name}` is {value.dtype}; srcad computes in "
                              "float64 and does not narrow its results to fit", hint)

    def output(self, layout, values):
        """The output's ShapeDtypeStruct(s) for `layout`, learnt once (see the module's
        docstring)."""
        found = self.shapes.get(layout)
        if found is None:
            found = self.shapes[layout] = self._learn_output(layout, values)
        return found

    def _learn_output(self, layout, values):
        if self.out_shape is not None:
            if not callable(self.out_shape):
                return self.out_shape
            return self.out_shape(*layout.arguments(
                [jax.ShapeDtypeStruct(s, d) for s, d in layout.shapes]))
        traced = any(isinstance(v, jax.core.Tracer) for v in values)
        if traced:
            arrays = [np.ones(s, d) if jnp.issubdtype(d, jnp.floating) else np.zeros(s, d)
                      for s, d in layout.shapes]  # stand-ins of the same shapes
        else:
            arrays = [np.asarray(v) for v in values]
        try:
            out = layout.value(arrays)
        except SrcadError:
            raise
        except Exception as exc:
            on = "on stand-ins (ones) " if traced else ""
            raise self._error(
                f"running it once {on}to learn its output's shape failed: {exc}",
                "pass out_shape=jax.ShapeDtypeStruct(shape, jnp.float64) (a tuple for a "
                "tuple), or a function of the arguments returning it") from exc
        return _structs(out)



@dataclass(frozen=True, eq=True)
class Layout:
    """How one call's arguments split into JAX inputs (positions, shapes and dtypes) and
    constants (position and value), and which inputs are differentiated: the static part
    of the operation, so hashable."""

    bridge: JaxFunction
    inputs: tuple
    constants: tuple
    shapes: tuple
    wrt: tuple

    def arguments(self, values):
        """The full argument list of `f`: `values` for the inputs, and the constants."""
        args = {i: value for i, _, value in self.constants}
        args.update(zip(self.inputs, values))
        return [args[i] for i in range(len(args))]

    def vjp(self, values):
        """(out, pullback) of srcad's forward sweep on these input values (NumPy views
        of the host buffers JAX passes, without a copy)."""
        b = self.bridge
        return vjp(b.fn, *self.arguments(map(np.asarray, values)), wrt=self.wrt, jit=b.jit,
                   on_jit_error=b.on_jit_error)

    def jvp(self, values, tangents):
        """(out, output tangent) of srcad's forward-mode sweep on these input values and
        the tangents of the differentiated ones."""
        b = self.bridge
        return jvp(b.fn, self.arguments(map(np.asarray, values)),
                   tuple(map(np.asarray, tangents)), wrt=self.wrt, jit=b.jit,
                   on_jit_error=b.on_jit_error)

    def value(self, values):
        """`f` on these input values, by the sweep of the bridge's mode, so that one
        generated module serves the operation: reverse mode's forward sweep, or the
        forward-mode sweep with zero tangents."""
        if self.bridge.mode == "reverse":
            return self.vjp(values)[0]
        zeros = [np.zeros(self.shapes[self.inputs.index(i)][0]) for i in self.wrt]
        return self.jvp(values, zeros)[0]

    @property
    def out(self):
        return self.bridge.shapes[self]


def _primal(layout, values):
    """The operation's value: one host call of the sweep that `layout.value` runs."""
    def primal(*arrays):
        return _numpy_out(layout.value(arrays), layout.out)

    return jax.pure_callback(primal, layout.out, *values, vmap_method="sequential")


# --- reverse mode: a custom_vjp whose backward is the reverse sweep over a kept tape ---


@partial(jax.custom_vjp, nondiff_argnums=(0,))
def _vjp_operation(layout, *values):
    return _primal(layout, values)


def _forward(layout, *values):
    def sweep(*arrays):
        out, pullback = layout.vjp(arrays)
        return _numpy_out(out, layout.out), np.int64(layout.bridge.tapes.put(pullback))

    token = jax.ShapeDtypeStruct((), jnp.int64)
    out, tape = jax.pure_callback(sweep, (layout.out, token), *values,
                                  vmap_method="sequential")
    return out, (tape, values)


def _backward(layout, residuals, cotangent):
    tape, values = residuals
    wanted = tuple(layout.inputs.index(i) for i in layout.wrt)

    def sweep(token, cotangent, *arrays):
        pullback = layout.bridge.tapes.get(int(token))
        if pullback is None:  # its tape is gone: run the forward sweep again
            pullback = layout.vjp(arrays)[1]
        return tuple(np.asarray(d, np.float64) for d in pullback(cotangent))

    shapes = tuple(jax.ShapeDtypeStruct(values[k].shape, jnp.float64) for k in wanted)
    grads = iter(jax.pure_callback(sweep, shapes, tape, cotangent, *values,
                                   vmap_method="sequential"))
    return tuple(next(grads) if k in wanted else None for k in range(len(values)))


_vjp_operation.defvjp(_forward, _backward)


# --- forward mode: a custom_jvp whose rule is the forward-mode sweep -------------------


@partial(jax.custom_jvp, nondiff_argnums=(0,))
def _jvp_operation(layout, *values):
    return _primal(layout, values)


@_jvp_operation.defjvp
def _jvp_rule(layout, values, tangents):
    """The output's tangent by one forward-mode sweep, on the tangents of the inputs in
    `wrt` (the others, integer inputs among them, count as zero). The value is the
    operation's own host call, not the sweep's: it must not depend on the tangents, so
    that JAX knows it before the tangents (`jax.linearize`; under `jax.jit`, XLA drops
    whichever of the two calls is not used)."""
    wanted = [tangents[layout.inputs.index(i)] for i in layout.wrt]
    n = len(values)

    def sweep(*arrays):
        return _numpy_out(layout.jvp(arrays[:n], arrays[n:])[1], layout.out)

    tangent = jax.pure_callback(sweep, layout.out, *values, *wanted,
                                vmap_method="sequential")
    return _jvp_operation(layout, *values), tangent


class _Tapes:
    """The pullbacks of forward sweeps whose backward has not run, by number: at most
    `size` (the oldest goes first), and the last one used, for a backward that runs once
    per cotangent (`jax.jacrev`, `vmap` of a pullback)."""

    def __init__(self, size):
        self.size, self.waiting, self.last = size, OrderedDict(), (0, None)
        self.numbers, self.lock = itertools.count(1), threading.Lock()

    def put(self, pullback):
        with self.lock:
            number = next(self.numbers)
            self.waiting[number] = pullback
            while len(self.waiting) > self.size:
                self.waiting.popitem(last=False)
            return number

    def get(self, number):
        with self.lock:
            pullback = self.waiting.pop(number, None)
            if pullback is not None:
                self.last = (number, pullback)
            elif self.last[0] == number:
                pullback = self.last[1]
            return pullback


def _is_constant(value):
    """Python ints and bools are constants of the operation (they may set shapes and trip
    counts); everything else, Python floats too, is an input, so a new float value does
    not make JAX trace the operation again."""
    return isinstance(value, (bool, int)) and not isinstance(value, np.generic)


def _structs(out):
    if isinstance(out, tuple):
        return tuple(map(_structs, out))
    return jax.ShapeDtypeStruct(np.shape(out), np.result_type(out))


def _numpy_out(out, structs):
    """srcad's output as the arrays the callback declared."""
    if isinstance(out, tuple):
        return tuple(_numpy_out(o, s) for o, s in zip(out, structs))
    return np.asarray(out, dtype=structs.dtype)


__all__ = ["JaxFunction", "function", "KEPT"]

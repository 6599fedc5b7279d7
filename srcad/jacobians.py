"""The Jacobian of a function, by rows (reverse mode) or by columns (forward mode), and the
functions srcad makes for it (`srcad.jacobian`, `srcad.hessian`), which pickle as the call
that made them."""
import numpy as np

from srcad.api import GradFunction, refuse_complex
from srcad.errors import SrcadError


class MadeFunction:
    """A function srcad made (the Jacobian or Hessian function of `f`) that pickles as
    the call that made it, so that it can be sent to another process."""

    def __init__(self, fn, maker, *options):
        self._fn, self._made_by = fn, (maker, options)
        self.__doc__, self.__name__ = fn.__doc__, fn.__name__

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __getattr__(self, name):  # what the function records (`last_mode`, `compiled`)
        return getattr(self.__dict__["_fn"], name)

    def __reduce__(self):
        return self._made_by


def jacobian(f, wrt=0, mode=None, out=None, jit="auto", on_jit_error="warn"):
    """A function giving the Jacobian of `f`: an array of shape `out.shape + arg.shape`
    (a tuple of them for a tuple `wrt`).

    Reverse mode runs the forward sweep once and one reverse sweep per output element,
    all over the same tape; forward mode runs one tangent sweep per input element.
    `mode=None` picks whichever needs fewer sweeps (decided after the first forward sweep,
    which reverse mode then reuses); `mode="rev"` or `"fwd"` forces one. `out` names the
    argument the function writes its result into, as in `vjp`.
    """
    if mode not in (None, "rev", "fwd"):
        raise SrcadError(f"mode must be None, 'rev' or 'fwd', not {mode!r}")
    g = GradFunction(f, wrt, jit, with_value=False, on_jit_error=on_jit_error,
                     scalar_output=False, out=out)

    def jac(*args, **kwargs):
        args = g._bind(args, kwargs)
        refuse_complex(g, args, "Jacobian")
        sizes = [int(np.size(args[i])) for i in g.positions]
        use = mode
        compiled = tape = out = None
        if use != "fwd":
            compiled = g.build(args)
            out, tape = compiled.forward(args)
            if isinstance(out, tuple):
                raise g._error("jacobian needs an array or scalar output, not a tuple",
                               hint="return np.array([...]) of the outputs, or use srcad.vjp")
            refuse_complex(g, args, "Jacobian", out)
            if use is None and np.size(out) > sum(sizes):
                use = "fwd"
        if use == "fwd":
            jac.last_mode = "fwd"
            return g.package_many(_columns(g, args))
        jac.last_mode = "rev"
        jac.compiled = compiled
        result = _rows(g, compiled, args, out, tape)
        return result[0] if g.bare else tuple(result)

    jac.last_mode = jac.compiled = None
    jac.__doc__ = jacobian.__doc__
    return MadeFunction(jac, jacobian, f, wrt, mode, out, jit, on_jit_error)


def _rows(g, compiled, args, out, tape):
    """Per `wrt` argument, its block of the Jacobian, by reverse mode: one row per element
    of `out`, each a reverse sweep over the `tape` of the forward sweep that gave `out`."""
    out_shape = np.shape(out)
    rows = []
    for k in range(int(np.size(out))):
        cot = np.zeros(out_shape)
        cot.flat[k] = 1.0
        cot = float(cot) if not out_shape else cot
        rows.append(compiled.reverse(args, tape, cot))
    result = []
    for j, i in enumerate(g.positions):
        stacked = np.array([np.asarray(r[j], dtype=np.float64) for r in rows])
        result.append(stacked.reshape(out_shape + np.shape(args[i])))
    return result


def unit_directions(args, positions, j):
    """Tangents for the arguments at `positions`, one tuple per element of the j-th: a 1
    in that element, 0 everywhere else."""
    zero = [np.zeros(np.shape(args[i])) if np.ndim(args[i]) else 0.0 for i in positions]
    i = positions[j]
    for k in range(int(np.size(args[i]))):
        tangents = list(zero)
        if np.ndim(args[i]):
            tangents[j] = np.zeros(np.shape(args[i]))
            tangents[j].flat[k] = 1.0
        else:
            tangents[j] = 1.0
        yield tuple(tangents)


def _columns(g, args):
    """Per `wrt` argument, its block of the Jacobian, by forward mode: one column each."""
    per_arg = []
    out = None
    for j, i in enumerate(g.positions):
        cols = []
        for tangents in unit_directions(args, g.positions, j):
            out, tan = g.tangent(args, tangents)
            if isinstance(out, tuple):
                raise g._error("jacobian needs an array or scalar output, not a tuple")
            refuse_complex(g, args, "Jacobian", out)
            cols.append(np.asarray(tan, dtype=np.float64))
        if not cols and out is None:  # an empty argument: no columns, the output's shape
            zero = tuple(np.zeros(np.shape(args[p])) if np.ndim(args[p]) else 0.0
                         for p in g.positions)
            out = g.tangent(args, zero)[0]
        stacked = np.stack(cols, axis=-1) if cols else np.zeros(np.shape(out) + (0,))
        per_arg.append(stacked.reshape(np.shape(out) + np.shape(args[i])))
    return per_arg

"""How `srcad.fuzz` compares srcad with the function: central finite differences, floats
bit for bit or within a few ulps, and a primal value against f's own and Numba's.  In a
program with `prange` loops (`sums_reassociated`), sums may be added up in another order,
as Numba's parallel reductions do, and a primal value is kept within `REASSOCIATED_RTOL`.

A complex argument `z = x + iy` counts as two real coordinates, its real parts and then its
imaginary parts: finite differences step along each, and srcad's gradient `g` (JAX's
convention, `dL/dx - i dL/dy`) is laid out as `(Re g, -Im g)`, so that both read
`(dL/dx, dL/dy)` and a tangent `(tx, ty)` is the complex tangent `tx + i ty`."""

import contextlib

import numpy as np

REL_STEP = 1e-6      # finite-difference step, relative to max(1, |value|)
FD_RTOL = 1e-5       # gradient vs finite differences
KINK_RTOL = 1e-4     # finite differences at h and h/10 must agree this well
JVP_RTOL = 1e-8      # forward mode vs reverse mode
ULPS = 4             # jit=True value vs f where Numba cannot compile f
REASSOCIATED_RTOL = 1e-9   # primal vs f where a prange loop's sums may be reassociated
SUMMED_RTOL = 1e-12  # jit=True value vs f where f sums with NumPy and Numba cannot compile f

_reassociated = [False]
_summed = [False]


@contextlib.contextmanager
def sums_reassociated(on=True):
    """Within the block, `primal_mismatch` accepts a value that differs from f's (or
    Numba's) by rounding: srcad adds up the sums of a parallel loop's iterations in
    stretches (`checkpoint_loops.parallel_sweeps`), as Numba's parallel reductions do."""
    saved, _reassociated[0] = _reassociated[0], on
    try:
        yield
    finally:
        _reassociated[0] = saved


@contextlib.contextmanager
def sums_summed_in_numpy(on=True):
    """Within the block, `primal_mismatch` accepts a compiled value within `SUMMED_RTOL` of
    f's where Numba cannot compile f: f's NumPy sums add pairwise, the compiled ones
    (Numba's `np.sum`) one element after another, and the two round differently."""
    saved, _summed[0] = _summed[0], on
    try:
        yield
    finally:
        _summed[0] = saved


def copies(args):
    """The arguments with every array copied: f may write into its arrays."""
    return [np.array(v) if isinstance(v, np.ndarray) else v for v in args]


def value_of(f, args):
    """float(f(*args)) on copies of the arrays."""
    return float(f(*copies(args)))


def partials(f, args, h_rel):
    """Central differences of scalar f at args in every coordinate of every argument,
    flattened (a complex argument's real parts, then its imaginary parts)."""
    out = []
    for k, v in enumerate(args):
        if np.iscomplexobj(v):
            out += _complex_partials(f, args, k, h_rel)
            continue
        for j in range(np.size(v)):
            p, m = copies(args), copies(args)
            if isinstance(v, np.ndarray):
                h = h_rel * max(1.0, abs(v.flat[j]))
                p[k].flat[j] += h
                m[k].flat[j] -= h
            else:
                h = h_rel * max(1.0, abs(v))
                p[k] += h
                m[k] -= h
            out.append((value_of(f, p) - value_of(f, m)) / (2 * h))
    return np.array(out)


def _complex_partials(f, args, k, h_rel):
    """Central differences along the real parts of complex argument k, then along its
    imaginary parts."""
    v = args[k]
    out = []
    for unit in (1.0, 1j):
        for j in range(np.size(v)):
            p, m = copies(args), copies(args)
            part = np.real(v) if unit == 1.0 else np.imag(v)
            h = h_rel * max(1.0, abs(float(np.ravel(part)[j])))
            if isinstance(v, np.ndarray):
                p[k].flat[j] += h * unit
                m[k].flat[j] -= h * unit
            else:
                p[k] += h * unit
                m[k] -= h * unit
            out.append((value_of(f, p) - value_of(f, m)) / (2 * h))
    return out


def flat(values, like=None):
    """The values as one float vector; a value of a complex argument of `like` (or a
    complex value) as its real parts and then its negated imaginary parts."""
    like = values if like is None else like
    out = []
    for v, arg in zip(values, like):
        if np.iscomplexobj(arg) or np.iscomplexobj(v):
            v = np.asarray(v, dtype=complex)
            out += [v.real.ravel(), -v.imag.ravel()]
        else:
            out.append(np.asarray(v, dtype=float).ravel())
    return np.concatenate(out)


def size(v):
    """How many real coordinates argument v has: twice its size if it is complex."""
    return np.size(v) * (2 if np.iscomplexobj(v) else 1)


def close(got, want, rtol, scale=0.0):
    return np.abs(got - want) <= rtol * (1.0 + np.abs(want) + scale)


def same_bits(a, b):
    """Whether two floats are the same IEEE double, sign of zero included."""
    return np.float64(a).tobytes() == np.float64(b).tobytes()


def within_ulps(a, b, ulps=ULPS, floor=0.0):
    """Whether `a` and `b` differ by at most `ulps` units in the last place of the larger
    of them (and of `floor`)."""
    return same_bits(a, b) or abs(a - b) <= ulps * np.spacing(max(abs(a), abs(b), floor))


def primal_mismatch(jit, got, value, want, where, what):
    """None when `got` (srcad's value) keeps f's `value`, else what is wrong.  `want` is
    Numba's value of f with jit, None where Numba cannot compile f."""
    if _reassociated[0] and (close(got, value, REASSOCIATED_RTOL) or
                             want is not None and close(got, want, REASSOCIATED_RTOL)):
        return None
    if not jit:
        if same_bits(got, value):
            return None
        return (f"jit=False: primal {what} {got!r} != f {value!r} "
                f"(differs by {got - value!r}) at\n  {where}")
    if want is not None and same_bits(got, want):
        return None
    if want is not None and not within_ulps(want, value) and within_ulps(got, value):
        return None     # Numba's semantics differ from Python's; srcad kept Python's
    if want is not None:
        return (f"jit=True: primal {what} {got!r} != numba.njit(f) {want!r} "
                f"(f {value!r}) at\n  {where}")
    if within_ulps(got, value, floor=1.0) or _summed[0] and close(got, value, SUMMED_RTOL):
        return None
    return (f"jit=True: primal {what} {got!r} != f {value!r} beyond {ULPS} ulps (of 1.0 at "
            f"least) at\n  {where}")


def split(t, args):
    """The flat vector `t` cut into one tangent per argument, shaped like it."""
    tangents, at = [], 0
    for v in args:
        part = t[at:at + size(v)]
        if np.iscomplexobj(v):
            half = np.size(v)
            part = part[:half] + 1j * part[half:]
        tangents.append(part.reshape(np.shape(v)) if np.ndim(v) else
                        complex(part[0]) if np.iscomplexobj(v) else float(part[0]))
        at += size(v)
    return tangents


def coord(k, args, names):
    """The name of flat coordinate k: `x`, `a[2]`, `m[1, 0]`, `c.imag`, `q[1].real`."""
    at = 0
    for name, v in zip(names, args):
        if k < at + size(v):
            j, part = k - at, ""
            if np.iscomplexobj(v):
                j, part = j % np.size(v), ".imag" if j >= np.size(v) else ".real"
            return (name if np.ndim(v) == 0 else
                    f"{name}[{', '.join(map(str, np.unravel_index(j, np.shape(v))))}]") + part
        at += size(v)
    return str(k)


def show(args, names):
    """`x = 0.5, a = np.array([...])`: the arguments as Python."""
    return ", ".join(f"{name} = np.array({v.tolist()!r})" if isinstance(v, np.ndarray)
                     else f"{name} = {v!r}" for name, v in zip(names, args))


def mismatched_gradient(jit, got, fd, args, names, where, scale):
    """None when the gradient `got` agrees with finite differences `fd`, else the rows
    that do not."""
    ok = close(got, fd, FD_RTOL, scale)
    if np.all(ok):
        return None
    rows = "\n".join(f"  d/d{coord(k, args, names)}: srcad {got[k]!r}  fd {fd[k]!r}"
                     for k in np.flatnonzero(~ok))
    return f"jit={jit}: grad vs finite differences at\n  {where}\n{rows}"

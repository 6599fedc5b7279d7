"""The properties `srcad.fuzz` checks of in-place kernels and of programs that raise.

An in-place kernel writes its result into argument `out` and returns nothing.
`srcad.vjp(f, *args, wrt=<every argument>, out=out)` must give that argument's final
contents as f leaves them (bit for bit without jit), and a pullback of a cotangent `c`
that agrees with central differences of `sum(c * final)`; `jvp` with `out=` must give
the same contents and a tangent `t'` with <c, t'> == <pullback(c), t>.

A program whose `raise` or `assert` fires on an input must make srcad raise there too:
the same exception type, with f's message in srcad's (which adds the file and line).
An exception f raises anywhere else is no check of the program's own, and the caller
treats it as a bug of the generator.
"""

import traceback

import numpy as np

from srcad.fuzz.compare import (
    JVP_RTOL,
    close,
    copies,
    flat,
    mismatched_gradient,
    primal_mismatch,
    show,
    size,
    split,
)


def final_contents(f, args, out):
    """The contents of argument `out` after f runs on copies of `args`, as floats."""
    given = copies(args)
    result = f(*given)
    if result is not None:
        raise TypeError(f"an in-place program returned {result!r}, not None")
    return np.array(given[out], dtype=float)


def objective(f, out, cotangent):
    """The scalar `sum(cotangent * final contents of out)` as a function of f's arguments."""
    return lambda *args: float(np.sum(cotangent * final_contents(f, args, out)))


def from_check(exc, f):
    """Whether `exc` was raised by a `raise` or `assert` statement in f's file."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return False
    last = frames[-1]
    return last.filename == f.__code__.co_filename and \
        (last.line or "").lstrip().startswith(("raise", "assert"))


def unlike_raise(f, args, names, exc, jit, out=None):
    """None when srcad's gradient (or vjp) and jvp at `args`, where f raised `exc`, raise
    its type with its message, else what they did."""
    import srcad

    wrt = tuple(range(len(args)))
    options = {"jit": jit, "on_jit_error": "raise"}
    tangents = split(np.ones(sum(map(size, args))), args)
    runs = {"jvp": lambda: srcad.jvp(f, copies(args), tangents, wrt=wrt, out=out, **options)}
    if out is None:
        runs["grad"] = lambda: srcad.value_and_grad(f, wrt=wrt, **options)(*copies(args))
    else:
        runs["vjp"] = lambda: srcad.vjp(f, *copies(args), wrt=wrt, out=out, **options)
    want = f"{type(exc).__name__}: {exc}"
    for what in sorted(runs):
        try:
            runs[what]()
        except srcad.SrcadError:
            raise
        except Exception as got:  # noqa: BLE001  (any exception is compared with f's)
            if type(got) is type(exc) and str(exc) in str(got):
                continue
            said = f"raised {type(got).__name__}: {got}"
        else:
            said = "returned"
        return (f"jit={jit}: raises: {what} {said} where f raises {want} at\n"
                f"  {show(args, names)}")
    return None


def in_place_mismatch(f, args, names, out, point, rng, jit, reference):
    """None when srcad keeps an in-place kernel's contents and differentiates them right at
    one input for one setting of jit, else what is wrong.
    `point` holds f's final contents, the cotangent and finite differences there;
    `reference(args)` gives Numba's final contents, or None."""
    import srcad

    contents, cotangent, fd = point
    wrt = tuple(range(len(args)))
    options = {"wrt": wrt, "out": out, "jit": jit, "on_jit_error": "raise"}
    given = copies(args)
    value, pullback = srcad.vjp(f, *given, **options)
    if not all(np.array_equal(u, v) for u, v in zip(given, args)):
        return f"jit={jit}: vjp mutated an array argument"
    where = show(args, names)
    want = reference(args) if jit and reference is not None else None
    bad = contents_mismatch(jit, value, contents, want, where, "contents")
    if bad:
        return bad
    got = flat(pullback(cotangent))
    scale = 1e-3 * float(np.sum(np.abs(cotangent * contents)))
    bad = mismatched_gradient(jit, got, fd, args, names, where, scale)
    if bad:
        return bad
    t = rng.standard_normal(got.size)
    value, tangent = srcad.jvp(f, copies(args), split(t, args), **options)
    bad = contents_mismatch(jit, value, contents, want, where, "jvp contents")
    if bad:
        return bad
    lhs, rhs = float(np.sum(cotangent * tangent)), float(got @ t)
    if not close(lhs, rhs, JVP_RTOL, float(np.abs(got) @ np.abs(t))):
        return (f"jit={jit}: jvp <c, tangent> {lhs!r} != <vjp(c), t> {rhs!r} at\n"
                f"  {where}\n  t = {t.tolist()!r}")
    return None


def contents_mismatch(jit, got, contents, want, where, what):
    """None when srcad's final contents `got` keep f's, element by element as
    `primal_mismatch` compares values, else what is wrong."""
    got = np.asarray(got, dtype=float)
    if got.shape != contents.shape:
        return f"jit={jit}: primal {what} of shape {got.shape} != f's {contents.shape}"
    for k in range(contents.size):
        bad = primal_mismatch(jit, got.flat[k], contents.flat[k],
                              None if want is None else want.flat[k], where,
                              f"{what} [{k}]")
        if bad:
            return bad
    return None

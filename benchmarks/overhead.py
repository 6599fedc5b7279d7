"""What a call costs: `python -m benchmarks.overhead`.

For three small functions (a scalar function of three floats, `np.sum(A @ x * x)` with a
20×20 `A`, and W1 at n = 10), the time per call, in µs, of:

- `njit`: the function compiled by `numba.njit`, the primal alone;
- `sweeps`: srcad's compiled forward and reverse sweeps called directly, the floor under
  every form below;
- `reused`: a gradient object made once, `g(*args)`;
- `inline`: `srcad.grad(f, wrt=...)(*args)`, a new gradient object per call;
- `vjp`: `out, pb = srcad.vjp(f, *args, wrt=...)` then `pb(1.0)`;
- `jvp`: `srcad.jvp(f, args, tangents, wrt=...)`;
- `hvp`: `srcad.hvp(f, args, v, wrt=...)`;
- `jax.grad`, `jax.vjp`: the same with JAX (jitted, float64), when it is installed.

Every form runs warm (compiled, and its first call made) before it is timed; the forms
are timed in alternation (see `benchmarks.measure`), and the median is printed. The goal:
`reused` within 3 µs of `sweeps`, every inline form (`inline`, `vjp`, `jvp`) within 2×
of `reused`.
"""
import importlib.util
import math
import sys

import numba
import numpy as np

from benchmarks.measure import Timer, alternate
from benchmarks.workloads import tanh_rnn


def three_floats(a, b, c):
    """A scalar function of three floats."""
    return a * b + math.sin(c) * a - c * c


def quadratic(A, x):
    """x·(A x) summed elementwise, for a 20×20 A."""
    return np.sum(A @ x * x)


def cases():
    """(name, function, arguments, wrt) for each row."""
    rng = np.random.default_rng(0)
    return [
        ("three floats", three_floats, (0.3, 1.2, -0.7), (0, 1, 2)),
        ("A @ x, 20x20", quadratic, (rng.standard_normal((20, 20)),
                                     rng.standard_normal(20)), 1),
        ("W1, n = 10", tanh_rnn, (0.4, rng.standard_normal(10)), (0, 1)),
    ]


def srcad_forms(fn, args, wrt):
    """{column: function of no arguments} for srcad's forms."""
    import srcad

    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    tangents = tuple(np.ones_like(args[i]) if np.ndim(args[i]) else 1.0 for i in positions)
    vector = tangents if isinstance(wrt, tuple) else tangents[0]
    jitted = numba.njit(fn)
    g = srcad.grad(fn, wrt=wrt)
    g(*args)
    compiled = g.last
    fwd = getattr(compiled.module, compiled.top.fwd_name)
    rev = getattr(compiled.module, compiled.top.rev_name)

    def sweeps():
        out, tape = fwd(*args)
        return rev(*args, tape, 1.0)

    def vjp():
        _, pullback = srcad.vjp(fn, *args, wrt=wrt)
        return pullback(1.0)

    return {
        "njit": lambda: jitted(*args),
        "sweeps": sweeps,
        "reused": lambda: g(*args),
        "inline": lambda: srcad.grad(fn, wrt=wrt)(*args),
        "vjp": vjp,
        "jvp": lambda: srcad.jvp(fn, args, tangents, wrt=positions),
        "hvp": lambda: srcad.hvp(fn, args, vector, wrt=wrt),
    }


def jax_forms(fn, args, wrt):
    """{column: function of no arguments} for JAX, or {} when it is not installed."""
    if importlib.util.find_spec("jax") is None:
        return {}
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    forms = {three_floats: lambda a, b, c: a * b + jnp.sin(c) * a - c * c,
             quadratic: lambda A, x: jnp.sum(A @ x * x),
             tanh_rnn: _jax_tanh_rnn}
    jf = forms[fn]
    grad = jax.jit(jax.grad(jf, argnums=wrt))
    vjp = jax.jit(lambda *a: jax.vjp(lambda *p: jf(*p), *a)[1](1.0))
    jargs = tuple(jnp.asarray(a) for a in args)
    return {"jax.grad": lambda: jax.block_until_ready(grad(*jargs)),
            "jax.vjp": lambda: jax.block_until_ready(vjp(*jargs))}


def _jax_tanh_rnn(w, x):
    import jax
    import jax.numpy as jnp

    def step(carry, xi):
        h, loss = carry
        h = jnp.tanh(w * h + xi)
        return (h, loss + h * h), None

    return jax.lax.scan(step, (0.0, 0.0), x)[0][1]


def measure(rounds=7):
    """[(case name, {column: median µs})]."""
    rows = []
    for name, fn, args, wrt in cases():
        forms = {**srcad_forms(fn, args, wrt), **jax_forms(fn, args, wrt)}
        for form in forms.values():  # compiled, and the first call made
            form()
        timers = {column: Timer(form) for column, form in forms.items()}
        alternate(list(timers.values()), rounds)
        rows.append((name, {c: t.median() * 1e6 for c, t in timers.items()}))
    return rows


def table(rows):
    """The rows as a Markdown table, µs per call."""
    columns = list(dict.fromkeys(c for _, times in rows for c in times))
    lines = ["| µs per call | " + " | ".join(columns) + " |",
             "| --- |" + " ---: |" * len(columns)]
    for name, times in rows:
        cells = [_cell(times.get(c)) for c in columns]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(us):
    if us is None or math.isnan(us):
        return "–"
    return f"{us:,.1f}" if us < 1000 else f"{us:,.0f}"


def main(argv=()):
    rounds = int(argv[0]) if argv else 7
    print(table(measure(rounds)))
    if importlib.util.find_spec("jax") is None:
        print("\n(JAX is not installed: no jax.grad / jax.vjp columns)")


if __name__ == "__main__":
    main(sys.argv[1:])

"""A `programs` program: up to two helpers and `f(x, y, a, m)` calling them, with a
header line naming the seed and the shapes of a and m."""

import random

from srcad.fuzz.programs.statements import Body

_PARAMS = [["float", "float"], ["float", "arr"], ["arr"], ["float"], ["mat", "float"],
           ["arr", "mat"]]
_RETURNS = [("float",)] * 4 + [("float", "float")] * 2 + [("arr",), ("float", "arr")]


def _helper(rng, name, callable_helpers):
    """(source, (name, params, returns)) of a helper that may call `callable_helpers`."""
    params = rng.choice(_PARAMS) + (["opt"] if rng.random() < 0.3 else [])
    returns = rng.choice(_RETURNS)
    g = Body(rng, callable_helpers, returns=returns)
    pnames = []
    for j, kind in enumerate(params):
        pname = {"float": "p", "opt": "p", "arr": "q", "mat": "r"}[kind] + str(j)
        pnames.append(pname + ("=0.5" if kind == "opt" else ""))
        {"arr": g.arrays, "mat": g.mats}.get(kind, g.floats)[0].append(pname)
    g.emit(1, "h = 0.1")
    g.floats[0].append("h")
    if "arr" in returns and not g.all(g.arrays):
        src = g.mexpr(1) + "[0]" if g.all(g.mats) else None
        if src is None:
            returns = g.returns = tuple("float" for _ in returns)
        else:
            g.emit(1, f"e = np.sin({src})")
            g.arrays[0].append("e")
            g.writable[0].append("e")
    g.budget = rng.randrange(1, 4)
    while g.budget > 0:
        g.stmt(1)
    g.emit(1, f"return {g.return_value()}")
    header = f"def {name}({', '.join(pnames)}):"
    return "\n".join([header] + g.lines), (name, params, returns)


def generate(seed):
    """(module source, shapes of `a` and `m`) for program `seed`."""
    rng = random.Random(seed)
    helpers, sources = [], []
    for k in range(rng.choice([0, 1, 1, 2])):
        src, sig = _helper(rng, f"helper{k}", list(helpers))
        sources.append(src)
        helpers.append(sig)
    g = Body(rng, helpers, while_heavy=rng.random() < 0.2)
    g.floats[0] += ["x", "y"]
    g.arrays[0].append("a")
    g.mats[0].append("m")
    g.writable[0] += ["a", "m"]     # f may write into its own arguments: srcad copies them
    g.emit(1, "s = 0.0")
    g.emit(1, f"t0 = math.tanh(x * {g.const()} + y)")
    g.floats[0] += ["s", "t0"]
    g.budget = rng.randrange(3, 7)
    while g.budget > 0:
        g.stmt(1)
    g.final_return(1)
    body = "\n".join(["def f(x, y, a, m):"] + g.lines)
    n, rows = rng.randrange(4, 7), rng.randrange(2, 4)
    header = (f"# srcad fuzz program, seed {seed}, a: ({n},), m: ({rows}, {n})\n"
              "import math\n\nimport numpy as np\n")
    return "\n\n\n".join([header.rstrip("\n")] + sources + [body]) + "\n", (n, rows)

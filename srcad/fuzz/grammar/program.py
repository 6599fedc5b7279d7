"""A grammar program: module constants, the function `f(x, y, z[, a][, m])` and its body,
printed as PEP 8 source with a header line naming the seed and the arguments.  An in-place
program (`in_place=True`) always has `a`, writes its result into it and returns nothing;
its header ends with `; out: a`.  A program whose `prange` loop over `i7` carries a
dependence between iterations, which srcad must refuse, says so with `; carried: i7`."""

import ast
import random
import re

from srcad.fuzz.grammar.statements import Body
from srcad.fuzz.grammar.trees import AVOIDABLE, FAMILIES, INPUT_RANGE, binop, call, num, ref


def _constants(rng):
    """Module-level constants: ints and floats of both signs, tiny ones too."""
    pool = [("K", rng.choice([-3, -2, 2, 3, 0, 1])),
            ("C", rng.choice([-0.5, 2.5, -1.25, 0.75, 1e-3])),
            ("TINY", rng.choice([1e-320, 5e-324, -1e-310])),
            ("NEG", rng.choice([-2.0, -1, -0.0])),
            ("HALF", 0.5)]
    return dict(rng.sample(pool, rng.randrange(0, 4)))


def generate(seed, avoid=(), in_place=False, families=()):
    """(module source, argument spec) of grammar program `seed`; the spec is a tuple of
    (name, shape) pairs, () for a float, and (name, shape, "complex") for a complex
    argument.  An in-place program is another program for the same seed, and so is one
    of the opt-in `families` (`FAMILIES`)."""
    avoid, families = frozenset(avoid), tuple(sorted(set(families)))
    unknown = avoid - set(AVOIDABLE)
    if unknown:
        raise ValueError(f"unknown constructs to avoid: {sorted(unknown)}; known: {AVOIDABLE}")
    if set(families) - set(FAMILIES):
        raise ValueError(f"unknown families: {sorted(set(families) - set(FAMILIES))}; "
                         f"known: {FAMILIES}")
    if families and in_place:
        raise ValueError("in-place kernels take no families")
    kind = "-".join(("in-place",) * in_place + families)
    rng = random.Random(f"grammar-{kind}-{seed}" if kind else f"grammar-{seed}")
    consts = _constants(rng)
    g = Body(rng, consts, avoid)
    g.in_place = in_place
    g.families = families
    spec = _arguments(g)
    if g.complex_on:
        g.complex_arguments(spec)
    body = _local_arrays(g)
    g.budget = rng.randrange(2, 9)
    while g.budget > 0:
        body += g.stmt(2)
    if in_place:
        body.append(_final_write(g))
    else:
        body.append(ast.Return(g.complex_result(_final(g)) if g.complex_on else _final(g)))
    module = _module(consts, spec, body, g.global_assignments(), g.uses_prange)
    if "neg-base" in avoid:
        module = _FoldNegativeBases(consts).visit(module)
    ast.fix_missing_locations(module)
    text = ast.unparse(module)
    out = (f"; carried: {g.carried_loop}" if g.carried_loop else "") + \
        ("; out: a" if in_place else "")
    header = f"# srcad grammar program, seed {seed}, args: {format_spec(spec)}{out}\n"
    return _layout(header + text) + "\n", tuple(spec)


def _arguments(g):
    """The spec of f's arguments, bound in `g`: floats x, y, z, half the time (always in
    place) array a, and some of the time matrix m (as many columns as a has elements)."""
    spec = [("x", ()), ("y", ()), ("z", ())]
    for name in ("x", "y", "z"):
        g.floats[name] = (-INPUT_RANGE, INPUT_RANGE)
    if g.in_place or g.rng.random() < 0.5:
        n = g.rng.randrange(3, 7)
        spec.append(("a", (n,)))
        g.arrays["a"] = (n, -INPUT_RANGE, INPUT_RANGE)
    if "matrix" in g.recent and g.rng.random() < 0.35:
        rows = g.rng.randrange(2, 5)
        cols = g.arrays["a"][0] if g.arrays else g.rng.randrange(2, 5)
        spec.append(("m", (rows, cols)))
        g.matrices["m"] = (rows, cols, -INPUT_RANGE, INPUT_RANGE)
    return spec


def _local_arrays(g):
    """The first statements of f when it has an array: maybe `b = <elementwise of a>`,
    maybe a local array to write into."""
    body = []
    if g.arrays and g.rng.random() < 0.4:
        name = g.fresh("b")
        node, lo, hi = g.array_expr("a")
        body.append(ast.Assign([ast.Name(name, ast.Store())], node))
        g.arrays[name] = (g.arrays["a"][0], lo, hi)
    if g.arrays and g.rng.random() < 0.4:
        body.append(_writable(g))
        if "idioms" in g.recent and g.arrays["a"][0] >= 3 and g.rng.random() < 0.5:
            body.append(g.view_of(body[-1].targets[0].id))
    if g.arrays and "idioms" in g.recent and g.rng.random() < 0.3:
        g.global_array(g.arrays["a"][0])
    if g.matrices and g.rng.random() < 0.4:
        body.append(_writable_matrix(g))
    if g.in_place:
        g.writable.append("a")
    return body


def _module(consts, spec, body, arrays=(), prange=False):
    """The module: imports (`from numba import prange` if f has prange loops), the
    constants (module-level arrays too), and `def f(<the names in spec>): <body>`."""
    args = ast.arguments(posonlyargs=[], args=[ast.arg(entry[0]) for entry in spec],
                         kwonlyargs=[], kw_defaults=[], defaults=[])
    fn = ast.FunctionDef(name="f", args=args, body=body, decorator_list=[], returns=None,
                         type_params=[])
    return ast.Module([ast.Import([ast.alias("math")]),
                       ast.Import([ast.alias("numpy", "np")])]
                      + [ast.ImportFrom("numba", [ast.alias("prange")], 0)] * prange
                      + [ast.Assign([ast.Name(k, ast.Store())], num(v))
                         for k, v in consts.items()] + list(arrays) + [fn], [])


def _writable(g):
    """`w = a.copy()` (or zeros, or an expression of a): a local array to write into."""
    name = g.fresh("w")
    n = g.arrays["a"][0]
    node, lo, hi = g.pick([
        (ast.Call(ast.Attribute(ref("a"), "copy", ast.Load()), [], []), -INPUT_RANGE,
         INPUT_RANGE),
        (call("np.zeros", ast.Constant(n)), 0.0, 0.0),
        (call("np.zeros_like", ref("a")), 0.0, 0.0),
        (binop(ref("a"), ast.Mult(), ast.Constant(1.0)), -INPUT_RANGE, INPUT_RANGE),
        (call("np.sin", ref("a")), -1.0, 1.0)])
    g.arrays[name] = (n, lo, hi)
    g.writable.append(name)
    return ast.Assign([ast.Name(name, ast.Store())], node)


def _writable_matrix(g):
    """`w = m.copy()` (or zeros, or an expression of m): a local matrix to write into."""
    name = g.fresh("w")
    rows, cols, _, _ = g.matrices["m"]
    node, lo, hi = g.pick([
        (ast.Call(ast.Attribute(ref("m"), "copy", ast.Load()), [], []), -INPUT_RANGE,
         INPUT_RANGE),
        (call("np.zeros_like", ref("m")), 0.0, 0.0),
        (binop(ref("m"), ast.Mult(), ast.Constant(0.5)), -INPUT_RANGE / 2, INPUT_RANGE / 2),
        (call("np.cos", ref("m")), -1.0, 1.0)])
    g.matrices[name] = (rows, cols, lo, hi)
    g.store_bounds(name, lo, hi)
    g.writable_m.append(name)
    return ast.Assign([ast.Name(name, ast.Store())], node)


def _final_write(g):
    """The last statement of an in-place program: the returned value of `_final` written
    into `a`, which receives the result: `a[k] = e`, `a += e`, `a[:] = np.tanh(a + e)`,
    `a *= math.tanh(e)` or `a[a > c] = e`."""
    node = _final(g)
    a = ref("a")
    form = g.rng.randrange(5 if "mask" in g.recent else 4)
    if form == 0:
        n = g.arrays["a"][0]
        target = ast.Subscript(a, num(g.rng.randrange(-n, n)), ast.Store())
        return ast.Assign([target], node)
    if form == 1:
        return ast.AugAssign(ast.Name("a", ast.Store()), ast.Add(), node)
    if form == 2:
        target = ast.Subscript(a, ast.Slice(), ast.Store())
        return ast.Assign([target], call("np.tanh", binop(ref("a"), ast.Add(), node)))
    if form == 3:
        return ast.AugAssign(ast.Name("a", ast.Store()), ast.Mult(), call("math.tanh", node))
    mask = ast.Compare(ref("a"), [ast.Gt()], [g.threshold("a")])
    return ast.Assign([ast.Subscript(a, mask, ast.Store())], node)


class _FoldNegativeBases(ast.NodeTransformer):
    """`(-c) ** k` with literal c, and k a literal or a module constant, becomes the
    literal it equals."""

    def __init__(self, consts):
        self.consts = consts

    def visit_BinOp(self, node):
        self.generic_visit(node)
        left = node.left
        if isinstance(node.op, ast.Pow) and _negative_literal(left) and \
                (isinstance(node.right, ast.Constant) or _negative_literal(node.right)
                 or isinstance(node.right, ast.Name) and node.right.id in self.consts):
            try:
                return num(eval(ast.unparse(node), dict(self.consts)))
            except (ArithmeticError, ValueError):
                return node
        return node


def _negative_literal(node):
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and \
        isinstance(node.operand, ast.Constant)


def _final(g):
    """The returned value: an expression plus the names bound last, so that most of the
    body reaches the output."""
    names = [n for n in g.floats if n not in ("x", "y", "z")][-3:]
    names += g.rng.sample(["x", "y", "z"], g.rng.randrange(0, 3))
    node = g.expr(g.rng.randrange(1, 4)).node
    for name in names:
        op = g.pick([ast.Add(), ast.Sub(), ast.Add()])
        node = binop(node, op, ref(name))
    return node


def format_spec(spec):
    """`x: (), y: (), a: (5,), c: complex ()` for a spec."""
    return ", ".join(f"{name}: {' '.join(kind + [repr(shape)])}" for name, shape, *kind in spec)


def _layout(text):
    """PEP 8 blank lines around the function."""
    last = "from numba import prange\n" if "from numba import prange\n" in text else \
        "import numpy as np\n"
    text = text.replace(last, last + "\n", 1)
    return re.sub(r"\n+def ", "\n\n\ndef ", text)

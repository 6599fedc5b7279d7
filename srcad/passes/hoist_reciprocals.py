"""HoistReciprocals: a reverse sweep's adjoint arithmetic divides by a loop-invariant
scalar once per loop, not once per iteration.

The adjoint of `r = (pred[i] - target[i]) / scale` is `d_r / scale` for the numerator
and `-d_r * r / scale` for `scale`, two divisions per iteration by a value the loop
never changes. A division costs several multiplications (W4, the Huber loss, spent more
of its reverse sweep dividing than on anything else), and the compiler may not replace
`x / s` by `x * (1 / s)` itself, since the two can round differently. An adjoint may: it
is already allowed to round differently (its sums are reordered, SafeReassociation). So
in a statement that assigns an adjoint inside a loop, `e / s` becomes `e * rcp_s` for
a real scalar `s` that the loop does not assign, with `rcp_s = rt.reciprocal(s)` before
the outermost loop `s` is constant in. Primal arithmetic the sweep computes again is left
as it is: its values decide branches and must be the forward sweep's, bit for bit.

`rt.reciprocal` is 1 / s; for a zero `s`, infinite (of the zero's sign), so that the
adjoint is infinite or NaN as in NumPy, not the ZeroDivisionError the compiled division
would raise (the loop may run no iteration, and then nothing must be raised; a zero
divisor of a primal division has raised in the forward sweep already); for a subnormal
`s`, whose reciprocal overflows where `e / s` could still be finite, NaN: a NaN gradient
rather than a wrong one.

>>> import gast
>>> from codegen import to_source
>>> from codegen.names import Namer
>>> fn = gast.parse('''def f_rev(x, scale, d_out):
...     d_x = np.zeros_like(x)
...     d_scale = 0.0
...     for k in range(x.shape[0] - 1, -1, -1):
...         r = x[k] / scale
...         d_r = d_out * r
...         d_x[k] += d_r / scale
...         d_scale += -d_r * r / scale
...     return d_x, d_scale''').body[0]
>>> adjoints = {"d_x", "d_scale", "d_r", "d_out"}
>>> fresh = Namer({"x", "scale", "r", "k"} | adjoints).fresh
>>> print(to_source(HoistReciprocals(adjoints, {"scale"}, fresh).run(fn)).strip())
def f_rev(x, scale, d_out):
    d_x = np.zeros_like(x)
    d_scale = 0.0
    rcp_scale = rt.reciprocal(scale)
    for k in range(x.shape[0] - 1, -1, -1):
        r = x[k] / scale
        d_r = d_out * r
        d_x[k] += d_r * rcp_scale
        d_scale += -d_r * r * rcp_scale
    return d_x, d_scale
"""
import gast

from srcad.passes import ir

_LOOPS = (gast.For, gast.While)
_BLOCKS = ("body", "orelse", "finalbody")


def _stored_names(node):
    return {n.id for n in ir.names(node) if isinstance(n.ctx, gast.Store)}


def _target_name(target):
    """`d_x` of `d_x`, `d_x[k]`, `d_x[k][j]`; None for other targets."""
    while isinstance(target, gast.Subscript):
        target = target.value
    return target.id if isinstance(target, gast.Name) else None


def _assigned_before(block, at, name):
    """Whether a statement of `block` before `block[at]` assigns `name` at that level
    (so it holds a value at `block[at]` whatever branches ran)."""
    return any(isinstance(s, (gast.Assign, gast.AugAssign)) and name in _stored_names(s)
               for s in block[:at])


class HoistReciprocals:
    """Transformation of one reverse sweep (see the module). `adjoints`: the names of the
    adjoints (and of the incoming cotangent); `scalars`: names known to hold real scalars,
    the divisors it may take; `fresh(stem, numbered)`: a new name (`codegen.names.Namer.fresh`)."""

    needs = ("kinds", "adjoint_names")
    provides = ()

    def __init__(self, adjoints, scalars, fresh):
        self.adjoints, self.scalars, self.fresh = set(adjoints), set(scalars), fresh

    def run(self, fn):
        self.params = {a.id for a in fn.args.args}
        self.hoisted = {}  # (id of the loop, divisor) -> the reciprocal's name
        self.before = {}  # id of a loop -> [its block, the loop, assignments to put before]
        self.visit(fn.body, [])
        for block, loop, assigns in self.before.values():
            at = next(k for k, s in enumerate(block) if s is loop)
            block[at:at] = assigns
        return fn

    def visit(self, block, loops, path=()):
        """Rewrite the adjoint statements of `block`. `loops`: the loops around it, outermost
        first, each as (the loop, the names it assigns, its depth in `path`); `path`: the
        blocks around it, outermost first, each with the index of the statement taken."""
        for at, s in enumerate(block):
            if isinstance(s, (gast.FunctionDef, gast.ClassDef)):
                continue
            here = path + ((block, at),)
            if loops and self.assigns_adjoint(s):
                for node in ir.walk(s.value):
                    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Div):
                        self.rewrite(node, loops, path)
            inner = loops + [(s, _stored_names(s), len(path))] if isinstance(s, _LOOPS) \
                else loops
            for field in _BLOCKS:
                nested = getattr(s, field, None)
                if isinstance(nested, list):
                    self.visit(nested, inner, here)
            for handler in getattr(s, "handlers", ()):
                self.visit(handler.body, inner, here)

    def assigns_adjoint(self, s):
        if isinstance(s, gast.AugAssign):
            return _target_name(s.target) in self.adjoints
        return isinstance(s, gast.Assign) and len(s.targets) == 1 and \
            _target_name(s.targets[0]) in self.adjoints

    def rewrite(self, div, loops, path):
        """`e / s` -> `e * rcp_s` when `s` is a real scalar constant in the innermost loop,
        the reciprocal taken before the outermost loop `s` is constant in, where `s` is
        sure to hold a value (an argument, or assigned before at that level or above)."""
        s = div.right
        if not (isinstance(s, gast.Name) and s.id in self.scalars):
            return
        outer = None
        for k in range(len(loops) - 1, -1, -1):
            if s.id in loops[k][1]:
                break
            outer = k
        if outer is None:
            return
        loop, _, depth = loops[outer]
        if s.id not in self.params and not any(
                _assigned_before(block, at, s.id) for block, at in path[:depth + 1]):
            return
        key = (id(loop), s.id)
        if key not in self.hoisted:
            rcp = self.hoisted[key] = self.fresh("rcp_" + s.id, numbered=False)
            assign = ir.assign(rcp, ir.call("rt.reciprocal", ir.name(s.id)), like=loop)
            block = path[depth][0]
            self.before.setdefault(id(loop), [block, loop, []])[2].append(assign)
        div.op = gast.Mult()
        div.right = ir.name(self.hoisted[key])

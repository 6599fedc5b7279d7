"""LeanArrayAdjoints: array adjoints in a reverse sweep without needless passes over memory.

Four rewrites of the reverse sweep, none changing a value:

- `d = np.zeros_like(v)` whose first use, in the sweep's top-level straight-line code, is
  `d += <a new array shaped like v>` becomes that one assignment: no zero fill.
- `d = e` then `d += e`, the two terms of `x * x`, becomes `d = 2.0 * e`.
- `d += f(...)` for an array adjoint `d` and a helper `f` that also comes in a form adding
  into its first argument (`rt.prod_adjoint_add`) calls that form: no new array per term.
- Any other `d += e` into an array adjoint becomes `rt.add_to(d, e)`, and
  `d += rt.unbroadcast(e, v)` becomes `rt.add_to(d, e)` (which sums `e` down to `d`'s
  shape itself): one loop over the arrays, where Numba compiles a loop nest that LLVM
  copies for every way `e` may broadcast (see `srcad.runtime.loops`).

>>> import gast
>>> from codegen import to_source
>>> fn = gast.parse('''def f_rev(x, w, tape, d_out):
...     d_x = np.zeros_like(x)
...     d_x += rt.matmul_dx(d_out, x, w)
...     d_x += rt.unbroadcast(d_out * w, x)
...     return d_x,''').body[0]
>>> print(to_source(LeanArrayAdjoints({"d_x"}).run(fn)).strip())
def f_rev(x, w, tape, d_out):
    d_x = rt.matmul_dx(d_out, x, w)
    rt.add_to(d_x, d_out * w)
    return d_x,
"""
import gast

from srcad import runtime as rt
from srcad.passes import ir


def _helper_fact(func, fact):
    """What the `rt` helper that `func` names says of itself (`result_like`, `fresh`,
    `adds_in_place`: see `srcad.runtime.overloads`), or None (another function, or a
    helper that says nothing)."""
    text = ir.dotted_text(func) or ""
    return getattr(getattr(rt, text[3:], None), fact, None) if text.startswith("rt.") \
        else None


def _first_assignments(stmts, filled=()):
    """`d = np.zeros_like(v)` whose first use, in this straight-line list, is
    `d += <an array shaped like v>` becomes one assignment: no zero fill, one pass less
    over the array. Inside loops and branches nothing changes."""
    out, inits = list(stmts), {}
    for k, s in enumerate(out):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
                and isinstance(s.value, gast.Call) \
                and ir.dotted_text(s.value.func) == "np.zeros_like" \
                and isinstance(s.value.args[0], gast.Name) and s.targets[0].id not in filled:
            inits[s.targets[0].id] = (k, s.value.args[0].id)
            continue
        for d in sorted({n.id for n in ir.names(s) if n.id in inits}):
            k0, v = inits.pop(d)
            value = _shaped_value(s, d, v)
            if value is not None:
                out[k0], out[k] = None, ir.assign(d, value, like=s)
    return [s for s in out if s is not None]


def _twins(stmts, arrays):
    """`d = e` followed by `d += e` (the adjoint of `x * x` says `e` twice) becomes
    `d = 2.0 * e`: one evaluation of `e`, and the same value (`e + e` is `2.0 * e`
    exactly). In nested blocks too."""
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            if isinstance(s, (gast.If, gast.For, gast.While)):
                setattr(s, field, _twins(getattr(s, field), arrays))
        prev = out[-1] if out else None
        if isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) \
                and isinstance(s.target, gast.Name) and s.target.id in arrays \
                and isinstance(prev, gast.Assign) and isinstance(prev.targets[0], gast.Name) \
                and prev.targets[0].id == s.target.id \
                and gast.dump(prev.value) == gast.dump(s.value) \
                and not any(n.id == s.target.id for n in ir.names(s.value)):
            prev.value = gast.BinOp(left=ir.const(2.0), op=gast.Mult(), right=prev.value)
            continue
        out.append(s)
    return out


def _in_place(stmts, arrays):
    """`d += f(...)` for an array adjoint `d` (in `arrays`) and a helper f marked
    `adds_in_place` becomes `f_add(d, ...)`: no new array for the term. In nested blocks
    too."""
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            if isinstance(s, (gast.If, gast.For, gast.While)):
                setattr(s, field, _in_place(getattr(s, field), arrays))
        if isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) \
                and isinstance(s.target, gast.Name) and s.target.id in arrays \
                and isinstance(s.value, gast.Call) and not s.value.keywords \
                and _helper_fact(s.value.func, "adds_in_place"):
            call = ir.call(_helper_fact(s.value.func, "adds_in_place"),
                           ir.name(s.target.id), *s.value.args)
            s = gast.copy_location(gast.Expr(value=call), s)
        out.append(s)
    return out


def _added_to(stmts, arrays):
    """`d += e` for an array adjoint `d` (in `arrays`) becomes `rt.add_to(d, e)`, and
    `d += rt.unbroadcast(e, v)` becomes `rt.add_to(d, e)` (`d` is shaped like `v`). In
    branches and loops too."""
    out = []
    for s in stmts:
        if isinstance(s, (gast.If, gast.For, gast.While)):
            s.body, s.orelse = _added_to(s.body, arrays), _added_to(s.orelse, arrays)
        elif isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) \
                and isinstance(s.target, gast.Name) and s.target.id in arrays:
            e = s.value
            if isinstance(e, gast.Call) and ir.dotted_text(e.func) == "rt.unbroadcast" \
                    and len(e.args) == 2 and not e.keywords:
                e = e.args[0]
            s = gast.copy_location(gast.Expr(value=ir.call("rt.add_to", ir.name(s.target.id),
                                                           e)), s)
        out.append(s)
    return out


def _shaped_value(s, d, v):
    """The value `s` adds to `d` when `s` is `d += f(...)` with f's result a fresh array
    shaped like `v` (or a copy of one), else None."""
    if not (isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add)
            and isinstance(s.target, gast.Name) and s.target.id == d
            and isinstance(s.value, gast.Call)):
        return None
    e = s.value
    if any(n.id == d for n in ir.names(e)):
        return None
    pos, may_return_first = _helper_fact(e.func, "result_like") or (None, False)
    if pos is None or len(e.args) <= pos or not isinstance(e.args[pos], gast.Name) \
            or e.args[pos].id != v:
        return None
    g = e.args[0]
    fresh = isinstance(g, (gast.BinOp, gast.UnaryOp)) or (
        isinstance(g, gast.Call) and _helper_fact(g.func, "fresh"))
    if may_return_first and not fresh:  # g itself may come back: copy it
        return gast.Call(func=gast.Attribute(value=e, attr="copy", ctx=gast.Load()),
                         args=[], keywords=[])
    return e


class LeanArrayAdjoints:
    """Transformation of one reverse sweep (see the module); `arrays` are the names of its
    array adjoints, `filled` those that keep their zero fill (a complex adjoint, whose
    first term may be real)."""

    needs = ("kinds", "adjoint_names")
    provides = ()

    def __init__(self, arrays, filled=()):
        self.arrays, self.filled = set(arrays), set(filled)

    def run(self, fnode):
        fnode.body = _in_place(_twins(_first_assignments(fnode.body, self.filled),
                                      self.arrays), self.arrays)
        fnode.body = _added_to(fnode.body, self.arrays)
        return fnode

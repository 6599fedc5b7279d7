"""SpellMasks: the subscripts of a generated function that Numba does not run, boolean
masks and pairs of integer arrays, as `rt` helper calls."""
import copy

import gast

from srcad.passes import ir


def mask_of(index, kinds):
    """(the mask's name, the axis it selects along) when the subscript `index` holds a
    boolean array (`m`, `(m, :)`, `(:, m)`), else None."""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    for axis, p in enumerate(parts):
        kind = kinds.get(p.id) if isinstance(p, gast.Name) else None
        if getattr(kind, "dtype", None) == "b" and kind.ndim:
            return p.id, axis
    return None


def picks_of(index, kinds):
    """The tuple of integer arrays (a node) when the subscript `index` holds more than
    one (`r, c`: InferKinds takes them first, before `:`), else None."""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    arrays = [p for p in parts if isinstance(p, gast.Name) and
              getattr(kinds.get(p.id), "dtype", None) == "i" and kinds[p.id].ndim]
    if len(arrays) < 2:
        return None
    return gast.Tuple(elts=[copy.deepcopy(p) for p in arrays], ctx=gast.Load())


def _spelled(index, kinds):
    return mask_of(index, kinds) or picks_of(index, kinds)


class SpellMasks:
    """Transformation of a generated function: `a[m]` for a boolean array `m` (in the
    forms InferKinds accepts) becomes `rt.masked(a, m)`, `a[m] = v` becomes
    `rt.set_masked(a, m, v)` and `a[m] += v` becomes `rt.add_masked(a, m, v)`; a mask
    along the second axis, `a[:, m]`, passes the axis last. Likewise `a[r, c]` for
    integer arrays `r` and `c` becomes `rt.pick(a, (r, c))` and `a[r, c] = v`
    `rt.put(a, (r, c), v)` (Numba takes one integer array per subscript).

    ReverseAD and ForwardAD write mask subscripts as NumPy does, on primal values,
    adjoints and tangents alike, and run this on the functions they make. The helpers
    (`srcad.runtime.masks`) are those subscripts where Python runs them, and what Numba
    lacks where it compiles them (it takes 1-d masks only, and unchecked). Statements
    shared with the analysed function are copied, never changed.

    >>> from codegen import to_source
    >>> from srcad.kinds import Kind
    >>> fn = gast.parse('''def f_rev(x, c, tape, d_out):
    ...     d_x = np.zeros_like(x)
    ...     d_y = np.sum(d_x[c])
    ...     d_x[c] = 0.0
    ...     d_x[:, c] += d_out
    ...     return d_x, d_y''').body[0]
    >>> kinds = {"x": Kind("f", 2), "c": Kind("b", 1)}
    >>> print(to_source(SpellMasks(kinds).run(fn)).strip())
    def f_rev(x, c, tape, d_out):
        d_x = np.zeros_like(x)
        d_y = np.sum(rt.masked(d_x, c))
        rt.set_masked(d_x, c, 0.0)
        rt.add_masked(d_x, c, d_out, 1)
        return d_x, d_y
    """

    needs = ("kinds",)
    provides = ()

    def __init__(self, kinds):
        self.kinds = kinds
        # without a boolean array there is no mask to spell: no statement is searched
        self.masks = any(getattr(k, "dtype", None) in ("b", "i") and getattr(k, "ndim", 0)
                         for k in kinds.values())

    def run(self, fnode):
        fnode = copy.copy(fnode)
        fnode.body = self.block(fnode.body)
        return fnode

    def block(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, (gast.If, gast.For, gast.While)):
                s = copy.copy(s)
                s.body, s.orelse = self.block(s.body), self.block(s.orelse)
            elif self.masks and any(isinstance(n, gast.Subscript) and
                                    _spelled(n.slice, self.kinds) for n in ir.walk(s)):
                s = self.statement(copy.deepcopy(s))
            out.append(s)
        return out

    def statement(self, s):
        target = s.targets[0] if isinstance(s, gast.Assign) else \
            s.target if isinstance(s, gast.AugAssign) else None
        mask = mask_of(target.slice, self.kinds) if isinstance(target, gast.Subscript) \
            else None
        picks = picks_of(target.slice, self.kinds) if isinstance(target, gast.Subscript) \
            else None
        if picks is not None:
            value = self.expressions(s.value)
            if isinstance(s, gast.AugAssign):  # `a[r, c] op= v`: a[r, c] = a[r, c] op v
                value = gast.BinOp(left=ir.call("rt.pick", copy.deepcopy(target.value),
                                                copy.deepcopy(picks)), op=s.op,
                                   right=value)
            call = ir.call("rt.put", target.value, copy.deepcopy(picks), value)
            return gast.copy_location(gast.Expr(value=call), s)
        if mask is None:
            return self.expressions(s)
        value = self.expressions(s.value)
        if isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add):
            call = self.call("rt.add_masked", target.value, mask, value)
        else:
            if isinstance(s, gast.AugAssign):  # `a[m] op= v`: a[m] = a[m] op v
                value = gast.BinOp(left=self.call("rt.masked", target.value, mask),
                                   op=s.op, right=value)
            call = self.call("rt.set_masked", target.value, mask, value)
        return gast.copy_location(gast.Expr(value=call), s)

    def expressions(self, node):
        """`node` with every mask read in it a call of `rt.masked`."""
        spell = self

        class Reads(gast.NodeTransformer):
            def visit_Subscript(self, sub):
                self.generic_visit(sub)
                picks = picks_of(sub.slice, spell.kinds)
                if picks is not None:
                    return ir.call("rt.pick", sub.value, picks)
                mask = mask_of(sub.slice, spell.kinds)
                return sub if mask is None else spell.call("rt.masked", sub.value, mask)

        return Reads().visit(node)

    @staticmethod
    def call(helper, array, mask, value=None):
        name, axis = mask
        args = [array, ir.name(name)] + ([value] if value is not None else [])
        return ir.call(helper, *args, *([ir.const(axis)] if axis else []))

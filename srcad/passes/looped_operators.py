"""LoopedOperators: `+ - * /` between two arrays of three or more dimensions, in a forward
or tangent sweep, spelled as the helpers of `srcad.runtime.loops`.

Numba compiles an operator between two arrays into a loop nest that LLVM copies for every
way each operand may broadcast along each axis: `x * y` of two 4-d arrays takes it 10 to
15 seconds to compile (3-d: 1.5 s; an array and a number: under a second), so that a
three-line function of 4-d arrays took longer to compile than anything it would compute.
`rt.mul(x, y)` gives the same array, element for element and in the same dtype (see
tests/test_loops.py), from one loop over rows compiled in a third of a second, once per
type signature, into Numba's disk cache. Reverse sweeps spell their adjoint arithmetic
that way already (`Adjoints.looped`); this pass does it for the primal arithmetic a
forward sweep (or a reverse sweep computing it again) and a tangent sweep run, for the
operators whose two operands are arrays of known numeric kinds: an operation with a
number, on vectors and matrices (which Numba compiles quickly, and fuses into one loop
with the operations around it), on booleans, lists, or on anything whose kind the sweep
does not know, stays as written.

>>> import gast
>>> from codegen import to_source
>>> from srcad.kinds import Kind
>>> fn = gast.parse('''def f_fwd(a, b, v):
...     c = a * b + v
...     d = a * 2.0 - b / v
...     return np.sum(c * np.exp(d)), v * v''').body[0]
>>> kinds = {"a": Kind("f", 4), "b": Kind("f", 4), "v": Kind("f", 1), "c": Kind("f", 4),
...          "d": Kind("f", 4)}
>>> print(to_source(LoopedOperators(kinds).run(fn)).strip())
def f_fwd(a, b, v):
    c = rt.add(rt.mul(a, b), v)
    d = rt.sub(a * 2.0, rt.div(b, v))
    return np.sum(rt.mul(c, np.exp(d))), v * v
"""
import functools

import gast
import numpy as np

from srcad.errors import SrcadError
from srcad.kinds import Kind
from srcad.passes import ir
from srcad.rules import registry

# operator -> (its helper, the ufunc that tells its result's dtype)
_OPERATORS = {gast.Add: ("rt.add", np.add), gast.Sub: ("rt.sub", np.subtract),
              gast.Mult: ("rt.mul", np.multiply), gast.Div: ("rt.div", np.true_divide)}
_HELPER_UFUNCS = dict(_OPERATORS.values())
# the fewest dimensions of an operand that makes an operator between two arrays a helper
MIN_NDIM = 3
_DTYPES = {"i": np.int64, "f": np.float64, "c": np.complex128}
_CODES = {v: k for k, v in _DTYPES.items()}


@functools.lru_cache(maxsize=None)
def _ufunc_dtype(ufunc, dtypes):
    """The dtype code ('i', 'f', 'c') of `ufunc` applied to values of the dtype codes
    `dtypes`; None for another dtype (bool) or for several results."""
    if ufunc.nout != 1 or ufunc.nin != len(dtypes):
        return None
    try:
        result = ufunc(*[np.ones(1, _DTYPES[d]) for d in dtypes])
    except TypeError:
        return None
    return _CODES.get(result.dtype.type)


class LoopedOperators:
    """Transformation of a generated sweep (see the module); `kinds`: the kind of each
    variable the sweep names, its adjoints' and tangents' included."""

    needs = ("kinds",)
    provides = ()

    def __init__(self, kinds):
        self.kinds = kinds

    def run(self, fnode):
        if not any(getattr(k, "ndim", 0) >= MIN_NDIM for k in self.kinds.values()):
            return fnode  # every value the sweep names has fewer dimensions: nothing to do
        for s in ir.walk(fnode):
            if isinstance(s, gast.stmt):
                self._children(s)
        return fnode

    def _children(self, node):
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                value[:] = [self.looped(v) if isinstance(v, gast.expr) else v for v in value]
            elif isinstance(value, gast.expr):
                setattr(node, field, self.looped(value))

    def looped(self, node):
        """`node` with its operators between arrays of `MIN_NDIM` or more dimensions
        spelled as helpers, innermost first."""
        self._children(node)
        if isinstance(node, gast.BinOp) and type(node.op) in _OPERATORS:
            left, right = self.kind(node.left), self.kind(node.right)
            if left is not None and right is not None and min(left.ndim, right.ndim) > 0 \
                    and max(left.ndim, right.ndim) >= MIN_NDIM:
                return gast.copy_location(ir.call(_OPERATORS[type(node.op)][0], node.left,
                                                  node.right), node)
        return node

    def kind(self, node):
        """The `Kind` of a numeric expression whose kind this pass can tell (a variable, a
        number, arithmetic of them, a call its rule gives the kind of), else None."""
        if isinstance(node, gast.Name):
            k = self.kinds.get(node.id)
        elif isinstance(node, gast.Constant):
            code = {int: "i", float: "f", complex: "c"}.get(type(node.value))
            k = Kind(code) if code else None
        elif isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            k = self.kind(node.operand)
        elif isinstance(node, gast.BinOp) and type(node.op) in _OPERATORS:
            k = self._ufunc_kind(_OPERATORS[type(node.op)][1], [node.left, node.right])
        elif isinstance(node, gast.Call) and ir.dotted_text(node.func) in _HELPER_UFUNCS:
            k = self._ufunc_kind(_HELPER_UFUNCS[ir.dotted_text(node.func)], node.args)
        elif isinstance(node, gast.Call):
            k = self._rule_kind(node)
        else:
            k = None
        return k if isinstance(k, Kind) and k.dtype in _DTYPES and not k.listed else None

    def _ufunc_kind(self, ufunc, operands):
        kinds = [self.kind(a) for a in operands]
        if not kinds or None in kinds:
            return None
        code = _ufunc_dtype(ufunc, tuple(k.dtype for k in kinds))
        return Kind(code, max(k.ndim for k in kinds)) if code else None

    def _rule_kind(self, call):
        """The kind the rule of `call` gives for its arguments' kinds (None where one is
        not known, or the rule refuses them)."""
        rule = registry.by_name(ir.dotted_text(call.func))
        if rule is None or rule.kind is None:
            return None
        try:
            bound = rule.bind(call.args, call.keywords, ValueError)
            kinds = {p: None if a is None else self.kind(a) for p, a in bound.items()}
            if any(k is None for p, k in kinds.items() if bound[p] is not None):
                return None
            return rule.kind({**dict.fromkeys(rule.params[1:]), **kinds}, bound)
        except (SrcadError, TypeError, ValueError):  # refused here: the kind stays unknown
            return None

"""LoopedOperators: `+ - * /` and comparisons between two arrays of three or more
dimensions, in a forward or tangent sweep, spelled as the helpers of `srcad.runtime.loops`.

Numba compiles an operator between two arrays into a loop nest that LLVM copies for every
way each operand may broadcast along each axis: `x * y` of two 4-d arrays takes it 10 to
15 seconds to compile, `x > y` 9 (3-d: 1.5 s; an array and a number: under a second), so
that a three-line function of 4-d arrays took longer to compile than anything it would
compute. `rt.mul(x, y)` gives the same array, element for element and in the same dtype
(see tests/test_loops.py), from one loop over rows compiled in a third of a second, once
per type signature, into Numba's disk cache; so does `rt.greater(x, y)`. Reverse sweeps
spell their adjoint arithmetic that way already (`Adjoints.looped`); this pass does it for
the primal arithmetic a forward sweep (or a reverse sweep computing it again) and a
tangent sweep run, for the operators whose two operands are arrays of known numeric
kinds (a mask times numbers too): an operation with a number, on vectors and matrices
(which Numba compiles quickly, and fuses into one loop with the operations around it), on
two masks, lists, or on anything whose kind the sweep does not know, stays as written, and
so does a comparison of complex arrays.

>>> import gast
>>> from codegen import to_source
>>> from srcad.kinds import Kind
>>> fn = gast.parse('''def f_fwd(a, b, v):
...     c = a * b + v
...     d = np.where(a > b, a * 2.0, b) - b / v
...     return np.sum(c * np.exp(d) * (a > 0.0)), v * v''').body[0]
>>> kinds = {"a": Kind("f", 4), "b": Kind("f", 4), "v": Kind("f", 1), "c": Kind("f", 4),
...          "d": Kind("f", 4)}
>>> print(to_source(LoopedOperators(kinds).run(fn)).strip())
def f_fwd(a, b, v):
    c = rt.add(rt.mul(a, b), v)
    d = rt.sub(np.where(rt.greater(a, b), a * 2.0, b), rt.div(b, v))
    return np.sum(rt.mul(rt.mul(c, np.exp(d)), a > 0.0)), v * v
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
# comparison -> its helper (real operands only: complex numbers have no order, and their
# equality is left as written)
_COMPARISONS = {gast.Gt: "rt.greater", gast.GtE: "rt.greater_equal", gast.Lt: "rt.less",
                gast.LtE: "rt.less_equal", gast.Eq: "rt.equal", gast.NotEq: "rt.not_equal"}
# the fewest dimensions of an operand that makes an operator between two arrays a helper
MIN_NDIM = 3
_DTYPES = {"b": np.bool_, "i": np.int64, "f": np.float64, "c": np.complex128}
_CODES = {v: k for k, v in _DTYPES.items()}


@functools.lru_cache(maxsize=None)
def _ufunc_dtype(ufunc, dtypes):
    """The dtype code ('b', 'i', 'f', 'c') of `ufunc` applied to values of the dtype
    codes `dtypes`; None for several results."""
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
        if isinstance(node, gast.BinOp) and type(node.op) in _OPERATORS \
                and self._arrays(node.left, node.right):
            return gast.copy_location(ir.call(_OPERATORS[type(node.op)][0], node.left,
                                              node.right), node)
        if isinstance(node, gast.Compare) and len(node.ops) == 1 \
                and type(node.ops[0]) in _COMPARISONS \
                and self._arrays(node.left, node.comparators[0], real=True):
            return gast.copy_location(ir.call(_COMPARISONS[type(node.ops[0])], node.left,
                                              node.comparators[0]), node)
        return node

    def _arrays(self, a, b, real=False):
        """Whether `a` and `b` are arrays of known kinds, one of `MIN_NDIM` dimensions or
        more: numbers (`real`: not complex), or for arithmetic a mask and numbers
        (`x * (x > 0)`; two masks keep their operator, whose meaning NumPy gives)."""
        kinds = [self.kind(a), self.kind(b)]
        if None in kinds or not all(k.ndim for k in kinds) \
                or max(k.ndim for k in kinds) < MIN_NDIM:
            return False
        dtypes = sorted(k.dtype for k in kinds)
        if real:
            return set(dtypes) <= set("if")
        return set(dtypes) <= set("ifc") or dtypes[0] == "b" and dtypes[1] in "ifc"

    def kind(self, node):
        """The `Kind` of an expression whose kind this pass can tell (a variable, a number,
        arithmetic and comparisons of them, a call its rule gives the kind of), else None."""
        if isinstance(node, gast.Name):
            k = self.kinds.get(node.id)
        elif isinstance(node, gast.Constant):
            code = {int: "i", float: "f", complex: "c"}.get(type(node.value))
            k = Kind(code) if code else None
        elif isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            k = self.kind(node.operand)
        elif isinstance(node, gast.BinOp) and type(node.op) in _OPERATORS:
            k = self._ufunc_kind(_OPERATORS[type(node.op)][1], [node.left, node.right])
        elif isinstance(node, gast.Compare) and len(node.ops) == 1:
            sides = [self.kind(node.left), self.kind(node.comparators[0])]
            k = None if None in sides else Kind("b", max(side.ndim for side in sides))
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

"""Which expressions are constants: literals, module-level numbers and tuples of numbers,
and arithmetic on them, with the value Python gives them.

>>> from srcad.passes.resolve_names import ResolveNames
>>> from srcad.source import FunctionSource
>>> K, SIZES = 3, (1, 2.5)
>>> def f(x):
...     return x * (2 + K) ** -1 + SIZES[0]
>>> fsrc = FunctionSource(f)
>>> consts = Constants(ResolveNames(fsrc))
>>> ret = fsrc.node.body[0].value
>>> consts.constant(ret.left.right).value, consts.constant(ret.left) is None
(0.2, True)
>>> [c.value for c in consts.global_tuple(ret.right.value).elts]
[1, 2.5]
"""
import math
import numbers
import operator

import gast
import numpy as np

from srcad.passes import ir

_FOLDED = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
           gast.Div: operator.truediv, gast.FloorDiv: operator.floordiv,
           gast.Mod: operator.mod, gast.Pow: operator.pow}


class Constants:
    """Constant expressions of one function, whose free names `resolve` (a ResolveNames)
    looks up."""

    def __init__(self, resolve):
        self.resolve = resolve

    def local(self, name):
        """Whether `name` is the function's own (parameters, variables, names passes made)."""
        return name not in self.resolve.free

    def constant(self, expr):
        """`expr` as a constant when it is one: a literal, a global number, or arithmetic
        on them (`(2 + 1) ** -3`, `2 - K` for a global `K`), computed as Python computes
        it; arithmetic that raises, or gives a number compiled code holds otherwise (a
        64-bit overflow, an infinity), is left to run."""
        if isinstance(expr, gast.Constant):
            return expr
        if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, (gast.USub, gast.UAdd)) \
                and isinstance(expr.operand, gast.Constant) \
                and isinstance(expr.operand.value, numbers.Number):
            v = expr.operand.value
            return ir.const(-v if isinstance(expr.op, gast.USub) else v)
        if isinstance(expr, (gast.UnaryOp, gast.BinOp)):
            return _folded(_literal(expr, self.number))
        return self.global_number(expr)

    def number(self, expr):
        """The int or float that `expr` (a literal or a global name) is, or None."""
        c = self.constant(expr) if not isinstance(expr, (gast.UnaryOp, gast.BinOp)) else None
        v = c.value if c is not None else None
        return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    def global_number(self, expr):
        """A module-level number, bool or None named by `expr`, as a constant; else None."""
        text = ir.dotted_text(expr)
        if text is None or self.local(text.split(".")[0]):
            return None
        obj = self.resolve.lookup(text)
        if isinstance(obj, (bool, np.bool_)):
            return ir.const(bool(obj))
        if isinstance(obj, numbers.Integral):
            return ir.const(int(obj))
        if isinstance(obj, numbers.Real):
            return ir.const(float(obj))
        if obj is None:
            return ir.const(None)
        return None

    def global_tuple(self, expr):
        """A module-level tuple (or list) of numbers, as a tuple literal; else None."""
        text = ir.dotted_text(expr)
        if text is None or self.local(text.split(".")[0]):
            return None
        obj = self.resolve.lookup(text)
        if isinstance(obj, (tuple, list)) and obj and all(
                isinstance(v, numbers.Real) and not isinstance(v, np.ndarray) for v in obj):
            return gast.Tuple(elts=[ir.const(float(v) if isinstance(v, float) else int(v))
                                    for v in obj], ctx=gast.Load())
        return None


def _literal(expr, number):
    """The number that `expr` is, written with arithmetic on numbers (`number(leaf)`: a
    literal's or a global's value, or None), or None."""
    if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, (gast.USub, gast.UAdd)):
        v = _literal(expr.operand, number)
        return None if v is None else (-v if isinstance(expr.op, gast.USub) else v)
    if isinstance(expr, gast.BinOp) and type(expr.op) in _FOLDED:
        left, right = _literal(expr.left, number), _literal(expr.right, number)
        if left is None or right is None:
            return None
        try:
            return _small(_FOLDED[type(expr.op)](left, right))
        except (ArithmeticError, ValueError):  # raised when the function runs, as in Python
            return None
    if isinstance(expr, (gast.UnaryOp, gast.BinOp)):
        return None
    return number(expr)


def _small(v):
    """`v` when it is a number compiled code holds as Python does: a finite float, or an
    int of 63 bits; else None (left to run)."""
    if isinstance(v, float) and math.isfinite(v):
        return v
    if isinstance(v, int) and -2 ** 63 <= v < 2 ** 63:
        return v
    return None


def _folded(v):
    v = _small(v) if v is not None else None
    return ir.const(v) if v is not None else None

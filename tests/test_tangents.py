"""Every tangent template (forward mode), checked without the forward-mode transform.

A rule's tangent is the expression of its `t[ans] = ...` template. Here it is evaluated
directly: each `t[p]` is replaced by the tangent of parameter `p` (terms of parameters
without a tangent are dropped, as the transform drops them), the primal values and `ans`
are bound by name, and the value is compared with

* a central finite difference of the rule's function along the tangent direction (all
  differentiable arguments moved together, `eps * tangent`), at points away from kinks;
* the rule's adjoint template, through the duality <d_ans, T t> = sum_p <A_p d_ans, t_p>,
  also at ties and kinks (where both must follow the same convention).

A few representative templates are also compiled with Numba.

Adding a rule with an adjoint but no tangent fails `test_every_adjoint_rule_has_a_tangent`;
a rule with a tangent but no case here fails `test_every_tangent_is_checked`.
"""
import ast
import math
import operator
from dataclasses import dataclass

import gast
import numpy as np
import pytest
from numba import njit

from srcad import runtime as rt
from srcad.passes.forward_ad import additive_terms
from srcad.rules import registry
from srcad.rules.registry import all_rules
from tests.rule_domains import points, rules_with_domains, spelling
from tests.test_rules import (
    _A234,
    A23,
    B23,
    B32,
    MASK,
    SPD3,
    V2,
    V3,
    V6,
    W,
    scal,
    vec,
)

# ---------------------------------------------------------------------------
# Cases: a rule, the arguments of one call of it, and which arguments are constants
# ---------------------------------------------------------------------------

_OPERATORS = {
    "op.Add": operator.add, "op.Sub": operator.sub, "op.Mult": operator.mul,
    "op.Div": operator.truediv, "op.Pow": operator.pow, "op.Mod": operator.mod,
    "op.USub": operator.neg, "op.MatMult": operator.matmul,
}


@dataclass
class Case:
    """A call `rule(*args.values())`; `args` name the rule's leading parameters in order
    (the others take their defaults). Differentiable parameters holding floats (or
    sequences of floats) get tangents, except those named in `const`."""

    rule: object
    args: dict
    label: str = ""
    const: tuple = ()
    dual: bool = True  # False: the adjoint is known not to handle this call

    @property
    def entry(self):
        rule = registry.by_name(self.rule) if isinstance(self.rule, str) \
            else registry.lookup(self.rule)
        assert rule is not None, f"no rule for {self.rule!r}"
        return rule

    @property
    def name(self):
        return self.entry.name

    @property
    def id(self):
        return f"{self.name}-{self.label}" if self.label else self.name

    def function(self):
        return _OPERATORS[self.rule] if isinstance(self.rule, str) else self.rule

    def values(self):
        """Every parameter of the rule (after `ans`), by name, defaults filled in."""
        params = self.entry.params[1:]
        assert list(self.args) == params[:len(self.args)], \
            f"{self.id}: arguments {list(self.args)} are not a prefix of {params}"
        return {p: _copy(self.args[p]) if p in self.args else self.entry.defaults[p]
                for p in params}

    def call(self, values):
        return self.function()(*[values[p] for p in list(self.args)])

    def with_tangent(self):
        """Differentiable parameters that carry a tangent here."""
        return [p for p in self.entry.params[1:]
                if p in self.entry.diff and p in self.args and p not in self.const
                and _is_float(self.args[p])]


def _is_float(v):
    if isinstance(v, (tuple, list)):
        return len(v) > 0 and all(_is_float(e) for e in v)
    if isinstance(v, np.ndarray):
        return np.issubdtype(v.dtype, np.inexact)
    return isinstance(v, (float, np.floating, complex))


def _copy(v):
    if isinstance(v, np.ndarray):
        return v.copy()
    if isinstance(v, (tuple, list)):
        return type(v)(_copy(e) for e in v)
    return v


def _direction(v, rng):
    """A tangent for value `v`: same structure, irregular entries in (-1, 1)."""
    if isinstance(v, (tuple, list)):
        return tuple(_direction(e, rng) for e in v)
    if isinstance(v, np.ndarray):
        out = rng.uniform(-1.0, 1.0, v.shape)
        return out + 1j * rng.uniform(-1.0, 1.0, v.shape) if np.iscomplexobj(v) else out
    if isinstance(v, complex):
        return complex(rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0))
    return float(rng.uniform(-1.0, 1.0))


def _moved(v, tv, h):
    if isinstance(v, (tuple, list)):
        return type(v)(_moved(e, te, h) for e, te in zip(v, tv))
    return v + h * tv


def _binary(rule, x_dom=(-2.0, 2.0), y_dom=(-2.0, 2.0)):
    xs, ys = vec(*x_dom), vec(*y_dom)[::-1].copy()
    x2d = np.abs(A23) + 0.3 if x_dom[0] > 0 else A23
    return [
        Case(rule, {"x": scal(*x_dom), "y": scal(*y_dom)}, "scalar"),
        Case(rule, {"x": xs, "y": ys}, "array"),
        Case(rule, {"x": xs, "y": scal(*y_dom)}, "array-scalar"),
        Case(rule, {"x": scal(*x_dom), "y": ys}, "scalar-array"),
        Case(rule, {"x": x2d, "y": vec(*y_dom)[:3]}, "broadcast-2d"),
        Case(rule, {"x": xs, "y": ys}, "only-x", const=("y",)),
        Case(rule, {"x": xs, "y": ys}, "only-y", const=("x",)),
    ]


def _from_domain(rule):
    """The cases of a rule that declares its domain (see `tests.rule_domains`)."""
    fn, _ = spelling(rule)
    return [Case(fn, point.args, point.label) for point in points(rule)]


def _negative_side(fn):
    """|x| and fabs also left of their kink at 0."""
    return [Case(fn, {"x": -scal(0.2, 2.0)}, "negative")]


def _pairwise(fn):
    x = vec(-2.0, 2.0)
    y = np.array([0.5, -1.0, 1.2, 0.1])
    return [Case(fn, {"x": x, "y": y}, "array"), Case(fn, {"x": x, "y": 0.3}, "array-scalar"),
            Case(fn, {"x": 0.4, "y": -0.2}, "scalar"), Case(fn, {"x": -0.4, "y": 0.2}, "swap")]


def _reduction(fn, lo=-2.0, hi=2.0):
    a = lo + (hi - lo) * np.array([[0.13, 0.52, 0.88], [0.71, 0.05, 0.34]])
    return [Case(fn, {"x": vec(lo, hi)}, "1d"), Case(fn, {"x": a}, "2d"),
            Case(fn, {"x": a, "axis": 0}, "axis0"), Case(fn, {"x": a, "axis": 1}, "axis1"),
            Case(fn, {"x": a, "axis": -1}, "axis-negative"),
            Case(fn, {"x": vec(lo, hi), "axis": 0}, "1d-axis0")]


CASES = [
    # operators
    *_binary("op.Add"),
    *_binary("op.Sub"),
    *_binary("op.Mult"),
    *_binary("op.Div", y_dom=(0.5, 2.0)),
    *_binary("op.Pow", x_dom=(0.3, 2.0), y_dom=(-1.5, 2.5)),
    *_binary("op.Mod", x_dom=(2.1, 5.3), y_dom=(0.7, 1.9)),
    Case("op.Pow", {"x": -0.8, "y": 3}, "int-exponent"),
    Case("op.Pow", {"x": vec(-2.0, 2.0), "y": 2}, "int-exponent-array"),
    Case("op.Pow", {"x": vec(0.3, 2.0), "y": 0.5}, "sqrt"),
    Case("op.USub", {"x": 0.6}, "scalar"),
    Case("op.USub", {"x": vec(-1.0, 1.0)}, "array"),
    Case("op.MatMult", {"x": A23, "y": B32}, "2d-2d"),
    Case("op.MatMult", {"x": A23, "y": V3}, "2d-1d"),
    Case("op.MatMult", {"x": V2, "y": A23}, "1d-2d"),
    Case("op.MatMult", {"x": vec(-1.0, 1.0), "y": W}, "1d-1d"),
    Case("op.MatMult", {"x": A23, "y": B32}, "only-y", const=("x",)),
    # builtins
    Case(abs, {"x": -0.7}, "negative"),
    Case(abs, {"x": 0.7}, "positive"),
    Case(abs, {"x": vec(-1.0, 1.0)}, "array"),
    Case(max, {"x": 0.4, "y": -0.2}, "first"),
    Case(max, {"x": -0.4, "y": 0.2}, "second"),
    Case(min, {"x": 0.4, "y": -0.2}, "second"),
    Case(min, {"x": -0.4, "y": 0.2}, "first"),
    Case(float, {"x": 0.6}),
    # math
    *_negative_side(math.fabs),
    Case(math.atan2, {"y": 0.7, "x": -1.2}),
    Case(math.pow, {"x": 1.3, "y": -0.6}),
    Case(math.hypot, {"x": 1.3, "y": -0.6}),
    # numpy, elementwise
    *_negative_side(np.absolute),
    *[c for rule in rules_with_domains() for c in _from_domain(rule)],
    Case(np.power, {"x": vec(0.3, 2.0), "y": vec(-1.5, 2.5)}, "array"),
    Case(np.power, {"x": 1.4, "y": -0.7}, "scalar"),
    Case(np.power, {"x": vec(-2.0, 2.0), "y": 2.0}, "negative-base", const=("y",)),
    *_pairwise(np.maximum),
    *_pairwise(np.minimum),
    Case(np.clip, {"x": vec(-2.0, 2.0), "a_min": -0.5, "a_max": 0.8}, "array"),
    Case(np.clip, {"x": 1.1, "a_min": -0.5, "a_max": 0.8}, "scalar-above"),
    Case(np.clip, {"x": -1.1, "a_min": -0.5, "a_max": 0.8}, "scalar-below"),
    Case(np.clip, {"x": 0.1, "a_min": -0.5, "a_max": 0.8}, "scalar-inside"),
    Case(np.clip, {"x": np.array([-1.0, 0.2, 0.9, 2.0]), "a_min": np.array([-0.5, 0.0, 0.1, 0.0]),
                   "a_max": np.array([0.5, 1.0, 0.5, 1.5])}, "array-bounds"),
    Case(np.clip, {"x": vec(-2.0, 2.0), "a_min": None, "a_max": 0.8}, "no-lower"),
    Case(np.clip, {"x": vec(-2.0, 2.0), "a_min": -0.5, "a_max": None}, "no-upper"),
    Case(np.where, {"condition": MASK, "x": vec(-1.0, 1.0), "y": vec(0.0, 3.0)}, "mask"),
    Case(np.where, {"condition": MASK, "x": vec(-1.0, 1.0), "y": 0.0}, "constant-branch",
         const=("y",)),
    Case(np.where, {"condition": MASK, "x": 0.4, "y": vec(0.0, 3.0)}, "scalar-branch"),
    Case(np.where, {"condition": True, "x": 0.7, "y": 0.2}, "scalar"),
    Case(np.where, {"condition": False, "x": 0.7, "y": 0.2}, "scalar-false"),
    Case(np.array, {"arrays": (0.3, 0.6, -0.7)}, "scalars"),
    Case(np.array, {"arrays": (V3, -V3[::-1])}, "arrays"),
    Case(np.array, {"arrays": vec(-1.0, 1.0)}, "copy"),
    Case(np.float64, {"x": 0.6}),
    # numpy, reductions
    *_reduction(np.sum),
    *_reduction(np.mean),
    *_reduction(np.prod, 0.3, 1.8),
    *_reduction(np.max),
    *_reduction(np.min),
    Case(np.sum, {"x": A23, "axis": (0, 1)}, "axis-tuple"),
    Case(np.prod, {"x": np.array([0.3, 0.0, 1.4, -0.8])}, "with-zero"),
    Case(np.prod, {"x": np.array([0.3, 0.0, 1.4, 0.0])}, "two-zeros"),
    Case(np.prod, {"x": np.array([[0.3, 0.0, 1.4], [0.5, -0.8, 1.1]]), "axis": 1},
         "with-zero-axis1"),
    Case(np.prod, {"x": _A234, "axis": 0}, "3d-axis0"),
    Case(np.prod, {"x": _A234, "axis": 1}, "3d-axis1"),
    Case(np.max, {"x": _A234, "axis": 2}, "3d-axis2"),
    Case(np.min, {"x": _A234, "axis": 1}, "3d-axis1"),
    # numpy, products
    Case(np.dot, {"x": vec(-1.0, 1.0), "y": W}, "1d-1d"),
    Case(np.dot, {"x": A23, "y": V3}, "2d-1d"),
    Case(np.dot, {"x": V2, "y": A23}, "1d-2d"),
    Case(np.dot, {"x": A23, "y": B32}, "2d-2d"),
    Case(np.dot, {"x": 0.7, "y": vec(-1.0, 1.0)}, "scalar-array"),
    Case(np.dot, {"x": A23, "y": -0.4}, "array-scalar"),
    Case(np.dot, {"x": 0.7, "y": -0.4}, "scalar-scalar"),
    Case("op.MatMult", {"x": _A234.transpose(0, 2, 1), "y": B32}, "stacked"),
    # numpy, shapes and joins
    Case(np.transpose, {"x": A23}),
    Case(np.transpose, {"x": _A234}, "3d"),
    Case(np.reshape, {"x": V6, "shape": (2, 3)}),
    Case(np.reshape, {"x": V6, "shape": (2, -1)}, "minus-1"),
    Case(np.reshape, {"x": A23, "shape": 6}, "to-1d"),
    Case(np.reshape, {"x": A23.T, "shape": (3, 2)}, "non-contiguous"),
    Case(np.ravel, {"x": A23}),
    Case(np.ravel, {"x": A23.T}, "non-contiguous"),
    Case(rt.flatten, {"x": A23}),
    Case(rt.astype, {"x": A23, "dtype": np.float64}),
    Case(rt.keep_dims, {"r": np.sum(A23, axis=1), "x": A23, "axis": 1}, const=("x",)),
    Case(np.copy, {"x": vec(-1.0, 1.0)}),
    Case(np.concatenate, {"arrays": (V2, V6[:2].copy())}, "1d"),
    Case(np.concatenate, {"arrays": (A23, B23), "axis": 1}, "axis1"),
    Case(np.concatenate, {"arrays": (A23, B23)}, "axis0-2d"),
    Case(np.concatenate, {"arrays": (V2, V3, np.array([0.5]))}, "three"),
    Case(np.hstack, {"arrays": (V2, V6[:2].copy())}, "1d"),
    Case(np.hstack, {"arrays": (A23, B23)}, "2d"),
    Case(np.vstack, {"arrays": (vec(-1.0, 1.0), W)}, "1d"),
    Case(np.vstack, {"arrays": (A23, B23)}, "2d"),
    Case(np.column_stack, {"arrays": (vec(-1.0, 1.0), W)}, "1d"),
    Case(np.column_stack, {"arrays": (A23.T.copy(), V3)}, "2d-1d"),
    Case(rt.outer_left, {"a": V2, "b": A23}, "1d-2d"),
    Case(rt.outer_left, {"a": 0.7, "b": V3}, "scalar"),
    Case(np.stack, {"arrays": (vec(-1.0, 1.0), W)}, "axis0"),
    Case(np.stack, {"arrays": (vec(-1.0, 1.0), W), "axis": 1}, "axis1"),
    Case(np.stack, {"arrays": (vec(-1.0, 1.0), W, vec(0.0, 2.0)), "axis": 1}, "three"),
    # numpy, constructors with float arguments
    Case(np.full, {"shape": 3, "fill_value": 0.7}),
    Case(np.full, {"shape": (2, 3), "fill_value": -0.4}, "2d"),
    Case(np.full_like, {"a": A23, "fill_value": -0.4}, "2d"),
    Case(np.linspace, {"start": 0.3, "stop": 1.7, "num": 4}),
    Case(np.linspace, {"start": 0.3, "stop": 1.7}, "default-num"),
    Case(np.linspace, {"start": 0.3, "stop": 1.7, "num": 1}, "one"),
    Case(np.linspace, {"start": 0.3, "stop": 1.7, "num": 4, "endpoint": False}, "no-endpoint"),
    Case(np.arange, {"start": 0.3, "stop": 4.0}, "start-stop"),
    Case(np.arange, {"start": 0.3, "stop": 4.0, "step": 0.7}, "step"),
    Case(np.arange, {"start": 3.4}, "stop-only"),
    Case(np.fft.fftfreq, {"n": 6, "spacing": 0.7}),
    Case(np.fft.rfftfreq, {"n": 7, "spacing": 1.3}),
    # linear algebra
    Case(np.linalg.solve, {"a": SPD3, "b": V3}, "vector"),
    Case(np.linalg.solve, {"a": SPD3 + A23.T @ B23, "b": A23.T.copy()}, "matrix"),
    Case(np.linalg.inv, {"a": SPD3 + B32 @ A23}),
    Case(np.linalg.det, {"a": SPD3 + B32 @ A23}),
    Case(np.linalg.cholesky, {"a": SPD3}),
    Case(np.linalg.norm, {"x": V3}, "vector"),
    Case(np.linalg.norm, {"x": A23}, "matrix"),
    Case(np.outer, {"a": V2, "b": V3}),
    Case(np.trace, {"a": A23.T @ B23}),
    Case(np.diag, {"v": V3}, "vector"),
    Case(np.diag, {"v": SPD3 + B32 @ A23}, "matrix"),
    Case(np.diag, {"v": V3, "k": 1}, "vector-k"),
    Case(np.diag, {"v": SPD3 + B32 @ A23, "k": -1}, "matrix-k"),
    Case(rt.logabsdet, {"a": SPD3 + B32 @ A23}),
    Case(rt.logabsdet, {"a": -SPD3 + B32 @ A23}, "negative-det"),
    # srcad's runtime helpers that forward-mode code calls (differentiated for Hessians)
    Case(rt.select, {"c": MASK, "a": vec(-1.0, 1.0), "b": vec(0.0, 3.0)}, "mask"),
    Case(rt.select, {"c": False, "a": 0.7, "b": 0.2}, "scalar"),
    Case(rt.matmul, {"x": A23, "y": B32}, "2d-2d"),
    Case(rt.matmul, {"x": 0.7, "y": vec(-1.0, 1.0)}, "scalar-array"),
    Case(rt.histogram_counts, {"a": vec(0.1, 0.9), "bins": 3, "range": None,
                               "weights": vec(-1.0, 1.0)}, "weights"),
    Case(rt.histogram_edges, {"a": vec(0.1, 0.9), "bins": 3}, "moving"),
    Case(rt.dot, {"x": A23, "y": B32}, "2d-2d"),
    Case(rt.dot, {"x": 0.7, "y": vec(-1.0, 1.0)}, "scalar-array"),
    *[Case(helper, {"x": np.linspace(-0.8, 1.3, 24).reshape(2, 3, 4),
                   "y": np.cos(np.arange(12.0)).reshape(3, 4) + 2.0},
           "3d-2d") for helper in (rt.add, rt.sub, rt.mul, rt.div)],
    Case(rt.pow_dx, {"x": vec(0.3, 2.0), "y": vec(-1.5, 2.5)}),
    Case(rt.pow_dx, {"x": -0.8, "y": 3}, "int-exponent"),
    Case(rt.log_or_zero, {"x": vec(0.3, 2.0)}),
    Case(rt.atan2_dy, {"y": vec(-1.5, 2.5), "x": vec(0.3, 2.0)}),
    Case(rt.atan2_dx, {"y": -0.6, "x": 0.9}, "scalar"),
    Case(rt.unit_conj, {"z": np.array([0.8 + 0.3j, -0.4 + 1.1j]), "r": np.array([1.3, 0.7])}),
    Case(rt.cpow_dx, {"x": np.array([0.8 + 0.3j, -0.4 + 1.1j]), "y": 1.7 - 0.2j}),
    Case(rt.clog_or_zero, {"x": np.array([0.8 + 0.3j, -0.4 + 1.1j])}),
    Case(rt.inverse_or_zero, {"z": np.array([0.8 + 0.3j, -0.4 + 1.1j])}),
    Case(np.var, {"x": A23, "axis": 0}, "axis0"),
    Case(np.roll, {"a": A23, "shift": 2, "axis": 0}, "axis0"),
    Case(np.std, {"x": A23, "axis": 1}, "axis1"),
    Case(rt.log_base, {"base": 2.5}),
    Case(rt.select_tangent, {"v": B23, "x": A23, "extreme": np.max(A23, axis=0), "axis": 0},
         "axis0"),
    Case(rt.prod_tangent, {"v": W, "x": np.array([0.3, 0.0, 1.4, -0.8]), "axis": None},
         "with-zero"),
    Case(rt.prod_tangent, {"v": B23, "x": np.abs(A23) + 0.2, "axis": 1}, "axis1"),
    Case(rt.sort_tangent, {"v": B23, "a": A23, "axis": 0}, "axis0"),
    Case(rt.sort_tangent, {"v": B23, "a": A23, "axis": None}, "flattened"),
    # the adjoint, np.diag(d[ans], k), gives a square matrix: wrong for these
    Case(np.diag, {"v": A23}, "non-square"),
    Case(np.diag, {"v": A23.T, "k": -1}, "non-square-k"),
]

_TIE = np.array([0.5, -1.0, 1.2, 0.1])

# points at kinks and ties: no finite difference there, but the tangent must follow the
# adjoint's convention (checked by duality)
TIE_CASES = [
    Case(abs, {"x": 0.0}, "zero"),
    Case(math.fabs, {"x": 0.0}, "zero"),
    Case(np.abs, {"x": np.array([0.0, -0.3, 0.0, 1.2])}, "zeros"),
    Case(max, {"x": 0.4, "y": 0.4}, "tie"),
    Case(min, {"x": 0.4, "y": 0.4}, "tie"),
    Case(np.maximum, {"x": np.array([0.5, 0.3, 1.2, -0.4]), "y": _TIE}, "ties"),
    Case(np.minimum, {"x": np.array([0.5, 0.3, 1.2, -0.4]), "y": _TIE}, "ties"),
    Case(np.maximum, {"x": 0.1, "y": _TIE}, "scalar-tie"),
    Case(np.clip, {"x": np.array([-0.5, 0.2, 0.8, 2.0]), "a_min": -0.5, "a_max": 0.8},
         "at-bounds"),
    Case(np.clip, {"x": np.array([-0.5, 0.2, 0.8, 2.0]), "a_min": -0.5, "a_max": -0.5},
         "equal-bounds"),
    Case(np.clip, {"x": np.array([0.2, 0.6, 0.5, 1.0]), "a_min": 1.0, "a_max": 0.5},
         "crossed-bounds"),
    Case(np.max, {"x": np.array([0.3, 1.2, -0.4, 1.2])}, "tie"),
    Case(np.min, {"x": np.array([[0.3, -0.4, -0.4], [0.3, 0.5, -1.0]]), "axis": 0}, "ties"),
    Case(np.max, {"x": np.array([[0.3, -0.4, 0.3], [1.0, 1.0, -1.0]]), "axis": 1}, "ties"),
    Case(np.prod, {"x": np.array([[0.0, 0.0, 1.4], [0.5, -0.8, 0.0]]), "axis": 1}, "zeros"),
    Case("op.Pow", {"x": np.array([0.0, 0.0, 0.0, 1.3]), "y": np.array([2.0, 1.0, 0.0, 0.0])},
         "zero-base"),
]

# Compiled with Numba: one or more cases for every runtime helper the templates call, and
# for the NumPy functions whose Numba versions are restrictive (axis, scalars, layouts).
NUMBA_IDS = {
    "op.Pow-array-scalar", "op.Pow-scalar", "op.Div-broadcast-2d", "op.Mod-scalar",
    "op.MatMult-2d-1d", "op.MatMult-only-y", "max-first", "min-second", "float",
    "math.atan2", "rt.pow", "math.fabs-negative", "np.sin-array", "np.arcsin-scalar",
    "np.power-array", "np.maximum-array-scalar", "np.minimum-scalar", "rt.clip-array",
    "rt.clip-no-lower", "rt.clip-array-bounds", "rt.select-mask", "rt.dot-2d-2d",
    "rt.pow_dx", "rt.log_or_zero", "rt.select_tangent-axis0", "rt.prod_tangent-axis1",
    "rt.logabsdet", "np.where-mask", "np.sum-axis1", "np.sum-2d",
    "rt.mean-axis0", "rt.mean-1d", "rt.prod-axis1", "rt.prod-with-zero", "rt.prod-1d-axis0",
    "rt.amax-2d", "rt.amax-axis0", "rt.amin-axis-negative", "rt.amin-1d-axis0",
    "np.dot-scalar-array", "np.dot-2d-2d", "np.dot-1d-1d", "np.transpose", "rt.reshape",
    "np.ravel-non-contiguous", "rt.flatten", "np.copy", "np.concatenate-axis1",
    "np.stack-axis1", "rt.array-scalars", "np.full-2d", "rt.linspace", "np.arange-step",
    "np.arange-stop-only", "rt.solve-vector", "rt.solve-matrix", "np.linalg.inv",
    "np.linalg.det", "np.linalg.cholesky", "np.linalg.norm-vector", "np.outer", "np.trace",
    "np.diag-vector-k", "np.diag-matrix",
    # shapes, sorting, running products, averages (their runtime helpers)
    "rt.diff-2d", "rt.flip-2d", "np.fliplr-2d", "rt.tile-2d", "rt.repeat-2d", "rt.sort-2d",
    "rt.sort_tangent-axis0", "rt.cumprod-2d", "rt.atleast_3d-1d", "rt.expand_dims-2d",
    "rt.squeeze-2d", "rt.triu-1d", "np.asarray-2d", "rt.average-2d", "rt.ptp-2d",
    "np.fmax-array-scalar", "np.logaddexp2-2d", "np.fabs-scalar", "rt.gamma-scalar",
    "math.copysign-scalar",
}

# numpy_more: gathering, contractions, signals, quantiles, NaNs (the rules with a domain
# have their cases from it)
_XP = np.array([-1.0, 0.0, 0.5, 1.5])
_NANS = np.array([[0.3, np.nan, 0.8], [1.1, 0.45, np.nan]])

CASES += [
    Case(np.bincount, {"x": np.array([0, 2, 2, 1]), "weights": W}, "weights"),
    Case(np.bincount, {"x": np.array([0, 3, 3, 1]), "weights": W, "minlength": 6},
         "minlength"),
    Case(np.take, {"a": vec(-1.0, 1.0), "indices": np.array([2, 0, 2, -1])}, "flat"),
    Case(np.take, {"a": A23, "indices": np.array([2, 0, 2, -1]), "axis": 1}, "axis1"),
    Case(np.take, {"a": A23, "indices": 1, "axis": 0}, "int-axis0"),
    Case(np.take, {"a": _A234, "indices": np.array([[0, 2], [1, 1]]), "axis": -1},
         "2d-indices"),
    Case(np.broadcast_to, {"array": V3, "shape": (2, 3)}, "rows"),
    Case(np.broadcast_to, {"array": V2.reshape(2, 1).copy(), "shape": (2, 3)}, "column"),
    Case(np.broadcast_to, {"array": 0.7, "shape": (3,)}, "number"),
    Case(np.swapaxes, {"a": _A234, "axis1": 0, "axis2": 2}, "3d"),
    Case(np.moveaxis, {"a": _A234, "source": (0, 1), "destination": (2, 0)}, "tuples"),
    Case(np.inner, {"a": A23, "b": V3}, "2d-1d"),
    Case(np.inner, {"a": _A234, "b": np.cos(np.arange(8.0)).reshape(2, 4)}, "3d-2d"),
    Case(np.tensordot, {"a": A23, "b": B32, "axes": 1}, "int"),
    Case(np.tensordot, {"a": A23, "b": B23}, "default"),
    Case(np.tensordot, {"a": A23, "b": B23, "axes": ((1,), (1,))}, "pairs"),
    Case(np.tensordot, {"a": _A234, "b": B32, "axes": (0, 1)}, "3d-pair"),
    Case(np.tensordot, {"a": _A234, "b": np.cos(np.arange(24.0)).reshape(4, 3, 2),
                        "axes": ((1, 2), (1, 0))}, "two-pairs"),
    Case(np.kron, {"a": V2, "b": A23}, "1d-2d"),
    Case(np.cross, {"a": V3, "b": V3[::-1] * 2.0 + 0.1}, "vectors"),
    Case(np.cross, {"a": A23, "b": B23}, "rows"),
    Case(np.cross, {"a": A23, "b": V3}, "rows-vector"),
    Case(np.interp, {"x": np.array([-1.5, 0.2, 0.9, 2.0]), "xp": _XP, "fp": W}, "array"),
    Case(np.interp, {"x": 0.3, "xp": _XP, "fp": W}, "scalar"),
    Case(np.interp, {"x": np.array([-1.5, 0.2, 0.9, 2.0]), "xp": _XP, "fp": W, "left": -3.0,
                     "right": 2.0}, "left-right"),
    Case(np.interp, {"x": A23, "xp": _XP, "fp": W}, "2d"),
    *[Case(np.convolve, {"a": a, "v": v, "mode": mode}, f"{mode}-{label}")
      for mode in ("full", "same", "valid")
      for label, a, v in (("longer", V6, V3), ("shorter", V2, W), ("even", W, V2))],
    Case(np.nan_to_num, {"x": np.array([0.5, np.nan, np.inf, -np.inf])}, "nan"),
    Case(np.nan_to_num, {"x": np.array([0.5, np.nan, np.inf, -0.3]), "copy": True, "nan": 1.0,
                         "posinf": 5.0}, "replaced"),
    Case(np.median, {"a": _A234, "axis": 1}, "3d-axis1"),
    Case(np.median, {"a": V6}, "even"),
    Case(np.quantile, {"a": A23, "q": np.array([0.2, 0.7]), "axis": 0}, "axis0"),
    Case(np.quantile, {"a": _A234, "q": 0.35, "axis": -1}, "3d"),
    Case(np.percentile, {"a": A23, "q": 30.0, "axis": 1}, "axis1"),
    *[Case(fn, {"a": _NANS}, "nan") for fn in (np.nansum, np.nanmean, np.nanmax, np.nanmin)],
    *[Case(fn, {"a": _NANS, "axis": k}, f"nan-axis{k}")
      for fn in (np.nansum, np.nanmean, np.nanmax, np.nanmin) for k in (0, 1)],
    Case(np.nanmax, {"a": _A234, "axis": 2}, "3d-axis2"),
]

TIE_CASES += [
    Case(np.median, {"a": np.array([0.3, 1.2, 0.3, 1.2, -0.4])}, "ties"),
    Case(np.nanmax, {"a": np.array([[0.3, np.nan, 0.3], [np.nan, np.nan, np.nan]]),
                     "axis": 1}, "ties-all-nan"),
    Case(np.interp, {"x": _XP, "xp": _XP, "fp": W}, "at-knots"),
]

NUMBA_IDS |= {
    "np.bincount-weights", "rt.take-axis1", "rt.take-int-axis0", "rt.take-flat",
    "rt.take-2d-indices",
    "rt.broadcast_to-number", "rt.broadcast_to-column", "np.swapaxes-2d", "np.moveaxis-2d",
    # (an int `axes` of np.tensordot compiles written in the call, as generated code has
    # it, not passed as an argument, as here: its value sets the result's rank)
    "rt.inner-2d", "rt.inner-3d-2d", "rt.tensordot-pairs", "rt.tensordot-3d-pair",
    "rt.tensordot-two-pairs", "rt.kron-2d", "rt.kron-1d-2d",
    "np.cross-rows-vector", "rt.interp-left-right", "rt.interp-scalar", "rt.interp-2d",
    "np.convolve-same-shorter", "np.convolve-valid-longer", "np.sinc-array", "np.sinc-scalar",
    "rt.nan_to_num-nan", "rt.nan_to_num-replaced", "rt.median-3d-axis1", "rt.median-even",
    "rt.quantile-axis0", "rt.quantile-3d", "rt.percentile-axis1", "rt.nansum-nan-axis0",
    "rt.nanmean-nan", "rt.nanmean-nan-axis1", "rt.nanmax-nan-axis1", "rt.nanmin-nan",
}

# numpy_arrangements: the rules its domains do not reach (the items of tuple-valued calls,
# np.select's stacked lists)
_CONDITIONS = np.array([[True, False, False, True], [False, True, False, True]])

CASES += [
    *[Case(fn, {"ary": V6, "indices_or_sections": 2}, "halves")
      for fn in (rt.split_head, rt.split_tail)],
    *[Case(fn, {"ary": A23, "indices_or_sections": (1,), "axis": 1}, "index-axis1")
      for fn in (rt.split_head, rt.split_tail)],
    *[Case(fn, {"ary": A23, "indices_or_sections": 2, "axis": 1}, "axis1")
      for fn in (rt.array_split_head, rt.array_split_tail)],
    *[Case(fn, {"x": V3, "y": W}, "xy") for fn in (rt.meshgrid_x, rt.meshgrid_y)],
    *[Case(fn, {"x": V3, "y": W, "z": None, "indexing": "ij"}, "ij")
      for fn in (rt.meshgrid_x, rt.meshgrid_y)],
    Case(np.select, {"x": _CONDITIONS, "y": np.vstack([W, vec(-1.0, 1.0)]), "default": 0.3},
         "two"),
    Case(np.select, {"x": _CONDITIONS, "y": np.vstack([W, vec(-1.0, 1.0)]),
                     "default": vec(0.0, 2.0)}, "array-default"),
]

# numpy_splits: the items of np.hsplit, np.vsplit and np.dsplit (more forms in
# tests/test_rules_splits.py)
CASES += [
    *[Case(fn, {"ary": np.hstack([A23, B23]), "indices_or_sections": 2}, "halves")
      for fn in (rt.hsplit_head, rt.hsplit_tail)],
    *[Case(fn, {"ary": np.vstack([A23, B23]), "indices_or_sections": (1,)}, "index")
      for fn in (rt.vsplit_head, rt.vsplit_tail)],
    *[Case(fn, {"ary": _A234, "indices_or_sections": 2}, "halves")
      for fn in (rt.dsplit_head, rt.dsplit_tail)],
]

# ---------------------------------------------------------------------------
# Evaluating a tangent template
# ---------------------------------------------------------------------------


def _t_param(node):
    """`p` for a `t[p]` node, else None."""
    if (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
            and node.value.id == "t" and isinstance(node.slice, gast.Name)):
        return node.slice.id
    return None


terms = additive_terms  # the transform's own splitting into terms


def term_param(term):
    """The parameter whose tangent the term holds (asserting there is exactly one)."""
    found = [_t_param(n) for n in gast.walk(term) if _t_param(n) is not None]
    assert len(found) == 1, f"a term with {len(found)} tangents: {_text(term)}"
    return found[0]


class _Tangents(gast.NodeTransformer):
    """t[p] -> the name `t_p`."""

    def visit_Subscript(self, node):
        p = _t_param(node)
        if p is None:
            return self.generic_visit(node)
        return gast.Name(id=f"t_{p}", ctx=gast.Load(), annotation=None, type_comment=None)


def tangent_expr(rule, with_tangent):
    """The template's expression for these tangents: terms of parameters without one
    dropped (0.0 if none is left), each `t[p]` read from the name `t_p`."""
    kept = [(s, term) for s, term in terms(rule.tangent) if term_param(term) in with_tangent]
    out = None
    for sign, term in kept:
        term = _Tangents().visit(gast.parse(_text(term), mode="eval").body)
        if out is None:
            out = term if sign > 0 else gast.UnaryOp(op=gast.USub(), operand=term)
        else:
            out = gast.BinOp(left=out, op=gast.Add() if sign > 0 else gast.Sub(), right=term)
    return out if out is not None else gast.Constant(value=0.0, kind=None)


def _text(expr):
    return ast.unparse(ast.fix_missing_locations(gast.gast_to_ast(expr)))


def _compile(expr):
    tree = ast.fix_missing_locations(ast.Expression(body=gast.gast_to_ast(expr)))
    return compile(tree, "<tangent>", "eval")


def _namespace(case, values, tangents, ans):
    ns = {"np": np, "math": math, "rt": rt, "ans": ans, **values}
    ns.update({f"t_{p}": tv for p, tv in tangents.items()})
    return ns


def _setup(case, seed=0):
    values = case.values()
    ans = case.call(case.values())
    rng = np.random.default_rng(seed + sum(map(ord, case.id)))
    tangents = {p: _direction(values[p], rng) for p in case.with_tangent()}
    return values, ans, tangents


def evaluate(case, values, ans, tangents):
    expr = tangent_expr(case.entry, set(tangents))
    return eval(_compile(expr), _namespace(case, values, tangents, ans))


def finite_difference(case, values, tangents, h=1e-6):
    def at(step):
        moved = dict(values)
        for p, tv in tangents.items():
            moved[p] = _moved(values[p], tv, step)
        return np.asarray(case.call(moved)) * 1.0  # floats, or complex numbers

    return (at(h) - at(-h)) / (2 * h)


# ---------------------------------------------------------------------------
# Evaluating an adjoint template (for the duality check)
# ---------------------------------------------------------------------------


class _Cotangent(gast.NodeTransformer):
    """d[ans] -> the name `d_ans`."""

    def visit_Subscript(self, node):
        if (isinstance(node.value, gast.Name) and node.value.id == "d"
                and isinstance(node.slice, gast.Name) and node.slice.id == "ans"):
            return gast.Name(id="d_ans", ctx=gast.Load(), annotation=None, type_comment=None)
        return self.generic_visit(node)


def adjoints(case, values, ans, cot, wanted):
    """{p: the adjoint template's contribution to d[p]} for the parameters `wanted`,
    reduced to p's shape."""
    out = {}
    ns = {"np": np, "math": math, "rt": rt, "ans": ans, "d_ans": cot, **values}
    for stmt in case.entry.body:
        assert isinstance(stmt, gast.AugAssign), _text(stmt)
        p = stmt.target.slice.id
        if p not in wanted:
            continue
        value = _Cotangent().visit(gast.parse(_text(stmt.value), mode="eval").body)
        g = np.asarray(eval(_compile(value), ns)) * 1.0
        if not np.iscomplexobj(values[p]):  # a real parameter's: the real part (JAX's)
            g = np.real(g)
        like = np.shape(values[p])
        if g.shape != like:
            g = rt.unbroadcast(g, np.empty(like)) if g.ndim >= len(like) \
                else np.broadcast_to(g, like)
        out[p] = out.get(p, 0.0) + g
    return out


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------


def _params(cases):
    ids, out = {}, []
    for case in cases:
        n = ids[case.id] = ids.get(case.id, 0) + 1
        out.append(pytest.param(case, id=case.id if n == 1 else f"{case.id}-{n}"))
    return out


def _tangent_rules():
    return [r for r in all_rules() if r.body]


def test_every_adjoint_rule_has_a_tangent():
    missing = [r.name for r in _tangent_rules() if r.tangent is None]
    assert not missing, f"rules with an adjoint but no tangent: {missing}"


def test_only_adjoint_rules_have_tangents():
    extra = [r.name for r in all_rules() if r.tangent is not None and not r.body]
    assert not extra, f"tangents of rules without an adjoint: {extra}"


def test_every_tangent_is_checked():
    checked = {c.name for c in CASES}
    assert checked == {r.name for r in _tangent_rules()}


@pytest.mark.parametrize("rule", _tangent_rules(), ids=lambda r: r.name)
def test_template_format(rule):
    """Each term holds one `t[p]` for a differentiable `p`, every differentiable parameter
    has a term, and the template reads nothing but its parameters, np, math, rt."""
    params = [term_param(term) for _, term in terms(rule.tangent)]
    assert set(params) <= rule.diff, f"tangents of non-differentiable parameters: {params}"
    assert set(params) == rule.diff, f"differentiable parameters without a term: {params}"
    names = {n.id for n in gast.walk(rule.tangent) if isinstance(n, gast.Name)}
    allowed = set(rule.params) | {"t", "np", "math", "rt", "float"}
    assert names <= allowed, f"unknown names: {names - allowed}"


@pytest.mark.parametrize("case", _params(CASES))
def test_tangent_matches_finite_differences(case):
    values, ans, tangents = _setup(case)
    assert tangents, f"{case.id}: no argument carries a tangent"
    got = evaluate(case, values, ans, tangents)
    want = finite_difference(case, values, tangents)
    assert np.all(np.isfinite(got)), got
    if len(tangents) == len(case.entry.diff) and not case.const:
        assert np.shape(got) == np.shape(ans), f"shape {np.shape(got)}, not {np.shape(ans)}"
    else:  # a partial tangent need only broadcast to the result
        assert np.broadcast_shapes(np.shape(got), np.shape(ans)) == np.shape(ans)
    np.testing.assert_allclose(np.broadcast_to(got, np.shape(ans)), want,
                               rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("case", _params(
    [c for c in CASES + TIE_CASES
     if c.dual and not any(isinstance(c.args.get(p), (tuple, list)) for p in c.entry.diff)]))
def test_tangent_is_dual_to_the_adjoint(case):
    """<d_ans, T t> == sum_p <A_p d_ans, t_p>, at ties and kinks too (for complex values,
    the real part of the unconjugated products: JAX's convention)."""
    values, ans, tangents = _setup(case, seed=1)
    rng = np.random.default_rng(7)
    cot = _direction(np.real(ans) * 1.0 if np.ndim(ans) else float(np.real(ans)), rng)
    if np.iscomplexobj(ans):
        cot = cot + 1j * _direction(np.real(ans) * 1.0, rng)
    got = evaluate(case, values, ans, tangents)
    forward = float(np.real(np.sum(cot * np.asarray(got))))
    grads = adjoints(case, _setup(case, seed=1)[0], ans, cot, set(tangents))
    reverse = sum(float(np.real(np.sum(grads[p] * tv))) for p, tv in tangents.items())
    assert math.isclose(forward, reverse, rel_tol=1e-9, abs_tol=1e-12), (forward, reverse)


def test_clip_with_crossed_bounds():
    """np.clip with a_min > a_max returns a_max everywhere."""
    case = Case(np.clip, {"x": np.array([0.2, 0.6, 1.4]), "a_min": 1.0, "a_max": 0.5})
    values, ans, tangents = _setup(case)
    np.testing.assert_allclose(evaluate(case, values, ans, tangents),
                               finite_difference(case, values, tangents), atol=1e-7)


def test_norm_tangent_is_zero_at_zero():
    case = Case(np.linalg.norm, {"x": np.zeros(3)})
    values, ans, tangents = _setup(case)
    got = evaluate(case, values, ans, tangents)
    assert got == 0.0


def test_arange_of_stop_only_has_no_slope():
    case = Case(np.arange, {"start": 3.4})
    values, ans, tangents = _setup(case)
    assert np.array_equal(evaluate(case, values, ans, tangents), np.zeros(4))


def test_cholesky_tangent_reads_only_the_lower_triangle():
    case = Case(np.linalg.cholesky, {"a": SPD3})
    values, ans, _ = _setup(case)
    upper = np.triu(np.ones((3, 3)), 1)
    got = evaluate(case, values, ans, {"a": upper})
    assert np.array_equal(got, np.zeros((3, 3)))


def _numba_source(case, tangents):
    expr = tangent_expr(case.entry, set(tangents))
    params = case.entry.params[1:]
    args = ", ".join(params + [f"t_{p}" for p in tangents] + ["ans"])
    return f"def tangent_of_rule({args}):\n    return {_text(expr)}\n"


@pytest.mark.parametrize("case", _params([c for c in CASES if c.id in NUMBA_IDS]))
def test_tangent_compiles_with_numba(case):
    values, ans, tangents = _setup(case)
    want = evaluate(case, values, ans, tangents)
    source = _numba_source(case, tangents)
    ns = {"np": np, "math": math, "rt": rt}
    exec(compile(source, "<tangent>", "exec"), ns)
    fn = njit(ns["tangent_of_rule"])
    params = case.entry.params[1:]
    got = fn(*[values[p] for p in params], *tangents.values(), ans)
    assert np.shape(got) == np.shape(want), source
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14, err_msg=source)


def test_numba_cases_exist():
    assert NUMBA_IDS <= {c.id for c in CASES}, NUMBA_IDS - {c.id for c in CASES}


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_reduction_helpers_take_one_tangent_for_all_elements(axis):
    """prod_tangent and select_tangent given a scalar tangent (every element of x moving
    alike), in Python and under Numba."""
    x = np.array([[0.3, 0.0, 1.4], [0.5, -0.8, 1.1]])
    c = 0.7
    prod = njit(lambda t, x, axis: rt.prod_tangent(t, x, axis))
    amax = njit(lambda t, x, ans, axis: rt.select_tangent(t, x, ans, axis))
    want = (np.prod(x + 1e-6 * c, axis=axis) - np.prod(x - 1e-6 * c, axis=axis)) / 2e-6
    np.testing.assert_allclose(rt.prod_tangent(c, x, axis), want, rtol=1e-6)
    np.testing.assert_allclose(prod(c, x, axis), want, rtol=1e-6)
    ans = np.max(x, axis=axis)
    full = np.broadcast_to(c * np.ones_like(ans), np.shape(ans))
    np.testing.assert_allclose(rt.select_tangent(c, x, ans, axis), full)
    np.testing.assert_allclose(amax(c, x, ans, axis), full)


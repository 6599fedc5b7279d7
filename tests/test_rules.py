"""Every derivative rule in the registry, checked against central finite differences.

Each rule gets one or more tiny functions that call it (scalar and 1-d array arguments for
the elementwise numpy rules, specific arguments where a rule needs them: axes, tuples of
arrays, 2-d products, bounds, conditions). The functions are written from the table below
into a module file of their own, since srcad reads a function's source from its file.

Adding a rule to the registry without a case here fails `test_every_rule_is_covered`.
"""
import ast
import atexit
import importlib.util
import math
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field

import gast
import numpy as np
import pytest

import srcad
from srcad import runtime as rt
from srcad.passes import ir
from srcad.pipeline import Context, normalize
from srcad.program import Program
from srcad.rules import registry
from srcad.rules.registry import all_rules
from srcad.source import FunctionSource
from tests.fd import assert_grad_close, fd_grad
from tests.rule_domains import points, rules_with_domains, scal, spelling, vec

# ---------------------------------------------------------------------------
# Arguments: fixed, irregular values (no ties, away from kinks and domain edges)
# ---------------------------------------------------------------------------

W = np.array([0.7, -1.3, 0.4, 2.1])  # cotangent weights: `np.sum(f(x) * c)`
A23 = np.array([[0.3, -1.2, 0.8], [1.1, 0.45, -0.6]])
B23 = np.array([[-0.5, 0.9, 0.25], [0.35, -1.4, 0.7]])
B32 = np.array([[0.2, -0.7], [1.3, 0.6], [-0.9, 0.15]])
C22 = np.array([[1.5, -0.3], [0.8, 2.2]])
C23 = np.array([[0.6, -1.1, 0.9], [1.7, 0.2, -0.4]])
C32 = C23.T.copy()
C24 = np.array([[0.6, -1.1, 0.9, 0.3], [1.7, 0.2, -0.4, -0.8]])
C42 = C24.T.copy()
C26 = np.array([[0.6, -1.1, 0.9, 0.3, 0.5, -0.2], [1.7, 0.2, -0.4, -0.8, 1.1, 0.05]])
V2 = np.array([0.9, -0.4])
V3 = np.array([0.5, -1.5, 0.25])
V6 = np.array([0.3, -0.8, 1.2, 0.45, -0.15, 0.9])
SPD3 = np.array([[2.0, 0.3, -0.2], [0.3, 1.5, 0.4], [-0.2, 0.4, 1.8]])  # symmetric positive
MASK = np.array([True, False, False, True])


@dataclass
class Case:
    """`def f(<args>): <body>` exercising `rule`; gradients with respect to `wrt`.

    `rule` is the function the rule is registered for (`np.sin`), or the registry key of
    an operator (`"op.Add"`); the rule's name comes from the registry.
    """

    rule: object
    body: str
    args: dict
    wrt: tuple = ("x",)
    label: str = ""
    fn: object = field(default=None, repr=False)

    @property
    def name(self):
        """The registry's name of the rule."""
        if isinstance(self.rule, str):
            return self.rule
        rule = registry.lookup(self.rule)
        return rule.name if rule is not None else repr(self.rule)

    @property
    def id(self):
        return f"{self.name}-{self.label}" if self.label else self.name

    def source(self, name):
        params = ", ".join(self.args)
        lines = self.body.strip().splitlines()
        if len(lines) == 1 and not lines[0].startswith("return"):
            lines = ["return " + lines[0]]
        return f"def {name}({params}):\n" + "".join(f"    {line}\n" for line in lines)


# ---------------------------------------------------------------------------
# Differentiable rules
# ---------------------------------------------------------------------------

def _from_domain(rule):
    """The cases of a rule that declares its domain (see `tests.rule_domains`)."""
    fn, call = spelling(rule)
    cases = []
    for point in points(rule):
        text = ", ".join(p if p in point.floats else repr(v) for p, v in point.args.items())
        args = {p: v for p, v in point.args.items() if p in point.floats}
        if point.label == "scalar":
            body = f"{call}({text})"
        elif point.like_first:
            body, args = f"np.sum({call}({text}) * weights)", {**args, "weights": W}
        else:  # any output shape: weights that differ per element
            body = f"np.sum(np.sin({call}({text})))"
        if np.iscomplexobj(fn(*point.args.values())):  # a real output made of both parts
            body = f"v = {body.removeprefix('return ')}\nreturn np.real(v) + 0.6 * np.imag(v)"
        cases.append(Case(fn, body, args, point.floats, point.label))
    first = rule.params[1]
    if set(rule.domain) == {first}:  # the method spellings: `x.cumsum()`
        cases += [Case(fn, f"np.sum(np.sin(x.{method}()))", {"x": vec(*rule.domain[first])},
                       label=f"method-{method}") for method in rule.methods]
    return cases


def _negative_side(fn, call, array):
    """|x| and fabs also left of their kink at 0."""
    if not array:
        return [Case(fn, f"{call}(x)", {"x": -scal(0.2, 2.0)}, label="negative")]
    return [Case(fn, f"np.sum({call}(x) * c)", {"x": -vec(0.2, 2.0), "c": W},
                 label="negative")]


def _binary_op(rule, sym, x_dom=(-2.0, 2.0), y_dom=(-2.0, 2.0)):
    xs, ys = vec(*x_dom), vec(*y_dom)[::-1].copy()
    x2d = np.abs(A23) + 0.3 if x_dom[0] > 0 else A23  # (2, 3), broadcast against (3,)
    return [
        Case(rule, f"x {sym} y", {"x": scal(*x_dom), "y": scal(*y_dom)}, ("x", "y"), "scalar"),
        Case(rule, f"np.sum((x {sym} y) * c)", {"x": xs, "y": ys, "c": W}, ("x", "y"), "array"),
        Case(rule, f"np.sum((x {sym} y) * c)", {"x": xs, "y": scal(*y_dom), "c": W},
             ("x", "y"), "array-scalar"),
        Case(rule, f"np.sum((x {sym} y) * c)", {"x": scal(*x_dom), "y": ys, "c": W},
             ("x", "y"), "scalar-array"),
        Case(rule, f"np.sum((x {sym} y) * c)", {"x": x2d, "y": vec(*y_dom)[:3], "c": C23},
             ("x", "y"), "broadcast-2d"),
    ]


def _pairwise(rule, call):
    x = vec(-2.0, 2.0)
    y = np.array([0.5, -1.0, 1.2, 0.1])  # crosses x: some elements pick x, some y
    return [
        Case(rule, f"np.sum({call}(x, y) * c)", {"x": x, "y": y, "c": W}, ("x", "y"), "array"),
        Case(rule, f"np.sum({call}(x, y) * c)", {"x": x, "y": 0.3, "c": W}, ("x", "y"),
             "array-scalar"),
        Case(rule, f"{call}(x, y)", {"x": 0.4, "y": -0.2}, ("x", "y"), "scalar"),
    ]


def _reduction(rule, call, lo=-2.0, hi=2.0):
    a = lo + (hi - lo) * np.array([[0.13, 0.52, 0.88], [0.71, 0.05, 0.34]])
    return [
        Case(rule, f"{call}(x)", {"x": vec(lo, hi)}, label="1d"),
        Case(rule, f"{call}(x)", {"x": a}, label="2d"),
        Case(rule, f"np.sum({call}(x, axis=0) * c)", {"x": a, "c": V3}, label="axis0"),
        Case(rule, f"np.sum({call}(x, axis=1) * c)", {"x": a, "c": V2}, label="axis1"),
        Case(rule, f"np.sum({call}(x, 1) * c)", {"x": a, "c": V2}, label="axis-positional"),
    ]


DIFF_CASES = [
    # operators
    *_binary_op("op.Add", "+"),
    *_binary_op("op.Sub", "-"),
    *_binary_op("op.Mult", "*"),
    *_binary_op("op.Div", "/", y_dom=(0.5, 2.0)),
    *_binary_op("op.Pow", "**", x_dom=(0.3, 2.0), y_dom=(-1.5, 2.5)),
    *_binary_op("op.Mod", "%", x_dom=(2.1, 5.3), y_dom=(0.7, 1.9)),
    # NumPy's spellings of the operators
    *[Case(op, f"np.sum({fn}(x, y) * c)", {"x": vec(-2.0, 2.0), "y": vec(0.5, 2.0), "c": W},
           ("x", "y"), f"spelled-{fn}")
      for op, fn in [("op.Add", "np.add"), ("op.Sub", "np.subtract"), ("op.Mult", "np.multiply"),
                     ("op.Div", "np.divide"), ("op.Div", "np.true_divide")]],
    Case("op.Mult", "np.multiply(x, 2.0) * y", {"x": 0.7, "y": -1.3}, ("x", "y"),
         "spelled-scalar"),
    Case("op.Pow", "pow(x, y) + pow(x, 3)", {"x": 1.3, "y": -0.6}, ("x", "y"), "spelled-pow"),
    Case("op.Pow", "x ** 3", {"x": -0.8}, label="int-exponent"),
    Case("op.Pow", "np.sum(x ** 2 * c)", {"x": vec(-2.0, 2.0), "c": W}, label="int-exponent-array"),
    Case("op.USub", "-x * y", {"x": 0.6, "y": 1.7}, ("x", "y"), "scalar"),
    Case("op.USub", "np.sum(-x * c)", {"x": vec(-1.0, 1.0), "c": W}, label="array"),
    Case("op.MatMult", "np.sum((a @ b) * c)", {"a": A23, "b": B32, "c": C22}, ("a", "b"), "2d-2d"),
    Case("op.MatMult", "np.sum((a @ v) * c)", {"a": A23, "v": V3, "c": V2}, ("a", "v"), "2d-1d"),
    Case("op.MatMult", "np.sum((v @ a) * c)", {"v": V2, "a": A23, "c": V3}, ("v", "a"), "1d-2d"),
    Case("op.MatMult", "u @ v", {"u": vec(-1.0, 1.0), "v": W}, ("u", "v"), "1d-1d"),
    # builtins
    Case(abs, "abs(x) * y", {"x": -0.7, "y": 1.3}, ("x", "y"), "negative"),
    Case(abs, "abs(x) * y", {"x": 0.7, "y": 1.3}, ("x", "y"), "positive"),
    Case(max, "max(x, y)", {"x": 0.4, "y": -0.2}, ("x", "y"), "first"),
    Case(max, "max(x, y)", {"x": -0.4, "y": 0.2}, ("x", "y"), "second"),
    Case(max, "max(x, y, z)", {"x": -0.4, "y": 0.2, "z": 0.1}, ("x", "y", "z"), "three"),
    Case(min, "min(x, y)", {"x": 0.4, "y": -0.2}, ("x", "y"), "second"),
    Case(min, "min(x, y)", {"x": -0.4, "y": 0.2}, ("x", "y"), "first"),
    Case(min, "min(x, y, z)", {"x": -0.4, "y": 0.2, "z": 0.1}, ("x", "y", "z"), "three"),
    Case(float, "float(x) * y", {"x": 0.6, "y": 1.7}, ("x", "y")),
    # math
    *_negative_side(math.fabs, "math.fabs", array=False),
    Case(math.atan2, "math.atan2(y, x)", {"y": 0.7, "x": -1.2}, ("y", "x")),
    Case(math.pow, "math.pow(x, y)", {"x": 1.3, "y": -0.6}, ("x", "y")),
    Case(math.hypot, "math.hypot(x, y)", {"x": 1.3, "y": -0.6}, ("x", "y")),
    # numpy, elementwise
    *_negative_side(np.absolute, "np.abs", array=True),
    Case(np.absolute, "np.sum(np.abs(x) * c)", {"x": vec(0.2, 2.0), "c": W}, label="spelled-abs"),
    Case(np.absolute, "np.absolute(x)", {"x": -0.6}, label="spelled-absolute"),
    Case(np.power, "np.sum(np.power(x, y) * c)", {"x": vec(0.3, 2.0), "y": vec(-1.5, 2.5),
                                                     "c": W}, ("x", "y"), "array"),
    Case(np.power, "np.power(x, y)", {"x": 1.4, "y": -0.7}, ("x", "y"), "scalar"),
    Case(np.power, "np.sum(np.power(x, 2.0) * c)", {"x": vec(-2.0, 2.0), "c": W},
         label="negative-base"),
    *_pairwise(np.maximum, "np.maximum"),
    *_pairwise(np.minimum, "np.minimum"),
    Case(np.clip, "np.sum(np.clip(x, lo, hi) * c)",
         {"x": vec(-2.0, 2.0), "lo": -0.5, "hi": 0.8, "c": W}, ("x", "lo", "hi"), "array"),
    Case(np.clip, "np.clip(x, lo, hi)", {"x": 1.1, "lo": -0.5, "hi": 0.8}, ("x", "lo", "hi"),
         "scalar-above"),
    Case(np.clip, "np.clip(x, lo, hi)", {"x": 0.1, "lo": -0.5, "hi": 0.8}, ("x", "lo", "hi"),
         "scalar-inside"),
    Case(np.where, "np.sum(np.where(m, x, y) * c)",
         {"m": MASK, "x": vec(-1.0, 1.0), "y": vec(0.0, 3.0), "c": W}, ("x", "y"), "mask"),
    Case(np.where, "np.sum(np.where(x > y, x * x, y) * c)",
         {"x": vec(-2.0, 2.0), "y": np.array([0.5, -1.0, 1.2, 0.1]), "c": W}, ("x", "y"),
         "computed-condition"),
    Case(np.where, "np.sum(np.where(m, x, 0.0) * c)", {"m": MASK, "x": vec(-1.0, 1.0), "c": W},
         label="constant-branch"),
    Case(np.float64, "np.float64(x) * y", {"x": 0.6, "y": 1.7}, ("x", "y")),
    # numpy, reductions
    *_reduction(np.sum, "np.sum"),
    *_reduction(np.mean, "np.mean"),
    *_reduction(np.prod, "np.prod", 0.3, 1.8),
    *_reduction(np.max, "np.max"),
    *_reduction(np.min, "np.min"),
    Case(np.sum, "x.sum()", {"x": vec(-1.0, 1.0)}, label="method"),
    Case(np.mean, "x.mean()", {"x": A23}, label="method"),
    Case(np.roll, "np.sum(np.sin(np.roll(x, -1, axis=1)))", {"x": A23}, label="axis1"),
    Case(np.roll, "np.sum(np.sin(np.roll(x, 3, 0)))", {"x": A23}, label="axis0"),
    Case(np.var, "np.sum(np.sin(np.var(x, axis=0)))", {"x": A23}, label="axis0"),
    Case(np.cumsum, "np.sum(np.sin(np.cumsum(x, axis=1)))", {"x": A23}, label="axis1"),
    Case(np.cumsum, "np.sum(np.sin(np.add.accumulate(x)))", {"x": A23}, label="accumulate"),
    Case(np.cumprod, "np.sum(np.sin(np.multiply.accumulate(x, axis=1)))", {"x": A23},
         label="accumulate"),
    Case(np.max, "np.sum(np.sin(np.maximum.reduce(x)))", {"x": A23}, label="ufunc-reduce"),
    Case(np.sum, "np.sum(np.sin(np.add.reduce(x, 1)))", {"x": A23}, label="ufunc-reduce"),
    Case(rt.outer_left, "np.sum(np.multiply.outer(x, a) * c)",
         {"x": vec(-1.0, 1.0), "a": A23, "c": np.cos(np.arange(24.0)).reshape(4, 2, 3)},
         ("x", "a"), "1d-2d"),
    Case(rt.outer_left, "np.sum(np.sin(np.add.outer(a, x)))", {"a": A23, "x": vec(-1.0, 1.0)},
         ("a", "x"), "2d-1d"),
    Case(rt.outer_left, "np.sum(np.sin(np.subtract.outer(y, x)))",
         {"y": 0.7, "x": vec(-1.0, 1.0)}, ("y", "x"), "scalar-1d"),
    Case(rt.outer_left, "np.sum(np.maximum.outer(x, a)) + np.sum(np.power.outer(x, 2.0) * x)",
         {"x": vec(-1.0, 1.0), "a": A23}, ("x", "a"), "rules"),
    Case(np.std, "np.sum(np.sin(x.std(axis=1, ddof=1)))", {"x": A23}, label="axis1-ddof"),
    # numpy, products
    Case(np.dot, "np.dot(u, v)", {"u": vec(-1.0, 1.0), "v": W}, ("u", "v"), "1d-1d"),
    # linear algebra
    Case(np.linalg.solve, "np.sum(np.linalg.solve(a, v) * c)", {"a": SPD3, "v": V3, "c": V3},
         ("a", "v"), "vector"),
    Case(np.linalg.solve, "np.sum(np.linalg.solve(a, m) * c)",
         {"a": SPD3, "m": A23.T.copy(), "c": A23.T.copy()}, ("a", "m"), "matrix"),
    Case(np.linalg.inv, "np.sum(np.linalg.inv(a) * c)", {"a": SPD3, "c": SPD3 - 1.0}, ("a",)),
    Case(np.linalg.det, "np.linalg.det(a)", {"a": SPD3}, ("a",)),
    Case(np.linalg.slogdet, "np.linalg.slogdet(a)[1] + np.sum(a * 0.0)", {"a": SPD3 + B32 @ A23},
         ("a",)),
    Case(np.linalg.slogdet, "s, v = np.linalg.slogdet(a)\nreturn s * v",
         {"a": -SPD3 + B32 @ A23}, ("a",), "negative-det"),
    Case(rt.logabsdet, "rt.logabsdet(a)", {"a": SPD3 + B32 @ A23}, ("a",)),
    # srcad's runtime helpers that forward-mode code calls (differentiated for Hessians)
    Case(rt.select, "np.sum(rt.select(m, x, y) * c)",
         {"m": MASK, "x": vec(-1.0, 1.0), "y": vec(0.0, 3.0), "c": W}, ("x", "y"), "mask"),
    Case(rt.select, "rt.select(x > y, x * y, y)", {"x": 0.7, "y": 0.2}, ("x", "y"), "scalar"),
    Case(rt.dot, "np.sum(rt.dot(a, b) * c)", {"a": A23, "b": B32, "c": C22}, ("a", "b"),
         "2d-2d"),
    Case(rt.dot, "rt.dot(x, y)", {"x": 0.7, "y": -0.4}, ("x", "y"), "scalar"),
    Case(rt.matmul, "np.sum(rt.matmul(a, b) * c)", {"a": A23, "b": B32, "c": C22}, ("a", "b"),
         "2d-2d"),
    Case(rt.matmul, "np.sum(rt.matmul(x, a) * c)", {"x": 0.7, "a": A23, "c": C23}, ("x", "a"),
         "scalar-array"),
    *[Case(helper, f"np.sum({name}(x, y) * c)",
           {"x": np.linspace(-0.8, 1.3, 24).reshape(2, 3, 4),
            "y": np.cos(np.arange(12.0)).reshape(3, 4) + 2.0,
            "c": np.sin(np.arange(24.0)).reshape(2, 3, 4)},
           ("x", "y"), "3d-2d") for helper, name in
      ((rt.add, "rt.add"), (rt.sub, "rt.sub"), (rt.mul, "rt.mul"), (rt.div, "rt.div"))],
    Case(rt.div, "rt.div(x, y)", {"x": 0.7, "y": -0.4}, ("x", "y"), "scalar"),
    Case(rt.pow_dx, "np.sum(rt.pow_dx(x, y) * c)",
         {"x": vec(0.3, 2.0), "y": vec(-1.5, 2.5), "c": W}, ("x", "y"), "array"),
    Case(rt.pow_dx, "rt.pow_dx(x, 3)", {"x": -0.8}, label="int-exponent"),
    Case(rt.atan2_dy, "np.sum(rt.atan2_dy(y, x) * c)",
         {"y": vec(-1.5, 2.5), "x": vec(0.3, 2.0), "c": W}, ("y", "x"), "array"),
    Case(rt.atan2_dy, "rt.atan2_dy(y, x) * z", {"y": -0.6, "x": 0.9, "z": 1.3},
         ("y", "x", "z"), "scalar"),
    Case(rt.atan2_dx, "np.sum(rt.atan2_dx(y, x) * c)",
         {"y": vec(-1.5, 2.5), "x": vec(-2.0, -0.3), "c": W}, ("y", "x"), "array"),
    Case(rt.atan2_dx, "rt.atan2_dx(y, x) * z", {"y": 0.4, "x": -1.1, "z": 0.7},
         ("y", "x", "z"), "scalar"),
    Case(rt.log_or_zero, "np.sum(rt.log_or_zero(x) * c)", {"x": vec(0.3, 2.0), "c": W}),
    Case(rt.log_or_zero, "rt.log_or_zero(x) * y", {"x": -0.5, "y": 1.3}, ("x", "y"),
         "nonpositive"),
    Case(rt.log_base, "rt.log_base(b) * y", {"b": 2.5, "y": 1.3}, ("b", "y")),
    # complex numbers' (a real output of both parts)
    Case(rt.unit_conj, "v = rt.unit_conj(z, r)\nreturn np.sum(np.real(v) - 0.6 * np.imag(v))",
         {"z": np.array([0.8 + 0.3j, -0.4 + 1.1j]), "r": np.array([1.3, 0.7])}, ("z", "r")),
    Case(rt.cpow_dx, "v = rt.cpow_dx(z, y)\nreturn np.sum(np.real(v) - 0.6 * np.imag(v))",
         {"z": np.array([0.8 + 0.3j, -0.4 + 1.1j]), "y": 1.7 - 0.2j}, ("z", "y")),
    Case(rt.clog_or_zero, "v = rt.clog_or_zero(z)\nreturn np.sum(np.real(v) - 0.6 * np.imag(v))",
         {"z": np.array([0.8 + 0.3j, -0.4 + 1.1j])}, ("z",)),
    Case(rt.inverse_or_zero,
         "v = rt.inverse_or_zero(z)\nreturn np.sum(np.real(v) - 0.6 * np.imag(v))",
         {"z": np.array([0.8 + 0.3j, -0.4 + 1.1j])}, ("z",)),
    # the frequencies of a transform's bins: differentiable in the spacing
    Case(np.fft.fftfreq, "np.sum(np.fft.fftfreq(4, x) * c)", {"x": 0.3, "c": W},
         label="spacing"),
    Case(np.fft.rfftfreq, "np.sum(np.fft.rfftfreq(6, d=x) * c)", {"x": 1.3, "c": W},
         label="spacing-keyword"),
    Case(rt.select_tangent, "np.sum(rt.select_tangent(v, x, np.max(x, axis=0), 0) * c)",
         {"v": B23, "x": A23, "c": V3}, ("v", "x"), "axis0"),
    Case(rt.select_tangent, "rt.select_tangent(v, x, np.min(x), None)",
         {"v": W, "x": vec(-1.0, 1.0)}, ("v", "x"), "all"),
    Case(rt.prod_tangent, "rt.prod_tangent(v, x, None)",
         {"v": W, "x": np.array([0.3, 0.0, 1.4, -0.8])}, ("v", "x"), "with-zero"),
    Case(rt.prod_tangent, "np.sum(rt.prod_tangent(v, x, 1) * c)",
         {"v": B23, "x": np.abs(A23) + 0.2, "c": V2}, ("v", "x"), "axis1"),
    Case(rt.sort_tangent, "np.sum(rt.sort_tangent(v, x, 0) * c)",
         {"v": B23, "x": A23, "c": C23}, ("v", "x"), "axis0"),
    Case(rt.sort_tangent, "np.sum(rt.sort_tangent(v, x, None) * c)",
         {"v": B23, "x": A23, "c": V6}, ("v", "x"), "flattened"),
    Case(np.linalg.cholesky, "np.sum(np.linalg.cholesky(a) * c)", {"a": SPD3, "c": SPD3},
         ("a",)),
    Case(np.linalg.norm, "np.linalg.norm(v)", {"v": V3}, ("v",)),
    Case(np.linalg.norm, "np.linalg.norm(a)", {"a": A23}, ("a",), "matrix"),
    Case(np.outer, "np.sum(np.outer(u, v) * c)", {"u": V2, "v": V3, "c": A23}, ("u", "v")),
    Case(np.trace, "np.trace(a)", {"a": SPD3}, ("a",)),
    Case(np.diag, "np.sum(np.diag(v) * c)", {"v": V3, "c": SPD3}, ("v",), "vector"),
    Case(np.diag, "np.sum(np.diag(a) * c)", {"a": SPD3, "c": V3}, ("a",), "matrix"),
    Case(np.dot, "np.sum(np.dot(a, v) * c)", {"a": A23, "v": V3, "c": V2}, ("a", "v"), "2d-1d"),
    Case(np.dot, "np.sum(np.dot(v, a) * c)", {"v": V2, "a": A23, "c": V3}, ("v", "a"), "1d-2d"),
    Case(np.dot, "np.sum(np.dot(a, b) * c)", {"a": A23, "b": B32, "c": C22}, ("a", "b"), "2d-2d"),
    Case("op.MatMult", "np.sum(np.matmul(a, b) * c)", {"a": A23, "b": B32, "c": C22},
         ("a", "b"), "spelled-matmul"),
    Case(np.dot, "np.sum(a.dot(b) * c)", {"a": B32, "b": A23, "c": C23.T @ C23}, ("a", "b"),
         "method"),
    # numpy, shapes and joins
    Case(np.transpose, "np.sum(np.transpose(a) * c)", {"a": A23, "c": C32}, ("a",)),
    Case(np.transpose, "np.sum(a.T * c)", {"a": A23, "c": C32}, ("a",), "attribute"),
    Case(np.reshape, "np.sum(np.reshape(x, (2, 3)) * c)", {"x": V6, "c": C23}),
    Case(np.reshape, "np.sum(x.reshape(3, 2) * c)", {"x": V6, "c": C32}, label="method"),
    Case(np.reshape, "np.sum(np.reshape(a, 6) * c)", {"a": A23, "c": V6}, ("a",), "to-1d"),
    Case(np.ravel, "np.sum(np.ravel(a) * c)", {"a": A23, "c": V6}, ("a",)),
    Case(np.copy, "np.sum(np.copy(x) * c)", {"x": vec(-1.0, 1.0), "c": W}),
    Case(rt.keep_dims, "np.sum(np.sum(a, axis=0, keepdims=True) * a)", {"a": A23}, ("a",)),
    Case(rt.astype, "np.sum(x.astype(np.float64) * c + x.astype(x.dtype))",
         {"x": vec(-1.0, 1.0), "c": W}),
    Case(rt.flatten, "np.sum(a.flatten() * c)", {"a": A23, "c": V6}, ("a",)),
    Case(np.array, "np.sum(np.array([x, 2.0 * x, y]) * c)", {"x": 0.3, "y": -0.7, "c": V3},
         ("x", "y")),
    Case(np.array, "np.sum(np.array(a) * c)", {"a": vec(-1.0, 1.0), "c": W}, ("a",),
         label="copy"),
    Case(np.concatenate, "np.sum(np.concatenate((x, y)) * c)",
         {"x": V2, "y": V6[:2].copy(), "c": W}, ("x", "y"), "1d"),
    Case(np.concatenate, "np.sum(np.concatenate((a, b), axis=1) * c)",
         {"a": A23, "b": B23, "c": C26}, ("a", "b"), "axis1"),
    Case(np.concatenate, "np.sum(np.concatenate((a, b)) * c)",
         {"a": A23, "b": B23, "c": np.vstack([C23, -C23[::-1]])},
         ("a", "b"), "axis0-2d"),
    Case(np.stack, "np.sum(np.stack((x, y)) * c)", {"x": vec(-1.0, 1.0), "y": W, "c": C24},
         ("x", "y"), "axis0"),
    Case(np.stack, "np.sum(np.stack((x, y), axis=1) * c)",
         {"x": vec(-1.0, 1.0), "y": W, "c": C42}, ("x", "y"), "axis1"),
    Case(np.hstack, "np.sum(np.hstack((x, y)) * c)", {"x": V2, "y": V6[:2].copy(), "c": W},
         ("x", "y"), "1d"),
    Case(np.hstack, "np.sum(np.hstack((a, b)) * c)", {"a": A23, "b": B23, "c": C26},
         ("a", "b"), "2d"),
    Case(np.vstack, "np.sum(np.vstack((x, y)) * c)", {"x": vec(-1.0, 1.0), "y": W, "c": C24},
         ("x", "y"), "1d"),
    Case(np.column_stack, "np.sum(np.column_stack((x, y)) * c)",
         {"x": vec(-1.0, 1.0), "y": W, "c": C42}, ("x", "y"), "1d"),
    Case(np.column_stack, "np.sum(np.column_stack((a.T, x[:3])) * c)",
         {"a": A23, "x": vec(-1.0, 1.0), "c": SPD3}, ("a", "x"), "2d-1d"),
    Case(np.vstack, "np.sum(np.vstack((a, b)) * c)",
         {"a": A23, "b": B23, "c": np.vstack([C23, -C23[::-1]])}, ("a", "b"), "2d"),
    *[Case(rule, "np.sum(np.histogram(x, 3, weights=w)[0] * c) + "
                 "np.sum(np.histogram(x, 3)[1] * y)",
           {"x": vec(0.1, 0.9), "w": W, "c": V6[:3].copy(), "y": W}, ("x", "w"), "weights")
      for rule in (np.histogram, rt.histogram_counts, rt.histogram_edges)],
]

# argument forms beyond the basic ones
_A234 = np.linspace(0.2, 2.5, 24).reshape(2, 3, 4)[:, ::-1, :].copy()

DIFF_CASES += [
    Case(np.sum, "np.sum(x, axis=(0, 1))", {"x": A23}, label="axis-tuple"),
    Case(np.mean, "np.sum(np.mean(x, axis=-1) * c)", {"x": A23, "c": V2}, label="axis-negative"),
    Case(np.max, "np.sum(np.max(x, axis=-1) * c)", {"x": A23, "c": V2}, label="axis-negative"),
    Case(np.prod, "np.prod(x)", {"x": np.array([0.3, 0.0, 1.4, -0.8])}, label="with-zero"),
    Case(np.prod, "np.sum(np.prod(x, axis=0) * c)", {"x": _A234, "c": C23.T @ C24},
         label="3d-axis0"),
    Case(np.transpose, "np.sum(np.transpose(x) * c)", {"x": _A234, "c": _A234.T[::-1].copy()},
         label="3d"),
    Case(np.reshape, "np.sum(np.reshape(x, (2, -1)) * c)", {"x": V6, "c": C23}, label="minus-1"),
    Case(np.concatenate, "np.sum(np.concatenate((x, y, z)) * c)",
         {"x": V2, "y": V3, "z": np.array([0.5]), "c": V6}, ("x", "y", "z"), "three"),
    Case(np.stack, "np.sum(np.stack((x, y, z), axis=1) * c)",
         {"x": vec(-1.0, 1.0), "y": W, "z": vec(0.0, 2.0), "c": np.outer(W, V3)},
         ("x", "y", "z"), "three"),
    Case(np.dot, "np.sum(np.dot(s, x) * c)", {"s": 0.7, "x": vec(-1.0, 1.0), "c": W},
         ("s", "x"), "scalar-array"),
    Case("op.MatMult", "np.sum(s * a @ a)", {"s": 0.7, "a": C22}, ("s", "a"), "square"),
    Case(np.clip, "np.sum(np.clip(x, lo, hi) * c)",
         {"x": np.array([-1.0, 0.2, 0.9, 2.0]), "lo": np.array([-0.5, 0.0, 0.1, 0.0]),
          "hi": np.array([0.5, 1.0, 0.5, 1.5]), "c": W}, ("x", "lo", "hi"), "array-bounds"),
    Case(np.where, "np.where(x > y, x * y, y)", {"x": 0.7, "y": 0.2}, ("x", "y"), "scalar"),
    Case("op.Pow", "np.sum(x ** 0.5 * c)", {"x": vec(0.3, 2.0), "c": W}, label="sqrt"),
]

# ---------------------------------------------------------------------------
# Non-differentiable rules: used on values that depend on x, they add no gradient
# ---------------------------------------------------------------------------

_X = vec(-2.0, 2.0)

NONDIFF_CASES = [
    Case(rt.stop_gradient, "x * 0.0 + rt_stop(x * x)", {"x": 2.3}),
    Case(int, "x * 0.0 + int(x)", {"x": 2.3}),
    Case(round, "x * 0.0 + round(x)", {"x": 2.3}),
    Case(round, "x * 0.0 + round(x, 1) + round(x, 2) * 3.0", {"x": 2.34}, label="ndigits"),
    Case(rt.int_pow, "x * 0.0 + rt.int_pow(n, k)", {"x": 2.3, "n": 3, "k": 2}),
    Case(len, "np.sum(x * 0.0) + len(x)", {"x": _X}),
    Case(math.floor, "x * 0.0 + math.floor(x)", {"x": 2.3}),
    Case(math.ceil, "x * 0.0 + math.ceil(x)", {"x": 2.3}),
    Case(math.trunc, "x * 0.0 + math.trunc(x)", {"x": -2.3}),
    *[Case(getattr(np, name), f"np.sum(x * 0.0 + np.{name}(x))", {"x": _X}, label="array")
      for name in ("floor", "ceil", "trunc", "rint", "round", "sign")],
    *[Case(getattr(np, name), f"x * 0.0 + np.{name}(x)", {"x": -1.3}, label="scalar")
      for name in ("floor", "ceil", "trunc", "rint", "round", "sign")],
    Case(np.round, "np.sum(x * 0.0 + np.round(x, 1))", {"x": _X}, label="decimals"),
    Case(np.around, "np.sum(x * 0.0 + np.around(x, 1) + np.floor_divide(x, 0.3))", {"x": _X},
         label="decimals"),
    *[Case(getattr(np, name), f"np.sum(x * 0.0 + np.{name}(x))", {"x": _X})
      for name in ("isnan", "isinf", "isfinite")],
    Case(np.argmax, "np.sum(x * 0.0) + np.argmax(x)", {"x": _X}),
    Case(np.argmin, "np.sum(x * 0.0) + np.argmin(x)", {"x": _X}),
    Case(np.argmax, "x[np.argmax(x)] * 0.0 + np.argmax(x)", {"x": _X}, label="as-index"),
    *[Case(getattr(np, name), f"np.sum(x * 0.0 + np.{name}(x, y))", {"x": _X, "y": 0.3},
           ("x", "y"))
      for name in ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal")],
    *[Case(getattr(np, name), f"np.sum(x * 0.0 + np.{name}(x > 0.0, x < y))",
           {"x": _X, "y": 0.3}, ("x", "y")) for name in ("logical_and", "logical_or",
                                                          "logical_xor")],
    Case(np.logical_not, "np.sum(x * 0.0 + np.logical_not(x > 0.0))", {"x": _X}),
    *[Case(getattr(np, name), f"np.sum(x * 0.0) + np.{name}(x > 0.5) + x[0] * 0.0",
           {"x": _X}) for name in ("any", "all", "count_nonzero")],
    *[Case(f"op.{op}", f"np.sum(x * 0.0 + ((x > 0.0) {sym} (x < y)))", {"x": _X, "y": 0.3},
           ("x", "y")) for op, sym in (("BitAnd", "&"), ("BitOr", "|"), ("BitXor", "^"))],
    Case("op.Invert", "np.sum(x * 0.0 + ~(x > 0.0))", {"x": _X}),
    Case(np.zeros, "np.sum(x * 0.0 + np.zeros(x.shape[0]))", {"x": _X}),
    Case(np.ones, "np.sum(x * 0.0 + np.ones(x.shape))", {"x": _X}),
    Case(np.empty, "np.sum(x * 0.0) + np.empty(x.shape[0]).shape[0]", {"x": _X}),
    Case(np.zeros_like, "np.sum(x * 0.0 + np.zeros_like(x))", {"x": _X}),
    Case(np.ones_like, "np.sum(x * 0.0 + np.ones_like(x))", {"x": _X}),
    Case(np.empty_like, "np.sum(x * 0.0) + np.empty_like(x).shape[0]", {"x": _X}),
    Case(np.full, "np.sum(x * 0.0 + np.full(x.shape[0], 2.0))", {"x": _X}),
    Case(np.full_like, "np.sum(x * 0.0 + np.full_like(x, 2.0))", {"x": _X}),
    Case(np.eye, "np.sum(x * 0.0 + np.eye(x.shape[0]))", {"x": _X}),
    Case(np.identity, "np.sum(x * 0.0 + np.identity(x.shape[0]))", {"x": _X}),
    Case(np.arange, "np.sum(x * 0.0 + np.arange(x.shape[0]))", {"x": _X}),
    Case(np.arange, "x * 0.0 + np.sum(np.arange(x))", {"x": 3.4}, label="float-stop"),
    Case(np.linspace, "np.sum(x * 0.0 + np.linspace(0.0, 1.0, x.shape[0]))", {"x": _X}),
    Case(np.shape, "np.sum(x * 0.0) + np.shape(x)[0]", {"x": _X}),
    # equal operands where equality matters (==, !=, <=, >=)
    *[Case(f"op.{name}", f"x * 0.0 + (x {sym} y)", {"x": 0.4, "y": 0.4 if "E" in name else 0.9},
           ("x", "y"), "scalar")
      for name, sym in (("Eq", "=="), ("NotEq", "!="), ("Lt", "<"), ("LtE", "<="),
                        ("Gt", ">"), ("GtE", ">="))],
    *[Case(f"op.{name}", f"np.sum(x * 0.0 + (x {sym} y))",
           {"x": _X, "y": np.array([0.5, -1.0, 1.2, 0.1])}, ("x", "y"), "array")
      for name, sym in (("Eq", "=="), ("NotEq", "!="), ("Lt", "<"), ("LtE", "<="),
                        ("Gt", ">"), ("GtE", ">="))],
    Case("op.Is", "x * 0.0 + (x is y)", {"x": 0.4, "y": 0.9}, ("x", "y")),
    Case("op.IsNot", "x * 0.0 + (x is not y)", {"x": 0.4, "y": 0.9}, ("x", "y")),
    Case("op.Not", "x * 0.0 + (not x > 1.0)", {"x": 0.4}),
    Case("op.FloorDiv", "x * 0.0 + x // y", {"x": 2.3, "y": 0.7}, ("x", "y")),
    Case(rt.slogdet_sign, "np.sum(a * 0.0) + rt.slogdet_sign(a)", {"a": SPD3}, ("a",)),
    *[Case(mask, f"np.sum(x * 0.0 + rt.{mask.__name__}(x, -0.5, 0.5))", {"x": _X})
      for mask in (rt.within, rt.clip_low, rt.clip_high)],
    *[Case(mask, f"np.sum(x * 0.0 + rt.{mask.__name__}(x, 0.3))", {"x": _X})
      for mask in (rt.fmax_first, rt.fmin_first)],
    Case(rt.arange_tstart, "np.sum(x * 0.0 + rt.arange_tstart(x.shape[0], 3.0))", {"x": _X}),
    Case("rt.range_len", "s = 0.0\nfor i in range(int(x)):\n    s = s + x * 0.0\nreturn s",
         {"x": 3.4}, label="loop-bound"),
    Case("rt.fail", "if x > 5.0:\n    raise ValueError('too big')\nreturn x * 0.0", {"x": 0.4},
         label="raise-not-taken"),
    Case("rt.show", "print('x is', x)\nreturn x * 0.0", {"x": 0.4}, label="print"),
    Case("rt.view_index", "w = x * 0.0\nu = w[1:]\nu[1] = 2.0\nreturn np.sum(w)", {"x": _X},
         label="element-write-through-a-view"),
    Case("rt.view_slice", "w = x * 0.0\nu = w[::-1]\nu[1:] *= 3.0\nreturn np.sum(w)",
         {"x": _X}, label="slice-write-through-a-view"),
]

# Constructors registered as non-differentiable although their values depend on float
# arguments: a gradient through those arguments is silently zero.
CONSTRUCTOR_VALUE_CASES = [
    Case(np.full, "np.sum(np.full(3, x) * c)", {"x": 0.7, "c": V3}, label="fill-value"),
    Case(np.full_like, "np.sum(np.full_like(c, x) * c) + np.sum(np.mod(c, x))",
         {"x": 0.7, "c": V3}, label="fill-value"),
    Case(np.linspace, "np.sum(np.linspace(x, y, 4) * c)", {"x": 0.3, "y": 1.7, "c": W},
         ("x", "y"), "start-stop"),
    Case(np.linspace, "np.sum(np.linspace(x, y, 4, endpoint=False, dtype=np.float64) * c)",
         {"x": 0.3, "y": 1.7, "c": W}, ("x", "y"), "no-endpoint"),
    Case(np.arange, "np.sum(np.arange(x, 4.0) * c)", {"x": 0.3, "c": W}, label="float-start"),
]

# Registry rules exempt from the coverage tests, each with the reason why no case can call
# it (none at present: `rt.range_len`, which only RecordControl inserts, is reached
# through a loop bound).
NOT_CALLABLE_BY_USERS = {}

# ---------------------------------------------------------------------------
# The case functions, written to a module file (srcad reads sources from files)
# ---------------------------------------------------------------------------


def _load_cases(cases):
    text = "import math\n\nimport numpy as np\n\nfrom srcad import runtime as rt\n" \
        "from srcad import stop_gradient as rt_stop\n\n"
    for k, case in enumerate(cases):
        text += "\n\n" + case.source(f"case_{k}")
    folder = tempfile.mkdtemp(prefix="srcad_rule_cases_")
    atexit.register(shutil.rmtree, folder, True)
    path = os.path.join(folder, "rule_cases.py")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    spec = importlib.util.spec_from_file_location(f"_srcad_rule_cases_{os.getpid()}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    for k, case in enumerate(cases):
        case.fn = getattr(module, f"case_{k}")


# numpy_more: orders and indices, gathering, contractions, signals, quantiles, NaNs
_XP = np.array([-1.0, 0.0, 0.5, 1.5])  # np.interp's abscissae
_OVER = np.array([[0.3, 1.4, 0.8], [1.1, 0.45, -0.6]])  # NaN where over 1
_IDX = np.array([2, 0, 2, -1])

DIFF_CASES += [
    Case(np.bincount, "np.sum(np.sin(np.bincount(i, w)))", {"i": np.array([0, 2, 2, 1]), "w": W},
         ("w",), "weights"),
    Case(np.bincount, "np.sum(np.bincount(i, weights=w, minlength=5) * c)",
         {"i": np.array([0, 3, 3, 1]), "w": W, "c": np.array([0.3, -1.2, 0.8, 1.1, 0.45])},
         ("w",), "minlength"),
    Case(np.take, "np.sum(np.sin(np.take(x, i)))", {"x": vec(-1.0, 1.0), "i": _IDX},
         label="flat"),
    Case(np.take, "np.sum(np.sin(np.take(a, i, axis=1)))", {"a": A23, "i": _IDX}, ("a",),
         "axis1"),
    Case(np.take, "np.sum(np.take(a, 1, 0) * c)", {"a": A23, "c": V3}, ("a",), "int-axis0"),
    Case(np.take, "np.take(x, 2) * 3.0 + np.sum(np.sin(x.take(i)))",
         {"x": vec(-1.0, 1.0), "i": _IDX}, label="scalar-method"),
    Case(np.broadcast_to, "np.sum(np.broadcast_to(x, (2, 4)) * c)", {"x": vec(-1.0, 1.0),
                                                                      "c": C24}, label="rows"),
    Case(np.broadcast_to, "np.sum(np.broadcast_to(v, (2, 3)) * c)",
         {"v": V2.reshape(2, 1).copy(), "c": C23}, ("v",), "column"),
    Case(np.broadcast_to, "np.sum(np.broadcast_to(s, (3,)) * c)", {"s": 0.7, "c": V3},
         ("s",), "number"),
    Case(np.swapaxes, "np.sum(np.swapaxes(a, 0, 2) * c)", {"a": _A234, "c": _A234.T.copy()},
         ("a",), "3d"),
    Case(np.moveaxis, "np.sum(np.moveaxis(a, (0, 1), (2, 0)) * c)",
         {"a": _A234, "c": np.cos(np.arange(24.0)).reshape(3, 4, 2)}, ("a",), "tuples"),
    Case(np.inner, "np.sum(np.inner(a, x) * c)", {"a": A23, "x": V3, "c": V2}, ("a", "x"),
         "2d-1d"),
    Case(np.tensordot, "np.sum(np.tensordot(a, b, 1) * c)", {"a": A23, "b": B32, "c": C22},
         ("a", "b"), "int"),
    Case(np.tensordot, "np.tensordot(a, b)", {"a": A23, "b": B23}, ("a", "b"), "default"),
    Case(np.tensordot, "np.sum(np.tensordot(a, b, axes=((1,), (1,))) * c)",
         {"a": A23, "b": B23, "c": C22}, ("a", "b"), "pairs"),
    Case(np.tensordot, "np.sum(np.tensordot(a, b, (0, 1)) * c)",
         {"a": _A234, "b": B32, "c": np.cos(np.arange(36.0)).reshape(3, 4, 3)}, ("a", "b"),
         "3d-pair"),
    Case(np.kron, "np.sum(np.kron(x, a) * c)",
         {"x": V2, "a": A23, "c": np.cos(np.arange(12.0)).reshape(2, 6)}, ("x", "a"),
         "1d-2d"),
    Case(np.cross, "np.sum(np.cross(x, y) * c)", {"x": V3, "y": V3[::-1] * 2.0 + 0.1, "c": V3},
         ("x", "y"), "vectors"),
    Case(np.cross, "np.sum(np.cross(a, b) * c)", {"a": A23, "b": B23, "c": C23}, ("a", "b"),
         "rows"),
    Case(np.cross, "np.sum(np.cross(a, x) * c)", {"a": A23, "x": V3, "c": C23}, ("a", "x"),
         "rows-vector"),
    Case(np.interp, "np.sum(np.sin(np.interp(x, xp, fp)))",
         {"x": np.array([-1.5, 0.2, 0.9, 2.0]), "xp": _XP, "fp": W}, ("x", "fp"), "array"),
    Case(np.interp, "np.interp(s, xp, fp)", {"s": 0.3, "xp": _XP, "fp": W}, ("s", "fp"),
         "scalar"),
    Case(np.interp, "np.sum(np.interp(x, xp, fp, left=-3.0, right=2.0) * c)",
         {"x": np.array([-1.5, 0.2, 0.9, 2.0]), "xp": _XP, "fp": W, "c": W}, ("x", "fp"),
         "left-right"),
    Case(np.convolve, "np.sum(np.sin(np.convolve(x, v)))", {"x": vec(-1.0, 1.0), "v": V2},
         ("x", "v"), "shorter"),
    Case(np.nan_to_num, "np.sum(np.nan_to_num(np.log(x)) * c)",
         {"x": np.array([0.5, -1.0, 2.0, 0.3]), "c": W}, label="nan"),
    Case(np.nan_to_num, "np.sum(np.nan_to_num(np.exp(x) + np.log(y), nan=1.0, posinf=5.0) * c)",
         {"x": np.array([0.5, 800.0, -1.0, 0.3]), "y": np.array([0.5, 1.2, -1.0, 2.0]),
          "c": W}, ("x", "y"), "inf-nan"),
    Case(np.median, "np.sum(np.median(a, axis=1) * c)", {"a": A23, "c": V2}, ("a",), "axis1"),
    Case(np.median, "np.median(x)", {"x": V6}, label="even"),
    Case(np.quantile, "np.sum(np.quantile(a, q, axis=0) * c)",
         {"a": A23, "q": np.array([0.2, 0.7]), "c": C23}, ("a", "q"), "axis0"),
    Case(np.percentile, "np.sum(np.percentile(a, 30.0, 1) * c)", {"a": A23, "c": V2}, ("a",),
         "axis1"),
    *[Case(fn, f"b = np.where(a > 1.0, np.nan, a)\nreturn np.{fn.__name__}(b * b)",
           {"a": _OVER}, ("a",), "nan") for fn in (np.nansum, np.nanmean, np.nanmax, np.nanmin)],
    *[Case(fn, f"b = np.where(a > 1.0, np.nan, a)\n"
               f"return np.sum(np.sin(np.{fn.__name__}(b * b, axis=k)))",
           {"a": _OVER, "k": k}, ("a",), f"nan-axis{k}")
      for fn in (np.nansum, np.nanmean, np.nanmax, np.nanmin) for k in (0, 1)],
]

NONDIFF_CASES += [
    Case(np.argsort, "np.sum(x * 0.0 + np.argsort(x)) + x[np.argsort(x)[0]] * 0.0", {"x": _X}),
    Case(np.argsort, "np.sum(a * 0.0 + np.argsort(a, axis=0) + a.argsort())", {"a": A23},
         ("a",), "axis0-method"),
    Case(np.argsort, "np.sum(x * 0.0) + np.sum(np.argsort(a, None))", {"x": _X, "a": A23},
         label="flattened"),
    Case(np.searchsorted, "np.sum(x * 0.0 + np.searchsorted(np.sort(x), x))", {"x": _X}),
    Case(np.searchsorted, "x[0] * 0.0 + np.searchsorted(x, 0.3)", {"x": np.sort(_X)},
         label="number"),
    Case(np.digitize, "np.sum(x * 0.0 + np.digitize(x, np.array([-0.5, 0.0, 0.5])))",
         {"x": _X}),
    Case(np.digitize, "np.sum(x * 0.0 + np.digitize(x, b, True))", {"x": _X, "b": _X},
         ("x", "b"), "right"),
    Case(np.nonzero, "np.sum(x * 0.0) + np.sum(np.nonzero(x > 0.0)[0])", {"x": _X}),
    Case(np.nonzero, "np.sum(a * 0.0) + np.sum(np.nonzero(a > 0.0)[1]) + np.sum(a.nonzero()[0])",
         {"a": A23}, ("a",), "2d-method"),
]

# numpy_arrangements: the rules its domains do not reach (tuple-valued calls and their
# items, np.select's lists) and its values without gradients (more forms in
# tests/test_rules_arrangements.py)
DIFF_CASES += [
    *[Case(fn, "a, b = np.split(x, 2)\nreturn np.sum(a * b) + np.sum(np.sin(a))",
           {"x": V6}, label="halves") for fn in (np.split, rt.split_head, rt.split_tail)],
    *[Case(fn, "a, b = np.array_split(x, 2, axis=1)\nreturn np.sum(a ** 2) - np.sum(np.sin(b))",
           {"x": A23}, label="axis1") for fn in (np.array_split, rt.array_split_head,
                                                 rt.array_split_tail)],
    *[Case(fn, "gx, gy = np.meshgrid(x, y)\nreturn np.sum(np.sin(gx * gy + gx))",
           {"x": V3, "y": W}, ("x", "y"), "xy") for fn in (np.meshgrid, rt.meshgrid_x,
                                                           rt.meshgrid_y)],
    Case(np.select, "np.sum(np.select([x < -0.5, x > 1.0], [x * x, np.sin(x)], d) * c)",
         {"x": vec(-2.0, 2.0), "d": 0.3, "c": W}, ("x", "d"), "two"),
]

NONDIFF_CASES += [
    Case(np.allclose, "np.sum(x * 0.0) + np.allclose(x, y)", {"x": _X, "y": _X + 1e-9},
         ("x", "y")),
    Case(np.isclose, "np.sum(x * 0.0 + np.isclose(x, y))", {"x": _X, "y": _X[::-1].copy()},
         ("x", "y")),
    Case(np.array_equal, "np.sum(x * 0.0) + np.array_equal(x, y)", {"x": _X, "y": _X},
         ("x", "y")),
    Case(np.argwhere, "np.sum(x * 0.0) + np.sum(np.argwhere(x > 0.0))", {"x": _X}),
    Case(np.triu_indices, "i, j = np.triu_indices(4, 1)\nreturn np.sum(x * 0.0) + np.sum(i * j)",
         {"x": _X}),
    Case(np.tril_indices, "i, j = np.tril_indices(3, 0, 4)\nreturn np.sum(x[i] * 0.0) + "
         "np.sum(j)", {"x": _X}),
    Case(np.flatnonzero, "np.sum(x * 0.0) + np.sum(np.flatnonzero(x > 0.0))", {"x": _X}),
    Case(np.argpartition, "np.sum(x * 0.0 + np.argpartition(x, 1))", {"x": _X}),
    Case(rt.partition_order, "np.sum(x * 0.0 + rt.partition_order(x, 1))", {"x": _X}),
    Case(np.fix, "np.sum(x * 0.0 + np.fix(x))", {"x": _X}),
    *[Case(fn, f"np.sum(x * 0.0 + np.{fn.__name__}(x / (x - x[0])))", {"x": _X})
      for fn in (np.isneginf, np.isposinf, np.isreal, np.iscomplex)],
    *[Case(fn, f"np.sum(x * 0.0) + np.{fn.__name__}(x)", {"x": _X})
      for fn in (np.iscomplexobj, np.isscalar, np.ndim, np.size)],
]

# numpy_splits: the pieces of np.hsplit, np.vsplit and np.dsplit (tuple-valued calls and
# their items), np.dstack of a tuple written out, np.array_equiv (more forms in
# tests/test_rules_splits.py)
DIFF_CASES += [
    *[Case(fn, "a, b = np.hsplit(x, 2)\nreturn np.sum(a * b) + np.sum(np.sin(a))",
           {"x": C24}, label="halves") for fn in (np.hsplit, rt.hsplit_head, rt.hsplit_tail)],
    *[Case(fn, "a, b = np.vsplit(x, [1])\nreturn np.sum(a ** 2) - np.sum(np.sin(b) * c)",
           {"x": C42, "c": B32}, label="index") for fn in (np.vsplit, rt.vsplit_head,
                                                           rt.vsplit_tail)],
    *[Case(fn, "a, b = np.dsplit(x, 2)\nreturn np.sum(np.sin(a) * b)", {"x": _A234},
           label="halves") for fn in (np.dsplit, rt.dsplit_head, rt.dsplit_tail)],
    Case(np.dstack, "np.sum(np.dstack((a, b)) * c)",
         {"a": A23, "b": B23, "c": np.stack([C23, -C23[::-1]], axis=-1)}, ("a", "b"),
         "tuple-2d"),
]

NONDIFF_CASES += [
    Case(np.array_equiv, "np.sum(x * 0.0) + np.array_equiv(x, y) + np.array_equiv(a, x[:3])",
         {"x": _X, "y": _X, "a": A23}, ("x", "y")),
]

# every rule that declares its domain: cases made from it
DIFF_CASES += [c for rule in rules_with_domains() for c in _from_domain(rule)]


_load_cases(DIFF_CASES + NONDIFF_CASES + CONSTRUCTOR_VALUE_CASES)


def _params(cases):
    ids, out = {}, []
    for case in cases:
        n = ids[case.id] = ids.get(case.id, 0) + 1
        out.append(pytest.param(case, id=case.id if n == 1 else f"{case.id}-{n}"))
    return out


def _args(case):
    return tuple(np.array(v, copy=True) if isinstance(v, np.ndarray) else v
                 for v in case.args.values())


def rules_used(fn):
    """Names of the registry rules that the normalized `fn` applies."""
    ctx = Context(FunctionSource(fn), Program())
    used = set()
    for node in gast.walk(normalize(ctx)):
        if isinstance(node, (gast.BinOp, gast.UnaryOp)):
            used.add("op." + type(node.op).__name__)
        elif isinstance(node, gast.Compare):
            used.add("op." + type(node.ops[0]).__name__)
        elif isinstance(node, gast.Call):
            used.add(ir.dotted_text(node.func))
    return used


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", _params(DIFF_CASES))
def test_adjoint_matches_finite_differences(case):
    got = srcad.grad(case.fn, wrt=case.wrt, jit=False)(*_args(case))
    want = fd_grad(case.fn, _args(case), case.wrt)
    assert_grad_close(got, want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("case", _params(NONDIFF_CASES))
def test_nondifferentiable_rule_adds_no_gradient(case):
    got = srcad.grad(case.fn, wrt=case.wrt, jit=False)(*_args(case))
    for g in got if isinstance(got, tuple) else (got,):
        assert np.all(np.asarray(g) == 0.0), f"nonzero gradient {g} through `{case.name}`"


@pytest.mark.parametrize("case", _params(CONSTRUCTOR_VALUE_CASES))
def test_constructor_value_arguments_have_gradients(case):
    got = srcad.grad(case.fn, wrt=case.wrt, jit=False)(*_args(case))
    assert_grad_close(got, fd_grad(case.fn, _args(case), case.wrt))


@pytest.mark.parametrize("case", _params(DIFF_CASES + NONDIFF_CASES + CONSTRUCTOR_VALUE_CASES))
def test_case_applies_its_rule(case):
    wanted = set(registry.by_name(case.name).parts) or {case.name}  # tuple-valued: its items
    assert wanted <= rules_used(case.fn), \
        f"case `{case.id}` does not call `{case.name}`:\n{case.source('f')}"


def test_every_differentiable_rule_is_covered():
    registry = {r.name for r in all_rules() if r.body and r.diff or r.parts}
    covered = {c.name for c in DIFF_CASES + CONSTRUCTOR_VALUE_CASES}
    assert covered == registry - set(NOT_CALLABLE_BY_USERS), (
        f"rules without a case: {sorted(registry - covered)}; "
        f"cases for unknown rules: {sorted(covered - registry)}")


def test_every_nondifferentiable_rule_is_covered():
    registry = {r.name for r in all_rules() if not r.body and not r.parts}
    registry |= {c.name for c in CONSTRUCTOR_VALUE_CASES}  # constant when their values are
    covered = {c.name for c in NONDIFF_CASES}
    assert covered == registry - set(NOT_CALLABLE_BY_USERS), (
        f"rules without a case: {sorted(registry - covered)}; "
        f"cases for unknown rules: {sorted(covered - registry)}")


def test_rules_named_after_runtime_helpers_are_theirs():
    # generated code calls `rt.<name>`; differentiating it again (Hessians) looks the
    # helper itself up in the registry
    for rule in all_rules():
        if rule.name.startswith("rt."):
            assert registry.lookup(getattr(rt, rule.name[3:])) is rule, rule.name


def test_adjoint_rules_name_their_differentiable_parameters():
    for rule in all_rules():
        assert bool(rule.body) == bool(rule.diff), rule.name
        assert rule.diff <= set(rule.params[1:]), rule.name


def test_cotangent_weights_are_not_trivial():
    # a symmetric cotangent could hide a transposed or reversed adjoint
    assert len(set(W)) == W.size and not math.isclose(float(np.sum(W)), 0.0)


# ---------------------------------------------------------------------------
# Views: a rule whose result may share memory with an argument says so
# ---------------------------------------------------------------------------


def _arrays(value):
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _arrays(v)]
    return []


class _WatchRuleCalls(gast.NodeTransformer):
    """After each `t = rule(args...)` of the normalized function, a call of
    `__shares(rule name, t, (args...))`."""

    def visit_Assign(self, node):
        value = node.value
        if not (isinstance(value, gast.Call) and len(node.targets) == 1
                and isinstance(node.targets[0], gast.Name)
                and registry.by_name(ir.dotted_text(value.func)) is not None):
            return node
        watch = gast.Call(func=gast.Name("__shares", gast.Load(), None, None),
                          args=[gast.Constant(ir.dotted_text(value.func), None),
                                gast.Name(node.targets[0].id, gast.Load(), None, None),
                                gast.Tuple(elts=list(value.args), ctx=gast.Load())],
                          keywords=[])
        return [node, gast.Expr(value=watch)]


# print's placeholder is filled in by a pass after normalization
_NOT_RUNNABLE_NORMALIZED = {"rt.show"}


@pytest.mark.parametrize("case", [p for p in _params(DIFF_CASES + NONDIFF_CASES +
                                                     CONSTRUCTOR_VALUE_CASES)
                                  if p.values[0].name not in _NOT_RUNNABLE_NORMALIZED])
def test_results_sharing_memory_are_declared_views(case):
    # The tape keeps a rule's result as it is unless the rule is a view (then a copy): an
    # undeclared view of an array that the function writes afterwards is read back with
    # the write in it. Run the normalized case, and at every rule call check that a result
    # sharing memory with an argument is declared `view` (of its first argument).
    shared = []

    def shares(name, result, args):
        rule = registry.by_name(name)
        for k, arg in enumerate(args):
            if any(np.shares_memory(r, a) for r in _arrays(result) for a in _arrays(arg)):
                if not (rule.view and k == 0):
                    shared.append((name, k))

    fnode = _WatchRuleCalls().visit(normalize(Context(FunctionSource(case.fn), Program())))
    module = ast.fix_missing_locations(gast.gast_to_ast(gast.Module(body=[fnode],
                                                                     type_ignores=[])))
    space = dict(case.fn.__globals__, __shares=shares)
    exec(compile(module, case.fn.__code__.co_filename, "exec"), space)
    with np.errstate(all="ignore"):
        space[fnode.name](*_args(case))
    assert not shared, f"results that share memory with argument k, undeclared: {shared}"

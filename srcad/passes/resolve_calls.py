"""ResolveCalls: what every call is, decided once.

Each call names its callee the way the generated code calls it: a rule's canonical name
(`np.sin`, `rt.mean`), a user helper's name, or the module-level name of a function with a
custom rule; and `ctx.calls` records, per call node, a `CallSite`: which of those it is.
Later passes dispatch on that record. On the way, spellings become the call they mean:
methods (`x.sum()` is `np.sum(x)`), `x.T` (`np.transpose(x)`), `sum([a, b])` of a literal
(`0 + a + b`, as Python adds), `max([a, b, c])` and `max(a, b, c)` (nested pairs), a
`dtype=` type (`np.float64` for `float`), and a list or tuple literal where a NumPy rule
takes an array (`np.array`), and a function that spells an operator (`np.multiply(a, b)`
is `a * b`).

>>> from srcad.passes.testing import show_resolved
>>> show_resolved('''
... def f(x, w):
...     a = sum([x.sum(), w])
...     return np.multiply(a, 2.0) + max([w, 1.0, x.T.mean()])''')
def f(x, w):
    a = 0 + np.sum(x) + w
    return a * 2.0 + max(max(w, 1.0), rt.mean(np.transpose(x)))
"""
import builtins
import copy
import math
import numbers
import types
from dataclasses import dataclass

import gast
import numpy as np

from srcad import custom
from srcad.errors import NoRuleError, UnsupportedError
from srcad.passes import ir
from srcad.rules import registry

# parameters of NumPy rules that take an array: a list or tuple literal passed there is
# the array NumPy makes of it (`np.sum([1.0, a * a])`)
_ARRAY_PARAMS = ("x", "y")


_LIBRARIES = ("numpy", "math", "scipy", "numba", "builtins", "srcad")


def is_user_function(obj):
    """A plain Python function of the user's (not one of NumPy's written in Python)."""
    fn = getattr(obj, "py_func", obj)
    module = (getattr(fn, "__module__", None) or "").split(".")[0]
    return isinstance(fn, types.FunctionType) and registry.lookup(obj) is None \
        and module not in _LIBRARIES


@dataclass(frozen=True)
class CallSite:
    """What a call is: `kind` "rule" (`rule` is its Rule), "user" (a helper of the user's,
    differentiated in turn) or "custom" (a function with a defvjp/defjvp rule); `name`
    is how the generated code calls it; `method` the method it was written as, if any."""

    kind: str
    name: str
    rule: object = None
    method: str = None  # the array method the call was written as (`x.sum()`: "sum")


_ATTRIBUTE_CALLS = {"T": "np.transpose", "real": "np.real", "imag": "rt.imag"}


class ResolveCalls(gast.NodeTransformer):
    """Transformation and analysis (see the module): every call names its callee and has
    a `CallSite` in `ctx.calls`."""

    needs = ("resolve",)
    provides = ("calls", "user_functions", "custom_calls", "custom_tangents")

    def __init__(self, ctx):
        self.ctx = ctx
        self.resolve = ctx.resolve
        self.stmt = None

    def run(self, fnode):
        for stmt in fnode.body:
            self.statement(stmt)
        return fnode

    def statement(self, stmt):
        """Resolve the calls of `stmt` (and of the statements nested in it)."""
        if isinstance(stmt, gast.stmt):
            self.stmt = stmt
        for field, value in gast.iter_fields(stmt):
            if isinstance(value, list) and value and isinstance(value[0], gast.stmt):
                for s in value:
                    self.statement(s)
                self.stmt = stmt
            elif field == "iter" and is_range(value, self.resolve):
                value.args = [self.visit(a) for a in value.args]  # a loop's own range
            elif isinstance(value, gast.expr):
                setattr(stmt, field, self.visit(value))
            elif isinstance(value, list):
                setattr(stmt, field, [self.visit(v) if isinstance(v, gast.expr) else v
                                      for v in value])

    def error(self, message, hint=None, cls=UnsupportedError):
        return self.ctx.fsrc.error(message, self.stmt, hint, cls)

    def local(self, name):
        return name not in self.resolve.free

    def visit_Attribute(self, node):
        self.generic_visit(node)
        obj = self.resolve.lookup(ir.dotted_text(node) or "")
        if node.attr in _ATTRIBUTE_CALLS and (obj is self.resolve.MISSING or
                                              isinstance(obj, np.ndarray)):
            # an array's `x.T` is `np.transpose(x)` (NumPy's own `np.real` is a function)
            name = _ATTRIBUTE_CALLS[node.attr]
            return self.site(ir.call(name, node.value), "rule", registry.by_name(name))
        return node

    def visit_Call(self, node):
        if node in self.ctx.calls:  # made by an earlier pass (LowerRaises), resolved there
            return node
        self.generic_visit(node)
        if any(isinstance(a, gast.Starred) for a in node.args):
            raise self.error("`*args` in calls is not supported")
        if any(kw.arg is None for kw in node.keywords):
            raise self.error("`**kwargs` in calls is not supported")
        text = ir.dotted_text(node.func)
        args = list(node.args)
        if text is None or self.local(text.split(".")[0]) or self.global_array_method(node):
            rule = registry.by_method(node.func.attr) \
                if isinstance(node.func, gast.Attribute) else None
            if rule is None and isinstance(node.func, gast.Attribute) and \
                    node.func.attr in ("append", "extend", "insert", "pop"):
                raise self.error(f"the call `{text or node.func.attr}(...)` is not supported: "
                                 "srcad does not grow lists", "fill an array made before the "
                                 "loop instead: `states = np.zeros(n)`, then `states[i] = ...`")
            if rule is None:
                raise self.error(f"the call `{text or type(node.func).__name__}(...)` is not "
                                 "supported", "call module-level functions, numpy or math; "
                                 "methods: " + ", ".join(registry.methods()))
            args = [node.func.value] + args
            if node.func.attr == "reshape" and len(args) > 2:
                args = [args[0], gast.Tuple(elts=args[1:], ctx=gast.Load())]
            return self.rule_call(rule, args, node.keywords, method=node.func.attr)
        obj = self.resolve.lookup(text)
        if registry.ufunc_of(obj) is not None:
            return self.ufunc_method(text, *registry.ufunc_of(obj), args, node.keywords)
        op = registry.operator_of(obj)
        if op is not None and len(args) == 2 and not node.keywords:
            return gast.BinOp(left=args[0], op=op(), right=args[1])
        literal = _one_literal(args, node.keywords)
        if obj is builtins.sum and literal is not None:
            return _sum_of(literal.elts)
        kind, name = self.callee(text, obj)
        if kind == "rule":
            return self.rule_call(registry.by_name(name), args, node.keywords)
        return self.site(gast.Call(func=ir.dotted(name), args=args, keywords=node.keywords),
                         kind)

    def global_array_method(self, node):
        """Whether `node` calls a method of a module-level array (`A.sum()`)."""
        return isinstance(node.func, gast.Attribute) and isinstance(node.func.value, gast.Name) \
            and isinstance(self.resolve.lookup(node.func.value.id), np.ndarray)

    def rule_call(self, rule, args, keywords, method=None):
        """A call of `rule` with these arguments, in the spelling the rule takes."""
        keep = next((kw for kw in keywords if kw.arg == "keepdims"), None)
        if keep is not None and "axis" in rule.params and "keepdims" not in rule.params:
            return self.keeping_dims(rule, args, [kw for kw in keywords if kw is not keep],
                                     keep.value, method)
        literal = _one_literal(args, keywords)
        if rule.name in ("min", "max") and literal is not None and len(literal.elts) == 1:
            return literal.elts[0]  # max([e]) is e (visited with the call's arguments)
        if rule.name in ("min", "max") and literal is not None and len(literal.elts) > 1:
            args = list(literal.elts)
        if rule.name in ("min", "max") and len(args) > 2 and not keywords:
            args = [self.rule_call(rule, args[:-1], []), args[-1]]
        if not rule.parts:
            args = [_as_array(a) if p in _ARRAY_PARAMS else self.dtype(a) if p == "dtype" else a
                    for a, p in zip(args, rule.params[1:])] + args[len(rule.params) - 1:]
        keywords = [gast.keyword(arg="dtype", value=self.dtype(kw.value))
                    if kw.arg == "dtype" else kw for kw in keywords]
        return self.site(gast.Call(func=ir.dotted(rule.name), args=args, keywords=keywords),
                         "rule", rule, method)

    def ufunc_method(self, text, ufunc, method, args, keywords):
        """`ufunc.outer(a, b)` as `ufunc(rt.outer_left(a, b), b)`; `reduce` and
        `accumulate` as the functions the rules name for them (`np.add.reduce` is
        `np.sum` along axis 0)."""
        if method == "outer":
            if len(args) != 2 or keywords:
                raise self.error(f"`{text}` takes two arguments here, `a` and `b`")
            lifted = self.site(ir.call("rt.outer_left", args[0], args[1]), "rule",
                               registry.by_name("rt.outer_left"))
            pair = [lifted, copy.deepcopy(args[1])]
            op = registry.operator_of(ufunc)
            if op is not None:
                return gast.BinOp(left=pair[0], op=op(), right=pair[1])
            rule = registry.lookup(ufunc)
            if rule is not None:
                return self.rule_call(rule, pair, [])
        spelled = registry.by_ufunc_method(ufunc, method)
        if spelled is None:
            raise self.error(f"no derivative rule for `{text}`",
                             "srcad takes `outer` of the ufuncs it differentiates, and "
                             "`reduce`/`accumulate` of np.add, np.multiply (and `reduce` of "
                             "np.maximum, np.minimum): write it with those, or with np.sum, "
                             "np.cumsum, np.max ...", NoRuleError)
        function, defaults = spelled
        rule = registry.lookup(function)
        given = {kw.arg for kw in keywords} | set(rule.params[2:len(args) + 1])
        keywords = list(keywords) + [gast.keyword(arg=k, value=ir.const(v))
                                     for k, v in defaults.items() if k not in given]
        return self.rule_call(rule, args, keywords)

    def keeping_dims(self, rule, args, keywords, keep, method):
        """A reduction with `keepdims=`: `rt.keep_dims(reduced, x, axis)` for True (the
        reduced axes kept with length 1), the reduction itself for False."""
        if not (isinstance(keep, gast.Constant) and isinstance(keep.value, bool)):
            raise self.error("`keepdims=` must be True or False as written",
                             hint="write keepdims=True or keepdims=False")
        reduced = self.rule_call(rule, args, keywords, method)
        if not keep.value:
            return reduced
        bound = rule.bind(reduced.args, reduced.keywords, self.error)
        axis = bound.get("axis")
        kept = ir.call("rt.keep_dims", reduced, copy.deepcopy(bound[rule.params[1]]),
                       copy.deepcopy(axis) if axis is not None else ir.const(None))
        return self.site(kept, "rule", registry.by_name("rt.keep_dims"))

    def site(self, call, kind, rule=None, method=None):
        self.ctx.calls[call] = CallSite(kind, ir.dotted_text(call.func), rule, method)
        for a in call.args:
            if isinstance(a, gast.Call) and a not in self.ctx.calls:  # made here: np.array
                self.site(a, "rule", registry.by_name(ir.dotted_text(a.func)))
        return call

    def dtype(self, node):
        """A `dtype=` argument as the NumPy type it names (`float` is `np.float64`), or an
        array's dtype (`x.dtype`)."""
        if isinstance(node, gast.Attribute) and node.attr == "dtype":
            return node
        text = ir.dotted_text(node)
        obj = self.resolve.lookup(text) if text else self.resolve.MISSING
        kinds = {float: "np.float64", int: "np.int64", bool: "np.bool_",
                 complex: "np.complex128"}
        if obj in kinds:
            return ir.dotted(kinds[obj])
        if isinstance(obj, type) and issubclass(obj, np.generic):
            return ir.dotted("np." + obj.__name__)
        raise self.error("`dtype=` must name a type such as float, int, np.float64, or an "
                         "array's `x.dtype`")

    def callee(self, text, obj):
        """(kind, name) of the function `text` names, or a SrcadError."""
        if obj is self.resolve.MISSING:
            raise self.error(f"`{text}` is not defined")
        vjp_rule, jvp_rule = custom.lookup(obj), custom.lookup_jvp(obj)
        if vjp_rule is not None or jvp_rule is not None:
            stem = getattr(obj, "__name__", "custom")
            program = self.ctx.program
            name = program.external(obj, stem + "_custom")
            self.ctx.custom_calls[name] = (
                obj, program.external(vjp_rule[1], stem + "_vjp") if vjp_rule else None)
            self.ctx.custom_tangents[name] = \
                program.external(jvp_rule[1], stem + "_jvp") if jvp_rule else None
            return "custom", name
        rule = registry.lookup(obj)
        if rule is not None:
            return "rule", rule.name
        if is_user_function(obj):
            fn = getattr(obj, "py_func", obj)
            known = self.ctx.user_functions.setdefault(fn.__name__, fn)
            if known is not fn:
                raise self.error(f"two different functions are both called `{fn.__name__}`",
                                 "rename one of them")
            return "user", fn.__name__
        if isinstance(obj, (numbers.Number, np.ndarray)):
            raise self.error(f"`{text}` is a value, not a function")
        where = "math" if getattr(obj, "__module__", None) == "math" or \
            obj in vars(math).values() else "numpy"
        raise self.error(f"no derivative rule for `{text}`",
                         f"srcad has no rule for this function; write it with supported "
                         f"{where} functions in a module-level helper, give that helper a "
                         "derivative with @srcad.defvjp(helper), or compute it outside the "
                         "differentiated function", NoRuleError)


def is_range(node, resolve):
    """Whether `node` calls Python's `range` (or one a pass wrote, where the function
    itself never names `range`)."""
    return isinstance(node, gast.Call) and ir.dotted_text(node.func) == "range" \
        and resolve.lookup("range") in (range, resolve.MISSING)


def _as_array(arg):
    if not isinstance(arg, (gast.List, gast.Tuple)):
        return arg
    return ir.call("rt.array", gast.List(elts=arg.elts, ctx=gast.Load()))


def _one_literal(args, keywords):
    """The list or tuple literal that is a call's only argument, or None."""
    if len(args) == 1 and not keywords and isinstance(args[0], (gast.List, gast.Tuple)) and \
            not any(isinstance(e, gast.Starred) for e in args[0].elts):
        return args[0]
    return None


def _sum_of(elts):
    """`sum([a, b, c])` as Python computes it: `((0 + a) + b) + c`."""
    total = ir.const(0)
    for e in elts:
        total = gast.BinOp(left=total, op=gast.Add(), right=e)
    return total

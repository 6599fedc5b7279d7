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
from srcad.passes.constants import Constants
from srcad.rules import registry
from srcad.rules.numpy_splits import SPLITS

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
        HeldSplits(self.ctx).run(fnode)
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

    def visit_Subscript(self, node):
        text = ir.dotted_text(node.value)
        obj = self.resolve.lookup(text) if text else None
        if text and (obj is np.mgrid or obj is np.ogrid):  # `np.mgrid[0:n, 0:m]`: ranges
            if "." not in text:
                raise self.error(f"`{text}[...]` is supported as `np.{text}[...]`")
            return self.visit(_grid(text.rsplit(".", 1)[0], obj is np.ogrid, node.slice,
                                    self.error))
        self.generic_visit(node)
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
            if node.func.attr in ("reshape", "transpose") and len(args) > 2:
                # `x.reshape(2, 3)`, `x.transpose(1, 0, 2)`: the numbers are one tuple
                args = [args[0], gast.Tuple(elts=args[1:], ctx=gast.Load())]
            return self.rule_call(rule, args, node.keywords, method=node.func.attr)
        obj = self.resolve.lookup(text)
        if registry.ufunc_of(obj) is not None:
            return self.ufunc_method(text, *registry.ufunc_of(obj), args, node.keywords)
        op = registry.operator_of(obj)
        if op is not None and len(args) == 2 and not node.keywords:
            return gast.BinOp(left=args[0], op=op(), right=args[1])
        if op is not None:
            raise self.error(f"`{text}(...)` is supported with two arguments, as the operator "
                             "it spells", "write the operator: `x ** y % m` for `pow(x, y, m)`, "
                             "and no `out=` or `where=`")
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


def _grid(module, sparse, index, error):
    """`np.mgrid[a:b:s, c:d:n*1j]` (`sparse`: `np.ogrid`) as NumPy's functions compute it:
    each slice the range `np.arange(a, b, s)` (a complex step: `np.linspace(c, d, n)`),
    all of one type; np.ogrid's ranges stand each along its own axis, np.mgrid's are
    broadcast to the whole grid and stacked. `module` is how the code spells numpy."""
    spelled = f"{module}.{'ogrid' if sparse else 'mgrid'}"
    slices = index.elts if isinstance(index, gast.Tuple) else [index]
    if not all(isinstance(s, gast.Slice) and s.upper is not None for s in slices):
        raise error(f"`{spelled}` takes ranges with an end here, `{spelled}[0:n, 0:m]`")
    ranges, floats = [], False
    for s in slices:
        start, step = s.lower or ir.const(0), s.step or ir.const(1)
        bounds = [b.value for b in (start, s.upper, step) if isinstance(b, gast.Constant)]
        counted = any(isinstance(n, gast.Constant) and isinstance(n.value, complex)
                      for n in ir.walk(step))
        if counted and not isinstance(step, gast.Constant):
            raise error(f"`{spelled}` takes a count written as a number here (`0:1:5j`)",
                        f"or call `{module}.linspace(start, stop, n)`")
        if isinstance(step, gast.Constant) and isinstance(step.value, complex):
            ranges.append(ir.call(f"{module}.linspace", start, s.upper,
                                  ir.const(int(abs(step.value)))))
        else:
            ranges.append(ir.call(f"{module}.arange", start, s.upper, step))
        floats |= any(isinstance(b, (float, complex)) for b in bounds)
    if floats:  # NumPy gives every range the type of the widest
        ranges = [gast.BinOp(left=r, op=gast.Add(), right=ir.const(0.0)) for r in ranges]
    if len(ranges) == 1:
        return ranges[0]
    along = [gast.Subscript(value=r, slice=gast.Tuple(elts=[
        gast.Slice(lower=None, upper=None, step=None) if j == k else ir.const(None)
        for j in range(len(ranges))], ctx=gast.Load()), ctx=gast.Load())
        for k, r in enumerate(ranges)]
    if sparse:
        return gast.Tuple(elts=along, ctx=gast.Load())
    shape = gast.Tuple(elts=[gast.Subscript(
        value=gast.Attribute(value=copy.deepcopy(r), attr="shape", ctx=gast.Load()),
        slice=ir.const(0), ctx=gast.Load()) for r in ranges], ctx=gast.Load())
    return ir.call(f"{module}.stack", gast.Tuple(elts=[
        ir.call(f"{module}.broadcast_to", a, copy.deepcopy(shape)) for a in along],
        ctx=gast.Load()))


def split_count(rule, args, keywords, consts):
    """How many pieces a split (`numpy_splits.SPLITS`) gives, when its call says: its
    number of sections (a positive int), or one more than its list of indices written
    there; else None."""
    if rule is None or rule.name not in SPLITS:
        return None
    given = args[1:2] + [kw.value for kw in keywords if kw.arg == "indices_or_sections"]
    if not given:
        return None
    if isinstance(given[0], (gast.List, gast.Tuple)):
        return len(given[0].elts) + 1
    folded = consts.constant(given[0])
    value = folded.value if isinstance(folded, gast.Constant) else None
    return value if type(value) is int and value > 0 else None


class HeldSplits:
    """Transformation (part of ResolveCalls): a split held in a name assigned once is
    unpacked where it is built, its pieces named after it; `parts[k]` is piece k,
    `len(parts)` their number, and any other read the tuple of the pieces (`a, b, c =
    parts`, `for p in parts:`, which UnrollTupleLoops then unrolls).

    >>> from srcad.passes.testing import show_resolved
    >>> show_resolved('''
    ... def f(x):
    ...     parts = np.split(x, 3)
    ...     for p in parts:
    ...         x = x + np.sum(p)
    ...     return parts[-1] * len(parts)''')
    def f(x):
        parts_0, parts_1, parts_2 = np.split(x, 3)
        for p in (parts_0, parts_1, parts_2):
            x = x + np.sum(p)
        return parts_2 * 3
    """

    def __init__(self, ctx):
        self.ctx = ctx
        self.consts = Constants(ctx.resolve)

    def run(self, fnode):
        stores = {}
        for node in ir.walk(fnode):
            if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
                stores[node.id] = stores.get(node.id, 0) + 1
        for node in list(ir.walk(fnode)):
            if not (isinstance(node, gast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], gast.Name)
                    and stores.get(node.targets[0].id) == 1
                    and isinstance(node.value, gast.Call)):
                continue
            site = self.ctx.calls.get(node.value)
            count = split_count(site and site.rule, node.value.args, node.value.keywords,
                                self.consts)
            if count is not None:
                self.unpack(fnode, node, count)
        return fnode

    def unpack(self, fnode, assign, count):
        """Name the pieces of `assign`'s split and read them where the tuple is read."""
        held = assign.targets[0].id
        names = [self.ctx.namer.fresh(f"{held}_{k}", numbered=False) for k in range(count)]
        assign.targets = [gast.Tuple(elts=[ir.name(n, True) for n in names],
                                     ctx=gast.Store())]

        def read(node):
            if isinstance(node, gast.Subscript) and _is_held(node.value, held):
                folded = self.consts.constant(node.slice)
                k = folded.value if isinstance(folded, gast.Constant) else None
                if type(k) is int and -count <= k < count:
                    return ir.name(names[k])
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                    and node.func.id == "len" and len(node.args) == 1 \
                    and _is_held(node.args[0], held):
                return ir.const(count)
            if _is_held(node, held):
                return gast.Tuple(elts=[ir.name(n) for n in names], ctx=gast.Load())
            return None

        _replace(fnode, read)


def _is_held(node, held):
    return isinstance(node, gast.Name) and node.id == held and isinstance(node.ctx, gast.Load)


def _replace(node, read):
    """Replace each expression under `node` that `read` gives a new one for."""
    for field, value in gast.iter_fields(node):
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            new = read(item) if isinstance(item, gast.expr) else None
            if new is None and isinstance(item, gast.AST):
                _replace(item, read)
            elif new is not None and isinstance(value, list):
                value[i] = new
            elif new is not None:
                setattr(node, field, new)


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

"""LowerComprehensions: `sum(e for v in xs)` becomes an accumulator loop, `max(e for v in
xs)` a loop that keeps the best item."""
import builtins
from collections import Counter

import gast
import numpy as np

from srcad.passes import ir

_COMPREHENSIONS = (gast.GeneratorExp, gast.ListComp)


class LowerComprehensions:
    """Transformation: `sum(e for v in it if c)`, `sum([e for ...])`, `sum(..., start)`,
    `np.sum([e for ...])` and Python's `sum(xs)` of a list or array (`sum(v for v in xs)`)
    become a loop that adds `e` into a fresh accumulator, placed before the statement that
    used the sum. Python's `max` and `min` of one iterable (a comprehension or not, with
    `default=` or without) become a loop that keeps the first item, then each one greater
    (smaller) than the best so far, as Python's own comparison picks it, and raises
    Python's ValueError after it when there was none.

    The loop variables get fresh names (a comprehension has its own scope), several
    `for` clauses nest, and `if` clauses become `if` statements. Python's `sum` starts
    from `0` (or `start`); `np.sum` adds `np.sum(e)`, so arrays add up to one number as
    they do in `np.sum([...])`. A sum whose evaluation is conditional (inside
    `a if c else b`, after `and`/`or`, in a `while` test) is left alone, for
    CheckSupported to refuse.

    >>> from srcad.passes.lower_comprehensions import show_lowered
    >>> show_lowered('''
    ... def f(x, n):
    ...     i = 2
    ...     s = sum(x ** i for i in range(n) if i % 2 == 0)
    ...     return s * i''')
    def f(x, n):
        i = 2
        total = 0
        for i1 in range(n):
            if i1 % 2 == 0:
                total = total + x ** i1
        s = total
        return s * i
    """

    needs = ("local_functions",)
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx
        self.which_sum = SumFinder(getattr(ctx.fsrc, "fn", None),
                                   ctx.local_functions)

    def run(self, fnode):
        self.which_sum.bind(fnode)
        everywhere = Counter(n.id for n in ir.walk(fnode) if isinstance(n, gast.Name))
        self.outside = {}  # comprehension -> the names used outside it, before any lowering
        for comp in ir.walk(fnode):
            if isinstance(comp, _COMPREHENSIONS):
                inside = Counter(n.id for n in ir.walk(comp) if isinstance(n, gast.Name))
                self.outside[comp] = set(everywhere - inside)
        fnode.body = self.block(fnode.body)
        return fnode

    def block(self, stmts):
        out = []
        for s in stmts:
            out += self.stmt(s)
        return out

    def stmt(self, s):
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if isinstance(block, list) and not isinstance(s, (gast.FunctionDef, gast.ClassDef)):
                setattr(s, field, self.block(block))
        found = self.find(s)
        if found is None:
            return [s]
        call, which = found
        total = self.ctx.namer.fresh("total", numbered=False)
        loop = self.lower(call, which, total, s)
        _replace(s, call, ir.name(total))
        return self.block(loop) + self.stmt(s)

    def find(self, s):
        """The first sum of a comprehension that `s` always evaluates, and its kind."""
        return next(_safe_sums(_evaluated(s), self.which_sum, nested=False), None)

    def lower(self, call, which, total, like):
        comp = call.args[0]
        if not isinstance(comp, _COMPREHENSIONS):  # sum(xs): the sum of xs's items
            item = ir.name(self.ctx.namer.fresh("item", numbered=False))
            comp = gast.GeneratorExp(elt=item, generators=[gast.comprehension(
                target=ir.name(item.id, store=True), iter=comp, ifs=[], is_async=0)])
            self.outside[comp] = set()
        outside = self.outside[comp]
        renames = {}
        for gen in comp.generators:  # a variable of the comprehension's own scope
            for n in ir.walk(gen.target):
                if isinstance(n, gast.Name) and n.id in outside:
                    renames[n.id] = self.ctx.namer.fresh(n.id)
        for k, gen in enumerate(comp.generators):
            for part in [gen.target, *gen.ifs] + ([gen.iter] if k else []):
                _rename(part, renames)
        elt = _rename(comp.elt, renames)
        fold = self.extremum if which in _EMPTY else self.accumulate
        head, inner, tail = fold(call, which, elt, total, like)
        for gen in reversed(comp.generators):
            for test in reversed(gen.ifs):
                inner = [ir.if_(test, inner, like=like)]
            loop = gast.For(target=gen.target, iter=gen.iter, body=inner, orelse=[],
                            type_comment=None)
            inner = [gast.copy_location(loop, like)]
        return head + inner + tail

    def accumulate(self, call, which, elt, total, like):
        """(before the loop, its body, after it) of a sum."""
        start = call.args[1] if len(call.args) > 1 else \
            call.keywords[0].value if call.keywords else ir.const(0 if which == "sum" else 0.0)
        if which == "np.sum":
            elt = ir.call("np.sum", elt)
        return ([ir.assign(total, start, like=like)],
                [ir.assign(total, gast.BinOp(left=ir.name(total), op=gast.Add(), right=elt),
                           like=like)], [])

    def extremum(self, call, which, elt, total, like):
        """(before the loop, its body, after it) of Python's `max` or `min` of an iterable:
        the first item, then each one greater (smaller) than the best so far, as Python
        compares them; with no items, `default` or Python's ValueError."""
        found = self.ctx.namer.fresh("found", numbered=False)
        item = self.ctx.namer.fresh("item", numbered=False)
        default = next((k.value for k in call.keywords if k.arg == "default"), None)
        better = gast.Compare(left=ir.name(item), ops=[gast.Gt() if which == "max" else gast.Lt()],
                              comparators=[ir.name(total)])
        take = gast.BoolOp(op=gast.Or(), values=[ir.not_(ir.name(found)), better])
        inner = [ir.assign(item, elt, like=like),
                 ir.if_(take, [ir.assign(total, ir.name(item), like=like)], like=like),
                 ir.assign(found, ir.const(True), like=like)]
        head = [ir.assign(total, default if default is not None else
                          _infinity(which == "max"), like=like),
                ir.assign(found, ir.const(False), like=like)]
        if default is not None:
            return head, inner, []
        fail = gast.Raise(exc=ir.call("ValueError", ir.const(_EMPTY[which])), cause=None)
        return head, inner, [ir.if_(ir.not_(ir.name(found)), [gast.copy_location(fail, like)],
                                    like=like)]


def _infinity(negative):
    """`-np.inf` (the start of a maximum) or `np.inf`."""
    inf = ir.dotted("np.inf")
    return gast.UnaryOp(op=gast.USub(), operand=inf) if negative else inf


def _empty_message(fn):
    """What this Python says when `fn` (max or min) is given no items."""
    try:
        fn([])
    except ValueError as e:
        return str(e)


_EMPTY = {"max": _empty_message(max), "min": _empty_message(min)}


class SumFinder:
    """Tells whether an expression is `sum` or `np.sum` of a comprehension."""

    def __init__(self, fn, scope):
        self.env = dict(vars(builtins))
        self.env.update(getattr(fn, "__globals__", {"np": np}))
        self.env.update(scope)
        self.locals = set()

    def bind(self, fnode):
        """Names that `fnode` binds shadow the builtins and globals."""
        self.locals = {n.id for n in ir.walk(fnode)
                       if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param))}
        return self

    def __call__(self, e):
        """'sum' or 'np.sum' when `e` is one of those applied to a comprehension, or 'sum'
        for Python's `sum` of any other iterable but a literal (`sum(xs)`)."""
        if not (isinstance(e, gast.Call) and e.args
                and not isinstance(e.args[0], (gast.List, gast.Tuple, gast.Starred,
                                               gast.SetComp, gast.DictComp))
                and not any(c.is_async for c in getattr(e.args[0], "generators", ()))):
            return None
        text = ir.dotted_text(e.func)
        if text is None or text.split(".")[0] in self.locals:
            return None
        obj = self.env.get(text.split(".")[0])
        for attr in text.split(".")[1:]:
            obj = getattr(obj, attr, None)
        if obj is builtins.sum and len(e.args) + len(e.keywords) <= 2 \
                and all(k.arg == "start" for k in e.keywords):
            return "sum"
        if obj in (builtins.max, builtins.min) and len(e.args) == 1 \
                and all(k.arg == "default" for k in e.keywords):
            return obj.__name__
        if not isinstance(e.args[0], _COMPREHENSIONS):
            return None
        if obj is np.sum and len(e.args) == 1 and not e.keywords \
                and isinstance(e.args[0], gast.ListComp):  # NumPy refuses a generator
            return "np.sum"
        return None


def lowerable(fnode, fn, scope=None):
    """The comprehensions in `fnode` (nested functions and named lambdas included) that
    LowerComprehensions turns into loops."""
    which_sum = SumFinder(fn, scope or {}).bind(fnode)
    found = set()
    for s in ir.walk(fnode):
        if isinstance(s, gast.stmt):
            exprs = _evaluated(s)
            if isinstance(s, gast.Assign) and isinstance(s.value, gast.Lambda):
                exprs = [s.value.body]
            found |= {call.args[0] for call, _ in _safe_sums(exprs, which_sum, nested=True)}
    return found


def _evaluated(s):
    """The expressions of statement `s` that run once, whenever `s` runs."""
    if isinstance(s, gast.While):
        return []
    out = []
    for field, value in gast.iter_fields(s):
        if field in ("body", "orelse", "finalbody", "handlers") \
                or (field == "target" and isinstance(s, gast.For)):
            continue
        out += [v for v in (value if isinstance(value, list) else [value])
                if isinstance(v, gast.expr)]
    return out


def _safe_sums(exprs, which_sum, nested):
    """(call, kind) for each sum of a comprehension in `exprs` that always runs; with
    `nested`, also those inside the comprehensions found (they run once per element)."""
    for e in exprs:
        which = which_sum(e)
        if which is not None:
            yield e, which
            if not nested:
                continue
            comp = e.args[0]
            children = [*e.args[1:], *(k.value for k in e.keywords)]
            if not isinstance(comp, _COMPREHENSIONS):
                children.append(comp)
            else:
                children.append(comp.elt)
                for gen in comp.generators:
                    children += [gen.iter, *gen.ifs]
        elif isinstance(e, gast.IfExp):
            children = [e.test]
        elif isinstance(e, gast.BoolOp):
            children = e.values[:1]
        elif isinstance(e, gast.Compare) and len(e.ops) > 1:
            children = [e.left, e.comparators[0]]
        elif isinstance(e, (gast.Lambda, gast.GeneratorExp, gast.ListComp, gast.SetComp,
                            gast.DictComp)):
            children = []
        else:
            children = list(gast.iter_child_nodes(e))
        yield from _safe_sums(children, which_sum, nested)


def _rename(node, renames):
    for n in ir.walk(node):
        if isinstance(n, gast.Name) and n.id in renames:
            n.id = renames[n.id]
    return node


def _replace(tree, old, new):
    """Put `new` where `old` is in `tree` (a statement's expressions)."""
    for parent in ir.walk(tree):
        for field, value in gast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list):
                for k, v in enumerate(value):
                    if v is old:
                        value[k] = new
                        return
    raise AssertionError("comprehension not found in its statement")


def show_lowered(source):
    """Print the function in `source` after LowerComprehensions (for the doctest)."""
    import textwrap

    from codegen import to_source
    from srcad.passes.testing import _Ctx

    fnode = gast.parse(textwrap.dedent(source)).body[0]
    print(to_source(LowerComprehensions(_Ctx(fnode)).run(fnode)).rstrip())

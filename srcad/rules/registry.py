"""The rule registry: one `Rule` per differentiable (or explicitly non-differentiable) function.

A rule's adjoint is a template: a function that is never run, whose parameters are the
result `ans` followed by the call's parameters, and whose body adds to the adjoints
`d[x]` of the inputs in terms of `d[ans]` and the primal values. For example::

    @adjoint(np.sin, kind=elementwise)
    def sin(ans, x):
        d[x] += d[ans] * np.cos(x)
"""
import builtins
import inspect
import math
from dataclasses import dataclass, field

import gast
import numpy as np

from codegen.templates import template_body

_BY_ID = {}
_BY_NAME = {}
_BY_METHOD = {}
_OPERATORS = {}  # id(function) -> (function, the gast operator class it computes)
_UFUNC_METHODS = {}  # (ufunc, method name) -> (function, keyword defaults)


@dataclass
class Rule:
    """How to type, and how to differentiate, one function."""

    name: str
    params: list
    defaults: dict
    kind: object
    body: list = field(default_factory=list)
    diff: frozenset = frozenset()
    broadcast: bool = False
    reads: frozenset = frozenset()
    reads_by: dict = field(default_factory=dict)  # parameter -> what its adjoint term reads
    tangent: object = None  # the expression of `t[ans] = ...` (forward mode), or None
    masks: bool = False  # routes the cotangent to one operand per element (where, maximum)
    sequence: str = None  # "concatenate" or "stack": a tuple parameter split back per element
    parts: tuple = ()  # a tuple-valued function: the rules giving each item (see `parts`)
    methods: tuple = ()  # method spellings: `x.sum()` is `np.sum(x)`
    view: bool = False  # the result may share memory with the first argument
    pure: bool = True  # same arguments, same result, no effect (a random draw is not)
    # where the tests try it: parameter -> (lo, hi), two floats, for a float drawn inside,
    # or a fixed value (an int shift, an `axis=()`); the registry-driven tests make its
    # cases from it
    domain: dict = None
    # its value adds or multiplies many terms (a reduction, a matrix product), which a
    # compiler allowed to reorder arithmetic may round differently (see SafeReassociation)
    sums: bool = False
    # its value moves only by rounding when its arguments do (not so `np.floor`, `int`)
    continuous: bool = True
    keyword_only: tuple = ()  # parameters given by keyword only (`ddof` of `np.var`)
    # keywords that name a parameter the template must call otherwise: `d=` of
    # np.fft.fftfreq (a template says `d[x]` for adjoints) -> {"d": "spacing"}
    renamed: dict = field(default_factory=dict)
    # complex operands: None refuses them; True means the template holds for them as it is
    # written (a holomorphic or linear function: under JAX's convention its cotangent
    # rule is the same); a Rule is the one that differentiates the call instead (`np.abs`)
    complex: object = None
    # {(parameter, number): Rule}: the rule that differentiates a call whose `parameter`
    # is that constant instead (`1.0 / y`, whose adjoint in y is `-d * ans * ans`,
    # without a second division; `x ** 2`, `2.0 * x`), see `constant_adjoint`; `number`
    # may be a test of the constant instead (a whole power), the first match counting
    constants: dict = field(default_factory=dict)

    def for_constants(self, bound):
        """The rule for a call whose parameters are bound to the atoms `bound`: this one,
        or its variant for a parameter that is a constant number (`constant_adjoint`)."""
        for (param, number), variant in self.constants.items():
            atom = bound.get(param)
            if isinstance(atom, gast.Constant) and type(atom.value) in (int, float) \
                    and (number(atom.value) if callable(number) else atom.value == number):
                return variant
        return self

    def for_kinds(self, kinds):
        """The rule that differentiates a call whose operands have `kinds`: this one, or
        its complex variant when an operand is complex."""
        if isinstance(self.complex, Rule) and any(getattr(k, "is_complex", False)
                                                  for k in kinds):
            return self.complex
        return self

    @property
    def spelled(self):
        """The name users call the function by (`np.sort` for the rule `rt.sort`)."""
        functions = functions_of(self)
        return canonical_name(functions[0]) if functions else self.name

    def bind(self, args, keywords, error):
        """Map this call's atoms (gast nodes) to the rule's parameters; None if omitted."""
        bound = {}
        params = self.params[1:]
        positional = [p for p in params if p not in self.keyword_only]
        if len(args) > len(positional):
            raise error(f"`{self.spelled}` takes at most {len(positional)} positional "
                        "arguments here" + (f" (pass {', '.join(self.keyword_only)} by keyword)"
                                            if self.keyword_only else ""))
        for p, a in zip(positional, args):
            bound[p] = a
        for kw in keywords:
            arg = self.renamed.get(kw.arg, kw.arg)
            if arg not in params:
                raise error(f"`{self.spelled}` takes no argument `{kw.arg}` in srcad (it takes "
                            f"{', '.join(params)})")
            if arg in bound:
                raise error(f"`{self.spelled}` got its argument `{kw.arg}` twice")
            bound[arg] = kw.value
        for p in params:
            if p not in bound and p not in self.defaults:
                raise error(f"`{self.spelled}` is missing its argument `{p}`")
        return bound


def _adjoint_targets(body):
    """Parameters `x` of the template that appear as `d[x] += ...` targets."""
    out = set()
    for node in body:
        for sub in gast.walk(node):
            if isinstance(sub, gast.AugAssign) and _is_d(sub.target):
                out.add(sub.target.slice.id)
    return frozenset(out)


def _is_d(node):
    return (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
            and node.value.id == "d" and isinstance(node.slice, gast.Name))


def _primal_reads(body, params):
    """Parameters whose primal values the template reads: not only through `d[...]`, nor
    only their shape (`x.shape`, `x.size`, `x.ndim`)."""
    reads = set()
    for node in body:
        for sub in gast.walk(node):
            if _is_d(sub):
                sub.slice._d = True
            if isinstance(sub, gast.Attribute) and sub.attr in ("shape", "size", "ndim") \
                    and isinstance(sub.value, gast.Name):
                sub.value._d = True
        for sub in gast.walk(node):
            if isinstance(sub, gast.Name) and sub.id in params and not getattr(sub, "_d", False):
                reads.add(sub.id)
    return frozenset(reads)


def _reads_by_target(body, params):
    """For each differentiable parameter, the primal values its own `d[p] += ...` terms
    read (statements that update no `d[...]` count for every parameter)."""
    shared, out = set(), {}
    for node in body:
        hit = _adjoint_targets([node])
        reads = _primal_reads([node], params)
        if not hit:
            shared |= reads
        for p in hit:
            out[p] = out.get(p, frozenset()) | reads
    return {p: r | shared for p, r in out.items()}


def canonical_name(obj):
    if isinstance(obj, str):
        return obj
    module = getattr(obj, "__module__", None) or ""
    name = obj.__name__
    if module == "math" or module.startswith("numpy") or type(obj).__name__ == "ufunc":
        if module == "math":
            return f"math.{name}"
        sub = module.split(".")[1] if module.startswith("numpy.") else None
        return f"np.{sub}.{name}" if sub in ("linalg", "fft", "random") else f"np.{name}"
    return name


def _register(objs, rule):
    for obj in objs:
        if isinstance(obj, str):
            _BY_NAME[obj] = rule
        else:
            _BY_ID[id(obj)] = (obj, rule)
    _BY_NAME.setdefault(rule.name, rule)
    for method in rule.methods:
        _BY_METHOD[method] = rule


def adjoint(*objs, kind, name=None, broadcast=None, masks=False, sequence=None, methods=(),
            view=False, pure=True, domain=None, sums=None, linear=False, complex=None,
            renamed=None):
    """Register a template as the adjoint rule of `objs` (functions, or operator keys).

    `masks=True` marks a rule that sends each element's cotangent to one operand only, or to
    none (`np.triu`): zero cotangents upstream of it are strong zeros; `sequence` marks a
    rule taking a tuple of arrays, each of whose adjoints is a slice of d[ans]
    ("concatenate"), or an index into it along the axis ("stack"). `methods` are the array
    methods that spell the same call (`x.sum()`), `view=True` a result that may share the
    first argument's memory (`np.transpose`), `pure=False` a call that must not be merged
    with an equal one (a random draw). `domain` says where the function is smooth enough to
    test: a `(lo, hi)` for every parameter the rule differentiates, or a dict from parameter
    to `(lo, hi)` (two floats) or to a fixed value; the registry-driven tests make a rule's
    cases from it (scalar and array calls of an elementwise rule, 1-d and 2-d arrays of
    another, those its kind takes).
    `sums=True` marks a function whose value adds or multiplies many terms; by default,
    every rule that is not elementwise (`broadcast=False`) is taken to, so a new shape or
    selection function (`np.transpose`, `np.max`) says `sums=False` to let a reverse
    sweep that calls it be reordered. `linear=True` marks a function linear in its first
    parameter, whose tangent is the function applied to that parameter's tangent, the
    other arguments as they are (`np.sum(t[x], axis)`): it needs no `tangent` template.
    `complex=True` marks a template that holds for complex operands too (see
    `Rule.complex`; `complex_adjoint` gives a function another template for them).
    `renamed` maps a keyword users pass to the template's name for that parameter.
    """

    def deco(template):
        rule_broadcast = True if broadcast is None else broadcast
        rule = _rule_of(template, name or canonical_name(objs[0]), kind=kind,
                        broadcast=rule_broadcast, masks=masks, sequence=sequence,
                        methods=tuple(methods), view=view, pure=pure,
                        sums=not rule_broadcast if sums is None else sums, complex=complex,
                        renamed=dict(renamed or {}))
        rule.domain = _domain(domain, rule)
        if linear:
            first, *rest = rule.params[1:]
            rule.tangent = gast.parse(
                f"{rule.name}({', '.join([f't[{first}]', *rest])})").body[0].value
        _register(objs, rule)
        return template

    return deco


def _rule_of(template, name, **attributes):
    """The Rule that an adjoint template writes: its parameters, defaults and keyword-only
    parameters, its body, and what the body differentiates and reads."""
    sig = inspect.signature(template)
    params = list(sig.parameters)
    defaults = {p: v.default for p, v in sig.parameters.items()
                if v.default is not inspect.Parameter.empty}
    body = template_body(template)
    rule = Rule(name=name, params=params, defaults=defaults, body=body,
                diff=_adjoint_targets(body), reads=_primal_reads(body, params),
                reads_by=_reads_by_target(body, params), **attributes)
    rule.keyword_only = tuple(p for p, v in sig.parameters.items()
                              if v.kind is inspect.Parameter.KEYWORD_ONLY)
    return rule


def complex_adjoint(*objs, kind):
    """Register the adjoint template that differentiates `objs` (functions or operator
    keys, which have rules) when an operand is complex, and `kind` types such calls.

    The cotangent of a complex value `z = x + iy` follows JAX's convention: it is
    `dL/dx - i dL/dy`, so a holomorphic function's template (`d[x] += d[ans] * f'(x)`) holds
    as written; this is for the others (`np.abs`, `np.angle`)::

        @complex_adjoint(np.abs, kind=ty.real_part)
        def abs_of_complex(ans, x):
            d[x] += d[ans] * np.conj(x) / ans
    """

    def deco(template):
        for obj in objs:
            rule = by_name(obj) if isinstance(obj, str) else lookup(obj)
            variant = _rule_of(template, rule.name, kind=kind, broadcast=rule.broadcast,
                               masks=rule.masks, methods=rule.methods, view=rule.view,
                               pure=rule.pure, sums=rule.sums, complex=True)
            rule.complex = variant
        return template

    return deco


def constant_adjoint(obj, param, number):
    """Register the adjoint template (and, by `tangent(..., constant=(param, number))`, the
    tangent) that differentiates `obj` (which has a rule) when its parameter `param` is
    the constant `number` (an int or float literal of that value; or, `number` a function,
    a literal it is true of), in the rule's own parameters::

        @constant_adjoint("op.Div", "x", 1)
        def reciprocal(ans, x, y):
            d[y] += -d[ans] * ans * ans
    """

    def deco(template):
        rule = by_name(obj) if isinstance(obj, str) else lookup(obj)
        variant = _rule_of(template, rule.name, kind=rule.kind, broadcast=rule.broadcast,
                           masks=rule.masks, methods=rule.methods, view=rule.view,
                           pure=rule.pure, sums=rule.sums, complex=rule.complex,
                           renamed=rule.renamed)
        rule.constants[(param, number)] = variant
        return template

    return deco


def _domain(domain, rule):
    """`domain` as a dict from parameter to (lo, hi) or a fixed value, or None."""
    if domain is None or isinstance(domain, dict):
        return domain
    return {p: tuple(domain) for p in rule.params[1:] if p in rule.diff}


def tangent(*objs, complex=False, constant=None):
    """Register a tangent template for `objs` (forward mode), beside their adjoint rule
    (`complex=True`: beside the rule of their complex operands, see `complex_adjoint`;
    `constant=(param, number)`: beside the rule for that constant, `constant_adjoint`).

    The template's body is one statement, `t[ans] = <sum of terms>`, each term holding
    exactly one `t[param]` (the tangent of a differentiable parameter)::

        @tangent(np.sin)
        def sin(ans, x):
            t[ans] = t[x] * np.cos(x)

    Terms whose parameter carries no tangent are dropped.
    """

    def deco(template):
        body = template_body(template)
        if len(body) != 1 or not isinstance(body[0], gast.Assign):
            raise ValueError(f"a tangent template is one `t[ans] = ...` statement: {template}")
        for obj in objs:
            rule = lookup(obj) if not isinstance(obj, str) else by_name(obj)
            if complex:
                rule = rule.complex
            if constant is not None:
                rule = rule.constants[constant]
            if rule is None:
                raise ValueError(f"no rule to add a tangent to: {obj!r}")
            rule.tangent = body[0].value
        return template

    return deco


def nondiff(*objs, kind, params=("ans", "x"), defaults=None, name=None, methods=(),
            pure=True, sums=False, continuous=False, complex=None):
    """Register `objs` as having zero derivative (rounding, comparisons, constructors).
    Given a `name`, they share one rule (a function and the `rt` helper it runs as).
    Such a function is taken to jump (`continuous=False`): `continuous=True` marks one
    whose value never moves with its arguments' values (`len`, `np.shape`).
    `complex=True`: it takes complex arguments too (not so `np.floor`, `<`)."""
    groups = [objs] if name is not None else [[obj] for obj in objs]
    for group in groups:
        rule = Rule(name=name or canonical_name(group[0]), params=list(params),
                    defaults=dict(defaults or {}), kind=kind, methods=tuple(methods),
                    pure=pure, sums=sums, continuous=continuous, complex=complex)
        _register(group, rule)


def parts(obj, *items, params=("ans", "a"), defaults=None):
    """Register `obj`, which returns a tuple, as the tuple of the rules named `items`
    applied to the same arguments (`np.linalg.slogdet(a)` is `(rt.slogdet_sign(a),
    rt.logabsdet(a))`); each item is then typed and differentiated by its own rule."""
    rule = Rule(name=canonical_name(obj), params=list(params), defaults=dict(defaults or {}),
                kind=None, parts=tuple(items))
    _register([obj], rule)


def ufunc_method(ufunc, method, function, **defaults):
    """Register `ufunc.method(...)` as `function(...)`, with keyword `defaults` where the
    call gives none (`np.add.reduce(x)` is `np.sum(x, axis=0)`)."""
    _UFUNC_METHODS[ufunc, method] = (function, defaults)


def ufunc_of(obj):
    """(ufunc, method name) when `obj` is a ufunc's bound method (`np.add.outer`), else
    None."""
    ufunc = getattr(obj, "__self__", None)
    return (ufunc, obj.__name__) if isinstance(ufunc, np.ufunc) else None


def by_ufunc_method(ufunc, method):
    """(function, keyword defaults) that `ufunc.method` spells, or None."""
    return _UFUNC_METHODS.get((ufunc, method))


def lookup(obj):
    entry = _BY_ID.get(id(obj))
    return entry[1] if entry is not None and entry[0] is obj else None


def by_name(name):
    return _BY_NAME.get(name)


def by_method(method):
    """The rule that the array method `method` spells (`sum` for `x.sum()`), or None."""
    return _BY_METHOD.get(method)


def methods():
    """The array methods that have rules, sorted."""
    return sorted(_BY_METHOD)


def is_view(name):
    """Whether a call to the rule `name` may return a view of its first argument."""
    rule = _BY_NAME.get(name)
    return rule is not None and rule.view


def is_pure(name):
    """Whether calls to `name` (as generated code spells it) with equal arguments are
    interchangeable and have no effect: a rule that is pure (functions without a rule
    are not known to be)."""
    rule = by_spelling(name) if name else None
    return rule is not None and rule.pure


_MODULES = {"math": math, "np": np}


def by_spelling(text):
    """The rule of the function that the dotted name `text` calls in generated code
    (`np.sin`, `math.cos`, `rt.select`, `len`), or None."""
    rule = _BY_NAME.get(text)
    if rule is not None:
        return rule
    head, _, rest = text.partition(".")
    if not rest:
        return lookup(getattr(builtins, text, None))
    if head == "rt":
        from srcad import runtime as obj
    else:
        obj = _MODULES.get(head)
    for part in rest.split("."):
        obj = getattr(obj, part, None)
    return lookup(obj) if obj is not None else None


def operator(obj, op):
    """Register the function `obj` as another spelling of the binary operator `op` (a
    gast class): `np.add(a, b)` is `a + b`, differentiated by the operator's rule."""
    _OPERATORS[id(obj)] = (obj, op)


def operator_of(obj):
    """The gast operator class that the function `obj` spells (see `operator`), or None."""
    entry = _OPERATORS.get(id(obj))
    return entry[1] if entry is not None and entry[0] is obj else None


def functions_of(rule):
    """The functions registered for `rule`, in the order they were registered."""
    return [obj for obj, r in _BY_ID.values() if r is rule]


def all_rules():
    return sorted({id(r): r for r in _BY_NAME.values()}.values(), key=lambda r: r.name)

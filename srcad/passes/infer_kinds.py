"""InferKinds: the kind (dtype class and rank) of every variable, from the arguments'."""
import gast
import numpy as np

from srcad.errors import SrcadError, UnsupportedError
from srcad.kinds import (
    BOOL,
    COMPLEX,
    FLOAT,
    INT,
    NONE,
    Kind,
    OtherKind,
    TupleKind,
    dtype_named,
    dtype_of,
    join,
    of_value,
)
from srcad.passes import ir
from srcad.rules import registry

_OPERATOR_SPELLINGS = {"op.Mod": "`%`", "op.FloorDiv": "`//`", "op.BitAnd": "`&`",
                       "op.BitOr": "`|`", "op.BitXor": "`^`", "op.Invert": "`~`",
                       "op.Not": "`not`"}
_OPS = {gast.Add: "+", gast.Mult: "*", gast.Sub: "-", gast.Div: "/", gast.FloorDiv: "//",
        gast.Mod: "%", gast.Pow: "**", gast.MatMult: "@"}

_MASKS_HINT = ("to select with two tests, select in steps (`y = x[x > a]`, then `y[y < b]`), "
               "or write one test (`np.abs(x - c) < r` for `(x > c - r) & (x < c + r)`)")
_HINTS = {gast.BitAnd: _MASKS_HINT, gast.BitOr: _MASKS_HINT, gast.BitXor: _MASKS_HINT}


class _Rebound(Exception):
    """(statement, name): the statement binds `name` to a value of another kind."""


class InferKinds:
    """Analysis: `ctx.kinds[name]`, one kind per variable over the whole function.

    A variable holding an int at one place and a float at another is a float (as Numba
    unifies it). A name that the function's own body (outside loops and branches) binds
    to a value of another kind (`x = np.sum(x)` for an array `x`) is a new variable from
    there on: it is renamed in the statements after, and kinds are inferred again. Any
    other variable holding values of different kinds is refused. Loops are iterated to a
    fixed point. Calls to the user's own functions are typed by specializing the callee
    (`ctx.program.specialize`). An array parameter bound again there is renamed the same
    way (`fresh_arrays`). Also records `ctx.return_kind`.
    """

    needs = ("user_functions", "custom_calls", "calls")
    provides = ("kinds", "item_kinds", "return_kind")

    def __init__(self, ctx, arg_kinds):
        self.ctx = ctx
        self.kinds = {**getattr(ctx.program, "constant_kinds", {}), **arg_kinds}
        self.returns = None
        ctx.item_kinds = {}

    def run(self, fnode):
        start = dict(self.kinds)
        self.top = fnode.body
        self.fresh_arrays(fnode)
        while True:
            try:
                self.fixed_point(fnode)
                break
            except _Rebound as rebound:  # a new variable from that statement on
                self.rename_after(*rebound.args)
                self.kinds, self.returns = dict(start), None
        self.ctx.kinds = self.kinds
        self.ctx.return_kind = self.returns
        return fnode

    def fixed_point(self, fnode):
        for _ in range(20):
            before = dict(self.kinds)
            self.block(fnode.body)
            if before == self.kinds:
                break

    def fresh_arrays(self, fnode):
        """An array parameter that the body (outside loops and branches) binds again to a
        new array (`p = p.copy()`) is a new variable from there on: writes into it after
        that are no writes into the caller's array, and returning it returns no
        argument. Not after `p += e`, which updates the caller's array itself."""
        params = {a.id for a in fnode.args.args if getattr(self.kinds.get(a.id), "is_array",
                                                           False)}
        stores = {}
        for n in ir.walk(fnode):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
        once = {s.targets[0].id: s.value for s in fnode.body if isinstance(s, gast.Assign)
                and isinstance(s.targets[0], gast.Name) and stores[s.targets[0].id] == 1}
        for s in list(fnode.body):
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and \
                    s.targets[0].id in params:
                params.discard(s.targets[0].id)
                if s in self.ctx.augmented:  # `p += e` updates the caller's array in place
                    continue
                value = s.value
                while isinstance(value, gast.Name) and value.id in once:  # `tmp1 = ...`
                    value = once.pop(value.id)
                if self.fresh_value(value):
                    self.rename_after(s, s.targets[0].id)

    def fresh_value(self, op):
        """Whether `op` makes a new array, sharing no memory with its operands: arithmetic,
        or a rule that returns no view (`p.copy()`, `np.zeros_like(p)`; not `p[:]`,
        `p.T`, `p.reshape(...)`, `np.asarray(p)`, nor a helper, which may return `p`)."""
        if isinstance(op, (gast.BinOp, gast.UnaryOp, gast.Compare)):
            return True
        if isinstance(op, gast.Call):
            site = self.ctx.site(op)
            return site.kind == "rule" and not registry.is_view(site.name)
        return False

    def rename_after(self, s, name):
        """Give `name` a fresh name in statement `s`'s target and every statement after it
        (`s` is one of the function's own, outside loops and branches)."""
        fresh = self.ctx.namer.fresh(name)
        s.targets[0].id = fresh
        for later in self.top[self.top.index(s) + 1:]:
            for n in ir.walk(later):
                if isinstance(n, gast.Name) and n.id == name:
                    n.id = fresh

    def error(self, message, node, hint=None):
        return self.ctx.fsrc.error(message, node, hint, UnsupportedError)

    def set(self, name, kind, node):
        try:
            self.kinds[name] = join(self.kinds.get(name), kind)
        except TypeError:
            if any(node is s for s in self.top) and kind is not None:
                raise _Rebound(node, name) from None
            raise self.error(f"`{name}` holds a {self.kinds[name]} here and a {kind} elsewhere",
                             node, "use a separate variable for each") from None

    def block(self, stmts):
        for s in stmts:
            self.stmt(s)

    def stmt(self, s):
        self.node = s
        if isinstance(s, gast.Assign):
            target = s.targets[0]
            if isinstance(target, gast.Name):
                kind = self.expr(s.value)
                if s in self.ctx.augmented:
                    self.same_kind(self.kinds.get(target.id), kind, s)
                self.set(target.id, kind, s)
            elif isinstance(target, gast.Tuple):
                kind = self.expr(s.value)
                items = kind.items if isinstance(kind, TupleKind) else ()
                if len(items) != len(target.elts):
                    raise self.error(f"cannot unpack a {kind} into {len(target.elts)} names", s)
                for t, k in zip(target.elts, items):
                    self.set(t.id, k, s)
            else:  # element write
                self.chained(s)
                value = self.expr(s.value)
                self.ctx.item_kinds[s] = self.kind_Subscript(target)
                self.masked_write(target, value, self.ctx.item_kinds[s], s)
                listed = self.expr(target.value)
                if s in self.ctx.augmented:
                    self.same_kind(listed, value, s)
                if isinstance(listed, Kind) and listed.listed and not listed.is_float:
                    raise self.error(f"a write into a {listed}, which srcad holds as an "
                                     "array of that type", s, "pass a list of floats, or "
                                     "make an array of it first: `x = np.array(x)`")
        elif isinstance(s, gast.If):
            self.block(s.body)
            self.block(s.orelse)
        elif isinstance(s, gast.For):
            for a in s.iter.args:
                k = self.expr(a)
                if not (isinstance(k, Kind) and k.dtype != "f" and k.ndim == 0):
                    raise self.error(f"`range` needs integers, got a {k}", s,
                                     "convert with int(...)")
            self.set(s.target.id, INT, s)
            self.block(s.body)
        elif isinstance(s, gast.While):
            self.block(s.body)
        elif isinstance(s, gast.Return):
            self.returns = join(self.returns, self.expr(s.value))

    def expr(self, e):
        return getattr(self, "kind_" + type(e).__name__)(e)

    def kind_Constant(self, e):
        v = e.value
        if isinstance(v, bool):
            return BOOL
        if isinstance(v, int):
            return INT
        if isinstance(v, float):
            return FLOAT
        if isinstance(v, complex):
            return COMPLEX
        if v is None:
            return NONE
        if isinstance(v, str):  # an option of a call (`mode="same"`): its rule checks it
            return OtherKind("str")
        raise self.error(f"the constant {v!r} is not supported", self.node)

    def kind_Name(self, e):
        if e.id not in self.kinds:
            return None  # assigned later in a loop; the next iteration of the fixed point sees it
        return self.kinds[e.id]

    def kind_Tuple(self, e):
        return TupleKind(tuple(self.expr(x) for x in e.elts))

    kind_List = kind_Tuple

    def kind_Slice(self, e):
        return OtherKind("slice")

    def rule_kind(self, rule, bound):
        k = {p: (self.expr(a) if a is not None else None) for p, a in bound.items()}
        if any(v is None for p, v in k.items() if bound[p] is not None):
            return None
        for p in rule.params[1:]:
            k.setdefault(p, None)
        if rule.complex is not True and any(getattr(v, "is_complex", False) for v in k.values()):
            rule = self.complex_rule(rule)
        try:
            result = rule.kind(k, bound)
        except UnsupportedError as exc:  # a rule refusing these kinds: at the user's line
            if exc.filename is not None:
                raise
            message = str(exc).removesuffix(f"\n  hint: {exc.hint}" if exc.hint else "")
            raise self.error(message, self.node, exc.hint) from None
        return result.with_() if isinstance(result, Kind) and result.listed else result

    def complex_rule(self, rule):
        """The rule that takes a call of `rule` with a complex operand, or a refusal."""
        if isinstance(rule.complex, registry.Rule):
            return rule.complex
        spelled = _OPERATOR_SPELLINGS.get(rule.name, f"`{rule.spelled}`")
        raise self.error(f"{spelled} of a complex value is not supported", self.node,
                         "complex values go through arithmetic, `**`, `@`, np.exp log sqrt "
                         "sin cos tan sinh cosh tanh, np.abs real imag conj angle, sums, "
                         "means, reshaping and indexing, and np.fft (the README lists "
                         "them); for the rest, compute with the real and imaginary parts "
                         "(`z.real`, `z.imag`) as floats")

    def no_lists(self, operands, what):
        """Refuse an operation on an operand that is a Python list: `what` says what the
        operation does to lists."""
        for a in operands:
            k = self.expr(a)
            if isinstance(k, Kind) and k.listed:
                name = f"`{a.id}`" if isinstance(a, gast.Name) else "a value"
                raise self.error(f"{name} is a list here ({k}), and {what}", self.node,
                                 "make an array of it first: `x = np.array(x)`")

    def kind_BinOp(self, e):
        symbol = _OPS.get(type(e.op), type(e.op).__name__)
        self.no_lists([e.left, e.right], {
            gast.Add: "`+` joins lists", gast.Mult: "`*` repeats a list"}.get(
                type(e.op), f"`{symbol}` is not defined on lists"))
        rule = registry.by_name("op." + type(e.op).__name__)
        if rule is None:
            raise self.error(f"the operator `{type(e.op).__name__}` is not supported", self.node,
                             _HINTS.get(type(e.op)))
        return self.rule_kind(rule, {"x": e.left, "y": e.right})

    def kind_UnaryOp(self, e):
        k = self.expr(e.operand)
        if isinstance(e.op, gast.Not):
            return BOOL
        self.no_lists([e.operand], "unary `-` is not defined on lists")
        if isinstance(e.op, gast.Invert):
            rule = registry.by_name("op.Invert")
            if rule is None:
                raise self.error("`~` is not supported", self.node,
                                 "write the opposite comparison: `x <= t` for `~(x > t)`")
            return self.rule_kind(rule, {"x": e.operand})
        return k.with_(dtype="i") if isinstance(k, Kind) and k.dtype == "b" else k

    def kind_Compare(self, e):
        self.no_lists([e.left, e.comparators[0]], "comparing lists compares them whole")
        a, b = self.expr(e.left), self.expr(e.comparators[0])
        if isinstance(e.ops[0], (gast.Lt, gast.LtE, gast.Gt, gast.GtE)) and \
                (getattr(a, "is_complex", False) or getattr(b, "is_complex", False)):
            raise self.error("complex numbers have no order: `<`, `<=`, `>` and `>=` do not "
                             "take them", self.node, "compare their magnitudes "
                             "(`np.abs(z) < r`) or real parts (`z.real < 0.0`)")
        ndim = max(getattr(a, "ndim", 0), getattr(b, "ndim", 0))
        return Kind("b", ndim)

    def kind_Attribute(self, e):
        text = ir.dotted_text(e)
        if text and text.startswith("np."):
            return dtype_named(getattr(np, text[3:], None)) or OtherKind("dtype")
        k = self.expr(e.value)
        if k is None:
            return None
        if e.attr == "shape":
            return TupleKind((INT,) * k.ndim)
        if e.attr == "dtype":
            return dtype_of(k)
        return INT

    def kind_Subscript(self, e):
        k = self.expr(e.value)
        if k is None:
            return None
        parts = e.slice.elts if isinstance(e.slice, gast.Tuple) else [e.slice]
        if isinstance(k, TupleKind):
            if len(parts) == 1 and isinstance(parts[0], gast.Constant):
                return k.items[parts[0].value]
            raise self.error("tuples can only be indexed with a constant", self.node)
        if not isinstance(k, Kind) or k.ndim == 0:
            raise self.error(f"cannot index a {k}", self.node)
        if k.listed:
            return self.list_item(k, e.slice)
        if any(self.expr(p) is None for p in parts):
            return None  # an index assigned later in a loop: a mask, say
        if any(_is_mask(self.expr(p)) for p in parts):
            return self.masked_kind(k, parts)
        ndim = k.ndim
        index_kinds = []  # a tuple held in a variable indexes as its items: `t = (i, j); x[t]`
        for p in parts:
            pk = self.expr(p)
            index_kinds += list(pk.items) if isinstance(pk, TupleKind) else [pk]
        arrays = [pk for pk in index_kinds if isinstance(pk, Kind) and pk.ndim and pk.dtype == "i"]
        if len(arrays) > 1:
            return self.picked_kind(k, parts, arrays)
        for pk in index_kinds:
            if pk == BOOL:
                raise self.error("indexing with a bool, which NumPy reads as a new axis "
                                 "(not as 0 or 1)", self.node, "convert it with int(...)")
            if isinstance(pk, Kind) and pk.ndim == 0:
                ndim -= 1
            elif isinstance(pk, Kind) and pk.ndim == 1 and pk.dtype == "i":
                pass
            elif isinstance(pk, Kind) and pk.dtype == "i" and len(index_kinds) == 1:
                ndim += pk.ndim - 1  # one integer array of any rank: x[idx] has its shape
            elif pk == NONE:
                ndim += 1
            elif pk is not None and pk != OtherKind("slice"):
                raise self.error(f"indexing with a {pk} is not supported", self.node,
                                 "index with integers, slices or a 1-d integer array (or "
                                 "one integer array of any rank alone: `x[idx]`)")
        if ndim < 0:
            raise self.error("too many indices", self.node)
        return k.with_(ndim=ndim)

    def picked_kind(self, k, parts, arrays):
        """What `x[r, c]` is for integer arrays `r` and `c` picking along the first axes
        of an array `x` of kind `k` (the rest `:`, or left out): the arrays broadcast to
        one shape, which the remaining axes follow."""
        lead = len(arrays)
        if [self.expr(p) for p in parts[:lead]] != arrays or lead > k.ndim or not all(
                isinstance(p, gast.Slice) and p.lower is None and p.upper is None and
                p.step is None for p in parts[lead:]):
            raise self.error("integer arrays in a subscript beside integers or slices "
                             "(`x[r, 1:, c]`)", self.node,
                             "put the integer arrays first, with `:` after them "
                             "(`x[r, c]`, `x[r, c, :]`), or index one array at a time: "
                             "`x[r][:, c]` for the block of rows `r` and columns `c`")
        return k.with_(ndim=max(a.ndim for a in arrays) + k.ndim - lead)

    def masked_kind(self, k, parts):
        """What `x[m]` is for a boolean array `m` and an array `x` of kind `k`: the 1-d
        array of the elements a mask of x's shape selects, or, for a 1-d mask along one
        axis of a 2-d array, the rows (`x[m]`, `x[m, :]`) or columns (`x[:, m]`) it
        keeps."""
        m = next(self.expr(p) for p in parts if _is_mask(self.expr(p)))
        whole = [isinstance(p, gast.Slice) and p.lower is None and p.upper is None
                 and p.step is None for p in parts]
        if len(parts) == 1 and m.ndim == k.ndim:
            return k.with_(ndim=1)
        if k.ndim == 2 and m.ndim == 1 and (len(parts) == 1 or len(parts) == 2 and any(whole)):
            return k.with_()
        what = f"a {k} indexed with a {m} mask" + (" and other indices" if len(parts) > 1
                                                   else "")
        raise self.error(f"{what} is not supported", self.node,
                         "a mask has the shape of the array it selects from (`x[x > 0.0]`), "
                         "or is 1-d along one axis of a 2-d array, with `:` for the other "
                         "(`X[m, :]`, `X[:, m]`); to index the selection further, name it "
                         "first: `y = x[m]`, then `y[i]`")

    def same_kind(self, array, value, s):
        """Refuse an in-place update (`x += e`, a ufunc's `out=x`) that would store floats
        into an int or bool array, or ints into a bool one: NumPy raises there (it casts
        only within a kind), where a plain `x[:] = e` truncates."""
        if not (isinstance(array, Kind) and array.ndim and isinstance(value, Kind)):
            return
        order = "bifc"
        if order.index(value.dtype) > order.index(array.dtype):
            plural = {"i": "ints", "f": "floats", "c": "complex numbers"}[value.dtype]
            raise self.error(f"an in-place update writes {plural} into a "
                             f"{array.with_()}, which NumPy refuses (it casts only within a "
                             "kind)", s, "make the array complex (`x.astype(complex)`), "
                             "or assign a new array: `x = x * e`" if value.dtype == "c" else
                             "make the array float (`np.zeros(n)`, `x.astype(float)`), or "
                             "assign a new array: `x = x + e`")

    def chained(self, s):
        """Refuse `a[i][j] = v` (merged into `a[i, j] = v` by ToANF) where `i` is not an
        integer: NumPy writes into a copy there (an integer array), or into another element
        (a mask)."""
        lead = self.ctx.chained_writes.get(s, 0)
        index = s.targets[0].slice.elts if lead else ()
        for p in index[:lead]:
            k = self.expr(p)
            if k is not None and not (isinstance(k, Kind) and k.dtype == "i" and not k.ndim):
                raise self.error(f"`a[i][j] = ...` with `i` a {k}: NumPy writes into a copy "
                                 "of `a[i]` there, not into `a`", s,
                                 "index once with all the indices: `a[i, j] = ...`")

    def masked_write(self, target, value, item, s):
        """Refuse `x[m] = v` (for a boolean array `m`) with a `v` of more dimensions than
        the selection it is written into."""
        parts = target.slice.elts if isinstance(target.slice, gast.Tuple) else [target.slice]
        if isinstance(value, Kind) and isinstance(item, Kind) and value.ndim > item.ndim \
                and any(_is_mask(self.expr(p)) for p in parts):
            raise self.error(f"a {value} written into the {item} that a mask selects",
                             s, "write a number, or an array of the selection's shape "
                             "(`x[m] = y[m]`)")

    def list_item(self, k, index):
        """What `x[index]` is for a list `x` of kind `k`: one index, an integer (an item)
        or a slice (a list)."""
        ik = None if isinstance(index, gast.Slice) else self.expr(index)
        if ik is not None and not (isinstance(ik, Kind) and ik.dtype != "f" and not ik.ndim):
            raise self.error(f"a list ({k}) takes one integer or slice as its index", self.node,
                             "index one level at a time, `x[i][j]`, or make an array of it "
                             "first: `x = np.array(x)`")
        if ik is None:
            return k
        return Kind(k.dtype, k.ndim - 1, k.listed - 1)

    def kind_Call(self, e):
        site = self.ctx.site(e)
        text = site.name
        if site.kind == "user":
            arg_kinds = [self.expr(a) for a in e.args]
            if None in arg_kinds:
                return None
            if e.keywords:
                raise self.error("keyword arguments to your own functions are not supported",
                                 self.node, "pass them by position")
            callee = self.ctx.program.specialize(self.ctx.user_functions[text],
                                                 tuple(arg_kinds), self.node, self.ctx.fsrc)
            return callee.return_kind
        if site.kind == "custom":
            return self.custom_kind(text, e)
        rule = site.rule
        if site.method:
            self.no_lists(e.args[:1], f"lists have no method `.{site.method}()`")
        bound = rule.bind(e.args, e.keywords, lambda m: self.error(m, self.node))
        return self.rule_kind(rule, bound)

    def custom_kind(self, text, e):
        """A function with a defvjp rule: typed like srcad's own rule for it, or from its
        source, or else as a float of the arguments' broadcast rank."""
        fn, _ = self.ctx.custom_calls[text]
        arg_kinds = [self.expr(a) for a in e.args]
        if None in arg_kinds:
            return None
        rule = registry.lookup(fn)
        if rule is not None:
            bound = rule.bind(e.args, e.keywords, lambda m: self.error(m, self.node))
            return self.rule_kind(rule, bound)
        try:
            callee = self.ctx.program.specialize(fn, tuple(arg_kinds), self.node, self.ctx.fsrc)
            return callee.return_kind
        except SrcadError:
            return _black_box_kind(fn, arg_kinds)


def _black_box_kind(fn, arg_kinds):
    """The kind of what `fn` (a function with a custom rule whose body srcad cannot read)
    returns: its return annotation (`-> float`), else what it returns for stand-in
    arguments of these kinds (ones, of length 3 along each axis), else a float of the
    arguments' broadcast rank."""
    annotation = getattr(fn, "__annotations__", {}).get("return")
    if annotation in (float, int, bool):
        return {float: FLOAT, int: INT, bool: BOOL}[annotation]
    try:
        stand_ins = [_stand_in(k) for k in arg_kinds]
        kind = of_value(fn(*stand_ins))
    except Exception:  # noqa: BLE001  (a function that needs real values: guess)
        kind = None
    if kind is not None:
        return kind.with_(dtype="f") if isinstance(kind, Kind) and kind.dtype == "i" else kind
    return Kind("f", max((getattr(k, "ndim", 0) for k in arg_kinds), default=0))


def _stand_in(kind):
    """A value of `kind`: ones (0.5 for a float), three along each axis."""
    if isinstance(kind, TupleKind):
        return tuple(_stand_in(k) for k in kind.items)
    dtype = {"b": np.bool_, "i": np.int64, "f": np.float64, "c": np.complex128}[kind.dtype]
    if not kind.ndim:
        return dtype(0.5 if kind.dtype in "fc" else 1).item()
    return np.ones((3,) * kind.ndim, dtype=dtype)


def _is_mask(kind):
    return isinstance(kind, Kind) and kind.dtype == "b" and kind.ndim > 0

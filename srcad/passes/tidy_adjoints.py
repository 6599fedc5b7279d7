"""TidyAdjoints: the reverse sweep without the bookkeeping a person would not write.

ReverseAD writes each adjoint block on its own: it adds into the adjoint of every operand
(`d_tmp3 += d_tmp5`) and then clears the adjoint of the result (`d_tmp5 = 0.0`), so that
any later block may add into it again. Most of those adjoints are read once, right away.
This pass rewrites the scalar float adjoints of one reverse sweep, in three steps that
never change a value:

1. An addition into an adjoint known to hold `0.0` on every path is an assignment
   (`d_t += e` becomes `d_t = e`): `0.0 + e` is `e`.
2. Copies are forwarded: a read of a name whose value another name also holds reads the
   more meaningful of them (the seed, then a user variable's adjoint, then a temporary's),
   and an assignment of the value a name already holds is dropped.
3. Stores that nothing reads (zeroing of adjoints not read again, copies forwarded away)
   are removed, by liveness over the sweep's loops and branches.

Two equal additions in a row into one adjoint (`h * h` adds `d * h` twice) become one
addition of twice the term (exact when the first assigns). A function with `break`,
`continue`, `try`, `with` or nested functions is left as it is.

>>> import gast
>>> from codegen import to_source
>>> fn = gast.parse('''def f_rev(w, tape, d_out):
...     h, = tape
...     d_h = 0.0
...     d_t = 0.0
...     d_w = 0.0
...     d_t += d_out
...     d_h += d_t * h
...     d_h += d_t * h
...     d_t = 0.0
...     d_w += d_h * w
...     d_h = 0.0
...     return d_w,''').body[0]
>>> print(to_source(TidyAdjoints({"d_h", "d_t", "d_w"}, {"d_t"}).run(fn)).strip())
def f_rev(w, tape, d_out):
    h, = tape
    d_h = 2.0 * (d_out * h)
    d_w = d_h * w
    return d_w,
"""
import copy

import gast

from codegen.emit import is_comment
from srcad.passes import ir
from srcad.rules import registry

_ROUNDS = 6


class TidyAdjoints:
    """Transformation of one reverse sweep (see the module). `scalars` are the names of its
    scalar float adjoints, the only names it rewrites or removes; `temporaries` are those
    of them that belong to compiler temporaries (least worth reading)."""

    needs = ("kinds", "adjoint_names")
    provides = ()

    def __init__(self, scalars, temporaries=()):
        self.scalars = set(scalars)
        self.temporaries = set(temporaries)

    def run(self, fnode):
        if any(isinstance(n, (gast.Break, gast.Continue, gast.Try, gast.With, gast.Lambda))
               for n in gast.walk(fnode)) or any(
                isinstance(n, gast.FunctionDef) for n in gast.walk(fnode) if n is not fnode):
            return fnode
        _Zeros(self.scalars).block(fnode.body, frozenset())
        for _ in range(_ROUNDS):
            before = gast.dump(fnode)
            _Copies(self).block(fnode.body, {})
            fnode.body = _Liveness(self.scalars).block(fnode.body, set(), delete=True)[0] \
                or [gast.Pass()]
            if gast.dump(fnode) == before:
                break
        fnode.body = _fold_twins(fnode.body, self.scalars)
        return fnode

    def rank(self, name):
        """Which of several names holding one value a read should use (lowest first)."""
        if name not in self.scalars:
            return 0
        return 2 if name in self.temporaries else 1


# --------------------------------------------------------------------------- helpers


def _reads(node):
    """Names a statement or expression reads (an augmented target reads its name)."""
    names = {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
             and isinstance(n.ctx, gast.Load)}
    if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
        names.add(node.target.id)
    return names


def _writes(node):
    """Names a statement (with everything nested in it) assigns."""
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Store)}


def _scalar_target(s, scalars):
    """The name `s` assigns, when it is a plain (or augmented) assignment to one of
    `scalars`."""
    if isinstance(s, gast.Assign) and len(s.targets) == 1:
        t = s.targets[0]
    elif isinstance(s, gast.AugAssign):
        t = s.target
    else:
        return None
    return t.id if isinstance(t, gast.Name) and t.id in scalars else None


def _pure(expr):
    """Whether `expr` has no effect: operators on names and constants, and calls of pure
    rules (a dead one may be dropped)."""
    for n in gast.walk(expr):
        if isinstance(n, gast.Call):
            if not registry.is_pure(ir.dotted_text(n.func)):
                return False
        elif not isinstance(n, (gast.expr, gast.expr_context, gast.operator, gast.unaryop,
                                gast.cmpop, gast.boolop)):
            return False
    return True


def _is_zero(expr):
    return isinstance(expr, gast.Constant) and type(expr.value) is float and expr.value == 0.0


# --------------------------------------------------------------------------- step 1


class _Zeros:
    """Adjoints known to be 0.0 on every path; `+=` into them becomes `=`."""

    def __init__(self, scalars):
        self.scalars = scalars

    def block(self, stmts, zero, rewrite=True):
        for k, s in enumerate(stmts):
            t = _scalar_target(s, self.scalars)
            if t is not None and isinstance(s, gast.AugAssign) and \
                    isinstance(s.op, gast.Add) and t in zero and t not in _reads(s.value):
                if rewrite:
                    stmts[k] = gast.copy_location(gast.Assign(
                        targets=[gast.Name(id=t, ctx=gast.Store(), annotation=None,
                                           type_comment=None)],
                        value=s.value, type_comment=None), s)
                zero = zero - {t}
            elif t is not None and isinstance(s, gast.Assign) and _is_zero(s.value):
                zero = zero | {t}
            else:
                zero = self.stmt(s, zero, rewrite)
        return zero

    def stmt(self, s, zero, rewrite):
        if isinstance(s, gast.If):
            return self.block(s.body, zero, rewrite) & self.block(s.orelse, zero, rewrite)
        if isinstance(s, (gast.For, gast.While)):
            target = _writes(s.target) if isinstance(s, gast.For) else set()
            head = zero
            while True:  # at the top of the body: true on entry and after every iteration
                out = self.block(s.body, head - target, rewrite=False)
                new = zero & out
                if new == head:
                    break
                head = new
            self.block(s.body, head - target, rewrite)
            return self.block(s.orelse, zero & out, rewrite)
        return zero - _writes(s)


# --------------------------------------------------------------------------- step 2


class _Copies:
    """Value numbering within straight-line code: reads go to the best name holding the
    value; an assignment of the value a name already holds is dropped."""

    def __init__(self, tidy):
        self.tidy = tidy
        self.fresh = 0
        self.since = {}  # name -> when it was last assigned

    def value(self, values, name):
        if name not in values:
            values[name] = ("in", name)
        return values[name]

    def block(self, stmts, values):
        out = []
        for s in stmts:
            if isinstance(s, (gast.If, gast.For, gast.While)):
                self.compound(s, values)
                out.append(s)
                continue
            self.forward_reads(s, values)
            t = _scalar_target(s, self.tidy.scalars)
            if t is not None and isinstance(s, gast.Assign) and \
                    isinstance(s.value, gast.Name):
                v = self.value(values, s.value.id)
                if values.get(t) == v:
                    continue  # `x = y` where x holds y's value already
                values[t] = v
                self.fresh += 1
                self.since[t] = self.fresh
            else:
                for name in _writes(s) | ({s.target.id} if isinstance(s, gast.AugAssign)
                                          and isinstance(s.target, gast.Name) else set()):
                    self.fresh += 1
                    values[name] = ("new", self.fresh)
                    self.since[name] = self.fresh
            out.append(s)
        stmts[:] = out or [gast.Pass()]

    def compound(self, s, values):
        if isinstance(s, gast.If):
            self.forward_reads(s.test, values)
        elif isinstance(s, gast.For):
            self.forward_reads(s.iter, values)
        written = _writes(s)
        # what holds inside: facts about names the statement never assigns, whose value is
        # not the entry value of a name it assigns (that name's own value changes inside)
        inner = {k: v for k, v in values.items()
                 if k not in written and not (v[0] == "in" and v[1] in written)}
        for body in (s.body, s.orelse):
            if body:
                self.block(body, dict(inner))
        for name in written:
            self.fresh += 1
            values[name] = ("new", self.fresh)
            self.since[name] = self.fresh

    def forward_reads(self, node, values):
        for n in gast.walk(node):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and \
                    n.id in self.tidy.scalars:
                v = self.value(values, n.id)
                holders = [m for m, w in values.items() if w == v]
                # the least temporary name, then the one that has held the value longest
                best = min(holders, key=lambda m: (self.tidy.rank(m), self.since.get(m, -1),
                                                   m))
                n.id = best


# --------------------------------------------------------------------------- step 3


class _Liveness:
    """Backward liveness over structured code; with `delete`, pure stores to scalars that
    nothing reads afterwards are removed."""

    def __init__(self, scalars):
        self.scalars = scalars

    def block(self, stmts, live, delete=False):
        out = []
        for s in reversed(stmts):
            kept, live = self.stmt(s, live, delete)
            if kept is not None:
                out.append(kept)
        if out and all(is_comment(s) for s in out):
            out.insert(0, gast.Pass())  # a block of comments alone is no block
        return out[::-1], live

    def stmt(self, s, live, delete):
        if isinstance(s, gast.If):
            body, a = self.block(s.body, set(live), delete)
            orelse, b = self.block(s.orelse, set(live), delete)
            if delete:
                s.body, s.orelse = body or [gast.Pass()], orelse
            return s, a | b | _reads(s.test)
        if isinstance(s, (gast.For, gast.While)):
            return self.loop(s, live, delete)
        if isinstance(s, gast.Return):
            return s, live | _reads(s)
        t = _scalar_target(s, self.scalars)
        if t is not None and t not in live and _pure(s.value):
            return (None if delete else s), live
        if isinstance(s, gast.Pass) and delete:
            return None, live  # put back where a block would be left empty
        kill = _writes(s) if isinstance(s, gast.Assign) else set()
        return s, (live - kill) | _reads(s)

    def loop(self, s, live, delete):
        head = set(live)
        while True:  # live at the top of the body: fixed point over the back edge
            _, inside = self.block(s.body, head | live, False)
            target = _writes(s.target) if isinstance(s, gast.For) else set()
            new = (inside - target) | head
            if isinstance(s, gast.While):
                new |= _reads(s.test)
            if new == head:
                break
            head = new
        if delete:
            body, _ = self.block(s.body, head | live, True)
            s.body = body or [gast.Pass()]
        entry = head | live | (_reads(s.iter) if isinstance(s, gast.For) else set())
        return s, entry


# --------------------------------------------------------------------------- twins


def _fold_twins(stmts, scalars):
    """`x += e; x += e` (x not in e) as `x += 2.0 * (e)`, and `x = e; x += e` as
    `x = 2.0 * (e)`, in every block."""
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                setattr(s, field, _fold_twins(inner, scalars))
        prev = out[-1] if out else None
        t = _scalar_target(s, scalars)
        if t is not None and isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) \
                and t not in _reads(s.value) and _pure(s.value) and _scalar_target(
                    prev, scalars) == t and gast.dump(prev.value) == gast.dump(s.value) and (
                    isinstance(prev, gast.Assign) or isinstance(prev.op, gast.Add)):
            prev.value = gast.BinOp(left=gast.Constant(value=2.0, kind=None), op=gast.Mult(),
                                    right=copy.deepcopy(s.value))
            continue
        out.append(s)
    return out

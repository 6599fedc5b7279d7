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
        if not _structured(fnode):
            return fnode
        self.found = _Found()
        _Zeros(self.scalars, self.found).block(fnode.body, frozenset())
        for _ in range(_ROUNDS):
            copies, liveness = _Copies(self), _Liveness(self.scalars, self.found)
            copies.block(fnode.body, _Values())
            fnode.body = liveness.replace(fnode.body, liveness.block(
                fnode.body, set(), delete=True)[0])
            if not (copies.changed or liveness.changed):
                break
        fnode.body = _fold_twins(fnode.body, self.scalars)
        return fnode

    def rank(self, name):
        """Which of several names holding one value a read should use (lowest first)."""
        if name not in self.scalars:
            return 0
        return 2 if name in self.temporaries else 1


def drop_unread(fnode, names):
    """`fnode` without its pure assignments to `names` that nothing reads afterwards (step 3
    alone): forward mode's tangents of variables that never reach the result, whose
    derivatives may be infinite where the value is not (`math.sqrt(e - e)`). A function
    with `break`, `continue`, `try`, `with` or nested functions is left as it is.

    >>> import gast
    >>> from codegen import to_source
    >>> fn = gast.parse('''def f_jvp(x, t_x):
    ...     r = math.sqrt(x - x)
    ...     t_r = 0.0 * 0.5 / r
    ...     y = x * 2.0
    ...     t_y = t_x * 2.0
    ...     return y, t_y''').body[0]
    >>> print(to_source(drop_unread(fn, {"t_r", "t_y"})).strip())
    def f_jvp(x, t_x):
        r = math.sqrt(x - x)
        y = x * 2.0
        t_y = t_x * 2.0
        return y, t_y
    """
    if not _structured(fnode):
        return fnode
    for _ in range(_ROUNDS):
        liveness = _Liveness(set(names))
        fnode.body = liveness.replace(fnode.body, liveness.block(
            fnode.body, set(), delete=True)[0])
        if not liveness.changed:
            break
    return fnode


# --------------------------------------------------------------------------- helpers


def _structured(fnode):
    """Whether `fnode` has none of the statements the steps do not follow (`break`,
    `continue`, `try`, `with`, nested functions)."""
    return not any(
        isinstance(n, (gast.Break, gast.Continue, gast.Try, gast.With, gast.Lambda))
        or isinstance(n, gast.FunctionDef) and n is not fnode for n in ir.walk(fnode))


class _Found:
    """The Name nodes of each simple statement and expression, found once per run: the
    rounds rename reads in place and drop statements, but rebuild none (a branch or loop,
    whose body loses statements, is searched each time)."""

    def __init__(self):
        self.known = {}

    def __call__(self, node):
        if isinstance(node, (gast.If, gast.For, gast.While)):
            return ir.names(node)
        found = self.known.get(node)
        if found is None:
            found = self.known[node] = ir.names(node)
        return found


def _reads(node, found=ir.names):
    """Names a statement or expression reads (an augmented target reads its name)."""
    names = {n.id for n in found(node) if isinstance(n.ctx, gast.Load)}
    if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
        names.add(node.target.id)
    return names


def _writes(node, found=ir.names):
    """Names a statement (with everything nested in it) assigns."""
    return {n.id for n in found(node) if isinstance(n.ctx, gast.Store)}


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
    for n in ir.walk(expr):
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

    def __init__(self, scalars, found=ir.names):
        self.scalars, self.found = scalars, found

    def block(self, stmts, zero, rewrite=True):
        zero = set(zero)  # this block's own: updated statement by statement
        for k, s in enumerate(stmts):
            t = _scalar_target(s, self.scalars)
            if t is not None and isinstance(s, gast.AugAssign) and \
                    isinstance(s.op, gast.Add) and t in zero and \
                    t not in _reads(s.value, self.found):
                if rewrite:
                    stmts[k] = gast.copy_location(gast.Assign(
                        targets=[gast.Name(id=t, ctx=gast.Store(), annotation=None,
                                           type_comment=None)],
                        value=s.value, type_comment=None), s)
                zero.discard(t)
            elif t is not None and isinstance(s, gast.Assign) and _is_zero(s.value):
                zero.add(t)
            else:
                zero = self.stmt(s, zero, rewrite)
        return zero

    def stmt(self, s, zero, rewrite):
        if isinstance(s, gast.If):
            return self.block(s.body, zero, rewrite) & self.block(s.orelse, zero, rewrite)
        if isinstance(s, (gast.For, gast.While)):
            target = _writes(s.target, self.found) if isinstance(s, gast.For) else set()
            head = zero
            while True:  # at the top of the body: true on entry and after every iteration
                out = self.block(s.body, head - target, rewrite=False)
                new = zero & out
                if new == head:
                    break
                head = new
            self.block(s.body, head - target, rewrite)
            return self.block(s.orelse, zero & out, rewrite)
        zero -= _writes(s, self.found)
        return zero


# --------------------------------------------------------------------------- step 2


class _Values:
    """The value each name holds (`("in", name)`: its value on entry; `("new", k)`: the
    k-th value computed), and the names holding each value, kept in step so that finding
    a value's holders does not scan every name.

    Inside a branch or loop body, `_Values(outer, written)` sees what `outer` knows except
    for the names the statement assigns (`written`) and the entry values of those names,
    without copying `outer`."""

    def __init__(self, outer=None, written=frozenset()):
        self.held, self.holders = {}, {}
        self.outer, self.written = outer, written

    def get(self, name):
        value = self.held.get(name)
        if value is None and self.outer is not None and name not in self.written:
            value = self.outer.get(name)
            if value is not None and value[0] == "in" and value[1] in self.written:
                return None
        return value

    def of(self, name):
        """The value `name` holds (its entry value, when nothing assigned it yet)."""
        value = self.get(name)
        if value is None:
            value = ("in", name)
            self.set(name, value)
        return value

    def set(self, name, value):
        old = self.held.get(name)
        if old is not None:
            self.holders[old].discard(name)
        self.held[name] = value
        self.holders.setdefault(value, set()).add(name)

    def holding(self, value):
        """The names that hold `value`."""
        names = set(self.holders.get(value, ()))
        if self.outer is not None and not (value[0] == "in" and value[1] in self.written):
            names |= {n for n in self.outer.holding(value)
                      if n not in self.written and n not in self.held}
        return names


class _Copies:
    """Value numbering within straight-line code: reads go to the best name holding the
    value; an assignment of the value a name already holds is dropped. `changed`: whether
    it renamed a read or dropped an assignment."""

    def __init__(self, tidy):
        self.tidy = tidy
        self.fresh = 0
        self.since = {}  # name -> when it was last assigned
        self.changed = False

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
                v = values.of(s.value.id)
                if values.get(t) == v:
                    self.changed = True
                    continue  # `x = y` where x holds y's value already
                values.set(t, v)
                self.fresh += 1
                self.since[t] = self.fresh
            else:
                for name in _writes(s, self.tidy.found) | ({s.target.id} if isinstance(
                        s, gast.AugAssign)
                                          and isinstance(s.target, gast.Name) else set()):
                    self.fresh += 1
                    values.set(name, ("new", self.fresh))
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
        for body in (s.body, s.orelse):
            if body:
                self.block(body, _Values(values, written))
        for name in written:
            self.fresh += 1
            values.set(name, ("new", self.fresh))
            self.since[name] = self.fresh

    def forward_reads(self, node, values):
        for n in self.tidy.found(node):
            if isinstance(n.ctx, gast.Load) and n.id in self.tidy.scalars:
                holders = values.holding(values.of(n.id))
                # the least temporary name, then the one that has held the value longest
                best = min(holders, key=lambda m: (self.tidy.rank(m), self.since.get(m, -1),
                                                   m))
                if best != n.id:
                    n.id = best
                    self.changed = True


# --------------------------------------------------------------------------- step 3


class _Liveness:
    """Backward liveness over structured code; with `delete`, pure stores to scalars that
    nothing reads afterwards are removed (`changed`: whether any block changed)."""

    def __init__(self, scalars, found=ir.names):
        self.scalars, self.found = scalars, found
        self.changed = False

    def replace(self, old, new, empty=False):
        """`new` as the statements of a block that held `old` (a `pass` if it is empty and
        the block may not be); notes whether they differ (a `pass` is as good as another)."""
        new = new or ([] if empty else [gast.Pass()])
        if len(old) != len(new) or any(a is not b and not (isinstance(a, gast.Pass) and
                                                           isinstance(b, gast.Pass))
                                       for a, b in zip(old, new)):
            self.changed = True
        return new

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
                s.body = self.replace(s.body, body)
                s.orelse = self.replace(s.orelse, orelse, empty=True)
            return s, a | b | _reads(s.test, self.found)
        if isinstance(s, (gast.For, gast.While)):
            return self.loop(s, live, delete)
        if isinstance(s, gast.Return):
            return s, live | _reads(s, self.found)
        t = _scalar_target(s, self.scalars)
        if t is not None and t not in live and _pure(s.value):
            return (None if delete else s), live
        if isinstance(s, gast.Pass) and delete:
            return None, live  # put back where a block would be left empty
        if isinstance(s, gast.Assign):  # `live` is the block's own: updated in place
            live -= _writes(s, self.found)
        live |= _reads(s, self.found)
        return s, live

    def loop(self, s, live, delete):
        head = set(live)
        while True:  # live at the top of the body: fixed point over the back edge
            _, inside = self.block(s.body, head | live, False)
            target = _writes(s.target) if isinstance(s, gast.For) else set()
            new = (inside - target) | head
            if isinstance(s, gast.While):
                new |= _reads(s.test, self.found)
            if new == head:
                break
            head = new
        if delete:
            body, _ = self.block(s.body, head | live, True)
            s.body = self.replace(s.body, body)
        entry = head | live | (_reads(s.iter, self.found) if isinstance(s, gast.For)
                               else set())
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

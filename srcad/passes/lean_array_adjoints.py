"""LeanArrayAdjoints: array adjoints in a reverse sweep without needless passes over memory.

Six rewrites of the reverse sweep, none changing a value:

- `d = np.zeros_like(v)` whose first use, in the sweep's top-level straight-line code, is
  `d += <a new array shaped like v>` becomes that one assignment: no zero fill; any other
  `d += e` first becomes `d = rt.filled(e, v)`, `e` broadcast into a new array.
- `d = e` then `d += e`, the two terms of `x * x`, becomes `d = 2.0 * e`.
- `d += f(...)` for an array adjoint `d` and a helper `f` that also comes in a form adding
  into its first argument (`rt.prod_adjoint_add`) calls that form: no new array per term.
- Any other `d += e` into an array adjoint becomes `rt.add_to(d, e)`, and
  `d += rt.unbroadcast(e, v)` becomes `rt.add_to(d, e)` (which sums `e` down to `d`'s
  shape itself): one loop over the arrays, where Numba compiles a loop nest that LLVM
  copies for every way `e` may broadcast (see `srcad.runtime.loops`).
- An adjoint that is only read shares its array with the adjoint it was summed from
  (`d_a = rt.unbroadcast(d_t, a)`, no `.copy()`) when neither is written afterwards, and
  a chain of them sums the first directly (`d_t = rt.unbroadcast(d_u, t)` then
  `d_a = rt.unbroadcast(d_t, a)` is `d_a = rt.unbroadcast(d_u, a)`: `a` broadcast to
  `t`'s shape, `t` to `d_u`'s; summing in two steps or one is the same sum): the terms of
  `a + b + c - d` take their adjoints from the sum's, with no copy and no array between.
- An adjoint only added into a view of another (`rt.add_to(d_x[2:], d_a)`, the adjoint of
  `a = x[2:]`) is not made: what it was made from is added there (`rt.add_to` sums it
  down to the view's shape, as `rt.unbroadcast` did).
- A copy `d = rt.unbroadcast(g, v).copy()` takes `g`'s array itself when `g` is not read
  from the first write into `d` on (`_moved`): the adjoint of `x` in `y = x - m(x)`;
  also when `g` had its array from another adjoint that nothing names after the copy
  (`x = x - m(x)`, where one name's adjoint passes through two).

>>> import gast
>>> from codegen import to_source
>>> fn = gast.parse('''def f_rev(x, w, tape, d_out):
...     d_x = np.zeros_like(x)
...     d_x += rt.matmul_dx(d_out, x, w)
...     d_x += rt.unbroadcast(d_out * w, x)
...     return d_x,''').body[0]
>>> print(to_source(LeanArrayAdjoints({"d_x"}).run(fn)).strip())
def f_rev(x, w, tape, d_out):
    d_x = rt.matmul_dx(d_out, x, w)
    rt.add_to(d_x, d_out * w)
    return d_x,

The terms of `u = x[2:] + x[1:-1] + x[:-2]` (`t = x[2:] + x[1:-1]` first) share the
adjoint of `u`:

>>> fn = gast.parse('''def f_rev(x, tape, d_out):
...     u, t_shape = tape
...     a = x[2:]
...     b = x[1:-1]
...     c = x[:-2]
...     d_x = np.zeros_like(x)
...     d_u = rt.mul(d_out, u)
...     d_t = rt.unbroadcast(d_u, t_shape).copy()
...     d_c = rt.unbroadcast(d_u, c).copy()
...     rt.add_to(d_x[:-2], d_c)
...     d_a = rt.unbroadcast(d_t, a).copy()
...     d_b = rt.unbroadcast(d_t, b).copy()
...     rt.add_to(d_x[2:], d_a)
...     rt.add_to(d_x[1:-1], d_b)
...     return d_x,''').body[0]
>>> adjoints = {"d_x", "d_u", "d_t", "d_a", "d_b", "d_c"}
>>> print(to_source(LeanArrayAdjoints(adjoints).run(fn)).strip())
def f_rev(x, tape, d_out):
    u, t_shape = tape
    a = x[2:]
    b = x[1:-1]
    c = x[:-2]
    d_x = np.zeros_like(x)
    d_u = rt.mul(d_out, u)
    d_c = rt.unbroadcast(d_u, c)
    rt.add_to(d_x[:-2], d_c)
    d_a = rt.unbroadcast(d_u, a)
    d_b = rt.unbroadcast(d_u, b)
    rt.add_to(d_x[2:], d_a)
    rt.add_to(d_x[1:-1], d_b)
    return d_x,

Given which views the adjoints are added into (ReverseAD records them), those adjoints are
not made at all:

>>> fn = gast.parse('''def f_rev(x, tape, d_out):
...     u = tape
...     d_x = np.zeros_like(x)
...     d_u = rt.mul(d_out, u)
...     d_a = rt.unbroadcast(d_u, a)
...     rt.add_to(d_x[2:], d_a)
...     d_b = rt.mul(d_u, 2.0)
...     rt.add_to(d_x[1:-1], d_b)
...     return d_x,''').body[0]
>>> views = {("d_x", gast.dump(gast.parse("x[2:]").body[0].value.slice), "d_a"),
...          ("d_x", gast.dump(gast.parse("x[1:-1]").body[0].value.slice), "d_b")}
>>> print(to_source(LeanArrayAdjoints({"d_x", "d_u", "d_a", "d_b"}, (), views).run(fn)).strip())
def f_rev(x, tape, d_out):
    u = tape
    d_x = np.zeros_like(x)
    d_u = rt.mul(d_out, u)
    rt.add_to(d_x[2:], d_u)
    rt.add_to(d_x[1:-1], rt.mul(d_u, 2.0))
    return d_x,

A copy whose source is read after the first addition into it stays a copy (`d_a`);
one whose source is not takes its array (`d_b`):

>>> fn = gast.parse('''def f_rev(x, tape, d_out):
...     d_t = rt.mul(d_out, x)
...     d_a = rt.unbroadcast(d_t, x).copy()
...     rt.add_to(d_a, rt.mul(d_t, x))
...     d_u = rt.mul(d_a, x)
...     d_b = rt.unbroadcast(d_u, x).copy()
...     d_s = rt.neg(d_u)
...     rt.add_to(d_b, d_s)
...     return d_b, d_t''').body[0]
>>> print(to_source(LeanArrayAdjoints({"d_t", "d_a", "d_u", "d_b", "d_s"}).run(fn)).strip())
def f_rev(x, tape, d_out):
    d_t = rt.mul(d_out, x)
    d_a = rt.unbroadcast(d_t, x).copy()
    rt.add_to(d_a, rt.mul(d_t, x))
    d_u = rt.mul(d_a, x)
    d_b = rt.unbroadcast(d_u, x)
    d_s = rt.neg(d_u)
    rt.add_to(d_b, d_s)
    return d_b, d_t

The adjoint of `x = x - np.max(x)`'s new `x` passes to the old `x` through `d_t`; no name
sees the array after the copy but `d_x` (`d_t` is read before any write into `d_x`):

>>> fn = gast.parse('''def f_rev(x, tape, d_out):
...     d_y = rt.mul(d_out, x)
...     d_x = rt.unbroadcast(d_y, x)
...     d_t = d_x.copy()
...     d_x = rt.unbroadcast(d_t, x).copy()
...     d_m = rt.neg(d_t)
...     rt.add_to(d_x, d_m)
...     return d_x,''').body[0]
>>> print(to_source(LeanArrayAdjoints({"d_y", "d_x", "d_t", "d_m"}).run(fn)).strip())
def f_rev(x, tape, d_out):
    d_y = rt.mul(d_out, x)
    d_x = rt.unbroadcast(d_y, x)
    d_t = d_x
    d_x = rt.unbroadcast(d_t, x)
    d_m = rt.neg(d_t)
    rt.add_to(d_x, d_m)
    return d_x,
"""
import bisect

import gast

from srcad import runtime as rt
from srcad.passes import ir


def helper_fact(func, fact):
    """What the `rt` helper that `func` names says of itself (`result_like`, `fresh`,
    `adds_in_place`: see `srcad.runtime.overloads`), or None (another function, or a
    helper that says nothing)."""
    text = ir.dotted_text(func) or ""
    return getattr(getattr(rt, text[3:], None), fact, None) if text.startswith("rt.") \
        else None


def _first_assignments(stmts, filled=(), shaped=()):
    """`d = np.zeros_like(v)` whose first use, in this straight-line list, is
    `d += <an array shaped like v>` becomes one assignment: no zero fill, one pass less
    over the array (`shaped`: the (adjoint, term dumped) that Adjoints knows to have the
    shape, of which a term that is not a new array is copied); `d += e` of another `e`
    (broadcast to `v`'s shape: a reduction's cotangent) becomes `d = rt.filled(e, v)`.
    Inside loops and branches nothing changes."""
    out, inits = list(stmts), {}
    for k, s in enumerate(out):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
                and isinstance(s.value, gast.Call) \
                and ir.dotted_text(s.value.func) == "np.zeros_like" \
                and isinstance(s.value.args[0], gast.Name) and s.targets[0].id not in filled:
            inits[s.targets[0].id] = (k, s.value.args[0].id)
            continue
        for d in sorted({n.id for n in ir.names(s) if n.id in inits}):
            k0, v = inits.pop(d)
            value = _shaped_value(s, d, v)
            adds = isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) \
                and isinstance(s.target, gast.Name) and s.target.id == d \
                and not any(n.id == d for n in ir.names(s.value))
            if value is None and adds and (d, gast.dump(s.value)) in shaped:
                value = s.value if fresh_array(s.value) else gast.Call(
                    func=gast.Attribute(value=s.value, attr="copy", ctx=gast.Load()),
                    args=[], keywords=[])
            elif value is None and adds:
                value = ir.call("rt.filled", s.value, ir.name(v))  # broadcast into place
            if value is not None:
                out[k0], out[k] = None, ir.assign(d, value, like=s)
    return [s for s in out if s is not None]


def _twins(stmts, arrays):
    """`d = e` followed by `d += e` (the adjoint of `x * x` says `e` twice) becomes
    `d = 2.0 * e`: one evaluation of `e`, and the same value (`e + e` is `2.0 * e`
    exactly). In nested blocks too."""
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            if isinstance(s, (gast.If, gast.For, gast.While)):
                setattr(s, field, _twins(getattr(s, field), arrays))
        prev = out[-1] if out else None
        if isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) \
                and isinstance(s.target, gast.Name) and s.target.id in arrays \
                and isinstance(prev, gast.Assign) and isinstance(prev.targets[0], gast.Name) \
                and prev.targets[0].id == s.target.id \
                and gast.dump(prev.value) == gast.dump(s.value) \
                and not any(n.id == s.target.id for n in ir.names(s.value)):
            prev.value = gast.BinOp(left=ir.const(2.0), op=gast.Mult(), right=prev.value)
            continue
        out.append(s)
    return out


def _in_place(stmts, arrays):
    """`d += f(...)` for an array adjoint `d` (in `arrays`) and a helper f marked
    `adds_in_place` becomes `f_add(d, ...)`: no new array for the term. In nested blocks
    too."""
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            if isinstance(s, (gast.If, gast.For, gast.While)):
                setattr(s, field, _in_place(getattr(s, field), arrays))
        if isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) \
                and isinstance(s.target, gast.Name) and s.target.id in arrays \
                and isinstance(s.value, gast.Call) and not s.value.keywords \
                and helper_fact(s.value.func, "adds_in_place"):
            call = ir.call(helper_fact(s.value.func, "adds_in_place"),
                           ir.name(s.target.id), *s.value.args)
            s = gast.copy_location(gast.Expr(value=call), s)
        out.append(s)
    return out


def _added_to(stmts, arrays):
    """`d += e` for an array adjoint `d` (in `arrays`) becomes `rt.add_to(d, e)`, and
    `d += rt.unbroadcast(e, v)` becomes `rt.add_to(d, e)` (`d` is shaped like `v`). In
    branches and loops too."""
    out = []
    for s in stmts:
        if isinstance(s, (gast.If, gast.For, gast.While)):
            s.body, s.orelse = _added_to(s.body, arrays), _added_to(s.orelse, arrays)
        elif isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) \
                and isinstance(s.target, gast.Name) and s.target.id in arrays:
            e = s.value
            if isinstance(e, gast.Call) and ir.dotted_text(e.func) == "rt.unbroadcast" \
                    and len(e.args) == 2 and not e.keywords:
                e = e.args[0]
            s = gast.copy_location(gast.Expr(value=ir.call("rt.add_to", ir.name(s.target.id),
                                                           e)), s)
        out.append(s)
    return out


def only_read(node, parent, aliases):
    """Whether the value of `node` (an expression) is only read where it stands: an operand
    of arithmetic or of a helper marked `fresh` (a new array, no argument written), the
    term `rt.add_to` (or `rt.add_to_alike`) adds, a shape read or a copy taken. Through
    `rt.unbroadcast` and `rt.expand`, which may return their first argument itself or a
    view of it, their result must be only read, or assigned to a name (recorded in
    `aliases`, name -> the node's name, which that name must then share)."""
    p = parent.get(node)
    if isinstance(p, gast.Assign) and p.value is node and isinstance(node, gast.Name) \
            and len(p.targets) == 1 and isinstance(p.targets[0], gast.Name):
        aliases.setdefault(p.targets[0].id, set()).add(node.id)  # `d = g`: one array
        return True
    if isinstance(p, gast.Subscript):
        if p.value is not node:
            return True  # an index
        return isinstance(p.ctx, gast.Load) and only_read(p, parent, aliases)
    if isinstance(p, gast.Attribute):
        called = isinstance(parent.get(p), gast.Call) and parent[p].func is p
        return p.attr in ("shape", "ndim", "size", "dtype") or (
            p.attr == "copy" and called and not parent[p].args)
    if isinstance(p, (gast.BinOp, gast.UnaryOp, gast.Compare)):
        return True
    if not isinstance(p, gast.Call) or not any(a is node for a in p.args):
        return False
    func = ir.dotted_text(p.func)
    if func in ("rt.add_to", "rt.add_to_alike"):
        return p.args[1] is node
    if func in ("rt.unbroadcast", "rt.expand"):  # the result may be the argument, or a view
        if p.args[1] is node:
            return True
        above = parent.get(p)
        if isinstance(above, gast.Assign) and isinstance(above.targets[0], gast.Name) \
                and isinstance(node, gast.Name):
            aliases.setdefault(above.targets[0].id, set()).add(node.id)
            return True
        return only_read(p, parent, aliases)
    if func == "rt.strong" and p.args[0] is node:
        return True  # only compared with 0
    return func == "np.sum" or helper_fact(p.func, "fresh") is True


def fresh_array(e):
    """Whether the array `e` computes is a new one: arithmetic, a helper marked `fresh`,
    or a strong zero of one (`rt.strong(g, v)` is `v` itself where no zero mattered)."""
    if isinstance(e, (gast.BinOp, gast.UnaryOp)):
        return True
    if not isinstance(e, gast.Call):
        return False
    if ir.dotted_text(e.func) == "rt.strong" and len(e.args) == 2:
        return fresh_array(e.args[1])
    return helper_fact(e.func, "fresh") is True


def _copied(value):
    """Whether `value` is `<expression>.copy()`."""
    return isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
        and value.func.attr == "copy" and not value.args and not value.keywords


def _unbroadcast_of_name(value):
    """(`g`, `v`, copied) when `value` is `rt.unbroadcast(g, v)` or its `.copy()`, `g` a
    name; (`g`, None, True) for `g.copy()`; else None."""
    copied = _copied(value)
    inner = value.func.value if copied else value
    if copied and isinstance(inner, gast.Name):
        return inner.id, None, True
    if isinstance(inner, gast.Call) and ir.dotted_text(inner.func) == "rt.unbroadcast" \
            and len(inner.args) == 2 and not inner.keywords \
            and isinstance(inner.args[0], gast.Name):
        return inner.args[0].id, inner.args[1], copied
    return None


_NEW_ARRAYS = {"np.zeros", "np.zeros_like", "np.ones", "np.full", "np.empty"}


def _shared(stmts, arrays, params, view_reads=()):
    """An adjoint `d = rt.unbroadcast(g, v).copy()` of the sweep's top level shares `g`'s
    array when nothing writes either name after it, nor returns `d` (the copy only
    protected `g` from later additions into `d`, and the caller's gradients from each
    other), and a chain of them sums the first adjoint directly; one only added into a
    view of another (`rt.add_to(d_x[1:], d_a)`, `a = x[1:]`) adds the sum there itself
    (`view_reads`, see `_folded`); adjoints no longer read are dropped."""
    parent = ir.parents(*stmts)
    defs, last_write, aliases = {}, {}, {}
    for k, s in enumerate(stmts):
        for n in ir.names(s):
            if not isinstance(n.ctx, gast.Load):
                if parent.get(n) is s and isinstance(s, gast.Assign) \
                        and len(s.targets) == 1 and n.id not in defs:
                    defs[n.id] = k
                    continue
            elif only_read(n, parent, aliases):
                continue
            last_write[n.id] = k
    grew = True
    while grew:  # writing through a name that shares an array writes the array's owner
        grew = False
        for name, sources in aliases.items():
            for src in sources:
                if last_write.get(name, -1) > last_write.get(src, -1):
                    last_write[src] = last_write[name]
                    grew = True

    source = {}  # shared adjoint -> the adjoint it was summed from, first of its chain
    for k, s in enumerate(stmts):
        if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
                and s.targets[0].id in arrays and s.targets[0].id not in last_write
                and defs.get(s.targets[0].id) == k):
            continue
        pieces = _unbroadcast_of_name(s.value)
        if pieces is None or not _owned(pieces[0], k, stmts, defs, last_write, params):
            continue
        g, v, _ = pieces
        g = source.get(g, g)
        source[s.targets[0].id] = g
        s.value = ir.name(g) if v is None else ir.call("rt.unbroadcast", ir.name(g), v)
    folded = _folded(stmts, view_reads, defs, last_write)
    return _without_unread(stmts, set(source) | folded)


def _owned(g, k, stmts, defs, last_write, params, seen=()):
    """Whether the array `g` names at statement `k` of `stmts` is written by no statement
    after `k`: a parameter or a new array, or shared with one (`defs`, `last_write`: see
    `_shared`)."""
    if last_write.get(g, -1) >= k or g in seen:
        return False
    if g not in defs:
        return g in params
    value = stmts[defs[g]].value
    if isinstance(value, gast.Name):  # `g = h`, shared
        return _owned(value.id, k, stmts, defs, last_write, params, seen + (g,))
    pieces = _unbroadcast_of_name(value)
    if pieces is not None:
        return pieces[2] or _owned(pieces[0], k, stmts, defs, last_write, params,
                                   seen + (g,))
    if _copied(value):
        return True
    if isinstance(value, gast.Call) and ir.dotted_text(value.func) == "rt.unbroadcast":
        value = value.args[0]
    return fresh_array(value) or (isinstance(value, gast.Call)
                             and ir.dotted_text(value.func) in _NEW_ARRAYS)


def _folded(stmts, view_reads, defs, last_write):
    """`d_a = rt.unbroadcast(e, a)` (no copy; or `d_a = e`, `e` a name or a new array),
    read only by `rt.add_to(d_x[i], d_a)`, the adjoint of `a = x[i]` (in `view_reads`:
    (`d_x`, `i` dumped, `d_a`), which ReverseAD records), becomes `rt.add_to(d_x[i], e)`:
    `d_x[i]` has `a`'s shape, and `rt.add_to` sums `e` down to it as `rt.unbroadcast`
    did, so one call and one array fewer (each helper a reverse sweep calls is code that
    Numba links into it and compiles again).
    Neither `d_a` nor anything in `e` is written after `d_a`'s assignment. Returns the
    names of the adjoints folded away."""
    reads = {}
    for s in stmts:
        for n in ir.names(s):
            if isinstance(n.ctx, gast.Load):
                reads[n.id] = reads.get(n.id, 0) + 1
    folded = set()
    for s in stmts:
        if not (isinstance(s, gast.Expr) and isinstance(s.value, gast.Call)
                and ir.dotted_text(s.value.func) == "rt.add_to" and len(s.value.args) == 2):
            continue
        view, d_a = s.value.args
        if not (isinstance(d_a, gast.Name) and reads.get(d_a.id) == 1 and d_a.id in defs
                and d_a.id not in last_write and isinstance(view, gast.Subscript)
                and isinstance(view.value, gast.Name)
                and (view.value.id, gast.dump(view.slice), d_a.id) in view_reads):
            continue
        k = defs[d_a.id]
        value = stmts[k].value
        if isinstance(value, gast.Call) and ir.dotted_text(value.func) == "rt.unbroadcast" \
                and len(value.args) == 2 and not value.keywords:
            value = value.args[0]
        elif not (isinstance(value, gast.Name) or fresh_array(value)):
            continue
        if any(last_write.get(n, -1) >= k for n in _values_read(value)):
            continue
        s.value.args[1] = value
        folded.add(d_a.id)
    return folded


def _values_read(e):
    """The names whose values `e` reads: not a module that a call's name starts with
    (`rt` of `rt.mul(...)`)."""
    modules = {id(c.func.value) for c in gast.walk(e) if isinstance(c, gast.Call)
               and isinstance(c.func, gast.Attribute) and isinstance(c.func.value, gast.Name)}
    return {n.id for n in ir.names(e) if id(n) not in modules}


def _moved(stmts, arrays):
    """`d = rt.unbroadcast(g, v).copy()` (or `d = g.copy()`) of the sweep's top level
    takes `g`'s array itself when `g` holds a new array that no other name shares, and
    nothing writes into `g` after the copy nor reads `g` from the first write into `d`
    on: the copy only kept `g` from seeing those writes. `d` then shares `g`'s array (or
    holds the new sum `rt.unbroadcast` makes of it)."""
    stmts = list(stmts)
    mentions = {}  # name -> the positions of the statements that mention it, in order
    for k, s in enumerate(stmts):
        for name in {n.id for n in ir.names(s)}:
            mentions.setdefault(name, []).append(k)
    for k, s in enumerate(stmts):
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name) and s.targets[0].id in arrays):
            continue
        pieces = _unbroadcast_of_name(s.value)
        d = s.targets[0].id
        if pieces is None or not pieces[2] or pieces[0] not in arrays or pieces[0] == d:
            continue
        g, v, _ = pieces
        after = [stmts[i] for i in sorted({i for name in (g, d) for i in mentions.get(name, [])
                                           if i > k})]  # the others touch neither
        if _own_array(g, k, k, stmts, mentions) and _free_after(g, d, after):
            stmts[k] = ir.assign(d, ir.name(g) if v is None else
                                 ir.call("rt.unbroadcast", ir.name(g), v), like=s)
    return stmts


def _uses(s, name):
    """(read, other) for the name `name` in the statement `s`: whether `s` reads it, and
    whether it uses it any other way (writes into its array, shares it with another
    name, binds it anew) or is not straight-line code."""
    found = [n for n in ir.names(s) if n.id == name]
    if not found:
        return False, False
    if not isinstance(s, (gast.Assign, gast.Expr, gast.AugAssign, gast.Return)):
        return True, True
    parent, aliases = ir.parents(s), {}
    plain = all(isinstance(n.ctx, gast.Load) and only_read(n, parent, aliases)
                for n in found) and not aliases
    return True, not plain or isinstance(s, gast.Return)


def _own_array(g, end, copy_at, stmts, mentions):
    """Whether the adjoint `g`, before the statement at `end` of a sweep's top level
    `stmts`, holds a new array that no other name shares: its last assignment there makes
    one, and every statement since only reads `g`. An array taken from another adjoint
    (`g = rt.unbroadcast(h, v)`, which may be `h`'s own) counts when `h` owned it there,
    only read it since, and is not mentioned from `copy_at` on (the copy's position):
    then no name sees it after the copy but `g`."""
    at_g = mentions.get(g, [])
    for i in reversed(at_g[:bisect.bisect_left(at_g, end)]):
        s = stmts[i]
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and s.targets[0].id == g:
            value = s.value
            if isinstance(value, gast.Call) and ir.dotted_text(value.func) == "rt.unbroadcast" \
                    and len(value.args) == 2 \
                    and not any(n.id == g for n in ir.names(value)):
                value = value.args[0]  # itself or a new sum of it
            if isinstance(value, gast.Name) and value.id != g:
                h, at_h = value.id, mentions.get(value.id, [])
                return _unseen_from(h, copy_at, stmts, at_h) \
                    and not any(_uses(stmts[j], h)[1] for j in at_h if i < j < copy_at) \
                    and _own_array(h, i, copy_at, stmts, mentions)
            return fresh_array(value) or _copied(value)
        if _uses(s, g)[1] and not _writes_into(s, g):
            return False
    return False


def _unseen_from(h, k, stmts, at_h):
    """Whether the name `h` no longer names its array from the statement at `k` on: it
    is not mentioned there or after, or first bound anew (`h = e`, `e` not reading it)."""
    later = at_h[bisect.bisect_left(at_h, k):]
    if not later:
        return True
    s = stmts[later[0]]
    return isinstance(s, gast.Assign) and len(s.targets) == 1 \
        and isinstance(s.targets[0], gast.Name) and s.targets[0].id == h \
        and not any(n.id == h for n in ir.names(s.value))


def _free_after(g, d, after):
    """Whether, in the statements `after` a copy `d` of `g`'s array, nothing writes into
    `g` or shares it, nor reads it in or after the first statement that writes into `d`
    (or shares it, or returns it): until `g` is bound anew, or `d` is before any write."""
    d_written = False
    for s in after:
        target = s.targets[0].id if isinstance(s, gast.Assign) and len(s.targets) == 1 \
            and isinstance(s.targets[0], gast.Name) else None
        part = gast.Expr(value=s.value) if target is not None and target in (g, d) else s
        g_read, g_other = _uses(part, g)
        d_use = d is not None and _uses(part, d)[1]
        if g_other or (g_read and (d_written or d_use)):
            return False
        d_written = d_written or d_use
        if target == g:
            return True  # `g` bound anew: its old array is `d`'s alone
        if target is not None and target == d and not d_use:
            if not d_written:
                return True  # `d` bound anew, unwritten: `g`'s array is `g`'s alone
            d = None  # `d` names another array; `g` must still not be read
    return True


def _writes_into(s, g):
    """Whether `s` is `rt.<helper>(g, ...)`, which adds into `g`'s array in place and
    keeps no reference to it, `g` appearing nowhere else in `s`."""
    call = s.value if isinstance(s, gast.Expr) else None
    return isinstance(call, gast.Call) and (ir.dotted_text(call.func) or "").startswith("rt.") \
        and bool(call.args) and isinstance(call.args[0], gast.Name) and call.args[0].id == g \
        and sum(n.id == g for n in ir.names(s)) == 1


def _without_unread(stmts, names):
    """`stmts` without the assignments to `names` that nothing reads, nor anything that
    is kept reads (repeatedly: what a dropped assignment read may be unread now)."""
    reads, defs = {}, {}  # name -> its reads; name in `names` -> its assignments' places
    for k, s in enumerate(stmts):
        for n in ir.names(s):
            if isinstance(n.ctx, gast.Load):
                reads[n.id] = reads.get(n.id, 0) + 1
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
                and s.targets[0].id in names:
            defs.setdefault(s.targets[0].id, []).append(k)
    dropped, todo = set(), [d for d in defs if not reads.get(d)]
    while todo:
        for k in defs.pop(todo.pop(), ()):
            dropped.add(k)
            for n in ir.names(stmts[k]):
                if isinstance(n.ctx, gast.Load):
                    reads[n.id] -= 1
                    if not reads[n.id] and n.id in defs:
                        todo.append(n.id)
    return [s for k, s in enumerate(stmts) if k not in dropped]


def _shaped_value(s, d, v):
    """The value `s` adds to `d` when `s` is `d += f(...)` with f's result a fresh array
    shaped like `v` (or a copy of one), else None."""
    if not (isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add)
            and isinstance(s.target, gast.Name) and s.target.id == d
            and isinstance(s.value, gast.Call)):
        return None
    e = s.value
    if any(n.id == d for n in ir.names(e)):
        return None
    pos, may_return_first = helper_fact(e.func, "result_like") or (None, False)
    if pos is None or len(e.args) <= pos or not isinstance(e.args[pos], gast.Name) \
            or e.args[pos].id != v:
        return None
    g = e.args[0]
    if may_return_first and not fresh_array(g):  # g itself may come back: copy it
        return gast.Call(func=gast.Attribute(value=e, attr="copy", ctx=gast.Load()),
                         args=[], keywords=[])
    return e


class LeanArrayAdjoints:
    """Transformation of one reverse sweep (see the module); `arrays` are the names of its
    array adjoints, `view_reads` what `_folded` may fold, `shaped` the terms that
    `_first_assignments` may assign, `filled` those that keep their zero fill (a complex
    adjoint, whose first term may be real)."""

    needs = ("kinds", "adjoint_names")
    provides = ()

    def __init__(self, arrays, filled=(), view_reads=(), shaped=()):
        self.arrays, self.filled, self.view_reads = set(arrays), set(filled), set(view_reads)
        self.shaped = set(shaped)

    def run(self, fnode):
        fnode.body = _in_place(_twins(_first_assignments(fnode.body, self.filled, self.shaped),
                                      self.arrays), self.arrays)
        fnode.body = _added_to(fnode.body, self.arrays)
        params = {a.id for a in fnode.args.args}
        fnode.body = _moved(_shared(fnode.body, self.arrays, params, self.view_reads),
                            self.arrays)
        return fnode

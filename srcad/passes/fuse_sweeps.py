"""FuseSweeps: one loop for the value and the gradient, where no iteration's adjoint waits
for a later iteration.

The reverse sweep runs a loop backwards because an iteration's adjoint may depend on the
adjoints of the iterations after it. In a loop that only adds into sums reaching the
output linearly (a loss summed over data, with branches), it does not: each iteration's
adjoint needs only the sums' adjoints, known before the loop runs, and the values of that
same iteration. `<f>_vg(args, d_out) -> (value, gradients)` then runs each iteration's
adjoint right after the iteration itself, and the adjoint code after the loop once the
value is known: one pass over the data, no tape. `grad` and `value_and_grad` call it;
`vjp` keeps the two sweeps (its pullback may be called later, or several times).

The pass reads the two generated sweeps of a function with one top-level `for` loop. It
fuses them only when it can show that the result is what the sweeps give:

- the reverse loop body reads, of what it does not compute itself, only the loop
  variable, values the loop does not change, and adjoints the loop does not change
  (computed before it, from values known before it);
- each adjoint the body writes is local to an iteration (written before it is read),
  reset to zero at the end of each iteration, or only accumulated (`d_x += ...`, and not
  read in the loop): the order of iterations changes nothing but the rounding of sums;
- the forward loop writes no array elements (a value the reverse loop recomputes is the
  one the forward loop computed), and has no inner loop;
- the code after the loop reads nothing that the reverse loop leaves other than the
  reverse sweep would.

Otherwise it returns None and the sweeps stay as they are.

>>> import gast
>>> from codegen import to_source
>>> fwd, rev = gast.parse('''def f_fwd(x, s):
...     n = x.shape[0]
...     total = 0.0
...     for i in range(n):
...         t = x[i] * s
...         total = total + t * t
...     out = total * s
...     return out, (total,)
... def f_rev(x, s, tape, d_out):
...     total, = tape
...     d_x = np.zeros_like(x)
...     d_s = 0.0
...     d_t = 0.0
...     d_out1 = d_out
...     d_total = d_out1 * s
...     d_s += d_out1 * total
...     for k in range(n - 1, -1, -1):
...         i = k
...         t = x[i] * s
...         d_t = 2.0 * d_total * t
...         d_x[i] += d_t * s
...         d_s += d_t * x[i]
...         d_t = 0.0
...     return d_x, d_s''').body
>>> print(to_source(FuseSweeps("f_vg", "tape", "d_out", lambda: "value").run(fwd, rev)).strip())
def f_vg(x, s, d_out):
    n = x.shape[0]
    total = 0.0
    d_x = np.zeros_like(x)
    d_s = 0.0
    d_t = 0.0
    d_out1 = d_out
    d_total = d_out1 * s
    for i in range(n):
        t = x[i] * s
        total = total + t * t
        t = x[i] * s
        d_t = 2.0 * d_total * t
        d_x[i] += d_t * s
        d_s += d_t * x[i]
        d_t = 0.0
    out = total * s
    value = out
    d_s += d_out1 * total
    return value, (d_x, d_s)
"""
import copy

import gast

from codegen.emit import is_comment


class Unfusable(Exception):
    """The sweeps cannot be fused (the reason, for `SRCAD_SHOW`-style debugging)."""


class FuseSweeps:
    """Makes `<f>_vg` from `<f>_fwd` and `<f>_rev`, or None (see the module)."""

    def __init__(self, name, tape_param, seed, fresh, scalars=()):
        self.name, self.tape_param, self.seed, self.fresh = name, tape_param, seed, fresh
        self.scalars = set(scalars)  # adjoints of scalar floats
        self.why = None  # why the last `run` gave None

    def run(self, fwd, rev):
        try:
            return self._fuse(fwd, rev)
        except Unfusable as exc:
            self.why = str(exc)
            return None

    def _fuse(self, fwd, rev):
        pre, floop, post, ret = _split_fwd(fwd)
        unpack, a_part, rloop, b_part, rret = _split_rev(rev, self.tape_param)
        i = floop.target.id
        body = _drop_loop_variable(rloop.body, i)
        hoisted, post = _hoist(pre, floop, post, fwd)
        pre = pre + hoisted
        fwd_pre, fwd_loop, fwd_post = _stores(pre), _stores([floop]), _stores(post)
        primal = fwd_pre | fwd_loop | fwd_post | set(_params(fwd))
        invariant = (set(_params(fwd)) | fwd_pre) - fwd_loop - fwd_post
        written = _stores(body) | {i}
        if any(n in primal and n not in fwd_loop for n in _stores(body)):
            raise Unfusable("the reverse loop writes a value the forward loop does not")
        kinds = self._adjoint_kinds(body, written, primal, invariant, i, fwd_loop)
        early, late = self._slice(a_part, kinds, primal, invariant)
        tape_values = self._tape_values(unpack, ret, early + body)
        for part, what in ((post, "the code after the loop"), (late, "the adjoints after it"),
                           (b_part, "the adjoints before it")):
            allowed = kinds["accumulated"] | (kinds["reset"] if part is b_part else set())
            if (_loads(part) - allowed) & written:
                raise Unfusable(f"{what} reads a value the reverse loop leaves behind")
        value = self.fresh()
        loop_comment = [s for s in a_part[-1:] if is_comment(s)]
        loop = gast.For(target=floop.target, iter=floop.iter,
                        body=floop.body + loop_comment + body, orelse=[], type_comment=None)
        keep = _assign(value, ret.value.elts[0])
        out = gast.Return(value=gast.Tuple(elts=[gast.Name(id=value, ctx=gast.Load(),
                                                           annotation=None, type_comment=None),
                                                 rret.value], ctx=gast.Load()))
        late = [s for s in late if s not in loop_comment]
        stmts = pre + early + [loop] + post + [keep] + tape_values + late + b_part + [out]
        args = copy.deepcopy(fwd.args)
        args.args.append(gast.Name(id=self.seed, ctx=gast.Param(), annotation=None,
                                   type_comment=None))
        return gast.FunctionDef(name=self.name, args=args, body=copy.deepcopy(stmts),
                                decorator_list=[], returns=None, type_comment=None,
                                type_params=[])

    def _adjoint_kinds(self, body, written, primal, invariant, i, fwd_loop):
        """The reverse loop body's names by how they cross iterations: "invariant" (read,
        not written: computed before the loop), "local", "reset", "accumulated"."""
        live = []
        _live_in(body, {i}, live)
        kinds = {"invariant": set(), "local": set(), "reset": set(), "accumulated": set()}
        plain_reads = _loads(body, targets=False)
        for n, as_target in live:
            if n in written and n in fwd_loop:
                # a value of the iteration, recomputed under a test the forward loop
                # computed too (`if branch1:` twice): the forward loop has just set it
                continue
            if n in written:
                if as_target and n not in plain_reads and _only_accumulated(body, n):
                    kinds["accumulated"].add(n)
                elif _reset_at_end(body, n):
                    kinds["reset"].add(n)
                else:
                    raise Unfusable(f"`{n}` carries a value from one reverse iteration to "
                                    "the next")
            elif n in primal:
                if n not in invariant:
                    raise Unfusable(f"the reverse loop reads `{n}`, which the loop changes")
            else:
                kinds["invariant"].add(n)
        kinds["local"] = written - kinds["reset"] - kinds["accumulated"] - primal
        return kinds

    def _slice(self, stmts, kinds, primal, invariant):
        """(what must run before the loop, what may run after it), in their order: the
        statements computing the adjoints the loop reads, and the zero fills of those it
        writes."""
        zeros_only = kinds["local"] | kinds["reset"]
        needed, early = set(kinds["invariant"]), set()
        stmts, filled = list(stmts), set()
        for k, s in enumerate(list(stmts)):
            if is_comment(s):
                continue
            for n in _stores([s]) & (zeros_only | kinds["accumulated"]):
                if n not in filled and _is_zero_fill(s):
                    filled.add(n)
                    early.add(k)
                elif n in zeros_only or isinstance(s, gast.Assign) and n in filled:
                    raise Unfusable(f"`{n}` is written before the loop other than by its "
                                    "zero fill")
                elif isinstance(s, gast.Assign) and n in self.scalars and \
                        isinstance(s.targets[0], gast.Name):
                    # `d_s = e`, the first term: zero before the loop, `d_s += e` after it
                    filled.add(n)
                    stmts[k] = gast.AugAssign(target=s.targets[0], op=gast.Add(),
                                              value=s.value)
                    stmts.insert(0, _assign(n, gast.Constant(value=0.0, kind=None)))
                    return self._slice(stmts, kinds, primal, invariant)
                elif isinstance(s, gast.Assign):
                    raise Unfusable(f"`{n}` is assigned before the loop")
            if _loads([s], targets=False) & (zeros_only | kinds["accumulated"]):
                raise Unfusable("an adjoint the loop writes is read before it")
        for k in range(len(stmts) - 1, -1, -1):
            s = stmts[k]
            if is_comment(s) or not (_stores([s]) & needed):
                continue
            early.add(k)
            needed |= _loads([s])
        for k in sorted(early):
            s = stmts[k]
            late_before = [t for j, t in enumerate(stmts[:k]) if j not in early]
            if _stores([s]) & (_stores(late_before) | _loads(late_before)) or \
                    _loads([s]) & _stores(late_before):
                raise Unfusable("the adjoints before the loop cannot be reordered")
            reads = _loads([s]) - _stores([stmts[j] for j in early if j < k])
            if any(n in primal and n not in invariant for n in reads):
                raise Unfusable("the adjoints the loop reads need values computed after it")
        return ([s for k, s in enumerate(stmts) if k in early],
                [s for k, s in enumerate(stmts) if k not in early])

    def _tape_values(self, unpack, ret, early):
        """`name = value` for the tape entries the reverse sweep unpacks under another
        name than the forward sweep's (a shape, a copy); refused where `early` reads one."""
        if unpack is None:
            return []
        names = [e.id for e in unpack.targets[0].elts]
        saved = ret.value.elts[1].elts if isinstance(ret.value.elts[1], gast.Tuple) else []
        if len(saved) != len(names):
            raise Unfusable("the tape is not a tuple of the forward sweep's values")
        out = [_assign(n, v) for n, v in zip(names, saved)
               if not (isinstance(v, gast.Name) and v.id == n)]
        if {s.targets[0].id for s in out} & _loads(early):
            raise Unfusable("the loop reads a tape entry made after it")
        return out


# ---------------------------------------------------------------------------------------
# Reading the sweeps


def _split_fwd(fwd):
    """(before the loop, the loop, after it, the return) of a forward sweep."""
    body = fwd.body
    ret = body[-1]
    if not (isinstance(ret, gast.Return) and isinstance(ret.value, gast.Tuple)
            and len(ret.value.elts) == 2):
        raise Unfusable("the forward sweep does not end by returning (value, tape)")
    loops = [k for k, s in enumerate(body) if isinstance(s, (gast.For, gast.While))]
    if len(loops) != 1 or not isinstance(body[loops[0]], gast.For):
        raise Unfusable("not one top-level `for` loop")
    loop = body[loops[0]]
    if not isinstance(loop.target, gast.Name) or loop.orelse:
        raise Unfusable("the loop's target is not a name")
    for s in gast.walk(gast.Module(body=loop.body, type_ignores=[])):
        if isinstance(s, (gast.For, gast.While)):
            raise Unfusable("an inner loop")
        if isinstance(s, (gast.Assign, gast.AugAssign)) and any(
                isinstance(t, gast.Subscript) for t in _targets(s)):
            raise Unfusable("the loop writes array elements")
        if isinstance(s, (gast.Expr, gast.Return, gast.Raise, gast.Break, gast.Continue)) \
                and not is_comment(s):
            raise Unfusable("the loop has a statement other than assignments and `if`")
    return body[:loops[0]], loop, body[loops[0] + 1:-1], ret


def _hoist(pre, loop, post, fwd):
    """(the statements after the loop that do not depend on it, the others): assignments
    of a name assigned once, from values known before the loop (`n = x.shape[0]` in
    `return s / x.shape[0]`). Run before the loop, they give the adjoints it reads."""
    counts = {}
    for node in gast.walk(fwd):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            counts[node.id] = counts.get(node.id, 0) + 1
    known = (set(_params(fwd)) | _stores(pre)) - _stores([loop]) - _stores(post)
    hoisted, rest = [], []
    for s in post:
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], gast.Name) and counts.get(s.targets[0].id) == 1 \
                and _loads_expr(s.value) <= known | {"np", "math", "rt"}:
            hoisted.append(s)
            known.add(s.targets[0].id)
        else:
            rest.append(s)
    return hoisted, rest


def _split_rev(rev, tape_param):
    """(the tape's unpacking or None, before the loop, the loop, after it, the return)."""
    body = rev.body
    unpack = None
    if body and isinstance(body[0], gast.Assign) and isinstance(body[0].value, gast.Name) \
            and body[0].value.id == tape_param and isinstance(body[0].targets[0], gast.Tuple):
        unpack, body = body[0], body[1:]
    if tape_param in _loads(body):
        raise Unfusable("the reverse sweep reads its tape other than by unpacking it")
    loops = [k for k, s in enumerate(body) if isinstance(s, (gast.For, gast.While))]
    if len(loops) != 1 or not isinstance(body[-1], gast.Return):
        raise Unfusable("not one top-level loop in the reverse sweep")
    k = loops[0]
    return unpack, body[:k], body[k], body[k + 1:-1], body[-1]


def _drop_loop_variable(body, i):
    """The reverse loop body without its first statement, `i = <from the counter>`."""
    first = next((k for k, s in enumerate(body) if not is_comment(s)), None)
    if first is None or not (isinstance(body[first], gast.Assign)
                             and _stores([body[first]]) == {i}
                             and isinstance(body[first].targets[0], gast.Name)):
        raise Unfusable("the reverse loop does not start from its iteration number")
    return body[:first] + body[first + 1:]


def _live_in(stmts, defined, out):
    """Append to `out` (name, as the target of `+=`) for each read in `stmts` of a name
    not surely assigned before it in the same iteration (assignments in a branch count
    only inside it)."""
    for s in stmts:
        if is_comment(s):
            continue
        if isinstance(s, gast.If):
            out += [(n, False) for n in sorted(_loads_expr(s.test)) if n not in defined]
            _live_in(s.body, set(defined), out)
            _live_in(s.orelse, set(defined), out)
            continue
        if isinstance(s, gast.AugAssign):
            base = _base(s.target)
            out += [(n, False) for n in sorted(_loads_expr(s.value) | _index_loads(s.target))
                    if n not in defined]
            if base not in defined:
                out.append((base, True))
            defined.add(base)
        elif isinstance(s, gast.Assign):
            reads = _loads_expr(s.value) | set().union(*(_index_loads(t) for t in s.targets))
            out += [(n, False) for n in sorted(reads) if n not in defined]
            for t in s.targets:
                if isinstance(t, gast.Subscript):  # a part written: the rest is carried
                    if _base(t) not in defined:
                        out.append((_base(t), False))
                else:
                    defined |= _stores([s])
        elif isinstance(s, gast.Pass):
            continue
        else:
            raise Unfusable(f"a {type(s).__name__} statement in the reverse loop")


def _only_accumulated(body, n):
    """Whether every write of `n` in `body` is `n += ...` or `n[...] += ...`."""
    for s in gast.walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(s, gast.Assign) and n in {_base(t) for t in s.targets}:
            return False
    return True


def _reset_at_end(body, n):
    """Whether the last top-level statement of `body` writing `n` fills it with zeros, and
    no statement in a branch writes it after."""
    for k in range(len(body) - 1, -1, -1):
        s = body[k]
        if n in _stores([s]):
            return isinstance(s, gast.Assign) and _is_zero_fill(s)
    return False


def _is_zero_fill(s):
    """`x = 0.0`, `x = np.zeros_like(...)`, `x = np.zeros(...)` or `x[...] = 0.0`."""
    if not isinstance(s, gast.Assign):
        return False
    v = s.value
    if isinstance(v, gast.Constant):
        return v.value == 0 and not isinstance(v.value, bool)
    return isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and \
        isinstance(v.func.value, gast.Name) and v.func.value.id == "np" and \
        v.func.attr in ("zeros_like", "zeros") and not v.keywords


def _targets(s):
    return s.targets if isinstance(s, gast.Assign) else [s.target]


def _base(target):
    while isinstance(target, gast.Subscript):
        target = target.value
    if not isinstance(target, gast.Name):
        raise Unfusable("an assignment to an attribute")
    return target.id


def _index_loads(target):
    if isinstance(target, gast.Subscript):
        return _loads_expr(target.slice) | _index_loads(target.value)
    return set()


def _params(fn):
    return [a.id for a in fn.args.args]


def _stores(stmts):
    """Names assigned in `stmts` (a part written counts: `x[i] = v`, `x[i] += v`)."""
    out = set()
    for node in gast.walk(gast.Module(body=list(stmts), type_ignores=[])):
        if isinstance(node, (gast.Assign, gast.AugAssign)):
            for t in _targets(node):
                if isinstance(t, gast.Subscript):
                    out.add(_base(t))
                else:
                    out |= {n.id for n in gast.walk(t) if isinstance(n, gast.Name)}
        elif isinstance(node, gast.For):
            out |= {n.id for n in gast.walk(node.target) if isinstance(n, gast.Name)}
    return out


def _loads_expr(node):
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)}


def _loads(stmts, targets=True):
    """Names read in `stmts`; `targets`: counting the target of `x += v` as read."""
    out = set()
    for node in gast.walk(gast.Module(body=[s for s in stmts if not is_comment(s)],
                                      type_ignores=[])):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            out.add(node.id)
        elif targets and isinstance(node, gast.AugAssign):
            out.add(_base(node.target))
    if not targets:  # the base of `x[i] += v` is a load in gast: not a read here
        for node in gast.walk(gast.Module(body=list(stmts), type_ignores=[])):
            if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Subscript) \
                    and not _read_elsewhere(stmts, node):
                out.discard(_base(node.target))
    return out


def _read_elsewhere(stmts, aug):
    """Whether the base array of `aug` (`x[i] += v`) is read other than as such a target."""
    base = _base(aug.target)
    targets = set()
    for node in gast.walk(gast.Module(body=list(stmts), type_ignores=[])):
        if isinstance(node, (gast.AugAssign, gast.Assign)):
            for t in _targets(node):
                if isinstance(t, gast.Subscript):
                    inner = t
                    while isinstance(inner, gast.Subscript):
                        inner = inner.value
                    targets.add(id(inner))
    return any(isinstance(n, gast.Name) and n.id == base and isinstance(n.ctx, gast.Load)
               and id(n) not in targets
               for n in gast.walk(gast.Module(body=list(stmts), type_ignores=[])))


def _assign(name, value):
    return gast.Assign(targets=[gast.Name(id=name, ctx=gast.Store(), annotation=None,
                                          type_comment=None)],
                       value=copy.deepcopy(value), type_comment=None)

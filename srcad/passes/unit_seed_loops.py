"""UnitSeedLoops: a double loop that only adds into a sum runs its adjoint in the forward
sweep.

An energy over pairs (`for i: for j in range(i + 1, n): e += f(x[i], x[j])`) adds a term
per pair into a sum that reaches the output after the loops. The reverse sweep then runs
both loops again backwards, replaying each pair's values to add its term's gradient into
the arrays' adjoints, with the sum's adjoint the same for every pair (nothing in the
loops reads `e` but the additions). What it adds is linear in that adjoint: the forward
sweep can add it for a cotangent of 1 in the same inner iteration, with the pair's
values at hand, into accumulators of its own (`u_d_x`) that the tape keeps; the reverse
sweep then only scales them by the sum's adjoint. One pass over the pairs instead of
two, and what the reverse body would replay the forward body has just computed. What the
inner loop adds at one place for all its iterations (`u_d_x[i]`) it adds up in a local
number, written once after it.

Only a loop nest whose outer body does nothing but replay values for the inner loop: a
single loop's reverse is often vectorized by the compiler (its sums may be reordered,
see SafeReassociation), where in the forward sweep, which must add the function's own
sum in the function's order, it could not be, and it is faster left alone.

That holds when the inner reverse loop reads one adjoint it does not assign (the seed:
the sum's, or the output's own cotangent when the output is a number); adds into the
others only as accumulators (`d_x[i] += e`, `d_s += e`), or uses them as temporaries
that are assigned before they are read, or zero at the start of every iteration;
replays every other value it reads from the counters and from values the forward loops
do not change (no tape read per iteration); and nothing after the loops reads what it
replays.

>>> import gast
>>> from codegen import to_source
>>> from codegen.names import Namer
>>> from srcad.kinds import Kind
>>> fwd, rev = gast.parse('''def f_fwd(x, c):
...     e = 0.0
...     trip1 = rt.range_len(0, 4, 1)
...     for i in range(4):
...         start = i + 1
...         trip2 = rt.range_len(start, 4, 1)
...         for j in range(start, 4):
...             r = (x[i] - x[j]) * c
...             e = e + r * r
...     return e, (trip1,)
... def f_rev(x, c, tape, d_out):
...     trip1, = tape
...     d_x = np.zeros_like(x)
...     d_c = 0.0
...     for k2 in range(trip1 - 1, -1, -1):
...         i = k2
...         start = i + 1
...         trip2 = rt.range_len(start, 4, 1)
...         for k1 in range(trip2 - 1, -1, -1):
...             j = start + k1
...             r = (x[i] - x[j]) * c
...             d_r = d_out * (2.0 * r)
...             d_x[i] += d_r * c
...             d_x[j] -= d_r * c
...             d_c += d_r * (x[i] - x[j])
...     return d_x, d_c''').body
>>> kinds = {"x": Kind("f", 1), "c": Kind("f"), "r": Kind("f"), "e": Kind("f")}
>>> adjoints = {"x": "d_x", "c": "d_c", "r": "d_r"}
>>> fwd, rev = UnitSeedLoops(["x", "c"], adjoints, kinds, Namer(), seed="d_out").run(fwd, rev)
>>> print(to_source([fwd, rev]).strip())
def f_fwd(x, c):
    e = 0.0
    trip1 = rt.range_len(0, 4, 1)
    d_r = 0.0
    u_d_x = np.zeros_like(x)
    u_d_c = 0.0
    for i in range(4):
        start = i + 1
        trip2 = rt.range_len(start, 4, 1)
        acc1 = 0.0
        for j in range(start, 4):
            r = (x[i] - x[j]) * c
            e = e + r * r
            d_r = 1.0 * (2.0 * r)
            acc1 += d_r * c
            u_d_x[j] -= d_r * c
            u_d_c += d_r * (x[i] - x[j])
        u_d_x[i] += acc1
    return e, (trip1, u_d_x, u_d_c)
<BLANKLINE>
<BLANKLINE>
def f_rev(x, c, tape, d_out):
    trip1, u_d_x, u_d_c = tape
    d_x = np.zeros_like(x)
    d_c = 0.0
    d_x += d_out * u_d_x
    d_c += d_out * u_d_c
    return d_x, d_c
"""
import copy

import gast

from codegen.emit import is_comment
from srcad.passes import ir
from srcad.passes.lean_tape import _tape_parts

_BODY_STATEMENTS = (gast.Assign, gast.AugAssign, gast.If, gast.Pass)


class UnitSeedLoops:
    """Transformation of a forward sweep and its reverse sweep (see the module).
    `adjoints`: each variable's adjoint's name; `kinds`: the variables' kinds."""

    needs = ("kinds",)
    provides = ()

    def __init__(self, params, adjoints, kinds, namer, tape_param="tape", seed=None):
        self.params, self.kinds, self.namer = set(params), kinds, namer
        self.adjoints = adjoints
        self.primal_of = {d: v for v, d in adjoints.items()}
        self.tape_param, self.seed = tape_param, seed

    def run(self, fwd, rev):
        self.fused = False  # whether a loop's adjoint moved into the forward sweep
        parts = _tape_parts(fwd, rev, self.tape_param)
        if parts is None:
            return fwd, rev
        self.tape, self.unpack = parts
        self.fwd, self.fwd_stored = fwd, _stored_names(fwd)
        self.rev_stored = {}
        for s in rev.body:
            if s is not self.unpack:
                for name in _stored_names(s):
                    self.rev_stored[name] = self.rev_stored.get(name, 0) + 1
        out = fwd.body[-1].value.elts[0]  # the function's value: its cotangent may seed
        kind = self.kinds.get(out.id) if isinstance(out, gast.Name) else None
        self.scalar_seed = self.seed is not None and (
            isinstance(out, gast.Constant) or getattr(kind, "ndim", None) == 0 and
            getattr(kind, "dtype", None) == "f")
        for loop in [s for s in rev.body if isinstance(s, gast.For)]:
            site = self.site(loop, fwd, rev)
            plan = self.plan(*site) if site is not None else None
            if plan is not None:
                self.fuse(loop, fwd, rev, site, *plan)
        return fwd, rev

    def site(self, loop, fwd, rev):
        """Where the adjoint of the top-level reverse loop `loop` would go: (the reverse
        loop whose body moves, the forward loop it goes into, the reverse statements
        before and after it, the forward ones before and after, the names whose value is
        the same for the forward loop's iterations and the reverse's) for the loop
        itself, or for its inner loop when its body only replays values before it (a
        double loop over pairs); or None."""
        k = rev.body.index(loop)
        found = self.matching(loop, fwd.body)
        if found is None:
            return None
        floop, j = found
        inner = loop.body[-1]
        if not isinstance(inner, gast.For) or any(
                isinstance(n, gast.Name) and n.id in self.primal_of or
                isinstance(n, (gast.For, gast.While)) for s in loop.body[1:-1]
                for n in ir.walk(s)):
            return None
        found = self.matching(inner, floop.body)
        if found is None or found[1] != len(floop.body) - 1:
            return None
        # the outer bodies replay the same values before the inner loops
        primal = {gast.dump(t) for t in floop.body[:-1] if isinstance(t, gast.Assign)}
        replays = loop.body[1:-1]
        if not all(isinstance(t, gast.Assign) and gast.dump(t) in primal or is_comment(t)
                   for t in replays):
            return None
        stable = {floop.target.id} | set().union(set(), *(_stored_names(t) for t in replays))
        stable = (stable - _stored_names(found[0])) | {found[0].target.id}
        return (inner, found[0], rev.body[:k] + [loop.body[0]] + replays, rev.body[k + 1:],
                fwd.body[:j] + floop.body[:-1], fwd.body[j + 1:], stable)

    def matching(self, loop, block):
        """(the forward loop in `block` that the reverse loop `loop` reverses, its
        position), or None."""
        trip, counter = _reversed_range(loop)
        if trip is None or not loop.body or not _counter_recovery(loop.body[0], counter) \
                or any(isinstance(n, gast.Name) and n.id == counter
                       for s in loop.body[1:] for n in ir.walk(s)):
            return None
        return _forward_loop(block, trip, loop.body[0].targets[0].id)

    def plan(self, loop, floop, rev_before, rev_after, before, after, stable):
        """(the body to move, the seed, the accumulators, the temporaries) for moving
        the body of the reverse loop `loop` into the forward loop `floop`, or None where
        it cannot. The body leaves out the restoring of a value from the tape that
        nothing reads: the sum itself, restored as the loop goes back, when it is read
        only before the loop in the reverse sweep (`return np.tanh(e)`)."""
        body = _without_unread_pops(loop.body[1:], rev_after)
        nodes = [n for s in body for n in ir.walk(s)]
        if not all(isinstance(s, _BODY_STATEMENTS) or is_comment(s)
                   for s in ir.walk_no_loops(body)) or \
                any(isinstance(n, (gast.For, gast.While, gast.Break, gast.Continue,
                                   gast.Return)) for n in nodes) or \
                any(isinstance(n, (gast.Break, gast.Continue, gast.Return))
                    for n in ir.walk(floop)):
            return None
        roles = self.roles(body, nodes)
        if roles is None:
            return None
        seed, accumulators, temporaries = roles
        if not all(self.zero_at_each_start(d, body, rev_before, rev_after)
                   for d in temporaries):
            return None
        if not all(self.unit_start(d, floop) is not None for d in accumulators):
            return None
        if not self.replayed(body, nodes, floop, before, after, rev_after, stable):
            return None
        return body, seed, accumulators, temporaries

    def roles(self, body, nodes):
        """(the seed, the accumulators, the temporaries) among the adjoints `body`
        mentions, or None: one adjoint read and never assigned (the seed), adjoints only
        added into or subtracted from (`d += e`, `d[i] -= e`), and the others."""
        adds = {id(n.target) for n in nodes if isinstance(n, gast.AugAssign)
                and isinstance(n.op, (gast.Add, gast.Sub))}
        adds |= {id(n.target.value) for n in nodes if isinstance(n, gast.AugAssign)
                 and isinstance(n.op, (gast.Add, gast.Sub))
                 and isinstance(n.target, gast.Subscript)}
        mentions = {}  # adjoint -> [(added into, stored, loaded)]
        for n in nodes:
            if isinstance(n, gast.Name) and n.id == self.seed:
                if not self.scalar_seed or not isinstance(n.ctx, gast.Load):
                    return None
                mentions.setdefault(n.id, []).append((False, False, True))
            elif isinstance(n, gast.Name) and n.id in self.primal_of:
                mentions.setdefault(n.id, []).append(
                    (id(n) in adds, isinstance(n.ctx, gast.Store), isinstance(n.ctx, gast.Load)))
        stored_in = {n.id for s in body for n in ir.walk(s) if isinstance(n, gast.Name)
                     and isinstance(n.ctx, gast.Store)}
        subscript_stores = {n.value.id for n in nodes if isinstance(n, gast.Subscript)
                            and isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name)}
        seeds, accumulators, temporaries = [], [], []
        for d, uses in mentions.items():
            if d == self.seed:
                seeds.append(d)
                continue
            kind = self.kinds.get(self.primal_of[d])
            if kind is None or getattr(kind, "dtype", None) != "f":
                return None  # complex, or a tuple: not a case for this
            if all(added for added, _, _ in uses):
                accumulators.append(d)
            elif d not in stored_in and d not in subscript_stores:
                seeds.append(d)
            elif kind.ndim == 0 and d not in subscript_stores:
                temporaries.append(d)
            else:
                return None  # an array adjoint used otherwise
        if len(seeds) != 1 or not accumulators:
            return None
        return seeds[0], accumulators, temporaries

    def zero_at_each_start(self, d, body, before, after):
        """Whether the temporary `d` is assigned in every iteration before it is read, or
        zero when each iteration starts (set to 0.0 before the loop and not mentioned
        between, and set to 0.0 by the body's last statement that mentions it); and
        nothing after the loop mentions it."""
        if not _read_first(body, d, set()):
            return not any(_mentions(s, d) for s in after)
        last = next((s for s in reversed(before) if _mentions(s, d)), None)
        if not _zeroes(last, d):
            return False
        last_in_body = next((s for s in reversed(body) if _mentions(s, d)), None)
        return _zeroes(last_in_body, d) and not any(_mentions(s, d) for s in after)

    def unit_start(self, d, floop):
        """The forward sweep's first value of the accumulator for the adjoint `d`, set
        before the top-level loop around `floop`: 0.0 for a float, zeros like its array (a
        parameter, or a variable that the forward sweep assigns once, at its top level
        before that loop), or None."""
        primal = self.primal_of[d]
        kind = self.kinds[primal]
        if kind.ndim == 0:
            return ir.const(0.0)
        top = _top(self.fwd, floop)
        stores = [s for s in self.fwd.body[:self.fwd.body.index(top)]
                  if primal in _stored_names(s)]
        if primal not in self.params and len(stores) != 1 or \
                primal in self.params and stores or primal in _stored_names(top):
            return None
        return ir.call("np.zeros_like", ir.name(primal))

    def replayed(self, body, nodes, floop, before, after, later, stable):
        """Whether every value the reverse loop's body reads, other than adjoints, is
        either assigned by the body itself (replayed from the counter and unchanging
        values; nothing after the loop in the reverse sweep mentions it), or `stable`, or
        one the forward loop does not change: a parameter or a variable assigned before
        the loop only, neither written into by the forward loop nor assigned by the
        reverse sweep but from the tape."""
        fwd_stored_in_loop = _stored_names(floop)
        fwd_written_in_loop = _written_names(floop)
        fwd_stored_after = set().union(set(), *(_stored_names(s) for s in after))
        body_stored = set().union(set(), *(_stored_names(s) for s in body))
        adjoints = set(self.primal_of) | {self.seed}
        for n in nodes:
            if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name) and \
                    n.target.id not in adjoints:
                return False  # a counter carried from one reverse iteration to the next
        for name in (body_stored | stable) - adjoints:
            if any(_mentions(s, name) for s in later):
                return False
        for name in {n.id for n in nodes if isinstance(n, gast.Name)
                     and isinstance(n.ctx, gast.Load)} - adjoints - body_stored - stable:
            if name in fwd_stored_in_loop or name in fwd_written_in_loop or \
                    name in fwd_stored_after or self.rev_stored.get(name):
                return False
            if name not in self.params and name not in self.fwd_stored and \
                    name not in _unpacked(self.unpack):
                continue  # a module's name: `np`, a constant
            if name not in self.params and not any(name in _stored_names(s) for s in before) \
                    and name not in _loaded_names(self.tape):
                return False
        return True

    def fuse(self, loop, fwd, rev, site, body, seed, accumulators, temporaries):
        """Move the body of the site's reverse loop into its forward loop, with a unit
        seed and accumulators of its own, started before the top-level forward loop;
        the top-level reverse loop `loop` becomes the scaling of the accumulators."""
        floop, self.fused = site[1], True
        units = {d: self.namer.fresh("u_" + d, numbered=False) for d in accumulators}
        starts = [ir.assign(d, ir.const(0.0)) for d in temporaries]
        starts += [ir.assign(units[d], self.unit_start(d, floop)) for d in accumulators]
        moved = [_renamed(copy.deepcopy(s), seed, units) for s in body]
        floop.body = floop.body + _without_replays(floop.body, moved)
        top = _top(fwd, floop)
        if top is not floop and top.body and top.body[-1] is floop:
            self.kept_in_locals(top, floop, moved, set(units.values()))
        j = fwd.body.index(top)
        fwd.body[j:j] = [gast.copy_location(s, top) for s in starts]
        self.tape.elts += [ir.name(units[d]) for d in accumulators]
        self.unpack.targets[0].elts += [ir.name(units[d], store=True) for d in accumulators]
        scaled = [gast.copy_location(gast.AugAssign(
            target=ir.name(d, store=True), op=gast.Add(),
            value=gast.BinOp(left=ir.name(seed), op=gast.Mult(), right=ir.name(units[d]))),
            loop) for d in accumulators]
        k = rev.body.index(loop)
        rev.body[k:k + 1] = scaled


    def kept_in_locals(self, outer, floop, moved, units):
        """The elements of the accumulators that the inner loop `floop` adds into at
        places its iterations do not change (`u_d_x[i, 0] += e`, `i` the outer counter)
        are added up in local numbers through the inner loop and into the array after
        it: the inner loop then carries no sum through memory. The accumulators are only
        ever added into, so the order of the additions is all that changes."""
        varying = _stored_names(floop)
        places = {}  # a place's text -> (its local, the place)
        for n in [n for s in moved for n in ir.walk(s)]:
            if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Subscript) and \
                    isinstance(n.target.value, gast.Name) and n.target.value.id in units and \
                    not (_loaded_names(n.target.slice) & varying) and \
                    not any(isinstance(m, (gast.Call, gast.Subscript))
                            for m in ir.walk(n.target.slice)):
                key = gast.dump(n.target)
                if key not in places:
                    places[key] = (self.namer.fresh("acc"), copy.deepcopy(n.target))
                n.target = ir.name(places[key][0], store=True)
        if not places:
            return
        before = [gast.copy_location(ir.assign(name, ir.const(0.0)), floop)
                  for name, _ in places.values()]
        after = []
        for name, place in places.values():
            place.ctx = gast.Store()
            after.append(gast.copy_location(gast.AugAssign(
                target=place, op=gast.Add(), value=ir.name(name)), floop))
        outer.body[-1:] = before + [floop] + after


def _without_unread_pops(stmts, later):
    """`stmts` without the pops (`top_v -= 1; v = tape_v[top_v]`) of values `v` that no
    statement of `stmts` reads, nor any of `later`."""
    reads = {n.id for s in stmts for n in ir.walk(s)
             if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}

    def pop_of(a, b):
        if not (isinstance(a, gast.AugAssign) and isinstance(a.op, gast.Sub) and
                isinstance(a.target, gast.Name) and isinstance(a.value, gast.Constant) and
                a.value.value == 1 and isinstance(b, gast.Assign) and len(b.targets) == 1 and
                isinstance(b.targets[0], gast.Name) and isinstance(b.value, gast.Subscript)
                and isinstance(b.value.value, gast.Name) and
                isinstance(b.value.slice, gast.Name) and b.value.slice.id == a.target.id):
            return None
        v, top = b.targets[0].id, a.target.id
        return None if v in reads or any(_mentions(s, v) or _mentions(s, top)
                                         for s in later) else v

    def block(ss):
        out, k = [], 0
        while k < len(ss):
            if k + 1 < len(ss) and pop_of(ss[k], ss[k + 1]) is not None:
                k += 2
                continue
            s = ss[k]
            if isinstance(s, gast.If):
                s = copy.copy(s)
                s.body, s.orelse = block(s.body), block(s.orelse)
                if not s.body:
                    s.body = [gast.Pass()]
            out.append(s)
            k += 1
        return out
    return block(list(stmts))


def _top(fwd, floop):
    """The top-level statement of `fwd` that is or holds the loop `floop`."""
    return next(s for s in fwd.body if s is floop or any(n is floop for n in ir.walk(s)))


def _without_replays(primal, moved):
    """`moved` without the statements that assign again, the same way, what the forward
    loop's body `primal` has just assigned (at its top level, or in an `if` on the same
    test), nothing it reads or assigns being assigned after that in the body."""
    later = [set().union(set(), *(_stored_names(t) for t in primal[j + 1:]))
             for j in range(len(primal))]
    done = {}  # a statement's text -> where `primal` makes it
    for j, p in enumerate(primal):
        if isinstance(p, gast.Assign):
            done[gast.dump(p)] = j
        elif isinstance(p, gast.If):
            for t in p.body:
                if isinstance(t, gast.Assign):
                    done[(gast.dump(p.test), gast.dump(t))] = j

    def made(s, key):
        j = done.get(key)
        return j is not None and not ((_loaded_names(s) | _stored_names(s)) & later[j])

    out = []
    for s in moved:
        if isinstance(s, gast.Assign) and made(s, gast.dump(s)):
            continue
        if isinstance(s, gast.If) and not s.orelse and all(  # the test is read as well
                isinstance(t, gast.Assign) and made(gast.If(test=s.test, body=[t], orelse=[]),
                                                    (gast.dump(s.test), gast.dump(t)))
                for t in s.body):
            continue
        out.append(s)
    return out


def _reversed_range(loop):
    """(the trip count's name, the counter) of `for k in range(trip - 1, -1, -1)`."""
    it = loop.iter
    if not (isinstance(loop.target, gast.Name) and isinstance(it, gast.Call)
            and ir.dotted_text(it.func) == "range" and len(it.args) == 3):
        return None, None
    first = it.args[0]
    if isinstance(first, gast.BinOp) and isinstance(first.op, gast.Sub) and \
            isinstance(first.left, gast.Name) and isinstance(first.right, gast.Constant) and \
            first.right.value == 1 and _minus_one(it.args[1]) and _minus_one(it.args[2]):
        return first.left.id, loop.target.id
    return None, None


def _minus_one(node):
    return isinstance(node, gast.Constant) and node.value == -1 or \
        isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and \
        isinstance(node.operand, gast.Constant) and node.operand.value == 1


def _counter_recovery(s, counter):
    """`i = k`, `i = start + k`, `i = start + k * step`: the forward loop's counter."""
    return isinstance(s, gast.Assign) and len(s.targets) == 1 and \
        isinstance(s.targets[0], gast.Name) and \
        any(isinstance(n, gast.Name) and n.id == counter for n in ir.walk(s.value))


def _forward_loop(block, trip, target):
    """(the loop, its position) of the loop `for target in range(...)` in `block`, whose
    trip count `trip` a statement before it records, or None."""
    for j, s in enumerate(block):
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], gast.Name) and s.targets[0].id == trip and \
                isinstance(s.value, gast.Call) and ir.dotted_text(s.value.func) == "rt.range_len":
            for m in range(j + 1, len(block)):
                t = block[m]
                if isinstance(t, gast.For):
                    if isinstance(t.target, gast.Name) and t.target.id == target and \
                            _same_range(t.iter, s.value):
                        return t, m
                    return None
    return None


def _same_range(it, counted):
    """Whether `range(...)` runs as `rt.range_len(start, stop, step)` counts."""
    if not (isinstance(it, gast.Call) and ir.dotted_text(it.func) == "range"):
        return False
    args = list(it.args)
    args = [ir.const(0)] + args + [ir.const(1)] if len(args) == 1 else \
        args + [ir.const(1)] if len(args) == 2 else args
    return [gast.dump(a) for a in args] == [gast.dump(a) for a in counted.args]


def _read_first(stmts, name, assigned):
    """Whether a statement of `stmts` may read `name` before any assigns it (`assigned`:
    the names assigned on every way to them, updated as they go)."""
    for s in stmts:
        if isinstance(s, gast.If):
            if name in _loaded_names(s.test) and name not in assigned:
                return True
            branches = []
            for block in (s.body, s.orelse):
                seen = set(assigned)
                if _read_first(block, name, seen):
                    return True
                branches.append(seen)
            assigned |= branches[0] & branches[1]
            continue
        value = s.value if isinstance(s, (gast.Assign, gast.AugAssign)) else s
        reads = _loaded_names(value) | (
            _loaded_names(s.target) | _stored_names(s.target)
            if isinstance(s, gast.AugAssign) else set())
        if isinstance(s, gast.Assign):
            reads |= {n.id for t in s.targets for n in ir.walk(t)
                      if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
            reads |= {t.value.id for t in s.targets if isinstance(t, gast.Subscript)
                      and isinstance(t.value, gast.Name)}  # an element write keeps the rest
        if name in reads and name not in assigned:
            return True
        assigned |= _stored_names(s)
    return False


def _mentions(s, name):
    return s is not None and any(isinstance(n, gast.Name) and n.id == name
                                 for n in ir.walk(s))


def _zeroes(s, name):
    """`name = 0.0`."""
    return isinstance(s, gast.Assign) and len(s.targets) == 1 and \
        isinstance(s.targets[0], gast.Name) and s.targets[0].id == name and \
        isinstance(s.value, gast.Constant) and s.value.value == 0.0 and \
        not isinstance(s.value.value, bool)


def _stored_names(s):
    return {n.id for n in ir.walk(s) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _loaded_names(e):
    return {n.id for n in ir.walk(e) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _unpacked(unpack):
    return {n.id for n in ir.walk(unpack.targets[0]) if isinstance(n, gast.Name)}


def _written_names(s):
    """The arrays `s` writes elements of."""
    return {n.value.id for n in ir.walk(s) if isinstance(n, gast.Subscript)
            and isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name)}


def _renamed(s, seed, units):
    """`s` with the seed read as 1.0 and each accumulator's adjoint as its unit's."""
    for n in ir.walk(s):
        for field, value in gast.iter_fields(n):
            if isinstance(value, gast.Name) and value.id == seed:
                setattr(n, field, ir.const(1.0))
            elif isinstance(value, list):
                value[:] = [ir.const(1.0) if isinstance(v, gast.Name) and v.id == seed else v
                            for v in value]
        if isinstance(n, gast.Name) and n.id in units:
            n.id = units[n.id]
    return s

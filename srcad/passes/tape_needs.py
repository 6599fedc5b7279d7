"""TapeNeeds: which values the reverse sweep reads, and which of them must be saved."""
import gast

from srcad.passes import ir
from srcad.passes.activity import bound_args, names, statements, targets


def _straight(stmts):
    """Assignments to names and `if`s of them only."""
    for s in stmts:
        if isinstance(s, gast.If):
            if not (_straight(s.body) and _straight(s.orelse)):
                return False
        elif not isinstance(s, gast.Assign) or isinstance(s.targets[0], gast.Subscript):
            return False
    return True


def _assignments(stmts):
    """For each name, the most times one path through `stmts` assigns it."""
    out = {}
    for s in stmts:
        if isinstance(s, gast.If):
            a, b = _assignments(s.body), _assignments(s.orelse)
            for name in set(a) | set(b):
                out[name] = out.get(name, 0) + max(a.get(name, 0), b.get(name, 0))
        else:
            for name in targets(s):
                out[name] = out.get(name, 0) + 1
    return out


def _exposed(stmts, assigned=frozenset()):
    """Names read in `stmts` before any assignment to them (on some path)."""
    out, assigned = set(), set(assigned)
    for s in stmts:
        if isinstance(s, gast.If):
            out |= {n.id for n in ir.walk(s.test) if isinstance(n, gast.Name)} - assigned
            out |= _exposed(s.body, assigned) | _exposed(s.orelse, assigned)
            a, b = _assignments(s.body), _assignments(s.orelse)
            assigned |= set(a) & set(b)
        else:
            out |= {n.id for n in ir.walk(s.value) if isinstance(n, gast.Name)} - assigned
            assigned |= set(targets(s))
    return out


def _names_before(stmts, target):
    """Names read before the statement `target` in program order, or None when `target`
    lies inside a loop (where code after it also runs before it)."""
    out = set()
    for s in stmts:
        if s is target:
            return out
        if any(n is target for n in ir.walk(s)):
            if isinstance(s, (gast.For, gast.While)):
                return None
            out |= _loads(s.test)
            inner = _names_before(s.body if any(n is target for st in s.body
                                                for n in ir.walk(st)) else s.orelse, target)
            return None if inner is None else out | inner
        out |= _loads(s)
    return out


def _loads(node):
    return {n.id for n in ir.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)}


def _index_names(index):
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    out = []
    for p in parts:
        if isinstance(p, gast.Slice):
            out += names([b for b in (p.lower, p.upper, p.step) if b is not None])
        else:
            out += names([p])
    return out


class TapeNeeds:
    """Analysis: what the reverse sweep needs from the forward sweep.

    - `ctx.needed`: variables whose values the adjoints read (rule operands and results,
      indices, branch flags, loop bounds), plus active arrays (their shapes size the
      adjoints);
    - `ctx.pushed`: needed variables assigned more than once or inside a loop: their old
      value is saved before each assignment and restored when the reverse sweep passes it;
    - `ctx.elem_saved`: needed arrays written element by element: each overwritten element
      is saved and restored;
    - `ctx.fresh_defs`: first assignments at the top of the body, whose old value is dead;
    - `ctx.recompute[loop]`: scalar assignments at the top of a loop body computed from
      values the loop does not change (its index, loop invariants, each other). The reverse
      sweep recomputes them at the start of each iteration instead of saving them.
    """

    needs = ("active", "kinds", "flags", "loops", "no_push", "custom_calls", "user_functions",
             "calls")
    provides = ("needed", "pushed", "elem_saved", "fresh_defs", "loop_var_changed",
                "saved_loop_vars", "replay", "recompute")

    def __init__(self, ctx, params):
        self.ctx = ctx
        self.params = list(params)

    def run(self, fnode):
        ctx = self.ctx
        defs, in_loop, written, values = self.definitions(fnode)
        arrays = {v for v in ctx.active if ctx.kinds[v].is_array}
        all_defs = dict(defs)
        for s, _ in statements(fnode.body):
            if isinstance(s, gast.For):
                all_defs[s.target.id] = all_defs.get(s.target.id, 0) + 1
        ctx.recompute, recomputed, operands = self.recomputable(fnode, all_defs, written)
        ctx.needed = values | arrays | operands
        ctx.elem_saved = self.read_back(fnode, written & values)
        ctx.saved_loop_vars = self.saved_loop_vars(fnode, defs)
        ctx.loop_var_changed = {
            loop for loop, _ in statements(fnode.body)
            if isinstance(loop, gast.For) and loop.target.id in ctx.needed and any(
                isinstance(n, gast.Name) and n.id == loop.target.id and
                isinstance(n.ctx, gast.Store) for s in loop.body for n in ir.walk(s))}
        ctx.fresh_defs = self.fresh_defs(fnode)
        fresh_once = {s.targets[0].id for s in ctx.fresh_defs if defs.get(s.targets[0].id) == 1}

        def saved(needed):  # needed values assigned more than once, or in a loop
            return {v for v in needed if (defs.get(v, 0) > 1 or v in in_loop)
                    and v not in ctx.no_push and v not in recomputed} - fresh_once

        ctx.replay = self.replays(fnode, saved(ctx.needed))  # weighs what loops would save
        for carried, kept, reads in ctx.replay.values():
            ctx.needed |= reads  # the replay reads them: they must be in place in reverse
            ctx.elem_saved |= written & reads  # also when written after the loop
        for s, _ in statements(fnode.body):  # a saved element is put back where it was
            t = s.targets[0] if isinstance(s, gast.Assign) else None
            if isinstance(t, gast.Subscript) and t.value.id in ctx.elem_saved:
                ctx.needed |= set(_index_names(t.slice))
        ctx.pushed = saved(ctx.needed)
        return fnode

    def definitions(self, fnode):
        """(assignments per name, names assigned in a loop, arrays written element by
        element, values the reverse sweep reads: branch flags, trip counts, what the
        adjoints of active assignments read, and the indices of saved elements)."""
        ctx = self.ctx
        values = set(ctx.flags)
        for trip, start, step, _ in ctx.loops.values():
            values |= {v for v in (trip, start, step) if v and v.isidentifier()}
        written = set()
        defs, in_loop = {p: 1 for p in self.params}, set()
        for s, loops in statements(fnode.body):
            if not isinstance(s, gast.Assign):
                continue
            t = s.targets[0]
            if isinstance(t, gast.Subscript):
                written.add(t.value.id)
                if t.value.id in ctx.active:
                    values |= set(_index_names(t.slice))
                continue
            for name in targets(s):
                defs[name] = defs.get(name, 0) + 1
                if loops:
                    in_loop.add(name)
            if any(n in ctx.active for n in targets(s)):
                values |= self.reads(s, targets(s))
        for s, _ in statements(fnode.body):  # a saved element is put back where it was
            t = s.targets[0] if isinstance(s, gast.Assign) else None
            if isinstance(t, gast.Subscript) and t.value.id in values:
                values |= set(_index_names(t.slice))
        return defs, in_loop, written, values

    def read_back(self, fnode, arrays):
        """Those of `arrays` (written element by element, read by the reverse sweep) that
        the reverse sweep reads where a later write has changed them: read before a write
        in program order, or in a loop that also writes them, or read somewhere this
        does not see. Only their overwritten elements are saved and put back; the others
        are read as they are at the end.
        """
        ctx = self.ctx
        reads, writes = {}, {}
        for pos, (s, loops) in enumerate(statements(fnode.body)):
            if not isinstance(s, gast.Assign):
                continue
            t = s.targets[0]
            if isinstance(t, gast.Subscript):
                if t.value.id in arrays:
                    writes.setdefault(t.value.id, []).append((pos, set(loops)))
                got = set(_index_names(t.slice)) if t.value.id in ctx.active else set()
            elif any(n in ctx.active for n in targets(s)):
                got = self.reads(s, targets(s))
            else:
                continue
            for x in got & arrays:
                reads.setdefault(x, []).append((pos, set(loops)))
        return {x for x in arrays if x not in reads or any(
            r < w or r_loops & w_loops for r, r_loops in reads[x]
            for w, w_loops in writes.get(x, ()))}

    def replays(self, fnode, pushed):
        """Loops whose iterations the reverse sweep replays from the values they start
        with, instead of saving what each statement overwrites.

        Eligible: `for` loops whose body is straight-line code and `if`s (no inner loops,
        exits or element writes) assigning each name at most once on any path. Chosen
        when that saves the tape at least half its traffic: the statements the reverse
        sweep reads push (`pushed`: the values saved without replays) more than twice as
        many values per iteration as the loop carries. Returns {loop: (carried names,
        statements replayed, names they read from outside the body)}.
        """
        ctx = self.ctx
        plan = {}
        for loop, _ in statements(fnode.body):
            if not isinstance(loop, gast.For) or loop in ctx.loop_var_changed \
                    or not _straight(loop.body):
                continue
            counts = _assignments(loop.body)
            if any(n > 1 for n in counts.values()) or loop.target.id in counts:
                continue
            kept, wanted = self.replayed(loop.body)
            exposed = _exposed(loop.body)
            before = self.names_before(fnode.body, loop)
            if before is None:  # inside another loop: whatever runs around it
                inside = {id(n) for n in ir.walk(loop)}
                before = {n.id for n in ir.walk(fnode) if isinstance(n, gast.Name)
                          and id(n) not in inside}
            # carried: the values an iteration starts from, and those the code before the
            # loop needs back once the reverse sweep has replayed it
            carried = sorted(v for v in counts if v in wanted and v in exposed
                             or v in ctx.needed and v in before)
            pushes = sum(1 for s in ir.walk_no_loops(loop.body) if isinstance(s, gast.Assign)
                         for t in targets(s) if t in pushed)
            if pushes > 2 * len(carried):
                reads = {n.id for s in kept for n in ir.walk(s.value)
                         if isinstance(n, gast.Name)} | {loop.target.id}
                plan[loop] = (carried, kept, reads - set(counts))
        return plan

    def names_before(self, stmts, loop):
        """What the statements before `loop` read, their adjoints included (a result
        that its rule's adjoint reads, like tanh's); None inside another loop."""
        before = _names_before(stmts, loop)
        if before is None:
            return None
        for s, _ in statements(stmts):
            if s is loop:
                break
            if isinstance(s, gast.Assign) and not isinstance(s.targets[0], gast.Subscript):
                before |= self.reads(s, targets(s))
        return before

    def replayed(self, body):
        """The assignments (and the flags of the `if`s) in `body` whose values the body's
        adjoints read, directly or through each other, and the names they read."""
        kept, wanted = set(), set()
        for s in ir.walk_no_loops(body):
            if isinstance(s, gast.Assign) and any(t in self.ctx.active for t in targets(s)):
                wanted |= self.reads(s, targets(s))
                # an active array's adjoint is zeroed in its shape each iteration
                wanted |= {t for t in targets(s) if getattr(self.ctx.kinds.get(t), "ndim", 0)}
        for s in reversed(list(ir.walk_no_loops(body))):
            if isinstance(s, gast.If):
                wanted |= {n.id for n in ir.walk(s.test) if isinstance(n, gast.Name)}
                continue
            call = isinstance(s.value, gast.Call) and self.ctx.site(s.value).kind == "user" and \
                any(t in self.ctx.active for t in targets(s))  # its tape is needed
            if call or any(t in wanted for t in targets(s)):
                kept.add(s)
                wanted |= {n.id for n in ir.walk(s.value) if isinstance(n, gast.Name)}
        return [s for s in ir.walk_no_loops(body) if s in kept], wanted

    def reads(self, s, outs):
        op = s.value
        if isinstance(op, gast.Subscript):
            return set(_index_names(op.slice))
        if isinstance(op, gast.Call) and self.ctx.site(op).kind == "user":
            return set(names(op.args))
        if isinstance(op, gast.Call) and self.ctx.site(op).kind == "custom":
            return set(names(op.args)) | set(outs)
        rule, bound = bound_args(op, self.ctx)
        if rule is None:
            return set()
        out = set()
        active = [p for p in rule.diff if any(
            n in self.ctx.active for n in names([bound[p]] if bound.get(p) is not None else []))]
        reads = set().union(*(rule.reads_by.get(p, rule.reads) for p in active)) \
            if rule.reads_by else rule.reads
        for p in reads:
            if p == rule.params[0]:
                out |= set(outs)
            elif bound.get(p) is not None:
                out |= set(names([bound[p]]))
        for p in rule.diff:  # sequences (concatenate, stack): element shapes are read
            if isinstance(bound.get(p), (gast.Tuple, gast.List)):
                out |= set(names([bound[p]]))
        return out

    def recomputable(self, fnode, defs, written):
        """Per loop, the top-level scalar assignments the reverse sweep can redo.

        Returns ({loop: [statements]}, names recomputed, names their operands read).
        """
        ctx = self.ctx
        plan, recomputed, operands = {}, set(), set()
        for loop, _ in statements(fnode.body):
            if not isinstance(loop, (gast.For, gast.While)):
                continue
            changed = {n.id for n in ir.walk(loop)
                       if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
            inner = {n.id for s in loop.body for n in ir.walk(s)
                     if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
            stable = set() if isinstance(loop, gast.While) or loop.target.id in inner \
                else {loop.target.id}
            chosen = []
            for s in loop.body:
                if not isinstance(s, gast.Assign) or not isinstance(s.targets[0], gast.Name):
                    continue
                t = s.targets[0].id
                kind = ctx.kinds.get(t)
                view = isinstance(s.value, gast.Subscript) and getattr(kind, "is_array", False) \
                    and not any(isinstance(n, gast.Name) and ctx.kinds[n.id].is_array
                                for n in ir.walk(s.value.slice))
                scalar = getattr(kind, "ndim", 1) == 0
                if defs.get(t) != 1 or not (scalar or view) or t in ctx.no_push \
                        or not self.pure(s.value, written):
                    continue
                reads = {n.id for n in ir.walk(s.value) if isinstance(n, gast.Name)}
                if all(r in stable or r not in changed for r in reads):
                    chosen.append(s)
                    stable.add(t)
            if chosen:
                plan[loop] = chosen
                names_ = {s.targets[0].id for s in chosen}
                recomputed |= names_
                operands |= {n.id for s in chosen for n in ir.walk(s.value)
                             if isinstance(n, gast.Name)} - names_
        return plan, recomputed, operands

    def pure(self, op, written):
        """A cheap operation without side effects whose inputs are all still in place: a
        call only of numbers (`math.exp(t)`; not `np.prod(box[:, j])`, whose value the tape
        keeps for what recomputing it would cost, a pass over the array)."""
        if isinstance(op, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Constant, gast.Name)):
            return True
        if isinstance(op, gast.Attribute):
            return True
        if isinstance(op, gast.Subscript):
            return op.value.id not in written
        if isinstance(op, gast.Call):  # of numbers: a reduction of an array costs its size
            return self.ctx.site(op).kind == "rule" and not any(
                isinstance(a, gast.Name) and (a.id in written or self.ctx.kinds[a.id].is_array)
                for a in op.args)
        return False

    def saved_loop_vars(self, fnode, defs):
        """`for i in ...` loops whose `i` the reverse sweep must put back after replaying
        them: `i` is needed and also set elsewhere, or read outside the loop."""
        loops = [s for s, _ in statements(fnode.body) if isinstance(s, gast.For)]
        saved = set()
        for loop in loops:
            i = loop.target.id
            if i not in self.ctx.needed:
                continue
            inside = {id(n) for n in ir.walk(loop)}
            outside_read = any(isinstance(n, gast.Name) and n.id == i and id(n) not in inside
                               for n in ir.walk(fnode))
            headers = sum(1 for other in loops if other.target.id == i)
            if outside_read or headers > 1 or defs.get(i, 0):
                saved.add(loop)
        return saved

    def fresh_defs(self, fnode):
        """Top-level assignments that are a name's first mention in the body."""
        seen, fresh = set(self.params), set()
        for s in fnode.body:
            mentioned = {n.id for n in ir.walk(s) if isinstance(n, gast.Name)}
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
                name = s.targets[0].id
                reads = {n.id for n in ir.walk(s.value) if isinstance(n, gast.Name)}
                if name not in seen and name not in reads:
                    fresh.add(s)
            seen |= mentioned
        return fresh

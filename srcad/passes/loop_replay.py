"""LoopReplay: loops in the reverse sweep, run backwards or replayed.

A `for` loop's adjoint runs its iterations in reverse order over the saved trip count. A
loop whose iterations would save more than their carried state (`ctx.replay`) is replayed
instead: each reverse iteration recomputes its forward iteration from the state it
started with, then runs its adjoint.
"""
import copy

import gast

from codegen.templates import statements
from srcad.passes import ir


def _stmts(text):
    return statements(text)


def _affine(start, k, step):
    """Source of `start + k * step`, without the `0 +` and `* 1`."""
    term = k if step == "1" else f"{k} * {step}"
    return term if start == "0" else f"{start} + {term}"


class LoopReplay:
    """Part of `ReverseAD` (a mixin): see the module."""

    def reverse_loop(self, s):
        self.last_line = None
        replayed = self.replay(s) if s in self.ctx.replay else None  # names the tapes first
        redo = [copy.deepcopy(r) for r in self.ctx.recompute.get(s, [])
                if self.recompute_needed(r, s) and s not in self.ctx.replay]
        for r in list(redo):
            t = r.targets[0].id
            if t in self.ctx.active and self.ctx.kinds[t].ndim:
                redo += self.zero_adjoint(r, t)
        body = self.reverse(s.body)  # after the zeroing above: it decides which reads flush
        self.last_line = None
        if not body:
            return []
        trip, start, step, _ = self.ctx.loops[s]
        k = self.namer.fresh("k")
        body = (redo if replayed is None else replayed) + body
        if isinstance(s, gast.For):
            i = s.target.id
            rng = f"range({trip} - 1, -1, -1)"
            if s in self.ctx.loop_var_changed:
                body = self.pop(self.stacks[i], i) + body
            else:
                body = _stmts(f"{i} = {_affine(start, k, step)}") + body
        else:
            rng = f"range({trip})"
        loop = gast.For(target=ir.name(k, store=True), iter=_stmts(rng)[0].value, body=body,
                        orelse=[], type_comment=None)
        return [self.grad_of(s), loop]

    def recompute_needed(self, stmt, loop):
        """Whether a recomputable statement's value is read by the reverse sweep, directly
        or through a later recomputed statement."""
        plan = self.ctx.recompute[loop]
        wanted = set(self.ctx.needed)
        for later in reversed(plan):
            if later.targets[0].id in wanted:
                wanted |= {n.id for n in ir.walk(later.value) if isinstance(n, gast.Name)}
        return stmt.targets[0].id in wanted

    def replay(self, loop):
        """The start of a replayed loop's reverse iteration: the carried values put back
        as the iteration began, and the body's statements that the reverse sweep reads
        computed again (calls keeping their tapes)."""
        carried, kept, _ = self.ctx.replay[loop]
        out = []
        for v in carried:
            start = self.starts[loop, v]
            out += self.pop(self.replay_stack(loop, v), start) + _stmts(f"{v} = {start}")
        return out + self.replay_block(loop.body, set(kept), set(carried))

    def replay_block(self, stmts, kept, carried):
        out = []
        for s in stmts:
            if isinstance(s, gast.If):
                body = self.replay_block(s.body, kept, carried)
                orelse = self.replay_block(s.orelse, kept, carried)
                if body or orelse:
                    out.append(ir.if_(s.test, body or [gast.Pass()], orelse, like=s))
                continue
            if s not in kept:
                continue
            call = self.user_call(s)
            if call is not None:
                spec, active = call
                tape = "_"
                if active and not spec.tape_empty:
                    tape = self.replay_tapes[s] = self.namer.fresh("tape_" + spec.name)
                fwd = gast.Call(func=ir.name(spec.fwd_name), args=s.value.args, keywords=[])
                lhs = gast.Tuple(elts=[copy.deepcopy(s.targets[0]), ir.name(tape, store=True)],
                                 ctx=gast.Store())
                out.append(ir.assign(lhs, fwd, like=s))
            elif s in self.ctx.materialize:
                copied = gast.Call(func=gast.Attribute(value=copy.deepcopy(s.value), attr="copy",
                                                       ctx=gast.Load()), args=[], keywords=[])
                out.append(ir.assign(copy.deepcopy(s.targets[0]), copied, like=s))
            else:
                out.append(copy.deepcopy(s))
            for t in self.targets(s):  # this iteration's array adjoints, in its shapes
                if t in self.ctx.active and self.ctx.kinds[t].ndim and t not in carried:
                    out += self.zero_adjoint(s, t)
        return out

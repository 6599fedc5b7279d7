"""ReverseAD: the forward sweep (primal + tape) and the reverse sweep (adjoints)."""
import copy

import gast

from codegen import comment
from codegen.templates import statements
from srcad.kinds import NUMPY_TYPES, dummy
from srcad.passes import ir
from srcad.passes.adjoints import Adjoints
from srcad.passes.call_adjoints import CallAdjoints
from srcad.passes.loop_replay import LoopReplay
from srcad.passes.spell_masks import SpellMasks, mask_of
from srcad.passes.tape_copies import copied_views
from srcad.passes.tape_layout import TapeLayout
from srcad.rules import registry


def _is_exit(stmt):
    return isinstance(stmt, gast.If) and len(stmt.body) == 1 and \
        isinstance(stmt.body[0], gast.Break)


def _stmts(text):
    return statements(text)


def _zeroed(adjoint, like=None):
    """`adjoint = 0.0`, or `adjoint = np.zeros_like(like)` (built, not parsed: a long
    function has thousands)."""
    value = ir.const(0.0) if like is None else ir.call("np.zeros_like", ir.name(like))
    return [ir.assign(adjoint, value)]


class ReverseAD(TapeLayout, LoopReplay, CallAdjoints):
    """Transformation: from the normalized, analysed function, two functions.

    `<f>_fwd(args) -> (out, tape)` runs the primal and saves what `ctx.pushed`,
    `ctx.elem_saved` and the callee tapes say; `<f>_rev(args, tape, d_out)` walks the
    statements backwards, restoring saved values as it passes their assignments, and
    returns the adjoints of the `wrt` parameters as a tuple. Every adjoint block carries a
    `# grad of:` comment with the user's line.
    """

    needs = ("active", "varied", "kinds", "item_kinds", "written", "materialize", "loops",
             "needed", "pushed", "elem_saved", "fresh_defs", "loop_var_changed",
             "saved_loop_vars", "replay", "recompute", "return_values", "user_functions",
             "custom_calls", "calls", "augmented")
    provides = ("tape_slots", "stacked", "view_adjoints", "view_reads", "shaped_terms")

    def __init__(self, ctx, params, wrt, fwd_name, rev_name):
        self.ctx = ctx
        self.params = params
        self.wrt = wrt
        self.fwd_name, self.rev_name = fwd_name, rev_name
        self.adj = Adjoints(ctx)
        self.stacks = {}
        self.callee_stacks = {}
        self.tape_calls = {}
        self.recomputed_calls = set()
        self.replay_of = {}  # statement in a replayed loop's body -> the loop
        self.replay_tapes = {}  # a call replayed in the reverse sweep -> its tape's name
        self.starts = {}  # (loop, carried name) -> the name holding its value at iteration start
        self._stores = None
        self._assigned = self._views = None  # `assigned()` and `may_be_views()`, found once
        ctx.view_adjoints = set()
        ctx.view_reads = set()
        ctx.shaped_terms = set()
        self.namer = ctx.namer

    # tape slots

    # forward sweep

    def forward(self, stmts, depth=0):
        out = []
        for s in stmts:
            self.ctx.current = s
            if isinstance(s, gast.Assign):
                out += self.forward_assign(s, depth)
            elif isinstance(s, gast.If):
                body, orelse = self.forward(s.body, depth), self.forward(s.orelse, depth)
                test = s.test
                if any(st in self.callee_stacks for st in ir.walk(s)):
                    # Numba would drop a branch it finds constant, and with it the only
                    # append that types the list of the callee's tapes
                    test = ir.call("rt.unpruned", test)
                out.append(ir.if_(test, body or [gast.Pass()], orelse, like=s))
            elif isinstance(s, gast.For):
                out += self.forward_for(s, depth)
            elif isinstance(s, gast.While):
                body = self.forward(s.body, depth + 1)
                loop = gast.While(test=ir.const(True), orelse=[],
                                  body=self.reserves(s.body, "") + body or [gast.Pass()])
                out.append(gast.copy_location(loop, s))
            elif isinstance(s, gast.Break):
                out.append(s)
            elif isinstance(s, gast.Return):
                self.result = s.value
        return out

    def forward_for(self, s, depth):
        """The forward sweep of a `for` loop: its body's pushes, the tape space reserved
        for its trips, and the loop variable saved where the reverse sweep needs it."""
        out = []
        if s in self.ctx.saved_loop_vars:
            i = s.target.id
            out += self.push(self.stack(i, self.ctx.kinds[i]), i)
        body = self.forward(s.body, depth + 1)
        if s in self.ctx.replay:
            body = [st for v in self.ctx.replay[s][0]
                    for st in self.push(self.replay_stack(s, v), self.kept(v))] + body
        bound = self.ctx.loops[s][3]
        reserve = self.reserves(s.body, f"{bound} * ", s)
        if s in self.ctx.loop_var_changed:  # save i as each iteration leaves it
            i = s.target.id
            end = len(body) - 1 if body and _is_exit(body[-1]) else len(body)
            body[end:end] = self.push(self.stack(i, self.ctx.kinds[i]), i)
        loop = gast.For(target=s.target, iter=s.iter, body=body or [gast.Pass()], orelse=[],
                        type_comment=None)
        return out + reserve + [gast.copy_location(loop, s)]

    def kept(self, v):
        """How the tape keeps `v`: a view whose array may change before the reverse sweep
        reads it (an argument's, which the caller may write into later, say) is copied
        (see `copied_views`)."""
        return f"{v}.copy()" if v in self.copied and self.ctx.kinds[v].ndim else v

    def forward_assign(self, s, depth):
        out = []
        for t in self.value_push(s):
            out += self.push(self.stack(t, self.ctx.kinds[t]), self.kept(t))
        target = s.targets[0]
        if isinstance(target, gast.Subscript) and target.value.id in self.ctx.elem_saved:
            # at the user's line: reading the element is where a bad index fails first
            out += [gast.copy_location(st, s) for st in
                    self.push(self.elem_stack(s), self.item_source(target, s))]
        call = self.user_call(s)
        if call is None and s in self.ctx.materialize:  # a view of an array written later
            copied = gast.Call(func=gast.Attribute(value=s.value, attr="copy", ctx=gast.Load()),
                               args=[], keywords=[])
            return out + [ir.assign(target, copied, like=s)]
        if call is None:
            return out + [s]
        spec, active = call
        keep = active and not spec.tape_empty
        if keep and s in self.replay_of:
            keep = False  # the replay in the reverse sweep makes the tape again
        if keep and (depth or s not in self.top_level) and spec.recomputable:
            self.recomputed_calls.add(s)  # the reverse sweep calls the forward sweep again
            keep = False
        tape = self.namer.fresh("tape_" + spec.name) if keep else "_"
        fwd = gast.Call(func=ir.name(spec.fwd_name), args=s.value.args, keywords=[])
        lhs = gast.Tuple(elts=[target, ir.name(tape, store=True)], ctx=gast.Store())
        out.append(ir.assign(lhs, fwd, like=s))
        if keep:
            self.tape_calls[s] = tape
            if depth or s not in self.top_level:
                st = self.stack(tape, None, key=s)
                self.callee_stacks[s] = st
                out += self.push(st, tape)
        return out

    def item_source(self, target, s):
        from codegen import to_source
        text = to_source(gast.Expr(value=gast.Subscript(
            value=target.value, slice=target.slice, ctx=gast.Load()))).strip()
        view = self.ctx.item_kinds[s].ndim and not mask_of(target.slice, self.ctx.kinds)
        return text + ".copy()" if view else text

    # reverse sweep

    def grad_of(self, s):
        """The comment that opens the adjoint block of user statement `s`."""
        return comment("grad of: " + self.ctx.fsrc.text(s), like=s)

    def reverse(self, stmts):
        out, after_loop = [], []
        for s in reversed(stmts):
            self.ctx.current = s
            if isinstance(s, gast.Assign) and self.targets(s) and \
                    self.targets(s)[0] in self.counted_trips:
                # `trip = count` follows its loop: restore it only once the loop is replayed
                after_loop = self.reverse_assign(s)
            elif isinstance(s, gast.Assign):
                block = self.reverse_assign(s)
                if block:
                    out += self.commented(s, block)
            elif isinstance(s, gast.If):
                body, orelse = self.reverse(s.body), self.reverse(s.orelse)
                if body or orelse:
                    out.append(ir.if_(s.test, body or [gast.Pass()], orelse))
            elif isinstance(s, (gast.For, gast.While)):
                out += self.reverse_loop(s) + after_loop
                after_loop = []
                if s in self.ctx.saved_loop_vars:
                    out += self.pop(self.stacks[s.target.id], s.target.id)
        return out

    def commented(self, s, block):
        line = self.ctx.fsrc.line(s)
        if line == self.last_line:
            return block
        self.last_line = line
        return [self.grad_of(s)] + block

    def reverse_assign(self, s):
        target = s.targets[0]
        if isinstance(target, gast.Subscript):
            x = target.value.id
            out = self.adj.write(s, self.ctx.item_kinds[s]) if x in self.ctx.active else []
            if x in self.ctx.elem_saved:
                st = self.elem_stack(s)
                piece = copy.deepcopy(target)
                from codegen import to_source
                lhs = to_source(ir.assign(piece, ir.name(st.buf))).split(" = ")[0]
                out += self.pop(st, lhs)
            return out
        out = []
        outs = self.targets(s)
        active = [t for t in outs if t in self.ctx.active]
        call = self.user_call(s)
        if call is not None:
            out += self.reverse_call(s, call, outs)
        elif active and self.custom_call(s):
            out += self.reverse_custom(s)
        elif active:
            out += self.adj.assign(s)
        for t in active:
            if not self.ctx.kinds[t].ndim and s not in self.ctx.fresh_defs:
                out += _zeroed(self.ctx.d(t))
        for t in self.value_push(s):
            out += self.pop(self.stacks[t], t, copy_array=t in self.ctx.elem_saved)
            if t in self.ctx.active and self.ctx.kinds[t].ndim:
                out += _zeroed(self.ctx.d(t), t)
        loop = self.replay_of.get(s)
        for t in outs if loop is not None else ():
            if (loop, t) not in self.starts:
                continue
            out += _stmts(f"{t} = {self.starts[loop, t]}")
            if t in self.ctx.active and self.ctx.kinds[t].ndim:
                out += _zeroed(self.ctx.d(t), t)
        return out

    # loops replayed in the reverse sweep

    def zero_adjoint(self, s, t):
        """A new iteration's adjoint of the array `t` that `s` assigns: zeros in its shape, or, for
        a view `t = x[index]` of an argument whose adjoint only ever adds up, that view of
        `d_x` itself. Then what `d_t` gathers lands in `d_x` directly, and the read's own
        adjoint (`d_x[index] += d_t`) is left out (`ctx.view_adjoints`)."""
        if self.adjoint_view(s):
            self.ctx.view_adjoints.add(t)
            x = s.value.value.id
            piece = gast.Subscript(value=ir.name(self.ctx.d(x)), slice=copy.deepcopy(s.value.slice),
                                   ctx=gast.Load())
            return [ir.assign(self.ctx.d(t), piece)]
        return _zeroed(self.ctx.d(t), t)

    def adjoint_view(self, s):
        """Whether `s` is `t = x[index]`, a basic-indexing view of an argument `x` that is
        never assigned or written (so `d_x` is only added to), with `t` assigned once and
        never written, and `index` of names assigned at most once (the same values when the
        reverse iteration starts as when `s` ran)."""
        ctx = self.ctx
        if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
                and isinstance(s.value, gast.Subscript) and isinstance(s.value.value, gast.Name)):
            return False
        t, x = s.targets[0].id, s.value.value.id
        stores = self.store_counts()
        index_names = [n.id for n in gast.walk(s.value.slice) if isinstance(n, gast.Name)]
        return (x in self.params and x in ctx.active and x not in ctx.written
                and stores.get(x, 0) == 0 and ctx.kinds[x].is_array
                and t not in ctx.written and stores.get(t, 0) == 1
                and s not in ctx.materialize and not self.adj.fancy(s.value.slice)
                and all(stores.get(n, 0) <= 1 and not ctx.kinds[n].is_array
                        for n in index_names))

    # calls to the user's functions

    # the two functions

    def run(self, fnode):
        body = fnode.body
        if not body or not isinstance(body[-1], gast.Return):
            raise self.ctx.fsrc.error("the function must end by returning its value",
                                      fnode, "add a `return`")
        self.top_level = set(body)
        self.views = self.may_be_views()
        self.copied = copied_views(self.ctx.fnode.body, self.views, self.params,
                                   self.ctx.kinds, self.ctx.augmented)
        for loop, (carried, _, _) in self.ctx.replay.items():
            self.replay_of.update({st: loop for st in ir.walk_no_loops(loop.body)
                                   if isinstance(st, gast.Assign)})
            self.starts.update({(loop, v): self.namer.fresh("start_" + v, numbered=False)
                                for v in carried})
        self.mixed = self.mixed_levels(body)
        self.counted_trips = {trip for trip, _, _, bound in self.ctx.loops.values()
                              if trip != bound}
        self.last_line = None
        fwd_body = self.forward(body)
        self.ctx.stacked = bool(self.stacks)
        self.last_line = None
        rev_body = self.reverse(body[:-1])
        spell = SpellMasks(self.ctx.kinds)
        return spell.run(self.build_fwd(fnode, fwd_body)), \
            spell.run(self.build_rev(fnode, rev_body))

    def assigned(self):
        """Names the body assigns; loop variables only where read outside their loop
        (inside it, the reverse sweep recomputes them from the iteration number)."""
        if self._assigned is not None:
            return self._assigned
        names_, loop_vars, inside = set(), set(), set()
        every = ir.walk(gast.Module(body=self.ctx.fnode.body, type_ignores=[]))
        for node in every:
            if isinstance(node, gast.For):
                loop_vars.add(node.target.id)
                inside |= {id(n) for n in ir.names(node)}
            elif isinstance(node, gast.Assign):
                names_ |= {n.id for t in node.targets for n in ir.names(t)
                           if isinstance(n.ctx, gast.Store)}
        for node in every:
            if isinstance(node, gast.Name) and node.id in loop_vars and id(node) not in inside:
                names_.add(node.id)
        self._assigned = names_ | {loop.target.id for loop in self.ctx.saved_loop_vars}
        return self._assigned

    def final_values(self):
        assigned = self.assigned() | self.ctx.written
        local = self.iteration_locals()
        return sorted(v for v in self.ctx.needed if v in assigned and v not in local)

    def iteration_locals(self):
        """Names that only a replayed or recomputed loop body assigns and reads: the reverse
        sweep computes them again in each iteration, so their last values are not saved
        (keeping them live out of the loop also slows the forward sweep down)."""
        per_loop = {}
        for st, loop in self.replay_of.items():
            per_loop.setdefault(loop, set()).update(self.targets(st))
        for loop, plan in self.ctx.recompute.items():
            per_loop.setdefault(loop, set()).update(st.targets[0].id for st in plan)
        out = set()
        if not per_loop:
            return out
        every = {}  # name -> how often the function mentions it
        for n in ir.names(gast.Module(body=self.ctx.fnode.body, type_ignores=[])):
            every[n.id] = every.get(n.id, 0) + 1
        for loop, names_ in per_loop.items():
            inside = {}
            for n in ir.names(loop):
                inside[n.id] = inside.get(n.id, 0) + 1
            outside = {v for v, count in every.items() if count > inside.get(v, 0)}
            out |= names_ - outside - set(self.params)
        return out

    def build_fwd(self, fnode, body):
        ctx = self.ctx
        pre = []
        for p in self.params:
            if p in ctx.written and ctx.kinds[p].is_array:
                pre += _stmts(f"{p} = {p}.copy()")
        fresh = {s.targets[0].id for s in ctx.fresh_defs}
        params = set(self.params)
        views = self.may_be_views()
        assigned = self.assigned()
        for v in sorted(ctx.needed - params - fresh):
            if v in assigned:
                pre += _stmts(f"{v} = {dummy(ctx.kinds[v], view=v in views)}")
        pre += _return_placeholders(ctx, views)
        top_counts = self.reserves_top(fnode.body)
        for st in self.stacks.values():
            if st.is_list and st.kind is not None:
                # a placeholder first, so Numba can type the list even where every push
                # is in a branch it prunes; the reverse sweep never pops it
                key = next(k for k, v in self.stacks.items() if v is st)
                view = isinstance(key, str) and key in views
                pre += _stmts(f"{st.buf} = List()\n{st.buf}.append({dummy(st.kind, view=view)})")
            elif st.is_list:
                pre += _stmts(f"{st.buf} = List()")
            else:
                dtype = NUMPY_TYPES[st.kind.dtype]
                size = top_counts.get(st.buf, 0) + 1
                pre += _stmts(f"{st.buf} = np.empty({size}, dtype={dtype})\n{st.top} = 0")
        slots = self.tape_layout()
        from codegen import to_source
        result = to_source(gast.Expr(value=self.result)).strip()
        if isinstance(self.result, gast.Tuple) and not result.startswith("("):
            result = f"({result})"
        # a view of an array argument, kept for the reverse sweep, is copied: the caller
        # may write into that array after the call
        finals = set(self.final_values())
        saved = [self.kept(v) if v in finals else v for v in slots]
        tape = "(" + ", ".join(saved) + ("," if len(saved) == 1 else "") + ")"
        ret = _stmts(f"return {result}, {tape}")
        return self.function(self.fwd_name, self.params, pre + body + ret)

    def may_be_views(self):
        """Variables assigned a slice, a transpose or a reshape of another array (a
        boolean mask's selection is a new array)."""
        if self._views is not None:
            return set(self._views)
        out, kinds = set(), self.ctx.kinds
        for node in ir.walk(gast.Module(body=self.ctx.fnode.body, type_ignores=[])):
            if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name):
                v = node.value
                sliced = isinstance(v, gast.Subscript) and not mask_of(v.slice, kinds) and (
                    any(isinstance(p, gast.Slice) for p in ir.walk(v.slice))
                    or getattr(kinds.get(node.targets[0].id), "ndim", 0) > 0)
                viewed = isinstance(v, gast.Call) and registry.is_view(ir.dotted_text(v.func))
                if sliced or viewed or isinstance(v, gast.Name):
                    out.add(node.targets[0].id)
        self._views = out
        return set(out)

    def build_rev(self, fnode, body):
        ctx = self.ctx
        slots = self.tape_layout()
        pre = []
        if slots:
            pre += _stmts("(" + ", ".join(slots) + f",) = {ctx.tape_param}")
        for st in self.stacks.values():
            if st.is_list:
                pre += _stmts(f"{st.top} = len({st.buf})")
        for v in sorted(ctx.elem_saved):
            if ctx.kinds[v].is_array:
                pre += _stmts(f"{v} = {v}.copy()")
        local = self.iteration_locals()  # their array adjoints are zeroed per iteration
        for v in sorted(ctx.active | set(self.wrt)):
            if ctx.kinds[v].ndim and v in local:
                continue
            pre += _zeroed(ctx.d(v), v if ctx.kinds[v].ndim else None)
        result = self.result
        outs = result.elts if isinstance(result, gast.Tuple) else [result]
        seeds = [ctx.seed] if not isinstance(result, gast.Tuple) else \
            [f"{ctx.seed}[{k}]" for k in range(len(outs))]
        for atom, seed in zip(outs, seeds):
            if isinstance(atom, gast.Name) and atom.id in ctx.active:
                pre += _stmts(f"{self.ctx.d(atom.id)} += {seed}")
        ret = _stmts("return (" + "".join(f"{self.ctx.d(v)}, " for v in self.wrt) + ")")
        return self.function(self.rev_name, self.params + [ctx.tape_param, ctx.seed],
                             pre + body + ret)

    @staticmethod
    def function(name, params, body):
        args = gast.arguments(args=[ir.name(p, store=False) for p in params], posonlyargs=[],
                              vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                              defaults=[])
        for a in args.args:
            a.ctx = gast.Param()
        return gast.FunctionDef(name=name, args=args, body=body or [gast.Pass()],
                                decorator_list=[], returns=None, type_comment=None,
                                type_params=[])


def _return_placeholders(ctx, views=()):
    """`retval = <placeholder>` for the values SplitReturns collects: Numba prunes a branch
    whose test it finds constant, and a value set only there would be undefined."""
    return [s for v in ctx.return_values if v in ctx.kinds
            for s in _stmts(f"{v} = {dummy(ctx.kinds[v], view=v in views)}")]

"""ReverseAD: the forward sweep (primal + tape) and the reverse sweep (adjoints)."""
import copy

import gast

from codegen import comment
from codegen.templates import statements
from srcad.errors import NoRuleError
from srcad.kinds import dummy
from srcad.passes import ir
from srcad.passes.adjoints import Adjoints
from srcad.rules import registry


class Stack:
    """A tape slot saving a variable's successive values: an array for scalars, a list
    for arrays and callee tapes."""

    def __init__(self, buf, top, kind, is_list):
        self.buf, self.top, self.kind, self.is_list = buf, top, kind, is_list
        self.checked = False  # grown at each push (pushed at several loop levels)


def _is_exit(stmt):
    return isinstance(stmt, gast.If) and len(stmt.body) == 1 and \
        isinstance(stmt.body[0], gast.Break)


def _affine(start, k, step):
    """Source of `start + k * step`, without the `0 +` and `* 1`."""
    term = k if step == "1" else f"{k} * {step}"
    return term if start == "0" else f"{start} + {term}"


def _stmts(text):
    return statements(text)


# helpers whose result is a new array shaped like their argument at this position
_FRESH_LIKE = {"rt.matmul_dx": 1, "rt.matmul_dy": 2}
# ... and those that may return their first argument itself (copied, unless that argument
# is itself a new array: arithmetic, a selection)
_SHAPED_LIKE = {"rt.unbroadcast": 1}


def _first_assignments(stmts):
    """`d = np.zeros_like(v)` whose first use, in this straight-line list, is
    `d += <an array shaped like v>` becomes one assignment: no zero fill, one pass less
    over the array. Inside loops and branches nothing changes."""
    out, inits = list(stmts), {}
    for k, s in enumerate(out):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
                and isinstance(s.value, gast.Call) \
                and ir.dotted_text(s.value.func) == "np.zeros_like" \
                and isinstance(s.value.args[0], gast.Name):
            inits[s.targets[0].id] = (k, s.value.args[0].id)
            continue
        for d in sorted({n.id for n in gast.walk(s) if isinstance(n, gast.Name)} & set(inits)):
            k0, v = inits.pop(d)
            value = _shaped_value(s, d, v)
            if value is not None:
                out[k0], out[k] = None, ir.assign(d, value, like=s)
    return [s for s in out if s is not None]


# helpers that also come in a form adding into their first argument, in place
_IN_PLACE = {"rt.prod_adjoint": "rt.prod_adjoint_add"}


def _in_place(stmts, arrays):
    """`d += f(...)` for an array adjoint `d` (in `arrays`) and f in `_IN_PLACE` becomes
    `f_add(d, ...)`: no new array for the term. In nested blocks too."""
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            if isinstance(s, (gast.If, gast.For, gast.While)):
                setattr(s, field, _in_place(getattr(s, field), arrays))
        if isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) \
                and isinstance(s.target, gast.Name) and s.target.id in arrays \
                and isinstance(s.value, gast.Call) and not s.value.keywords \
                and ir.dotted_text(s.value.func) in _IN_PLACE:
            call = ir.call(_IN_PLACE[ir.dotted_text(s.value.func)], ir.name(s.target.id),
                           *s.value.args)
            s = gast.copy_location(gast.Expr(value=call), s)
        out.append(s)
    return out


def _shaped_value(s, d, v):
    """The value `s` adds to `d` when `s` is `d += f(...)` with f's result a fresh array
    shaped like `v` (or a copy of one), else None."""
    if not (isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add)
            and isinstance(s.target, gast.Name) and s.target.id == d
            and isinstance(s.value, gast.Call)):
        return None
    e = s.value
    if any(isinstance(n, gast.Name) and n.id == d for n in gast.walk(e)):
        return None
    text = ir.dotted_text(e.func)
    pos = _FRESH_LIKE.get(text, _SHAPED_LIKE.get(text))
    if pos is None or len(e.args) <= pos or not isinstance(e.args[pos], gast.Name) \
            or e.args[pos].id != v:
        return None
    g = e.args[0]
    fresh = isinstance(g, (gast.BinOp, gast.UnaryOp)) or (
        isinstance(g, gast.Call) and ir.dotted_text(g.func) == "rt.select")
    if text in _SHAPED_LIKE and not fresh:  # g itself may come back: copy it
        return gast.Call(func=gast.Attribute(value=e, attr="copy", ctx=gast.Load()),
                         args=[], keywords=[])
    return e


class ReverseAD:
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
             "custom_calls")
    provides = ("tape_slots", "stacked", "view_adjoints")

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
        ctx.view_adjoints = set()
        self.namer = ctx.namer

    # tape slots

    def stack(self, var, kind, key=None):
        key = key or var
        if key not in self.stacks:
            stem = "saved_" + var if key != var else "tape_" + var
            buf = self.namer.fresh(stem, numbered=False)
            top = self.namer.fresh("top_" + buf[5:] if buf.startswith("tape_") else "top_" + buf,
                                   numbered=False)
            is_list = kind is None or getattr(kind, "ndim", 1) > 0 or not hasattr(kind, "dtype")
            self.stacks[key] = Stack(buf, top, kind, is_list)
            self.stacks[key].checked = key in getattr(self, "mixed", ())
        return self.stacks[key]

    def push(self, st, value):
        if st.is_list:
            return _stmts(f"{st.buf}.append({value})")
        grow = f"{st.buf} = rt.reserve({st.buf}, {st.top} + 1)\n" if st.checked else ""
        return _stmts(f"{grow}{st.buf}[{st.top}] = {value}\n{st.top} += 1")

    def pop(self, st, target, copy_array=False):
        suffix = ".copy()" if copy_array else ""
        return _stmts(f"{st.top} -= 1\n{target} = {st.buf}[{st.top}]{suffix}")

    def value_push(self, s):
        if s in self.replay_of:  # the reverse sweep replays the iteration instead
            return []
        return [t for t in self.targets(s) if t in self.ctx.pushed
                and s not in self.ctx.fresh_defs]

    @staticmethod
    def targets(s):
        t = s.targets[0]
        if isinstance(t, gast.Tuple):
            return [e.id for e in t.elts]
        return [t.id] if isinstance(t, gast.Name) else []

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
                if any(st in self.callee_stacks for st in gast.walk(s)):
                    # Numba would drop a branch it finds constant, and with it the only
                    # append that types the list of the callee's tapes
                    test = ir.call("rt.unpruned", test)
                out.append(ir.if_(test, body or [gast.Pass()], orelse, like=s))
            elif isinstance(s, gast.For):
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
                out += reserve + [gast.copy_location(loop, s)]
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

    def kept(self, v):
        """How the tape keeps `v`: a view (of an argument the caller may write into later,
        say) is copied."""
        return f"{v}.copy()" if v in self.views and self.ctx.kinds[v].ndim else v

    def forward_assign(self, s, depth):
        out = []
        for t in self.value_push(s):
            out += self.push(self.stack(t, self.ctx.kinds[t]), self.kept(t))
        target = s.targets[0]
        if isinstance(target, gast.Subscript) and target.value.id in self.ctx.elem_saved:
            out += self.push(self.elem_stack(s), self.item_source(target, s))
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

    def elem_stack(self, s):
        x = s.targets[0].value.id
        kind = self.ctx.item_kinds[s]
        return self.stack(x, kind if kind.ndim else self.ctx.kinds[x].with_(ndim=0),
                          key=("item", s))

    def item_source(self, target, s):
        from codegen import to_source
        text = to_source(gast.Expr(value=gast.Subscript(
            value=target.value, slice=target.slice, ctx=gast.Load()))).strip()
        return text + ".copy()" if self.ctx.item_kinds[s].ndim else text

    def reserves(self, body, times, loop=None):
        counts = {}
        if loop in self.ctx.loop_var_changed and loop.target.id not in self.mixed:
            counts[loop.target.id] = 1
        for s in ir.walk_no_loops(body):
            if s in self.ctx.saved_loop_vars and s.target.id not in self.mixed:
                counts[s.target.id] = counts.get(s.target.id, 0) + 1
            if not isinstance(s, gast.Assign):
                continue
            keys = [t for t in self.value_push(s) if not self.ctx.kinds[t].ndim]
            target = s.targets[0]
            if isinstance(target, gast.Subscript) and target.value.id in self.ctx.elem_saved \
                    and not self.ctx.item_kinds[s].ndim:
                keys.append(("item", s))
            for key in keys:
                if key not in self.mixed:
                    counts[key] = counts.get(key, 0) + 1
        for v in self.ctx.replay.get(loop, ((),))[0]:
            if not self.ctx.kinds[v].ndim:
                counts[("replay", loop, v)] = 1
        out = []
        for key, n in counts.items():
            if key[0] == "replay" if isinstance(key, tuple) else False:
                st = self.replay_stack(key[1], key[2])
                out += _stmts(f"{st.buf} = rt.reserve({st.buf}, {st.top} + {times}{n})")
                continue
            st = self.stacks.get(key)
            if st is None:
                st = (self.stack(key, self.ctx.kinds[key]) if isinstance(key, str)
                      else self.elem_stack(key[1]))
            out += _stmts(f"{st.buf} = rt.reserve({st.buf}, {st.top} + {times}{n})")
        return out

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
                wanted |= {n.id for n in gast.walk(later.value) if isinstance(n, gast.Name)}
        return stmt.targets[0].id in wanted

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
                out += _stmts(f"{self.ctx.d(t)} = 0.0")
        for t in self.value_push(s):
            out += self.pop(self.stacks[t], t, copy_array=t in self.ctx.elem_saved)
            if t in self.ctx.active and self.ctx.kinds[t].ndim:
                out += _stmts(f"{self.ctx.d(t)} = np.zeros_like({t})")
        loop = self.replay_of.get(s)
        for t in outs if loop is not None else ():
            if (loop, t) not in self.starts:
                continue
            out += _stmts(f"{t} = {self.starts[loop, t]}")
            if t in self.ctx.active and self.ctx.kinds[t].ndim:
                out += _stmts(f"{self.ctx.d(t)} = np.zeros_like({t})")
        return out

    # loops replayed in the reverse sweep

    def replay_stack(self, loop, v):
        return self.stack(v, self.ctx.kinds[v], key=("replay", loop, v))

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
        return _stmts(f"{self.ctx.d(t)} = np.zeros_like({t})")

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

    def store_counts(self):
        if self._stores is None:
            self._stores = {}
            for n in gast.walk(gast.Module(body=self.ctx.fnode.body, type_ignores=[])):
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                    self._stores[n.id] = self._stores.get(n.id, 0) + 1
        return self._stores

    # calls to the user's functions

    def user_call(self, s):
        """(specialization, active) for `t = g(...)` with g the user's, else None."""
        if not isinstance(s.value, gast.Call):
            return None
        text = ir.dotted_text(s.value.func)
        if text not in self.ctx.user_functions:
            return None
        args = s.value.args
        kinds = tuple(self.ctx.kinds[a.id] if isinstance(a, gast.Name) else
                      self.ctx.const_kind(a) for a in args)
        wrt = tuple(i for i, a in enumerate(args) if isinstance(a, gast.Name)
                    and a.id in self.ctx.varied and self.ctx.kinds[a.id].is_float)
        outs = self.targets(s)
        useful = any(t in self.ctx.active for t in outs)
        spec = self.ctx.program.specialize(self.ctx.user_functions[text], kinds, s,
                                           self.ctx.fsrc, wrt=wrt if useful else ())
        return spec, bool(useful and wrt)

    def custom_call(self, s):
        return isinstance(s.value, gast.Call) and \
            ir.dotted_text(s.value.func) in self.ctx.custom_calls

    def reverse_custom(self, s):
        """`t = f(args)` with a defvjp rule: the rule gives one cotangent per argument."""
        from codegen import to_source
        t = s.targets[0].id
        fn, vjp_name = self.ctx.custom_calls[ir.dotted_text(s.value.func)]
        if vjp_name is None:
            raise self.ctx.fsrc.error(
                f"`{getattr(fn, '__name__', fn)}` has a tangent rule but no vector-Jacobian "
                "rule", s, "reverse mode (grad, vjp) needs one: srcad.defvjp", NoRuleError)
        args = s.value.args
        grads = [self.namer.fresh("d_arg") for _ in args]
        arg_text = "".join(", " + to_source(gast.Expr(value=a)).strip() for a in args)
        out = _stmts(f"({', '.join(grads)},) = {vjp_name}({self.ctx.d(t)}, {t}{arg_text})")
        for g, a in zip(grads, args):
            if isinstance(a, gast.Name) and a.id in self.ctx.active:
                out += _stmts(f"{self.ctx.d(a.id)} += {g}")
        return out

    def reverse_call(self, s, call, outs):
        spec, active = call
        if not active:
            return []
        out = []
        tape = self.replay_tapes.get(s) or self.tape_calls.get(s, "()")
        if s in self.callee_stacks:
            st = self.callee_stacks[s]
            out += self.pop(st, tape)
        from codegen import to_source
        arg_text = ", ".join(to_source(gast.Expr(value=a)).strip() for a in s.value.args)
        if s in self.recomputed_calls and s not in self.replay_tapes:
            tape = self.namer.fresh("tape_" + spec.name)
            out += _stmts(f"_, {tape} = {spec.fwd_name}({arg_text})")
        d_outs = [self.ctx.d(t) if t in self.ctx.active else "0.0" for t in outs]
        d_out = d_outs[0] if isinstance(s.targets[0], gast.Name) else \
            "(" + ", ".join(d_outs) + ",)"
        args = s.value.args
        grads = [self.namer.fresh("d_arg") for _ in spec.wrt]
        out += _stmts(f"({', '.join(grads)},) = {spec.rev_name}({arg_text}, {tape}, {d_out})")
        for g, pos in zip(grads, spec.wrt):
            a = args[pos]
            if a.id in self.ctx.active:
                out += _stmts(f"{self.ctx.d(a.id)} += {g}")
        return out

    # the two functions

    def run(self, fnode):
        body = fnode.body
        if not body or not isinstance(body[-1], gast.Return):
            raise self.ctx.fsrc.error("the function must end by returning its value",
                                      fnode, "add a `return`")
        self.top_level = set(body)
        self.views = self.may_be_views()
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
        return self.build_fwd(fnode, fwd_body), self.build_rev(fnode, rev_body)

    def assigned(self):
        """Names the body assigns; loop variables only where read outside their loop
        (inside it, the reverse sweep recomputes them from the iteration number)."""
        names_, loop_vars, inside = set(), set(), set()
        for node in gast.walk(gast.Module(body=self.ctx.fnode.body, type_ignores=[])):
            if isinstance(node, gast.For):
                loop_vars.add(node.target.id)
                inside |= {id(n) for n in gast.walk(node)}
            elif isinstance(node, gast.Assign):
                names_ |= {n.id for t in node.targets for n in gast.walk(t)
                           if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        for node in gast.walk(gast.Module(body=self.ctx.fnode.body, type_ignores=[])):
            if isinstance(node, gast.Name) and node.id in loop_vars and id(node) not in inside:
                names_.add(node.id)
        return names_ | {loop.target.id for loop in self.ctx.saved_loop_vars}

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
        for loop, names_ in per_loop.items():
            inside = {id(n) for n in gast.walk(loop)}
            outside = {n.id for n in gast.walk(gast.Module(body=self.ctx.fnode.body,
                                                             type_ignores=[]))
                       if isinstance(n, gast.Name) and id(n) not in inside}
            out |= names_ - outside - set(self.params)
        return out

    def tape_layout(self):
        slots = []
        for st in self.stacks.values():
            slots += [st.buf] if st.is_list else [st.buf, st.top]
        slots += self.final_values()
        slots += [t for s, t in self.tape_calls.items() if s not in self.callee_stacks]
        self.ctx.tape_slots = slots
        return slots

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
                dtype = {"b": "np.bool_", "i": "np.int64", "f": "np.float64"}[st.kind.dtype]
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

    def mixed_levels(self, body):
        """Scalar stacks pushed at more than one loop level. Reserving room at loop entry
        would let an inner loop use up room an outer one counted on, so these grow at each
        push instead."""
        owners = {}

        def visit(stmts, loop):
            for s in ir.walk_no_loops(stmts):
                keys = []
                if isinstance(s, gast.Assign):
                    keys += self.value_push(s)
                    t = s.targets[0]
                    if isinstance(t, gast.Subscript) and t.value.id in self.ctx.elem_saved:
                        keys.append(("item", s))
                if s in self.ctx.saved_loop_vars:
                    keys.append(s.target.id)
                if s in self.ctx.loop_var_changed:
                    owners.setdefault(s.target.id, set()).add(s)
                for key in keys:
                    owners.setdefault(key, set()).add(loop)
                if isinstance(s, (gast.For, gast.While)):
                    visit(s.body, s)

        visit(body, None)
        return {key for key, loops in owners.items() if len(loops) > 1}

    def may_be_views(self):
        """Variables assigned a slice, a transpose or a reshape of another array."""
        out = set()
        for node in gast.walk(gast.Module(body=self.ctx.fnode.body, type_ignores=[])):
            if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name):
                v = node.value
                sliced = isinstance(v, gast.Subscript) and (
                    any(isinstance(p, gast.Slice) for p in gast.walk(v.slice))
                    or getattr(self.ctx.kinds.get(node.targets[0].id), "ndim", 0) > 0)
                viewed = isinstance(v, gast.Call) and registry.is_view(ir.dotted_text(v.func))
                if sliced or viewed or isinstance(v, gast.Name):
                    out.add(node.targets[0].id)
        return out

    def reserves_top(self, body):
        counts = {}
        for s in ir.walk_no_loops(body):
            if s in self.ctx.saved_loop_vars and s.target.id not in self.mixed:
                buf = self.stack(s.target.id, self.ctx.kinds[s.target.id]).buf
                counts[buf] = counts.get(buf, 0) + 1
            if isinstance(s, gast.Assign):
                for t in self.value_push(s):
                    if t in self.stacks:
                        counts[self.stacks[t].buf] = counts.get(self.stacks[t].buf, 0) + 1
                if ("item", s) in self.stacks:
                    buf = self.stacks[("item", s)].buf
                    counts[buf] = counts.get(buf, 0) + 1
        return counts

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
            zero = f"np.zeros_like({v})" if ctx.kinds[v].ndim else "0.0"
            pre += _stmts(f"{ctx.d(v)} = {zero}")
        result = self.result
        outs = result.elts if isinstance(result, gast.Tuple) else [result]
        seeds = [ctx.seed] if not isinstance(result, gast.Tuple) else \
            [f"{ctx.seed}[{k}]" for k in range(len(outs))]
        for atom, seed in zip(outs, seeds):
            if isinstance(atom, gast.Name) and atom.id in ctx.active:
                pre += _stmts(f"{self.ctx.d(atom.id)} += {seed}")
        ret = _stmts("return (" + "".join(f"{self.ctx.d(v)}, " for v in self.wrt) + ")")
        arrays = {d for v, d in ctx.adjoint_names.items() if v in ctx.kinds
                  and getattr(ctx.kinds[v], "ndim", 0)}
        return self.function(self.rev_name, self.params + [ctx.tape_param, ctx.seed],
                             _in_place(_first_assignments(pre + body), arrays) + ret)

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

"""Calls to the user's helpers and to custom rules, in both modes.

A helper gets its own sweep pair, or its own tangent function (`Program.specialize`,
through `specialized`); in reverse mode the caller keeps the helper's tape on its own
tape, or runs the helper's forward sweep again in the reverse sweep when that is
cheaper. A function with a `srcad.defvjp` (`srcad.defjvp`) rule calls the rule
(`custom_rule`).
"""

import gast

from codegen import to_source
from codegen.templates import statements
from srcad.errors import NoRuleError
from srcad.passes import ir


def _stmts(text):
    return statements(text)


def specialized(ctx, s, varied, mode="rev", useful=True):
    """(the helper's specialization, the `wrt` positions) for `t = g(args)`, g the user's
    (`s.value`): the float arguments in `varied` carry gradients (tangents), unless no
    target is `useful` (then g is specialized without them)."""
    args = s.value.args
    kinds = tuple(ctx.atom_kind(a) for a in args)
    wrt = tuple(i for i, a in enumerate(args) if isinstance(a, gast.Name)
                and a.id in varied and ctx.kinds[a.id].is_float)
    wrt = wrt if useful else ()
    fn = ctx.user_functions[ctx.site(s.value).name]
    return ctx.program.specialize(fn, kinds, s, ctx.fsrc, wrt=wrt, mode=mode), wrt


def custom_rule(ctx, s, mode):
    """The name of the rule that `t = f(args)` (`s`) calls in `mode` ("rev": the defvjp
    rule, "fwd": the defjvp rule); refused when f has only the other one."""
    name = ir.dotted_text(s.value.func)
    fn, vjp_name = ctx.custom_calls[name]
    rule = vjp_name if mode == "rev" else ctx.custom_tangents.get(name)
    if rule is None:
        have, want, api = (("a tangent", "vector-Jacobian", "reverse mode (grad, vjp)"),
                           ("a vector-Jacobian", "tangent",
                            "forward mode (jvp, jacobian by columns)"))[mode == "fwd"]
        raise ctx.fsrc.error(
            f"`{getattr(fn, '__name__', fn)}` has {have} rule but no {want} rule", s,
            f"{api} needs one: srcad.{'defjvp' if mode == 'fwd' else 'defvjp'}",
            NoRuleError)
    return rule


def arguments_text(args):
    """The atoms `args` as source, joined by commas."""
    return ", ".join(to_source(gast.Expr(value=a)).strip() for a in args)


class CallAdjoints:
    """Part of `ReverseAD` (a mixin): see the module."""

    def user_call(self, s):
        """(specialization, active) for `t = g(...)` with g the user's, else None."""
        if not isinstance(s.value, gast.Call):
            return None
        site = self.ctx.site(s.value)
        if site.kind != "user":
            return None
        outs = self.targets(s)
        useful = any(t in self.ctx.active for t in outs)
        spec, wrt = specialized(self.ctx, s, self.ctx.varied, useful=useful)
        return spec, bool(useful and wrt)

    def custom_call(self, s):
        return isinstance(s.value, gast.Call) and self.ctx.site(s.value).kind == "custom"

    def reverse_custom(self, s):
        """`t = f(args)` with a defvjp rule: the rule gives one cotangent per argument."""
        t = s.targets[0].id
        vjp_name = custom_rule(self.ctx, s, "rev")
        args = s.value.args
        grads = [self.namer.fresh("d_arg") for _ in args]
        call = arguments_text([ir.name(self.ctx.d(t)), ir.name(t), *args])
        out = _stmts(f"({', '.join(grads)},) = {vjp_name}({call})")
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
        arg_text = arguments_text(s.value.args)
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

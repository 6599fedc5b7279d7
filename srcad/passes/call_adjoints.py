"""CallAdjoints: the adjoints of calls to the user's helpers and to custom rules.

A helper gets its own sweep pair (`Program.specialize`); the caller keeps the helper's
tape on its own tape, or runs the helper's forward sweep again in the reverse sweep when
that is cheaper. A function with a `srcad.defvjp` rule calls the rule.
"""

import gast

from codegen.templates import statements
from srcad.errors import NoRuleError
from srcad.passes import ir


def _stmts(text):
    return statements(text)


class CallAdjoints:
    """Part of `ReverseAD` (a mixin): see the module."""

    def user_call(self, s):
        """(specialization, active) for `t = g(...)` with g the user's, else None."""
        if not isinstance(s.value, gast.Call):
            return None
        site = self.ctx.site(s.value)
        if site.kind != "user":
            return None
        args = s.value.args
        kinds = tuple(self.ctx.kinds[a.id] if isinstance(a, gast.Name) else
                      self.ctx.const_kind(a) for a in args)
        wrt = tuple(i for i, a in enumerate(args) if isinstance(a, gast.Name)
                    and a.id in self.ctx.varied and self.ctx.kinds[a.id].is_float)
        outs = self.targets(s)
        useful = any(t in self.ctx.active for t in outs)
        spec = self.ctx.program.specialize(self.ctx.user_functions[site.name], kinds, s,
                                           self.ctx.fsrc, wrt=wrt if useful else ())
        return spec, bool(useful and wrt)

    def custom_call(self, s):
        return isinstance(s.value, gast.Call) and self.ctx.site(s.value).kind == "custom"

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

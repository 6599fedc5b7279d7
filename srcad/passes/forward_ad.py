"""ForwardAD: tangent (forward-mode) code, interleaved with the primal.

A tangent that nothing reads afterwards is not computed (the primal statements stay, as
they may raise as the function does)."""
import copy

import gast

from codegen import fill, to_source
from codegen.templates import statements
from srcad.errors import NoRuleError
from srcad.kinds import dummy
from srcad.passes import ir
from srcad.passes.activity import bound_args
from srcad.passes.call_adjoints import arguments_text, custom_rule, specialized
from srcad.passes.spell_masks import SpellMasks
from srcad.passes.tidy_adjoints import drop_unread


def _stmts(text):
    return statements(text)


class _SwapT(gast.NodeTransformer):
    """`t[p]` to the tangent expression of parameter p."""

    def __init__(self, tangents):
        self.tangents = tangents

    def visit_Subscript(self, node):
        if isinstance(node.value, gast.Name) and node.value.id == "t" \
                and isinstance(node.slice, gast.Name):
            return copy.deepcopy(self.tangents[node.slice.id])
        return self.generic_visit(node)


def additive_terms(expr, sign=1):
    """The additive terms of an expression, with their signs."""
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.Add, gast.Sub)):
        right_sign = sign if isinstance(expr.op, gast.Add) else -sign
        return additive_terms(expr.left, sign) + additive_terms(expr.right, right_sign)
    return [(sign, expr)]


def _t_params(expr):
    return {n.slice.id for n in ir.walk(expr) if isinstance(n, gast.Subscript)
            and isinstance(n.value, gast.Name) and n.value.id == "t"
            and isinstance(n.slice, gast.Name)}


class ForwardAD:
    """Transformation: `<f>_jvp(args, tangents of wrt) -> (out, out_tangent)`.

    Every assignment to a variable that depends on a `wrt` parameter is followed by the
    assignment of its tangent `t_<name>`, from the rule's tangent template; element writes
    write the tangent's elements; control flow is the primal's (nothing is saved). Calls
    to the user's functions call their own `_jvp`.
    """

    needs = ("kinds", "active", "written", "materialize", "return_values", "user_functions",
             "custom_calls", "custom_tangents", "calls")
    provides = ("tangent_names",)

    def __init__(self, ctx, params, wrt, name, flat=False):
        self.ctx, self.params, self.wrt, self.name = ctx, params, wrt, name
        self.flat = flat  # a helper's n-tuple result: its n values, then their n tangents
        # tangents of the values that depend on `wrt` and reach the output (`ctx.active`):
        # one that reaches nothing is never computed (its rule could divide by zero)
        self.varied = {v for v in ctx.active if getattr(ctx.kinds.get(v), "is_float", False)}

    def t(self, name):
        names = self.ctx.tangent_names
        if name not in names:
            names[name] = self.ctx.namer.fresh("t_" + name, numbered=False)
        return names[name]

    def zero(self, name):
        return f"np.zeros_like({name})" if self.ctx.kinds[name].ndim else "0.0"

    def tangent_of(self, atom):
        """Source of an atom's tangent: its tangent variable, or a zero of its kind."""
        if isinstance(atom, gast.Name) and atom.id in self.varied:
            return self.t(atom.id)
        if isinstance(atom, gast.Name) and getattr(self.ctx.kinds.get(atom.id), "ndim", 0):
            return f"np.zeros_like({atom.id})"
        return "0.0"

    def run(self, fnode):
        body = fnode.body
        self.result = body[-1].value
        pre = []
        for p in self.params:
            if p in self.ctx.written and self.ctx.kinds[p].is_array:
                pre += _stmts(f"{p} = {p}.copy()")
            if p in self.varied and p in self.wrt and p in self.ctx.written:
                pre += _stmts(f"{self.t(p)} = {self.t(p)}.copy()")
            elif p in self.varied and p not in self.wrt:
                pre += _stmts(f"{self.t(p)} = {self.zero(p)}")
        for v in self.ctx.return_values:  # see reverse_ad._return_placeholders
            if v in self.ctx.kinds:
                pre += _stmts(f"{v} = {dummy(self.ctx.kinds[v])}")
                if v in self.varied:
                    pre += _stmts(f"{self.t(v)} = {self.zero(v)}")
        out = pre + self.block(body[:-1])
        outs = self.result.elts if isinstance(self.result, gast.Tuple) else [self.result]
        res = ", ".join(to_source(gast.Expr(value=o)).strip() for o in outs)
        tan = ", ".join(self.tangent_of(o) for o in outs)
        if isinstance(self.result, gast.Tuple) and not self.flat:
            res, tan = f"({res},)", f"({tan},)"
        out += _stmts(f"return {res}, {tan}")
        params = self.params + [self.t(p) for p in self.wrt]
        fn = drop_unread(_function(self.name, params, out), self.ctx.tangent_names.values())
        return SpellMasks(self.ctx.kinds).run(fn)

    def block(self, stmts):
        out = []
        for s in stmts:
            self.ctx.current = s
            if isinstance(s, gast.Assign):
                out += self.assign(s)
            elif isinstance(s, gast.If):
                out.append(ir.if_(s.test, self.block(s.body) or [gast.Pass()],
                                  self.block(s.orelse), like=s))
            elif isinstance(s, gast.For):
                loop = gast.For(target=s.target, iter=s.iter, orelse=[], type_comment=None,
                                body=self.block(s.body) or [gast.Pass()])
                out.append(gast.copy_location(loop, s))
            elif isinstance(s, gast.While):
                loop = gast.While(test=s.test, orelse=[], body=self.block(s.body) or [gast.Pass()])
                out.append(gast.copy_location(loop, s))
            elif isinstance(s, gast.Break):
                out.append(s)
        return out

    def assign(self, s):
        target, op = s.targets[0], s.value
        if isinstance(target, gast.Subscript):
            x = target.value.id
            if x not in self.varied:
                return [s]
            lhs = to_source(gast.Expr(value=gast.Subscript(
                value=ir.name(self.t(x)), slice=target.slice, ctx=gast.Load()))).strip()
            return [s] + _stmts(f"{lhs} = {self.tangent_of(op)}")
        site = self.ctx.site(op) if isinstance(op, gast.Call) else None
        if site is not None and site.kind == "user":
            return self.call(s)
        if site is not None and site.kind == "custom" and self.targets_varied(s):
            return self.custom(s)
        primal = [s]
        if s in self.ctx.materialize:
            primal = [ir.assign(target, gast.Call(func=gast.Attribute(
                value=op, attr="copy", ctx=gast.Load()), args=[], keywords=[]), like=s)]
        t = target.id
        if t not in self.varied:
            return primal
        return primal + _stmts(f"{self.t(t)} = {self.tangent_expr(t, op, s)}")

    def custom(self, s):
        """`t = f(args)` with a defjvp rule: the rule maps the arguments' tangents to
        the output's."""
        jvp_name = custom_rule(self.ctx, s, "fwd")
        t = s.targets[0].id
        args = s.value.args
        tans = "".join(self.tangent_of(a) + ", " for a in args)
        return [s] + _stmts(f"{self.t(t)} = {jvp_name}(({tans}), "
                            f"{arguments_text([ir.name(t), *args])})")

    def targets_varied(self, s):
        t = s.targets[0]
        names = [e.id for e in t.elts] if isinstance(t, gast.Tuple) else [t.id]
        return any(n in self.varied for n in names)

    def tangent_expr(self, t, op, s):
        if isinstance(op, gast.Name):
            tan = self.tangent_of(op)
            return tan + ".copy()" if s in self.ctx.materialize and \
                op.id in self.varied else tan
        if isinstance(op, gast.Subscript):
            if op.value.id not in self.varied:
                return self.zero(t)
            return to_source(gast.Expr(value=gast.Subscript(
                value=ir.name(self.t(op.value.id)), slice=op.slice, ctx=gast.Load()))).strip()
        rule, bound = bound_args(op, self.ctx)
        if rule is None or not rule.body:
            return self.zero(t)
        if rule.tangent is None:
            raise self.ctx.fsrc.error(f"`{rule.name}` has no tangent rule", s,
                                      "forward mode needs one beside the adjoint",
                                      NoRuleError)
        return self.instantiate(rule, t, bound)

    def instantiate(self, rule, t, bound):
        repl, tangents = {}, {}
        for p in rule.params[1:]:
            atom = bound.get(p)
            repl[p] = atom if atom is not None else ir.const(rule.defaults.get(p))
            if isinstance(atom, (gast.Tuple, gast.List)):
                elts = [gast.parse(self.tangent_of(e), mode="eval").body for e in atom.elts]
                tangents[p] = gast.Tuple(elts=elts, ctx=gast.Load())
            else:
                tangents[p] = gast.parse(self.tangent_of(atom) if atom is not None else "0.0",
                                         mode="eval").body
        repl[rule.params[0]] = t
        kept = []
        terms = additive_terms(rule.tangent)
        for sign, term in terms:
            ps = _t_params(term)
            live = [p for p in ps if isinstance(bound.get(p), (gast.Tuple, gast.List)) and any(
                isinstance(e, gast.Name) and e.id in self.varied for e in bound[p].elts)
                or isinstance(bound.get(p), gast.Name) and bound[p].id in self.varied]
            if not live:
                continue
            term = fill([gast.Expr(value=_SwapT(tangents).visit(copy.deepcopy(term)))], repl)[0]
            kept.append(("-" if sign < 0 else "+", to_source(term).strip()))
        if not kept:
            return self.zero(t)
        text = " ".join(f"{sgn} ({expr})" for sgn, expr in kept)
        text = text[2:] if text.startswith("+ ") else "-" + text[2:]
        if rule.broadcast and self.ctx.kinds[t].ndim and len(kept) < len(terms):
            # the operands left carry no tangent, but may have given the result its shape
            text = f"np.zeros_like({t}) + ({text})"
        return text

    def call(self, s):
        """`t = g(args)`: g's own forward mode, for the arguments that carry tangents."""
        args = s.value.args
        spec, wrt = specialized(self.ctx, s, self.varied, mode="fwd",
                                useful=self.targets_varied(s))  # else only g's _jvp is made
        arg_text = [arguments_text([a]) for a in args]
        tan_text = [self.t(args[i].id) for i in wrt]
        target = s.targets[0]
        call = f"{spec.jvp_name}({', '.join(arg_text + (tan_text if wrt else []))})"
        if isinstance(target, gast.Tuple):  # the helper's values, then their tangents
            outs = [e.id for e in target.elts]
            tans = [self.t(o) if o in self.varied and wrt else "_" for o in outs]
            code = [f"{', '.join(outs + tans)} = {call}"]
            zeros = [o for o in outs if o in self.varied]
        else:
            code = [f"{target.id}, {self.t(target.id) if wrt else '_'} = {call}"]
            zeros = [target.id]
        if not wrt and self.targets_varied(s):  # varied targets, constant inputs
            code += [f"{self.t(z)} = {self.zero(z)}" for z in zeros]
        return [st for line in code for st in _stmts(line)]


def _function(name, params, body):
    args = gast.arguments(args=[ir.name(p) for p in params], posonlyargs=[], vararg=None,
                          kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    for a in args.args:
        a.ctx = gast.Param()
    return gast.FunctionDef(name=name, args=args, body=body or [gast.Pass()], decorator_list=[],
                            returns=None, type_comment=None, type_params=[])

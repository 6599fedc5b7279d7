"""ToANF: one operation per statement, every operand a name or a constant."""

import gast
import numpy as np

from srcad.errors import SrcadError, UnsupportedError
from srcad.kinds import of_value
from srcad.passes import ir
from srcad.passes.constants import Constants
from srcad.passes.resolve_calls import CallSite, is_range, split_count
from srcad.rules import registry
from srcad.source import FunctionSource

_ATTRS = {"shape", "size", "ndim", "dtype"}



class ToANF:
    """Transformation: every statement is one operation on atoms (names or constants).

    Afterwards a statement is one of: `x = op(atoms)`, `x[atoms] = atom`,
    `a, b = user_fn(atoms)`, `if atom_or_not_atom:`, `for i in range(atoms):`,
    `while True:`, `break`, `continue`, `return atom_or_tuple_of_atoms`. A call keeps
    the callee ResolveCalls named (a tuple-valued one, `registry.parts`, becomes the
    tuple of its items' calls); `and`/`or`/`a if c else b` become `if` statements,
    `while c:` becomes `while True:` with a `break`, and `for v in xs:` loops over
    `range(xs.shape[0])`. The target of an operation is never its operand.

    >>> from srcad.passes.testing import show_anf
    >>> show_anf('''
    ... def f(w, xs):
    ...     h = 0.0
    ...     for i in range(xs.shape[0]):
    ...         h = math.tanh(w * h + xs[i])
    ...     return h * h''')
    def f(w, xs):
        h = 0.0
        tmp1 = xs.shape
        tmp2 = tmp1[0]
        for i in range(tmp2):
            tmp3 = w * h
            tmp4 = xs[i]
            tmp5 = tmp3 + tmp4
            h = math.tanh(tmp5)
        tmp6 = h * h
        return tmp6
    """

    needs = ("resolve", "augmented", "calls")
    provides = ("chained_writes",)

    def __init__(self, ctx):
        self.ctx = ctx
        self.fsrc = ctx.fsrc
        self.resolve = ctx.resolve
        self.consts = Constants(ctx.resolve)
        self.leading = {}  # a merged subscript (see `merged`) -> its count of leading parts

    def run(self, fnode):
        self.split = self.tuples_to_split(fnode)
        fnode.body = self.block(fnode.body)
        return fnode

    def tuples_to_split(self, fnode):
        """{name: its items' names} for each name bound once to a tuple or list literal, or
        to a call of the user's function that returns a tuple, and read only as `t[k]`
        with a constant `k`, or unpacked whole (`a, b = t`): its items become names of their own,
        `t = (a, 2.0 * b); t[1]` is `t_1 = 2.0 * b; t_1`. A tuple of values with gradients
        needs no tuple of adjoints then."""
        parent, stores, found = ir.parents(fnode), {}, {}
        for n in ir.walk(fnode):
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                stores[n.id] = stores.get(n.id, 0) + 1
        for n in ir.walk(fnode):
            if not (isinstance(n, gast.Assign) and len(n.targets) == 1
                    and isinstance(n.targets[0], gast.Name)
                    and stores.get(n.targets[0].id) == 1):
                continue
            value = n.value
            count = len(value.elts) if isinstance(value, (gast.Tuple, gast.List)) and not any(
                isinstance(e, gast.Starred) for e in value.elts) else self.items_returned(value)
            if count:
                found[n.targets[0].id] = count

        def item_read(use, count):
            p = parent.get(use)
            if isinstance(p, gast.Subscript) and p.value is use and isinstance(p.ctx, gast.Load):
                k = self.consts.constant(p.slice)
                return isinstance(k, gast.Constant) and type(k.value) is int \
                    and -count <= k.value < count
            return isinstance(p, gast.Assign) and p.value is use \
                and isinstance(p.targets[0], gast.Tuple) and len(p.targets[0].elts) == count

        for n in ir.walk(fnode):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in found \
                    and not item_read(n, found[n.id]):
                del found[n.id]
        return {t: [self.ctx.namer.fresh(f"{t}_") for _ in range(count)]
                for t, count in found.items()}

    def error(self, message, node, hint=None, cls=UnsupportedError):
        return self.fsrc.error(message, node, hint, cls)

    def tmp(self):
        return self.ctx.namer.fresh("tmp")

    # statements

    def block(self, stmts):
        out = []
        for stmt in stmts:
            self.stmt_line = stmt
            out += getattr(self, "stmt_" + type(stmt).__name__)(stmt)
        return out

    def stmt_Pass(self, node):
        return []

    def stmt_Expr(self, node):  # docstrings; CheckSupported refused the rest
        return []

    def stmt_Break(self, node):
        return [node]

    stmt_Continue = stmt_Break

    def stmt_Return(self, node):
        if node.value is None:
            raise self.error("`return` without a value", node, "return the function's result")
        if isinstance(node.value, gast.Tuple):
            pre, atoms = self.atoms(node.value.elts)
            value = gast.Tuple(elts=atoms, ctx=gast.Load())
        else:
            pre, value = self.atom(node.value, force_name=True)
        return pre + [gast.copy_location(gast.Return(value=value), node)]

    def stmt_If(self, node):
        pre, test = self.atom(node.test)
        return pre + [ir.if_(test, self.block(node.body), self.block(node.orelse), like=node)]

    def stmt_While(self, node):
        pre, test = self.atom(node.test)
        head = pre + [ir.if_(ir.not_(test), [gast.Break()], like=node)]
        loop = gast.While(test=ir.const(True), body=head + self.block(node.body), orelse=[])
        return [gast.copy_location(loop, node)]

    def stmt_For(self, node):
        if not isinstance(node.target, gast.Name):
            raise self.error("a loop target must be one name", node,
                             "loop over an index: `for i in range(len(xs)):`")
        it = node.iter
        if is_range(it, self.resolve):
            if it.keywords or not 1 <= len(it.args) <= 3:
                raise self.error("`range` takes one to three positional arguments", node)
            pre, args = self.atoms(it.args)
            body = self.block(node.body)
        else:
            pre, seq = self.atom(it, force_name=True)
            shape, count = self.tmp(), self.tmp()
            index = self.ctx.namer.fresh("k")
            pre += [ir.assign(shape, gast.Attribute(value=seq, attr="shape", ctx=gast.Load()),
                              like=node),
                    ir.assign(count, gast.Subscript(value=ir.name(shape), slice=ir.const(0),
                                                    ctx=gast.Load()), like=node)]
            args = [ir.name(count)]
            item = gast.Subscript(value=seq, slice=ir.name(index), ctx=gast.Load())
            body = [ir.assign(node.target.id, item, like=node)] + self.block(node.body)
            node.target = ir.name(index, store=True)
        rng = gast.Call(func=ir.name("range"), args=args, keywords=[])
        loop = gast.For(target=node.target, iter=rng, body=body or [gast.Pass()], orelse=[],
                        type_comment=None)
        return pre + [gast.copy_location(loop, node)]

    def stmt_Assign(self, node):
        out = self.assign(node)
        if node in self.ctx.filled_targets:  # its copies, marked in `unpack`
            return out
        if node in self.ctx.augmented and out:  # `x += e`: the rebinding
            self.ctx.augmented.add(out[-1])
        return out

    def assign(self, node):
        if len(node.targets) != 1:
            pre, value = self.atom(node.value)
            return pre + [s for t in node.targets
                          for s in self.stmt_Assign(ir.assign(t, value, like=node))]
        target, value = node.targets[0], node.value
        if isinstance(target, gast.Name) and target.id in self.split:  # its items, named
            return self.unpack(gast.Tuple(elts=[ir.name(v, store=True)
                                                for v in self.split[target.id]],
                                          ctx=gast.Store()), value, node)
        if isinstance(target, gast.Name):
            pre, op = self.op(value)
            if any(isinstance(n, gast.Name) and n.id == target.id for n in ir.walk(op)):
                tmp = self.tmp()
                pre, op = pre + [ir.assign(tmp, op, like=node)], ir.name(tmp)
            return pre + [ir.assign(target, op, like=node)]
        if isinstance(target, gast.Subscript):
            target = self.merged(target, node)
            if not isinstance(target.value, gast.Name):
                raise self.error("only `name[index] = value` writes are supported", node,
                                 "write into a named array")
            if not self.consts.local(target.value.id):
                raise self.error(f"a write into the global `{target.value.id}`", node,
                                 "srcad reads global arrays as constants: pass the array as "
                                 "an argument to write into it")
            pre, index = self.index(target.slice)
            more, atom = self.atom(value)
            store = gast.Subscript(value=ir.name(target.value.id), slice=index, ctx=gast.Store())
            out = ir.assign(store, atom, like=node)
            if target in self.leading:  # checked by InferKinds: integers lead the index
                self.ctx.chained_writes[out] = self.leading.pop(target)
            return pre + more + [out]
        if isinstance(target, (gast.Tuple, gast.List)):
            return self.unpack(target, value, node)
        if isinstance(target, gast.Attribute):
            raise self.error(f"cannot assign to the attribute `.{target.attr}`", node,
                             "make a new value instead: `y = x.reshape(n)` for "
                             "`x.shape = n`")
        raise self.error(f"cannot assign to a target of this kind ({type(target).__name__})", node)

    def merged(self, target, node):
        """`a[i][j] = v` as `a[i, j] = v`: the same element when `i` is an integer, which
        InferKinds checks (`ctx.chained_writes`: how many leading parts of the index came
        from the outer subscripts). A slice there (`a[1:3][0]`, another element) is
        refused here.

        >>> from srcad.passes.testing import show_anf
        >>> show_anf('''
        ... def f(a, i, v):
        ...     a[i][i + 1] = v''')
        def f(a, i, v):
            tmp1 = i + 1
            a[i, tmp1] = v
        """
        if not isinstance(target.value, gast.Subscript):
            return target
        parts = []
        inner = target
        while isinstance(inner.value, gast.Subscript):
            inner = inner.value
            outer = inner.slice.elts if isinstance(inner.slice, gast.Tuple) else [inner.slice]
            if any(isinstance(p, gast.Slice) for p in outer):
                raise self.error("a write into a slice of a slice (`a[1:3][0] = ...`) is not "
                                 "supported", node, "index once: `a[1] = ...` for "
                                 "`a[1:3][0] = ...`")
            parts = outer + parts
        last = target.slice.elts if isinstance(target.slice, gast.Tuple) else [target.slice]
        merged = gast.Subscript(value=inner.value, slice=gast.Tuple(elts=parts + last,
                                                                    ctx=gast.Load()),
                                ctx=gast.Store())
        self.leading[merged] = len(parts)
        return merged

    def unpack(self, target, value, node):
        names = target.elts
        if isinstance(value, gast.Name) and value.id in self.split:  # `a, b = t`
            value = gast.Tuple(elts=[ir.name(v) for v in self.split[value.id]],
                               ctx=gast.Load())
        if not all(isinstance(t, (gast.Name, gast.Subscript)) for t in names):
            raise self.error("nested unpacking is not supported", node,
                             "unpack one level at a time")
        if isinstance(value, (gast.Tuple, gast.List)):
            if len(value.elts) != len(names):
                raise self.error("unpacking needs as many values as targets", node)
            pre, atoms = self.atoms(value.elts, force_name=True)
            stored = {n.id for t in names for n in ir.walk(t) if isinstance(n, gast.Name)}
            for k, a in enumerate(atoms):  # `a, b = b, a`: read every value before any write
                if isinstance(a, gast.Name) and a.id in stored:
                    tmp = self.tmp()
                    pre.append(ir.assign(tmp, a, like=node))
                    atoms[k] = ir.name(tmp)
        else:
            pre, op = self.op(value)
            user_call = isinstance(op, gast.Call) and isinstance(op.func, gast.Name) \
                and op.func.id in self.ctx.user_functions
            if user_call:  # its items as names (`KE[0], PE[0] = energies(x)` through two)
                read = {n.id for n in ir.walk(op) if isinstance(n, gast.Name)}
                # `a, b, r = fill(a, b)` (FillingHelpers): `a` and `b` updated in place
                filling = self.ctx.filled_targets.get(node, 0)
                outs = [t.id if isinstance(t, gast.Name) and t.id not in read and not filling
                        else self.tmp() for t in names]
                stmt = ir.assign(gast.Tuple(elts=[ir.name(o, True) for o in outs],
                                            ctx=gast.Store()), op, like=node)
                copies = []
                for k, (t, o) in enumerate(zip(names, outs)):
                    if not (isinstance(t, gast.Name) and o == t.id):
                        copies += self.stmt_Assign(ir.assign(t, ir.name(o), like=node))
                        if k < filling:
                            self.ctx.augmented.add(copies[-1])
                            self.ctx.filled_targets[copies[-1]] = stmt  # the call
                return pre + [stmt] + copies
            if isinstance(op, gast.Tuple) and len(op.elts) == len(names):  # registry.parts
                atoms = op.elts
            else:
                atoms = self.items(pre, op, len(names), node)
        out = pre
        for t, a in zip(names, atoms):
            out += self.stmt_Assign(ir.assign(t, a, like=node))
        return out

    def items(self, pre, op, n, node):
        """Names for the `n` items of the tuple `op` (statements appended to `pre`)."""
        tup = self.tmp()
        pre.append(ir.assign(tup, op, like=node))
        atoms = []
        for k in range(n):
            item = self.tmp()
            pre.append(ir.assign(item, gast.Subscript(value=ir.name(tup), slice=ir.const(k),
                                                      ctx=gast.Load()), like=node))
            atoms.append(ir.name(item))
        return atoms

    # expressions

    def atoms(self, exprs, force_name=False):
        pre, out = [], []
        for e in exprs:
            more, a = self.atom(e, force_name)
            pre += more
            out.append(a)
        return pre, out

    def atom(self, expr, force_name=False):
        """Statements computing `expr`, and a name or constant holding its value."""
        folded = self.consts.constant(expr)
        if folded is not None:
            if not force_name:
                return [], folded
            expr = folded
        if isinstance(expr, gast.Name) and self.consts.local(expr.id):
            return [], ir.name(expr.id)
        pre, op = self.op(expr)
        if isinstance(op, gast.Name) and op.id in getattr(self.ctx.program, "constant_kinds", ()):
            return pre, op  # a global array, read-only in the module
        name = self.tmp()
        return pre + [ir.assign(name, op, like=self.stmt_line)], ir.name(name)

    def op(self, expr):
        """Statements and one operation on atoms computing `expr`."""
        method = getattr(self, "op_" + type(expr).__name__, None)
        if method is None:
            raise self.error(f"the expression `{type(expr).__name__}` is not supported",
                             self.stmt_line)
        return method(expr)

    def op_Constant(self, expr):
        return [], expr

    def op_Name(self, expr):
        if self.consts.local(expr.id):
            return [], ir.name(expr.id)
        tup = self.consts.global_tuple(expr)
        if tup is not None:
            return [], tup
        folded = self.consts.constant(expr)
        if folded is not None:
            return [], folded
        obj = self.resolve.free.get(expr.id, self.resolve.MISSING)
        if obj is self.resolve.MISSING:
            raise self.error(f"name `{expr.id}` is not defined", self.stmt_line,
                             cls=UnsupportedError)
        if isinstance(obj, np.ndarray) and obj.ndim and of_value(obj) is not None:
            return [], ir.name(self.ctx.program.constant_array(obj, expr.id))
        raise self.error(f"the global `{expr.id}` ({type(obj).__name__}) cannot be used as a value",
                         self.stmt_line, "pass it to the function as an argument")

    def op_BinOp(self, expr):
        pre, (a, b) = self.atoms([expr.left, expr.right])
        return pre, gast.BinOp(left=a, op=expr.op, right=b)

    def op_UnaryOp(self, expr):
        pre, a = self.atom(expr.operand)
        if isinstance(expr.op, gast.UAdd):
            return pre, a
        return pre, gast.UnaryOp(op=expr.op, operand=a)

    def op_Compare(self, expr):
        if len(expr.ops) == 1:
            pre, (a, b) = self.atoms([expr.left, expr.comparators[0]])
            if isinstance(expr.ops[0], (gast.In, gast.NotIn)):
                raise self.error("`in` tests are not supported", self.stmt_line,
                                 "compare with `==` and combine the tests with `or`")
            return pre, gast.Compare(left=a, ops=expr.ops, comparators=[b])
        parts, left = [], expr.left
        for op, right in zip(expr.ops, expr.comparators):
            parts.append(gast.Compare(left=left, ops=[op], comparators=[right]))
            left = right
        return self.op_BoolOp(gast.BoolOp(op=gast.And(), values=parts))

    def op_BoolOp(self, expr):
        result = self.tmp()
        first, *rest = expr.values
        pre, a = self.atom(first)
        out = pre + [ir.assign(result, a, like=self.stmt_line)]
        if rest:
            more, b = self.op_BoolOp(gast.BoolOp(op=expr.op, values=rest)) if len(rest) > 1 \
                else self.op(rest[0])
            then = more + [ir.assign(result, b, like=self.stmt_line)]
            test = ir.name(result) if isinstance(expr.op, gast.And) else ir.not_(ir.name(result))
            out.append(ir.if_(test, then, like=self.stmt_line))
        return out, ir.name(result)

    def op_IfExp(self, expr):
        result = self.tmp()
        pre, test = self.atom(expr.test)
        body_pre, a = self.op(expr.body)
        else_pre, b = self.op(expr.orelse)
        stmt = ir.if_(test, body_pre + [ir.assign(result, a, like=self.stmt_line)],
                      else_pre + [ir.assign(result, b, like=self.stmt_line)], like=self.stmt_line)
        return pre + [stmt], ir.name(result)

    def op_Tuple(self, expr):
        pre, atoms = self.atoms(expr.elts)
        return pre, gast.Tuple(elts=atoms, ctx=gast.Load())

    op_List = op_Tuple

    def op_Attribute(self, expr):
        folded = self.consts.constant(expr)
        if folded is not None:
            return [], folded
        if expr.attr in _ATTRS:
            pre, a = self.atom(expr.value, force_name=True)
            return pre, gast.Attribute(value=a, attr=expr.attr, ctx=gast.Load())
        if _is_numpy_type(ir.dotted_text(expr)):  # a dtype: `x.astype(np.float32)`
            return [], expr
        raise self.error(f"the attribute `.{expr.attr}` is not supported", self.stmt_line,
                         "supported attributes: .T .shape .size .ndim .dtype")

    def index(self, node):
        if isinstance(node, gast.Tuple):
            pre, parts = [], []
            for elt in node.elts:
                more, p = self.index(elt)
                pre += more
                parts.append(p)
            return pre, gast.Tuple(elts=parts, ctx=gast.Load())
        if isinstance(node, gast.Slice):
            pre, bounds = [], []
            for part in (node.lower, node.upper, node.step):
                if part is None:
                    bounds.append(None)
                else:
                    more, a = self.atom(part)
                    pre += more
                    bounds.append(a)
            return pre, gast.Slice(lower=bounds[0], upper=bounds[1], step=bounds[2])
        if isinstance(node, gast.List):  # `a[[i, j]]`: rows i and j, an integer array index
            pre, array = self.op_Call(ir.call("np.array", node), resolved="np.array")
            value = self.tmp()
            return pre + [ir.assign(value, array, like=self.stmt_line)], ir.name(value)
        return self.atom(node)

    def op_Subscript(self, expr):
        folded = self.consts.constant(expr.slice)
        k = folded.value if isinstance(folded, gast.Constant) else None
        if isinstance(expr.value, gast.Name) and expr.value.id in self.split:
            return [], ir.name(self.split[expr.value.id][k])  # an item of a split tuple
        if isinstance(expr.value, gast.Call) and isinstance(k, int):
            pre, op = self.op(expr.value)
            if isinstance(op, gast.Tuple) and -len(op.elts) <= k < len(op.elts):
                return pre, op.elts[k]  # an item of a tuple-valued call (registry.parts)
            count = self.items_returned(op)
            if count is not None and -count <= k < count:  # `hist = histogram(x)[0]`
                outs = [self.tmp() for _ in range(count)]
                pre.append(ir.assign(gast.Tuple(elts=[ir.name(o, True) for o in outs],
                                                ctx=gast.Store()), op, like=self.stmt_line))
                return pre, ir.name(outs[k])
            value = self.tmp()
            pre.append(ir.assign(value, op, like=self.stmt_line))
            return pre, gast.Subscript(value=ir.name(value), slice=expr.slice, ctx=gast.Load())
        pre, value = self.atom(expr.value, force_name=True)
        more, index = self.index(expr.slice)
        return pre + more, gast.Subscript(value=value, slice=index, ctx=gast.Load())

    def items_returned(self, op):
        """How many items the user's function that `op` calls returns, when each of its
        `return` statements gives a tuple of that many; else None."""
        if not (isinstance(op, gast.Call) and isinstance(op.func, gast.Name)
                and op.func.id in self.ctx.user_functions):
            return None
        try:
            node = FunctionSource(self.ctx.user_functions[op.func.id]).node
        except SrcadError:
            return None
        counts = {len(r.value.elts) if isinstance(r.value, gast.Tuple) else None
                  for r in _returns(node.body)}
        return counts.pop() if len(counts) == 1 else None

    def op_Call(self, expr, resolved=None):
        """A call whose callee ResolveCalls recorded (`ctx.calls`), or one this pass makes
        of a `resolved` rule name, with its arguments as atoms."""
        site = self.ctx.calls.get(expr)
        if site is None:
            rule = registry.by_name(resolved)
            site = CallSite("rule", resolved, rule)
        if site.rule is not None and site.rule.parts:
            return self.parts(site.rule, expr.args, expr.keywords)
        pre, atoms = [], []
        for a in expr.args:
            if site.rule is not None and site.rule.sequence and \
                    isinstance(a, (gast.Tuple, gast.List)):
                a = self.rows_as_arrays(a)
            more, at = (self.op_Tuple(a) if isinstance(a, (gast.Tuple, gast.List))
                        else self.atom(a))
            pre += more
            atoms.append(at)
        keywords = []
        for kw in expr.keywords:
            if kw.arg == "dtype" and site.kind == "rule":  # the type ResolveCalls named
                keywords.append(kw)
                continue
            literal = isinstance(kw.value, (gast.Tuple, gast.List)) and site.kind != "user"
            more, at = self.op_Tuple(kw.value) if literal else self.atom(kw.value)
            pre += more
            keywords.append(gast.keyword(arg=kw.arg, value=at))
        call = gast.Call(func=ir.dotted(site.name), args=atoms, keywords=keywords)
        self.ctx.calls[call] = site
        return pre, call

    def rows_as_arrays(self, seq):
        """A sequence literal that a joining rule takes (`np.array([[a, b], [c, d]])`,
        `np.stack`, `np.concatenate`), its elements that are literals themselves (rows)
        each as `np.array(row)`, as NumPy reads them: a join of arrays, never a tuple held
        in a variable."""
        elts, rule = [], registry.by_name("np.array")
        for e in seq.elts:
            if isinstance(e, (gast.Tuple, gast.List)):
                e = gast.copy_location(ir.call(rule.name, self.rows_as_arrays(e)), e)
                self.ctx.calls[e] = CallSite("rule", rule.name, rule)
            elts.append(e)
        return type(seq)(elts=elts, ctx=gast.Load())

    def parts(self, rule, args, keywords):
        """A tuple-valued call (`registry.parts`) as the tuple of its items' calls; a
        split into a number of pieces other than two as its pieces (`split_pieces`)."""
        count = split_count(rule, args, keywords, self.consts)
        if count is not None and count != 2:
            return self.split_pieces(rule, args, keywords, count)
        pre, atoms = self.atoms(args)
        items = []
        for name in rule.parts:
            more, call = self.op_Call(gast.Call(func=ir.dotted(name), args=atoms,
                                                keywords=keywords), resolved=name)
            tmp = self.tmp()
            pre += more + [ir.assign(tmp, call, like=self.stmt_line)]
            items.append(ir.name(tmp))
        return pre, gast.Tuple(elts=items, ctx=gast.Load())

    def split_pieces(self, rule, args, keywords, count):
        """A split (`numpy_splits.SPLITS`) into `count` pieces, not two, as its first
        piece's call and, after it, its tail's with `which=k`: `np.split(x, 3)` is
        `(rt.split_head(x, 3), rt.split_tail(x, 3, which=1), rt.split_tail(x, 3,
        which=2))`."""
        pre, atoms = self.atoms(args)
        items = []
        for k in range(count):
            name = rule.parts[min(k, 1)]
            which = [gast.keyword(arg="which", value=ir.const(k))] if k else []
            more, call = self.op_Call(gast.Call(func=ir.dotted(name), args=atoms,
                                                keywords=keywords + which), resolved=name)
            tmp = self.tmp()
            pre += more + [ir.assign(tmp, call, like=self.stmt_line)]
            items.append(ir.name(tmp))
        return pre, gast.Tuple(elts=items, ctx=gast.Load())


def _is_numpy_type(text):
    """Whether `text` (`np.float64`) names a NumPy scalar type, as a dtype argument does."""
    if not text or not text.startswith("np.") or text.count(".") != 1:
        return False
    obj = getattr(np, text[3:], None)
    return isinstance(obj, type) and issubclass(obj, np.generic)


def _returns(stmts):
    """The `return` statements of a function body (not of functions defined in it)."""
    out = []
    for s in stmts:
        if isinstance(s, gast.Return):
            out.append(s)
        elif isinstance(s, (gast.If, gast.For, gast.While, gast.With, gast.Try)):
            for field in ("body", "orelse", "finalbody"):
                out += _returns(getattr(s, field, []) or [])
            for h in getattr(s, "handlers", []) or []:
                out += _returns(h.body)
    return out

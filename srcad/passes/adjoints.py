"""Adjoint statements for one primal operation, instantiated from the rule templates."""
import copy
import functools

import gast

from codegen import fill
from srcad.passes import ir
from srcad.passes.activity import bound_args, names, statements
from srcad.passes.static_shapes import same_shape, static_shapes


class _SwapAns(gast.NodeTransformer):
    """`d[ans]` in a rule's template becomes `__d_ans__`, the result's adjoint."""

    def __init__(self, ans):
        self.ans = ans

    def visit_Subscript(self, sub):
        if isinstance(sub.value, gast.Name) and sub.value.id == "d" \
                and isinstance(sub.slice, gast.Name) and sub.slice.id == self.ans:
            return ir.name("__d_ans__")
        return self.generic_visit(sub)


@functools.lru_cache(maxsize=None)
def _replace_d(node, ans):
    """A copy of template expression `node` with `d[ans]` swapped for the result's
    adjoint: made once per template (a rule's templates live as long as the process), and
    only read, since `fill` copies it again."""
    return _SwapAns(ans).visit(copy.deepcopy(node))


def _imaginary(value):
    """Whether an adjoint contribution holds an imaginary constant (`-1j / z`)."""
    return any(isinstance(n, gast.Constant) and isinstance(n.value, complex)
               for n in ir.walk(value))


# arithmetic of two arrays, spelled as the helper that loops over them (srcad.runtime.loops)
_LOOPED = {gast.Mult: "rt.mul", gast.Div: "rt.div", gast.Add: "rt.add", gast.Sub: "rt.sub"}


def _node(indices):
    """An index array's name, or a copy of a tuple of them, as an argument."""
    return ir.name(indices) if isinstance(indices, str) else copy.deepcopy(indices)


def _whole(part):
    """Whether an index part is `:`."""
    return isinstance(part, gast.Slice) and part.lower is None and part.upper is None \
        and part.step is None


def _is_d_ans(value, d_ans):
    """Whether an adjoint contribution is the cotangent itself, or minus it."""
    if isinstance(value, gast.UnaryOp):
        value = value.operand
    return isinstance(value, gast.Name) and value.id == d_ans


class Adjoints:
    """Builds `d_x += ...` statements for assignments, reads, writes and calls."""

    def __init__(self, ctx):
        self.ctx = ctx

    def kind(self, atom):
        if isinstance(atom, gast.Name):
            return self.ctx.kinds[atom.id]
        if isinstance(atom, gast.Constant):
            return None
        return None

    def is_active(self, atom):
        return isinstance(atom, gast.Name) and atom.id in self.ctx.active

    def ndim(self, node):
        """The rank of an elementwise expression of an adjoint: a name's (an adjoint's is
        its variable's), the largest of an operation's operands or a call's arguments
        (elementwise, or reducing to a number that the helpers take too)."""
        if isinstance(node, gast.Name):
            kind = self.ctx.kinds.get(node.id)
            if kind is None:
                kind = self.ctx.kinds.get(self.ctx.adjoint_of.get(node.id))
            return getattr(kind, "ndim", 0)
        if isinstance(node, gast.BinOp):
            return max(self.ndim(node.left), self.ndim(node.right))
        if isinstance(node, gast.UnaryOp):
            return self.ndim(node.operand)
        if isinstance(node, gast.Call):
            return max([self.ndim(a) for a in node.args] + [0])
        return 0

    def looped(self, node):
        """`node` with each `+ - * /` and `-` of an array of two or more dimensions spelled
        as its helper, `rt.mul(a, b)`, `rt.neg(a)` (see srcad.runtime.loops): one loop,
        compiled once per type signature into Numba's disk cache and shared, where Numba
        compiles each operation into a loop nest of its own, which LLVM copies for every
        way each operand may broadcast. On vectors and numbers the operators stay."""
        if isinstance(node, gast.BinOp):
            node.left, node.right = self.looped(node.left), self.looped(node.right)
            if type(node.op) in _LOOPED and self.ndim(node) >= 2:
                return gast.copy_location(ir.call(_LOOPED[type(node.op)], node.left,
                                                  node.right), node)
            return node
        if isinstance(node, gast.UnaryOp):
            node.operand = self.looped(node.operand)
            if isinstance(node.op, gast.USub) and self.ndim(node.operand) >= 2:
                return gast.copy_location(ir.call("rt.neg", node.operand), node)
        elif isinstance(node, gast.Call):
            node.args = [self.looped(a) for a in node.args]
        return node

    def accumulate(self, atom, value, result_kind, broadcast, complex_value=False, t=None):
        """`d_atom += value`, summing `value` down to `atom`'s shape where it broadcast:
        not where the code says `atom` has the shape of the result `t` (see
        `srcad.passes.static_shapes`; `ctx.shaped_terms` records the term, which
        LeanArrayAdjoints may then assign). A `complex_value` added to a real variable's
        adjoint adds its real part: under JAX's convention, the derivative along the real
        axis."""
        k = self.kind(atom)
        rk = result_kind
        value = self.looped(value)
        if broadcast and rk is not None and getattr(rk, "ndim", 0) > 0:
            if k.ndim == 0:
                value = ir.call("np.sum", value)
            elif t is not None and same_shape(self.shapes(), atom.id, t) \
                    and not (complex_value and not k.is_complex):
                self.ctx.shaped_terms.add((self.ctx.d(atom.id), gast.dump(value)))
            else:
                value = ir.call("rt.unbroadcast", value, ir.name(atom.id))
        if complex_value and not k.is_complex:
            value = ir.call("np.real", value)
        target = ir.name(self.ctx.d(atom.id), store=True)
        return gast.AugAssign(target=target, op=gast.Add(), value=value)

    def assign(self, stmt):
        """Adjoint of `t = op(...)` where t is active (d_t is not cleared here)."""
        t = stmt.targets[0].id
        op = stmt.value
        if isinstance(op, gast.Name):
            if not self.is_active(op):
                return []
            if (getattr(self.kind(op), "ndim", 0) or 0) > 0:  # `t = op`: one shape
                self.ctx.shaped_terms.add((self.ctx.d(op.id), gast.dump(ir.name(self.ctx.d(t)))))
            return [self.accumulate(op, ir.name(self.ctx.d(t)), None, False)]
        if isinstance(op, gast.Subscript):
            return self.read(t, op)
        rule, bound = bound_args(op, self.ctx)
        if rule is None or not rule.body:
            return []
        return self.instantiate(rule, t, bound)

    def shapes(self):
        """The shapes the code tells (`srcad.passes.static_shapes`), found once."""
        if self.ctx.static_shapes is None:
            self.ctx.static_shapes = static_shapes(
                self.ctx.fnode, self.ctx.kinds, lambda op: bound_args(op, self.ctx))
        return self.ctx.static_shapes

    def masked(self):
        """Variables whose cotangent may be zero because a mask (`np.where`, `maximum`,
        `minimum`, `clip`, `max`, `min`, `np.triu`) routed nothing to them or because they
        are read only under an `if` or in a loop that may not run them (`r = np.sqrt(d)`,
        then `if i != j: s += r`), and the variables computed on the way to them: their
        adjoints treat a zero cotangent as a strong zero. (Not
        arrays whose elements a write overwrote: there a zero cotangent may also be a
        value, `3 * a ** 2` at `a = 0`, and 0 * inf is then the honest NaN.)"""
        if self.ctx.masked is not None:
            return self.ctx.masked
        body = self.ctx.fnode.body
        masked, defs = _read_conditionally(body) | _faint(body), []
        for s, _ in statements(body):
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
                rule, bound = bound_args(s.value, self.ctx)
                operands = names([bound[p] for p in rule.diff if bound.get(p) is not None]) \
                    if rule is not None else names([s.value])
                if rule is not None and rule.masks:
                    masked |= set(operands)
                defs.append((s.targets[0].id, operands))
        changed = True
        while changed:
            changed = False
            for t, operands in defs:
                if t in masked and not set(operands) <= masked:
                    masked |= set(operands)
                    changed = True
        self.ctx.masked = masked
        return masked

    def instantiate(self, rule, t, bound):
        repl = {}
        for p in rule.params[1:]:
            atom = bound.get(p)
            repl[p] = atom if atom is not None else ir.const(rule.defaults.get(p))
        repl[rule.params[0]] = t
        repl["__d_ans__"] = self.ctx.d(t)
        complex_value = self.ctx.kinds[t].is_complex or any(
            getattr(self.kind(a), "is_complex", False) for a in bound.values()
            if isinstance(a, gast.Name))
        out = []
        for tmpl in rule.body:
            p = tmpl.target.slice.id
            atom = repl.get(p)
            value = fill([_replace_d(tmpl.value, rule.params[0])], repl)[0]
            if isinstance(atom, (gast.Tuple, gast.List)):
                out += self.sequence(rule, t, atom, bound)
            elif self.is_active(atom):
                if rule.broadcast and t in self.masked() and \
                        not _is_d_ans(value, self.ctx.d(t)):
                    value = self.strong(t, value)
                out.append((atom, value))
        return [self.accumulate(term[0], term[1], self.ctx.kinds[t], rule.broadcast,
                                complex_value or _imaginary(term[1]), t)
                if isinstance(term, tuple) else term for term in self.twins(out)]

    def strong(self, t, value):
        """`value`, or 0 where the cotangent of `t` is 0: `rt.strong` on arrays; of a number
        `0.0 if d_t == 0.0 else value`, which does not compute `value` then (an infinite
        derivative, `0.5 / r` at `r == 0`, would raise ZeroDivisionError in Python's
        arithmetic and in compiled code)."""
        d = ir.name(self.ctx.d(t))
        if self.ndim(ir.name(t)):
            return ir.call("rt.strong", d, value)
        zero = gast.Compare(left=d, ops=[gast.Eq()], comparators=[ir.const(0.0)])
        return gast.IfExp(test=zero, body=ir.const(0.0), orelse=value)

    def twins(self, terms):
        """Two equal terms in a row into an array of two or more dimensions (`x * x` adds
        `d_ans * x` twice) as one term of twice the value, computed once (`2.0 * e` is
        `e + e` exactly)."""
        out = []
        for term in terms:
            prev = out[-1] if out else None
            if isinstance(term, tuple) and isinstance(prev, tuple) and \
                    prev[0].id == term[0].id and self.ndim(term[0]) >= 2 and \
                    gast.dump(prev[1]) == gast.dump(term[1]):
                out[-1] = (term[0], gast.BinOp(left=ir.const(2.0), op=gast.Mult(),
                                               right=term[1]))
                continue
            out.append(term)
        return out

    def sequence(self, rule, t, seq, bound):
        """concatenate/stack/hstack/vstack/column_stack: each active element gets its
        piece of d_t."""
        axis = bound.get("axis")
        axis = 0 if axis is None else axis.value
        ndim = self.ctx.kinds[t].ndim
        axis = (1 if rule.sequence == "hstack" and ndim > 1 or
                rule.sequence == "column_stack" else axis) % ndim
        out, offset = [], None
        for k, elt in enumerate(seq.elts):
            lead = [gast.Slice(lower=None, upper=None, step=None)] * axis
            if rule.sequence == "stack":
                index = lead + [ir.const(k)]
            elif rule.sequence in ("vstack", "column_stack") and \
                    self.ctx.kinds[elt.id].ndim == 1:  # one row (column) of the result
                at = offset if offset is not None else ir.const(0)
                index = lead + [at]
                offset = gast.BinOp(left=at, op=gast.Add(), right=ir.const(1))
            else:
                size = gast.Subscript(value=gast.Attribute(value=ir.name(elt.id), attr="shape",
                                                           ctx=gast.Load()),
                                      slice=ir.const(axis), ctx=gast.Load())
                start = offset if offset is not None else ir.const(0)
                stop = size if offset is None else gast.BinOp(left=offset, op=gast.Add(),
                                                              right=size)
                index = lead + [gast.Slice(lower=start, upper=stop, step=None)]
                offset = stop
            piece = gast.Subscript(value=ir.name(self.ctx.d(t)),
                                   slice=gast.Tuple(elts=index, ctx=gast.Load())
                                   if len(index) > 1 else index[0], ctx=gast.Load())
            if self.is_active(elt):
                out.append(self.accumulate(elt, piece, None, False,
                                           self.ctx.kinds[t].is_complex))
        return out

    def read(self, t, op):
        """`t = x[index]`: the adjoint flows back into d_x[index]."""
        x = op.value
        if not self.is_active(x) or t in self.ctx.view_adjoints:
            return []
        picked = self.advanced(op.slice)
        if picked:
            view, indices, along, axis = picked
            d_view = self.moved(self.view_of(self.ctx.d(x.id), view), along, 0)
            return [gast.Expr(value=ir.call("rt.scatter_add", d_view, _node(indices),
                                            self.moved(ir.name(self.ctx.d(t)), axis, 0)))]
        if self.ctx.kinds[t].ndim > 0 and self.basic(op.slice):
            piece = gast.Subscript(value=ir.name(self.ctx.d(x.id)),
                                   slice=copy.deepcopy(op.slice), ctx=gast.Load())
            self.ctx.view_reads.add((self.ctx.d(x.id), gast.dump(op.slice), self.ctx.d(t)))
            return [gast.Expr(value=ir.call("rt.add_to", piece, ir.name(self.ctx.d(t))))]
        target = gast.Subscript(value=ir.name(self.ctx.d(x.id)), slice=copy.deepcopy(op.slice),
                                ctx=gast.Store())
        return [gast.AugAssign(target=target, op=gast.Add(), value=ir.name(self.ctx.d(t)))]

    def basic(self, index):
        """Whether `index` selects a view: slices, numbers and `None`, no array (a mask).
        `rt.add_to(d_x[index], d_t)` adds into that view in one loop, where `d_x[index] +=
        d_t` also copies the slice and checks its shape with a formatted error message,
        which Numba compiles for seconds."""
        return all(getattr(self.ctx.kinds.get(n.id), "ndim", 1) == 0 for n in ir.names(index))

    def fancy(self, index):
        """Whether `index` holds an integer array (a boolean mask does not: it selects
        each element once, so `d_x[m] += d_t` is exact)."""
        return self.advanced(index) is not None

    def advanced(self, index):
        """For an index holding an integer array among integers and slices (`c`,
        `(:, c)`, `(i, c, 1:)`): (the basic index with `:` in the array's place, or None
        where that is every axis; the array's name (for arrays picking together,
        `x[r, c]`: their tuple); the axis of that view the array picks
        along; the axis of the result where NumPy puts the array's axes). None for an
        index without an integer array. NumPy's `d_x[index] += d_t`
        adds once where the array repeats an index: these adjoints add each copy."""
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        at = [k for k, p in enumerate(parts) if isinstance(p, gast.Name)
              and self.ctx.kinds[p.id].is_array and self.ctx.kinds[p.id].dtype != "b"]
        if not at:
            return None
        if len(at) > 1:  # `x[r, c]`, arrays first (InferKinds): rt.scatter_add picks
            return None, gast.Tuple(elts=[copy.deepcopy(parts[k]) for k in at],
                                    ctx=gast.Load()), 0, 0
        if not all(self.basic_part(p) for k, p in enumerate(parts) if k not in at):
            raise self.ctx.fsrc.error(
                "an integer array in a subscript beside `None` or a tuple", self.ctx.current,
                "index with integers, slices and one integer array: `x[:, c]`, `x[i, c]`")
        k = at[0]
        # integers count as indices of the array's kind (NumPy broadcasts them with it):
        # next to it, the array's axes replace theirs in place; apart, they come first
        picks = [j for j, p in enumerate(parts) if j == k or not isinstance(p, gast.Slice)]
        along = sum(isinstance(p, gast.Slice) for p in parts[:k])
        axis = along if picks == list(range(picks[0], picks[-1] + 1)) else 0
        whole = gast.Slice(lower=None, upper=None, step=None)
        view = [copy.deepcopy(p) for p in parts[:k]] + [whole] + \
            [copy.deepcopy(p) for p in parts[k + 1:]]
        while view and _whole(view[-1]):
            view.pop()
        return view or None, parts[k].id, along, axis

    def basic_part(self, part):
        """Whether an index part is a slice or an integer."""
        if isinstance(part, gast.Constant):
            return isinstance(part.value, int) and not isinstance(part.value, bool)
        kind = self.ctx.kinds.get(part.id) if isinstance(part, gast.Name) else None
        return isinstance(part, gast.Slice) or getattr(kind, "ndim", None) == 0 and \
            getattr(kind, "dtype", None) == "i"

    def view_of(self, name, view):
        """`name[view]` (a view: the index is basic), or `name` for a None view."""
        if view is None:
            return ir.name(name)
        return gast.Subscript(value=ir.name(name), slice=gast.Tuple(elts=view, ctx=gast.Load())
                              if len(view) > 1 else view[0], ctx=gast.Load())

    @staticmethod
    def moved(array, source, destination):
        """`np.moveaxis(array, source, destination)`, or `array` when they are one axis."""
        if source == destination:
            return array
        return ir.call("np.moveaxis", array, ir.const(source), ir.const(destination))

    def write(self, stmt, item_kind):
        """`x[index] = v`: d_x[index] moves into d_v and is cleared."""
        target = stmt.targets[0]
        x, index, v = target.value.id, target.slice, stmt.value
        picked = self.advanced(index)
        if picked:
            view, indices, along, axis = picked
            taken = self.moved(ir.call("rt.take_written", self.moved(
                self.view_of(self.ctx.d(x), view), along, 0), _node(indices)), 0, axis)
            if not self.is_active(v):
                return [gast.Expr(value=taken)]
            if self.kind(v).ndim == 0:
                taken = ir.call("np.sum", taken)
            elif self.kind(v).ndim < item_kind.ndim:  # `v` broadcast to the selection
                taken = ir.call("rt.unbroadcast", taken, ir.name(v.id))
            if self.ctx.kinds[x].is_complex and not self.kind(v).is_complex:
                taken = ir.call("np.real", taken)
            return [gast.AugAssign(target=ir.name(self.ctx.d(v.id), store=True), op=gast.Add(),
                                   value=taken)]
        piece = gast.Subscript(value=ir.name(self.ctx.d(x)), slice=copy.deepcopy(index),
                               ctx=gast.Load())
        out = []
        if self.is_active(v):
            vk = self.kind(v)
            value = piece
            if item_kind.ndim > 0 and vk.ndim == 0:
                value = ir.call("np.sum", piece)
            elif item_kind.ndim > 0:
                value = ir.call("rt.unbroadcast", piece, ir.name(v.id))
            if item_kind.is_complex and not vk.is_complex:  # a real value stored as complex
                value = ir.call("np.real", value)
            out.append(gast.AugAssign(target=ir.name(self.ctx.d(v.id), store=True), op=gast.Add(),
                                      value=value))
        clear = gast.Subscript(value=ir.name(self.ctx.d(x)), slice=copy.deepcopy(index),
                               ctx=gast.Store())
        out.append(ir.assign(clear, ir.const(0.0)))
        return out


def _faint(stmts):
    """The names bound somewhere to a value that reaches no result (`z *= e` in a branch or
    a loop, `z` not read afterwards except by such updates): the cotangent of that value
    is zero, whatever the derivatives on the way to it (`0.5 / sqrt(r)` at `r == 0`).
    Backward liveness in which an assignment makes its operands live only when its target
    is (faint variables); tests, loop bounds and other statements make theirs live.

    >>> import gast
    >>> fn = gast.parse('''def f(x, z):
    ...     tmp1 = abs(z)
    ...     s = x * tmp1
    ...     for i in range(3):
    ...         tmp2 = x - x
    ...         tmp3 = math.sqrt(tmp2)
    ...         tmp4 = z * tmp3
    ...         z = tmp4
    ...     return s''').body[0]
    >>> sorted(_faint(fn.body))
    ['tmp2', 'tmp3', 'tmp4', 'z']
    """
    return _Faint().names(stmts)


class _Faint:
    def names(self, stmts):
        self.found = None
        self.block(stmts, set())
        self.found = set()  # recorded once the loops' fixed points are known
        self.block(stmts, set())
        return self.found

    def block(self, stmts, live):
        for s in reversed(stmts):
            live = self.stmt(s, live)
        return live

    def stmt(self, s, live):
        if isinstance(s, gast.If):
            return self.block(s.body, set(live)) | self.block(s.orelse, set(live)) | \
                _loads(s.test)
        if isinstance(s, (gast.For, gast.While)):
            found, self.found = self.found, None
            head = set(live)
            while True:  # live at the top of the body: over the back edge, to a fixed point
                new = head | self.block(s.body, head | live)
                if new == head:
                    break
                head = new
            self.found = found
            self.block(s.body, head | live)
            after = self.block(s.orelse, set(live)) | live
            return head | after | _loads(s.iter if isinstance(s, gast.For) else s.test)
        if isinstance(s, gast.Assign) and all(isinstance(t, gast.Name) for t in s.targets):
            bound = {t.id for t in s.targets}
            if not bound & live:
                if self.found is not None:
                    self.found |= bound
                return live
            return (live - bound) | _loads(s.value)
        return live | _loads(s)


def _loads(node):
    return {n.id for n in ir.names(node) if isinstance(n.ctx, gast.Load)}


def _read_conditionally(stmts):
    """The names assigned in a block and read only inside the `if`s nested in it, on one
    of their paths (not by the block's own statements, the tests, or its loops): when the
    branch is not taken, their cotangent is zero because nothing read them."""
    out = set()
    defined, direct, nested = set(), set(), set()
    for s in stmts:
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            defined.add(s.targets[0].id)
        if isinstance(s, gast.If):
            direct.update(n.id for n in ir.names(s.test) if isinstance(n.ctx, gast.Load))
            body, orelse = ({n.id for inner in branch for n in ir.names(inner)
                             if isinstance(n.ctx, gast.Load)} for branch in (s.body, s.orelse))
            direct |= body & orelse  # read on either path
            nested |= body ^ orelse
        else:
            direct.update(n.id for n in ir.names(s) if isinstance(n.ctx, gast.Load))
        if isinstance(s, (gast.If, gast.For, gast.While)):
            out |= _read_conditionally(s.body) | _read_conditionally(s.orelse)
    return out | ((defined & nested) - direct)

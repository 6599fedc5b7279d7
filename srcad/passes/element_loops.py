"""ElementLoops: a run of a reverse sweep's elementwise statements over arrays of one shape
becomes one loop over their elements, when Numba compiles the sweep.

The adjoint of vectorized code is a chain of elementwise operations (`rt.mul_alike(d_e,
t)`, `rt.strong(g, ...)`, `rt.neg(d_t)`), each of which, compiled, is a pass over memory
that writes a new array; the next reads it back. Where SameShapeLoops' static shapes tell
that every array a run of consecutive statements reads has one shape, and each statement
assigns a name an array of that shape, the run moves into a function of its own, the
*kernel*, whose statements are the run's own, and the sweep calls the kernel's *loop*:

- run by Python (`jit=False`, or `jit="auto"` before it compiles), the loop calls the
  kernel on the whole arrays (`ELEMENT_LOOPS` is False in that module): the same
  statements as before, on the same arrays;
- compiled by Numba, it is one loop over the elements that calls the kernel on numbers
  (the helpers are the operators on numbers), so that the run's temporaries stay in
  registers and only what the sweep reads after the run is written to memory.

The values are the same: the same operations on the same elements, in the same order. An
addition into an array, `rt.add_to(t, g)`, is `t = rt.added(t, g)` in the kernel (in
place on an array, `t + g` on numbers): into an array the run made, when no other name
of the run sees it; into one made before the run, when no other name of the whole sweep
can see its memory (`_sole_arrays`: no copy of the name, no view of it), which the loop
then writes in place, element by element. The cotangent of a reduction along an axis
spread over the run's shape (`rt.filled(rt.expand(g, 2), t_shape)`, the adjoint of
`np.sum(t, axis=2)`) is `rt.spread(g, 2, t_shape)` in the kernel, which the loop gives
`g`'s element on its line, so that the spread array is never made. A run becomes a
kernel only when it saves at least two passes over memory, that is, when it has at least
two operations on arrays more than the arrays it writes: each kernel and its loop cost
Numba a compile of their own (a tenth of a second or two), which fewer saved passes do
not pay back.

>>> import gast
>>> from codegen import to_source
>>> from srcad.rules.typing import Kind
>>> fn = gast.parse('''def f_rev(x, tape, d_out):
...     r, t = tape
...     d_x = np.zeros_like(x)
...     d_e = rt.filled(d_out, r)
...     d_t = rt.neg(d_e)
...     d_r = rt.strong(d_t, rt.mul_alike(rt.mul(2.0, d_t), r))
...     rt.add_to(d_r, rt.mul_alike(d_e, t))
...     rt.add_to_alike(d_x, rt.mul_alike(d_r, r))
...     return d_x, d_r''').body[0]
>>> shapes = {v: (("arg", "x", 0),) for v in ("x", "r", "t", "e")}
>>> kinds = {v: Kind("f", 1) for v in ("x", "r", "t", "e")}
>>> adjoints = {"x": "d_x", "r": "d_r", "t": "d_t", "e": "d_e"}
>>> from codegen.names import Namer
>>> rev, kernels = ElementLoops(shapes, kinds, adjoints, "f_rev", Namer(set()).fresh).run(fn)
>>> print(to_source(rev).strip())
def f_rev(x, tape, d_out):
    r, t = tape
    d_x = np.zeros_like(x)
    d_e = rt.filled(d_out, r)
    d_r, d_x = f_rev_loop1(d_e, r, t, d_x)
    return d_x, d_r
>>> for f in kernels:
...     print(to_source(f).strip())
def f_rev_kernel1(d_e, r, t, d_x):
    d_t = rt.neg(d_e)
    d_r = rt.strong(d_t, rt.mul_alike(rt.mul(2.0, d_t), r))
    d_r = rt.added(d_r, rt.mul_alike(d_e, t))
    d_x = rt.added(d_x, rt.mul_alike(d_r, r))
    return d_r, d_x
def f_rev_loop1(d_e, r, t, d_x):
    if not ELEMENT_LOOPS:
        return f_rev_kernel1(d_e, r, t, d_x)
    shape = d_e.shape
    rt.same_shape(shape, r.shape)
    rt.same_shape(shape, t.shape)
    rt.same_shape(shape, d_x.shape)
    out0 = np.empty(shape)
    for i0 in range(shape[0]):
        v0, v1 = f_rev_kernel1(d_e[i0], r[i0], t[i0], d_x[i0])
        out0[i0] = v0
        d_x[i0] = v1
    return out0, d_x

`d_e` spreads `d_out` over `r`'s shape with a helper that is not elementwise: it stays
before the run. The sweep reads two arrays after the run: `d_r`, which the loop makes,
and `d_x`, which it adds into in place.
"""
import copy

import gast

from codegen.emit import is_comment
from codegen.jit import LOOPS_FLAG
from srcad.passes import ir
from srcad.passes.lean_array_adjoints import fresh_array, helper_fact
from srcad.passes.same_shape_loops import _HELPERS, NUMBER, SameShapeLoops, _elementwise

_ADD_TO = ("rt.add_to", "rt.add_to_alike")
_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)


class ElementLoops:
    """Transformation of one reverse sweep named `name` (see the module): `shapes` are the
    static shapes of the primal's variables, `kinds` their kinds, `adjoints` maps each
    variable to its adjoint's name, `fresh(stem)` gives a new name in the module. `run`
    returns the sweep and the functions it now calls (kernels and loops)."""

    needs = ("kinds", "adjoint_names")
    provides = ("element_functions",)

    def __init__(self, shapes, kinds, adjoints, name, fresh):
        self.shapes = SameShapeLoops(shapes, kinds, adjoints)
        self.kinds = kinds
        self.primal_of = {d: v for v, d in adjoints.items()}
        self.name, self.fresh = name, fresh
        self.functions = []

    def run(self, fn):
        self.loads = {}
        for n in ir.names(fn):
            if isinstance(n.ctx, gast.Load):
                self.loads[n.id] = self.loads.get(n.id, 0) + 1
        self.sole = _sole_arrays(fn)
        fn.body = self._block(fn.body)
        return fn, self.functions

    def _block(self, body):
        out, run, run_shape = [], [], None
        for s in body:
            for field in ("body", "orelse"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and not isinstance(s, gast.FunctionDef):
                    setattr(s, field, self._block(inner))
            if run and is_comment(s):  # `# grad of: ...` lines go with the run
                run.append(s)
                continue
            shape = self._shape_of(s, run)
            if shape is not None and (not run or shape == run_shape):
                run.append(s)
                run_shape = shape
                continue
            out += self._fused(run, run_shape)
            shape = self._shape_of(s, [])
            run, run_shape = ([s], shape) if shape is not None else ([], None)
            if shape is None:
                out.append(s)
        return out + self._fused(run, run_shape)

    def _shape_of(self, s, run):
        """The static shape of the array that statement `s` assigns, when `s` can be in a
        run (after `run`): `name = <elementwise expression>`, or an addition into an
        array the run made or one that no other name of the sweep sees; else None."""
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
                and ir.dotted_text(s.value.func) in _ADD_TO and len(s.value.args) == 2 \
                and not s.value.keywords and isinstance(s.value.args[0], gast.Name):
            t, g = s.value.args
            if any(isinstance(x, gast.Assign) and x.targets[0].id == t.id for x in run):
                if not self._made_alone(t.id, run):
                    return None
            elif t.id not in self.sole:
                return None
            shape = self.shapes.shape(t)
            if shape in (None, NUMBER) or not self._array_of(t, shape):
                return None
            return shape if self._elementwise(g) and self._array_of(g, shape) else None
        spread = self._spread_of(s)
        if spread is not None:
            return spread[3]
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name) and self._elementwise(s.value)):
            return None
        t = s.targets[0].id
        kind = self.kinds.get(self.primal_of.get(t, t))
        shape = self.shapes.shape(s.value)
        if getattr(kind, "dtype", None) != "f" or shape in (None, NUMBER) \
                or self.shapes.shape(s.targets[0]) not in (None, shape):
            return None
        return shape if self._array_of(s.value, shape) else None

    def _spread_of(self, s):
        """(`g`, axis, the shape's name, the shape) of `t = rt.filled(rt.expand(g, axis),
        t_shape)`, the cotangent of a reduction along `axis` spread over `t`'s shape,
        which the loop reads as `g`'s element on its line; else None."""
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call)
                and ir.dotted_text(s.value.func) == "rt.filled" and len(s.value.args) == 2
                and not s.value.keywords and isinstance(s.value.args[1], gast.Name)):
            return None
        inner, named = s.value.args
        if not (isinstance(inner, gast.Call) and ir.dotted_text(inner.func) == "rt.expand"
                and len(inner.args) == 2 and not inner.keywords
                and isinstance(inner.args[0], gast.Name)
                and isinstance(inner.args[1], gast.Constant)
                and type(inner.args[1].value) is int):
            return None
        t, g = s.targets[0], inner.args[0]
        shape = self.shapes.shape(t)
        kinds = [self.kinds.get(self.primal_of.get(n.id, n.id)) for n in (t, g)]
        if shape in (None, NUMBER) or len(shape) < 2 \
                or any(getattr(k, "dtype", None) != "f" for k in kinds):
            return None
        axis = inner.args[1].value
        if not -len(shape) <= axis < len(shape):
            return None
        axis %= len(shape)
        if self.shapes.shape(g) != shape[:axis] + shape[axis + 1:]:
            return None
        return g.id, axis, named.id, shape

    def _array_of(self, e, shape):
        """Whether every name `e` reads is a real number or an array of `shape` (of
        floats, integers or booleans)."""
        for n in _operands(e):
            found = self.shapes.shape(n)
            kind = self.kinds.get(self.primal_of.get(n.id, n.id))
            if found == NUMBER and getattr(kind, "dtype", "f") in "bif":
                continue
            if found != shape or getattr(kind, "dtype", None) not in ("b", "i", "f"):
                return False
        return True

    def _elementwise(self, e):
        """Names, numbers and the arithmetic the helpers and operators do elementwise."""
        if isinstance(e, gast.Name):
            return True
        if isinstance(e, gast.Constant):
            return type(e.value) in (int, float)
        if isinstance(e, gast.UnaryOp):
            return isinstance(e.op, (gast.USub, gast.UAdd)) and self._elementwise(e.operand)
        if isinstance(e, gast.BinOp):
            if isinstance(e.op, gast.Pow) and self.shapes.shape(e.right) != NUMBER:
                return False
            return isinstance(e.op, _OPS) and self._elementwise(e.left) \
                and self._elementwise(e.right)
        if isinstance(e, gast.Call) and not e.keywords and _elementwise_call(e):
            return all(self._elementwise(a) for a in e.args)
        return False

    def _made_alone(self, t, run):
        """Whether the run made array `t` anew and no other name of it sees the array."""
        made = [s for s in run if isinstance(s, gast.Assign) and s.targets[0].id == t]
        if not made or not fresh_array(made[-1].value):
            return False
        after = run[run.index(made[-1]) + 1:]
        return not any(isinstance(s, gast.Assign) and isinstance(s.value, gast.Name)
                       and s.value.id == t for s in after)

    def _fused(self, run, shape):
        """The statements that replace `run`: a call of its loop, or `run` itself; a
        comment at its end belongs to what follows."""
        tail = []
        while run and is_comment(run[-1]):
            tail.insert(0, run.pop())
        return self._fused_run(run, shape) + tail

    def _fused_run(self, run, shape):
        spreads = [self._spread_of(s) for s in run]
        operations = sum(1 for s in run for n in ir.walk(s.value)
                         if isinstance(n, (gast.Call, gast.BinOp, gast.UnaryOp))
                         and not (isinstance(n, gast.Call)
                                  and ir.dotted_text(n.func) in _ADD_TO)
                         and self.shapes.shape(n) not in (None, NUMBER))
        operations += sum(1 for found in spreads if found is not None)
        operations += sum(1 for s in run if isinstance(s, gast.Expr) and not is_comment(s))
        roles = {}  # operand -> "array", "number", "shape" or the axis it is spread along
        for found in spreads:
            if found is not None:
                g, axis, named, _ = found
                if roles.get(g, axis) != axis:
                    return run
                roles[g], roles[named] = axis, "shape"
        assigned, inputs = [], []
        for s in run:
            if is_comment(s):
                continue
            for n in _operands(s.value):
                if n.id not in assigned and n.id not in inputs:
                    inputs.append(n.id)
            target = s.targets[0].id if isinstance(s, gast.Assign) else s.value.args[0].id
            if target not in assigned:
                assigned.append(target)
        inside = {}
        for s in run:
            for n in ir.names(s):
                if isinstance(n.ctx, gast.Load):
                    inside[n.id] = inside.get(n.id, 0) + 1
        made = {s.targets[0].id for s in run if isinstance(s, gast.Assign)}
        into = [t for t in assigned if t not in made]  # arrays added into in place
        # a result: read after the run, or before it (in a loop, by the next iteration)
        outputs = [t for t in assigned
                   if t in inputs or self.loads.get(t, 0) > inside.get(t, 0)]
        if not outputs or not all(self._new(t, run, outputs) for t in outputs):
            return run
        if operations - len(outputs) < 2:  # passes saved: too few to pay for a compile
            return run
        for v in inputs:
            if v not in roles:
                roles[v] = "number" if self.shapes.shape(ir.name(v)) == NUMBER else "array"
        if not any(roles[v] in ("array", "shape") for v in inputs):
            return run
        kernel = self.fresh(f"{self.name}_kernel")
        loop = self.fresh(f"{self.name}_loop")
        self.functions += [self._kernel(kernel, run, spreads, inputs, outputs),
                           self._loop(loop, kernel, inputs, roles, outputs, into,
                                      len(shape))]
        call = ir.call(ir.name(loop), *[ir.name(v) for v in inputs])
        target = ir.name(outputs[0], store=True) if len(outputs) == 1 else gast.Tuple(
            elts=[ir.name(t, store=True) for t in outputs], ctx=gast.Store())
        return [ir.assign(target, call, like=run[0])]

    @staticmethod
    def _new(t, run, outputs):
        """Whether the run's last value of `t` is an array no other name sees after it
        (compiled, each result of the loop is a new array): a new array, or a copy of the
        name of one that the run made and that is not a result itself."""
        last = [s for s in run if isinstance(s, gast.Assign) and s.targets[0].id == t]
        if not last:  # only added into, in place (see `_shape_of`)
            return True
        value = last[-1].value
        if isinstance(value, gast.Name):
            made = [s for s in run[:run.index(last[-1])]
                    if isinstance(s, gast.Assign) and s.targets[0].id == value.id]
            return value.id not in outputs and bool(made) and fresh_array(made[-1].value)
        return fresh_array(value)

    @staticmethod
    def _kernel(name, run, spreads, inputs, outputs):
        body = []
        for s, found in zip(run, spreads):
            s = copy.deepcopy(s)
            if isinstance(s, gast.Expr) and not is_comment(s):  # an addition, in place
                t, g = s.value.args
                s = ir.assign(t.id, ir.call("rt.added", ir.name(t.id), g), like=s)
            elif found is not None:  # a reduction's cotangent, spread
                g, axis, named, _ = found
                s.value = ir.call("rt.spread", ir.name(g), ir.const(axis), ir.name(named))
            body.append(s)
        result = ir.name(outputs[0]) if len(outputs) == 1 else gast.Tuple(
            elts=[ir.name(t) for t in outputs], ctx=gast.Load())
        body.append(gast.Return(value=result))
        return _function(name, inputs, body)

    @staticmethod
    def _loop(name, kernel, inputs, roles, outputs, into, ndim):
        """The loop of `kernel` over the elements of its operands (`roles`: each is an
        array of the loop's shape, a number, that shape itself, or an array spread along
        an axis, read at the index without it): the arrays it makes are new, those
        added into (`into`) are written in place."""
        axes = [f"i{a}" for a in range(ndim)]
        index = ", ".join(axes)

        def item(v):
            role = roles[v]
            if role == "array":
                return f"{v}[{index}]"
            if isinstance(role, int):
                return f"{v}[{', '.join(axes[:role] + axes[role + 1:])}]"
            return v

        def check(v):
            role = roles[v]
            if role in ("array", "shape"):
                return f"rt.same_shape(shape, {v if role == 'shape' else v + '.shape'})"
            kept = [f"shape[{a}]" for a in range(ndim) if a != role]
            return f"rt.same_shape(({', '.join(kept)}{',' if len(kept) == 1 else ''}), " \
                f"{v}.shape)"

        whole = ", ".join(inputs)
        items = ", ".join(item(v) for v in inputs)
        first = next(v for v in inputs if roles[v] in ("array", "shape"))
        outs = [t if t in into else f"out{j}" for j, t in enumerate(outputs)]
        lines = [f"def {name}({whole}):",
                 f"    if not {LOOPS_FLAG}:",
                 f"        return {kernel}({whole})",
                 f"    shape = {first if roles[first] == 'shape' else first + '.shape'}"]
        lines += [f"    {check(v)}" for v in inputs if v != first and roles[v] != "number"]
        lines += [f"    {o} = np.empty(shape)" for o, t in zip(outs, outputs) if t not in into]
        for a in range(ndim):
            lines.append("    " * (a + 1) + f"for i{a} in range(shape[{a}]):")
        pad = "    " * (ndim + 1)
        if len(outs) == 1:
            lines.append(f"{pad}{outs[0]}[{index}] = {kernel}({items})")
        else:
            values = [f"v{j}" for j in range(len(outs))]
            lines.append(f"{pad}{', '.join(values)} = {kernel}({items})")
            lines += [f"{pad}{o}[{index}] = {v}" for o, v in zip(outs, values)]
        lines.append(f"    return {', '.join(outs)}")
        return gast.parse("\n".join(lines)).body[0]


def _sole_arrays(fn):
    """The names of arrays of `fn` that no other name sees: every value assigned to one
    is a new array, and every read of it makes a new array from it, adds into it, adds it
    into another or returns it (never `b = a`, a view `a[1:]`, or a helper that may
    return its argument, `rt.strong(g, a)`)."""
    values, parent = {}, ir.parents(fn)
    for node in ir.walk(fn):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name):
            values.setdefault(node.targets[0].id, []).append(node.value)
    out = {v for v, vs in values.items() if all(_new_array(x) for x in vs)}
    for n in ir.names(fn):
        if n.id in out and not (isinstance(n.ctx, gast.Load) and _reads_only(n, parent)
                                or isinstance(parent.get(n), gast.Assign)
                                and parent[n].targets == [n]):
            out.discard(n.id)
    return out


def _new_array(value):
    """Whether `value` is a new array: arithmetic, a fresh helper, zeros, a copy."""
    if not isinstance(value, gast.Call):
        return fresh_array(value)
    copied = isinstance(value.func, gast.Attribute) and value.func.attr == "copy" \
        and not value.args and not value.keywords
    return copied or fresh_array(value) \
        or ir.dotted_text(value.func) in ("np.zeros_like", "np.zeros", "np.empty")


def _reads_only(n, parent):
    """Whether the read `n` only reads its array (or adds into it)."""
    up = parent.get(n)
    if isinstance(up, (gast.BinOp, gast.UnaryOp, gast.Return)):
        return True
    if isinstance(up, gast.Tuple) and isinstance(parent.get(up), gast.Return):
        return True
    if isinstance(up, gast.Call) and any(a is n for a in up.args):
        if ir.dotted_text(up.func) in _ADD_TO or helper_fact(up.func, "fresh") is True:
            return True
        ufunc = ir.spelled_ufunc(up.func)  # an input of it, not its output
        return ufunc is not None and any(a is n for a in up.args[:ufunc.nin])
    return False


def _operands(e):
    """The names `e` reads as values (not the `rt` of `rt.mul`), in order."""
    out, todo = [], [e]
    while todo:
        n = todo.pop(0)
        if isinstance(n, gast.Name):
            out.append(n)
        elif isinstance(n, gast.Call):
            todo += n.args
        elif isinstance(n, gast.BinOp):
            todo += [n.left, n.right]
        elif isinstance(n, gast.UnaryOp):
            todo.append(n.operand)
    return out


def _elementwise_call(call):
    """The helpers of one shape, and NumPy's elementwise functions that are ufuncs (which
    Numba also has for numbers)."""
    if ir.dotted_text(call.func) in _HELPERS:
        return True
    return ir.spelled_ufunc(call.func) is not None and _elementwise(call)


def _function(name, params, body):
    return gast.FunctionDef(
        name=name, args=gast.arguments(
            args=[gast.Name(id=p, ctx=gast.Param(), annotation=None, type_comment=None)
                  for p in params],
            posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
            defaults=[]),
        body=body, decorator_list=[], returns=None, type_comment=None, type_params=[])

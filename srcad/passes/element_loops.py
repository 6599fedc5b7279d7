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
`g`'s element on its line, so that the spread array is never made. An addition into a
view that broadcasts to the run's shape, `rt.add_to(d_x[:, None], g)` (the adjoint of
`x[:, None] - y[None, :]`), makes `g` a result of the kernel that the loop adds into
`d_x` element by element, at the index without the view's `None` axes, where the sweep's
sums may be reordered (SafeReassociation): `g` is then never made, nor summed along the
broadcast axes first; run as Python, the loop adds the kernel's `g` as before. A run becomes a
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

The adjoint of `d = x[:, None] - y[None, :]`, added into views of `d_x` and `d_y`:

>>> fn = gast.parse('''def g_rev(x, y, tape, d_out):
...     d, e = tape
...     d_x = np.zeros_like(x)
...     d_y = np.zeros_like(y)
...     d_d = rt.mul(d_out, e)
...     d_d = rt.strong(d_d, rt.mul_alike(d_d, d))
...     rt.add_to(d_y[None, :], rt.neg(d_d))
...     rt.add_to(d_x[:, None], d_d)
...     return d_x, d_y''').body[0]
>>> shapes = {"x": (("arg", "x", 0),), "y": (("arg", "y", 0),)}
>>> shapes.update({v: (("arg", "x", 0), ("arg", "y", 0)) for v in ("d", "e")})
>>> kinds = {"x": Kind("f", 1), "y": Kind("f", 1), "d": Kind("f", 2), "e": Kind("f", 2)}
>>> adjoints = {"x": "d_x", "y": "d_y", "d": "d_d", "e": "d_e"}
>>> rev, kernels = ElementLoops(shapes, kinds, adjoints, "g_rev", Namer(set()).fresh,
...                             reorder=True).run(fn)
>>> print(to_source(rev).strip())
def g_rev(x, y, tape, d_out):
    d, e = tape
    d_x = np.zeros_like(x)
    d_y = np.zeros_like(y)
    d_d = rt.mul(d_out, e)
    g_rev_loop1(d_d, d, d_y, d_x)
    return d_x, d_y
>>> for f in kernels:
...     print(to_source(f).strip())
def g_rev_kernel1(d_d, d):
    d_d = rt.strong(d_d, rt.mul_alike(d_d, d))
    d_y_add1 = rt.neg(d_d)
    d_x_add1 = d_d
    return d_y_add1, d_x_add1
def g_rev_loop1(d_d, d, d_y, d_x):
    if not ELEMENT_LOOPS:
        d_y_add1, d_x_add1 = g_rev_kernel1(d_d, d)
        rt.add_to(d_y[None, :], d_y_add1)
        rt.add_to(d_x[:, None], d_x_add1)
        return
    shape = d_d.shape
    rt.same_shape(shape, d.shape)
    rt.same_shape((shape[1],), d_y.shape)
    rt.same_shape((shape[0],), d_x.shape)
    for i0 in range(shape[0]):
        for i1 in range(shape[1]):
            v0, v1 = g_rev_kernel1(d_d[i0, i1], d[i0, i1])
            d_y[i1] += v0
            d_x[i0] += v1
    return

Nothing reads `d_d` after the run: the loop makes no array at all.
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

    def __init__(self, shapes, kinds, adjoints, name, fresh, reorder=False):
        self.shapes = SameShapeLoops(shapes, kinds, adjoints)
        self.kinds = kinds
        self.primal_of = {d: v for v, d in adjoints.items()}
        self.name, self.fresh = name, fresh
        self.reorder = reorder  # whether the sweep's sums may be added in another order
        self.functions = []

    def run(self, fn):
        self.loads = {}
        for n in ir.names(fn):
            if isinstance(n.ctx, gast.Load):
                self.loads[n.id] = self.loads.get(n.id, 0) + 1
        self.sole = _sole_arrays(fn)
        self.looping = False  # whether the block is a loop's (its names carry over)
        fn.body = self._block(fn.body)
        return fn, self.functions

    def _block(self, body):
        out, run, run_shape = [], [], None
        for s in body:
            for field in ("body", "orelse"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and not isinstance(s, gast.FunctionDef):
                    looping, self.looping = self.looping, self.looping or isinstance(
                        s, (gast.For, gast.While))
                    setattr(s, field, self._block(inner))
                    self.looping = looping
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
        view = self._view_add(s)
        if view is not None:
            return view[3]
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

    def _view_add(self, s):
        """(`x`, `g`, the view's index, the shape) of `rt.add_to(x[None, :, :], g)`: `g`
        elementwise over a shape, added into a view of `x` that broadcasts to it (`None`
        and whole slices only), `x` an array of floats that no other name of the sweep
        sees; each element of `g` adds into `x` at the index without the `None` axes. The
        loop adds them one by one, in the order of its elements, not as a sum along the
        broadcast axes first: only where the sweep's sums may be reordered."""
        if not (self.reorder and isinstance(s, gast.Expr) and isinstance(s.value, gast.Call)
                and ir.dotted_text(s.value.func) == "rt.add_to" and len(s.value.args) == 2
                and not s.value.keywords and isinstance(s.value.args[0], gast.Subscript)):
            return None
        view, g = s.value.args
        x, index = view.value, _broadcast_index(view.slice)
        if not isinstance(x, gast.Name) or x.id not in self.sole or index is None \
                or not self._elementwise(g):
            return None
        shape, whole = self.shapes.shape(g), self.shapes.shape(x)
        kind = self.kinds.get(self.primal_of.get(x.id, x.id))
        if shape in (None, NUMBER) or whole in (None, NUMBER) or len(index) != len(shape) \
                or getattr(kind, "dtype", None) != "f" or not self._array_of(g, shape):
            return None
        kept = [n for n, i in zip(shape, index) if i is not None]
        if len(kept) != len(whole) or any(a != b for a, b in zip(kept, whole)) \
                or all(i is not None for i in index):
            return None
        return x.id, g, index, shape

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
        original, found_views, views = run, [self._view_add(s) for s in run], {}
        if any(found_views):  # each addition into a view: its value, a kernel's result
            run = [ir.assign(self.fresh(f"{found[0]}_add"), found[1], like=s)
                   if found else s for s, found in zip(run, found_views)]
            views = {s.targets[0].id: found for s, found in zip(run, found_views) if found}
            if any(n.id in {x for x, *_ in views.values()} for s in run
                   for n in ir.names(s)):
                return original  # the array is read in the run too
            for k, s in enumerate(run):  # plain, the kernel returns the value added
                if isinstance(s, gast.Assign) and s.targets[0].id in views:
                    read = {n.id for n in ir.names(s.value)}  # unchanged to the end
                    if any(_target(later) in read for later in run[k + 1:]):
                        return original
        spreads = [self._spread_of(s) for s in run]
        operations = sum(1 for s in run for n in ir.walk(s.value)
                         if isinstance(n, (gast.Call, gast.BinOp, gast.UnaryOp))
                         and not (isinstance(n, gast.Call)
                                  and ir.dotted_text(n.func) in _ADD_TO)
                         and self.shapes.shape(n) not in (None, NUMBER))
        operations += sum(1 for found in spreads if found is not None)
        operations += sum(1 for s in run if isinstance(s, gast.Expr) and not is_comment(s))
        operations += len(views)
        roles = {}  # operand -> "array", "number", "shape" or the axis it is spread along
        for found in spreads:
            if found is not None:
                g, axis, named, _ = found
                if roles.get(g, axis) != axis:
                    return original
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
        # a result: read after the run, or before it in a loop (by the next iteration)
        outputs = [t for t in assigned if t not in views and (
            t in inputs and self.looping or self.loads.get(t, 0) > inside.get(t, 0))]
        if not outputs and not views \
                or not all(self._new(t, run, outputs) for t in outputs):
            return original
        if operations - len(outputs) < 2:  # passes saved: too few to pay for a compile
            return original
        for v in inputs:
            if v not in roles:
                roles[v] = "number" if self.shapes.shape(ir.name(v)) == NUMBER else "array"
        if not any(roles[v] in ("array", "shape") for v in inputs):
            return original
        kernel = self.fresh(f"{self.name}_kernel")
        loop = self.fresh(f"{self.name}_loop")
        added = [(t, found[0], found[2]) for t, found in views.items()]
        self.functions += [self._kernel(kernel, run, spreads, inputs, outputs + list(views)),
                           self._loop(loop, kernel, inputs, roles, outputs, into,
                                      len(shape), added)]
        arrays = list(dict.fromkeys(x for _, x, _ in added))
        call = ir.call(ir.name(loop), *[ir.name(v) for v in inputs + arrays])
        if not outputs:
            return [gast.copy_location(gast.Expr(value=call), run[0])]
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
    def _loop(name, kernel, inputs, roles, outputs, into, ndim, added=()):
        """The loop of `kernel` over the elements of its operands (`roles`: each is an
        array of the loop's shape, a number, that shape itself, or an array spread along
        an axis, read at the index without it): the arrays it makes are new, those
        added into (`into`) are written in place, and each of `added` (the kernel's
        result, the array, the view's index: see `_view_add`) adds into its array, in
        place, at the index without the view's `None` axes."""
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

        arrays = list(dict.fromkeys(x for _, x, _ in added))
        whole = ", ".join(inputs)
        items = ", ".join(item(v) for v in inputs)
        first = next(v for v in inputs if roles[v] in ("array", "shape"))
        outs = [t if t in into else f"out{j}" for j, t in enumerate(outputs)]
        results = outputs + [t for t, _, _ in added]
        lines = [f"def {name}({', '.join(inputs + arrays)}):", f"    if not {LOOPS_FLAG}:"]
        if added:
            lines.append(f"        {', '.join(results)} = {kernel}({whole})")
            lines += [f"        rt.add_to({x}[{', '.join(':' if i else 'None' for i in ix)}]"
                      f", {t})" for t, x, ix in added]
            lines.append(f"        return {', '.join(outputs)}")
        else:
            lines.append(f"        return {kernel}({whole})")
        lines.append(f"    shape = {first if roles[first] == 'shape' else first + '.shape'}")
        lines += [f"    {check(v)}" for v in inputs if v != first and roles[v] != "number"]
        for x, ix in dict.fromkeys((x, ix) for _, x, ix in added):
            kept = [f"shape[{a}]" for a, i in enumerate(ix) if i]
            lines.append(f"    rt.same_shape(({', '.join(kept)}{',' if len(kept) == 1 else ''}"
                         f"), {x}.shape)")
        lines += [f"    {o} = np.empty(shape)" for o, t in zip(outs, outputs) if t not in into]
        for a in range(ndim):
            lines.append("    " * (a + 1) + f"for i{a} in range(shape[{a}]):")
        pad = "    " * (ndim + 1)
        if len(results) == 1 and outs:
            lines.append(f"{pad}{outs[0]}[{index}] = {kernel}({items})")
        else:
            values = [f"v{j}" for j in range(len(results))]
            lines.append(f"{pad}{', '.join(values)} = {kernel}({items})")
            lines += [f"{pad}{o}[{index}] = {v}" for o, v in zip(outs, values)]
            for (t, x, ix), v in zip(added, values[len(outs):]):
                at = ", ".join(f"i{a}" for a, i in enumerate(ix) if i)
                lines.append(f"{pad}{x}[{at}] += {v}")
        lines.append(f"    return {', '.join(outs)}")
        return gast.parse("\n".join(lines)).body[0]


def _target(s):
    """The name statement `s` of a run assigns or adds into (None for a comment)."""
    if isinstance(s, gast.Assign):
        return s.targets[0].id
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and s.value.args \
            and isinstance(s.value.args[0], gast.Name):
        return s.value.args[0].id
    return None


def _broadcast_index(index):
    """The index `[None, :, :]` as (None, True, True): `None` and whole slices only, else
    None."""
    elts = index.elts if isinstance(index, gast.Tuple) else [index]
    out = []
    for e in elts:
        if isinstance(e, gast.Constant) and e.value is None:
            out.append(None)
        elif isinstance(e, gast.Slice) and e.lower is None and e.upper is None \
                and e.step is None:
            out.append(True)
        else:
            return None
    return tuple(out)


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
    if isinstance(up, gast.Subscript) and up.value is n and _broadcast_index(up.slice):
        call = parent.get(up)  # `rt.add_to(x[None, :], g)`: adds into it
        return isinstance(call, gast.Call) and ir.dotted_text(call.func) == "rt.add_to" \
            and bool(call.args) and call.args[0] is up
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

"""AdjointKernels: the scalar adjoint arithmetic that a forward sweep runs (UnitSeedLoops
moves a pair's adjoint into the forward loop) goes into a function of its own, which
Numba compiles with `fastmath={"reassoc", "contract"}`.

A forward sweep must compute the function's value as the function does, operation by
operation: it is compiled without fastmath. The adjoint arithmetic that UnitSeedLoops
moves into it is reverse-sweep arithmetic, which may round as any order of its
operations does (SafeReassociation): compiled apart, LLVM may reorder it and fuse its
products and sums (FMA), and then inlines it into the loop with those freedoms marked on
its own instructions only. The chain from a pair's values to its gradient gets shorter
(W2's Lennard-Jones pairs: 33 ms for 3.8 million pairs, 43 ms without) while the value
the forward sweep adds up is bit for bit the primal's.

A kernel is a run of at least `MIN_RUN` statements at one level of a loop's body, each
assigning (or adding into) a float adjoint with arithmetic on names and numbers, `math`
functions and NumPy ufuncs, of which every value used after the run is only ever added
into an accumulator: no branch, index or comparison reads what the kernel computes.

>>> import gast
>>> from codegen import to_source
>>> from codegen.names import Namer
>>> fwd = gast.parse('''def f_fwd(x):
...     e = 0.0
...     d_r = 0.0
...     u_d_x = np.zeros_like(x)
...     for i in range(4):
...         xi = x[i]
...         r = xi * xi
...         e = e + r * r
...         d_r = 1.0 * (2.0 * r)
...         d_t = d_r * xi
...         d_x1 = d_t + d_t
...         u_d_x[i] += d_x1
...     return e, (u_d_x,)''').body[0]
>>> fwd, kernels = AdjointKernels({"d_r", "d_t", "d_x1"}, Namer(), "f_fwd").run(fwd)
>>> print(to_source([fwd] + kernels).strip())
def f_fwd(x):
    e = 0.0
    d_r = 0.0
    u_d_x = np.zeros_like(x)
    for i in range(4):
        xi = x[i]
        r = xi * xi
        e = e + r * r
        d_x1, = f_fwd_adjoint1(r, xi)
        u_d_x[i] += d_x1
    return e, (u_d_x,)
<BLANKLINE>
<BLANKLINE>
def f_fwd_adjoint1(r, xi):
    d_r = 1.0 * (2.0 * r)
    d_t = d_r * xi
    d_x1 = d_t + d_t
    return d_x1,
"""
import copy

import gast

from codegen.emit import is_comment
from srcad.passes import ir

MIN_RUN = 3  # fewer statements are not worth a call's arguments and tuple


class AdjointKernels:
    """Runs of adjoint arithmetic in the forward sweep `fwd` moved into kernels (see the
    module). `adjoints`: the names of float scalar adjoints; `prefix`: the kernels' names
    start with it."""

    def __init__(self, adjoints, namer, prefix):
        self.adjoints, self.namer, self.prefix = set(adjoints), namer, prefix

    def run(self, fwd):
        self.fwd, self.kernels = fwd, []
        self.params = {a.id for a in fwd.args.args}
        self.stored = {n.id for n in ir.names(fwd) if isinstance(n.ctx, gast.Store)}
        blocks = {}  # id -> a statement whose body (and `else`) is inside a loop
        for loop in [n for n in ir.walk(fwd) if isinstance(n, gast.For)]:
            blocks[id(loop)] = loop
            blocks.update((id(n), n) for n in ir.walk(loop) if isinstance(n, gast.If))
        for node in blocks.values():
            node.body = self.block(node.body)
            if isinstance(node, gast.If):
                node.orelse = self.block(node.orelse)
        return fwd, self.kernels

    def block(self, stmts):
        """`stmts` with their runs of adjoint arithmetic (comments among them kept in the
        kernel) replaced by kernel calls."""
        out, run = [], []
        for s in stmts + [None]:
            if s is not None and (self.arithmetic(s) or run and is_comment(s)):
                run.append(s)
                continue
            trailing = []
            while run and is_comment(run[-1]):
                trailing.insert(0, run.pop())
            statements = [t for t in run if not is_comment(t)]
            out += self.kernel(run, statements) if len(statements) >= MIN_RUN else run
            out += trailing
            run = []
            if s is not None:
                out.append(s)
        return out

    def arithmetic(self, s):
        """Whether `s` may join `run`: `d = e` or `d += e`, `d` an adjoint, `e` arithmetic."""
        if isinstance(s, gast.Assign) and len(s.targets) == 1:
            target = s.targets[0]
        elif isinstance(s, gast.AugAssign) and isinstance(s.op, (gast.Add, gast.Sub)):
            target = s.target
        else:
            return False
        return isinstance(target, gast.Name) and target.id in self.adjoints and \
            _arithmetic(s.value)

    def kernel(self, run, statements):
        """`outs = kernel(ins)` for `run` (its `statements` and comments), with the
        kernel made; or `run` itself when what it computes is used otherwise than added
        up."""
        inside = {id(n) for s in run for n in ir.walk(s)}
        assigned, ins = set(), []
        for s in statements:
            target = s.targets[0] if isinstance(s, gast.Assign) else s.target
            reads = ir.names(s.value) + ([target] if isinstance(s, gast.AugAssign) else [])
            for n in reads:
                if n.id not in assigned and n.id not in ins and \
                        (n.id in self.params or n.id in self.stored):
                    ins.append(n.id)
            assigned.add(target.id)
        parent = ir.parents(self.fwd)
        loaded_after = {n.id for n in ir.names(self.fwd) if id(n) not in inside
                        and isinstance(n.ctx, gast.Load)}
        outs = sorted(assigned & (loaded_after | set(ins)))
        if not outs or not self.only_added(outs, inside, parent):
            return run
        name = self.namer.fresh(f"{self.prefix}_adjoint")
        fn = gast.FunctionDef(
            name=name, args=gast.arguments(
                args=[gast.Name(id=a, ctx=gast.Param(), annotation=None, type_comment=None)
                      for a in ins],
                posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                defaults=[]),
            body=[copy.deepcopy(s) for s in run] + [gast.Return(value=gast.Tuple(
                elts=[ir.name(o) for o in outs], ctx=gast.Load()))],
            decorator_list=[], returns=None, type_comment=None, type_params=[])
        self.kernels.append(fn)
        call = gast.Assign(targets=[gast.Tuple(elts=[ir.name(o, store=True) for o in outs],
                                               ctx=gast.Store())],
                           value=ir.call(name, *[ir.name(a) for a in ins]), type_comment=None)
        return [gast.copy_location(call, run[0])]

    def only_added(self, outs, inside, parent):
        """Whether every read of the names `outs` outside the run (node ids `inside`) is
        in the arithmetic of an addition into an accumulator (`acc += e`, `u[j] -= e`),
        or of another adjoint's assignment whose reads are so in turn."""
        todo, seen = list(outs), set(outs)
        while todo:
            name = todo.pop()
            for n in ir.names(self.fwd):
                if n.id != name or id(n) in inside or not isinstance(n.ctx, gast.Load):
                    continue
                stmt = parent.get(n)
                while stmt is not None and not isinstance(stmt, gast.stmt):
                    stmt = parent.get(stmt)
                if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, (gast.Add, gast.Sub)) \
                        and _arithmetic(stmt.value) and \
                        any(m is n for m in ir.names(stmt.value)):
                    continue
                if isinstance(stmt, gast.Assign) and self.arithmetic(stmt):
                    target = stmt.targets[0].id
                    if target not in seen:
                        seen.add(target)
                        todo.append(target)
                    continue
                return False
        return True


def _arithmetic(e):
    """Whether `e` is arithmetic on names and numbers, and `math` functions and NumPy
    ufuncs (`np.sin`) of them: on the numbers an adjoint of a number is made of."""
    for n in ir.walk(e):
        if isinstance(n, gast.Call):
            text = ir.dotted_text(n.func) or ""
            if n.keywords or not (text.startswith("math.") or ir.spelled_ufunc(n.func)):
                return False
        elif not isinstance(n, (gast.BinOp, gast.UnaryOp, gast.Name, gast.Constant,
                                gast.Attribute, gast.expr_context, gast.operator,
                                gast.unaryop)):
            return False
        elif isinstance(n, gast.Attribute) and not (isinstance(n.value, gast.Name)
                                                    and n.value.id in ("math", "np")):
            return False
        elif isinstance(n, gast.Constant) and not isinstance(n.value, (int, float)):
            return False
    return True

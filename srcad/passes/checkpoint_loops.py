"""CheckpointLoops: with a tape limit, long loops become calls that checkpoint their state."""
import copy
import warnings

import gast

from srcad.errors import SrcadWarning
from srcad.passes import ir
from srcad.passes.hoist_local_functions import HoistLocalFunctions, hoist
from srcad.passes.lower_prange import live_in

# view-making calls: an array written in a checkpointed loop must not be one (the loop
# writes a copy of it)
_VIEWS = {"reshape", "ravel", "transpose", "swapaxes", "squeeze", "asarray", "diagonal",
          "view", "expand_dims", "broadcast_to", "atleast_1d", "atleast_2d", "moveaxis",
          "flip", "fliplr", "flipud", "real", "imag"}


class CheckpointLoops:
    """Transformation, with `tape_limit` set: each `for ... in range(...)` loop and each
    `while` loop of the function — at any nesting — becomes a call of helpers made from
    it, so that its reverse sweep keeps snapshots of the state the loop carries instead of
    a tape per iteration.

    `<loop>_steps(lo, hi, step, carried...)` runs iterations `range(lo, hi, step)` of the
    loop (its body as written) and returns the carried values; `<loop>(...)` calls it for
    the whole range and is what the function calls. Its sweep pair is not made from its
    body: the forward sweep advances the state through `<loop>_steps` without a tape,
    keeping snapshots where the binomial schedule says (`srcad.runtime.checkpoints`), and
    the reverse sweep restores them, advances again, and reverses one block of iterations
    at a time through `<loop>_steps`' own sweeps. Values the loop reads but does not
    assign pass through as arguments; arrays it writes into are copied first.

    A `while` loop, whose trip count is known only at its end, also gets `<loop>_test`
    (its test) and `<loop>_while(carried...)`, what the function calls: it runs the loop
    one iteration at a time while the test holds; its sweeps keep the state at evenly
    spaced iterations, thinned as the loop goes on, and reverse each stretch between two
    of them through `<loop>` (`while_sweeps`). A loop within a loop is rewritten the same
    way inside the outer loop's body, with a quarter of the outer loop's share of the
    limit.

    A loop is left as it is (with one `SrcadWarning` saying why) when it can leave early
    (`break`, `return`), when a value it assigns is read after it without being assigned
    before it (or read in it before it is assigned), or when an array it writes into may
    be seen through another name.

    >>> from srcad.passes.checkpoint_loops import show_checkpointed
    >>> show_checkpointed('''
    ... def f(x, n):
    ...     s = 0.0
    ...     for i in range(n):
    ...         s = s + x * i
    ...     return s''')
    def f(x, n):
        s = 0.0
        s, x = loop4(0, n, 1, s, x)
        return s
    def loop4_steps(lo, hi, step, s, x):
        for i in range(lo, hi, step):
            s = s + x * i
        return s, x
    def loop4(lo, hi, step, s, x):
        s, x = loop4_steps(lo, hi, step, s, x)
        return s, x
    >>> show_checkpointed('''
    ... def f(x, tol):
    ...     y = x
    ...     while y > tol:
    ...         y = 0.5 * y
    ...     return y''')
    def f(x, tol):
        y = x
        y, tol = loop4_while(y, tol)
        return y
    def loop4_steps(lo, hi, step, y, tol):
        for k in range(lo, hi, step):
            y = 0.5 * y
        return y, tol
    def loop4(lo, hi, step, y, tol):
        y, tol = loop4_steps(lo, hi, step, y, tol)
        return y, tol
    def loop4_test(y, tol):
        return y > tol
    def loop4_while(y, tol):
        trip = 0
        while loop4_test(y, tol):
            y, tol = loop4_steps(trip, trip + 1, 1, y, tol)
            trip += 1
        return y, tol
    """

    needs = ("local_functions",)
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        limited = getattr(self.ctx.program, "tape_limit", None) is not None
        parallel = any(getattr(s, "srcad_parallel", None) is not None for s in fnode.body)
        if not (limited or parallel):
            return fnode
        info = getattr(self.ctx.fsrc.fn, "__srcad_local__", None)
        if getattr(info, "role", None) is not None:  # made by this pass: its loop is one
            return fnode
        fnode, changed = checkpoint(fnode, self.ctx.fsrc.line, self.warn, limited)
        if not changed:
            return fnode
        fnode, helpers = hoist(fnode, self.ctx.fsrc.error)
        hoister = HoistLocalFunctions(self.ctx)
        made = hoister.functions(helpers, dict(self.ctx.local_functions))
        self.ctx.local_functions.update(made)
        for fn in self.ctx.local_functions.values():
            fn.__srcad_local__.scope.update(made)
        return fnode

    def warn(self, loop, why):
        warnings.warn(f"{self.ctx.fsrc.filename}:{self.ctx.fsrc.line(loop)}: the loop is not "
                      f"checkpointed ({why}); its tape grows with its trip count",
                      SrcadWarning, stacklevel=2)


def checkpoint(fnode, line, warn, limited=True):
    """`fnode` with its eligible loops replaced by calls of local helpers defined just
    before them; each helper's role is on its `def` (`srcad_role`, which
    HoistLocalFunctions hands on): ("segment",) for the steps, ("checkpoint", nc, steps,
    kept, share) for a `for` loop checkpointed within `tape_limit // share` bytes,
    ("while", nc, steps, kept, share, whole, test) for a `while` loop, or ("parallel", ...)
    for a top-level `prange` loop whose iterations only add into sums (their sweeps run in
    parallel; LowerPrange marks such loops). Returns (fnode, whether it changed).

    Loops nested in loops are checkpointed too (with a quarter of their enclosing loop's
    share), so that one iteration of a long loop around a long loop fits as well."""
    taken = {n.id for n in gast.walk(fnode) if isinstance(n, gast.Name)} | \
        {n.name for n in gast.walk(fnode) if isinstance(n, gast.FunctionDef)}
    rewrite = _Rewrite({a.id for a in fnode.args.args}, taken, line, warn, limited)
    # what the function writes into, or may (`u += e` on an array), and the names that see it
    rewrite.written = _written(fnode.body) | {
        n.target.id for n in gast.walk(fnode) if isinstance(n, gast.AugAssign)
        and isinstance(n.target, gast.Name)}
    rewrite.written |= _views_of(rewrite.written, fnode.body)
    fnode.body = rewrite.block(fnode.body, [], [], None, 1)
    return fnode, rewrite.changed


class _Rewrite:
    def __init__(self, params, taken, line, warn, limited):
        self.params, self.taken, self.line, self.warn = params, taken, line, warn
        self.limited, self.changed = limited, False

    def block(self, stmts, before, after, enclosing, share):
        """`stmts` rewritten; `before`: the statements that run before them, `after`: those
        that may run after them (the enclosing loop's next iteration among them)."""
        out = []
        for k, s in enumerate(stmts):
            prior, later = before + stmts[:k], stmts[k + 1:] + after
            if isinstance(s, gast.If):
                s.body = self.block(s.body, prior, later, enclosing, share) or [gast.Pass()]
                s.orelse = self.block(s.orelse, prior, later, enclosing, share)
                out.append(s)
                continue
            looping = isinstance(s, gast.While) or isinstance(s, gast.For) and _is_range(s.iter)
            sums = getattr(s, "srcad_parallel", None) if enclosing is None else None
            parallel = sums is not None
            if not looping or not (self.limited or parallel):
                out.append(s)
                continue
            state, why = _carried(s, self.params, prior, later, enclosing, self.written)
            if parallel and not why:
                # worth it where an iteration does much work (an inner loop): each stretch's
                # reverse sweep makes adjoints the size of the arrays the loop reads
                # (and no `raise`: Numba's parallel loops lose the exception)
                rows = getattr(s, "srcad_rows", set())
                parallel = isinstance(s, gast.For) and _written(s.body) <= rows and \
                    not any(isinstance(n, (gast.Raise, gast.Assert)) for n in gast.walk(s)) and \
                    all(c in sums or c in rows for c in state[0]) and any(
                        isinstance(n, (gast.For, gast.While))
                        for n in gast.walk(gast.Module(body=s.body, type_ignores=[])))
            if why or not (self.limited or parallel):
                if self.limited:
                    self.warn(s, why or "its iterations do more than add into sums")
                # its own loops may still be checkpointed within it
                s.body = self.block(s.body, prior, [s] + later, s, share * 4)
                out.append(s)
                continue
            out += self.replace(s, state, parallel, prior, later, share)
        return out

    def fresh(self, base):
        name = base
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name

    def replace(self, loop, state, parallel, prior, later, share):
        """The helpers' `def`s for `loop` and the assignment that calls them."""
        self.changed = True
        name = f"loop{self.line(loop)}"
        while {name, name + "_steps", name + "_test", name + "_while"} & self.taken:
            name += "_"
        self.taken |= {name, name + "_steps", name + "_test", name + "_while"}
        kept, through = state
        carried = kept + through
        written = _written(loop.body)
        body = loop.body
        # loops within are checkpointed within the loop's share: a quarter for each
        loop.body = self.block(loop.body, prior, [loop] + later, loop, share * 4)
        counter = loop.target.id if isinstance(loop, gast.For) else self.fresh("k")
        steps, whole = _helpers(loop, name, carried, [c for c in kept if c in written],
                                counter)
        loop.body = body
        steps.srcad_role = ("segment",)
        role = ("checkpoint", len(carried), steps.name, len(kept), share)
        if parallel:
            rows = tuple(c for c in kept if c in getattr(loop, "srcad_rows", ()))
            role = ("parallel", len(carried), steps.name, len(kept), rows)
        whole.srcad_role = role
        defs = [steps, whole]
        if isinstance(loop, gast.For):
            args = list(loop.iter.args)
            start, stop, step = (
                args if len(args) == 3 else args + [gast.Constant(1, None)] if len(args) == 2
                else [gast.Constant(0, None), args[0], gast.Constant(1, None)])
            call = gast.Call(func=_name(name), args=[start, stop, step] +
                             [_name(c) for c in carried], keywords=[])
        else:  # half its share for the snapshots it keeps as it runs, half for a stretch
            test, driver = _while_helpers(loop, name, carried, self.fresh("trip"))
            driver.srcad_role = ("while", len(carried), steps.name, len(kept), share,
                                 whole.name, test.name)
            whole.srcad_role = role[:4] + (share * 2,)
            defs += [test, driver]
            call = gast.Call(func=_name(driver.name), args=[_name(c) for c in carried],
                             keywords=[])
        target = _name(carried[0], gast.Store()) if len(carried) == 1 else \
            gast.Tuple(elts=[_name(c, gast.Store()) for c in carried], ctx=gast.Store())
        assign = gast.Assign(targets=[target], value=call, type_comment=None)
        return [gast.copy_location(n, loop) for n in defs + [assign]]


def _is_range(it):
    return (isinstance(it, gast.Call) and isinstance(it.func, gast.Name)
            and it.func.id == "range" and 1 <= len(it.args) <= 3 and not it.keywords)


def _name(name, ctx=None):
    return gast.Name(id=name, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _stored(nodes):
    return {n.id for s in nodes for n in gast.walk(s)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _loaded(nodes):
    return {n.id for s in nodes for n in gast.walk(s)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _base(node):
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _written(stmts):
    """Arrays the statements write into: `a[...] = `, `a[...] op= `, `out=a`, a NumPy
    ufunc's output after its inputs (`np.add(a, b, a)`)."""
    out = set()
    for s in stmts:
        for n in gast.walk(s):
            if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, gast.Store):
                out.add(_base(n))
            elif isinstance(n, gast.keyword) and n.arg == "out":
                out |= {e.id for e in gast.walk(n.value) if isinstance(e, gast.Name)}
            elif isinstance(n, gast.Call) and _ufunc_inputs(n) < len(n.args):
                out |= {e.id for e in ir.names(n.args[_ufunc_inputs(n)])}
            elif isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                    and n.func.attr in ("fill", "sort", "put", "itemset", "resize"):
                out.add(_base(n.func.value))
    return out - {None}


def _ufunc_inputs(call):
    """How many inputs the NumPy ufunc that `call` spells `np.<name>` takes (an argument
    after them is its output); a large number for any other call. This pass runs before
    names are resolved: a ufunc under another spelling is not seen here, and UfuncOut
    refuses what that leaves aliased."""
    ufunc = ir.spelled_ufunc(call.func)
    return ufunc.nin if ufunc is not None else 1 << 30


def _carried(loop, params, before, later, enclosing, written_anywhere=frozenset()):
    """(the names the loop carries, sorted; None) or (None, why it is not checkpointed).
    `before`: the statements that run before it; `later`: those that may run after it;
    `written_anywhere`: the arrays the function writes into, and the names that may see
    one (its views)."""
    if loop.orelse:
        return None, "it has an `else`"
    if any(isinstance(n, (gast.Return, gast.Yield)) for n in gast.walk(loop)):
        return None, "it returns from inside"
    if _breaks(loop.body):
        return None, "it has a `break`"
    if isinstance(loop, gast.For):
        if not isinstance(loop.target, gast.Name):
            return None, "its loop variable is not a name"
        i, body, head = loop.target.id, loop.body, {loop.target.id}
    else:  # the test runs before each iteration, and once more at the end
        i, body, head = None, [gast.Expr(value=loop.test)] + loop.body, set()
    bound = params | _stored(before)
    stored = _stored(loop.body) - {i}
    written = _written(loop.body)
    read_after = live_in(later)
    if i in read_after:
        return None, f"`{i}` is read after it"
    early = live_in(body, head) & stored
    unbound = sorted((stored & (read_after | early)) - bound)
    if unbound:
        where = "after" if unbound[0] in read_after else "before"
        return None, (f"`{unbound[0]}` is assigned in it and read {where} it without a value "
                      "from before it")
    missing = sorted(written - bound - stored)
    if missing:
        return None, f"it writes into `{missing[0]}`, which is not a local array"
    around = before + ([enclosing] if enclosing is not None else [])
    aliased = sorted(w for w in written & bound if _may_alias(w, around, params))
    if aliased:
        return None, f"the array `{aliased[0]}` it writes into may be seen through another name"
    carried = sorted((stored & bound & (read_after | early)) | (written & bound))
    if not carried:
        return None, "it carries no value"
    # what the loop only reads passes through it as well: the reverse sweep hands each
    # iteration their adjoints as they stand, which it adds to in the loop's own order
    # (not an array the function writes elsewhere, nor a view of one: one name per written
    # array, and the loop's result would be another; it is an argument of the helpers all
    # the same)
    through = sorted((_loaded(body) & bound) - stored - written - {i} - written_anywhere)
    return (carried, through), None


def _breaks(stmts):
    for s in stmts:
        if isinstance(s, gast.Break):
            return True
        if isinstance(s, (gast.For, gast.While)):
            continue  # its own break
        for field in ("body", "orelse", "finalbody"):
            if _breaks(getattr(s, field, []) or []):
                return True
    return False


def _may_alias(w, before, params):
    """Whether the array `w` may share memory with another name before the loop: bound to
    a view or another name, or read into the value of another name's assignment other
    than through a call that makes a new array."""
    for s in before:
        for n in gast.walk(s):
            if not isinstance(n, gast.Assign):
                continue
            targets = _stored(n.targets)
            value = n.value
            if w in targets and not _fresh(value):
                return True
            if w not in targets and w in _loaded([value]) and not _fresh(value):
                return True
    return False


def _views_of(arrays, stmts):
    """The names that may share memory with one of `arrays`: a view of one or another
    name for it (`u = U[1:-1]`, `v = u.T`), or the array one of them views, directly or
    through each other."""
    binds = [_stored(n.targets) | _roots(n.value) for s in stmts for n in gast.walk(s)
             if isinstance(n, gast.Assign) and not _fresh(n.value)]
    out, grown = set(arrays), True
    while grown:
        new = {name for names in binds if names & out for name in names}
        grown, out = bool(new - out), out | new
    return out - set(arrays)


def _roots(value):
    """The names whose memory `value` may share: the array a subscript or attribute reads
    from (not its indices), each item of a tuple, each side of `a if c else b`."""
    if isinstance(value, gast.Name):
        return {value.id}
    if isinstance(value, (gast.Subscript, gast.Attribute)):
        return _roots(value.value)
    if isinstance(value, (gast.Tuple, gast.List)):
        return set().union(*map(_roots, value.elts))
    if isinstance(value, gast.IfExp):
        return _roots(value.body) | _roots(value.orelse)
    if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Constant, gast.Compare)):
        return set()
    return _loaded([value])


def _fresh(value):
    """A call whose result is a new array (not a view, not an argument passed through),
    or arithmetic."""
    if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Constant, gast.Compare)):
        return True
    if not isinstance(value, gast.Call):
        return False
    func = value.func
    attr = func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", "")
    return attr not in _VIEWS


def _helpers(loop, name, carried, copied, counter):
    """The two local functions for `loop`: `<name>_steps` (iterations `counter` in
    `range(lo, hi, step)` of its body) and `<name>`."""
    params = ["lo", "hi", "step"]
    clash = set(params) & (_loaded([loop]) | _stored([loop]))
    while clash:
        params = [p + "_" for p in params]
        clash = set(params) & (_loaded([loop]) | _stored([loop]))
    lo, hi, step = params
    ret = carried[0] if len(carried) == 1 else f"({', '.join(carried)})"
    head = "".join(f"    {c} = {c}.copy()\n" for c in copied)
    args = ", ".join(params + carried)
    text = (f"def {name}_steps({args}):\n{head}"
            f"    for {counter} in range({lo}, {hi}, {step}):\n        pass\n"
            f"    return {ret}\n"
            f"def {name}({args}):\n    {ret} = {name}_steps({args})\n    return {ret}\n")
    steps, whole = _parsed(text, loop)
    steps.body[len(copied)].body = copy.deepcopy(loop.body)
    return steps, whole


def _while_helpers(loop, name, carried, trip):
    """The local functions for the `while` loop `loop` besides its steps: `<name>_test`
    (the loop's test) and `<name>_while`, which runs the loop one iteration at a time
    through `<name>_steps` while the test holds (the one the function calls)."""
    ret = carried[0] if len(carried) == 1 else f"({', '.join(carried)})"
    args = ", ".join(carried)
    text = (f"def {name}_test({args}):\n    return True\n"
            f"def {name}_while({args}):\n    {trip} = 0\n"
            f"    while {name}_test({args}):\n"
            f"        {ret} = {name}_steps({trip}, {trip} + 1, 1, {args})\n"
            f"        {trip} += 1\n"
            f"    return {ret}\n")
    test, driver = _parsed(text, loop)
    test.body[0].value = copy.deepcopy(loop.test)
    return test, driver


def _parsed(text, loop):
    nodes = gast.parse(text).body
    for node in nodes:
        for n in gast.walk(node):
            if hasattr(n, "lineno"):
                gast.copy_location(n, loop)
    return nodes


def _pushes(ctx, limit):
    """(arrays, numbers, bytes) that one iteration of the steps function's loop saves on
    its tape: the values its assignments overwrite (`ctx.pushed`), the elements its writes
    overwrite (`ctx.elem_saved`), the tapes of the helpers it calls with loops (as much
    as the limit gives a checkpointed loop within it)."""
    from srcad.passes.activity import statements, targets

    arrays = numbers = nested = 0

    def count(names_):
        nonlocal arrays, numbers
        for v in names_:
            if v in ctx.shapes_stacked:  # a shape: a few numbers
                numbers += getattr(ctx.kinds.get(v), "ndim", 1)
            elif getattr(ctx.kinds.get(v), "ndim", 1):
                arrays += 1
            else:
                numbers += 1

    body = []
    for loop in ctx.fnode.body:
        if loop in ctx.replay:  # replayed: it keeps what it carries
            count(ctx.replay[loop][0])
        elif isinstance(loop, (gast.For, gast.While)):
            body += loop.body
    for s, _ in statements(body):
        if not isinstance(s, gast.Assign):
            continue
        t = s.targets[0]
        if isinstance(t, gast.Subscript):
            arrays += t.value.id in ctx.elem_saved
            continue
        count(v for v in targets(s) if v in ctx.pushed)
        if isinstance(s.value, gast.Call) and ctx.site(s.value).kind == "user":
            fn = ctx.user_functions.get(ctx.site(s.value).name)
            role = getattr(getattr(fn, "__srcad_local__", None), "role", None) or ("",)
            if role[0] in ("checkpoint", "while"):
                nested += limit // role[4]
            else:
                arrays += 1
    return arrays, numbers, nested


def show_checkpointed(source):
    """Print the function in `source` as CheckpointLoops rewrites it and hoists its
    helpers (for the doctest)."""
    import textwrap

    from codegen import to_source
    from srcad.errors import UnsupportedError

    fnode = gast.parse(textwrap.dedent(source)).body[0]

    def error(message, node, hint=None, cls=UnsupportedError):
        return cls(message, hint=hint)

    fnode, _ = checkpoint(fnode, lambda s: s.lineno, lambda s, why: print(why))
    fnode, helpers = hoist(fnode, error)
    print("\n".join(to_source([n]).rstrip() for n in [fnode, *helpers.values()]))


def _entry(carried, kinds, outs, snaps):
    """The lines a checkpointing driver starts both sweeps with (every carried array
    contiguous: one layout for Numba whatever the caller's arrays are, as snapshots are
    copies), and those that make a stack of snapshots for each kept value in `snaps` (a
    float that may start as an int, `acc = 0` then `acc += x`, typed as a float)."""
    contiguous = "".join(f"{c} = np.ascontiguousarray({c})\n"
                         for c, k in zip(carried, kinds) if k.ndim)
    stacks = "".join(
        f"{snaps[c]} = rt.snapshots({c}"
        f"{' + 0.0' if not k.ndim and (k.is_float or out.is_float) else ''})\n"
        for c, k, out in zip(carried, kinds, outs) if c in snaps)
    return contiguous, stacks


def sweeps(program, spec, limit):
    """The sweep pair of `<loop>(...)` (a "checkpoint" helper, `spec` its specialization):
    the binomial schedule of `srcad.runtime.checkpoints` run over `<loop>_steps`, whose
    taped sweeps reverse one iteration and whose untaped forward sweep advances the state.
    Its tape: the schedule, the pending action and the snapshots."""
    from codegen.templates import statements
    from srcad.errors import UnsupportedError
    from srcad.passes.reverse_ad import ReverseAD

    ctx, fn = spec.ctx, spec.fn
    info = fn.__srcad_local__
    steps_fn = info.scope[info.role[2]]
    nc = info.role[1]
    budget = limit // info.role[4]  # what the limit gives this loop
    params = list(spec.params)
    kinds = spec.arg_kinds
    carried, (lo, hi, step) = params[-nc:], params[-nc - 3:-nc]
    floats = [len(params) - nc + j for j in range(nc) if kinds[len(params) - nc + j].is_float]
    inner = tuple(sorted(set(spec.wrt) | set(floats)))
    steps_ctx = program.check_aliases_of(steps_fn, kinds)
    hit = [p for p, k in zip(params, kinds) if p in steps_ctx.written and k.is_array]
    if hit:
        raise ctx.fsrc.error(
            f"the loop writes into `{hit[0]}` through another name, which a checkpointed "
            "loop cannot follow", ctx.fsrc.node,
            f"write into `{hit[0]}` by its own name in the loop, or leave out tape_limit",
            UnsupportedError)
    taped = program.specialize(steps_fn, kinds, wrt=inner)
    primal = program.specialize(steps_fn, kinds, wrt=())
    fresh = ctx.namer.fresh
    trip, sched, act, k0, k1, held, snapshots = (
        fresh(s) for s in ("trip", "sched", "act", "k0", "k1", "held", "snapshots"))
    state = carried[:info.role[3]]  # the rest only passes through, unchanged
    snaps = {c: fresh("snaps_" + c, numbered=False) for c in state}
    lhs = carried[0] if nc == 1 else "(" + ", ".join(carried) + ",)"

    def call_args(start, stop):
        return ", ".join(params[:-nc - 3] + [start, stop, step] + carried)

    block, blocks = fresh("block"), fresh("blocks")

    def start(k):
        return f"rt.block_start({lo}, {k}, {block}, {trip}, {step})"

    def advance(ind):
        return f"{ind}{lhs}, _ = {primal.fwd_name}({call_args(start(k0), start(k1))})\n"

    def keep(ind):
        return f"{ind}{held} += 1\n" + "".join(f"{ind}rt.keep({snaps[c]}, {held}, {c})\n"
                                               for c in state)

    def restore(ind):
        return "".join(f"{ind}{c} = {snaps[c]}[{held}]\n" for c in state)

    outs = getattr(taped.return_kind, "items", (taped.return_kind,))

    state_bytes = " + ".join(f"rt.nbytes({c})" for c in state)
    arrays, numbers, nested = _pushes(taped.ctx, limit)
    biggest = [p for p, k in zip(params, kinds) if k.ndim]
    iteration_bytes = f"{8 * numbers + nested}" if not (arrays and biggest) else \
        f"{arrays} * max({', '.join(f'rt.nbytes({p})' for p in biggest)}, 0) + " \
        f"{8 * numbers + nested}"
    tape_items = [sched, act, k0, held, trip, block] + [snaps[c] for c in state]
    contiguous, stacks = _entry(carried, kinds[len(params) - nc:], outs, snaps)
    fwd = (contiguous + f"{trip} = rt.range_len({lo}, {hi}, {step})\n"
           f"{block}, {blocks}, {snapshots} = rt.checkpoint_plan({int(budget)}, {state_bytes}, "
           f"{iteration_bytes}, {trip})\n"
           f"{sched} = rt.revolve_start({blocks}, {snapshots})\n" + stacks
           + f"{held} = 0\n{act}, {k0}, {k1} = rt.revolve_next({sched})\n"
           f"while {act} != rt.YOUTURN and {act} != rt.DONE:\n"
           f"    if {act} == rt.TAKESHOT:\n" + keep(" " * 8)
           + f"    elif {act} == rt.ADVANCE:\n" + advance(" " * 8)
           + f"    {act}, {k0}, {k1} = rt.revolve_next({sched})\n"
           f"if {act} == rt.YOUTURN:\n" + keep(" " * 4) + advance(" " * 4)
           + f"return {lhs}, ({', '.join(tape_items)},)\n")
    d = {c: ctx.d(c) for c in carried}
    grads = [fresh("g") for _ in inner]
    d_out = ctx.seed
    seeds = [d_out] if nc == 1 else [f"{d_out}[{j}]" for j in range(nc)]
    rev = contiguous + f"({', '.join(tape_items)},) = {ctx.tape_param}\n{k1} = {k0} + 1\n"
    for j, c in enumerate(carried):
        if len(params) - nc + j in floats:
            like = f"rt.adjoint_like({seeds[j]}, {c})"
            if kinds[len(params) - nc + j].ndim:
                like = f"np.ascontiguousarray({like})"
            rev += f"{d[c]} = {like}\n"
    closures = [p for p in spec.wrt if p < len(params) - nc]
    for p in closures:
        zero = f"np.zeros_like({params[p]})" if kinds[p].ndim else "0.0"
        rev += f"{ctx.d(params[p])} = {zero}\n"
    dout = [d[c] if len(params) - nc + j in floats else "0.0" for j, c in enumerate(carried)]
    dout = dout[0] if nc == 1 else "(" + ", ".join(dout) + ",)"
    tape = fresh("tape_steps")
    one = call_args(start(k0), start(f"{k0} + 1"))
    turn = (f"        _, {tape} = {taped.fwd_name}({one})\n"
            f"        ({', '.join(grads)},) = {taped.rev_name}({one}, {tape}, {dout})\n")
    for g, p in zip(grads, inner):  # one layout for Numba: a transposed product may be F
        value = f"np.ascontiguousarray({g})" if kinds[p].ndim else g
        turn += f"        {ctx.d(params[p])} {'=' if p >= len(params) - nc else '+='} {value}\n"
    rev += (f"if {act} == rt.YOUTURN:\n" + restore(" " * 4) + f"    {held} -= 1\n"
            f"while {act} != rt.DONE:\n"
            f"    if {act} == rt.TAKESHOT:\n" + keep(" " * 8)
            + f"    elif {act} == rt.RESTORE:\n" + restore(" " * 8)
            + f"    elif {act} == rt.POP:\n        {held} -= 1\n"
            f"    elif {act} == rt.ADVANCE:\n" + advance(" " * 8)
            + "    else:\n" + turn
            + f"    {act}, {k0}, {k1} = rt.revolve_next({sched})\n"
            f"return ({''.join(ctx.d(params[p]) + ', ' for p in spec.wrt)})\n")
    return (ReverseAD.function(spec.fwd_name, params, statements(fwd)),
            ReverseAD.function(spec.rev_name, params + [ctx.tape_param, d_out], statements(rev)))


def parallel_sweeps(program, spec):
    """The sweep pair of `<loop>(...)` for a `prange` loop whose iterations only add into
    sums and write rows of arrays of their own (a "parallel" helper): both sweeps run
    stretches of iterations in parallel through `<loop>_steps`. The forward sweep adds
    up what each stretch adds to the sums (started from zero), and takes from each
    stretch the rows it owns of the arrays it writes (each stretch writes into a copy),
    untaped. The reverse sweep tapes and reverses each stretch on its own — a sum's
    adjoint is the same for all of them; an array's adjoint, a row at a time, is its
    iterations' own — and adds up the adjoints of the values the loop reads (Numba's
    parallel reductions: each thread adds into its own, then they are summed). The
    tape keeps the arrays the loop writes as they were before it."""
    from codegen.templates import statements
    from srcad.passes.reverse_ad import ReverseAD

    ctx, fn = spec.ctx, spec.fn
    info = fn.__srcad_local__
    steps_fn = info.scope[info.role[2]]
    nc, ns = info.role[1], info.role[3]
    params, kinds = list(spec.params), spec.arg_kinds
    first = len(params) - nc
    carried, (lo, hi, step) = params[first:], params[first - 3:first]
    rows = [c for c in carried[:ns] if c in info.role[4]]
    sums, through = [c for c in carried[:ns] if c not in rows], carried[ns:]
    floats = [first + j for j in range(nc) if kinds[first + j].is_float]
    inner = tuple(sorted(set(spec.wrt) | set(floats)))
    taped = program.specialize(steps_fn, kinds, wrt=inner)
    primal = program.specialize(steps_fn, kinds, wrt=())
    fresh = ctx.namer.fresh
    trip, k, chunks = fresh("trip"), fresh("k"), fresh("chunks")
    part = {c: fresh("part_" + c, numbered=False) for c in carried}
    total = {c: fresh("total_" + c, numbered=False) for c in carried}
    before = {c: fresh("before_" + c, numbered=False) for c in rows}
    zero = {c: (f"np.zeros({c}.shape)" if kinds[first + j].ndim else "0.0")
            for j, c in enumerate(carried)}
    start = f"rt.chunk_start({lo}, {k}, {chunks}, {trip}, {step})"
    stop = f"rt.chunk_start({lo}, {k} + 1, {chunks}, {trip}, {step})"

    def one(args_of):  # the call of `<loop>_steps` for stretch k
        return ", ".join(params[:first - 3] + [start, stop, step] +
                         [args_of(c) for c in carried])

    def own_rows(dst, src):
        return f"    rt.copy_rows({dst}, {src}, {start}, {stop}, {step})\n"

    outs = "(" + ", ".join(part[c] for c in carried) + ",)" if nc > 1 else part[carried[0]]
    fwd = (f"{trip} = rt.range_len({lo}, {hi}, {step})\n{chunks} = rt.parallel_chunks({trip})\n"
           + "".join(f"{total[c]} = {zero[c]}\n" for c in sums)
           + "".join(f"{total[c]} = np.copy({c})\n" for c in rows)
           + f"for {k} in rt.prange({chunks}):\n"
           f"    {outs}, _ = {primal.fwd_name}({one(lambda c: zero[c] if c in sums else c)})\n"
           + "".join(f"    {total[c]} += {part[c]}\n" for c in sums)
           + "".join(own_rows(total[c], part[c]) for c in rows)
           + "".join(f"{c} = {c} + {total[c]}\n" for c in sums)
           + "".join(f"{before[c]} = {c}\n{c} = {total[c]}\n" for c in rows)
           + f"return {carried[0] if nc == 1 else '(' + ', '.join(carried) + ',)'}, "
           f"({', '.join([trip, chunks] + [before[c] for c in rows])},)\n")
    seeds = [ctx.seed] if nc == 1 else [f"{ctx.seed}[{j}]" for j in range(nc)]
    rev = f"({', '.join([trip, chunks] + [before[c] for c in rows])},) = {ctx.tape_param}\n"
    d = {p: ctx.d(p) for p in params}
    for j, c in enumerate(carried):
        if first + j in floats:
            rev += f"{d[c]} = rt.adjoint_like({seeds[j]}, {c})\n"
            if c in rows:
                rev += f"{total[c]} = np.copy({d[c]})\n"
    closures = [p for p in inner if p < first or params[p] in through]
    for p in closures:
        name = params[p]
        total.setdefault(name, fresh("total_" + name, numbered=False))
        rev += f"{total[name]} = {'np.zeros(' + name + '.shape)' if kinds[p].ndim else '0.0'}\n"

    def seed_of(j, c):
        if first + j not in floats:
            return "0.0"
        return d[c] if c in sums else f"np.copy({d[c]})" if c in rows else zero[c]

    seed = [seed_of(j, c) for j, c in enumerate(carried)]
    seed = seed[0] if nc == 1 else "(" + ", ".join(seed) + ",)"
    grads = [fresh("g") for _ in inner]
    tape = fresh("tape_steps")
    args = one(lambda c: zero[c] if c in sums else before[c] if c in rows else c)
    rev += (f"for {k} in rt.prange({chunks}):\n"
            f"    _, {tape} = {taped.fwd_name}({args})\n"
            f"    ({', '.join(grads)},) = {taped.rev_name}({args}, {tape}, {seed})\n")
    for g, p in zip(grads, inner):
        if p in closures:
            rev += f"    {total[params[p]]} += {g}\n"
        elif params[p] in rows:
            rev += own_rows(total[params[p]], g)
    for p in closures:
        name = params[p]
        if p >= first:  # passes through: its adjoint from after the loop, plus the loop's
            rev += f"{d[name]} = {d[name]} + {total[name]}\n"
        else:
            rev += f"{d[name]} = {total[name]}\n"
    for c in rows:
        if params.index(c) in inner:
            rev += f"{d[c]} = {total[c]}\n"
    rev += f"return ({''.join(d[params[p]] + ', ' for p in spec.wrt)})\n"
    return (ReverseAD.function(spec.fwd_name, params, statements(fwd)),
            ReverseAD.function(spec.rev_name, params + [ctx.tape_param, ctx.seed],
                               statements(rev)))


def while_sweeps(program, spec, limit):
    """The sweep pair of `<loop>_while(...)` (a "while" helper): the forward sweep runs
    the loop one iteration at a time through `<loop>_steps` while `<loop>_test` holds,
    untaped, keeping the state every `stride` iterations in a room of snapshots that is
    thinned (`rt.thin`) and its stride doubled each time it fills; the reverse sweep
    reverses the stretches between the snapshots, last first, each through `<loop>` (a
    "checkpoint" helper: a `for` loop of known length, binomially checkpointed)."""
    from codegen.templates import statements
    from srcad.kinds import INT
    from srcad.passes.reverse_ad import ReverseAD

    ctx, fn = spec.ctx, spec.fn
    info = fn.__srcad_local__
    _, nc, steps_name, n_kept, share, whole_name, test_name = info.role
    params, kinds = list(spec.params), spec.arg_kinds
    first = len(params) - nc
    carried, state = params[first:], params[first:first + n_kept]
    kind_of = dict(zip(params, kinds))

    def callee(name):  # (function, its parameters, its kinds)
        f = info.scope[name]
        names = [a.id for a in f.__srcad_local__.node.args.args]
        n_own = nc + (0 if name == test_name else 3)
        return f, names, [kind_of[p] for p in names[:-n_own]] + [INT] * (n_own - nc) + \
            list(kinds[first:])

    floats = [first + j for j in range(nc) if kinds[first + j].is_float]
    inner = sorted(set(spec.wrt) | set(floats))
    whole_fn, whole_params, whole_kinds = callee(whole_name)
    position = {p: (len(whole_params) - nc + p - first if p >= first else
                    whole_params.index(params[p]) if params[p] in whole_params[:-nc - 3]
                    else None) for p in inner}
    whole_wrt = tuple(sorted(q for q in position.values() if q is not None))
    taped = program.specialize(whole_fn, whole_kinds, wrt=whole_wrt)
    test_fn, test_params, test_kinds = callee(test_name)
    test = program.specialize(test_fn, test_kinds, wrt=())
    steps_fn, steps_params, steps_kinds = callee(steps_name)
    steps = program.specialize(steps_fn, steps_kinds, wrt=())
    fresh = ctx.namer.fresh
    trip, stride, held, room, ok, lo, hi = (
        fresh(s) for s in ("trip", "stride", "held", "room", "ok", "lo", "hi"))
    snaps = {c: fresh("snaps_" + c, numbered=False) for c in state}
    lhs = carried[0] if nc == 1 else "(" + ", ".join(carried) + ",)"

    def call(names, start=None, stop=None):
        own = names[-nc - 3:-nc] if start is not None else []
        head = names[:len(names) - nc - len(own)]
        return ", ".join(head + ([start, stop, "1"] if own else []) + carried)

    outs = getattr(steps.return_kind, "items", (steps.return_kind,))

    state_bytes = " + ".join(f"rt.nbytes({c})" for c in state)
    contiguous, stacks = _entry(carried, kinds[first:], outs, snaps)
    tape_items = [trip, stride, held] + [snaps[c] for c in state]
    keep = f"        {held} += 1\n" + "".join(f"        rt.keep({snaps[c]}, {held}, {c})\n"
                                                for c in state)
    fwd = (contiguous + stacks
           + f"{room} = rt.while_room({limit // share // 2}, {state_bytes})\n"
           f"{trip}, {stride}, {held} = 0, 1, 0\n"
           f"{ok}, _ = {test.fwd_name}({call(test_params)})\n"
           f"while {ok}:\n"
           f"    if {trip} % {stride} == 0 and {held} == {room}:\n"
           + "".join(f"        rt.thin({snaps[c]}, {held})\n" for c in state)
           + f"        {held} = ({held} + 1) // 2\n        {stride} *= 2\n"
           f"    if {trip} % {stride} == 0:\n" + keep
           + f"    {lhs}, _ = {steps.fwd_name}({call(steps_params, trip, f'{trip} + 1')})\n"
           f"    {trip} += 1\n"
           f"    {ok}, _ = {test.fwd_name}({call(test_params)})\n"
           f"return {lhs}, ({', '.join(tape_items)},)\n")
    d = {p: ctx.d(p) for p in params}
    seeds = [ctx.seed] if nc == 1 else [f"{ctx.seed}[{j}]" for j in range(nc)]
    rev = contiguous + f"({', '.join(tape_items)},) = {ctx.tape_param}\n"
    for j, c in enumerate(carried):
        if first + j in floats:
            like = f"rt.adjoint_like({seeds[j]}, {c})"
            if kinds[first + j].ndim:
                like = f"np.ascontiguousarray({like})"
            rev += f"{d[c]} = {like}\n"
    for p in spec.wrt:
        if p < first:
            zero = f"np.zeros_like({params[p]})" if kinds[p].ndim else "0.0"
            rev += f"{d[params[p]]} = {zero}\n"
    dout = [d[c] if first + j in floats else "0.0" for j, c in enumerate(carried)]
    dout = dout[0] if nc == 1 else "(" + ", ".join(dout) + ",)"
    grads = {q: fresh("g") for q in whole_wrt}
    tape = fresh("tape_stretch")
    args = call(whole_params, lo, hi)
    rev += (f"{hi} = {trip}\n"
            f"while {held} > 0:\n"
            f"    {lo} = ({held} - 1) * {stride}\n"
            + "".join(f"    {c} = {snaps[c]}[{held}]\n" for c in state)
            + f"    _, {tape} = {taped.fwd_name}({args})\n"
            f"    ({', '.join(grads.values())},) = {taped.rev_name}({args}, {tape}, {dout})\n")
    for p in inner:
        q = position[p]
        if q is None:
            continue
        value = f"np.ascontiguousarray({grads[q]})" if kinds[p].ndim else grads[q]
        rev += f"    {d[params[p]]} {'=' if p >= first else '+='} {value}\n"
    rev += (f"    {hi} = {lo}\n    {held} -= 1\n"
            f"return ({''.join(d[params[p]] + ', ' for p in spec.wrt)})\n")
    return (ReverseAD.function(spec.fwd_name, params, statements(fwd)),
            ReverseAD.function(spec.rev_name, params + [ctx.tape_param, ctx.seed],
                               statements(rev)))

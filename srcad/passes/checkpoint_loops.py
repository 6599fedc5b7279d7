"""CheckpointLoops: with a tape limit, long loops become calls that checkpoint their state."""
import copy
import warnings

import gast

from srcad.errors import SrcadWarning
from srcad.passes.hoist_local_functions import HoistLocalFunctions, hoist
from srcad.passes.lower_prange import live_in

# view-making calls: an array written in a checkpointed loop must not be one (the loop
# writes a copy of it)
_VIEWS = {"reshape", "ravel", "transpose", "swapaxes", "squeeze", "asarray", "diagonal",
          "view", "expand_dims", "broadcast_to", "atleast_1d", "atleast_2d", "moveaxis",
          "flip", "fliplr", "flipud", "real", "imag"}


class CheckpointLoops:
    """Transformation, with `tape_limit` set: each `for ... in range(...)` loop at the top
    level of the function becomes a call of two helpers made from it, so that its reverse
    sweep keeps snapshots of the state the loop carries instead of a tape per iteration.

    `<loop>_steps(lo, hi, step, carried...)` runs iterations `range(lo, hi, step)` of the
    loop (its body as written) and returns the carried values; `<loop>(...)` calls it for
    the whole range and is what the function calls. Its sweep pair is not made from its
    body: the forward sweep advances the state through `<loop>_steps` without a tape,
    keeping snapshots where the binomial schedule says (`srcad.runtime.checkpoints`), and
    the reverse sweep restores them, advances again, and reverses one iteration at a time
    through `<loop>_steps`' own sweeps. Values the loop reads but does not assign become
    arguments (HoistLocalFunctions' captures); arrays it writes into are copied first.

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
    """

    needs = ("local_functions",)
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        limited = getattr(self.ctx.program, "tape_limit", None) is not None
        parallel = any(getattr(s, "srcad_parallel", False) for s in fnode.body)
        if not (limited or parallel):
            return fnode
        info = getattr(self.ctx.fsrc.fn, "__srcad_local__", None)
        if getattr(info, "role", None) is not None:  # made by this pass: its loop is one
            return fnode
        fnode, roles = checkpoint(fnode, self.ctx.fsrc.line, self.warn, limited)
        if not roles:
            return fnode
        fnode, helpers = hoist(fnode, self.ctx.fsrc.error)
        hoister = HoistLocalFunctions(self.ctx)
        made = hoister.functions(helpers, dict(self.ctx.local_functions))
        for name, fn in made.items():
            fn.__srcad_local__.role = roles[name]
        self.ctx.local_functions.update(made)
        for fn in self.ctx.local_functions.values():
            fn.__srcad_local__.scope.update(made)
        return fnode

    def warn(self, loop, why):
        warnings.warn(f"{self.ctx.fsrc.filename}:{self.ctx.fsrc.line(loop)}: the loop is not "
                      f"checkpointed ({why}); its tape grows with its trip count",
                      SrcadWarning, stacklevel=2)


def checkpoint(fnode, line, warn, limited=True):
    """`fnode` with its eligible top-level loops replaced by calls of local helpers
    defined just before them, and {helper name: its role}: ("segment",) for the steps,
    ("checkpoint", ...) for a loop checkpointed within the tape limit (`limited`), or
    ("parallel", ...) for a `prange` loop whose iterations only add into sums (their
    sweeps run in parallel; LowerPrange marks such loops)."""
    body, roles = [], {}
    taken = {n.id for n in gast.walk(fnode) if isinstance(n, gast.Name)} | \
        {n.name for n in gast.walk(fnode) if isinstance(n, gast.FunctionDef)}
    params = {a.id for a in fnode.args.args}
    for k, s in enumerate(fnode.body):
        parallel = getattr(s, "srcad_parallel", False)
        if not (isinstance(s, gast.For) and _is_range(s.iter)) or not (limited or parallel):
            body.append(s)
            continue
        state, why = _carried(s, params, fnode.body[:k], fnode.body[k + 1:])
        if parallel and not why:
            # worth it where an iteration does much work (an inner loop): each stretch's
            # reverse sweep makes adjoints the size of the arrays the loop reads
            parallel = not _written(s.body) and all(c in parallel for c in state[0]) and \
                any(isinstance(n, (gast.For, gast.While)) for n in gast.walk(
                    gast.Module(body=s.body, type_ignores=[])))
        if why or not (limited or parallel):
            if limited:
                warn(s, why or "its iterations do more than add into sums")
            body.append(s)
            continue
        name = f"loop{line(s)}"
        while name in taken or name + "_steps" in taken:
            name += "_"
        taken |= {name, name + "_steps"}
        kept, through = state
        carried = kept + through
        written = _written(s.body)
        steps, whole = _helpers(s, name, carried, [c for c in kept if c in written])
        roles[steps.name] = ("segment",)
        roles[whole.name] = ("parallel" if parallel else "checkpoint", len(carried),
                             steps.name, len(kept))
        args = list(s.iter.args)
        start, stop, step = (args if len(args) == 3 else
                             args + [gast.Constant(1, None)] if len(args) == 2 else
                             [gast.Constant(0, None), args[0], gast.Constant(1, None)])
        call = gast.Call(func=_name(name), args=[start, stop, step] + [_name(c) for c in carried],
                         keywords=[])
        target = _name(carried[0], gast.Store()) if len(carried) == 1 else \
            gast.Tuple(elts=[_name(c, gast.Store()) for c in carried], ctx=gast.Store())
        body += [gast.copy_location(steps, s), gast.copy_location(whole, s),
                 gast.copy_location(gast.Assign(targets=[target], value=call,
                                                type_comment=None), s)]
    fnode.body = body
    return fnode, roles


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
    """Arrays the statements write into: `a[...] = `, `a[...] op= `, `out=a`."""
    out = set()
    for s in stmts:
        for n in gast.walk(s):
            if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, gast.Store):
                out.add(_base(n))
            elif isinstance(n, gast.keyword) and n.arg == "out":
                out |= {e.id for e in gast.walk(n.value) if isinstance(e, gast.Name)}
            elif isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                    and n.func.attr in ("fill", "sort", "put", "itemset", "resize"):
                out.add(_base(n.func.value))
    return out - {None}


def _carried(loop, params, before, after):
    """(the names the loop carries, sorted; None) or (None, why it is not checkpointed)."""
    if loop.orelse:
        return None, "it has an `else`"
    if any(isinstance(n, (gast.Return, gast.Yield)) for n in gast.walk(loop)):
        return None, "it returns from inside"
    if _breaks(loop.body):
        return None, "it has a `break`"
    if not isinstance(loop.target, gast.Name):
        return None, "its loop variable is not a name"
    i = loop.target.id
    bound = params | _stored(before)
    stored = _stored(loop.body) - {i}
    written = _written(loop.body)
    read_after = _loaded(after)
    if i in read_after:
        return None, f"`{i}` is read after it"
    early = live_in(loop.body, {i}) & stored
    unbound = sorted((stored & (read_after | early)) - bound)
    if unbound:
        where = "after" if unbound[0] in read_after else "before"
        return None, (f"`{unbound[0]}` is assigned in it and read {where} it without a value "
                      "from before it")
    missing = sorted(written - bound - stored)
    if missing:
        return None, f"it writes into `{missing[0]}`, which is not a local array"
    aliased = sorted(w for w in written & bound if _may_alias(w, before, params))
    if aliased:
        return None, f"the array `{aliased[0]}` it writes into may be seen through another name"
    carried = sorted((stored & bound & (read_after | early)) | (written & bound))
    if not carried:
        return None, "it carries no value"
    # what the loop only reads passes through it as well: the reverse sweep hands each
    # iteration their adjoints as they stand, which it adds to in the loop's own order
    through = sorted((_loaded(loop.body) & bound) - stored - written - {i})
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


def _helpers(loop, name, carried, copied):
    """The two local functions for `loop`: `<name>_steps` and `<name>`."""
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
            f"    for {loop.target.id} in range({lo}, {hi}, {step}):\n        pass\n"
            f"    return {ret}\n"
            f"def {name}({args}):\n    {ret} = {name}_steps({args})\n    return {ret}\n")
    steps, whole = gast.parse(text).body
    for node in (steps, whole):
        for n in gast.walk(node):
            if hasattr(n, "lineno"):
                gast.copy_location(n, loop)
    steps.body[len(copied)].body = copy.deepcopy(loop.body)
    return steps, whole


def _pushes(ctx):
    """(arrays, numbers) that one iteration of the steps function's loop saves on its
    tape: the values its assignments overwrite (`ctx.pushed`), the elements its writes
    overwrite (`ctx.elem_saved`), the tapes of the helpers it calls with loops."""
    from srcad.passes.activity import statements, targets

    arrays = numbers = 0

    def count(names_):
        nonlocal arrays, numbers
        for v in names_:
            if getattr(ctx.kinds.get(v), "ndim", 1):
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
            arrays += 1
    return arrays, numbers


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

    def widened(j):  # a float that may start as an int (`acc = 0`, then `acc += x`)
        k = kinds[len(params) - nc + j]
        return " + 0.0" if not k.ndim and (k.is_float or outs[j].is_float) else ""

    state_bytes = " + ".join(f"rt.nbytes({c})" for c in state)
    arrays, numbers = _pushes(taped.ctx)
    biggest = [p for p, k in zip(params, kinds) if k.ndim]
    iteration_bytes = f"{8 * numbers}" if not (arrays and biggest) else \
        f"{arrays} * max({', '.join(f'rt.nbytes({p})' for p in biggest)}, 0) + {8 * numbers}"
    tape_items = [sched, act, k0, held, trip, block] + [snaps[c] for c in state]
    # one layout for Numba, whatever the caller's arrays are: snapshots are copies (C)
    contiguous = "".join(f"{c} = np.ascontiguousarray({c})\n" for j, c in enumerate(state)
                         if kinds[len(params) - nc + j].ndim)
    fwd = (contiguous + f"{trip} = rt.range_len({lo}, {hi}, {step})\n"
           f"{block}, {blocks}, {snapshots} = rt.checkpoint_plan({int(limit)}, {state_bytes}, "
           f"{iteration_bytes}, {trip})\n"
           f"{sched} = rt.revolve_start({blocks}, {snapshots})\n"
           + "".join(f"{snaps[c]} = rt.snapshots({c}{widened(j)})\n"
                     for j, c in enumerate(state))
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
    sums (a "parallel" helper): both sweeps run the iterations in parallel through
    `<loop>_steps`, one iteration each. The forward sweep adds up what each adds to the
    sums (started from zero), untaped; the reverse sweep tapes and reverses each
    iteration on its own — a sum's adjoint is the same for all of them — and adds up
    the adjoints of the values the loop reads (Numba's parallel reductions: each thread
    adds into its own, then they are summed). Nothing is kept between the sweeps."""
    from codegen.templates import statements
    from srcad.passes.reverse_ad import ReverseAD

    ctx, fn = spec.ctx, spec.fn
    info = fn.__srcad_local__
    steps_fn = info.scope[info.role[2]]
    nc, ns = info.role[1], info.role[3]
    params, kinds = list(spec.params), spec.arg_kinds
    first = len(params) - nc
    carried, (lo, hi, step) = params[first:], params[first - 3:first]
    sums, through = carried[:ns], carried[ns:]
    floats = [first + j for j in range(nc) if kinds[first + j].is_float]
    inner = tuple(sorted(set(spec.wrt) | set(floats)))
    taped = program.specialize(steps_fn, kinds, wrt=inner)
    primal = program.specialize(steps_fn, kinds, wrt=())
    fresh = ctx.namer.fresh
    trip, k, chunks = fresh("trip"), fresh("k"), fresh("chunks")
    part = {c: fresh("part_" + c, numbered=False) for c in carried}
    total = {c: fresh("total_" + c, numbered=False) for c in carried}
    zero = {c: (f"np.zeros({c}.shape)" if kinds[first + j].ndim else "0.0")
            for j, c in enumerate(carried)}

    def one(args_of):  # the call of `<loop>_steps` for stretch k
        start = f"rt.chunk_start({lo}, {k}, {chunks}, {trip}, {step})"
        stop = f"rt.chunk_start({lo}, {k} + 1, {chunks}, {trip}, {step})"
        return ", ".join(params[:first - 3] + [start, stop, step] +
                         [args_of(c) for c in carried])

    outs = "(" + ", ".join(part[c] for c in carried) + ",)" if nc > 1 else part[carried[0]]
    fwd = (f"{trip} = rt.range_len({lo}, {hi}, {step})\n{chunks} = rt.parallel_chunks({trip})\n"
           + "".join(f"{total[c]} = {zero[c]}\n" for c in sums)
           + f"for {k} in rt.prange({chunks}):\n"
           f"    {outs}, _ = {primal.fwd_name}({one(lambda c: zero[c] if c in sums else c)})\n"
           + "".join(f"    {total[c]} += {part[c]}\n" for c in sums)
           + "".join(f"{c} = {c} + {total[c]}\n" for c in sums)
           + f"return {carried[0] if nc == 1 else '(' + ', '.join(carried) + ',)'}, "
           f"({trip}, {chunks})\n")
    seeds = [ctx.seed] if nc == 1 else [f"{ctx.seed}[{j}]" for j in range(nc)]
    rev = f"({trip}, {chunks}) = {ctx.tape_param}\n"
    d = {p: ctx.d(p) for p in params}
    for j, c in enumerate(carried):
        if first + j in floats:
            rev += f"{d[c]} = rt.adjoint_like({seeds[j]}, {c})\n"
    closures = [p for p in inner if p < first or params[p] in through]
    for p in closures:
        name = params[p]
        total.setdefault(name, fresh("total_" + name, numbered=False))
        rev += f"{total[name]} = {'np.zeros(' + name + '.shape)' if kinds[p].ndim else '0.0'}\n"
    seed = [d[c] if c in sums and first + j in floats else
            (zero[c] if first + j in floats else "0.0") for j, c in enumerate(carried)]
    seed = seed[0] if nc == 1 else "(" + ", ".join(seed) + ",)"
    grads = [fresh("g") for _ in inner]
    tape = fresh("tape_steps")
    rev += (f"for {k} in rt.prange({chunks}):\n"
            f"    _, {tape} = {taped.fwd_name}({one(lambda c: zero[c] if c in sums else c)})\n"
            f"    ({', '.join(grads)},) = {taped.rev_name}"
            f"({one(lambda c: zero[c] if c in sums else c)}, {tape}, {seed})\n")
    for g, p in zip(grads, inner):
        if p in closures:
            rev += f"    {total[params[p]]} += {g}\n"
    for p in closures:
        name = params[p]
        if p >= first:  # passes through: its adjoint from after the loop, plus the loop's
            rev += f"{d[name]} = {d[name]} + {total[name]}\n"
        else:
            rev += f"{d[name]} = {total[name]}\n"
    rev += f"return ({''.join(d[params[p]] + ', ' for p in spec.wrt)})\n"
    return (ReverseAD.function(spec.fwd_name, params, statements(fwd)),
            ReverseAD.function(spec.rev_name, params + [ctx.tape_param, ctx.seed],
                               statements(rev)))

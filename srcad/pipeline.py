"""The compiler in one screen: the ordered passes that turn a function into its sweeps."""
import os
import sys
import time

from codegen import to_source
from codegen.emit import EmissionError, emit
from srcad.context import Context
from srcad.errors import SrcadError, internal_error
from srcad.passes import ir
from srcad.passes.activity import Activity, bound_args
from srcad.passes.adjoint_kernels import AdjointKernels
from srcad.passes.assign_element_adjoints import AssignElementAdjoints
from srcad.passes.bind_arguments import BindArguments
from srcad.passes.bind_expressions import BindExpressions
from srcad.passes.check_aliases import CheckAliases
from srcad.passes.check_supported import CheckSupported
from srcad.passes.checkpoint_loops import CheckpointLoops
from srcad.passes.common_subexpressions import CommonSubexpressions
from srcad.passes.element_loops import ElementLoops
from srcad.passes.expand_aug_assign import ExpandAugAssign
from srcad.passes.filling_helpers import FillingHelpers
from srcad.passes.forward_ad import ForwardAD
from srcad.passes.fuse_elementwise import FuseElementwise
from srcad.passes.guard_integer_powers import GuardIntegerPowers
from srcad.passes.hoist_local_functions import HoistLocalFunctions
from srcad.passes.hoist_reciprocals import HoistReciprocals
from srcad.passes.infer_kinds import InferKinds
from srcad.passes.lean_array_adjoints import LeanArrayAdjoints
from srcad.passes.lean_loop_adjoints import LeanLoopAdjoints
from srcad.passes.lean_tape import LeanTape
from srcad.passes.looped_operators import LoopedOperators
from srcad.passes.lower_comprehensions import LowerComprehensions
from srcad.passes.lower_iterators import LowerIterators
from srcad.passes.lower_loop_exits import LowerLoopExits
from srcad.passes.lower_prange import LowerPrange
from srcad.passes.lower_raises import LowerPrints, LowerRaises, RestoreRaises
from srcad.passes.record_control import RecordControl
from srcad.passes.rename_reserved import RenameReserved
from srcad.passes.resolve_calls import ResolveCalls
from srcad.passes.resolve_names import ResolveNames
from srcad.passes.return_argument import ReturnArgument
from srcad.passes.reverse_ad import ReverseAD
from srcad.passes.safe_reassociation import SafeReassociation
from srcad.passes.same_shape_loops import SameShapeLoops
from srcad.passes.split_returns import SplitReturns
from srcad.passes.static_shapes import static_shapes
from srcad.passes.tape_needs import TapeNeeds
from srcad.passes.tidy_adjoints import TidyAdjoints
from srcad.passes.to_anf import ToANF
from srcad.passes.ufunc_out import UfuncOut
from srcad.passes.unit_seed_loops import UnitSeedLoops
from srcad.passes.unroll_tuple_loops import UnrollTupleLoops
from srcad.passes.view_writes import ViewWrites
from srcad.source import FunctionSource


def normalize_steps(ctx):
    """The passes that do not depend on argument kinds, in order, as (pass, tree -> tree)."""

    def check(f):
        CheckSupported(ctx.fsrc)
        return f

    def resolve(f):
        ctx.resolve = ResolveNames(ctx.fsrc, ctx.local_functions)
        return f

    return [
        (CheckSupported, check),
        (ReturnArgument, lambda f: ReturnArgument(ctx).run(f)),
        (HoistLocalFunctions, lambda f: HoistLocalFunctions(ctx).run(f)),
        (LowerPrange, lambda f: LowerPrange(ctx).run(f)),
        (CheckpointLoops, lambda f: CheckpointLoops(ctx).run(f)),
        (LowerComprehensions, lambda f: LowerComprehensions(ctx).run(f)),
        (LowerIterators, lambda f: LowerIterators(ctx).run(f)),
        (BindExpressions, lambda f: BindExpressions(ctx).run(f)),
        (ResolveNames, resolve),
        (RenameReserved, lambda f: RenameReserved(ctx).run(f)),
        (LowerRaises, lambda f: LowerRaises(ctx).run(f)),
        (LowerPrints, lambda f: LowerPrints(ctx).run(f)),
        (UfuncOut, lambda f: UfuncOut(ctx).run(f)),
        (ViewWrites, lambda f: ViewWrites(ctx).run(f)),
        (ExpandAugAssign, lambda f: ExpandAugAssign(ctx).visit(f)),
        (SplitReturns, lambda f: SplitReturns(ctx).run(f)),
        (ResolveCalls, lambda f: ResolveCalls(ctx).run(f)),
        (FillingHelpers, lambda f: FillingHelpers(ctx).run(f)),
        (UnrollTupleLoops, lambda f: UnrollTupleLoops(ctx).run(f)),
        (ToANF, lambda f: ToANF(ctx).run(f)),
        (BindArguments, lambda f: BindArguments(ctx).run(f)),
        (CommonSubexpressions, lambda f: CommonSubexpressions(ctx).run(f)),
        (LowerLoopExits, lambda f: LowerLoopExits(ctx).run(f)),
        (RecordControl, lambda f: RecordControl(ctx).run(f)),
    ]


def normalize(ctx):
    """Syntax to one operation per statement (see `normalize_steps`)."""
    fnode = ctx.fsrc.node
    for cls, step in normalize_steps(ctx):
        fnode = _run(ctx, cls, step, fnode)
    ctx.fnode = fnode
    return fnode


def infer_kinds(ctx, arg_kinds):
    """The kinds of the function's variables for these argument kinds (a callee's, to type
    the call)."""
    params = [a.id for a in ctx.fnode.args.args]
    _run(ctx, InferKinds, lambda f: InferKinds(ctx, dict(zip(params, arg_kinds))).run(f),
         ctx.fnode)
    return ctx


def check_aliases(ctx):
    """The arrays a typed function writes (`ctx.written`); refuses writes through aliases."""
    _run(ctx, CheckAliases, lambda f: CheckAliases(ctx).run(f), ctx.fnode)
    return ctx


def analyze(ctx, arg_kinds, wrt_names):
    """Passes that need the argument kinds and the `wrt` set."""
    fnode = ctx.fnode
    params = [a.id for a in fnode.args.args]
    for cls, step in [
        (InferKinds, lambda f: InferKinds(ctx, dict(zip(params, arg_kinds))).run(f)),
        (GuardIntegerPowers, lambda f: GuardIntegerPowers(ctx).run(f)),
        (CheckAliases, lambda f: CheckAliases(ctx).run(f)),
        (Activity, lambda f: Activity(ctx, wrt_names).run(f)),
        (TapeNeeds, lambda f: TapeNeeds(ctx, params).run(f)),
    ]:
        fnode = _run(ctx, cls, step, fnode)
    return fnode


def differentiate(ctx, wrt_names, fwd_name, rev_name):
    """The forward and reverse sweeps (reverse mode), tidied."""
    params = [a.id for a in ctx.fnode.args.args]
    sweeps = _run(ctx, ReverseAD, lambda f: ReverseAD(ctx, params, wrt_names, fwd_name,
                                                      rev_name).run(f), ctx.fnode)
    fwd, rev = sweeps
    arrays = {d for v, d in ctx.adjoint_names.items() if getattr(ctx.kinds.get(v), "ndim", 0)}
    # a complex adjoint keeps its zero fill: the first term added to it may be real
    filled = {d for v, d in ctx.adjoint_names.items() if ctx.kinds[v].is_complex}
    rev = _run(ctx, LeanArrayAdjoints, lambda f: LeanArrayAdjoints(
        arrays, filled, ctx.view_reads, ctx.shaped_terms).run(f), rev)
    scalars, temporaries = _scalar_adjoints(ctx)
    rev = _run(ctx, TidyAdjoints, lambda f: TidyAdjoints(scalars, temporaries).run(f), rev)
    if arrays:
        rev = _run(ctx, SameShapeLoops, lambda f: SameShapeLoops(
            _static_shapes(ctx), ctx.kinds, ctx.adjoint_names).run(f), rev)
        rev = _run(ctx, LeanLoopAdjoints, lambda f: LeanLoopAdjoints(arrays).run(f), rev)
    fwd = _run(ctx, RestoreRaises, lambda f: RestoreRaises(ctx).run(f), fwd)
    rev = _run(ctx, RestoreRaises, lambda f: RestoreRaises(ctx).run(f), rev)
    unit_seed = UnitSeedLoops(params, ctx.adjoint_names, ctx.kinds, ctx.namer, ctx.tape_param,
                              ctx.seed)
    fwd, rev = _run(ctx, UnitSeedLoops, lambda pair: unit_seed.run(*pair), (fwd, rev))
    fused = unit_seed.fused
    fwd, rev = _run(ctx, LeanTape, lambda pair: _lean_tape(ctx, params, *pair), (fwd, rev))
    fwd, rev = _run(ctx, AssignElementAdjoints, lambda pair: AssignElementAdjoints(
        ctx.kinds, ctx.tape_param).run(*pair), (fwd, rev))
    fwd = _run(ctx, FuseElementwise,
               lambda f: FuseElementwise(ctx.kinds, _user_names(ctx)).run(f), fwd)
    integers = {v for v, k in ctx.kinds.items() if getattr(k, "dtype", None) in ("b", "i")
                and not k.ndim}
    adjoints = set(ctx.adjoint_names.values()) | {ctx.seed}
    reals = {v for v, k in ctx.kinds.items() if getattr(k, "dtype", None) in ("i", "f")
             and not k.ndim}
    rev = _run(ctx, HoistReciprocals, lambda f: HoistReciprocals(
        adjoints, reals, ctx.namer.fresh).run(f), rev)
    _run(ctx, SafeReassociation, lambda f: _reassociable(ctx, adjoints, integers, f), rev)
    if arrays:
        rev, *ctx.element_functions = _run(ctx, ElementLoops, lambda f: _element_loops(
            ctx, rev_name, f), rev)
    if fused:
        fwd, *ctx.adjoint_kernels = _run(ctx, AdjointKernels, lambda f: _adjoint_kernels(
            ctx, fwd_name, f), fwd)
    kinds = _with_derivatives(ctx.kinds, ctx.adjoint_names)
    fwd = _run(ctx, LoopedOperators, lambda f: LoopedOperators(kinds).run(f), fwd)
    rev = _run(ctx, LoopedOperators, lambda f: LoopedOperators(kinds).run(f), rev)
    return fwd, rev


def forward_mode(ctx, wrt_names, jvp_name, flat=False):
    """The tangent function (forward mode); `flat`: a helper's, whose tuple result comes
    as its values then their tangents, in one tuple."""
    params = [a.id for a in ctx.fnode.args.args]
    jvp = _run(ctx, ForwardAD,
               lambda f: ForwardAD(ctx, params, wrt_names, jvp_name, flat).run(f), ctx.fnode)
    jvp = _run(ctx, RestoreRaises, lambda f: RestoreRaises(ctx).run(f), jvp)
    kinds = _with_derivatives(ctx.kinds, ctx.tangent_names)
    return _run(ctx, LoopedOperators, lambda f: LoopedOperators(kinds).run(f), jvp)


def _with_derivatives(kinds, derivative_names):
    """`kinds`, with each variable's adjoint or tangent (`derivative_names`) of its kind."""
    return {**kinds, **{d: kinds[v] for v, d in derivative_names.items() if v in kinds}}


def _static_shapes(ctx):
    """The shapes the primal's code tells (`srcad.passes.static_shapes`), found once."""
    if ctx.static_shapes is None:
        ctx.static_shapes = static_shapes(ctx.fnode, ctx.kinds,
                                          lambda op: bound_args(op, ctx))
    return ctx.static_shapes


def _user_names(ctx):
    """The user's own variables (the passes have rewritten `ctx.fsrc.node` by now)."""
    code = getattr(ctx.fsrc.fn, "__code__", None)
    if code is None:  # no code object to ask: every name counts as the user's
        return {n.id for n in ir.names(ctx.fnode)}
    return set(code.co_varnames) | set(code.co_cellvars) | set(code.co_freevars)


def _lean_tape(ctx, params, fwd, rev):
    lean = LeanTape(params, ctx.written, ctx.kinds, ctx.namer, ctx.tape_param)
    fwd, rev = lean.run(fwd, rev)
    if lean.slots is not None:
        ctx.tape_slots = lean.slots
    ctx.shapes_stacked = lean.shapes_stacked
    return fwd, rev


def _reassociable(ctx, adjoints, integers, rev):
    ctx.reassociable = SafeReassociation(adjoints, integers).run(rev)
    return rev


def _adjoint_kernels(ctx, fwd_name, fwd):
    """The forward sweep and the adjoint kernels it now calls, as one list."""
    fwd, kernels = AdjointKernels(_scalar_adjoints(ctx)[0], ctx.program.namer,
                                  fwd_name).run(fwd)
    return [fwd] + kernels


def _element_loops(ctx, rev_name, rev):
    """The reverse sweep and the kernels and loops it now calls, as one list."""
    rev, functions = ElementLoops(_static_shapes(ctx), ctx.kinds, ctx.adjoint_names,
                                  rev_name, ctx.program.namer.fresh,
                                  ctx.reassociable).run(rev)
    return [rev] + functions


def _scalar_adjoints(ctx):
    """(adjoints of scalar floats, those of them that belong to compiler temporaries)."""
    user = {n.id for n in ir.names(ctx.fsrc.node)}
    scalars = {d: v for v, d in ctx.adjoint_names.items()
               if getattr(ctx.kinds.get(v), "ndim", None) == 0
               and getattr(ctx.kinds.get(v), "dtype", None) == "f"}
    return set(scalars), {d for d, v in scalars.items() if v not in user}


def _run(ctx, cls, step, fnode):
    """Run one pass: check that what it needs was provided, time it, record what it
    provides, and show or check the tree after it."""
    name = cls.__name__
    missing = [f for f in getattr(cls, "needs", ()) if f not in ctx.provided]
    if missing:
        raise AssertionError(f"{name} needs {', '.join(missing)}, which no earlier pass "
                             "provided")
    start = time.perf_counter()
    fnode = step(fnode)
    ctx.timings.append((name, time.perf_counter() - start))
    ctx.provided.update(getattr(cls, "provides", ()))
    _show(ctx, cls, fnode)
    _check(ctx, name, fnode)
    return fnode


def _check(ctx, name, nodes):
    """With `SRCAD_CHECK_PASSES=1` (the tests and fuzzers set it), the tree after each pass
    must print as source that parses back to it; a difference names the pass."""
    if os.environ.get("SRCAD_CHECK_PASSES", "") not in ("1", "true", "yes"):
        return
    try:
        emit(list(nodes) if isinstance(nodes, (list, tuple)) else [nodes])
    except EmissionError as exc:
        raise internal_error(exc, ctx.fsrc, ctx.fsrc.node, stage=f"after pass {name}") from exc


def _show(ctx, cls, nodes):
    """`SRCAD_SHOW=ToANF,ReverseAD` prints the source after those passes (or `all`), and
    what an analysis found, to stderr."""
    name = cls.__name__
    wanted = os.environ.get("SRCAD_SHOW", "")
    if name in wanted.split(",") or wanted == "all":
        print(f"# --- {ctx.fsrc.name} after {name}", file=sys.stderr)
        if getattr(cls, "provides", ()):
            print(ctx.summary(cls.provides), file=sys.stderr)
        print(to_source(nodes if isinstance(nodes, (list, tuple)) else [nodes]).rstrip(),
              file=sys.stderr)


__all__ = ["Context", "FunctionSource", "SrcadError", "analyze", "differentiate",
           "check_aliases", "forward_mode", "infer_kinds", "normalize"]

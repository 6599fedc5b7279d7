"""The compiler in one screen: the ordered passes that turn a function into its sweeps."""
import os
import sys
import time

import gast

from codegen import Namer, to_source
from codegen.emit import EmissionError, emit
from srcad.errors import SrcadError, internal_error
from srcad.kinds import BOOL, FLOAT, INT, NONE
from srcad.passes.activity import Activity
from srcad.passes.check_aliases import CheckAliases
from srcad.passes.check_supported import CheckSupported
from srcad.passes.common_subexpressions import CommonSubexpressions
from srcad.passes.expand_aug_assign import ExpandAugAssign
from srcad.passes.hoist_local_functions import HoistLocalFunctions
from srcad.passes.infer_kinds import InferKinds
from srcad.passes.lower_comprehensions import LowerComprehensions
from srcad.passes.lower_loop_exits import LowerLoopExits
from srcad.passes.record_control import RecordControl
from srcad.passes.rename_reserved import RenameReserved
from srcad.passes.resolve_names import ResolveNames
from srcad.passes.reverse_ad import ReverseAD
from srcad.passes.safe_reassociation import SafeReassociation
from srcad.passes.split_returns import SplitReturns
from srcad.passes.tape_needs import TapeNeeds
from srcad.passes.tidy_adjoints import TidyAdjoints
from srcad.passes.to_anf import ToANF
from srcad.source import FunctionSource


class Context:
    """What the passes share about one function: its source, names, and side tables."""

    def __init__(self, fsrc, program):
        self.fsrc = fsrc
        self.program = program
        self.namer = Namer({n.id for n in gast.walk(fsrc.node) if isinstance(n, gast.Name)}
                           | {a.id for a in fsrc.node.args.args})
        self.user_functions = {}
        self.custom_calls = {}  # module name of a function with a custom rule -> (fn, vjp name)
        self.custom_tangents = {}  # the same name -> its defjvp rule's name, or None
        self.timings = []
        self.adjoint_names = {}
        self.augmented = set()
        self.seed = self.namer.fresh("d_out", numbered=False)
        self.tape_param = self.namer.fresh("tape", numbered=False)

    def d(self, name):
        """The adjoint's name for variable `name` (`d_x` for `x`, unless that is taken)."""
        if name not in self.adjoint_names:
            self.adjoint_names[name] = self.namer.fresh("d_" + name, numbered=False)
        return self.adjoint_names[name]

    @staticmethod
    def const_kind(atom):
        v = atom.value
        return BOOL if isinstance(v, bool) else INT if isinstance(v, int) else \
            FLOAT if isinstance(v, float) else NONE


def normalize_steps(ctx):
    """The passes that do not depend on argument kinds, in order, as (name, tree -> tree)."""

    def check(f):
        CheckSupported(ctx.fsrc)
        return f

    def resolve(f):
        ctx.resolve = ResolveNames(ctx.fsrc, ctx.local_functions)
        return f

    return [
        ("CheckSupported", check),
        ("HoistLocalFunctions", lambda f: HoistLocalFunctions(ctx).run(f)),
        ("LowerComprehensions", lambda f: LowerComprehensions(ctx).run(f)),
        ("ResolveNames", resolve),
        ("RenameReserved", lambda f: RenameReserved(ctx).run(f)),
        ("ExpandAugAssign", lambda f: ExpandAugAssign(ctx).visit(f)),
        ("SplitReturns", lambda f: SplitReturns(ctx).run(f)),
        ("ToANF", lambda f: ToANF(ctx).run(f)),
        ("CommonSubexpressions", lambda f: CommonSubexpressions(ctx).run(f)),
        ("LowerLoopExits", lambda f: LowerLoopExits(ctx).run(f)),
        ("RecordControl", lambda f: RecordControl(ctx).run(f)),
    ]


def normalize(ctx):
    """Syntax to one operation per statement (see `normalize_steps`)."""
    fnode = ctx.fsrc.node
    for name, step in normalize_steps(ctx):
        fnode = _run(ctx, name, step, fnode)
    ctx.fnode = fnode
    return fnode


def analyze(ctx, arg_kinds, wrt_names):
    """Passes that need the argument kinds and the `wrt` set."""
    fnode = ctx.fnode
    params = [a.id for a in fnode.args.args]
    for name, step in [
        ("InferKinds", lambda f: InferKinds(ctx, dict(zip(params, arg_kinds))).run(f)),
        ("CheckAliases", lambda f: CheckAliases(ctx).run(f)),
        ("Activity", lambda f: Activity(ctx, wrt_names).run(f)),
        ("TapeNeeds", lambda f: TapeNeeds(ctx, params).run(f)),
    ]:
        fnode = _run(ctx, name, step, fnode)
    return fnode


def differentiate(ctx, wrt_names, fwd_name, rev_name):
    params = [a.id for a in ctx.fnode.args.args]
    start = time.perf_counter()
    fwd, rev = ReverseAD(ctx, params, wrt_names, fwd_name, rev_name).run(ctx.fnode)
    ctx.timings.append(("ReverseAD", time.perf_counter() - start))
    _show(ctx, "ReverseAD", [fwd, rev])
    _check(ctx, "ReverseAD", [fwd, rev])
    start = time.perf_counter()
    rev = TidyAdjoints(*_scalar_adjoints(ctx)).run(rev)
    ctx.timings.append(("TidyAdjoints", time.perf_counter() - start))
    _show(ctx, "TidyAdjoints", [rev])
    _check(ctx, "TidyAdjoints", [rev])
    start = time.perf_counter()
    integers = {v for v, k in ctx.kinds.items() if getattr(k, "dtype", None) in ("b", "i")
                and not k.ndim}
    adjoints = set(ctx.adjoint_names.values()) | {ctx.seed}
    ctx.reassociable = SafeReassociation(adjoints, integers).run(rev)
    ctx.timings.append(("SafeReassociation", time.perf_counter() - start))
    return fwd, rev


def _scalar_adjoints(ctx):
    """(adjoints of scalar floats, those of them that belong to compiler temporaries)."""
    user = {n.id for n in gast.walk(ctx.fsrc.node) if isinstance(n, gast.Name)}
    scalars = {d: v for v, d in ctx.adjoint_names.items()
               if getattr(ctx.kinds.get(v), "ndim", None) == 0
               and getattr(ctx.kinds.get(v), "dtype", None) == "f"}
    return set(scalars), {d for d, v in scalars.items() if v not in user}


def _run(ctx, name, step, fnode):
    start = time.perf_counter()
    fnode = step(fnode)
    ctx.timings.append((name, time.perf_counter() - start))
    _show(ctx, name, fnode)
    _check(ctx, name, fnode)
    return fnode


def _check(ctx, name, nodes):
    """With `SRCAD_CHECK_PASSES=1` (the tests and fuzzers set it), the tree after each pass
    must print as source that parses back to it; a difference names the pass."""
    if os.environ.get("SRCAD_CHECK_PASSES", "") not in ("1", "true", "yes"):
        return
    try:
        emit(nodes if isinstance(nodes, list) else [nodes])
    except EmissionError as exc:
        raise internal_error(exc, ctx.fsrc, ctx.fsrc.node, stage=f"after pass {name}") from exc


def _show(ctx, name, nodes):
    """`SRCAD_SHOW=ToANF,ReverseAD` prints the source after those passes (to stderr)."""
    wanted = os.environ.get("SRCAD_SHOW", "")
    if name in wanted.split(",") or wanted == "all":
        print(f"# --- {ctx.fsrc.name} after {name}", file=sys.stderr)
        print(to_source(nodes if isinstance(nodes, list) else [nodes]), file=sys.stderr)


__all__ = ["Context", "FunctionSource", "SrcadError", "analyze", "differentiate", "normalize"]

"""What the passes share about one function: its source, fresh names, and the side tables
the analyses fill in, each declared here with the pass that provides it.

A pass declares the fields it reads (`needs`) and those it fills in (`provides`) as class
attributes; `srcad.pipeline` runs the passes in order and checks that every field a pass
needs was provided by an earlier one.
"""
from dataclasses import dataclass, field

import gast

from codegen import Namer
from srcad.kinds import BOOL, FLOAT, INT, NONE, TupleKind


@dataclass
class Context:
    """The shared state of one function's transformation (see the module)."""

    fsrc: object = None  # the user's function (srcad.source.FunctionSource)
    program: object = None  # the Program whose module this function's code goes into
    namer: Namer = None  # fresh names, none clashing with the function's own
    fnode: object = None  # the function after `normalize`
    timings: list = field(default_factory=list)  # (pass name, seconds)
    provided: set = field(default_factory=set)  # the fields filled in so far
    adjoint_names: dict = field(default_factory=dict)  # variable -> its adjoint's name
    adjoint_of: dict = field(default_factory=dict)  # an adjoint's name -> its variable
    seed: str = "d_out"  # the reverse sweep's cotangent parameter
    tape_param: str = "tape"  # the reverse sweep's tape parameter
    out_argument: str = None  # the parameter the function writes its result into (`out=`)

    # HoistLocalFunctions
    local_functions: dict = field(default_factory=dict)  # name -> the lifted function
    # ResolveNames
    resolve: object = None  # what each name refers to (srcad.passes.resolve_names)
    # ExpandAugAssign
    augmented: set = field(default_factory=set)  # assignments that were `x op= e`
    # FillingHelpers: a call's assignment -> how many of its targets (the first) are the
    # arrays the helper fills, each updated in place; ToANF: each such update -> the call
    filled_targets: dict = field(default_factory=dict)
    # SplitReturns
    return_values: list = field(default_factory=list)  # variables holding the return value
    # LowerRaises
    failures: list = field(default_factory=list)  # the `raise` statements, by number
    prints: list = field(default_factory=list)  # each `print`'s texts and value numbers
    # ResolveCalls
    calls: dict = field(default_factory=dict)  # call node -> its CallSite
    user_functions: dict = field(default_factory=dict)  # helper name -> function
    custom_calls: dict = field(default_factory=dict)  # name -> (fn, its defvjp rule's name)
    custom_tangents: dict = field(default_factory=dict)  # name -> its defjvp rule's name
    # ToANF
    chained_writes: dict = field(default_factory=dict)  # `a[i, j] = v` of `a[i][j] = v` -> 1
    # RecordControl
    flags: set = field(default_factory=set)  # branch flags recorded for the reverse sweep
    loops: dict = field(default_factory=dict)  # loop -> its trip-count record
    no_push: set = field(default_factory=set)  # control records kept without a tape push
    # InferKinds
    kinds: dict = field(default_factory=dict)  # variable -> Kind
    item_kinds: dict = field(default_factory=dict)  # loop over a tuple -> item kinds
    return_kind: object = None
    # CheckAliases
    written: set = field(default_factory=set)  # arrays written element by element
    updated_arguments: set = field(default_factory=set)  # parameters `x += e` updates in place
    materialize: set = field(default_factory=set)  # views taken as copies
    # Activity
    active: set = field(default_factory=set)  # variables with an adjoint
    varied: set = field(default_factory=set)  # variables that depend on `wrt`
    # TapeNeeds
    needed: set = field(default_factory=set)
    pushed: set = field(default_factory=set)
    elem_saved: set = field(default_factory=set)
    fresh_defs: set = field(default_factory=set)
    loop_var_changed: set = field(default_factory=set)
    saved_loop_vars: object = None
    replay: set = field(default_factory=set)
    recompute: dict = field(default_factory=dict)
    # ReverseAD (and ForwardAD: `current`, the statement being differentiated)
    tape_slots: list = field(default_factory=list)
    stacked: bool = False
    view_adjoints: set = field(default_factory=set)
    view_reads: set = field(default_factory=set)  # (d_x, index dumped, d_t) of `t = x[index]`
    shapes_stacked: set = field(default_factory=set)  # LeanTape: pushed, as shapes only
    current: object = None
    masked: object = None  # Adjoints: strong zeros of masked rules
    static_shapes: object = None  # Adjoints: variable -> its shape where the code tells it
    # (adjoint, term dumped) of `d_x += term` where the term has x's shape, unsummed
    shaped_terms: set = field(default_factory=set)
    tangent_names: dict = field(default_factory=dict)  # ForwardAD: variable -> its tangent
    # SafeReassociation
    reassociable: bool = False
    # ElementLoops
    element_functions: list = field(default_factory=list)  # kernels and loops of the sweep
    # AdjointKernels
    adjoint_kernels: list = field(default_factory=list)  # the forward sweep's adjoint kernels

    def __post_init__(self):
        self.provided |= {"fsrc", "program", "namer", "adjoint_names", "seed", "tape_param"}
        if self.namer is None:
            node = getattr(self.fsrc, "node", None)
            taken = set()
            if node is not None:
                from srcad.passes import ir
                taken = {n.id for n in ir.names(node)} | \
                    {a.id for a in node.args.args}
            self.namer = Namer(taken)
            self.seed = self.namer.fresh("d_out", numbered=False)
            self.tape_param = self.namer.fresh("tape", numbered=False)

    def site(self, call):
        """The `CallSite` of a call node: what ResolveCalls recorded, or, for a call a later
        pass made (a copy, say), what the name it calls is."""
        known = self.calls.get(call)
        if known is not None:
            return known
        from srcad.passes import ir
        from srcad.passes.resolve_calls import CallSite
        from srcad.rules import registry

        name = ir.dotted_text(call.func)
        if name in self.user_functions:
            return CallSite("user", name)
        if name in self.custom_calls:
            return CallSite("custom", name)
        return CallSite("rule", name, registry.by_name(name))

    def d(self, name):
        """The adjoint's name for variable `name` (`d_x` for `x`, unless that is taken)."""
        if name not in self.adjoint_names:
            self.adjoint_names[name] = self.namer.fresh("d_" + name, numbered=False)
            self.adjoint_of[self.adjoint_names[name]] = name
        return self.adjoint_names[name]

    def atom_kind(self, atom):
        """The kind of a call's argument: a name, a constant, or a tuple of them."""
        if isinstance(atom, gast.Name):
            return self.kinds[atom.id]
        if isinstance(atom, (gast.Tuple, gast.List)):
            return TupleKind(tuple(self.atom_kind(e) for e in atom.elts))
        return self.const_kind(atom)

    @staticmethod
    def const_kind(atom):
        v = atom.value
        return BOOL if isinstance(v, bool) else INT if isinstance(v, int) else \
            FLOAT if isinstance(v, float) else NONE

    def summary(self, fields):
        """`ctx.<field>: <value>` lines for what an analysis found (SRCAD_SHOW)."""
        lines = []
        for name in fields:
            value = getattr(self, name)
            if isinstance(value, (set, frozenset)):
                text = "{" + ", ".join(sorted(map(_short, value))) + "}"
            elif isinstance(value, dict):
                text = "{" + ", ".join(f"{_short(k)}: {_short(v)}" for k, v in
                                       sorted(value.items(), key=lambda kv: _short(kv[0]))) + "}"
            else:
                text = _short(value)
            lines.append(f"# ctx.{name}: {text[:300]}")
        return "\n".join(lines)


def _short(value):
    """A one-line description of a side-table key or value."""
    if isinstance(value, gast.AST):
        line = getattr(value, "lineno", None)
        return f"<{type(value).__name__}{f' line {line}' if line else ''}>"
    return str(value)

"""CheckAliases: refuse element writes and in-place updates that another name could see."""
import gast

from srcad.errors import UnsupportedError
from srcad.kinds import TupleKind
from srcad.passes import ir
from srcad.passes.activity import statements
from srcad.rules import registry


def _holds_arrays(kind):
    if isinstance(kind, TupleKind):
        return any(_holds_arrays(k) for k in kind.items)
    return getattr(kind, "is_array", False)


class CheckAliases:
    """Analysis: refuses writes that Python would show through a second name.

    `v = x[1:]` (or `x.T`, `x.reshape(...)`, `v = x`, `v = p[0]` for a tuple `p`, or a
    helper that returns its argument) may share memory with `x`. srcad refuses a write
    through `v` while `x` still refers to the same array, a write into `x` that a later
    use of `v` would see, and `x += ...` on an array another name shares (Python updates
    it in place). An alias ends when either name is assigned anew (double buffering:
    `new = u.copy(); new[i] = ...; u = new` is fine). Other views of arrays that are
    written are taken as copies (`ctx.materialize`): they read the same values and stay
    right on the tape. Sets `ctx.written`, the arrays written element by element, and
    `ctx.updated_arguments`, the parameters whose arrays an `x += e` updates in place (a
    helper's caller would see that update).
    """

    needs = ("kinds", "augmented", "user_functions", "calls")
    provides = ("written", "materialize", "updated_arguments")

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        ctx = self.ctx
        views, augmented = self.scan(fnode)
        self.params = {a.id for a in fnode.args.args}
        ctx.materialize = set()
        self.views = views = self.closure(views)
        self.check_globals(views, augmented)
        self.check_filled(views, fnode)
        for view, src, pos, loops, s in views:
            self.check(view, src, pos, loops, s)
        for name, a_pos, a_loops, s in augmented:
            if ctx.kinds[name].is_array:
                self.check_augmented(name, a_pos, a_loops, s)
        ctx.written = set(self.writes)
        ctx.updated_arguments = self.updated_arguments(augmented)
        return fnode

    def updated_arguments(self, augmented):
        """The parameters whose arrays an `x += e` updates in place: `x` is the parameter
        itself, not bound anew to an array of its own on every way before, or a view of
        one (`v = x[1:]`, `v = x`)."""
        out = set()
        for name, a_pos, a_loops, _ in augmented:
            if not self.ctx.kinds[name].is_array:
                continue
            held = {name} | {src for v, src, pos, loops, _ in self.views
                             if v == name and self.alive(v, src, pos, loops, a_pos, a_loops)}
            out |= {p for p in held & self.params if not self.bound_anew(p, a_pos)}
        return out

    def bound_anew(self, name, at):
        """Whether `name` holds an array of its own at position `at`: a statement of the
        function's body (not in a branch or loop) before `at` binds it to a new array, and
        nothing between binds it to one that may share another's."""
        binds = self.binds.get(name, [])
        fresh = [pos for pos, top, new in binds if top and new and pos < at]
        return bool(fresh) and all(new for pos, _, new in binds if max(fresh) < pos < at)

    def scan(self, fnode):
        """Record writes, definitions, uses and loop spans by statement position; return
        the (view, source, position, loops, statement) of each assignment that may make
        an alias, and the (name, position, loops, statement) of each `x += e`."""
        self.writes, self.defs, self.uses, self.spans = {}, {}, {}, {}
        self.copies = set()  # names a `np.copy(...)` assigns
        self.binds = {}  # name -> [(position, in the body itself, bound to a new array)]
        top = {id(s) for s in fnode.body}
        views, augmented = [], []
        for pos, (s, loops) in enumerate(statements(fnode.body)):
            for loop in loops:
                lo, hi = self.spans.get(loop, (pos, pos))
                self.spans[loop] = (min(lo, pos), max(hi, pos))
            for name in _reads(s):
                self.uses.setdefault(name, []).append((pos, loops))
            if not isinstance(s, gast.Assign):
                continue
            t = s.targets[0]
            if isinstance(t, gast.Subscript):
                self.writes.setdefault(t.value.id, []).append((pos, loops, s))
                continue
            names_ = [n.id for n in ir.walk(t)
                      if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)]
            for name in names_:
                self.defs.setdefault(name, []).append(pos)
            if len(names_) == 1 and isinstance(s.value, gast.Call) and \
                    ir.dotted_text(s.value.func) == "np.copy":
                self.copies.add(names_[0])
            self.stmt = s
            for name, sources in self.target_sources(t, s.value, names_):
                self.binds.setdefault(name, []).append(
                    (pos, id(s) in top, not sources and s not in self.ctx.augmented))
                if _holds_arrays(self.ctx.kinds.get(name)):
                    views += [(name, src, pos, loops, s) for src in sources if src != name]
            if s in self.ctx.augmented and isinstance(t, gast.Name):
                augmented.append((t.id, pos, loops, s))
        return views, augmented

    def target_sources(self, target, value, names_):
        """(name, the variables it may share memory with) for each name `target` binds:
        element by element where a tuple of names takes the values a user's function
        returns, else the value's sources for all of them."""
        if isinstance(target, gast.Tuple) and isinstance(value, gast.Call) and \
                self.ctx.site(value).kind == "user" and \
                all(isinstance(e, gast.Name) for e in target.elts):
            filled = self.filled_arguments(ir.dotted_text(value.func), value)
            if filled and len(filled) == len(target.elts):  # `a, b = fill(a, b, ...)`
                return [(e.id, {f}) for e, f in zip(target.elts, filled)]
            outs = self.returned_arguments(ir.dotted_text(value.func), value)
            if len(outs) == len(target.elts):
                return [(e.id, out) for e, out in zip(target.elts, outs)]
        sources = self.sources(value)
        return [(name, sources) for name in names_]

    def closure(self, views):
        """Add `v` as a view of `x` wherever `v` views `t` and `t` views `x`, the second
        reaching the first, unless `x` is assigned anew between the two (a swap,
        `u, w = w, u`, leaves no alias); and `v` as a view of `t` where both view one `x`,
        `t` made first (`q = A[1:]; r = A[:]`: a write through `r` is one through `q`),
        unless `x` or `t` is assigned anew between."""
        out = list(views)
        pairs = {(v, src) for v, src, *_ in out}
        changed = True
        while changed:
            changed = False
            for v, src, pos, loops, s in list(out):
                for v2, src2, pos2, loops2, _ in list(out):
                    if v2 == src and src2 != v and (v, src2) not in pairs and \
                            _reaches(pos2, loops2, pos, loops) and \
                            not self.defined(src2, pos2, loops2, pos, loops):
                        out.append((v, src2, pos, loops, s))
                        pairs.add((v, src2))
                        changed = True
                    elif src2 == src and v2 != v and (v, v2) not in pairs and \
                            (v2, v) not in pairs and pos2 < pos and \
                            _reaches(pos2, loops2, pos, loops) and \
                            not self.defined(src, pos2, loops2, pos, loops) and \
                            not self.defined(v2, pos2, loops2, pos, loops):
                        out.append((v, v2, pos, loops, s))
                        pairs.add((v, v2))
                        changed = True
        return out

    def check_filled(self, views, fnode):
        """Refuse `fill(b, c)` (a helper filling `b`, see FillingHelpers) where `c` may
        share `b`'s array: the helper would read through `c` the elements it writes."""
        pairs = {(v, src) for v, src, *_ in views}
        for s, _ in statements(fnode.body):
            call = s.value if isinstance(s, gast.Assign) else None
            if not (isinstance(call, gast.Call) and self.ctx.site(call).kind == "user"):
                continue
            for filled, a in [(f, a) for f in self.filled_arguments(
                    ir.dotted_text(call.func), call) for a in call.args]:
                if isinstance(a, gast.Name) and a.id != filled and \
                        ((a.id, filled) in pairs or (filled, a.id) in pairs):
                    raise self.ctx.fsrc.error(
                        f"`{ir.dotted_text(call.func)}` fills `{self.user_name(filled)}` and "
                        f"also reads `{self.user_name(a.id)}`, which may share its array", s,
                        f"pass a copy (`{self.user_name(a.id)}.copy()`)", UnsupportedError)

    def check_globals(self, views, augmented):
        """Refuse a write into a module-level array through another name (`a = W; a[0] =
        x`, `a += 1.0`): srcad reads global arrays as constants."""
        names = getattr(self.ctx.program, "global_names", {})
        updated = {name: s for name, _, _, s in augmented}
        for view, src, _, _, s in views:
            if src not in names:
                continue
            write = self.writes.get(view, [(None, None, updated.get(view))])[0][2]
            if write is not None:
                raise self.ctx.fsrc.error(
                    f"a write into the global `{names[src]}` through `{self.user_name(view)}`",
                    write, "srcad reads global arrays as constants: pass the array as an "
                    "argument to write into it, or write into a copy (`.copy()`)",
                    UnsupportedError)

    def check_augmented(self, name, a_pos, a_loops, s):
        """Refuse `name += e` (statement `s`) where another live name holds its array
        and is read after it."""
        call = self.ctx.filled_targets.get(s)  # `a` of `a, r = fill(a)`: the call's own
        for v, src, pos, loops, vs in self.views:  # `r` is the filled array, not a stale one
            other = src if name == v else v if name == src else None
            if other is None or vs is s or vs is call or \
                    not self.alive(v, src, pos, loops, a_pos, a_loops):
                continue
            if not any(_reaches(a_pos, a_loops, u, u_loops) and
                       not self.defined(other, a_pos, a_loops, u, u_loops)
                       for u, u_loops in self.uses.get(other, [])):
                continue
            if call is not None:
                raise self.ctx.fsrc.error(
                    f"`{ir.dotted_text(call.value.func)}` writes into its argument's array in "
                    f"place, and {_shown(other)} refers to the same array, which srcad "
                    "would leave as it was", s, f"take a `.copy()` on line "
                    f"{self.ctx.fsrc.line(vs)}, or pass a copy to the call", UnsupportedError)
            raise self.ctx.fsrc.error(
                f"an augmented assignment (`+=`, `*=`...) to `{name}` updates the array in "
                f"place, and {_shown(other)} refers to the same array", s,
                f"write `{name} = {name} + ...` for a new array, or take a `.copy()` on "
                f"line {self.ctx.fsrc.line(vs)}", UnsupportedError)

    def sources(self, value):
        """Variables holding arrays that `value` may share memory with."""
        kinds = self.ctx.kinds
        if isinstance(value, gast.Name):
            return {value.id} if _holds_arrays(kinds.get(value.id)) else set()
        if isinstance(value, (gast.Tuple, gast.List)):
            return {e.id for e in value.elts
                    if isinstance(e, gast.Name) and _holds_arrays(kinds.get(e.id))}
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
            base = value.value.id
            if isinstance(kinds.get(base), TupleKind):
                return {base}
            parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
            basic = all(isinstance(p, (gast.Slice, gast.Constant)) or
                        (isinstance(p, gast.Name) and not kinds[p.id].is_array) for p in parts)
            sliced = any(isinstance(p, gast.Slice) for p in parts)
            if basic and (sliced or kinds[base].ndim > len(parts)):
                return {base}
            return set()
        if isinstance(value, gast.Call):
            text = ir.dotted_text(value.func)
            if registry.is_view(text) and value.args and isinstance(value.args[0], gast.Name):
                return {value.args[0].id}
            if self.ctx.site(value).kind == "user":
                filled = self.filled_arguments(text, value)
                if filled:  # `b = fill(b, ...)` (FillingHelpers): `b` itself
                    return set(filled)
            if self.ctx.site(value).kind == "user":
                return set().union(set(), *self.returned_arguments(text, value))
        return set()

    def returned_arguments(self, text, call):
        """For each value the user's function `text` returns, the names of the call's
        array arguments it may be (a view of)."""
        kinds = self.ctx.kinds
        names = [a.id if isinstance(a, gast.Name) and _holds_arrays(kinds.get(a.id)) else None
                 for a in call.args]
        return [{names[p] for p in out if p < len(names) and names[p] is not None}
                for out in self.returns_argument(text, call)]

    def filled_arguments(self, text, call):
        """The arguments a helper that fills them returns (see FillingHelpers), in its
        order, or []."""
        fn = self.ctx.user_functions[text]
        outs = getattr(self.ctx.program, "outputs", {}).get(fn)
        if outs is None:
            return []
        params = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
        args = [call.args[k] if k < len(call.args) else None for k in
                (params.index(p) for p in ((outs,) if isinstance(outs, str) else outs.params))]
        return [a.id for a in args] if all(isinstance(a, gast.Name) for a in args) else []

    def returns_argument(self, text, call):
        """For each value the user's function returns, the positions of the array
        arguments it may be (a view of). Decided once per function and argument kinds,
        for the whole program: a chain of helpers, each asking of the next, is then
        walked once, not once per path."""
        kinds = tuple(self.ctx.atom_kind(a) for a in call.args)
        fn = self.ctx.user_functions[text]
        known = self.ctx.program.returns_argument
        if (fn, kinds) not in known:
            callee = self.ctx.program.specialize(fn, kinds, self.stmt, self.ctx.fsrc)
            known[fn, kinds] = _returns_argument(callee)
        return known[fn, kinds]

    def check(self, view, src, pos, loops, s):
        for w_pos, w_loops, w in self.writes.get(view, []):  # a write through the view
            if self.alive(view, src, pos, loops, w_pos, w_loops) and any(
                    _reaches(w_pos, w_loops, u, u_loops) and
                    not self.defined(src, w_pos, w_loops, u, u_loops)
                    for u, u_loops in self.uses.get(src, [])):
                self.refuse(view, src, w, s)
        if view in self.writes and not self.handed_over(view, src, pos, s):
            self.copy_or_refuse(view, src, s)
        for w_pos, w_loops, w in self.writes.get(src, []):  # a write the view would see
            for u_pos, u_loops in self.uses.get(view, []):
                if self.alive(view, src, pos, loops, w_pos, w_loops) and \
                        _reaches(w_pos, w_loops, u_pos, u_loops) and \
                        not self.defined(view, w_pos, w_loops, u_pos, u_loops):
                    self.refuse(src, view, w, s)
        if src in self.writes:
            self.copy_or_refuse(view, src, s)

    def handed_over(self, view, src, pos, s):
        """Whether `view = src` hands a new array over to `view`: `src` is a copy made
        once (`tmp = np.copy(u); u = tmp`, ToANF's form of `u = u.copy()`) and read nowhere
        else, so that `view` is the array's one name. Only a copy: the reverse sweep may
        read the result of another operation (a quotient's adjoint reads the quotient),
        which writes through `view` would change under it."""
        return isinstance(s.value, gast.Name) and s.value.id == src and src in self.copies \
            and src not in self.params and len(self.defs.get(src, [])) == 1 and \
            [p for p, _ in self.uses.get(src, [])] == [pos] and src not in self.writes and \
            not any(v == src for v, *_ in self.views)

    def alive(self, view, src, pos, loops, at, at_loops):
        """Whether `view` and `src` may still share memory when control reaches `at`."""
        return _reaches(pos, loops, at, at_loops) and not \
            self.defined(view, pos, loops, at, at_loops) and not \
            self.defined(src, pos, loops, at, at_loops)

    def defined(self, name, a, a_loops, b, b_loops):
        """Whether `name` is assigned on every way from position a to position b (as far
        as program order tells: strictly between them, wrapping around a shared loop)."""
        if a < b:
            spans = [(a, b)]
        else:
            common = [loop for loop in a_loops if loop in b_loops]
            if not common:
                return False
            start, end = self.spans[common[-1]]
            spans = [(a, end + 1), (start - 1, b)]
        return any(lo < d < hi for d in self.defs.get(name, []) for lo, hi in spans)

    def copy_or_refuse(self, view, src, s):
        if isinstance(s.targets[0], gast.Name) and not isinstance(
                self.ctx.kinds.get(view), TupleKind) and not (
                isinstance(s.value, gast.Call) and self.ctx.site(s.value).kind == "user"):
            self.ctx.materialize.add(s)
        else:
            self.refuse(view, src, self.writes.get(view, self.writes.get(src))[0][2], s)

    def user_name(self, name):
        """The user's variable behind a temporary that ToANF introduced."""
        seen = set()
        while name.startswith("tmp") and name not in seen:
            seen.add(name)
            nxt = [src for v, src, *_ in self.views if v == name] + \
                  [v for v, src, *_ in self.views if src == name and not v.startswith("tmp")]
            if not nxt:
                break
            name = nxt[0]
        return name

    def refuse(self, name, other, write, view_stmt):
        ctx = self.ctx
        other = self.user_name(other)
        raise ctx.fsrc.error(
            f"`{name}` is written element by element while {_shown(other)} may still see "
            "its memory", write,
            f"take an independent array with `.copy()` on line {ctx.fsrc.line(view_stmt)}",
            UnsupportedError)


def _shown(name):
    return "a view of it" if name.startswith("tmp") else f"`{name}`"


def _reaches(a, a_loops, b, b_loops):
    """Whether control at position a can later be at position b."""
    return a < b or any(loop in b_loops for loop in a_loops)


def _reads(s):
    """Names a simple statement (or a compound statement's header) reads."""
    if isinstance(s, gast.Assign):
        nodes = [s.value] + [t for t in s.targets if isinstance(t, gast.Subscript)]
    elif isinstance(s, gast.If):
        nodes = [s.test]
    elif isinstance(s, gast.For):
        nodes = [s.iter]
    elif isinstance(s, gast.Return):
        nodes = [s.value]
    else:
        nodes = []
    return {n.id for node in nodes for n in ir.walk(node)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _returns_argument(callee):
    """For each value the specialized function `callee` (its analysis context) returns,
    the positions of the array arguments it may be (a view of): the names that may share
    an argument's memory, followed through its assignments (to a fixed point in branches
    and loops); () when it returns nothing."""
    inner = CheckAliases.__new__(CheckAliases)
    inner.ctx = callee
    params = [a.id for a in callee.fnode.args.args]
    shares = {p: {k} for k, p in enumerate(params) if _holds_arrays(callee.kinds.get(p))}

    def assigned(s):
        return {n.id for n in ir.walk(s.targets[0]) if isinstance(n, gast.Name)}

    def shared_by(s):
        inner.stmt = s
        return set().union(set(), *(shares.get(v, set()) for v in inner.sources(s.value)))

    for top in callee.fnode.body:
        if isinstance(top, gast.Assign) and not isinstance(top.targets[0], gast.Subscript):
            # in the function's own straight line: a name assigned anew shares what its
            # new value does, and nothing more (`a = a.copy()`)
            new = shared_by(top)
            for name in assigned(top):
                shares[name] = set(new)
            continue
        assigns = [s for s, _ in statements([top]) if isinstance(s, gast.Assign)
                   and not isinstance(s.targets[0], gast.Subscript)]
        grown = True
        while grown:  # in a branch or a loop: any of its assignments may have run
            grown = False
            for s in assigns:
                new = shared_by(s)
                for name in assigned(s):
                    if not new <= shares.setdefault(name, set()):
                        shares[name] |= new
                        grown = True
    last = callee.fnode.body[-1] if callee.fnode.body else None
    if not isinstance(last, gast.Return) or last.value is None:
        return ()  # returns nothing (None): ReverseAD refuses it if it is used
    ret = last.value
    outs = ret.elts if isinstance(ret, gast.Tuple) else [ret]
    return [frozenset(shares.get(o.id, ())) if isinstance(o, gast.Name) else frozenset()
            for o in outs]

"""CheckAliases: refuse element writes that another name could observe."""
import gast

from srcad.errors import UnsupportedError
from srcad.passes import ir
from srcad.passes.activity import statements

_VIEWS = ("np.transpose", "rt.reshape", "np.ravel")


def _view_source(value, kinds):
    """The array that `value` may be a view of (or the same object as), else None."""
    if isinstance(value, gast.Name) and getattr(kinds.get(value.id), "is_array", False):
        return value.id
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
        parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
        basic = all(isinstance(p, (gast.Slice, gast.Constant)) or
                    (isinstance(p, gast.Name) and not kinds[p.id].is_array) for p in parts)
        if basic and any(isinstance(p, gast.Slice) for p in parts) or \
                basic and kinds[value.value.id].ndim > len(parts):
            return value.value.id
    if isinstance(value, gast.Call) and ir.dotted_text(value.func) in _VIEWS and value.args \
            and isinstance(value.args[0], gast.Name):
        return value.args[0].id
    return None


class CheckAliases:
    """Analysis: refuses element writes that another name could observe.

    `v = x[1:]` (or `x.T`, `x.reshape(...)`, plain `v = x`) shares memory with `x`. srcad
    refuses a write through `v`, and a write into `x` that may happen between the
    assignment of `v` and a use of it (`row = m[0]`, then `m[0, 1] = 2.0`, then `row`
    read again): Python would show the change through the other name. Any other view of
    an array that is written is taken as a copy (`ctx.materialize`), which reads the same
    values and keeps them right on the tape. Sets `ctx.written`, the arrays written
    element by element.
    """

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        ctx = self.ctx
        writes, defs, uses, views = {}, {}, {}, []
        for pos, (s, loops) in enumerate(statements(fnode.body)):
            for name in _reads(s):
                uses.setdefault(name, []).append((pos, loops))
            if not isinstance(s, gast.Assign):
                continue
            t = s.targets[0]
            if isinstance(t, gast.Subscript):
                writes.setdefault(t.value.id, []).append((pos, loops, s))
                continue
            for n in gast.walk(t):
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                    defs.setdefault(n.id, []).append(pos)
            if isinstance(t, gast.Name):
                src = _view_source(s.value, ctx.kinds)
                if src is not None and src != t.id:
                    views.append((t.id, src, loops, s))
        ctx.materialize = set()
        for view, src, loops, s in views:
            if view in writes:
                self.refuse(view, src, writes[view][0][2], s)
            if src not in writes:
                continue
            for use_pos, use_loops in uses.get(view, []):
                before = [d for d in defs.get(view, []) if d < use_pos]
                last = max(before) if before else -1
                for w_pos, w_loops, w in writes[src]:
                    carried = set(use_loops) & set(w_loops) - set(loops)
                    if last < w_pos < use_pos or carried or not before and \
                            set(use_loops) & set(w_loops):
                        self.refuse(src, view, w, s)
            ctx.materialize.add(s)
        ctx.written = set(writes)
        return fnode

    def refuse(self, name, other, write, view_stmt):
        ctx = self.ctx
        shown = other if not other.startswith("tmp") else "a view of it"
        raise ctx.fsrc.error(
            f"`{name}` is written element by element while {_quote(shown)} may still see "
            "its memory", write,
            f"take an independent array with `.copy()` on line {ctx.fsrc.line(view_stmt)}",
            UnsupportedError)


def _quote(name):
    return name if name.startswith("a view") else f"`{name}`"


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
    return {n.id for node in nodes for n in gast.walk(node)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}

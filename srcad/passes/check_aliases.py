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
    """Analysis: refuses `x[i] = v` when `x` may share memory with another variable.

    Writing through one name while another sees the change (`y = x; y[0] = 1.0`, or
    `row = m[0]` then `m[0, 1] = 2.0`) would make saved values wrong, so srcad asks for
    an explicit `.copy()`. Sets `ctx.written`, the arrays written element by element.
    """

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        ctx = self.ctx
        writes, views = {}, []
        for pos, (s, loops) in enumerate(statements(fnode.body)):
            if not isinstance(s, gast.Assign):
                continue
            t = s.targets[0]
            if isinstance(t, gast.Subscript):
                writes.setdefault(t.value.id, []).append((pos, loops, s))
            elif isinstance(t, gast.Name):
                src = _view_source(s.value, ctx.kinds)
                if src is not None and src != t.id:
                    views.append((t.id, src, pos, loops, s))
        for view, src, pos, loops, s in views:
            through = writes.get(view, [])
            later = [w for w in writes.get(src, []) if w[0] > pos or set(w[1]) & set(loops)]
            for name, hits in ((view, through), (src, later)):
                if hits:
                    other = src if name == view else view
                    raise ctx.fsrc.error(
                        f"`{name}` is written element by element while `{other}` may share "
                        "its memory", hits[0][2],
                        f"make an independent array with `.copy()` where `{view}` is "
                        f"assigned (line {ctx.fsrc.line(s)})", UnsupportedError)
        ctx.written = set(writes)
        return fnode


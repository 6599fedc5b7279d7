"""LeanLoopAdjoints: the adjoint of an array a loop body makes and uses is set, not
zeroed and added to.

A reverse sweep gives the adjoint `d_t` of an array `t` assigned in a loop body zeros of
the shape `t` had before each assignment, for the next iteration back to add into. For
that it keeps the shape of every such array on a stack, one push per iteration in the
forward sweep and one pop in the reverse sweep; and in the forward sweep the push reads
`t`, which then stays a statement of its own instead of being fused into the
expression that uses it (FuseElementwise), where Numba compiles one loop nest per
statement.

When every iteration of the reverse loop adds into `d_t` first with `d_t` still zeros,
the first term is the adjoint: `rt.add_to_alike(d_t, e)` (which SameShapeLoops has
proved to add `e` of `t`'s own shape) becomes `d_t = e`, or `d_t = e.copy()` where `e`
is not a new array or is written later, and the zeros go, with them the stack of
shapes. That holds when, in the whole sweep, `d_t` is mentioned only inside loop bodies
(none inside another; a variable of the user's may serve in several loops), and zeroed
once before them, and in each body the first statement to mention it is that addition
and the last is the zeroing after `t`'s assignment: every iteration then starts with
zeros, which no longer need making. The values are the same: zero plus `e` is `e`.

>>> import gast
>>> from codegen import to_source
>>> fn = gast.parse('''def f_rev(u, n, tape, d_out):
...     tape_t, t, = tape
...     top_t = len(tape_t)
...     d_t = np.zeros_like(t)
...     d_u = rt.filled(d_out, u)
...     for k in range(n):
...         rt.add_to_alike(d_t, rt.mul(d_u, 2.0))
...         rt.add_to_alike(d_t, d_u)
...         d_u = rt.mul(d_t, 0.5)
...         top_t -= 1
...         t = tape_t[top_t]
...         d_t = np.zeros_like(t)
...     return d_u,''').body[0]
>>> print(to_source(LeanLoopAdjoints({"d_t", "d_u"}).run(fn)).strip())
def f_rev(u, n, tape, d_out):
    tape_t, t = tape
    top_t = len(tape_t)
    d_u = rt.filled(d_out, u)
    for k in range(n):
        d_t = rt.mul(d_u, 2.0)
        rt.add_to_alike(d_t, d_u)
        d_u = rt.mul(d_t, 0.5)
        top_t -= 1
        t = tape_t[top_t]
    return d_u,

The popped `t` is read by nothing now: LeanTape keeps no stack for it.
"""
import gast

from srcad.passes import ir
from srcad.passes.lean_array_adjoints import fresh_array, only_read

_ZEROS = ("np.zeros_like", "np.zeros")


def _zeroing(s, d):
    """Whether `s` is `d = np.zeros_like(...)` or `d = np.zeros(...)`."""
    return isinstance(s, gast.Assign) and len(s.targets) == 1 \
        and isinstance(s.targets[0], gast.Name) and s.targets[0].id == d \
        and isinstance(s.value, gast.Call) and ir.dotted_text(s.value.func) in _ZEROS


def _first_term(s, d):
    """`e` when `s` is `rt.add_to_alike(d, e)` and `e` does not read `d`, else None."""
    if not (isinstance(s, gast.Expr) and isinstance(s.value, gast.Call)):
        return None
    call = s.value
    if ir.dotted_text(call.func) != "rt.add_to_alike" or call.keywords or len(call.args) != 2:
        return None
    target, e = call.args
    if not (isinstance(target, gast.Name) and target.id == d):
        return None
    return None if any(n.id == d for n in ir.names(e)) else e


def _mentions(s):
    return {n.id for n in ir.names(s)}


class LeanLoopAdjoints:
    """Transformation of one reverse sweep (see the module); `adjoints`: the names of the
    array adjoints."""

    needs = ()
    provides = ()

    def __init__(self, adjoints):
        self.adjoints = set(adjoints)

    def run(self, fn):
        loops = [n for n in ir.walk(fn) if isinstance(n, (gast.For, gast.While))]
        if not loops:
            return fn
        where = {}  # adjoint -> [(block, statement)]: the statements that mention it, of
        # the sweep's top level and of each loop's body
        for block in [fn.body] + [loop.body for loop in loops]:
            for s in block:
                for d in _mentions(s) & self.adjoints:
                    where.setdefault(d, []).append((block, s))
        for d in sorted(set().union(*(_mentions(loop) for loop in loops)) & self.adjoints):
            self.set_first(fn, loops, d, where)
        return fn

    def set_first(self, fn, loops, d, where):
        """Set `d` at its first term in the bodies of the loops that use it, when the
        module's conditions hold in every one of them."""
        mentions = where.get(d, [])
        steps = [loop for loop in loops if self.pattern(loop, d, mentions) is not None
                 and not ir.contains(loop.body, (gast.Break, gast.Continue))]
        if not steps or any(_encloses(a, b) for a in steps for b in steps if a is not b):
            return
        within = {id(n) for loop in steps for n in ir.walk(loop)}
        zeroed = []
        for block, s in mentions:
            if id(s) in within or any(_encloses(s, loop) for loop in steps):
                continue  # in one of the loops, or a loop around one
            if block is fn.body and _zeroing(s, d):
                zeroed.append(s)
            else:
                return  # read or written elsewhere
        if len(zeroed) > 1:
            return
        for loop in steps:
            first, last = self.pattern(loop, d, mentions)
            body = loop.body
            at = body.index(first)
            e = _first_term(first, d)
            shared = isinstance(e, gast.Name) and e.id in self.adjoints and all(
                _only_read_after(body, at, name) for name in (d, e.id))
            value = e if shared or fresh_array(e) else gast.Call(
                func=gast.Attribute(value=e, attr="copy", ctx=gast.Load()), args=[],
                keywords=[])
            body[at] = ir.assign(ir.name(d, store=True), value, like=first)
            body.remove(last)
            for name in _mentions(body[at]) & self.adjoints:  # `where` follows
                where[name] = [(b, body[at] if s is first else s) for b, s in where[name]]
        if zeroed:
            fn.body.remove(zeroed[0])

    @staticmethod
    def pattern(loop, d, mentions):
        """(the first term, the zeroing) of `d` in `loop`'s body, when the first statement
        there to mention `d` is `rt.add_to_alike(d, e)` and the last `d = np.zeros(...)`;
        else None."""
        inside = [s for block, s in mentions if block is loop.body]
        if len(inside) < 2 or _first_term(inside[0], d) is None \
                or not _zeroing(inside[-1], d):
            return None
        return inside[0], inside[-1]


def _encloses(s, loop):
    """Whether statement `s` contains `loop`."""
    return any(n is loop for n in ir.walk(s))


def _only_read_after(body, at, name):
    """Whether the array `name` holds after `body[at]` is only read in the rest of
    `body` (until `name` is assigned again at its top level), as LeanArrayAdjoints'
    `only_read` tells, or is the value of a name that is only read in turn. Then two
    names may share that array."""
    for k in range(at + 1, len(body)):
        s = body[k]
        named = isinstance(s, gast.Assign) and len(s.targets) == 1 \
            and isinstance(s.targets[0], gast.Name)
        if named and isinstance(s.value, gast.Name) and s.value.id == name \
                and s.targets[0].id != name:
            if not _only_read_after(body, k, s.targets[0].id):  # `x = name`: x reads it
                return False
            continue
        rebound = named and s.targets[0].id == name
        parent, aliases = ir.parents(s.value if rebound else s), {}
        for n in ir.names(s.value if rebound else s):
            if n.id == name and not (only_read(n, parent, aliases) and not aliases):
                return False
        if rebound:
            return True
    return True


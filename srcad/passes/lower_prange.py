"""LowerPrange: a `numba.prange` loop, checked free of dependences between iterations, is
differentiated as the `range` loop it computes."""
import builtins

import gast
import numba

from srcad.errors import UnsupportedError
from srcad.passes import ir


class LowerPrange:
    """Transformation: `for i in prange(...)` (Numba's parallel range, by any name it is
    imported under) becomes `for i in range(...)`, once it is checked that its iterations
    do not depend on each other, which is what makes the parallel loop compute what the
    serial one does:

    - a name the body assigns is either private (assigned before it is read on every
      path through an iteration) or a reduction (`s += e`, `s -= e`, `s *= e`, or
      spelled out, `s = s + e`, with `s` read nowhere else in the body);
    - an array the body writes is written at an index one of whose places is `i`
      itself, or `i` plus or times a number (no two iterations write one element), and
      read only at the indices it is written at;
    - it does not leave early (`break` of its own, `return`).

    Anything else is a data race in the parallel primal, and is refused by name. The
    sweeps srcad makes of the loop run serially.

    >>> from srcad.passes.testing import show_names
    >>> _ = show_names(LowerPrange, '''
    ... def f(x, out):
    ...     s = 0.0
    ...     for i in numba.prange(x.shape[0]):
    ...         t = x[i] * x[i]
    ...         out[i] = t
    ...         s += t
    ...     return s''')
    def f(x, out):
        s = 0.0
        for i in range(x.shape[0]):
            t = x[i] * x[i]
            out[i] = t
            s += t
        return s
    """

    needs = ("local_functions",)
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx
        fn = getattr(ctx.fsrc, "fn", None)
        self.env = {**vars(builtins), **getattr(fn, "__globals__", {}), "numba": numba}

    def run(self, fnode):
        local = {n.id for n in ir.walk(fnode)
                 if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param))}
        for loop in ir.walk(fnode):
            if isinstance(loop, gast.For) and self.is_prange(loop.iter, local):
                # the sums it adds into and the arrays whose rows it owns, for
                # CheckpointLoops to run its sweeps in parallel
                loop.srcad_parallel = self.check(loop)
                loop.iter.func = gast.Name(id="range", ctx=gast.Load(), annotation=None,
                                           type_comment=None)
        return fnode

    def is_prange(self, node, local):
        if not isinstance(node, gast.Call):
            return False
        func = node.func
        if isinstance(func, gast.Name) and func.id not in local:
            return self.env.get(func.id) is numba.prange
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
                and func.value.id not in local:
            return getattr(self.env.get(func.value.id), func.attr, None) is numba.prange
        return False

    def refuse(self, loop, what, hint):
        raise self.ctx.fsrc.error(f"the `prange` loop {what}, a data race when it runs in "
                                  "parallel", loop, hint, UnsupportedError)

    def check(self, loop):
        if not isinstance(loop.target, gast.Name):
            self.refuse(loop, "unpacks its loop variable", "loop over `prange(n)` by index")
        i = loop.target.id
        if any(isinstance(n, gast.Return) for n in ir.walk(loop)) or _breaks(loop.body):
            self.refuse(loop, "can leave early (`break`, `return`)",
                        "make it a `range` loop, or compute every iteration")
        reductions = _reductions(loop.body)
        live = live_in(loop.body, {i})
        for name in sorted(_stored(loop.body) - {i} - set(reductions) -
                           _comprehension_only(loop.body)):
            if name in live:
                self.refuse(loop, f"carries `{name}` from one iteration to the next",
                            f"assign `{name}` before reading it in each iteration, or make "
                            "the loop a `range` loop")
        for name, ops in reductions.items():
            if _reads(loop.body, name) > len(ops) or len(set(ops)) > 1:
                self.refuse(loop, f"reads the sum `{name}` it accumulates",
                            f"only accumulate into `{name}` (`{name} += ...`) in the loop")
        rows = set()  # arrays each iteration writes and reads at its own row only
        for array, writes in _array_writes(loop.body).items():
            texts = {gast.dump(w) for w in writes}
            if all(_first(w) == i for w in writes):
                rows.add(array)
            for w in writes:
                if i not in {n.id for n in ir.walk(w) if isinstance(n, gast.Name)}:
                    self.refuse(loop, f"writes `{array}` at an index that does not involve "
                                f"`{i}`", f"write `{array}[{i}, ...]` only")
                parts = w.elts if isinstance(w, gast.Tuple) else [w]
                if not any(_one_to_one(p, i) for p in parts):
                    self.refuse(loop, f"writes `{array}` at an index that two iterations may "
                                f"share (`{array}[{_text(w)}]`)",
                                f"index `{array}` by `{i}` itself (or `{i}` plus or times a "
                                "number) in one of its places")
            for n in ir.walk(gast.Module(body=loop.body, type_ignores=[])):
                if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Load) and \
                        isinstance(n.value, gast.Name) and n.value.id == array:
                    if gast.dump(n.slice) not in texts:
                        self.refuse(loop, f"reads `{array}` at other indices than it writes",
                                    "read the values of the previous step from another "
                                    "array, or make the loop a `range` loop")
            whole = [n for n in ir.walk(gast.Module(body=loop.body, type_ignores=[]))
                     if isinstance(n, gast.Name) and n.id == array and isinstance(n.ctx, gast.Load)
                     and not _subscripted(loop.body, n)]
            if whole:
                self.refuse(loop, f"reads all of `{array}`, which it writes",
                            "read the values of the previous step from another array")
        loop.srcad_rows = rows
        return {name for name, ops in reductions.items() if ops[0] is gast.Add}


def _first(index):
    """The name an index starts with (`i` in `a[i]`, `a[i, j]`, `a[i, :]`), else None."""
    first = index.elts[0] if isinstance(index, gast.Tuple) and index.elts else index
    return first.id if isinstance(first, gast.Name) else None


def _stored(stmts):
    return {n.id for s in stmts for n in ir.walk(s)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _reductions(stmts):
    """{name: [op class, ...]} for `name op= e` (or `name = name op e`, `name = e op
    name` for + and *) with op + - or *, and `name` stored nowhere else."""
    out, aug_targets = {}, set()
    for s in stmts:
        for n in ir.walk(s):
            target, op = _reduction(n)
            if target is not None:
                # a sum may add and subtract; a product only multiplies
                out.setdefault(target.id, []).append(gast.Add if op is gast.Sub else op)
                aug_targets.add(id(target))
    other = {n.id for s in stmts for n in ir.walk(s) if isinstance(n, gast.Name)
             and isinstance(n.ctx, gast.Store) and id(n) not in aug_targets}
    return {k: v for k, v in out.items() if k not in other}


def _reduction(n):
    """(target name node, op class) if `n` is `s op= e` or `s = s op e` (`s = e op s`
    for + and *) with op + - or *, `e` not reading `s`; else (None, None)."""
    ops = (gast.Add, gast.Sub, gast.Mult)
    if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name) and \
            isinstance(n.op, ops):
        return n.target, type(n.op)
    if isinstance(n, gast.Assign) and len(n.targets) == 1 and \
            isinstance(n.targets[0], gast.Name) and isinstance(n.value, gast.BinOp) and \
            isinstance(n.value.op, ops):
        s, v = n.targets[0].id, n.value
        for this, other in ((v.left, v.right), (v.right, v.left)):
            if isinstance(this, gast.Name) and this.id == s and s not in _loads([other]) and \
                    (this is v.left or not isinstance(v.op, gast.Sub)):
                return n.targets[0], type(v.op)
    return None, None


def _text(node):
    import ast
    return ast.unparse(gast.gast_to_ast(node))


def _breaks(stmts):
    """Whether the statements leave their loop with `break` (not an inner loop's)."""
    for s in stmts:
        if isinstance(s, gast.Break):
            return True
        if isinstance(s, gast.If) and (_breaks(s.body) or _breaks(s.orelse)):
            return True
    return False


def _comprehension_only(stmts):
    """Names bound only as the variables of comprehensions and generator expressions
    (their own scope in Python 3)."""
    inside = {n.id for s in stmts for c in ir.walk(s) if isinstance(c, gast.comprehension)
              for n in ir.walk(c.target) if isinstance(n, gast.Name)}
    targets = {id(n) for s in stmts for c in ir.walk(s) if isinstance(c, gast.comprehension)
               for n in ir.walk(c.target)}
    elsewhere = {n.id for s in stmts for n in ir.walk(s) if isinstance(n, gast.Name) and
                 isinstance(n.ctx, gast.Store) and id(n) not in targets}
    return inside - elsewhere


def _one_to_one(index, i):
    """Whether distinct values of `i` surely give distinct values of `index`: `i`, `i`
    plus or minus what does not involve it, a nonzero number times it, `-i`."""
    if isinstance(index, gast.Name):
        return index.id == i
    if isinstance(index, gast.UnaryOp) and isinstance(index.op, (gast.USub, gast.UAdd)):
        return _one_to_one(index.operand, i)
    if isinstance(index, gast.BinOp) and isinstance(index.op, (gast.Add, gast.Sub)):
        left, right = (i in _loads([index.left])), (i in _loads([index.right]))
        return (_one_to_one(index.left, i) and not right) or \
            (_one_to_one(index.right, i) and not left)
    if isinstance(index, gast.BinOp) and isinstance(index.op, gast.Mult):
        for this, other in ((index.left, index.right), (index.right, index.left)):
            if isinstance(other, gast.Constant) and isinstance(other.value, int) and \
                    other.value != 0 and _one_to_one(this, i):
                return True
    return False


def _reads(stmts, name):
    """How many times `stmts` read `name` (an augmented assignment reads its target)."""
    count = 0
    for s in stmts:
        for n in ir.walk(s):
            if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load):
                count += 1
            elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name) and \
                    n.target.id == name:
                count += 1
    return count


def live_in(stmts, assigned=frozenset()):
    """Names the statements may read before assigning them, `assigned` being assigned
    already: what an iteration would read from the one before."""
    live, assigned = set(), set(assigned)
    for s in stmts:
        if isinstance(s, gast.If):
            live |= _loads([s.test]) - assigned
            body, after_body = live_in(s.body, assigned), _assigned_after(s.body, assigned)
            orelse, after_else = live_in(s.orelse, assigned), _assigned_after(s.orelse,
                                                                                assigned)
            live |= body | orelse
            assigned = after_body & after_else
        elif isinstance(s, (gast.For, gast.While)):
            live |= _loads([s.iter if isinstance(s, gast.For) else s.test]) - assigned
            inner = assigned | (_stored([s.target]) if isinstance(s, gast.For) else set())
            live |= live_in(s.body, inner)
            if _runs(s):
                assigned = _assigned_after([s], assigned)
        elif isinstance(s, gast.AugAssign):
            live |= (_loads([s.value, s.target]) | _stored([s.target])) - assigned
        elif isinstance(s, gast.Assign):
            live |= _loads([s.value] + s.targets) - assigned
            assigned |= _stored(s.targets)
        else:
            live |= _loads([s]) - assigned
    return live


def _assigned_after(stmts, assigned):
    """The names surely assigned once the statements have run (an `if` assigns what both
    of its branches do; a loop may not run)."""
    assigned = set(assigned)
    for s in stmts:
        if isinstance(s, gast.If):
            assigned = _assigned_after(s.body, assigned) & _assigned_after(s.orelse, assigned)
        elif isinstance(s, gast.Assign):
            assigned |= _stored(s.targets)
        elif _runs(s):  # its variable surely; its body, if it runs to its end
            assigned |= _stored([s.target])
            if not any(isinstance(n, (gast.Break, gast.Continue)) for n in ir.walk(
                    gast.Module(body=s.body, type_ignores=[]))):
                assigned = _assigned_after(s.body, assigned)
    return assigned


def _runs(loop):
    """Whether `loop` surely runs at least once: a `for` over a tuple or list written out
    with items."""
    return isinstance(loop, gast.For) and isinstance(loop.iter, (gast.Tuple, gast.List)) \
        and bool(loop.iter.elts)


def _loads(nodes):
    return {n.id for node in nodes for n in ir.walk(node)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _array_writes(stmts):
    """{array name: [index nodes it is written at]}."""
    out = {}
    for s in stmts:
        for n in ir.walk(s):
            if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and \
                    isinstance(n.value, gast.Name):
                out.setdefault(n.value.id, []).append(n.slice)
    return out


def _subscripted(stmts, name_node):
    return any(isinstance(n, gast.Subscript) and n.value is name_node
               for s in stmts for n in ir.walk(s))

"""HoistAccumulations: additions into one array element from every iteration of a loop,
summed in a local first.

A pair loop's reverse sweep adds into the adjoint of the outer loop's element at each
iteration of the inner loop (`d_pos[i, 0] += d_dx` for every `j`), beside additions into
the inner loop's (`d_pos[j, 0] += -d_dx`). The compiler cannot keep `d_pos[i, 0]` in a
register across the inner loop: for all it knows `j` may equal `i`, so it loads and stores
the element at every iteration, and the chain of stores keeps the loop from overlapping
its iterations. Here such an element is summed in a local, starting from `-0.0` (which
adds to any number, a zero of either sign too, without changing it), and added into the
array once after the loop.

An addition `A[index] += v` in a `for` loop is hoisted when `A` is a float adjoint array
that the loop only ever adds into (no read, no other write, no call takes it), and the
index is a full tuple of integers that the loop does not assign. Where the loop does add
into the same element at another index (`j == i`), the sum is the same but for the order
of its additions: the pass runs only on reverse sweeps that SafeReassociation lets Numba
reorder (`reassoc`), where the order of adjoint sums is not a fact anything depends on.

>>> import gast
>>> from codegen import to_source
>>> fn = gast.parse('''def f_rev(pos, n, d_out):
...     d_pos = np.zeros_like(pos)
...     for i in range(n):
...         for j in range(i + 1, n):
...             d_dx = d_out * (pos[i, 0] - pos[j, 0])
...             d_pos[j, 0] += -d_dx
...             d_pos[i, 0] += d_dx
...     return d_pos,''').body[0]
>>> print(to_source(HoistAccumulations({"d_pos": 2}).run(fn)).strip())
def f_rev(pos, n, d_out):
    d_pos = np.zeros_like(pos)
    for i in range(n):
        acc1 = -0.0
        for j in range(i + 1, n):
            d_dx = d_out * (pos[i, 0] - pos[j, 0])
            d_pos[j, 0] += -d_dx
            acc1 += d_dx
        d_pos[i, 0] += acc1
    return d_pos,
"""
import gast

from srcad.passes import ir


def _parallel(loop):
    """Whether `loop` runs over `prange`."""
    return isinstance(loop.iter, gast.Call) and \
        (ir.dotted_text(loop.iter.func) or "").endswith("prange")


class HoistAccumulations:
    """Transformation of one reverse sweep (see the module). `arrays` maps the names of its
    float adjoint arrays to their ranks; `integers` names its integer scalars (None: any
    name indexes). A loop that returns, or runs in parallel (`prange`), is left as it is."""

    needs = ()
    provides = ()

    def __init__(self, arrays, integers=None):
        self.arrays = arrays
        self.integers = integers
        self.count = 0

    def run(self, fnode):
        self.taken = {n.id for n in ir.walk(fnode) if isinstance(n, gast.Name)}
        fnode.body = self.block(fnode.body)
        return fnode

    def unused(self):
        """A fresh name for a sum: `acc1`, `acc2`, ..."""
        self.count += 1
        while f"acc{self.count}" in self.taken:
            self.count += 1
        self.taken.add(f"acc{self.count}")
        return f"acc{self.count}"

    def block(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, (gast.For, gast.While, gast.If)):
                s.body, s.orelse = self.block(s.body), self.block(s.orelse)
            if isinstance(s, gast.For) and not s.orelse and not _parallel(s) and \
                    not any(isinstance(n, gast.Return) for n in ir.walk(s)):
                before, after = self.hoisted(s)
                out += before + [s] + after
            else:
                out.append(s)
        return out

    def hoisted(self, loop):
        """(statements before the loop, after it) for the additions hoisted out of `loop`,
        which is rewritten in place."""
        assigned = {n.id for n in ir.names(loop.target)}
        uses = {}  # array -> its additions in the loop, or None when used otherwise
        for n in ir.walk(loop):
            if isinstance(n, (gast.Assign, gast.AugAssign, gast.For)):
                targets = n.targets if isinstance(n, gast.Assign) else [n.target]
                assigned |= {t.id for target in targets for t in ir.names(target)
                             if isinstance(t.ctx, gast.Store)}
        for n in ir.walk(loop):
            if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Subscript) \
                    and isinstance(n.target.value, gast.Name) \
                    and n.target.value.id in self.arrays:
                if uses.get(n.target.value.id, []) is not None:
                    uses.setdefault(n.target.value.id, []).append(n)
        for n in ir.walk(loop):
            if isinstance(n, gast.Name) and n.id in uses and not any(
                    n is s.target.value for s in uses[n.id] or ()):
                uses[n.id] = None
        sums, before, after = {}, [], []
        for name, adds in uses.items():
            for s in adds or ():
                if not self.invariant(s, assigned):
                    continue
                key = (name, gast.dump(s.target.slice))
                if key not in sums:
                    sums[key] = self.unused()
                    before.append(ir.assign(sums[key], ir.const(-0.0), like=loop))
                    after.append(gast.copy_location(gast.AugAssign(
                        target=s.target, op=gast.Add(), value=ir.name(sums[key])), loop))
                s.target = ir.name(sums[key], store=True)
        return before, after

    def invariant(self, s, assigned):
        """Whether `s`, `A[index] += v`, adds into one element that the loop does not move:
        an addition, and an index of one integer or name per axis, none assigned in it."""
        index = s.target.slice
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        return isinstance(s.op, gast.Add) and len(parts) == self.arrays[s.target.value.id] \
            and all(isinstance(p, gast.Name) and p.id not in assigned and
                    (self.integers is None or p.id in self.integers) or
                    isinstance(p, gast.Constant) and type(p.value) is int for p in parts)

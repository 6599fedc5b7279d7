"""Grammar expressions that select from arrays the ways srcad learned late: a list literal
as an index (`a[[i, j]]`, rows `m[[0, k]]`), a tuple held in a name (`t = (i, j); m[t]`),
boolean masks in reductions (`np.sum(a[a > c])`, a mean guarded against an empty
selection), elements of a matrix, and Python's `max`/`min` of one iterable
(`max(a)`, `min((e for v in a if c), default=d)`, `max(a[i] * w for i in range(n))`).

Each form returns a `V` whose interval bounds its value, or None where the scope has
nothing it can select from; `recent_atom` draws one among those in scope."""

import ast
import copy

from srcad.fuzz.grammar.exprs import Exprs
from srcad.fuzz.grammar.trees import V, binop, call, mul_iv, num, ref, span

_FORMS = {"matrix": ("matrix_read",), "int-index": ("list_read",),
          "tuple-index": ("tuple_read",), "mask": ("mask_reduction", "guarded_mean"),
          "extremum": ("extremum", "extremum_of_items")}


def sub(value, index):
    """`value[index]` as a load."""
    return ast.Subscript(value, index, ast.Load())


def index_list(nodes):
    return ast.List(list(nodes), ast.Load())


class Selections(Exprs):
    """The recent forms of expressions (see the module docstring)."""

    def recent_atom(self):
        """One of the recent forms in scope, or None."""
        forms = [f for c in self.recent for f in _FORMS.get(c, ())]
        self.rng.shuffle(forms)
        for form in forms:
            v = getattr(self, "_a_" + form)()
            if v is not None:
                return v
        return None

    # shapes

    def shape(self, name):
        if name in self.arrays:
            return (self.arrays[name][0],)
        return self.matrices[name][:2]

    def bounds(self, name):
        """(lo, hi) of the elements of array or matrix `name`."""
        return (self.arrays.get(name) or self.matrices[name])[-2:]

    def mag(self, name):
        return max(map(abs, self.bounds(name)))

    def like(self, shape):
        """The arrays and matrices of this shape."""
        return [n for n in sorted(self.arrays) + sorted(self.matrices) if self.shape(n) == shape]

    def any_array(self):
        names = sorted(self.arrays) + sorted(self.matrices)
        return self.pick(names) if names else None

    def indices(self, n, k=None):
        """A list literal of k (2 or 3) in-range indices for an axis of length n."""
        k = k or self.pick([2, 2, 3])
        return index_list(self.index(n) for _ in range(k)), k

    def scalar(self, limit=1.0):
        return self.squashed(self.expr(1), limit)

    # masks

    def threshold(self, name):
        """A value to compare the elements of `name` with: a literal inside their bounds,
        an element, or a squashed expression."""
        lo, hi = self.bounds(name)
        roll = self.rng.random()
        if roll < 0.5 or lo == hi:
            return num(round(lo + self.rng.uniform(0.2, 0.8) * (hi - lo), 2))
        if roll < 0.7 and name in self.arrays:
            return sub(ref(name), self.index(self.arrays[name][0]))
        return self.scalar().node

    def mask_of(self, shape):
        """A boolean array of `shape`: a test of an array of that shape, or a mask's name."""
        named = [k for k, s in self.masks.items() if s == shape]
        if named and self.chance(0.3):
            return ref(self.pick(named))
        name = self.pick(self.like(shape))
        a = ref(name)
        form = self.rng.randrange(4)
        if form == 0:
            a = call("np.abs", a)
        elif form == 1:
            a = binop(a, ast.Mult(), ref(name))
        op = self.pick([ast.Gt(), ast.Lt(), ast.GtE(), ast.LtE()])
        return ast.Compare(a, [op], [self.threshold(name)])

    def masked(self, name):
        """(`name[mask]`, the most elements it selects) for an array or matrix `name`; for
        a matrix also its rows or columns by a 1-d test of one of its columns or rows."""
        shape = self.shape(name)
        if len(shape) == 2 and self.chance(0.3):
            rows, cols = shape
            if self.chance(0.5):
                column = sub(ref(name), ast.Tuple([ast.Slice(), ast.Constant(0)], ast.Load()))
                test = ast.Compare(column, [ast.Gt()], [self.threshold(name)])
                return sub(ref(name), test), rows * cols
            test = ast.Compare(sub(ref(name), ast.Constant(0)), [ast.Lt()],
                               [self.threshold(name)])
            return sub(ref(name), ast.Tuple([ast.Slice(), test], ast.Load())), rows * cols
        size = shape[0] * (shape[1] if len(shape) == 2 else 1)
        return sub(ref(name), self.mask_of(shape)), size

    def _a_mask_reduction(self):
        """`np.sum(a[a > c])`, `np.sum(np.sin(b[a > c]) * s)`, `x[m].sum()`, the sum of a
        selection held in a name."""
        if self.selections and self.chance(0.3):
            name = self.pick(sorted(self.selections))
            lo, hi, size = self.selections[name]
            m = max(abs(lo), abs(hi))
            return V(call("np.sum", binop(ref(name), ast.Mult(), self.scalar().node)),
                     -size * m, size * m)
        name = self.any_array()
        if name is None:
            return None
        sel, size = self.masked(name)
        m = self.mag(name)
        form = self.rng.randrange(4)
        if form == 0:
            return V(call("np.sum", sel), -size * m, size * m)
        if form == 1:
            return V(call("np.sum", binop(sel, ast.Pow(), ast.Constant(2))), 0.0, size * m * m)
        if form == 2:
            return V(call("np.sum", binop(call("np.sin", sel), ast.Mult(), self.scalar().node)),
                     -size, size)
        return V(ast.Call(ast.Attribute(sel, "sum", ast.Load()), [], []), -size * m, size * m)

    def _a_guarded_mean(self):
        """A mean, maximum or minimum of a selection that may be empty, guarded:
        `np.mean(a[a > c]) if a[a > c].size > 0 else d`, `np.sum(a[t]) / max(1, np.sum(t))`,
        or of a mask that keeps every element (`a[np.abs(a) <= 2.0]`)."""
        name = self.any_array()
        if name is None:
            return None
        lo, hi = self.bounds(name)
        fn = self.pick(["np.mean", "np.mean", "np.max", "np.min"])
        form = self.rng.randrange(3)
        if form == 0:
            with self.lazily():
                sel, _ = self.masked(name)
            d = self.literal("float")
            size = ast.Attribute(copy.deepcopy(sel), "size", ast.Load())
            if name in self.arrays and self.chance(0.5):      # len(m[:, t]) counts rows
                size = call("len", copy.deepcopy(sel))
            test = ast.Compare(size, [ast.Gt()], [ast.Constant(0)])
            return V(ast.IfExp(test, call(fn, sel), d.node), min(lo, d.lo), max(hi, d.hi))
        if form == 1:
            mask = self.mask_of(self.shape(name))
            count = call("max", ast.Constant(1), call("np.sum", copy.deepcopy(mask)))
            total = call("np.sum", sub(ref(name), mask))
            return V(binop(total, ast.Div(), count), min(lo, 0.0), max(hi, 0.0))
        keep = ast.Compare(call("np.abs", ref(name)), [ast.LtE()],
                           [num(round(self.mag(name) + 0.5, 1))])
        return V(call(fn, sub(ref(name), keep)), lo, hi)

    # integer arrays and tuples as indices

    def _a_list_read(self):
        """`np.sum(a[[i, j]] * s)`, `np.dot(a[[i, j]], b[[k, l]])`, `np.max(a[[i, j]])`,
        `a[[i, j]][0]`, `np.sum(m[[0, k]])` (rows)."""
        name = self.any_array()
        if name is None:
            return None
        shape = self.shape(name)
        rows, k = self.indices(shape[0])
        sel = sub(ref(name), rows)
        size = k * (shape[1] if len(shape) == 2 else 1)
        lo, hi = self.bounds(name)
        m = self.mag(name)
        form = self.rng.randrange(5)
        if form == 0:
            return V(call("np.sum", binop(sel, ast.Mult(), self.scalar().node)),
                     -size * m, size * m)
        if form == 1 and len(shape) == 1:
            other = self.pick(sorted(self.arrays))
            mo = self.mag(other)
            rows2, _ = self.indices(self.arrays[other][0], k)
            return V(call("np.dot", sel, sub(ref(other), rows2)), -k * m * mo, k * m * mo)
        if form == 2:
            return V(call(self.pick(["np.max", "np.min"]), sel), lo, hi)
        if form == 3 and len(shape) == 1:
            return V(sub(sel, num(self.rng.randrange(-k, k))), lo, hi)
        return V(call("np.sum", call("np.sin", sel)), -size, size)

    def _a_tuple_read(self):
        """`m[t]` for a tuple `t` of in-range indices bound earlier (`(i,)` for a 1-d array)."""
        usable = [(t, n) for t, shape in sorted(self.tuples.items()) for n in self.like(shape)]
        if not usable:
            return None
        t, name = self.pick(usable)
        return V(sub(ref(name), ref(t)), *self.bounds(name))

    def _a_matrix_read(self):
        """`m[i, j]`, `np.sum(m[i] * s)`, `np.sum(np.sin(m))`."""
        if not self.matrices:
            return None
        name = self.pick(sorted(self.matrices))
        rows, cols, lo, hi = self.matrices[name]
        m = self.mag(name)
        form = self.rng.randrange(3)
        if form == 0:
            return V(sub(ref(name), ast.Tuple([self.index(rows), self.index(cols)], ast.Load())),
                     lo, hi)
        if form == 1:
            return V(call("np.sum", binop(sub(ref(name), self.index(rows)), ast.Mult(),
                                          self.scalar().node)), -cols * m, cols * m)
        return V(call("np.sum", call("np.sin", ref(name))), -rows * cols, rows * cols)

    # Python's max and min of one iterable

    def _a_extremum(self):
        """`max(a)`, `max(e for v in a)`, `min((e for v in a if c), default=d)`,
        `max(a[i] * e for i in range(len(a)))`, `max(v * u for v in a for u in (x, y))`;
        none where it would be evaluated lazily, which srcad refuses."""
        if not self.arrays or self.lazy:
            return None
        name = self.pick(sorted(self.arrays))
        n, lo, hi = self.arrays[name]
        fn = self.pick(["max", "min"])
        form = self.rng.randrange(5)
        if form == 0:
            return V(call(fn, ref(name)), lo, hi)
        if form == 3:
            i = self.fresh("i")
            self.ints[i] = (0, n - 1)
            e = self.of_item(sub(ref(name), ref(i)), lo, hi)
            del self.ints[i]
            it = call("range", call("len", ref(name)) if self.chance(0.5) else ast.Constant(n))
            return V(call(fn, _generator(e.node, [(i, it, [])])), e.lo, e.hi)
        v = self.fresh("v")
        e = self.of_item(ref(v), lo, hi)
        loops = [(v, ref(name), [])]
        if form == 4:
            u = self.fresh("u")
            w, c = self.scalar(), self.literal("float")
            loops.append((u, ast.Tuple([w.node, c.node], ast.Load()), []))
            e = span(binop(e.node, ast.Mult(), ref(u)),
                     mul_iv(e, V(None, min(w.lo, c.lo), max(w.hi, c.hi))))
        if form != 2:
            return V(call(fn, _generator(e.node, loops)), e.lo, e.hi)
        test = ast.Compare(ref(v), [self.pick([ast.Gt(), ast.Lt()])], [self.threshold(name)])
        loops[0] = (v, ref(name), [test])
        d = self.literal("float")
        node = ast.Call(ref(fn), [_generator(e.node, loops)], [ast.keyword("default", d.node)])
        return V(node, min(e.lo, d.lo), max(e.hi, d.hi))

    def of_item(self, item, lo, hi):
        """An expression of one item (`v`, `a[i]`) of an iterable whose items lie in [lo, hi]."""
        s = self.scalar()
        item_v = V(item, lo, hi)
        form = self.rng.randrange(4)
        if form == 0:
            return item_v
        if form == 1:
            return span(binop(item, ast.Mult(), s.node), mul_iv(item_v, s))
        if form == 2:
            return V(call("math.tanh", binop(item, ast.Add(), s.node)), -1.0, 1.0)
        m = max(abs(lo), abs(hi)) + s.mag
        return V(binop(binop(item, ast.Sub(), s.node), ast.Pow(), ast.Constant(2)), 0.0, m * m)

    def _a_extremum_of_items(self):
        """`max([e1, e2, e3])`, `min((e1, e2))`, `max(e for v in (x, e2, z))`, `max([e])`
        unless "one-item" is avoided; only a list of two or more where it would be
        evaluated lazily."""
        one = self.lazy or "one-item" in self.avoid
        items = [self.scalar(2.0) for _ in range(self.pick([2, 3] if one else [1, 2, 3]))]
        fn = self.pick(["max", "min"])
        lo, hi = min(v.lo for v in items), max(v.hi for v in items)
        if self.lazy or self.chance(0.6):
            seq = (ast.List if self.chance(0.5) else ast.Tuple)([v.node for v in items], ast.Load())
            return V(call(fn, seq), lo, hi)
        v = self.fresh("v")
        e = self.of_item(ref(v), lo, hi)
        seq = ast.Tuple([it.node for it in items], ast.Load())
        return V(call(fn, _generator(e.node, [(v, seq, [])])), e.lo, e.hi)


def _generator(elt, loops):
    """`elt for name in it if test ...` from (name, it, tests) triples."""
    return ast.GeneratorExp(elt, [ast.comprehension(ast.Name(name, ast.Store()), it, tests, 0)
                                  for name, it, tests in loops])

"""Grammar forms of NumPy as scientific code writes it ("idioms"): ufunc methods
(`np.add.reduce(a)`, `np.maximum.reduce(a)`, `np.sum(np.tanh(np.subtract.outer(a, a)))`,
`np.multiply.accumulate(...)`), a ufunc writing into an array through `out=`
(`np.multiply(w, s, out=w)`, `np.tanh(w, out=w)`, `np.add(w, e, w)`), views of a local array
written whole (`u = w[1:]` at the top of f, then `u[:] = e`, `u *= s`, `u += e`), and arrays
bound at module level (`A1 = np.array([...])`) read as constants.

A view shares its array's bounds: a write through either widens both (`store_bounds`)."""

import ast

from srcad.fuzz.grammar.trees import LIMIT, V, call, num, ref
from srcad.fuzz.grammar.writes import Writes


class Idioms(Writes):
    """The forms above, drawn when "idioms" is among the recent constructs."""

    def __init__(self, rng, consts, avoid):
        super().__init__(rng, consts, avoid)
        self.views = {}           # view name -> the local array it views
        self.global_arrays = {}   # module-level array name -> its values

    def store_bounds(self, name, lo, hi):
        super().store_bounds(name, lo, hi)
        base = self.views.get(name, name)
        if base != name:
            super().store_bounds(base, lo, hi)
        m = self.mag(base)
        for view, of in self.views.items():
            if of == base and view in self.arrays:
                self.arrays[view] = (self.arrays[view][0], -m, m)

    # expressions

    def ufunc_reduction(self, name):
        """A scalar from array `name` through a ufunc method, or None."""
        n, lo, hi = self.arrays[name]
        m = max(abs(lo), abs(hi))
        a = ref(name)
        form = self.rng.randrange(5)
        if form == 0:
            return V(call("np.add.reduce", a), -n * m, n * m)
        if form == 1:
            return V(call(self.pick(["np.maximum.reduce", "np.minimum.reduce"]), a), lo, hi)
        if form == 2:
            outer = call(self.pick(["np.subtract.outer", "np.multiply.outer", "np.add.outer"]),
                         a, a)
            return V(call("np.sum", call("np.tanh", outer)), -n * n, n * n)
        if form == 3:
            return V(call("np.sum", call("np.multiply.accumulate", call("np.cos", a))), -n, n)
        return V(call("np.mean", call("np.add.accumulate", call("np.sin", a))), -n, n)

    # statements

    def idiom_statements(self, d):
        """The statement forms with their weights (0 when "idioms" is avoided)."""
        on = "idioms" in self.recent
        views = [v for v in self.views if v in self.arrays]
        return [("ufunc_out", 1.5 if on and self.targets(1) else 0),
                ("view_write", 2 if on and views else 0)]

    def _s_ufunc_out(self, d):
        """`np.multiply(w, s, out=w)`, `np.tanh(w, out=w)` or (outside loops) `np.add(w, e,
        w)`, into an array a write may write into."""
        name = self.pick(self.targets(1))
        w = ref(name)
        form = self.rng.randrange(3 if self.carried is None else 2)
        if form == 0:
            s = self.squashed(self.expr(1), 1.0)
            return [ast.Expr(ast.Call(ref("np.multiply"), [w, s.node],
                                      [ast.keyword("out", ref(name))]))]
        if form == 1:
            self.store_bounds(name, -1.0, 1.0)
            return [ast.Expr(ast.Call(ref("np.tanh"), [w], [ast.keyword("out", ref(name))]))]
        v = self.squashed(self.expr(1), 1.0)
        if self.mag(name) + v.mag > LIMIT:
            return self._s_new(d)
        self.store_bounds(name, self.mag(name) + v.mag, 0.0)
        return [ast.Expr(call("np.add", w, v.node, ref(name)))]

    def _s_view_write(self, d):
        """`u[:] = e`, `u *= s` or (outside loops) `u += e` for a view `u` of a local array."""
        u = self.pick([v for v in self.views if v in self.arrays])
        whole = ast.Subscript(ref(u), ast.Slice(), ast.Store())
        v = self.squashed(self.expr(1), 1.0)
        form = self.rng.randrange(3 if self.carried is None else 2)
        if form == 0 and self.fits(u, v):
            self.store_bounds(u, v.lo, v.hi)
            return [ast.Assign([whole], v.node)]
        if form == 2 and self.mag(u) + v.mag <= LIMIT:
            self.store_bounds(u, self.mag(u) + v.mag, 0.0)
            return [ast.AugAssign(ast.Name(u, ast.Store()), ast.Add(), v.node)]
        return [ast.AugAssign(ast.Name(u, ast.Store()), ast.Mult(), v.node)]

    # the top of f and the module

    def view_of(self, base):
        """`u = base[1:]` (or `[:-1]`, `[::2]`), a view the body may write whole."""
        n, lo, hi = self.arrays[base]
        sl, size = self.pick([(ast.Slice(num(1), None, None), n - 1),
                              (ast.Slice(None, num(-1), None), n - 1),
                              (ast.Slice(None, None, num(2)), (n + 1) // 2)])
        name = self.fresh("u")
        self.arrays[name] = (size, lo, hi)
        self.views[name] = base
        return ast.Assign([ast.Name(name, ast.Store())], ast.Subscript(ref(base), sl, ast.Load()))

    def global_array(self, n):
        """A module-level array of n values in [-1, 1], readable as a constant."""
        name = f"A{len(self.global_arrays) + 1}"
        self.global_arrays[name] = [round(self.rng.uniform(-1.0, 1.0), 3) for _ in range(n)]
        self.arrays[name] = (n, -1.0, 1.0)
        return name

    def global_assignments(self):
        """`A1 = np.array([...])` for each module-level array."""
        return [ast.Assign([ast.Name(k, ast.Store())],
                           call("np.array", ast.List([num(v) for v in values], ast.Load())))
                for k, values in self.global_arrays.items()]

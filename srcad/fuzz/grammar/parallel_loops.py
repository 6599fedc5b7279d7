"""Grammar `numba.prange` loops ("prange"): loops whose iterations do not depend on each
other, which Numba may run in parallel and srcad differentiates (`srcad.passes.lower_prange`;
the sweeps of one at the top of f that only adds into sums and runs an inner loop run in
parallel, `checkpoint_loops.parallel_sweeps`).  The body of `for i in prange(...)`:

- reads the names, arrays and indices bound before the loop, and the loop index, and never
  rebinds or writes them;
- binds names of its own before it reads them (`v = e`, `v *= s`, branches, inner `for j in
  range(m)` and `while` loops with their own accumulators, `continue`);
- adds into the sums bound just before the loop (`acc += e` or `acc -= e`, one operator for
  each sum, as Numba's reductions want; in inner loops too), and never reads them;
- maybe writes the elements of an array bound just before the loop that its iteration owns
  (`out[i] = e`, `out[i - 1] *= s`, `out[i, j] += e`), reading it only there.

`from numba import prange` makes it `range` in plain Python.  Now and then (`CARRIED`) the
loop carries a dependence instead: `r = 0.5 * r + e` of a name from before the loop, a sum
read where it is added to (`acc += 0.5 * math.tanh(e * acc)`), a neighbour read
(`w[i] = 0.5 * w[i - 1] + e`), an element every iteration writes (`w[2] = e`) or a `break`.
srcad must refuse that loop, naming its line; the header names its variable
(`; carried: i7`), and at most one loop of a program carries one.

The "prange" family draws prange loops for most loops and carried ones more often, with
spellings that srcad once refused or let through: a sum added to as `acc = acc + e`, a
`break` in an inner loop, a generator expression (`max(e for v in a)`, whose variable is
its own), and, as a carried loop, an element two iterations write at an index that
involves the loop's variable (`w[i // 2] = e`)."""

import ast
from dataclasses import dataclass, field

from srcad.fuzz.grammar.complex_values import ComplexValues
from srcad.fuzz.grammar.trees import LIMIT, V, binop, call, num, ref

PRANGE_WEIGHT = {False: 2.5, True: 8.0}   # of the "prange" statement; with the family: True
CARRIED = {False: 0.08, True: 0.35}       # the chance that a prange loop carries a dependence
OWNED = 0.5          # the chance that the iterations write the elements of an array
INNER = 0.5          # the chance of an inner loop in a loop writing no array
_SPELLED = 0.15      # with the family: the chance that a sum is added to as `s = s + e`
_NOT_IN_PRANGE = ("write", "swap", "ufunc_out", "view_write", "list_write", "mask_write",
                  "prange")


@dataclass
class Prange:
    """A prange loop being written: its variable, the names bound before it (which its
    body only reads), its sums and the array whose elements its iterations own."""
    index: str
    outer: frozenset
    trips: int
    sums: dict = field(default_factory=dict)    # sum -> (step, ast op class, spelled)
    added: dict = field(default_factory=dict)   # sum -> increments per iteration, at most
    owned: str = None
    shape: tuple = ()
    slot: ast.expr = None     # the element (1-d) or row (2-d) the iteration owns
    mag: float = 0.0          # bound on the owned array's elements
    depth: int = 0            # `loop_depth` at the top of the body
    inner: list = field(default_factory=list)   # trips of the loops entered in the body
    carried: str = None       # the dependence it carries, if any
    writes: int = 0           # statements writing the owned array


def _copy(node):
    return ast.parse(ast.unparse(node), mode="eval").body


class ParallelLoops(ComplexValues):
    """The prange loops above (`block`, `stmt`, `_s_for` and `_s_while`, which a body
    draws, come from the subclass `Body`)."""

    def __init__(self, rng, consts, avoid):
        super().__init__(rng, consts, avoid)
        self.prange = None        # the prange loop whose body is being written
        self.uses_prange = False  # f has a prange loop: the module imports prange
        self.carried_loop = None  # the variable of the prange loop that carries a dependence

    @property
    def prange_family(self):
        return "prange" in self.families

    def prange_weight(self, d):
        """The weight of the "prange" statement: 0 where avoided or out of scope, and in a
        program of the "complex" family."""
        on = "prange" in self.recent and not self.complex_on and self.prange is None
        return PRANGE_WEIGHT[self.prange_family] if on and d > 0 and self.loop_depth < 2 else 0

    def prange_forms(self, forms):
        """In a prange body: the statement forms it may draw, with their weights."""
        owned = [("owned", 3 if self.prange.owned else 0)]
        return [(f, 0 if f in _NOT_IN_PRANGE else w) for f, w in forms] + owned

    def _a_extremum(self):
        """No generator expression in a prange body, where srcad takes its variable for a
        name the loop carries (refused; drawn with the family)."""
        if self.prange is not None and not self.prange_family:
            return None
        return super()._a_extremum()

    def _a_extremum_of_items(self):
        with self.lazily(self.prange is not None and not self.prange_family):
            return super()._a_extremum_of_items()

    def targets(self, rank):
        """No array a recent write may write into in a prange body (only `_s_owned`)."""
        return [] if self.prange is not None else super().targets(rank)

    def addable(self):
        """{name: (bound of an increment, its operator class or None for either, spelled
        `s = s + e`)}: the accumulators of the loop the statements are in, and in a prange
        body its sums."""
        out = {k: (v, None, False) for k, v in self.accs.items()}
        if self.prange is not None:
            out.update(self.prange.sums)
        return out

    def add_into(self, name, op, inc):
        """`name op= inc` (or `name = name op inc`), counted against a prange sum's bound."""
        p = self.prange
        if p is not None and name in p.sums:
            weight = 1
            for trips in p.inner:
                weight *= trips
            p.added[name] = p.added.get(name, 0) + weight
            if p.sums[name][2]:
                return ast.Assign([ast.Name(name, ast.Store())], binop(ref(name), op, inc.node))
        return ast.AugAssign(ast.Name(name, ast.Store()), op, inc.node)

    def jump_in_prange(self):
        """`continue`, or with the family a `break` out of an inner loop."""
        if self.prange_family and self.loop_depth > self.prange.depth and self.chance(0.5):
            return ast.Break()
        return ast.Continue()

    # the loop

    def _s_prange(self, d):
        """`acc = 0.0`, maybe `out = np.zeros_like(a)`, then `for i in prange(...)` and its
        body: iterations that only read what was bound before, add into the sums and write
        the element of `out` they own; or (`CARRIED`) one loop that carries a dependence."""
        r = self.rng
        i = self.fresh("i")
        header = []
        carried = None
        if self.carried_loop is None and self.chance(CARRIED[self.prange_family]):
            carried = self.pick(self.carried_kinds())
        owned = None
        if carried is None and (self.arrays.get("a") or "m" in self.matrices) and \
                self.chance(OWNED):
            owned = self._owned(header)
        it, index_range, trips, slot = self._prange_range(i, owned, carried)
        p = Prange(i, frozenset(self.floats), trips, owned=owned, slot=slot, carried=carried)
        if owned:
            p.shape, p.mag = self.shape(owned), self.mag(owned)
            del (self.arrays if len(p.shape) == 1 else self.matrices)[owned]
        for _ in range(r.choice([0, 1, 1, 2] if owned else [1, 1, 2])):
            name = self.fresh("acc")
            op = self.pick([ast.Add, ast.Add, ast.Sub])
            spelled = self.prange_family and self.chance(_SPELLED)
            p.sums[name] = (self.pick([1.0, 0.5]), op, spelled)
            header.append(ast.Assign([ast.Name(name, ast.Store())],
                                     num(self.pick([0.0, 0.0, 0, 1.0]))))
        body = self._prange_body(p, index_range, d)
        if carried is not None:
            body = self._carry(p, body, header)
            self.carried_loop = i
        self.uses_prange = True
        it = ast.Call(ref("prange"), it, [])
        after = self._read_owned(owned) if owned and self.chance(0.7) else []
        return header + [ast.For(ast.Name(i, ast.Store()), it, body, [])] + after

    def _read_owned(self, name):
        """`v = np.sum(np.tanh(out))` (or a mean, or a dot product with a): the elements
        the iterations wrote, on their way to the result."""
        shape, m = self.shape(name), self.mag(name)
        size = shape[0] * (shape[1] if len(shape) == 2 else 1)
        forms = [V(call("np.sum", call("np.tanh", ref(name))), -size, size),
                 V(call("np.mean", ref(name)), -m, m)]
        if len(shape) == 1 and "a" in self.arrays and shape == self.shape("a"):
            am = self.mag("a")
            forms.append(V(call("np.dot", ref(name), ref("a")), -size * m * am, size * m * am))
        v = self.squashed(self.pick(forms), LIMIT)
        new = self.fresh("v")
        if self.carried is not None:
            self.carried[new] = None
        return [self.assign(new, v)]

    def _prange_range(self, i, owned, carried):
        """(the arguments of `prange(...)`, the interval of i, the trip count, the element
        or row an iteration owns): over a literal, a length or a shape, from 1 or -2."""
        r = self.rng
        if owned is not None or carried == "neighbour":
            name = owned or "a"
            n = self.shape(name)[0]
            length = self.pick([ast.Constant(n), call("len", ref(name)),
                                ast.Subscript(ast.Attribute(ref(name), "shape", ast.Load()),
                                              ast.Constant(0), ast.Load())])
            if carried == "neighbour":
                return [ast.Constant(1), length], (1, n - 1), n - 1, None
            if len(self.shape(name)) == 1 and self.chance(0.3):
                end = binop(length, ast.Add(), ast.Constant(1))
                return [ast.Constant(1), end], (1, n), n, binop(ref(i), ast.Sub(),
                                                                ast.Constant(1))
            return [length], (0, n - 1), n, ref(i)
        arrays = sorted(self.arrays)
        form = r.randrange(4)
        if form == 1 and arrays:
            name = self.pick(arrays)
            n = self.arrays[name][0]
            return [self.pick([call("len", ref(name)), ast.Subscript(
                ast.Attribute(ref(name), "shape", ast.Load()), ast.Constant(0),
                ast.Load())])], (0, n - 1), n, None
        if form == 2:
            t = r.randrange(2, 5)
            return [ast.Constant(1), ast.Constant(t + 1)], (1, t), t, None
        if form == 3 and carried != "shared":
            return [num(-2), ast.Constant(2)], (-2, 1), 4, None
        t = r.randrange(1, 6)
        return [ast.Constant(t)], (0, t - 1), t, None

    def _owned(self, header):
        """`out = np.zeros_like(a)` (or a copy, zeros, a function of it; of m for a
        matrix): the array whose elements the iterations of the loop write."""
        name = self.fresh("out")
        if "m" in self.matrices and (not self.arrays.get("a") or self.chance(0.4)):
            base = "m"
            rows, cols, lo, hi = self.matrices["m"]
            self.matrices[name] = (rows, cols, lo, hi)
        else:
            base = "a"
            n, lo, hi = self.arrays["a"]
            self.arrays[name] = (n, lo, hi)
        node, lo, hi = self.pick([
            (call("np.zeros_like", ref(base)), 0.0, 0.0),
            (call("np.zeros", ast.Attribute(ref(base), "shape", ast.Load())), 0.0, 0.0),
            (ast.Call(ast.Attribute(ref(base), "copy", ast.Load()), [], []), lo, hi),
            (call("np.sin", ref(base)), -1.0, 1.0)])
        self.store_bounds(name, lo, hi)
        header.append(ast.Assign([ast.Name(name, ast.Store())], node))
        return name

    def _prange_body(self, p, index_range, d):
        """The statements of the body; afterwards the names bound before it keep their
        bounds, the sums and the owned array are bound, and what the body bound is not."""
        saved = (self.carried, self.accs, self.prange, self.writable, self.writable_m)
        before, ints_before, scope = dict(self.floats), dict(self.ints), self.scope()
        self.carried, self.accs, self.prange = {}, {}, p
        self.writable, self.writable_m = [], []
        self.ints[p.index] = index_range
        self.loop_depth += 1
        self.nesting += 1
        p.depth = self.loop_depth
        self.budget = max(self.budget, 2)
        body = self.block(d - 1)
        if p.owned is None and not p.carried and self.chance(INNER) and not any(
                isinstance(n, (ast.For, ast.While)) for s in body for n in ast.walk(s)):
            body += self._s_for(1)      # an inner loop: where parallel sweeps pay
        for name, (step, op, _) in p.sums.items():
            if name not in p.added:
                body.append(self.add_into(name, op(), self.squashed(self.expr(2), step)))
        if p.owned and not p.writes:
            body += self._s_owned(d)
        self.nesting -= 1
        self.loop_depth -= 1
        self.ints = ints_before
        self.forget_new(scope)
        self.carried, self.accs, self.prange, self.writable, self.writable_m = saved
        self.floats = before
        for name, (step, _, _) in p.sums.items():
            bound = p.trips * p.added.get(name, 0) * step + 1.0
            self.floats[name] = (-bound, bound)
            if self.carried is not None:
                self.carried[name] = self.floats[name]
        if p.owned:
            self._own_after(p)
        return body

    def _own_after(self, p):
        """The owned array is an array of f's after the loop: read and written as any."""
        if len(p.shape) == 1:
            self.arrays[p.owned] = (p.shape[0], -p.mag, p.mag)
            self.writable.append(p.owned)
        else:
            self.matrices[p.owned] = p.shape + (-p.mag, p.mag)
            self.writable_m.append(p.owned)

    def _s_owned(self, d):
        """`out[i] = e`, `out[i] *= s` or (at the top of the body) `out[i] += e`: the
        element of the owned array this iteration writes (`out[i, k]` of a matrix)."""
        p = self.prange
        p.writes += 1
        index = _copy(p.slot)
        if len(p.shape) == 2:
            index = ast.Tuple([index, self.index(p.shape[1])], ast.Load())
        target = ast.Subscript(ref(p.owned), index, ast.Store())
        v = self.scalar()
        kind = self.pick(["set", "set", "mul", "add"])
        if kind == "add" and (self.loop_depth > p.depth or p.mag + v.mag > LIMIT):
            kind = "set"
        if kind == "mul":
            return [ast.AugAssign(target, ast.Mult(), v.node)]
        if kind == "add":
            p.mag += v.mag
            return [ast.AugAssign(target, self.pick([ast.Add(), ast.Sub()]), v.node)]
        p.mag = max(p.mag, v.mag)
        return [ast.Assign([target], v.node)]

    # loops that carry a dependence

    def carried_kinds(self):
        """The dependences a loop here may carry."""
        kinds = ["recurrence", "reads-sum", "break"]
        if self.arrays.get("a", (0,))[0] >= 3:
            kinds += ["neighbour", "shared"]
        return kinds

    def _carry(self, p, body, header):
        """The body with a statement that makes the loop carry `p.carried`."""
        e = self.squashed(self.expr(2), 0.5)
        if p.carried == "recurrence":   # a name from before the loop, read and rebound
            names = [n for n in sorted(p.outer) if max(map(abs, self.floats[n])) <= 1.0
                     and (self.carried is None or n in self.carried)]
            if names and self.chance(0.6):
                name = self.pick(names)
            else:
                name = self.fresh("r")
                header.append(ast.Assign([ast.Name(name, ast.Store())], num(1.0)))
            value = binop(binop(num(0.5), ast.Mult(), ref(name)), ast.Add(), e.node)
            self.floats[name] = (-1.0, 1.0)
            return body + [ast.Assign([ast.Name(name, ast.Store())], value)]
        if p.carried == "reads-sum":    # `acc += 0.5 * math.tanh(e * acc)`
            name = self.pick(sorted(p.sums))
            inc = binop(num(0.5), ast.Mult(), call("math.tanh", binop(e.node, ast.Mult(),
                                                                        ref(name))))
            lo, hi = self.floats[name]
            self.floats[name] = (lo - 0.5 * p.trips, hi + 0.5 * p.trips)
            return body + [ast.AugAssign(ast.Name(name, ast.Store()), p.sums[name][1](), inc)]
        if p.carried == "break":
            return body[:1] + [ast.If(self.cond(1), [ast.Break()], [])] + body[1:]
        n, lo, hi = self.arrays["a"]
        name = self.fresh("w")
        header.append(ast.Assign([ast.Name(name, ast.Store())],
                                 ast.Call(ast.Attribute(ref("a"), "copy", ast.Load()), [], [])))
        m = max(abs(lo), abs(hi), 1.0)
        self.arrays[name] = (n, -m, m)
        self.writable.append(name)
        if p.carried == "neighbour":    # `w[i] = 0.5 * w[i - 1] + e`
            index = ref(p.index)
            value = binop(binop(num(0.5), ast.Mult(), ast.Subscript(
                ref(name), binop(ref(p.index), ast.Sub(), ast.Constant(1)), ast.Load())),
                ast.Add(), e.node)
        else:                           # `w[2] = e`, with the family `w[i // 2] = e`
            index = num(self.rng.randrange(-n, n))
            if self.prange_family and p.trips >= 2 and self.chance(0.5):
                index = binop(ref(p.index), ast.FloorDiv(), ast.Constant(2))
            value = e.node
        target = ast.Subscript(ref(name), index, ast.Store())
        return body + [ast.Assign([target], value)]

"""Grammar statements of the constructs srcad learned late: names holding an index tuple, a
mask or a selection; writes through a list literal (`w[[0, k]] = w[[k, 0]]`, a row swap),
a tuple or a boolean mask (`w[w > c] = e`, `a[a < c] *= 0.5`), into local arrays and into
arguments (srcad copies them); `raise` and `assert` checks, most of which never fire and
some of which fire on some inputs; and two buffers that swap names in a loop (a ping-pong
stencil: `w[j] = u[j] + s * (u[j - 1] - 2.0 * u[j] + u[j + 1])`, then `u, w = w, u`).

A write keeps the bounds of its array symmetric, [-m, m]; inside a loop, where a write
runs again after the statements that read it, it may only store values within the bounds
its array was given at loop entry (`fits`).  `_loop` and `_branch`, which call
`scope`/`forget_new` and `widen_writable`, come from the subclass `Body`."""

import ast
import copy

from srcad.fuzz.grammar.selections import Selections, index_list, sub
from srcad.fuzz.grammar.trees import LIMIT, V, binop, call, num, ref

_SCOPED = ("arrays", "matrices", "tuples", "masks", "selections")
_EXCEPTIONS = ("ValueError", "ValueError", "OverflowError", "ArithmeticError",
               "ZeroDivisionError", "RuntimeError", "FloatingPointError", "KeyError",
               "IndexError", "TypeError", "AssertionError")
_MESSAGES = ("x out of range", "n must not be negative", "", "bad value: {x}",
             "non-finite value", "ünïcode ✓", 'it\'s "quoted"', "two\nlines", "100%")
_OPPOSITE = {ast.Gt: ast.LtE, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.LtE: ast.Gt,
             ast.NotEq: ast.Eq, ast.Eq: ast.NotEq}


def store(node):
    """A copy of the subscript `node` as an assignment target."""
    node = copy.deepcopy(node)
    node.ctx = ast.Store()
    return node


class Writes(Selections):
    """The recent forms of statements (see the module docstring)."""

    def __init__(self, rng, consts, avoid):
        super().__init__(rng, consts, avoid)
        self.writable_m = []      # local matrices the body may write into
        self.holders = {"a"}      # in place: names that may hold the caller's array `a`
        self.swapped = set()      # names of buffers swapped so far

    # scope and bounds

    def scope(self):
        """The names bound now, for `forget_new`."""
        return {k: set(getattr(self, k)) for k in _SCOPED}, list(self.writable), \
            list(self.writable_m)

    def forget_new(self, before):
        """Drop the arrays, tuples, masks and selections bound since `scope()` gave
        `before` (in a branch or a loop body, they may be unbound after it); arrays that
        were bound keep the bounds they have now."""
        names, writable, writable_m = before
        for k in _SCOPED:
            table = getattr(self, k)
            for name in set(table) - names[k]:
                del table[name]
        self.writable = [n for n in self.writable if n in writable]
        self.writable_m = [n for n in self.writable_m if n in writable_m]

    def targets(self, rank):
        """The arrays (rank 1) or matrices (rank 2) a recent write may write into: local
        ones and the arguments."""
        if rank == 1:
            return sorted(set(self.writable) | ({"a"} & set(self.arrays)))
        return sorted(set(self.writable_m) | ({"m"} & set(self.matrices)))

    def store_bounds(self, name, lo, hi):
        """Widen the bounds of array `name` to hold values in [lo, hi], symmetrically."""
        m = max(self.mag(name), abs(lo), abs(hi))
        if name in self.arrays:
            self.arrays[name] = (self.arrays[name][0], -m, m)
        else:
            self.matrices[name] = self.matrices[name][:2] + (-m, m)

    def widen_writable(self):
        """At loop entry: every array a write may write into holds [-1, 1] at least."""
        for name in self.targets(1) + self.targets(2):
            self.store_bounds(name, -1.0, 1.0)

    def fits(self, name, v):
        """Whether a write of values in v's interval into `name` keeps its bounds: always
        outside a loop (the bounds grow), inside one only within them."""
        return self.carried is None or max(abs(v.lo), abs(v.hi)) <= self.mag(name)

    def target(self):
        """An array or matrix to write into, or None."""
        names = self.targets(1) + self.targets(2)
        return self.pick(names) if names else None

    def update(self, name, op, v):
        """Bounds after `name[...] op= v` for an operand within [-1, 1] (op None for `=`)."""
        if op is None:
            self.store_bounds(name, v.lo, v.hi)
        elif isinstance(op, ast.Add):
            self.store_bounds(name, self.mag(name) + v.mag, 0.0)

    # names holding indices, masks and selections

    def _s_index_name(self, d):
        """`t = (i, j)` (in range for a matrix) or `t = (i,)`, maybe read at once
        (`v = m[t] * s`); `m[t] = e` when one exists."""
        have = [(t, n) for t, shape in sorted(self.tuples.items())
                for n in self.targets(len(shape)) if self.shape(n) == shape]
        if have and self.chance(0.4):
            t, name = self.pick(have)
            return [self.write(name, sub(ref(name), ref(t)))]
        name = self.any_array()
        if name is None:
            return self._s_new(d)
        shape = self.shape(name)
        t = self.fresh("t")
        self.tuples[t] = shape
        items = ast.Tuple([self.index(n) for n in shape], ast.Load())
        bind = ast.Assign([ast.Name(t, ast.Store())], items)
        if self.chance(0.5):
            return [bind]
        read = V(binop(sub(ref(name), ref(t)), ast.Mult(), self.scalar().node),
                 -self.mag(name), self.mag(name))
        v = self.fresh("v")
        if self.carried is not None:
            self.carried[v] = None
        return [bind, self.assign(v, read)]

    def _s_select(self, d):
        """`s = a[[i, j]]` (a new array, a copy), `keep = a > c`, `sel = a[a > c]`."""
        name = self.any_array()
        if name is None:
            return self._s_new(d)
        forms = (["rows"] if "int-index" in self.recent else []) + \
            (["mask", "selection"] if "mask" in self.recent else [])
        form = self.pick(forms)
        shape = self.shape(name)
        lo, hi = self.bounds(name)
        if form == "rows":
            rows, k = self.indices(shape[0])
            new = self.fresh("s")
            value = sub(ref(name), rows)
            if len(shape) == 1:
                self.arrays[new] = (k, lo, hi)
                self.writable.append(new)
            else:
                self.matrices[new] = (k, shape[1], lo, hi)
                self.writable_m.append(new)
            self.store_bounds(new, lo, hi)
        elif form == "mask":
            new = self.fresh("keep")
            value = self.mask_of(shape)
            self.masks[new] = shape
        else:
            new = self.fresh("sel")
            value, size = self.masked(name)
            self.selections[new] = (lo, hi, size)
        return [ast.Assign([ast.Name(new, ast.Store())], value)]

    # writes

    def write(self, name, target, source=None):
        """`target = e`, `target = source` (a selection of another array), `target *= s`
        or `target += e`, for `target` a subscript of `name`."""
        r = self.rng
        kind = r.choice(["set", "set", "mul", "add"] + (["copy"] if source is not None else []))
        v = self.scalar()
        if kind == "add" and (self.carried is not None or self.mag(name) + 1.0 > LIMIT):
            kind = "mul"
        if kind == "copy" and self.fits(name, source):
            self.update(name, None, source)
            return ast.Assign([store(target)], source.node)
        if kind == "mul":
            return ast.AugAssign(store(target), ast.Mult(), v.node)
        if kind == "add":
            op = r.choice([ast.Add(), ast.Sub()])
            self.update(name, ast.Add(), v)
            return ast.AugAssign(store(target), op, v.node)
        self.update(name, None, v)
        return ast.Assign([store(target)], v.node)

    def _s_list_write(self, d):
        """`w[[i, j]] = w[[j, i]]` (`m[[0, k]] = m[[k, 0]]` swaps rows), `w[[i, j]] = e`,
        `w[[i, j]] = b[[k, l]]`, `w[[i, j]] *= s`, `w[[i, j]] += e`."""
        name = self.target()
        if name is None:
            return self._s_new(d)
        shape = self.shape(name)
        rows, k = self.indices(shape[0])
        target = sub(ref(name), rows)
        if self.chance(0.35):
            swapped = index_list(reversed(copy.deepcopy(rows.elts)))
            return [ast.Assign([store(target)], sub(ref(name), swapped))]
        source = None
        if len(shape) == 1:
            other = self.pick(sorted(self.arrays))
            rows2, _ = self.indices(self.arrays[other][0], k)
            source = V(sub(ref(other), rows2), *self.bounds(other))
        return [self.write(name, target, source)]

    def _s_mask_write(self, d):
        """`w[w > c] = e`, `a[a < c] *= s`, `w[keep] = b[keep]`, `m[:, m[0] < c] = e`,
        `w[w > c] = np.tanh(w[w > c])`."""
        name = self.target()
        if name is None:
            return self._s_new(d)
        target, _ = self.masked(name)
        shape = self.shape(name)
        others = [n for n in self.like(shape) if n != name]
        if self.chance(0.2):
            tanh = V(call("np.tanh", copy.deepcopy(target)), -1.0, 1.0)
            self.update(name, None, tanh)
            return [ast.Assign([store(target)], tanh.node)]
        if self.carried is None and self.chance(0.15) and 2 * self.mag(name) <= LIMIT:
            self.store_bounds(name, 2 * self.mag(name), 0.0)
            return [ast.AugAssign(store(target), ast.Mult(), num(2.0))]
        source = None
        if others and isinstance(target.slice, (ast.Compare, ast.Name)):
            other = self.pick(others)
            source = V(sub(ref(other), copy.deepcopy(target.slice)), *self.bounds(other))
        return [self.write(name, target, source)]

    # raise and assert

    def _s_check(self, d):
        """`assert test, "..."` or `if not test: raise E("...")`: a check that never fails
        on the generator's inputs, or (half the time) one that fails on some of them."""
        failing = self.fails_sometimes() if self.chance(0.5) else self.fails_never()
        if self.chance(0.35):
            message = [ast.Constant(self.pick(_MESSAGES))] if self.chance(0.8) else []
            return [ast.Assert(_opposite(failing), *message)]
        return [ast.If(failing, [ast.Raise(self.exception(), None)], [])]

    def exception(self):
        """`E`, `E()`, `E("message")` or `E("message", 2)` for a built-in exception E."""
        name = ref(self.pick(_EXCEPTIONS))
        form = self.rng.choices(["bare", "empty", "message", "two"], [1, 1, 6, 2])[0]
        if form == "bare":
            return name
        args = {"empty": [], "message": [ast.Constant(self.pick(_MESSAGES))],
                "two": [ast.Constant(self.pick(_MESSAGES)), ast.Constant(self.pick([2, 0, 0.5]))]}
        return ast.Call(name, args[form], [])

    def fails_never(self):
        """A test that is false for every input: beyond a bound of a value, NaN, a length."""
        r = self.rng
        form = r.randrange(5)
        ints = [(n, b) for n, b in sorted(self.ints.items())]
        if form == 0 and ints:
            name, (lo, hi) = r.choice(ints)
            return ast.Compare(ref(name), [ast.Lt()], [num(lo)])
        if form == 1 and self.arrays:
            name = self.pick(sorted(self.arrays))
            return ast.Compare(call("len", ref(name)), [ast.NotEq()],
                               [ast.Constant(self.arrays[name][0])])
        e = self.expr(1)
        if form == 2:
            return ast.Compare(e.node, [ast.NotEq()], [copy.deepcopy(e.node)])
        if form == 3:
            big = self.pick([1e300, 1e300, 1.7976931348623157e308])
            node = call("abs", e.node) if r.random() < 0.5 else e.node
            return ast.Compare(node, [ast.Gt()], [ast.Constant(big)])
        if r.random() < 0.5:
            return ast.Compare(e.node, [ast.Gt()], [num(round(e.hi + 0.5, 1))])
        return ast.Compare(e.node, [ast.Lt()], [num(round(e.lo - 0.5, 1))])

    def fails_sometimes(self):
        """A test of a name or an element against a value near the top or bottom of its
        bounds, true for some inputs; now and then any test."""
        r = self.rng
        if r.random() < 0.1:
            return self.cond(1)
        names = [(ref(n), b) for n, b in sorted(self.floats.items()) if b[0] < b[1]]
        names += [(sub(ref(n), self.index(k)), (lo, hi))
                  for n, (k, lo, hi) in sorted(self.arrays.items()) if lo < hi]
        if not names:
            return self.cond(1)
        node, (lo, hi) = r.choice(names)
        q = r.uniform(0.4, 0.9)
        if r.random() < 0.5:
            return ast.Compare(node, [ast.Gt()], [num(round(lo + q * (hi - lo), 2))])
        return ast.Compare(node, [ast.Lt()], [num(round(hi - q * (hi - lo), 2))])

    # buffers that swap names

    def _s_swap(self, d):
        """Two arrays, one written element by element from the other in a loop that then
        swaps their names: `u, w = w, u`.  In an in-place kernel, a name that may hold the
        caller's array is swapped only at the function's top level, with a buffer bound
        there (srcad refuses a buffer bound in a branch or a loop)."""
        r = self.rng
        n = self.arrays["a"][0]
        header = []
        u = self.buffer(n, header, None)
        w = self.buffer(n, header, u)
        if self.in_place and {u, w} & self.holders:
            self.holders |= {u, w}
        self.swapped |= {u, w}
        m = max(self.mag(u), self.mag(w), 1.0)
        for name in (u, w):
            self.store_bounds(name, m, -m)
        k, trips = self.fresh("k"), r.randrange(1, 5)
        stencil = self.stencil(u, w, n)
        swap = ast.Assign([ast.Tuple([ast.Name(u, ast.Store()), ast.Name(w, ast.Store())],
                                     ast.Store())],
                          ast.Tuple([ref(w), ref(u)], ast.Load()))

        def make(body):
            return ast.For(ast.Name(k, ast.Store()), call("range", ast.Constant(trips)),
                           stencil + body + [swap], [])
        return self._loop(header, make, trips, d, index=(k, (0, trips - 1)))

    def buffer(self, n, header, other):
        """A 1-d array of length n to swap: one the body may write into (not `other`), or
        a new one, whose assignment goes into `header`; with "swap-twice" avoided, not one
        swapped before."""
        have = [t for t in self.targets(1) if self.arrays[t][0] == n and t != other
                and not (self.in_place and self.nesting and t in self.holders)
                and not ("swap-twice" in self.avoid and t in self.swapped)
                and t not in getattr(self, "views", {}).values()]  # a view's array stays
        if have and self.chance(0.5):
            return self.pick(have)
        name = self.fresh("u")
        a = ref("a")
        node, lo, hi = self.pick([
            (ast.Call(ast.Attribute(a, "copy", ast.Load()), [], []), *self.bounds("a")),
            (call("np.zeros_like", a), 0.0, 0.0), (call("np.zeros", ast.Constant(n)), 0.0, 0.0),
            (call("np.sin", a), -1.0, 1.0), (binop(a, ast.Mult(), ast.Constant(0.5)),
                                            *(0.5 * b for b in self.bounds("a")))])
        header.append(ast.Assign([ast.Name(name, ast.Store())], node))
        self.arrays[name] = (n, lo, hi)
        self.store_bounds(name, lo, hi)
        self.writable.append(name)
        return name

    def stencil(self, u, w, n):
        """Statements writing every element of `w` from elements of `u`, each within the
        bounds of both: a convex combination of neighbours, or a squashed one.  Periodic
        ones run over every element (`u[j - 1]` wraps, `u[(j + 1) % n]`), others over the
        inner ones and copy the ends."""
        r = self.rng
        j = self.fresh("j")
        size = self.pick([ast.Constant(n), call("len", ref(u)),
                          sub(ast.Attribute(ref(w), "shape", ast.Load()), ast.Constant(0))])
        periodic = r.random() < 0.4

        def at(offset):
            if offset == 0:
                return sub(ref(u), ref(j))
            step = binop(ref(j), ast.Add() if offset > 0 else ast.Sub(), ast.Constant(1))
            if offset > 0 and periodic:
                end = copy.deepcopy(size)
                return sub(ref(u), binop(step, ast.Mod(), end) if r.random() < 0.5
                           else binop(step, ast.Sub(), end))
            return sub(ref(u), step)

        s = self.expr(1).node
        form = r.randrange(3)
        if form == 0:       # u[j] + c * (u[j - 1] - 2 u[j] + u[j + 1]), 0 <= c <= 0.25
            c = binop(ast.Constant(0.25), ast.Mult(), binop(call("math.tanh", s), ast.Pow(),
                                                            ast.Constant(2)))
            lap = binop(binop(at(-1), ast.Sub(), binop(ast.Constant(2.0), ast.Mult(), at(0))),
                        ast.Add(), at(1))
            value = binop(at(0), ast.Add(), binop(c, ast.Mult(), lap))
        elif form == 1:     # u[j] - c * (u[j] - u[j - 1]), 0 <= c <= 1
            c = binop(ast.Constant(0.5), ast.Add(), binop(ast.Constant(0.5), ast.Mult(),
                                                           call("math.sin", s)))
            value = binop(at(0), ast.Sub(), binop(c, ast.Mult(), binop(at(0), ast.Sub(), at(-1))))
        else:               # a squashed mix of neighbours, in [-1, 1]
            value = call("math.tanh", binop(binop(call("math.sin", s), ast.Mult(), at(-1)),
                                            ast.Add(), binop(ast.Constant(0.5), ast.Mult(),
                                                             at(1))))
        loop = [ast.Assign([ast.Subscript(ref(w), ref(j), ast.Store())], value)]
        if periodic:
            return [ast.For(ast.Name(j, ast.Store()), call("range", size), loop, [])]
        it = call("range", ast.Constant(1), binop(copy.deepcopy(size), ast.Sub(), ast.Constant(1)))
        last = self.pick([num(-1), binop(copy.deepcopy(size), ast.Sub(), ast.Constant(1))])
        return [ast.For(ast.Name(j, ast.Store()), it, loop, []),
                ast.Assign([store(sub(ref(w), ast.Constant(0)))], sub(ref(u), ast.Constant(0))),
                ast.Assign([store(sub(ref(w), last))], sub(ref(u), copy.deepcopy(last)))]


def _opposite(test):
    """The test that holds where `test` does not (a comparison with its opposite operator,
    else `not test`)."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return ast.Compare(test.left, [_OPPOSITE[type(test.ops[0])]()], test.comparators)
    return ast.UnaryOp(ast.Not(), test)

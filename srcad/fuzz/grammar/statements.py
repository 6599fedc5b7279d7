"""Statements of a grammar program's body: assignments of every kind, writes into arrays,
branches, loops and jumps, each keeping the bounds of the names it binds (the recent forms
of statements, which `stmt` draws too, are in `writes`, and `prange` loops in
`parallel_loops`)."""

import ast

from srcad.fuzz.grammar.parallel_loops import ParallelLoops
from srcad.fuzz.grammar.trees import LIMIT, LOOP_BOUND, V, binop, call, mul_iv, num, pow_iv, ref


class Body(ParallelLoops):
    """Statements of one function body; names rebound in branches and loops keep the
    interval of every value they may hold.  With `in_place`, returns return nothing."""

    def __init__(self, rng, consts, avoid):
        super().__init__(rng, consts, avoid)
        self.counter = 0
        self.carried = None       # in a loop: names the body may rebind, with their bounds
        self.accs = {}            # in a loop: accumulator -> increment bound
        self.loop_depth = 0
        self.budget = 0
        self.writable = []        # local arrays the body may write into
        self.in_place = False     # returns return nothing: the result is in an argument
        self.nesting = 0          # how many branches and loops the statements are in
        self.unrolled = 0         # how many loops over tuples (srcad unrolls them)

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def assign(self, name, v):
        """`name = v`, squashed to fit the loop-carried bound of `name` if it has one."""
        if self.carried is not None and name in self.carried:
            v = self.squashed(v, LOOP_BOUND if self.carried[name] is None else 1.0)
            lo, hi = self.carried[name] or (-LOOP_BOUND, LOOP_BOUND)
            v = V(v.node, lo, hi)
        self.floats[name] = (v.lo, v.hi)
        if self.maybe_int(v.node):
            self.int_valued.add(name)
        return ast.Assign([ast.Name(name, ast.Store())], v.node)

    def block(self, d):
        """A list of statements, at least one."""
        out = []
        for _ in range(self.rng.randrange(1, 4)):
            out += self.stmt(d)
            if self.budget <= 0:
                break
        return out or [ast.Pass()]

    def stmt(self, d):
        self.budget -= 1
        r = self.rng
        forms = [("new", 5), ("rebind", 4), ("aug", 3), ("if", 3 if d > 0 else 0),
                 ("for", 2 if d > 0 and self.loop_depth < 2 else 0),
                 ("while", 1 if d > 0 and self.loop_depth < 2 else 0),
                 ("jump", 2 if self.loop_depth else 0), ("intvar", 1), ("parallel", 2),
                 ("multi", 1), ("flag", 1), ("write", 3 if self.writable else 0)]
        forms += self.recent_statements(d) + self.idiom_statements(d) + \
            self.complex_statements(d) + [("prange", self.prange_weight(d))]
        if self.prange is not None:
            forms = self.prange_forms(forms)
        form = r.choices([f for f, _ in forms], [w for _, w in forms])[0]
        return getattr(self, "_s_" + form)(d)

    def recent_statements(self, d):
        """The forms of `writes` with their weights, 0 where avoided or out of scope (so
        that avoiding them all draws the statements drawn before they existed)."""
        recent, arrays = set(self.recent), bool(self.arrays or self.matrices)
        targets = bool(self.targets(1) + self.targets(2))
        return [("index_name", 1.5 if "tuple-index" in recent and arrays else 0),
                ("select", 1 if {"int-index", "mask"} & recent and arrays else 0),
                ("list_write", 1.5 if "int-index" in recent and targets else 0),
                ("mask_write", 1.5 if "mask" in recent and targets else 0),
                ("check", 2 if "raise" in recent else 0),
                ("swap", 1.5 if "swap" in recent and "a" in self.arrays and d > 0
                 and self.loop_depth < 2
                 and not (self.unrolled and "swap-twice" in self.avoid) else 0)]

    def early_return(self):
        """`return e`, or a bare `return` from an in-place kernel."""
        return ast.Return(None if self.in_place else self.expr(2).node)

    def floats_to_rebind(self):
        """Float names a statement here may rebind: in a loop, only loop-carried ones."""
        if self.carried is not None:
            names = sorted(self.carried) + sorted(self.accs)
            return [n for n in names if n in self.floats]
        return sorted(self.floats)

    def _s_new(self, d):
        name = self.fresh("v")
        v = self.expr(self.rng.randrange(1, 4))
        if self.carried is not None:
            self.carried[name] = None
        return [self.assign(name, v)]

    def _s_rebind(self, d):
        names = [n for n in self.floats_to_rebind() if n not in self.accs]
        if not names:
            return self._s_new(d)
        name = self.pick(names)
        v = self.expr(self.rng.randrange(1, 4))
        return [self.assign(name, v)]

    def _s_aug(self, d):
        """`acc += e` into a loop accumulator, or `v op= e` for a name it keeps in bounds."""
        r = self.rng
        accs = self.addable()
        if self.carried is not None and accs and r.random() < 0.6:
            name = self.pick(sorted(accs))
            step, op, _ = accs[name]
            inc = self.squashed(self.expr(2), step)
            op = op() if op else r.choice([ast.Add(), ast.Sub()])
            return [self.add_into(name, op, inc)]
        names = [n for n in self.floats_to_rebind() if n not in self.accs]
        if not names:
            return self._s_new(d)
        name = self.pick(names)
        kind = r.choice(["add", "mul", "div", "pow"])
        if self.carried is not None and kind == "add":
            kind = "mul"
        op, e, new = self._aug_operand(kind, *self.floats[name])
        if self.carried is not None and name in self.carried:
            bound = self.carried[name] or (-LOOP_BOUND, LOOP_BOUND)
            if new[0] < bound[0] or new[1] > bound[1]:
                return self._s_rebind(d)
        if max(map(abs, new)) > LIMIT:
            return self._s_rebind(d)
        self.floats[name] = new
        return [ast.AugAssign(ast.Name(name, ast.Store()), op, e.node)]

    def _aug_operand(self, kind, lo, hi):
        """(operator, operand, bounds after) of `v op= e` for a name v in [lo, hi]."""
        r = self.rng
        if kind == "add":
            e = self.expr(2)
            op = r.choice([ast.Add(), ast.Sub()])
            if isinstance(op, ast.Add):
                return op, e, (lo + e.lo, hi + e.hi)
            return op, e, (lo - e.hi, hi - e.lo)
        if kind == "mul":
            e = self.squashed(self.expr(2), 1.0)
            values = mul_iv(V(None, lo, hi), e)
            return ast.Mult(), e, (min(values), max(values))
        if kind == "div":
            e = self.positive(1)
            e = e if e.lo >= 1.0 else V(binop(ast.Constant(1.0), ast.Add(), e.node),
                                        1.0 + e.lo, 1.0 + e.hi)
            return ast.Div(), e, (min(lo / e.lo, lo / e.hi, 0.0), max(hi / e.lo, hi / e.hi, 0.0))
        k = r.choice([2, 3])
        values = pow_iv(lo, hi, k)
        return ast.Pow(), V(ast.Constant(k), k, k), (min(values), max(values))

    def _s_parallel(self, d):
        """`p, q = q, p` and `p, q = e1, e2`: every right side is read before any write."""
        names = [n for n in self.floats_to_rebind() if n not in self.accs]
        if len(names) < 2:
            return self._s_new(d)
        p, q = self.rng.sample(names, 2)
        if self.chance(0.5):
            vp, vq = V(ref(q), *self.floats[q]), V(ref(p), *self.floats[p])
        else:
            vp, vq = self.expr(2), self.expr(2)
        nodes = []
        for name, v in ((p, vp), (q, vq)):
            nodes.append(self.assign(name, v).value)
        return [ast.Assign([ast.Tuple([ast.Name(p, ast.Store()), ast.Name(q, ast.Store())],
                                      ast.Store())], ast.Tuple(nodes, ast.Load()))]

    def _s_multi(self, d):
        """`u = w = e`: one value bound to two names."""
        u, w = self.fresh("v"), self.fresh("w")
        v = self.expr(2)
        if self.carried is not None:
            self.carried[u] = self.carried[w] = None
        first = self.assign(u, v)
        self.assign(w, V(first.value, v.lo, v.hi))
        first.targets.append(ast.Name(w, ast.Store()))
        self.floats[w] = self.floats[u]
        return [first]

    def _s_write(self, d):
        """`w[i] = e`, `w[-1] *= e`, `w[i - 1] += e` into a local array."""
        r = self.rng
        name = self.pick(self.writable)
        n, lo, hi = self.arrays[name]
        target = ast.Subscript(ref(name), self.index(n), ast.Store())
        kind = r.choice(["set", "mul", "add"])
        if kind == "add" and (self.carried is not None or max(-lo, hi) + 1.0 > LIMIT):
            kind = "set"
        if kind == "set":
            v = self.squashed(self.expr(2), 1.0)
            stmt = ast.Assign([target], v.node)
        elif kind == "mul":
            v = self.squashed(self.expr(2), 1.0)
            stmt = ast.AugAssign(target, ast.Mult(), v.node)
        else:
            v = self.squashed(self.expr(2), 1.0)
            stmt = ast.AugAssign(target, r.choice([ast.Add(), ast.Sub()]), v.node)
            lo, hi = lo - 1.0, hi + 1.0
        self.arrays[name] = (n, min(lo, -1.0), max(hi, 1.0))
        return [stmt]

    def _s_flag(self, d):
        """A name holding the result of a test, used later in tests and arithmetic."""
        name = self.fresh("flag")
        test = self.cond(2)
        if self.carried is None:
            self.bools.append(name)
        return [ast.Assign([ast.Name(name, ast.Store())], test)]

    def _s_intvar(self, d):
        name = self.fresh("n")
        r = self.rng
        if self.arrays and r.random() < 0.5:
            arr = self.pick(self.arrays)
            n = self.arrays[arr][0]
            node = (call("len", ref(arr)) if r.random() < 0.5 else
                    ast.Subscript(ast.Attribute(ref(arr), "shape", ast.Load()),
                                  ast.Constant(0), ast.Load()))
            self.ints[name] = (n, n)
            return [ast.Assign([ast.Name(name, ast.Store())], node)]
        v = self.int_arith()
        if not isinstance(eval(ast.unparse(v.node)), int):
            v = self.literal("int")     # `2 ** -1` is a float
        self.ints[name] = (int(v.lo), int(v.hi))
        return [ast.Assign([ast.Name(name, ast.Store())], v.node)]

    def _branch(self, d):
        """Statements of one branch, and the float names it leaves with their bounds."""
        saved, scope = (dict(self.floats), dict(self.ints), list(self.bools)), self.scope()
        self.nesting += 1
        body = self.block(d - 1)
        self.nesting -= 1
        after = dict(self.floats)
        self.floats, self.ints, self.bools = dict(saved[0]), saved[1], saved[2]
        self.forget_new(scope)
        return body, after

    def _s_if(self, d):
        r = self.rng
        test = self.cond(2)
        before = dict(self.floats)
        body, after_body = self._branch(d)
        branches = [after_body]
        orelse = []
        if r.random() < 0.6:
            if r.random() < 0.3:
                inner_test = self.cond(2)
                inner, after_inner = self._branch(d)
                other, after_other = self._branch(d)
                orelse = [ast.If(inner_test, inner, other)]
                branches += [after_inner, after_other]
            else:
                orelse, after_else = self._branch(d)
                branches.append(after_else)
        else:
            branches.append(before)
        if self.loop_depth == 0 and r.random() < 0.1:
            body.append(self.early_return())
            branches = branches[1:]
        self.floats = _merge(branches)
        return [ast.If(test, body, orelse)]

    def _loop(self, header_stmts, make_loop, trips, d, index=None):
        """Generate a loop body with every visible float name allowed to be rebound within
        LOOP_BOUND; `make_loop(body)` builds the loop statement."""
        saved_carried, saved_accs = self.carried, self.accs
        acc_stmts, accs = self._accumulators()
        before, ints_before, scope = dict(self.floats), dict(self.ints), self.scope()
        carried = self._enter_loop(accs, trips, index)
        if self.recent:
            self.widen_writable()
        if self.prange is not None:
            self.prange.inner.append(trips)
        self.loop_depth += 1
        self.nesting += 1
        body = self.block(d - 1)
        self.nesting -= 1
        self.loop_depth -= 1
        if self.prange is not None:
            self.prange.inner.pop()
        self.ints = ints_before
        self.forget_new(scope)
        self.carried, self.accs = saved_carried, saved_accs
        self.floats = self._after_loop(before, carried, accs, trips)
        return header_stmts + acc_stmts + [make_loop(body)]

    def _accumulators(self):
        """`acc = 0.0` before a loop, for none to two accumulators, and their increments."""
        acc_stmts = []
        accs = {}
        for _ in range(self.rng.choice([0, 1, 1, 2])):
            name = self.fresh("acc")
            step = self.pick([1.0, 0.5])
            accs[name] = step
            init = self.pick([0.0, 0, 1.0, -0.0])
            if isinstance(init, int):
                self.int_valued.add(name)
            acc_stmts.append(ast.Assign([ast.Name(name, ast.Store())], num(init)))
        return acc_stmts, accs

    def _enter_loop(self, accs, trips, index):
        """Bind the names as a loop body of `trips` trips sees them, and return the
        loop-carried ones: every float name bounded by LOOP_BOUND (in a prange body, only
        those it bound)."""
        carried = {}
        outer = self.prange.outer if self.prange is not None else ()
        for name, (lo, hi) in self.floats.items():
            if -LOOP_BOUND <= lo and hi <= LOOP_BOUND and name not in outer:
                carried[name] = (-LOOP_BOUND, LOOP_BOUND)
        self.carried = dict(carried)
        self.accs = accs
        for name in carried:
            self.floats[name] = carried[name]
        for name, step in accs.items():
            self.floats[name] = _acc_bounds(trips, step)
        if index is not None:
            self.ints[index[0]] = index[1]
        return carried

    def _after_loop(self, before, carried, accs, trips):
        """The float names and bounds after a loop, given those `before` it; an enclosing
        loop (whose state is back in place) learns the bounds of the accumulators."""
        floats = {k: v for k, v in before.items()}
        for name in carried:
            floats[name] = (min(before[name][0], -LOOP_BOUND), max(before[name][1], LOOP_BOUND))
        for name, step in accs.items():
            floats[name] = _acc_bounds(trips, step)
        if self.carried is not None:
            for name in accs:
                self.carried[name] = floats[name]
        return floats

    def _s_for(self, d):
        """`for` over a range of one of many spellings, over an array's elements or a tuple
        of values, or a loop that never runs."""
        r = self.rng
        i = self.fresh("i")
        arr = self.pick(self.arrays) if self.arrays else None
        n = self.arrays[arr][0] if arr else 4
        form = r.randrange(9)
        if form == 7:       # a loop that never runs
            it = r.choice([call("range", ast.Constant(0)),
                           call("range", ast.Constant(2), ast.Constant(2)),
                           call("range", ast.Constant(3), ast.Constant(0)),
                           call("range", num(-2))])
            return self._for(i, it, 0, d, index=(i, (0, 0)))
        if form == 8:       # over a tuple of values
            items = [self.expr(1) for _ in range(r.randrange(2, 4))]
            self.floats[i] = (min(v.lo for v in items), max(v.hi for v in items))
            if any(self.maybe_int(v.node) for v in items):
                self.int_valued.add(i)
            self.unrolled += 1
            loop = self._for(i, ast.Tuple([v.node for v in items], ast.Load()), len(items), d)
            self.unrolled -= 1
            return loop
        if form == 5 and arr:   # over the elements of an array: i is a float
            _, lo, hi = self.arrays[arr]
            self.floats[i] = (lo, hi)
            return self._for(i, ref(arr), n, d)
        if not arr and form in (1, 2, 5):
            form = 0
        it, index_range, trips = self._range(form, arr, n)
        return self._for(i, it, trips, d, index=(i, index_range))

    def _for(self, i, it, trips, d, index=None):
        """`for i in it:` and its body."""
        return self._loop([], lambda body: ast.For(ast.Name(i, ast.Store()), it, body, []),
                          trips, d, index=index)

    def _range(self, form, arr, n):
        """(`range(...)`, the interval of its values, its length) for a `for` of `form`
        (0, 1, 2, 3, 4 or 6); forms 1 and 2 range over array `arr`, of length n."""
        r = self.rng
        if form == 0:
            t = r.randrange(1, 5)
            return call("range", ast.Constant(t)), (0, t - 1), t
        if form == 1:
            return call("range", call("len", ref(arr))), (0, n - 1), n
        if form == 2:
            shape = ast.Subscript(ast.Attribute(ref(arr), "shape", ast.Load()),
                                  ast.Constant(0), ast.Load())
            it = call("range", binop(shape, ast.Sub(), ast.Constant(1)), num(-1), num(-1))
            return it, (0, n - 1), n
        if form == 3:
            t = r.randrange(2, 5)
            return call("range", ast.Constant(1), ast.Constant(t + 1)), (1, t), t
        if form == 4:
            return call("range", num(-2), ast.Constant(2)), (-2, 1), 4
        t = r.randrange(2, 5)
        return call("range", ast.Constant(t), ast.Constant(0), num(-1)), (1, t), t

    def _s_while(self, d):
        r = self.rng
        k = self.fresh("k")
        trips = r.randrange(1, 4)
        test = ast.Compare(ref(k), [ast.Lt()], [ast.Constant(trips)])
        if r.random() < 0.5:
            op = r.choice([ast.And()])
            with self.lazily():
                test = ast.BoolOp(op, [test, self.cond(1)])
        init = ast.Assign([ast.Name(k, ast.Store())], ast.Constant(0))
        step = ast.AugAssign(ast.Name(k, ast.Store()), ast.Add(), ast.Constant(1))

        def make(body):
            return ast.While(test, [step] + body, [])
        return self._loop([init], make, trips, d, index=(k, (1, trips)))

    def _s_jump(self, d):
        """`if c: break`, `continue`, or an early `return` from inside the loop; in a
        prange body, `continue` (`jump_in_prange`)."""
        roll = self.rng.random()
        body = [self.jump_in_prange() if self.prange is not None else
                ast.Break() if roll < 0.4 else ast.Continue() if roll < 0.8
                else self.early_return()]
        return [ast.If(self.cond(2), body, [])]


def _acc_bounds(trips, step):
    """Bounds of an accumulator after `trips` increments of at most `step`."""
    return (-trips * step - 1.0, trips * step + 1.0)


def _merge(branches):
    """The float names defined on every branch, with the hull of their bounds."""
    names = set(branches[0])
    for b in branches[1:]:
        names &= set(b)
    return {n: (min(b[n][0] for b in branches), max(b[n][1] for b in branches))
            for n in sorted(names)}


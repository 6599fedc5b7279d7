"""Statements of a `programs` program, emitted as indented lines: assignments and
augmented assignments to floats, arrays, elements and slices, branches, loops, calls of
helpers and returns."""

from srcad.fuzz.programs.exprs import Exprs, is_view


class Body(Exprs):
    """Emits statements for one function body, tracking which names are defined."""

    def __init__(self, rng, helpers, returns=None, while_heavy=False):
        super().__init__(rng, helpers)
        self.returns = returns            # None in f, else the helper's return kinds
        self.while_heavy = while_heavy
        self.lines = []
        self.counter = 0
        self.loop_depth = 0
        self.budget = 0

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def write_targets(self):
        """Arrays and matrices a statement may write into here."""
        return [b for b in self.all(self.writable) if b not in self.frozen]

    def emit(self, indent, text):
        self.lines.append("    " * indent + text)

    def block(self, indent, n, allow_exit=None):
        """Emit n statements in a new scope; `allow_exit` ('loop' or 'return') may end it."""
        self.push()
        for _ in range(n):
            self.stmt(indent)
        if allow_exit and self.chance(0.3):
            self.exit_stmt(indent, allow_exit)
        self.pop()

    def return_value(self):
        kinds = self.returns or ("float",)
        parts = [self.fexpr(2) if k == "float" else self.fresh_aexpr() for k in kinds]
        return ", ".join(parts)

    def exit_stmt(self, indent, where):
        r = self.rng
        if where == "loop" and self.loop_depth and r.random() < 0.7:
            self.emit(indent, r.choice(["break", "continue"]))
        elif self.returns is None or self.all(self.arrays) or "arr" not in self.returns:
            self.emit(indent, f"return {self.return_value()}")
        elif self.loop_depth:
            self.emit(indent, "break")

    def new_float(self, indent, expr):
        floats = [v for v in self.all(self.floats) if v not in ("x", "y")]
        if floats and self.chance(0.4):
            self.emit(indent, f"{self.rng.choice(floats)} = {expr}")
        else:
            name = self.fresh("t")
            self.emit(indent, f"{name} = {expr}")
            self.floats[-1].append(name)

    def assign_float(self, indent):
        expr = self.fexpr(2)
        if self.loop_depth or self.chance(0.5):
            expr = f"math.{self.rng.choice(['tanh', 'sin'])}({expr})"
        self.new_float(indent, expr)

    def aug_float(self, indent, floats):
        r = self.rng
        s = r.choice(floats)
        k = r.randrange(6)
        if k == 0:
            self.emit(indent, f"{s} += {self.squash(1)}")
        elif k == 1:
            self.emit(indent, f"{s} -= 0.5 * {self.fexpr(1)}")
        elif k == 2:
            self.emit(indent, f"{s} *= 1.0 + 0.2 * {self.squash(1)}")
        elif k == 3:
            self.emit(indent, f"{s} /= 1.5 + {self.squash(1)}")
        elif k == 4 and len(floats) > 1:
            u, v = r.sample(floats, 2)
            self.emit(indent, f"{u}, {v} = {v}, math.sin({u} + {self.fatom()})")
        else:
            self.emit(indent, f"{s} = math.tanh({s})")
            self.emit(indent, f"{s} **= 2")

    def assign_array(self, indent):
        """A new local 1-d or 2-d array, never a view of another."""
        r = self.rng
        if self.all(self.mats) and r.random() < 0.3:
            kind = "m"
            expr = r.choice([self.mexpr(2), f"np.zeros_like({r.choice(self.all(self.mats))})"])
            name = self.fresh("w")
        else:
            name = self.fresh("b")
            k = r.randrange(4)
            if k == 0:
                expr = self.aexpr(2)
            elif k == 1:
                expr = f"np.zeros_like({r.choice(self.all(self.arrays))})"
            elif k == 2:
                expr = f"{r.choice(self.all(self.arrays))}.copy()"
            else:
                expr = f"np.full({r.choice(self.all(self.arrays))}.shape[0], {self.fexpr(1)})"
            kind = "a"
        if is_view(expr):   # `b = a` or `b = m[0]` alias: srcad refuses writes through them
            expr = f"{expr}.copy()" if r.random() < 0.5 else f"np.copy({expr})"
        self.emit(indent, f"{name} = {expr}")
        (self.mats if kind == "m" else self.arrays)[-1].append(name)
        self.writable[-1].append(name)

    def aug_array(self, indent, target):
        """`b op= ...` on a whole array or matrix."""
        r = self.rng
        if target in self.all(self.mats) and (r.random() < 0.5 or not self.all(self.arrays)):
            rhs = self.mexpr(1)
        else:
            rhs = self.aexpr(1) if self.all(self.arrays) and r.random() < 0.6 else self.fexpr(1)
        k = r.randrange(4)
        if k == 0:
            self.emit(indent, f"{target} += 0.5 * np.tanh({rhs})")
        elif k == 1:
            self.emit(indent, f"{target} -= 0.3 * np.sin({rhs})")
        elif k == 2:
            self.emit(indent, f"{target} *= 1.0 + 0.2 * np.tanh({rhs})")
        else:
            self.emit(indent, f"{target} /= 1.5 + np.sin({rhs})")

    def aug_op_value(self):
        """(operator, right-hand side) of an element write that keeps values O(1)."""
        r = self.rng
        op = r.choice(["=", "+=", "+=", "-=", "*=", "/="] + ([] if self.loop_depth else ["**="]))
        if op == "**=":
            return op, "2"
        if op == "*=":
            return op, f"1.0 + 0.2 * {self.squash(1)}"
        if op == "/=":
            return op, f"1.5 + {self.squash(1)}"
        return op, self.squash(1)

    def write_element(self, indent):
        r = self.rng
        targets = [("w", b) for b in self.write_targets()]
        targets += [("acc", a) for a in self.all(self.accs)]
        kind, target = r.choice(targets)
        op, value = self.aug_op_value()
        if kind == "acc":
            name, size = target
            i = r.choice(self.ints)[0] if self.ints else str(r.randrange(size))
            self.emit(indent, f"{name}[{i} % {size}] {op} {value}")
        elif target in self.all(self.mats):
            k = r.randrange(5)
            if k <= 2:
                self.emit(indent, f"{target}[{self.index('r')}, {self.index()}] {op} {value}")
            elif k == 3 and self.all(self.arrays):
                op = op if op in ("=", "+=", "-=") else "+="
                self.emit(indent, f"{target}[{self.index('r')}] {op} 0.5 * np.sin({self.aexpr(1)})")
            elif r.random() < 0.5:
                self.emit(indent, f"{target}[:, {self.index()}] {op} {value}")
            else:
                self.emit(indent, f"{target}[{self.index('r')}, 1:] {op} {value}")
        else:
            k = r.randrange(4)
            if k <= 1:
                self.emit(indent, f"{target}[{self.index()}] {op} {value}")
            elif k == 2:
                sl, _ = self.slice_n()
                self.emit(indent, f"{target}[{sl}] {op} {value}")
            else:
                src = r.choice(self.all(self.arrays))
                pair = r.choice([("1:", ":-1"), (":-1", "1:")])
                fn = r.choice(["np.tanh", "np.sin"])
                op = r.choice(["=", "+=", "-="])
                self.emit(indent, f"{target}[{pair[0]}] {op} 0.5 * {fn}({src}[{pair[1]}])")

    def stmt(self, indent):
        r = self.rng
        self.budget -= 1
        floats = [v for v in self.all(self.floats) if v not in ("x", "y")]
        nested_ok = self.budget > 0 and len(self.lines) < 40
        loops_ok = nested_ok and self.loop_depth < (3 if self.while_heavy else 2)
        roll = r.random()
        if roll < 0.22 or not floats:
            self.assign_float(indent)
        elif roll < 0.3:
            self.aug_float(indent, floats)
        elif roll < 0.37 and self.all(self.arrays):
            self.assign_array(indent)
        elif roll < 0.41 and self.write_targets():
            self.aug_array(indent, r.choice(self.write_targets()))
        elif roll < 0.44 and not self.loop_depth:
            name = self.fresh("acc")
            size = r.randrange(2, 4)
            self.emit(indent, f"{name} = np.zeros({size})")
            self.accs[-1].append((name, size))
        elif roll < 0.54 and (self.write_targets() or self.all(self.accs)):
            self.write_element(indent)
        elif roll < 0.63:
            self.if_stmt(indent, nested_ok)
        elif roll < (0.66 if self.while_heavy else 0.73) and loops_ok:
            self.for_stmt(indent)
        elif roll < 0.8 and loops_ok:
            self.while_stmt(indent)
        elif roll < 0.9 and self.callable():
            self.call_stmt(indent)
        else:
            self.assign_float(indent)

    def if_stmt(self, indent, nested_ok):
        r = self.rng
        exit_kind = "loop" if self.loop_depth else "return"
        self.emit(indent, f"if {self.cond()}:")
        self.block(indent + 1, r.randrange(1, 3) if nested_ok else 1, exit_kind)
        for _ in range(r.choice([0, 0, 1, 2])):
            self.emit(indent, f"elif {self.cond()}:")
            self.block(indent + 1, 1, exit_kind)
        if r.random() < 0.4:
            self.emit(indent, "else:")
            self.block(indent + 1, 1, exit_kind if r.random() < 0.3 else None)

    def for_stmt(self, indent):
        r = self.rng
        i = self.fresh("i")
        mats = self.all(self.mats)
        arrays = self.all(self.arrays)
        if mats and r.random() < 0.3:
            mat = r.choice(mats)
            if r.random() < 0.25:       # rows of a matrix: a 1-d view, read only
                row = self.fresh("row")
                self.emit(indent, f"for {row} in {mat}:")
                self.frozen.append(mat)
                self.loop_body(indent, [], arrays=[row])
                self.frozen.pop()
                return
            axis, n = "r", f"{mat}.shape[0]"
        elif arrays and r.random() < 0.15:
            v = self.fresh("v")
            items = r.choice([r.choice(arrays), "(" + ", ".join(
                r.choice(self.all(self.floats)) for _ in range(r.randrange(2, 4))) + ")"])
            self.emit(indent, f"for {v} in {items}:")
            self.loop_body(indent, [], floats=[v])
            return
        else:
            arr = "a" if "a" in arrays else r.choice(arrays) if arrays else None
            axis = "n"
            n = r.choice([f"{arr}.shape[0]", f"len({arr})"]) if arr else "4"
        forms = [
            (f"range({n})", 0, 0),
            (f"range({r.randrange(2, 5) if axis == 'n' else 2})", 0, 0),
            (f"range({n} - 1, -1, -1)", 0, 0),
            (f"range(1, {n})", 1, 0),
            (f"range({n} - 1)", 0, 1),
            (f"range({n} - 1, 0, -1)", 1, 0),
            (f"range(0, {n}, 2)", 0, 0),
        ]
        rng_text, lo, hi = r.choice(forms)
        self.emit(indent, f"for {i} in {rng_text}:")
        self.loop_body(indent, [(i, axis, lo, hi)])

    def loop_body(self, indent, ints, floats=(), arrays=()):
        self.ints += ints
        self.loop_depth += 1
        self.push()
        self.floats[-1] += list(floats)
        self.arrays[-1] += list(arrays)
        self.block(indent + 1, self.rng.randrange(1, 4))
        self.pop()
        self.loop_depth -= 1
        del self.ints[len(self.ints) - len(ints):]

    def while_stmt(self, indent):
        r = self.rng
        k = self.fresh("k")
        floats = [v for v in self.all(self.floats) if v not in ("x", "y")]
        s = r.choice(floats)
        trips = r.randrange(2, 5)
        if r.random() < 0.2:        # a data-dependent trip count: z rises by >= 0.3 a trip
            z = self.fresh("z")
            self.emit(indent, f"{z} = math.tanh({s})")
            self.emit(indent, f"while {z} < {round(r.uniform(0.5, 2.5), 2)}:")
            self.emit(indent + 1, f"{z} += 0.4 + 0.1 * math.tanh({self.fatom()})")
            self.loop_body(indent, [])
            self.floats[-1].append(z)
            return
        self.emit(indent, f"{k} = 0")
        form = r.randrange(4)
        if form == 0:
            self.emit(indent, f"while {k} < {trips} and {s} < 50.0:")
        elif form == 1:
            self.emit(indent, f"while {k} < {trips}:")
        elif form == 2:
            self.emit(indent, "while True:")
            self.emit(indent + 1, f"if {k} >= {trips}:")
            self.emit(indent + 2, "break")
        else:
            self.emit(indent, f"while {s} < {self.const()} + 3.0 and {k} < {trips}:")
        self.emit(indent + 1, f"{k} += 1")
        self.loop_body(indent, [], floats=[])
        if r.random() < 0.7:
            self.emit(indent + 1, f"{s} += 0.5 * {self.squash(1)}")

    def call_stmt(self, indent):
        name, params, returns = self.rng.choice(self.callable())
        args = self.call_args(params)
        names = [self.fresh("u" if kind == "float" else "c") for kind in returns]
        if len(names) == 1 and self.chance(0.5) and returns == ("float",):
            floats = [v for v in self.all(self.floats) if v not in ("x", "y")]
            if floats:
                self.emit(indent, f"{self.rng.choice(floats)} += 0.5 * {name}({args})")
                return
        self.emit(indent, f"{', '.join(names)} = {name}({args})")
        for n, kind in zip(names, returns):
            (self.floats if kind == "float" else self.arrays)[-1].append(n)

    def final_return(self, indent):
        floats = self.all(self.floats)
        picks = self.rng.sample(floats, min(len(floats), 3))
        terms = picks + [f"0.1 * np.sum({self.rng.choice(self.all(self.arrays))})",
                         f"0.1 * np.sum({self.rng.choice(self.all(self.mats))})"]
        self.emit(indent, f"return {' + '.join(terms)}")


"""Random programs for `srcad.fuzz`.

`generate(seed)` writes the source of a module holding `f(x, y, a, m)` (x, y floats, a a
1-d float array of length n, m a float matrix of shape (r, n)) and up to two module-level
helpers it calls, using only constructs that srcad documents as supported:

- arithmetic, `x ** k`, `math` functions, `max/min/abs`, ternaries, `and/or/not` tests;
- NumPy: elementwise functions (exp/log/sqrt of positive values), `np.where`,
  `np.maximum/minimum`, `np.clip`, `np.sum/prod/max/min/mean` with and without `axis` on
  the matrix, `np.dot`, `.T`, `np.concatenate`, `np.stack`, `np.array([...])`, methods,
  slices with steps, broadcasting of rows;
- `if/elif/else`, `for` loops over ranges, arrays, matrix rows and tuples, `while` loops
  (bounded by a counter, by `while True` and `break`, or data-dependent), nested up to
  three deep in while-heavy programs, `break`/`continue`, early returns;
- reads and writes of elements, rows, columns and slices (`a[i] += ...`, `m[i, j] -= ...`,
  `b[1:] *= ...`, `w[:, j] /= ...`), data-dependent `int(...)` indices, augmented
  assignment to every kind of target, parallel assignment;
- helpers called anywhere (also inside loops), with defaults and keyword arguments,
  returning a float, an array or a tuple.

Values are squashed with `tanh`/`sin` so gradients stay O(1) and well-defined.
"""

import ast
import random

# Shapes: `a` and every name in `arrays` have length n (4..6); `m` and every name in `mats`
# have shape (r, n) with r in 2..3.  Loop indices remember which axis they range over
# ("n" or "r") and how far from either end they stay, so every index is in bounds.

_INDEX_CONSTS = {"n": range(-4, 4), "r": range(-2, 2)}


class _Gen:
    """Emits statements for one function body, tracking which names are defined."""

    def __init__(self, rng, helpers, returns=None, while_heavy=False):
        self.rng = rng
        self.helpers = helpers            # [(name, params, returns)] callable from here
        self.returns = returns            # None in f, else the helper's return kinds
        self.while_heavy = while_heavy
        self.lines = []
        self.floats = [[]]                # scopes of float names
        self.arrays = [[]]                # scopes of 1-d array names (length n)
        self.mats = [[]]                  # scopes of 2-d array names (shape (r, n))
        self.writable = [[]]              # arrays and matrices that may be written
        self.accs = [[]]                  # (name, length) of small accumulator arrays
        self.frozen = []                  # matrices whose rows a loop is iterating over
        self.ints = []                    # enclosing loop indices: (name, axis, lo, hi)
        self.counter = 0
        self.loop_depth = 0
        self.budget = 0

    # names
    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def all(self, scopes):
        return [n for s in scopes for n in s]

    def push(self):
        for s in (self.floats, self.arrays, self.mats, self.writable, self.accs):
            s.append([])

    def pop(self):
        for s in (self.floats, self.arrays, self.mats, self.writable, self.accs):
            s.pop()

    def write_targets(self):
        return [b for b in self.all(self.writable) if b not in self.frozen]

    def emit(self, indent, text):
        self.lines.append("    " * indent + text)

    def const(self):
        return repr(round(self.rng.uniform(-2.0, 2.0), 2))

    def chance(self, p):
        return self.rng.random() < p

    # indices
    def index(self, axis="n"):
        """An index expression in bounds along `axis` ("n": length >= 4, "r": length >= 2)."""
        r = self.rng
        mine = [i for i in self.ints if i[1] == axis]
        if mine and r.random() < 0.8:
            name, _, lo, hi = r.choice(mine)
            # the loop variable ranges over [lo, len - hi): shifts that stay in bounds
            shifts = [0] + ([-1] if lo >= 1 else []) + ([1] if hi >= 1 else [])
            s = r.choice(shifts)
            return name if s == 0 else f"{name} {'+' if s > 0 else '-'} {abs(s)}"
        floats = self.all(self.floats)
        if floats and r.random() < 0.1:     # a data-dependent index in [0, 1]
            return f"int(1.5 * abs(math.tanh({r.choice(floats)})))"
        return str(r.choice(_INDEX_CONSTS[axis]))

    def slice_n(self):
        """A slice of an n-axis and the length it leaves, as (text, tag)."""
        return self.rng.choice([("1:", "n-1"), (":-1", "n-1"), ("::2", "half"), ("1::2", "half2"),
                                (":", "n"), ("2:", "n-2"), (":-2", "n-2"), ("::-1", "n")])

    # float expressions
    def fatom(self):
        r = self.rng
        floats = self.all(self.floats)
        arrays = self.all(self.arrays)
        mats = self.all(self.mats)
        roll = r.random()
        if roll < 0.5 and floats:
            return r.choice(floats)
        if roll < 0.65 and arrays:
            return f"{r.choice(arrays)}[{self.index()}]"
        if roll < 0.72 and mats:
            if r.random() < 0.15:
                return f"{r.choice(mats)}[{self.index('r')}][{self.index()}]"
            return f"{r.choice(mats)}[{self.index('r')}, {self.index()}]"
        if roll < 0.76 and self.ints:
            return f"0.1 * {r.choice(self.ints)[0]}"
        if roll < 0.9 and (arrays or mats):
            return self.reduction()
        return self.const()

    def reduction(self):
        """A float computed from arrays."""
        r = self.rng
        if not self.all(self.arrays):
            return f"np.sum({self.mexpr(1)})"
        k = r.randrange(12)
        if k == 0:
            return f"np.sum({self.aexpr(1)})"
        if k == 1:
            return f"np.mean({self.aexpr(1)})"
        if k == 2:
            return f"np.prod(1.0 + 0.1 * np.tanh({self.aexpr(1)}))"
        if k == 3:
            return f"np.{r.choice(['max', 'min'])}({self.aexpr(1)})"
        if k == 4:
            return f"0.2 * np.dot({self.aexpr(1)}, {self.aexpr(0)})"
        if k == 5:
            return f"np.sum({self.sliced(1)})"
        if k == 6:
            return f"np.{r.choice(['max', 'min', 'mean'])}({self.sliced(0)})"
        if k == 7 and self.all(self.mats):
            return f"np.{r.choice(['sum', 'mean', 'max', 'min'])}({self.mexpr(1)})"
        if k == 8 and self.all(self.mats):
            return f"np.{r.choice(['sum', 'mean', 'max', 'min'])}({self.rvec()})"
        if k == 9:
            return f"{r.choice(self.all(self.arrays))}.{r.choice(['sum', 'max', 'min'])}()"
        if k == 10 and self.all(self.mats):
            return f"np.prod(1.0 + 0.1 * np.tanh({self.rvec()}))"
        if k == 11 and r.random() < 0.5:
            floats = self.all(self.floats)
            if floats:
                items = ", ".join(r.choice(floats) for _ in range(r.randrange(2, 4)))
                return f"np.sum(np.tanh(np.array([{items}])) ** 2)"
            if self.all(self.mats):
                return f"np.mean({r.choice(self.all(self.mats))}.ravel()[::2])"
        return f"np.sum({self.aexpr(1)} * {self.aexpr(0)})"

    def sliced(self, depth):
        """A 1-d expression over a slice of an array (any length)."""
        arr = self.rng.choice(self.all(self.arrays))
        k = self.rng.randrange(4)
        if k == 0:
            return f"{arr}[1:] - {arr}[:-1]"
        if k == 1 and depth > 0:
            return f"np.sin({self.sliced(0)})"
        if k == 2 and self.all(self.mats):
            return f"{self.rng.choice(self.all(self.mats))}[{self.index('r')}, 1:]"
        return f"{arr}[{self.slice_n()[0]}]"

    def cond(self):
        r = self.rng
        op = r.choice(["<", ">", "<=", ">="])
        rhs = r.choice(self.all(self.floats) + [self.const()])
        c = f"{self.fatom()} {op} {rhs}"
        if r.random() < 0.1:
            c = f"{c} {r.choice(['and', 'or'])} {self.fatom()} {r.choice(['<', '>'])} {rhs}"
        elif r.random() < 0.05:
            c = f"not {c}"
        return c

    def fexpr(self, depth=2):
        r = self.rng
        if depth <= 0 or r.random() < 0.25:
            return self.fatom()
        d = depth - 1
        k = r.randrange(16)
        if k == 0:
            return f"({self.fexpr(d)} {r.choice('+-*')} {self.fexpr(d)})"
        if k == 1:
            return f"{self.fexpr(d)} / ({r.choice(['1.5', '2.0'])} + {self.squash(d)} ** 2)"
        if k == 2:
            return f"{self.fexpr(d)} / (2.0 + math.sin({self.fexpr(d)}))"
        if k == 3:
            return f"(-{self.fexpr(d)})"
        if k == 4:
            return f"{self.squash(d)} ** {r.choice([2, 3])}"
        if k == 5:
            return f"math.{r.choice(['sin', 'cos', 'tanh'])}({self.fexpr(d)})"
        if k == 6:
            return f"{r.choice(['math', 'np'])}.exp({self.squash(d)})"
        if k == 7:
            fn = r.choice(['math.sqrt', 'math.log', 'np.log', 'np.sqrt'])
            return f"{fn}(1.0 + {self.squash(d)} ** 2)"
        if k == 8:
            return f"({self.fexpr(d)} if {self.cond()} else {self.fexpr(d)})"
        if k == 9:
            args = [self.fexpr(d) for _ in range(r.choice([2, 2, 3]))]
            return f"{r.choice(['max', 'min'])}({', '.join(args)})"
        if k == 10:
            return f"abs({self.fexpr(d)})"
        if k == 11:
            call = self.float_call()
            if call:
                return call
        if k == 12:
            return f"(1.0 + {self.squash(d)} ** 2) ** {r.choice(['0.5', '1.5', '-1', '-0.5'])}"
        if k == 13:
            return f"np.clip({self.fexpr(d)}, -1.0, {r.choice(['0.5', '1.0'])})"
        if k == 14:
            return f"{self.fatom()} ** 2"
        return f"({self.fexpr(d)} + {self.fexpr(d)})"

    def squash(self, depth):
        return f"math.{self.rng.choice(['tanh', 'sin'])}({self.fexpr(depth)})"

    # calls to helpers
    def float_call(self):
        singles = [h for h in self.callable() if h[2] == ("float",)]
        if not singles:
            return None
        name, params, _ = self.rng.choice(singles)
        return f"{name}({self.call_args(params)})"

    def array_call(self):
        arrs = [h for h in self.callable() if h[2] == ("arr",)]
        if not arrs:
            return None
        name, params, _ = self.rng.choice(arrs)
        return f"{name}({self.call_args(params)})"

    def callable(self):
        """Helpers whose array parameters can be filled from the arrays in scope."""
        have = {"arr": bool(self.all(self.arrays)), "mat": bool(self.all(self.mats)),
                "float": True, "opt": True}
        return [h for h in self.helpers if all(have[p] for p in h[1])]

    def call_args(self, params):
        args = []
        for j, kind in enumerate(params):
            if kind == "opt":          # a float parameter with a default: omit, name or pass
                k = self.rng.randrange(3)
                if k:
                    args.append(("" if k == 1 else f"p{j}=") + self.fexpr(1))
            elif kind == "arr":
                args.append(self.rng.choice(self.all(self.arrays)))
            elif kind == "mat":
                args.append(self.rng.choice(self.all(self.mats)))
            else:
                args.append(self.fexpr(1))
        return ", ".join(args)

    # array expressions
    def aexpr(self, depth=1):
        """A 1-d expression of length n."""
        r = self.rng
        arrays = self.all(self.arrays)
        base = r.choice(arrays)
        if depth <= 0 or r.random() < 0.3:
            return base
        d = depth - 1
        k = r.randrange(20)
        if k == 0:
            return f"np.sin({self.aexpr(d)})"
        if k == 1:
            return f"np.tanh({self.const()} * {self.aexpr(d)} + {self.fatom()})"
        if k == 2:
            return f"np.exp(np.tanh({self.aexpr(d)}))"
        if k == 3:
            return f"np.{r.choice(['maximum', 'minimum'])}({self.aexpr(d)}, {self.fatom()})"
        if k == 4:
            return f"np.{r.choice(['maximum', 'minimum'])}({self.aexpr(d)}, {self.aexpr(d)})"
        if k == 5:
            return (f"np.where({base} > {self.const()}, {self.aexpr(d)}, "
                    f"{self.fatom()} * {self.aexpr(d)})")
        if k == 6:
            return f"({self.aexpr(d)} {r.choice('+-*')} {self.fatom()})"
        if k == 7:
            lo = round(r.uniform(-1.5, 0.0), 2)
            return f"np.clip({self.aexpr(d)}, {lo}, {round(lo + r.uniform(0.2, 2.0), 2)})"
        if k == 8:
            return f"np.{r.choice(['log', 'sqrt'])}(1.0 + {self.aexpr(d)} ** 2)"
        if k == 9:
            return f"np.tanh({self.aexpr(d)}) ** {r.choice([2, 3])}"
        if k == 10 and self.all(self.mats):
            fn = r.choice(["sum", "mean", "max", "min"])
            return f"np.{fn}({self.mexpr(d)}, axis=0)"
        if k == 11 and self.all(self.mats):
            return f"{self.mexpr(d)}[{self.index('r')}]"
        if k == 12 and self.all(self.mats):
            return f"np.dot(np.tanh({self.rvec()}), {r.choice(self.all(self.mats))})"
        if k == 13:
            return f"np.abs({self.aexpr(d)})"
        if k == 14:
            call = self.array_call()
            if call:
                return call
        if k == 15:
            return f"({self.aexpr(d)} if {self.cond()} else {self.aexpr(d)})"
        if k == 16 and self.all(self.mats):
            return f"np.prod(1.0 + 0.1 * np.tanh({self.mexpr(d)}), axis=0)"
        if k == 17:
            return r.choice([f"np.concatenate(({base}[1:], {base}[:1]))",
                             f"np.sum(np.stack(({base}, {self.aexpr(d)})), axis=0)",
                             f"np.concatenate(({base}[::-1][:2], {base}[2:]))"])
        if k == 18 and self.all(self.mats):
            return r.choice([f"np.dot({self.mexpr(0)}.T, np.tanh({self.rvec()}))",
                             f"np.sum({self.mexpr(d)}.T, axis=1)",
                             f"{self.mexpr(0)}.sum(axis=0)"])
        return f"({self.aexpr(d)} {r.choice('+-*')} {self.aexpr(d)})"

    def fresh_aexpr(self):
        """A 1-d expression of length n that is a new array, not a view of another."""
        expr = self.aexpr(1)
        return f"np.copy({expr})" if _is_view(expr) else expr

    def mexpr(self, depth=1):
        """A 2-d expression of shape (r, n)."""
        r = self.rng
        base = r.choice(self.all(self.mats))
        if depth <= 0 or r.random() < 0.35:
            return base
        d = depth - 1
        k = r.randrange(7)
        if k == 0:
            return f"np.sin({self.mexpr(d)})"
        if k == 1:
            return f"np.tanh({self.const()} * {self.mexpr(d)} + {self.fatom()})"
        if k == 2 and self.all(self.arrays):
            return f"({self.mexpr(d)} {r.choice('+-*')} {self.aexpr(d)})"
        if k == 3:
            return f"np.where({base} > {self.const()}, {self.mexpr(d)}, {self.fatom()})"
        if k == 4:
            return f"np.{r.choice(['maximum', 'minimum'])}({self.mexpr(d)}, {self.fatom()})"
        if k == 5:
            return f"np.clip({self.mexpr(d)}, -1.0, 1.0)"
        return f"({self.mexpr(d)} {r.choice('+-*')} {self.mexpr(d)})"

    def rvec(self):
        """A 1-d expression of length r."""
        r = self.rng
        k = r.randrange(4)
        if k == 0 and self.all(self.arrays):
            return f"np.dot({self.mexpr(0)}, {self.aexpr(0)})"
        if k == 1:
            return f"{r.choice(self.all(self.mats))}[:, {self.index()}]"
        return f"np.{r.choice(['sum', 'mean', 'max', 'min'])}({self.mexpr(1)}, axis=1)"

    # statements
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
        if _is_view(expr):   # `b = a` or `b = m[0]` alias: srcad refuses writes through them
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


def _is_view(expr):
    """Whether `expr` may name (part of) an existing array rather than a new one."""
    node = ast.parse(expr, mode="eval").body
    if isinstance(node, ast.IfExp):
        return _is_view(ast.unparse(node.body)) or _is_view(ast.unparse(node.orelse))
    return isinstance(node, (ast.Name, ast.Subscript))


_PARAMS = [["float", "float"], ["float", "arr"], ["arr"], ["float"], ["mat", "float"],
           ["arr", "mat"]]
_RETURNS = [("float",)] * 4 + [("float", "float")] * 2 + [("arr",), ("float", "arr")]


def _helper(rng, name, callable_helpers):
    params = rng.choice(_PARAMS) + (["opt"] if rng.random() < 0.3 else [])
    returns = rng.choice(_RETURNS)
    g = _Gen(rng, callable_helpers, returns=returns)
    pnames = []
    for j, kind in enumerate(params):
        pname = {"float": "p", "opt": "p", "arr": "q", "mat": "r"}[kind] + str(j)
        pnames.append(pname + ("=0.5" if kind == "opt" else ""))
        {"arr": g.arrays, "mat": g.mats}.get(kind, g.floats)[0].append(pname)
    g.emit(1, "h = 0.1")
    g.floats[0].append("h")
    if "arr" in returns and not g.all(g.arrays):
        src = g.mexpr(1) + "[0]" if g.all(g.mats) else None
        if src is None:
            returns = g.returns = tuple("float" for _ in returns)
        else:
            g.emit(1, f"e = np.sin({src})")
            g.arrays[0].append("e")
            g.writable[0].append("e")
    g.budget = rng.randrange(1, 4)
    while g.budget > 0:
        g.stmt(1)
    g.emit(1, f"return {g.return_value()}")
    header = f"def {name}({', '.join(pnames)}):"
    return "\n".join([header] + g.lines), (name, params, returns)


def generate(seed):
    """(module source, shapes of `a` and `m`) for program `seed`."""
    rng = random.Random(seed)
    helpers, sources = [], []
    for k in range(rng.choice([0, 1, 1, 2])):
        src, sig = _helper(rng, f"helper{k}", list(helpers))
        sources.append(src)
        helpers.append(sig)
    g = _Gen(rng, helpers, while_heavy=rng.random() < 0.2)
    g.floats[0] += ["x", "y"]
    g.arrays[0].append("a")
    g.mats[0].append("m")
    g.writable[0] += ["a", "m"]     # f may write into its own arguments: srcad copies them
    g.emit(1, "s = 0.0")
    g.emit(1, f"t0 = math.tanh(x * {g.const()} + y)")
    g.floats[0] += ["s", "t0"]
    g.budget = rng.randrange(3, 7)
    while g.budget > 0:
        g.stmt(1)
    g.final_return(1)
    body = "\n".join(["def f(x, y, a, m):"] + g.lines)
    n, rows = rng.randrange(4, 7), rng.randrange(2, 4)
    header = (f"# srcad fuzz program, seed {seed}, a: ({n},), m: ({rows}, {n})\n"
              "import math\n\nimport numpy as np\n")
    return "\n\n\n".join([header.rstrip("\n")] + sources + [body]) + "\n", (n, rows)

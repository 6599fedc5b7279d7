"""Expressions of a `programs` program, as source text: floats, 1-d arrays of length n,
matrices of shape (r, n), in-bounds indices, and calls to the helpers in scope."""

import ast

# Shapes: `a` and every name in `arrays` have length n (4..6); `m` and every name in `mats`
# have shape (r, n) with r in 2..3.  Loop indices remember which axis they range over
# ("n" or "r") and how far from either end they stay, so every index is in bounds.

_INDEX_CONSTS = {"n": range(-4, 4), "r": range(-2, 2)}

# the forms k of `Exprs.fexpr` and `Exprs.aexpr` (k = rng.randrange(16) and (20)), by kind
_FLOAT_FUNCTIONS = (5, 6, 7, 9, 10, 13)
_ARRAY_ELEMENTWISE = (0, 1, 2, 7, 8, 9, 13)
_ARRAY_OF_MATRIX = (10, 11, 12, 16, 18)


class Exprs:
    """Expressions over the names in scope, which it tracks in nested scopes."""

    def __init__(self, rng, helpers):
        self.rng = rng
        self.helpers = helpers            # [(name, params, returns)] callable from here
        self.floats = [[]]                # scopes of float names
        self.arrays = [[]]                # scopes of 1-d array names (length n)
        self.mats = [[]]                  # scopes of 2-d array names (shape (r, n))
        self.writable = [[]]              # arrays and matrices that may be written
        self.accs = [[]]                  # (name, length) of small accumulator arrays
        self.frozen = []                  # matrices whose rows a loop is iterating over
        self.ints = []                    # enclosing loop indices: (name, axis, lo, hi)

    # names
    def all(self, scopes):
        return [n for s in scopes for n in s]

    def push(self):
        for s in (self.floats, self.arrays, self.mats, self.writable, self.accs):
            s.append([])

    def pop(self):
        for s in (self.floats, self.arrays, self.mats, self.writable, self.accs):
            s.pop()

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
        """A float expression nested at most `depth` deep."""
        r = self.rng
        if depth <= 0 or r.random() < 0.25:
            return self.fatom()
        d = depth - 1
        k = r.randrange(16)
        if k == 11:
            expr = self.float_call()
        elif k in _FLOAT_FUNCTIONS:
            expr = self._fexpr_function(k, d)
        else:
            expr = self._fexpr_operation(k, d)
        return expr or f"({self.fexpr(d)} + {self.fexpr(d)})"

    def _fexpr_operation(self, k, d):
        """Form k of `fexpr` built on operators (None for the fallback, a sum)."""
        r = self.rng
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
        if k == 8:
            return f"({self.fexpr(d)} if {self.cond()} else {self.fexpr(d)})"
        if k == 12:
            return f"(1.0 + {self.squash(d)} ** 2) ** {r.choice(['0.5', '1.5', '-1', '-0.5'])}"
        if k == 14:
            return f"{self.fatom()} ** 2"
        return None

    def _fexpr_function(self, k, d):
        """Form k of `fexpr` that calls a function of `math`, `np` or the builtins."""
        r = self.rng
        if k == 5:
            return f"math.{r.choice(['sin', 'cos', 'tanh'])}({self.fexpr(d)})"
        if k == 6:
            return f"{r.choice(['math', 'np'])}.exp({self.squash(d)})"
        if k == 7:
            fn = r.choice(['math.sqrt', 'math.log', 'np.log', 'np.sqrt'])
            return f"{fn}(1.0 + {self.squash(d)} ** 2)"
        if k == 9:
            args = [self.fexpr(d) for _ in range(r.choice([2, 2, 3]))]
            return f"{r.choice(['max', 'min'])}({', '.join(args)})"
        if k == 10:
            return f"abs({self.fexpr(d)})"
        return f"np.clip({self.fexpr(d)}, -1.0, {r.choice(['0.5', '1.0'])})"

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
        if k in _ARRAY_ELEMENTWISE:
            expr = self._aexpr_elementwise(k, d)
        elif k in _ARRAY_OF_MATRIX:
            expr = self._aexpr_of_matrix(k, d) if self.all(self.mats) else None
        elif k == 14:
            expr = self.array_call()
        else:
            expr = self._aexpr_combined(k, d, base)
        return expr or f"({self.aexpr(d)} {r.choice('+-*')} {self.aexpr(d)})"

    def _aexpr_elementwise(self, k, d):
        """Form k of `aexpr`: a function applied to every element of an array expression."""
        r = self.rng
        if k == 0:
            return f"np.sin({self.aexpr(d)})"
        if k == 1:
            return f"np.tanh({self.const()} * {self.aexpr(d)} + {self.fatom()})"
        if k == 2:
            return f"np.exp(np.tanh({self.aexpr(d)}))"
        if k == 7:
            lo = round(r.uniform(-1.5, 0.0), 2)
            return f"np.clip({self.aexpr(d)}, {lo}, {round(lo + r.uniform(0.2, 2.0), 2)})"
        if k == 8:
            return f"np.{r.choice(['log', 'sqrt'])}(1.0 + {self.aexpr(d)} ** 2)"
        if k == 9:
            return f"np.tanh({self.aexpr(d)}) ** {r.choice([2, 3])}"
        return f"np.abs({self.aexpr(d)})"

    def _aexpr_combined(self, k, d, base):
        """Form k of `aexpr` that combines arrays with arrays or floats (None for the
        fallback, an operator between two arrays); `base` is an array name."""
        r = self.rng
        if k == 3:
            return f"np.{r.choice(['maximum', 'minimum'])}({self.aexpr(d)}, {self.fatom()})"
        if k == 4:
            return f"np.{r.choice(['maximum', 'minimum'])}({self.aexpr(d)}, {self.aexpr(d)})"
        if k == 5:
            return (f"np.where({base} > {self.const()}, {self.aexpr(d)}, "
                    f"{self.fatom()} * {self.aexpr(d)})")
        if k == 6:
            return f"({self.aexpr(d)} {r.choice('+-*')} {self.fatom()})"
        if k == 15:
            return f"({self.aexpr(d)} if {self.cond()} else {self.aexpr(d)})"
        if k == 17:
            return r.choice([f"np.concatenate(({base}[1:], {base}[:1]))",
                             f"np.sum(np.stack(({base}, {self.aexpr(d)})), axis=0)",
                             f"np.concatenate(({base}[::-1][:2], {base}[2:]))"])
        return None

    def _aexpr_of_matrix(self, k, d):
        """Form k of `aexpr` computed from a matrix: a reduction over its rows, a row, a
        product with a vector."""
        r = self.rng
        if k == 10:
            fn = r.choice(["sum", "mean", "max", "min"])
            return f"np.{fn}({self.mexpr(d)}, axis=0)"
        if k == 11:
            return f"{self.mexpr(d)}[{self.index('r')}]"
        if k == 12:
            return f"np.dot(np.tanh({self.rvec()}), {r.choice(self.all(self.mats))})"
        if k == 16:
            return f"np.prod(1.0 + 0.1 * np.tanh({self.mexpr(d)}), axis=0)"
        return r.choice([f"np.dot({self.mexpr(0)}.T, np.tanh({self.rvec()}))",
                         f"np.sum({self.mexpr(d)}.T, axis=1)",
                         f"{self.mexpr(0)}.sum(axis=0)"])

    def fresh_aexpr(self):
        """A 1-d expression of length n that is a new array, not a view of another."""
        expr = self.aexpr(1)
        return f"np.copy({expr})" if is_view(expr) else expr

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


def is_view(expr):
    """Whether `expr` may name (part of) an existing array rather than a new one."""
    node = ast.parse(expr, mode="eval").body
    if isinstance(node, ast.IfExp):
        return is_view(ast.unparse(node.body)) or is_view(ast.unparse(node.orelse))
    return isinstance(node, (ast.Name, ast.Subscript))


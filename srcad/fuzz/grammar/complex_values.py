"""Complex values ("complex", a family drawn only when asked for: `generate(seed,
families=("complex",))`; no program of the other families changes).  f also takes a
complex number `c` and, with an array `a`, a complex array `q` of a's length; it computes
with complex literals (`0.5j`, `(1.5-0.25j)`, `complex(e1, e2)`), arithmetic mixing real and
complex scalars and arrays, `**` with integer, real and complex exponents and real bases
of complex exponents, np.exp log sqrt sin cos tanh square reciprocal, the parts
(`z.real`, `z.imag`, `z.conjugate()`, `w.conj()` of an array, np.real imag conj abs
angle), sums, means, np.dot and
cumsum, np.fft.fft ifft rfft irfft, `@` of a real matrix and a complex vector (and of a
complex matrix and a real one), np.where with a real condition, element reads and writes
of complex arrays (in loops and branches, whose tests stay real: complex numbers have no
order), and returns a real value that reads them (`np.sum(np.abs(w) ** 2) + zk.real`).

A complex expression is a `Z`: its tree, a bound on its modulus, and whether its value is
surely complex (a real expression used where a complex one may be is not; it is made
complex, `complex(e)` or `e + 0j`, before a complex name or array holds it, so that a name
keeps one kind).  A complex array expression is a `ZA`, with its length.  Each complex name
keeps the bound it was bound with and every rebinding or write scales its value into that
bound, so loops need no widening.  Logarithms, square roots, non-integer powers and
angles take a base in the right half-plane (`2.5 + z` for |z| <= 1.5), away from zero and
the branch cut; a divisor is such a base too."""

import ast
import copy
import math

from srcad.fuzz.grammar.idioms import Idioms
from srcad.fuzz.grammar.trees import LIMIT, V, binop, call, num, ref

_LITERALS = (0.5j, 1j, -2j, complex(1.5, -0.25), complex(0.5, 1.0), complex(-1.0, 0.5),
             0.25j, complex(0.0, -1.5))
_EXPONENTS = (complex(0.5, 0.25), complex(1.0, -0.5), 0.5j, complex(2.0, 1.0))


class Z:
    """A complex scalar expression, a bound on its modulus, and whether it is surely
    complex."""

    __slots__ = ("node", "mag", "cplx")

    def __init__(self, node, mag, cplx=True):
        self.node, self.mag, self.cplx = node, float(mag), cplx


class ZA(Z):
    """A complex array expression of length n (a bound on the modulus of its elements)."""

    __slots__ = ("n",)

    def __init__(self, node, n, mag, cplx=True):
        super().__init__(node, mag, cplx)
        self.n = n


def lit(value):
    """A complex literal as the parser reads it: `0.5j`, `(1.5 - 0.25j)`, `-2j`."""
    if value.real == 0.0:
        return ast.Constant(value.imag * 1j) if value.imag >= 0 else \
            ast.UnaryOp(ast.USub(), ast.Constant(-value.imag * 1j))
    op = ast.Add() if value.imag >= 0 else ast.Sub()
    return binop(num(value.real), op, ast.Constant(abs(value.imag) * 1j))


def attr(node, name):
    return ast.Attribute(node, name, ast.Load())


def method(node, name, *args):
    return ast.Call(attr(node, name), list(args), [])


class ComplexValues(Idioms):
    """The complex forms above, drawn when "complex" is among `families`."""

    def __init__(self, rng, consts, avoid):
        super().__init__(rng, consts, avoid)
        self.reading_complex = 0  # how many complex_atom calls are under way
        self.complexes = {}       # complex scalar name -> bound on its modulus
        self.carrays = {}         # complex array name -> (length, bound on modulus)
        self.cwritable = []       # complex arrays a write may write into

    @property
    def complex_on(self):
        return "complex" in self.families

    # scope: complex names bound in a branch or a loop body are forgotten after it

    def scope(self):
        return super().scope(), dict(self.complexes), dict(self.carrays), \
            list(self.cwritable)

    def forget_new(self, before):
        inner, complexes, carrays, cwritable = before
        super().forget_new(inner)
        self.complexes = {k: v for k, v in self.complexes.items() if k in complexes}
        self.carrays = {k: v for k, v in self.carrays.items() if k in carrays}
        self.cwritable = [k for k in self.cwritable if k in cwritable]

    # bounds

    def zsquashed(self, z, limit):
        """`z`, or `z / k` (or `np.tanh(z / k)`) when its modulus may exceed `limit`."""
        if z.mag <= limit:
            return z
        k = float(math.ceil(z.mag / limit * 4.0) / 4.0)
        node = binop(z.node, ast.Div(), ast.Constant(k))
        if limit >= 1.6 and self.chance(0.3):
            k = float(math.ceil(z.mag))
            node = call("np.tanh", binop(z.node, ast.Div(), ast.Constant(k)))
            return _like(z, node, 1.56)
        return _like(z, node, z.mag / k)

    def as_complex(self, z):
        """`z` made complex where it may be real: `complex(e)`, `e + 0j`, `(1+0j) * e`,
        `e.astype(np.complex128)` for an array."""
        if z.cplx:
            return z
        form = self.rng.randrange(3)
        if isinstance(z, ZA):
            node = (binop(z.node, ast.Add(), ast.Constant(0j)) if form == 0 else
                    method(z.node, "astype", ref("np.complex128")) if form == 1 else
                    binop(lit(complex(1.0, 0.0)), ast.Mult(), z.node))
            return ZA(node, z.n, z.mag)
        node = (call("complex", z.node) if form == 0 else
                binop(z.node, ast.Add(), ast.Constant(0j)) if form == 1 else
                binop(lit(complex(1.0, 0.0)), ast.Mult(), z.node))
        return Z(node, z.mag)

    def rhp(self, d):
        """A complex value in the right half-plane, Re >= 1: `2.5 + z`, (a base of logs,
        roots and non-integer powers, a divisor) and the bound on its modulus."""
        r = self.pick([1.0, 1.5])
        z = self.zsquashed(self.zexpr(d), r)
        s = r + self.pick([1.0, 1.5])
        return Z(binop(num(s), ast.Add(), z.node), s + r, z.cplx)

    # scalar expressions

    def zexpr(self, d):
        """A complex scalar expression of depth at most d, its modulus bounded by LIMIT."""
        if d <= 0 or self.chance(0.25):
            return self.zatom()
        forms = [("arith", 6), ("mix", 4), ("div", 2), ("pow", 3), ("func", 5),
                 ("parts", 2), ("reduce", 2 if self.carrays or self.arrays else 0),
                 ("ifexp", 1)]
        form = self.rng.choices([f for f, _ in forms], [w for _, w in forms])[0]
        return self.zsquashed(getattr(self, "_z_" + form)(d - 1), LIMIT)

    def zatom(self):
        roll = self.rng.random()
        if roll < 0.4 and self.complexes:
            name = self.pick(sorted(self.complexes))
            return Z(ref(name), self.complexes[name])
        if roll < 0.55:
            value = self.pick(_LITERALS)
            return Z(lit(value), abs(value))
        if roll < 0.7:
            re, im = self.squashed(self.expr(1), 1.5), self.squashed(self.expr(1), 1.5)
            return Z(call("complex", re.node, im.node), re.mag + im.mag)
        if roll < 0.8 and self.carrays:
            name = self.pick(sorted(self.carrays))
            n, mag = self.carrays[name]
            return Z(ast.Subscript(ref(name), self.index(n), ast.Load()), mag)
        if roll < 0.88:
            v = self.squashed(self.expr(0), LIMIT)
            return Z(binop(ast.Constant(self.pick([1j, 0.5j])), ast.Mult(), v.node), v.mag)
        v = self.expr(0)
        return Z(v.node, v.mag, False)

    def _z_arith(self, d):
        a, b = self.zexpr(d), self.zexpr(d)
        op = self.pick([ast.Add(), ast.Sub(), ast.Mult()])
        mag = a.mag * b.mag if isinstance(op, ast.Mult) else a.mag + b.mag
        return Z(binop(a.node, op, b.node), mag, a.cplx or b.cplx)

    def _z_mix(self, d):
        """A complex and a real expression: `z * e`, `e - z`, `x + 1j * y`, `e / w`."""
        z, v = self.zexpr(d), self.squashed(self.expr(d), LIMIT)
        form = self.rng.randrange(4)
        if form == 0:
            return Z(binop(z.node, ast.Mult(), v.node), z.mag * v.mag, z.cplx)
        if form == 1:
            return Z(binop(v.node, ast.Sub(), z.node), z.mag + v.mag, z.cplx)
        if form == 2:
            w = self.squashed(self.expr(d), LIMIT)
            return Z(binop(v.node, ast.Add(), binop(ast.Constant(1j), ast.Mult(), w.node)),
                     v.mag + w.mag)
        w = self.rhp(d)
        return Z(binop(v.node, ast.Div(), w.node), v.mag, w.cplx)

    def _z_div(self, d):
        a, w = self.zexpr(d), self.rhp(d)
        return Z(binop(a.node, ast.Div(), w.node), a.mag, a.cplx or w.cplx)

    def _z_pow(self, d):
        """`z ** 2`, `w ** 0.5`, `w ** (0.5+0.25j)`, `w ** z`, `2.0 ** z`, `(-0.5) ** z`."""
        form = self.rng.randrange(6)
        if form == 0:
            z = self.as_complex(self.zsquashed(self.zexpr(d), 2.0))
            k = self.pick([2, 3, 2.0, -1])
            if k == -1:
                z = self.as_complex(self.rhp(d))
                return Z(binop(z.node, ast.Pow(), num(k)), 1.0)
            return Z(binop(z.node, ast.Pow(), num(k)), z.mag ** k)
        if form == 1:
            w = self.as_complex(self.rhp(d))
            p = self.pick([0.5, 1.5, -0.5, 2.5])
            return Z(binop(w.node, ast.Pow(), num(p)), max(w.mag ** p, 1.0))
        if form in (2, 3):
            w = self.rhp(d)
            if form == 2:
                e = self.pick(_EXPONENTS)
                enode, emag = lit(e), abs(e)
            else:
                ez = self.as_complex(self.zsquashed(self.zexpr(d), 1.0))
                enode, emag = ez.node, 1.0
            return Z(binop(w.node, ast.Pow(), enode),
                     max(w.mag, 1.0) ** emag * math.exp(emag * math.pi / 2))
        z = self.as_complex(self.zsquashed(self.zexpr(d), 1.0 if form == 4 else 0.5))
        base = self.pick([2.0, 0.5, "math.e", 1.5]) if form == 4 else self.pick([-0.5, -2.0])
        node = ref(base) if isinstance(base, str) else num(base)
        b = math.e if isinstance(base, str) else abs(base)
        bound = max(b, 1 / b) ** z.mag * (math.exp(math.pi * z.mag) if form == 5 else 1.0)
        return Z(binop(node, ast.Pow(), z.node), bound)

    def _z_func(self, d):
        """np.exp sin cos tanh square of a bounded value, log sqrt reciprocal of one in the
        right half-plane, conj of any."""
        fn = self.pick(["np.exp", "np.sin", "np.cos", "np.tanh", "np.log", "np.sqrt",
                        "np.conj", "conjugate", "np.square", "np.reciprocal"])
        if fn in ("np.log", "np.sqrt", "np.reciprocal"):
            w = self.rhp(d)
            mag = {"np.log": math.log(w.mag) + math.pi / 2, "np.sqrt": math.sqrt(w.mag),
                   "np.reciprocal": 1.0}[fn]
            return Z(call(fn, w.node), mag, w.cplx)
        if fn in ("np.conj", "conjugate"):   # a Python complex has no method `conj`
            z = self.zexpr(d)
            node = call("np.conj", z.node) if fn == "np.conj" else method(z.node, fn)
            return Z(node, z.mag, z.cplx)
        limit = {"np.exp": 1.5, "np.sin": 1.5, "np.cos": 1.5, "np.tanh": 1.0,
                 "np.square": 2.0}[fn]
        z = self.zsquashed(self.zexpr(d), limit)
        mag = {"np.exp": math.exp(z.mag), "np.sin": math.cosh(z.mag),
               "np.cos": math.cosh(z.mag), "np.tanh": 1.56, "np.square": z.mag ** 2}[fn]
        return Z(call(fn, z.node), mag, z.cplx)

    def _z_parts(self, d):
        """A complex value rebuilt from parts: `complex(z.real, e)`, `z.imag * 1j`,
        `z.real - 1j * z.imag`."""
        z = self.zexpr(d)
        form = self.rng.randrange(3)
        if form == 0:
            e = self.squashed(self.expr(d), 1.0)
            return Z(call("complex", attr(z.node, "real"), e.node), z.mag + 1.0)
        if form == 1:
            return Z(binop(attr(z.node, "imag"), ast.Mult(), ast.Constant(1j)), z.mag)
        return Z(binop(attr(z.node, "real"), ast.Sub(),
                       binop(ast.Constant(1j), ast.Mult(), attr(z.node, "imag"))), 2 * z.mag)

    def _z_reduce(self, d):
        """A complex scalar from a complex array: its sum, mean, an element, np.dot."""
        za = self.zarray(d)
        form = self.rng.randrange(5)
        if form == 0:
            return Z(call("np.sum", za.node), za.n * za.mag, za.cplx)
        if form == 1:
            return Z(call("np.mean", za.node), za.mag, za.cplx)
        if form == 2:
            return Z(method(za.node, "sum"), za.n * za.mag, za.cplx)
        if form == 3:
            return Z(ast.Subscript(za.node, self.index(za.n), ast.Load()), za.mag, za.cplx)
        real = self.real_array(za.n)
        if real is None:
            return Z(call("np.sum", za.node), za.n * za.mag, za.cplx)
        node, mag = real
        return Z(call("np.dot", za.node, node), za.n * za.mag * mag, za.cplx)

    def _z_ifexp(self, d):
        with self.lazily():
            a, b = self.as_complex(self.zexpr(d)), self.as_complex(self.zexpr(d))
            test = self.cond(1)
        return Z(ast.IfExp(test, a.node, b.node), max(a.mag, b.mag))

    # array expressions

    def lengths(self):
        """The lengths a complex array may have here."""
        return sorted({n for n, _, _ in self.arrays.values()} |
                      {n for n, _ in self.carrays.values()} |
                      {r for r, _, _, _ in self.matrices.values()})

    def real_array(self, n):
        """(node, bound) of a real array of length n in scope, or None."""
        names = [k for k, (m, _, _) in sorted(self.arrays.items()) if m == n]
        if not names:
            return None
        name = self.pick(names)
        return ref(name), self.mag(name)

    def zarray(self, d, n=None):
        """A complex array expression of length n (any length there is, for None)."""
        n = n if n is not None else self.pick(self.lengths())
        if d <= 0 or self.chance(0.25):
            return self.zarray_atom(n)
        forms = [("arith", 5), ("scale", 4), ("func", 4), ("scan", 2), ("where", 2),
                 ("matmul", 2 if any(r == n for r, _, _, _ in self.matrices.values())
                  else 0)]
        form = self.rng.choices([f for f, _ in forms], [w for _, w in forms])[0]
        za = getattr(self, "_za_" + form)(d - 1, n)
        return self.zsquashed(za, LIMIT)

    def zarray_atom(self, n):
        """A complex array name of length n, or a real one made complex: `a * 1j`,
        `np.exp(1j * a)`, `a + 1j * b`, `np.fft.rfft(a)` (of a longer `a`)."""
        names = [k for k, (m, _) in sorted(self.carrays.items()) if m == n]
        roll = self.rng.random()
        if names and roll < 0.5:
            name = self.pick(names)
            return ZA(ref(name), n, self.carrays[name][1])
        longer = [k for k, (m, _, _) in sorted(self.arrays.items()) if m // 2 + 1 == n]
        if longer and roll < 0.6:
            name = self.pick(longer)
            return ZA(call("np.fft.rfft", ref(name)), n, self.arrays[name][0] * self.mag(name))
        real = self.real_array(n)
        if real is None:
            return ZA(call("np.exp", binop(ast.Constant(1j), ast.Mult(),
                                           call("np.arange", ast.Constant(float(n))))), n, 1.0)
        node, mag = real
        form = self.rng.randrange(4)
        if form == 0:
            return ZA(binop(node, ast.Mult(), ast.Constant(self.pick([1j, 0.5j]))), n, mag)
        if form == 1:
            return ZA(call("np.exp", binop(ast.Constant(1j), ast.Mult(), node)), n, 1.0)
        if form == 2:
            other, omag = self.real_array(n)
            return ZA(binop(node, ast.Add(), binop(ast.Constant(1j), ast.Mult(), other)), n,
                      mag + omag)
        return ZA(node, n, mag, False)

    def _za_arith(self, d, n):
        a, b = self.zarray(d, n), self.zarray(d, n)
        op = self.pick([ast.Add(), ast.Sub(), ast.Mult()])
        mag = a.mag * b.mag if isinstance(op, ast.Mult) else a.mag + b.mag
        return ZA(binop(a.node, op, b.node), n, mag, a.cplx or b.cplx)

    def _za_scale(self, d, n):
        """An array and a scalar, either real or complex: `za * z`, `z - za`, `za / w`,
        `za ** 2`."""
        za = self.zarray(d, n)
        form = self.rng.randrange(4)
        if form == 3:
            za = self.zsquashed(za, 2.0)
            return ZA(binop(za.node, ast.Pow(), num(2)), n, za.mag ** 2, za.cplx)
        if form == 2:
            w = self.rhp(d)
            return ZA(binop(za.node, ast.Div(), w.node), n, za.mag, za.cplx or w.cplx)
        z = self.zexpr(d) if self.chance(0.6) else self.zatom()
        if form == 0:
            return ZA(binop(za.node, ast.Mult(), z.node), n, za.mag * z.mag, za.cplx or z.cplx)
        return ZA(binop(z.node, ast.Sub(), za.node), n, za.mag + z.mag, za.cplx or z.cplx)

    def _za_func(self, d, n):
        fn = self.pick(["np.exp", "np.sin", "np.cos", "np.tanh", "np.log", "np.sqrt",
                        "np.conj", "conj"])
        if fn in ("np.log", "np.sqrt"):
            za = self.zsquashed(self.zarray(d, n), 1.0)
            s = self.pick([2.0, 2.5])
            node = binop(num(s), ast.Add(), za.node)
            mag = math.log(s + 1.0) + math.pi / 2 if fn == "np.log" else math.sqrt(s + 1.0)
            return ZA(call(fn, node), n, mag, za.cplx)
        if fn in ("np.conj", "conj"):
            za = self.zarray(d, n)
            node = call("np.conj", za.node) if fn == "np.conj" else method(za.node, "conj")
            return ZA(node, n, za.mag, za.cplx)
        za = self.zsquashed(self.zarray(d, n), 1.0 if fn == "np.tanh" else 1.5)
        mag = {"np.exp": math.exp(za.mag), "np.sin": math.cosh(za.mag),
               "np.cos": math.cosh(za.mag), "np.tanh": 1.56}[fn]
        return ZA(call(fn, za.node), n, mag, za.cplx)

    def _za_scan(self, d, n):
        """np.cumsum, np.fft.fft, np.fft.ifft of an array of length n."""
        za = self.zarray(d, n)
        fn = self.pick(["np.cumsum", "np.fft.fft", "np.fft.ifft"])
        mag = za.mag if fn == "np.fft.ifft" else n * za.mag
        return ZA(call(fn, za.node), n, mag, za.cplx or fn != "np.cumsum")

    def _za_where(self, d, n):
        """`np.where(a > t, za, zb)` with a real condition (or a scalar test)."""
        a, b = self.as_complex(self.zarray(d, n)), self.as_complex(self.zarray(d, n))
        names = [k for k, (m, _, _) in sorted(self.arrays.items()) if m == n]
        if names:
            name = self.pick(names)
            test = ast.Compare(ref(name), [self.pick([ast.Gt(), ast.Lt()])],
                               [self.threshold(name)])
        else:
            test = self.cond(1)
        return ZA(call("np.where", test, a.node, b.node), n, max(a.mag, b.mag))

    def _za_matmul(self, d, n):
        """`m @ zv` (a real matrix, a complex vector) or `(m * z) @ v`, of length n = the
        matrix's rows."""
        name = self.pick([k for k, (r, _, _, _) in sorted(self.matrices.items()) if r == n])
        _, cols, lo, hi = self.matrices[name]
        mm = max(abs(lo), abs(hi))
        if cols in self.lengths() and self.chance(0.6):
            zv = self.zarray(d, cols)
            return ZA(binop(ref(name), ast.MatMult(), zv.node), n, cols * mm * zv.mag, zv.cplx)
        z = self.as_complex(self.zsquashed(self.zatom(), 1.0))
        real = self.real_array(cols)
        vec, vmag = real if real is not None else (call("np.ones", ast.Constant(cols)), 1.0)
        return ZA(binop(binop(ref(name), ast.Mult(), z.node), ast.MatMult(), vec), n,
                  cols * mm * vmag)

    # real values read from complex ones (leaves of real expressions)

    def complex_atom(self):
        """A real value of a complex one: a part, a modulus, an angle, a reduction of a
        complex array, the energy of a transform; None when the family is off."""
        if not self.complex_on or self.reading_complex > 1:
            return None
        self.reading_complex += 1
        try:
            return self.squashed(self._complex_atom(), LIMIT)
        finally:
            self.reading_complex -= 1

    def _complex_atom(self):
        if self.carrays and self.chance(0.4):
            return self.complex_reduction(self.zarray(1))
        if (self.arrays or self.matrices) and self.chance(0.15):
            return self.transform_reduction()
        z = self.zexpr(1)
        form = self.rng.randrange(7)
        if form == 0:
            return V(attr(z.node, self.pick(["real", "imag"])), -z.mag, z.mag)
        if form == 1:
            return V(call(self.pick(["np.real", "np.imag"]), z.node), -z.mag, z.mag)
        if form == 2:
            return V(call(self.pick(["abs", "np.abs"]), z.node), 0.0, z.mag)
        if form == 3:
            return V(call("np.angle", self.rhp(0).node), -math.pi / 2, math.pi / 2)
        if form == 4:
            return V(call("np.angle", z.node), -math.pi, math.pi)
        if form == 5:
            z = self.zsquashed(z, 2.0)
            return V(attr(binop(z.node, ast.Mult(), call("np.conj", z.node)), "real"), 0.0,
                     z.mag ** 2)
        z = self.zsquashed(z, 2.0)
        return V(binop(call("abs", z.node), ast.Pow(), num(2)), 0.0, z.mag ** 2)

    def complex_reduction(self, za):
        """`np.sum(np.abs(za) ** 2)`, `np.sum(za.real)`, `np.mean(za.imag)`,
        `np.abs(np.sum(za))`, `np.sum(np.fft.irfft(za) ** 2)`."""
        n, m = za.n, za.mag
        form = self.rng.randrange(6)
        if form == 0:
            return V(call("np.sum", binop(call("np.abs", za.node), ast.Pow(), num(2))), 0.0,
                     n * m * m)
        if form == 1:
            return V(call("np.sum", attr(za.node, self.pick(["real", "imag"]))), -n * m, n * m)
        if form == 2:
            return V(call("np.mean", call(self.pick(["np.real", "np.imag"]), za.node)), -m, m)
        if form == 3:
            return V(call("np.abs", call("np.sum", za.node)), 0.0, n * m)
        if form == 4 and n >= 2:
            size = 2 * (n - 1)
            return V(call("np.sum", binop(call("np.fft.irfft", za.node), ast.Pow(), num(2))),
                     0.0, size * 4 * m * m)
        return V(call("np.sum", call("np.abs", za.node)), 0.0, n * m)

    def transform_reduction(self):
        """The energy or a part of a transform cut or padded to `n` points, or along an
        axis of a matrix: `np.sum(np.abs(np.fft.fft(a, 7)) ** 2)`,
        `np.sum(np.fft.rfft(m, axis=0).imag)`, `np.sum(np.fft.irfft(q, n=4) ** 2)`."""
        names = sorted(self.arrays) + sorted(self.matrices)
        name = self.pick(names)
        if name in self.arrays:
            n, size, mag, keys = self.arrays[name][0], self.arrays[name][0], self.mag(name), []
        else:
            rows, cols, _, _ = self.matrices[name]
            axis = self.pick([0, 1, -1])
            n, size, mag = (rows if axis == 0 else cols), rows * cols, self.mag(name)
            keys = [ast.keyword("axis", num(axis))]
        fn = self.pick(["np.fft.fft", "np.fft.ifft", "np.fft.rfft", "np.fft.irfft"])
        points = self.pick([None, n + 2, max(n - 1, 2)])
        args = [ref(name)] + ([] if points is None else [ast.Constant(points)])
        if points is not None and self.chance(0.5):
            args, keys = args[:1], keys + [ast.keyword("n", ast.Constant(points))]
        node = ast.Call(ref(fn), args, keys)
        total = size * (points or n) * mag * 4
        if self.chance(0.5) or fn == "np.fft.irfft":
            return V(call("np.sum", binop(call("np.abs", node), ast.Pow(), num(2))), 0.0,
                     total * (points or n) * mag * 4)
        return V(call("np.sum", attr(node, self.pick(["real", "imag"]))), -total, total)

    # statements

    def complex_statements(self, d):
        """The statement forms with their weights (0 when the family is off)."""
        on = self.complex_on
        arrays = bool(self.lengths()) if on else False
        return [("znew", 8 if on else 0), ("zrebind", 3 if on and self.complexes else 0),
                ("zarray", 4 if arrays else 0), ("zwrite", 5 if on and self.cwritable else 0),
                ("zrecurrence", 1.5 if on and self.cwritable and d > 0 else 0)]

    def _s_znew(self, d):
        name = self.fresh("cz")
        z = self.as_complex(self.zexpr(self.rng.randrange(1, 4)))
        self.complexes[name] = max(z.mag, 1.0)
        return [ast.Assign([ast.Name(name, ast.Store())], z.node)]

    def _s_zrebind(self, d):
        """`zk = e`, `zk *= s`, `zk = 0.5 * (zk + e)`, within zk's bound."""
        name = self.pick(sorted(self.complexes))
        m = self.complexes[name]
        form = self.rng.randrange(3)
        if form == 1:
            s = self.zsquashed(self.zexpr(1), 1.0)
            return [ast.AugAssign(ast.Name(name, ast.Store()), ast.Mult(), s.node)]
        e = self.as_complex(self.zsquashed(self.zexpr(2), m))
        if form == 2:
            e = Z(binop(num(0.5), ast.Mult(), binop(ref(name), ast.Add(), e.node)), m)
        return [ast.Assign([ast.Name(name, ast.Store())], e.node)]

    def _s_zarray(self, d):
        """A new complex array: `wk = q.copy()`, `np.zeros_like(q)`, `a + 0j`, an
        expression; a write may write into it."""
        name = self.fresh("zw")
        za = self.as_complex(self.zarray(self.rng.randrange(0, 3)))
        node = za.node
        if isinstance(node, ast.Name):
            node = method(node, "copy") if self.chance(0.7) else call("np.zeros_like", node)
        self.carrays[name] = (za.n, max(za.mag, 1.0))
        self.cwritable.append(name)
        return [ast.Assign([ast.Name(name, ast.Store())], node)]

    def _s_zwrite(self, d):
        """`w[i] = e`, `w[i] *= s`, `w[i] = 0.5 * (w[i] + e)`, `w *= s`, `w[1:] = w[:-1] * s`,
        `w = np.where(a > t, w, w * s)`, each within w's bound."""
        name = self.pick(self.cwritable)
        n, m = self.carrays[name]
        item = ast.Subscript(ref(name), self.index(n), ast.Store())
        form = self.rng.randrange(6)
        if form == 0:
            e = self.as_complex(self.zsquashed(self.zexpr(2), m))
            return [ast.Assign([item], e.node)]
        s = self.zsquashed(self.zexpr(1), 1.0)
        if form == 1:
            return [self.scaled(item, s)]
        if form == 2:
            e = self.zsquashed(self.zexpr(2), m)
            read = ast.Subscript(ref(name), item.slice, ast.Load())
            return [ast.Assign([item], binop(num(0.5), ast.Mult(),
                                             binop(read, ast.Add(), e.node)))]
        if form == 3:
            return [self.scaled(ast.Name(name, ast.Store()), s)]
        if form == 4 and n >= 2:
            head = ast.Subscript(ref(name), ast.Slice(ast.Constant(1), None, None), ast.Store())
            tail = ast.Subscript(ref(name), ast.Slice(None, num(-1), None), ast.Load())
            return [ast.Assign([head], binop(tail, ast.Mult(), s.node))]
        za = ZA(ref(name), n, m)
        where = self._where_of(za, ZA(binop(ref(name), ast.Mult(), s.node), n, m))
        return [ast.Assign([ast.Name(name, ast.Store())], where)]

    def scaled(self, target, s):
        """`target *= s`, or `target = target * s` with "complex-aug" avoided."""
        if "complex-aug" not in self.avoid:
            return ast.AugAssign(target, ast.Mult(), s.node)
        read = copy.deepcopy(target)
        read.ctx = ast.Load()
        return ast.Assign([target], binop(read, ast.Mult(), s.node))

    def _where_of(self, a, b):
        names = [k for k, (m, _, _) in sorted(self.arrays.items()) if m == a.n]
        if not names:
            return ast.IfExp(self.cond(1), a.node, b.node)
        name = self.pick(names)
        test = ast.Compare(ref(name), [self.pick([ast.Gt(), ast.Lt()])], [self.threshold(name)])
        return call("np.where", test, a.node, b.node)

    def _s_zrecurrence(self, d):
        """`for i in range(1, n): w[i] = w[i - 1] * s + w[i] * 0.5` (|s| <= 0.5): each
        element reads the one written before it."""
        name = self.pick(self.cwritable)
        n, m = self.carrays[name]
        if n < 2:
            return self._s_znew(d)
        i = self.fresh("i")
        s = self.zsquashed(self.zexpr(1), 0.5)
        prev = ast.Subscript(ref(name), binop(ref(i), ast.Sub(), ast.Constant(1)), ast.Load())
        here = ast.Subscript(ref(name), ref(i), ast.Load())
        value = binop(binop(prev, ast.Mult(), s.node), ast.Add(),
                      binop(here, ast.Mult(), num(0.5)))
        body = [ast.Assign([ast.Subscript(ref(name), ref(i), ast.Store())], value)]
        it = call("range", ast.Constant(1), ast.Constant(n))
        return [ast.For(ast.Name(i, ast.Store()), it, body, [])]

    # f's arguments and its result

    def complex_arguments(self, spec):
        """Add the complex arguments to `spec`: c, and most of the time q (of a's length
        when there is an array a); q may be written into."""
        spec.append(("c", (), "complex"))
        self.complexes["c"] = 2.13      # |re + i im| for re, im in [-1.5, 1.5]
        if "a" in self.arrays or self.chance(0.6):
            n = self.arrays["a"][0] if "a" in self.arrays else self.rng.randrange(2, 7)
            spec.append(("q", (n,), "complex"))
            self.carrays["q"] = (n, 2.13)
            if self.chance(0.3):
                self.cwritable.append("q")

    def complex_result(self, node):
        """The returned value `node` plus real values of the last complex names and
        arrays bound: `+ np.sum(np.abs(w) ** 2) + zk.real`."""
        for name in list(self.carrays)[-2:]:
            n, m = self.carrays[name]
            node = binop(node, ast.Add(), self.complex_reduction(ZA(ref(name), n, m)).node)
        for name in list(self.complexes)[-2:]:
            part = self.pick([attr(ref(name), "real"), attr(ref(name), "imag"),
                              call("abs", ref(name))])
            node = binop(node, ast.Add(), part)
        return node


def _like(z, node, mag):
    """A `Z` (or `ZA`) like `z`, for node with bound mag."""
    if isinstance(z, ZA):
        return ZA(node, z.n, mag, z.cplx)
    return Z(node, mag, z.cplx)

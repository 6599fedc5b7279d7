"""GuardIntegerPowers: an integer to an integer power is computed as Python would, or refused."""
import gast

from srcad.passes import ir


class GuardIntegerPowers:
    """Transformation: `a ** b` and `np.power(a, b)` of integers become `rt.int_pow(a, b)`,
    unless `b` is a literal that is not negative, or both are literals (Python computes
    those when it compiles the module, as it does the user's).

    Python makes `3 ** -1` the float 0.333..., and NumPy refuses a negative integer power
    of its integers; compiled code keeps integers integers and silently gives 0. So
    `rt.int_pow` raises ValueError, compiled or not, where the exponent is negative, and
    says to write `float(a) ** b`.

    >>> from codegen import to_source
    >>> from srcad.context import Context
    >>> from srcad.kinds import INT
    >>> fn = gast.parse('''def f(n, k):
    ...     a = n ** k
    ...     b = n ** 2
    ...     return a + b''').body[0]
    >>> ctx = Context(kinds={"n": INT, "k": INT, "a": INT, "b": INT})
    >>> print(to_source(GuardIntegerPowers(ctx).run(fn)).strip())
    def f(n, k):
        a = rt.int_pow(n, k)
        b = n ** 2
        return a + b
    """

    needs = ("kinds",)
    provides = ()

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, fnode):
        for node in ir.walk(fnode):
            if isinstance(node, gast.Assign):
                base, exponent = _power(node.value)
                if base is not None and self.integer(base) and self.integer(exponent) \
                        and not _nonnegative_literal(exponent) \
                        and not (isinstance(base, gast.Constant)
                                 and isinstance(exponent, gast.Constant)):
                    node.value = ir.call("rt.int_pow", base, exponent)
        return fnode

    def integer(self, atom):
        if isinstance(atom, gast.Constant):
            return type(atom.value) in (int, bool)
        kind = self.ctx.kinds.get(atom.id) if isinstance(atom, gast.Name) else None
        return getattr(kind, "dtype", None) in ("i", "b")


def _power(value):
    """(base, exponent) of `a ** b` or `np.power(a, b)`, else (None, None)."""
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Pow):
        return value.left, value.right
    if isinstance(value, gast.Call) and ir.dotted_text(value.func) == "np.power" and \
            len(value.args) == 2 and not value.keywords:
        return value.args[0], value.args[1]
    return None, None


def _nonnegative_literal(atom):
    return isinstance(atom, gast.Constant) and type(atom.value) in (int, bool) and \
        atom.value >= 0

"""Result kinds of rules: given the kinds (and constant atoms) bound to a rule's parameters.

Each function takes `k` (parameter -> Kind, or None when omitted) and `c` (parameter ->
the call's atom, to read constants such as `axis=0` or a shape tuple).
"""
import gast

from srcad.kinds import BOOL, FLOAT, INT, Kind, TupleKind, promote


def _kinds(k):
    return [v for v in k.values() if isinstance(v, Kind)]


def _ndim(k):
    return max((v.ndim for v in _kinds(k)), default=0)


def elementwise(k, c):
    """Float result with the broadcast rank of the arguments (sin, exp, where...)."""
    return Kind("f", _ndim(k))


def same(k, c):
    """The arguments' promoted dtype and broadcast rank (abs, maximum, clip, sign...)."""
    diff = {p: v for p, v in k.items() if p not in ("a_min", "a_max") or v is not None}
    return Kind(promote(*_kinds(diff)), _ndim(k))


def arith(k, c):
    """`+ - * // % **`: NumPy's promotion, bools counting as ints."""
    dtype = promote(*_kinds(k))
    return Kind("i" if dtype == "b" else dtype, _ndim(k))


def true_div(k, c):
    return Kind("f", _ndim(k))


def boolean(k, c):
    return Kind("b", _ndim(k))


def integer(k, c):
    return Kind("i", _ndim(k))


def scalar_float(k, c):
    return FLOAT


def scalar_int(k, c):
    return INT


def scalar_bool(k, c):
    return BOOL


def _const(node):
    if isinstance(node, gast.Constant):
        return node.value
    return "?"


def _axis_count(c):
    axis = c.get("axis")
    if axis is None or _const(axis) is None:
        return None
    if isinstance(axis, gast.Tuple):
        return len(axis.elts)
    return 1


def reduction(dtype=None):
    """sum/prod/max/min/mean: rank drops by the axes reduced (all when `axis` is None)."""

    def kind(k, c):
        x = k["x"]
        n = _axis_count(c)
        d = dtype or ("i" if x.dtype == "b" else x.dtype)
        return Kind(d, 0 if n is None else max(x.ndim - n, 0))

    kind.__name__ = "reduction"
    return kind


def shape_rank(node, kind):
    """Rank of an array made with shape `node` (an int, or a tuple of them)."""
    if isinstance(node, gast.Tuple):
        return len(node.elts)
    if isinstance(kind, TupleKind):
        return len(kind.items)
    return 1


def _dtype_arg(c, default):
    node = c.get("dtype")
    if node is None:
        return default
    text = gast.dump(node)
    if "int" in text:
        return "i"
    if "bool" in text:
        return "b"
    return "f"


def construct(k, c):
    """np.zeros/ones/empty(shape, dtype=...)."""
    return Kind(_dtype_arg(c, "f"), shape_rank(c["shape"], k["shape"]))


def full(k, c):
    return Kind(_dtype_arg(c, promote(k["fill_value"])), shape_rank(c["shape"], k["shape"]))


def like(k, c):
    return Kind(_dtype_arg(c, k["a"].dtype), k["a"].ndim)


def arange(k, c):
    return Kind(_dtype_arg(c, promote(*_kinds(k))), 1)


def matrix(k, c):
    """np.eye / np.identity: a 2-d array."""
    return Kind(_dtype_arg(c, "f"), 2)


def like_b(k, c):
    """np.linalg.solve(a, b): the kind of b."""
    return k["b"].with_(dtype="f")


def square(k, c):
    """A 2-d float result (inv, cholesky, outer)."""
    return Kind("f", 2)


def diag(k, c):
    """np.diag: a vector gives a matrix, a matrix gives its diagonal."""
    return Kind(k["v"].dtype, 2 if k["v"].ndim == 1 else 1)


def linspace(k, c):
    return Kind("f", 1)


def first(k, c):
    """The kind of the first argument (copy)."""
    return k["x"]


def argument(param):
    """The kind of argument `param` (`np.roll`'s result is like `a`)."""
    def kind(k, c):
        return k[param]
    kind.__name__ = f"argument_{param}"
    return kind


def matmul(k, c):
    x, y = k["x"], k["y"]
    dtype = promote(x, y)
    if x.ndim == 0 or y.ndim == 0:
        return Kind(dtype, max(x.ndim, y.ndim))
    return Kind(dtype, max(x.ndim + y.ndim - 2, 0))


def reshape(k, c):
    return Kind(k["x"].dtype, shape_rank(c["shape"], k["shape"]))


def ravel(k, c):
    return Kind(k["x"].dtype, 1)


def join_arrays(extra):
    """concatenate (extra=0) and stack (extra=1) of a tuple of arrays."""

    def kind(k, c):
        seq = k["arrays"]
        if isinstance(seq, Kind):  # np.array(x) of an array: a copy
            return seq
        items = seq.items if isinstance(seq, TupleKind) else ()
        if not items:
            return Kind("f", 1 + extra)
        return Kind(promote(*items), items[0].ndim + extra)

    kind.__name__ = "join_arrays"
    return kind


def to_float(k, c):
    return Kind("f", _ndim(k))


def to_int(k, c):
    return Kind("i", _ndim(k))

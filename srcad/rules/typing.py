"""Result kinds of rules: given the kinds (and constant atoms) bound to a rule's parameters.

Each function takes `k` (parameter -> Kind, or None when omitted) and `c` (parameter ->
the call's atom, to read constants such as `axis=0` or a shape tuple).
"""
import gast

from srcad.errors import UnsupportedError
from srcad.kinds import BOOL, FLOAT, INT, NONE, Kind, TupleKind, dtype_letter, promote


def _kinds(k):
    return [v for v in k.values() if isinstance(v, Kind)]


def _ndim(k):
    return max((v.ndim for v in _kinds(k)), default=0)


def _inexact(k):
    """'c' when an argument is complex, else 'f': the dtype of a float function's result."""
    return "c" if any(v.dtype == "c" for v in _kinds(k)) else "f"


def elementwise(k, c):
    """Float (complex, of a complex argument) result with the broadcast rank of the
    arguments (sin, exp, where...)."""
    return Kind(_inexact(k), _ndim(k))


def same(k, c):
    """The arguments' promoted dtype and broadcast rank (abs, maximum, clip, sign...)."""
    diff = {p: v for p, v in k.items() if p not in ("a_min", "a_max") or v is not None}
    return Kind(promote(*_kinds(diff)), _ndim(k))


def arith(k, c):
    """`+ - * // % **`: NumPy's promotion, bools counting as ints."""
    dtype = promote(*_kinds(k))
    return Kind("i" if dtype == "b" else dtype, _ndim(k))


def power(k, c):
    """`**`: as `arith`, but a power of two numbers written in the code is what Python
    makes of it when it compiles the module: `(-3) ** 0.5` is complex, `3 ** -2` a
    float."""
    x, y = c.get("x"), c.get("y")
    if isinstance(x, gast.Constant) and isinstance(y, gast.Constant) and all(
            isinstance(v.value, (int, float, complex)) and not isinstance(v.value, bool)
            for v in (x, y)):
        try:
            value = x.value ** y.value
        except (ArithmeticError, ValueError):
            value = None
        if isinstance(value, complex):
            return Kind("c", 0)
        if isinstance(value, float):
            return Kind("f", 0)
    return arith(k, c)


def sum_or_product(k, c):
    """`+` and `*`: as `arith`, but bools with an array among them stay bools, as NumPy
    keeps them (or and and of masks); Python's `True + True` is an int."""
    kinds = _kinds(k)
    if _ndim(k) and all(v.dtype == "b" for v in kinds):
        return Kind("b", _ndim(k))
    return arith(k, c)


def logical(k, c):
    """`& | ^ ~`: NumPy's logical and, or, xor and not of bools, bitwise on integers.
    `~` of a Python bool is an int (`~True == -2`), so that one is refused."""
    kinds = _kinds(k)
    if any(v.dtype == "f" for v in kinds):
        raise refuse("& | ^ ~", "take bools or integers, not floats",
                     "compare first: `(x > a) & (x < b)`")
    if len(kinds) == 1 and kinds[0] == BOOL:
        raise refuse("~", "of a bool is an int in Python (`~True == -2`)", "use `not`")
    return Kind(promote(*kinds), _ndim(k))


def true_div(k, c):
    return Kind(_inexact(k), _ndim(k))


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


def reduction(dtype=None, of="x"):
    """sum/prod/max/min/mean: rank drops by the axes reduced (all when `axis` is None);
    `of` names the parameter reduced."""

    def kind(k, c):
        x = k[of]
        n = _axis_count(c)
        d = dtype or ("i" if x.dtype == "b" else x.dtype)
        if d == "f" and x.dtype == "c":  # the mean of complex numbers
            d = "c"
        return Kind(d, 0 if n is None else max(x.ndim - n, 0))

    kind.__name__ = "reduction"
    kind.reduces = of  # the parameter whose axes `axis` names (srcad.passes.static_shapes)
    return kind


def shape_rank(node, kind):
    """Rank of an array made with shape `node` (an int, or a tuple of them)."""
    if isinstance(node, gast.Tuple):
        return len(node.elts)
    if isinstance(kind, TupleKind):
        return len(kind.items)
    return 1


def _dtype_arg(c, default, k=None):
    """The dtype letter a `dtype` argument names (a type, or an array's `x.dtype`)."""
    node = c.get("dtype")
    if node is None:
        return default
    letter = dtype_letter((k or {}).get("dtype"))
    if letter is not None:
        return letter
    text = gast.dump(node)
    if "complex" in text:
        return "c"
    if "int" in text:
        return "i"
    if "bool" in text:
        return "b"
    return "f"


def astype(k, c):
    """x.astype(dtype): x's rank, the dtype named."""
    return Kind(_dtype_arg(c, k["x"].dtype, k), k["x"].ndim)


def outer_left(k, c):
    """rt.outer_left(a, b): `a`'s dtype, the ranks of both (`a` itself if either is a
    number)."""
    a, b = k["a"], k["b"]
    return Kind(a.dtype, a.ndim + b.ndim if a.ndim and b.ndim else a.ndim)


def statistic(function, of):
    """np.cov, np.corrcoef (`function`) of one array (`of`): a float of a 1-d array, a
    matrix of a 2-d one."""

    def kind(k, c):
        x = _array(k, of, function)
        if x.ndim > 2:
            raise refuse(function, "takes an array of one or two dimensions")
        given = c.get("y")
        if given is not None and not (isinstance(given, gast.Constant) and given.value is None):
            raise refuse(function, "of two arrays (`y`) is not supported",
                         f"stack them first: `{function}(np.vstack((x, y)))`")
        return Kind("f", 0 if x.ndim == 1 else 2)

    kind.__name__ = "statistic"
    return kind


def histogram(part):
    """np.histogram's counts (ints, or floats given weights) or edges (floats), 1-d."""

    def kind(k, c):
        _array(k, "a", "np.histogram")
        density = c.get("density")
        if density is not None and not (isinstance(density, gast.Constant) and
                                        density.value in (None, False)):
            raise refuse("np.histogram", "with `density=True` is not supported",
                         "divide the counts by their sum and the bin widths")
        weighed = k.get("weights") not in (None, NONE)
        return Kind("f" if part == "edges" or weighed else "i", 1)

    kind.__name__ = "histogram"
    return kind


def keep_dims(k, c):
    """A reduction with `keepdims=True`: its dtype, the rank of the array reduced."""
    return Kind(k["r"].dtype, k["x"].ndim)


def construct(k, c):
    """np.zeros/ones/empty(shape, dtype=...)."""
    return Kind(_dtype_arg(c, "f", k), shape_rank(c["shape"], k["shape"]))


def full(k, c):
    return Kind(_dtype_arg(c, promote(k["fill_value"]), k), shape_rank(c["shape"], k["shape"]))


def like(k, c):
    return Kind(_dtype_arg(c, k["a"].dtype, k), k["a"].ndim)


def arange(k, c):
    return Kind(_dtype_arg(c, promote(*_kinds(k)), k), 1)


def matrix(k, c):
    """np.eye / np.identity: a 2-d array."""
    return Kind(_dtype_arg(c, "f", k), 2)


def like_b(k, c):
    """np.linalg.solve(a, b): the kind of b, complex where either is."""
    return k["b"].with_(dtype="c" if "c" in (k["a"].dtype, k["b"].dtype) else "f")


def square(k, c):
    """A 2-d float result (inv, cholesky, outer)."""
    return Kind("f", 2)


def inverse(k, c):
    """np.linalg.inv: a 2-d array, complex for a complex `a`."""
    return Kind("c" if k["a"].dtype == "c" else "f", 2)


def diag(k, c):
    """np.diag: a vector gives a matrix, a matrix gives its diagonal."""
    return Kind(k["v"].dtype, 2 if k["v"].ndim == 1 else 1)


def linspace(k, c):
    if _dtype_arg(c, "f", k) != "f":
        raise refuse("np.linspace", "takes a float `dtype` only",
                     "round the floats yourself: `np.linspace(...).astype(np.int64)`")
    return Kind("f", 1)


def first(k, c):
    """The kind of the first argument (copy)."""
    return k["x"]


def copied(k, c):
    """The kind of the array `x` that np.copy (`x.copy()`) copies, and its shape."""
    return k["x"]


copied.shape_of = "x"  # srcad.passes.static_shapes


def argument(param):
    """The kind of argument `param` (`np.roll`'s result is like `a`)."""
    def kind(k, c):
        return k[param]
    kind.__name__ = f"argument_{param}"
    return kind


def matmul(k, c):
    """`x @ y`: of more than two dimensions, a stack of matrix products, broadcast over
    the leading axes (a 1-d operand loses its axis)."""
    x, y = k["x"], k["y"]
    dtype = promote(x, y)
    if x.ndim == 0 or y.ndim == 0:
        return Kind(dtype, max(x.ndim, y.ndim))
    if x.ndim > 2 or y.ndim > 2:
        return Kind(dtype, max(x.ndim, y.ndim) - (1 if min(x.ndim, y.ndim) == 1 else 0))
    return Kind(dtype, max(x.ndim + y.ndim - 2, 0))


def dot(k, c):
    """np.dot(x, y) of numbers and arrays of one or two dimensions."""
    if k["x"].ndim > 2 or k["y"].ndim > 2:
        raise refuse("np.dot", "of an array of more than two dimensions is not supported",
                     "for stacks of matrix products write `x @ y` (np.matmul), which "
                     "srcad differentiates")
    return matmul(k, c)


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
        items = [_nested(i) for i in seq.items] if isinstance(seq, TupleKind) else ()
        if not items:
            return Kind("f", 1 + extra)
        return Kind(promote(*items), items[0].ndim + extra)

    kind.__name__ = "join_arrays"
    return kind


def _nested(kind):
    """A tuple or list written out inside another (`[[0, 2], [1, 1]]`) as the array NumPy
    makes of it: its items' dtype, one dimension more."""
    if isinstance(kind, TupleKind) and kind.items:
        items = [_nested(i) for i in kind.items]
        return Kind(promote(*items), items[0].ndim + 1)
    return kind


def stacked(function, least):
    """np.hstack (`least` 1) and np.vstack (2) of a tuple or list of arrays written
    out: of the arrays' rank, at least `least`."""

    def kind(k, c):
        seq = k["arrays"]
        items = seq.items if isinstance(seq, TupleKind) else ()
        if not isinstance(c.get("arrays"), (gast.Tuple, gast.List)) or not items or \
                not all(isinstance(i, Kind) and i.ndim for i in items):
            raise refuse(function, "takes arrays written out as a tuple here",
                         f"write `{function}((a, b))`")
        return Kind(promote(*items), max(least, max(i.ndim for i in items)))

    kind.__name__ = "stacked"
    return kind


def shape(k, c):
    """np.shape(x): a tuple of ints, one per axis."""
    return TupleKind((INT,) * k["x"].ndim)


def to_float(k, c):
    return Kind("f", _ndim(k))


def real_part(k, c):
    """np.abs, np.real, np.imag, np.angle of a complex argument: floats of its rank."""
    return Kind("f", _ndim(k))


def to_complex(k, c):
    """complex(a, b), np.complex128(x): a complex number."""
    return Kind("c", _ndim(k))


def rounded(k, c):
    """round(x): an int; round(x, ndigits): a number of x's type."""
    ndigits = c.get("ndigits")
    if ndigits is None or isinstance(ndigits, gast.Constant) and ndigits.value is None:
        return to_int(k, c)
    return Kind(k["x"].dtype, 0)


def to_int(k, c):
    return Kind("i", _ndim(k))


# kinds of shape and axis functions, which refuse the arguments their runtime helpers do
# not take (raised while the call is typed)


def refuse(function, what, hint=None):
    """The error for a call of `function` (as users spell it) with arguments it takes in
    NumPy but not in srcad: `what` says which. Raised by a kind function, it names no
    file and line: InferKinds, which calls kind functions, would add them."""
    return UnsupportedError(f"`{function}` {what}", hint=hint)


def _array(k, param, function, ndim=1):
    """The kind of array argument `param`, refused when its rank is under `ndim`."""
    kind = k[param]
    if not isinstance(kind, Kind) or kind.ndim < ndim:
        arrays = "an array" if ndim == 1 else f"an array of {ndim} or more dimensions"
        raise refuse(function, f"takes {arrays} here, not a {kind}")
    return kind


def _axes(k, c, function, param="axis"):
    """How many axes argument `param` names: None for None (or omitted), 1 for an int,
    the length of a tuple of ints."""
    kind = k.get(param)
    if c.get(param) is None or kind == NONE:
        return None
    if isinstance(kind, TupleKind) and all(isinstance(i, Kind) and i.dtype == "i"
                                           for i in kind.items):
        return len(kind.items)
    if isinstance(kind, Kind) and kind.dtype == "i" and kind.ndim == 0:
        return 1
    raise refuse(function, f"takes `{param}` as an int or a tuple of ints, not a {kind}")


def _one_axis(k, c, function):
    """How many axes `axis` names (None for None), refusing a tuple of them."""
    n = _axes(k, c, function)
    if n is not None and isinstance(k["axis"], TupleKind):
        raise refuse(function, "takes one `axis` here (an int or None), not a tuple")
    return n


def flipped(function, ndim=1):
    """np.flip, np.flipud, np.fliplr (`function`): like the array, of `ndim` or more
    dimensions."""

    def kind(k, c):
        if "axis" in k:
            _axes(k, c, function)
        return _array(k, "m", function, ndim)

    kind.__name__ = "flipped"
    kind.shape_of = "m"
    return kind


def diff(k, c):
    """np.diff(a, n, axis): like `a`, with an int `n`."""
    a = _array(k, "a", "np.diff")
    n = k.get("n")
    if n is not None and not (isinstance(n, Kind) and n.dtype != "f" and n.ndim == 0):
        raise refuse("np.diff", f"takes an int `n`, not a {n}")
    _one_axis(k, c, "np.diff")
    return a


def tile(k, c):
    """np.tile(A, reps): `reps` an int or a tuple of ints, which set the rank."""
    count = _axes(k, c, "np.tile", "reps")
    if not count:
        raise refuse("np.tile", "takes one or more repetitions in `reps`",
                     "give an int or a nonempty tuple: np.tile(a, 2), np.tile(a, (2, 1))")
    return Kind(k["A"].dtype, max(k["A"].ndim, count))


def repeat(k, c):
    """np.repeat(a, repeats, axis): a vector without an axis, else like `a`."""
    a, repeats = k["a"], k["repeats"]
    if not (isinstance(repeats, Kind) and repeats.dtype != "f" and repeats.ndim <= 1):
        raise refuse("np.repeat", f"takes `repeats` as an int or a vector of ints, not a "
                     f"{repeats}")
    if _one_axis(k, c, "np.repeat") is None:
        return Kind(a.dtype, 1)
    return _array(k, "a", "np.repeat")


def sort(k, c):
    """np.sort(a, axis): like `a` along an axis, a vector of all the elements for None."""
    a = _array(k, "a", "np.sort")
    if "axis" in c and _one_axis(k, c, "np.sort") is None:
        return Kind(a.dtype, 1)
    return a


def scan(function):
    """np.cumsum, np.cumprod (`function`)(x, axis): like `x` along an axis, a vector for
    None; bools count as ints."""

    def kind(k, c):
        x = _array(k, "x", function)
        dtype = "i" if x.dtype == "b" else x.dtype
        return Kind(dtype, x.ndim if _one_axis(k, c, function) is not None else 1)

    return kind


def average(k, c):
    """np.average(a, axis, weights): a float, of `a`'s rank less one along an axis; the
    weights are shaped like `a`, or (along an axis) one per element along it."""
    a = _array(k, "a", "np.average")
    n, weights = _one_axis(k, c, "np.average"), k.get("weights")
    if weights is not None and weights != NONE:
        ok = isinstance(weights, Kind) and (weights.ndim == a.ndim or (
            weights.ndim == 1 and n is not None))
        if not ok:
            raise refuse("np.average", f"takes weights shaped like the values ({a}), or a "
                         f"vector of them with an axis, not a {weights}")
    return Kind("f", 0 if n is None else a.ndim - 1)


def at_least(ndim):
    """np.atleast_1d/2d/3d(a) of one array or number."""

    def kind(k, c):
        return Kind(k["a"].dtype, max(k["a"].ndim, ndim))

    kind.__name__ = f"at_least_{ndim}"
    return kind


def expand_dims(k, c):
    """np.expand_dims(a, axis): one more dimension per axis named."""
    n = _axes(k, c, "np.expand_dims")
    if n is None:
        raise refuse("np.expand_dims", "needs an `axis`")
    return Kind(k["a"].dtype, k["a"].ndim + n)


def squeeze(k, c):
    """np.squeeze(a, axis): one dimension fewer per axis named; the rank of the result
    must be known before the call runs, so `axis` must be given."""
    a = _array(k, "a", "np.squeeze")
    n = _axes(k, c, "np.squeeze")
    if n is None:
        raise refuse("np.squeeze", "without `axis` removes the axes of length 1, which srcad "
                     "cannot know before the function runs", "name the axes to remove: "
                     "np.squeeze(x, axis=0), x.squeeze(0)")
    if n >= a.ndim and n:
        raise refuse("np.squeeze", f"of every axis of a {a} makes a 0-d array",
                     "index the element instead: x[0]")
    return Kind(a.dtype, a.ndim - n)


def triangle(function):
    """np.triu, np.tril (`function`) of `m`: like `m`; a vector gives the square whose rows
    are the vector."""

    def kind(k, c):
        m = _array(k, "m", function)
        return Kind(m.dtype, max(m.ndim, 2))

    kind.__name__ = "triangle"
    kind.shape_of = "m"  # of a result of m's rank (srcad.passes.static_shapes)
    return kind


def asarray(k, c):
    """np.asarray(x, dtype): an array like `x` (of that dtype)."""
    x = _array(k, "x", "np.asarray")
    return Kind(_dtype_arg(c, x.dtype), x.ndim)


# kinds of the rules in `numpy_more`: orders, indices, contractions, quantiles, NaN-skipping
# reductions


def _int_array(k, param, function):
    kind = k.get(param)
    if not (isinstance(kind, Kind) and kind.dtype in "bi"):
        raise refuse(function, f"takes `{param}` as an int or an array of ints, not a {kind}")
    return kind


def view_index(k, c):
    """rt.view_index(i, ...) (ViewWrites): an int, or an array of ints, like `i`; the
    positions a 1-d mask selects."""
    i = k.get("i")
    if isinstance(i, Kind) and i.dtype == "b" and i.ndim == 1:
        return Kind("i", 1)  # the places a mask along one axis selects
    if not (isinstance(i, Kind) and i.dtype == "i"):
        raise UnsupportedError(
            "a write through a view takes ints, arrays of ints or a mask along one axis "
            f"as indices, not a {i}",
            hint="write into the array the view was taken from, or take the view with "
                 "`.copy()` and write it back")
    return Kind("i", i.ndim)


def _given(c, param):
    """Whether the call gives `param` a value other than None."""
    node = c.get(param)
    return node is not None and not (isinstance(node, gast.Constant) and node.value is None)


def _option(c, param, function, choices):
    """Refuse a string option `param` that is not one of `choices` (as written)."""
    node = c.get(param)
    if node is not None and not (isinstance(node, gast.Constant) and node.value in choices):
        raise refuse(function, f"takes `{param}` as one of {', '.join(map(repr, choices))} "
                     "written in the call")


def argsort(k, c):
    """np.argsort(a, axis): ints like `a`, a vector for axis None."""
    return sort(k, c).with_(dtype="i")


def searchsorted(k, c):
    """np.searchsorted(a, v, side): an int (vector) per value of `v`, `a` a sorted vector."""
    _array(k, "a", "np.searchsorted")
    if k["a"].ndim != 1:
        raise refuse("np.searchsorted", f"takes a sorted 1-d array `a`, not a {k['a']}")
    _option(c, "side", "np.searchsorted", ("left", "right"))
    return Kind("i", k["v"].ndim)


def digitize(k, c):
    """np.digitize(x, bins, right): the bin of each value of `x`."""
    bins = _array(k, "bins", "np.digitize")
    if bins.ndim != 1:
        raise refuse("np.digitize", f"takes 1-d `bins`, not a {bins}")
    return Kind("i", k["x"].ndim)


def nonzero(k, c):
    """np.nonzero(a): a tuple of int vectors, one per axis of `a`."""
    a = _array(k, "a", "np.nonzero")
    return TupleKind((Kind("i", 1),) * a.ndim)


def bincount(k, c):
    """np.bincount(x, weights, minlength): counts (ints), or sums of the weights (floats)."""
    x = _int_array(k, "x", "np.bincount")
    if x.ndim != 1:
        raise refuse("np.bincount", f"takes a 1-d array of ints, not a {x}")
    weights = k.get("weights")
    if weights is not None and weights != NONE and weights.ndim != 1:
        raise refuse("np.bincount", f"takes 1-d `weights`, one per value, not a {weights}")
    return Kind("f" if weights not in (None, NONE) else "i", 1)


def take(k, c):
    """np.take(a, indices, axis): of the flattened `a`, shaped like `indices`; along an
    axis, `a`'s rank less one plus the rank of `indices`."""
    a = _array(k, "a", "np.take")
    indices = _int_array(k, "indices", "np.take")
    if indices.dtype == "b":
        raise refuse("np.take", "takes `indices` as ints, not bools",
                     "select with the mask instead: `a[mask]`")
    if _one_axis(k, c, "np.take") is None:
        return Kind(a.dtype, indices.ndim)
    return Kind(a.dtype, a.ndim - 1 + indices.ndim)


def swapaxes(k, c):
    """np.swapaxes(a, axis1, axis2): like `a`."""
    for p in ("axis1", "axis2"):
        if not (isinstance(k[p], Kind) and k[p].dtype == "i" and k[p].ndim == 0):
            raise refuse("np.swapaxes", f"takes `{p}` as an int, not a {k[p]}")
    return _array(k, "a", "np.swapaxes")


def moveaxis(k, c):
    """np.moveaxis(a, source, destination): like `a`; as many sources as destinations."""
    a = _array(k, "a", "np.moveaxis")
    n = _axes(k, c, "np.moveaxis", "source")
    if n is None or n != _axes(k, c, "np.moveaxis", "destination"):
        raise refuse("np.moveaxis", "takes as many `destination` axes as `source` axes (ints "
                     "or tuples of ints)")
    return a


def broadcast_to(k, c):
    """np.broadcast_to(array, shape): of the rank of `shape`."""
    array = k["array"]
    rank = shape_rank(c["shape"], k["shape"])
    if not isinstance(array, Kind) or array.ndim > rank:
        raise refuse("np.broadcast_to", f"takes an array or number of at most {rank} "
                     f"dimensions here, not a {array}")
    return Kind(array.dtype, rank)


def _operands(k, function, hint, most=None):
    """The kinds of `a` and `b`, arrays (of at most `most` dimensions)."""
    a, b = k["a"], k["b"]
    for p, kind in (("a", a), ("b", b)):
        if not isinstance(kind, Kind) or kind.ndim == 0 or (most and kind.ndim > most):
            what = "an array" + (f" of one to {most} dimensions" if most else "")
            raise refuse(function, f"takes `{p}` as {what} here, not a {kind}", hint)
    return a, b


def inner(k, c):
    """np.inner(a, b): the sum over the last axes, of the ranks of both less one each."""
    a, b = _operands(k, "np.inner", "multiply by a number with `*`")
    return Kind("f", a.ndim + b.ndim - 2)


def kron(k, c):
    """np.kron(a, b) of arrays of one or two dimensions."""
    a, b = _operands(k, "np.kron", "multiply by a number with `*`", most=2)
    return Kind("f", max(a.ndim, b.ndim))


def cross(k, c):
    """np.cross(a, b): vectors of 3, or rows of 3 (broadcast)."""
    a, b = _operands(k, "np.cross", "give vectors of 3 elements or matrices of rows of 3",
                     most=2)
    return Kind("f", max(a.ndim, b.ndim))


def tensordot(k, c):
    """np.tensordot(a, b, axes): `axes` an int, or a pair of ints or of tuples of ints,
    written in the call."""
    a, b = _operands(k, "np.tensordot", "multiply by a number with `*`")
    node, axes = c.get("axes"), k.get("axes")
    hint = "write the axes in the call: axes=1, axes=(1, 0), axes=((1, 2), (0, 1))"

    def ints(kind):
        return isinstance(kind, TupleKind) and all(i == INT for i in kind.items)

    if node is None:
        n = 2
    elif isinstance(node, gast.Constant) and isinstance(node.value, int):
        n = node.value
    elif isinstance(axes, TupleKind) and len(axes.items) == 2 and all(
            i == INT for i in axes.items):
        n = 1
    elif isinstance(axes, TupleKind) and len(axes.items) == 2 and all(
            ints(i) for i in axes.items) and len(axes.items[0].items) == len(axes.items[1].items):
        n = len(axes.items[0].items)
    else:
        raise refuse("np.tensordot", "takes `axes` as an int written in the call, or a pair "
                     "of ints or of tuples of ints", hint)
    if n > min(a.ndim, b.ndim) or n < 0:
        raise refuse("np.tensordot", f"cannot contract {n} axes of a {a} and a {b}")
    return Kind("f", a.ndim + b.ndim - 2 * n)


def nan_to_num(k, c):
    """np.nan_to_num(x, copy, nan, posinf, neginf): like `x`, a new array."""
    node = c.get("copy")
    if node is not None and not (isinstance(node, gast.Constant) and node.value is True):
        raise refuse("np.nan_to_num", "with `copy=False` (replacing in place) is not "
                     "supported", "assign the result: `x = np.nan_to_num(x)`")
    x = k["x"]
    return Kind(x.dtype, x.ndim)


def interp(k, c):
    """np.interp(x, xp, fp, left, right): floats shaped like `x`; `xp` and `fp` 1-d."""
    for p in ("xp", "fp"):
        if _array(k, p, "np.interp").ndim != 1:
            raise refuse("np.interp", f"takes 1-d `{p}`, not a {k[p]}")
    return Kind("f", k["x"].ndim)


def convolve(k, c):
    """np.convolve(a, v, mode): a vector."""
    a, v = _array(k, "a", "np.convolve"), _array(k, "v", "np.convolve")
    if a.ndim != 1 or v.ndim != 1:
        raise refuse("np.convolve", f"takes two 1-d arrays, not a {a} and a {v}")
    _option(c, "mode", "np.convolve", ("full", "same", "valid"))
    return Kind("f", 1)


def quantile(function, scale=1.0):
    """np.median, np.percentile, np.quantile (`function`): floats of q's rank (a number
    or a vector) plus that of `a` less one along an axis."""

    def kind(k, c):
        a = _array(k, "a", function)
        q = k.get("q")
        if q is not None and not (isinstance(q, Kind) and q.ndim <= 1):
            raise refuse(function, f"takes `q` as a number or a 1-d array, not a {q}")
        n = _one_axis(k, c, function)
        return Kind("f", (q.ndim if q is not None else 0) + (0 if n is None else a.ndim - 1))

    kind.__name__ = "quantile"
    return kind


def nan_reduction(function, dtype=None):
    """np.nansum, np.nanmean, np.nanmax, np.nanmin (`function`) over every element or
    along one axis."""

    def kind(k, c):
        a = _array(k, "a", function)
        n = _one_axis(k, c, function)
        return Kind(dtype or ("i" if a.dtype == "b" else a.dtype),
                    0 if n is None else a.ndim - 1)

    kind.__name__ = "nan_reduction"
    return kind


def real_of(k, c):
    """np.real(x), np.imag(x): floats for a complex x, else x's own type."""
    x = k["x"]
    return x.with_(dtype="f") if x.dtype == "c" else x.with_()


def fourier(k, c):
    """np.fft.fft, ifft, rfft: complex numbers of the input's rank."""
    return Kind("c", k["a"].ndim)


def real_fourier(k, c):
    """np.fft.irfft: floats of the input's rank."""
    return Kind("f", k["a"].ndim)


def frequencies(k, c):
    """np.fft.fftfreq, rfftfreq: a 1-d float array."""
    return Kind("f", 1)

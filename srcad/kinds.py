"""Kinds: what srcad knows of a value's type — dtype class and rank, or a tuple of kinds."""
from dataclasses import dataclass

import numpy as np

_ORDER = "bifc"  # bool < int < float < complex


@dataclass(frozen=True)
class Kind:
    """A scalar (`ndim == 0`) or array of bools ('b'), integers ('i'), floats ('f') or
    complex numbers ('c').

    `listed`: how many of the leading dimensions are Python lists (a list argument, held
    as an array, and what indexing it gives); `+`, `*` and comparisons mean something
    else on lists, so InferKinds refuses them there."""

    dtype: str
    ndim: int = 0
    listed: int = 0

    @property
    def is_float(self):
        """Whether values of this kind carry derivatives: floats, and complex numbers."""
        return self.dtype in "fc"

    @property
    def is_complex(self):
        return self.dtype == "c"

    @property
    def is_array(self):
        return self.ndim > 0

    def with_(self, dtype=None, ndim=None):
        """The array kind with this dtype and rank (not a list)."""
        return Kind(dtype or self.dtype, self.ndim if ndim is None else ndim)

    def __str__(self):
        base = {"b": "bool", "i": "int", "f": "float", "c": "complex"}[self.dtype]
        if self.listed:
            inner = f"{base}s" if self.listed == self.ndim else \
                f"{self.ndim - self.listed}-d {base} arrays"
            return "list of " * self.listed + inner
        return base if not self.ndim else f"{self.ndim}-d {base} array"


@dataclass(frozen=True)
class TupleKind:
    """A tuple (shapes, several return values)."""

    items: tuple

    is_float = False
    is_complex = False
    is_array = False
    ndim = 0

    def __str__(self):
        return "tuple(" + ", ".join(map(str, self.items)) + ")"


def dtype_of(kind):
    """The kind of `x.dtype` for an array `x` of kind `kind`: the dtype it carries."""
    return OtherKind(f"{_DTYPE_NAMES[kind.dtype]} dtype")


def dtype_named(obj):
    """The kind of a NumPy type used as a dtype (`np.int32`), or None for other objects."""
    if not (isinstance(obj, type) and issubclass(obj, np.generic)):
        return None
    letter = "b" if issubclass(obj, np.bool_) else "i" if issubclass(obj, np.integer) else \
        "f" if issubclass(obj, np.floating) else \
        "c" if issubclass(obj, np.complexfloating) else None
    return OtherKind(f"{_DTYPE_NAMES[letter]} dtype") if letter else OtherKind("dtype")


def dtype_letter(kind):
    """'b', 'i' or 'f' for the kind of an array's dtype (`dtype_of`), else None."""
    what = getattr(kind, "what", "")
    return next((c for c, name in _DTYPE_NAMES.items() if what == f"{name} dtype"), None)


_DTYPE_NAMES = {"b": "bool", "i": "int64", "f": "float64", "c": "complex128"}
# the NumPy type that holds values of each dtype class, as generated code spells it
NUMPY_TYPES = {"b": "np.bool_", "i": "np.int64", "f": "np.float64", "c": "np.complex128"}


@dataclass(frozen=True)
class OtherKind:
    """Values srcad passes through without looking: None, slices, ranges."""

    what: str

    is_float = False
    is_complex = False
    is_array = False
    ndim = 0

    def __str__(self):
        return self.what


NONE = OtherKind("None")
FLOAT, INT, BOOL, COMPLEX = Kind("f"), Kind("i"), Kind("b"), Kind("c")


def join(a, b):
    """The kind of a variable that holds an `a` at one place and a `b` at another."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    if isinstance(a, Kind) and isinstance(b, Kind) and a.ndim == b.ndim:  # a list if either
        return Kind(max(a.dtype, b.dtype, key=_ORDER.index), a.ndim, max(a.listed, b.listed))
    if isinstance(a, TupleKind) and isinstance(b, TupleKind) and len(a.items) == len(b.items):
        return TupleKind(tuple(join(x, y) for x, y in zip(a.items, b.items)))
    raise TypeError(f"{a} and {b}")


def promote(*kinds):
    """The dtype class of arithmetic on `kinds` (NumPy's rule, at the level of b/i/f)."""
    dtypes = [k.dtype for k in kinds if isinstance(k, Kind)]
    return max(dtypes, key=_ORDER.index) if dtypes else "f"


def of_value(value):
    """The kind of a runtime argument, or None if srcad cannot take it."""
    if isinstance(value, (bool, np.bool_)):
        return BOOL
    if isinstance(value, (int, np.integer)):
        return INT
    if isinstance(value, (float, np.floating)):
        return FLOAT
    if isinstance(value, (complex, np.complexfloating)):
        return COMPLEX
    if isinstance(value, np.ndarray):
        code = {"b": "b", "i": "i", "u": "i", "f": "f", "c": "c"}.get(value.dtype.kind)
        return Kind(code, value.ndim, getattr(value, "depth", 0)) if code else None
    if isinstance(value, tuple):
        items = tuple(of_value(v) for v in value)
        return None if None in items else TupleKind(items)
    return None


def dummy(kind, view=False):
    """Source text of a placeholder value of `kind` (a variable not yet assigned).

    `view=True` gives an array of any layout (`[::-1]`), for variables that may hold
    views, so that Numba unifies the placeholder with them.
    """
    if isinstance(kind, TupleKind):
        inner = ", ".join(dummy(k) for k in kind.items)
        return f"({inner},)"
    if not isinstance(kind, Kind):
        return "None"
    if kind.ndim == 0:
        return {"b": "False", "i": "0", "f": "0.0", "c": "0j"}[kind.dtype]
    dtype = NUMPY_TYPES[kind.dtype]
    shape = "(" + "0, " * kind.ndim + ")"
    text = f"np.empty({shape.replace(', )', ',)')}, dtype={dtype})"
    return text + "[::-1]" if view else text


class ListArgument(np.ndarray):
    """A list argument (of numbers, or of lists or arrays of them) as the array srcad
    computes with; `depth` is how many of its leading dimensions were lists."""

    depth = 0

    @classmethod
    def of(cls, value):
        """`value`, a list, as a ListArgument; None when it is not a rectangular list of
        numbers (or of equal-shaped arrays)."""
        try:
            arr = np.asarray(value)
        except ValueError:  # ragged
            return None
        if arr.dtype.kind not in "biuf":
            return None
        arr = arr.astype(np.float64 if arr.dtype.kind == "f" else
                         np.int64 if arr.dtype.kind in "iu" else np.bool_).view(cls)
        depth, item = 0, value
        while isinstance(item, (list, tuple)) and depth < arr.ndim:
            depth += 1
            item = item[0] if len(item) else None
        arr.depth = max(depth, 1)
        return arr

    def like(self, grad):
        """`grad` (an array of this argument's shape) in the argument's form: lists as
        deep as the argument's, floats or arrays inside."""
        return _listed(np.asarray(grad, dtype=np.float64).reshape(self.shape), self.depth)

    def __array_wrap__(self, obj, context=None, return_scalar=False):
        """What NumPy computes from it is a plain array (or scalar)."""
        obj = np.asarray(obj).view(np.ndarray)
        return obj[()] if return_scalar else obj


def _listed(arr, depth):
    if depth == 0:
        return arr if arr.ndim else float(arr)
    return [_listed(row, depth - 1) for row in arr]

"""Kinds: what srcad knows of a value's type — dtype class and rank, or a tuple of kinds."""
from dataclasses import dataclass

import numpy as np

_ORDER = "bif"  # bool < int < float


@dataclass(frozen=True)
class Kind:
    """A scalar (`ndim == 0`) or array of bools ('b'), integers ('i') or floats ('f')."""

    dtype: str
    ndim: int = 0

    @property
    def is_float(self):
        return self.dtype == "f"

    @property
    def is_array(self):
        return self.ndim > 0

    def with_(self, dtype=None, ndim=None):
        return Kind(dtype or self.dtype, self.ndim if ndim is None else ndim)

    def __str__(self):
        base = {"b": "bool", "i": "int", "f": "float"}[self.dtype]
        return base if not self.ndim else f"{self.ndim}-d {base} array"


@dataclass(frozen=True)
class TupleKind:
    """A tuple (shapes, several return values)."""

    items: tuple

    is_float = False
    is_array = False
    ndim = 0

    def __str__(self):
        return "tuple(" + ", ".join(map(str, self.items)) + ")"


@dataclass(frozen=True)
class OtherKind:
    """Values srcad passes through without looking: None, slices, ranges."""

    what: str

    is_float = False
    is_array = False
    ndim = 0

    def __str__(self):
        return self.what


NONE = OtherKind("None")
FLOAT, INT, BOOL = Kind("f"), Kind("i"), Kind("b")


def join(a, b):
    """The kind of a variable that holds an `a` at one place and a `b` at another."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    if isinstance(a, Kind) and isinstance(b, Kind) and a.ndim == b.ndim:
        return Kind(max(a.dtype, b.dtype, key=_ORDER.index), a.ndim)
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
    if isinstance(value, np.ndarray):
        code = {"b": "b", "i": "i", "u": "i", "f": "f"}.get(value.dtype.kind)
        return Kind(code, value.ndim) if code else None
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
        return {"b": "False", "i": "0", "f": "0.0"}[kind.dtype]
    dtype = {"b": "np.bool_", "i": "np.int64", "f": "np.float64"}[kind.dtype]
    shape = "(" + "0, " * kind.ndim + ")"
    text = f"np.empty({shape.replace(', )', ',)')}, dtype={dtype})"
    return text + "[::-1]" if view else text

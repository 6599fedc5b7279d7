"""Derivative rules, one module per namespace; importing this package registers them all."""
from srcad.rules import (  # noqa: F401
    builtins,
    complex_numbers,
    einsum,
    linalg,
    math,
    numpy,
    numpy_arrangements,
    numpy_more,
    numpy_reductions,
    numpy_shapes,
    numpy_splits,
    operators,
    registry,
    runtime,
)

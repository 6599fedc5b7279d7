"""Derivative rules, one module per namespace; importing this package registers them all."""
from srcad.rules import (  # noqa: F401
    builtins,
    linalg,
    math,
    numpy,
    numpy_more,
    numpy_reductions,
    numpy_shapes,
    operators,
    registry,
    runtime,
)

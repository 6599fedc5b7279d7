"""Derivative rules, one module per namespace; importing this package registers them all."""
from srcad.rules import builtins, linalg, math, numpy, operators, registry, runtime  # noqa: F401

"""Rules for Python builtins: abs, min, max, float, int, len, round."""
import builtins

import numpy as np  # noqa: F401  (names used in templates)

from srcad import runtime as rt  # noqa: F401  (names used in templates)
from srcad.rules.registry import adjoint, nondiff
from srcad.rules.typing import same, scalar_int, to_float, to_int

d = None  # templates say d[x] for "the adjoint of x"; they are never run


@adjoint(builtins.abs, kind=same)
def abs(ans, x):
    d[x] += d[ans] * np.sign(x)


@adjoint(builtins.max, kind=same)
def max(ans, x, y):
    d[x] += rt.select(x >= y, d[ans], 0.0)
    d[y] += rt.select(x >= y, 0.0, d[ans])


@adjoint(builtins.min, kind=same)
def min(ans, x, y):
    d[x] += rt.select(x <= y, d[ans], 0.0)
    d[y] += rt.select(x <= y, 0.0, d[ans])


@adjoint(builtins.float, kind=to_float)
def float(ans, x):
    d[x] += d[ans]


nondiff(builtins.int, builtins.round, kind=to_int)
nondiff(builtins.len, kind=scalar_int)

# srcad's own runtime helpers that passes insert
nondiff("rt.range_len", kind=scalar_int, params=("ans", "start", "stop", "step"))

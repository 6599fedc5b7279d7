"""Helpers that generated code calls as `rt.<name>`: plain NumPy when run by Python,
compiled (through `numba.extending.overload`) when the sweeps run under Numba.

Each module holds one family of helpers; this package gives all of them as `rt.<name>`.
"""
# ruff: noqa: F401  (every name here is imported to be `rt.<name>`)
from srcad.runtime.arrays import (
    diag_adjoint,
    flatten,
    reshape,
    roll,
    scatter_add,
    stop_gradient,
    strong,
    take_written,
)
from srcad.runtime.elementwise import (
    arange_dstart,
    clip,
    clip_high,
    clip_low,
    log_or_zero,
    pow_dx,
    select,
    unbroadcast,
    within,
)
from srcad.runtime.failures import fail
from srcad.runtime.masks import add_masked, masked, set_masked
from srcad.runtime.products import (
    cholesky_adjoint,
    cholesky_tangent,
    det_adjoint,
    inv_adjoint,
    logabsdet,
    logabsdet_adjoint,
    matmul_dx,
    matmul_dy,
    slogdet_sign,
    solve_da,
    solve_db,
    trace_adjoint,
)
from srcad.runtime.python_math import (
    acos,
    asin,
    ceil,
    cos,
    cosh,
    exp,
    expm1,
    floor,
    int_pow,
    log,
    log1p,
    log_base,
    pow,
    sin,
    sinh,
    sqrt,
    tan,
    to_int,
    trunc,
)
from srcad.runtime.reductions import (
    amax,
    amin,
    count,
    expand,
    mean,
    prod,
    prod_adjoint,
    prod_adjoint_add,
    select_adjoint,
    std,
    var,
)
from srcad.runtime.tangents import (
    arange_tstart,
    dot,
    prod_tangent,
    prod_tangent_dx,
    select_tangent,
)
from srcad.runtime.tapes import (
    range_len,
    reserve,
    unpruned,
)


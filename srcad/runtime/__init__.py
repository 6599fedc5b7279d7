"""Helpers that generated code calls as `rt.<name>`: plain NumPy when run by Python,
compiled (through `numba.extending.overload`) when the sweeps run under Numba.

Each module holds one family of helpers; this package gives all of them as `rt.<name>`.
"""
# ruff: noqa: F401  (every name here is imported to be `rt.<name>`)
from srcad.runtime.arrays import (
    astype,
    diag_adjoint,
    flatten,
    reshape,
    roll,
    scatter_add,
    stop_gradient,
    strong,
    take_written,
)
from srcad.runtime.averages import (
    average,
    average_da,
    average_dw,
    average_tw,
)
from srcad.runtime.axes import (
    diff,
    diff_adjoint,
    flip,
    repeat,
    repeat_adjoint,
    sort,
    sort_adjoint,
    sort_tangent,
)
from srcad.runtime.contractions import (
    inner,
    inner_da,
    inner_db,
    kron,
    kron_da,
    kron_db,
    tensordot,
    tensordot_da,
    tensordot_db,
)
from srcad.runtime.elementwise import (
    arange_dstart,
    clip,
    clip_high,
    clip_low,
    fmax_first,
    fmin_first,
    log_or_zero,
    pow_dx,
    select,
    unbroadcast,
    within,
)
from srcad.runtime.failures import fail, show
from srcad.runtime.indexing import (
    argsort,
    bincount_adjoint,
    broadcast_adjoint,
    broadcast_to,
    interp,
    interp_dfp,
    interp_dx,
    interp_tfp,
    nan_to_num,
    take,
    take_adjoint,
)
from srcad.runtime.masks import add_masked, masked, set_masked
from srcad.runtime.order import (
    median,
    nancount,
    nanmax,
    nanmean,
    nanmin,
    nansum,
    percentile,
    quantile,
    quantile_adjoint,
    quantile_dq,
    quantile_tangent,
    quantile_tq,
)
from srcad.runtime.products import (
    cholesky_adjoint,
    cholesky_tangent,
    det_adjoint,
    inv_adjoint,
    logabsdet,
    logabsdet_adjoint,
    matmul,
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
    digamma,
    exp,
    expm1,
    floor,
    gamma,
    int_pow,
    lgamma,
    log,
    log1p,
    log2,
    log10,
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
    ptp,
    select_adjoint,
    std,
    var,
)
from srcad.runtime.scans import (
    cumprod,
    cumprod_adjoint,
    cumprod_tangent,
    cumsum,
    cumsum_adjoint,
)
from srcad.runtime.shapes import (
    array,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    expand_dims,
    keep_dims,
    outer_left,
    reshape_as,
    squeeze,
    tile,
    tile_adjoint,
)
from srcad.runtime.signals import (
    convolve_da,
    convolve_dv,
    sinc_dx,
)
from srcad.runtime.statistics import (
    corrcoef,
    corrcoef_adjoint,
    corrcoef_tangent,
    cov,
    cov_adjoint,
    cov_tangent,
    histogram_counts,
    histogram_edges,
    histogram_edges_adjoint,
    histogram_edges_tangent,
    histogram_weights_adjoint,
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


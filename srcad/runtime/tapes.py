"""The sweeps' bookkeeping: trip counts, pruned branches, growing tape buffers."""

import numpy as np
from numba.extending import register_jitable


@register_jitable(cache=True)
def unpruned(flag):
    """`flag` itself, in a form Numba cannot read as a constant: a forward-sweep branch
    that appends a callee's tape to a list stays compiled, so the list gets its type."""
    return flag


@register_jitable(cache=True)
def range_len(start, stop, step):
    """Number of iterations of `range(start, stop, step)`."""
    if step > 0:
        return max(0, (stop - start + step - 1) // step)
    return max(0, (start - stop - step - 1) // (-step))


@register_jitable(cache=True)
def reserve(buf, needed):
    """`buf`, or a larger copy of it, with room for `needed` entries."""
    if needed <= buf.shape[0]:
        return buf
    new = np.empty(max(needed, 2 * buf.shape[0]), dtype=buf.dtype)
    new[:buf.shape[0]] = buf
    return new

"""The sweeps' bookkeeping: trip counts, pruned branches, growing tape buffers."""
import os

import numpy as np
from numba.extending import register_jitable


def available_bytes():
    """Bytes of physical memory available now (Linux and macOS), else 2^62."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 2 ** 62


# A tape buffer that would take more than this is refused before it is filled, with a
# MemoryError that says TAPE_OVER (srcad.api then checkpoints the loops): with Linux's
# overcommit, filling it would end in the kernel's OOM killer, not in a MemoryError.
# Compiled sweeps read the value of the process that compiled them.
TAPE_CEILING = int(0.8 * available_bytes())
TAPE_OVER = "srcad: the tape would not fit in memory"


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
    if needed * buf.itemsize > TAPE_CEILING:
        raise MemoryError(TAPE_OVER)
    new = np.empty(max(needed, 2 * buf.shape[0]), dtype=buf.dtype)
    new[:buf.shape[0]] = buf
    return new

"""Checkpointed loops (`tape_limit`): the binomial schedule and the snapshots it keeps.

A loop of `n` iterations reversed with `s` snapshots of its carried state, after
Griewank's *revolve*: to reverse iterations `[lo, hi)` with the state at `lo` in hand,
keep that state, advance to a split point `m`, reverse `[m, hi)` with one snapshot fewer,
then restore the state at `lo` and reverse `[lo, m)`. With `t` the least number of
forward runs per iteration such that `binomial(s + t, s) >= n`, the right part is at
most `binomial(s - 1 + t, s - 1)` iterations long, and no iteration runs forward more
than `t` times before its reverse iteration (plus the one taped run).

The schedule is made one action at a time (`revolve_next`), from a stack of at most
`s + 2` tasks, so a loop of 10^8 iterations needs no list of actions.

A `while` loop's trip count is known only at its end: as it runs, it keeps the state
every `stride` iterations in a room of a fixed number of snapshots, and when the room is
full, drops every other snapshot and doubles the stride (`thin`). Its reverse sweep then
reverses the stretches between those snapshots, last first, each a `for` loop of known
length with the schedule above: with a room of `r` snapshots, `n` iterations make
stretches of at most `2n / r`.
"""
import numpy as np
from numba.extending import register_jitable

from srcad.runtime.overloads import _jit_version

# actions
ADVANCE = 1  # run iterations [k0, k1) without a tape
TAKESHOT = 2  # keep the state at iteration k0 (push it on the snapshots)
RESTORE = 3  # the state at iteration k0 back from the newest snapshot (kept)
POP = 4  # drop the newest snapshot
YOUTURN = 5  # iteration k0 forward with its tape, then its adjoint
DONE = 6

# tasks on the schedule's stack (kind, lo, hi, snapshots)
_REVERSE = 1  # reverse [lo, hi), the state at lo in hand, not yet kept
_HELD = 2  # the same, with the state at lo kept as the newest snapshot
_RESTORE_HELD = 3  # restore the state at lo from the newest snapshot, then _HELD
_YOUTURN = 4


@register_jitable(cache=True)
def _binomial(n, k):
    """binomial(n, k), saturated at 2^62 (the counts compared with it are smaller)."""
    k = min(k, n - k)  # the same count, in fewer steps
    out = 1
    for j in range(1, k + 1):
        out = out * (n - k + j) // j
        if out > 2 ** 62 // (n + 1):
            return 2 ** 62
    return out


@register_jitable(cache=True)
def _split(n, s):
    """The length of the right part when `n > 1` iterations are reversed with `s >= 1`
    snapshots (one of them keeping the start)."""
    t = forward_runs(n, s)
    right = _binomial(s - 1 + t, s - 1)
    return min(right, n - 1)


@register_jitable(cache=True)
def revolve_start(trip, snapshots):
    """The schedule of a loop of `trip` iterations reversed with `snapshots` (at least 1)
    snapshots: an int64 array that `revolve_next` reads and updates."""
    s = max(1, snapshots)
    sched = np.zeros(1 + 4 * (s + 3), dtype=np.int64)
    if trip > 0:
        sched[0] = 1
        sched[1] = _REVERSE
        sched[2] = 0
        sched[3] = trip
        sched[4] = s
    return sched


@register_jitable(cache=True)
def revolve_next(sched):
    """The next action of the schedule, as (action, k0, k1)."""
    depth = sched[0]
    if depth == 0:
        return DONE, 0, 0
    at = 1 + 4 * (depth - 1)
    kind, lo, hi, s = sched[at], sched[at + 1], sched[at + 2], sched[at + 3]
    n = hi - lo
    if kind == _YOUTURN or kind == _REVERSE and n == 1:
        sched[0] = depth - 1
        return YOUTURN, lo, lo + 1
    if kind == _REVERSE:
        sched[at] = _HELD
        return TAKESHOT, lo, lo
    if kind == _RESTORE_HELD:
        sched[at] = _HELD
        return RESTORE, lo, lo
    # _HELD
    if n == 1:
        sched[at] = _YOUTURN
        return POP, lo, lo
    m = hi - _split(n, s)
    sched[at] = _RESTORE_HELD
    sched[at + 2] = m
    nxt = at + 4
    sched[nxt] = _REVERSE
    sched[nxt + 1] = m
    sched[nxt + 2] = hi
    sched[nxt + 3] = s - 1
    sched[0] = depth + 1
    return ADVANCE, lo, m


@register_jitable(cache=True)
def forward_runs(n, s):
    """The most times the schedule runs an iteration forward untaped when `n` of them are
    reversed with `s` snapshots: the least `t` with `binomial(s + t, s) >= n`, found by
    doubling `t` and then halving the interval (with one snapshot, `t` is `n - 1`: a
    search one `t` at a time would take as many steps)."""
    if _binomial(s + 1, s) >= n:
        return 1
    lo, hi = 1, 2  # binomial(s + lo, s) < n
    while _binomial(s + hi, s) < n:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _binomial(s + mid, s) < n:
            lo = mid
        else:
            hi = mid
    return hi


@register_jitable(cache=True)
def checkpoint_plan(limit, state_bytes, iteration_bytes, trip):
    """(iterations per block, blocks, snapshots) for a loop of `trip` iterations whose
    carried state takes `state_bytes` bytes and whose iterations each tape about
    `iteration_bytes`, within `limit` bytes.

    The schedule reverses blocks of iterations, each taped as a whole: the tape of one
    block and the snapshots share the limit. Of the block lengths 1, 2, 4, ... that
    leave room for a snapshot, the one whose schedule runs an iteration forward the
    fewest times (`forward_runs`), the longest of those: fewer, longer steps for the
    schedule when the tape of an iteration is small, more snapshots when the state is
    small beside it. At least one iteration and one snapshot, whatever they take (when
    the tape of one iteration is over the limit already, the limit's worth of snapshots
    beside it)."""
    size, per_iteration = max(1, state_bytes), max(1, iteration_bytes)
    best, best_runs, block = 1, -1, 1
    while True:
        room = limit - block * per_iteration
        if room < size and block > 1:
            break
        if room < size:  # one iteration's tape alone is over the limit: snapshots get it
            room = limit
        blocks = (trip + block - 1) // block
        runs = forward_runs(blocks, max(1, min(blocks, room // size)))
        if best_runs < 0 or runs <= best_runs:
            best, best_runs = block, runs
        if block >= trip:
            break
        block *= 2
    block = min(best, max(1, trip))
    blocks = (trip + block - 1) // block
    room = limit - block * per_iteration
    if room < size:
        room = limit
    return block, blocks, max(1, min(blocks, room // size))


@register_jitable(cache=True)
def block_start(lo, k, block, trip, step):
    """The loop value where block `k` starts (the end of the loop past the last)."""
    return lo + min(k * block, trip) * step


def nbytes(value):
    """The bytes a snapshot of `value` (an array or a number) takes."""
    return int(np.asarray(value).nbytes)


@_jit_version(nbytes)
def _nbytes(value):
    from numba.core import types
    if isinstance(value, types.Array):
        return lambda value: value.size * value.itemsize
    return lambda value: 8


def snapshots(value):
    """A stack of snapshots of values like `value`; its slot 0 only types the stack."""
    return [kept(value)]


@_jit_version(snapshots)
def _snapshots(value):
    from numba.typed import List

    def impl(value):
        out = List()
        out.append(kept(value))
        return out
    return impl


def kept(value):
    """`value` as a snapshot keeps it: a copy of an array, a number itself."""
    return value.copy() if isinstance(value, np.ndarray) else value


@_jit_version(kept)
def _kept(value):
    from numba.core import types
    if isinstance(value, types.Array):
        return lambda value: value.copy()
    return lambda value: value


def keep(stack, k, value):
    """Snapshot `value` in slot `k` (from 1) of `stack`."""
    if k < len(stack):
        stack[k] = kept(value)
    else:
        stack.append(kept(value))


@_jit_version(keep)
def _keep(stack, k, value):
    def impl(stack, k, value):
        if k < len(stack):
            stack[k] = kept(value)
        else:
            stack.append(kept(value))
    return impl


def adjoint_like(d, like):
    """The cotangent `d` of a value like `like`: zeros of its shape where the caller
    passed 0.0 for an output it does not use."""
    if isinstance(like, np.ndarray) and not isinstance(d, np.ndarray):
        return np.full(like.shape, d, dtype=np.float64)
    return d


@_jit_version(adjoint_like)
def _adjoint_like(d, like):
    from numba.core import types
    if isinstance(like, types.Array) and not isinstance(d, types.Array):
        return lambda d, like: np.full(like.shape, d, dtype=np.float64)
    return lambda d, like: d


@register_jitable(cache=True)
def while_room(limit, state_bytes):
    """How many snapshots a `while` loop keeps as it runs, within `limit` bytes (at
    least 2)."""
    return max(2, limit // max(1, state_bytes))


def thin(stack, held):
    """Keep every other of the `held` snapshots in slots 1, 2, ... of `stack` (slots 1,
    3, 5, ... move to 1, 2, 3, ...): a `while` loop that has filled its room keeps the
    state every `2 * stride` iterations from then on."""
    for j in range(1, (held + 1) // 2 + 1):
        stack[j] = stack[2 * j - 1]


@_jit_version(thin)
def _thin(stack, held):
    def impl(stack, held):
        for j in range(1, (held + 1) // 2 + 1):
            stack[j] = stack[2 * j - 1]
    return impl


# How many stretches a parallel loop is cut into: enough for 32 threads to share out,
# and few, as each stretch's reverse sweep makes adjoints the size of the arrays the loop
# reads. (The number of threads Numba runs is not read: code that reads it cannot be
# cached.)
PARALLEL_CHUNKS = 32


@register_jitable(cache=True)
def parallel_chunks(trip):
    """How many stretches a parallel loop of `trip` iterations is cut into."""
    return min(trip, PARALLEL_CHUNKS)


@register_jitable(cache=True)
def chunk_start(lo, c, chunks, trip, step):
    """The loop value where stretch `c` of `chunks` starts (the loop's end past the last)."""
    return lo + (c * trip // chunks) * step


@register_jitable(cache=True)
def copy_rows(dst, src, start, stop, step):
    """`dst[r] = src[r]` for `r` in `range(start, stop, step)`: the rows a stretch of a
    parallel loop owns, from the copy it worked on."""
    for r in range(start, stop, step):
        dst[r] = src[r]

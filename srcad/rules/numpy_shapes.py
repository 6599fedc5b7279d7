"""Rules for NumPy's shapes: reshaping, reordering (flips, sorting), repeating, running
sums and products, joining, and constructors (whose values depend on no input but a fill
value or the ends of a range)."""
import numpy as np

from srcad import runtime as rt
from srcad.rules import typing as ty
from srcad.rules.registry import adjoint, nondiff, tangent, ufunc_method

d = None  # templates say d[x] for "the adjoint of x"; they are never run
t = None  # tangent templates say t[x] for "the tangent of x" (forward mode)

# reshaping and reordering


@adjoint(np.transpose, kind=ty.first, broadcast=False, methods=("transpose",), view=True,
         sums=False, linear=True, complex=True, domain={"x": (-2.0, 2.0), "axes": None})
def transpose(ans, x, axes=None):
    d[x] += np.transpose(d[ans], rt.inverse_axes(axes))


@adjoint(np.reshape, rt.reshape, kind=ty.reshape, broadcast=False, name="rt.reshape",
         methods=("reshape",), view=True, sums=False, linear=True, complex=True)
def reshape(ans, x, shape):
    d[x] += rt.reshape(d[ans], x.shape)


@adjoint(np.ravel, kind=ty.ravel, broadcast=False, methods=("ravel",), view=True, sums=False,
         linear=True, complex=True)
def ravel(ans, x):
    d[x] += rt.reshape(d[ans], x.shape)


# the running sum of the flattened array or along `axis`; its adjoint, the running sum
# from the end
@adjoint(np.cumsum, rt.cumsum, kind=ty.scan("np.cumsum"), broadcast=False, name="rt.cumsum",
         methods=("cumsum",), domain=(-2.0, 2.0), linear=True, complex=True)
def cumsum(ans, x, axis=None):
    d[x] += rt.cumsum_adjoint(d[ans], x, axis)


# the elements moved `shift` places along `axis` (of the flattened array without one)
@adjoint(np.roll, rt.roll, kind=ty.argument("a"), broadcast=False, name="rt.roll", sums=False,
         linear=True, domain={"a": (-2.0, 2.0), "shift": 1}, complex=True)
def roll(ans, a, shift, axis=None):
    d[a] += rt.roll(d[ans], -shift, axis)


@adjoint(rt.flatten, kind=ty.ravel, broadcast=False, name="rt.flatten",
         methods=("flatten",), sums=False, linear=True, complex=True)
def flatten(ans, x):
    d[x] += rt.reshape(d[ans], x.shape)


@adjoint(rt.astype, kind=ty.astype, broadcast=False, name="rt.astype", methods=("astype",),
         sums=False, linear=True, complex=True)
def astype(ans, x, dtype):
    d[x] += d[ans]


@adjoint(np.copy, kind=ty.copied, broadcast=False, methods=("copy",), sums=False, linear=True,
         complex=True)
def copy(ans, x):
    d[x] += d[ans]


# the n-th differences along `axis`; the adjoint takes differences back, n times
@adjoint(np.diff, rt.diff, kind=ty.diff, broadcast=False, name="rt.diff", linear=True,
         domain={"a": (-2.0, 2.0)}, complex=True)
def diff(ans, a, n=1, axis=-1):
    d[a] += rt.diff_adjoint(d[ans], a.shape, n, axis)


# reversed along `axis` (every axis for None): a flip is its own adjoint
@adjoint(np.flip, rt.flip, kind=ty.flipped("np.flip"), broadcast=False, name="rt.flip",
         view=True, sums=False, linear=True, domain={"m": (-2.0, 2.0)}, complex=True)
def flip(ans, m, axis=None):
    d[m] += rt.flip(d[ans], axis)


@adjoint(np.fliplr, kind=ty.flipped("np.fliplr", 2), broadcast=False, view=True, sums=False,
         linear=True, domain={"m": (-2.0, 2.0)}, complex=True)
def fliplr(ans, m):
    d[m] += np.fliplr(d[ans])


@adjoint(np.flipud, kind=ty.flipped("np.flipud"), broadcast=False, view=True, sums=False,
         linear=True, domain={"m": (-2.0, 2.0)}, complex=True)
def flipud(ans, m):
    d[m] += np.flipud(d[ans])


# copies of `A` side by side, or of each element: an element's adjoint sums its copies'
@adjoint(np.tile, rt.tile, kind=ty.tile, broadcast=False, name="rt.tile", sums=False,
         linear=True, domain={"A": (-2.0, 2.0), "reps": 2})
def tile(ans, A, reps):
    d[A] += rt.tile_adjoint(d[ans], A, reps)


@adjoint(np.repeat, rt.repeat, kind=ty.repeat, broadcast=False, name="rt.repeat",
         methods=("repeat",), sums=False, linear=True, domain={"a": (-2.0, 2.0), "repeats": 2},
         complex=True)
def repeat(ans, a, repeats, axis=None):
    d[a] += rt.repeat_adjoint(d[ans], a, repeats, axis)


# sorted along `axis` (the flattened array for None): the cotangent goes back through the
# sorting order, a stable sort's where values tie
@adjoint(np.sort, rt.sort, kind=ty.sort, broadcast=False, name="rt.sort", sums=False,
         domain={"a": (-2.0, 2.0)})
def sort(ans, a, axis=-1):
    d[a] += rt.sort_adjoint(d[ans], a, axis)


@tangent(np.sort)
def sort_tangent(ans, a, axis=-1):
    t[ans] = rt.sort_tangent(t[a], a, axis)


# the running product (of the flattened array for axis None); it never divides, so a zero
# factor leaves the adjoints exact
@adjoint(np.cumprod, rt.cumprod, kind=ty.scan("np.cumprod"), broadcast=False, name="rt.cumprod",
         methods=("cumprod",), domain=(-2.0, 2.0))
def cumprod(ans, x, axis=None):
    d[x] += rt.cumprod_adjoint(d[ans], x, axis)


@tangent(np.cumprod)
def cumprod_tangent(ans, x, axis=None):
    t[ans] = rt.cumprod_tangent(t[x], x, axis)


# new axes of length 1 (a number becomes an array): the adjoint takes `a`'s shape back
@adjoint(np.atleast_1d, rt.atleast_1d, kind=ty.at_least(1), broadcast=False,
         name="rt.atleast_1d", view=True, sums=False, linear=True, domain={"a": (-2.0, 2.0)})
def atleast_1d(ans, a):
    d[a] += rt.reshape_as(d[ans], a)


@adjoint(np.atleast_2d, rt.atleast_2d, kind=ty.at_least(2), broadcast=False,
         name="rt.atleast_2d", view=True, sums=False, linear=True, domain={"a": (-2.0, 2.0)})
def atleast_2d(ans, a):
    d[a] += rt.reshape_as(d[ans], a)


@adjoint(np.atleast_3d, rt.atleast_3d, kind=ty.at_least(3), broadcast=False,
         name="rt.atleast_3d", view=True, sums=False, linear=True, domain={"a": (-2.0, 2.0)})
def atleast_3d(ans, a):
    d[a] += rt.reshape_as(d[ans], a)


@adjoint(np.expand_dims, rt.expand_dims, kind=ty.expand_dims, broadcast=False,
         name="rt.expand_dims", view=True, sums=False, linear=True,
         domain={"a": (-2.0, 2.0), "axis": 1})
def expand_dims(ans, a, axis):
    d[a] += rt.reshape_as(d[ans], a)


# `ufunc.outer(a, b)` is `ufunc(rt.outer_left(a, b), b)` (ResolveCalls): `a` with `b`'s
# rank of axes of length 1 after its own
@adjoint(rt.outer_left, kind=ty.outer_left, broadcast=False, name="rt.outer_left", view=True,
         sums=False, linear=True)
def outer_left(ans, a, b):
    d[a] += rt.reshape_as(d[ans], a)


# axes of length 1 taken away; `axis=()` takes none, which the registry's cases call, as
# their arrays have no such axis (tests/test_rules_more.py squeezes some)
@adjoint(np.squeeze, rt.squeeze, kind=ty.squeeze, broadcast=False, name="rt.squeeze",
         methods=("squeeze",), view=True, sums=False, linear=True,
         domain={"a": (-2.0, 2.0), "axis": ()})
def squeeze(ans, a, axis=None):
    d[a] += rt.reshape(d[ans], a.shape)


# the triangle on and above (triu) or below (tril) the k-th diagonal; of a vector, of the
# square whose rows are the vector. The other triangle's cotangent is a strong zero:
# `np.triu(f(d), 1)` of a distance matrix `d` has no gradient through its diagonal, where
# `np.sqrt`'s derivative is infinite (masks=True)
# (compiled, a matrix's triangle in one pass: rt.triu, rt.tril)
@adjoint(np.triu, rt.triu, "np.triu", kind=ty.triangle("np.triu"), name="rt.triu",
         broadcast=False, sums=False, linear=True, masks=True, domain={"m": (-2.0, 2.0)})
def triu(ans, m, k=0):
    d[m] += rt.unbroadcast(rt.triu(d[ans], k), m)


@adjoint(np.tril, rt.tril, "np.tril", kind=ty.triangle("np.tril"), name="rt.tril",
         broadcast=False, sums=False, linear=True, masks=True, domain={"m": (-2.0, 2.0)})
def tril(ans, m, k=0):
    d[m] += rt.unbroadcast(rt.tril(d[ans], k), m)


# joins


# a new array of a sequence (each element's adjoint, its slice of the result's), or a copy
# of an array (which Numba's np.array refuses, and rt.array takes)
@adjoint(np.array, rt.array, "np.array", kind=ty.join_arrays(1), broadcast=False,
         name="rt.array", sequence="stack", sums=False, linear=True)
def array(ans, arrays):
    d[arrays] += d[ans]  # a sequence: each element gets its slice of d[ans]


# the array itself, as a view: an identity
@adjoint(np.asarray, kind=ty.asarray, broadcast=False, view=True, sums=False, linear=True,
         domain={"x": (-2.0, 2.0)})
def asarray(ans, x, dtype=None):
    d[x] += d[ans]


@adjoint(np.concatenate, kind=ty.join_arrays(0), broadcast=False,
         sequence="concatenate", sums=False, linear=True)
def concatenate(ans, arrays, axis=0):
    d[arrays] += rt.split_like(d[ans], arrays, axis)


@adjoint(np.stack, kind=ty.join_arrays(1), broadcast=False, sequence="stack", sums=False,
         linear=True)
def stack(ans, arrays, axis=0):
    d[arrays] += rt.unstack_like(d[ans], arrays, axis)


# np.hstack joins along axis 1 (1-d arrays along 0), np.vstack along axis 0, a 1-d array
# as one row; each array's adjoint is its piece (Adjoints.sequence), the template unused
@adjoint(np.hstack, kind=ty.stacked("np.hstack", 1), broadcast=False, sequence="hstack",
         sums=False, linear=True)
def hstack(ans, arrays):
    d[arrays] += d[ans]


@adjoint(np.vstack, kind=ty.stacked("np.vstack", 2), broadcast=False, sequence="vstack",
         sums=False, linear=True)
def vstack(ans, arrays):
    d[arrays] += d[ans]


# np.column_stack joins along axis 1, a 1-d array as one column
@adjoint(np.column_stack, kind=ty.stacked("np.column_stack", 2), broadcast=False,
         sequence="column_stack", sums=False, linear=True)
def column_stack(ans, arrays):
    d[arrays] += d[ans]


# constructors: values that do not depend on the inputs' values

nondiff(np.zeros, np.ones, kind=ty.construct, params=("ans", "shape", "dtype"),
        defaults={"dtype": None}, complex=True)
# `np.ndarray(shape, dtype)`, the class itself called, is an empty array
nondiff(np.empty, np.ndarray, name="np.empty", kind=ty.construct,
        params=("ans", "shape", "dtype"), defaults={"dtype": None}, complex=True)
nondiff(np.zeros_like, np.ones_like, np.empty_like, kind=ty.like, params=("ans", "a", "dtype"),
        defaults={"dtype": None}, complex=True)


@adjoint(np.full, kind=ty.full, broadcast=False, sums=False)
def full(ans, shape, fill_value, dtype=None):
    d[fill_value] += np.sum(d[ans])


# like `a` (its shape and, unless given, its dtype), every element `fill_value`
@adjoint(np.full_like, kind=ty.like, broadcast=False, sums=False)
def full_like(ans, a, fill_value, dtype=None):
    d[fill_value] += np.sum(d[ans])


@tangent(np.full)
def full_tangent(ans, shape, fill_value, dtype=None):
    t[ans] = np.full(shape, t[fill_value])


@tangent(np.full_like)
def full_like_tangent(ans, a, fill_value, dtype=None):
    t[ans] = np.full_like(a, t[fill_value])


# runs as rt.linspace: Numba's np.linspace takes neither `endpoint` nor `dtype`
@adjoint(np.linspace, rt.linspace, kind=ty.linspace, broadcast=False, sums=False,
         name="rt.linspace")
def linspace(ans, start, stop, num=50, endpoint=True, dtype=None):
    d[start] += np.sum(d[ans] * (1.0 - rt.linspace(0.0, 1.0, num, endpoint)))
    d[stop] += np.sum(d[ans] * rt.linspace(0.0, 1.0, num, endpoint))


@tangent(np.linspace)
def linspace_tangent(ans, start, stop, num=50, endpoint=True, dtype=None):
    t[ans] = (t[start] * (1.0 - rt.linspace(0.0, 1.0, num, endpoint))
              + t[stop] * rt.linspace(0.0, 1.0, num, endpoint))


@adjoint(np.arange, kind=ty.arange, broadcast=False, sums=False)
def arange(ans, start, stop=None, step=None, dtype=None):
    d[start] += rt.arange_dstart(d[ans], stop)
    d[step] += np.sum(d[ans] * np.arange(ans.shape[0]))


@tangent(np.arange)
def arange_tangent(ans, start, stop=None, step=None, dtype=None):
    t[ans] = (t[start] * rt.arange_tstart(ans.shape[0], stop)
              + t[step] * np.arange(ans.shape[0]))


nondiff(np.eye, kind=ty.matrix, params=("ans", "N", "M", "k", "dtype"),
        defaults={"M": None, "k": 0, "dtype": None})
nondiff(np.identity, kind=ty.matrix, params=("ans", "n", "dtype"), defaults={"dtype": None})
nondiff(np.shape, kind=ty.shape, continuous=True, complex=True)
nondiff(rt.stop_gradient, kind=ty.first, name="rt.stop_gradient", continuous=True, complex=True)


# a ufunc's accumulate along `axis`, 0 unless given, as its running reduction
ufunc_method(np.add, "accumulate", np.cumsum, axis=0)
ufunc_method(np.multiply, "accumulate", np.cumprod, axis=0)

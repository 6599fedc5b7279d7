"""Idioms of numeric kernels written by others (N-body steps, image stencils, pressure
solvers): helpers that copy their argument and return it, a helper's tuple unpacked into
array elements or indexed (`histogram(x)[0]`), tuples and lists held in a name and read by
constant index, np.hstack/np.vstack, axes permuted. Each is checked against central finite
differences, compiled and not."""
import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, assert_value_and_grad, fd_grad


def _energies(x, v):
    return 0.5 * np.sum(v * v), 0.3 * np.sum(x * x)


def leapfrog_energies(x, v):
    kinetic = np.zeros(3)
    potential = np.zeros(3)
    for i in range(3):
        kinetic[i], potential[i] = _energies(x, v)
        x = x + 0.1 * v
        v = v - 0.1 * x
    return np.sum(kinetic * potential)


def _relax(p, b):
    p = p.copy()
    for _ in range(2):
        pn = p.copy()
        p[1:-1] = 0.5 * (pn[2:] + pn[:-2]) - 0.25 * b[1:-1]
    return p


def pressure_steps(p, b):
    for _ in range(2):
        p = _relax(p, b)
        b = b + 0.1 * p
    return np.sum(p * p) + np.sum(b)


def joined(a, b, m):
    h = np.hstack((a, b * 2.0))
    v = np.vstack((a, b, a * b))
    w = np.hstack((m, m * a[0]))
    u = np.vstack((m, m ** 2))
    return np.sum(np.sin(h)) + np.sum(v * v * np.arange(9.0).reshape(3, 3)) + \
        np.sum(np.cos(w)) + np.sum(u)


def wave_chained(u, c):
    """A stencil written with chained subscripts, as translated C or Fortran often is."""
    n = u.shape[0]
    out = np.zeros((n, n))
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            out[i][j] = c * (u[i + 1][j] + u[i - 1][j] - 2.0 * u[i][j])
            out[i][j] += u[i][j] ** 2
    return np.sum(out * out)


def three_levels(a, v):
    b = np.zeros((2, 3, 4))
    for k in range(4):
        b[1][2][k] = v * a[k]
        b[0][k % 3][k] -= a[k]
        b[1, 0][k] = b[0][k % 3][k] * v
    return np.sum(np.sin(b))


def rows_from_one_row(X, r):
    """Rows picked by an integer array, all set to one row (broadcast): its gradient is
    the sum over those rows (under Numba, once the wrong shape, silently)."""
    Y = X.copy()
    idx = np.array([0, 2])
    Y[idx] = r
    return np.sum(Y * Y * np.arange(6.0).reshape(3, 2))


def index_of_two_dimensions(x, v):
    """An integer array of two dimensions as the index: reads gather its shape, writes
    scatter it."""
    y = x.copy()
    idx = np.array([[0, 2], [1, 3]])
    y[idx] = v * np.array([[1.0, 2.0], [3.0, 4.0]])
    z = np.zeros((4, 2))
    z[idx] = y[idx] * 2.0
    return np.sum(y ** 2) + np.sum(z[idx] * z[idx]) + np.sum(x[idx] @ y[:2])


def _weighted_histogram(a, w):
    hist = np.zeros(3)
    for i in range(a.shape[0]):
        hist[int(a[i] * 2.9)] += w[i] * a[i]
    return hist, a * 2.0


def histogram_item(a, w):
    h = _weighted_histogram(a, w)[0]  # one item of a helper's tuple
    return np.sum(h * h) + np.sum(_weighted_histogram(a, w)[-1])


def axes_permuted(x):
    y = np.transpose(x, axes=(1, 0, 2)) * np.arange(24.0).reshape(3, 2, 4)
    z = np.transpose(y, (2, 0, -2)) + x.transpose(1, 2, 0)[0][0][0]
    return np.sum(z ** 2) + np.sum(np.sin(x.transpose((0, 2, 1))))


def held_tuple_and_list(a, b):
    t = (a, 2.0 * b)
    x = [1.0, a, 3.0 * b]
    p, q, r = x
    return t[1] * a + x[0] * x[1] + x[-1] * t[0] + p * q * r


def _mutated_list(a, b):
    x = [1.0, a, 3.0 * b]
    x[0] = b
    return x[0] * x[1]


def test_a_list_written_into_is_refused_by_the_users_name():
    with pytest.raises(srcad.SrcadError) as err:
        srcad.grad(_mutated_list, wrt=(0, 1), jit=False)(0.5, 0.3)
    message = str(err.value)
    assert "`x` holds a tuple or list" in message and "test_real_code_idioms.py" in message


_A = np.array([0.3, -0.2, 0.5])
_B = np.array([1.0, 0.5, 0.1])
_M = np.array([[0.1, 0.2, 0.3], [0.7, -0.4, 1.2]])
CASES = [
    (leapfrog_energies, lambda: (np.array([0.3, -0.2]), np.array([1.0, 0.5])), (0, 1)),
    (pressure_steps, lambda: (np.sin(np.arange(6.0)), np.cos(np.arange(6.0))), (0, 1)),
    (joined, lambda: (_A.copy(), _B.copy(), _M.copy()), (0, 1, 2)),
    (wave_chained, lambda: (np.cos(np.arange(25.0)).reshape(5, 5), 0.7), (0, 1)),
    (three_levels, lambda: (np.sin(np.arange(4.0)) + 0.3, 0.4), (0, 1)),
    (rows_from_one_row, lambda: (np.ones((3, 2)) * 0.5, np.array([0.3, -0.7])), (0, 1)),
    (index_of_two_dimensions, lambda: (np.cos(np.arange(4.0)), 0.7), (0, 1)),
    (histogram_item, lambda: (np.array([0.1, 0.5, 0.9, 0.35]), np.array([1.0, 2.0, 3.0, 0.5])),
     (0, 1)),
    (axes_permuted, lambda: (np.sin(np.arange(24.0)).reshape(2, 3, 4),), 0),
    (held_tuple_and_list, lambda: (0.5, 0.3), (0, 1)),
]


def _chained_into_a_copy(a, v):
    rows = np.array([0, 2])
    b = a.copy()
    b[rows][0] = v  # NumPy writes into a copy of b[rows]
    return np.sum(b)


def _chained_into_a_slice(a, v):
    b = a.copy()
    b[1:3][0] = v  # the element b[1]
    return np.sum(b)


@pytest.mark.parametrize("fn, words", [(_chained_into_a_copy, ("writes into a copy",)),
                                       (_chained_into_a_slice, ("slice of a slice",))])
def test_chained_writes_that_are_not_one_element_are_refused(fn, words):
    with pytest.raises(srcad.SrcadError) as err:
        srcad.grad(fn, wrt=1, jit=False)(np.ones((3, 3)), 0.5)
    assert all(w in str(err.value) for w in words) and "test_real_code_idioms.py" in \
        str(err.value)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, make, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradients_match_finite_differences(fn, make, wrt, jit):
    assert_value_and_grad(fn, make, wrt, jit, rel=1e-12)


def stacked_from_a_list_variable(a):
    parts = [a, a]
    return np.sum(np.hstack(parts))


def test_stacking_arrays_not_written_out_is_refused():
    with pytest.raises(srcad.SrcadError, match="written out as a tuple"):
        srcad.grad(stacked_from_a_list_variable, jit=False)(_A)


COEFFS = np.array([0.5, 1.5, -0.25])
MIXING = np.cos(np.arange(9.0)).reshape(3, 3)
PICK = np.array([2, 0])


def _weighted(x):
    return np.sum(COEFFS * x)


def reads_global_arrays(x):
    y = MIXING @ x
    s = 0.0
    for i in range(3):
        s = s + COEFFS[i] * np.tanh(y[i])
    return s + _weighted(x) + np.sum(x[PICK])


def writes_a_global_array(x):
    COEFFS[0] = x[0]
    return np.sum(COEFFS)


@pytest.mark.parametrize("jit", [False, True])
def test_global_arrays_are_constants_and_a_new_binding_is_seen(jit, monkeypatch):
    x = np.array([0.3, -0.7, 1.1])
    g = srcad.value_and_grad(reads_global_arrays, jit=jit)
    for coeffs in (COEFFS, np.array([1.0, 2.0, 3.0])):
        monkeypatch.setitem(globals(), "COEFFS", coeffs)
        value, grad = g(x)
        assert value == pytest.approx(reads_global_arrays(x), rel=1e-12)
        assert_grad_close(grad, fd_grad(reads_global_arrays, (x,), 0))


def test_writing_into_a_global_array_is_refused():
    with pytest.raises(srcad.SrcadError, match="write into the global `COEFFS`"):
        srcad.grad(writes_a_global_array, jit=False)(np.ones(3))


def reaction_diffusion(steps, du, dv, feed, noise):
    n = 6
    U = np.zeros((n + 2, n + 2))
    V = np.zeros((n + 2, n + 2))
    u, v = U[1:-1, 1:-1], V[1:-1, 1:-1]  # views: writes through them reach U and V
    u[:] = 1.0
    U[2:5, 2:5] = 0.5
    V[2:5, 2:5] = 0.25
    u += 0.15 * noise
    v += 0.15 * noise[::-1]
    for _ in range(steps):
        lu = U[0:-2, 1:-1] + U[1:-1, 0:-2] - 4 * U[1:-1, 1:-1] + U[1:-1, 2:] + U[2:, 1:-1]
        lv = V[0:-2, 1:-1] + V[1:-1, 0:-2] - 4 * V[1:-1, 1:-1] + V[1:-1, 2:] + V[2:, 1:-1]
        uvv = u * v * v
        u += du * lu - uvv + feed * (1 - u)
        v += dv * lv + uvv - (feed + 0.065) * v
    return np.sum(V * V) + np.sum(u)


def writes_one_element_through_a_view(x):
    U = np.zeros((3, 3))
    u = U[1:, 1:]
    u[0, 0] = x
    return np.sum(U)


@pytest.mark.parametrize("jit", [False, True])
def test_writes_through_views_of_local_arrays(jit):
    make = lambda: (3, 0.16, 0.08, 0.035, np.sin(np.arange(36.0)).reshape(6, 6))  # noqa: E731
    value, grad = srcad.value_and_grad(reaction_diffusion, wrt=(1, 2, 3, 4), jit=jit)(*make())
    assert value == pytest.approx(reaction_diffusion(*make()), rel=1e-12)
    assert_grad_close(grad, fd_grad(reaction_diffusion, make(), (1, 2, 3, 4)))


def two_views_of_one_array(x):
    A = np.ones(3)
    q = A[0:]
    r = A[:]
    r[0] = x
    return np.sum(r * q)


def views_written_element_by_element(x, a):
    w = x * 2.0
    u = w[1:]
    u[0] = 3.0 * x[0]
    u[1:] *= x[:-2]
    v = w[::-2]  # backwards, every other element
    v[-1] = v[0] * x[1]
    v[1:3] += x[:2] ** 2
    U = np.zeros((a.shape[0] + 2, a.shape[1] + 2))
    U[1:-1, 1:-1] = a
    b = U[1:-1, 1:-1]
    for i in range(a.shape[0]):  # read and written only element by element
        for j in range(1, a.shape[1]):
            b[i, j] = b[i, j - 1] * 0.5 + a[i, j] ** 2
    b[-1] += U[0, 1:-1] + a[0]
    c = U[:, 1:]
    c[1:, 0] *= a[0, 0]
    m = x[2:] > 0.55
    s = w[2:]
    s[m] = 0.0  # a mask along the view's one axis
    s[np.array([0, -1])] *= x[:2]
    return np.sum(w ** 2) + np.sum(U * U) + np.sum(b[0] * v[0])


@pytest.mark.parametrize("fn, make", [
    (writes_one_element_through_a_view, lambda: (0.5,)),
    (two_views_of_one_array, lambda: (0.7,)),
    (views_written_element_by_element,
     lambda: (np.linspace(0.1, 0.9, 9), np.sin(np.arange(12.0)).reshape(3, 4))),
], ids=lambda v: getattr(v, "__name__", "")[:40] if callable(v) else "")
@pytest.mark.parametrize("jit", [False, True])
def test_element_writes_through_views_of_local_arrays(fn, make, jit):
    # the write goes into the array the view comes from, at the places the view's
    # slices give; the view sees it, and so does every other view of the array
    wrt = tuple(range(len(make())))
    value, grad = srcad.value_and_grad(fn, wrt=wrt, jit=jit)(*make())
    assert value == pytest.approx(fn(*make()), rel=1e-12)
    assert_grad_close(grad, fd_grad(fn, make(), wrt))


def test_an_element_write_past_the_end_of_a_view_raises_index_error():
    def f(x):
        w = x * 2.0
        u = w[1:3]
        u[2] = x[0]  # w[3] exists, u[2] does not
        return np.sum(w)
    with pytest.raises(IndexError):
        srcad.grad(f, jit=False)(np.ones(5))


# Each of these once gave a wrong value or gradient without an error; each is refused now
# (or, for the cube root at 0, gives NaN where the composite's derivative is 1).

def view_bound_read_from_an_array(x):
    U = np.zeros(5)
    m = np.array([3])
    u = U[:m[0]]
    m[0] = 1  # the view keeps 3 elements
    u[:] = x
    return np.sum(U)


def _fills_a_view_of_its_argument(a, x):
    a = a[:]  # still the caller's array
    a[0] = x
    return a


def helper_writes_through_a_view(p, x):
    q = _fills_a_view_of_its_argument(p, x)
    return np.sum(q * p)


def float_out_into_an_int_array(x):
    c = np.zeros(3, dtype=np.int64)
    np.multiply(x, 3.0, out=c)  # NumPy raises UFuncTypeError
    return np.sum(c) * x[0]


def write_into_a_global_through_a_name(x):
    a = COEFFS
    a[0] = x
    return np.sum(a)


@pytest.mark.parametrize("fn, args, words", [
    (view_bound_read_from_an_array, (0.7,), "may still see its memory"),
    (helper_writes_through_a_view, (np.array([1.0, 2.0, 3.0]), 0.7), "writes into its argument"),
    (float_out_into_an_int_array, (np.ones(3),), "which NumPy refuses"),
    (write_into_a_global_through_a_name, (0.7,), "write into the global `COEFFS` through `a`"),
], ids=lambda v: getattr(v, "__name__", "")[:40] if callable(v) else "")
def test_aliasing_that_was_silently_wrong_is_refused(fn, args, words):
    with pytest.raises(srcad.SrcadError, match=words):
        srcad.value_and_grad(fn, jit=False)(*args)


def cube_of_a_cube_root(y):
    a = np.cbrt(y)
    a[0] = 1.0
    return np.sum(a ** 3)


def test_zero_times_infinity_stays_nan_where_it_is_not_structural():
    # d/dy (cbrt(y) ** 3) is 1 at y = 0, but the chain rule gives 3 a ** 2 * inf = nan:
    # a zero cotangent that is a value, not a mask's, must not silence it to 0
    grad = srcad.grad(cube_of_a_cube_root, jit=False)(np.array([2.0, 0.0, -1.0]))
    assert grad[0] == 0.0 and np.isnan(grad[1]) and grad[2] == pytest.approx(1.0)


def _build_up(b, u, k):
    b[1:-1] = k * (u[2:] - u[:-2]) + u[1:-1] ** 2  # fills its argument, returns nothing


def _relax_in_place(p, b, n):
    for _ in range(n):
        pn = p.copy()
        p[1:-1] = 0.5 * (pn[2:] + pn[:-2]) - 0.25 * b[1:-1]


def pressure_solve(u, k):
    b = np.zeros_like(u)
    p = np.zeros_like(u)
    for _ in range(3):
        _build_up(b, u, k)
        _relax_in_place(p, b, 2)
        u = u - 0.1 * p
    return np.sum(u * u) + np.sum(p)


def fills_an_array_another_name_holds(u, k):
    b = np.zeros_like(u)
    seen = b
    _build_up(b, u, k)
    return np.sum(seen)


@pytest.mark.parametrize("jit", [False, True])
def test_helpers_that_fill_an_argument_and_return_nothing(jit):
    # the CFD idiom (`build_up_b(b, ...)`, `pressure_poisson(nit, p, ...)`)
    make = lambda: (np.sin(np.arange(6.0)), 0.7)  # noqa: E731
    value, grad = srcad.value_and_grad(pressure_solve, wrt=(0, 1), jit=jit)(*make())
    assert value == pytest.approx(pressure_solve(*make()), rel=1e-12)
    assert_grad_close(grad, fd_grad(pressure_solve, make(), (0, 1)))


def test_a_filled_array_that_another_name_holds_is_refused():
    with pytest.raises(srcad.SrcadError, match="`seen` refers to the same array"):
        srcad.grad(fills_an_array_another_name_holds, jit=False)(np.ones(4), 0.5)


def _smear(u, v):
    for i in range(1, u.shape[0]):
        u[i] = u[i] + v[i - 1]  # reads through `v` what it wrote into `u` when they share


def fills_and_reads_one_array(x):
    b = x * 1.0
    _smear(b, b)
    return np.sum(b * b)


def fills_and_reads_through_an_alias(x):
    b = x * 1.0
    c = b[:]
    _smear(b, c)
    return np.sum(b * b)


@pytest.mark.parametrize("fn", [fills_and_reads_one_array, fills_and_reads_through_an_alias])
def test_a_helper_filling_an_array_it_also_reads_through_another_argument_is_refused(fn):
    # the helper would see its own writes through the other argument: srcad's copy of the
    # filled array would not (value 35 where Python gives 46)
    with pytest.raises(srcad.SrcadError, match="_smear` fills"):
        srcad.grad(fn, jit=False)(np.array([1.0, 2.0, 3.0]))


def _relax_two(T, A, B):
    # polybench's jacobi-1d: fills both buffers, returns nothing
    for t in range(1, T):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])


def _scaled_then_filled(alpha, beta, C, A):
    # polybench's symm and trmm scale the array they fill in place (`C *= beta`)
    C *= beta
    for i in range(C.shape[0]):
        C[i, :] += alpha * A[i, i] * C[i, :]


def _grid_step(u, v, k):
    u[1:-1, 1:-1] = u[1:-1, 1:-1] + k * v[1:-1, 1:-1]
    v[1:-1, 1:-1] = v[1:-1, 1:-1] - k * u[1:-1, 1:-1]
    u *= 0.9


def fills_two_buffers(A, B):
    A = A.copy()
    B = B.copy()
    _r = _relax_two(4, A, B)
    return np.sum(A * A) + np.sum(np.sin(B))


def fills_what_it_scales(alpha, beta, C, A):
    C = C.copy()
    _scaled_then_filled(alpha, beta, C, A)
    return np.sum(C * C)


def fills_two_in_a_loop(x, k):
    u = np.outer(x, x)
    v = np.sin(u)
    for _ in range(3):
        _grid_step(u, v, k)
    return np.sum(u * v)


def _fresh(*args):
    return lambda: tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _mvt(x1, x2, y_1, y_2, A):
    # polybench's mvt and gemver update whole arrays with `x += e` and return nothing
    x1 += A @ y_1
    x2 += y_2 @ A


def updates_two_with_plus_equals(x1, x2, y_1, y_2, A):
    x1 = x1.copy()
    x2 = x2.copy()
    _mvt(x1, x2, y_1, y_2, A)
    return np.sum(x1 * x1) + np.sum(np.sin(x2))


def _two_sweeps(A, B, k):
    for i in range(2):
        _fills_two(A, B)  # fills them through another helper
        A *= k


def fills_through_a_helper_of_a_helper(x, k):
    A = x * 1.0
    B = x * 2.0
    _two_sweeps(A, B, k)
    return np.sum(A * B)


def _shift_then_return(u, v, k):
    u += v * k
    return  # a bare return: as ending without one


def updates_in_a_helper_ending_in_a_bare_return(x, k):
    u = x * 1.0
    _shift_then_return(u, np.cos(x), k)
    return np.sum(u * u)


def _sweeps(T, u):
    # polybench's adi: fills its argument and returns it
    v = np.zeros(u.shape)
    for t in range(T):
        v[1:-1] = 0.5 * (u[:-2] + u[2:])
        u[1:-1] = 0.25 * (v[:-2] + v[2:]) + 0.5 * u[1:-1]
    return u


def _centred_product(data):
    # polybench's correlation and covariance centre their argument in place
    data -= np.mean(data, axis=0)
    data /= 2.0
    return data.T @ data


def _orthonormalized(A):
    # polybench's gramschmidt: returns Q and R, and leaves A updated
    n = A.shape[1]
    Q = np.zeros_like(A)
    R = np.zeros((n, n))
    for k in range(n):
        R[k, k] = np.sqrt(np.sum(A[:, k] ** 2))
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, n):
            R[k, j] = Q[:, k] @ A[:, j]
            A[:, j] -= Q[:, k] * R[k, j]
    return Q, R


def reads_what_a_filling_helper_returns(u):
    u = u.copy()
    r = _sweeps(3, u)
    return np.sum(r * r) + np.sum(u)


def centres_in_a_helper(data):
    data = data.copy()
    c = _centred_product(data)
    return np.sum(np.sin(c)) + np.sum(data * data)


def unpacks_what_a_filling_helper_returns(A):
    A = A.copy()
    Q, R = _orthonormalized(A)
    return np.sum(Q * Q * 0.3) + np.sum(R) + np.sum(A * A)


def holds_the_tuple_a_filling_helper_returns(A):
    A = A.copy()
    r = _orthonormalized(A)  # npbench's wrappers read `r[0]`, `r[1]`
    return np.sum(r[0] * r[0] * 0.3) + np.sum(r[1]) + np.sum(A * A)


FILLING = [
    (fills_two_buffers, _fresh(np.linspace(0.1, 0.9, 7), np.cos(np.arange(7.0))), (0, 1)),
    (fills_what_it_scales, _fresh(1.5, 1.2, np.sin(np.arange(12.0)).reshape(3, 4),
                                  np.cos(np.arange(9.0)).reshape(3, 3)), (0, 1, 2, 3)),
    (fills_two_in_a_loop, _fresh(np.linspace(-0.5, 0.7, 5), 0.3), (0, 1)),
    (updates_two_with_plus_equals, _fresh(np.sin(np.arange(4.0)), np.cos(np.arange(4.0)),
                                          np.linspace(0.1, 0.4, 4), np.linspace(-1.0, 1.0, 4),
                                          np.sin(np.arange(16.0)).reshape(4, 4)),
     (0, 1, 2, 3, 4)),
    (updates_in_a_helper_ending_in_a_bare_return, _fresh(np.linspace(0.2, 1.2, 6), 0.4),
     (0, 1)),
    (fills_through_a_helper_of_a_helper, _fresh(np.linspace(0.1, 1.0, 5), 0.7), (0, 1)),
    (reads_what_a_filling_helper_returns, _fresh(np.linspace(0.2, 1.2, 6)), 0),
    (centres_in_a_helper, _fresh(np.sin(np.arange(15.0)).reshape(5, 3)), 0),
    (unpacks_what_a_filling_helper_returns,
     _fresh(np.sin(np.arange(12.0)).reshape(4, 3) + np.eye(4, 3)), 0),
    (holds_the_tuple_a_filling_helper_returns,
     _fresh(np.sin(np.arange(12.0)).reshape(4, 3) + np.eye(4, 3)), 0),
]


@pytest.mark.parametrize("fn, make, wrt", FILLING, ids=[c[0].__name__ for c in FILLING])
@pytest.mark.parametrize("jit", [False, True])
def test_helpers_that_fill_several_arguments_or_scale_one_in_place(fn, make, wrt, jit):
    # npbench's polybench kernels update several arrays in place and return nothing;
    # called from a loss, each filled array is an update of the caller's
    assert_value_and_grad(fn, make, wrt, jit=jit)


def test_forward_mode_through_helpers_that_fill_several_arguments():
    args = _fresh(np.linspace(-0.5, 0.7, 5), 0.3)
    tangents = (np.cos(np.arange(5.0)), 0.7)
    _, tangent = srcad.jvp(fills_two_in_a_loop, args(), tangents, jit=False)
    grads = srcad.grad(fills_two_in_a_loop, wrt=(0, 1), jit=False)(*args())
    assert tangent == pytest.approx(float(np.sum(grads[0] * tangents[0])) +
                                    grads[1] * tangents[1], rel=1e-10)


def _fills_two(A, B):
    B[1:] = A[:-1]
    A[1:] = B[:-1]


GLOBAL_BUFFER = np.ones(4)


def fills_two_that_share_an_array(x):
    A = x * 1.0
    B = A
    _fills_two(A, B)
    return np.sum(A)


def fills_two_while_a_view_is_read_after(x):
    A = x * 1.0
    B = x * 2.0
    V = A[1:]
    _fills_two(A, B)
    return np.sum(V)


def fills_a_global_and_another(x):
    B = x * 2.0
    _fills_two(GLOBAL_BUFFER, B)
    return np.sum(B) + np.sum(GLOBAL_BUFFER)


def keeps_a_second_name_for_what_a_helper_fills(u):
    u = u.copy()
    w = u
    u = _sweeps(2, u)
    return np.sum(u * u) + np.sum(w)  # Python's `w` shows the writes


@pytest.mark.parametrize("fn, match", [
    (fills_two_that_share_an_array, "may share its array|reads it through"),
    (keeps_a_second_name_for_what_a_helper_fills, "`w` refers to the same array"),
    (fills_two_while_a_view_is_read_after, "`V` refers to the same array"),
    (fills_a_global_and_another, "a write into the global `GLOBAL_BUFFER`"),
])
def test_filling_several_arguments_that_other_names_see_is_refused(fn, match):
    # Python's result would show the writes through the other name; srcad's would not
    with pytest.raises(srcad.SrcadError, match=match):
        srcad.grad(fn, jit=False)(np.array([0.5, 1.0, 1.5, 2.0]))


def _shift(u, k):
    u += k


def shifts_an_array_and_a_number(x, k):
    u = x * 1.0
    _shift(u, k)
    s = 0.0
    _shift(s, k)  # a number: Python's `s` stays 0.0, as the helper rebinds its own name
    return np.sum(u) + s


def test_a_helper_updating_an_array_in_place_and_given_a_number_elsewhere_is_refused():
    with pytest.raises(srcad.SrcadError, match="updates its argument `u` in place where "
                       "another call passes an array"):
        srcad.grad(shifts_an_array_and_a_number, jit=False)(np.ones(3), 0.5)

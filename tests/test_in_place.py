"""In-place kernels: `out=` names the argument a function writes its result into
(returning nothing, or that argument). `vjp`, `jvp` and `jacobian` differentiate its final
contents with respect to the initial contents of the `wrt` arguments, itself included;
the caller's arrays stay as they were."""
import numpy as np
import pytest

import srcad
from tests.fd import assert_grad_close, assert_value_and_grad, fd_grad


def diffuse(u, tmp, k, n):
    for _ in range(n):
        tmp[1:-1] = u[1:-1] + k * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u[:] = tmp


def jacobi(out, f, h):
    n, m = f.shape
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            out[i, j] = 0.25 * (f[i - 1, j] + f[i + 1, j] + f[i, j - 1] + f[i, j + 1]) \
                - h * h * f[i, j] ** 2


def lu_in_place(a):
    n = a.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            a[i, k] = a[i, k] / a[k, k]
            for j in range(k + 1, n):
                a[i, j] -= a[i, k] * a[k, j]


def lu_pivoted(a):
    n = a.shape[0]
    for k in range(n):
        p = k + np.argmax(np.abs(a[k:, k]))
        if p != k:
            a[[k, p]] = a[[p, k]]
        for i in range(k + 1, n):
            a[i, k] = a[i, k] / a[k, k]
            a[i, k + 1:] -= a[i, k] * a[k, k + 1:]


def euler_steps(y, dt, n):
    for _ in range(n):
        y += dt * np.sin(y) * y[::-1]
    return y


def prefix_products(x, out):
    acc = 1.0
    for i in range(x.shape[0]):
        acc = acc * x[i]
        out[i] = acc
    return out


def _rhs(y, k):
    return -k * y * np.abs(y)


def early_exit(y, k, tol):
    for _ in range(50):
        step = 0.1 * _rhs(y, k)
        if np.max(np.abs(step)) < tol:
            return
        y += step


def pingpong(u, tmp, k, n):
    for _ in range(n):
        tmp[1:-1] = u[1:-1] + k * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u, tmp = tmp, u


def local_buffer(u, k, n):
    buf = np.zeros_like(u)
    for _ in range(n):
        buf[1:-1] = u[1:-1] + k * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        buf[0] = u[0]
        buf[-1] = u[-1]
        u, buf = buf, u


def rotate_three(a, b, c, w, n):
    for _ in range(n):
        c[:] = w * a + b * b
        a, b, c = b, c, a


def fresh_buffer_per_phase(u, k, n):
    if k > -1.0:
        w = np.zeros_like(u)
        for _ in range(n):
            w[1:-1] = u[1:-1] + k * (u[2:] - 2.0 * u[1:-1] + u[:-2])
            u, w = w, u
    w = np.zeros_like(u)  # `u` holds the caller's array again when n is even
    for _ in range(n):
        w[:] = u * k
        u, w = w, u


def returns_a_step_count(u, k, tol):
    steps = 0
    for _ in range(20):
        u[1:] = u[1:] * k + u[:-1] * (1.0 - k)
        steps += 1
        if np.max(np.abs(u[1:] - u[:-1])) < tol:
            return steps
    return steps


def test_out_of_a_function_that_returns_a_step_count():
    # the count is not what out= asks for: the value is u's final contents
    make = lambda: (np.array([1.0, 0.2, -0.5]), 0.6, 1e-3)  # noqa: E731
    value, pullback = srcad.vjp(returns_a_step_count, *make(), wrt=(0, 1), out=0, jit=False)
    np.testing.assert_allclose(value, _result(returns_a_step_count, 0)(*make()))
    cot = np.array([0.3, 1.0, -2.0])
    expected = fd_grad(lambda u, k: float(np.sum(
        _result(returns_a_step_count, 0)(u, k, 1e-3) * cot)), make()[:2], (0, 1))
    assert_grad_close(pullback(cot), expected)


def _grid():
    return np.cos(np.arange(20.0).reshape(4, 5) * 0.3)


CASES = [
    (diffuse, lambda: (np.sin(np.linspace(0.0, 3.0, 9)), np.zeros(9), 0.2, 6), (0, 2), 0),
    (jacobi, lambda: (np.zeros((4, 5)), _grid(), 0.3), (1, 2), 0),
    (lu_in_place, lambda: (np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]),),
     (0,), 0),
    (lu_pivoted, lambda: (np.array([[1.0, 2.0, 0.5], [4.0, 1.0, 0.3], [0.5, 3.0, 2.0]]),),
     (0,), 0),
    (euler_steps, lambda: (np.array([0.3, -0.8, 1.1]), 0.05, 7), (0, 1), 0),
    (prefix_products, lambda: (np.array([0.9, 1.2, -0.7, 1.5]), np.zeros(4)), (0,), "out"),
    (early_exit, lambda: (np.array([0.5, -1.5, 0.9]), 0.8, 1e-9), (0, 1), 0),
    *[(pingpong, (lambda n=n: (np.sin(np.arange(7.0)), np.zeros(7), 0.2, n)), (0, 2), 0)
      for n in (3, 4)],
    (local_buffer, lambda: (np.sin(np.arange(6.0)), 0.2, 3), (0, 1), "u"),
    *[(fresh_buffer_per_phase, (lambda n=n: (np.sin(np.arange(6.0)), 0.3, n)), (0, 1), 0)
      for n in (2, 4)],
    *[(rotate_three, (lambda n=n: (np.array([0.5, -0.2]), np.array([0.3, 0.9]), np.zeros(2),
                                   0.7, n)), (0, 1, 3), 2) for n in (4, 5, 6)],
]
IDS = [f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)]


def _result(fn, out):
    """`fn` as a function that returns the final contents of argument `out`."""
    def run(*args):
        args = [np.array(a) if isinstance(a, np.ndarray) else a for a in args]
        fn(*args)
        return args[out]
    return run


def _position(fn, out):
    import inspect
    return out if isinstance(out, int) else list(inspect.signature(fn).parameters).index(out)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, make, wrt, out", CASES, ids=IDS)
def test_vjp_of_the_final_contents(fn, make, wrt, out, jit):
    args = make()
    before = [np.copy(a) for a in args]
    result = _result(fn, _position(fn, out))
    value, pullback = srcad.vjp(fn, *args, wrt=wrt, out=out, jit=jit)
    np.testing.assert_allclose(value, result(*make()), rtol=1e-12, atol=1e-14)
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b)  # the caller's arrays stay as they were
    cot = np.cos(np.arange(np.size(value)) + 0.5).reshape(np.shape(value))
    got = pullback(cot)
    want = fd_grad(lambda *a: float(np.sum(cot * result(*a))), make(), wrt)
    assert_grad_close(got, want, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("fn, make, wrt, out", CASES, ids=IDS)
def test_forward_and_reverse_agree(fn, make, wrt, out):
    # <vjp(c), t> == <c, jvp(t)> for the same point
    args = make()
    tangents = tuple(np.sin(np.arange(np.size(args[i])) + 1.0).reshape(np.shape(args[i]))
                     if np.ndim(args[i]) else 0.7 for i in wrt)
    value, tan = srcad.jvp(fn, args, tangents, wrt=wrt, out=out, jit=False)
    cot = np.cos(np.arange(np.size(value)) + 0.5).reshape(np.shape(value))
    _, pullback = srcad.vjp(fn, *make(), wrt=wrt, out=out, jit=False)
    back = pullback(cot)
    lhs = sum(float(np.sum(b * t)) for b, t in zip(back, tangents))
    assert lhs == pytest.approx(float(np.sum(cot * tan)), rel=1e-10, abs=1e-12)


def test_jacobian_of_an_in_place_factorisation():
    a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    result = _result(lu_in_place, 0)
    for mode in ("rev", "fwd"):
        jac = srcad.jacobian(lu_in_place, out=0, mode=mode, jit=False)(a)
        assert jac.shape == (3, 3, 3, 3)
        for k in range(9):
            row = fd_grad(lambda m: float(result(m).flat[k]), (a,), 0)
            np.testing.assert_allclose(jac.reshape(9, 3, 3)[k], row, atol=1e-6)


def rebinds(u, tmp, k, n):
    u = u * k
    for _ in range(n):
        tmp[1:-1] = u[1:-1] * k
        u, tmp = tmp, u


def drops_the_callers_array(u, tmp, k, n):
    for _ in range(n):
        tmp[1:-1] = u[1:-1] * k
        u, tmp = tmp, u
        tmp = np.zeros_like(u)  # on the first trip `tmp` holds the caller's array


@pytest.mark.parametrize("fn, args, out, words", [
    (rebinds, (np.ones(5), np.zeros(5), 0.1, 2), 0, ["`u` is bound to another value",
                                                     "u = u * k"]),
    (diffuse, (np.ones(5), np.zeros(5), 0.1, 2), 2, ["`k`, named by `out=`, is a float"]),
    (diffuse, (np.ones(5), np.zeros(5), 0.1, 2), 7, ["`out=7` is out of range"]),
    (diffuse, (np.ones(5), np.zeros(5), 0.1, 2), None,
     ["`diffuse` can end without returning a value", "out=..."]),
], ids=["rebound", "float", "out-of-range", "no-out"])
def test_refusals_name_the_line_and_the_fix(fn, args, out, words):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.vjp(fn, *args, wrt=0, out=out, jit=False)
    message = str(info.value)
    assert "test_in_place.py" in message and "hint:" in message
    for w in words:
        assert w in message, message


@pytest.mark.parametrize("jit", [False, True])
def test_binding_the_name_that_holds_the_callers_array_is_refused_when_it_runs(jit):
    with pytest.raises(ValueError) as info:
        srcad.vjp(drops_the_callers_array, np.ones(5), np.zeros(5), 0.1, 2, wrt=0, out=0,
                  jit=jit)
    message = str(info.value)
    assert "test_in_place.py" in message and "`tmp` is bound to a new value here while it " \
        "holds the caller's array" in message and "tmp[:] = ..." in message, message


def pingpong_energy(u, tmp, k, n):
    for _ in range(n):
        tmp[1:-1] = u[1:-1] + k * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u, tmp = tmp, u
    return np.sum(u * u)


@pytest.mark.parametrize("jit", [False, True])
def test_swapped_buffers_are_not_aliases(jit):
    # after `u, tmp = tmp, u` each name holds its own array: writing into `tmp` on the
    # next step is no write through a second name
    make = lambda: (np.sin(np.arange(7.0)), np.zeros(7), 0.2, 5)  # noqa: E731
    got = srcad.grad(pingpong_energy, wrt=(0, 2), jit=jit)(*make())
    assert_grad_close(got, fd_grad(pingpong_energy, make(), (0, 2)))


def test_the_pullbacks_module_shows_who_holds_the_array():
    _, pullback = srcad.vjp(pingpong, np.ones(5), np.zeros(5), 0.1, 3, out=0, jit=False)
    text = srcad.source(pullback)
    assert "def pingpong_fwd(" in text and "holder == 0" in text


def swapped_twice(x, y, a):
    w = np.zeros(4)
    u = np.zeros(4)
    u, w = w, u
    w[0] = x
    u, w = w, u
    return np.sum(u * a) * y


@pytest.mark.parametrize("jit", [False, True])
def test_buffers_swapped_twice_in_straight_line_code(jit):
    # an alias through a temporary holds only from the assignment that made it onwards
    make = lambda: (0.5, 1.5, np.array([0.3, -0.2, 0.7, 1.1]))  # noqa: E731
    value, grad = srcad.value_and_grad(swapped_twice, wrt=(0, 1, 2), jit=jit)(*make())
    assert value == swapped_twice(*make())
    assert_grad_close(grad, fd_grad(swapped_twice, make(), (0, 1, 2)))


def _fill_rhs(y, k, du):
    du = du.copy()  # from here `du` is the helper's own array
    du[0] = -k * y[0] * y[1]
    du[1] = k * y[0] - y[1]
    return du


def _smooth(p):
    p = p.copy()
    p[1:-1] = 0.25 * (p[:-2] + 2.0 * p[1:-1] + p[2:])
    return p


def euler_with_a_filling_helper(y, k, n):
    du = np.zeros_like(y)
    for _ in range(n):
        du = _fill_rhs(y, k, du)
        y = y + 0.1 * du
    return np.sum(y * y)


def smoothed_in_place(p, n):
    for _ in range(n):
        p[:] = _smooth(p)


@pytest.mark.parametrize("jit", [False, True])
def test_helpers_that_copy_their_argument_and_return_it(jit):
    make = lambda: (np.array([0.7, -0.3]), 0.8, 4)  # noqa: E731
    got = srcad.grad(euler_with_a_filling_helper, wrt=(0, 1), jit=jit)(*make())
    assert_grad_close(got, fd_grad(euler_with_a_filling_helper, make(), (0, 1)))
    p = np.sin(np.arange(6.0))
    _, pullback = srcad.vjp(smoothed_in_place, p.copy(), 3, out=0, jit=jit)
    cot = np.cos(np.arange(6.0))
    expected = fd_grad(lambda q: float(np.sum(_result(smoothed_in_place, 0)(q, 3) * cot)),
                       (p.copy(),), 0)
    assert_grad_close(pullback(cot), expected)  # wrt=0: the gradient itself, not a tuple


def _fills(du, y):
    du[0] = y[0] * 2.0
    return du


def uses_a_helper_that_fills_its_argument(y):
    du = np.zeros_like(y)
    du = _fills(du, y)
    return np.sum(du)


def _fills_and_sums(du, y):
    du[0] = y[0] * 2.0
    return np.sum(du * y)


def uses_what_a_filling_helper_returns_and_fills(y):
    du = np.zeros_like(y)
    s = _fills_and_sums(du, y)  # reads `du`, which the call filled
    return s + np.sum(du * du)


def test_a_helper_writing_into_its_argument_is_told_how_to_copy_it():
    # `du` filled and then read through a tuple the caller holds: not followed
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(holds_what_a_filling_helper_returns, jit=False)(np.ones(2))
    assert "`du = du.copy()` at the top of `_fills`" in str(info.value)


def holds_what_a_filling_helper_returns(y):
    du = np.zeros_like(y)
    pair = (_fills(du, y), y)
    return np.sum(pair[0]) + np.sum(du)


# `x -= e` on an array is an update in place: in a helper, of the caller's array
def _shifted(data):
    data -= 1.0
    return np.sum(data)


def caller_reads_what_the_helper_updated(data, w):
    data = data.copy()
    r = _shifted(data)
    return r + np.sum(data * w)


def _shifted_view(x):
    x = x[::2]
    x -= 1.0
    return np.sum(x)


def caller_of_a_view_update(a):
    a = a.copy()
    return _shifted_view(a) + np.sum(a * a)


def _shifted_in_a_loop(x):
    for _ in range(3):
        x -= 0.1
    return np.sum(x)


def caller_of_a_loop_update(a):
    a = a.copy()
    return _shifted_in_a_loop(a) + np.sum(a * a)


def _shifted_copy(x):
    x = x.copy()
    x -= 1.0
    return x


def caller_of_a_copy_update(a):
    return np.sum(_shifted_copy(a) * a)


def updates_its_own_argument(x):
    for _ in range(3):
        x *= 0.5
    x -= 1.0
    return np.sum(x * x)


@pytest.mark.parametrize("fn, args, helper", [
    (caller_of_a_view_update, (np.arange(4.0),), "_shifted_view"),
    (caller_of_a_loop_update, (np.arange(4.0),), "_shifted_in_a_loop"),
])
def test_a_helper_updating_its_argument_in_place_is_refused(fn, args, helper):
    """Python updates the caller's array (or the part a view shows) in place, and the
    caller reads it after; the generated code would not, so its value would be another."""
    with pytest.raises(srcad.SrcadError) as info:
        srcad.value_and_grad(fn, wrt=0, jit=False)(*args)
    message = str(info.value)
    assert f"`{helper}` writes into its argument" in message and "test_in_place.py" in message
    assert ".copy()` at the top of" in message


@pytest.mark.parametrize("fn, make", [
    (caller_reads_what_the_helper_updated, lambda: (np.arange(4.0), np.ones(4))),
    (uses_a_helper_that_fills_its_argument, lambda: (np.array([0.5, 2.0]),)),
    (uses_what_a_filling_helper_returns_and_fills, lambda: (np.array([0.5, 2.0]),)),
])
@pytest.mark.parametrize("jit", [False, True])
def test_a_helper_that_updates_its_argument_and_returns_a_value(fn, make, jit):
    # the call is an update of the caller's array, then the value it returns (`du =
    # _fills(du, y)` returns the array it filled)
    assert_value_and_grad(fn, make, 0, jit=jit)


@pytest.mark.parametrize("fn", [caller_of_a_copy_update, updates_its_own_argument])
def test_updates_in_place_of_a_copy_or_of_the_functions_own_argument(fn):
    x = np.array([0.3, -0.7, 1.1, 0.5])
    value, grad = srcad.value_and_grad(fn, jit=False)(x.copy())
    assert value == pytest.approx(fn(x.copy()), rel=1e-12)
    assert_grad_close(grad, fd_grad(fn, (x.copy(),)))


def _pair_product(p):
    x, y = p
    return np.sum(x * y)


def passes_a_tuple_of_arrays(a):
    return _pair_product((a, a * 2.0))


def _shifts_the_first(p):
    x, y = p
    x -= 1.0
    return 0.0


def passes_a_tuple_it_reads_after(a):
    b, c = a * 1.0, a * 2.0
    r = _shifts_the_first((b, c))
    return r + np.sum(b * a)


@pytest.mark.parametrize("fn, helper", [(passes_a_tuple_of_arrays, "_pair_product"),
                                        (passes_a_tuple_it_reads_after, "_shifts_the_first")])
def test_a_tuple_of_values_with_gradients_passed_to_a_helper_is_refused(fn, helper):
    """Its adjoint would be a tuple of adjoints, which srcad does not make: the gradient
    through it would be lost (and the helper's update in place of an item not seen)."""
    with pytest.raises(srcad.SrcadError) as info:
        srcad.value_and_grad(fn, jit=False)(np.array([0.3, -0.7, 1.1]))
    message = str(info.value)
    assert f"passes `{helper}` a tuple or list of values that carry gradients" in message
    assert "test_in_place.py" in message and "separate arguments" in message

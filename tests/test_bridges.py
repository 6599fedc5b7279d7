"""The PyTorch and JAX bridges: gradients checked by `torch.autograd.gradcheck` and
against `jax.grad` of the same function where JAX can trace it, under `jax.jit`, with the
forward sweep's tape reused by the backward, and the refusals. The JAX bridge's forward
mode is checked against `jax.jvp` and `jax.jacfwd` where JAX can trace the function, and
against finite differences where it cannot.

Most cases run the plain-Python sweeps (jit=False); one case per framework compiles."""
import math
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402

import srcad  # noqa: E402
import srcad.jax  # noqa: E402
import srcad.torch  # noqa: E402

jax.config.update("jax_enable_x64", True)


def damped(w, xs, scale):
    """A loop with a branch, and a float that gets no gradient."""
    h = 0.0
    for i in range(xs.shape[0]):
        h = math.tanh(w * h + xs[i])
        if h > 0.5:
            h = h * 0.9
    return scale * h * h


def damped_jax(w, xs, scale):
    """`damped` as JAX traces it: the branch as a `where`."""
    h = 0.0
    for i in range(xs.shape[0]):
        h = jnp.tanh(w * h + xs[i])
        h = jnp.where(h > 0.5, h * 0.9, h)
    return scale * h * h


def layer(A, x, b):
    """An array function of three arrays, with an array output."""
    return np.tanh(A @ x + b)


def pair(A, x, b):
    """A tuple output: an array and a float."""
    y = np.tanh(A @ x + b)
    return y, np.sum(x * x)


def chain(x, c, n):
    """Runs unchanged under JAX: indexing, arithmetic, a loop of `n` (an int) steps."""
    s = 0.0
    for k in range(n):
        for i in range(x.shape[0] - 1):
            s = s + c * (x[i + 1] - x[i]) ** 2 + x[i] * x[i + 1] * 0.1 * k
    return s


def springs(x, k):
    """Element writes in a loop, which JAX cannot trace: the forces of a chain of springs."""
    f = np.zeros_like(x)
    for i in range(x.shape[0] - 1):
        stretch = x[i + 1] - x[i]
        f[i] += k * stretch * (1.0 + stretch * stretch)
        f[i + 1] -= k * stretch * (1.0 + stretch * stretch)
    return f


def shifted_log(x):
    """Defined only for x[0] > 1: fails on the stand-in ones."""
    return math.log(x[0] - 1.0) * x[1]


def tensor(values, grad=True):
    return torch.tensor(values, dtype=torch.float64, requires_grad=grad)


def count_forward_sweeps(monkeypatch, module, entry="vjp"):
    """A list that grows by one for each forward sweep `module` runs through its `entry`
    (`vjp`, or `jvp` for forward mode): the arguments of that call."""
    calls = []
    original = getattr(module, entry)

    def counted(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, entry, counted)
    return calls


def central_difference(f, args, direction, position=0, h=1e-6):
    """(f(x + h v) - f(x - h v)) / 2h for x = args[position] and v = `direction`."""
    def at(step):
        moved = list(args)
        moved[position] = np.asarray(args[position]) + step * np.asarray(direction)
        return np.asarray(f(*moved))

    return (at(h) - at(-h)) / (2 * h)


RNG = np.random.default_rng(0)
A, X, B = RNG.standard_normal((3, 4)), RNG.standard_normal(4), RNG.standard_normal(3)


# --- PyTorch ---------------------------------------------------------------------------


def test_torch_gradcheck_loop_with_branch_and_a_float_argument():
    f = srcad.torch.function(damped, jit=False)
    w, xs = tensor(0.3), tensor(np.linspace(-1.0, 1.5, 9))
    assert torch.autograd.gradcheck(lambda w, xs: f(w, xs, 2.0), (w, xs))


def test_torch_gradcheck_compiled():
    f = srcad.torch.function(damped)
    w, xs = tensor(0.3), tensor(np.linspace(-1.0, 1.5, 9))
    assert torch.autograd.gradcheck(lambda w, xs: f(w, xs, 2.0), (w, xs))


def test_torch_gradcheck_array_function_of_three_tensors():
    f = srcad.torch.function(layer, jit=False)
    assert torch.autograd.gradcheck(f, (tensor(A), tensor(X), tensor(B)))
    assert torch.autograd.gradcheck(f, (tensor(A).T.contiguous().T, tensor(X), tensor(B)))


def test_torch_gradcheck_tuple_output_and_keywords():
    f = srcad.torch.function(pair, jit=False)
    assert torch.autograd.gradcheck(lambda A, x: f(A, b=tensor(B, False), x=x),
                                    (tensor(A), tensor(X)))


def test_torch_value_and_gradient_match_srcad():
    f = srcad.torch.function(chain, jit=False)
    x = tensor(X)
    value = f(x, 0.7, 3)
    value.backward()
    want_value, want_grad = srcad.value_and_grad(chain, jit=False)(X, 0.7, 3)
    assert value.dtype == torch.float64 and value.shape == ()
    assert value.item() == pytest.approx(want_value, rel=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), want_grad, rtol=1e-12)


def test_torch_backward_reuses_the_forward_tape(monkeypatch):
    sweeps = count_forward_sweeps(monkeypatch, srcad.torch)
    f = srcad.torch.function(layer, jit=False)
    x = tensor(X)
    y = f(tensor(A, False), x, tensor(B, False))
    (gx,) = torch.autograd.grad(y, x, torch.ones(3, dtype=torch.float64), retain_graph=True)
    (gx2,) = torch.autograd.grad(y, x, 2.0 * torch.ones(3, dtype=torch.float64))
    assert len(sweeps) == 1
    np.testing.assert_allclose(gx2.numpy(), 2.0 * gx.numpy())


def test_torch_wrt_leaves_other_tensors_without_gradient():
    f = srcad.torch.function(layer, wrt="x", jit=False)
    a, x = tensor(A), tensor(X)
    f(a, x, tensor(B)).sum().backward()
    assert a.grad is None and x.grad is not None


def test_torch_refusals():
    f = srcad.torch.function(layer, jit=False)
    with pytest.raises(srcad.SrcadError, match=r"float32 tensor.*\n.*A\.double\(\)"):
        f(torch.tensor(A, dtype=torch.float32), tensor(X), tensor(B))
    with pytest.raises(srcad.SrcadError, match=r"on meta; srcad runs on the CPU.*\n.*\.cpu\(\)"):
        f(torch.empty((3, 4), dtype=torch.float64, device="meta"), tensor(X), tensor(B))
    with pytest.raises(srcad.SrcadError, match="`scale` in `wrt` is float, not a float64"):
        srcad.torch.function(damped, wrt="scale", jit=False)(tensor(0.3), tensor(X), 2.0)
    with pytest.raises(srcad.SrcadError, match="`wrt` names 'y'"):
        srcad.torch.function(layer, wrt="y")
    x = tensor(X)
    (g,) = torch.autograd.grad((f(tensor(A), x, tensor(B)) ** 2).sum(), x,
                               create_graph=True)
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.sum().backward()


# --- JAX -------------------------------------------------------------------------------


def test_jax_grad_of_loop_with_branch_matches_jax():
    f = srcad.jax.function(damped, jit=False)
    xs = jnp.linspace(-1.0, 1.5, 9)
    got = jax.grad(f, argnums=(0, 1))(0.3, xs, 2.0)
    want = jax.grad(damped_jax, argnums=(0, 1))(0.3, xs, 2.0)
    assert f(0.3, xs, 2.0) == pytest.approx(float(damped_jax(0.3, xs, 2.0)), rel=1e-12)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10)


def test_jax_same_function_under_jit_and_grad():
    f = srcad.jax.function(chain, jit=False)
    x = jnp.asarray(X)
    got = jax.jit(jax.grad(f, argnums=(0, 1)), static_argnums=2)(x, 0.7, 3)
    want = jax.grad(chain, argnums=(0, 1))(x, 0.7, 3)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    assert jax.jit(f, static_argnums=2)(x, 0.7, 3) == pytest.approx(float(chain(x, 0.7, 3)))


def test_jax_compiled_under_jit_reuses_the_forward_tape(monkeypatch):
    sweeps = count_forward_sweeps(monkeypatch, srcad.jax)
    f = srcad.jax.function(damped)
    step = jax.jit(jax.value_and_grad(f, argnums=(0, 1)))
    xs = jnp.linspace(-1.0, 1.5, 9)
    step(0.3, xs, 2.0)  # traced: one more sweep, to learn the output shape
    before = len(sweeps)
    value, (gw, gxs) = step(0.4, xs, 2.0)
    assert len(sweeps) == before + 1
    want = jax.grad(damped_jax, argnums=(0, 1))(0.4, xs, 2.0)
    np.testing.assert_allclose(gw, want[0], rtol=1e-10)
    np.testing.assert_allclose(gxs, want[1], rtol=1e-10)


def test_jax_array_function_jacobian_and_vmap(monkeypatch):
    f = srcad.jax.function(layer, jit=False)
    a, x, b = map(jnp.asarray, (A, X, B))
    f(a, x, b)  # learns the output shape
    sweeps = count_forward_sweeps(monkeypatch, srcad.jax)
    jac = jax.jacrev(f, argnums=(0, 1, 2))(a, x, b)
    assert len(sweeps) == 1  # three reverse sweeps over one tape
    want = jax.jacrev(lambda a, x, b: jnp.tanh(a @ x + b), argnums=(0, 1, 2))(a, x, b)
    for g, w in zip(jac, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-15)
    xs = jnp.stack([x, 2.0 * x])
    np.testing.assert_allclose(jax.vmap(lambda x: f(a, x, b))(xs),
                               np.tanh(xs @ A.T + B), rtol=1e-12)


def test_jax_tuple_output():
    f = srcad.jax.function(pair, jit=False)
    a, x, b = map(jnp.asarray, (A, X, B))

    def loss(fn, x):
        y, s = fn(a, x, b)
        return jnp.sum(y * y) + 3.0 * s

    got = jax.jit(jax.grad(lambda x: loss(f, x)))(x)
    want = jax.grad(lambda x: loss(lambda a, x, b: (jnp.tanh(a @ x + b), x @ x), x))(x)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_jax_output_shape_given_when_the_stand_ins_fail():
    x = jnp.array([3.0, 2.0])
    f = srcad.jax.function(shifted_log, jit=False)
    with pytest.raises(srcad.SrcadError, match="(?s)on stand-ins.*math domain.*out_shape="):
        jax.jit(f)(x)
    assert float(f(x)) == pytest.approx(math.log(2.0) * 2.0)  # concrete: no stand-ins
    assert float(jax.jit(f)(x)) == pytest.approx(math.log(2.0) * 2.0)  # the shape is known
    g = srcad.jax.function(shifted_log, jit=False,
                           out_shape=jax.ShapeDtypeStruct((), jnp.float64))
    np.testing.assert_allclose(jax.jit(jax.grad(g))(x), [2.0 / 2.0, math.log(2.0)])


def test_jax_refusals():
    f = srcad.jax.function(layer, jit=False)
    a, x, b = map(jnp.asarray, (A, X, B))
    with pytest.raises(srcad.SrcadError, match=r"`A` is float32.*\n.*astype\(jnp.float64\)"):
        f(a.astype(jnp.float32), x, b)
    jax.config.update("jax_enable_x64", False)
    try:
        with pytest.raises(srcad.SrcadError, match="jax_enable_x64"):
            f(jnp.ones((3, 4)), x, b)
    finally:
        jax.config.update("jax_enable_x64", True)
    with pytest.raises(srcad.SrcadError, match="`n` in `wrt` is not a float array"):
        srcad.jax.function(chain, wrt="n", jit=False)(x, 0.7, 3)


# --- JAX, forward mode -----------------------------------------------------------------


def test_jax_forward_jvp_of_loop_with_branch_matches_jax():
    f = srcad.jax.function(damped, mode="forward", jit=False)
    xs = jnp.linspace(-1.0, 1.5, 9)
    primals, tangents = (0.3, xs, 2.0), (0.7, jnp.cos(xs), 0.5)
    value, tangent = jax.jvp(f, primals, tangents)
    want_value, want_tangent = jax.jvp(damped_jax, primals, tangents)
    assert value == pytest.approx(float(want_value), rel=1e-12)
    assert tangent == pytest.approx(float(want_tangent), rel=1e-10)


def test_jax_forward_jacfwd_under_jit_is_one_sweep_per_direction(monkeypatch):
    f = srcad.jax.function(layer, mode="forward", jit=False)
    a, x, b = map(jnp.asarray, (A, X, B))
    step = jax.jit(jax.jacfwd(f, argnums=(0, 1, 2)))
    want = jax.jacfwd(lambda a, x, b: jnp.tanh(a @ x + b), argnums=(0, 1, 2))(a, x, b)
    step(a, x, b)  # traced and compiled
    sweeps = count_forward_sweeps(monkeypatch, srcad.jax, "jvp")
    jac = step(a, x, b)
    assert len(sweeps) == A.size + X.size + B.size  # the value, not asked for, is not run
    for g, w in zip(jac, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-15)


def test_jax_forward_compiled_matches_finite_differences_under_jit():
    f = srcad.jax.function(springs, mode="forward")
    x = jnp.asarray(np.cumsum(np.linspace(0.5, 1.5, 6)))
    v = jnp.asarray(RNG.standard_normal(6))
    value, tangent = jax.jit(lambda x, v: jax.jvp(lambda x: f(x, 0.8), (x,), (v,)))(x, v)
    np.testing.assert_allclose(value, springs(np.asarray(x), 0.8), rtol=1e-14)
    np.testing.assert_allclose(tangent, central_difference(springs, (x, 0.8), v),
                               rtol=1e-6, atol=1e-8)
    jac = jax.jit(jax.jacfwd(f))(x, 0.8)
    for k in range(6):
        np.testing.assert_allclose(jac[:, k], central_difference(springs, (x, 0.8), np.eye(6)[k]),
                                   rtol=1e-6, atol=1e-8)
    _, linear = jax.linearize(lambda x: f(x, 0.8), x)
    np.testing.assert_allclose(linear(v), tangent, rtol=1e-14)


def test_jax_forward_tuple_output_vmap_and_wrt():
    a, x, b = map(jnp.asarray, (A, X, B))
    f = srcad.jax.function(pair, mode="forward", jit=False)
    tangents = (jnp.ones_like(a), jnp.cos(x), jnp.sin(b))
    got = jax.jvp(f, (a, x, b), tangents)
    want = jax.jvp(lambda a, x, b: (jnp.tanh(a @ x + b), x @ x), (a, x, b), tangents)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    xs = jnp.stack([x, 2.0 * x, -x])
    batched = jax.vmap(lambda x: jax.jvp(lambda x: f(a, x, b)[0], (x,), (x,))[1])(xs)
    np.testing.assert_allclose(batched, (1.0 - np.tanh(xs @ A.T + B) ** 2) * (xs @ A.T),
                               rtol=1e-12)
    # wrt="x": the tangents of A and b count as zero, as their gradients would be
    only_x = srcad.jax.function(layer, wrt="x", mode="forward", jit=False)
    _, tangent = jax.jvp(only_x, (a, x, b), tangents)
    np.testing.assert_allclose(tangent, (1.0 - np.tanh(A @ X + B) ** 2) * (A @ np.cos(X)),
                               rtol=1e-12)


def test_jax_forward_with_an_integer_input_under_jit():
    f = srcad.jax.function(chain, mode="forward", jit=False)
    x = jnp.asarray(X)
    got = jax.jit(jax.jacfwd(f, argnums=(0, 1)))(x, 0.7, 3)  # n traced: an integer input
    want = jax.jacfwd(chain, argnums=(0, 1))(x, 0.7, 3)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_jax_each_mode_leaves_the_other_to_jax_s_refusal():
    x = jnp.asarray(X)
    reverse = srcad.jax.function(chain, jit=False)
    forward = srcad.jax.function(chain, mode="forward", jit=False)
    with pytest.raises(TypeError, match="forward-mode autodiff"):
        jax.jvp(lambda x: reverse(x, 0.7, 3), (x,), (x,))
    with pytest.raises(ValueError, match="do not support transpose"):
        jax.grad(forward)(x, 0.7, 3)
    with pytest.raises(srcad.SrcadError, match=r"mode='both' is not a mode(?s:.*)mode=\"forward\""):
        srcad.jax.function(chain, mode="both")


# --- Both --------------------------------------------------------------------------------


def test_bridges_are_optional():
    """`import srcad` imports neither framework; a bridge without its framework says
    which extra to install."""
    code = ("import sys, srcad\n"
            "assert 'torch' not in sys.modules and 'jax' not in sys.modules\n"
            "for name in ('torch', 'jax'):\n"
            "    sys.modules[name] = None\n"
            "    try:\n"
            "        __import__('srcad.' + name)\n"
            "    except ImportError as exc:\n"
            "        print(exc)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["srcad.torch needs PyTorch: pip install srcad[torch]",
                                        "srcad.jax needs JAX: pip install srcad[jax]"]


@pytest.mark.parametrize("module", [srcad.torch, srcad.jax], ids=["torch", "jax"])
def test_the_bridges_examples_run(module):
    # pytest's own doctest collection skips these modules, which import their frameworks
    import doctest
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0

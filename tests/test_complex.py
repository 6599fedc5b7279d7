"""Complex numbers: gradients under JAX's convention (for `z = x + iy`, `dL/dx - i dL/dy`),
checked against finite differences along the real and imaginary parts, against `jax.grad`
where JAX is installed, and forward mode against reverse mode.

Every rule that takes complex operands gets complex cases here, made from its declared
domain (`tests.rule_domains`) or written below for the operators; adding one without a
case fails `test_every_complex_rule_is_covered`.
"""
import importlib.util
import os
import sys
import tempfile
import warnings

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError, SrcadWarning
from srcad.rules import registry
from srcad.rules.registry import all_rules
from tests import complex_functions as cf
from tests.fd import assert_grad_close, fd_grad
from tests.rule_domains import points, rules_with_domains, spelling

RNG = np.random.default_rng(11)
Z4 = np.array([0.8 + 0.3j, -0.4 + 1.1j, 1.3 - 0.6j, -0.9 - 0.2j])
R4 = np.array([0.7, -1.3, 0.4, 2.1])

# ---------------------------------------------------------------------------
# Functions written the way scientific code is (tests/complex_functions.py)
# ---------------------------------------------------------------------------

CORPUS = {
    "spectral_derivative": lambda: (np.sin(np.arange(8.0)) + 0.3 * np.arange(8.0) ** 0.5,),
    "low_pass": lambda: (np.cos(np.arange(9.0) * 1.3), 2.5),
    "wave_packet": lambda: (np.linspace(-2.0, 2.0, 7), 1.3, 0.8),
    "two_level": lambda: (1.1, 0.3, 0.05, 20),
    "horner": lambda: (Z4.copy(), 0.3 - 0.4j),
    "dft_by_matrix": lambda: (R4.copy(),),
    "phases": lambda: (Z4.copy(),),
    "from_parts": lambda: (R4[:3].copy(), R4[1:].copy()),
    "rotate": lambda: (Z4.copy(), 0.4),
    "mandelbrot_escape": lambda: (-0.3 + 0.2j, 6),
    "complex_writes": lambda: (Z4.copy(), 0.7),
    "log_sqrt_power": lambda: (Z4 + 2.0,),
    "mean_of_complex": lambda: (Z4.copy(), R4.copy()),
}
JIT = {"spectral_derivative", "low_pass", "two_level", "horner", "dft_by_matrix",
       "log_sqrt_power"}


def _wrt(args):
    return tuple(i for i, a in enumerate(args) if np.iscomplexobj(a) or isinstance(a, float)
                 or isinstance(a, np.ndarray) and a.dtype.kind == "f")


@pytest.mark.parametrize("name, jit", [(n, False) for n in sorted(CORPUS)] +
                         [(n, True) for n in sorted(JIT)])
def test_corpus_matches_finite_differences(name, jit):
    fn, make = getattr(cf, name), CORPUS[name]
    wrt = _wrt(make())
    value, grad = srcad.value_and_grad(fn, wrt=wrt, jit=jit, on_jit_error="raise")(*make())
    assert value == pytest.approx(fn(*make()), rel=1e-12)
    assert_grad_close(grad, fd_grad(fn, make(), wrt), rtol=1e-5, atol=1e-6)


def test_gradient_of_a_complex_argument_is_complex_and_of_a_real_one_real():
    g = srcad.grad(cf.horner, wrt=(0, 1), jit=False)(Z4.copy(), 0.3 - 0.4j)
    assert g[0].dtype == np.complex128 and isinstance(g[1], complex)
    g = srcad.grad(cf.wave_packet, wrt=(0, 1), jit=False)(np.linspace(-2.0, 2.0, 7), 1.3, 0.8)
    assert g[0].dtype == np.float64 and type(g[1]) is float


# ---------------------------------------------------------------------------
# Against JAX's grad of the same functions
# ---------------------------------------------------------------------------


def _jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax, jax.numpy


def _jax_versions(jnp):
    def wave_packet(x, k0, width):
        psi = jnp.exp(1j * k0 * x - x ** 2 / (2.0 * width ** 2))
        density = jnp.abs(psi) ** 2
        return jnp.sum(density * x) / jnp.sum(density)

    def horner(coeffs, z):
        acc = 0j
        for i in range(coeffs.shape[0]):
            acc = acc * z + coeffs[i]
        return jnp.abs(acc)

    def phases(z):
        return jnp.sum(jnp.angle(z) * jnp.abs(z)) + jnp.sum(z.conj().real * z.imag)

    def log_sqrt_power(z):
        w = jnp.log(z) + jnp.sqrt(z) * jnp.sin(z) - z ** 1.5 + jnp.tanh(z) / (1.0 + z)
        return jnp.sum(w.real) - 0.5 * jnp.sum(w.imag)

    def mean_of_complex(z, w):
        m = jnp.mean(z * w)
        return (m * jnp.conj(m)).real + jnp.sum(jnp.cumsum(z) * w).imag

    def spectral_derivative(u):
        n = u.shape[0]
        k = jnp.fft.fftfreq(n) * n
        du = jnp.fft.ifft(1j * k * jnp.fft.fft(u)).real
        return jnp.sum(du * du) / n

    def low_pass(signal, cutoff):
        spectrum = jnp.fft.rfft(signal)
        freq = jnp.arange(spectrum.shape[0])
        smooth = jnp.fft.irfft(spectrum * jnp.exp(-freq / cutoff), signal.shape[0])
        return jnp.sum((smooth - signal) ** 2)

    def two_level(omega, detuning, dt, steps):
        c0, c1 = 1.0 + 0.0j, 0.0 + 0.0j
        for _ in range(steps):
            d0 = -0.5j * omega * c1
            d1 = -0.5j * omega * c0 - 1j * detuning * c1
            c0, c1 = c0 + dt * d0, c1 + dt * d1
        return jnp.abs(c1) ** 2

    return {f.__name__: f for f in (wave_packet, horner, phases, log_sqrt_power,
                                    mean_of_complex, spectral_derivative, low_pass,
                                    two_level)}


@pytest.mark.parametrize("name", ["wave_packet", "horner", "phases", "log_sqrt_power",
                                  "mean_of_complex", "spectral_derivative", "low_pass",
                                  "two_level"])
def test_gradient_is_jax_grad(name):
    jax, jnp = _jax()
    args = CORPUS[name]()
    wrt = _wrt(args)
    ours = srcad.grad(getattr(cf, name), wrt=wrt, jit=False)(*args)
    theirs = jax.grad(_jax_versions(jnp)[name], argnums=wrt)(*args)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------------
# Every rule that takes complex operands, at complex points of its domain
# ---------------------------------------------------------------------------


def _complex_point(value, k):
    """`value` (a float or float array from a rule's domain) given an imaginary part."""
    shift = 0.35 * (-1) ** k
    if isinstance(value, np.ndarray):
        return value + 1j * shift * np.cos(np.arange(value.size)).reshape(value.shape)
    return complex(value, shift)


def _domain_cases():
    cases = []
    for rule in rules_with_domains():
        if rule.complex is None:
            continue
        fn, call = spelling(rule)
        for point in points(rule):
            args = {p: _complex_point(v, k) if p in point.floats else v
                    for k, (p, v) in enumerate(point.args.items())}
            cases.append((rule.name, f"{rule.name}-{point.label}", call, args, point.floats))
    return cases


OPERATOR_CASES = [  # (rule, id, expression, arguments)
    ("op.Add", "add", "x + y", {"x": Z4, "y": R4}),
    ("op.Sub", "sub", "x - 2.0j * y", {"x": R4, "y": Z4}),
    ("op.Mult", "mult", "x * y", {"x": Z4, "y": Z4[::-1].copy()}),
    ("op.Div", "div", "x / y", {"x": R4, "y": Z4}),
    ("op.USub", "neg", "-x * x", {"x": Z4}),
    ("op.Pow", "pow-real-exponent", "x ** y", {"x": Z4, "y": 1.7}),
    ("op.Pow", "pow-complex-exponent", "x ** y", {"x": Z4 + 1.5, "y": 0.6 - 0.4j}),
    ("op.Pow", "pow-real-base", "x ** y", {"x": np.abs(R4) + 0.5, "y": Z4}),
    ("op.Pow", "pow-int", "x ** 3", {"x": Z4}),
    ("op.MatMult", "matmul", "x @ y", {"x": np.outer(Z4, R4[:3]), "y": Z4[:3].copy()}),
    ("op.MatMult", "matmul-mixed", "x @ y", {"x": np.outer(R4, R4[:3]), "y": Z4[:3].copy()}),
    ("rt.matmul", "rt.matmul", "np.dot(x, y)", {"x": np.outer(Z4, R4[:3]), "y": R4[:3].copy()}),
    ("np.abs", "abs", "np.abs(x)", {"x": Z4}),
    ("abs", "builtin-abs", "abs(x)", {"x": 0.3 - 1.2j}),
    ("np.power", "np.power", "np.power(x, y)", {"x": Z4, "y": 2.5}),
    ("np.real", "attribute-real", "x.real * x.imag", {"x": Z4}),
    ("np.conj", "method-conj", "x.conj() * x", {"x": Z4}),
    ("np.copy", "copy", "np.copy(x) * x", {"x": Z4}),
    ("np.dot", "dot", "np.dot(x, y)", {"x": np.outer(Z4, R4[:3]), "y": Z4[:3].copy()}),
    ("np.ravel", "ravel", "np.ravel(x) * np.arange(6.0)", {"x": np.outer(Z4[:2], Z4[1:])}),
    ("np.sum", "sum-axis", "np.sum(x * x, axis=1)", {"x": np.outer(Z4[:2], Z4[1:])}),
    ("np.transpose", "transpose", "x.T @ y", {"x": np.outer(Z4[:2], Z4[1:]), "y": Z4[:2]}),
    ("np.where", "where", "np.where(y > 0.0, x, x * x)", {"x": Z4, "y": R4}),
    ("np.linalg.inv", "inv", "np.linalg.inv(x) @ y",
     {"x": np.eye(3) * 2.0 + 0.3 * np.outer(Z4[:3], Z4[1:]), "y": Z4[:3].copy()}),
    ("np.linalg.inv", "inv-real", "np.linalg.inv(x) @ y",
     {"x": np.eye(3) * 2.0 + 0.3 * np.outer(R4[:3], R4[1:]), "y": Z4[:3].copy()}),
    ("rt.solve", "solve", "np.linalg.solve(x, y)",
     {"x": np.eye(3) * 2.0 + 0.3 * np.outer(Z4[:3], Z4[1:]), "y": Z4[:3].copy()}),
    ("rt.solve", "solve-matrix", "np.linalg.solve(x, y)",
     {"x": np.eye(3) * 2.0 + 0.3 * np.outer(Z4[:3], Z4[1:]), "y": np.outer(Z4[:3], R4[:2])}),
    ("rt.solve", "solve-real-a", "np.linalg.solve(x, y)",
     {"x": np.eye(3) * 2.0 + 0.3 * np.outer(R4[:3], R4[1:]), "y": Z4[:3].copy()}),
    ("rt.solve", "solve-real-b", "np.linalg.solve(x, y)",
     {"x": np.eye(3) * 2.0 + 0.3 * np.outer(Z4[:3], Z4[1:]), "y": R4[:3].copy()}),
    ("rt.astype", "astype", "x.astype(np.complex128) * y", {"x": R4, "y": Z4}),
    ("rt.flatten", "flatten", "x.flatten() ** 2", {"x": np.outer(Z4[:2], Z4[1:])}),
    ("rt.mean", "mean-axis", "np.mean(x * x, axis=0)", {"x": np.outer(Z4[:2], Z4[1:])}),
    ("rt.reshape", "reshape", "np.reshape(x, (3, 2)) @ y",
     {"x": np.outer(Z4[:2], Z4[1:]), "y": Z4[:2]}),
]


def _module(sources):
    """A module of these function sources, written to a file (srcad reads the source)."""
    folder = tempfile.mkdtemp(prefix="srcad_complex_cases_")
    path = os.path.join(folder, "complex_cases.py")
    with open(path, "w") as f:
        f.write("import math\n\nimport numpy as np\n\n\n" + "\n\n".join(sources))
    spec = importlib.util.spec_from_file_location("complex_cases", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["complex_cases"] = module
    spec.loader.exec_module(module)
    return module


def _reduced(expr):
    """A real number made of a complex result: both parts and the squared magnitude."""
    return [f"v = {expr}", "return np.sum(0.7 * np.real(v) - 1.3 * np.imag(v) + np.abs(v) ** 2)"]


def _cases():
    out, sources = [], []
    for k, (rule, label, call, args, floats) in enumerate(_domain_cases()):
        text = ", ".join(p if p in floats else repr(v) for p, v in args.items())
        params = [p for p in args if p in floats]
        out.append((rule, label, f"case_{k}", {p: args[p] for p in params}))
        sources.append(_source(f"case_{k}", params, f"{call}({text})"))
    for k, (rule, label, expr, args) in enumerate(OPERATOR_CASES):
        out.append((rule, label, f"op_{k}", args))
        sources.append(_source(f"op_{k}", list(args), expr))
    module = _module(sources)
    return [(rule, label, getattr(module, name), args) for rule, label, name, args in out]


def _source(name, params, expr):
    return f"def {name}({', '.join(params)}):\n" + "".join(
        f"    {line}\n" for line in _reduced(expr))


CASES = _cases()
COMPILED = {"np.exp-array", "np.sqrt-2d", "np.fft.fft-2d", "np.fft.irfft-1d", "mean-axis",
            "np.real-array", "np.angle-array", "pow-complex-exponent", "abs", "matmul-mixed",
            "rt.conj-array", "sum-axis", "np.fft.ifft-1d", "rt.cumsum-2d", "rt.diff-2d",
            "where", "reshape", "np.fft.fft-1d", "np.tanh-array", "np.arcsin-scalar",
            "rt.repeat-2d", "inv", "solve", "solve-matrix", "solve-real-a", "solve-real-b"}


@pytest.mark.parametrize("case", CASES, ids=[c[1] for c in CASES])
def test_rule_at_complex_points(case):
    rule, label, fn, args = case
    wrt = tuple(range(len(args)))
    values = tuple(np.array(v) if isinstance(v, np.ndarray) else v for v in args.values())
    jit = label in COMPILED
    value, grad = srcad.value_and_grad(fn, wrt=wrt, jit=jit, on_jit_error="raise")(*values)
    assert value == pytest.approx(fn(*values), rel=1e-12)
    assert_grad_close(grad, fd_grad(fn, values, wrt), rtol=1e-5, atol=1e-6)


def test_compiled_cases_exist():
    assert COMPILED <= {c[1] for c in CASES}, COMPILED - {c[1] for c in CASES}


def _complex_rules():
    """Every rule of a function users call that takes complex operands, by name (srcad's
    own helpers, which forward-mode code calls, have their cases in test_rules)."""
    return {r.name for r in all_rules() if r.complex is not None and r.body and any(
        not getattr(fn, "__module__", "").startswith("srcad.")
        for fn in registry.functions_of(r))}


def test_every_complex_rule_is_covered():
    covered = {c[0] for c in CASES}
    assert _complex_rules() <= covered, sorted(_complex_rules() - covered)


def test_variants_are_the_rules_of_complex_operands():
    for fn in (np.abs, abs, np.power):
        rule = registry.lookup(fn)
        assert isinstance(rule.complex, registry.Rule) and rule.complex.complex is True


# ---------------------------------------------------------------------------
# Forward mode against reverse mode, complex tangents and cotangents
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("jit", [False, True])
def test_jvp_is_dual_to_vjp(jit):
    """Re<cotangent, J t> == Re<J^T cotangent, t>, unconjugated (JAX's pairing)."""
    def make():
        return (Z4 + 2.0,)

    out, pullback = srcad.vjp(cf.log_sqrt_power, *make(), jit=jit)
    t = np.cos(np.arange(4.0)) + 1j * np.sin(np.arange(4.0) + 0.5)
    _, tangent = srcad.jvp(cf.log_sqrt_power, make(), (t,), jit=jit)
    g = pullback(1.0)
    assert float(tangent) == pytest.approx(float(np.real(np.sum(g * t))), rel=1e-10)


def test_vjp_of_a_complex_output_takes_a_complex_cotangent():
    fn = _module(["def field(z):\n    return np.exp(1j * z) * z\n"]).field
    out, pullback = srcad.vjp(fn, Z4.copy(), jit=False)
    assert out.dtype == np.complex128
    np.testing.assert_allclose(out, fn(Z4))
    cot = np.array([1.0 - 0.5j, 0.3j, -0.7, 0.2 + 0.1j])
    got = pullback(cot)
    # the holomorphic derivative times the cotangent, unconjugated
    want = cot * (1j * np.exp(1j * Z4) * Z4 + np.exp(1j * Z4))
    np.testing.assert_allclose(got, want, rtol=1e-12)


# ---------------------------------------------------------------------------
# What srcad refuses, and how it says so
# ---------------------------------------------------------------------------

REFUSALS = [
    ("def f(z):\n    return np.sum(np.arctan2(z, 1.0).real)\n",
     "`np.arctan2` of a complex value is not supported"),
    ("def f(z):\n    return np.sum(np.where(z < 1.0, z, 0.0).real)\n",
     "complex numbers have no order"),
    ("def f(z):\n    return np.sum(z)\n", "returns a complex number"),
    ("def f(z):\n    return np.max(z).real\n", "of a complex value is not supported"),
    # grammar seed 150884: Python makes `(-3) ** 0.5` complex when it compiles the module;
    # srcad took it for a float, and math.hypot's derivative came out 1e16
    ("def f(z):\n    return math.hypot(np.max(z.real) * (-3) ** 0.5, 0.0)\n",
     "`math.hypot` of a complex value is not supported"),
]


@pytest.mark.parametrize("source, message", REFUSALS, ids=[m for _, m in REFUSALS])
def test_refusals_name_the_construct(source, message):
    fn = _module([source]).f
    with pytest.raises(SrcadError, match=message.replace("`", ".").replace("(", ".")) as err:
        srcad.grad(fn, jit=False)(Z4.copy())
    assert "complex_cases.py" in str(err.value)


def test_fft_without_rocket_fft_runs_as_python_and_says_why(monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "rocket_fft" else
                        real_find_spec(name, *a))
    fn = _module(["def f(u):\n    return np.sum(np.abs(np.fft.fft(u)) ** 2)\n"]).f
    u = np.cos(np.arange(6.0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = srcad.grad(fn, jit=True)(u)
    assert any(issubclass(w.category, SrcadWarning) and "srcad[fft]" in str(w.message)
               for w in caught)
    assert_grad_close(g, fd_grad(fn, (u,), 0))


def test_hessian_through_complex_intermediates_matches_differences_of_the_gradient():
    args = CORPUS["two_level"]()
    h = srcad.hessian(cf.two_level, wrt=(0, 1), jit=False)(*args)

    def grad_at(omega, detuning):
        g = srcad.grad(cf.two_level, wrt=(0, 1), jit=False)(omega, detuning, *args[2:])
        return np.array(g)

    eps = 1e-6
    for j, step in enumerate([(eps, 0.0), (0.0, eps)]):
        column = (grad_at(args[0] + step[0], args[1] + step[1]) -
                  grad_at(args[0] - step[0], args[1] - step[1])) / (2 * eps)
        np.testing.assert_allclose([float(h[0][j]), float(h[1][j])], column, rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda: srcad.jacobian(cf.phases, jit=False)(Z4.copy()),
    lambda: srcad.hessian(cf.phases, jit=False)(Z4.copy()),
    lambda: srcad.hvp(cf.phases, (Z4.copy(),), Z4.copy(), jit=False),
], ids=["jacobian", "hessian", "hvp"])
def test_jacobians_and_hessians_of_complex_arguments_are_refused(call):
    with pytest.raises(SrcadError, match="argument `z` is complex is not supported"):
        call()


def test_jacobian_of_a_complex_output_is_refused():
    fn = _module(["def field(x):\n    return np.exp(1j * x)\n"]).field
    for mode in ("rev", "fwd"):
        with pytest.raises(SrcadError, match="output is complex"):
            srcad.jacobian(fn, mode=mode, jit=False)(R4.copy())


# found by the grammar fuzzer's complex family (srcad.fuzz --family complex)

FUZZ_CASES = [
    ("def scaled_in_place(q):\n    q *= 0.5\n    w = q.copy()\n    w[1] -= 0.5j\n"
     "    w /= 2.0\n    return np.sum(np.abs(w))\n", (Z4.copy(),), True),
    ("def angle_of_zero(x):\n    return np.angle(np.sum(1j * (x * np.zeros(3))))\n",
     (0.4,), False),
    ("def conjugate_of_a_number(x):\n    c = complex(2.0, x + 0.5).conjugate() / 1.5\n"
     "    return c.imag\n", (2.0,), False),
    ("def irfft_of_a_real_array(a):\n    return np.sum(np.fft.irfft(a, 4) ** 2)\n",
     (R4[:3].copy(),), True),
]


@pytest.mark.parametrize("source, args, jit", FUZZ_CASES,
                         ids=[s.split("(")[0][4:] for s, _, _ in FUZZ_CASES])
def test_programs_the_fuzzer_found(source, args, jit):
    fn = getattr(_module([source]), source.split("(")[0][4:])

    def fresh():
        return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)

    value, grad = srcad.value_and_grad(fn, jit=jit, on_jit_error="raise")(*fresh())
    # exactly in Python (a Python complex stays one); compiled, sums may add in another order
    assert value == pytest.approx(fn(*fresh()), rel=1e-14 if jit else 0.0, abs=0.0)
    assert_grad_close(grad, fd_grad(fn, fresh(), 0), rtol=1e-5, atol=1e-6)


def test_complex_written_in_place_into_a_real_array_is_refused():
    fn = _module(["def f(a):\n    w = a * 1.0\n    w *= 1j\n    return np.sum(np.abs(w))\n"]).f
    with pytest.raises(SrcadError, match="writes complex numbers into a 1-d float array"):
        srcad.grad(fn, jit=False)(R4.copy())


def test_a_literal_power_that_python_makes_complex_is_complex():
    fn = _module(["def f(a):\n    return np.max(a) * ((-3) ** 0.5).imag + "
                  "np.sum(a * (-2.0) ** 1.5 * 1j).imag\n"]).f
    a = np.array([1.4, -0.8, 0.18])
    for jit in (False, True):
        value, got = srcad.value_and_grad(fn, jit=jit)(a)
        assert value == pytest.approx(fn(a), rel=1e-14)
        assert_grad_close(got, fd_grad(fn, (a,), 0))

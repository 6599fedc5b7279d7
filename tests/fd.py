"""Central finite differences, the independent reference for srcad's gradients.

`fd_grad(f, args, wrt)` mirrors `srcad.grad(f, wrt=wrt)(*args)`: `wrt` is a
position, a parameter name, or a tuple of them; a bare position or name gives a
bare gradient, a tuple gives a tuple in the same order.  The gradient has the
type of the argument: a float for a float, a float64 array of the argument's
shape for an array.

Every evaluation of `f` gets fresh copies of the array (and list) arguments, so functions
that write into their own arguments are measured correctly and the caller's
arguments are left untouched.
"""

import copy
import inspect

import numpy as np

REL_STEP = 1e-6


def resolve_position(f, wrt):
    """Return the position of parameter `wrt` (an int position or a name) of `f`."""
    if isinstance(wrt, str):
        names = list(inspect.signature(f).parameters)
        return names.index(wrt)
    return int(wrt)


def _fresh(args):
    return [np.array(a, copy=True) if isinstance(a, np.ndarray) else
            copy.deepcopy(a) if isinstance(a, list) else a for a in args]


def _value(f, args):
    return float(f(*_fresh(args)))


def _central(f, args, pos, x_plus, x_minus):
    plus = list(args)
    plus[pos] = x_plus
    minus = list(args)
    minus[pos] = x_minus
    return _value(f, plus) - _value(f, minus)


def fd_partial(f, args, pos, rel_step=REL_STEP):
    """Central-difference partial derivative of scalar `f(*args)` w.r.t. `args[pos]`.
    For a complex argument `z = x + iy`, JAX's convention: `df/dx - i df/dy`."""
    x = args[pos]
    if np.iscomplexobj(x):
        return _complex_partial(f, args, pos, rel_step)
    if isinstance(x, list):  # a list of floats (or of lists of them): perturbed as an array
        def with_list(*a):
            a = list(a)
            a[pos] = a[pos].tolist()
            return f(*a)

        arrays = list(args)
        arrays[pos] = np.asarray(x, dtype=np.float64)
        return fd_partial(with_list, tuple(arrays), pos, rel_step).tolist()
    if isinstance(x, np.ndarray):
        if not np.issubdtype(x.dtype, np.floating):
            raise TypeError(f"argument {pos} is a {x.dtype} array, not a float array")
        x = np.asarray(x, dtype=np.float64)
        g = np.zeros(x.shape)
        for idx in np.ndindex(x.shape):
            h = rel_step * max(1.0, abs(x[idx]))
            xp = x.copy()
            xm = x.copy()
            xp[idx] += h
            xm[idx] -= h
            step = xp[idx] - xm[idx]  # the step actually representable
            g[idx] = _central(f, args, pos, xp, xm) / step
        return g
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (float, np.floating)):
        raise TypeError(f"argument {pos} is {type(x).__name__}, not a float")
    x = float(x)
    h = rel_step * max(1.0, abs(x))
    xp, xm = x + h, x - h
    return _central(f, args, pos, xp, xm) / (xp - xm)


def fd_grad(f, args, wrt=0, rel_step=REL_STEP):
    """Finite-difference gradient of scalar `f(*args)`, shaped like srcad's."""
    args = tuple(args)
    if isinstance(wrt, tuple):
        return tuple(fd_partial(f, args, resolve_position(f, w), rel_step) for w in wrt)
    return fd_partial(f, args, resolve_position(f, wrt), rel_step)


def assert_grad_close(got, want, rtol=1e-5, atol=1e-7):
    """Assert that gradient `got` has the structure of `want` and is close to it.

    A tuple must be a tuple of the same length, an array an ndarray of the same
    shape, a list (of a list argument) a list of floats of the same shape, a float a
    float (not a tuple, not an array).
    """
    if isinstance(want, tuple):
        assert isinstance(got, tuple), f"expected a tuple of gradients, got {type(got).__name__}"
        assert len(got) == len(want), f"expected {len(want)} gradients, got {len(got)}"
        for k, (g, w) in enumerate(zip(got, want)):
            try:
                assert_grad_close(g, w, rtol, atol)
            except AssertionError as err:
                raise AssertionError(f"gradient {k} of the tuple: {err}") from None
        return
    if isinstance(want, list):
        assert isinstance(got, list), f"expected a list, got {type(got).__name__}"
        assert np.shape(got) == np.shape(want), \
            f"expected a list of shape {np.shape(want)}, got {np.shape(got)}"
        assert all(type(v) is float for v in np.ravel(np.array(got, dtype=object))), \
            "expected a list of floats"
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)
        return
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), f"expected an ndarray, got {type(got).__name__}"
        assert got.shape == want.shape, f"expected shape {want.shape}, got {got.shape}"
        assert got.dtype.kind == want.dtype.kind, f"expected {want.dtype}, got {got.dtype}"
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
        return
    assert not isinstance(got, (tuple, list, np.ndarray)), (
        f"expected a float, got {type(got).__name__}"
    )
    if isinstance(want, complex):
        assert isinstance(got, complex), f"expected a complex number, got {type(got).__name__}"
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
        return
    np.testing.assert_allclose(float(got), float(want), rtol=rtol, atol=atol)


def assert_value_and_grad(fn, make, wrt, jit, rel=1e-12):
    """srcad's value of `fn` at the arguments `make()` returns (fresh each time) is the
    function's own, within `rel` (0: exactly), and its gradient matches finite differences."""
    import pytest

    import srcad

    value, grad = srcad.value_and_grad(fn, wrt=wrt, jit=jit)(*make())
    assert value == pytest.approx(fn(*make()), rel=rel, abs=0.0)
    assert_grad_close(grad, fd_grad(fn, make(), wrt))


def _complex_partial(f, args, pos, rel_step):
    """The partial derivatives along the real and the imaginary parts of `args[pos]`."""
    z = args[pos]
    number = not isinstance(z, np.ndarray)
    parts = (float(np.real(z)), float(np.imag(z))) if number else \
        (np.real(z).copy(), np.imag(z).copy())

    def of_parts(re, im, *rest):
        joined = list(rest)
        joined.insert(pos, complex(re, im) if number else re + 1j * im)
        return f(*joined)

    rest = list(args[:pos]) + list(args[pos + 1:])
    along_re = fd_partial(of_parts, (*parts, *rest), 0, rel_step)
    along_im = fd_partial(of_parts, (*parts, *rest), 1, rel_step)
    return along_re - 1j * along_im

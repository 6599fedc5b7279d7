"""The peers of `python -m benchmarks --vectorized`, each in its most natural form.

- JAX: `jit(value_and_grad)`, float64. V1, V2 and V4 are the workload functions' own
  source with `np` bound to `jax.numpy` (what `import jax.numpy as np` does); V3 writes
  its slice with `.at[].set` and runs its steps with `lax.fori_loop`.
- autograd (HIPS): the workload functions' own source with `np` bound to
  `autograd.numpy`; it has no item assignment, so V3 builds each step's field by
  concatenating the new interior with the old boundary.
- PyTorch: eager mode, `torch.autograd.grad`, the same lines in torch's spelling (`dim=`,
  `torch.linalg`); V3 writes its slice in place into a clone, as the NumPy one does.

A peer whose package is missing is left out. `peer.prepare(key, args, wrt)` returns a
function of no arguments giving `(value, gradients)` as a float and a tuple of NumPy
values.
"""
import importlib.util
import types

import numpy as np

from benchmarks import vectorized_workloads as vw


def _installed(*modules):
    return all(importlib.util.find_spec(m) is not None for m in modules)


def _numpy_as(module, fn):
    """`fn` with the name `np` in its body bound to `module` instead of numpy."""
    return types.FunctionType(fn.__code__, dict(fn.__globals__, np=module), fn.__name__)


class Jax:
    name = "jax"
    package = "jax"

    def available(self):
        return _installed("jax", "jaxlib")

    def prepare(self, key, args, wrt):
        import jax
        jax.config.update("jax_enable_x64", True)
        fn = jax.jit(jax.value_and_grad(_jax_forms()[key], argnums=wrt))
        args = tuple(jax.numpy.asarray(a) for a in args)

        def run():
            value, grads = jax.block_until_ready(fn(*args))
            return float(value), tuple(np.asarray(g) for g in grads)
        return run


def _jax_forms():
    import jax.numpy as jnp
    from jax import lax

    def heat(u0, k):
        def step(_, u):
            return u.at[1:-1, 1:-1].set(u[1:-1, 1:-1] + k * (
                u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]))
        u = lax.fori_loop(0, vw.STEPS, step, u0)
        return jnp.sum(u * u)

    return {"V1": _numpy_as(jnp, vw.softmax_xent), "V2": _numpy_as(jnp, vw.pair_energy),
            "V3": heat, "V4": _numpy_as(jnp, vw.gauss_loglik)}


class Autograd:
    name = "autograd"
    package = "autograd"

    def available(self):
        return _installed("autograd")

    def prepare(self, key, args, wrt):
        from autograd import value_and_grad
        fn = value_and_grad(_autograd_forms()[key], list(wrt))

        def run():
            value, grads = fn(*args)
            return float(value), tuple(grads)
        return run


def _autograd_forms():
    import autograd.numpy as anp

    def heat(u0, k):
        u = u0
        for _ in range(vw.STEPS):
            inner = u[1:-1, 1:-1] + k * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:]
                                         + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])
            middle = anp.concatenate([u[1:-1, :1], inner, u[1:-1, -1:]], axis=1)
            u = anp.concatenate([u[:1], middle, u[-1:]], axis=0)
        return anp.sum(u * u)

    return {"V1": _numpy_as(anp, vw.softmax_xent), "V2": _numpy_as(anp, vw.pair_energy),
            "V3": heat, "V4": _numpy_as(anp, vw.gauss_loglik)}


class Torch:
    name = "torch"
    package = "torch"

    def available(self):
        return _installed("torch")

    def prepare(self, key, args, wrt):
        import torch
        fn = _torch_forms()[key]
        leaves = [a if isinstance(a, float) and k not in wrt else
                  torch.tensor(a, dtype=torch.float64, requires_grad=k in wrt)
                  for k, a in enumerate(args)]
        inputs = [leaves[k] for k in wrt]

        def run():
            value = fn(*leaves)
            grads = torch.autograd.grad(value, inputs)
            return (float(value.detach()),
                    tuple(_from_torch(g, args[k]) for g, k in zip(grads, wrt)))
        return run


def _from_torch(g, like):
    g = g.detach().numpy()
    return g if isinstance(like, np.ndarray) else float(g)


def _torch_forms():
    import torch

    def softmax_xent(W, b, X, Y):
        logits = X @ W + b
        logits = logits - torch.amax(logits, dim=1, keepdim=True)
        logp = logits - torch.log(torch.sum(torch.exp(logits), dim=1, keepdim=True))
        return -torch.mean(torch.sum(Y * logp, dim=1))

    def pair_energy(pos):
        d = pos[:, None, :] - pos[None, :, :]
        r2 = torch.sum(d * d, dim=-1) + vw.EPS
        e = 1.0 / r2**3 - 1.0 / r2**6
        return torch.sum(torch.triu(e, 1))

    def heat(u0, k):
        u = u0.clone()
        for _ in range(vw.STEPS):
            u[1:-1, 1:-1] = u[1:-1, 1:-1] + k * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:]
                                                 + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])
        return torch.sum(u * u)

    def gauss_loglik(A, r):
        n = A.shape[0]
        K = A @ A.T + n * torch.eye(n, dtype=torch.float64)
        sign, logdet = torch.linalg.slogdet(K)
        return -0.5 * (r @ torch.linalg.solve(K, r)) - 0.5 * logdet

    return {"V1": softmax_xent, "V2": pair_energy, "V3": heat, "V4": gauss_loglik}


ALL = (Jax(), Autograd(), Torch())

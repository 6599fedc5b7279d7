"""The peers srcad is compared with, each in its most natural form for the workload.

- JAX: `jit(value_and_grad)`, float64, the idiomatic form: `lax.scan` for the recurrences
  (W1, W6), vectorized NumPy-style code elsewhere (W2 masks the pair matrix to i < j).
- PyTorch: eager mode, the same loops as the srcad function (`torch.autograd.grad`).
- autograd (HIPS): the same loops, through `autograd.numpy`; it has no item assignment,
  so W5 accumulates its sum instead of writing `out[i, j]`.

Where the workload function itself runs unchanged on torch tensors or autograd boxes
(pure arithmetic, `abs`, indexing), it is used as is. A peer whose package is missing is
left out. `peer.prepare(key, args, wrt)` returns a function of no arguments giving
`(value, gradients)` as NumPy values; `peer.loops` names the workloads it runs as an
interpreted Python loop (slow: timed at a smaller size when the full one would take long).
"""
import importlib.util

import numpy as np

from benchmarks import workloads as wl


def _installed(*modules):
    return all(importlib.util.find_spec(m) is not None for m in modules)


def _static(args):
    return tuple(k for k, a in enumerate(args) if isinstance(a, int))


class Jax:
    name = "jax"
    loops = frozenset()

    def available(self):
        return _installed("jax", "jaxlib")

    def prepare(self, key, args, wrt):
        import jax
        jax.config.update("jax_enable_x64", True)
        fn = jax.jit(jax.value_and_grad(_jax_forms()[key], argnums=wrt),
                     static_argnums=_static(args))
        args = tuple(a if isinstance(a, int) else jax.numpy.asarray(a) for a in args)

        def run():
            value, grads = jax.block_until_ready(fn(*args))
            return float(value), tuple(np.asarray(g) for g in grads)
        return run


def _jax_forms():
    import jax.numpy as jnp
    from jax import lax

    def tanh_rnn(w, x):
        def step(h, xi):
            h = jnp.tanh(w * h + xi)
            return h, h * h
        _, squares = lax.scan(step, jnp.zeros_like(w), x)
        return jnp.sum(squares)

    def lennard_jones(pos):
        n = pos.shape[0]
        d = pos[:, None, :] - pos[None, :, :]
        upper = jnp.triu(jnp.ones((n, n), dtype=bool), 1)
        r2 = jnp.where(upper, jnp.sum(d * d, axis=-1), 1.0)
        s6 = 1.0 / (r2 * r2 * r2)
        return jnp.sum(jnp.where(upper, 4.0 * (s6 * s6 - s6), 0.0))

    def mlp(W1, W2, X, T):
        H = X @ W1
        return jnp.sum((jnp.where(H > 0, H, 0.0) @ W2 - T) ** 2)

    def huber(pred, target, scale):
        r = (pred - target) / scale
        a = jnp.abs(r)
        total = jnp.sum(jnp.where(a <= 1.0, 0.5 * r * r, a - 0.5))
        return total * scale * scale / pred.shape[0]

    def box_products(p, box):
        vol = jnp.prod(box, axis=0)
        return jnp.sum((vol[None, :] - jnp.prod(p, axis=1)[:, None]) / vol[None, :])

    def rk4_lorenz(x, y, z, s, r, b, nsteps):
        dt = 1e-5

        def f(x, y, z):
            return s * (y - x), x * (r - z) - y, x * y - b * z

        def step(u, _):  # a tuple carry: twice as fast as a stacked 3-vector here
            k1 = f(*u)
            k2 = f(*(a + 0.5 * dt * k for a, k in zip(u, k1)))
            k3 = f(*(a + 0.5 * dt * k for a, k in zip(u, k2)))
            k4 = f(*(a + dt * k for a, k in zip(u, k3)))
            return tuple(a + dt / 6.0 * (p + 2.0 * q + 2.0 * v + t)
                         for a, p, q, v, t in zip(u, k1, k2, k3, k4)), None
        (x, y, z), _ = lax.scan(step, (x, y, z), None, length=nsteps)
        return x * x + y * y + z * z

    return {"W1": tanh_rnn, "W2": lennard_jones, "W3": mlp, "W4": huber,
            "W5": box_products, "W6": rk4_lorenz}


class Torch:
    name = "torch"
    loops = frozenset({"W1", "W2", "W4", "W5", "W6"})

    def available(self):
        return _installed("torch")

    def prepare(self, key, args, wrt):
        import torch
        fn = _torch_forms()[key]
        leaves = []
        for k, a in enumerate(args):
            if isinstance(a, int) or (isinstance(a, float) and k not in wrt):
                leaves.append(a)
            else:
                leaves.append(torch.tensor(a, dtype=torch.float64, requires_grad=k in wrt))
        inputs = [leaves[k] for k in wrt]

        def run():
            value = fn(*leaves)
            grads = torch.autograd.grad(value, inputs)
            return float(value), tuple(_from_torch(g, args[k]) for g, k in zip(grads, wrt))
        return run


def _from_torch(g, like):
    g = g.detach().numpy()
    return g if isinstance(like, np.ndarray) else float(g)


def _torch_forms():
    import torch

    def tanh_rnn(w, x):
        h = torch.zeros((), dtype=torch.float64)
        loss = 0.0
        for i in range(x.shape[0]):
            h = torch.tanh(w * h + x[i])
            loss = loss + h * h
        return loss

    def mlp(W1, W2, X, T):
        H = X @ W1
        return torch.sum((torch.where(H > 0, H, 0.0) @ W2 - T) ** 2)

    def box_products(p, box):
        n, m = p.shape[0], box.shape[1]
        out = torch.zeros((n, m), dtype=torch.float64)
        for i in range(n):
            for j in range(m):
                out[i, j] = (torch.prod(box[:, j]) - torch.prod(p[i, :])) / torch.prod(box[:, j])
        return torch.sum(out)

    return {"W1": tanh_rnn, "W2": wl.lennard_jones, "W3": mlp, "W4": wl.huber,
            "W5": box_products, "W6": wl.rk4_lorenz}


class Autograd:
    name = "autograd"
    loops = frozenset({"W1", "W2", "W4", "W5", "W6"})

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

    def tanh_rnn(w, x):
        h = 0.0
        loss = 0.0
        for i in range(x.shape[0]):
            h = anp.tanh(w * h + x[i])
            loss = loss + h * h
        return loss

    def mlp(W1, W2, X, T):
        H = anp.dot(X, W1)
        return anp.sum((anp.dot(anp.where(H > 0, H, 0.0), W2) - T) ** 2)

    def box_products(p, box):
        total = 0.0
        for i in range(p.shape[0]):
            for j in range(box.shape[1]):
                total = total + (anp.prod(box[:, j]) - anp.prod(p[i, :])) / anp.prod(box[:, j])
        return total

    return {"W1": tanh_rnn, "W2": wl.lennard_jones, "W3": mlp, "W4": wl.huber,
            "W5": box_products, "W6": wl.rk4_lorenz}


ALL = (Jax(), Torch(), Autograd())

# What a reader of the table needs to know about a peer's form, printed under the table.
NOTES = {
    ("jax", "W5"): "jax computes each product once, vectorized (O((n + m) d)); the loop "
                   "form, and so the primal, computes them n m times (O(n m d))",
    ("autograd", "W5"): "autograd has no item assignment: it sums the terms instead of "
                        "writing out[i, j]",
}

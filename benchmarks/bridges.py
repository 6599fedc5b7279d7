"""Training with a srcad layer in PyTorch and in JAX, against each framework's own loop.

    python -m benchmarks.bridges [--smoke] [--rounds N]

The model: a batch of predator–prey trajectories (Lotka–Volterra, RK4 steps in a
Python loop) from learnable rates `theta`, observed through a learnable linear layer, fitted
by plain SGD to trajectories made with other rates. One training step is the loss, its
gradient and the update. Forms, one per row:

- `srcad.torch`: the simulator as `srcad.torch.function` (compiled sweeps, one autograd
  node), the readout a `torch.nn.Linear`, `torch.optim.SGD`;
- `torch autograd`: the same model, the simulator's loop run on tensors (vectorized over the
  batch, as one writes it in PyTorch), autograd recording every operation;
- `srcad.jax`: the simulator as `srcad.jax.function`, the whole step under `jax.jit`;
- `jax.jit, lax.scan`: the loop written as `lax.scan`, JAX's idiomatic form, the whole
  step under `jax.jit`;
- `jax.jit, loop`: `jax.jit(jax.grad)` of the same Python loop as PyTorch's, on `jnp`
  arrays, unrolled when traced. XLA's compile time of the unrolled RK4 steps grows
  exponentially with their number (measured at 32 trajectories: 3 s at 4 steps, 5 s at 5,
  20 s at 6, over two minutes at 8), so this form only gets its first step timed, at 1 to
  5 RK4 steps.

All forms share one RK4 step function. Before timing, each form's first gradient is
compared with the first one of `torch autograd` (the reference). Each step is then timed
in alternation with the others (see `benchmarks.measure`); the first step, which traces
and compiles, is reported apart. A framework that is not installed is left out.
"""
import argparse
import importlib.util
import sys

import numpy as np

from benchmarks.measure import Timer, alternate, once

TRUE_THETA = np.array([1.0, 0.4, 1.0, 0.2])
START_THETA = np.array([0.8, 0.5, 0.9, 0.25])
DT = 0.05
LEARNING_RATE = 1e-4


def rates(x, y, a, b, c, d):
    """Lotka–Volterra: prey x, predators y."""
    return a * x - b * x * y, d * x * y - c * y


def rk4_step(x, y, a, b, c, d, dt):
    """One classic RK4 step; plain arithmetic, so it runs on floats, tensors and arrays."""
    k1x, k1y = rates(x, y, a, b, c, d)
    k2x, k2y = rates(x + 0.5 * dt * k1x, y + 0.5 * dt * k1y, a, b, c, d)
    k3x, k3y = rates(x + 0.5 * dt * k2x, y + 0.5 * dt * k2y, a, b, c, d)
    k4x, k4y = rates(x + dt * k3x, y + dt * k3y, a, b, c, d)
    return (x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x),
            y + dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y))


def simulate(theta, x0, dt, nsteps):
    """The srcad layer: trajectories (batch, nsteps, 2) from initial states x0 (batch, 2)."""
    a, b, c, d = theta[0], theta[1], theta[2], theta[3]
    out = np.empty((x0.shape[0], nsteps, 2))
    for i in range(x0.shape[0]):
        x = x0[i, 0]
        y = x0[i, 1]
        for t in range(nsteps):
            x, y = rk4_step(x, y, a, b, c, d, dt)
            out[i, t, 0] = x
            out[i, t, 1] = y
    return out


def problem(batch, nsteps):
    """(initial states, observations, readout weight, readout bias): the observations
    are `simulate` at TRUE_THETA through a fixed linear map."""
    rng = np.random.default_rng(0)
    x0 = np.column_stack([rng.uniform(3.0, 6.0, batch), rng.uniform(1.5, 3.5, batch)])
    weight, bias = np.array([[1.0, 0.2], [-0.1, 0.8]]), np.array([0.1, -0.2])
    observed = simulate(TRUE_THETA, x0, DT, nsteps) @ weight.T + bias
    return x0, observed, np.eye(2), np.zeros(2)


# --- PyTorch ---------------------------------------------------------------------------


def torch_steps(batch, nsteps):
    """{row: training step}, each returning (loss, gradient of theta) as NumPy values."""
    import torch

    import srcad.torch

    x0, observed, weight, bias = problem(batch, nsteps)
    x0_t, observed_t = torch.from_numpy(x0), torch.from_numpy(observed)
    layer = srcad.torch.function(simulate, wrt="theta")

    def native(theta, x0, dt, nsteps):
        x, y, xs, ys = x0[:, 0], x0[:, 1], [], []
        for _ in range(nsteps):
            x, y = rk4_step(x, y, theta[0], theta[1], theta[2], theta[3], dt)
            xs.append(x)
            ys.append(y)
        return torch.stack([torch.stack(xs, 1), torch.stack(ys, 1)], -1)

    def trainer(sim):
        theta = torch.tensor(START_THETA, requires_grad=True)
        readout = torch.nn.Linear(2, 2, dtype=torch.float64)
        with torch.no_grad():
            readout.weight.copy_(torch.from_numpy(weight))
            readout.bias.copy_(torch.from_numpy(bias))
        optimizer = torch.optim.SGD([theta, *readout.parameters()], lr=LEARNING_RATE)

        def step():
            optimizer.zero_grad()
            loss = torch.mean((readout(sim(theta, x0_t, DT, nsteps)) - observed_t) ** 2)
            loss.backward()
            grad = theta.grad.numpy().copy()
            optimizer.step()
            return loss.item(), grad
        return step

    return {"srcad.torch": trainer(layer), "torch autograd": trainer(native)}


# --- JAX -------------------------------------------------------------------------------


def jax_steps(batch, nsteps, forms=("srcad.jax", "jax.jit, lax.scan")):
    """{row: training step}, as `torch_steps`."""
    import jax
    import jax.numpy as jnp

    import srcad.jax

    jax.config.update("jax_enable_x64", True)
    x0, observed, weight, bias = problem(batch, nsteps)
    sims = {"srcad.jax": srcad.jax.function(simulate, wrt="theta"),
            "jax.jit, loop": jax_loop, "jax.jit, lax.scan": jax_scan}

    def trainer(sim):
        def loss(params):
            theta, w, b = params
            return jnp.mean((sim(theta, x0, DT, nsteps) @ w.T + b - observed) ** 2)

        @jax.jit
        def update(params):
            value, grads = jax.value_and_grad(loss)(params)
            return value, grads[0], tuple(p - LEARNING_RATE * g for p, g in zip(params, grads))

        state = [tuple(map(jnp.asarray, (START_THETA, weight, bias)))]

        def step():
            value, grad, state[0] = update(state[0])
            return float(value), np.asarray(grad)
        return step

    return {name: trainer(sims[name]) for name in forms}


def jax_loop(theta, x0, dt, nsteps):
    """`simulate` for JAX as PyTorch's form: the Python loop, unrolled when traced."""
    import jax.numpy as jnp

    x, y, xs, ys = x0[:, 0], x0[:, 1], [], []
    for _ in range(nsteps):
        x, y = rk4_step(x, y, theta[0], theta[1], theta[2], theta[3], dt)
        xs.append(x)
        ys.append(y)
    return jnp.stack([jnp.stack(xs, 1), jnp.stack(ys, 1)], -1)


def jax_scan(theta, x0, dt, nsteps):
    """`simulate` in JAX's idiomatic form: the loop as `lax.scan`."""
    import jax
    import jax.numpy as jnp

    def step(state, _):
        state = rk4_step(*state, theta[0], theta[1], theta[2], theta[3], dt)
        return state, jnp.stack(state, -1)
    _, states = jax.lax.scan(step, (x0[:, 0], x0[:, 1]), None, length=nsteps)
    return jnp.swapaxes(states, 0, 1)


def unrolled_first_steps(batch, counts):
    """[(RK4 steps, seconds of the first training step)] of `jax.jit, loop`: XLA's compile
    time of the unrolled loop grows so fast with its length that the full size is out of
    reach, so it is measured at a few short lengths instead."""
    return [(n, once(jax_steps(batch, n, forms=("jax.jit, loop",))["jax.jit, loop"]))
            for n in counts]


# --- Measuring -------------------------------------------------------------------------


def available(module):
    return importlib.util.find_spec(module) is not None


def measure(batch, nsteps, rounds, train):
    """[(row, first step s, median step s, gradient error, first loss, loss after `train`
    steps)]: each form trains `train` steps from the same start (the first one timed
    alone), then its later steps are timed."""
    steps = {}
    if available("torch"):
        steps.update(torch_steps(batch, nsteps))
    if available("jax"):
        steps.update(jax_steps(batch, nsteps))
    runs = {name: train_run(step, train) for name, step in steps.items()}
    reference = runs.get("torch autograd", next(iter(runs.values())))["grad"]
    timers = {name: Timer(step) for name, step in steps.items()}
    alternate(list(timers.values()), rounds)
    rows = []
    for name, run in runs.items():
        error = float(np.max(np.abs(run["grad"] - reference)) / np.max(np.abs(reference)))
        rows.append((name, run["first_s"], timers[name].median(), error, run["losses"][0],
                     run["losses"][-1]))
    return rows


def train_run(step, n):
    """The first step's seconds and gradient, and the losses of `n` steps."""
    first = {}
    seconds = once(lambda: first.setdefault("result", step()))
    losses = [first["result"][0]] + [step()[0] for _ in range(n - 1)]
    return {"first_s": seconds, "grad": first["result"][1], "losses": losses}


def table(rows, batch, nsteps, train):
    lines = [f"Lotka–Volterra, {batch} trajectories × {nsteps} RK4 steps; plain SGD",
             "| form | ms per step | vs srcad | first step (s) | gradient error | "
             f"loss: step 1 → step {train} |",
             "| --- | ---: | ---: | ---: | ---: | --- |"]
    ours = {"torch" if "torch" in r[0] else "jax": r[2] for r in rows if r[0].startswith("srcad")}
    for name, first, median, error, before, after in rows:
        ratio = median / ours.get("torch" if "torch" in name else "jax", float("nan"))
        lines.append(f"| {name} | {median * 1e3:.2f} | {ratio:.1f}× | {first:.2f} | "
                     f"{error:.1e} | {before:.4g} → {after:.4g} |")
    return "\n".join(lines)


def main(argv=()):
    p = argparse.ArgumentParser(prog="python -m benchmarks.bridges",
                                description=__doc__.split("\n")[0])
    p.add_argument("--smoke", action="store_true", help="tiny sizes")
    p.add_argument("--rounds", type=int, default=5, help="timing rounds")
    opts = p.parse_args(argv)
    batch, nsteps, train = (4, 10, 5) if opts.smoke else (32, 100, 200)
    if not (available("torch") or available("jax")):
        print("neither PyTorch nor JAX is installed: pip install -e '.[torch,jax]'")
        return
    print(table(measure(batch, nsteps, opts.rounds, train), batch, nsteps, train))
    if available("jax"):
        firsts = unrolled_first_steps(batch, range(1, 3 if opts.smoke else 6))
        print("\njax.jit, loop (unrolled), first step (trace and compile): " +
              ", ".join(f"{n} RK4 step{'s' * (n > 1)} {sec:.2f} s" for n, sec in firsts))
    print("\n(ms per step: median of the timed rounds, after the training run; first step: "
          "tracing and compiling included; gradient error: max |d theta - torch autograd's| "
          "/ max |d theta| at the first step)")


if __name__ == "__main__":
    main(sys.argv[1:])

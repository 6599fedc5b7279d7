"""A srcad function as one PyTorch operation: `srcad.torch.function(f)`.

PyTorch sees the function as a single `torch.autograd.Function`. Its forward runs srcad's
forward sweep once (`srcad.vjp`) and keeps the pullback, with its tape, on the autograd
context; its backward runs only the compiled reverse sweep over that tape, on the incoming
gradient. So a loop that autograd would record op by op costs PyTorch one node.

    >>> import numpy as np, torch, srcad.torch
    >>> def energy(x, k):
    ...     e = 0.0
    ...     for i in range(x.shape[0] - 1):
    ...         e += k * (x[i + 1] - x[i]) ** 2
    ...     return e
    >>> layer = srcad.torch.function(energy, jit=False)
    >>> x = torch.tensor([0.0, 1.0, 3.0], dtype=torch.float64, requires_grad=True)
    >>> layer(x, 0.5).backward()
    >>> x.grad
    tensor([-1., -1.,  2.], dtype=torch.float64)

What it takes: CPU tensors of float64 (differentiated, shared with NumPy without a copy)
or of integers and bools (passed as NumPy arrays, without gradient), and any other
argument srcad takes (Python ints and floats pass through with no gradient). It refuses
CUDA tensors and float32/float16 tensors rather than move or widen them behind the
caller's back, as PyTorch's own operations refuse mixed devices and dtypes: the error
says to call `.double().cpu()`. Outputs are float64 tensors: a 0-d tensor for a float, a
tensor for an array, a tuple of them for a tuple. The backward is itself not
differentiable: a second derivative through it raises PyTorch's `once_differentiable`
error.
"""

import numpy as np

try:
    import torch
    from torch.autograd.function import once_differentiable
except ImportError as exc:  # pragma: no cover  (torch is an optional extra)
    raise ImportError("srcad.torch needs PyTorch: pip install srcad[torch]") from exc

from srcad.api import vjp
from srcad.bridge import Bridged


def function(f, wrt=None, jit="auto", on_jit_error="warn"):
    """`f` as a function on tensors whose backward is srcad's compiled reverse sweep.

    `wrt` (a position, a parameter name or a tuple of them) names the tensors that get
    gradients; None means every float64 tensor argument. The other arguments get none.
    `jit` and `on_jit_error` are as for `srcad.grad`."""
    return TorchFunction(f, wrt, jit, on_jit_error)


class TorchFunction(Bridged):
    """The function `srcad.torch.function` returns: call it like `f`, with tensors."""

    kind = "torch"

    def __call__(self, *args, **kwargs):
        args = self._bind(args, kwargs)
        floats = tuple(i for i, a in enumerate(args) if _is_float_tensor(a))
        for i, a in enumerate(args):
            if isinstance(a, torch.Tensor):
                self._check(a, self.params[i])
        positions = floats if self.wrt is None else self._wanted(args)
        if not positions:
            raise self._error("no float64 tensor argument to differentiate",
                              "pass the values to differentiate as float64 tensors")
        return _Sweeps.apply(self, positions, *args)

    def _wanted(self, args):
        """The positions in `wrt`, each checked to be a float64 tensor."""
        for i in self.wrt:
            if not _is_float_tensor(args[i]):
                raise self._error(
                    f"argument `{self.params[i]}` in `wrt` is {type(args[i]).__name__}, "
                    "not a float64 tensor, so PyTorch cannot receive its gradient",
                    "pass it as a float64 tensor, or leave it out of `wrt`")
        return self.wrt

    def _check(self, tensor, name):
        """Refuse what srcad would have to copy to another device or dtype."""
        if tensor.device.type != "cpu":
            raise self._error(f"argument `{name}` is a tensor on {tensor.device}; srcad "
                              "runs on the CPU", f"pass `{name}.double().cpu()` and move "
                              "the result back with `.to(device)`")
        if tensor.layout != torch.strided:
            raise self._error(f"argument `{name}` is a {tensor.layout} tensor",
                              f"pass `{name}.to_dense()`")
        if tensor.is_complex():
            raise self._error(f"argument `{name}` is a complex tensor; the bridge takes "
                              "real tensors (srcad.grad and srcad.vjp take complex arrays)",
                              f"pass `{name}.real` and `{name}.imag` as two arguments")
        if tensor.is_floating_point() and tensor.dtype != torch.float64:
            raise self._error(f"argument `{name}` is a {tensor.dtype} tensor; srcad "
                              "computes in float64 and does not widen tensors silently",
                              f"pass `{name}.double()` (or make float64 the default: "
                              "torch.set_default_dtype(torch.float64))")



class _Sweeps(torch.autograd.Function):
    """Forward: srcad's forward sweep, the pullback kept on `ctx`. Backward: the reverse
    sweep over that pullback's tape, for the incoming gradients."""

    @staticmethod
    def forward(ctx, bridge, positions, *args):
        arrays = tuple(_to_numpy(a) if isinstance(a, torch.Tensor) else a for a in args)
        out, pullback = vjp(bridge.fn, *arrays, wrt=positions, jit=bridge.jit,
                            on_jit_error=bridge.on_jit_error)
        ctx.pullback, ctx.positions, ctx.n = pullback, positions, len(args)
        if isinstance(out, tuple):
            return tuple(map(_to_tensor, out))
        return _to_tensor(out)

    @staticmethod
    @once_differentiable
    def backward(ctx, *grads):
        cotangents = tuple(map(_to_numpy, grads))
        d_args = ctx.pullback(cotangents if len(cotangents) > 1 else cotangents[0])
        result = [None] * (2 + ctx.n)
        for i, d in zip(ctx.positions, d_args):
            result[2 + i] = _to_tensor(d)
        return tuple(result)


def _is_float_tensor(value):
    return isinstance(value, torch.Tensor) and value.dtype == torch.float64


def _to_numpy(tensor):
    """The tensor's memory as a NumPy array (no copy: a CPU tensor shares it)."""
    return tensor.detach().numpy()


def _to_tensor(value):
    """A float64 tensor of a float or an array that srcad made (and nobody else holds)."""
    if isinstance(value, np.ndarray) and value.flags.writeable:
        return torch.from_numpy(value)
    return torch.tensor(value, dtype=torch.float64)


__all__ = ["TorchFunction", "function"]

"""What the framework bridges (`srcad.torch`, `srcad.jax`) share: a function of the user's
with its signature, the positions it is differentiated at, and errors that name the bridge
and the function. Imports no framework."""
import inspect

from srcad.errors import SrcadError
from srcad.source import _python_function, wrt_positions


class Bridged:
    """`f` as one operation of a framework (`kind`, "torch" or "jax"): called like `f`."""

    kind = None

    def __init__(self, f, wrt, jit, on_jit_error):
        self.fn = _python_function(f)
        self.signature = inspect.signature(self.fn)
        self.params = tuple(self.signature.parameters)
        self.wrt = None if wrt is None else wrt_positions(
            wrt, self.params, f"srcad.{self.kind}.function({self.fn.__name__})")
        self.jit, self.on_jit_error = jit, on_jit_error
        self.__name__ = self.fn.__name__
        self.__qualname__ = self.fn.__qualname__
        self.__doc__ = self.fn.__doc__
        self.__wrapped__ = self.fn

    def _bind(self, args, kwargs):
        """All arguments in order, defaults filled in."""
        if not kwargs and len(args) == len(self.params):
            return args
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise self._error(f"bad arguments: {exc}",
                              f"call it as `{self.__name__}{self.signature}`") from None
        bound.apply_defaults()
        return tuple(bound.arguments.values())

    def _error(self, message, hint):
        return SrcadError(f"srcad.{self.kind}.function({self.__name__}): {message}", hint=hint)

    def __repr__(self):
        return f"<srcad.{self.kind}.function of {self.__name__}{self.signature}>"

"""AD-agnostic code generation: fresh names, templates, emission, module files, Numba.

Nothing here knows about derivatives; `srcad` drives it.
"""
from codegen.emit import comment, to_source
from codegen.jit import compile_module
from codegen.module import load_module
from codegen.names import Namer
from codegen.templates import fill

__all__ = ["Namer", "comment", "compile_module", "fill", "load_module", "to_source"]

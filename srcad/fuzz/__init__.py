"""Random-program fuzzers for srcad: each program's gradient is checked against finite
differences and forward mode, and its value against the function's own.

`checker` runs and classifies programs, with `compare` (finite differences, values bit for
bit) and `kernels` (in-place kernels, programs that raise); `programs` and `grammar`
generate them (the first in the shapes of code srcad supports, the second from Python's
grammar); `shrink` minimizes a failing one.  `python -m srcad.fuzz --help` for the command line.
"""
from srcad.fuzz.checker import (
                                CRASH,
                                GENERATORS,
                                OK,
                                OUTCOMES,
                                REFUSED,
                                SKIPPED,
                                WRONG,
                                Result,
                                as_spec,
                                check,
                                check_program,
                                check_source,
                                generate,
                                load,
                                main,
                                parse_header,
                                parse_out,
                                write_failure,
)

__all__ = ["CRASH", "GENERATORS", "OK", "OUTCOMES", "REFUSED", "SKIPPED", "WRONG", "Result",
           "as_spec", "check", "check_program", "check_source", "generate", "load", "main",
           "parse_header", "parse_out", "write_failure"]

"""Random-program fuzzers for srcad: each program's gradient is checked against finite
differences and forward mode, and its value against the function's own.

`checker` runs and classifies programs; `programs` generates them; `shrink` minimizes a
failing one.  `python -m srcad.fuzz --help` for the command line.
"""
from srcad.fuzz.checker import (
                                CRASH,
                                OK,
                                OUTCOMES,
                                REFUSED,
                                SKIPPED,
                                WRONG,
                                Result,
                                check,
                                check_program,
                                check_source,
                                load,
                                main,
                                write_failure,
)
from srcad.fuzz.programs import generate

__all__ = ["CRASH", "OK", "OUTCOMES", "REFUSED", "SKIPPED", "WRONG", "Result", "check",
           "check_program", "check_source", "generate", "load", "main", "write_failure"]

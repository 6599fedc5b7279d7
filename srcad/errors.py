"""srcad's one exception family and its warning."""


class SrcadError(Exception):
    """srcad refuses a function, an argument or a construct.

    The message names the construct, the file and line of the user's code, and what to do.
    """

    def __init__(self, message, *, construct=None, filename=None, lineno=None, hint=None):
        self.construct = construct
        self.filename = filename
        self.lineno = lineno
        self.hint = hint
        parts = []
        if filename is not None:
            parts.append(f"{filename}:{lineno}: " if lineno is not None else f"{filename}: ")
        parts.append(message)
        if construct:
            parts.append(f"\n    {construct}")
        if hint:
            parts.append(f"\n  hint: {hint}")
        super().__init__("".join(parts))


class UnsupportedError(SrcadError):
    """The function uses Python that srcad does not differentiate."""


class NoRuleError(SrcadError):
    """A call to a function that has no derivative rule."""


class SrcadWarning(UserWarning):
    """Something srcad worked around: for example Numba could not compile the sweeps."""

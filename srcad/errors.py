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


class InternalError(SrcadError):
    """srcad failed on a function it should have differentiated or refused: a bug in srcad.

    The message names the user's line that srcad was working on and the original
    exception, which is chained as `__cause__`.
    """


def internal_error(exc, fsrc=None, node=None, stage="transform"):
    """An `InternalError` for an unexpected exception `exc` raised while srcad worked on
    `node` of the user's function `fsrc` (either may be None: the place is then found in
    the traceback, from the innermost frame that was working on a user statement)."""
    if fsrc is None or node is None:
        fsrc, node = _place(exc.__traceback__) or (fsrc, node)
    what = f"{type(exc).__name__}: {exc}".strip()
    message = (f"srcad failed on this line ({stage}: {what}); this is a bug in srcad, not in "
               "your code")
    hint = ("please report it with the function and the arguments' types; until it is "
            "fixed, rewriting this line (splitting it into simpler statements) may avoid it")
    if fsrc is not None:
        err = fsrc.error(message, node if node is not None else fsrc.node, hint, InternalError)
    else:
        err = InternalError(message, hint=hint)
    return err


_NODE_NAMES = ("s", "stmt", "node", "statement")


def _place(tb):
    """(FunctionSource, statement) of the innermost traceback frame that knows both."""
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        local = frame.f_locals
        fsrc = _fsrc_of(local)
        node = next((local[n] for n in _NODE_NAMES
                     if getattr(local.get(n), "lineno", None) is not None
                     and type(local.get(n)).__module__ == "gast.gast"), None)
        if fsrc is not None and node is not None:
            return fsrc, node
    for frame in reversed(frames):  # no statement known: at least the function
        fsrc = _fsrc_of(frame.f_locals)
        if fsrc is not None:
            return fsrc, None
    return None


def _fsrc_of(local):
    for candidate in (local.get("fsrc"), getattr(local.get("ctx"), "fsrc", None),
                      getattr(getattr(local.get("self"), "ctx", None), "fsrc", None),
                      getattr(local.get("self"), "fsrc", None), local.get("at")):
        if hasattr(candidate, "error") and hasattr(candidate, "lines"):
            return candidate
    return None

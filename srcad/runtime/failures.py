"""The placeholder of a `raise` between LowerRaises and RestoreRaises."""


def fail(k):
    """Stands for the k-th `raise` of a function while passes run; generated code holds
    the `raise` itself, so reaching this is a bug in srcad."""
    raise RuntimeError(f"srcad: the placeholder of raise #{k} was left in generated code")

"""The placeholders of a `raise` and a `print` between LowerRaises (LowerPrints) and
RestoreRaises."""


def fail(k):
    """Stands for the k-th `raise` of a function while passes run; generated code holds
    the `raise` itself, so reaching this is a bug in srcad."""
    raise RuntimeError(f"srcad: the placeholder of raise #{k} was left in generated code")


def show(k, a=None, b=None, c=None, d=None, e=None, f=None, g=None, h=None):
    """Stands for the k-th `print` of a function while passes run (see `fail`)."""
    raise RuntimeError(f"srcad: the placeholder of print #{k} was left in generated code")

"""Argument kinds guessed before any call, for showing generated code without example
arguments (`srcad.source(g)` before `g` has run, `python -m srcad show`)."""
import inspect

import gast
import numpy as np

from srcad.kinds import BOOL, FLOAT, INT, Kind, of_value
from srcad.source import FunctionSource

_ANNOTATIONS = {float: FLOAT, int: INT, bool: BOOL, "float": FLOAT, "int": INT, "bool": BOOL}


def guess_kinds(fn):
    """Kinds for `fn`'s parameters: from an annotation (`float`, `int`, `bool`, an array
    type), else from a default value, else from how the body uses the parameter
    (subscripts and `.shape[k]` make arrays of that rank, `range(p)` makes an int), else
    a float. An array annotation takes its rank from the body (1 at least)."""
    ranks, ints = _uses(FunctionSource(fn).node)
    out = []
    for name, p in inspect.signature(fn).parameters.items():
        note = p.annotation
        if note in _ANNOTATIONS:
            out.append(_ANNOTATIONS[note])
        elif note is not p.empty and _is_array_type(note):
            out.append(Kind("f", max(ranks.get(name, 0), 1)))
        elif p.default is not p.empty and of_value(p.default) is not None:
            out.append(of_value(p.default))
        elif ranks.get(name):
            out.append(Kind("f", ranks[name]))
        else:
            out.append(INT if name in ints else FLOAT)
    return tuple(out)


def _is_array_type(note):
    text = note if isinstance(note, str) else getattr(note, "__name__", None) or repr(note)
    return note is np.ndarray or "ndarray" in str(text) or "NDArray" in str(text) or \
        "ArrayLike" in str(text)


def _uses(node):
    """(rank each parameter is indexed with, the parameters used as `range` bounds)."""
    params = [a.id for a in node.args.args]
    ranks, ints = dict.fromkeys(params, 0), set()
    for sub in gast.walk(node):
        if isinstance(sub, gast.Subscript) and isinstance(sub.value, gast.Name) \
                and sub.value.id in ranks:
            n = len(sub.slice.elts) if isinstance(sub.slice, gast.Tuple) else 1
            ranks[sub.value.id] = max(ranks[sub.value.id], n)
        if isinstance(sub, gast.Subscript) and isinstance(sub.value, gast.Attribute) \
                and sub.value.attr == "shape" and isinstance(sub.value.value, gast.Name) \
                and isinstance(sub.slice, gast.Constant) and sub.value.value.id in ranks:
            name = sub.value.value.id
            ranks[name] = max(ranks[name], sub.slice.value + 1)
        if isinstance(sub, gast.Call) and isinstance(sub.func, gast.Name) \
                and sub.func.id == "range":
            ints |= {a.id for a in sub.args if isinstance(a, gast.Name)}
    return ranks, ints

"""`python -m srcad show file.py:func [--wrt 0,1] [--types float,1d] [--nojit]`."""
import argparse
import importlib.util
import os
import sys

import gast

from srcad.api import GradFunction
from srcad.errors import SrcadError
from srcad.kinds import BOOL, FLOAT, INT, Kind
from srcad.source import FunctionSource

_TYPES = {"float": FLOAT, "int": INT, "bool": BOOL}


def parse_type(text):
    """`float`, `int`, `bool`, or `<n>d` (a float array of rank n), `<n>d-int`."""
    text = text.strip().lower()
    if text in _TYPES:
        return _TYPES[text]
    rank, _, dtype = text.partition("-")
    if rank.endswith("d") and rank[:-1].isdigit():
        return Kind({"": "f", "float": "f", "int": "i", "bool": "b"}[dtype], int(rank[:-1]))
    raise SrcadError(f"unknown type {text!r}", hint="use float, int, bool, 1d, 2d, 1d-int, ...")


def guess_kinds(fn):
    """Kinds for `fn`'s parameters from how the body uses them: subscripts and `.shape[k]`
    make arrays of that rank, `range(p)` makes an int, anything else is a float."""
    node = FunctionSource(fn).node
    params = [a.id for a in node.args.args]
    ranks, ints = dict.fromkeys(params, 0), set()
    for sub in gast.walk(node):
        if isinstance(sub, gast.Subscript) and isinstance(sub.value, gast.Name):
            n = len(sub.slice.elts) if isinstance(sub.slice, gast.Tuple) else 1
            if sub.value.id in ranks:
                ranks[sub.value.id] = max(ranks[sub.value.id], n)
            if isinstance(sub.value, gast.Attribute):
                pass
        if isinstance(sub, gast.Subscript) and isinstance(sub.value, gast.Attribute) \
                and sub.value.attr == "shape" and isinstance(sub.value.value, gast.Name) \
                and isinstance(sub.slice, gast.Constant) and sub.value.value.id in ranks:
            name = sub.value.value.id
            ranks[name] = max(ranks[name], sub.slice.value + 1)
        if isinstance(sub, gast.Call) and isinstance(sub.func, gast.Name) \
                and sub.func.id == "range":
            ints |= {a.id for a in sub.args if isinstance(a, gast.Name)}
    return tuple(Kind("f", ranks[p]) if ranks[p] else INT if p in ints else FLOAT
                 for p in params)


def load_function(spec):
    path, _, name = spec.rpartition(":")
    if not path or not name:
        raise SrcadError(f"expected path/to/file.py:function, got {spec!r}")
    if not os.path.exists(path):
        raise SrcadError(f"no such file: {path}")
    module_name = "_srcad_cli_" + os.path.splitext(os.path.basename(path))[0]
    spec_ = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec_)
    sys.modules[module_name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec_.loader.exec_module(module)
    if not hasattr(module, name):
        raise SrcadError(f"{path} has no function {name!r}")
    return getattr(module, name)


def show(args):
    fn = load_function(args.target)
    wrt = tuple(int(w) if w.strip().lstrip("-").isdigit() else w.strip()
                for w in args.wrt.split(","))
    g = GradFunction(fn, wrt if len(wrt) > 1 else wrt[0], jit=not args.nojit, with_value=False)
    kinds = (tuple(parse_type(t) for t in args.types.split(",")) if args.types
             else guess_kinds(fn))
    if len(kinds) != len(g.params):
        raise SrcadError(f"--types gives {len(kinds)} types for {len(g.params)} parameters "
                         f"({', '.join(g.params)})")
    for i in g.positions:
        if not kinds[i].is_float:
            raise SrcadError(f"parameter `{g.params[i]}` in --wrt has type {kinds[i]}",
                             hint="give it a float type with --types")
    print(g.build_kinds(kinds).source)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m srcad", description="srcad: source-transformation AD for numeric Python")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("show", help="print the generated forward/reverse module of a function")
    p.add_argument("target", help="path/to/file.py:function")
    p.add_argument("--wrt", default="0", help="positions or names, comma separated (default 0)")
    p.add_argument("--types", default=None,
                   help="parameter types, comma separated: float, int, bool, 1d, 2d, 1d-int... "
                   "(default: guessed from how the body uses each parameter)")
    p.add_argument("--nojit", action="store_true",
                   help="do not compile with Numba (the module shown is the same)")
    sub.add_parser("demo", help="differentiate an example, check it, print the generated code")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from srcad.demo import main as demo
        return demo()
    try:
        show(args)
    except SrcadError as exc:
        print(f"srcad: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

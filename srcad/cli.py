"""The command line.

`python -m srcad show file.py:func [--wrt 0,1] [--types float,1d] [--mode rev|fwd] [--color]`
prints the generated module; `python -m srcad check file.py:func --args 0.5,[1,2,3]` prints
the gradient beside central finite differences and exits 1 when they disagree;
`python -m srcad precompile file.py:func --args ...` compiles its sweeps into the cache, and
`python -m srcad cache [--clear]` says where the cache is and how big (or empties it).
"""
import argparse
import ast
import importlib.util
import os
import sys

import numpy as np

from codegen.module import cache_dir
from srcad.api import GradFunction
from srcad.display import to_terminal, user_functions
from srcad.errors import SrcadError
from srcad.guess import guess_kinds
from srcad.kinds import BOOL, FLOAT, INT, Kind

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


def load_function(spec, prefix="_srcad_cli_"):
    """The function `spec` names: `path/to/file.py:function`, or `package.module:function`
    for an importable module. A file is loaded as a module named `prefix` + its name."""
    path, _, name = spec.rpartition(":")
    if not path or not name:
        raise SrcadError(f"expected path/to/file.py:function, got {spec!r}")
    if not path.endswith(".py") and not os.path.exists(path):
        module = _imported(lambda: importlib.import_module(path), path)
        if not hasattr(module, name):
            raise SrcadError(f"module {path} has no function {name!r}")
        return getattr(module, name)
    if not os.path.exists(path):
        raise SrcadError(f"no such file: {path}")
    module_name = prefix + os.path.splitext(os.path.basename(path))[0]
    spec_ = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec_)
    sys.modules[module_name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    _imported(lambda: spec_.loader.exec_module(module), path)
    if not hasattr(module, name):
        raise SrcadError(f"{path} has no function {name!r}")
    return getattr(module, name)


def _imported(load, where):
    """Run `load()`, which imports the user's module; an error in that module is a
    SrcadError that says where, not a traceback through srcad."""
    try:
        return load()
    except SyntaxError as exc:
        raise SrcadError(f"{exc.filename}:{exc.lineno}: syntax error: {exc.msg}",
                         hint="fix the file, then run the command again") from None
    except Exception as exc:  # noqa: BLE001  (whatever the module raises while importing)
        raise SrcadError(f"importing {where} failed: {type(exc).__name__}: {exc}",
                         hint="the file must import on its own, as `python file.py` would"
                         ) from None


def parse_wrt(text):
    """`0,1` or `w,xs`: positions and names, a bare one for a single entry."""
    wrt = tuple(int(w) if w.strip().lstrip("-").isdigit() else w.strip()
                for w in text.split(","))
    return wrt if len(wrt) > 1 else wrt[0]


def show(args):
    fn = load_function(args.target)
    g = GradFunction(fn, parse_wrt(args.wrt), jit=not args.nojit, with_value=False,
                     scalar_output=args.mode == "rev")
    kinds = (tuple(parse_type(t) for t in args.types.split(",")) if args.types
             else guess_kinds(fn))
    if len(kinds) != len(g.params):
        raise SrcadError(f"--types gives {len(kinds)} types for {len(g.params)} parameters "
                         f"({', '.join(g.params)})")
    for i in g.positions:
        if not kinds[i].is_float:
            raise SrcadError(f"parameter `{g.params[i]}` in --wrt has type {kinds[i]}",
                             hint="give it a float type with --types")
    compiled = g.build_kinds(kinds, mode=args.mode)
    if args.color:
        print(to_terminal(compiled.source, user_functions(compiled.program)), end="")
    else:
        print(compiled.source)


def parse_args(texts):
    """Argument values from Python literals: `0.5,[1,2,3]` (or several words, joined by commas).

    Lists become float64 NumPy arrays (nested lists, arrays of higher rank); ints, floats
    and bools stay as they are.
    """
    text = ",".join(texts)
    try:
        values = ast.literal_eval(f"({text},)")
    except (ValueError, SyntaxError):
        raise SrcadError(f"cannot read --args {text!r}: only Python literals are taken",
                         hint="numbers and lists separated by commas, e.g. 0.5,[1,2,3]"
                         ) from None
    return tuple(np.array(v, dtype=np.float64) if isinstance(v, (list, tuple)) else v
                 for v in values)


def central_differences(fn, args, pos, eps):
    """d fn / d args[pos] by central differences, step `eps * max(1, |x|)` per element."""
    def value(arg):
        call = [np.array(a) if isinstance(a, np.ndarray) else a for a in args]
        call[pos] = arg
        return float(fn(*call))

    x = args[pos]
    if np.ndim(x) == 0:
        h = eps * max(1.0, abs(x))
        return (value(x + h) - value(x - h)) / (2 * h)
    out = np.zeros(x.shape)
    for k in range(x.size):
        h = eps * max(1.0, abs(x.flat[k]))
        hi, lo = x.copy(), x.copy()
        hi.flat[k] += h
        lo.flat[k] -= h
        out.flat[k] = (value(hi) - value(lo)) / (2 * h)
    return out


def relative_error(g, fd):
    """Elementwise |g - fd| over the argument's largest gradient, max(|g|, |fd|, 1e-8): the
    finite differences' rounding noise on a near-zero element is not a large error."""
    g, fd = np.asarray(g, dtype=np.float64), np.asarray(fd, dtype=np.float64)
    return np.abs(g - fd) / max(float(np.max(np.abs(g), initial=0.0)),
                                float(np.max(np.abs(fd), initial=0.0)), 1e-8)


def check(args, out=None):
    """Print srcad's gradient beside central finite differences; True when they agree."""
    out = out or sys.stdout
    fn = load_function(args.target)
    values = parse_args(args.args)
    params = list(GradFunction(fn, 0, jit=False, with_value=False).params)
    if len(values) != len(params):
        raise SrcadError(f"--args gives {len(values)} values for {len(params)} parameters "
                         f"({', '.join(params)})")
    g = GradFunction(fn, _check_wrt(args.wrt, values), jit=not args.nojit, with_value=True)
    value, grads = g(*values)
    shown = ", ".join(f"{p}={_describe(v)}" for p, v in zip(params, values))
    print(f"{g.fsrc.name}({shown}) = {value!r}", file=out)
    print(f"{'':14}{'srcad':>22}{'finite differences':>22}{'rel. error':>12}", file=out)
    worst = 0.0
    for i, grad in zip(g.positions, grads):
        worst = max(worst, _compare_argument(fn, values, i, grad, params[i], args, out))
    ok = worst <= args.rtol
    print(f"max relative error {worst:.1e} (tolerance {args.rtol:g}): "
          f"{'OK' if ok else 'MISMATCH'}", file=out)
    return ok


def _check_wrt(text, values):
    """The positions `check` differentiates: those of --wrt, or of every float argument."""
    if text is None:
        wrt = tuple(i for i, v in enumerate(values)
                    if isinstance(v, float) or getattr(v, "dtype", None) == np.float64)
        if not wrt:
            raise SrcadError("no float argument to differentiate",
                             hint="write floats as 1.0, or name the parameters with --wrt")
        return wrt
    wrt = parse_wrt(text)
    return wrt if isinstance(wrt, tuple) else (wrt,)


def _compare_argument(fn, values, i, grad, name, args, out):
    """Print the gradient for argument `i` (called `name`) beside central finite
    differences, `args.rows` elements at most; its largest relative error."""
    fd = central_differences(fn, values, i, args.eps)
    err = relative_error(grad, fd)
    worst = float(np.max(err, initial=0.0))
    flat_g, flat_fd, flat_err = (np.ravel(a) for a in (grad, fd, err))
    for k in range(min(flat_g.size, args.rows)):
        index = "" if np.ndim(grad) == 0 else \
            "[" + ", ".join(map(str, np.unravel_index(k, np.shape(grad)))) + "]"
        print(f"d/d {name + index:<10}{flat_g[k]:>22.12g}{flat_fd[k]:>22.12g}"
              f"{flat_err[k]:>12.1e}", file=out)
    if flat_g.size > args.rows:
        print(f"    ... {flat_g.size - args.rows} more elements of {name} "
              "(checked, not shown)", file=out)
    return worst


def _describe(value):
    if isinstance(value, np.ndarray):
        return f"array{value.shape}" if value.size > 6 else np.array2string(value, separator=",")
    return repr(value)


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.command == "demo":
        from srcad.demo import main as demo
        return demo()
    try:
        if args.command == "check":
            return 0 if check(args) else 1
        if args.command == "cache":
            return cache(args)
        if args.command == "precompile":
            return precompile(args)
        show(args)
    except SrcadError as exc:
        print(f"srcad: error: {exc}", file=sys.stderr)
        return 2
    return 0


def _parser():
    parser = argparse.ArgumentParser(
        prog=_program_name(), description="srcad: source-transformation AD for numeric Python")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_show_command(sub)
    _add_check_command(sub)
    sub.add_parser("demo", help="differentiate an example, check it, print the generated code")
    c = sub.add_parser("cache", help="the cache directory of generated and compiled modules")
    c.add_argument("--clear", action="store_true", help="delete everything in it")
    p = sub.add_parser("precompile", help="compile a function's sweeps into the cache now")
    p.add_argument("target", help="path/to/file.py:function or package.module:function, as "
                   "the program that calls it imports it")
    p.add_argument("--args", nargs="+", required=True, metavar="VALUES",
                   help="example arguments, as for `check` (their types and ranks count)")
    p.add_argument("--wrt", default="0", help="positions or names, comma separated (default 0)")
    return parser


def cache(args):
    """Print where the cache directory is and its size; with --clear, empty it."""
    root = cache_dir()
    files = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs]
    size = sum(os.path.getsize(f) for f in files if os.path.isfile(f))
    modules = sum(f.endswith(".py") for f in files)
    print(f"{root}: {modules} generated modules, {len(files)} files, {size / 1e6:.1f} MB")
    if args.clear and os.path.isdir(root):
        import shutil

        for entry in os.listdir(root):
            path = os.path.join(root, entry)
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
        print(f"cleared {root}")
    return 0


def precompile(args):
    """Compile the sweeps of a function for the example arguments' types."""
    from srcad.api import precompile as compile_now

    fn = load_function(args.target, prefix="")  # named as `import` names it, for its key
    seconds = compile_now(fn, *parse_args(args.args), wrt=parse_wrt(args.wrt))
    print(f"{args.target}: compiled in {seconds:.1f} s, into {cache_dir()}")
    return 0


def _program_name():
    """`srcad` when run as the installed command, `python -m srcad` otherwise."""
    return "srcad" if os.path.basename(sys.argv[0]) == "srcad" else "python -m srcad"


def _add_show_command(sub):
    p = sub.add_parser("show", help="print the generated forward/reverse module of a function")
    p.add_argument("target", help="path/to/file.py:function")
    p.add_argument("--wrt", default="0", help="positions or names, comma separated (default 0)")
    p.add_argument("--types", default=None,
                   help="parameter types, comma separated: float, int, bool, 1d, 2d, 1d-int... "
                   "(default: guessed from how the body uses each parameter)")
    p.add_argument("--nojit", action="store_true",
                   help="do not compile with Numba (the module shown is the same)")
    p.add_argument("--mode", choices=("rev", "fwd"), default="rev",
                   help="rev: the forward and reverse sweeps (default); fwd: the forward-mode "
                   "<f>_jvp module")
    p.add_argument("--color", action="store_true",
                   help="highlight with Pygments (plain when it is not installed), each "
                   "`# grad of:` comment followed by the place of its line in the file")


def _add_check_command(sub):
    c = sub.add_parser("check", help="compare the gradient with central finite differences")
    c.add_argument("target", help="path/to/file.py:function (returning a float)")
    c.add_argument("--args", nargs="+", required=True, metavar="VALUES",
                   help="the arguments as Python literals, comma separated: 0.5,[1,2,3],4; "
                   "lists become float64 arrays, 4 stays an int and 4.0 is a float")
    c.add_argument("--wrt", default=None,
                   help="positions or names, comma separated (default: every float argument)")
    c.add_argument("--eps", type=float, default=1e-6,
                   help="finite-difference step, relative to max(1, |x|) (default 1e-6)")
    c.add_argument("--rtol", type=float, default=1e-5,
                   help="largest relative error that passes (default 1e-5); an element's error "
                   "is |srcad - fd| over the largest |gradient| of its argument")
    c.add_argument("--rows", type=int, default=10,
                   help="elements shown per array argument (all are checked; default 10)")
    c.add_argument("--nojit", action="store_true", help="run the gradient without Numba")


if __name__ == "__main__":
    sys.exit(main())

"""Running one pass on a snippet, for the passes' doctests."""
import textwrap

import gast

from codegen import Namer, to_source


def _Ctx(fnode):
    """A context for `fnode` alone: no program, no analyses run yet."""
    from srcad.context import Context

    return Context(namer=Namer({n.id for n in gast.walk(fnode) if isinstance(n, gast.Name)}))


def show(pass_cls, source):
    """Print the function in `source` after `pass_cls(ctx).run`."""
    fnode = gast.parse(textwrap.dedent(source)).body[0]
    print(to_source(pass_cls(_Ctx(fnode)).run(fnode)).rstrip())


def _parsed(source):
    """A context for the last function in `source`, its names resolved in a module of
    math, numpy and the functions before it."""
    import math

    import numpy as np

    from srcad.passes.resolve_names import ResolveNames
    from srcad.source import FunctionSource

    namespace = {"math": math, "np": np}
    exec(compile(textwrap.dedent(source), "<doctest>", "exec"), namespace)
    fn = [v for k, v in namespace.items() if callable(v) and k not in ("math", "np")][-1]
    fsrc = FunctionSource.__new__(FunctionSource)
    fsrc.fn, fsrc.name, fsrc.filename, fsrc.offset = fn, fn.__name__, "<doctest>", 0
    fsrc.lines = textwrap.dedent(source).splitlines(True)
    fsrc.node = gast.parse(textwrap.dedent(source)).body[-1]
    ctx = _Ctx(fsrc.node)
    ctx.fsrc, ctx.resolve = fsrc, ResolveNames(fsrc)
    return ctx


def show_names(pass_cls, source):
    """Print the function in `source` after `pass_cls`, which may look names up; return
    the context (what the pass recorded)."""
    ctx = _parsed(source)
    print(to_source(pass_cls(ctx).run(ctx.fsrc.node)).rstrip())
    return ctx


def show_resolved(source, *then):
    """Print the function in `source` after ResolveCalls and the passes `then`."""
    from srcad.passes.resolve_calls import ResolveCalls

    ctx = _parsed(source)
    fnode = ResolveCalls(ctx).run(ctx.fsrc.node)
    for pass_cls in then:
        fnode = pass_cls(ctx).run(fnode)
    print(to_source(fnode).rstrip())


def show_anf(source):
    """Print the function in `source` after ResolveCalls, UnrollTupleLoops, ToANF and
    BindArguments."""
    from srcad.passes.bind_arguments import BindArguments
    from srcad.passes.to_anf import ToANF
    from srcad.passes.unroll_tuple_loops import UnrollTupleLoops

    show_resolved(source, UnrollTupleLoops, ToANF, BindArguments)

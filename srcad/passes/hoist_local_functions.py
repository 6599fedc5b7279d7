"""HoistLocalFunctions: nested `def`s and named lambdas become helpers srcad can call."""
import ast
import copy
import inspect
import types
import weakref

import gast

from srcad.errors import UnsupportedError
from srcad.passes import ir

_HOISTED = weakref.WeakKeyDictionary()  # parent function -> {local name: helper function}


class HoistLocalFunctions:
    """Transformation: a function defined inside the differentiated one (`def g(v): ...`
    or `g = lambda v: ...`) is lifted out and called like a module-level helper.

    Names of the enclosing function that the helper reads (its closure) become leading
    parameters, passed at every call: a closure reads a variable's value when it is
    called, and so does an argument. Afterwards the body holds no `def` and no named
    `lambda`; `ctx.local_functions` maps each local name to its helper, a function whose
    `__srcad_local__` carries the helper's tree, so `FunctionSource` of it starts the
    helper's own pipeline at this pass.

    >>> from srcad.passes.hoist_local_functions import show_hoisted
    >>> show_hoisted('''
    ... def f(x, w):
    ...     sq = lambda v: v * v
    ...     def scaled(v, c=2.0):
    ...         return c * w * sq(v)
    ...     return scaled(x) + sq(w)''')
    def f(x, w):
        return scaled(w, x) + sq(w)
    def sq(v):
        return v * v
    def scaled(w, v, c=2.0):
        return c * w * sq(v)
    """

    needs = ()
    provides = ("local_functions",)

    def __init__(self, ctx):
        self.ctx = ctx
        self.fsrc = ctx.fsrc

    def run(self, fnode):
        info = getattr(self.fsrc.fn, "__srcad_local__", None)
        scope = {}
        if info is not None:  # a helper hoisted from its parent: start from its tree
            fnode = copy.deepcopy(info.node)
            fnode.name = self.fsrc.name
            self.fsrc.node = fnode
            scope = dict(info.scope)
        fnode, helpers = hoist(fnode, self.fsrc.error)
        if helpers:
            made = self.functions(helpers, scope)
            scope.update(made)
        self.ctx.local_functions = scope
        return fnode

    def functions(self, helpers, scope):
        """One function object per helper, the same one every time `fsrc.fn` is compiled."""
        parent = self.fsrc.fn
        known = _HOISTED.setdefault(parent, {})
        try:
            outer = inspect.getclosurevars(parent).nonlocals
        except (TypeError, ValueError):
            outer = {}
        made = {}
        for name, node in helpers.items():
            fn = known.get(name)
            if fn is None or ast.dump(gast.gast_to_ast(fn.__srcad_local__.node)) != \
                    ast.dump(gast.gast_to_ast(node)):
                fn = self.stub(name, node)
                known[name] = fn
            made[name] = fn
        for name, fn in made.items():  # a helper sees the parent's scope, its siblings, itself
            fn.__srcad_local__.scope = {**outer, **scope, **made}
            # what CheckpointLoops made the helper for, if it did (on its `def`)
            fn.__srcad_local__.role = getattr(helpers[name], "srcad_role", None)
        return made

    def stub(self, name, node):
        """A function with the helper's signature whose source is read from the parent's."""
        params = [a.id for a in node.args.args]
        defaults = []
        for arg, default in zip(params[len(params) - len(node.args.defaults):],
                                node.args.defaults):
            try:
                defaults.append(ast.literal_eval(gast.gast_to_ast(default)))
            except ValueError:
                raise self.fsrc.error(
                    f"the default value of `{arg}` in the nested function `{node.name}` is not "
                    "a constant", node, "pass the value at each call, or use a number as the "
                    "default", UnsupportedError) from None
        qual = f"{self.fsrc.name}_{name}"
        code = compile(f"def {qual}({', '.join(params)}):\n    pass\n",
                       self.fsrc.filename, "exec")
        code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
        code = code.replace(co_firstlineno=self.fsrc.fn.__code__.co_firstlineno)
        fn = types.FunctionType(code, self.fsrc.fn.__globals__, qual, tuple(defaults) or None)
        fn.__srcad_local__ = types.SimpleNamespace(node=node, scope={})
        return fn


def hoist(fnode, error):
    """`fnode` without its local functions, and {name: helper tree with captures first}."""
    defs = {}
    fnode.body = _remove_defs(fnode.body, defs, error)
    if not defs:
        return fnode, {}
    names = set(defs)
    rebound = names & _bound(fnode)
    if rebound:
        name = sorted(rebound)[0]
        raise error(f"the nested function `{name}` is also assigned another value", defs[name],
                    "give the helper and the variable different names", UnsupportedError)
    outer = _bound(fnode) - names
    _check_only_called(fnode, names, error)
    for node in defs.values():
        _check_only_called(node, names - _bound(node), error)
    free = {n: _free(node) for n, node in defs.items()}
    captured = {n: sorted(free[n] & outer) for n in defs}
    changed = True
    while changed:  # a helper calling a sibling passes the sibling's captures on
        changed = False
        for n in defs:
            more = {c for g in free[n] & names for c in captured[g]} - set(captured[n])
            if more:
                captured[n] = sorted(set(captured[n]) | more)
                changed = True
    for node in [fnode, *defs.values()]:
        _pass_captures(node, captured)
    for n, node in defs.items():
        node.args.args = [gast.Name(id=c, ctx=gast.Param(), annotation=None, type_comment=None)
                          for c in captured[n]] + node.args.args
    return fnode, defs


def _remove_defs(stmts, defs, error):
    out = []
    for s in stmts:
        node = _as_def(s)
        if node is not None:  # CheckSupported refused decorators and `*args`
            if node.name in defs:
                raise error(f"the nested function `{node.name}` is defined twice", s,
                            "give each helper its own name", UnsupportedError)
            defs[node.name] = node
            continue
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block and not isinstance(
                    s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                setattr(s, field, _remove_defs(block, defs, error) or [gast.Pass()])
        out.append(s)
    return out


def _as_def(s):
    """A `def` statement, or `name = lambda ...: e` as the equivalent `def`; else None."""
    if isinstance(s, gast.FunctionDef):
        return s
    if isinstance(s, gast.Assign) and len(s.targets) == 1 \
            and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Lambda):
        body = [gast.copy_location(gast.Return(value=s.value.body), s)]
        node = gast.FunctionDef(name=s.targets[0].id, args=s.value.args, body=body,
                                decorator_list=[], returns=None, type_comment=None,
                                type_params=[])
        return gast.copy_location(node, s)
    return None


def _own(node):
    """The nodes of `node`'s body, not descending into nested functions or lambdas
    (which are yielded themselves)."""
    todo = list(node.body) if isinstance(node.body, list) else [node.body]
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda,
                              gast.ClassDef)):
            todo.extend(gast.iter_child_nodes(n))


def _params(node):
    a = node.args
    return {p.id for p in a.args + a.posonlyargs + a.kwonlyargs + [a.vararg, a.kwarg] if p}


def _bound(node):
    names = _params(node)
    for n in _own(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            names.add(n.id)
        elif isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            names.add(n.name)
    return names


def _free(node):
    """Names `node` (a function or lambda) reads but does not bind."""
    bound, free = _bound(node), set()
    for n in _own(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            free.add(n.id)
        elif isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)):
            free |= _free(n)
    return free - bound


def _check_only_called(node, names, error):
    """A local function may only be called: `g(x)`, not `h = g` or `apply(g, x)`."""
    called = {id(n.func) for n in ir.walk(node) if isinstance(n, gast.Call)}
    for stmt in _statements(node):
        for n in _expr_nodes(stmt):
            if isinstance(n, gast.Name) and n.id in names and id(n) not in called:
                raise error(f"the nested function `{n.id}` is used as a value", stmt,
                            f"call it (`{n.id}(...)`); srcad differentiates calls to nested "
                            "functions, not functions passed around", UnsupportedError)


def _statements(node):
    for n in ir.walk(node):
        if isinstance(n, gast.stmt) and n is not node:
            yield n


def _expr_nodes(stmt):
    for field, value in gast.iter_fields(stmt):
        if field in ("body", "orelse", "finalbody", "handlers"):
            continue
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, gast.AST):
                yield from ir.walk(v)


def _pass_captures(node, captured):
    for n in ir.walk(node):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id in captured:
            n.args = [gast.Name(id=c, ctx=gast.Load(), annotation=None, type_comment=None)
                      for c in captured[n.func.id]] + n.args


def show_hoisted(source):
    """Print the function in `source` and its hoisted helpers (for the doctest)."""
    import textwrap

    from codegen import to_source

    fnode = gast.parse(textwrap.dedent(source)).body[0]

    def error(message, node, hint=None, cls=UnsupportedError):
        return cls(message, hint=hint)

    fnode, helpers = hoist(fnode, error)
    print("\n".join(to_source([n]).rstrip() for n in [fnode, *helpers.values()]))

"""Small constructors for the gast nodes the passes build."""
import gast
import numpy as np


def name(id_, store=False):
    ctx = gast.Store() if store else gast.Load()
    return gast.Name(id=id_, ctx=ctx, annotation=None, type_comment=None)


def const(value):
    return gast.Constant(value=value, kind=None)


def assign(target, value, like=None):
    if isinstance(target, str):
        target = name(target, store=True)
    node = gast.Assign(targets=[target], value=value, type_comment=None)
    return gast.copy_location(node, like) if like is not None else node


def if_(test, body, orelse=(), like=None):
    node = gast.If(test=test, body=list(body) or [gast.Pass()], orelse=list(orelse))
    return gast.copy_location(node, like) if like is not None else node


def not_(expr):
    return gast.UnaryOp(op=gast.Not(), operand=expr)


def call(func, *args):
    if isinstance(func, str):
        func = dotted(func)
    return gast.Call(func=func, args=list(args), keywords=[])


def dotted(text):
    """`np.linalg.solve` as a gast expression."""
    head, *rest = text.split(".")
    node = name(head)
    for attr in rest:
        node = gast.Attribute(value=node, attr=attr, ctx=gast.Load())
    return node


def dotted_text(node):
    """The text of a dotted name such as `np.linalg.solve`, or None."""
    parts = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, gast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def spelled_ufunc(func):
    """The NumPy ufunc that the expression `func` spells as `np.<name>` (or
    `numpy.<name>`), else None: for code whose names are not resolved (generated sweeps,
    passes that run before ResolveNames)."""
    parts = (dotted_text(func) or "").split(".")
    ufunc = getattr(np, parts[1], None) if len(parts) == 2 and parts[0] in ("np", "numpy") \
        else None
    return ufunc if isinstance(ufunc, np.ufunc) else None


# nodes without a name inside: `names` does not look into them
_NAMELESS = (gast.expr_context, gast.operator, gast.unaryop, gast.cmpop, gast.boolop,
             gast.Constant)


# the fields of each node class that may hold nodes (see `walk`, `parents`)
_NODE_FIELDS = {}
# fields that hold a string or a number, never a node
_LEAF_FIELDS = {"id", "attr", "arg", "kind", "type_comment", "conversion", "is_async",
                "level", "module"}


def _node_fields(cls):
    fields = () if cls is gast.Constant else \
        tuple(f for f in cls._fields if f not in _LEAF_FIELDS)
    _NODE_FIELDS[cls] = fields
    return fields


def walk(node):
    """Every node of `node`, itself first, in `gast.walk`'s order (breadth first), as a
    list: about twice as fast, for the passes that walk whole functions."""
    out, table = [node], _NODE_FIELDS
    for n in out:  # the list grows as it is read
        fields = table.get(type(n))
        if fields is None:
            fields = _node_fields(type(n))
        for field in fields:
            value = getattr(n, field, None)
            if type(value) is list:
                out.extend([v for v in value if isinstance(v, gast.AST)])
            elif isinstance(value, gast.AST):
                out.append(value)
    return out


def parents(*nodes):
    """Each node's parent, over the trees `nodes` (statements, or a function)."""
    parent, table = {}, _NODE_FIELDS
    for node in nodes:
        todo = [node]
        for n in todo:  # the list grows as it is read
            fields = table.get(type(n))
            if fields is None:
                fields = _node_fields(type(n))
            for field in fields:
                value = getattr(n, field, None)
                if type(value) is list:
                    for v in value:
                        if isinstance(v, gast.AST):
                            parent[v] = n
                            todo.append(v)
                elif isinstance(value, gast.AST):
                    parent[value] = n
                    todo.append(value)
    return parent


# the fields of each node class that may hold nodes with names inside (see `names`)
_NAMED_FIELDS = {}
# fields that hold a string, a number or a nameless node, never a name
_NAMELESS_FIELDS = {"id", "attr", "arg", "kind", "type_comment", "ctx", "op", "ops",
                    "conversion", "is_async", "level", "module"}


def _named_fields(cls):
    fields = () if issubclass(cls, _NAMELESS) else \
        tuple(f for f in cls._fields if f not in _NAMELESS_FIELDS)
    _NAMED_FIELDS[cls] = fields
    return fields


def names(node):
    """The `Name` nodes of `node` (itself included), in `gast.walk`'s order."""
    out, todo = [], [node]
    table, name_type = _NAMED_FIELDS, gast.Name
    for n in todo:  # the list grows as it is read
        cls = type(n)
        if cls is name_type:
            out.append(n)
        fields = table.get(cls)
        if fields is None:
            fields = _named_fields(cls)
        for field in fields:
            value = getattr(n, field, None)
            if type(value) is list:
                todo.extend([v for v in value if isinstance(v, gast.AST)
                             and not isinstance(v, _NAMELESS)])
            elif isinstance(value, gast.AST) and not isinstance(value, _NAMELESS):
                todo.append(value)
    return out


def is_atom(node):
    return isinstance(node, (gast.Name, gast.Constant))


def contains(stmts, types):
    """Whether any statement in `stmts` (not inside a nested loop) is of one of `types`."""
    for stmt in stmts:
        if isinstance(stmt, types):
            return True
        if isinstance(stmt, gast.If) and (contains(stmt.body, types)
                                          or contains(stmt.orelse, types)):
            return True
    return False


def walk_no_loops(stmts):
    """Statements in `stmts` and their `if` branches, not descending into loops."""
    for stmt in stmts:
        yield stmt
        if isinstance(stmt, gast.If):
            yield from walk_no_loops(stmt.body)
            yield from walk_no_loops(stmt.orelse)


_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def rewrite_blocks(stmts, each):
    """`stmts` with the statements `each(s)` returns in place of each statement `s`, the
    blocks nested in `s` (`body`, `orelse`, `finalbody`) rewritten first; nested functions
    and classes are left as they are."""
    out = []
    for s in stmts:
        if not isinstance(s, _SCOPES):
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(s, field, None)
                if isinstance(inner, list):
                    setattr(s, field, rewrite_blocks(inner, each))
        out += each(s)
    return out

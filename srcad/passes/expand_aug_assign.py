"""ExpandAugAssign: `x op= e` becomes `x = x op e`."""
import copy

import gast


class ExpandAugAssign(gast.NodeTransformer):
    """Transformation: no `AugAssign` remains.

    A subscript target is read and written with the same index expressions, which
    ToANF later evaluates once.

    The new assignments are recorded in `ctx.augmented` (CheckAliases refuses an
    in-place update of an array that another name shares).

    >>> from codegen import to_source
    >>> tree = gast.parse("acc[k] += x * 2.0")
    >>> print(to_source(ExpandAugAssign().visit(tree)).strip())
    acc[k] = acc[k] + x * 2.0
    """

    needs = ()
    provides = ("augmented",)

    def __init__(self, ctx=None):
        self.augmented = ctx.augmented if ctx is not None else set()

    def visit_AugAssign(self, node):
        load = copy.deepcopy(node.target)
        for sub in gast.walk(load):
            if hasattr(sub, "ctx") and isinstance(sub.ctx, gast.Store):
                sub.ctx = gast.Load()
        value = gast.BinOp(left=load, op=node.op, right=node.value)
        new = gast.Assign(targets=[node.target], value=value, type_comment=None)
        self.augmented.add(new)
        return gast.copy_location(new, node)

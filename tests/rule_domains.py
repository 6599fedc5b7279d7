"""Test points made from a rule's declared `domain` (see `srcad.rules.registry.adjoint`).

A rule that declares where it is smooth gets its cases here, for both the adjoint tests
(`test_rules`) and the tangent tests (`test_tangents`): adding such a rule needs no
hand-written case.
"""
from dataclasses import dataclass

import gast
import numpy as np

from srcad.errors import SrcadError
from srcad.kinds import NONE, of_value
from srcad.rules import registry

_FRACTIONS = np.array([0.13, 0.41, 0.67, 0.89])
_GRID = np.array([[0.13, 0.52, 0.88], [0.71, 0.05, 0.34]])


def vec(lo, hi):
    """A 1-d float array of 4 distinct values inside (lo, hi)."""
    return lo + (hi - lo) * _FRACTIONS


def scal(lo, hi):
    """A float inside (lo, hi)."""
    return lo + (hi - lo) * 0.37


def grid(lo, hi):
    """A (2, 3) float array of distinct values inside (lo, hi)."""
    return lo + (hi - lo) * _GRID


@dataclass
class Point:
    """One call of a rule: `args`, every parameter given, in the rule's order (floats and
    fixed values); `floats`, those drawn from the domain; `like_first`: the result has
    the shape of the first argument (1-d: weigh it by a vector of that length)."""

    label: str
    args: dict
    floats: tuple
    like_first: bool


def is_range(value):
    """Whether a domain's `value` is a range (lo, hi) to draw floats from, not a fixed
    value (which may be a tuple too: `axis=()`)."""
    return isinstance(value, tuple) and len(value) == 2 and all(
        isinstance(v, float) for v in value)


def spelling(rule):
    """(the function a user calls, its dotted name): `math.sin`, `np.absolute`."""
    fn = registry.functions_of(rule)[0]
    return fn, registry.canonical_name(fn)


def points(rule):
    """The test points of a rule with a domain: for an elementwise rule, a scalar call,
    and (for NumPy) 1-d and 2-d array calls and one mixing arrays and scalars; otherwise
    a 1-d and a 2-d array call."""
    fn, _ = spelling(rule)
    given = [p for p in rule.params[1:] if p in rule.domain]
    floats = tuple(p for p in given if is_range(rule.domain[p]))

    def call(draw):
        return {p: draw(k, *rule.domain[p]) if p in floats else rule.domain[p]
                for k, p in enumerate(given)}

    if not rule.broadcast:
        return [point for point in (
            Point("1d", call(lambda k, lo, hi: vec(lo, hi)), floats, False),
            Point("2d", call(lambda k, lo, hi: grid(lo, hi)), floats, False))
            if takes(rule, point.args)]
    out = [Point("scalar", call(lambda k, lo, hi: scal(lo, hi)), floats, True)]
    if getattr(fn, "__module__", None) in ("math", "builtins"):  # numbers only
        return out
    out.append(Point("array", call(lambda k, lo, hi: vec(lo, hi)[::(-1) ** k].copy()),
                     floats, True))
    out.append(Point("2d", call(lambda k, lo, hi: grid(lo, hi)[:, ::(-1) ** k].copy()),
                     floats, False))
    if len(floats) > 1:
        out.append(Point("array-scalar", call(
            lambda k, lo, hi: vec(lo, hi) if k == 0 else scal(lo, hi)), floats, True))
    return out


def takes(rule, args):
    """Whether `rule` types a call with these arguments: np.fliplr refuses a vector, so
    its cases are of matrices only."""
    k = {p: NONE if v is None else of_value(v) for p, v in args.items()}
    c = {p: gast.parse(repr(v) if not isinstance(v, np.ndarray) else "a", mode="eval").body
         for p, v in args.items()}
    try:
        rule.kind({p: k.get(p) for p in rule.params[1:]}, c)
    except SrcadError:
        return False
    return True


def rules_with_domains():
    return [r for r in registry.all_rules() if r.domain]

"""User-supplied derivative rules: `srcad.defvjp`."""
_RULES = {}


def defvjp(fn):
    """Register a vector-Jacobian product for `fn`, used instead of differentiating it.

    ::

        @srcad.defvjp(my_floor)
        def _(g, ans, x):      # g: the output's cotangent, ans: the output
            return (g,)        # one cotangent per argument of my_floor (straight-through)

    The rule overrides srcad's own for that function (a NumPy function too). `fn` and the
    rule are compiled with Numba along with the sweeps; when either cannot be (foreign
    code, a device read), the gradient runs as plain Python with a `SrcadWarning`.
    """

    def register(vjp):
        _RULES[id(fn)] = (fn, vjp)
        return vjp

    return register


def lookup(obj):
    """(fn, vjp) registered for `obj`, or None."""
    entry = _RULES.get(id(obj))
    return entry if entry is not None and entry[0] is obj else None

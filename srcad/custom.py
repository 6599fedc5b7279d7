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
        VERSION["rules"] = object()
        return vjp

    return register


def defjvp(fn):
    """Register a Jacobian-vector product for `fn`, for forward mode (jvp, Jacobians by
    columns)::

        @srcad.defjvp(my_floor)
        def _(t, ans, x):      # t: a tuple with one tangent per argument of my_floor
            return t[0]        # the output's tangent (straight-through)

    An argument without a tangent gets a zero one.
    """

    def register(jvp):
        _JVP_RULES[id(fn)] = (fn, jvp)
        VERSION["rules"] = object()
        return jvp

    return register


_JVP_RULES = {}
VERSION = {"rules": object()}  # a new object at every registration


def lookup(obj):
    """(fn, vjp) registered for `obj`, or None."""
    entry = _RULES.get(id(obj))
    return entry if entry is not None and entry[0] is obj else None


def lookup_jvp(obj):
    """(fn, jvp) registered for `obj`, or None."""
    entry = _JVP_RULES.get(id(obj))
    return entry if entry is not None and entry[0] is obj else None


def registries(obj):
    """Where a rule for `obj` is registered: (mapping, key) pairs, for the digest of
    what a transformation reads (`codegen.fingerprint`). Any registration changes
    `VERSION["rules"]`, which a gradient object checks on every call."""
    return ((_RULES, id(obj)), (_JVP_RULES, id(obj)))

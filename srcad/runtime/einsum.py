"""np.einsum, which Numba lacks, and its derivatives.

`einsum(subscripts, a, b, c)` of one to three operands, with an explicit output
(`"ij,jk->ik"`), is one term of a network of tensors: the output and the operands, each
with its letters. The derivative of <g, einsum(...)> with respect to any one of them (the
output's cotangent `g` taking the output's place) is the contraction of all the others to
that one's letters: `einsum_grad(subscripts, slot, g, a, b, c)`, slot 0 being the output
(the einsum itself), 1, 2, 3 the operands. A letter repeated in a term reads (or, in the
result, writes) a diagonal; a letter of the result that no other term has is broadcast,
its length read from the argument in the result's slot, which may be given as its shape.

Compiled, the subscripts (and the slot) are constants of the call, so the plan is made
when the call is typed (`_Plan`) and the contraction runs as one loop over every letter's
values (`_contract`); in Python, NumPy's einsum does the work.
"""
import numpy as np
from numba import types
from numba.extending import overload, register_jitable
from numba.np.unsafe.ndarray import to_fixed_tuple

from srcad.runtime.overloads import _is_array, _is_none


def parse(subscripts, count=None):
    """(the operands' terms, the output's term) of explicit `subscripts`, checked: letters
    only, one term per operand (`count`, when given), an output whose letters are the
    operands' and appear once. A ValueError says what is wrong."""
    if not isinstance(subscripts, str):
        raise ValueError("the subscripts are not a string")
    text = subscripts.replace(" ", "")
    if "." in text:
        raise ValueError("an ellipsis (`...`) in the subscripts is not supported")
    if "->" not in text:
        raise ValueError("the subscripts have no output (`->`)")
    left, out = text.split("->", 1)
    terms = tuple(left.split(","))
    if not all(term.isalpha() for term in terms if term) or out and not out.isalpha() \
            or not all(c.isascii() for c in text):
        raise ValueError(f"the subscripts {subscripts!r} are not letters, commas and `->`")
    if count is not None and len(terms) != count:
        raise ValueError(f"the subscripts {subscripts!r} have {len(terms)} operand terms "
                         f"for {count} operands")
    if len(set(out)) != len(out):
        raise ValueError(f"the output {out!r} repeats a letter")
    missing = set(out) - set("".join(terms))
    if missing:
        raise ValueError(f"the output letters {''.join(sorted(missing))} are in no operand")
    return terms, out


def _terms(subscripts, operands):
    """[output, operand terms...] of the network, with the operands given (None: absent)."""
    count = sum(1 for x in operands if x is not None)
    terms, out = parse(subscripts, count)
    return [out, *terms]


# in Python: NumPy's einsum


def einsum(subscripts, a, b=None, c=None, more=None, optimize=False):
    """np.einsum(subscripts, a, b, c) of one to three float operands, explicit output."""
    operands = [np.asarray(x, dtype=np.float64) for x in (a, b, c) if x is not None]
    out = np.einsum(subscripts, *operands)
    return float(out) if np.ndim(out) == 0 else out


def einsum_grad(subscripts, slot, g, a, b=None, c=None):
    """The derivative of <g, np.einsum(subscripts, a, b, c)> with respect to the term in
    `slot` (0: `g`, so the einsum itself; 1, 2, 3: an operand), shaped like it: the
    contraction of the other terms. The argument in `slot` is read only for its shape (it
    may be given as the shape)."""
    tensors = [g, a, b, c]
    terms = _terms(subscripts, tensors[1:])
    shape = _shape(tensors[slot]) if slot else None
    others = [k for k in range(len(terms)) if k != slot]
    sizes = {}
    for k in others:
        for letter, n in zip(terms[k], np.shape(tensors[k])):
            sizes[letter] = n
    if slot:
        for letter, n in zip(terms[slot], shape):
            sizes.setdefault(letter, n)
    return _contracted([terms[k] for k in others],
                       [np.asarray(tensors[k], dtype=np.float64) for k in others],
                       terms[slot], sizes)


def _shape(x):
    return tuple(x) if isinstance(x, tuple) else np.shape(x)


def _contracted(terms, tensors, out, sizes):
    """The contraction of `tensors` (letters `terms`) to the letters `out`, which may
    repeat a letter (a diagonal, zero elsewhere) or hold one of no tensor (broadcast)."""
    unique = "".join(dict.fromkeys(out))
    given = "".join(letter for letter in unique if any(letter in t for t in terms))
    r = np.einsum(",".join(terms) + "->" + given, *tensors)
    r = np.reshape(r, [sizes[letter] if letter in given else 1 for letter in unique])
    r = np.broadcast_to(r, [sizes[letter] for letter in unique])
    if unique == out:
        return float(r) if r.ndim == 0 else np.array(r)
    result = np.zeros([sizes[letter] for letter in out])
    np.einsum(out + "->" + unique, result)[...] = r
    return result


# compiled: a plan made when the call is typed, and one loop over the letters


class _Plan:
    """How `einsum_grad(subscripts, slot, ...)` contracts, for `present` terms: which
    arguments contribute (at most three), their letters as numbers, where each letter's
    length is read, and the result's letters."""

    def __init__(self, subscripts, slot, present):
        terms = _terms(subscripts, [True] * (present - 1))
        letters = sorted(set("".join(terms)), key="".join(terms).index)
        number = {letter: i for i, letter in enumerate(letters)}
        self.inputs = tuple(k for k in range(present) if k != slot)
        ids, starts = [], [0]
        for k in self.inputs:
            ids += [number[letter] for letter in terms[k]]
            starts.append(len(ids))
        self.ids = tuple(ids) + (-1,)  # never empty: a tuple Numba can index
        self.starts = tuple(starts)
        self.out = tuple(number[letter] for letter in terms[slot]) + (-1,)
        self.rank = len(terms[slot])
        sources = []  # (input position, axis), or (-1, axis of the result's slot)
        for letter in letters:
            where = next(((i, terms[k].index(letter)) for i, k in enumerate(self.inputs)
                          if letter in terms[k]), None)
            sources.append(where or (-1, terms[slot].index(letter)))
        self.source_input = tuple(s[0] for s in sources) + (0,)
        self.source_axis = tuple(s[1] for s in sources) + (0,)
        self.count = len(letters)


@register_jitable(cache=True)
def _flat(x):
    return np.ascontiguousarray(x * 1.0).ravel()


@register_jitable(cache=True)
def _flat_number(x):
    return np.full(1, x * 1.0)


@register_jitable(cache=True)
def _shape_array(shape):
    out = np.empty(len(shape), np.int64)
    for i in range(len(shape)):
        out[i] = shape[i]
    return out


@register_jitable(cache=True)
def _sizes(count, source_input, source_axis, s0, s1, s2, s_slot, ids, starts):
    """Each letter's length, from the first input that has it (else the result's slot),
    every input's axes checked against it."""
    sizes = np.empty(count, np.int64)
    for letter in range(count):
        i, ax = source_input[letter], source_axis[letter]
        sizes[letter] = s0[ax] if i == 0 else s1[ax] if i == 1 else s2[ax] if i == 2 \
            else s_slot[ax]
    for i in range(len(starts) - 1):
        shape = s0 if i == 0 else s1 if i == 1 else s2
        for ax in range(starts[i + 1] - starts[i]):
            if shape[ax] != sizes[ids[starts[i] + ax]]:
                raise ValueError("einsum: operands could not be broadcast together: a "
                                 "letter has two lengths")
    return sizes


@register_jitable(cache=True)
def _coefficients(shape, ids, start, count):
    """For each letter, the step in the flat C-ordered array of `shape` (whose axes have
    the letters ids[start:]) when that letter's index grows by one."""
    coef = np.zeros(count, np.int64)
    stride = 1
    for ax in range(shape.shape[0] - 1, -1, -1):
        coef[ids[start + ax]] += stride
        stride *= shape[ax]
    return coef


@register_jitable(cache=True)
def _contract(x0, x1, x2, c0, c1, c2, c_out, sizes, out_size):
    """out[sum_l i_l c_out[l]] += x0[sum_l i_l c0[l]] * x1[...] * x2[...] over every
    index i_l < sizes[l] of every letter l (an odometer, the offsets kept up to date)."""
    out = np.zeros(out_size)
    count = sizes.shape[0]
    total = 1
    for n in sizes:
        total *= n
    if total == 0:
        return out
    index = np.zeros(count, np.int64)
    o0 = o1 = o2 = oo = 0
    for _ in range(total):
        out[oo] += x0[o0] * x1[o1] * x2[o2]
        letter = count - 1
        while letter >= 0:
            index[letter] += 1
            o0 += c0[letter]
            o1 += c1[letter]
            o2 += c2[letter]
            oo += c_out[letter]
            if index[letter] < sizes[letter]:
                break
            n = sizes[letter]
            o0 -= c0[letter] * n
            o1 -= c1[letter] * n
            o2 -= c2[letter] * n
            oo -= c_out[letter] * n
            index[letter] = 0
            letter -= 1
    return out


def _pick(k):
    """A jitable function of (g, a, b, c) giving argument `k` (None: a lone 1.0)."""
    if k is None:
        return register_jitable(lambda g, a, b, c: np.ones(1))
    return register_jitable([lambda g, a, b, c: g, lambda g, a, b, c: a,
                             lambda g, a, b, c: b, lambda g, a, b, c: c][k])


@register_jitable(cache=True)
def _no_shape(x):
    return np.empty(0, np.int64)


@register_jitable(cache=True)
def _array_shape(x):
    return _shape_array(x.shape)


@register_jitable(cache=True)
def _tuple_shape(x):
    return _shape_array(x)


def _shape_reader(typ, present):
    """A jitable function giving the shape (as an int array) of an argument of Numba type
    `typ` (an array, a shape tuple); `present` False: an empty shape."""
    if not present or isinstance(typ, types.Number):
        return _no_shape
    return _array_shape if _is_array(typ) else _tuple_shape


def _compiled(plan, types_):
    """The compiled contraction of `plan` for arguments (g, a, b, c) of Numba `types_`."""
    picks = [_pick(k) for k in plan.inputs] + [_pick(None)] * (3 - len(plan.inputs))
    shapes = [_shape_reader(types_[k], True) for k in plan.inputs] + \
        [_shape_reader(None, False)] * (3 - len(plan.inputs))
    slot = next(k for k in range(4) if k not in plan.inputs)
    slot_shape = _shape_reader(types_[slot], slot != 0 and not _is_none(types_[slot]))
    pick_slot = _pick(slot) if slot else _pick(None)
    ids, starts, out, rank = plan.ids, plan.starts, plan.out, plan.rank
    source_input, source_axis, count = plan.source_input, plan.source_axis, plan.count
    pick0, pick1, pick2 = picks
    shape0, shape1, shape2 = shapes
    flat0, flat1, flat2 = [_flat_number if isinstance(types_[k], types.Number) else _flat
                           for k in plan.inputs] + [_flat] * (3 - len(plan.inputs))

    @register_jitable
    def run(g, a, b, c):
        x0, x1, x2 = pick0(g, a, b, c), pick1(g, a, b, c), pick2(g, a, b, c)
        s0, s1, s2 = shape0(x0), shape1(x1), shape2(x2)
        s_slot = slot_shape(pick_slot(g, a, b, c))
        sizes = _sizes(count, source_input, source_axis, s0, s1, s2, s_slot, ids, starts)
        c0 = _coefficients(s0, ids, starts[0], count)
        c1 = _coefficients(s1, ids, starts[min(1, len(starts) - 1)], count)
        c2 = _coefficients(s2, ids, starts[min(2, len(starts) - 1)], count)
        shape = np.empty(max(rank, 1), np.int64)
        size = 1
        for ax in range(rank):
            shape[ax] = sizes[out[ax]]
            size *= shape[ax]
        c_out = _coefficients(shape[:rank], out, 0, count)
        return _contract(flat0(x0), flat1(x1), flat2(x2), c0, c1, c2, c_out, sizes, size), \
            shape

    if rank == 0:
        return register_jitable(lambda g, a, b, c: run(g, a, b, c)[0][0])

    def reshaped(g, a, b, c):
        flat, shape = run(g, a, b, c)
        return flat.reshape(to_fixed_tuple(shape, rank))

    return register_jitable(reshaped)


def _literal(typ):
    return getattr(typ, "literal_value", None)


def _present(*operands):
    return 1 + sum(1 for x in operands if not _is_none(x))


@overload(einsum, prefer_literal=True, jit_options={"cache": True})
def _einsum(subscripts, a, b=None, c=None, more=None, optimize=False):
    if not isinstance(subscripts, types.StringLiteral):
        return None
    run = _compiled(_Plan(subscripts.literal_value, 0, _present(a, b, c)),
                    (None, a, b, c))

    def impl(subscripts, a, b=None, c=None, more=None, optimize=False):
        return run(None, a, b, c)

    return impl


@overload(einsum_grad, prefer_literal=True, jit_options={"cache": True})
def _einsum_grad(subscripts, slot, g, a, b=None, c=None):
    if not isinstance(subscripts, types.StringLiteral) or _literal(slot) is None:
        return None
    run = _compiled(_Plan(subscripts.literal_value, _literal(slot), _present(a, b, c)),
                    (g, a, b, c))
    return lambda subscripts, slot, g, a, b=None, c=None: run(g, a, b, c)

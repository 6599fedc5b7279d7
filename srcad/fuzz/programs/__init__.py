"""Random programs for `srcad.fuzz`.

`generate(seed)` writes the source of a module holding `f(x, y, a, m)` (x, y floats, a a
1-d float array of length n, m a float matrix of shape (r, n)) and up to two module-level
helpers it calls, using only constructs that srcad documents as supported:

- arithmetic, `x ** k`, `math` functions, `max/min/abs`, ternaries, `and/or/not` tests;
- NumPy: elementwise functions (exp/log/sqrt of positive values), `np.where`,
  `np.maximum/minimum`, `np.clip`, `np.sum/prod/max/min/mean` with and without `axis` on
  the matrix, `np.dot`, `.T`, `np.concatenate`, `np.stack`, `np.array([...])`, methods,
  slices with steps, broadcasting of rows;
- `if/elif/else`, `for` loops over ranges, arrays, matrix rows and tuples, `while` loops
  (bounded by a counter, by `while True` and `break`, or data-dependent), nested up to
  three deep in while-heavy programs, `break`/`continue`, early returns;
- reads and writes of elements, rows, columns and slices (`a[i] += ...`, `m[i, j] -= ...`,
  `b[1:] *= ...`, `w[:, j] /= ...`), data-dependent `int(...)` indices, augmented
  assignment to every kind of target, parallel assignment;
- helpers called anywhere (also inside loops), with defaults and keyword arguments,
  returning a float, an array or a tuple.

Values are squashed with `tanh`/`sin` so gradients stay O(1) and well-defined.

The generator writes source text directly: `exprs` (float, array and matrix expressions,
indices, calls of helpers), `statements` (the statements of a body, emitted as lines) and
`program` (the helpers, `f` and `generate`).
"""

from srcad.fuzz.programs.program import generate

__all__ = ["generate"]

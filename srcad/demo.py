"""`python -m srcad demo`: a gradient, its check against finite differences, and the
generated source that computed it."""
import math
import time

import numpy as np

import srcad


def loss(w, xs):
    """A tanh recurrence with a branch: the loop, the `if` and the element reads are
    differentiated as written."""
    h = 0.0
    for i in range(xs.shape[0]):
        h = math.tanh(w * h + xs[i])
        if h > 0.5:
            h = h * 0.9
    return h * h


def central_difference(f, args, pos, eps=1e-6):
    """Central finite differences of `f` in argument `pos` (float or array)."""
    args = list(args)
    x = args[pos]
    if np.ndim(x) == 0:
        hi, lo = list(args), list(args)
        hi[pos], lo[pos] = x + eps, x - eps
        return (f(*hi) - f(*lo)) / (2 * eps)
    out = np.zeros_like(x)
    for k in range(x.size):
        hi, lo = x.copy(), x.copy()
        hi.flat[k] += eps
        lo.flat[k] -= eps
        out.flat[k] = (f(*args[:pos], hi, *args[pos + 1:]) -
                       f(*args[:pos], lo, *args[pos + 1:])) / (2 * eps)
    return out


def main():
    dloss = srcad.grad(loss, wrt=(0, 1))
    xs = np.linspace(-1.0, 1.0, 12)
    start = time.perf_counter()
    gw, gxs = dloss(0.3, xs)
    first = time.perf_counter() - start
    fw = central_difference(loss, (0.3, xs), 0)
    fxs = central_difference(loss, (0.3, xs), 1)
    print(f"d loss / d w  = {gw:.12f}   (finite differences: {fw:.12f})")
    print(f"d loss / d xs = {np.array2string(gxs, precision=6)}")
    err = max(abs(gw - fw), float(np.max(np.abs(gxs - fxs))))
    ok = np.allclose(gw, fw, rtol=1e-6, atol=1e-9) and np.allclose(gxs, fxs, rtol=1e-5,
                                                                    atol=1e-9)
    print(f"max |srcad - finite differences| = {err:.2e}: {'OK' if ok else 'MISMATCH'}")
    print(f"first call (transform + Numba compile, or load from cache): {first:.2f} s")
    print("\nThe generated module (srcad.source(dloss)):\n")
    print(srcad.source(dloss))
    return 0 if ok else 1

# srcad grammar program, seed 942224, args: x: (), y: (), z: (), a: (3,); out: a
import math
import numpy as np
from numba import prange

C = -0.5
HALF = 0.5
A1 = np.array([0.018, -0.171, 0.281])


def f(x, y, z, a):
    w1 = a * 1.0
    u2 = w1[:-1]
    v3 = x / (-1.0 * (1.5 + np.tanh(y)) * -(math.pi + 5 // 3)) // 0.25
    if math.sin(math.e ** 1.5 + ((-3) ** 0 + (-3) ** 0)) == float(w1[-1]) ** 3:
        acc5 = 1.0
        for i4 in prange(w1.shape[0]):
            v6 = math.exp(HALF * v3)
            flag7 = math.log(np.abs((-1.25) ** 2.0) + 0.3) < C
            acc9 = -0.0
            for i8 in w1:
                flag10 = max((-0.5) ** 1, math.cos(-2.5), ++(-1.25) ** 2.0) != -0.1
            acc5 -= 0.1 * math.atan(10 ** (--0.5) / (-math.e ** (-(-3) ** (-1)) * -math.cosh(np.tanh(i8))))
    elif not math.tanh(0.0) < math.exp(-1):
        v11 = z
    else:
        t12 = (2,)
        v13 = a[t12] * math.cos(2.0 ** (--0.25))
    a *= math.tanh(-2 - v3)

# REFUSED (jit=False)
# UnsupportedError: /tmp/srcad-fuzz-x7z1kc85/srcad_fuzz_prog_942224.py:17: the `prange` loop carries `i8` from one iteration to the next, a data race when it runs in parallel
#     for i4 in prange(w1.shape[0]):
#   hint: assign `i8` before reading it in each iteration, or make the loop a `range` loop

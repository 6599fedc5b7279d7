# srcad fuzz program, seed 941015, a: (5,), m: (2, 5)
import math

import numpy as np


def helper0(p0, q1):
    h = 0.1
    k1 = 0
    while k1 < 4:
        k1 += 1
        h = math.tanh((np.exp(math.tanh(h)) * (p0 if p0 <= p0 else np.sum((q1 - q1) * q1))))
        if h <= -1.71:
            if p0 < 1.95:
                if np.prod(1.0 + 0.1 * np.tanh(np.concatenate((q1[1:], q1[:1])))) >= p0:
                    if p0 < h:
                        t2 = math.tanh(abs(math.tanh(p0) ** 3))
                    elif h < -0.23:
                        t3 = math.sin(np.prod(1.0 + 0.1 * np.tanh((q1 - q1))))
                        return (np.sum((q1 + q1) * q1) + (-np.min((q1 * q1)))), ((1.0 + math.tanh(np.mean(q1)) ** 2) ** 1.5 + (np.sum(np.clip(q1, -1.24, -0.78) * q1) + t3))
                    return (1.0 + math.sin(h / (2.0 + math.sin(np.sum((q1 + q1) * q1)))) ** 2) ** 1.5, h
                return p0, abs(h) / (1.5 + math.tanh(0.2 * np.dot(q1, q1)) ** 2)
            elif p0 >= -1.32:
                if p0 <= -0.43:
                    if h <= 0.84:
                        t4 = math.tanh(math.sqrt(1.0 + math.tanh(np.log(1.0 + math.tanh(p0) ** 2)) ** 2))
                    elif p0 >= p0:
                        t5 = math.sin(math.sin((-h)))
                elif -1.76 <= p0:
                    t6 = math.tanh(math.exp(math.sin(np.sum(np.tanh(q1) ** 2 * q1))))
                else:
                    if h < p0 or p0 > p0:
                        t7 = math.tanh(np.clip(1.8, -1.0, 1.0))
            elif q1[-3] <= p0:
                p0 *= 1.0 + 0.2 * math.sin(0.61 / (2.0 + math.sin(p0) ** 2))
                break
        h += 0.5 * math.sin(h)
    return (1.0 + math.tanh((h + q1[2])) ** 2) ** 0.5, ((-0.45 * np.prod(1.0 + 0.1 * np.tanh(np.tanh(q1) ** 2))) + (np.prod(1.0 + 0.1 * np.tanh((q1 * q1))) if h >= 0.21 else h))


def f(x, y, a, m):
    s = 0.0
    t0 = math.tanh(x * 0.05 + y)
    u1, u2 = helper0(math.tanh(0.2 * np.dot(a, a)), a)
    for v4 in a:
        u5, u6 = helper0(np.exp(math.sin(t0)), a)
        a *= 1.0 + 0.2 * np.tanh((s if v4 < y else u1))
        u7, u8 = helper0(math.tanh(a[2]) ** 2, a)
    return u2 + y + t0 + 0.1 * np.sum(a) + 0.1 * np.sum(m)

# REFUSED (jit=False)
# UnsupportedError: /tmp/srcad-fuzz-pqstbhti/srcad_fuzz_prog_941015.py:47: an augmented assignment (`+=`, `*=`...) to `a` updates the array in place, and a view of it refers to the same array
#     a *= 1.0 + 0.2 * np.tanh((s if v4 < y else u1))
#   hint: write `a = a + ...` for a new array, or take a `.copy()` on line 45

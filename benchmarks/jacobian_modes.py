"""The README's Jacobian table: reverse mode, forward mode and srcad's choice, for a
100-input/3-output and a 3-input/100-output function written with loops (jit on).

    python benchmarks/jacobian_modes.py
"""
import math
import time

import numpy as np

import srcad


def wide(x):  # 100 inputs, 3 outputs
    out = np.zeros(3)
    for i in range(x.shape[0]):
        out[0] += math.sin(x[i])
        out[1] += x[i] * x[i]
        out[2] += math.tanh(0.1 * x[i] * x[(i + 1) % x.shape[0]])
    return out


def tall(x):  # 3 inputs, 100 outputs
    out = np.empty(100)
    for k in range(100):
        out[k] = math.sin(0.01 * k * x[0]) + x[1] * k + x[2] * x[0]
    return out


def median_us(f, repeats=30):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e6


def main():
    cases = [("100 inputs, 3 outputs", wide, np.linspace(-1.0, 1.0, 100)),
             ("3 inputs, 100 outputs", tall, np.array([0.3, -0.2, 0.5]))]
    for name, fn, x in cases:
        cells = []
        for mode in ("rev", "fwd", None):
            jac = srcad.jacobian(fn, mode=mode)
            jac(x)  # compile
            label = mode or f"chosen ({jac.last_mode})"
            cells.append(f"{label} {median_us(lambda: jac(x)):.0f} us")
        print(f"{name}: " + ", ".join(cells))


if __name__ == "__main__":
    main()

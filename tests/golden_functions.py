"""Functions whose generated gradient modules are kept as golden files in tests/golden/.

They live in their own module so that the header of the generated source, which names
this file and the line of each function, changes only when this file does.
"""
import math

import numpy as np


def loss(w, xs):
    h = 0.0
    for i in range(xs.shape[0]):
        h = math.tanh(w * h + xs[i])
    return h * h


def pairwise(xs, ys):
    result = np.zeros((xs.shape[0], ys.shape[0]))
    for i in range(xs.shape[0]):
        for j in range(ys.shape[0]):
            result[i, j] = math.sin(xs[i] * ys[j])
    return np.sum(result * result)


def softplus(z):
    return math.log1p(math.exp(z))


def layer_sum(w, xs):
    total = 0.0
    for i in range(xs.shape[0]):
        total = total + softplus(w * xs[i])
    return total

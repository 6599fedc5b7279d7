"""Hand-written value-and-gradient functions for the loop workloads W1..W6, the reference
the loop table compares srcad with.

Each is a careful transcription of the reverse mode of the workload as written in
`workloads.py` (the same algorithm and loop structure), compiled with plain `numba.njit`.
Each takes the workload's arguments and returns `(value, grads)`, `grads` a tuple with one
gradient per position in the workload's `wrt`, shaped like its argument.
"""
import math

import numba
import numpy as np


@numba.njit(cache=False)
def tanh_rnn_vg(w, x):
    """W1. The tape holds the hidden states: step i's adjoint needs h[i] (tanh's derivative)
    and h[i - 1] (the factor of w), and the adjoint of h flows back through the steps."""
    n = x.shape[0]
    hs = np.empty(n)
    h = 0.0
    loss = 0.0
    for i in range(n):
        h = math.tanh(w * h + x[i])
        loss += h * h
        hs[i] = h
    gx = np.empty(n)
    gw = 0.0
    hb = 0.0
    for i in range(n - 1, -1, -1):
        h = hs[i]
        hb += 2.0 * h
        zb = hb * (1.0 - h * h)
        if i > 0:
            gw += zb * hs[i - 1]
        gx[i] = zb
        hb = zb * w
    return loss, (gw, gx)


@numba.njit(cache=False)
def lennard_jones_vg(pos):
    """W2, fused: the energy is a plain sum over pairs, so a pair's adjoint needs only the
    seed and the pair's own intermediates, and is added up in the same pass."""
    n = pos.shape[0]
    g = np.zeros((n, 3))
    e = 0.0
    for i in range(n):
        gx = 0.0
        gy = 0.0
        gz = 0.0
        for j in range(i + 1, n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            dz = pos[i, 2] - pos[j, 2]
            r2 = dx * dx + dy * dy + dz * dz
            s6 = 1.0 / (r2 * r2 * r2)
            e += 4.0 * (s6 * s6 - s6)
            s6b = 4.0 * (2.0 * s6 - 1.0)
            r2b = -s6b * s6 * s6 * (3.0 * r2 * r2)
            dxb = 2.0 * dx * r2b
            dyb = 2.0 * dy * r2b
            dzb = 2.0 * dz * r2b
            gx += dxb
            gy += dyb
            gz += dzb
            g[j, 0] -= dxb
            g[j, 1] -= dyb
            g[j, 2] -= dzb
        g[i, 0] += gx
        g[i, 1] += gy
        g[i, 2] += gz
    return e, (g,)


@numba.njit(cache=False)
def mlp_vg(W1, W2, X, T):
    """W3, in matrix form: the forward keeps H (for the ReLU's mask) and A (for W2's
    gradient); the reverse is three more products and the mask."""
    H = X @ W1
    A = np.where(H > 0, H, 0.0)
    Y = A @ W2
    D = Y - T
    value = np.sum(D ** 2)
    Yb = 2.0 * D
    gW2 = A.T @ Yb
    Ab = Yb @ W2.T
    Hb = np.where(H > 0, Ab, 0.0)
    gW1 = X.T @ Hb
    return value, (gW1, gW2)


@numba.njit(cache=False)
def huber_vg(pred, target, scale):
    """W4, fused: the total is a plain sum whose adjoint, scale * scale / n, is known
    before the loop, so each element's adjoint is taken in the same pass; scale's gradient
    through the final product is added once the total is known. Each branch gives its term
    and the term's derivative along a = abs(r) (r = sign(r) * a in the first), so the
    branch only chooses two numbers and abs's adjoint, the sign of r, is applied after."""
    n = pred.shape[0]
    totalb = scale * scale / n
    gpred = np.empty(n)
    rr = 0.0
    total = 0.0
    for i in range(n):
        r = (pred[i] - target[i]) / scale
        a = abs(r)
        if a <= 1.0:
            term = 0.5 * r * r
            da = a
        else:
            term = a - 0.5
            da = 1.0
        total += term
        rb = math.copysign(totalb * da, r)
        gpred[i] = rb / scale
        rr += rb * r
    value = total * scale * scale / n
    gscale = 2.0 * total * scale / n - rr / scale
    return value, (gpred, gscale)


@numba.njit(cache=False)
def box_products_vg(p, box):
    """W5. For each (i, j) the products of box[:, j] and of p[i, :] are taken as the
    primal takes them, keeping their prefix products (two scratch rows of length d); the
    reverse sweep over each product multiplies a prefix by the running suffix."""
    n = p.shape[0]
    d = p.shape[1]
    m = box.shape[1]
    out = np.zeros((n, m))
    gp = np.zeros((n, d))
    gbox = np.zeros((d, m))
    pre_b = np.empty(d)
    pre_p = np.empty(d)
    for i in range(n):
        for j in range(m):
            pb = 1.0
            for k in range(d):
                pre_b[k] = pb
                pb *= box[k, j]
            pp = 1.0
            for k in range(d):
                pre_p[k] = pp
                pp *= p[i, k]
            q = (pb - pp) / pb
            out[i, j] = q
            t = 1.0 / pb
            suffix = t - q * t
            for k in range(d - 1, -1, -1):
                gbox[k, j] += pre_b[k] * suffix
                suffix *= box[k, j]
            suffix = -t
            for k in range(d - 1, -1, -1):
                gp[i, k] += pre_p[k] * suffix
                suffix *= p[i, k]
    return np.sum(out), (gp, gbox)


@numba.njit(cache=False)
def _lorenz(x, y, z, s, r, b):
    return s * (y - x), x * (r - z) - y, x * y - b * z


@numba.njit(cache=False)
def _lorenz_adjoint(x, y, z, s, r, b, fxb, fyb, fzb):
    """The adjoint of `lorenz` at (x, y, z): the seeds pulled back onto x, y, z, s, r, b."""
    xb = -s * fxb + (r - z) * fyb + y * fzb
    yb = s * fxb - fyb + x * fzb
    zb = -x * fyb - b * fzb
    return xb, yb, zb, (y - x) * fxb, x * fyb, -z * fzb


@numba.njit(cache=False)
def rk4_lorenz_vg(x, y, z, s, r, b, nsteps):
    """W6. The tape holds the state at the start of each step; the reverse loop recomputes
    that step's stages from it and pulls the adjoint back through k4, k3, k2 and k1."""
    dt = 1e-5
    tape = np.empty((nsteps, 3))
    for k in range(nsteps):
        tape[k, 0] = x
        tape[k, 1] = y
        tape[k, 2] = z
        k1x, k1y, k1z = _lorenz(x, y, z, s, r, b)
        k2x, k2y, k2z = _lorenz(x + 0.5 * dt * k1x, y + 0.5 * dt * k1y, z + 0.5 * dt * k1z,
                                s, r, b)
        k3x, k3y, k3z = _lorenz(x + 0.5 * dt * k2x, y + 0.5 * dt * k2y, z + 0.5 * dt * k2z,
                                s, r, b)
        k4x, k4y, k4z = _lorenz(x + dt * k3x, y + dt * k3y, z + dt * k3z, s, r, b)
        x = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        y = y + dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
        z = z + dt / 6.0 * (k1z + 2.0 * k2z + 2.0 * k3z + k4z)
    value = x * x + y * y + z * z
    xb = 2.0 * x
    yb = 2.0 * y
    zb = 2.0 * z
    sb = 0.0
    rb = 0.0
    bb = 0.0
    for k in range(nsteps - 1, -1, -1):
        x = tape[k, 0]
        y = tape[k, 1]
        z = tape[k, 2]
        k1x, k1y, k1z = _lorenz(x, y, z, s, r, b)
        x2 = x + 0.5 * dt * k1x
        y2 = y + 0.5 * dt * k1y
        z2 = z + 0.5 * dt * k1z
        k2x, k2y, k2z = _lorenz(x2, y2, z2, s, r, b)
        x3 = x + 0.5 * dt * k2x
        y3 = y + 0.5 * dt * k2y
        z3 = z + 0.5 * dt * k2z
        k3x, k3y, k3z = _lorenz(x3, y3, z3, s, r, b)
        x4 = x + dt * k3x
        y4 = y + dt * k3y
        z4 = z + dt * k3z
        # the step's update: each stage's adjoint from the new state's
        gx = dt / 6.0 * xb
        gy = dt / 6.0 * yb
        gz = dt / 6.0 * zb
        k1xb, k1yb, k1zb = gx, gy, gz
        k2xb, k2yb, k2zb = 2.0 * gx, 2.0 * gy, 2.0 * gz
        k3xb, k3yb, k3zb = 2.0 * gx, 2.0 * gy, 2.0 * gz
        # k4 = lorenz(x4, ...), x4 = x + dt * k3x
        ax, ay, az, a_s, ar, ab = _lorenz_adjoint(x4, y4, z4, s, r, b, gx, gy, gz)
        sb += a_s
        rb += ar
        bb += ab
        xb += ax
        yb += ay
        zb += az
        k3xb += dt * ax
        k3yb += dt * ay
        k3zb += dt * az
        # k3 = lorenz(x3, ...), x3 = x + 0.5 * dt * k2x
        ax, ay, az, a_s, ar, ab = _lorenz_adjoint(x3, y3, z3, s, r, b, k3xb, k3yb, k3zb)
        sb += a_s
        rb += ar
        bb += ab
        xb += ax
        yb += ay
        zb += az
        k2xb += 0.5 * dt * ax
        k2yb += 0.5 * dt * ay
        k2zb += 0.5 * dt * az
        # k2 = lorenz(x2, ...), x2 = x + 0.5 * dt * k1x
        ax, ay, az, a_s, ar, ab = _lorenz_adjoint(x2, y2, z2, s, r, b, k2xb, k2yb, k2zb)
        sb += a_s
        rb += ar
        bb += ab
        xb += ax
        yb += ay
        zb += az
        k1xb += 0.5 * dt * ax
        k1yb += 0.5 * dt * ay
        k1zb += 0.5 * dt * az
        # k1 = lorenz(x, ...)
        ax, ay, az, a_s, ar, ab = _lorenz_adjoint(x, y, z, s, r, b, k1xb, k1yb, k1zb)
        sb += a_s
        rb += ar
        bb += ab
        xb += ax
        yb += ay
        zb += az
    return value, (xb, yb, zb, sb, rb, bb)


HAND = {
    "W1": tanh_rnn_vg,
    "W2": lennard_jones_vg,
    "W3": mlp_vg,
    "W4": huber_vg,
    "W5": box_products_vg,
    "W6": rk4_lorenz_vg,
}

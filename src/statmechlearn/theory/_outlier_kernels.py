"""Gaussian averages of the zero-temperature replica theory for learning with outliers.

With ``a = c_V + s x`` (x standard normal, V = 1 with probability p1) the
soft-selection free energy needs ``<Psi_b(a)>`` and its derivatives, where
``Psi_b(a) = max_t [softplus(t) - (t - a)^2 / (2 b)]`` (the exact beta -> infinity
limit) or the paper's second-order form eq. (A2),
``Psi_b(a) ~ softplus(a) + (b/2) sigma^2 / (1 - b sigma (1 - sigma))``.

The maximiser of the exact form jumps from the left to the right stationary
point at ``a = -b/2`` (the objective is even about that point), so every
Gaussian average is split there and each piece integrated by Gauss-Legendre:
the integrands are then smooth in x and in the order parameters, which the
Newton solvers' finite-difference Jacobians rely on.

All kernels are numba-compiled; :func:`prox_softplus_numpy` is the NumPy twin
of the inner maximisation used by the tests.
"""

import math

import numba
import numpy as np

__all__ = [
    "N_NODES",
    "TAIL",
    "prox_softplus",
    "prox_softplus_numpy",
    "soft_averages",
    "soft_replicon",
]

#: Gauss-Legendre nodes per piece of every Gaussian average.
N_NODES = 96
#: Gaussian averages are taken over |x| <= TAIL (neglected mass 2e-17).
TAIL = 8.5

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(N_NODES)


@numba.njit(cache=True)
def _sigmoid(t):  # pragma: no cover - compiled
    if t >= 0.0:
        return 1.0 / (1.0 + math.exp(-t))
    e = math.exp(t)
    return e / (1.0 + e)


@numba.njit(cache=True)
def _softplus(t):  # pragma: no cover - compiled
    if t > 0.0:
        return t + math.log1p(math.exp(-t))
    return math.log1p(math.exp(t))


@numba.njit(cache=True)
def _prox_point(a, b):  # pragma: no cover - compiled
    """Global maximiser t of ``softplus(t) - (t - a)^2 / (2b)``.

    Stationary points solve ``g(t) = t - b sigma(t) = a``. g is convex for
    t > 0 and concave for t < 0, and the global maximum lies at t > 0 exactly
    when ``a + b/2 > 0``. Newton started from ``a + b`` (an upper bound of the
    root, in the convex part) or from ``a`` (a lower bound, in the concave
    part) therefore converges monotonically to the right root, also for
    b > 4 where g is not monotone.
    """
    if b <= 0.0:
        return a
    t = a + b if a + 0.5 * b >= 0.0 else a
    for _ in range(200):
        s = _sigmoid(t)
        dg = 1.0 - b * s * (1.0 - s)
        step = (t - b * s - a) / dg
        t -= step
        if abs(step) <= 1e-13 * (1.0 + abs(t)):
            break
    return t


@numba.njit(cache=True)
def _prox_array(a, b, out):  # pragma: no cover - compiled
    for i in range(a.size):
        out[i] = _prox_point(a[i], b)


def prox_softplus(a, b):
    """Global maximiser of ``softplus(t) - (t - a)^2 / (2 b)`` for each a (numba).

    Parameters
    ----------
    a : array_like
    b : float
        ``b >= 0``; for b > 4 the objective may have two local maxima and the
        global one is returned.

    Returns
    -------
    ndarray
        t, with ``Psi_b(a) = softplus(t) - (t - a)^2 / (2b)`` and
        ``Psi_b'(a) = sigma(t)``.
    """
    a = np.ascontiguousarray(a, dtype=np.float64)
    out = np.empty(a.size)
    _prox_array(a.ravel(), float(b), out)
    return out.reshape(a.shape)


def prox_softplus_numpy(a, b):
    """NumPy twin of :func:`prox_softplus` (vectorised monotone Newton)."""
    a = np.asarray(a, dtype=np.float64)
    if b <= 0:
        return a.copy()
    t = np.where(a + 0.5 * b >= 0, a + b, a)
    for _ in range(200):
        s = 0.5 * (1.0 + np.tanh(0.5 * t))
        step = (t - b * s - a) / (1.0 - b * s * (1.0 - s))
        t = t - step
        if np.all(np.abs(step) <= 1e-13 * (1.0 + np.abs(t))):
            break
    return t


@numba.njit(cache=True)
def _soft_point(a, b, exact):  # pragma: no cover - compiled
    """(Psi, dPsi/da, dPsi/db) at a; the Gaussian form returns NaN where it breaks down."""
    if exact:
        t = _prox_point(a, b)
        s = _sigmoid(t)
        u = t - a
        psi = _softplus(t) - (u * u / (2.0 * b) if b > 0.0 else 0.0)
        return psi, s, 0.5 * s * s
    s = _sigmoid(a)
    ds = s * (1.0 - s)
    d = 1.0 - b * ds
    if d <= 0.0:
        return math.nan, math.nan, math.nan
    dds = ds * (1.0 - 2.0 * s)
    psi = _softplus(a) + 0.5 * b * s * s / d
    m = s + b * s * ds / d + 0.5 * b * b * s * s * dds / (d * d)
    return psi, m, 0.5 * s * s / (d * d)


@numba.njit(cache=True)
def _split_nodes(c, s, b, tail, nodes, weights):  # pragma: no cover
    # Gauss-Legendre nodes and Gaussian weights on [-tail, tail], in two pieces split
    # where a = c + s x crosses -b/2 (the maximiser of Psi_b jumps, or its curvature peaks)
    x_split = (-0.5 * b - c) / s if s > 0.0 else 0.0
    x_split = min(max(x_split, -tail), tail)
    inv_sqrt_2pi = 1.0 / math.sqrt(2.0 * math.pi)
    xs = np.empty(2 * nodes.size)
    ws = np.empty(2 * nodes.size)
    n = 0
    for piece in range(2):
        lo = -tail if piece == 0 else x_split
        hi = x_split if piece == 0 else tail
        half = 0.5 * (hi - lo)
        if half <= 0.0:
            continue
        mid = 0.5 * (hi + lo)
        for k in range(nodes.size):
            x = mid + half * nodes[k]
            xs[n] = x
            ws[n] = half * weights[k] * inv_sqrt_2pi * math.exp(-0.5 * x * x)
            n += 1
    return xs[:n], ws[:n]


@numba.njit(cache=True)
def _soft_averages_kernel(c0, c1, s, b, p1, exact, nodes, weights, tail):  # pragma: no cover
    # out: <Psi>, <m | V=1>, <m>, <x m>, <dPsi/db>   (mixture averages unless stated)
    out = np.zeros(5)
    if not exact and b >= 4.0:
        # 1/(1 - b sigma') is not integrable once b sigma' reaches 1 for some a
        out[:] = math.nan
        return out
    for v in range(2):
        c = c1 if v == 1 else c0
        pv = p1 if v == 1 else 1.0 - p1
        xs, ws = _split_nodes(c, s, b, tail, nodes, weights)
        for k in range(xs.size):
            x, w = xs[k], ws[k]
            psi, m, n = _soft_point(c + s * x, b, exact)
            out[0] += pv * w * psi
            if v == 1:
                out[1] += w * m
            out[2] += pv * w * m
            out[3] += pv * w * x * m
            out[4] += pv * w * n
    return out


def soft_averages(c0, c1, s, b, p1, *, exact=True):
    """Gaussian averages of the soft-selection potential.

    Parameters
    ----------
    c0, c1 : float
        Mean of ``a`` for outliers (V = 0) and informative examples (V = 1).
    s : float
        Standard deviation of ``a``.
    b : float
        Curvature parameter ``gamma~^2 z / gamma``.
    p1 : float
        Probability of V = 1.
    exact : bool
        Exact beta -> infinity limit, or the paper's Gaussian form (A2).

    Returns
    -------
    ndarray of shape (5,)
        ``<Psi>, <Psi' | V=1>, <Psi'>, <x Psi'>, <dPsi/db>``; NaN when the
        Gaussian form is undefined (``b sigma (1 - sigma) >= 1`` somewhere).
    """
    return _soft_averages_kernel(
        float(c0), float(c1), float(s), float(b), float(p1), bool(exact), _NODES, _WEIGHTS, TAIL
    )


@numba.njit(cache=True)
def _soft_replicon_kernel(c0, c1, s, b, p1, nodes, weights, tail):  # pragma: no cover
    # <(b Psi_b''(a))^2> over the mixture; Psi'' = sigma'(t*) / (1 - b sigma'(t*))
    if s > 0.0 and b >= 4.0:
        return math.inf  # the maximiser jumps at a = -b/2: a delta in Psi''
    total = 0.0
    for v in range(2):
        c = c1 if v == 1 else c0
        pv = p1 if v == 1 else 1.0 - p1
        if s <= 0.0:
            t = _prox_point(c, b)
            sp = _sigmoid(t) * (1.0 - _sigmoid(t))
            total += pv * (b * sp / (1.0 - b * sp)) ** 2
            continue
        xs, ws = _split_nodes(c, s, b, tail, nodes, weights)
        for k in range(xs.size):
            t = _prox_point(c + s * xs[k], b)
            sg = _sigmoid(t)
            sp = sg * (1.0 - sg)
            r = b * sp / (1.0 - b * sp)
            total += pv * ws[k] * r * r
    return total


def soft_replicon(c0, c1, s, b, p1):
    """``<(b Psi_b''(a))^2>`` of the exact soft-selection potential (mixture average).

    The replicon (Almeida-Thouless) eigenvalue of the zero-temperature RS
    saddle point is ``1 - alpha * soft_replicon(...)``
    (``docs/derivations/outliers_hard_branches.md``). Returns ``inf`` once
    ``b >= 4`` (with ``s > 0``): the maximiser of ``Psi_b`` then jumps at
    ``a = -b/2`` and ``Psi_b''`` has a delta function there.

    Parameters
    ----------
    c0, c1, s, b, p1 : float
        As in :func:`soft_averages`.

    Returns
    -------
    float
    """
    return float(
        _soft_replicon_kernel(
            float(c0), float(c1), float(s), float(b), float(p1), _NODES, _WEIGHTS, TAIL
        )
    )

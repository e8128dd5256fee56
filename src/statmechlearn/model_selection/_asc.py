"""Approximation set coding (notes §8.2–8.5): weights, weight sums and agreement kernels.

Every quantity is computed from the *excess costs* of two solutions on the
same ``n`` objects, ``a[i, nu] = h'(i, nu) - min_mu h'(i, mu) >= 0`` and
likewise ``b`` for the second solution: a labeling ``c`` has excess cost
``dR'(c) = sum_i a[i, c(i)]`` over the first solution's best labeling.

Boltzmann weights ``exp(-beta dR)`` make the posterior factorial; Fermi
weights ``1 / (1 + exp(beta (dR - n gamma)))`` and binary weights
``1{dR <= n gamma}`` depend on the total ``dR`` only, so their weight sums
need the (joint) density of states of ``dR'`` (and ``dR''``) over the
``k^n`` labelings. Two ways are given:

``saddle`` (default)
    For any ``lam`` in the weight's domain, Fenchel–Young gives
    ``w(E) <= exp(w*(lam) - lam E)`` with ``w*(lam) = sup_{E >= 0} [lam E +
    log w(E)]``, so ``sum_c w(dR(c)) <= exp(w*(lam)) prod_i sum_nu
    exp(-lam a[i, nu])`` (the sum factorises over objects). The infimum over
    ``lam`` (a convex problem: 1-D for a weight sum, 2-D for the agreement) is
    a Chernoff bound that is exact to leading order (``O(log n / n)`` per
    object, Gärtner–Ellis).
``exact``
    Dynamic programming over objects on an energy grid of width ``bin_width``
    (each ``a[i, nu]`` rounded to the grid): exact when the costs lie on the
    grid; otherwise every ``dR`` moves by at most ``n bin_width / 2`` and each
    ``log w`` by at most ``beta n bin_width / 2``.

``docs/derivations/posterior_agreement.md`` derives both and the sign of the
Fermi weight.
"""

import math

import numpy as np
from scipy.special import logsumexp, xlogy

__all__ = [
    "CODEBOOKS",
    "MAX_GRID",
    "METHODS",
    "WEIGHTS",
    "boltzmann_parts",
    "excess_costs",
    "log_density_of_states",
    "log_weight",
    "log_weight_sums",
    "weight_sums_exact",
]

#: Families of approximation weights (§8.2).
WEIGHTS = ("boltzmann", "fermi", "binary")
#: How the weight sums of Fermi and binary weights are computed.
METHODS = ("saddle", "exact")
#: Normalisations of the agreement kernel: the |C| = k^n labelings of the notes, the
#: object permutations of the communication protocol (§8.3-8.4) averaged over (annealed), or
#: counted: n!/prod n_nu! distinct permutations, exp(n H(sizes)) (Buhmann's group's code).
CODEBOOKS = ("labelings", "permutations", "entropy")

#: Largest joint energy grid of ``method="exact"`` (cells of float64: 32 MB).
MAX_GRID = 4_000_000

_BISECTIONS = 60
_NEWTON_STEPS = 60


def excess_costs(costs):
    """``h - min_nu h`` per object: the excess cost of each label over the cheapest."""
    h = np.asarray(costs, dtype=float)
    return h - h.min(axis=-1, keepdims=True)


def log_weight(energy, weights, beta, threshold):
    """``log w(E)`` of the approximation weights at total excess cost ``E >= 0``.

    Boltzmann ``-beta E``; Fermi ``-log(1 + exp(beta (E - threshold)))``
    (decreasing in ``E``: the notes' sign, ``exp(-beta (R - gamma))``, would
    make it increasing, against their order constraint); binary ``0`` for
    ``E <= threshold`` else ``-inf``.
    """
    E = np.asarray(energy, dtype=float)
    if weights == "boltzmann":
        return -beta * E
    if weights == "fermi":
        return -np.logaddexp(0.0, beta * (E - threshold))
    with np.errstate(divide="ignore"):
        return np.where(E <= threshold * (1 + 1e-12) + 1e-300, 0.0, -np.inf)


# ------------------------------------------------------------------ saddle point


def _conjugate(lam, weights, beta, threshold):
    """``w*(lam) = sup_{E >= 0} [lam E + log w(E)]``, its derivative (the maximising E) and
    its second derivative, for Fermi and binary weights; arrays broadcast."""
    lam = np.asarray(lam, dtype=float)
    if weights == "binary":
        t = np.broadcast_to(threshold, lam.shape)
        return lam * t, t.copy(), np.zeros_like(lam)
    p = np.clip(lam / beta, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        logit = np.log(p) - np.log1p(-p)
        e_raw = threshold + logit / beta
        entropy = -xlogy(p, p) - xlogy(1.0 - p, 1.0 - p)
        inner = lam * threshold - entropy
        curvature = 1.0 / (lam * (beta - lam))
    # below the ground state the supremum sits at E = 0
    at_zero = ~(e_raw > 0.0)
    edge = -np.logaddexp(0.0, -beta * threshold) + np.zeros_like(lam)
    value = np.where(at_zero, edge, inner)
    slope = np.where(at_zero, 0.0, e_raw)
    curv = np.where(at_zero, 0.0, curvature)
    return value, slope, np.where(np.isfinite(curv), curv, 0.0)


def _lse_rows(u):
    """``sum_i logsumexp_nu u[..., i, nu]`` and the softmax over ``nu``."""
    top = u.max(axis=-1, keepdims=True)
    e = np.exp(u - top)
    s = e.sum(axis=-1, keepdims=True)
    return np.sum(top[..., 0] + np.log(s[..., 0]), axis=-1), e / s


def _log_z_saddle(a, weights, beta, threshold):
    """``log sum_c w(dR(c))`` by the 1-D Chernoff bound, batched over ``beta``/``threshold``.

    ``a`` has shape (n, k); ``beta`` and ``threshold`` shape (P,). The
    objective ``F(lam) = w*(lam) + sum_i log sum_nu exp(-lam a_i nu)`` is
    convex with derivative ``E*(lam) - <dR>_lam``: bisection on it.
    """
    beta = np.asarray(beta, dtype=float)
    threshold = np.asarray(threshold, dtype=float)
    positive = a[a > 0]
    smallest = float(positive.min()) if positive.size else 1.0
    # binary: lam large enough that exp(-lam a) vanishes for every positive excess cost
    hi = np.full(threshold.shape, 750.0 / smallest) if weights == "binary" else beta * (1 - 1e-12)
    lo = hi * 1e-30

    def objective(lam):
        lse, soft = _lse_rows(-lam[:, None, None] * a)
        value, slope, curv = _conjugate(lam, weights, beta, threshold)
        mean = np.sum(soft * a, axis=(-1, -2))
        var = np.sum(soft * a**2, axis=(-1, -2)) - np.sum(np.sum(soft * a, axis=-1) ** 2, axis=-1)
        return value + lse, slope - mean, np.maximum(var, 0.0) + curv

    # safeguarded Newton on the monotone derivative, bisecting (geometrically) when a step
    # leaves the bracket
    left, right = np.log(lo), np.log(hi)
    lam = np.clip(np.minimum(hi * 0.5, 1.0 / max(float(a.mean()), 1e-300)), lo, hi)
    for _ in range(_BISECTIONS):
        _, grad, curv = objective(lam)
        up = grad > 0
        right = np.where(up, np.log(lam), right)
        left = np.where(up, left, np.log(lam))
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = lam - grad / curv
        inside = np.isfinite(newton) & (newton > np.exp(left)) & (newton < np.exp(right))
        nxt = np.where(inside, newton, np.exp(0.5 * (left + right)))
        if np.all(np.abs(nxt - lam) <= 1e-12 * lam):
            lam = nxt
            break
        lam = nxt
    best = objective(lam)[0]
    # lam = 0 (every labeling counted) where the minimiser is below the bracket
    at_zero = _conjugate(np.zeros_like(best), weights, beta, threshold)[0] + a.shape[0] * math.log(
        a.shape[1]
    )
    return np.minimum(best, at_zero), lam


def _joint_terms(a, b, partner, lam_a, lam_b):
    """``sum_i logsumexp_nu u_i nu`` with its gradient and Hessian in ``(lam_a, lam_b)``.

    ``u = -lam_a a - lam_b b`` for the agreement of two solutions on the same
    objects; with ``partner`` the second solution's row is an independent
    uniformly drawn object, ``u = -lam_a a_i nu + log mean_j exp(-lam_b b_j nu)``
    (the annealed kernel of the permutation codebook). Shapes: ``a`` (n, k),
    ``b`` (P, n, k) or (n, k); ``lam_*`` (P,).
    """
    la = lam_a[:, None, None]
    lb = lam_b[:, None, None]
    if partner:
        # per-cluster moments of b over the objects j, weighted by exp(-lam_b b_j nu)
        bb = np.broadcast_to(b, (lam_b.size, *b.shape[-2:]))
        ell, soft_j = _column_lse(-lb * bb)
        mean_b = np.sum(soft_j * bb, axis=-2)  # (P, k)
        var_b = np.sum(soft_j * bb**2, axis=-2) - mean_b**2
        ell = ell - math.log(b.shape[-2])
        u = -la * a + ell[:, None, :]
        ga = -np.broadcast_to(a, u.shape)
        gb = np.broadcast_to(-mean_b[:, None, :], u.shape)
        hbb = np.broadcast_to(np.maximum(var_b, 0.0)[:, None, :], u.shape)
    else:
        u = -la * a - lb * b
        ga = -np.broadcast_to(a, u.shape)
        gb = -np.broadcast_to(b, u.shape)
        hbb = 0.0
    value, soft = _lse_rows(u)
    m_a = np.sum(soft * ga, axis=-1)
    m_b = np.sum(soft * gb, axis=-1)
    grad = np.stack([m_a.sum(-1), m_b.sum(-1)], axis=-1)
    h_aa = np.sum(soft * ga**2, axis=-1) - m_a**2
    h_ab = np.sum(soft * ga * gb, axis=-1) - m_a * m_b
    h_bb = np.sum(soft * (gb**2 + hbb), axis=-1) - m_b**2
    hess = np.stack(
        [
            np.stack([h_aa.sum(-1), h_ab.sum(-1)], -1),
            np.stack([h_ab.sum(-1), h_bb.sum(-1)], -1),
        ],
        -2,
    )
    return value, grad, hess


def _column_lse(v):
    """logsumexp over objects (axis -2) and the softmax weights along it."""
    top = v.max(axis=-2, keepdims=True)
    e = np.exp(v - top)
    s = e.sum(axis=-2, keepdims=True)
    return top[..., 0, :] + np.log(s[..., 0, :]), e / s


def _log_joint_saddle(a, b, weights, beta, threshold, start, partner=False):
    """``log sum_c w(dR'(c)) w(dR''(c))`` by the 2-D Chernoff bound (damped projected Newton).

    The objective ``w*(lam_a) + w*(lam_b) + sum_i logsumexp_nu u`` is convex
    on the box ``[0, hi]^2``; every iterate gives an upper bound, the last
    (smallest) is returned.
    """
    beta = np.asarray(beta, dtype=float)
    threshold = np.asarray(threshold, dtype=float)
    if weights == "binary":
        positive = np.concatenate([a[a > 0], np.ravel(b)[np.ravel(b) > 0]])
        smallest = float(positive.min()) if positive.size else 1.0
        hi = np.full(threshold.shape, 750.0 / smallest)
    else:
        hi = beta * (1.0 - 1e-12)

    def objective_at(x, idx):
        bi = b if b.ndim == 2 else b[idx]
        value, grad, hess = _joint_terms(a, bi, partner, x[:, 0], x[:, 1])
        for d in range(2):
            c, s, cc = _conjugate(x[:, d], weights, beta[idx], threshold[idx])
            value = value + c
            grad[:, d] += s
            hess[:, d, d] += cc
        return value, grad, hess

    def objective(x):
        return objective_at(x, np.arange(len(x)))

    x = np.clip(np.asarray(start, dtype=float), 0.0, hi[:, None])
    value, grad, hess = objective(x)
    active = np.ones(len(x), dtype=bool)
    for _ in range(_NEWTON_STEPS):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        xi, gi, hi_, top = x[idx], grad[idx], hess[idx], hi[idx, None]
        scale = np.abs(hi_[:, 0, 0]) + np.abs(hi_[:, 1, 1]) + 1e-300
        reg = hi_ + (1e-10 * scale)[:, None, None] * np.eye(2)
        step = -np.linalg.solve(reg, gi[..., None])[..., 0]
        # coordinates on a bound whose gradient points outwards stay there
        blocked = ((xi <= 0.0) & (gi > 0)) | ((xi >= top) & (gi < 0))
        step = np.where(blocked, 0.0, step)
        decrement = -np.sum(gi * step, axis=-1)
        t = np.ones(idx.size)
        pending = np.ones(idx.size, dtype=bool)
        for _ in range(30):
            sub = np.flatnonzero(pending)
            trial = np.clip(xi[sub] + t[sub, None] * step[sub], 0.0, top[sub])
            v, g, h = objective_at(trial, idx[sub])
            ok = v <= value[idx[sub]]
            take = idx[sub[ok]]
            x[take], value[take], grad[take], hess[take] = trial[ok], v[ok], g[ok], h[ok]
            pending[sub[ok]] = False
            if not pending.any():
                break
            t[sub[~ok]] *= 0.5
        # converged: the Newton decrement (the predicted gain) is negligible
        active[idx[(decrement <= 1e-10) | pending]] = False
    return value


def log_weight_sums(a, b, weights, beta, gamma, *, codebook="labelings"):
    """Saddle-point estimates of the logs of ``Z'``, ``Z''`` and the agreement sum.

    Parameters
    ----------
    a, b : ndarray of shape (n, k)
        Excess costs of the two solutions on the same objects (second matched
        to the first).
    weights : {"fermi", "binary"}
    beta, gamma : ndarray of shape (P,)
        Sharpness (``inf`` for binary) and per-object resolution; the
        threshold on the total excess cost is ``n * gamma``.
    codebook : {"labelings", "permutations"}

    Returns
    -------
    log_z_a, log_z_b, log_agree : ndarray of shape (P,)
        For ``codebook="permutations"`` ``log_z_a`` is the annealed agreement
        over independently drawn partner objects and ``log_z_b`` is zero.
    """
    n = a.shape[0]
    threshold = n * np.asarray(gamma, dtype=float)
    log_za, lam_a = _log_z_saddle(a, weights, beta, threshold)
    log_zb, lam_b = _log_z_saddle(b, weights, beta, threshold)
    start = np.stack([lam_a, lam_b], axis=-1)
    log_agree = _log_joint_saddle(a, b, weights, beta, threshold, start)
    if codebook == "permutations":
        annealed = _log_joint_saddle(a, b, weights, beta, threshold, start, partner=True)
        return annealed, np.zeros_like(annealed), log_agree
    return log_za, log_zb, log_agree


# ------------------------------------------------------------------ exact sums


def log_density_of_states(options, bin_width):
    """Log counts of the labelings on an energy grid, by dynamic programming over objects.

    Parameters
    ----------
    options : list of ndarray of shape (m_i, d + 1)
        For object ``i`` its choices: ``d`` excess costs (``d`` = 1 or 2) and
        the log multiplicity of the choice (0 for a label; ``-log n`` for a
        label paired with one of ``n`` equally likely partner objects).
    bin_width : float
        Energies are rounded to multiples of it.

    Returns
    -------
    ndarray of ``d`` dimensions
        ``log sum_c mult(c) 1{dR(c) in bin}``; entry ``j`` (or ``j, l``) is
        the bin at energy ``j * bin_width`` (and ``l * bin_width``).
    """
    d = options[0].shape[1] - 1
    logc = np.zeros((1,) * d)
    for opt in options:
        shift = np.rint(opt[:, :d] / bin_width).astype(int)
        top = shift.max(axis=0)
        new = np.full(tuple(np.add(logc.shape, top)), -np.inf)
        for s, m in zip(shift, opt[:, d], strict=True):
            idx = tuple(slice(si, si + n) for si, n in zip(s, logc.shape, strict=True))
            new[idx] = np.logaddexp(new[idx], logc + m)
        logc = new
    return logc


def weight_sums_exact(a, b, weights, beta, gamma, *, codebook="labelings", bin_width=None):
    """Exact logs of ``Z'``, ``Z''`` and the agreement sum from the density of states.

    Same parameters and returns as :func:`log_weight_sums`, plus
    ``bin_width`` (default: 1/256 of the largest excess cost of one object,
    so the capacity is off by at most ``2 beta bin_width`` per object; for
    integer-valued costs ``bin_width=1`` is exact). Costs ``O(n k G^2)``
    with ``G`` the number of grid points per axis: for small problems and
    verification.

    Raises
    ------
    ValueError
        If the joint energy grid would exceed :data:`MAX_GRID` cells.
    """
    n, k = a.shape
    top = max(float(a.max()), float(b.max()), 1e-300)
    if bin_width is None:
        bin_width = top / 256.0
    cells = (n * math.ceil(top / bin_width) + 1) ** 2
    if cells > MAX_GRID:
        raise ValueError(
            f"method='exact' would build an energy grid of {cells:.3g} cells for n={n} objects "
            f"(at most {MAX_GRID:.0e}): use method='saddle', or fewer objects"
        )
    threshold = n * np.asarray(gamma, dtype=float)
    beta = np.asarray(beta, dtype=float)
    opt_a = [np.column_stack([a[i], np.zeros(k)]) for i in range(n)]
    opt_b = [np.column_stack([b[i], np.zeros(k)]) for i in range(n)]
    joint = [np.column_stack([a[i], b[i], np.zeros(k)]) for i in range(n)]
    dos_a = log_density_of_states(opt_a, bin_width)
    dos_b = log_density_of_states(opt_b, bin_width)
    dos_ab = log_density_of_states(joint, bin_width)
    grid_a = np.arange(dos_a.shape[0]) * bin_width
    grid_b = np.arange(dos_b.shape[0]) * bin_width
    ga = np.arange(dos_ab.shape[0]) * bin_width
    gb = np.arange(dos_ab.shape[1]) * bin_width
    out = np.empty((3, beta.size))
    for p in range(beta.size):
        lw = [log_weight(g, weights, beta[p], threshold[p]) for g in (grid_a, grid_b, ga, gb)]
        out[0, p] = logsumexp(dos_a + lw[0])
        out[1, p] = logsumexp(dos_b + lw[1])
        out[2, p] = logsumexp(dos_ab + lw[2][:, None] + lw[3][None, :])
    if codebook == "permutations":
        annealed = _annealed_exact(a, b, weights, beta, threshold, bin_width)
        return annealed, np.zeros_like(annealed), out[2]
    return out[0], out[1], out[2]


def _annealed_exact(a, b, weights, beta, threshold, bin_width):
    n, k = a.shape
    joint = [
        np.column_stack([np.repeat(a[i], n), b.T.ravel(), np.full(n * k, -math.log(n))])
        for i in range(n)
    ]
    dos = log_density_of_states(joint, bin_width)
    ga = np.arange(dos.shape[0]) * bin_width
    gb = np.arange(dos.shape[1]) * bin_width
    out = np.empty(beta.size)
    for p in range(beta.size):
        la = log_weight(ga, weights, beta[p], threshold[p])
        lb = log_weight(gb, weights, beta[p], threshold[p])
        out[p] = logsumexp(dos + la[:, None] + lb[None, :])
    return out


def boltzmann_parts(a, b, beta):
    """Per-object Boltzmann posteriors (log) of both solutions at each beta: (P, n, k)."""
    la = -np.asarray(beta, dtype=float)[:, None, None] * a
    la = la - logsumexp(la, axis=-1, keepdims=True)
    lb = -np.asarray(beta, dtype=float)[:, None, None] * b
    lb = lb - logsumexp(lb, axis=-1, keepdims=True)
    return la, lb

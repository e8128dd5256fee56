"""Two-step replica-symmetry breaking (2RSB) at zero temperature for the ML mixture.

One more level of the Parisi hierarchy than :mod:`._mixture_rsb`: overlaps
``q0 < q1 < q2 = Q`` with ``delta0 = q1 - q0``, ``delta1 = q2 - q1``, Parisi
parameters ``0 < y0 <= y1`` (outer, inner), within-state susceptibility ``x``,

    f2 = alpha Q / (2 sigma) - ln(X1 / x) / (2 y1) - ln(X0 / X1) / (2 y0) - (q0 - m^2) / (2 X0)
         - (alpha / y0) < ln < Z2(h1)^(y0 / y1) >_{z1} >_{z0},

    X1 = x + y1 delta1,  X0 = X1 + y0 delta0,
    Z2(h1) = < exp(-y1 Phi_x(h1 + sqrt(delta1) z2)) >_{z2},
    h1 = c m + sqrt(q0) z0 + sqrt(delta0) z1.

``delta0 -> 0`` gives the 1RSB functional at ``y = y1``; ``delta1 -> 0`` gives it at
``y = y0``. Only the size of the step from 1RSB to 2RSB is wanted here (how far
the unstable 1RSB solution is from the limit of the hierarchy), so the
saddle point is found from a finite-difference gradient of ``f2`` (three
nested quadratures), not from analytic equations; see
``docs/derivations/ml_mixture_1rsb.md``.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import root

from statmechlearn._core.exceptions import ConvergenceError
from statmechlearn._core.gauss import H
from statmechlearn.theory._mixture_rsb import _field, _split_nodes, solve_at

__all__ = ["Mixture2RSB", "functional_2rsb", "solve_2rsb"]

_RULES = {n: np.polynomial.legendre.leggauss(n) for n in (24, 32, 48, 64, 96)}


def _log_weights(w):
    return np.log(w, out=np.full_like(w, -np.inf), where=w > 0.0)


def _logsumexp(a, axis):
    top = np.max(a, axis=axis, keepdims=True)
    return np.log(np.sum(np.exp(a - top), axis=axis)) + np.squeeze(top, axis=axis)


def functional_2rsb(q0, delta0, delta1, m, x, y0, y1, *, alpha, sigma, u0, nodes=(96, 48, 48)):
    """The 2RSB functional per N at one point (no stationarity imposed).

    Parameters
    ----------
    q0, delta0, delta1, m, x, y0, y1 : float
        Overlaps, teacher overlap, susceptibility and Parisi parameters (see
        the module docstring); ``delta0, delta1, x, y0, y1 > 0``.
    alpha, sigma, u0 : float
        As in :func:`statmechlearn.theory.ml_mixture.solve`.
    nodes : tuple of int, default=(96, 48, 48)
        Gauss-Legendre nodes per half-line of the outer, middle and inner
        averages (each split where its field crosses 0).

    Returns
    -------
    float
    """
    c = u0 / math.sqrt(2.0)
    outer, middle, inner = (_RULES[n] for n in nodes)
    z0, w0 = _split_nodes(-c * m / math.sqrt(q0), outer)
    h0 = c * m + math.sqrt(q0) * z0  # (n0,)
    s0, s1 = math.sqrt(delta0), math.sqrt(delta1)
    z1, w1 = _split_nodes(-h0 / s0, middle)  # (n0, n1)
    h1 = h0[:, None] + s0 * z1
    z2, w2 = _split_nodes(-h1 / s1, inner)  # (n0, n1, n2)
    h2 = h1[..., None] + s1 * z2
    _, _, phi = _field(h2, x, sigma)
    log_z2 = _logsumexp(_log_weights(w2) - y1 * phi, axis=2)  # (n0, n1)
    log_mid = _logsumexp(_log_weights(w1) + (y0 / y1) * log_z2, axis=1)  # (n0,)
    x1 = x + y1 * delta1
    x0 = x1 + y0 * delta0
    q = q0 + delta0 + delta1
    return (
        alpha * q / (2.0 * sigma)
        - math.log(x1 / x) / (2.0 * y1)
        - math.log(x0 / x1) / (2.0 * y0)
        - (q0 - m * m) / (2.0 * x0)
        - alpha * float(w0 @ log_mid) / y0
    )


@dataclass(frozen=True)
class Mixture2RSB:
    """A zero-temperature 2RSB saddle point of the ordered branch.

    Attributes
    ----------
    alpha, sigma, u0 : float
    q0, delta0, delta1, x, y0, y1 : float
        The order parameters (``Q = q0 + delta0 + delta1``).
    Q, R, eps_c : float
        Self-overlap, overlap with the true splitting (the paper's r) and
        classification error of one state.
    energy : float
        Ground-state energy per pattern (the functional at its saddle point).
    gradient_norm : float
        Largest component of the finite-difference gradient at the solution,
        per pattern: how stationary the returned point is.
    """

    alpha: float
    sigma: float
    u0: float
    q0: float
    delta0: float
    delta1: float
    x: float
    y0: float
    y1: float
    Q: float
    R: float
    eps_c: float
    energy: float
    gradient_norm: float


def _gradient_5(v, y0, y1, alpha, sigma, u0, nodes, h=1e-5):
    """Central differences of f2 in ln(q0, delta0, delta1, m, x) at fixed Parisi parameters."""

    def f(w):
        q0, d0, d1, m, x = np.exp(w)
        return functional_2rsb(
            q0, d0, d1, m, x, y0, y1, alpha=alpha, sigma=sigma, u0=u0, nodes=nodes
        )

    g = np.empty(5)
    for i in range(5):
        e = np.zeros(5)
        e[i] = h
        g[i] = (f(v + e) - f(v - e)) / (2.0 * h)
    return g / alpha


def _solve_fixed(y0, y1, alpha, sigma, u0, nodes, start):
    res = root(
        lambda w: _gradient_5(w, y0, y1, alpha, sigma, u0, nodes),
        start,
        method="hybr",
        options={"xtol": 1e-10},
    )
    q0, d0, d1, m, x = np.exp(res.x)
    grad = float(np.max(np.abs(res.fun)))
    if not grad < 1e-8 or min(d0, d1) < 1e-7 * q0:
        raise ConvergenceError(
            f"no 2RSB saddle point at y0={y0:.4g}, y1={y1:.4g} (alpha={alpha}, sigma={sigma}, "
            f"u0={u0}; gradient {grad:.2e}, deltas {d0:.2e}, {d1:.2e})",
            diagnostics={"x": res.x, "gradient": grad},
        )
    f = functional_2rsb(q0, d0, d1, m, x, y0, y1, alpha=alpha, sigma=sigma, u0=u0, nodes=nodes)
    return res.x, f, grad


def solve_2rsb(alpha, sigma, *, y, u0=1.0, nodes=(64, 32, 32)):
    """The 2RSB saddle point of the ordered branch at given Parisi parameters.

    The five order parameters solve their stationarity conditions (central
    differences of ``f2``, Powell's hybrid method), started from the static
    1RSB solution with its ``delta`` split in two. At zero temperature the
    ground-state energy is the maximum of ``f2`` over ``(y0, y1)``; a scan of
    ``y`` with this function bounds it from below (each value is one step
    past 1RSB). Expensive: about a minute per call on one core.

    Parameters
    ----------
    alpha, sigma : float
        As in :func:`statmechlearn.theory.ml_mixture.solve_1rsb`; RS must be
        unstable at ``sigma``.
    y : (float, float)
        Parisi parameters ``(y0, y1)`` with ``0 < y0 < y1``.
    u0 : float, default=1.0
        Normalised separation.
    nodes : tuple of int, default=(64, 32, 32)
        Nodes per half-line of the three nested averages, each from
        ``(24, 32, 48, 64, 96)``.

    Returns
    -------
    Mixture2RSB

    Raises
    ------
    ConvergenceError
        If the order parameters do not converge or a ``delta`` collapses
        (the point falls back onto 1RSB).
    """
    y0, y1 = (float(t) for t in y)
    if not 0.0 < y0 < y1:
        raise ValueError(f"y must be (y0, y1) with 0 < y0 < y1, got {y!r}")
    if tuple(nodes) != tuple(n for n in nodes if n in _RULES) or len(nodes) != 3:
        raise ValueError(f"nodes must be three of {sorted(_RULES)}, got {nodes!r}")
    _, v = solve_at(alpha, sigma, u0)
    q0, delta, m, x, _ = np.exp(v)
    start = np.log([q0, 0.6 * delta, 0.4 * delta, m, x])
    sol, f, grad = _solve_fixed(y0, y1, alpha, sigma, u0, nodes, start)
    q0, d0, d1, m, x = np.exp(sol)
    q = q0 + d0 + d1
    cos_theta = m / math.sqrt(q)
    return Mixture2RSB(
        alpha,
        sigma,
        u0,
        q0,
        d0,
        d1,
        x,
        y0,
        y1,
        q,
        m / math.sqrt(2.0),
        float(H(u0 * cos_theta / math.sqrt(2.0))),
        f / alpha,
        grad,
    )

"""Bernoulli–Gaussian (spike-and-slab) beliefs with moment-matched hyperparameters.

A component ``(w, c)`` with ``c in {0, 1}`` under the canonical prior
``exp(-(1 - c + G c) w**2 / 2 + lam c)`` that receives a Gaussian message
``exp(h c w - Qhat (c w)**2 / 2)`` has the belief

    P(c = 1) = rho = sigmoid(lam - ln(A) / 2 + h**2 / (2 A)),
    <c w>    = rho h / A,
    <c w^2>  = rho (1 / A + h**2 / A**2),

with ``A = F + Qhat`` the total precision of an active weight (Uda &
Kabashima, eqs. 30 and 34–36; ``c = 0`` weights are standard normal and do
not couple to data). The two hyperparameters ``(A, lam)`` are tuned so that
the averages over the components (or over a weighted quadrature of the field
distribution, for state evolution) satisfy the pruning conditions

    mean <c> = C,    mean <c w^2> = C         (eqs. 34–35, 54–55).

:func:`match_pruning` solves them by a damped two-dimensional Newton method
in ``(lam, ln A)`` from a warm start, with a nested bracketing fallback that
cannot fail; ``C = 1`` (no pruning) has the closed form
``A = (1 + sqrt(1 + 4 mean h**2)) / 2``.
"""

import math
import numbers

import numpy as np
from scipy import optimize, special

from statmechlearn._core.exceptions import ConvergenceError
from statmechlearn._core.validation import check_array_finite, check_int, check_real

__all__ = ["belief_moments", "match_pruning"]


def _check_fields(h, ndim=None):
    h = check_array_finite(h, "h", ndim=ndim)
    if h.size == 0:
        raise ValueError("h must not be empty")
    return h


def _check_lam(lam, name):
    """A finite log-odds, or ``+inf`` (no pruning: every component active)."""
    if isinstance(lam, numbers.Real) and not isinstance(lam, bool) and lam == math.inf:
        return math.inf
    return check_real(lam, f"{name} (finite, or +inf for no pruning)")


def _log_odds(h2, A, lam):
    return lam - 0.5 * np.log(A) + 0.5 * h2 / A


def belief_moments(h, A, lam):
    """Posterior moments of a spike-and-slab weight given its field.

    Parameters
    ----------
    h : array_like
        Field ``h`` acting on ``c w``; finite, non-empty.
    A : float
        Precision of an active weight, ``> 0``.
    lam : float
        Log-odds hyperparameter ``lambda``, finite or ``+inf`` (no pruning).

    Returns
    -------
    rho, mean, second : ndarray
        ``<c>``, ``<c w>`` and ``<c w**2>``.
    """
    h = _check_fields(h)
    A = check_real(A, "A", minimum=0.0, include_min=False)
    lam = _check_lam(lam, "lam")
    rho = np.ones_like(h) if np.isposinf(lam) else special.expit(_log_odds(h * h, A, lam))
    mean = rho * h / A
    second = rho * (1.0 / A + h * h / (A * A))
    return rho, mean, second


def _residuals(h2, weights, C, lam, log_a):
    A = np.exp(log_a)
    rho = special.expit(_log_odds(h2, A, lam))
    q = 1.0 / A + h2 / (A * A)
    return np.array([weights @ rho - C, weights @ (rho * q) - C]) / C, rho, q, A


def _newton(h2, weights, C, lam, log_a, tol, max_iter):
    res, rho, q, A = _residuals(h2, weights, C, lam, log_a)
    norm = np.max(np.abs(res))
    for _ in range(max_iter):
        if norm < tol:
            return lam, log_a, True
        drho = rho * (1.0 - rho)
        dz_du = -0.5 - 0.5 * h2 / A
        dq_du = -1.0 / A - 2.0 * h2 / (A * A)
        jac = (
            np.array(
                [
                    [weights @ drho, weights @ (drho * dz_du)],
                    [weights @ (drho * q), weights @ (drho * dz_du * q + rho * dq_du)],
                ]
            )
            / C
        )
        try:
            step = np.linalg.solve(jac, -res)
        except np.linalg.LinAlgError:
            return lam, log_a, False
        if not np.all(np.isfinite(step)):
            return lam, log_a, False
        # Keep ln A from jumping by more than e^2 per step: the residual is flat for huge A.
        step *= min(1.0, 2.0 / max(abs(step[1]), 1e-300), 20.0 / max(abs(step[0]), 1e-300))
        t = 1.0
        while t > 1e-4:
            new = _residuals(h2, weights, C, lam + t * step[0], log_a + t * step[1])
            new_norm = np.max(np.abs(new[0]))
            if new_norm < (1.0 - 1e-4 * t) * norm:
                lam, log_a = lam + t * step[0], log_a + t * step[1]
                res, rho, q, A = new
                norm = new_norm
                break
            t *= 0.5
        else:
            return lam, log_a, False
    return lam, log_a, norm < tol


def _lam_for(h2, weights, C, log_a):
    """The ``lam`` at which ``mean <c> = C`` for a given ``ln A`` (monotone in ``lam``)."""
    A = np.exp(log_a)
    base = -0.5 * np.log(A) + 0.5 * h2 / A

    def g(lam):
        return weights @ special.expit(lam + base) - C

    lo, hi = -np.max(base) - 50.0, -np.min(base) + 50.0
    return optimize.brentq(g, lo + special.logit(C), hi + special.logit(C), xtol=1e-14)


def _bracketed(h2, weights, C, tol):
    def g(log_a):
        lam = _lam_for(h2, weights, C, log_a)
        return _residuals(h2, weights, C, lam, log_a)[0][1]

    # g -> +inf as A -> 0 (the 1/A term) and -> -1 as A -> inf.
    lo, hi = -5.0, 5.0
    while g(lo) <= 0:
        lo -= 5.0
        if lo < -200:
            raise ConvergenceError("match_pruning: no precision A satisfies <c w^2> = C")
    while g(hi) >= 0:
        hi += 5.0
        if hi > 200:
            raise ConvergenceError("match_pruning: no precision A satisfies <c w^2> = C")
    log_a = optimize.brentq(g, lo, hi, xtol=1e-13, rtol=1e-14)
    return _lam_for(h2, weights, C, log_a), log_a


def match_pruning(h, C, *, weights=None, A0=None, lam0=None, tol=1e-12, max_iter=50):
    """Hyperparameters ``(A, lam)`` for which the belief averages meet the pruning conditions.

    Solves ``sum_l w_l <c>_l = C`` and ``sum_l w_l <c w**2>_l = C`` (Uda &
    Kabashima, eqs. 34–35 and 54–55) for the precision ``A = F + Qhat`` and
    the log-odds ``lam``.

    Parameters
    ----------
    h : array_like of shape (n,)
        Fields of the components (or quadrature nodes of the field law); finite.
    C : float
        Target fraction of active components, in ``(0, 1]``.
    weights : array_like of shape (n,), optional
        Non-negative weights summing to one; uniform ``1/n`` by default.
    A0, lam0 : float, optional
        Warm start (the previous iteration's solution): ``A0 > 0``, ``lam0``
        finite or ``+inf`` (the ``C = 1`` solution, which is not used as a start).
    tol : float, default=1e-12
        Tolerance on the relative residuals, > 0.
    max_iter : int, default=50
        Newton iterations before the bracketing fallback, >= 0.

    Returns
    -------
    A : float
        Precision of an active weight (``F + Qhat``), ``> 0``.
    lam : float
        Log-odds hyperparameter; ``+inf`` when ``C = 1``.
    """
    h = _check_fields(h, ndim=1)
    C = check_real(C, "C", minimum=0.0, maximum=1.0, include_min=False)
    if weights is None:
        weights = np.full(h.shape, 1.0 / h.size)
    else:
        weights = check_array_finite(weights, "weights", shape=h.shape)
        if np.any(weights < 0) or abs(weights.sum() - 1.0) > 1e-8:
            raise ValueError(
                f"weights must be non-negative and sum to 1, got minimum {weights.min():g} "
                f"and sum {weights.sum():.12g}"
            )
    if A0 is not None:
        A0 = check_real(A0, "A0", minimum=0.0, include_min=False)
    if lam0 is not None:
        lam0 = _check_lam(lam0, "lam0")
    tol = check_real(tol, "tol", minimum=0.0, include_min=False)
    max_iter = check_int(max_iter, "max_iter", minimum=0)
    h2 = h * h
    if C >= 1.0:
        # Every c_l = 1: mean(1/A + h^2/A^2) = 1 is a quadratic in A.
        return 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * (weights @ h2))), np.inf
    if A0 is None or lam0 is None or not (np.isfinite(A0) and np.isfinite(lam0) and A0 > 0):
        # The solution without data (h = 0): A = 1, lam = logit(C).
        A0, lam0 = 1.0, float(special.logit(C))
    lam, log_a, ok = _newton(h2, weights, C, float(lam0), float(np.log(A0)), tol, max_iter)
    if not ok:
        lam, log_a = _bracketed(h2, weights, C, tol)
    return float(np.exp(log_a)), float(lam)

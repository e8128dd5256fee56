"""Maximum-entropy inference on a finite or gridded support (lecture notes §2).

Of all distributions ``p`` on the support points ``x_1..x_m`` with
``E_p[r_j] = mu_j`` the one of largest entropy is the Gibbs form

    p(x) = q(x) exp(-sum_j lambda_j r_j(x)) / Z(lambda)

(``q`` a base measure, uniform by default: the grid spacing for a density).
The multipliers minimise the convex dual
``G(lambda) = log Z(lambda) + lambda . mu``, whose gradient is
``mu - E_p[r]`` and Hessian ``Cov_p[r]``; Newton steps with a backtracking
line search converge quadratically. The constraints are feasible exactly
when ``mu`` lies in the convex hull of the feature vectors ``r(x_i)``; that
is checked first (a linear program), and a ``mu`` on the boundary of the
hull (the maximiser puts zero mass somewhere, ``lambda`` diverges) is
reported as such.
"""

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog
from scipy.special import logsumexp

from statmechlearn._core.exceptions import ConvergenceError
from statmechlearn._core.validation import check_array_finite, check_int, check_real

__all__ = ["MaxEntDistribution", "maximum_entropy"]


@dataclass(frozen=True)
class MaxEntDistribution:
    """The maximum-entropy distribution that matches given expectations.

    Attributes
    ----------
    probabilities : ndarray of shape (m,)
        ``p(x_i)`` on the support.
    multipliers : ndarray of shape (J,)
        ``lambda_j`` of the Gibbs form ``p ∝ q exp(-lambda . r)``.
    entropy : float
        ``-sum p log(p / q)`` in nats (the differential entropy on a grid
        when ``q`` is the spacing).
    expectations : ndarray of shape (J,)
        ``E_p[r_j]`` reached.
    max_violation : float
        ``max_j |E_p[r_j] - mu_j|``.
    n_iter : int
        Newton steps.
    """

    probabilities: np.ndarray
    multipliers: np.ndarray
    entropy: float
    expectations: np.ndarray
    max_violation: float
    n_iter: int


def _check_feasible(R, mu, scale):
    m, J = R.shape
    # find p >= 0 with sum p = 1, R^T p = mu, maximising the smallest p (> 0: interior);
    # written as p_i = t + s_i with s_i >= 0, so that "t <= p_i" is a bound, not m rows of
    # constraints: the LP keeps J + 1 rows however fine the grid
    Rs = R / scale
    c = np.zeros(m + 1)
    c[-1] = -1.0
    A_eq = np.empty((J + 1, m + 1))
    A_eq[:J, :m] = Rs.T
    A_eq[:J, m] = Rs.sum(axis=0)
    A_eq[J, :m] = 1.0
    A_eq[J, m] = m
    b_eq = np.append(mu / scale, 1.0)
    res = linprog(
        c,
        A_eq=A_eq,
        b_eq=b_eq,
        bounds=[(0, None)] * m + [(0, 1.0 / m)],
        method="highs",
    )
    if res.status == 2:
        raise ValueError(
            "targets are infeasible: no distribution on the support has these expectations "
            "(they must lie in the convex hull of the feature vectors r(x_i))"
        )
    if res.status != 0:
        raise ConvergenceError(f"feasibility check failed: {res.message}")
    if -res.fun <= 1e-12:
        raise ValueError(
            "targets lie on the boundary of the convex hull of the feature vectors: the "
            "maximum-entropy distribution puts zero mass on part of the support and the "
            "multipliers are infinite; remove those support points or move the targets inside"
        )


def maximum_entropy(features, targets, *, base_measure=None, max_iter=100, tol=1e-10):
    """Maximum-entropy distribution on a support with prescribed feature expectations.

    Parameters
    ----------
    features : array-like of shape (m, J)
        ``r_j(x_i)`` at the ``m`` support points (grid points for a density);
        ``J = 0`` columns is allowed (no constraint: the base measure,
        normalised).
    targets : array-like of shape (J,)
        The expectations ``mu_j`` to match.
    base_measure : array-like of shape (m,), optional
        Positive weights ``q(x_i)`` (say the grid spacing); uniform by default.
    max_iter : int, default=100
        Newton steps.
    tol : float, default=1e-10
        Stop when ``max |E_p[r] - mu| <= tol * (1 + max |mu|)``.

    Returns
    -------
    MaxEntDistribution

    Raises
    ------
    ValueError
        Bad shapes or values, or infeasible targets (outside, or on the
        boundary of, the convex hull of the feature vectors).
    ConvergenceError
        When Newton's method does not reach ``tol`` in ``max_iter`` steps.

    Examples
    --------
    The largest-entropy distribution on ``{0, 1, ...}`` with mean 2 is geometric:

    >>> import numpy as np
    >>> from statmechlearn.model_selection import maximum_entropy
    >>> x = np.arange(200.0)
    >>> res = maximum_entropy(x[:, None], [2.0])
    >>> float(np.round(res.probabilities[1] / res.probabilities[0], 6))  # 2 / 3
    0.666667
    """
    R = check_array_finite(features, "features")
    if R.ndim == 1:
        R = R[:, None]
    if R.ndim != 2 or R.shape[0] < 1:
        raise ValueError(f"features must have shape (n_support, n_features), got {R.shape}")
    if not np.all(np.isfinite(R)):
        raise ValueError("features must be finite (no NaN or inf)")
    m, J = R.shape
    mu = np.atleast_1d(check_array_finite(targets, "targets"))
    if mu.shape != (J,):
        raise ValueError(f"targets must have shape ({J},) to match features, got {mu.shape}")
    if not np.all(np.isfinite(mu)):
        raise ValueError("targets must be finite (no NaN or inf)")
    if base_measure is None:
        log_q = np.zeros(m)
    else:
        q = check_array_finite(base_measure, "base_measure")
        if q.shape != (m,) or not np.all(np.isfinite(q)) or np.any(q <= 0):
            raise ValueError(f"base_measure must be {m} finite positive weights")
        log_q = np.log(q)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_real(tol, "tol", minimum=0.0, include_min=False)
    if J == 0:
        p = np.exp(log_q - logsumexp(log_q))
        return MaxEntDistribution(
            p, np.zeros(0), float(-np.sum(p * (np.log(p) - log_q))), np.zeros(0), 0.0, 0
        )
    # centre and scale the features: the same problem, a better-conditioned Hessian
    shift = R.mean(axis=0)
    scale = np.maximum(R.std(axis=0), 1e-300)
    Z = (R - shift) / scale
    target = (mu - shift) / scale
    _check_feasible(Z, target, 1.0)

    def dual(lam):
        a = log_q - Z @ lam
        return logsumexp(a) + lam @ target, a

    lam = np.zeros(J)
    g_val, a = dual(lam)
    threshold = tol * (1.0 + np.max(np.abs(mu))) / np.max(scale)
    n_steps = 0
    for _ in range(max_iter + 1):
        p = np.exp(a - logsumexp(a))
        mean = p @ Z
        grad = target - mean
        if np.max(np.abs(grad)) <= threshold:
            break
        if n_steps == max_iter:
            raise ConvergenceError(
                f"maximum_entropy: Newton did not reach tol={tol:g} in max_iter={max_iter} steps "
                f"(largest constraint violation {np.max(np.abs(grad * scale)):.3g})",
                diagnostics={"multipliers": lam / scale, "violation": grad * scale},
            )
        n_steps += 1
        C = (Z - mean).T @ ((Z - mean) * p[:, None])
        step = np.linalg.solve(C + 1e-14 * np.eye(J) * max(np.trace(C), 1e-300), -grad)
        t = 1.0
        while True:
            new_val, new_a = dual(lam + t * step)
            if new_val <= g_val + 1e-4 * t * (grad @ step) or t < 1e-12:
                break
            t *= 0.5
        lam, g_val, a = lam + t * step, new_val, new_a
    p = np.exp(a - logsumexp(a))
    expectations = p @ R
    with np.errstate(divide="ignore", invalid="ignore"):
        H = float(-np.sum(np.where(p > 0, p * (np.log(p) - log_q), 0.0)))
    return MaxEntDistribution(
        probabilities=p,
        multipliers=lam / scale,
        entropy=H,
        expectations=expectations,
        max_violation=float(np.max(np.abs(expectations - mu))),
        n_iter=n_steps,
    )

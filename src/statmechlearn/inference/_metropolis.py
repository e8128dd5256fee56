"""Random-walk Metropolis–Hastings for continuous targets, with a tuned proposal scale.

Lecture notes §9.6: a candidate ``x'`` is drawn from ``q(x'|x_t)`` and kept
with probability ``A = min{1, p(x') q(x_t|x') / (p(x_t) q(x'|x_t))}``. The
proposal here is a Gaussian random walk, ``x' = x_t + L z`` with ``z``
standard normal and ``L L^T`` the proposal covariance; it is symmetric,
``q(x'|x_t) = q(x_t|x')``, so the Hastings ratio reduces to Metropolis's
``min{1, p(x') / p(x_t)}`` and only ``log p`` up to a constant is needed.

The scale is tuned during a tuning (burn-in) phase by stochastic
approximation (Robbins & Monro 1951; the "global adaptive scaling" of
Andrieu & Thoms 2008, Stat. Comput. 18:343, §5): ``log s <- log s + gamma_t
(alpha_t - alpha*)`` with ``alpha_t`` the acceptance probability of the
step, averaged over chains, and ``gamma_t = (t + 1)^-0.6``. After tuning the
scale is frozen (at the average of ``log s`` over the second half of
tuning), so the kept draws come from one time-homogeneous Markov chain whose
stationary distribution is the target. The default target acceptance is
0.234, optimal for ``d -> infinity`` (Roberts, Gelman & Gilks 1997), and
0.44 in one dimension (Gelman, Roberts & Gilks 1996).
"""

import math
import numbers
from dataclasses import dataclass

import numpy as np

from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import check_array_finite, check_int, check_real
from statmechlearn.inference._diagnostics import effective_sample_size, r_hat

__all__ = ["MetropolisResult", "metropolis_hastings"]

#: Exponent of the Robbins–Monro gain ``(t + 1)^-kappa``; in (1/2, 1] the gains
#: sum to infinity and their squares do not (Andrieu & Thoms 2008, §5).
_GAIN_EXPONENT = 0.6
#: Random numbers are drawn for this many steps at a time.
_BLOCK = 512


@dataclass(frozen=True)
class MetropolisResult:
    """Draws of random-walk Metropolis–Hastings, with ArviZ's diagnostics.

    Attributes
    ----------
    draws : ndarray of shape (n_chains, n_draws, n_dim)
        The kept states, after the tuning phase.
    log_density : ndarray of shape (n_chains, n_draws)
        ``log p`` (as returned by the callable) at every kept state.
    acceptance_rate : ndarray of shape (n_chains,)
        Fraction of accepted proposals among the kept steps.
    proposal_scale : float
        The frozen scale ``s``: the proposal covariance is ``s^2 I`` for an
        isotropic proposal (``proposal_scale="auto"`` or a float) and ``s^2
        Sigma`` for a given covariance ``Sigma`` (``s = 1`` untuned).
    proposal_cov : ndarray of shape (n_dim, n_dim)
        The frozen proposal covariance.
    target_acceptance : float
        The acceptance rate the scale was tuned for; NaN when it was not
        tuned.
    n_tune : int
        Steps of the tuning (burn-in) phase, discarded.
    r_hat : ndarray of shape (n_dim,)
        Rank-normalised split R-hat of each coordinate (:func:`r_hat`); NaN
        with one chain.
    ess : ndarray of shape (n_dim,)
        Bulk effective sample size of each coordinate
        (:func:`effective_sample_size`), over all chains.
    """

    draws: np.ndarray
    log_density: np.ndarray
    acceptance_rate: np.ndarray
    proposal_scale: float
    proposal_cov: np.ndarray
    target_acceptance: float
    n_tune: int
    r_hat: np.ndarray
    ess: np.ndarray


def _check_init(init, n_chains):
    if np.iscomplexobj(init):
        raise TypeError("init must be a real array, got complex values")
    try:
        arr = np.asarray(init, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"init must be a numeric array: {exc}") from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim == 1:
        arr = np.repeat(arr[None, :], n_chains, axis=0)
    if arr.ndim != 2:
        raise ValueError(
            f"init must have shape (n_dim,) or (n_chains, n_dim), got shape {arr.shape}"
        )
    if arr.size == 0:
        raise ValueError(f"init must not be empty, got shape {arr.shape}")
    if arr.shape[0] != n_chains:
        raise ValueError(f"init has {arr.shape[0]} rows (chains), but n_chains={n_chains}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("init must contain only finite values (no NaN or inf)")
    return arr.copy()


def _check_scale(proposal_scale, d):
    """The Cholesky factor of the base covariance and the initial multiplier."""
    if isinstance(proposal_scale, str):
        if proposal_scale != "auto":
            raise ValueError(
                f"proposal_scale must be 'auto', a positive float or a (d, d) covariance; "
                f"got {proposal_scale!r}"
            )
        return np.eye(d), 2.38 / math.sqrt(d)
    if isinstance(proposal_scale, numbers.Real) and not isinstance(proposal_scale, bool):
        s = check_real(proposal_scale, "proposal_scale", minimum=0.0, include_min=False)
        return np.eye(d), s
    cov = check_array_finite(proposal_scale, "proposal_scale")
    if cov.shape != (d, d):
        raise ValueError(
            f"proposal_scale as a covariance must have shape ({d}, {d}) for {d}-dimensional "
            f"init, got {cov.shape}"
        )
    if not np.allclose(cov, cov.T, rtol=1e-10, atol=0.0):
        raise ValueError("proposal_scale as a covariance must be symmetric")
    try:
        chol = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        raise ValueError("proposal_scale as a covariance must be positive definite") from None
    if not np.all(np.isfinite(chol)):
        raise ValueError("proposal_scale as a covariance must be finite and positive definite")
    return chol, 1.0


def _evaluator(log_density, vectorized, n_chains):
    if not callable(log_density):
        raise TypeError(f"log_density must be callable, got {type(log_density).__name__}")

    def evaluate(x):
        out = log_density(x) if vectorized else [log_density(row) for row in x]
        if np.iscomplexobj(out):
            raise TypeError("log_density must return real numbers, got complex values")
        try:
            out = np.asarray(out, dtype=float)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"log_density must return real numbers: {exc}") from None
        if out.shape != (n_chains,):
            hint = (
                "; for a function of one point pass vectorized=False"
                if vectorized
                else "; each call must return one number"
            )
            raise ValueError(
                f"log_density must return shape ({n_chains},) for states of shape "
                f"{x.shape}, got shape {out.shape}{hint}"
            )
        return out

    return evaluate


def _check_log_density(lp, x):
    bad = np.isnan(lp) | (lp == np.inf)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ValueError(
            f"log_density returned {lp[i]} at {x[i].tolist()}: it must be finite or -inf "
            "(zero density), never NaN or +inf"
        )


def metropolis_hastings(
    log_density,
    init,
    *,
    n_draws=1000,
    n_chains=4,
    n_tune=1000,
    proposal_scale="auto",
    target_acceptance=None,
    vectorized=True,
    random_state=None,
):
    """Sample ``p(x) ∝ exp(log_density(x))`` on ``R^d`` by random-walk Metropolis–Hastings.

    Every chain proposes ``x' = x + s L z``, ``z ~ N(0, I)``, and accepts
    with probability ``min{1, p(x')/p(x)}`` (notes §9.6: the Gaussian
    random walk is symmetric, so the Hastings correction ``q(x|x')/q(x'|x)``
    is 1). The chains run side by side, one call of ``log_density`` per
    step for all of them. During the first ``n_tune`` steps the multiplier
    ``s`` is tuned towards ``target_acceptance`` by a Robbins–Monro
    recursion on ``log s`` (Andrieu & Thoms 2008, §5) and those steps are
    discarded; then ``s`` is frozen, so the ``n_draws`` kept steps are a
    time-homogeneous Markov chain that leaves ``p`` invariant.

    Parameters
    ----------
    log_density : callable
        ``log p`` up to an additive constant. With ``vectorized=True``,
        ``log_density(X)`` takes an array of shape ``(n_chains, n_dim)``
        and returns shape ``(n_chains,)``; with ``vectorized=False`` it
        takes one point of shape ``(n_dim,)`` and returns a number. It may
        return ``-inf`` (outside the support: the proposal is rejected) but
        never NaN or ``+inf``.
    init : array-like of shape (n_dim,) or (n_chains, n_dim)
        Starting state, shared by all chains or one per chain (start the
        chains over-dispersed for R-hat to mean something). A scalar is a
        one-dimensional state. ``log_density`` must be finite there.
    n_draws : int, default=1000
        Kept steps per chain, at least 4 (the diagnostics split chains).
    n_chains : int, default=4
        Independent chains.
    n_tune : int, default=1000
        Tuning (burn-in) steps per chain, discarded; with 0 the initial
        scale is used as it is.
    proposal_scale : "auto", float or array-like of shape (n_dim, n_dim), default="auto"
        ``"auto"``: isotropic proposal ``s^2 I`` starting at ``s = 2.38 /
        sqrt(n_dim)`` (Roberts, Gelman & Gilks 1997), tuned. A float ``s``:
        isotropic proposal ``s^2 I``. A matrix ``Sigma``: proposal
        covariance ``s^2 Sigma`` with ``s`` starting at 1 (pass ``(2.38^2 /
        n_dim)`` times the target's covariance for the optimal proposal of
        a Gaussian-like target). A given scale or covariance is tuned only
        when ``target_acceptance`` is given.
    target_acceptance : float in (0, 1), optional
        Acceptance rate the tuning aims at. Default with
        ``proposal_scale="auto"``: 0.44 for ``n_dim = 1`` (Gelman, Roberts &
        Gilks 1996), 0.234 otherwise (Roberts, Gelman & Gilks 1997); with a
        given scale, no tuning.
    vectorized : bool, default=True
        Whether ``log_density`` takes all chains' states at once.
    random_state : None, int, RandomState or Generator, default=None

    Returns
    -------
    MetropolisResult

    Raises
    ------
    ValueError
        For invalid arguments, a ``log_density`` that is not finite at
        ``init`` or returns NaN or ``+inf``, or returns the wrong shape.
    ImportError
        If ArviZ (for R-hat and ESS) is not installed.

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.inference import metropolis_hastings
    >>> res = metropolis_hastings(
    ...     lambda x: -0.5 * np.sum(x**2, axis=1), np.zeros(2), n_draws=2000, random_state=0
    ... )
    >>> res.draws.shape
    (4, 2000, 2)
    >>> bool(abs(res.acceptance_rate.mean() - 0.234) < 0.05), bool(np.all(res.r_hat < 1.01))
    (True, True)
    """
    n_draws = check_int(n_draws, "n_draws", minimum=4)
    n_chains = check_int(n_chains, "n_chains", minimum=1)
    n_tune = check_int(n_tune, "n_tune", minimum=0)
    if not isinstance(vectorized, bool | np.bool_):
        raise TypeError(f"vectorized must be True or False, got {vectorized!r}")
    x = _check_init(init, n_chains)
    d = x.shape[1]
    chol, scale = _check_scale(proposal_scale, d)
    if target_acceptance is None:
        tune = isinstance(proposal_scale, str)
        target = (0.44 if d == 1 else 0.234) if tune else math.nan
    else:
        target = check_real(
            target_acceptance,
            "target_acceptance",
            minimum=0.0,
            maximum=1.0,
            include_min=False,
            include_max=False,
        )
        tune = True
    tune = tune and n_tune > 0
    rng = check_random_state(random_state)
    evaluate = _evaluator(log_density, bool(vectorized), n_chains)

    lp = evaluate(x)
    if not np.all(np.isfinite(lp)):
        i = int(np.argmax(~np.isfinite(lp)))
        raise ValueError(
            f"log_density must be finite at init; got {lp[i]} at {x[i].tolist()} "
            "(start every chain where the density is positive)"
        )

    draws = np.empty((n_chains, n_draws, d))
    kept_lp = np.empty((n_chains, n_draws))
    accepted = np.zeros(n_chains)
    log_s = math.log(scale)
    log_s_sum, n_averaged = 0.0, 0
    total = n_tune + n_draws
    for start in range(0, total, _BLOCK):
        stop = min(start + _BLOCK, total)
        z = rng.standard_normal((stop - start, n_chains, d)) @ chol.T
        # log(1 - u), u in [0, 1): never log(0)
        log_u = np.log1p(-rng.random((stop - start, n_chains)))
        for t in range(start, stop):
            s = math.exp(log_s)
            y = x + s * z[t - start]
            lp_y = evaluate(y)
            _check_log_density(lp_y, y)
            log_ratio = lp_y - lp
            accept = log_u[t - start] < log_ratio
            x = np.where(accept[:, None], y, x)
            lp = np.where(accept, lp_y, lp)
            if t < n_tune:
                if tune:
                    alpha = float(np.mean(np.exp(np.minimum(log_ratio, 0.0))))
                    log_s += (t + 1.0) ** -_GAIN_EXPONENT * (alpha - target)
                    if t >= n_tune // 2:
                        # Polyak averaging: the frozen scale is the mean of the iterates'
                        # second half, less noisy than the last one
                        log_s_sum += log_s
                        n_averaged += 1
                    if t == n_tune - 1:
                        log_s = log_s_sum / n_averaged
            else:
                i = t - n_tune
                draws[:, i] = x
                kept_lp[:, i] = lp
                accepted += accept

    s = math.exp(log_s)
    base = chol @ chol.T
    rhats = np.array(
        [r_hat(draws[:, :, j]) if n_chains >= 2 else math.nan for j in range(d)], dtype=float
    )
    ess = np.array([effective_sample_size(draws[:, :, j]) for j in range(d)], dtype=float)
    return MetropolisResult(
        draws=draws,
        log_density=kept_lp,
        acceptance_rate=accepted / n_draws,
        proposal_scale=s,
        proposal_cov=s * s * base,
        target_acceptance=target if tune else math.nan,
        n_tune=n_tune,
        r_hat=rhats,
        ess=ess,
    )

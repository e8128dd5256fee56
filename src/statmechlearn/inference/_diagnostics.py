"""Markov-chain diagnostics on ArviZ: R-hat, effective sample size, autocorrelation time.

The estimators are ArviZ's, from its NumPy layer ``arviz_stats.base.array_stats``
(``arviz-stats``, which needs only NumPy and SciPy; the ``arviz`` package itself
would pull xarray into the core install) (Vehtari, Gelman, Simpson, Carpenter & Bürkner
2021, "Rank-normalization, folding, and localization: an improved R-hat",
Bayesian Analysis 16:667): split chains, rank normalisation, and Geyer's
initial monotone sequence for the sum of autocorrelations. These functions
only validate the input, keep the package's conventions for degenerate
traces and name the estimator. ArviZ's statistics are imported when a
diagnostic is computed, not when :mod:`statmechlearn.inference` is imported.
"""

import numpy as np

from statmechlearn._core.validation import check_array_finite, check_choice, check_real
from statmechlearn._core.warn import warn

__all__ = ["effective_sample_size", "integrated_autocorrelation_time", "r_hat"]

#: ArviZ's split-chain estimators need at least this many draws per chain.
MIN_DRAWS = 4
_ESS_METHODS = ("bulk", "tail", "mean")


def _arviz():
    """ArviZ's array statistics, imported on first use, with a clear message when missing."""
    try:
        from arviz_stats.base import array_stats
    except ImportError as exc:  # pragma: no cover - arviz-stats is a dependency
        raise ImportError(
            "the chain diagnostics (R-hat, effective sample size, autocorrelation time) "
            "are computed by ArviZ's statistics: pip install arviz-stats"
        ) from exc
    return array_stats


#: the tail ESS is the smaller of the ESS of these two quantile indicators (ArviZ's default)
_TAIL_PROBS = (0.05, 0.95)


def _as_chains(x, name, *, min_draws=MIN_DRAWS, min_chains=1):
    arr = check_array_finite(x, name)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must have shape (n_draws,) or (n_chains, n_draws), got {arr.shape}"
        )
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if arr.shape[0] < min_chains:
        raise ValueError(f"{name} needs at least {min_chains} chains (rows), got shape {arr.shape}")
    if arr.shape[1] < min_draws:
        raise ValueError(f"{name} needs at least {min_draws} draws per chain, got {arr.shape[1]}")
    top = np.max(np.abs(arr))
    if top > 1e100:
        # the diagnostics are scale free; variances of such a trace would overflow
        arr = arr / top
    return arr


def _constant(arr):
    """True when the trace does not move beyond rounding: nothing to correlate or compare."""
    spread = np.ptp(arr)
    return spread <= 1e-12 * max(float(np.max(np.abs(arr))), 1e-300)


def _deprecated_c(c):
    if isinstance(c, str) and c == "deprecated":
        return
    check_real(c, "c", minimum=0.0, include_min=False)
    warn(
        "c (Sokal's window constant) is unused since statmechlearn 0.2 and will be removed "
        "in 0.4: the sum of autocorrelations is now truncated by Geyer's initial monotone "
        "sequence (ArviZ), which needs no window; stop passing c",
        FutureWarning,
    )


def effective_sample_size(x, c="deprecated", *, method="bulk"):
    """Effective sample size of a scalar trace, by ArviZ (Vehtari et al. 2021).

    ``method="bulk"`` (default) is ArviZ's bulk ESS: the draws are rank
    normalised over all chains, the chains split in halves, and
    ``ESS = n_chains * n_draws / tau`` with ``tau = 1 + 2 sum_t rho_t``
    summed by Geyer's initial monotone sequence; it is invariant under
    monotone transformations of the trace. ``"mean"`` is the ESS of the
    trace itself (no rank normalisation), the one that sets the Monte Carlo
    standard error of a mean, ``sd / sqrt(ESS)``; ``"tail"`` the minimum of
    the ESS of the 5 % and 95 % quantile indicators.

    Parameters
    ----------
    x : array-like of shape (n_draws,) or (n_chains, n_draws)
        A scalar trace (say the energy), one row per chain, at least 4
        draws per chain.
    c : float, optional
        Deprecated and unused: Sokal's window constant of the former
        estimator. Passing it warns (``FutureWarning``).
    method : {"bulk", "tail", "mean"}, default="bulk"

    Returns
    -------
    float
        The number of independent draws worth as much as ``x``; all
        ``n_chains * n_draws`` of them for a constant trace (nothing moves,
        nothing is correlated: check the acceptance rate).

    Raises
    ------
    ImportError
        If arviz-stats is not installed.

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.inference import effective_sample_size
    >>> x = np.random.default_rng(0).standard_normal((4, 500))
    >>> bool(1500 < effective_sample_size(x) < 2500)
    True
    """
    _deprecated_c(c)
    method = check_choice(method, "method", _ESS_METHODS)
    arr = _as_chains(x, "x")
    if _constant(arr):
        return float(arr.size)
    stats = _arviz()
    extra = {"prob": _TAIL_PROBS} if method == "tail" else {}
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(stats.ess(arr, method=method, **extra))


def integrated_autocorrelation_time(x, c="deprecated"):
    """Integrated autocorrelation time ``tau = 1 + 2 sum_t rho(t)``, from ArviZ's ESS.

    ``tau = n_chains * n_draws / ESS`` with ArviZ's ESS of the trace itself
    (``effective_sample_size(x, method="mean")``): split chains, the
    autocorrelation averaged over chains, and the sum truncated by Geyer's
    initial monotone sequence (Geyer 1992), which replaces Sokal's window.

    Parameters
    ----------
    x : array-like of shape (n_draws,) or (n_chains, n_draws)
        A scalar trace, one row per chain.
    c : float, optional
        Deprecated and unused: Sokal's window constant of the former
        estimator. Passing it warns (``FutureWarning``).

    Returns
    -------
    float
        ``tau`` in draws; 1 for independent draws and for a constant trace
        (nothing moves, nothing is correlated: check the acceptance rate).
        NaN for 2 or 3 draws per chain, too few for the split-chain
        estimator (ArviZ needs 4).

    Raises
    ------
    ValueError
        If ``x`` has fewer than 2 draws per chain or is not finite.
    ImportError
        If arviz-stats is not installed.

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.inference import integrated_autocorrelation_time
    >>> x = np.random.default_rng(0).standard_normal((4, 2000))
    >>> bool(0.8 < integrated_autocorrelation_time(x) < 1.2)
    True
    """
    _deprecated_c(c)
    arr = _as_chains(x, "x", min_draws=2)
    if _constant(arr):
        return 1.0
    if arr.shape[1] < MIN_DRAWS:
        return float("nan")
    return float(arr.size / effective_sample_size(arr, method="mean"))


def r_hat(x):
    """Rank-normalised split R-hat (Vehtari et al. 2021), by ArviZ.

    The chains are split in halves and the draws rank normalised over all
    of them; R-hat is the larger of the classic ``sqrt(((n-1)/n W + B/n) / W)``
    (Gelman et al., BDA3 §11.4) of the normalised draws and of their folded
    distance from the median (which catches chains that differ in scale,
    not location). Values near 1 say the chains sample the same
    distribution; above about 1.01 they do not (yet).

    Parameters
    ----------
    x : array-like of shape (n_chains, n_draws)
        At least 2 chains of at least 4 draws.

    Returns
    -------
    float
        NaN when every draw is the same (no variance to compare); inf when
        every chain is stuck at its own value.

    Raises
    ------
    ImportError
        If arviz-stats is not installed.

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.inference import r_hat
    >>> x = np.random.default_rng(0).standard_normal((4, 1000))
    >>> bool(r_hat(x) < 1.01), bool(r_hat(x + np.arange(4)[:, None]) > 1.1)
    (True, True)
    """
    arr = _as_chains(x, "x", min_chains=2)
    if _constant(arr):
        return float("nan")
    if all(_constant(chain) for chain in arr):
        # no within-chain variance at all: the ranks would turn W = 0 into a finite number
        return float("inf")
    stats = _arviz()
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(stats.rhat(arr, method="rank"))

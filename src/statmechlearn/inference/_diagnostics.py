"""Markov-chain diagnostics: integrated autocorrelation time, effective sample size, R-hat."""

import numpy as np

from statmechlearn._core.validation import check_array_finite, check_real

__all__ = ["effective_sample_size", "integrated_autocorrelation_time", "r_hat"]


def _as_chains(x, name):
    arr = check_array_finite(x, name)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must have shape (n_draws,) or (n_chains, n_draws), got {arr.shape}"
        )
    if arr.shape[1] == 0:
        raise ValueError(f"{name} must not be empty")
    top = np.max(np.abs(arr))
    if top > 1e100:
        # the diagnostics are scale free; variances of such a trace would overflow
        arr = arr / top
    return arr


def _autocorrelation(x):
    """Autocorrelation of each chain by FFT, averaged over chains (as emcee does)."""
    n = x.shape[1]
    y = x - x.mean(axis=1, keepdims=True)
    # a trace constant up to rounding has no correlation to measure
    scale = np.max(np.abs(x)) if x.size else 0.0
    if np.max(np.abs(y), initial=0.0) <= 1e-12 * max(scale, 1e-300):
        return None
    size = 1 << (2 * n - 1).bit_length()
    f = np.fft.rfft(y, size, axis=1)
    acf = np.fft.irfft(f * np.conj(f), size, axis=1)[:, :n]
    acf = acf.mean(axis=0)
    if acf[0] <= 0:
        return None
    return acf / acf[0]


def integrated_autocorrelation_time(x, c=5.0):
    """Integrated autocorrelation time ``tau = 1 + 2 sum_t rho(t)`` with Sokal's window.

    The sum runs up to the smallest window ``M >= c * tau(M)`` (Sokal 1997),
    which keeps the noise of the tail out without cutting a slow decay short.

    Parameters
    ----------
    x : array-like of shape (n_draws,) or (n_chains, n_draws)
        A scalar trace (say the energy), one row per chain; the
        autocorrelation is averaged over chains.
    c : float, default=5.0
        Window constant.

    Returns
    -------
    float
        ``tau`` in draws; 1 for independent draws. A constant trace gives
        1 (nothing moves, nothing is correlated) — check the acceptance rate.
    """
    arr = _as_chains(x, "x")
    c = check_real(c, "c", minimum=0.0, include_min=False)
    if arr.shape[1] < 2:
        raise ValueError(f"x needs at least 2 draws per chain, got {arr.shape[1]}")
    rho = _autocorrelation(arr)
    if rho is None:
        return 1.0
    taus = 2.0 * np.cumsum(rho) - 1.0
    window = np.arange(taus.size) < c * taus
    m = int(np.argmin(window)) if not np.all(window) else taus.size - 1
    return float(max(taus[m], 1.0 / arr.shape[1]))


def effective_sample_size(x, c=5.0):
    """Number of draws over the integrated autocorrelation time.

    Parameters
    ----------
    x : array-like of shape (n_draws,) or (n_chains, n_draws)
    c : float, default=5.0
        Window constant of :func:`integrated_autocorrelation_time`.

    Returns
    -------
    float
    """
    arr = _as_chains(x, "x")
    return float(arr.size / integrated_autocorrelation_time(arr, c))


def r_hat(x):
    """Split-chain potential scale reduction ``R-hat`` (Gelman et al., BDA3 §11.4).

    Each chain is cut in halves; ``R-hat = sqrt(((n-1)/n W + B/n) / W)`` with
    ``W`` the mean within-half variance and ``B / n`` the variance of the
    half means. Values near 1 say the chains sample the same distribution;
    above about 1.01–1.1 they do not (yet).

    Parameters
    ----------
    x : array-like of shape (n_chains, n_draws)
        At least 4 draws per chain.

    Returns
    -------
    float
        NaN when every draw is the same (no variance to compare).
    """
    arr = _as_chains(x, "x")
    n = arr.shape[1] // 2
    if n < 2:
        raise ValueError(f"x needs at least 4 draws per chain for split R-hat, got {arr.shape[1]}")
    halves = np.concatenate([arr[:, :n], arr[:, -n:]], axis=0)
    means = halves.mean(axis=1)
    W = halves.var(axis=1, ddof=1).mean()
    B = n * means.var(ddof=1)
    if W == 0:
        return float("nan") if B == 0 else float("inf")
    return float(np.sqrt(((n - 1) / n * W + B / n) / W))

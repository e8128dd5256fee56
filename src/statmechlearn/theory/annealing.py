"""Critical temperatures of deterministic annealing (squared-Euclidean distortion).

With assignments ``p(k|x) ∝ w_k exp(-|x - y_k|^2 / T)`` a code vector at the
centroid of its cluster is a minimum of the free energy as long as the
Hessian ``I - (2/T) C_k`` is positive, ``C_k`` being the posterior-weighted
covariance of its cluster. It splits at ``T_c = 2 lambda_max(C_k)`` along the
principal axis (Rose 1998); the first split of the whole data set is at
``2 lambda_max`` of the data covariance. In the width of the ML mixture view
(``T = 2 sigma``) this is ``sigma = lambda_max``, i.e. eq. (8)'s linear
instability, the ``sigma_1``/``sigma_2`` of :mod:`statmechlearn.theory.ml_mixture`.
"""

import numpy as np

from statmechlearn._core.validation import check_array_finite

__all__ = ["cluster_critical_temperatures", "critical_temperature"]


def critical_temperature(covariance):
    """First critical temperature ``2 lambda_max`` of a covariance matrix.

    Parameters
    ----------
    covariance : array-like of shape (n_features, n_features)
        Symmetric positive semi-definite matrix.

    Returns
    -------
    float
    """
    cov = check_array_finite(np.atleast_2d(np.asarray(covariance, dtype=float)), "covariance")
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
        raise ValueError(f"covariance must be square, got shape {cov.shape}")
    if not np.allclose(cov, cov.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(cov).max())):
        raise ValueError("covariance must be symmetric")
    return float(2.0 * max(np.linalg.eigvalsh(cov)[-1], 0.0))


def cluster_critical_temperatures(X, centers, proba):
    """Critical temperature ``2 lambda_max(C_k)`` of each cluster.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    centers : array-like of shape (n_clusters, n_features)
    proba : array-like of shape (n_samples, n_clusters)
        Assignment probabilities ``p(k|x)`` (rows sum to one).

    Returns
    -------
    ndarray of shape (n_clusters,)
    """
    X = check_array_finite(np.asarray(X, dtype=float), "X")
    centers = check_array_finite(np.asarray(centers, dtype=float), "centers")
    proba = check_array_finite(np.asarray(proba, dtype=float), "proba")
    if proba.shape != (X.shape[0], centers.shape[0]) or np.any(proba < 0):
        raise ValueError(
            "proba must be non-negative with shape (n_samples, n_clusters) = "
            f"({X.shape[0]}, {centers.shape[0]}), got {proba.shape}"
        )
    out = np.empty(centers.shape[0])
    for k in range(centers.shape[0]):
        diff = X - centers[k]
        cov = (diff * proba[:, k : k + 1]).T @ diff / proba[:, k].sum()
        out[k] = critical_temperature((cov + cov.T) / 2.0)
    return out

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
        Symmetric matrix, finite and not empty; a scalar is a 1 x 1
        variance. Positive semi-definite, or indefinite with a positive
        largest eigenvalue (the centred Gram matrix of a non-Euclidean
        dissimilarity: only its positive part can split); a negative-definite
        matrix has no split and is refused.

    Returns
    -------
    float
        ``2 lambda_max``, ``>= 0``.
    """
    cov = np.atleast_2d(check_array_finite(covariance, "covariance"))
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1] or cov.size == 0:
        raise ValueError(f"covariance must be a non-empty square matrix, got shape {cov.shape}")
    if not np.allclose(cov, cov.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(cov).max())):
        raise ValueError("covariance must be symmetric")
    top = float(np.linalg.eigvalsh(cov)[-1])
    # eigvalsh finds the largest eigenvalue of a PSD matrix to within eps * |lambda_max|,
    # so a negative one comes from the input, not from round-off.
    if top < 0:
        raise ValueError(
            f"covariance must not be negative definite (largest eigenvalue {top:g}): "
            "a covariance is positive semi-definite"
        )
    return 2.0 * top


def cluster_critical_temperatures(X, centers, proba):
    """Critical temperature ``2 lambda_max(C_k)`` of each cluster.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite, at least one sample and one feature.
    centers : array-like of shape (n_clusters, n_features)
        Finite, at least one cluster.
    proba : array-like of shape (n_samples, n_clusters)
        Assignment probabilities ``p(k|x)`` (rows sum to one); every cluster
        needs a positive total probability.

    Returns
    -------
    ndarray of shape (n_clusters,)
    """
    X = check_array_finite(X, "X", ndim=2)
    centers = check_array_finite(centers, "centers", ndim=2)
    proba = check_array_finite(proba, "proba", ndim=2)
    if X.size == 0:
        raise ValueError(f"X must have at least one sample and one feature, got shape {X.shape}")
    if centers.shape[0] == 0 or centers.shape[1] != X.shape[1]:
        raise ValueError(
            f"centers must have shape (n_clusters >= 1, {X.shape[1]}), got {centers.shape}"
        )
    if proba.shape != (X.shape[0], centers.shape[0]) or np.any(proba < 0):
        raise ValueError(
            "proba must be non-negative with shape (n_samples, n_clusters) = "
            f"({X.shape[0]}, {centers.shape[0]}), got {proba.shape}"
        )
    empty = np.flatnonzero(proba.sum(axis=0) <= 0)
    if empty.size:
        raise ValueError(
            f"proba gives cluster(s) {empty.tolist()} zero total probability: "
            "their covariance, and so their critical temperature, is undefined"
        )
    out = np.empty(centers.shape[0])
    for k in range(centers.shape[0]):
        diff = X - centers[k]
        cov = (diff * proba[:, k : k + 1]).T @ diff / proba[:, k].sum()
        out[k] = critical_temperature((cov + cov.T) / 2.0)
    return out

"""BIC and MDL for the library's clusterers and mixtures (lecture notes §7.1).

``BIC = -log p(X | theta_hat) + (p / 2) log n`` in nats, the notes' form
(half of scikit-learn's ``GaussianMixture.bic``, which is ``-2 log L + p log n``),
and ``MDL`` the two-part code length ``-log2 p(X | theta_hat) + (p / 2) log2 n``
in bits: the same criterion in other units, asymptotically equivalent to the
refined MDL codes, as §7.1 says.

Hard clusterers (KMeans, DeterministicAnnealing, GibbsSamplerClustering, …)
are read as the classification likelihood of the spherical Gaussian mixture
they fit: means ``mu_nu``, one shared variance ``sigma^2 = SSE / (n d)``
(its maximum-likelihood value), weights ``n_nu / n``:

    log L = sum_nu n_nu log(n_nu / n) - (n d / 2) (log(2 pi sigma^2) + 1),

with ``p = k d + 1 + (k - 1)`` parameters. A ``GaussianMixture`` uses its
own likelihood and parameter count (means, covariances by type, weights).
"""

import math

import numpy as np

from statmechlearn._core.validation import check_int
from statmechlearn.model_selection._common import check_X

__all__ = ["bic", "log_likelihood", "mdl", "n_parameters"]


def _labels_and_centers(estimator, X):
    if hasattr(estimator, "predict"):
        labels = np.asarray(estimator.predict(X))
    elif hasattr(estimator, "labels_") and len(estimator.labels_) == X.shape[0]:
        labels = np.asarray(estimator.labels_)
    else:
        raise TypeError(
            f"{type(estimator).__name__} has neither predict nor labels_ for these X; "
            "fit it on X first"
        )
    return labels


def n_parameters(estimator, n_features):
    """Free parameters of a fitted clusterer or mixture, spelled out per model.

    Parameters
    ----------
    estimator : fitted estimator
        ``GaussianMixture`` (means ``k d``, covariances ``k d (d + 1) / 2``
        for ``full``, ``d (d + 1) / 2`` for ``tied``, ``k d`` for ``diag``,
        ``k`` for ``spherical``, weights ``k - 1``), or a hard clusterer
        with ``n_clusters`` (``k d`` means, one variance, ``k - 1`` weights).
    n_features : int

    Returns
    -------
    int
    """
    d = check_int(n_features, "n_features", minimum=1)
    from sklearn.mixture import GaussianMixture

    if isinstance(estimator, GaussianMixture):
        k = estimator.n_components
        cov = {
            "full": k * d * (d + 1) // 2,
            "tied": d * (d + 1) // 2,
            "diag": k * d,
            "spherical": k,
        }[estimator.covariance_type]
        return k * d + cov + k - 1
    k = _n_clusters(estimator)
    return k * d + 1 + (k - 1)


def _n_clusters(estimator):
    if hasattr(estimator, "cluster_centers_"):
        return int(np.asarray(estimator.cluster_centers_).shape[0])
    if hasattr(estimator, "n_clusters"):
        return int(estimator.n_clusters)
    raise TypeError(f"cannot tell the number of clusters of {type(estimator).__name__}")


def log_likelihood(estimator, X):
    """Maximised log-likelihood (nats) of X under the fitted model (see the module notes).

    Parameters
    ----------
    estimator : fitted estimator
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    float
    """
    X = check_X(X, min_samples=2)
    from sklearn.mixture import GaussianMixture

    if isinstance(estimator, GaussianMixture):
        return float(estimator.score(X) * X.shape[0])
    n, d = X.shape
    labels = _labels_and_centers(estimator, X)
    sse = 0.0
    ll = 0.0
    for lab in np.unique(labels):
        members = X[labels == lab]
        sse += float(np.sum((members - members.mean(axis=0)) ** 2))
        ll += members.shape[0] * math.log(members.shape[0] / n)
    var = max(sse / (n * d), 1e-300)
    return ll - 0.5 * n * d * (math.log(2 * math.pi * var) + 1.0)


def bic(estimator, X):
    """``-log L + (p / 2) log n`` in nats (the notes' BIC); smaller is better.

    Parameters
    ----------
    estimator : fitted estimator
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    float
    """
    X = check_X(X, min_samples=2)
    p = n_parameters(estimator, X.shape[1])
    return -log_likelihood(estimator, X) + 0.5 * p * math.log(X.shape[0])


def mdl(estimator, X):
    """Two-part description length ``-log2 L + (p / 2) log2 n`` in bits; smaller is better.

    Parameters
    ----------
    estimator : fitted estimator
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    float
    """
    return bic(estimator, X) / math.log(2.0)

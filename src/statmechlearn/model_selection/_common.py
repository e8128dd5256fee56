"""Shared checks of the model-order selectors: k ranges, clusterers, label matching."""

import re

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.base import clone
from sklearn.utils.validation import check_array

from statmechlearn._core.validation import check_magnitude

__all__ = [
    "check_X",
    "check_X_second",
    "check_clusterer",
    "check_k_range",
    "fit_labels",
    "matched_disagreement",
    "within_dispersion",
]


def check_X(X, min_samples=2, name="X"):
    """``X`` as a finite float (n, d) array with at least ``min_samples`` rows.

    Every error names ``X`` (or ``name``); entries beyond :data:`MAGNITUDE_RANGE` are
    refused, as the selectors' squared distances would overflow.
    """
    if np.iscomplexobj(X):
        raise TypeError(f"{name} must be real, got complex values")
    try:
        X = check_array(X, dtype=np.float64, ensure_min_samples=min_samples, input_name=name)
    except ValueError as exc:
        if re.search(rf"\b{name}\b", str(exc)):
            raise
        raise ValueError(f"{name} is invalid: {exc}") from exc
    check_magnitude(X, name)
    return X


def check_X_second(X_second, X, name="X_second"):
    """A second measurement of the objects of ``X``: finite, of the same shape, row-aligned.

    Row ``i`` of both arrays must measure the same object; only the shape can be checked.
    """
    Xs = check_X(X_second, min_samples=1, name=name)
    if Xs.shape != X.shape:
        raise ValueError(
            f"{name} must be row-aligned with X (a second measurement of the same objects, "
            f"shape {X.shape}), got shape {Xs.shape}"
        )
    return Xs


def check_k_range(k_range, n_samples, *, minimum=1):
    """Sorted unique ints ``minimum <= k <= n_samples``; a clear error otherwise."""
    try:
        ks = np.array(list(k_range))
    except TypeError:
        raise TypeError(f"k_range must be an iterable of ints, got {k_range!r}") from None
    if ks.size == 0:
        raise ValueError("k_range must not be empty")
    if ks.dtype.kind not in "iuf":
        raise TypeError(f"k_range must be an iterable of ints, got {k_range!r}")
    if not np.issubdtype(ks.dtype, np.integer):
        if not np.all(ks == np.round(ks)):
            raise ValueError(f"k_range must hold integers, got {ks.tolist()}")
        ks = ks.astype(int)
    bad = ks[(ks < minimum) | (ks > n_samples)]
    if bad.size:
        raise ValueError(
            f"k_range must lie in [{minimum}, n_samples={n_samples}], got {sorted(bad.tolist())}"
        )
    return np.unique(ks)


def check_clusterer(clusterer):
    """A default KMeans, or an estimator with an ``n_clusters`` parameter and ``fit_predict``."""
    if clusterer is None:
        from sklearn.cluster import KMeans

        return KMeans(n_init=10)
    if not hasattr(clusterer, "fit_predict"):
        raise TypeError(
            f"clusterer must have fit_predict (a scikit-learn clusterer), got "
            f"{type(clusterer).__name__}"
        )
    if "n_clusters" not in clusterer.get_params():
        raise TypeError(
            f"clusterer must have an n_clusters parameter, {type(clusterer).__name__} has not"
        )
    return clusterer


def fit_labels(clusterer, X, k, seed=None):
    """Labels of ``clone(clusterer)`` with ``n_clusters=k`` (and ``random_state=seed``)."""
    est = clone(clusterer).set_params(n_clusters=int(k))
    if seed is not None and "random_state" in est.get_params():
        est.set_params(random_state=int(seed))
    return np.asarray(est.fit_predict(X)), est


def within_dispersion(X, labels):
    """``W_k = sum_nu 1/(2 n_nu) sum_{i,j in nu} |x_i - x_j|^2`` (§7.2) = pooled within SS."""
    total = 0.0
    for lab in np.unique(labels):
        members = X[labels == lab]
        total += float(np.sum((members - members.mean(axis=0)) ** 2))
    return total


def matched_disagreement(a, b, k):
    """``min_pi (1/n) sum 1{pi(a_i) != b_i}`` over label permutations (Hungarian, §7.3)."""
    a = np.asarray(a)
    b = np.asarray(b)
    # labels may be any k integers; index them densely
    _, a = np.unique(a, return_inverse=True)
    _, b = np.unique(b, return_inverse=True)
    size = max(k, a.max() + 1, b.max() + 1)
    C = np.zeros((size, size))
    np.add.at(C, (a, b), 1.0)
    r, c = linear_sum_assignment(-C)
    return 1.0 - C[r, c].sum() / a.size

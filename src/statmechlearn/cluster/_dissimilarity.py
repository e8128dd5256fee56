"""Dissimilarity matrices as the pairwise clusterers read them: checks, metrics, graphs.

:func:`check_dissimilarity` validates a dense matrix (in blocks of rows, without
``n x n`` temporaries); :func:`dissimilarities` turns an estimator's ``X`` into ``D``
according to its ``metric``: the matrix itself, a sparse neighbour graph completed by
shortest paths, or the distances of (dense or sparse) feature vectors.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import (
    PAIRWISE_DISTANCE_FUNCTIONS,
    euclidean_distances,
    pairwise_distances,
)

from statmechlearn._core.validation import check_array_finite, check_magnitude, validate_named
from statmechlearn._core.warn import warn
from statmechlearn.cluster._pairwise_graph import check_dissimilarity_graph, complete_graph

__all__ = [
    "centre",
    "check_dissimilarity",
    "check_metric",
    "check_partition",
    "dissimilarities",
    "feature_rows",
    "symmetrise",
]


def check_partition(labels, n_samples, name="labels"):
    """``labels`` as an int array of shape (n_samples,): one cluster label per object."""
    labels = check_array_finite(labels, name, shape=(n_samples,), dtype=None)
    if labels.dtype.kind == "f" and np.any(labels != np.round(labels)):
        raise ValueError(f"{name} must hold integer cluster labels")
    if labels.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold integer cluster labels, got dtype {labels.dtype}")
    return labels.astype(np.int64)


def check_dissimilarity(D, name="D", *, symmetry_tol=1e-8, copy=True):
    """Validate a dissimilarity matrix and return its symmetric part.

    Rules: square, finite, non-negative, zero diagonal (an object is not
    dissimilar to itself). An asymmetric matrix is replaced by
    ``(D + D.T) / 2`` — the pairwise costs only ever see ``D_ij + D_ji`` — with
    a warning when the asymmetry exceeds ``symmetry_tol`` times the largest
    entry. The checks scan ``D`` in blocks of rows, so that they allocate no
    ``n x n`` temporaries.

    Parameters
    ----------
    D : array_like of shape (n, n)
    name : str, default="D"
    symmetry_tol : float, default=1e-8
    copy : bool, default=True
        False: return ``D`` itself (as a float array) when it is exactly
        symmetric, so that a caller that only reads it holds no second copy.

    Returns
    -------
    ndarray of shape (n, n)
    """
    if np.iscomplexobj(D):
        raise TypeError(f"{name} must be a real dissimilarity matrix, got complex values")
    D = np.asarray(D, dtype=float)
    if D.ndim != 2 or D.shape[0] != D.shape[1] or D.size == 0:
        raise ValueError(
            f"{name} must be a non-empty square (n, n) dissimilarity matrix, got {D.shape}"
        )
    finite, smallest, scale, asym = _scan(D)
    if not finite:
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if smallest < 0:
        raise ValueError(
            f"Negative values in data passed to {name}: dissimilarities must be >= 0, "
            f"smallest {smallest:g}"
        )
    # D >= 0 here, so its largest entry is its magnitude (no n x n |D| to allocate); the
    # Lanczos products D @ Z overflow beyond the range squared distances allow
    check_magnitude(np.array([scale]), name)
    if np.any(np.abs(np.diag(D)) > symmetry_tol * max(scale, 1.0)):
        largest = float(np.abs(np.diag(D)).max())
        raise ValueError(f"{name} must have a zero diagonal, largest |D_ii| {largest:g}")
    if asym > symmetry_tol * max(scale, 1.0):
        warn(
            f"{name} is not symmetric (max |D_ij - D_ji| = {asym:g}); using (D + D.T) / 2",
            UserWarning,
        )
    if asym == 0.0 and not copy:
        return D
    out = np.array(D, order="C")
    if asym > 0.0:
        symmetrise(out)
    return out


_BLOCK = 256


def _scan(D):
    """``(all finite, min, max, max |D - D.T|)`` of a square matrix, a block of rows at a time."""
    n = D.shape[0]
    finite, smallest, largest, asym = True, np.inf, -np.inf, 0.0
    for i in range(0, n, _BLOCK):
        rows = D[i : i + _BLOCK]
        if not np.all(np.isfinite(rows)):
            return False, np.nan, np.nan, np.nan
        smallest = min(smallest, float(rows.min()))
        largest = max(largest, float(rows.max()))
        asym = max(asym, float(np.max(np.abs(rows - D[:, i : i + _BLOCK].T))))
    return finite, smallest, largest, asym


def symmetrise(D):
    """``D <- (D + D.T) / 2`` in place, block by block (``D += D.T`` would buffer a copy)."""
    n = D.shape[0]
    for i in range(0, n, _BLOCK):
        for j in range(i, n, _BLOCK):
            upper = D[i : i + _BLOCK, j : j + _BLOCK]
            mean = 0.5 * (upper + D[j : j + _BLOCK, i : i + _BLOCK].T)
            D[i : i + _BLOCK, j : j + _BLOCK] = mean
            D[j : j + _BLOCK, i : i + _BLOCK] = mean.T


def dissimilarities(est, X, reset, copy=True):
    """``D`` from ``X``: the matrix itself (``metric="precomputed"``) or pairwise distances.

    ``copy=False``: an exactly symmetric precomputed ``X`` is used as it is (for callers
    that only read ``D``). A sparse precomputed ``X`` is a neighbour graph, completed by
    shortest paths (:func:`~statmechlearn.cluster._pairwise_graph.complete_graph`);
    sparse feature vectors go to the distance functions as they are (those that need
    dense rows get them). Returns ``(D, X, dtype)``: ``D`` in float64, the features
    kept for ``predict`` (None for a precomputed ``X``) and the float dtype of ``X``."""
    if est.metric == "precomputed":
        X = validate_named(
            est,
            X,
            accept_sparse=("csr", "csc", "coo"),
            dtype=[np.float64, np.float32],
            reset=reset,
            ensure_min_samples=2,
        )
        if sp.issparse(X):
            return complete_graph(check_dissimilarity_graph(X, "X")), None, X.dtype
        if X.shape[0] != X.shape[1]:
            raise ValueError(
                f"X must be a square (n, n) dissimilarity matrix with metric='precomputed', "
                f"got shape {X.shape}; for feature vectors pass a metric "
                "(metric='sqeuclidean', or another one)"
            )
        return check_dissimilarity(X, "X", copy=copy), None, X.dtype
    X = validate_named(
        est,
        X,
        accept_sparse=("csr", "csc"),
        dtype=[np.float64, np.float32],
        reset=reset,
        ensure_min_samples=2,
    )
    dtype = X.dtype
    X = feature_rows(X, est.metric)
    if est.metric == "sqeuclidean":
        D = euclidean_distances(X, squared=True)
    else:
        D = pairwise_distances(X, metric=est.metric)
    D = np.asarray(D, dtype=np.float64)
    np.fill_diagonal(D, 0.0)
    symmetrise(D)
    return D, X, dtype


# scikit-learn's distance functions that take sparse rows as they are
_SPARSE_METRICS = frozenset(
    {"sqeuclidean", "euclidean", "l2", "cityblock", "l1", "manhattan", "cosine"}
)


def feature_rows(X, metric):
    """Feature vectors as the distance function of ``metric`` takes them, in float64."""
    if sp.issparse(X):
        return X.astype(np.float64) if metric in _SPARSE_METRICS else X.toarray().astype(float)
    return np.asarray(X, dtype=np.float64)


def check_metric(metric):
    if metric in ("precomputed", "sqeuclidean") or metric in PAIRWISE_DISTANCE_FUNCTIONS:
        return
    raise ValueError(
        f"metric must be 'precomputed', 'sqeuclidean' or one of "
        f"{sorted(PAIRWISE_DISTANCE_FUNCTIONS)}, got {metric!r}"
    )


def centre(M):
    """``Q M Q`` with ``Q = I - 11^T / n`` (double centring)."""
    return M - M.mean(axis=0) - M.mean(axis=1)[:, None] + M.mean()

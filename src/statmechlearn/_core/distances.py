"""Squared Euclidean distances: the one implementation every package uses."""

import numpy as np

__all__ = ["squared_distances"]


def squared_distances(X, Y, x_sq=None):
    """``|x_i - y_k|^2`` for all pairs, by one BLAS product, clipped at zero.

    The expansion ``|x|^2 - 2 x.y + |y|^2`` costs one matrix product instead
    of an ``(n, K, d)`` temporary; its round-off can make a tiny distance
    negative, hence the clip.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    Y : ndarray of shape (n_centres, n_features)
    x_sq : ndarray of shape (n_samples,), optional
        ``|x_i|^2``, precomputed by callers that iterate over ``Y``.

    Returns
    -------
    ndarray of shape (n_samples, n_centres)
    """
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    if X.ndim != 2 or Y.ndim != 2 or X.shape[1] != Y.shape[1]:
        raise ValueError(
            "X and Y must be 2-D with the same number of features, got shapes "
            f"{X.shape} and {Y.shape}"
        )
    x_sq = np.einsum("ij,ij->i", X, X) if x_sq is None else np.asarray(x_sq, dtype=float)
    if x_sq.shape != (X.shape[0],):
        raise ValueError(f"x_sq must have shape ({X.shape[0]},), got {x_sq.shape}")
    D = X @ Y.T
    D *= -2.0
    D += x_sq[:, None]
    D += np.einsum("ij,ij->i", Y, Y)[None, :]
    return np.maximum(D, 0.0, out=D)

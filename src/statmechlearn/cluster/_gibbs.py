"""Fixed-point kernel of maximum-entropy clustering, batched over independent runs.

For code vectors ``y_k`` with log-weights ``log w_k`` at temperature ``T`` the
Gibbs assignment is ``p(k|x) = w_k exp(-|x - y_k|^2 / T) / Z_x``. The kernel
alternates it with the centroid condition ``y_k = sum_x p(k|x) x / sum_x p(k|x)``
(and ``w_k = mean_x p(k|x)`` when mass-constrained), which is EM for an
isotropic Gaussian mixture of variance ``T/2``. Arrays carry a leading run
axis ``B`` so that many starts on the same data cost one matrix product.
Memory is O(n B K).
"""

import numpy as np

__all__ = ["gibbs_fixed_point", "gibbs_statistics", "posterior", "squared_distances"]


def _logits(X, centers, log_weights, temperature, x_sq):
    """``log w_k - |x - y_k|^2 / T`` with shape (n, B, K), BLAS for the cross term."""
    B, K, d = centers.shape
    cross = X @ centers.reshape(B * K, d).T  # (n, B*K)
    y_sq = np.einsum("bkd,bkd->bk", centers, centers).reshape(B * K)
    cross *= 2.0
    cross -= y_sq
    cross -= x_sq[:, None]
    cross /= temperature
    logits = cross.reshape(X.shape[0], B, K)
    logits += log_weights[None, :, :]
    return logits


def _normalise(logits):
    """Softmax over the last axis in place; returns it and the log partition function."""
    top = logits.max(axis=2, keepdims=True)
    logits -= top
    np.exp(logits, out=logits)
    total = logits.sum(axis=2, keepdims=True)
    logits /= total
    return logits, (np.log(total) + top)[:, :, 0]


def squared_distances(X, centers, x_sq=None):
    """Squared Euclidean distances ``|x - y_k|^2`` by BLAS, memory O(n K).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    centers : ndarray of shape (n_clusters, n_features)
    x_sq : ndarray of shape (n_samples,), optional

    Returns
    -------
    ndarray of shape (n_samples, n_clusters)
        Clipped at 0 against rounding.
    """
    if x_sq is None:
        x_sq = np.einsum("ij,ij->i", X, X)
    zero = np.zeros((1, centers.shape[0]))
    d = _logits(X, centers[None], zero, 1.0, x_sq)[:, 0, :]
    np.negative(d, out=d)
    return np.maximum(d, 0.0, out=d)


def posterior(X, centers, log_weights, temperature, x_sq=None):
    """Gibbs assignment probabilities and per-point log partition function.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    centers : ndarray of shape (n_runs, n_clusters, n_features)
    log_weights : ndarray of shape (n_runs, n_clusters)
    temperature : float
    x_sq : ndarray of shape (n_samples,), optional
        Precomputed squared norms of the rows of ``X``.

    Returns
    -------
    proba : ndarray of shape (n_samples, n_runs, n_clusters)
    log_z : ndarray of shape (n_samples, n_runs)
        ``log sum_k w_k exp(-|x - y_k|^2 / T)``.
    """
    if x_sq is None:
        x_sq = np.einsum("ij,ij->i", X, X)
    return _normalise(_logits(X, centers, log_weights, temperature, x_sq))


def _update(X, proba, centers, mass_constrained):
    n = X.shape[0]
    B, K, d = centers.shape
    mass = proba.sum(axis=0)  # (B, K)
    sums = (proba.reshape(n, B * K).T @ X).reshape(B, K, d)
    alive = mass > 1e-300
    new = np.where(alive[:, :, None], sums / np.where(alive, mass, 1.0)[:, :, None], centers)
    log_weights = np.log(np.maximum(mass, 1e-300) / n) if mass_constrained else None
    return new, log_weights


def gibbs_fixed_point(
    X, centers, log_weights, temperature, *, mass_constrained, max_iter, tol, x_sq=None
):
    """Iterate the Gibbs assignment and centroid condition to a fixed point.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    centers : ndarray of shape (n_runs, n_clusters, n_features)
        Starting code vectors (not modified).
    log_weights : ndarray of shape (n_runs, n_clusters)
        Starting log cluster weights; kept fixed unless ``mass_constrained``.
    temperature : float
        ``T > 0``.
    mass_constrained : bool
        Whether the weights follow the cluster masses.
    max_iter : int
        Maximum number of iterations.
    tol : float
        Convergence when the largest squared move of a code vector is below it.
    x_sq : ndarray of shape (n_samples,), optional

    Returns
    -------
    centers : ndarray of shape (n_runs, n_clusters, n_features)
    log_weights : ndarray of shape (n_runs, n_clusters)
    n_iter : int
    shift : ndarray of shape (n_runs,)
        Last squared move of each run (``<= tol`` when converged).
    """
    if x_sq is None:
        x_sq = np.einsum("ij,ij->i", X, X)
    centers = np.array(centers, dtype=float)
    log_weights = np.array(log_weights, dtype=float)
    shift = np.full(centers.shape[0], np.inf)
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 - n_iter is returned
        proba, _ = posterior(X, centers, log_weights, temperature, x_sq)
        new, new_log_w = _update(X, proba, centers, mass_constrained)
        shift = np.max(np.sum((new - centers) ** 2, axis=2), axis=1)
        centers = new
        if new_log_w is not None:
            log_weights = new_log_w
        if np.all(shift <= tol):
            break
    return centers, log_weights, n_iter, shift


def gibbs_statistics(X, centers, log_weights, temperature, x_sq=None):
    """Free energy, distortion and entropy of the Gibbs assignment, per sample.

    Parameters
    ----------
    X, centers, log_weights, temperature, x_sq
        As in :func:`posterior`.

    Returns
    -------
    dict of ndarray of shape (n_runs,)
        ``free_energy`` ``F = -T <log sum_k w_k exp(-d_k/T)>_x``,
        ``distortion`` ``D = <sum_k p(k|x) d_k>_x``, ``entropy`` ``H(K|X)``
        in nats, and ``mutual_information`` ``I(X;K) = H(K) - H(K|X)``
        of the assignment (at a mass-constrained fixed point ``F = D + T I``).
    """
    if x_sq is None:
        x_sq = np.einsum("ij,ij->i", X, X)
    logits = _logits(X, centers, log_weights, temperature, x_sq)
    dist = (log_weights[None, :, :] - logits) * temperature  # d_k
    proba, log_z = _normalise(logits)
    distortion = np.einsum("nbk,nbk->b", proba, dist) / X.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(proba > 0, proba * np.log(proba), 0.0)
    entropy = -plogp.sum(axis=(0, 2)) / X.shape[0]
    marginal = proba.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        h_k = -np.where(marginal > 0, marginal * np.log(marginal), 0.0).sum(axis=1)
    return {
        "free_energy": -temperature * log_z.mean(axis=0),
        "distortion": distortion,
        "entropy": entropy,
        "mutual_information": h_k - entropy,
    }

"""The moves of deterministic annealing: where a cluster splits, and the moves at the end.

The principal axis of a cluster's posterior-weighted covariance (its critical
temperature ``2 lambda_max`` and the direction a split pushes the pair apart),
groups of coincident code vectors, and the split-and-merge relocation at the final
temperature, with the nearest-code-vector passes they need. Used by
:class:`~statmechlearn.cluster.DeterministicAnnealing`.
"""

import numpy as np
from scipy.sparse.linalg import ArpackNoConvergence, eigsh

from statmechlearn._core.distances import squared_distances
from statmechlearn.cluster._gibbs import posterior

__all__ = [
    "DENSE_EIGH_MAX",
    "coincident",
    "coincident_groups",
    "nearest",
    "nearest_two",
    "principal_axes",
    "relocate",
    "top_eigenpair",
    "two_means",
]

# Rows per chunk of the passes that need per-row posteriors or distances: O(chunk K)
# memory instead of O(n K).
_CHUNK = 1 << 15
# Split-and-merge moves tried per round and code vector, best predicted gain first.
RELOCATION_TRIALS = 2
# Rows of a cluster (at most) whose 2-means proposes the halves of a relocation move.
RELOCATION_ROWS = 4096
# Features above which the principal axis comes from Lanczos, not a full eigh (below it
# LAPACK's whole decomposition costs less than ARPACK's setup).
DENSE_EIGH_MAX = 256


def principal_axes(X, x_sq, centers, log_w, T, groups):
    """Largest eigenvalue, eigenvector and mass of each group's posterior-weighted covariance.

    ``groups`` lists the code vectors of each group (the covariance is about
    the group's first code vector); the posterior is computed chunk by chunk.
    """
    d = X.shape[1]
    scatter = np.zeros((len(groups), d, d))
    mass = np.zeros(len(groups))
    for start in range(0, X.shape[0], _CHUNK):
        rows = slice(start, start + _CHUNK)
        proba, _ = posterior(X[rows], centers[None], log_w[None], T, x_sq[rows])
        for g, members in enumerate(groups):
            p = proba[:, 0, members].sum(axis=1)
            # rows with p(k|x) below 1e-16 of the largest add nothing at double precision
            near = np.flatnonzero(p > 1e-16 * p.max())
            diff = (X[rows][near] - centers[members[0]]) * np.sqrt(p[near])[:, None]
            scatter[g] += diff.T @ diff
            mass[g] += p.sum()
    return [(*top_eigenpair(scatter[g] / mass[g]), mass[g]) for g in range(len(groups))]


def top_eigenpair(cov):
    """Largest eigenvalue of a symmetric matrix and a unit eigenvector.

    Above ``DENSE_EIGH_MAX`` features Lanczos (ARPACK) finds the one pair the
    split needs in O(d^2) per product, ten times faster than LAPACK's full
    decomposition at d = 1600; its start is fixed so that a fit is
    reproducible, and a run that does not converge falls back to LAPACK.
    """
    d = cov.shape[0]
    if d > DENSE_EIGH_MAX:
        start = np.random.default_rng(0).standard_normal(d)
        try:
            values, vectors = eigsh(cov, k=1, which="LA", v0=start)
            return values[0], vectors[:, 0]
        except ArpackNoConvergence:
            pass
    values, vectors = np.linalg.eigh(cov)
    return values[-1], vectors[:, -1]


def nearest_two(X, x_sq, centers):
    """Nearest code vector, and the squared distances to the nearest and second nearest."""
    n = X.shape[0]
    labels, first, second = np.empty(n, dtype=np.intp), np.empty(n), np.empty(n)
    for start in range(0, n, _CHUNK):
        rows = slice(start, start + _CHUNK)
        d2 = squared_distances(X[rows], centers, x_sq[rows])
        two = np.argpartition(d2, 1, axis=1)[:, :2]
        pair = np.take_along_axis(d2, two, axis=1)
        swap = pair[:, 1] < pair[:, 0]
        labels[rows] = np.where(swap, two[:, 1], two[:, 0])
        first[rows] = np.where(swap, pair[:, 1], pair[:, 0])
        second[rows] = np.where(swap, pair[:, 0], pair[:, 1])
    return labels, first, second


def two_means(points, n_iter=20):
    """2-means of ``points`` started across their principal axis: the two centres and the SSE."""
    mean = points.mean(axis=0)
    values, vectors = np.linalg.eigh(
        np.cov(points, rowvar=False, bias=True).reshape(points.shape[1], points.shape[1])
    )
    offset = np.sqrt(max(values[-1], 0.0)) * vectors[:, -1]
    pair = np.array([mean + offset, mean - offset])
    for _ in range(n_iter):
        side = squared_distances(points, pair).argmin(axis=1)
        if side.min() == side.max():
            break
        new = np.array([points[side == h].mean(axis=0) for h in (0, 1)])
        if np.array_equal(new, pair):
            break
        pair = new
    return pair, float(squared_distances(points, pair).min(axis=1).sum())


def nearest(X, x_sq, centers):
    """Index of the nearest code vector and the inertia, chunk by chunk."""
    labels = np.empty(X.shape[0], dtype=np.intp)
    inertia = 0.0
    for start in range(0, X.shape[0], _CHUNK):
        rows = slice(start, start + _CHUNK)
        d2 = squared_distances(X[rows], centers, x_sq[rows])
        labels[rows] = d2.argmin(axis=1)
        inertia += float(np.take_along_axis(d2, labels[rows, None], axis=1).sum())
    return labels, inertia


def coincident_groups(close):
    """Group label of each code vector, given which pairs coincide.

    ``close`` is a symmetric boolean matrix; each code vector joins the group
    of the first earlier one it coincides with, groups are numbered in order.
    """
    labels = np.full(len(close), -1)
    n_groups = 0
    for i in range(len(close)):
        if labels[i] < 0:
            labels[(close[i] | (np.arange(len(close)) == i)) & (labels < 0)] = n_groups
            n_groups += 1
    return labels


def coincident(centers, scale, rtol=1e-3):
    """Pairs of code vectors within ``rtol * scale`` of each other."""
    gap = np.sum((centers[:, None, :] - centers[None, :, :]) ** 2, axis=2)
    return gap <= (rtol * scale) ** 2


def relocate(X, x_sq, centers, log_w, T, iterate, events):
    """Split-and-merge moves at the final temperature while they lower the inertia.

    A capped anneal spends its code vectors on the first clusters to become
    unstable, which on data with outliers are a few far points (their
    posterior covariance, hence critical temperature, is the largest). A
    move removes code vector ``i`` (its points go to their second-nearest
    one) and splits cluster ``j`` by 2-means; moves are tried in order of
    their predicted drop of the distortion, and one is kept only if the
    inertia after the fixed point is lower (Ueda et al.'s SMEM for a hard
    partition).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    x_sq : ndarray of shape (n,)
        ``|x|^2`` of the rows.
    centers : ndarray of shape (K, d)
    log_w : ndarray of shape (K,)
    T : float
        The final temperature.
    iterate : callable
        ``(X, centers, log_w, T) -> (centers, log_w, stats)``, the fixed point.
    events : list
        The path's events; each move kept is appended.

    Returns
    -------
    centers, log_w : ndarray
    """
    labels, first, second = nearest_two(X, x_sq, centers)
    inertia = float(first.sum())
    K = len(centers)
    for _ in range(2 * K):
        removal = np.bincount(labels, weights=second - first, minlength=K)
        sse = np.bincount(labels, weights=first, minlength=K)
        gain, halves = np.zeros(K), [None] * K
        for j in range(K):
            members = np.flatnonzero(labels == j)
            if len(members) >= 2:
                # the halves and the predicted gain from an even thinning of a large
                # cluster (each 2-means pass is a pass over it); the move itself is
                # kept only if the inertia of all rows falls
                stride = -(-len(members) // RELOCATION_ROWS)
                halves[j], sse_split = two_means(X[members[::stride]])
                gain[j] = sse[j] - sse_split * len(members) / len(members[::stride])
        # predicted change of the distortion of each move (i removed, j split)
        net = gain[None, :] - removal[:, None]
        np.fill_diagonal(net, -np.inf)
        order = np.argsort(net, axis=None)[::-1][: RELOCATION_TRIALS * K]
        moved = None
        for i, j in zip(*np.unravel_index(order, net.shape), strict=True):
            if net[i, j] <= 1e-9 * inertia:
                break
            keep = [k for k in range(K) if k not in (i, j)]
            trial = np.vstack([centers[keep], halves[j]])
            trial, trial_w, _ = iterate(X, trial, np.full(K, -np.log(K)), T)
            found = nearest_two(X, x_sq, trial)
            if len(trial) == K and found[1].sum() < inertia * (1.0 - 1e-12):
                moved = (i, j, trial, trial_w, *found)
                break
        if moved is None:
            break
        i, j, trial, trial_w, trial_labels, trial_first, trial_second = moved
        centers, log_w = trial, trial_w
        labels, first, second = trial_labels, trial_first, trial_second
        inertia = float(first.sum())
        events.append(
            {
                "temperature": T,
                "critical_temperature": np.nan,
                "cluster": int(j),
                "accepted": True,
                "relocated": int(i),
            }
        )
    return centers, log_w

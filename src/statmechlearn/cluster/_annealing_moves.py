"""The moves of deterministic annealing: where a cluster splits, and the moves at the end.

The principal axis of a cluster's posterior-weighted covariance (its critical
temperature ``2 lambda_max`` and the direction a split pushes the pair apart),
groups of coincident code vectors, and the split-and-merge relocation at the final
temperature, with the nearest-code-vector passes they need. Used by
:class:`~statmechlearn.cluster.DeterministicAnnealing`.
"""

import numba
import numpy as np
import scipy.linalg
from scipy.sparse.linalg import ArpackNoConvergence, eigsh

from statmechlearn._core.distances import squared_distances
from statmechlearn.cluster._gibbs import posterior
from statmechlearn.cluster._polish import sse_moves

__all__ = [
    "DENSE_EIGH_MAX",
    "coincident",
    "coincident_groups",
    "nearest",
    "nearest_three",
    "nearest_two",
    "polished",
    "predicted_moves",
    "predicted_moves_numpy",
    "principal_axes",
    "relocate",
    "swap",
    "top_eigenpair",
    "two_means",
    "two_means_numpy",
]

# Rows per chunk of the passes that need per-row posteriors or distances: O(chunk K)
# memory instead of O(n K).
_CHUNK = 1 << 15
# Split-and-merge moves verified by a fixed point per round, best predicted first.
RELOCATION_TRIALS = 3
# Rows of a cluster (at most) whose 2-means proposes the halves of a relocation move.
RELOCATION_ROWS = 4096
# Features above which the principal axis comes from Lanczos, not a full eigh (below it
# LAPACK's whole decomposition costs less than ARPACK's setup).
DENSE_EIGH_MAX = 256
# Features from which the 2-means start asks LAPACK for the top eigenpair alone (below it
# the full decomposition costs as little).
TWO_MEANS_SUBSET_MIN = 32
# Swap moves: data points drawn per round, best predicted swaps verified per round, rows
# (at most) on which the swaps' distortions are predicted, and rounds per code vector.
SWAP_CANDIDATES = 32
SWAP_TRIALS = 3
SWAP_ROWS = 1 << 14
SWAP_ROUNDS = 2


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


def _two_means_start(points):
    """The 2-means start: the mean plus and minus the principal axis, scaled by its spread."""
    mean = points.mean(axis=0)
    d = points.shape[1]
    cov = np.cov(points, rowvar=False, bias=True).reshape(d, d)
    if d >= TWO_MEANS_SUBSET_MIN:
        # the top pair alone (LAPACK's dsyevx): 100 us instead of 270 at d = 64
        values, vectors = scipy.linalg.eigh(
            cov, subset_by_index=[d - 1, d - 1], driver="evx", check_finite=False
        )
    else:
        values, vectors = np.linalg.eigh(cov)
    offset = np.sqrt(max(values[-1], 0.0)) * vectors[:, -1]
    return np.array([mean + offset, mean - offset])


def two_means(points, n_iter=20):
    """2-means of ``points`` started across their principal axis: the two centres and the SSE.

    The Lloyd iterations run in one compiled loop (:func:`_two_means_loop`; a
    relocation runs tens of these on clusters of a few hundred rows, where
    NumPy's per-call overheads cost more than the arithmetic);
    :func:`two_means_numpy` is its NumPy twin.
    """
    points = np.ascontiguousarray(points, dtype=float)
    return _two_means_loop(points, _two_means_start(points), n_iter)


@numba.njit(cache=True, nogil=True)
def _two_means_loop(points, pair, n_iter):  # pragma: no cover - compiled
    """Lloyd's iterations of 2-means from ``pair``: the two centres and the SSE.

    Each row goes to the nearer centre (the first on a tie, as ``argmin``), by
    its exact squared distances; a centre is the mean of its rows, summed in row
    order (as NumPy's ``mean(axis=0)``). Stops when a side is empty or the
    centres no longer move.
    """
    m, d = points.shape
    side = np.zeros(m, dtype=np.int64)
    for _ in range(n_iter):
        n_one = _two_means_sides(points, pair, side)
        if n_one == 0 or n_one == m:
            break
        new = np.zeros((2, d))
        for i in range(m):
            s = side[i]
            for j in range(d):
                new[s, j] += points[i, j]
        for j in range(d):
            new[0, j] /= m - n_one
            new[1, j] /= n_one
        same = True
        for h in range(2):
            for j in range(d):
                if new[h, j] != pair[h, j]:
                    same = False
        if same:
            break
        pair = new
    sse = 0.0
    for i in range(m):
        d0, d1 = _to_pair(points, pair, i)
        sse += min(d0, d1)
    return pair, sse


@numba.njit(cache=True, nogil=True, inline="always")
def _to_pair(points, pair, i):  # pragma: no cover - compiled
    """Squared distances of row ``i`` to the two centres of ``pair``."""
    d0 = 0.0
    d1 = 0.0
    for j in range(points.shape[1]):
        a = points[i, j] - pair[0, j]
        b = points[i, j] - pair[1, j]
        d0 += a * a
        d1 += b * b
    return d0, d1


@numba.njit(cache=True, nogil=True)
def _two_means_sides(points, pair, side):  # pragma: no cover - compiled
    """Each row's nearer centre of ``pair`` into ``side``; returns how many chose the second."""
    m = points.shape[0]
    n_one = 0
    for i in range(m):
        d0, d1 = _to_pair(points, pair, i)
        s = 1 if d1 < d0 else 0
        side[i] = s
        n_one += s
    return n_one


def two_means_numpy(points, n_iter=20):
    """NumPy twin of :func:`two_means`: the same iterations, distances by one product."""
    pair = _two_means_start(points)
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
    close = np.asarray(close, dtype=bool)
    # the usual case, no pair coinciding (the record, the merge test and the candidates
    # ask at every temperature): each code vector is its own group, without the loop
    if np.count_nonzero(close) == np.count_nonzero(close.diagonal()):
        return np.arange(len(close))
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


def nearest_three(X, x_sq, centers):
    """The three nearest code vectors of each row and their squared distances, nearest first.

    With two code vectors the third is padded with label ``K`` at distance ``inf``.
    """
    K = len(centers)
    d2 = squared_distances(X, centers, x_sq)
    if K < 3:
        d2 = np.hstack([d2, np.full((X.shape[0], 3 - K), np.inf)])
    three = np.argpartition(d2, 2, axis=1)[:, :3] if d2.shape[1] > 3 else np.arange(3)[None, :]
    three = np.broadcast_to(three, (X.shape[0], 3))
    dist = np.take_along_axis(d2, three, axis=1)
    order = np.argsort(dist, axis=1)
    return np.take_along_axis(three, order, axis=1), np.take_along_axis(dist, order, axis=1)


def predicted_moves(X, x_sq, centers, halves):
    """Hard-assignment distortion after each split-and-merge move, exactly, before any iteration.

    Move ``(i, j)`` removes code vector ``i`` and replaces ``j`` by the two
    ``halves[j]``: each row then goes to the nearest of the halves and the
    code vectors other than ``i`` and ``j``, which its three nearest code
    vectors determine. Returns a ``(K, K)`` array (``inf`` on the diagonal
    and for clusters without halves).
    """
    K = len(centers)
    labels, dist = nearest_three(X, x_sq, centers)
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    dist = np.ascontiguousarray(dist)
    predicted = np.full((K, K), np.inf)
    for j in range(K):
        if halves[j] is None:
            continue
        to_halves = squared_distances(X, halves[j], x_sq).min(axis=1)
        base, change = _move_change(labels, dist, to_halves, j, K)
        predicted[:, j] = base.sum() + change[:K]
        predicted[j, j] = np.inf
    return predicted


@numba.njit(cache=True, nogil=True)
def _move_change(labels, dist, to_halves, j, K):  # pragma: no cover - compiled
    """Per row the distortion once ``j`` gives way to its halves; per removed ``i`` the change.

    Each row's nearest (a) and second-nearest (b) code vector other than ``j``
    among its three nearest; ``base`` is the nearer of a and the halves, and a
    row whose a is removed falls back to b: ``change[a]`` adds ``min(d_b, halves)
    - base``, row by row (as ``np.bincount`` with weights; :func:`predicted_moves_numpy`
    is the NumPy twin).
    """
    m = labels.shape[0]
    base = np.empty(m)
    change = np.zeros(K + 1)
    for r in range(m):
        first = 0
        while labels[r, first] == j:
            first += 1
        second = first + 1
        while labels[r, second] == j:
            second += 1
        h = to_halves[r]
        b = min(dist[r, first], h)
        base[r] = b
        change[labels[r, first]] += min(dist[r, second], h) - b
    return base, change


def predicted_moves_numpy(X, x_sq, centers, halves):
    """NumPy twin of :func:`predicted_moves`."""
    K, m = len(centers), X.shape[0]
    labels, dist = nearest_three(X, x_sq, centers)
    rows = np.arange(m)
    predicted = np.full((K, K), np.inf)
    for j in range(K):
        if halves[j] is None:
            continue
        to_halves = squared_distances(X, halves[j], x_sq).min(axis=1)
        # each row's nearest (a) and second-nearest (b) code vector other than j
        other = labels != j
        first_other = np.argmax(other, axis=1)
        other[rows, first_other] = False
        second_other = np.argmax(other, axis=1)
        a = labels[rows, first_other]
        d_a, d_b = dist[rows, first_other], dist[rows, second_other]
        base = np.minimum(d_a, to_halves)
        # a row whose nearest other is i falls back to b once i is gone as well
        change = np.bincount(a, weights=np.minimum(d_b, to_halves) - base, minlength=K + 1)
        predicted[:, j] = base.sum() + change[:K]
        predicted[j, j] = np.inf
    return predicted


def polished(X, x_sq, trial, trial_w):
    """A move's fixed point, carried on by Hartigan's single-object moves where they gain.

    A fixed point of the centroid iteration need not be a local minimum of the
    inertia: after a move, one object can still lower it by changing cluster,
    and a move can be judged by where those moves end (one that first looks
    worse can lead to the optimum: an outlier's code vector moved into a
    group that needs one more object from its neighbour to split well).
    :func:`relocate` and :func:`swap` carry on the trial nearest to gaining
    when none of a round gains by itself. Returns
    ``(centers, log_w, nearest_two)`` of the better of the two.
    """
    found = nearest_two(X, x_sq, trial)
    K = len(trial)
    if np.bincount(found[0], minlength=K).min() == 0:
        return trial, trial_w, found
    moved, n_moves = sse_moves(X, found[0], K)
    if not n_moves:
        return trial, trial_w, found
    counts = np.bincount(moved, minlength=K).astype(float)
    centers = np.column_stack([np.bincount(moved, weights=col, minlength=K) for col in X.T])
    centers /= counts[:, None]
    after = nearest_two(X, x_sq, centers)
    if not after[1].sum() < found[1].sum():
        return trial, trial_w, found
    return centers, np.log(counts / X.shape[0]), after


def improves(found, labels, inertia, K):
    """Whether a move's fixed point is another partition, with lower inertia, of all K clusters.

    ``found`` is :func:`nearest_two` at the move's fixed point. The same
    partition reached again is the same minimum: its inertia may differ from
    the current one within the tolerance of the two fixed points only.
    """
    new_labels, first = found[0], found[1]
    if len(np.unique(new_labels)) < K or not first.sum() < inertia * (1.0 - 1e-12):
        return False
    pairs = np.unique(new_labels * K + labels)
    return len(pairs) > K


def relocate(X, x_sq, centers, log_w, T, iterate, events):
    """Split-and-merge moves at the final temperature while they lower the inertia.

    A capped anneal spends its code vectors on the first clusters to become
    unstable, which on data with outliers are a few far points (their
    posterior covariance, hence critical temperature, is the largest). A
    move removes code vector ``i`` and splits cluster ``j`` by 2-means
    (Ueda et al.'s SMEM for a hard partition). Each round ranks every move
    by its exact hard-assignment distortion before iteration
    (:func:`predicted_moves`, on an even thinning to ``SWAP_ROWS`` rows of
    larger data) and runs the fixed point from the ``RELOCATION_TRIALS``
    best whatever their prediction: the iteration after a move often gains
    more than the move itself loses (two code vectors sharing a cluster of
    raw digits while two digits share one: every move is predicted 1 %
    worse, and the best two reach 0.4 % lower inertia after iterating). The
    first whose inertia on all rows is lower is kept; the moves stop after a
    round with none kept.

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
    labels, first, _ = nearest_two(X, x_sq, centers)
    inertia = float(first.sum())
    K = len(centers)
    sub = slice(None, None, -(-X.shape[0] // SWAP_ROWS))
    # a cluster whose rows a kept move left as they were has the same halves: its
    # 2-means (an eigh and up to 20 passes over it) is not run again
    known = {}
    for _ in range(2 * K):
        halves = [None] * K
        for j in range(K):
            members = np.flatnonzero(labels == j)
            if len(members) >= 2:
                # the halves from an even thinning of a large cluster (each 2-means pass
                # is a pass over it); the move itself is kept only if all rows gain
                stride = -(-len(members) // RELOCATION_ROWS)
                key = members.tobytes()
                if key not in known:
                    known[key] = two_means(X[members[::stride]])[0]
                halves[j] = known[key]
        predicted = predicted_moves(X[sub], x_sq[sub], centers, halves)
        order = np.argsort(predicted, axis=None)[:RELOCATION_TRIALS]
        moved, failed = None, []
        for i, j in zip(*np.unravel_index(order, predicted.shape), strict=True):
            if not np.isfinite(predicted[i, j]):
                break
            keep = [k for k in range(K) if k not in (i, j)]
            trial = np.vstack([centers[keep], halves[j]])
            trial, trial_w, _ = iterate(X, trial, np.full(K, -np.log(K)), T)
            found = nearest_two(X, x_sq, trial)
            if improves(found, labels, inertia, K):
                moved = (i, j, trial, trial_w, found[0], found[1])
                break
            failed.append((float(found[1].sum()), (i, j), trial, trial_w))
        if moved is None and failed:
            # the trial nearest to gaining, carried on by single-object moves
            _, (i, j), trial, trial_w = min(failed, key=lambda f: f[0])
            trial, trial_w, found = polished(X, x_sq, trial, trial_w)
            if improves(found, labels, inertia, K):
                moved = (i, j, trial, trial_w, found[0], found[1])
        if moved is None:
            break
        i, j, centers, log_w, labels, first = moved
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


def swap(X, x_sq, centers, T, iterate, events, rng):
    """Swap moves at the final temperature: a code vector to a data point, while that helps.

    Split-and-merge (:func:`relocate`) proposes a new code vector only inside
    one existing cluster; a cluster the anneal never resolved may instead lie
    across the boundary of several (overlapping blobs: two code vectors in
    one blob, none in its neighbour). A swap move removes code vector ``i``
    and puts one on a data point ``x`` (Kanungo, Mount, Netanyahu, Piatko,
    Silverman & Wu's single-swap local search, Computational Geometry 28, 89
    (2004)). Each round draws ``SWAP_CANDIDATES`` points by ``D^2`` sampling
    (the k-means++ weights: where the code vectors serve the data worst),
    predicts the hard-assignment distortion after every swap ``(i, x)``
    exactly (each row goes to the nearer of ``x`` and its nearest code vector
    other than ``i``; on an even thinning to ``SWAP_ROWS`` rows of larger
    data), and runs the fixed point from the ``SWAP_TRIALS`` best: the first
    whose inertia on all rows is lower is kept. The moves stop after a round
    with none kept.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    x_sq : ndarray of shape (n,)
        ``|x|^2`` of the rows.
    centers : ndarray of shape (K, d)
    T : float
        The final temperature.
    iterate : callable
        ``(X, centers, log_w, T) -> (centers, log_w, stats)``, the fixed point.
    events : list
        The path's events; each move kept is appended.
    rng : numpy.random.Generator
        Draws the candidate points.

    Returns
    -------
    centers, log_w : ndarray, or None when no move was kept
    """
    n, K = X.shape[0], len(centers)
    stride = -(-n // SWAP_ROWS)
    sub = slice(None, None, stride)
    labels, first, second = nearest_two(X, x_sq, centers)
    inertia = float(first.sum())
    kept = None
    for _ in range(SWAP_ROUNDS * K):
        s_labels, s_first, s_second = labels[sub], first[sub], second[sub]
        total = s_first.sum()
        if not total > 0.0:
            break
        picks = np.unique(rng.choice(len(s_first), SWAP_CANDIDATES, p=s_first / total))
        points = X[sub][picks]
        dx = squared_distances(X[sub], points, x_sq[sub])
        near_x = np.minimum(s_first[:, None], dx)
        # a row of cluster i goes to x or its second-nearest code vector once i is gone
        members = np.zeros((K, len(s_first)))
        members[s_labels, np.arange(len(s_first))] = 1.0
        predicted = near_x.sum(axis=0)[None, :] + members @ (
            np.minimum(s_second[:, None], dx) - near_x
        )
        order = np.argsort(predicted, axis=None)[:SWAP_TRIALS]
        moved, failed = None, []
        for i, c in zip(*np.unravel_index(order, predicted.shape), strict=True):
            trial = centers.copy()
            trial[i] = points[c]
            trial, trial_w, _ = iterate(X, trial, np.full(K, -np.log(K)), T)
            found = nearest_two(X, x_sq, trial)
            if improves(found, labels, inertia, K):
                moved = (i, trial, trial_w, *found)
                break
            failed.append((float(found[1].sum()), i, trial, trial_w))
        if moved is None and failed:
            # the trial nearest to gaining, carried on by single-object moves
            _, i, trial, trial_w = min(failed, key=lambda f: f[0])
            trial, trial_w, found = polished(X, x_sq, trial, trial_w)
            if improves(found, labels, inertia, K):
                moved = (i, trial, trial_w, *found)
        if moved is None:
            break
        i, centers, log_w, labels, first, second = moved
        inertia = float(first.sum())
        kept = (centers, log_w)
        events.append(
            {
                "temperature": T,
                "critical_temperature": np.nan,
                "cluster": int(i),
                "accepted": True,
                "swapped": True,
            }
        )
    return kept

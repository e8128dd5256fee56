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
from statmechlearn.cluster._polish_kmeans import sse_moves

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
# Entries (rows times features) of a 2-means up to which its Lloyd iterations run in
# NumPy (:func:`_two_means_in_order`, the same bits as the compiled loop): a relocation
# runs about ten of them, and compiling the loop costs more than they do on small data.
TWO_MEANS_COMPILED = 1 << 14


def principal_axes(X, x_sq, centers, log_w, T, groups, sample_weight=None):
    """Largest eigenvalue, eigenvector and mass of each group's posterior-weighted covariance.

    ``groups`` lists the code vectors of each group (the covariance is about
    the group's first code vector); the posterior is computed chunk by chunk,
    and multiplied by the rows' ``sample_weight`` where given.
    """
    d = X.shape[1]
    scatter = np.zeros((len(groups), d, d))
    mass = np.zeros(len(groups))
    for start in range(0, X.shape[0], _CHUNK):
        rows = slice(start, start + _CHUNK)
        proba, _ = posterior(X[rows], centers[None], log_w[None], T, x_sq[rows])
        for g, members in enumerate(groups):
            p = proba[:, 0, members].sum(axis=1)
            if sample_weight is not None:
                p = p * sample_weight[rows]
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


def _two_means_start(points, weights=None):
    """The 2-means start: the mean plus and minus the principal axis, scaled by its spread."""
    d = points.shape[1]
    if weights is None:
        mean = points.mean(axis=0)
        cov = np.cov(points, rowvar=False, bias=True).reshape(d, d)
    else:
        mean = np.average(points, axis=0, weights=weights)
        cov = np.cov(points, rowvar=False, aweights=weights, bias=True).reshape(d, d)
    if d >= TWO_MEANS_SUBSET_MIN:
        # the top pair alone (LAPACK's dsyevx): 100 us instead of 270 at d = 64
        values, vectors = scipy.linalg.eigh(
            cov, subset_by_index=[d - 1, d - 1], driver="evx", check_finite=False
        )
    else:
        values, vectors = np.linalg.eigh(cov)
    offset = np.sqrt(max(values[-1], 0.0)) * vectors[:, -1]
    return np.array([mean + offset, mean - offset])


def two_means(points, n_iter=20, weights=None):
    """2-means of ``points`` started across their principal axis: the two centres and the SSE.

    The Lloyd iterations run in one compiled loop (:func:`_two_means_loop`; a
    relocation runs tens of these on clusters of a few hundred rows, where
    NumPy's per-call overheads cost more than the arithmetic);
    :func:`two_means_numpy` is its NumPy twin. With row ``weights`` (an integer
    weight is the row repeated) the centres are weighted means and the SSE a
    weighted sum: :func:`two_means_numpy`'s iterations.
    """
    points = np.ascontiguousarray(points, dtype=float)
    if weights is not None:
        return two_means_numpy(points, n_iter, weights)
    pair = np.ascontiguousarray(_two_means_start(points))
    if points.size <= TWO_MEANS_COMPILED:
        return _two_means_in_order(points, pair, n_iter)
    work = (np.empty(points.shape[0], dtype=np.int64), np.empty((2, points.shape[1])))
    return _two_means_loop(points, pair, n_iter, *work)


def _two_means_in_order(points, pair, n_iter):
    """:func:`_two_means_loop` in NumPy, with its arithmetic: every sum in order.

    The squared distances, the centres' sums and the SSE are accumulated in the
    loop's order (``np.add.accumulate``, whose last entry is the running sum), so
    the two give the same bits; on a few thousand entries this costs less than
    compiling the loop in a new process.
    """
    m = points.shape[0]
    sse = 0.0
    for it in range(n_iter + 1):
        d0, d1 = (np.add.accumulate((points - c) ** 2, axis=1)[:, -1] for c in pair)
        side = d1 < d0
        n_one = int(np.count_nonzero(side))
        sse = float(np.add.accumulate(np.minimum(d0, d1))[-1])
        if it == n_iter or n_one == 0 or n_one == m:
            break
        new = np.array(
            [
                np.add.accumulate(points[~side], axis=0)[-1],
                np.add.accumulate(points[side], axis=0)[-1],
            ]
        )
        new[0] /= m - n_one
        new[1] /= n_one
        if np.array_equal(new, pair):
            break
        pair = new
    return pair, sse


@numba.njit(cache=True, nogil=True)
def _two_means_loop(points, pair, n_iter, side, new):  # pragma: no cover - compiled
    """Lloyd's iterations of 2-means from ``pair``: the two centres and the SSE.

    Each row goes to the nearer centre (the first on a tie, as ``argmin``), by
    its exact squared distances; a centre is the mean of its rows, summed in row
    order (as NumPy's ``mean(axis=0)``). Stops when a side is empty or the
    centres no longer move; the SSE is summed in row order in the pass that
    assigned the rows to the final centres. ``side`` (m,) and ``new`` (2, d) are
    work arrays of the caller's (a kernel that allocates nothing compiles no NumPy
    allocation of its own).
    """
    m, d = points.shape
    sse = 0.0
    for it in range(n_iter + 1):
        # each row's nearer centre, and the SSE of the current pair
        n_one = 0
        sse = 0.0
        for i in range(m):
            d0 = 0.0
            d1 = 0.0
            for j in range(d):
                a = points[i, j] - pair[0, j]
                b = points[i, j] - pair[1, j]
                d0 += a * a
                d1 += b * b
            s = 1 if d1 < d0 else 0
            side[i] = s
            n_one += s
            sse += min(d0, d1)
        if it == n_iter or n_one == 0 or n_one == m:
            break
        for h in range(2):
            for j in range(d):
                new[h, j] = 0.0
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
        # the new centres become the pair, the old pair's array the next work array
        pair, new = new, pair
    return pair, sse


def two_means_numpy(points, n_iter=20, weights=None):
    """NumPy twin of :func:`two_means`: the same iterations, distances by one product."""
    pair = _two_means_start(points, weights)
    for _ in range(n_iter):
        side = squared_distances(points, pair).argmin(axis=1)
        if weights is None:
            if side.min() == side.max():
                break
            new = np.array([points[side == h].mean(axis=0) for h in (0, 1)])
        else:
            mass = np.bincount(side, weights=weights, minlength=2)
            if not mass.min() > 0:
                break
            new = np.array(
                [np.average(points[side == h], axis=0, weights=weights[side == h]) for h in (0, 1)]
            )
        if np.array_equal(new, pair):
            break
        pair = new
    d2 = squared_distances(points, pair).min(axis=1)
    return pair, float(d2.sum() if weights is None else weights @ d2)


def nearest(X, x_sq, centers, sample_weight=None):
    """Index of the nearest code vector and the inertia (weighted where given), by chunks."""
    labels = np.empty(X.shape[0], dtype=np.intp)
    inertia = 0.0
    for start in range(0, X.shape[0], _CHUNK):
        rows = slice(start, start + _CHUNK)
        d2 = squared_distances(X[rows], centers, x_sq[rows])
        labels[rows] = d2.argmin(axis=1)
        near = np.take_along_axis(d2, labels[rows, None], axis=1)[:, 0]
        inertia += float(near.sum() if sample_weight is None else sample_weight[rows] @ near)
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


def predicted_moves(X, x_sq, centers, halves, sample_weight=None):
    """Hard-assignment distortion after each split-and-merge move, exactly, before any iteration.

    Move ``(i, j)`` removes code vector ``i`` and replaces ``j`` by the two
    ``halves[j]``: each row then goes to the nearest of the halves and the
    code vectors other than ``i`` and ``j``, which its three nearest code
    vectors determine. Returns a ``(K, K)`` array (``inf`` on the diagonal
    and for clusters without halves). Per row: its nearest (a) and
    second-nearest (b) code vector other than ``j`` among its three nearest;
    ``base`` is the nearer of a and the halves, and a row whose a is removed
    falls back to b, so ``change[a]`` adds ``min(d_b, halves) - base`` row by
    row (``np.bincount``, in row order: the bits of
    :func:`predicted_moves_numpy`'s loop). With ``sample_weight`` each row's
    distortion is weighted.
    """
    K, m = len(centers), X.shape[0]
    labels, dist = nearest_three(X, x_sq, centers)
    rows = np.arange(m)
    predicted = np.full((K, K), np.inf)
    for j in range(K):
        if halves[j] is None:
            continue
        to_halves = squared_distances(X, halves[j], x_sq).min(axis=1)
        other = labels != j
        first_other = np.argmax(other, axis=1)
        other[rows, first_other] = False
        second_other = np.argmax(other, axis=1)
        a = labels[rows, first_other]
        d_a, d_b = dist[rows, first_other], dist[rows, second_other]
        base = np.minimum(d_a, to_halves)
        # a row whose nearest other is i falls back to b once i is gone as well
        gain = np.minimum(d_b, to_halves) - base
        if sample_weight is not None:
            base, gain = sample_weight * base, sample_weight * gain
        change = np.bincount(a, weights=gain, minlength=K + 1)
        predicted[:, j] = base.sum() + change[:K]
        predicted[j, j] = np.inf
    return predicted


def predicted_moves_numpy(X, x_sq, centers, halves):
    """Row-by-row twin of :func:`predicted_moves` (the same sums in the same order)."""
    K = len(centers)
    labels, dist = nearest_three(X, x_sq, centers)
    predicted = np.full((K, K), np.inf)
    for j in range(K):
        if halves[j] is None:
            continue
        to_halves = squared_distances(X, halves[j], x_sq).min(axis=1)
        base = np.empty(X.shape[0])
        change = np.zeros(K + 1)
        for r in range(X.shape[0]):
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
        predicted[:, j] = base.sum() + change[:K]
        predicted[j, j] = np.inf
    return predicted


def _total(values, sample_weight):
    """``sum values``, weighted by ``sample_weight`` where given."""
    return float(values.sum() if sample_weight is None else sample_weight @ values)


def polished(X, x_sq, trial, trial_w, sample_weight=None):
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
    w = sample_weight
    if np.bincount(found[0], weights=w, minlength=K).min() == 0:
        return trial, trial_w, found
    moved, n_moves = sse_moves(X, found[0], K, sample_weight=w)
    if not n_moves:
        return trial, trial_w, found
    counts = np.bincount(moved, weights=w, minlength=K).astype(float)
    if w is None:
        centers = np.column_stack([np.bincount(moved, weights=col, minlength=K) for col in X.T])
    else:
        centers = np.column_stack([np.bincount(moved, weights=w * col, minlength=K) for col in X.T])
    centers /= counts[:, None]
    after = nearest_two(X, x_sq, centers)
    if not _total(after[1], w) < _total(found[1], w):
        return trial, trial_w, found
    return centers, np.log(counts / (X.shape[0] if w is None else w.sum())), after


def improves(found, labels, inertia, K, sample_weight=None):
    """Whether a move's fixed point is another partition, with lower inertia, of all K clusters.

    ``found`` is :func:`nearest_two` at the move's fixed point. The same
    partition reached again is the same minimum: its inertia may differ from
    the current one within the tolerance of the two fixed points only.
    """
    new_labels, first = found[0], found[1]
    lower = _total(first, sample_weight) < inertia * (1.0 - 1e-12)
    if len(np.unique(new_labels)) < K or not lower:
        return False
    pairs = np.unique(new_labels * K + labels)
    return len(pairs) > K


def relocate(X, x_sq, centers, log_w, T, iterate, events, sample_weight=None):
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
    sample_weight : ndarray of shape (n,), optional
        Row weights of the inertia (and of the 2-means that proposes halves).

    Returns
    -------
    centers, log_w : ndarray
    """
    w = sample_weight
    labels, first, _ = nearest_two(X, x_sq, centers)
    inertia = _total(first, w)
    K = len(centers)
    sub = slice(None, None, -(-X.shape[0] // SWAP_ROWS))
    w_sub = None if w is None else w[sub]
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
                    rows = members[::stride]
                    known[key] = two_means(X[rows], weights=None if w is None else w[rows])[0]
                halves[j] = known[key]
        predicted = predicted_moves(X[sub], x_sq[sub], centers, halves, w_sub)
        order = np.argsort(predicted, axis=None)[:RELOCATION_TRIALS]
        moved, failed = None, []
        for i, j in zip(*np.unravel_index(order, predicted.shape), strict=True):
            if not np.isfinite(predicted[i, j]):
                break
            keep = [k for k in range(K) if k not in (i, j)]
            trial = np.vstack([centers[keep], halves[j]])
            trial, trial_w, _ = iterate(X, trial, np.full(K, -np.log(K)), T)
            found = nearest_two(X, x_sq, trial)
            if improves(found, labels, inertia, K, w):
                moved = (i, j, trial, trial_w, found[0], found[1])
                break
            failed.append((_total(found[1], w), (i, j), trial, trial_w))
        if moved is None and failed:
            # the trial nearest to gaining, carried on by single-object moves
            _, (i, j), trial, trial_w = min(failed, key=lambda f: f[0])
            trial, trial_w, found = polished(X, x_sq, trial, trial_w, w)
            if improves(found, labels, inertia, K, w):
                moved = (i, j, trial, trial_w, found[0], found[1])
        if moved is None:
            break
        i, j, centers, log_w, labels, first = moved
        inertia = _total(first, w)
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


def swap(X, x_sq, centers, T, iterate, events, rng, sample_weight=None):
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
    sample_weight : ndarray of shape (n,), optional
        Row weights of the inertia and of the ``D^2`` sampling.

    Returns
    -------
    centers, log_w : ndarray, or None when no move was kept
    """
    w = sample_weight
    n, K = X.shape[0], len(centers)
    stride = -(-n // SWAP_ROWS)
    sub = slice(None, None, stride)
    w_sub = np.ones(len(X[sub])) if w is None else w[sub]
    labels, first, second = nearest_two(X, x_sq, centers)
    inertia = _total(first, w)
    kept = None
    for _ in range(SWAP_ROUNDS * K):
        s_labels, s_first, s_second = labels[sub], first[sub], second[sub]
        # (unweighted, the draws and sums are those without weights, bit for bit)
        s_cost = s_first if w is None else w_sub * s_first
        total = s_cost.sum()
        if not total > 0.0:
            break
        picks = np.unique(rng.choice(len(s_first), SWAP_CANDIDATES, p=s_cost / total))
        points = X[sub][picks]
        dx = squared_distances(X[sub], points, x_sq[sub])
        near_x = np.minimum(s_first[:, None], dx)
        # a row of cluster i goes to x or its second-nearest code vector once i is gone
        members = np.zeros((K, len(s_first)))
        members[s_labels, np.arange(len(s_first))] = w_sub
        near_total = near_x.sum(axis=0) if w is None else w_sub @ near_x
        predicted = near_total[None, :] + members @ (np.minimum(s_second[:, None], dx) - near_x)
        order = np.argsort(predicted, axis=None)[:SWAP_TRIALS]
        moved, failed = None, []
        for i, c in zip(*np.unravel_index(order, predicted.shape), strict=True):
            trial = centers.copy()
            trial[i] = points[c]
            trial, trial_w, _ = iterate(X, trial, np.full(K, -np.log(K)), T)
            found = nearest_two(X, x_sq, trial)
            if improves(found, labels, inertia, K, w):
                moved = (i, trial, trial_w, *found)
                break
            failed.append((_total(found[1], w), i, trial, trial_w))
        if moved is None and failed:
            # the trial nearest to gaining, carried on by single-object moves
            _, i, trial, trial_w = min(failed, key=lambda f: f[0])
            trial, trial_w, found = polished(X, x_sq, trial, trial_w, w)
            if improves(found, labels, inertia, K, w):
                moved = (i, trial, trial_w, *found)
        if moved is None:
            break
        i, centers, log_w, labels, first, second = moved
        inertia = _total(first, w)
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

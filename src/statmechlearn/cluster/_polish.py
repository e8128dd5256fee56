"""Single-object moves that take a hard partition to a local minimum of its own cost.

An annealer's last temperature leaves a hard partition that is a fixed point
of its mean-field (or centroid) iteration, which need not be a local minimum
of the hard cost it documents: moving one object to another cluster can
still lower it. Each polisher here sweeps the objects in order and moves
each to the cluster that lowers the cost most (first improvement per
object, best target), keeping the cluster statistics the cost needs
up to date, until a sweep moves nothing. Every move lowers the cost by more
than ``tol`` times its scale, so the sweeps end.

- :func:`sse_moves`: the k-means cost ``sum_i |x_i - mean_c(i)|^2``
  (Hartigan & Wong's rule: moving ``x`` from ``a`` to ``b`` changes it by
  ``n_b/(n_b+1) |x - m_b|^2 - n_a/(n_a-1) |x - m_a|^2``).
- :func:`pair_moves`: costs of pairs inside clusters, linear
  ``sum_nu sum_{i<j in nu} W_ij`` (correlation clustering with ``W = -S``,
  graph partitioning with ``W = D``) or normalised by cluster size
  ``sum_nu (1/(2 n_nu)) sum_{i,j in nu} D_ij`` (pairwise clustering).
- :func:`entropy_moves`: ``sum_nu m_nu H(q_nu)`` with ``q_nu`` the
  weighted mean histogram of the cluster (histogram clustering's mean
  KL divergence and the information bottleneck's ``I(X;Y) - I(T;Y)``, up to
  constants).
- :func:`direction_moves`: the least-angle cost
  ``-(1/(2n)) sum_nu |sum_{i in nu} e_i|^2``.

``max_clusters`` lets a move open a new cluster (where the cost is minimised
over at most that many) and lets clusters empty; without it the number of
non-empty clusters is kept. Each function has a NumPy twin (``*_numpy``)
that recomputes the cost of every candidate move from scratch, for tests.
"""

import numba
import numpy as np

__all__ = [
    "direction_moves",
    "direction_moves_numpy",
    "entropy_moves",
    "entropy_moves_numpy",
    "entropy_split_merge",
    "pair_moves",
    "pair_moves_numpy",
    "pair_split_merge",
    "sse_moves",
    "sse_moves_numpy",
]

#: A move is made when it lowers the cost by more than this fraction of the cost's scale.
TOL = 1e-12
#: Sweeps over all objects at most (each move lowers the cost, so this is a guard only).
MAX_SWEEPS = 10_000
#: Split-and-merge moves polished per round, best predicted first (as deterministic
#: annealing's relocation: the polish often gains more than the move itself loses).
SPLIT_MERGE_TRIALS = 3
#: Up to this many objects every split-and-merge move of a round is polished (each polish
#: costs O(n^2) there; above it only the best predicted).
SPLIT_MERGE_ALL_ROWS = 256


@numba.njit(cache=True, nogil=True)
def _abs_sum(W):  # pragma: no cover - compiled
    """``sum |W|`` without the n^2 temporary of ``np.abs(W).sum()``."""
    acc = 0.0
    for v in W.ravel():
        acc += abs(v)
    return acc


def _labels_in(labels, n_clusters):
    labels = np.ascontiguousarray(labels, dtype=np.int64).copy()
    if labels.size and (labels.min() < 0 or labels.max() >= n_clusters):
        raise ValueError(
            f"labels must lie in [0, n_clusters) = [0, {n_clusters}), "
            f"got [{labels.min()}, {labels.max()}]"
        )
    return labels


# -- squared Euclidean (Hartigan) ---------------------------------------------------------
def sse_moves(X, labels, n_clusters, *, max_clusters=None):
    """Hartigan's single-object moves for the k-means cost; returns (labels, n_moves).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    labels : ndarray of shape (n,)
        A partition with labels in ``[0, n_clusters)``.
    n_clusters : int
    max_clusters : None
        The k-means cost only falls with more clusters; only a fixed number
        is meaningful (kept for a uniform signature; must be None).

    Returns
    -------
    labels : ndarray of shape (n,)
        A partition where no single move lowers the cost, with the same
        non-empty clusters.
    n_moves : int
    """
    if max_clusters is not None:
        raise ValueError("the k-means cost has no optimum over a free number of clusters")
    X = np.ascontiguousarray(X, dtype=float)
    labels = _labels_in(labels, n_clusters)
    scale = float(np.sum((X - X.mean(axis=0)) ** 2)) if len(X) else 0.0
    return _sse_moves(X, labels, n_clusters, TOL * max(scale, np.finfo(float).tiny))


@numba.njit(cache=True, nogil=True)
def _sse_moves(X, labels, k, tol):  # pragma: no cover - compiled
    n, d = X.shape
    moves = 0
    for _ in range(MAX_SWEEPS):
        # the means from scratch each sweep: incremental updates would drift
        counts = np.zeros(k)
        means = np.zeros((k, d))
        for i in range(n):
            counts[labels[i]] += 1.0
            for j in range(d):
                means[labels[i], j] += X[i, j]
        for c in range(k):
            if counts[c] > 0:
                for j in range(d):
                    means[c, j] /= counts[c]
        moved = False
        for i in range(n):
            a = labels[i]
            if counts[a] <= 1.0:
                continue
            da = 0.0
            for j in range(d):
                t = X[i, j] - means[a, j]
                da += t * t
            leave = counts[a] / (counts[a] - 1.0) * da
            best, best_b = leave - tol, -1
            for b in range(k):
                if b == a or counts[b] == 0.0:
                    continue
                db = 0.0
                for j in range(d):
                    t = X[i, j] - means[b, j]
                    db += t * t
                join = counts[b] / (counts[b] + 1.0) * db
                if join < best:
                    best, best_b = join, b
            if best_b >= 0:
                b = best_b
                for j in range(d):
                    means[a, j] = (means[a, j] * counts[a] - X[i, j]) / (counts[a] - 1.0)
                    means[b, j] = (means[b, j] * counts[b] + X[i, j]) / (counts[b] + 1.0)
                counts[a] -= 1.0
                counts[b] += 1.0
                labels[i] = b
                moves += 1
                moved = True
        if not moved:
            break
    return labels, moves


def _sse(X, labels):
    return sum(
        float(np.sum((X[labels == c] - X[labels == c].mean(axis=0)) ** 2)) for c in set(labels)
    )


def sse_moves_numpy(X, labels, n_clusters, *, max_clusters=None):
    """NumPy twin of :func:`sse_moves`: each candidate move's cost from scratch."""
    if max_clusters is not None:
        raise ValueError("the k-means cost has no optimum over a free number of clusters")
    X = np.asarray(X, dtype=float)
    labels = _labels_in(labels, n_clusters)
    tol = TOL * max(float(np.sum((X - X.mean(axis=0)) ** 2)), np.finfo(float).tiny)
    return _twin(lambda lab: _sse(X, lab), labels, n_clusters, None, tol)


def _twin(cost, labels, n_clusters, max_clusters, tol):
    """Single-object moves, each candidate's cost recomputed from scratch (the twins' engine)."""
    moves = 0
    for _ in range(MAX_SWEEPS):
        moved = False
        for i in range(len(labels)):
            a = labels[i]
            counts = np.bincount(labels, minlength=n_clusters)
            if max_clusters is None and counts[a] <= 1:
                continue
            now = cost(labels)
            targets = [b for b in range(n_clusters) if b != a and counts[b] > 0]
            if max_clusters is not None and np.count_nonzero(counts) < max_clusters:
                empty = np.flatnonzero(counts == 0)
                if len(empty):
                    targets.append(int(empty[0]))
            best, best_b = now - tol, -1
            for b in sorted(targets):
                trial = labels.copy()
                trial[i] = b
                value = cost(trial)
                if value < best:
                    best, best_b = value, b
            if best_b >= 0:
                labels[i] = best_b
                moves += 1
                moved = True
        if not moved:
            break
    return labels, moves


# -- pair costs -----------------------------------------------------------------------------
def pair_moves(W, labels, n_clusters, *, normalised, max_clusters=None):
    """Single-object moves for a cost of pairs inside clusters; returns (labels, n_moves).

    Parameters
    ----------
    W : ndarray of shape (n, n)
        Symmetric pair weights.
    labels : ndarray of shape (n,)
    n_clusters : int
        Labels lie in ``[0, n_clusters)``.
    normalised : bool
        False: ``sum_nu sum_{i<j in nu} W_ij``. True:
        ``sum_nu (1/(2 n_nu)) sum_{i,j in nu} W_ij`` (diagonal included).
    max_clusters : int, optional
        Allow moves to a new cluster while fewer than this many are non-empty,
        and clusters to empty.

    Returns
    -------
    labels : ndarray of shape (n,)
    n_moves : int
    """
    W = np.ascontiguousarray(W, dtype=float)
    labels = _labels_in(labels, n_clusters)
    scale = _abs_sum(W) / max(len(W), 1)
    limit = -1 if max_clusters is None else int(max_clusters)
    return _pair_moves(
        W, labels, n_clusters, bool(normalised), limit, TOL * max(scale, np.finfo(float).tiny)
    )


@numba.njit(cache=True, nogil=True)
def _pair_cluster_cost(total, size, normalised):  # pragma: no cover - compiled
    if size == 0.0:
        return 0.0
    return total / (2.0 * size) if normalised else total / 2.0


@numba.njit(cache=True, nogil=True)
def _pair_moves(W, labels, k, normalised, limit, tol):  # pragma: no cover - compiled
    n = W.shape[0]
    # R[i, c]: sum of W[i, j] over the other members j of c; S[c]: sum over ordered pairs
    # of c, the diagonal included when normalised (linear costs count each pair once)
    R = np.zeros((n, k))
    for i in range(n):
        for j in range(n):
            if j != i:
                R[i, labels[j]] += W[i, j]
    counts = np.zeros(k)
    S = np.zeros(k)
    for i in range(n):
        c = labels[i]
        counts[c] += 1.0
        S[c] += R[i, c] + (W[i, i] if normalised else 0.0)
    moves = 0
    for _ in range(MAX_SWEEPS):
        moved = False
        for i in range(n):
            a = labels[i]
            if limit < 0 and counts[a] <= 1.0:
                continue
            self_w = W[i, i] if normalised else 0.0
            n_used = 0
            empty = -1
            for c in range(k):
                if counts[c] > 0:
                    n_used += 1
                elif empty < 0:
                    empty = c
            a_after = S[a] - 2.0 * R[i, a] - self_w
            leave = _pair_cluster_cost(a_after, counts[a] - 1.0, normalised) - _pair_cluster_cost(
                S[a], counts[a], normalised
            )
            best, best_b = -tol, -1
            for b in range(k):
                if b == a:
                    continue
                if counts[b] == 0.0 and (limit < 0 or n_used >= limit or b != empty):
                    continue
                b_after = S[b] + 2.0 * R[i, b] + self_w
                change = (
                    leave
                    + _pair_cluster_cost(b_after, counts[b] + 1.0, normalised)
                    - _pair_cluster_cost(S[b], counts[b], normalised)
                )
                if change < best:
                    best, best_b = change, b
            if best_b >= 0:
                b = best_b
                S[a] = a_after
                S[b] = S[b] + 2.0 * R[i, b] + self_w
                counts[a] -= 1.0
                counts[b] += 1.0
                for j in range(n):
                    if j != i:
                        R[j, a] -= W[j, i]
                        R[j, b] += W[j, i]
                labels[i] = b
                moves += 1
                moved = True
        if not moved:
            break
    return labels, moves


def _pair_cost(W, labels, normalised):
    total = 0.0
    for c in set(labels):
        idx = np.flatnonzero(labels == c)
        block = W[np.ix_(idx, idx)]
        if normalised:
            total += block.sum() / (2.0 * len(idx))
        else:
            total += (block.sum() - np.trace(block)) / 2.0
    return total


def pair_moves_numpy(W, labels, n_clusters, *, normalised, max_clusters=None):
    """NumPy twin of :func:`pair_moves`."""
    W = np.asarray(W, dtype=float)
    labels = _labels_in(labels, n_clusters)
    tol = TOL * max(_abs_sum(W) / max(len(W), 1), np.finfo(float).tiny)
    return _twin(lambda lab: _pair_cost(W, lab, normalised), labels, n_clusters, max_clusters, tol)


# -- weighted entropy of mean histograms --------------------------------------------------
def entropy_moves(P, weights, labels, n_clusters, *, max_clusters=None):
    """Single-object moves for ``sum_nu m_nu H(q_nu)``; returns (labels, n_moves).

    ``m_nu = sum_{i in nu} w_i`` and ``q_nu = sum_{i in nu} w_i p_i / m_nu``:
    up to a constant, histogram clustering's ``sum_i w_i KL(p_i || q_c(i))``
    (``w_i = 1/n``) and the information bottleneck's ``I(X;Y) - I(T;Y)``
    (``w_i = p(x_i)``, ``p_i = p(y|x_i)``).

    Parameters
    ----------
    P : ndarray of shape (n, m)
        Rows are distributions (non-negative).
    weights : ndarray of shape (n,)
        Positive object weights.
    labels : ndarray of shape (n,)
    n_clusters : int
    max_clusters : int, optional

    Returns
    -------
    labels : ndarray of shape (n,)
    n_moves : int
    """
    A = np.ascontiguousarray(np.asarray(weights, dtype=float)[:, None] * P, dtype=float)
    labels = _labels_in(labels, n_clusters)
    scale = float(np.sum(weights))
    limit = -1 if max_clusters is None else int(max_clusters)
    return _entropy_moves(A, labels, n_clusters, limit, TOL * max(scale, np.finfo(float).tiny))


@numba.njit(cache=True, nogil=True)
def _xlogx(v):  # pragma: no cover - compiled
    return v * np.log(v) if v > 0.0 else 0.0


@numba.njit(cache=True, nogil=True)
def _mass_entropy(row, mass):  # pragma: no cover - compiled
    """``m H(q)`` of a cluster with summed weighted histogram ``row`` and mass ``m``."""
    acc = _xlogx(mass)
    for y in range(row.shape[0]):
        acc -= _xlogx(row[y])
    return acc


@numba.njit(cache=True, nogil=True)
def _entropy_moves(A, labels, k, limit, tol):  # pragma: no cover - compiled
    n, m = A.shape
    moves = 0
    for _ in range(MAX_SWEEPS):
        sums = np.zeros((k, m))
        mass = np.zeros(k)
        counts = np.zeros(k)
        for i in range(n):
            c = labels[i]
            counts[c] += 1.0
            for y in range(m):
                sums[c, y] += A[i, y]
                mass[c] += A[i, y]
        cost = np.empty(k)
        for c in range(k):
            cost[c] = _mass_entropy(sums[c], mass[c])
        moved = False
        for i in range(n):
            a = labels[i]
            if limit < 0 and counts[a] <= 1.0:
                continue
            n_used = 0
            empty = -1
            for c in range(k):
                if counts[c] > 0:
                    n_used += 1
                elif empty < 0:
                    empty = c
            w = 0.0
            for y in range(m):
                w += A[i, y]
            a_row = sums[a] - A[i]
            a_cost = _mass_entropy(a_row, mass[a] - w) if counts[a] > 1.0 else 0.0
            leave = a_cost - cost[a]
            best, best_b = -tol, -1
            for b in range(k):
                if b == a:
                    continue
                if counts[b] == 0.0 and (limit < 0 or n_used >= limit or b != empty):
                    continue
                change = leave + _mass_entropy(sums[b] + A[i], mass[b] + w) - cost[b]
                if change < best:
                    best, best_b = change, b
            if best_b >= 0:
                b = best_b
                sums[a] = a_row
                sums[b] = sums[b] + A[i]
                mass[a] -= w
                mass[b] += w
                counts[a] -= 1.0
                counts[b] += 1.0
                cost[a] = a_cost
                cost[b] = _mass_entropy(sums[b], mass[b])
                labels[i] = b
                moves += 1
                moved = True
        if not moved:
            break
    return labels, moves


def _entropy_cost(A, labels):
    total = 0.0
    for c in set(labels):
        row = A[labels == c].sum(axis=0)
        mass = row.sum()
        total += (mass * np.log(mass) if mass > 0 else 0.0) - sum(
            v * np.log(v) for v in row if v > 0
        )
    return total


def entropy_moves_numpy(P, weights, labels, n_clusters, *, max_clusters=None):
    """NumPy twin of :func:`entropy_moves`."""
    A = np.asarray(weights, dtype=float)[:, None] * np.asarray(P, dtype=float)
    labels = _labels_in(labels, n_clusters)
    tol = TOL * max(float(np.sum(weights)), np.finfo(float).tiny)
    return _twin(lambda lab: _entropy_cost(A, lab), labels, n_clusters, max_clusters, tol)


# -- directions (least angle) ---------------------------------------------------------------
def direction_moves(E, labels, n_clusters, *, max_clusters=None):
    """Single-object moves for the least-angle cost; returns (labels, n_moves).

    The cost is ``-(1/(2n)) sum_nu |sum_{i in nu} e_i|^2`` (up to a constant).

    Parameters
    ----------
    E : ndarray of shape (n, d)
        Unit (or zero) vectors.
    labels : ndarray of shape (n,)
    n_clusters : int
    max_clusters : int, optional

    Returns
    -------
    labels : ndarray of shape (n,)
    n_moves : int
    """
    E = np.ascontiguousarray(E, dtype=float)
    labels = _labels_in(labels, n_clusters)
    limit = -1 if max_clusters is None else int(max_clusters)
    return _direction_moves(E, labels, n_clusters, limit, TOL)


@numba.njit(cache=True, nogil=True)
def _direction_moves(E, labels, k, limit, tol):  # pragma: no cover - compiled
    n, d = E.shape
    moves = 0
    for _ in range(MAX_SWEEPS):
        U = np.zeros((k, d))
        counts = np.zeros(k)
        for i in range(n):
            counts[labels[i]] += 1.0
            for j in range(d):
                U[labels[i], j] += E[i, j]
        moved = False
        for i in range(n):
            a = labels[i]
            if limit < 0 and counts[a] <= 1.0:
                continue
            n_used = 0
            empty = -1
            for c in range(k):
                if counts[c] > 0:
                    n_used += 1
                elif empty < 0:
                    empty = c
            ua = 0.0
            uu = 0.0
            for j in range(d):
                ua += U[a, j] * E[i, j]
                uu += E[i, j] * E[i, j]
            # the cost times -2n: |U_a - e|^2 - |U_a|^2 = uu - 2 U_a.e; joining b adds
            # uu + 2 U_b.e; a move lowers the cost when the sum of both is positive
            best, best_b = tol, -1
            for b in range(k):
                if b == a:
                    continue
                if counts[b] == 0.0 and (limit < 0 or n_used >= limit or b != empty):
                    continue
                ub = 0.0
                for j in range(d):
                    ub += U[b, j] * E[i, j]
                gain = 2.0 * uu - 2.0 * ua + 2.0 * ub
                if gain > best:
                    best, best_b = gain, b
            if best_b >= 0:
                b = best_b
                for j in range(d):
                    U[a, j] -= E[i, j]
                    U[b, j] += E[i, j]
                counts[a] -= 1.0
                counts[b] += 1.0
                labels[i] = b
                moves += 1
                moved = True
        if not moved:
            break
    return labels, moves


def _direction_cost(E, labels):
    return -sum(float(np.sum(E[labels == c].sum(axis=0) ** 2)) for c in set(labels)) / (
        2.0 * len(E)
    )


def direction_moves_numpy(E, labels, n_clusters, *, max_clusters=None):
    """NumPy twin of :func:`direction_moves`."""
    E = np.asarray(E, dtype=float)
    labels = _labels_in(labels, n_clusters)
    # the compiled rule's threshold is on -2n times the cost
    tol = TOL / (2.0 * max(len(E), 1))
    return _twin(lambda lab: _direction_cost(E, lab), labels, n_clusters, max_clusters, tol)


# -- split-and-merge for pair costs ------------------------------------------------------
def _pair_total(W, labels, n_labels, normalised):
    """The pair cost of ``labels`` (see :func:`pair_moves`), from one product."""
    onehot = (labels[:, None] == np.arange(n_labels)).astype(float)
    quad = np.einsum("ik,ik->k", onehot, W @ onehot)
    if normalised:
        return float(np.sum(quad / np.maximum(onehot.sum(axis=0), 1.0)) / 2.0)
    return float((quad.sum() - np.trace(W)) / 2.0)


def pair_split_merge(W, labels, n_clusters, *, normalised, max_clusters=None, max_rounds=None):
    """Split-and-merge moves for a pair cost, each polished by single moves; returns labels.

    Move ``(i, j)`` dissolves cluster ``i`` (each member to the cluster of its
    smallest mean weight), then re-opens ``i`` with the member of ``j`` of the
    largest mean weight to the rest of ``j``, and polishes by
    :func:`pair_moves`: the two clusters a single move cannot exchange (it
    cannot empty one to fill another). With ``max_clusters`` (the cost
    minimised over at most that many clusters) two more kinds: merge cluster
    ``i`` into ``j``, and, below ``max_clusters``, open a cluster from the
    farthest member of ``j``; their polish may open and empty clusters. Each
    round ranks the moves by their cost before the polish (updated from one
    product by the rows each moves), polishes them all up to
    ``SPLIT_MERGE_ALL_ROWS`` objects and the best ``SPLIT_MERGE_TRIALS``
    above, and keeps the lowest cost, while it falls by more than ``TOL`` of
    the scale (digits as squared distances, k = 10: 0.6 % below the anneal's
    labels for 15-25 % more time).

    Parameters
    ----------
    W : ndarray of shape (n, n)
    labels : ndarray of shape (n,)
        Labels in ``[0, n_clusters)``; without ``max_clusters`` all in use.
    n_clusters : int
    normalised : bool
    max_clusters : int, optional
    max_rounds : int, optional
        Default ``2 * n_clusters``.

    Returns
    -------
    ndarray of shape (n,)
    """
    W = np.ascontiguousarray(W, dtype=float)
    labels = _labels_in(labels, n_clusters)
    K = n_clusters
    free = max_clusters is not None
    if K < 2 or (not free and np.bincount(labels, minlength=K).min() == 0):
        return labels
    tol = TOL * max(_abs_sum(W) / max(len(W), 1), np.finfo(float).tiny)

    def polish(trial):
        return pair_moves(W, trial, K, normalised=normalised, max_clusters=max_clusters)[0]

    def farthest(trial, j):
        members = np.flatnonzero(trial == j)
        if len(members) < 2:
            return None
        return members[np.argmax(W[np.ix_(members, members)].sum(axis=1))]

    best = _pair_total(W, labels, K, normalised)
    for _ in range(2 * K if max_rounds is None else max_rounds):
        onehot = (labels[:, None] == np.arange(K)).astype(float)
        counts = onehot.sum(axis=0)
        mean_to = (W @ onehot) / np.maximum(counts, 1.0)
        used = np.flatnonzero(counts > 0)
        trials = []
        for i in used:
            for j in used:
                if i == j:
                    continue
                trial = labels.copy()
                members = np.flatnonzero(labels == i)
                others = used[used != i]
                trial[members] = others[np.argmin(mean_to[np.ix_(members, others)], axis=1)]
                if free:
                    merged = labels.copy()
                    merged[members] = j
                    trials.append(merged)
                seed = farthest(trial, j)
                if seed is not None:
                    trial[seed] = i
                    trials.append(trial)
        if free and len(used) < max_clusters:
            empty = np.flatnonzero(counts == 0)[0]
            for j in used:
                seed = farthest(labels, j)
                if seed is not None:
                    trial = labels.copy()
                    trial[seed] = empty
                    trials.append(trial)
        # each trial's cost before its polish, from R updated by the rows it moves (O(n)
        # per moved object instead of a product): only the best few are polished
        R = W @ onehot
        predicted = []
        for trial in trials:
            moved = np.flatnonzero(trial != labels)
            change = np.zeros((len(moved), K))
            change[np.arange(len(moved)), trial[moved]] = 1.0
            change[np.arange(len(moved)), labels[moved]] -= 1.0
            R_t = R + W[:, moved] @ change
            counts_t = np.bincount(trial, minlength=K).astype(float)
            quad = np.bincount(trial, weights=R_t[np.arange(len(trial)), trial], minlength=K)
            if normalised:
                predicted.append(np.sum(quad / np.maximum(counts_t, 1.0)) / 2.0)
            else:
                predicted.append((quad.sum() - np.trace(W)) / 2.0)
        found = None
        limit = None if len(W) <= SPLIT_MERGE_ALL_ROWS else SPLIT_MERGE_TRIALS
        for index in np.argsort(predicted)[:limit]:
            trial = polish(trials[index])
            if not free and np.bincount(trial, minlength=K).min() == 0:
                continue
            value = _pair_total(W, trial, K, normalised)
            if value < best - tol and (found is None or value < found[0]):
                found = (value, trial)
        if found is None:
            break
        best, labels = found
    return labels


# -- split-and-merge for the weighted entropy of mean histograms --------------------------
def _entropy_total(A, labels, n_labels):
    sums = np.zeros((n_labels, A.shape[1]))
    np.add.at(sums, labels, A)
    mass = sums.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(
            np.sum(np.where(mass > 0, mass * np.log(np.where(mass > 0, mass, 1.0)), 0.0))
            - np.sum(np.where(sums > 0, sums * np.log(np.where(sums > 0, sums, 1.0)), 0.0))
        )


def entropy_split_merge(P, weights, labels, n_clusters, *, max_rounds=None):
    """Split-and-merge moves for ``sum_nu m_nu H(q_nu)``, polished by single moves.

    As :func:`pair_split_merge` for the cost of :func:`entropy_moves`: move
    ``(i, j)`` dissolves cluster ``i`` (each member to the cluster whose mean
    histogram it diverges from least), re-opens ``i`` with the member of
    ``j`` that diverges most from ``j``'s mean, and polishes; every move of
    a round is polished up to ``SPLIT_MERGE_ALL_ROWS`` objects, the best
    ``SPLIT_MERGE_TRIALS`` by their cost before the polish above. The number
    of non-empty clusters is kept.

    Parameters
    ----------
    P : ndarray of shape (n, m)
    weights : ndarray of shape (n,)
    labels : ndarray of shape (n,)
        Every one of ``n_clusters`` labels in use.
    n_clusters : int
    max_rounds : int, optional
        Default ``2 * n_clusters``.

    Returns
    -------
    ndarray of shape (n,)
    """
    P = np.asarray(P, dtype=float)
    A = np.asarray(weights, dtype=float)[:, None] * P
    labels = _labels_in(labels, n_clusters)
    K = n_clusters
    if K < 2 or np.bincount(labels, minlength=K).min() == 0:
        return labels
    tol = TOL * max(float(np.sum(weights)), np.finfo(float).tiny)
    logP = np.log(np.where(P > 0, P, 1.0))
    best = _entropy_total(A, labels, K)
    for _ in range(2 * K if max_rounds is None else max_rounds):
        sums = np.zeros((K, P.shape[1]))
        np.add.at(sums, labels, A)
        mass = sums.sum(axis=1, keepdims=True)
        q = np.where(sums > 0, sums / np.where(mass > 0, mass, 1.0), 1e-300)
        # KL(p_x || q_c) of every object to every cluster's mean histogram
        kl = np.sum(P * logP, axis=1)[:, None] - P @ np.log(q).T
        trials = []
        for i in range(K):
            others = np.delete(np.arange(K), i)
            members = np.flatnonzero(labels == i)
            for j in others:
                trial = labels.copy()
                trial[members] = others[np.argmin(kl[np.ix_(members, others)], axis=1)]
                in_j = np.flatnonzero(trial == j)
                if len(in_j) < 2:
                    continue
                trial[in_j[np.argmax(kl[in_j, j])]] = i
                trials.append(trial)
        predicted = [_entropy_total(A, trial, K) for trial in trials]
        limit = None if len(P) <= SPLIT_MERGE_ALL_ROWS else SPLIT_MERGE_TRIALS
        found = None
        for index in np.argsort(predicted)[:limit]:
            trial, _ = entropy_moves(P, weights, trials[index], K)
            if np.bincount(trial, minlength=K).min() == 0:
                continue
            value = _entropy_total(A, trial, K)
            if value < best - tol and (found is None or value < found[0]):
                found = (value, trial)
        if found is None:
            break
        best, labels = found
    return labels

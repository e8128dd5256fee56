"""Single-object moves that take a hard partition to a local minimum of its own cost.

An annealer's last temperature leaves a hard partition that is a fixed point
of its mean-field (or centroid) iteration, which need not be a local minimum
of the hard cost it documents: moving one object to another cluster can
still lower it. Each polisher here sweeps the objects in order and moves
each to the cluster that lowers the cost most (first improvement per
object, best target), keeping the cluster statistics the cost needs
up to date, until a sweep moves nothing. Every move lowers the cost by more
than ``tol`` times its scale, so the sweeps end.

- :func:`~statmechlearn.cluster._polish_kmeans.sse_moves` (its own module): the
  k-means cost ``sum_i |x_i - mean_c(i)|^2`` (Hartigan & Wong's rule: moving ``x``
  from ``a`` to ``b`` changes it by ``n_b/(n_b+1) |x - m_b|^2 - n_a/(n_a-1) |x - m_a|^2``),
  optionally with sample weights, smooth k-means' Potts penalty on a graph and
  entropy-constrained clustering's code length.
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
- :func:`map_moves`: the topographic cost of a map to labelled units,
  ``sum_i sum_nu T[c(i), nu] |x_i - y_nu|^2`` at its best codebook.

``max_clusters`` lets a move open a new cluster (where the cost is minimised
over at most that many) and lets clusters empty; without it the number of
non-empty clusters is kept. Each function has a NumPy twin (``*_numpy``)
that recomputes the cost of every candidate move from scratch, for tests.
Moves of whole clusters (split-and-merge) are in
:mod:`statmechlearn.cluster._split_merge`.
"""

import numba
import numpy as np

__all__ = [
    "direction_moves",
    "direction_moves_numpy",
    "entropy_moves",
    "entropy_moves_numpy",
    "map_moves",
    "map_moves_numpy",
    "pair_moves",
    "pair_moves_numpy",
]

#: A move is made when it lowers the cost by more than this fraction of the cost's scale.
TOL = 1e-12
#: Sweeps over all objects at most (each move lowers the cost, so this is a guard only).
MAX_SWEEPS = 10_000


@numba.njit(cache=True, nogil=True)
def _abs_sum(W):  # pragma: no cover - compiled
    """``sum |W|`` without the n^2 temporary of ``np.abs(W).sum()``."""
    acc = 0.0
    for v in W.ravel():
        acc += abs(v)
    return acc


def _kernel_array(a):
    """``a`` as the kernels take it: float64, C-contiguous and writeable (one signature)."""
    a = np.ascontiguousarray(a, dtype=float)
    return a if a.flags.writeable else a.copy()


def _labels_in(labels, n_clusters):
    labels = np.ascontiguousarray(labels, dtype=np.int64).copy()
    if labels.size and (labels.min() < 0 or labels.max() >= n_clusters):
        raise ValueError(
            f"labels must lie in [0, n_clusters) = [0, {n_clusters}), "
            f"got [{labels.min()}, {labels.max()}]"
        )
    return labels


def _spread(X, w=None):
    """``sum_i a_i |x_i - mean|^2`` without an (n, d) temporary (the tolerance's scale)."""
    if not len(X):
        return 0.0
    if w is not None and w.size:
        total = w @ X
        return max(float(w @ np.einsum("ij,ij->i", X, X) - total @ total / w.sum()), 0.0)
    total = X.sum(axis=0)
    return max(float(np.einsum("ij,ij->", X, X) - total @ total / len(X)), 0.0)


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


@numba.njit(cache=True, nogil=True, inline="always")
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


# -- topographic (noisy-channel) cost --------------------------------------------------------
def map_moves(X, labels, transmission):
    """Single-object moves for the topographic cost of a map; returns (labels, n_moves).

    The cost is ``sum_i sum_nu T[c(i), nu] |x_i - y_nu|^2`` at its best
    codebook ``y_nu = S_nu / m_nu`` (``m_nu = sum_i T[c(i), nu]``,
    ``S_nu = sum_i T[c(i), nu] x_i``), which is
    ``sum_nu (sum_i T[c(i), nu] |x_i|^2 - |S_nu|^2 / m_nu)``. Units are
    labelled (a map, not a partition): a move sends an object to any unit,
    and units may be left without objects.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    labels : ndarray of shape (n,)
        Units in ``[0, K)``.
    transmission : ndarray of shape (K, K)
        ``T``, rows summing to one.

    Returns
    -------
    labels : ndarray of shape (n,)
    n_moves : int
    """
    X = np.ascontiguousarray(X, dtype=float)
    T = np.ascontiguousarray(transmission, dtype=float)
    labels = _labels_in(labels, T.shape[0])
    scale = _spread(X)
    return _map_moves(X, labels, T, TOL * max(scale, np.finfo(float).tiny))


@numba.njit(cache=True, nogil=True)
def _map_moves(X, labels, T, tol):  # pragma: no cover - compiled
    # Rows of T sum to one, so a move leaves sum_nu sum_i T[c(i), nu] |x_i|^2 unchanged and
    # changes only sum_nu |S_nu|^2 / m_nu: with delta = T[b] - T[a] and p_nu = S_nu . x,
    # |S_nu + delta_nu x|^2 = |S_nu|^2 + 2 delta_nu p_nu + delta_nu^2 |x|^2.
    n, d = X.shape
    K = T.shape[0]
    moves = 0
    p = np.empty(K)
    for _ in range(MAX_SWEEPS):
        # the statistics from scratch each sweep: incremental updates would drift
        mass = np.zeros(K)
        sums = np.zeros((K, d))
        for i in range(n):
            for nu in range(K):
                w = T[labels[i], nu]
                mass[nu] += w
                for j in range(d):
                    sums[nu, j] += w * X[i, j]
        norms = np.zeros(K)
        for nu in range(K):
            for j in range(d):
                norms[nu] += sums[nu, j] * sums[nu, j]
        moved = False
        for i in range(n):
            a = labels[i]
            sq = 0.0
            for j in range(d):
                sq += X[i, j] * X[i, j]
            for nu in range(K):
                acc = 0.0
                for j in range(d):
                    acc += sums[nu, j] * X[i, j]
                p[nu] = acc
            best, best_b = -tol, -1
            for b in range(K):
                if b == a:
                    continue
                change = 0.0
                for nu in range(K):
                    delta = T[b, nu] - T[a, nu]
                    if delta == 0.0:
                        continue
                    if mass[nu] > 0.0:
                        change += norms[nu] / mass[nu]
                    grown = mass[nu] + delta
                    if grown > 0.0:
                        change -= (norms[nu] + 2.0 * delta * p[nu] + delta * delta * sq) / grown
                if change < best:
                    best, best_b = change, b
            if best_b >= 0:
                b = best_b
                for nu in range(K):
                    delta = T[b, nu] - T[a, nu]
                    if delta == 0.0:
                        continue
                    mass[nu] += delta
                    acc = 0.0
                    for j in range(d):
                        sums[nu, j] += delta * X[i, j]
                        acc += sums[nu, j] * sums[nu, j]
                    norms[nu] = acc
                labels[i] = b
                moves += 1
                moved = True
        if not moved:
            break
    return labels, moves


def _map_cost(X, labels, T):
    R = T[labels]  # (n, K): the weight of each object at each unit
    mass = R.sum(axis=0)
    sums = R.T @ X
    live = mass > 0
    return float(
        np.sum(R.T @ np.sum(X * X, axis=1)) - np.sum(np.sum(sums[live] ** 2, axis=1) / mass[live])
    )


def map_moves_numpy(X, labels, transmission):
    """NumPy twin of :func:`map_moves`: each candidate move's cost from scratch."""
    X = np.asarray(X, dtype=float)
    T = np.asarray(transmission, dtype=float)
    labels = _labels_in(labels, T.shape[0])
    K = T.shape[0]
    tol = TOL * max(_spread(X), np.finfo(float).tiny)
    moves = 0
    for _ in range(MAX_SWEEPS):
        moved = False
        for i in range(len(labels)):
            now = _map_cost(X, labels, T)
            best, best_b = now - tol, -1
            for b in range(K):
                if b == labels[i]:
                    continue
                trial = labels.copy()
                trial[i] = b
                value = _map_cost(X, trial, T)
                if value < best:
                    best, best_b = value, b
            if best_b >= 0:
                labels[i] = best_b
                moves += 1
                moved = True
        if not moved:
            break
    return labels, moves

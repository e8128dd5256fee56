"""Single-object moves of weighted objects to a local minimum of a hard cost (``sample_weight``).

The weighted twins of :mod:`statmechlearn.cluster._polish`'s moves, for fits
with ``sample_weight``: each object's terms of the cost are multiplied by its
weight (``w_i w_j`` for a pair), and cluster sizes are sums of weights, so an
integer weight is the object repeated that many times with its copies kept
together, and a zero weight leaves the object out of the cost. The rule is the
unweighted one: sweep the objects in order, move each to the cluster that
lowers the cost most, until a sweep moves nothing; each move lowers the cost by
more than ``TOL`` times its scale. The cluster statistics are kept up to date
move by move and each object's candidate moves are one vectorised step (no
compiled kernel: a weighted fit adds no compilation to a process).
"""

import numpy as np

from statmechlearn.cluster._polish import MAX_SWEEPS, TOL

__all__ = ["weighted_direction_moves", "weighted_map_moves", "weighted_pair_moves"]


def _open_targets(members, limit):
    """Targets a move may take: the non-empty clusters, plus the first empty one while
    fewer than ``limit`` (>= 0) clusters are in use."""
    allowed = members > 0
    if limit >= 0 and np.count_nonzero(allowed) < limit:
        empty = np.flatnonzero(~allowed)
        if empty.size:
            allowed = allowed.copy()
            allowed[empty[0]] = True
    return allowed


def _pair_cluster_costs(total, mass, normalised):
    if not normalised:
        return 0.5 * total
    safe = np.where(mass > 0, mass, 1.0)
    return np.where(mass > 0, total / (2.0 * safe), 0.0)


def weighted_pair_moves(W, labels, n_clusters, weights, *, normalised, max_clusters=None):
    """Single-object moves for a weighted cost of pairs inside clusters.

    The cost is ``sum_nu sum_{i<j in nu} w_i w_j W_ij`` (``normalised=False``)
    or ``sum_nu (1/(2 m_nu)) sum_{i,j in nu} w_i w_j W_ij`` with the cluster
    mass ``m_nu = sum_{i in nu} w_i`` (``normalised=True``, diagonal included),
    :func:`~statmechlearn.cluster._polish.pair_moves` with weighted objects.

    Parameters
    ----------
    W : ndarray of shape (n, n)
        Symmetric pair weights.
    labels : ndarray of shape (n,)
    n_clusters : int
    weights : ndarray of shape (n,)
        Non-negative object weights.
    normalised : bool
    max_clusters : int, optional
        Allow moves to a new cluster while fewer than this many are in use, and
        clusters to empty.

    Returns
    -------
    labels : ndarray of shape (n,)
    n_moves : int
    """
    W = np.asarray(W, dtype=float)
    w = np.asarray(weights, dtype=float)
    labels = np.asarray(labels, dtype=np.int64).copy()
    n, k = W.shape[0], n_clusters
    own = np.diag(W).copy() if normalised else np.zeros(n)
    Wo = W.copy()
    np.fill_diagonal(Wo, 0.0)
    # R[i, c] = sum_{j in c, j != i} W_ij w_j; total[c] = sum over ordered pairs of c (w w W)
    onehot = np.zeros((n, k))
    onehot[np.arange(n), labels] = 1.0
    R = Wo @ (onehot * w[:, None])
    total = np.einsum("ic,ic->c", onehot * w[:, None], R) + onehot.T @ (w * w * own)
    mass = onehot.T @ w
    members = onehot.sum(axis=0)
    scale = float(np.abs(W * w[:, None] * w[None, :]).sum()) / max(n, 1)
    tol = TOL * max(scale, np.finfo(float).tiny)
    limit = -1 if max_clusters is None else int(max_clusters)
    moves = 0
    for _ in range(MAX_SWEEPS):
        moved = False
        for i in range(n):
            a, wi = labels[i], w[i]
            if wi == 0.0 or (limit < 0 and members[a] <= 1):
                continue
            self_term = wi * wi * own[i]
            a_total = total[a] - 2.0 * wi * R[i, a] - self_term
            leave = _pair_cluster_costs(
                np.array([a_total]), np.array([mass[a] - wi]), normalised
            ) - _pair_cluster_costs(np.array([total[a]]), np.array([mass[a]]), normalised)
            grown = total + 2.0 * wi * R[i] + self_term
            change = (
                leave
                + _pair_cluster_costs(grown, mass + wi, normalised)
                - _pair_cluster_costs(total, mass, normalised)
            )
            allowed = _open_targets(members, limit)
            allowed[a] = False
            change = np.where(allowed, change, np.inf)
            b = int(np.argmin(change))
            if not change[b] < -tol:
                continue
            total[a], total[b] = a_total, grown[b]
            mass[a] -= wi
            mass[b] += wi
            members[a] -= 1
            members[b] += 1
            column = Wo[:, i] * wi
            R[:, a] -= column
            R[:, b] += column
            labels[i] = b
            moves += 1
            moved = True
        if not moved:
            break
    return labels, moves


def weighted_direction_moves(E, labels, n_clusters, weights):
    """Single-object moves for the weighted least-angle cost.

    The cost is ``-(1/(2 W)) sum_nu |sum_{i in nu} w_i e_i|^2`` (``W = sum w``),
    :func:`~statmechlearn.cluster._polish.direction_moves` with weighted objects;
    the number of non-empty clusters is kept.

    Parameters
    ----------
    E : ndarray of shape (n, d)
        Unit (or zero) vectors.
    labels : ndarray of shape (n,)
    n_clusters : int
    weights : ndarray of shape (n,)

    Returns
    -------
    labels : ndarray of shape (n,)
    n_moves : int
    """
    E = np.asarray(E, dtype=float)
    w = np.asarray(weights, dtype=float)
    labels = np.asarray(labels, dtype=np.int64).copy()
    n, k = E.shape[0], n_clusters
    U = np.zeros((k, E.shape[1]))
    np.add.at(U, labels, E * w[:, None])
    members = np.bincount(labels, minlength=k).astype(float)
    sq = np.einsum("ij,ij->i", E, E)
    # the compiled rule's threshold, on -2n times the cost, scaled to the weights' total
    tol = TOL * max(float(w.sum()) / max(n, 1), np.finfo(float).tiny)
    moves = 0
    for _ in range(MAX_SWEEPS):
        moved = False
        for i in range(n):
            a, wi = labels[i], w[i]
            if wi == 0.0 or members[a] <= 1:
                continue
            # sum_nu |U_nu|^2 grows by 2 w^2 |e|^2 - 2 w U_a.e + 2 w U_b.e moving i from a to b
            projections = U @ E[i]
            gain = 2.0 * wi * (wi * sq[i] - projections[a] + projections)
            gain[(members == 0) | (np.arange(k) == a)] = -np.inf
            b = int(np.argmax(gain))
            if not gain[b] > tol:
                continue
            U[a] -= wi * E[i]
            U[b] += wi * E[i]
            members[a] -= 1
            members[b] += 1
            labels[i] = b
            moves += 1
            moved = True
        if not moved:
            break
    return labels, moves


def weighted_map_moves(X, labels, transmission, weights):
    """Single-object moves for the weighted topographic cost of a map.

    The cost is ``sum_i w_i sum_nu T[c(i), nu] |x_i - y_nu|^2`` at its best
    codebook ``y_nu = S_nu / m_nu`` (``m_nu = sum_i w_i T[c(i), nu]``,
    ``S_nu = sum_i w_i T[c(i), nu] x_i``),
    :func:`~statmechlearn.cluster._polish.map_moves` with weighted objects.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    labels : ndarray of shape (n,)
        Units in ``[0, K)``.
    transmission : ndarray of shape (K, K)
        ``T``, rows summing to one.
    weights : ndarray of shape (n,)

    Returns
    -------
    labels : ndarray of shape (n,)
    n_moves : int
    """
    X = np.asarray(X, dtype=float)
    T = np.asarray(transmission, dtype=float)
    w = np.asarray(weights, dtype=float)
    labels = np.asarray(labels, dtype=np.int64).copy()
    sq = np.einsum("ij,ij->i", X, X)
    spread = float(np.sum(w * np.sum((X - w @ X / w.sum()) ** 2, axis=1)))
    tol = TOL * max(spread, np.finfo(float).tiny)
    moves = 0
    for _ in range(MAX_SWEEPS):
        # the statistics from scratch each sweep: incremental updates would drift
        R = T[labels] * w[:, None]
        mass = R.sum(axis=0)
        sums = R.T @ X
        norms = np.einsum("ij,ij->i", sums, sums)
        moved = False
        for i in range(len(labels)):
            a, wi = labels[i], w[i]
            if wi == 0.0:
                continue
            p = sums @ X[i]
            # delta[b, nu]: the change of unit nu's weight at object i when it moves to b;
            # the sum of w T |x|^2 is unchanged (rows of T sum to one)
            delta = wi * (T - T[a])
            grown = mass + delta
            safe = np.where(grown > 0, grown, 1.0)
            after = np.where(
                grown > 0, (norms + 2.0 * delta * p + delta * delta * sq[i]) / safe, 0.0
            )
            before = np.where(mass > 0, norms / np.where(mass > 0, mass, 1.0), 0.0)
            change = np.where(delta != 0.0, before - after, 0.0).sum(axis=1)
            change[a] = np.inf
            b = int(np.argmin(change))
            if not change[b] < -tol:
                continue
            step = delta[b]
            mass += step
            sums += step[:, None] * X[i]
            norms = np.einsum("ij,ij->i", sums, sums)
            labels[i] = b
            moves += 1
            moved = True
        if not moved:
            break
    return labels, moves

"""Split-and-merge moves: what single-object moves cannot reach, for pair and entropy costs.

A partition where no single object can move for less may still lose to one
that exchanges a whole cluster: two true groups merged under one label while
another group is split in two. Each round here tries the moves that dissolve
one cluster into the others and re-open it from the member of another
cluster that fits there worst (and, with a free number of clusters, merge
two clusters or open one), ranks them by the cost they predict, polishes
them by single-object moves (:mod:`statmechlearn.cluster._polish`; all of
them on small data, the best few on large) and keeps the cheapest if it
lowers the cost; rounds repeat until none does. For the topographic cost of
a map (labelled units on a grid) the analogous move relocates one unit's
code vector (:func:`map_relocate`).
"""

import numpy as np

from statmechlearn.cluster._polish import (
    TOL,
    _abs_sum,
    _labels_in,
    _map_cost,
    _spread,
    entropy_moves,
    map_moves,
    pair_moves,
)
from statmechlearn.cluster._topographic_kernel import centres, smoothed_codebook

__all__ = ["entropy_split_merge", "entropy_total", "map_relocate", "pair_split_merge"]

#: Split-and-merge moves polished per round, best predicted first (as deterministic
#: annealing's relocation: the polish often gains more than the move itself loses).
SPLIT_MERGE_TRIALS = 3
#: Up to this many objects every split-and-merge move of a round is polished (each polish
#: costs O(n^2) there; above it only the best predicted).
SPLIT_MERGE_ALL_ROWS = 256


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
def entropy_total(A, labels, n_labels):
    """``sum_nu m_nu H(q_nu)`` of ``labels`` for weighted histograms ``A = w[:, None] * P``."""
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
    best = entropy_total(A, labels, K)
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
        predicted = [entropy_total(A, trial, K) for trial in trials]
        limit = None if len(P) <= SPLIT_MERGE_ALL_ROWS else SPLIT_MERGE_TRIALS
        found = None
        for index in np.argsort(predicted)[:limit]:
            trial, _ = entropy_moves(P, weights, trials[index], K)
            if np.bincount(trial, minlength=K).min() == 0:
                continue
            value = entropy_total(A, trial, K)
            if value < best - tol and (found is None or value < found[0]):
                found = (value, trial)
        if found is None:
            break
        best, labels = found
    return labels


# -- relocation of a unit for the topographic cost of a map ----------------------------------
def _map_codebook(X, labels, T):
    """The best codebook of a map: ``y_nu`` the ``T[c(i), nu]``-weighted mean."""
    K = T.shape[0]
    onehot = (labels[:, None] == np.arange(K)).astype(float)
    return centres(onehot.T @ X, onehot.sum(axis=0), T)


def _hard_map(X, Y, T, max_iter):
    """The hard encoder/codebook iteration from codebook ``Y`` to a fixed point; labels."""
    labels = None
    for _ in range(max_iter):
        Z, q = smoothed_codebook(Y, T)
        new = np.argmax(2.0 * (X @ Z.T) - q, axis=1)
        if labels is not None and np.array_equal(new, labels):
            break
        labels = new
        Y = _map_codebook(X, labels, T)
    return labels


def map_relocate(X, labels, transmission, *, max_rounds=None, max_iter=100):
    """Relocation moves for the topographic cost of a map, polished by single moves.

    Move ``(nu, i)`` puts unit ``nu``'s code vector on object ``i``, runs the
    hard encoder/codebook iteration (each object to its index of least
    expected cost, each code vector to the ``T``-weighted mean) to a fixed
    point and polishes by :func:`~statmechlearn.cluster._polish.map_moves`:
    a unit that the anneal left on the wrong side of a first-order jump
    (several objects must change unit together) can reach the other branch.
    Every pair ``(nu, i)`` is tried and polished up to
    ``SPLIT_MERGE_ALL_ROWS`` objects; above, the least-used unit on each of
    the ``SPLIT_MERGE_TRIALS`` worst-coded objects, and only the cheapest
    after the hard iteration is polished. The lowest cost is kept
    while it falls by more than ``TOL`` of the scale.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    labels : ndarray of shape (n,)
        Units in ``[0, K)``.
    transmission : ndarray of shape (K, K)
    max_rounds : int, optional
        Default ``2 K``.
    max_iter : int, default=100
        Hard iterations per move at most.

    Returns
    -------
    ndarray of shape (n,)
    """
    X = np.ascontiguousarray(X, dtype=float)
    T = np.ascontiguousarray(transmission, dtype=float)
    K = T.shape[0]
    labels = _labels_in(labels, K)
    n = X.shape[0]
    tol = TOL * max(_spread(X), np.finfo(float).tiny)
    best = _map_cost(X, labels, T)
    for _ in range(2 * K if max_rounds is None else max_rounds):
        Y = _map_codebook(X, labels, T)
        if n <= SPLIT_MERGE_ALL_ROWS:
            units, objects = range(K), range(n)
        else:
            Z, q = smoothed_codebook(Y, T)
            coded = np.sum(X * X, axis=1) - 2.0 * np.sum(X * Z[labels], axis=1) + q[labels]
            units = [int(np.argmin(np.bincount(labels, minlength=K)))]
            objects = np.argsort(-coded, kind="stable")[:SPLIT_MERGE_TRIALS]
        found = None
        trials = []
        for nu in units:
            for i in objects:
                codebook = Y.copy()
                codebook[nu] = X[i]
                trials.append(_hard_map(X, codebook, T, max_iter))
        if n > SPLIT_MERGE_ALL_ROWS:
            # polish only the best predicted: each polish costs sweeps of n K (K + d)
            trials = [min(trials, key=lambda lab: _map_cost(X, lab, T))]
        for trial in trials:
            moved, _ = map_moves(X, trial, T)
            value = _map_cost(X, moved, T)
            if value < best - tol:
                best, found = value, moved
        if found is None:
            break
        labels = found
    return labels

"""Hartigan's single-object moves for the k-means cost (see :mod:`._polish`).

The cost is ``sum_i a_i |x_i - mean_c(i)|^2`` with optional sample weights ``a_i``,
smooth k-means' Potts penalty on a graph and entropy-constrained clustering's code
length. The annealers' final moves take the plain cost, whose kernel
(:func:`_kmeans_moves`) has none of the other terms and compiles in half the time of
the general one (:func:`_sse_moves`); :func:`sse_moves_numpy` is their NumPy twin.
"""

import numba
import numpy as np
from scipy import sparse

from statmechlearn.cluster._polish import (
    MAX_SWEEPS,
    TOL,
    _kernel_array,
    _labels_in,
    _spread,
    _twin,
    _xlogx,
)

__all__ = ["sse_moves", "sse_moves_numpy"]

#: From this many rows the k-means moves first test every row at once with BLAS distances
#: and sweep only if some row can move; the test runs on chunks of PRECHECK_CHUNK rows.
PRECHECK_ROWS = 4096
PRECHECK_CHUNK = 1 << 15
# The kernels' sample weights when there are none (every weight one).
_NO_WEIGHTS = np.zeros(0)


def _csr(graph, n):
    """``(indptr, indices, data)`` of a symmetric weight matrix, or an empty graph."""
    if graph is None:
        return np.zeros(n + 1, np.int64), np.zeros(0, np.int64), np.zeros(0)
    W = sparse.csr_array(graph, dtype=float)
    return W.indptr.astype(np.int64), W.indices.astype(np.int64), W.data.astype(float)


def sse_moves(
    X, labels, n_clusters, *, max_clusters=None, graph=None, entropy_weight=0.0, sample_weight=None
):
    """Hartigan's single-object moves for the k-means cost; returns (labels, n_moves).

    The cost is ``sum_nu sum_{i in nu} a_i |x_i - mean_nu|^2`` (``a_i`` the sample
    weights, all one by default; ``mean_nu`` the weighted mean), plus two optional
    terms: the Potts penalty ``sum_{i<j} W_ij [c(i) != c(j)]`` of smooth
    k-means on the graph ``W``, and the code length
    ``-entropy_weight sum_nu n_nu log(n_nu / n)`` of entropy-constrained
    clustering (``n_nu`` the cluster's weight). Moving ``x`` of weight ``a`` from
    cluster ``A`` to ``B`` changes the k-means part by
    ``a n_B/(n_B + a) |x - m_B|^2 - a n_A/(n_A - a) |x - m_A|^2``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    labels : ndarray of shape (n,)
        A partition with labels in ``[0, n_clusters)``.
    n_clusters : int
    max_clusters : int, optional
        Moves may empty a cluster and open one (a label not in use), up to
        ``max_clusters`` non-empty ones (the cost minimised over at most that
        many clusters: with a code length or a penalty, fewer can be
        cheaper). None keeps the non-empty clusters.
    graph : sparse or dense array of shape (n, n), optional
        Symmetric non-negative weights ``W`` with zero diagonal (already
        multiplied by the smoothness).
    entropy_weight : float, default=0.0
    sample_weight : ndarray of shape (n,), optional
        Non-negative weights (an integer weight is the row repeated). Rows of
        weight zero take no part in the cost: they are given the label of
        the nearest mean of the others' partition. None: all one.

    Returns
    -------
    labels : ndarray of shape (n,)
        A partition where no single move lowers the cost.
    n_moves : int
    """
    X = _kernel_array(X)
    labels = _labels_in(labels, n_clusters)
    if sample_weight is not None:
        w = _kernel_array(sample_weight)
        if graph is None and np.any(w == 0.0):
            # a zero weight is the row dropped: the moves among the others, then each
            # dropped row to its nearest mean
            keep = w > 0.0
            moved, n_moves = sse_moves(
                X[keep],
                labels[keep],
                n_clusters,
                max_clusters=max_clusters,
                entropy_weight=entropy_weight,
                sample_weight=w[keep],
            )
            labels[keep] = moved
            counts = np.bincount(moved, weights=w[keep], minlength=n_clusters)
            sums = np.column_stack(
                [
                    np.bincount(moved, weights=w[keep] * col, minlength=n_clusters)
                    for col in X[keep].T
                ]
            )
            live = np.flatnonzero(counts > 0)
            means = sums[live] / counts[live, None]
            d2 = ((X[~keep, None, :] - means[None]) ** 2).sum(axis=2)
            labels[~keep] = live[np.argmin(d2, axis=1)]
            return labels, n_moves
    else:
        w = _NO_WEIGHTS
    scale = _spread(X, w)
    plain = graph is None and not entropy_weight > 0 and max_clusters is None and not w.size
    if plain and len(X) >= PRECHECK_ROWS and _settled(X, labels, n_clusters, TOL * scale):
        return labels, 0
    tol = TOL * max(scale, np.finfo(float).tiny)
    if graph is None and not entropy_weight > 0 and max_clusters is None:
        # the k-means cost alone (the annealers' final moves): a kernel without the
        # code length, the penalty and the opening of clusters, whose terms are zero
        # here (the same bits), compiles in half the time
        work = (np.empty(n_clusters), np.empty(n_clusters), np.empty((n_clusters, X.shape[1])))
        return _kmeans_moves(X, w, labels, tol, *work)
    indptr, indices, data = _csr(graph, len(X))
    scale += float(np.sum(data)) + float(entropy_weight) * (float(w.sum()) if w.size else len(X))
    limit = -1 if max_clusters is None else int(max_clusters)
    return _sse_moves(
        X, w, labels, n_clusters, float(entropy_weight), limit, indptr, indices, data,
        TOL * max(scale, np.finfo(float).tiny),
    )  # fmt: skip


def _settled(X, labels, k, tol):
    """Whether no single move can lower the k-means cost, by BLAS distances in chunks.

    Hartigan's criterion for every row at once: a move ``a -> b`` needs
    ``n_b/(n_b+1) d_b < n_a/(n_a-1) d_a - tol``. The distances are expanded
    (``|x|^2 - 2 x.y + |y|^2``), so the test allows their round-off: a
    partition it calls settled is one where the exact sweep moves nothing, and
    a large one is checked at BLAS speed instead of by a compiled sweep.
    """
    counts = np.bincount(labels, minlength=k).astype(float)
    if counts.min() == 0:
        return False
    n = X.shape[0]
    members = sparse.csr_array((np.ones(n), (labels, np.arange(n))), shape=(k, n))
    means = (members @ X) / counts[:, None]
    m_sq = np.einsum("ij,ij->i", means, means)
    leave_factor = np.where(counts > 1, counts / np.maximum(counts - 1.0, 1.0), 0.0)
    join_factor = counts / (counts + 1.0)
    for start in range(0, n, PRECHECK_CHUNK):
        rows = slice(start, start + PRECHECK_CHUNK)
        x_sq = np.einsum("ij,ij->i", X[rows], X[rows])
        d2 = np.maximum(x_sq[:, None] - 2.0 * (X[rows] @ means.T) + m_sq, 0.0)
        own = labels[rows]
        at = np.arange(d2.shape[0])
        leave = leave_factor[own] * d2[at, own]
        join = join_factor * d2
        join[at, own] = np.inf
        # round-off of the expansion: a few ulps of |x|^2 + |m|^2, doubled by the factors
        slack = 1e-12 * (x_sq + m_sq.max()) * 4.0
        if np.any(join.min(axis=1) < leave - tol + slack):
            return False
    return True


@numba.njit(cache=True, nogil=True)
def _sse_moves(X, w, labels, k, lam, limit, indptr, indices, data, tol):  # pragma: no cover
    """The sweeps of :func:`sse_moves`; ``w`` the row weights, or empty for all one.

    ``counts`` are the clusters' weights and ``sizes`` their numbers of rows (the same
    array when unweighted, whose arithmetic is then the unweighted sweep's exactly).
    """
    n, d = X.shape
    weighted = w.shape[0] > 0
    moves = 0
    links = np.zeros(k)
    for _ in range(MAX_SWEEPS):
        # the means from scratch each sweep: incremental updates would drift
        counts = np.zeros(k)
        sizes = np.zeros(k) if weighted else counts
        means = np.zeros((k, d))
        for i in range(n):
            c = labels[i]
            wi = w[i] if weighted else 1.0
            counts[c] += wi
            if weighted:
                sizes[c] += 1.0
            for j in range(d):
                means[c, j] += wi * X[i, j]
        used = 0
        for c in range(k):
            if sizes[c] > 0:
                used += 1
                # (a cluster of rows of weight zero keeps a zero mean: it costs nothing)
                if counts[c] > 0.0:
                    for j in range(d):
                        means[c, j] /= counts[c]
        moved = False
        for i in range(n):
            a = labels[i]
            wi = w[i] if weighted else 1.0
            if sizes[a] <= 1.0 and limit < 0:
                continue
            for c in range(k):
                links[c] = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                if indices[p] != i:
                    links[labels[indices[p]]] += data[p]
            leave = 0.0
            rest = counts[a] - wi
            if sizes[a] > 1.0 and rest > 0.0:
                da = 0.0
                for j in range(d):
                    t = X[i, j] - means[a, j]
                    da += t * t
                leave = counts[a] / rest * da * wi
            # the code length is -lam sum_nu n_nu log n_nu + const and the penalty the weight
            # to other clusters: leaving a lengthens a's code and cuts the edges into a
            leave -= lam * (_xlogx(counts[a]) - _xlogx(counts[a] - wi)) + links[a]
            best, best_b = leave - tol, -1
            opened = False
            for b in range(k):
                if b == a:
                    continue
                if sizes[b] == 0.0:
                    # one empty cluster is a candidate, while fewer than limit are in use
                    if opened or limit < 0 or used >= limit or sizes[a] <= 1.0:
                        continue
                    opened = True
                    join = 0.0
                else:
                    db = 0.0
                    for j in range(d):
                        t = X[i, j] - means[b, j]
                        db += t * t
                    join = counts[b] / (counts[b] + wi) * db * wi
                join -= lam * (_xlogx(counts[b] + wi) - _xlogx(counts[b])) + links[b]
                if join < best:
                    best, best_b = join, b
            if best_b >= 0:
                b = best_b
                if sizes[b] == 0.0:
                    used += 1
                if sizes[a] == 1.0:
                    used -= 1
                grows = counts[b] + wi > 0.0
                keeps = sizes[a] > 1.0 and counts[a] - wi > 0.0
                for j in range(d):
                    if grows:
                        grown = means[b, j] * counts[b] + wi * X[i, j]
                        means[b, j] = grown / (counts[b] + wi)
                    if keeps:
                        means[a, j] = (means[a, j] * counts[a] - wi * X[i, j]) / (counts[a] - wi)
                    else:
                        means[a, j] = 0.0
                counts[a] -= wi
                counts[b] += wi
                if weighted:
                    sizes[a] -= 1.0
                    sizes[b] += 1.0
                labels[i] = b
                moves += 1
                moved = True
        if not moved:
            break
    return labels, moves


@numba.njit(cache=True, nogil=True)
def _kmeans_moves(X, w, labels, tol, counts, sizes, means):  # pragma: no cover - compiled
    """:func:`_sse_moves` for the k-means cost alone (no code length, penalty or opening).

    ``counts``, ``sizes`` (k,) and ``means`` (k, d) are work arrays of the caller's: a
    kernel that allocates nothing compiles no NumPy allocation of its own.
    """
    n, d = X.shape
    k = counts.shape[0]
    weighted = w.shape[0] > 0
    moves = 0
    for _ in range(MAX_SWEEPS):
        # the means from scratch each sweep: incremental updates would drift
        for c in range(k):
            counts[c] = 0.0
            sizes[c] = 0.0
            for j in range(d):
                means[c, j] = 0.0
        for i in range(n):
            c = labels[i]
            wi = w[i] if weighted else 1.0
            counts[c] += wi
            sizes[c] += 1.0
            for j in range(d):
                means[c, j] += wi * X[i, j]
        for c in range(k):
            # (a cluster of rows of weight zero keeps a zero mean: it costs nothing)
            if sizes[c] > 0 and counts[c] > 0.0:
                for j in range(d):
                    means[c, j] /= counts[c]
        moved = False
        for i in range(n):
            a = labels[i]
            wi = w[i] if weighted else 1.0
            rest = counts[a] - wi
            if sizes[a] <= 1.0 or not rest > 0.0:
                continue
            da = 0.0
            for j in range(d):
                t = X[i, j] - means[a, j]
                da += t * t
            best, best_b = counts[a] / rest * da * wi - tol, -1
            for b in range(k):
                if b == a or sizes[b] == 0.0:
                    continue
                db = 0.0
                for j in range(d):
                    t = X[i, j] - means[b, j]
                    db += t * t
                join = counts[b] / (counts[b] + wi) * db * wi
                if join < best:
                    best, best_b = join, b
            if best_b >= 0:
                b = best_b
                for j in range(d):
                    if counts[b] + wi > 0.0:
                        grown = means[b, j] * counts[b] + wi * X[i, j]
                        means[b, j] = grown / (counts[b] + wi)
                    means[a, j] = (means[a, j] * counts[a] - wi * X[i, j]) / rest
                counts[a] -= wi
                counts[b] += wi
                sizes[a] -= 1.0
                sizes[b] += 1.0
                labels[i] = b
                moves += 1
                moved = True
        if not moved:
            break
    return labels, moves


def _sse(X, labels, w=None):
    if w is None:
        return sum(
            float(np.sum((X[labels == c] - X[labels == c].mean(axis=0)) ** 2)) for c in set(labels)
        )
    total = 0.0
    for c in set(labels):
        wc, Xc = w[labels == c], X[labels == c]
        if wc.sum() > 0:
            total += float(wc @ np.sum((Xc - np.average(Xc, axis=0, weights=wc)) ** 2, axis=1))
    return total


def sse_moves_numpy(
    X, labels, n_clusters, *, max_clusters=None, graph=None, entropy_weight=0.0, sample_weight=None
):
    """NumPy twin of :func:`sse_moves`: each candidate move's cost from scratch."""
    X = np.asarray(X, dtype=float)
    labels = _labels_in(labels, n_clusters)
    W = None if graph is None else sparse.csr_array(graph, dtype=float).toarray()
    lam = float(entropy_weight)
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=float)

    def cost(lab):
        value = _sse(X, lab, w)
        if W is not None:
            value += 0.5 * float(np.sum(W * (lab[:, None] != lab[None, :])))
        if lam > 0:
            sizes = np.bincount(lab, weights=w)
            sizes = sizes[sizes > 0]
            value -= lam * float(np.sum(sizes * np.log(sizes / sizes.sum())))
        return value

    scale = _spread(X, w) + lam * (len(X) if w is None else float(w.sum()))
    if W is not None:
        scale += float(np.sum(W))
    return _twin(cost, labels, n_clusters, max_clusters, TOL * max(scale, np.finfo(float).tiny))

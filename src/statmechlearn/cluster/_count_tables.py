"""Sparse count tables for the distributional clusterers, without a dense copy.

Tables of counts (documents x words, objects x features) are sparse in practice,
and everything histogram clustering and the information bottleneck compute from
them needs only the nonzero counts: the KL cost of row ``i`` to cluster ``nu`` is
``sum_j p(j|i) log p(j|i) - sum_j p(j|i) log q(j|nu)`` over the nonzero ``p(j|i)``,
and the cluster histograms are sums of rows (sparse-times-dense products). This
module holds the CSR versions of the pieces that would otherwise densify:

- :func:`row_conditionals`: rows of counts divided by their totals, in CSR;
- :func:`neg_entropy_rows`: ``sum_j p log p`` of each row from its nonzeros;
- :func:`critical_temperature`: the largest eigenvalue of the weighted covariance of
  ``p(j|i) / sqrt(qbar_j)`` by Lanczos on the covariance as an operator;
- :func:`spreading_matrix`: the bin-spreading pass of histogram clustering as a
  sparse ``(m, m)`` matrix (it keeps a sparse row sparse, three bins per count);
- :func:`entropy_moves` and :func:`entropy_split_merge`: the final single-object and
  split-and-merge moves for ``sum_nu m_nu H(q_nu)`` on CSR rows (the dense ones of
  :mod:`~statmechlearn.cluster._polish` and :mod:`~statmechlearn.cluster._split_merge`
  need the table dense); a move of row ``i`` changes the cost only in the bins where
  ``i`` has counts, so a candidate costs ``O(nnz_i)`` instead of ``O(n_bins)``.

A sparse table of at most :data:`DENSE_ENTRIES` entries takes the dense path where
an algorithm needs dense rows (the critical temperature and the final moves): its
dense copy is small, and the fit is then that of its dense twin.
"""

import math

import numba
import numpy as np
from scipy import sparse
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

from statmechlearn.cluster._polish import MAX_SWEEPS, TOL
from statmechlearn.cluster._split_merge import SPLIT_MERGE_ALL_ROWS, SPLIT_MERGE_TRIALS

__all__ = [
    "DENSE_ENTRIES",
    "critical_temperature",
    "entropy_moves",
    "entropy_split_merge",
    "entropy_total",
    "is_small",
    "neg_entropy_rows",
    "row_conditionals",
    "scale_rows",
    "spreading_matrix",
]

#: A sparse table with at most this many entries (rows x bins, 32 MiB as float64) is
#: densified where an algorithm needs dense rows.
DENSE_ENTRIES = 1 << 22


def is_small(X):
    """Whether a dense copy of ``X`` has at most :data:`DENSE_ENTRIES` entries."""
    return X.shape[0] * X.shape[1] <= DENSE_ENTRIES


def as_csr(X):
    """A canonical float64 CSR copy of a sparse matrix (sorted, duplicates summed)."""
    X = sparse.csr_array(X, dtype=np.float64, copy=True)
    X.sum_duplicates()
    return X


def row_sums(X):
    """Row sums of a CSR table as a 1-D array."""
    return np.asarray(X.sum(axis=1)).ravel()


def scale_rows(X, factor, divide=False):
    """``X`` with row ``i`` multiplied (or divided) by ``factor[i]``, in CSR."""
    per_entry = np.repeat(np.asarray(factor, dtype=np.float64), np.diff(X.indptr))
    data = X.data / per_entry if divide else X.data * per_entry
    return sparse.csr_array((data, X.indices, X.indptr), shape=X.shape)


def row_conditionals(X):
    """``p(j|i) = X[i, j] / sum_j X[i, j]`` in CSR and the row totals (a row of zeros stays
    zero, as the dense path leaves it)."""
    totals = row_sums(X)
    return scale_rows(X, np.where(totals > 0, totals, 1.0), divide=True), totals


def neg_entropy_rows(cond):
    """``sum_j p log p`` of each CSR row over its nonzero entries."""
    data = cond.data
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(data > 0, data * np.log(data), 0.0)
    return row_sums(sparse.csr_array((terms, cond.indices, cond.indptr), shape=cond.shape))


def column_mean(cond, weights):
    """``sum_i w_i p(.|i)``, shape (m,)."""
    return np.asarray(cond.T @ weights).ravel()


def critical_temperature(cond, weights):
    """``lambda_max`` of ``sum_i w_i (u_i - ubar)(u_i - ubar)^T``, ``u_ij = p(j|i) / sqrt(qbar_j)``,
    on the CSR rows (Lanczos on the covariance as an operator: nothing of size rows x bins).

    The weights sum to one, so the covariance is ``U^T W U - ubar ubar^T``.
    """
    qbar = column_mean(cond, weights)
    keep = np.flatnonzero(qbar > 0)
    if keep.size == 0:
        return 0.0
    U = sparse.csr_array(cond[:, keep] @ sparse.diags(1.0 / np.sqrt(qbar[keep])))
    ubar = np.asarray(U.T @ weights).ravel()

    def covariance(v):
        v = np.ravel(v)
        return U.T @ (weights * (U @ v)) - ubar * (ubar @ v)

    if keep.size <= 2:  # ARPACK wants k < n; a 2 x 2 covariance is formed whole
        C = np.column_stack([covariance(e) for e in np.eye(keep.size)])
        return float(max(np.linalg.eigvalsh(C).max(), 0.0))
    op = LinearOperator((keep.size, keep.size), matvec=covariance, dtype=np.float64)
    try:
        value = eigsh(op, k=1, which="LA", v0=np.ones(keep.size), return_eigenvectors=False)
    except ArpackNoConvergence as exc:  # a cluster of top eigenvalues: the best Ritz value
        if not len(exc.eigenvalues):
            raise
        value = exc.eigenvalues
    return float(max(value[0], 0.0))


def spreading_matrix(shape, spreading):
    """The spreading passes of :func:`~statmechlearn.cluster._distributional._spread_counts`
    as one sparse matrix ``S``: the spread rows are ``X @ S``.

    Along an axis of length ``L`` each bin keeps ``1 - spreading`` of its mass and gives
    ``spreading / 2`` to each neighbour; an end bin keeps the half that would leave. The
    passes along the axes of a row-major grid are Kronecker products with identities.
    """
    half = 0.5 * spreading
    S = sparse.identity(math.prod(shape), format="csr")
    for axis, length in enumerate(shape):
        if length == 1:
            continue
        diag = np.full(length, 1.0 - 2.0 * half)
        diag[[0, -1]] += half
        off = np.full(length - 1, half)
        one = sparse.diags([off, diag, off], offsets=[-1, 0, 1], format="csr")
        before, after = math.prod(shape[:axis]), math.prod(shape[axis + 1 :])
        one = sparse.kron(sparse.identity(before), sparse.kron(one, sparse.identity(after)))
        S = S @ sparse.csr_array(one)
    return sparse.csr_array(S)


# -- the final moves on CSR rows -----------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def _xlogx(v):  # pragma: no cover - compiled
    return v * np.log(v) if v > 0.0 else 0.0


@numba.njit(cache=True, nogil=True)
def _csr_entropy_moves(indptr, indices, data, labels, k, m, tol):  # pragma: no cover
    n = labels.shape[0]
    moves = 0
    sums = np.zeros((k, m))
    mass = np.zeros(k)
    counts = np.zeros(k)
    cost = np.zeros(k)
    for _ in range(MAX_SWEEPS):
        # the cluster sums and costs from scratch each sweep: incremental updates would drift
        sums[:] = 0.0
        mass[:] = 0.0
        counts[:] = 0.0
        for i in range(n):
            c = labels[i]
            counts[c] += 1.0
            for p in range(indptr[i], indptr[i + 1]):
                sums[c, indices[p]] += data[p]
                mass[c] += data[p]
        for c in range(k):
            acc = _xlogx(mass[c])
            for y in range(m):
                acc -= _xlogx(sums[c, y])
            cost[c] = acc
        moved = False
        for i in range(n):
            a = labels[i]
            if counts[a] <= 1.0:
                continue
            lo, hi = indptr[i], indptr[i + 1]
            w = 0.0
            for p in range(lo, hi):
                w += data[p]
            # m H(q) = xlogx(m) - sum_y xlogx(s_y): only the bins of row i change
            leave = _xlogx(mass[a] - w) - _xlogx(mass[a])
            for p in range(lo, hi):
                s = sums[a, indices[p]]
                leave -= _xlogx(s - data[p]) - _xlogx(s)
            best, best_b, best_join = -tol, -1, 0.0
            for b in range(k):
                if b == a or counts[b] == 0.0:
                    continue
                join = _xlogx(mass[b] + w) - _xlogx(mass[b])
                for p in range(lo, hi):
                    s = sums[b, indices[p]]
                    join -= _xlogx(s + data[p]) - _xlogx(s)
                if leave + join < best:
                    best, best_b, best_join = leave + join, b, join
            if best_b >= 0:
                b = best_b
                for p in range(lo, hi):
                    sums[a, indices[p]] -= data[p]
                    sums[b, indices[p]] += data[p]
                mass[a] -= w
                mass[b] += w
                counts[a] -= 1.0
                counts[b] += 1.0
                cost[a] += leave
                cost[b] += best_join
                labels[i] = b
                moves += 1
                moved = True
        if not moved:
            break
    return labels, moves


def _labels(labels, n_clusters):
    labels = np.ascontiguousarray(labels, dtype=np.int64).copy()
    if labels.size and (labels.min() < 0 or labels.max() >= n_clusters):
        raise ValueError(
            f"labels must lie in [0, n_clusters) = [0, {n_clusters}), "
            f"got [{labels.min()}, {labels.max()}]"
        )
    return labels


def _tol(weights):
    return TOL * max(float(np.sum(weights)), np.finfo(float).tiny)


def entropy_moves(cond, weights, labels, n_clusters):
    """Single-object moves for ``sum_nu m_nu H(q_nu)`` on CSR rows; returns (labels, n_moves).

    The moves of :func:`statmechlearn.cluster._polish.entropy_moves` (no cluster is
    emptied or opened), for the weighted rows ``A = w[:, None] * cond``.

    Parameters
    ----------
    cond : sparse matrix of shape (n, m)
        Rows are distributions.
    weights : ndarray of shape (n,)
    labels : ndarray of shape (n,)
    n_clusters : int

    Returns
    -------
    labels : ndarray of shape (n,)
    n_moves : int
    """
    A = scale_rows(sparse.csr_array(cond), weights)
    return _csr_entropy_moves(
        A.indptr.astype(np.int64),
        A.indices.astype(np.int64),
        np.ascontiguousarray(A.data, dtype=np.float64),
        _labels(labels, n_clusters),
        int(n_clusters),
        int(A.shape[1]),
        _tol(weights),
    )


def entropy_total(A, labels, n_labels):
    """``sum_nu m_nu H(q_nu)`` of ``labels`` for weighted CSR histograms ``A``."""
    n = A.shape[0]
    members = sparse.csr_array((np.ones(n), (labels, np.arange(n))), shape=(n_labels, n))
    sums = sparse.csr_array(members @ A)
    mass = row_sums(sums)
    data = sums.data[sums.data > 0]
    positive = mass[mass > 0]
    return float(np.sum(positive * np.log(positive)) - np.sum(data * np.log(data)))


def entropy_split_merge(cond, weights, labels, n_clusters, *, max_rounds=None):
    """Split-and-merge moves for ``sum_nu m_nu H(q_nu)`` on CSR rows, polished by single moves.

    The moves of :func:`statmechlearn.cluster._split_merge.entropy_split_merge`: move
    ``(i, j)`` dissolves cluster ``i`` into the clusters its members diverge from least
    and re-opens it with the member of ``j`` that diverges most from ``j``'s histogram.

    Parameters
    ----------
    cond : sparse matrix of shape (n, m)
    weights : ndarray of shape (n,)
    labels : ndarray of shape (n,)
    n_clusters : int
    max_rounds : int, optional
        Default ``2 * n_clusters``.

    Returns
    -------
    ndarray of shape (n,)
    """
    cond = sparse.csr_array(cond)
    A = scale_rows(cond, weights)
    labels = _labels(labels, n_clusters)
    K, n = n_clusters, cond.shape[0]
    if K < 2 or np.bincount(labels, minlength=K).min() == 0:
        return labels
    tol = _tol(weights)
    neg_h = neg_entropy_rows(cond)
    best = entropy_total(A, labels, K)
    for _ in range(2 * K if max_rounds is None else max_rounds):
        members = sparse.csr_array((np.ones(n), (labels, np.arange(n))), shape=(K, n))
        sums = np.asarray((members @ A).todense())
        mass = sums.sum(axis=1, keepdims=True)
        q = np.where(sums > 0, sums / np.where(mass > 0, mass, 1.0), 1e-300)
        kl = neg_h[:, None] - cond @ np.log(q).T
        trials = []
        for i in range(K):
            others = np.delete(np.arange(K), i)
            in_i = np.flatnonzero(labels == i)
            for j in others:
                trial = labels.copy()
                trial[in_i] = others[np.argmin(kl[np.ix_(in_i, others)], axis=1)]
                in_j = np.flatnonzero(trial == j)
                if len(in_j) < 2:
                    continue
                trial[in_j[np.argmax(kl[in_j, j])]] = i
                trials.append(trial)
        predicted = [entropy_total(A, trial, K) for trial in trials]
        limit = None if n <= SPLIT_MERGE_ALL_ROWS else SPLIT_MERGE_TRIALS
        found = None
        for index in np.argsort(predicted)[:limit]:
            trial, _ = entropy_moves(cond, weights, trials[index], K)
            if np.bincount(trial, minlength=K).min() == 0:
                continue
            value = entropy_total(A, trial, K)
            if value < best - tol and (found is None or value < found[0]):
                found = (value, trial)
        if found is None:
            break
        best, labels = found
    return labels

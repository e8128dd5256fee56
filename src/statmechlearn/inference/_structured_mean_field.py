"""Structured mean field: a product over blocks, each block exact on its own couplings.

Lecture notes §6.5: the factorial ``Q`` of §6.1 is sufficient for an
efficient bound but not necessary; any ``Q`` whose expectations and entropy
can be computed exactly gives the same bound
``F <= B(Q) = E_Q[R] - T H(Q)`` (§6.2). Here ``Q(c) = prod_b Q_b(c_b)`` over
disjoint blocks ``b`` of sites (the rows of an image, any chains or trees),
and each ``Q_b`` keeps every coupling *inside* its block. For a
:class:`~statmechlearn.inference.PairwiseMRFCost`
``R(c) = sum_i U[i, c_i] + sum_{i<j} W_ij V[c_i, c_j]``, minimising ``B`` over
one ``Q_b`` with the others held fixed gives the Gibbs distribution of the
block under its internal couplings and the mean fields of the other blocks,

    Q_b(c_b) ∝ exp(-(1/T) [sum_{i in b} h_i(c_i) + sum_{i<j in b} W_ij V[c_i, c_j]]),
    h_i(nu) = U[i, nu] + sum_{j not in b} W_ij sum_t V[nu, t] q_j(t),

exactly, because ``E_Q[R]`` is linear in ``Q_b`` (the §6.3–6.4 argument with
a block in place of a site). When the block's coupling graph is a forest
(chains, trees) its marginals ``q_i`` and pair marginals ``q_ij`` follow
from sum-product (forward-backward on a chain), and the entropy of a
tree-structured distribution is exact:
``H(Q_b) = sum_{edges} H(q_ij) - sum_i (d_i - 1) H(q_i)``, ``d_i`` the
number of the block's edges at ``i``. Sweeping over the blocks is
coordinate descent on ``B``, so ``B`` never rises.

The factorial family is the special case of singleton blocks, so a
structured run started from the naive mean-field solution ends with a bound
at least as tight; a single block that covers a tree-shaped coupling graph
is the exact Gibbs distribution (``B = F``).
"""

from dataclasses import dataclass

import numba
import numpy as np
from scipy import sparse
from scipy.sparse import csgraph
from scipy.special import xlogy

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import check_int, check_real
from statmechlearn._core.warn import warn as warn_caller
from statmechlearn.inference._costs import PairwiseMRFCost
from statmechlearn.inference._mean_field import _check_q

__all__ = ["StructuredMeanFieldResult", "structured_mean_field"]


@dataclass(frozen=True)
class StructuredMeanFieldResult:
    """Fixed point of structured mean field at one temperature.

    Attributes
    ----------
    Q : ndarray of shape (n_sites, n_states)
        Marginals ``q_i(nu)`` of the block-structured distribution.
    pairwise : ndarray of shape (n_edges, n_states, n_states)
        ``pairwise[e, a, b] = Q(c_i = a, c_j = b)`` for the block-internal
        edge ``edges[e] = (i, j)``.
    edges : ndarray of shape (n_edges, 2)
        The couplings kept inside the blocks (site, its parent in the block's tree).
    blocks : tuple of ndarray
        The blocks, as validated.
    bound : float
        ``B = E_Q[R] - T H(Q) >= F``.
    bound_trace : ndarray of shape (n_iter + 1,)
        ``B`` at ``init`` (a factorial distribution) and after each sweep over the blocks.
    n_iter : int
        Sweeps done.
    converged : bool
        ``max |Delta Q| < tol`` reached.
    temperature : float
    """

    Q: np.ndarray
    pairwise: np.ndarray
    edges: np.ndarray
    blocks: tuple
    bound: float
    bound_trace: np.ndarray
    n_iter: int
    converged: bool
    temperature: float


# ---------------------------------------------------------------- blocks and their trees


def _check_blocks(blocks, n_sites):
    """The blocks as a tuple of int64 arrays that partition ``range(n_sites)``."""
    if isinstance(blocks, str | bytes) or not hasattr(blocks, "__len__"):
        raise TypeError(
            "blocks must be a sequence of sequences of site indices (e.g. the rows of "
            f"np.arange(n_sites).reshape(height, width)), got {type(blocks).__name__}"
        )
    if len(blocks) == 0:
        raise ValueError("blocks must hold at least one block, got an empty sequence")
    out = []
    for b, block in enumerate(blocks):
        arr = np.asarray(block)
        if np.iscomplexobj(arr):
            raise TypeError(
                f"blocks must hold integer site indices, got complex values in block {b}"
            )
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(
                f"blocks must hold non-empty 1-D sequences of site indices; block {b} has "
                f"shape {arr.shape}"
            )
        if not np.issubdtype(arr.dtype, np.integer) or arr.dtype == bool:
            raise TypeError(
                f"blocks must hold integer site indices, got dtype {arr.dtype} in block {b}"
            )
        if arr.min() < 0 or arr.max() >= n_sites:
            raise ValueError(
                f"blocks must hold site indices in [0, {n_sites - 1}]; block {b} has values in "
                f"[{arr.min()}, {arr.max()}]"
            )
        out.append(arr.astype(np.int64))
    counts = np.bincount(np.concatenate(out), minlength=n_sites)
    if np.any(counts > 1):
        raise ValueError(
            f"blocks must be disjoint; sites {np.flatnonzero(counts > 1)[:5].tolist()} are in "
            "more than one block"
        )
    if np.any(counts == 0):
        missing = np.flatnonzero(counts == 0)
        raise ValueError(
            f"blocks must cover every site (a partition of the {n_sites} sites); "
            f"{missing.size} are missing, e.g. {missing[:5].tolist()} (give them as "
            "singleton blocks)"
        )
    return tuple(out)


def _block_forests(W, blocks):
    """Breadth-first schedule of every block's spanning forest, refusing cycles.

    Returns
    -------
    order : int64 array of shape (n_sites,)
        Sites block by block, each block in breadth-first order (parents first).
    ptr : int64 array of shape (n_blocks + 1,)
        Block ``b`` is ``order[ptr[b]:ptr[b + 1]]``.
    parent : int64 array of shape (n_sites,)
        The site's parent in its block's tree, -1 for a root.
    parent_weight : float array of shape (n_sites,)
        ``W[i, parent[i]]`` (0 for a root).
    block_id : int64 array of shape (n_sites,)
    """
    n = W.shape[0]
    n_blocks = len(blocks)
    block_id = np.empty(n, dtype=np.int64)
    for b, block in enumerate(blocks):
        block_id[block] = b
    coo = W.tocoo()
    keep = (block_id[coo.row] == block_id[coo.col]) & (coo.data != 0)
    rows, cols, data = coo.row[keep], coo.col[keep], coo.data[keep]
    inner = sparse.csr_array((data, (rows, cols)), shape=(n, n))
    # a block's coupling graph is a forest iff it has (sites - connected parts) edges
    n_parts, part = csgraph.connected_components(_int32_indices(inner), directed=False)
    first = np.unique(part, return_index=True)[1]
    sizes = np.bincount(block_id, minlength=n_blocks)
    edges = np.bincount(block_id[rows[rows < cols]], minlength=n_blocks)
    parts = np.bincount(block_id[first], minlength=n_blocks)
    bad = np.flatnonzero(edges != sizes - parts)
    if bad.size:
        b = int(bad[0])
        raise ValueError(
            f"blocks[{b}] induces a cycle in the coupling graph ({sizes[b]} sites, "
            f"{edges[b]} couplings inside it, {parts[b]} connected parts); every block must "
            "be a forest (chains or trees) so that sum-product on it is exact"
        )
    # one breadth-first search from a virtual site joined to a root of every part
    hub = sparse.csr_array((np.ones(n_parts), (np.full(n_parts, n), first)), shape=(n + 1, n + 1))
    graph = sparse.block_diag([inner, sparse.csr_array((1, 1))], format="csr") + hub
    bfs, pred = csgraph.breadth_first_order(
        _int32_indices(graph), n, directed=False, return_predecessors=True
    )
    bfs = bfs[1:]
    parent = pred[:n].astype(np.int64)
    parent[parent == n] = -1
    # grouped by block, stably: parents stay ahead of their children
    order = bfs[np.argsort(block_id[bfs], kind="stable")].astype(np.int64)
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    parent_weight = np.zeros(n)
    child = np.flatnonzero(parent >= 0)
    parent_weight[child] = np.asarray(inner[child, parent[child]]).ravel()
    return order, ptr, parent, parent_weight, block_id


def _int32_indices(a):
    """``a`` as CSR with 32-bit indices: SciPy < 1.12's csgraph silently fails on 64-bit ones."""
    a = sparse.csr_array(a)
    return sparse.csr_array(
        (a.data, a.indices.astype(np.int32), a.indptr.astype(np.int32)), shape=a.shape
    )


# ---------------------------------------------------------------- one sweep: NumPy reference


def _lse(a, axis):
    m = np.max(a, axis=axis, keepdims=True)
    return np.squeeze(m, axis) + np.log(np.sum(np.exp(a - m), axis=axis))


def _sweep_numpy(Q, pair, unary, W_cross, V, order, ptr, parent, parent_weight, T):
    """One sweep over the blocks in place by sum-product; returns ``max |Delta Q|``.

    ``pair[i]`` is ``Q(c_i, c_parent(i))`` for a non-root site ``i``.
    """
    change = 0.0
    for b in range(ptr.size - 1):
        sites = order[ptr[b] : ptr[b + 1]]
        # log potentials from the unary costs and the other blocks' mean fields
        a = -(unary[sites] + (W_cross[sites] @ Q) @ V.T) / T
        local = {int(i): r for r, i in enumerate(sites)}
        up = np.zeros_like(a)
        # upward: leaves to roots (reverse breadth-first order), message to the parent
        for r in range(sites.size - 1, -1, -1):
            p = parent[sites[r]]
            if p >= 0:
                up[r] = _lse(a[r][:, None] - parent_weight[sites[r]] * V / T, axis=0)
                up[r] -= up[r].max()
                a[local[int(p)]] += up[r]
        # downward: roots to leaves; belief = a + message from the parent
        belief = a.copy()
        for r in range(sites.size):
            i = sites[r]
            p = parent[i]
            if p < 0:
                continue
            cav = belief[local[int(p)]] - up[r]
            logpair = a[r][:, None] + cav[None, :] - parent_weight[i] * V / T
            belief[r] = _lse(logpair, axis=1)
            logpair -= logpair.max()
            pr = np.exp(logpair)
            pair[i] = pr / pr.sum()
        new = np.exp(belief - belief.max(axis=1, keepdims=True))
        new /= new.sum(axis=1, keepdims=True)
        change = max(change, float(np.max(np.abs(new - Q[sites]))))
        Q[sites] = new
    return change


# ---------------------------------------------------------------- one sweep: numba kernel


@numba.njit(cache=True)
def _lse_vec(x):
    m = x[0]
    for s in range(1, x.shape[0]):
        m = max(m, x[s])
    acc = 0.0
    for s in range(x.shape[0]):
        acc += np.exp(x[s] - m)
    return m + np.log(acc)


@numba.njit(cache=True)
def _sweep_kernel(
    Q, pair, unary, indptr, indices, weights, V, order, ptr, parent, parent_weight, block_id, T
):
    n, k = unary.shape
    a = np.empty((n, k))
    up = np.zeros((n, k))
    belief = np.empty((n, k))
    tmp = np.empty(k)
    field = np.empty(k)
    change = 0.0
    for b in range(ptr.shape[0] - 1):
        for r in range(ptr[b], ptr[b + 1]):
            i = order[r]
            for t in range(k):
                field[t] = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                if block_id[j] != b:
                    for t in range(k):
                        field[t] += weights[p] * Q[j, t]
            for s in range(k):
                acc = unary[i, s]
                for t in range(k):
                    acc += V[s, t] * field[t]
                a[i, s] = -acc / T
        for r in range(ptr[b + 1] - 1, ptr[b] - 1, -1):
            i = order[r]
            p = parent[i]
            if p >= 0:
                w = parent_weight[i]
                hi = -np.inf
                for t in range(k):
                    for s in range(k):
                        tmp[s] = a[i, s] - w * V[s, t] / T
                    up[i, t] = _lse_vec(tmp)
                    hi = max(hi, up[i, t])
                for t in range(k):
                    up[i, t] -= hi
                    a[p, t] += up[i, t]
        for r in range(ptr[b], ptr[b + 1]):
            i = order[r]
            p = parent[i]
            if p < 0:
                for s in range(k):
                    belief[i, s] = a[i, s]
                continue
            w = parent_weight[i]
            hi = -np.inf
            for s in range(k):
                for t in range(k):
                    x = a[i, s] + belief[p, t] - up[i, t] - w * V[s, t] / T
                    pair[i, s, t] = x
                    hi = max(hi, x)
                    tmp[t] = x
                belief[i, s] = _lse_vec(tmp)
            total = 0.0
            for s in range(k):
                for t in range(k):
                    pair[i, s, t] = np.exp(pair[i, s, t] - hi)
                    total += pair[i, s, t]
            for s in range(k):
                for t in range(k):
                    pair[i, s, t] /= total
        for r in range(ptr[b], ptr[b + 1]):
            i = order[r]
            hi = -np.inf
            for s in range(k):
                hi = max(hi, belief[i, s])
            total = 0.0
            for s in range(k):
                tmp[s] = np.exp(belief[i, s] - hi)
                total += tmp[s]
            for s in range(k):
                new = tmp[s] / total
                change = max(change, abs(new - Q[i, s]))
                Q[i, s] = new
    return change


# ---------------------------------------------------------------- the bound


def _bound(cost, W_cross, Q, pair, parent, parent_weight, degree, T):
    """``B = E_Q[R] - T H(Q)`` of the block-structured ``Q``, exactly (tree entropy)."""
    V = cost.interaction
    child = np.flatnonzero(parent >= 0)
    unary = float(np.sum(cost.unary * Q))
    cross = 0.5 * float(np.sum(Q * ((W_cross @ Q) @ V.T)))
    inner = float(np.sum(parent_weight[child] * np.sum(pair[child] * V, axis=(1, 2))))
    neg_entropy = float(np.sum(xlogy(pair[child], pair[child]))) - float(
        np.sum((degree - 1.0) * np.sum(xlogy(Q, Q), axis=1))
    )
    return unary + cross + inner + T * neg_entropy


# ---------------------------------------------------------------- public function


def structured_mean_field(
    cost,
    temperature,
    *,
    blocks,
    init=None,
    max_iter=500,
    tol=1e-6,
    random_state=None,
    warn=True,
    compiled=True,
):
    """Minimise the bound ``B`` over distributions that factorise over blocks of sites (§6.5).

    Each block keeps its internal couplings and sees the other blocks
    through their mean fields; its distribution is computed exactly by
    sum-product on the block's chain or tree (lecture notes §6.5, with the
    bound of §6.2 and the coordinate-wise minimisation of §6.3–6.4 applied
    to a whole block). Sweeps over the blocks never raise ``B``.

    Parameters
    ----------
    cost : PairwiseMRFCost
        Unary and pair costs (Potts, Ising, smooth k-means).
    temperature : float
        ``T > 0``.
    blocks : sequence of sequences of int
        A partition of the sites into blocks whose coupling graphs are
        forests (chains or trees); a block that contains a cycle is refused.
        For an image of shape ``(height, width)`` (sites in C order) the
        rows are ``np.arange(height * width).reshape(height, width)`` and the
        columns its transpose. Singleton blocks give naive mean field.
    init : array-like of shape (n_sites, n_states), optional
        Starting marginals, a factorial distribution (rows are normalised),
        e.g. :func:`mean_field`'s ``Q``. Default: uniform plus a small random
        perturbation.
    max_iter : int, default=500
        Maximum sweeps over the blocks.
    tol : float, default=1e-6
        Stop when no marginal moved more than ``tol`` in a sweep.
    random_state : int, RandomState, Generator or None
        For the default ``init``.
    warn : bool, default=True
        Warn with :class:`ConvergenceWarning` when ``max_iter`` is reached.
    compiled : bool, default=True
        Sweep by the numba kernel; False runs the NumPy reference twin.

    Returns
    -------
    StructuredMeanFieldResult

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.inference import (
    ...     PairwiseMRFCost, exact_gibbs, grid_graph, mean_field, structured_mean_field)
    >>> rng = np.random.default_rng(0)
    >>> cost = PairwiseMRFCost(rng.normal(size=(9, 2)), grid_graph((3, 3)))
    >>> naive = mean_field(cost, 1.0, tol=1e-10, random_state=0)
    >>> rows = np.arange(9).reshape(3, 3)
    >>> res = structured_mean_field(cost, 1.0, blocks=rows, init=naive.Q, tol=1e-10)
    >>> bool(exact_gibbs(cost, 1.0).free_energy <= res.bound <= naive.bound)
    True
    """
    if not isinstance(cost, PairwiseMRFCost):
        raise TypeError(
            f"cost must be a PairwiseMRFCost (unary and pair terms), got {type(cost).__name__}"
        )
    T = check_real(temperature, "temperature", minimum=0.0, include_min=False)
    blocks = _check_blocks(blocks, cost.n_sites)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_real(tol, "tol", minimum=0.0)
    rng = check_random_state(random_state)
    if init is None:
        Q = _check_q(np.abs(1.0 + 1e-3 * rng.standard_normal((cost.n_sites, cost.n_states))), cost)
    else:
        Q = _check_q(init, cost)

    W = cost.W.tocsr()
    order, ptr, parent, parent_weight, block_id = _block_forests(W, blocks)
    coo = W.tocoo()
    cross = block_id[coo.row] != block_id[coo.col]
    W_cross = sparse.csr_array((coo.data[cross], (coo.row[cross], coo.col[cross])), shape=W.shape)
    child = parent >= 0
    degree = np.bincount(parent[child], minlength=cost.n_sites).astype(float) + child
    k = cost.n_states
    pair = np.zeros((cost.n_sites, k, k))
    # a factorial start is a member of the structured family: its pairs are outer products
    pair[child] = Q[child][:, :, None] * Q[parent[child]][:, None, :]
    V = cost.interaction
    csr = (W.indptr.astype(np.int64), W.indices.astype(np.int64), W.data.astype(float))

    trace = [_bound(cost, W_cross, Q, pair, parent, parent_weight, degree, T)]
    converged = False
    n_iter = 0
    change = np.inf
    for _ in range(max_iter):
        n_iter += 1
        if compiled:
            change = _sweep_kernel(
                Q, pair, cost.unary, *csr, V, order, ptr, parent, parent_weight, block_id, T
            )
        else:
            change = _sweep_numpy(
                Q, pair, cost.unary, W_cross, V, order, ptr, parent, parent_weight, T
            )
        trace.append(_bound(cost, W_cross, Q, pair, parent, parent_weight, degree, T))
        if change < tol:
            converged = True
            break
    if not converged and warn:
        warn_caller(
            f"structured mean field did not converge at T={T:.4g} in max_iter={max_iter} "
            f"sweeps (last max |dQ| = {change:.3g} > tol={tol:.3g}; bound B = {trace[-1]:.6g}); "
            "use a larger max_iter",
            ConvergenceWarning,
        )
    edges = np.column_stack([np.flatnonzero(child), parent[child]]).astype(np.int64)
    return StructuredMeanFieldResult(
        Q=Q,
        pairwise=pair[child],
        edges=edges,
        blocks=blocks,
        bound=trace[-1],
        bound_trace=np.array(trace),
        n_iter=n_iter,
        converged=converged,
        temperature=T,
    )

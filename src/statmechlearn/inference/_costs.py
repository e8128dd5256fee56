"""Costs over assignments ``c : {1..n} -> {1..k}`` that the samplers and mean field read.

A cost gives what each algorithm needs and nothing more:

``energy(labels)``
    ``R(c)`` for a batch of labelings, shape ``(B, n) -> (B,)``.
``init_state(labels)``, ``site_energies(state, i)``, ``set_site(state, i, new)``
    The single-site conditionals the Metropolis and heat-bath samplers draw
    from: ``R(c with c(i) = nu)`` for every ``nu``, up to a constant per
    chain, with the sufficient statistics kept up to date as labels move.
``mean_fields(Q, sites)``, ``expected_cost(Q)``
    For the mean-field engine (lecture notes §6.3):
    ``h_{u,nu} = E_Q[R | c(u) = nu]`` up to a constant per site, and
    ``E_Q[R]`` for the bound ``B``. Only costs whose expectation under a
    factorial ``Q`` has a closed form provide them.
``blocks()``
    Groups of sites that share no cost term, so that updating a whole group
    at once is the same as updating its members one after another.

Two costs are provided. :class:`PairwiseMRFCost` is any cost made of
single-site and pair terms (k-means with fixed centroids, smooth k-means,
Potts and Ising models, correlation clustering); :class:`KMeansCost` is the
combinatorial k-means cost with the centroids at the cluster means, whose
single-site move is Hartigan's formula.
"""

import numba
import numpy as np
from scipy import sparse

from statmechlearn._core.validation import check_array_finite, check_int

__all__ = [
    "KMeansCost",
    "PairwiseMRFCost",
    "check_labels",
    "graph_coloring",
    "grid_graph",
]


def check_labels(labels, n_sites, n_states, name="init"):
    """Return ``labels`` as an int64 array of shape ``(B, n_sites)`` with entries in range.

    Parameters
    ----------
    labels : array-like of shape (n_sites,) or (B, n_sites)
    n_sites, n_states : int
    name : str, default="init"
        Parameter name used in the error message.

    Returns
    -------
    ndarray of shape (B, n_sites), dtype int64
    """
    arr = np.asarray(labels)
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must hold integer labels, got complex values")
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != n_sites:
        raise ValueError(
            f"{name} must have shape (n_sites,) or (n_chains, n_sites) with n_sites={n_sites}, "
            f"got {np.shape(labels)}"
        )
    if (
        arr.size
        and not np.issubdtype(arr.dtype, np.integer)
        and (not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)))
    ):
        raise ValueError(f"{name} must hold integer labels in [0, {n_states - 1}]")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= n_states):
        raise ValueError(
            f"{name} must hold labels in [0, {n_states - 1}], "
            f"got values in [{arr.min()}, {arr.max()}]"
        )
    return np.ascontiguousarray(arr)


def grid_graph(shape, connectivity=4):
    """Adjacency matrix of the pixels of a 2-D image.

    Parameters
    ----------
    shape : tuple of int (height, width)
        Image shape; pixels are numbered in C order.
    connectivity : {4, 8}, default=4
        Nearest neighbours only, or with the diagonals.

    Returns
    -------
    scipy.sparse.csr_array of shape (height * width, height * width)
        Symmetric 0/1 adjacency without self-loops.
    """
    if len(shape) != 2:
        raise ValueError(f"shape must be (height, width), got {shape!r}")
    h = check_int(shape[0], "shape[0]", minimum=1)
    w = check_int(shape[1], "shape[1]", minimum=1)
    if connectivity not in (4, 8):
        raise ValueError(f"connectivity must be 4 or 8, got {connectivity!r}")
    index = np.arange(h * w).reshape(h, w)
    offsets = [(0, 1), (1, 0)] + ([(1, 1), (1, -1)] if connectivity == 8 else [])
    rows, cols = [], []
    for dy, dx in offsets:
        a = index[max(0, -dy) : h - max(0, dy), max(0, -dx) : w - max(0, dx)]
        b = index[max(0, dy) : h + min(0, dy) or None, max(0, dx) : w + min(0, dx) or None]
        rows.append(a.ravel())
        cols.append(b.ravel())
    r = np.concatenate(rows)
    c = np.concatenate(cols)
    A = sparse.coo_array(
        (np.ones(2 * r.size), (np.concatenate([r, c]), np.concatenate([c, r]))),
        shape=(h * w, h * w),
    )
    return A.tocsr()


@numba.njit(cache=True)
def _greedy_coloring(indptr, indices, n):
    colors = np.full(n, -1, dtype=np.int64)
    used = np.zeros(n + 1, dtype=np.int64)  # used[c] == i + 1: colour c taken by a neighbour of i
    for i in range(n):
        for p in range(indptr[i], indptr[i + 1]):
            c = colors[indices[p]]
            if c >= 0:
                used[c] = i + 1
        c = 0
        while used[c] == i + 1:
            c += 1
        colors[i] = c
    return colors


def graph_coloring(adjacency):
    """Greedy colouring of a graph: adjacent sites get different colours.

    Sites of one colour share no edge, so their conditional distributions do
    not depend on each other; a sampler or mean-field sweep may update them
    together (the checkerboard of a 4-neighbour grid is the 2-colouring).

    Parameters
    ----------
    adjacency : sparse or dense array of shape (n, n)

    Returns
    -------
    colors : ndarray of shape (n,), dtype int64
        Colour of each site, ``0..n_colors-1``; at most ``max degree + 1``
        colours.
    """
    if sparse.issparse(adjacency):
        A = sparse.csr_array(adjacency)
        values = A.data
    else:
        values = check_array_finite(adjacency, "adjacency", ndim=2, dtype=None)
        A = sparse.csr_array(values)
    if np.iscomplexobj(values) or not np.all(np.isfinite(values)):
        raise ValueError("adjacency must hold finite real weights (non-zero: an edge)")
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"adjacency must be a square (n, n) matrix, got shape {A.shape}")
    return _greedy_coloring(A.indptr.astype(np.int64), A.indices.astype(np.int64), A.shape[0])


def _check_couplings(couplings, n):
    if sparse.issparse(couplings):
        W = sparse.csr_array(couplings, dtype=float)
    else:
        arr = np.asarray(couplings, dtype=float)
        if arr.ndim != 2:
            raise ValueError(f"couplings must be a 2-D (n, n) matrix, got ndim={arr.ndim}")
        W = sparse.csr_array(arr)
    if W.shape != (n, n):
        raise ValueError(f"couplings must have shape ({n}, {n}) to match unary, got {W.shape}")
    W.eliminate_zeros()
    if not np.all(np.isfinite(W.data)):
        raise ValueError("couplings must be finite (no NaN or inf)")
    if np.any(W.diagonal() != 0):
        raise ValueError(
            "couplings must have no self-loops (zero diagonal): a site does not interact "
            "with itself; put single-site terms in unary"
        )
    diff = abs(W - W.T)
    if diff.nnz and diff.max() > 1e-12 * max(1.0, abs(W).max()):
        raise ValueError(
            "couplings must be symmetric (W[i, j] == W[j, i]): the cost counts each pair once "
            "with weight W[i, j]; pass (W + W.T) / 2 if that is meant"
        )
    W.sort_indices()
    return W


class PairwiseMRFCost:
    """Single-site plus pair costs: ``R(c) = sum_i U[i, c_i] + sum_{i<j} W_ij V[c_i, c_j]``.

    Covers k-means with fixed centroids (``U`` the squared distances, no
    pairs; its Gibbs distribution factorises, §9.5), smooth k-means (§6.6:
    ``W`` the neighbourhood graph, ``V = lam * (1 - I)``), Potts and Ising
    models (§9.1) and correlation clustering. Mean fields are exact in closed
    form: ``h = U + (W Q) V^T`` (§6.3).

    Parameters
    ----------
    unary : array-like of shape (n_sites, n_states)
        Cost of each state of each site.
    couplings : array-like or sparse of shape (n_sites, n_sites), optional
        Symmetric pair weights ``W`` with zero diagonal; None for none.
    interaction : array-like of shape (n_states, n_states), optional
        Symmetric pair cost ``V``; default the Potts disagreement ``1 - I``.

    Attributes
    ----------
    n_sites, n_states : int
    W : scipy.sparse.csr_array
    """

    def __init__(self, unary, couplings=None, interaction=None):
        U = np.asarray(unary, dtype=float)
        if U.ndim != 2 or U.shape[0] < 1 or U.shape[1] < 2:
            raise ValueError(
                f"unary must have shape (n_sites, n_states) with n_states >= 2, got {U.shape}"
            )
        if not np.all(np.isfinite(U)):
            raise ValueError("unary must be finite (no NaN or inf)")
        self.unary = np.ascontiguousarray(U)
        self.n_sites, self.n_states = U.shape
        k = self.n_states
        if couplings is None:
            self.W = sparse.csr_array((self.n_sites, self.n_sites))
        else:
            self.W = _check_couplings(couplings, self.n_sites)
        V = 1.0 - np.eye(k) if interaction is None else np.asarray(interaction, dtype=float)
        if V.shape != (k, k):
            raise ValueError(f"interaction must have shape ({k}, {k}), got {V.shape}")
        if not np.all(np.isfinite(V)) or not np.allclose(V, V.T):
            raise ValueError("interaction must be a finite symmetric (n_states, n_states) matrix")
        self.interaction = np.ascontiguousarray(V)
        self._blocks = None
        self._block_rows = {}
        upper = sparse.triu(self.W, k=1).tocoo()
        self._pairs = (upper.row, upper.col, upper.data)
        self._csr = (self.W.indptr.astype(np.int64), self.W.indices.astype(np.int64), self.W.data)
        self._order = None

    # --------------------------------------------------------------- exact energies
    def energy(self, labels):
        """``R(c)`` for each labeling.

        Parameters
        ----------
        labels : array-like of shape (n_sites,) or (B, n_sites)

        Returns
        -------
        ndarray of shape (B,)
        """
        L = check_labels(labels, self.n_sites, self.n_states, "labels")
        E = np.take_along_axis(self.unary.T[None, :, :], L[:, None, :], axis=1)[:, 0, :].sum(1)
        rows, cols, data = self._pairs
        if data.size:
            E = E + self.interaction[L[:, rows], L[:, cols]] @ data
        return E

    def init_state(self, labels):
        """Sampler state: the labels themselves (copied)."""
        return {"labels": check_labels(labels, self.n_sites, self.n_states).copy()}

    def site_energies(self, state, i):
        """``R`` with site ``i`` in each state, others fixed, up to a per-chain constant.

        Parameters
        ----------
        state : dict
            From :meth:`init_state`.
        i : int

        Returns
        -------
        ndarray of shape (B, n_states)
        """
        L = state["labels"]
        lo, hi = self.W.indptr[i], self.W.indptr[i + 1]
        e = np.broadcast_to(self.unary[i], (L.shape[0], self.n_states)).copy()
        if hi > lo:
            nb = self.W.indices[lo:hi]
            w = self.W.data[lo:hi]
            e += (self.interaction[:, L[:, nb]] * w).sum(-1).T
        return e

    def set_site(self, state, i, new):
        """Move site ``i`` of every chain to ``new`` (shape ``(B,)``)."""
        state["labels"][:, i] = new

    def labels(self, state):
        """Current labels of a sampler state, shape ``(B, n_sites)``."""
        return state["labels"]

    # --------------------------------------------------------------- mean field
    def mean_fields(self, Q, sites=None):
        """``h_{u, nu} = E_Q[R | c(u) = nu]`` up to a per-site constant (§6.3).

        Parameters
        ----------
        Q : ndarray of shape (n_sites, n_states)
            Factorial assignment probabilities.
        sites : array of int, optional
            Rows to compute; all by default.

        Returns
        -------
        ndarray of shape (len(sites), n_states)
        """
        if sites is None:
            return self.unary + (self.W @ Q) @ self.interaction.T
        rows = self._block_rows.get(id(sites))
        if rows is None or rows[0] is not sites:
            rows = (sites, self.W[sites])
        return self.unary[sites] + (rows[1] @ Q) @ self.interaction.T

    def expected_cost(self, Q):
        """``E_Q[R]`` under the factorial distribution ``Q``."""
        pair = 0.5 * float(np.sum(Q * ((self.W @ Q) @ self.interaction.T)))
        return float(np.sum(self.unary * Q)) + pair

    def blocks(self):
        """Colour classes of the coupling graph (sites that share no pair term)."""
        if self._blocks is None:
            colors = graph_coloring(self.W)
            self._blocks = [np.flatnonzero(colors == c) for c in range(colors.max() + 1)]
            # row slices of the blocks, reused by every sweep (looked up by identity)
            self._block_rows = {id(b): (b, self.W[b]) for b in self._blocks}
        return self._blocks

    def sweep_order(self):
        """Site order of one sweep: colour by colour, so blocks can be vectorised."""
        if self._order is None:
            self._order = np.concatenate(self.blocks()).astype(np.int64)
        return self._order

    def compiled_mean_field_sweep(self, Q, temperature):
        """One asynchronous mean-field sweep in place, colour by colour (numba).

        Same result as updating each block of :meth:`blocks` from
        :meth:`mean_fields` in turn; returns ``max |Delta Q|``.
        """
        return _mrf_mean_field_sweep(
            Q, self.unary, *self._csr, self.interaction, self.sweep_order(), float(temperature)
        )

    def compiled_sweep(self, state, order, uniforms, temperature, metropolis):
        """One sweep by the numba kernel (same arithmetic as the NumPy path)."""
        return _mrf_sweep(
            state["labels"],
            self.unary,
            *self._csr,
            self.interaction,
            np.ascontiguousarray(order, dtype=np.int64),
            uniforms,
            float(temperature),
            bool(metropolis),
        )


class KMeansCost:
    """The combinatorial k-means cost with centroids at the cluster means (§3.1–3.2).

    ``R(c) = sum_nu sum_{i: c(i)=nu} |x_i - m_nu(c)|^2`` with ``m_nu`` the mean
    of cluster ``nu``. Moving object ``i`` into cluster ``nu`` (of size ``n'``
    and mean ``m'`` without ``i``) costs ``n' / (n' + 1) |x_i - m'|^2``
    (Hartigan), so the single-site conditionals need only the cluster sums
    and sizes, kept per chain.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_clusters : int

    Attributes
    ----------
    n_sites, n_states : int
    """

    def __init__(self, X, n_clusters):
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[0] < 1:
            raise ValueError(f"X must have shape (n_samples, n_features), got {X.shape}")
        if not np.all(np.isfinite(X)):
            raise ValueError("X must be finite (no NaN or inf)")
        self.n_sites = X.shape[0]
        self.n_states = check_int(n_clusters, "n_clusters", minimum=1, maximum=self.n_sites)
        # centred: the cost is translation invariant and the sums stay small
        self.X = np.ascontiguousarray(X - X.mean(axis=0))

    def _stats(self, L):
        B, k = L.shape[0], self.n_states
        # one flat index (chain, cluster): every chain's sums in one bincount per feature
        flat = (L + k * np.arange(B)[:, None]).ravel()
        counts = np.bincount(flat, minlength=B * k).astype(float).reshape(B, k)
        sums = np.stack(
            [np.bincount(flat, weights=np.tile(x, B), minlength=B * k) for x in self.X.T], axis=-1
        ).reshape(B, k, self.X.shape[1])
        return sums, counts

    def energy(self, labels):
        """``R(c)``: total within-cluster squared distance, shape ``(B,)``."""
        L = check_labels(labels, self.n_sites, self.n_states, "labels")
        sums, counts = self._stats(L)
        sq = float(np.sum(self.X**2))
        # sum |x - m|^2 = sum |x|^2 - sum_nu |S_nu|^2 / n_nu
        return sq - np.sum(np.sum(sums**2, -1) / np.maximum(counts, 1), -1)

    def init_state(self, labels):
        """Sampler state: labels, per-chain cluster sums and sizes."""
        L = check_labels(labels, self.n_sites, self.n_states).copy()
        sums, counts = self._stats(L)
        return {"labels": L, "sums": sums, "counts": counts}

    def site_energies(self, state, i):
        """Hartigan costs of putting object ``i`` in each cluster, shape ``(B, k)``."""
        L = state["labels"]
        B = L.shape[0]
        x = self.X[i]
        own = L[:, i]
        counts = state["counts"].copy()
        sums = state["sums"].copy()
        counts[np.arange(B), own] -= 1
        sums[np.arange(B), own] -= x
        means = sums / np.maximum(counts, 1)[..., None]
        return counts / (counts + 1) * np.sum((x - means) ** 2, -1)

    def set_site(self, state, i, new):
        """Move object ``i`` of every chain to cluster ``new`` (shape ``(B,)``)."""
        L = state["labels"]
        B = L.shape[0]
        old = L[:, i].copy()
        x = self.X[i]
        state["counts"][np.arange(B), old] -= 1
        state["sums"][np.arange(B), old] -= x
        state["counts"][np.arange(B), new] += 1
        state["sums"][np.arange(B), new] += x
        L[:, i] = new

    def labels(self, state):
        """Current labels of a sampler state, shape ``(B, n_sites)``."""
        return state["labels"]

    def sweep_order(self):
        """Objects in index order."""
        return np.arange(self.n_sites)

    def compiled_sweep(self, state, order, uniforms, temperature, metropolis):
        """One sweep by the numba kernel (same arithmetic as the NumPy path)."""
        return _kmeans_sweep(
            state["labels"],
            self.X,
            state["sums"],
            state["counts"],
            np.ascontiguousarray(order, dtype=np.int64),
            uniforms,
            float(temperature),
            bool(metropolis),
        )


# ---------------------------------------------------------------- compiled single-site sweeps
# Both kernels consume two uniforms per site and chain, exactly as
# ``_sampling._choose_numpy`` does: u0 picks the proposal (Metropolis) or the
# heat-bath state, u1 decides acceptance.


@numba.njit(cache=True, inline="always")
def _choose(e, w, cur, u0, u1, beta, metropolis):
    k = e.shape[0]
    if metropolis:
        prop = (cur + 1 + int(u0 * (k - 1))) % k
        d = e[prop] - e[cur]
        if d <= 0.0 or u1 < np.exp(-beta * d):
            return prop
        return cur
    lo = e[0]
    for s in range(1, k):
        lo = min(lo, e[s])
    total = 0.0
    for s in range(k):
        w[s] = np.exp(-beta * (e[s] - lo))
        total += w[s]
    target = u0 * total
    acc = 0.0
    for s in range(k - 1):
        acc += w[s]
        if target < acc:
            return s
    return k - 1


@numba.njit(cache=True)
def _mrf_sweep(labels, unary, indptr, indices, weights, V, order, uniforms, temperature, metro):
    B = labels.shape[0]
    k = unary.shape[1]
    beta = 1.0 / temperature
    changed = np.zeros(B, dtype=np.int64)
    e = np.empty(k)
    w = np.empty(k)
    if k == 2 and not metro:
        # two states: one exponential per site, P(0) = 1 / (1 + exp(-beta (e1 - e0)))
        dV0 = V[1, 0] - V[0, 0]
        dV1 = V[1, 1] - V[0, 1]
        for b in range(B):
            for i in order:
                d = unary[i, 1] - unary[i, 0]
                for p in range(indptr[i], indptr[i + 1]):
                    d += weights[p] * (dV1 if labels[b, indices[p]] == 1 else dV0)
                new = 0 if uniforms[b, i, 0] * (1.0 + np.exp(-beta * d)) < 1.0 else 1
                if new != labels[b, i]:
                    labels[b, i] = new
                    changed[b] += 1
        return changed
    for b in range(B):
        for i in order:
            for s in range(k):
                e[s] = unary[i, s]
            for p in range(indptr[i], indptr[i + 1]):
                lj = labels[b, indices[p]]
                wp = weights[p]
                for s in range(k):
                    e[s] += wp * V[s, lj]
            cur = labels[b, i]
            new = _choose(e, w, cur, uniforms[b, i, 0], uniforms[b, i, 1], beta, metro)
            if new != cur:
                labels[b, i] = new
                changed[b] += 1
    return changed


@numba.njit(cache=True)
def _kmeans_sweep(labels, X, sums, counts, order, uniforms, temperature, metro):
    B = labels.shape[0]
    k = counts.shape[1]
    d = X.shape[1]
    beta = 1.0 / temperature
    changed = np.zeros(B, dtype=np.int64)
    e = np.empty(k)
    w = np.empty(k)
    for b in range(B):
        for i in order:
            cur = labels[b, i]
            for s in range(k):
                c = counts[b, s] - (1.0 if s == cur else 0.0)
                dist = 0.0
                for f in range(d):
                    sf = sums[b, s, f] - (X[i, f] if s == cur else 0.0)
                    diff = X[i, f] - sf / max(c, 1.0)
                    dist += diff * diff
                e[s] = c / (c + 1.0) * dist
            new = _choose(e, w, cur, uniforms[b, i, 0], uniforms[b, i, 1], beta, metro)
            if new != cur:
                counts[b, cur] -= 1.0
                counts[b, new] += 1.0
                for f in range(d):
                    sums[b, cur, f] -= X[i, f]
                    sums[b, new, f] += X[i, f]
                labels[b, i] = new
                changed[b] += 1
    return changed


@numba.njit(cache=True)
def _mrf_mean_field_sweep(Q, unary, indptr, indices, weights, V, order, temperature):
    k = unary.shape[1]
    beta = 1.0 / temperature
    h = np.empty(k)
    field = np.empty(k)
    change = 0.0
    for i in order:
        for t in range(k):
            field[t] = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            wp = weights[p]
            for t in range(k):
                field[t] += wp * Q[j, t]
        lo = np.inf
        for s in range(k):
            acc = unary[i, s]
            for t in range(k):
                acc += V[s, t] * field[t]
            h[s] = acc
            lo = min(lo, acc)
        total = 0.0
        for s in range(k):
            h[s] = np.exp(-beta * (h[s] - lo))
            total += h[s]
        for s in range(k):
            new = h[s] / total
            change = max(change, abs(new - Q[i, s]))
            Q[i, s] = new
    return change

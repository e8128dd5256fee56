"""Smooth k-means: k-means plus a Potts penalty on a neighbourhood graph, by mean field (§6.6)."""

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.cluster import kmeans_plusplus
from sklearn.utils._param_validation import Interval, StrOptions

from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import RANDOM_STATE
from statmechlearn.cluster._annealing_inputs import dense_rows, sample_weights, verbose_print
from statmechlearn.cluster._annealing_moves import nearest, relocate, swap
from statmechlearn.cluster._maxent import AssignmentPath, effective_clusters
from statmechlearn.cluster._polish_kmeans import sse_moves
from statmechlearn.cluster._schedule import GeometricSchedule, run_schedule
from statmechlearn.inference import PairwiseMRFCost, variational_free_energy
from statmechlearn.theory.annealing import critical_temperature

__all__ = ["SmoothKMeans"]


def _within_ss(Xc, labels, k, w=None):
    """Within-cluster sum of squares of a hard labeling (each cluster at its mean).

    With sample weights ``w``: ``sum_i w_i |x_i - m_c(i)|^2`` at the weighted means.
    """
    total = 0.0
    for j in range(k):
        members = Xc[labels == j]
        if not members.shape[0]:
            continue
        if w is None:
            total += float(np.sum((members - members.mean(axis=0)) ** 2))
            continue
        wj = w[labels == j]
        if wj.sum() > 0:
            mean = np.average(members, axis=0, weights=wj)
            total += float(wj @ np.sum((members - mean) ** 2, axis=1))
    return total


def _disagreement(labels, W):
    """Weight of the edges whose ends carry different labels (each edge once)."""
    if not W.nnz:
        return 0.0
    coo = W.tocoo()
    return 0.5 * float(np.sum(coo.data * (labels[coo.row] != labels[coo.col])))


def _hard_cost(Xc, labels, k, W, w=None):
    """Smooth k-means cost of a hard labeling: within-cluster squares + disagreeing weight."""
    return _within_ss(Xc, labels, k, w) + _disagreement(labels, W)


def _reseed_smallest(Xc, labels, Y, w=None):
    """Move the smallest cluster's code vector beside the widest other cluster.

    Returns ``(Y, 2 lambda_max, small, wide)``, or None when no cluster has
    spread to split (clusters measured by their weight where ``w`` is given).
    """
    counts = np.bincount(labels, weights=w, minlength=Y.shape[0])
    small = int(np.argmin(counts))
    best, best_lam, axis = -1, 0.0, None
    for j in np.flatnonzero(np.bincount(labels, minlength=Y.shape[0]) > 1):
        if j == small:
            continue
        if w is None:
            D = Xc[labels == j] - Xc[labels == j].mean(axis=0)
            cov = D.T @ D / D.shape[0]
        else:
            wj = w[labels == j]
            if not wj.sum() > 0:
                continue
            cov = np.cov(Xc[labels == j], rowvar=False, aweights=wj, bias=True)
        lam, vec = np.linalg.eigh(np.atleast_2d(cov))
        if lam[-1] > best_lam:
            best, best_lam, axis = j, lam[-1], vec[:, -1]
    if best < 0:
        return None
    Y = Y.copy()
    Y[small] = Y[best] + 1e-3 * np.sqrt(best_lam) * axis
    return Y, 2.0 * best_lam, small, best


def _lloyd(X, x_sq, centers, max_iter=300, w=None):
    """Lloyd's iteration from ``centers`` to a fixed point (an empty cluster keeps its centre)."""
    for _ in range(max_iter):
        labels, _ = nearest(X, x_sq, centers)
        counts = np.bincount(labels, weights=w, minlength=len(centers))
        new = centers.copy()
        for c in np.flatnonzero(counts):
            if w is None:
                new[c] = X[labels == c].mean(axis=0)
            else:
                new[c] = np.average(X[labels == c], axis=0, weights=w[labels == c])
        if np.array_equal(new, centers):
            break
        centers = new
    return centers


def _kmeans_moves(Xc, labels, k, rng, Q, w=None):
    """The k-means moves of deterministic annealing on a hard partition; returns assignments.

    Split-and-merge and swap moves (:func:`~statmechlearn.cluster._annealing_moves.relocate`,
    :func:`~statmechlearn.cluster._annealing_moves.swap`), each trial a Lloyd fixed point,
    then Hartigan's single-object moves (:func:`~statmechlearn.cluster._polish.sse_moves`),
    on the cost weighted by the sample weights ``w`` where given. ``Q`` (the mean-field
    assignments) is returned unchanged when nothing lowers the cost.
    """
    if k < 2 or np.bincount(labels, weights=w, minlength=k).min() == 0:
        return Q
    x_sq = np.einsum("ij,ij->i", Xc, Xc)
    if w is None:
        centers = np.array([Xc[labels == c].mean(axis=0) for c in range(k)])
    else:
        centers = np.array(
            [np.average(Xc[labels == c], axis=0, weights=w[labels == c]) for c in range(k)]
        )
    before = _within_ss(Xc, labels, k, w)

    def trial(X, centers, log_w, T):
        # (the moves run on all rows here, so the weights are the fit's own)
        return _lloyd(X, np.einsum("ij,ij->i", X, X), centers, w=w), log_w, None

    log_w = np.full(k, -np.log(k))
    centers, _ = relocate(Xc, x_sq, centers, log_w, 0.0, trial, [], w)
    swapped = swap(Xc, x_sq, centers, 0.0, trial, [], rng, w)
    if swapped is not None:
        centers = swapped[0]
    moved, _ = nearest(Xc, x_sq, centers)
    if np.bincount(moved, weights=w, minlength=k).min() == 0:
        moved = labels
    moved, _ = sse_moves(Xc, moved, k, sample_weight=w)
    if not _within_ss(Xc, moved, k, w) < before * (1.0 - 1e-12):
        return Q
    return (moved[:, None] == np.arange(k)).astype(float)


def _weighted_bound(bound, cost, Q, T, w):
    """The mean-field bound with each site's own terms weighted: ``B + sum_i (w_i - 1) b_i``.

    ``b_i = sum_nu q_i(nu) (U_i(nu) + T log q_i(nu))`` is site ``i``'s part of ``B``; the
    pair terms are the graph's, unweighted.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        site = (Q * cost.unary[:, : Q.shape[1]]).sum(axis=1) + T * np.where(
            Q > 0, Q * np.log(Q), 0.0
        ).sum(axis=1)
    return float(bound + (w - 1.0) @ site)


class SmoothKMeans(ClusterMixin, BaseEstimator):
    """k-means with a penalty for disagreeing with neighbours, solved by annealed mean field.

    The cost of lecture notes §6.6::

        R(c, Y) = sum_i |x_i - y_{c(i)}|^2 + (lam / 2) sum_i sum_{j in N(i)} W_ij [c(i) != c(j)],

    is relaxed to a factorial Gibbs distribution ``q_i(nu) ∝ exp(-h_{i,nu}/T)``
    with the mean fields
    ``h_{i,nu} = |x_i - y_nu|^2 + lam sum_j W_ij (1 - q_j(nu))``. At each
    temperature, asynchronous sweeps over colour classes of the graph
    (sites of one class share no edge, so a class moves at once and the
    bound ``B`` of §6.2 never rises) alternate with the centroid condition
    ``y_nu = sum_i q_i(nu) x_i / sum_i q_i(nu)``; ``T`` falls geometrically
    from above the first split to a hard assignment. All code vectors are
    present from the start, and when they first split one can be left
    between two groups with no objects of its own; the smallest cluster's
    code vector is then moved beside the widest cluster (sharing its objects)
    and cooling resumes from above that cluster's critical temperature
    ``2 lambda_max``, as long as the final cost goes down.

    Parameters
    ----------
    n_clusters : int, default=8
    smoothness : float, default=1.0
        ``lam >= 0``, in units of squared distance per disagreeing edge.
    connectivity : array-like, sparse matrix or callable, default=None
        Symmetric non-negative weights ``W`` of shape (n_samples, n_samples)
        with zero diagonal (:func:`statmechlearn.inference.grid_graph` for
        the pixels of an image), or a callable ``X -> W`` (say,
        ``sklearn.neighbors.kneighbors_graph`` made symmetric). None: no
        graph, which is annealed soft k-means.
    max_temperature : float or "auto", default="auto"
        First temperature; "auto" is ``1.1 (T_c + d)``, above the first split
        (``T_c = 2 lambda_max`` of the data covariance, ``d`` the largest
        weighted degree of the penalty).
    min_temperature : float or "auto", default="auto"
        Floor of the schedule; "auto" is ``1e-3`` times the start. The
        schedule ends early once every assignment is hard (max ``q > 1 - 1e-4``).
    cooling_rate : float, default=0.9
        ``T <- cooling_rate * T`` between temperatures.
    max_iter : int, default=100
        Maximum sweeps (mean field + centroids) per temperature.
    tol : float, default=1e-4
        A temperature is done when no ``q_i(nu)`` moved more than ``tol``.
    random_state : None, int, RandomState or Generator, default=None
        Seeds the k-means++ start and the symmetry-breaking jitter.
    verbose : int, default=0
        At 1 or more, :meth:`fit` prints one line per temperature (the
        mean-field bound, the distinct clusters and the sweeps), per restart
        and for the final moves.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        A local minimum of the hard cost ``R(c, Y)`` (at ``Y`` the cluster
        means): the annealed hard labels, then, without a graph,
        deterministic annealing's split-and-merge and swap moves and, in
        every case, single-object moves until none lowers ``R`` (with a
        graph they may empty a cluster, when fewer are cheaper).
    assignments_ : ndarray of shape (n_samples, n_clusters)
        Mean-field ``q_i(nu)`` at the last temperature (one-hot ``labels_``
        when a move was made).
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        In X's float dtype (float32 for float32 ``X``).
    inertia_ : float
        k-means part of the cost of ``labels_`` (weighted by ``sample_weight``
        where given).
    cost_ : float
        Full smooth k-means cost of ``labels_`` (k-means + penalty).
    path_ : AssignmentPath
        Per temperature of the schedule that was run, restarts included:
        the mean-field bound ``B`` (``free_energy``), distinct clusters,
        sweeps and convergence.
    temperature_ : float
        Last temperature.
    n_iter_ : int
        Sweeps in total.
    n_features_in_ : int

    Notes
    -----
    New points have no neighbours in the graph, so there is no ``predict``;
    use ``fit_predict`` (or the centroids) instead.

    With ``sample_weight`` the cost is ``R = sum_i a_i |x_i - y_c(i)|^2 +
    (lam / 2) sum_ij W_ij [c(i) != c(j)]``: each sample's k-means term is
    multiplied by its weight ``a_i`` (the penalty's edges are the graph's).
    Each sample's mean-field assignment is its own, as for repeated rows; the
    centroids are the weighted means ``sum_i a_i q_i(nu) x_i / sum_i a_i q_i(nu)``
    and the final moves lower the weighted cost. Without a graph an integer
    weight is the sample repeated and a zero weight the sample dropped.

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.cluster import SmoothKMeans
    >>> from statmechlearn.inference import grid_graph
    >>> rng = np.random.default_rng(0)
    >>> image = np.zeros((30, 30)); image[:, 15:] = 1.0
    >>> noisy = image + rng.normal(0, 0.6, image.shape)
    >>> W = grid_graph(image.shape)
    >>> labels = SmoothKMeans(2, smoothness=0.5, connectivity=W,
    ...                       random_state=0).fit_predict(noisy.reshape(-1, 1))
    >>> acc = np.mean(labels.reshape(image.shape) == image)
    >>> bool(max(acc, 1 - acc) > 0.95)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "smoothness": [Interval(Real, 0, None, closed="left")],
        "connectivity": ["array-like", "sparse matrix", callable, None],
        "max_temperature": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "min_temperature": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "cooling_rate": [Interval(Real, 0, 1, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": [*RANDOM_STATE],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        smoothness=1.0,
        connectivity=None,
        max_temperature="auto",
        min_temperature="auto",
        cooling_rate=0.9,
        max_iter=100,
        tol=1e-4,
        random_state=None,
        verbose=0,
    ):
        self.n_clusters = n_clusters
        self.smoothness = smoothness
        self.connectivity = connectivity
        self.max_temperature = max_temperature
        self.min_temperature = min_temperature
        self.cooling_rate = cooling_rate
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _graph(self, X):
        n = X.shape[0]
        if self.connectivity is None:
            return None
        W = self.connectivity(X) if callable(self.connectivity) else self.connectivity
        W = sparse.csr_array(W, dtype=float)
        if W.shape != (n, n):
            raise ValueError(
                f"connectivity must have shape (n_samples, n_samples) = ({n}, {n}), got {W.shape}"
            )
        if W.nnz and (not np.all(np.isfinite(W.data)) or W.data.min() < 0):
            raise ValueError("connectivity must hold finite non-negative weights")
        return W

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Cluster X with the neighbourhood penalty.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Float64 or float32 (computed in float64); sparse input is
            converted to a dense array.
        y : Ignored
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the samples' k-means terms (see Notes).

        Returns
        -------
        self : SmoothKMeans
        """
        X, dtype = dense_rows(self, X, reset=True, ensure_min_samples=2)
        w = sample_weights(sample_weight, X)
        n, k = X.shape[0], self.n_clusters
        if k > n:
            raise ValueError(f"n_clusters={k} must be <= n_samples={n}")
        rng = check_random_state(self.random_state)
        W = self._graph(X)
        mean = X.mean(axis=0) if w is None else np.average(X, axis=0, weights=w)
        Xc = X - mean
        couplings = None if W is None or self.smoothness == 0 else self.smoothness * W
        # PairwiseMRFCost rejects self-loops and asymmetric weights with a clear message
        cost = PairwiseMRFCost(np.zeros((n, max(k, 2))), couplings)
        if k == 1:
            self._finish(
                X,
                Xc,
                np.zeros(n, dtype=np.int64),
                np.ones((n, 1)),
                mean,
                cost,
                AssignmentPath(),
                w,
                dtype,
            )
            self.n_iter_ = 0
            self.temperature_ = 0.0
            return self
        cov = np.atleast_2d(np.cov(Xc, rowvar=False, bias=True, aweights=w))
        t_c = critical_temperature(cov)
        degree = 0.0 if couplings is None else float(np.max(abs(couplings).sum(axis=1)))
        if self.max_temperature == "auto":
            T = 1.1 * (t_c + degree)
            if T <= 0:
                T = 1.0
        else:
            T = float(self.max_temperature)
        floor = 1e-3 * T if self.min_temperature == "auto" else float(self.min_temperature)
        seed = int(rng.integers(2**31 - 1))
        if w is None:
            seeds, _ = kmeans_plusplus(Xc, k, random_state=seed)
        else:
            # (k-means++ draws among the samples of positive weight)
            seeds, _ = kmeans_plusplus(Xc, k, random_state=seed, sample_weight=w)
        Y = seeds.copy()
        Q = np.full((n, k), 1.0 / k)
        scale = np.sqrt(max(np.trace(cov) / Xc.shape[1], 1e-300))
        x_sq = np.sum(Xc**2, axis=1)[:, None]

        path = AssignmentPath()

        # The engine's state is (Q, Y, sweeps, converged); the fixed point at each T alternates
        # asynchronous mean-field sweeps with the centroid condition.
        def solve(state, T):
            Q, Y = state[0], state[1] + 1e-6 * scale * rng.standard_normal(state[1].shape)
            for sweeps in range(1, self.max_iter + 1):  # noqa: B007 - counted after the loop
                cost.unary = np.maximum(x_sq - 2.0 * Xc @ Y.T + np.sum(Y**2, axis=1), 0.0)
                change = cost.compiled_mean_field_sweep(Q, T)
                if w is None:
                    mass = Q.sum(axis=0)
                    live = mass > 1e-12
                    Y[live] = (Q[:, live].T @ Xc) / mass[live, None]
                else:
                    mass = w @ Q
                    live = mass > 1e-12
                    Y[live] = ((Q[:, live] * w[:, None]).T @ Xc) / mass[live, None]
                if change < self.tol:
                    break
            return Q, Y, sweeps, change < self.tol

        def record(state, T):
            bound = variational_free_energy(cost, state[0], T)
            if w is not None:
                bound = _weighted_bound(bound, cost, state[0], T, w)
            path.temperature.append(float(T))
            path.free_energy.append(bound)
            path.n_effective.append(effective_clusters(state[0]))
            path.n_iter.append(state[2])
            path.converged.append(bool(state[3]))
            verbose_print(
                self.verbose,
                f"Temperature {T:.4g}: mean-field bound {bound:.6g}, "
                f"{path.n_effective[-1]} clusters, {state[2]} sweeps.",
            )

        def anneal(Q, Y, T):
            (Q, Y, _, _), temps = run_schedule(
                (Q, Y, 0, True),
                GeometricSchedule(T, floor, self.cooling_rate),
                solve=solve,
                record=record,
                stop=lambda state, T: float(np.min(state[0].max(axis=1))) > 1.0 - 1e-4,
            )
            return Q, Y, temps[-1]

        Q, Y, T = anneal(Q, Y, T)
        best = (_hard_cost(Xc, Q.argmax(axis=1), k, cost.W, w), Q, Y, T)
        # Unconstrained annealing keeps every code vector from the start; when they first
        # split, one can stop between two groups (few or no objects nearest) and take no part
        # in later splits. Move the smallest cluster's code vector beside the widest cluster
        # and cool again from above that cluster's critical temperature; keep the result if
        # the cost went down.
        for _ in range(k):
            labels = best[1].argmax(axis=1)
            restart = _reseed_smallest(Xc, labels, best[2], w)
            if restart is None:
                break
            Y, t_split, small, wide = restart
            # duplicate the wide cluster: its objects shared equally by the two copies
            Q = best[1].copy()
            Q[:, wide] += Q[:, small]
            Q[:, wide] *= 0.5
            Q[:, small] = Q[:, wide]
            Q, Y, T = anneal(Q, Y, max(1.1 * t_split, floor))
            value = _hard_cost(Xc, Q.argmax(axis=1), k, cost.W, w)
            verbose_print(
                self.verbose,
                f"Restart from cluster {small} beside {wide}: cost {value:.6g} "
                f"(best {best[0]:.6g}).",
            )
            if value >= best[0] * (1 - 1e-9):
                break
            best = (value, Q, Y, T)
        _, Q, Y, T = best
        if cost.W is None or not cost.W.nnz:
            # Without a penalty the cost is k-means': the moves that make deterministic
            # annealing reach its optimum (split-and-merge, swaps, then single objects),
            # each verified by Lloyd's iteration, and kept only where the cost falls
            Q = _kmeans_moves(Xc, Q.argmax(axis=1), k, rng, Q, w)
        else:
            # with the penalty, Hartigan's single-object moves on the whole cost, which may
            # empty and reopen clusters (the mean field's hard labels need not be a local
            # minimum of it, and the penalty can make fewer than k clusters cheaper)
            moved, n_moves = sse_moves(
                Xc, Q.argmax(axis=1), k, max_clusters=k, graph=cost.W, sample_weight=w
            )
            if n_moves:
                Q = (moved[:, None] == np.arange(k)).astype(float)
        self.n_iter_ = int(sum(path.n_iter))
        self.temperature_ = float(T)
        self._finish(X, Xc, Q.argmax(axis=1), Q, mean, cost, path, w, dtype)
        verbose_print(
            self.verbose,
            f"Finished at T={self.temperature_:.4g}: inertia {self.inertia_:.6g}, "
            f"cost {self.cost_:.6g}, {self.n_iter_} sweeps.",
        )
        return self

    def _finish(self, X, Xc, labels, Q, mean, cost, path, w, dtype):
        k = self.n_clusters
        Q = Q[:, :k]
        Qw = Q if w is None else Q * w[:, None]
        mass = Qw.sum(axis=0)
        centers = np.tile(mean, (k, 1))
        live = mass > 1e-12
        centers[live] = (Qw[:, live].T @ X) / mass[live, None]
        self.labels_ = labels
        self.assignments_ = Q
        self.cluster_centers_ = centers.astype(dtype, copy=False)
        self.inertia_ = _within_ss(Xc, labels, k, w)
        self.cost_ = self.inertia_ + _disagreement(labels, cost.W)
        self.path_ = path

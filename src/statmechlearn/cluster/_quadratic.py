"""Clustering costs quadratic in the assignments (notes §3.4, §5.2), by mean-field annealing.

* :class:`LeastAngleClustering` — cosine-similarity cost
  ``R = -(1/(2n)) sum_nu |sum_i M[i,nu] e_i|^2 + 1`` of unit vectors
  ``e_i``. The linearisation (Hubbard–Stratonovich) trick of §3.4
  introduces one auxiliary field ``y_nu`` per cluster; at the saddle point
  ``y_nu = (1/n) sum_i e_i P[i,nu]`` and ``P[i,nu] ∝ exp(beta e_i . y_nu)``,
  so the objects decouple given the fields.
* :class:`CorrelationClustering` — signed similarities ``S``: the
  correlation-clustering cost ``-sum_nu sum_{i<j in nu} S_ij`` (inter-cluster
  terms turned into intra-cluster ones, §5.2), its shifted form with
  ``S_ij - threshold``, and graph partitioning of dissimilarities ``D``,
  un-normalised ``sum_nu sum_{i<j in nu} D_ij`` or normalised by cluster size
  (the pairwise-clustering cost). All are quadratic in the assignments; the
  mean fields ``h[i,nu] = dE/dP[i,nu]`` are one matrix product per sweep.

Both run on the shared annealing engine (:mod:`statmechlearn.cluster._maxent`):
clusters split as they become unstable, the number found can be smaller
than ``n_clusters`` where the cost does not reward more (correlation
clustering chooses its own number of clusters).
"""

import numbers
from typing import ClassVar

import numba
import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import (
    RANDOM_STATE,
    check_array_finite,
    check_magnitude,
    validate_named,
)
from statmechlearn.cluster._inputs import dense_float64, effective_weights
from statmechlearn.cluster._maxent import (
    gibbs_assignments,
    information_free_energy,
    run_annealing,
)
from statmechlearn.cluster._mean_field import async_sweep
from statmechlearn.cluster._pairwise import _mean_fields, check_dissimilarity, check_partition
from statmechlearn.cluster._polish import direction_moves, pair_moves
from statmechlearn.cluster._schedule import GeometricSchedule
from statmechlearn.cluster._split_merge import pair_split_merge
from statmechlearn.cluster._weighted_moves import weighted_direction_moves, weighted_pair_moves

__all__ = ["CorrelationClustering", "LeastAngleClustering", "least_angle_cost"]

_TINY = 1e-300


def _weighted_free_energy(P, energy, temperature, w):
    """:func:`information_free_energy` with each object's entropy term times ``w_i`` and
    the priors the weighted cluster shares (``w = None``: that function itself)."""
    if w is None:
        return information_free_energy(P, energy, temperature)
    share = w @ P / w.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(P > 0, P * (np.log(P) - np.log(share)), 0.0)
    return float(energy + temperature * (w @ terms.sum(axis=1)))


@numba.njit(cache=True, nogil=True)
def _weighted_async_kernel(J, P, temperature, w, total):  # pragma: no cover - compiled
    n, K = P.shape
    P = P.copy()
    WP = P.copy()
    for i in range(n):
        for k in range(K):
            WP[i, k] *= w[i]
    JP = J @ WP
    mass = np.zeros(K)
    for i in range(n):
        for k in range(K):
            mass[k] += w[i] * P[i, k]
    logits = np.empty(K)
    delta = np.empty(K)
    change = 0.0
    beta = 1.0 / temperature
    for i in range(n):
        top = -np.inf
        for k in range(K):
            logits[k] = JP[i, k] * beta + np.log(max(mass[k], _TINY) / total)
            top = max(top, logits[k])
        norm = 0.0
        for k in range(K):
            logits[k] = np.exp(logits[k] - top)
            norm += logits[k]
        moved = False
        for k in range(K):
            new = logits[k] / norm
            delta[k] = w[i] * (new - P[i, k])
            if new != P[i, k]:
                moved = True
            change = max(change, abs(new - P[i, k]))
            P[i, k] = new
            mass[k] += delta[k]
        if moved and w[i] != 0.0:
            # J is symmetric: row i is the column the others' fields need
            for j in range(n):
                c = J[i, j]
                if c != 0.0:
                    for k in range(K):
                        JP[j, k] += c * delta[k]
    return P, change


def _weighted_async_sweep(J, P, temperature, w, total):
    """:func:`~statmechlearn.cluster._mean_field.async_sweep` for weighted objects; compiled.

    Object ``i`` gets ``P[i] ∝ p exp((J W P)[i] / T)`` with ``W = diag(w)`` and the
    priors ``p = w @ P / sum(w)``, from the current assignments of all others: its
    weighted free energy's gradient divided by ``w_i``. Compiled on the first
    weighted fit only.
    """
    return _weighted_async_kernel(
        np.ascontiguousarray(J, dtype=float),
        np.ascontiguousarray(P, dtype=float),
        float(temperature),
        np.ascontiguousarray(w, dtype=float),
        float(total),
    )


def _weighted_async_reference(J, P, temperature, w, total):
    """NumPy twin of :func:`_weighted_async_sweep` (same order, same arithmetic)."""
    P = np.array(P, dtype=float)
    JP = J @ (P * w[:, None])
    mass = w @ P
    change = 0.0
    beta = 1.0 / temperature
    for i in range(P.shape[0]):
        logits = JP[i] * beta + np.log(np.maximum(mass, _TINY) / total)
        logits = np.exp(logits - logits.max())
        new = logits / logits.sum()
        change = max(change, float(np.max(np.abs(new - P[i]))))
        delta = w[i] * (new - P[i])
        P[i] = new
        mass += delta
        if w[i] != 0.0:
            JP += np.outer(J[i], delta)
    return P, change


def _report(verbose, objective):
    """The annealing engine's per-temperature callback of a verbose fit (None when quiet)."""
    if not verbose:
        return None

    def callback(k, T, P):
        print(
            f"Temperature {k + 1}: T={T:.6g}, free energy {objective(P, T):.6g}, "
            f"{P.shape[1]} clusters."
        )

    return callback


def _unit_rows(X):
    """Rows scaled to unit length; zero rows, which have no direction, stay zero (as in
    :func:`sklearn.preprocessing.normalize`): they add nothing to the cost or the fields."""
    # dividing by the largest entry first keeps |x|^2 from overflowing (or underflowing)
    top = np.abs(X).max(axis=1, keepdims=True) if X.shape[1] else np.ones((X.shape[0], 1))
    X = X / np.where(top > 0, top, 1.0)
    norms = np.linalg.norm(X, axis=1)
    return X / np.where(norms > 0, norms, 1.0)[:, None]


class LeastAngleClustering(ClusterMixin, BaseEstimator):
    """Clustering of directions by the cosine-similarity cost and the linearisation trick.

    Minimises ``R = -(1/n) sum_nu sum_{i<=j} M[i,nu] M[j,nu] cos(phi_ij)``
    (notes §3.4) over partitions of the normalised rows ``e_i = x_i / |x_i|``.
    At inverse temperature ``beta = 1/T`` the auxiliary fields
    ``y_nu = (1/n) sum_i e_i P[i,nu]`` decouple the objects,
    ``P[i,nu] ∝ p_nu exp((e_i . y_nu - P[i,nu] / n) / T)``, each object's
    field without its own pull (the naive mean field of §6 on the exact
    cost; the notes' saddle point keeps the ``1/n`` self term, whose
    zero-temperature labels need not be local minima of ``R``); ``T`` is
    lowered geometrically and clusters split when unstable. The cost weights clusters by their
    squared size (the notes warn it favours large clusters): it is the
    demonstration of the linearisation trick more than a method of choice.

    Zero rows have no direction: they stay zero, contribute nothing, and are
    labelled by the cluster priors alone (the largest cluster).

    Parameters
    ----------
    n_clusters : int, default=2
    max_temperature : float or "auto", default="auto"
        First temperature; "auto" is twice the largest eigenvalue of
        ``(1/n) sum_i e_i e_i^T``, above the first split.
    min_temperature : float, default=1e-4
        Last temperature.
    cooling_rate : float, default=0.9
        Ratio of successive temperatures, in (0, 1).
    max_iter : int, default=1000
    tol : float, default=1e-8
    noise : float, default=1e-3
        Relative size of the split perturbation (> 0).
    random_state : None, int, RandomState or Generator, default=None
    verbose : int, default=0
        At 1 or more, print one line per temperature (free energy, clusters)
        and the final moves.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    cluster_directions_ : ndarray of shape (n_found, n_features)
        The auxiliary fields ``y_nu`` (mean unit vector times cluster share), in
        the float dtype of ``X``.
    assignments_ : ndarray of shape (n_samples, n_found)
    cost_ : float
        ``R`` of ``labels_``.
    temperature_ : float
        Last annealing temperature (of :meth:`predict_proba`).
    path_ : AssignmentPath
    n_iter_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.cluster import LeastAngleClustering
    >>> X = np.array([[1, 0.1], [2, 0.1], [-1, 0.1], [-3, -0.2]])  # opposite directions
    >>> lac = LeastAngleClustering(random_state=0).fit(X)
    >>> lac.labels_.tolist() in ([0, 0, 1, 1], [1, 1, 0, 0])
    True
    >>> bool((lac.predict([[5, 0], [-5, 0]]) == lac.labels_[[0, 2]]).all())
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_temperature": [
            Interval(numbers.Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "min_temperature": [Interval(numbers.Real, 0, None, closed="neither")],
        "cooling_rate": [Interval(numbers.Real, 0, 1, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "noise": [Interval(numbers.Real, 0, None, closed="neither")],
        "random_state": [*RANDOM_STATE],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_clusters=2,
        *,
        max_temperature="auto",
        min_temperature=1e-4,
        cooling_rate=0.9,
        max_iter=1000,
        tol=1e-8,
        noise=1e-3,
        random_state=None,
        verbose=0,
    ):
        self.n_clusters = n_clusters
        self.max_temperature = max_temperature
        self.min_temperature = min_temperature
        self.cooling_rate = cooling_rate
        self.max_iter = max_iter
        self.tol = tol
        self.noise = noise
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Cluster the directions of the rows of ``X``.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)
            Sparse input is converted to a dense array. float32 input is kept:
            ``cluster_directions_`` and :meth:`predict_proba` are float32 (the
            fit computes in float64).
        y : None
            Ignored.
        sample_weight : array_like of shape (n_samples,), default=None
            Weight of each direction in the cost,
            ``R = -(1/(2W)) sum_nu |sum_{i in nu} w_i e_i|^2 + 1`` with
            ``W = sum_i w_i``, and of its entropy in the annealed free energy:
            an integer weight is the row repeated that many times, a zero weight
            drops it. The fields become ``y_nu = (1/W) sum_i w_i e_i P[i,nu]``.

        Returns
        -------
        self
        """
        X = validate_named(self, X, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32])
        dtype = X.dtype
        E = _unit_rows(dense_float64(X))
        w = effective_weights(sample_weight, E)
        n = E.shape[0]
        if self.n_clusters > n:
            raise ValueError(f"n_clusters={self.n_clusters} must be <= n_samples={n}")
        rng = check_random_state(self.random_state)
        total = float(n) if w is None else float(w.sum())
        WE = E if w is None else E * w[:, None]

        # Naive mean field of the exact cost (§6): E_Q|sum_i M e_i|^2 has the variance term
        # sum_i (P - P^2) |e_i|^2, so an object does not feel its own pull. The notes' saddle
        # point keeps it (a 1/n stay bonus), whose T -> 0 labels need not be local minima of R.
        # With weights the term is sum_i w_i^2 (P - P^2) |e_i|^2, the field of i its w_i-th.
        self_weight = np.sum(E * E, axis=1)[:, None] / n
        if w is not None:
            self_weight = np.sum(E * E, axis=1)[:, None] * w[:, None] / total

        def shares(P):
            return P.mean(axis=0) if w is None else w @ P / total

        def fields(P):
            Y = P.T @ WE / total
            return -E @ Y.T + P * self_weight, np.log(np.maximum(shares(P), _TINY))

        def free_energy(P, T):
            Y = P.T @ WE / total
            spread = (P - P * P) * self_weight
            variance = float(np.sum(spread) if w is None else w @ spread.sum(axis=1))
            energy = -0.5 * total * float(np.sum(Y * Y)) - 0.5 * variance
            return _weighted_free_energy(P, energy, T, w)

        # The one-cluster solution splits at T_c = lambda_max of (1/n) sum e e^T minus the
        # mean direction's share; start above the largest eigenvalue.
        scale = float(np.linalg.eigvalsh(WE.T @ E / total)[-1])
        t_max = 2.0 * scale if self.max_temperature == "auto" else self.max_temperature
        temps = GeometricSchedule(t_max, self.min_temperature, self.cooling_rate)
        P, path = run_annealing(
            "LeastAngleClustering",
            fields,
            free_energy,
            n,
            self.n_clusters,
            temps,
            rng=rng,
            noise=self.noise,
            max_iter=self.max_iter,
            tol=self.tol,
            callback=_report(self.verbose, free_energy),
        )
        labels = np.argmax(P, axis=1)
        if P.shape[1] > 1:
            # single-object moves to a local minimum of the hard cost (see CorrelationClustering)
            if w is None:
                labels, n_moves = direction_moves(E, labels, P.shape[1])
            else:
                labels, n_moves = weighted_direction_moves(E, labels, P.shape[1], w)
            if n_moves:
                P = (labels[:, None] == np.arange(P.shape[1])).astype(float)
            if self.verbose:
                print(f"Final moves: {n_moves} single-object moves to a local minimum of the cost.")
        self.assignments_ = P
        self.labels_ = labels
        self.cluster_directions_ = (P.T @ WE / total).astype(dtype, copy=False)
        self._shares = shares(P)
        self.cost_ = _least_angle_cost(E, self.labels_, sample_weight=w)
        self.path_ = path
        self.n_iter_ = int(sum(path.n_iter))
        self.temperature_ = float(path.temperature[-1])
        return self

    def _directions(self, X):
        check_is_fitted(self)
        X = validate_named(
            self, X, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32], reset=False
        )
        return _unit_rows(dense_float64(X)), X.dtype

    def predict_proba(self, X):
        """Gibbs assignments ``∝ p_nu exp(e . y_nu / T)`` at the last annealing temperature.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_found)
            In the float dtype of ``X``.
        """
        E, dtype = self._directions(X)
        log_w = np.log(np.maximum(self._shares, _TINY))
        Y = self.cluster_directions_.astype(np.float64)
        return gibbs_assignments(-E @ Y.T, self.temperature_, log_w)[0].astype(dtype, copy=False)

    def predict(self, X):
        """Cluster whose field ``y_nu`` has the largest projection on each direction.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        E, _ = self._directions(X)
        # Ties (zero rows) go to the largest cluster, as in fit.
        score = E @ self.cluster_directions_.astype(np.float64).T + 1e-12 * self._shares
        return np.argmax(score, axis=1)


def least_angle_cost(E, labels):
    """``R = -(1/(2n)) sum_nu |sum_{i in nu} e_i|^2 + 1`` of a hard partition of unit vectors.

    Parameters
    ----------
    E : ndarray of shape (n, d)
        Unit vectors.
    labels : ndarray of shape (n,)

    Returns
    -------
    float
    """
    return _least_angle_cost(E, labels)


def _least_angle_cost(E, labels, sample_weight=None):
    """:func:`least_angle_cost`, weighted: ``-(1/(2W)) sum_nu |sum_{i in nu} w_i e_i|^2 + 1``
    with ``W = sum_i w_i`` (None: unit weights)."""
    E = check_array_finite(E, "E", ndim=2)
    if E.shape[0] == 0:
        raise ValueError(f"E must hold at least one vector, got shape {E.shape}")
    check_magnitude(E, "E")
    labels = check_partition(labels, E.shape[0])
    n = E.shape[0]
    if sample_weight is not None:
        w = effective_weights(sample_weight, E)
        if w is not None:
            WE = E * w[:, None]
            total = sum(float(np.sum(WE[labels == k].sum(axis=0) ** 2)) for k in np.unique(labels))
            return -total / (2.0 * float(w.sum())) + 1.0
    total = sum(float(np.sum(E[labels == k].sum(axis=0) ** 2)) for k in np.unique(labels))
    return -total / (2.0 * n) + 1.0


_COSTS = (
    "correlation",
    "shifted_correlation",
    "graph_partitioning",
    "normalized_graph_partitioning",
)


def _check_similarity(S, name="X"):
    S = np.asarray(S, dtype=float)
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise ValueError(f"{name} must be a square (n, n) similarity matrix, got {S.shape}")
    if not np.all(np.isfinite(S)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if not np.allclose(S, S.T, rtol=0, atol=1e-8 * max(1.0, float(np.abs(S).max()))):
        raise ValueError(
            f"{name} must be symmetric: a similarity of i to j is the similarity of j to i "
            "(symmetrise it first, e.g. (S + S.T) / 2)"
        )
    S = S.copy()
    np.fill_diagonal(S, 0.0)  # self-similarity does not enter the cost
    return S


class CorrelationClustering(ClusterMixin, BaseEstimator):
    """Correlation clustering and graph partitioning by mean-field annealing (notes §5.2).

    Costs (``E`` is their mean-field expectation, ``h = dE/dP`` the fields):

    ``"correlation"``
        Signed similarities ``S``: ``R = -sum_nu sum_{i<j in nu} S_ij``
        (equivalent to rewarding agreement within and disagreement between
        clusters, up to a constant). The number of clusters follows from the
        signs; ``n_clusters`` is an upper bound.
    ``"shifted_correlation"``
        The same with ``S_ij - threshold``: continuous similarities counted
        relative to a threshold.
    ``"graph_partitioning"``
        Dissimilarities ``D``: ``R = sum_nu sum_{i<j in nu} D_ij`` (the cut of
        the complement graph); favours clusters of equal size.
    ``"normalized_graph_partitioning"``
        ``R = sum_nu (1/n_nu) sum_{i<j in nu} D_ij``: the normalisation
        removes the bias towards balanced (or, for similarities, very large)
        clusters; this is the cost of :class:`PairwiseClustering`.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters for graph partitioning (at most ``n_samples``); an
        upper bound for the correlation costs, which find their own number
        (capped at ``n_samples``).
    cost : {"correlation", "shifted_correlation", "graph_partitioning", \
            "normalized_graph_partitioning"}, default="correlation"
    threshold : float, default=0.0
        Shift of ``"shifted_correlation"``.
    max_temperature : float or "auto", default="auto"
        First temperature; "auto" is twice the largest eigenvalue of the
        coupling matrix (divided by ``n`` for the normalised cost), at least
        twice ``min_temperature``.
    min_temperature : float or "auto", default="auto"
        Last temperature; "auto" is ``1e-4`` times the same eigenvalue.
    cooling_rate : float, default=0.9
        Ratio of successive temperatures, in (0, 1).
    damping : float, default=0.5
        Weight of the old assignments in each synchronous mean-field sweep
        (quadratic costs oscillate without it).
    max_iter : int, default=2000
    tol : float, default=1e-7
    noise : float, default=1e-3
    random_state : None, int, RandomState or Generator, default=None
    verbose : int, default=0
        At 1 or more, print one line per temperature (free energy, clusters)
        and the final moves.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    assignments_ : ndarray of shape (n_samples, n_found)
    n_clusters_ : int
        Clusters found.
    cost_ : float
        The chosen cost of ``labels_``.
    temperature_ : float
        Last annealing temperature.
    path_ : AssignmentPath
    n_iter_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.cluster import CorrelationClustering
    >>> S = -np.ones((4, 4)); S[:2, :2] = S[2:, 2:] = 1
    >>> cc = CorrelationClustering(random_state=0).fit(S)
    >>> cc.n_clusters_, bool(cc.labels_[0] == cc.labels_[1] != cc.labels_[2] == cc.labels_[3])
    (2, True)
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "cost": [StrOptions(set(_COSTS))],
        "threshold": [Interval(numbers.Real, None, None, closed="neither")],
        "max_temperature": [
            Interval(numbers.Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "min_temperature": [
            Interval(numbers.Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "cooling_rate": [Interval(numbers.Real, 0, 1, closed="neither")],
        "damping": [Interval(numbers.Real, 0, 1, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "noise": [Interval(numbers.Real, 0, None, closed="neither")],
        "random_state": [*RANDOM_STATE],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        cost="correlation",
        threshold=0.0,
        max_temperature="auto",
        min_temperature="auto",
        cooling_rate=0.9,
        damping=0.5,
        max_iter=2000,
        tol=1e-7,
        noise=1e-3,
        random_state=None,
        verbose=0,
    ):
        self.n_clusters = n_clusters
        self.cost = cost
        self.threshold = threshold
        self.max_temperature = max_temperature
        self.min_temperature = min_temperature
        self.cooling_rate = cooling_rate
        self.damping = damping
        self.max_iter = max_iter
        self.tol = tol
        self.noise = noise
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        tags.input_tags.sparse = True
        return tags

    def _couplings(self, X):
        """``J`` with ``R = -(1/2) sum_nu P_nu^T J P_nu`` (correlation / un-normalised costs)."""
        if self.cost in ("correlation", "shifted_correlation"):
            S = _check_similarity(X)
            if self.cost == "shifted_correlation":
                S = S - self.threshold
                np.fill_diagonal(S, 0.0)
            return S
        return -check_dissimilarity(X, "X")

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Cluster the objects of a similarity (correlation costs) or dissimilarity matrix.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_samples)
            Symmetric signed similarities for the correlation costs;
            dissimilarities (non-negative, zero diagonal) for graph
            partitioning. A sparse ``X`` is a graph of the pairs that enter
            the cost: a pair not stored is a zero similarity (or dissimilarity),
            which adds nothing to it (under ``"shifted_correlation"`` it
            still counts ``-threshold``, as a stored zero does). It is converted
            to a dense array. float32 input is accepted (the fit computes in
            float64).
        y : None
            Ignored.
        sample_weight : array_like of shape (n_samples,), default=None
            Weight of each object: each pair's term of the cost is multiplied
            by ``w_i w_j``, and cluster sizes (of the normalised cost) are sums
            of weights, ``R = sum_nu (1/(2 m_nu)) sum_{i,j in nu} w_i w_j D_ij``
            with ``m_nu = sum_{i in nu} w_i``; each object's entropy in the
            annealed free energy is multiplied by ``w_i``. An integer weight is
            the object repeated that many times with its copies kept together,
            a zero weight drops it (its label is then arbitrary). With weights
            the final moves of the normalised cost are single-object moves only.

        Returns
        -------
        self
        """
        X = validate_named(
            self,
            X,
            accept_sparse=("csr", "csc"),
            dtype=[np.float64, np.float32],
            ensure_min_samples=2,
        )
        J = self._couplings(dense_float64(X))
        w = effective_weights(sample_weight, J)
        n = J.shape[0]
        partitioning = self.cost in ("graph_partitioning", "normalized_graph_partitioning")
        if partitioning and self.n_clusters > n:
            raise ValueError(f"n_clusters={self.n_clusters} must be <= n_samples={n}")
        n_clusters = min(self.n_clusters, n)  # an upper bound for the correlation costs
        rng = check_random_state(self.random_state)
        normalized = self.cost == "normalized_graph_partitioning"
        total = float(n) if w is None else float(w.sum())

        def fields(P):
            if w is not None:
                if normalized:
                    h, mass = _mean_fields(-J, P, w)
                else:
                    h, mass = -(J @ (P * w[:, None])), w @ P
            elif normalized:
                h, mass = _mean_fields(-J, P)
            else:
                h, mass = -(J @ P), P.sum(axis=0)
            return h, np.log(np.maximum(mass, _TINY) / total)

        def energy(P):
            WP = P if w is None else P * w[:, None]
            JP = J @ WP
            quad = np.einsum("ik,ik->k", WP, JP)
            if normalized:
                mass = P.sum(axis=0) if w is None else w @ P
                return float(-0.5 * np.sum(quad / np.maximum(mass, _TINY)))
            return float(-0.5 * np.sum(quad))

        def free_energy(P, T):
            return _weighted_free_energy(P, energy(P), T, w)

        if w is None:
            scale = float(np.max(np.abs(np.linalg.eigvalsh(J))))
        else:
            # the linearised weighted fields are J W: the spectrum of W^1/2 J W^1/2
            root = np.sqrt(w)
            scale = float(np.max(np.abs(np.linalg.eigvalsh(root[:, None] * J * root[None, :]))))
        if normalized:
            scale /= total
        scale = max(scale, _TINY)
        t_min = 1e-4 * scale if self.min_temperature == "auto" else float(self.min_temperature)
        t_max = (
            max(2.0 * scale, 2.0 * t_min)
            if self.max_temperature == "auto"
            else self.max_temperature
        )
        temps = GeometricSchedule(t_max, t_min, self.cooling_rate)
        # Signed or repulsive couplings make synchronous updates oscillate; asynchronous
        # sweeps lower the free energy at every step.
        if normalized:
            sweep = None
        elif w is None:
            sweep = lambda P, T: async_sweep(J, P, T)  # noqa: E731
        else:
            sweep = lambda P, T: _weighted_async_sweep(J, P, T, w, total)  # noqa: E731
        P, path = run_annealing(
            "CorrelationClustering",
            fields,
            free_energy,
            n,
            n_clusters,
            temps,
            rng=rng,
            noise=self.noise,
            damping=self.damping,
            max_iter=self.max_iter,
            tol=self.tol,
            warn_fewer=partitioning,
            sweep=sweep,
            # Un-normalised quadratic costs are not invariant under duplicating a cluster: two
            # coincident copies halve its internal pairs, which lowers a net-repulsive cost. Such
            # copies are a state of their own (they separate on cooling), not a split to undo.
            merge_tol=1e-5 if normalized else 0.0,
            callback=_report(self.verbose, free_energy),
        )
        labels = np.argmax(P, axis=1)
        # the last mean-field fixed point need not be a local minimum of the hard cost:
        # single-object and split-and-merge moves take its labels to one (for the
        # correlation costs a move may also open, merge or empty clusters, up to
        # n_clusters), and the assignments become those labels
        free = None if partitioning else n_clusters
        n_labels = P.shape[1] if partitioning else max(P.shape[1], n_clusters)
        if n_labels > 1:
            start = labels
            if w is not None and normalized:
                labels, n_moves = weighted_pair_moves(
                    -J, labels, n_labels, w, normalised=True, max_clusters=free
                )
            else:
                # the un-normalised weighted cost is the pair cost of w_i w_j J_ij
                W = -J if w is None else -J * np.outer(w, w)
                labels, n_moves = pair_moves(
                    W, labels, n_labels, normalised=normalized, max_clusters=free
                )
                labels = pair_split_merge(
                    W, labels, n_labels, normalised=normalized, max_clusters=free
                )
            if not np.array_equal(labels, start):
                labels = np.unique(labels, return_inverse=True)[1].reshape(-1)
                P = (labels[:, None] == np.arange(labels.max() + 1)).astype(float)
            if self.verbose:
                print(f"Final moves: {n_moves} single-object moves to a local minimum of the cost.")
        self.assignments_ = P
        self.labels_ = labels
        self.n_clusters_ = int(np.unique(self.labels_).size)
        hard = np.eye(P.shape[1])[self.labels_]
        self.cost_ = energy(hard)
        self.temperature_ = float(path.temperature[-1])
        self.path_ = path
        self.n_iter_ = int(sum(path.n_iter))
        return self

    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit and return ``labels_`` (objects are only defined by their relations).

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_samples)
        y : None
            Ignored.
        sample_weight : array_like of shape (n_samples,), default=None
            See :meth:`fit`.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.fit(X, sample_weight=sample_weight).labels_

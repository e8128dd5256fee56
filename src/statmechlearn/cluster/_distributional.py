"""Clustering of distributional data (§4 of the maximum-entropy clustering notes).

* :class:`HistogramClustering` — objects are empirical histograms
  ``p(j|i)``; the cost of putting object ``i`` in cluster ``nu`` is
  ``KL(p(.|i) || q(.|nu))`` and the cluster histograms are the
  assignment-weighted means ``q(j|nu) = sum_i P[i,nu] p(j|i) / sum_i P[i,nu]``.
  Deterministic annealing in ``T``, or the MAP (hard) variant. Sparse
  histograms of an ordered feature axis can be smoothed by spreading a
  fraction of every count to its neighbouring bins (``spreading``, the
  notes' heuristic), beside or instead of a uniform pseudo-count.
* :class:`~statmechlearn.cluster.InformationBottleneck` (in ``_bottleneck.py``,
  with :func:`~statmechlearn.cluster.rate_distortion`) — the same KL cost with
  objects weighted by ``p(x)`` and cluster priors ``p(t)``, on the helpers here.

Both clusterers lose the symmetric (one-cluster) solution at the same
critical temperature: expanding ``KL(p || q) ~ |u - v|^2 / 2`` with
``u_j = p_j / sqrt(qbar_j)`` turns the KL cost into half the squared
distance, so ``T_c = lambda_max`` of the weighted covariance of ``u`` (half
of the ``2 lambda_max`` of squared-Euclidean DA). For the IB this is the
square of the second singular value of ``p(x,y) / sqrt(p(x) p(y))``, so
``beta_c = 1 / s_2^2`` (``docs/derivations/information_bottleneck.md``).
"""

import math
import numbers
from typing import ClassVar

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import (
    RANDOM_STATE,
    check_sample_weight,
    validate_named,
)
from statmechlearn.cluster import _count_tables
from statmechlearn.cluster._maxent import (
    assignment_entropy,
    gibbs_assignments,
    run_annealing,
)
from statmechlearn.cluster._polish import entropy_moves
from statmechlearn.cluster._schedule import GeometricSchedule
from statmechlearn.cluster._split_merge import entropy_split_merge, entropy_total

__all__ = ["HistogramClustering", "kl_critical_temperature"]

_TINY = 1e-300


def _check_counts(X, name="X"):
    """Rows of non-negative counts (or frequencies) as conditionals, and their totals.

    A row of zeros is an object without observations: its conditional is left at zero, so
    its KL cost to every cluster is 0 and no cluster is preferred (see :func:`_object_weights`).
    A sparse ``X`` gives CSR conditionals (float64, as the dense ones always are).
    """
    if sparse.issparse(X):
        X = _count_tables.as_csr(X)
        if not np.all(np.isfinite(X.data)):
            raise ValueError(f"{name} must be finite (no NaN or inf)")
        if np.any(X.data < 0):
            raise ValueError(
                f"Negative values in data passed to {name}: counts must be >= 0, "
                f"smallest entry {X.data.min():g}"
            )
        return _count_tables.row_conditionals(X)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-dimensional (objects x bins), got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if np.any(X < 0):
        raise ValueError(
            f"Negative values in data passed to {name}: counts must be >= 0, "
            f"smallest entry {X.min():g}"
        )
    totals = X.sum(axis=1)
    return X / np.where(totals > 0, totals, 1.0)[:, None], totals


def _check_bins(n_bins, name="X"):
    if n_bins < 2:
        raise ValueError(
            f"{name} has n_features = {n_bins} bin: every histogram over one bin is the same "
            "distribution, so there is nothing to cluster; pass at least 2 bins"
        )


def _object_weights(totals, sample_weight=None, name="X"):
    """Object weights summing to one: the sample weights of the objects with counts (equal
    weights without them), zero for rows of zeros.

    An object without observations carries no evidence: it does not move the cluster
    histograms, and its assignment is the cluster prior (the mass-constrained Gibbs
    weights with a cost of 0 everywhere)."""
    observed = totals > 0
    if not observed.any():
        raise ValueError(f"{name} has no counts: every row is zero")
    if sample_weight is None:
        return observed / observed.sum()
    weights = observed * sample_weight
    if not np.any(weights > 0):
        raise ValueError("sample_weight is zero on every row of X with counts: nothing to fit")
    return weights / weights.sum()


def _sample_weights(sample_weight, X):
    """``sample_weight`` checked (finite, non-negative, one per row), or None."""
    if sample_weight is None:
        return None
    sample_weight = check_sample_weight(sample_weight, X, allow_all_zero=True)
    if not np.any(sample_weight > 0):
        raise ValueError("sample_weight must have a positive entry: all weights are zero")
    return sample_weight


def _least_cost(cost, totals, masses):
    """``argmin`` of each row's cost; a row of zeros (cost 0 everywhere) goes to the heaviest
    cluster, as its Gibbs assignment does."""
    labels = np.argmin(cost, axis=1)
    labels[totals <= 0] = int(np.argmax(masses))
    return labels


def _spread_axis(Y, axis, half):
    """One spreading pass along ``axis``: each bin keeps ``1 - 2 half`` of its mass and gives
    ``half`` to each neighbour; at an end the share that would leave the axis stays put."""
    if Y.shape[axis] == 1:
        return Y
    out = (1.0 - 2.0 * half) * Y
    src, dst = np.moveaxis(Y, axis, -1), np.moveaxis(out, axis, -1)  # dst is a view of out
    dst[..., 1:] += half * src[..., :-1]
    dst[..., :-1] += half * src[..., 1:]
    dst[..., 0] += half * src[..., 0]
    dst[..., -1] += half * src[..., -1]
    return out


def _spread_counts(X, spreading, bin_shape=None):
    """Move the fraction ``spreading`` of every count to its neighbouring bins (notes §4.1).

    Half goes to each side along the bin order; with ``bin_shape`` the rows are
    row-major flattened arrays of that shape and one pass runs along each axis
    in turn. Reflecting ends keep every row total, and the pass matrix is
    symmetric and doubly stochastic, so it commutes with a uniform pseudo-count.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n, m)
        Counts or histograms, one object per row (sparse rows stay sparse: the
        passes are one sparse matrix product).
    spreading : float
        In ``[0, 1)``; 0 returns ``X`` itself.
    bin_shape : tuple of int, optional
        Shape of the bin grid, ``prod(bin_shape) == m``; None is one axis.

    Returns
    -------
    ndarray or CSR array of shape (n, m)
    """
    if spreading == 0:
        return X
    shape = (X.shape[1],) if bin_shape is None else tuple(bin_shape)
    if sparse.issparse(X):
        return sparse.csr_array(X @ _count_tables.spreading_matrix(shape, spreading))
    Y = X.reshape(X.shape[0], *shape)
    for axis in range(1, Y.ndim):
        Y = _spread_axis(Y, axis, 0.5 * spreading)
    return Y.reshape(X.shape)


def _check_bin_shape(bin_shape, n_bins):
    if bin_shape is None:
        return None
    shape = tuple(bin_shape)
    if not shape or any(
        isinstance(b, bool) or not isinstance(b, numbers.Integral) or b < 1 for b in shape
    ):
        raise ValueError(f"bin_shape must be a tuple of positive ints, got {bin_shape!r}")
    if math.prod(shape) != n_bins:
        raise ValueError(
            f"bin_shape {shape} holds {math.prod(shape)} bins, but X has {n_bins} (its columns)"
        )
    return shape


def _neg_entropy_rows(cond):
    if sparse.issparse(cond):
        return _count_tables.neg_entropy_rows(cond)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(cond > 0, cond * np.log(cond), 0.0).sum(axis=1)


def _kl_cost(cond, neg_h, q):
    """``KL(cond[i] || q[nu])`` for all pairs, (n, K), in nats (``cond`` dense or CSR: only
    the nonzero ``p(j|i)`` enter the product)."""
    q = np.asarray(q, dtype=np.float64)  # fitted float32 histograms: _TINY underflows there
    return neg_h[:, None] - cond @ np.log(np.maximum(q, _TINY)).T


def _mix(W, cond):
    """``W.T @ cond`` as a dense array, for ``cond`` dense or CSR (then a sparse product)."""
    if sparse.issparse(cond):
        return np.ascontiguousarray(np.asarray(cond.T @ W).T)
    return W.T @ cond


def _centroids(P, cond, weights):
    """Cluster histograms and masses from assignments ``P`` and object weights ``a_i``."""
    wP = P * weights[:, None]
    mass = wP.sum(axis=0)
    q = _mix(wP, cond) / np.maximum(mass, _TINY)[:, None]
    return q, mass


def _dense_if_small(cond):
    """A small sparse table as a dense array (the dense algorithms are then exact twins)."""
    if sparse.issparse(cond) and _count_tables.is_small(cond):
        return cond.toarray()
    return cond


def _entropy_moves(cond, weights, labels, n_clusters):
    """Single-object moves for ``sum_i w_i KL(p_i || q_c(i))`` on dense or CSR rows."""
    cond = _dense_if_small(cond)
    moves = _count_tables.entropy_moves if sparse.issparse(cond) else entropy_moves
    return moves(cond, weights, labels, n_clusters)


def _entropy_total(cond, weights, labels, n_clusters):
    """``sum_nu m_nu H(q_nu)`` of ``labels`` for rows ``cond`` weighted by ``weights``."""
    if sparse.issparse(cond):
        return _count_tables.entropy_total(
            _count_tables.scale_rows(cond, weights), labels, n_clusters
        )
    return entropy_total(weights[:, None] * cond, labels, n_clusters)


def _entropy_polish(cond, weights, labels, n_clusters):
    """Single-object moves, then split-and-merge moves if every cluster is in use, for
    ``sum_i w_i KL(p_i || q_c(i))``; returns (labels, number of labels changed).

    A sparse table too large to densify (:data:`~._count_tables.DENSE_ENTRIES`) takes the
    CSR twins of the moves, whose candidates cost only the bins of the moved row.
    """
    cond = _dense_if_small(cond)
    moved, n_moves = _entropy_moves(cond, weights, labels, n_clusters)
    if np.unique(moved).size == n_clusters:
        split_merge = (
            _count_tables.entropy_split_merge if sparse.issparse(cond) else entropy_split_merge
        )
        merged = split_merge(cond, weights, moved, n_clusters)
        n_moves += int(np.count_nonzero(merged != moved))
        moved = merged
    return moved, n_moves


def kl_critical_temperature(cond, weights):
    """First critical temperature of KL clustering: ``lambda_max`` of the weighted covariance of
    ``u_j = p(j|i) / sqrt(qbar_j)`` (see the module docstring).

    Parameters
    ----------
    cond : ndarray or sparse matrix of shape (n, m)
        Object histograms ``p(j|i)``. A sparse table too large to densify
        (more than 2**22 entries) is handled as an operator (Lanczos iteration
        for the largest eigenvalue), never as a dense array.
    weights : ndarray of shape (n,)
        Object weights, summing to one.

    Returns
    -------
    float
    """
    cond = _dense_if_small(cond)
    if sparse.issparse(cond):
        return _count_tables.critical_temperature(cond, weights)
    qbar = weights @ cond
    keep = qbar > 0
    u = cond[:, keep] / np.sqrt(qbar[keep])
    centred = (u - weights @ u) * np.sqrt(weights)[:, None]
    s = np.linalg.svd(centred, compute_uv=False)
    return float(s[0] ** 2) if s.size else 0.0


class _KLClustering:
    """The KL field of histogram clustering and the IB, for :func:`anneal`."""

    def __init__(self, cond, weights, mass_constrained):
        self.cond = cond
        self.weights = weights
        self.neg_h = _neg_entropy_rows(cond)
        self.mass_constrained = mass_constrained

    def field(self, P):
        q, mass = _centroids(P, self.cond, self.weights)
        log_w = np.log(np.maximum(mass, _TINY)) if self.mass_constrained else None
        return _kl_cost(self.cond, self.neg_h, q), log_w

    def free_energy(self, P, T):
        """``E[cost] - T H`` per unit weight (plus the prior's ``KL(P || w)`` term when masses
        are constrained, which makes it the IB functional ``I(X;T)/beta - I(T;Y)`` plus a
        constant)."""
        h, log_w = self.field(P)
        energy = float(self.weights @ (P * h).sum(axis=1))
        entropy = assignment_entropy(P, self.weights)
        if log_w is not None:
            entropy += float(self.weights @ (P @ log_w))
        return energy - T * entropy


class HistogramClustering(ClusterMixin, BaseEstimator):
    """Maximum-entropy clustering of histograms with the Kullback–Leibler distortion.

    Objects are rows of a count matrix ``X[i, j]`` (occurrences of feature
    ``j`` with object ``i``), read as empirical histograms
    ``p(j|i) = X[i, j] / sum_j X[i, j]``. The cost is
    ``R = (1/n) sum_i KL(p(.|i) || q(.|c(i)))`` (notes §4.1); at temperature
    ``T`` the Gibbs assignment is
    ``P[i, nu] ∝ p_nu exp(-KL(p(.|i) || q(.|nu)) / T)`` and the cluster
    histograms are the assignment-weighted means of the object histograms.
    The cluster priors ``p_nu = mean_i P[i, nu]`` (Rose's mass-constrained
    form, which the notes' §4.1 leaves out) make the free energy independent
    of how many coincident copies of a cluster there are, so clusters can be
    split one at a time as they become unstable; as ``T -> 0`` the
    assignments become hard and the cost is the notes' ``R``.
    ``method="annealing"`` lowers ``T`` geometrically from above the first
    critical temperature (computed from the data, see
    :func:`kl_critical_temperature`) to ``min_temperature``, splitting a cluster when it
    becomes unstable (Rose's scheme, shared with the other clusterers of
    this family); ``method="map"`` is the hard
    variant (``T = 0``: assign each object to the nearest cluster histogram,
    recompute the means), started from ``n_init`` random partitions.

    Parameters
    ----------
    n_clusters : int, default=2
    method : {"annealing", "map"}, default="annealing"
    max_temperature : float or "auto", default="auto"
        First temperature of the annealing; "auto" is twice the critical
        temperature (at least twice ``min_temperature``).
    min_temperature : float, default=1e-3
        Last temperature of the annealing (in nats of KL divergence).
    cooling_rate : float, default=0.9
        Ratio of successive temperatures, in (0, 1).
    smoothing : float, default=0.0
        Pseudo-count added to every bin before normalising. It keeps cluster
        histograms positive where new objects have counts the training data
        lacked, but knows nothing of the bin order: it pulls every histogram
        toward the uniform one, and the cost stays invariant to a permutation
        of the bins. It fills every bin, so a sparse ``X`` is converted to a
        dense array when ``smoothing > 0``.
    spreading : float in [0, 1), default=0.0
        The notes' heuristic smoothing (§4.1): the fraction of every count
        moved to its neighbouring bins, half to each side along the bin order
        (an end bin keeps the half that would leave the axis, so totals are
        conserved). Histograms of an ordered feature axis that differ by a
        shift of a bin or two then overlap, and the cost is no longer
        invariant to a permutation of the bins. Applied after the
        pseudo-count (the two commute) to the data of :meth:`fit`,
        :meth:`predict`, :meth:`predict_proba` and :meth:`assignment_costs`
        alike; 0 leaves the histograms untouched.
    bin_shape : tuple of int, optional
        Shape of the bin grid when each row is a row-major flattened 2-D (or
        n-D) histogram: spreading then runs along each axis in turn. None
        (default) is one ordered axis of ``n_bins`` bins.
    n_init : int, default=10
        Random restarts of the MAP variant (the best cost is kept).
    max_iter : int, default=300
        Fixed-point iterations per temperature (or Lloyd steps per MAP start).
    tol : float, default=1e-7
        Stop when assignments change by less than this.
    noise : float, default=1e-3
        Relative size of the uneven sharing that tries to split a cluster in
        two at each temperature (> 0).
    random_state : None, int, RandomState or Generator, default=None
    verbose : int, default=0
        0 prints nothing; 1 prints a line per temperature (or per MAP
        restart) and the final moves; 2 also each Lloyd step of the MAP
        variant.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    cluster_histograms_ : ndarray of shape (n_found, n_bins)
        ``q(j|nu)``; ``n_found < n_clusters`` (with a ConvergenceWarning)
        when the annealing ends above the temperature of a further split.
        In the float dtype of ``X`` (float32 stays float32; the fit itself
        runs in float64).
    assignments_ : ndarray of shape (n_samples, n_found)
        ``P[i, nu]`` at the last temperature (one-hot for MAP).
    cluster_weights_ : ndarray of shape (n_found,)
        Cluster priors ``p_nu``: the objects' mean assignment (objects
        without counts left out; weighted by ``sample_weight``).
    cost_ : float
        ``(1/n) sum_i KL(p(.|i) || q(.|labels_[i]))`` in nats, over the ``n``
        objects with counts (the weighted mean with ``sample_weight``).
    critical_temperature_ : float
        Where the one-cluster solution becomes unstable.
    path_ : AssignmentPath or None
        Temperature, free energy and distinct clusters along the annealing.
    n_iter_ : int
        Total fixed-point iterations.

    Notes
    -----
    With ``sample_weight`` the cost is the weighted mean
    ``R = sum_i s_i KL(p(.|i) || q(.|c(i))) / sum_i s_i`` over the objects
    with counts, and every average over objects (cluster histograms, priors)
    is weighted the same way: an integer weight is the row repeated that many
    times, a zero weight drops it.

    A sparse ``X`` (CSR or CSC) is never densified, unless ``smoothing > 0``:
    the KL cost of a row needs only its nonzero counts and the cluster
    histograms are sparse-times-dense products. On a table of at most 2**22
    entries the final moves run on a dense copy, so the fit is that of the
    dense twin up to rounding; on a larger one they run on the sparse rows.

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.cluster import HistogramClustering
    >>> X = np.array([[9, 1, 0], [8, 2, 0], [0, 1, 9], [1, 0, 9]])
    >>> hc = HistogramClustering(n_clusters=2, random_state=0).fit(X)
    >>> hc.labels_.tolist() in ([0, 0, 1, 1], [1, 1, 0, 0])
    True
    >>> bool((hc.predict([[7, 3, 0], [0, 2, 8]]) == hc.labels_[[0, 2]]).all())
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "method": [StrOptions({"annealing", "map"})],
        "max_temperature": [
            Interval(numbers.Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "min_temperature": [Interval(numbers.Real, 0, None, closed="neither")],
        "cooling_rate": [Interval(numbers.Real, 0, 1, closed="neither")],
        "smoothing": [Interval(numbers.Real, 0, None, closed="left")],
        "spreading": [Interval(numbers.Real, 0, 1, closed="left")],
        "bin_shape": [None, tuple],
        "n_init": [Interval(numbers.Integral, 1, None, closed="left")],
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
        method="annealing",
        max_temperature="auto",
        min_temperature=1e-3,
        cooling_rate=0.9,
        smoothing=0.0,
        spreading=0.0,
        bin_shape=None,
        n_init=10,
        max_iter=300,
        tol=1e-7,
        noise=1e-3,
        random_state=None,
        verbose=0,
    ):
        self.n_clusters = n_clusters
        self.method = method
        self.max_temperature = max_temperature
        self.min_temperature = min_temperature
        self.cooling_rate = cooling_rate
        self.smoothing = smoothing
        self.spreading = spreading
        self.bin_shape = bin_shape
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.noise = noise
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        return _count_tags(super().__sklearn_tags__())

    def _histograms(self, X, reset):
        """The histograms of ``X`` (dense, or CSR for sparse ``X``), the row totals and the
        float dtype of ``X``."""
        X = validate_named(
            self,
            X,
            accept_sparse=("csr", "csc"),
            dtype=[np.float64, np.float32],
            reset=reset,
            ensure_all_finite=True,
        )
        dtype = X.dtype
        if self.smoothing:  # the pseudo-count fills every bin
            dense = X.toarray(order="C") if sparse.issparse(X) else X
            X = dense.astype(np.float64) + self.smoothing
        cond, totals = _check_counts(X)
        _check_bins(cond.shape[1])
        shape = _check_bin_shape(self.bin_shape, cond.shape[1])
        return _spread_counts(cond, self.spreading, shape), totals, dtype

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Cluster the histograms in ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_bins)
            Non-negative counts over at least two bins. A row of zeros (an
            object without observations) does not move the cluster
            histograms and is assigned by the cluster prior. Sparse input
            (CSR or CSC) stays sparse (see Notes).
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weight of each row in the cost (see Notes); None
            weighs every row with counts equally.

        Returns
        -------
        self
        """
        cond, totals, dtype = self._histograms(X, reset=True)
        n = cond.shape[0]
        if self.n_clusters > n:
            raise ValueError(f"n_clusters={self.n_clusters} must be <= n_samples={n}")
        rng = check_random_state(self.random_state)
        weights = _object_weights(totals, _sample_weights(sample_weight, cond))
        model = _KLClustering(cond, weights, mass_constrained=True)
        self.critical_temperature_ = kl_critical_temperature(cond, weights)
        if self.method == "annealing":
            t_start = (
                max(2.0 * self.critical_temperature_, 2.0 * self.min_temperature)
                if self.max_temperature == "auto"
                else self.max_temperature
            )
            temps = GeometricSchedule(t_start, self.min_temperature, self.cooling_rate)
            P, path = run_annealing(
                "HistogramClustering",
                model.field,
                model.free_energy,
                n,
                self.n_clusters,
                temps,
                rng=rng,
                noise=self.noise,
                max_iter=self.max_iter,
                tol=self.tol,
                callback=_temperature_report(self.verbose, model.free_energy),
            )
            self.path_ = path
            self.n_iter_ = int(sum(path.n_iter))
            q, _ = _centroids(P, cond, weights)
        else:
            P, q, self.n_iter_ = self._map(cond, model, rng)
            self.path_ = None
        cost = _kl_cost(cond, model.neg_h, q)
        cluster_weights = weights @ P
        labels = (
            _least_cost(cost, totals, cluster_weights)
            if self.method == "map"
            else np.argmax(P, axis=1)
        )
        if P.shape[1] > 1:
            # the last fixed point (or Lloyd step) need not be a local minimum of the hard
            # cost: single-object moves take the labels to one, and split-and-merge moves
            # exchange clusters no single move can; the assignments, histograms and priors
            # become those of the moved labels
            moved, n_moves = _entropy_polish(cond, weights, labels, P.shape[1])
            if n_moves:
                P = (moved[:, None] == np.arange(P.shape[1])).astype(float)
                q, _ = _centroids(P, cond, weights)
                cost = _kl_cost(cond, model.neg_h, q)
                cluster_weights = weights @ P
                labels = moved
            if self.verbose:
                print(f"Final moves: {n_moves} objects moved.")
        self.labels_ = labels
        self.assignments_ = P.astype(dtype, copy=False)
        self.cluster_histograms_ = q.astype(dtype, copy=False)
        self.cluster_weights_ = cluster_weights.astype(dtype, copy=False)
        self.cost_ = float(weights @ cost[np.arange(n), self.labels_])
        self.temperature_ = float(self.min_temperature)
        if self.verbose:
            print(f"Fit complete: {_clusters(P.shape[1])}, cost {self.cost_:.8g} nats.")
        return self

    def _map(self, cond, model, rng):
        n, k = cond.shape[0], self.n_clusters
        weights = model.weights
        best, total = None, 0
        for start in range(self.n_init):
            labels = rng.permutation(np.arange(n) % k)
            for it in range(1, self.max_iter + 1):
                P = np.eye(k)[labels]
                q, mass = _centroids(P, cond, weights)
                empty = mass <= 0
                if np.any(empty):  # re-seed an empty cluster with the worst-fitted object
                    cost = _kl_cost(cond, model.neg_h, q[~empty])
                    # an object of zero weight is not data: it seeds no cluster
                    fit = np.where(weights > 0, cost.min(axis=1), -np.inf)
                    worst = np.argsort(fit)[::-1][: int(empty.sum())]
                    q[empty] = cond[worst].toarray() if sparse.issparse(cond) else cond[worst]
                cost = _kl_cost(cond, model.neg_h, q)
                new = np.argmin(cost, axis=1)
                if self.verbose > 1:
                    value = float(weights @ cost[np.arange(n), labels])
                    print(f"Iteration {it}, cost {value:.8g}.")
                if np.array_equal(new, labels):
                    break
                labels = new
            total += it
            if np.unique(labels).size == k:
                # each restart ends at a local minimum of the hard cost under single moves,
                # which a Lloyd step from its own centroids need not be
                labels, n_moves = _entropy_moves(cond, weights, labels, k)
                if n_moves:
                    q, _ = _centroids(np.eye(k)[labels], cond, weights)
                    cost = _kl_cost(cond, model.neg_h, q)
            value = float(weights @ cost[np.arange(n), labels])
            if self.verbose:
                print(f"Restart {start + 1} of {self.n_init}: {it} iterations, cost {value:.8g}.")
            if best is None or value < best[0]:
                best = (value, np.eye(k)[labels], q)
        return best[1], best[2], total

    def _cost(self, X):
        check_is_fitted(self)
        cond, totals, dtype = self._histograms(X, reset=False)
        return _kl_cost(cond, _neg_entropy_rows(cond), self.cluster_histograms_), totals, dtype

    def assignment_costs(self, X):
        """KL divergence of each count row's histogram to each cluster histogram.

        The Gibbs assignment at temperature ``T`` is ``∝ exp(-cost / T)``
        (:meth:`predict_proba` at ``min_temperature``); posterior agreement scans ``T``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_bins)

        Returns
        -------
        ndarray of shape (n_samples, n_clusters)
            In the float dtype of ``X``.
        """
        cost, _, dtype = self._cost(X)
        return cost.astype(dtype, copy=False)

    def predict(self, X):
        """Cluster of smallest KL divergence for each count row.

        A row of zeros (no observations) favours no cluster and goes to the
        heaviest one.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_bins)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        cost, totals, _ = self._cost(X)
        return _least_cost(cost, totals, self.cluster_weights_)

    def predict_proba(self, X):
        """Gibbs assignment probabilities at the final temperature ``min_temperature``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_bins)

        Returns
        -------
        ndarray of shape (n_samples, n_clusters)
            In the float dtype of ``X``.
        """
        cost, _, dtype = self._cost(X)
        return gibbs_assignments(cost, self.temperature_)[0].astype(dtype, copy=False)


def _temperature_report(verbose, free_energy):
    """The annealing callback that prints a line per temperature at ``verbose >= 1``."""
    if not verbose:
        return None

    def report(k, T, P):
        print(
            f"Temperature {k + 1}, T={T:.6g}: {_clusters(P.shape[1])}, "
            f"free energy {free_energy(P, T):.8g}."
        )

    return report


def _clusters(k):
    return f"{k} cluster" if k == 1 else f"{k} clusters"


def _count_tags(tags):
    """Tags of the count clusterers: non-negative input, sparse tables taken as they are."""
    tags.input_tags.sparse = True
    return _positive_only_tags(tags)


def _positive_only_tags(tags):
    tags.input_tags.positive_only = True
    return tags

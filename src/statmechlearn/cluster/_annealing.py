"""Deterministic annealing for squared-Euclidean clustering (Rose; Buhmann)."""

from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from statmechlearn._core.distances import squared_distances
from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import RANDOM_STATE
from statmechlearn._core.warn import warn
from statmechlearn.cluster._annealing_inputs import dense_rows, sample_weights, verbose_print
from statmechlearn.cluster._annealing_moves import (
    coincident,
    coincident_groups,
    nearest,
)
from statmechlearn.cluster._annealing_path import AnnealingPath
from statmechlearn.cluster._annealing_transitions import _Transitions
from statmechlearn.cluster._checks import check_scale
from statmechlearn.cluster._gibbs import (
    _checked_pass,
    _fixed_point_one,
    blas_held,
    gibbs_statistics,
    posterior,
    statistics_from_pass,
    total_weight,
)
from statmechlearn.cluster._schedule import GeometricSchedule, run_schedule
from statmechlearn.theory.annealing import critical_temperature

__all__ = ["AnnealingPath", "DeterministicAnnealing"]


# Rows per chunk of the passes that need per-row posteriors or distances: O(chunk K)
# memory instead of O(n K).
_CHUNK = 1 << 15
# The final temperature's fixed point is polished to this fraction of tol, within at most
# _POLISH_ITER plain passes (the path's own temperatures need only tol).
_POLISH_TOL = 1e-8
_POLISH_ITER = 50
# The anneal leaves its subsample for all rows once no split can come and the subsample's
# assignments are this hard (mean conditional entropy per row, nats): below it a pass on
# all rows converges in a few iterations, while the soft temperatures in between would
# re-converge every row from the subsample's fixed point (tens of passes).
_HARD_ENTROPY = 1e-3
# Once every code vector is in use and the assignments on all rows are this hard (mean
# conditional entropy per row, nats), the adaptive schedule steps to the floor at once.
_SETTLED_ENTROPY = 0.03
# While the highest pending critical temperature lies below the next step, the adaptive
# schedule steps by up to cooling_rate ** _FAR_POWER, to just below it: the temperatures
# between splits only follow one fixed point (raw digits 377 passes per fit -> 348, iris
# 167 -> 146, breast cancer 181 -> 134, at the same or lower inertia over seeds 0-9).
_FAR_POWER = 2


@dataclass(frozen=True)
class _FloorOnceHard(GeometricSchedule):
    """The adaptive schedule, with one step to the floor once the path is settled and hard.

    Past the last split, once the assignments are all but hard (``hard()``: a mean
    conditional entropy below ``_SETTLED_ENTROPY`` on all rows), the fixed point only
    sharpens towards the hard-assignment limit and the settled steps to the floor
    (each at least one pass and the per-temperature checks, as much as the passes on
    small data) change nothing: from there the floor's fixed point has the same mean
    inertia over seeds 0-9 on the benchmark's six small sets, in 2-10 % fewer passes. A
    jump from the last split's soft fixed point, before they are hard, does change it
    (raw digits: mean inertia over the seeds up by 3e-6, above KMeans').
    """

    hard: Callable = lambda: False

    def next(self, temperature, critical=(), *, settled=False):
        if settled and temperature > self.min_temperature and self.hard():
            return self.min_temperature
        following = super().next(temperature, critical, settled=settled)
        critical = list(critical)
        if following is None or settled or not critical:
            return following
        # the highest pending split lies further than one step: up to _FAR_POWER steps at
        # once, landing no lower than just below it (no split is skipped)
        return min(
            following,
            max(
                self.cooling_rate**_FAR_POWER * temperature,
                self.min_temperature,
                max(critical) * (1 - self.margin),
            ),
        )


def _exact_small(X, centers):
    """Squared distances, those the expansion leaves at its round-off computed directly.

    ``|x|^2 - 2 x.y + |y|^2`` is exact to a few ulps of ``|x|^2 + |y|^2``, so a point at
    (or next to) a code vector gets ``sqrt(ulp) ~ 1e-8`` instead of its own distance; those
    few entries are recomputed from the difference.
    """
    d2 = squared_distances(X, centers)
    scale = np.einsum("ij,ij->i", X, X)[:, None] + np.einsum("ij,ij->i", centers, centers)
    rows, cols = np.nonzero(d2 <= 1e-10 * scale)
    if len(rows):
        d2[rows, cols] = np.sum((X[rows] - centers[cols]) ** 2, axis=1)
    return d2


class DeterministicAnnealing(
    _Transitions, ClusterMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    """Maximum-entropy clustering by deterministic annealing (squared Euclidean).

    The assignment of a point ``x`` to code vector ``y_k`` is the Gibbs
    distribution ``p(k|x) ∝ w_k exp(-|x - y_k|^2 / T)``; at each temperature
    the code vectors satisfy the centroid condition, which minimises the free
    energy ``F = -T <log sum_k w_k exp(-|x - y_k|^2/T)>``. Starting above the
    first critical temperature ``T_c = 2 lambda_max`` of the data covariance
    (one code vector at the mean), ``T`` is lowered and a code vector is split
    along its principal axis when ``T`` passes its own critical temperature
    ``2 lambda_max`` of the posterior-weighted covariance of its cluster,
    until ``n_clusters`` are found.

    With ``T = 2 sigma`` and ``mass_constrained=False`` the fixed points are
    the maximum-likelihood estimates of an equal-weight isotropic Gaussian
    mixture of variance ``sigma`` (Barkai & Sompolinsky's eq. 8).

    Parameters
    ----------
    n_clusters : int, default=8
        Number of code vectors to reach.
    mass_constrained : bool, default=True
        If True the weights ``w_k`` are the cluster masses (Rose's
        mass-constrained DA: coincident code vectors act as one, and the
        result does not depend on how many share a position). If False
        ``w_k = 1/K`` and all ``n_clusters`` code vectors are present from
        the start, slightly perturbed, as in unconstrained DA.
    anneal : bool, default=True
        If False, no annealing: iterate to a fixed point at ``temperature``
        from ``init`` (to follow local minima).
    temperature : float, default=None
        Fixed temperature when ``anneal=False`` (required then).
    init : array-like of shape (n_clusters, n_features), default=None
        Starting code vectors when ``anneal=False``; None draws
        ``n_clusters`` distinct data points with ``random_state``.
    max_temperature : float or "auto", default="auto"
        First temperature of the schedule; "auto" is ``1.1 T_c``, just above
        the first split.
    min_temperature : float or "auto", default="auto"
        Temperature floor of the schedule; "auto" is ``1e-3 T_c``.
    cooling_rate : float, default=0.9
        Factor ``0 < a < 1`` with ``T <- a T`` between temperatures.
    adaptive : bool, default=True
        If True the step is shortened so that the next temperature lands just
        below (``0.95`` times) the highest pending critical temperature of a
        cluster, or lengthened to land there (by at most ``cooling_rate ** 2``)
        when it lies further, so that no split is skipped by a coarse schedule (the
        refinement of :class:`~statmechlearn.cluster._schedule.GeometricSchedule`).
    relocate : bool, default=True
        Mass-constrained annealing only: at the final temperature, move code
        vectors while that lowers the inertia: split-and-merge moves (one
        code vector removed, one cluster split in two), then swap moves (one
        code vector put on a data point); see Notes. The annealed path itself
        is unchanged.
    split_sample_size : int or None, default=16384
        With more samples than this, the anneal runs on a random subsample of
        this size (drawn with ``random_state``) until every code vector is in
        use and the subsample's assignments are hard, then on all the data:
        the splits depend on the data only through the critical temperatures
        of its distribution, which the subsample estimates to
        ``O(split_sample_size^-1/2)`` (the largest eigenvalue of a cluster of
        ``m / K`` rows to a relative standard error ``sqrt(2 K / m)``: 3.5 %
        for ten clusters of the default), and most of an anneal's passes are
        spent near the splits and at the soft temperatures around them. The
        path records the subsample's statistics at those temperatures. None:
        always all rows.
    max_iter : int, default=300
        Maximum passes over the data per temperature. Annealing extrapolates
        the fixed-point iteration (SQUAREM) where that lowers the free
        energy; ``anneal=False`` iterates plainly, to stay in the minimum it
        starts in.
    tol : float, default=1e-4
        Relative tolerance, as in ``KMeans``: a temperature's fixed point is
        reached when the squared Frobenius norm of the change of the code
        vectors in one iteration is below ``tol`` times the mean per-feature
        variance of X.
    random_state : None, int, RandomState or Generator, default=None
        Seeds the perturbations that break symmetry at splits and the random
        ``init``.
    verbose : int, default=0
        At 1 or more, :meth:`fit` prints one line per temperature (its
        free energy and distortion per sample, the number of distinct code
        vectors and the fixed-point iterations it took) and one per final
        move (split-and-merge, swap and single-object moves).

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_found, n_features)
        Code vectors at the final temperature (float32 for float32 ``X``).
    cluster_weights_ : ndarray of shape (n_found,)
        Their weights ``w_k`` (uniform unless mass-constrained).
    labels_ : ndarray of shape (n_samples,)
        Most probable cluster of each training point (mass-constrained: a
        local minimum of the inertia under single-point moves).
    inertia_ : float
        Sum of squared distances to the nearest code vector (as ``KMeans``),
        each weighted by its sample's weight when ``sample_weight`` is given.
    temperature_ : float
        Final temperature.
    critical_temperature_ : float
        ``2 lambda_max`` of the training data covariance (the first split).
    path_ : AnnealingPath
        Temperatures, free energies, distortions, entropies, code vectors and
        critical events.
    n_iter_ : int
        Total fixed-point iterations.
    n_samples_seen_ : int
        Samples seen by :meth:`partial_fit` (set by it only).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Defined when X has string feature names.

    See Also
    --------
    sklearn.cluster.KMeans : the ``T -> 0`` limit (Lloyd's algorithm).
    EqualWidthMixture : the same fixed points read as ML Gaussian mixtures.

    Notes
    -----
    With ``sample_weight`` every sum over the samples is weighted: the free
    energy is ``F = -T sum_i a_i log sum_k w_k exp(-|x_i - y_k|^2/T) / sum_i a_i``,
    the masses ``sum_i a_i p(k|x_i)`` and the centroids
    ``sum_i a_i p(k|x_i) x_i / sum_i a_i p(k|x_i)``, and the hard cost of the
    final moves is ``sum_i a_i |x_i - y_c(i)|^2`` (Hartigan's gain for moving
    ``x`` of weight ``a`` from ``A`` to ``B`` is
    ``a n_B/(n_B + a) |x - m_B|^2 - a n_A/(n_A - a) |x - m_A|^2``, the ``n``
    cluster weights): an integer weight is the sample repeated, a zero weight
    the sample dropped. Each sample's assignment probabilities are its own.

    A run whose floor is reached with fewer than ``n_clusters`` distinct code
    vectors (too few distinct points, or constant data, which has no
    transition) warns and keeps what it found. Non-converged temperatures are
    counted and reported in one :class:`ConvergenceWarning`.

    Mass-constrained annealing with a budget of ``n_clusters`` spends its code
    vectors on the first clusters to become unstable. On data with far
    outliers those are a few far points: their posterior covariance, and so
    their critical temperature, is the largest (standardised digits: clusters
    of 1 and 3 points, inertia 11 % above KMeans). On overlapping clusters
    the anneal can also end with two code vectors in one cluster and one
    across two. With ``relocate`` the final partition is improved by
    split-and-merge moves (Ueda, Nakano, Ghahramani & Hinton, Neural
    Computation 12, 2109 (2000)) and then by swap moves (Kanungo et al.,
    Computational Geometry 28, 89 (2004)) with candidate points drawn by
    ``D^2`` sampling from ``random_state``: each round ranks the moves by
    their exact hard-assignment distortion before iteration, runs the fixed
    point from the best three, and keeps the first that reaches another
    partition of lower inertia; when none does, the one nearest to it is
    carried on by Hartigan's single-object moves and kept if that reaches
    one. The moves stop after a round with none kept. Last (with or without
    ``relocate``, mass-constrained only), Hartigan's moves take the final
    partition to a local minimum of the inertia, kept where it is lower: no single
    point can change cluster for less (a fixed point of the centroid
    iteration need not be one). The hard cost minimised at ``T -> 0`` is
    ``KMeans``' inertia; on tiny problems the fit reaches its exact optimum
    (``docs/optimality.md``).

    Once every code vector allowed is in use and distinct no transition can
    come, and the adaptive schedule cools by ``cooling_rate ** 4`` per step
    (:data:`~statmechlearn.cluster._schedule.SETTLED_POWER`) until the
    assignments on all rows are all but hard (mean conditional entropy below
    0.03 nats), then steps to ``min_temperature`` at once.

    References
    ----------
    K. Rose, "Deterministic annealing for clustering, compression,
    classification, regression, and related optimization problems", Proc.
    IEEE 86, 2210 (1998).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_blobs
    >>> from statmechlearn.cluster import DeterministicAnnealing
    >>> X, _ = make_blobs(300, centers=3, random_state=0)
    >>> da = DeterministicAnnealing(n_clusters=3, random_state=0).fit(X)
    >>> da.cluster_centers_.shape
    (3, 2)
    >>> bool((da.predict(X) == da.labels_).all()), da.transform(X[:5]).shape
    (True, (5, 3))
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "mass_constrained": ["boolean"],
        "anneal": ["boolean"],
        "temperature": [Interval(Real, 0, None, closed="neither"), None],
        "init": ["array-like", None],
        "max_temperature": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "min_temperature": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "cooling_rate": [Interval(Real, 0, 1, closed="neither")],
        "adaptive": ["boolean"],
        "relocate": ["boolean"],
        "split_sample_size": [Interval(Integral, 1, None, closed="left"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": [*RANDOM_STATE],
        "verbose": ["verbose"],
    }
    # the fit's sample weights while it runs (None: unweighted, also for partial_fit)
    _sample_weight = None

    def __init__(
        self,
        n_clusters=8,
        *,
        mass_constrained=True,
        anneal=True,
        temperature=None,
        init=None,
        max_temperature="auto",
        min_temperature="auto",
        cooling_rate=0.9,
        adaptive=True,
        relocate=True,
        split_sample_size=2**14,
        max_iter=300,
        tol=1e-4,
        random_state=None,
        verbose=0,
    ):
        self.n_clusters = n_clusters
        self.mass_constrained = mass_constrained
        self.anneal = anneal
        self.temperature = temperature
        self.init = init
        self.max_temperature = max_temperature
        self.min_temperature = min_temperature
        self.cooling_rate = cooling_rate
        self.adaptive = adaptive
        self.relocate = relocate
        self.split_sample_size = split_sample_size
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    # -- fitting ---------------------------------------------------------------
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Anneal (or iterate at fixed temperature) on X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data, finite, float64 or float32 (computed in float64;
            the code vectors are returned in X's dtype). Sparse input is
            converted to a dense array.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the samples in every sum of the fit (see
            Notes); None weighs each one.

        Returns
        -------
        self : DeterministicAnnealing
            Fitted estimator.
        """
        X, dtype = dense_rows(self, X, reset=True)
        self._sample_weight = sample_weights(sample_weight, X)
        # a fit starts a new stream for partial_fit
        self.__dict__.pop("_stream_mass", None)
        n = X.shape[0]
        if self.n_clusters > n:
            raise ValueError(
                f"n_clusters={self.n_clusters} must be <= n_samples={n}; "
                "there cannot be more clusters than points"
            )
        rng = check_random_state(self.random_state)
        # The passes run on numba's threads. A BLAS call on several threads between them
        # (the split axes, the relocation's distances) leaves OpenBLAS's threads spinning
        # for a while, and on as many cores as there are threads each parallel pass then
        # waits for a thread that has no core: on two cores a pass right after a threaded
        # product took 15 ms instead of 1.2 ms, and a fit at n = 2e5 593 ms instead of 363.
        # Entered once here, the passes inside do not enter it again (blas_held).
        try:
            with blas_held():
                self._fit_centred(X, rng)
        finally:
            del self._sample_weight
        self.cluster_centers_ = self.cluster_centers_.astype(dtype, copy=False)
        return self

    def _fit_centred(self, X, rng):
        """The fit proper on validated ``X``: centre, anneal or iterate, record the results."""
        w = self._sample_weight
        # centred data keep |x|^2 - 2 x.y + |y|^2 free of cancellation
        mean = X.mean(axis=0) if w is None else np.average(X, axis=0, weights=w)
        X = X - mean
        self._train_mean = mean
        self._x_sq = np.einsum("ij,ij->i", X, X)
        cov = np.atleast_2d(np.cov(X, rowvar=False, bias=True, aweights=w))
        self.critical_temperature_ = critical_temperature(cov)
        self._scale = max(float(np.trace(cov)), np.finfo(float).tiny)
        # as KMeans: relative to the mean per-feature variance
        self._variance = self._scale / X.shape[1]
        self._tol_abs = self.tol * self._variance
        self._stalled = []
        self.path_ = AnnealingPath()
        self.n_iter_ = 0
        self._iter_recorded = 0
        if self.anneal:
            centers, log_w = self._anneal(X, rng)
        else:
            centers, log_w = self._fixed(X, rng)
        self.cluster_centers_ = centers + mean
        self.cluster_weights_ = np.exp(log_w)
        self.labels_, self.inertia_ = self._labels(X, centers, log_w)
        verbose_print(
            self.verbose,
            f"Finished at T={self.temperature_:.4g}: {len(centers)} code vectors, "
            f"inertia {self.inertia_:.6g}, {self.n_iter_} iterations.",
        )
        if self._stalled:
            T, shift = self._stalled[0]
            warn(
                f"the fixed point did not converge within max_iter={self.max_iter} at "
                f"{len(self._stalled)} temperature(s) (first at T={T:.4g}, last relative "
                f"change {shift / self._variance:.2e} > tol={self.tol}); increase "
                "max_iter or cool more slowly",
                ConvergenceWarning,
            )
        del self._x_sq, self._stalled, self._iter_recorded

    def _labels(self, X, centers, log_w):
        """Most probable cluster at the final temperature, and the inertia."""
        labels, inertia = nearest(X, self._x_sq, centers, self._sample_weight)
        if np.ptp(log_w) > 0.0:
            # unequal weights tilt the most probable cluster away from the nearest one
            labels = np.empty_like(labels)
            for start in range(0, X.shape[0], _CHUNK):
                rows = slice(start, start + _CHUNK)
                proba, _ = posterior(
                    X[rows], centers[None], log_w[None], self.temperature_, self._x_sq[rows]
                )
                labels[rows] = proba[:, 0, :].argmax(axis=1)
        return labels, inertia

    def _iterate(self, X, centers, log_w, T, *, with_stats=True):
        """The fixed point at T from (centers, log_w), with the path statistics of its last pass.

        ``with_stats=False`` (the relocation's trials, whose statistics nothing reads)
        returns None in their place.
        """
        # fit validated X once; the per-temperature calls skip the public checks
        c, lw, n_it, shift, out = _fixed_point_one(
            X,
            centers[None],
            log_w[None],
            float(T),
            self._x_sq,
            mass_constrained=self.mass_constrained,
            max_iter=self.max_iter,
            tol=self._tol_abs,
            # the annealed path only needs each temperature's minimum; a fixed-T
            # run follows the minimum it starts in, so plain iteration there
            accelerate=self.anneal,
            final_stats=True,
            sample_weight=self._sample_weight,
        )
        self.n_iter_ += n_it
        if shift[0] > self._tol_abs:
            self._stalled.append((T, float(shift[0])))
        return c[0], lw[0], self._stats_from(X.shape[0], T, out) if with_stats else None

    def _stats_from(self, n, T, out):
        _, mass, dist, log_z, plogp = out
        n = total_weight(n, self._sample_weight)
        stats = statistics_from_pass(n, T, mass, dist, log_z, plogp)
        stats["cluster_mass"], stats["cluster_distortion"] = mass[0], dist[0]
        return stats

    def _statistics(self, X, centers, log_w, T):
        """Path statistics of one Gibbs pass, with the per-cluster mass and distortion."""
        out = _checked_pass(
            X, centers[None], log_w[None], float(T), self._x_sq, self._sample_weight
        )
        return self._stats_from(X.shape[0], T, out)

    def _record(self, X, centers, log_w, T, stats=None):
        if stats is None:
            stats = self._statistics(X, centers, log_w, T)
        n_distinct = int(coincident_groups(coincident(centers, np.sqrt(self._scale))).max()) + 1
        self.path_._append(T, stats, centers + self._train_mean, np.exp(log_w), n_distinct)
        if self.verbose:
            print(
                f"Temperature {T:.4g}: free energy {stats['free_energy'][0]:.6g}, "
                f"distortion {stats['distortion'][0]:.6g}, {n_distinct} code vectors, "
                f"{self.n_iter_ - self._iter_recorded} iterations."
            )
            self._iter_recorded = self.n_iter_

    def _fixed(self, X, rng):
        if self.temperature is None:
            raise ValueError("temperature must be given (a float > 0) when anneal=False")
        if self.init is None:
            distinct = np.unique(X, axis=0)
            if len(distinct) < self.n_clusters:
                raise ValueError(
                    f"init=None needs n_clusters={self.n_clusters} distinct points, "
                    f"X has {len(distinct)}"
                )
            centers = distinct[rng.choice(len(distinct), self.n_clusters, replace=False)]
        else:
            centers = np.array(self.init, dtype=float)
            if centers.shape != (self.n_clusters, X.shape[1]) or not np.all(np.isfinite(centers)):
                raise ValueError(
                    f"init must be a finite array of shape (n_clusters, n_features) = "
                    f"({self.n_clusters}, {X.shape[1]}), got shape {centers.shape}"
                )
            check_scale(centers, "init")
            centers = centers - self._train_mean
        T = float(self.temperature)
        log_w = np.full(self.n_clusters, -np.log(self.n_clusters))
        centers, log_w, stats = self._iterate(X, centers, log_w, T)
        self._record(X, centers, log_w, T, stats)
        self.temperature_ = T
        return centers, log_w

    def _anneal(self, X, rng):
        Tc = self.critical_temperature_
        K_max = self.n_clusters
        mean = np.zeros(X.shape[1])
        if Tc <= 0.0:
            if K_max > 1:
                warn(
                    "X is constant (no critical temperature): "
                    f"{'one code vector' if self.mass_constrained else 'every code vector'} "
                    f"at the mean instead of n_clusters={K_max} distinct ones",
                    UserWarning,
                )
            if self.mass_constrained:
                centers, log_w = mean[None, :].copy(), np.zeros(1)
            else:
                # unconstrained DA keeps all its code vectors; here they all coincide
                centers, log_w = (
                    np.repeat(mean[None, :], K_max, axis=0),
                    np.full(K_max, -np.log(K_max)),
                )
            floor = self.min_temperature
            self.temperature_ = 1.0 if floor == "auto" else float(floor)
            self._record(X, centers, log_w, self.temperature_)
            return centers, log_w
        T_floor = 1e-3 * Tc if self.min_temperature == "auto" else float(self.min_temperature)
        T_start = 1.1 * Tc if self.max_temperature == "auto" else float(self.max_temperature)
        if self.mass_constrained:
            centers, log_w = mean[None, :].copy(), np.zeros(1)
        else:
            centers = np.repeat(mean[None, :], K_max, axis=0)
            log_w = np.full(K_max, -np.log(K_max))

        # Until the last split, the anneal may run on a random subsample: the critical
        # temperatures are those of the data's distribution, estimated to O(m^-1/2).
        data = {"X": X, "x_sq": self._x_sq, "w": self._sample_weight}
        if self.split_sample_size is not None and X.shape[0] > self.split_sample_size:
            rows = np.sort(rng.choice(X.shape[0], self.split_sample_size, replace=False))
            data["X"], self._x_sq = X[rows], self._x_sq[rows]
            if data["w"] is not None:
                self._sample_weight = data["w"][rows]

        def use_all_rows():
            data["X"], self._x_sq, self._sample_weight = X, data["x_sq"], data["w"]

        # The engine's state: code vectors, log-weights, the path statistics of the last
        # Gibbs pass (None once a merge or split made them stale), pending split candidates.
        def solve(state, T):
            return (*self._iterate(data["X"], state[0], state[1], T), [])

        def transition(state, T):
            centers, log_w, stats, _ = state
            if self.mass_constrained:
                n_before = len(centers)
                centers, log_w = self._merge(centers, log_w, T, stats)
                if len(centers) < n_before:
                    stats = None
            candidates = self._candidates(data["X"], centers, log_w, T)
            if any(c[0] > T for c in candidates):
                centers, log_w, stats, candidates = self._split(
                    data["X"], centers, log_w, T, rng, candidates
                )
            return centers, log_w, stats, candidates

        def record(state, T):
            self._record(data["X"], state[0], state[1], T, state[2])
            if (
                data["X"] is not X
                and self._settled(state[0])
                and self.path_.entropy[-1] < _HARD_ENTROPY
            ):
                use_all_rows()

        (centers, log_w, _, _), temps = run_schedule(
            (centers, log_w, None, []),
            _FloorOnceHard(
                T_start,
                T_floor,
                self.cooling_rate,
                hard=lambda: data["X"] is X and self.path_.entropy[-1] < _SETTLED_ENTROPY,
            ),
            solve=solve,
            transition=transition,
            record=record,
            # the halves of a new split report their critical temperatures at the next T
            critical=(lambda state: [c[0] for c in state[3]]) if self.adaptive else None,
            settled=(lambda state: self._settled(state[0])) if self.adaptive else None,
        )
        self.temperature_ = float(temps[-1])
        use_all_rows()
        if self.relocate and self.mass_constrained and len(centers) == K_max > 1:
            centers, log_w = self._relocate(X, centers, log_w, self.temperature_, rng)
        # the moves serve the hard cost: mass-constrained annealing ends at T -> 0, where the
        # free energy is the inertia; an unconstrained fit (EqualWidthMixture) ends at its
        # width, where a partition's moves can lead the final fixed point to a higher one
        if len(centers) > 1 and self.mass_constrained:
            centers, log_w = self._single_moves(X, centers, log_w, self.temperature_)
        # The path needs each temperature's fixed point to tol; the answer is the last
        # one, polished as KMeans polishes its own: at T_floor assignments are all but
        # hard, so plain iteration reaches the exact fixed point in a few passes.
        centers, log_w, n_it, _ = _fixed_point_one(
            X,
            centers[None],
            log_w[None],
            self.temperature_,
            self._x_sq,
            mass_constrained=self.mass_constrained,
            max_iter=_POLISH_ITER,
            tol=_POLISH_TOL * self._tol_abs,
            accelerate=False,
            sample_weight=self._sample_weight,
        )
        self.n_iter_ += n_it
        centers, log_w = centers[0], log_w[0]
        if self.path_.n_clusters[-1] < K_max:
            warn(
                f"reached min_temperature={T_floor:.4g} with {self.path_.n_clusters[-1]} "
                f"distinct code vectors instead of n_clusters={K_max} (too few distinct "
                "points, or clusters below the floor's resolution); lower "
                "min_temperature or n_clusters",
                UserWarning,
            )
        return centers, log_w

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None, sample_weight=None):
        """Update the code vectors with one batch (mini-batch / streaming DA).

        The first call fits (anneals) on its batch. Each later call makes one
        Gibbs assignment of the batch at the final temperature and adds its
        sufficient statistics ``sum_x p(k|x)`` and ``sum_x p(k|x) x`` to
        running totals over every batch seen, from which the code vectors
        (centroid condition) and, when mass-constrained, the weights are
        recomputed: incremental EM (Neal & Hinton 1998) with step
        ``1 / n_samples_seen_``, as ``MiniBatchKMeans`` at ``T -> 0``. The
        memory is that of one batch; see ``docs/scaling.md`` for streaming a
        dask array on a ``dask.distributed`` cluster.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            One batch, finite (sparse input is converted to a dense array).
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the batch's samples in the running sums (see :meth:`fit`).

        Returns
        -------
        self : DeterministicAnnealing
            Updated estimator; ``labels_`` and ``inertia_`` refer to this batch.
        """
        if not hasattr(self, "_stream_mass"):
            self.fit(X, sample_weight=sample_weight)
            X, _ = self._validate(X)
            w = sample_weights(sample_weight, X)
            proba, _ = self._posterior(X)
            if w is not None:
                proba = proba * w[:, None]
            self._stream_mass = proba.sum(axis=0)
            self._stream_sums = proba.T @ X
            self.n_samples_seen_ = X.shape[0]
            return self
        X, _ = self._validate(X)
        check_scale(X)
        w = sample_weights(sample_weight, X)
        centers = self._centers_centred()
        log_w = np.log(self.cluster_weights_)
        x_sq = np.einsum("ij,ij->i", X, X)
        sums, mass, _, _, _ = _checked_pass(
            X, centers[None], log_w[None], self.temperature_, x_sq, w
        )
        self._stream_mass = self._stream_mass + mass[0]
        self._stream_sums = self._stream_sums + sums[0]
        self.n_samples_seen_ += X.shape[0]
        seen = self._stream_mass > 0.0
        centers = np.where(
            seen[:, None],
            self._stream_sums / np.where(seen, self._stream_mass, 1.0)[:, None],
            centers,
        )
        dtype = self.cluster_centers_.dtype
        self.cluster_centers_ = (centers + self._train_mean).astype(dtype, copy=False)
        if self.mass_constrained:
            self.cluster_weights_ = self._stream_mass / self._stream_mass.sum()
        self._x_sq, self._sample_weight = x_sq, w
        try:
            self.labels_, self.inertia_ = self._labels(X, centers, np.log(self.cluster_weights_))
        finally:
            del self._x_sq, self._sample_weight
        return self

    # -- prediction ------------------------------------------------------------
    def _posterior(self, X):
        """Assignment probabilities and log partition sums of X already shifted by the mean."""
        proba, log_z = posterior(
            X,
            self._centers_centred()[None],
            np.log(self.cluster_weights_)[None],
            self.temperature_,
        )
        return proba[:, 0, :], log_z[:, 0]

    def _proba(self, X):
        return self._posterior(X)[0]

    def _centers_centred(self):
        return self.cluster_centers_ - self._train_mean

    def _validate(self, X):
        """Validated X in float64, shifted by the training mean like the fit's distances,
        and its float dtype."""
        check_is_fitted(self)
        X, dtype = dense_rows(self, X, reset=False)
        return X - self._train_mean, dtype

    def predict_proba(self, X):
        """Gibbs assignment probabilities at the final temperature.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_found)
            In X's float dtype.
        """
        X, dtype = self._validate(X)
        return self._proba(X).astype(dtype, copy=False)

    def predict(self, X):
        """Most probable cluster at the final temperature.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X, _ = self._validate(X)
        return self._proba(X).argmax(axis=1)

    @property
    def _n_features_out(self):
        """Number of output columns of :meth:`transform` (for ``get_feature_names_out``)."""
        return self.cluster_centers_.shape[0]

    def transform(self, X):
        """Euclidean distances to the code vectors (as ``KMeans.transform``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_found)
            In X's float dtype.
        """
        X, dtype = self._validate(X)
        return np.sqrt(_exact_small(X, self._centers_centred())).astype(dtype, copy=False)

    def free_energy(self, X):
        """Free energy per sample ``-T <log sum_k w_k exp(-|x - y_k|^2/T)>`` of X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        float
        """
        X, _ = self._validate(X)
        stats = gibbs_statistics(
            X, self._centers_centred()[None], np.log(self.cluster_weights_)[None], self.temperature_
        )
        return float(stats["free_energy"][0])

    def score(self, X, y=None):
        """Negative free energy per sample at the final temperature (larger is better).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        float
        """
        return -self.free_energy(X)

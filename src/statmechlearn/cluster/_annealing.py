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
from statmechlearn._core.validation import RANDOM_STATE, validate_named
from statmechlearn._core.warn import warn
from statmechlearn.cluster._annealing_moves import (
    SWAP_ROWS,
    coincident,
    coincident_groups,
    nearest,
    principal_axes,
    relocate,
    swap,
)
from statmechlearn.cluster._annealing_path import AnnealingPath
from statmechlearn.cluster._checks import check_scale
from statmechlearn.cluster._gibbs import (
    _checked_pass,
    _fixed_point_one,
    blas_held,
    gibbs_statistics,
    posterior,
    statistics_from_pass,
)
from statmechlearn.cluster._polish import sse_moves
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


class DeterministicAnnealing(
    ClusterMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
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

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_found, n_features)
        Code vectors at the final temperature.
    cluster_weights_ : ndarray of shape (n_found,)
        Their weights ``w_k`` (uniform unless mass-constrained).
    labels_ : ndarray of shape (n_samples,)
        Most probable cluster of each training point (mass-constrained: a
        local minimum of the inertia under single-point moves).
    inertia_ : float
        Sum of squared distances to the nearest code vector (as ``KMeans``).
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
    }

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

    # -- fitting ---------------------------------------------------------------
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Anneal (or iterate at fixed temperature) on X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, finite.
        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : DeterministicAnnealing
            Fitted estimator.
        """
        X = check_scale(validate_named(self, X, dtype=np.float64))
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
        with blas_held():
            self._fit_centred(X, rng)
        return self

    def _fit_centred(self, X, rng):
        """The fit proper on validated ``X``: centre, anneal or iterate, record the results."""
        # centred data keep |x|^2 - 2 x.y + |y|^2 free of cancellation
        mean = X.mean(axis=0)
        X = X - mean
        self._train_mean = mean
        self._x_sq = np.einsum("ij,ij->i", X, X)
        cov = np.atleast_2d(np.cov(X, rowvar=False, bias=True))
        self.critical_temperature_ = critical_temperature(cov)
        self._scale = max(float(np.trace(cov)), np.finfo(float).tiny)
        # as KMeans: relative to the mean per-feature variance
        self._variance = self._scale / X.shape[1]
        self._tol_abs = self.tol * self._variance
        self._stalled = []
        self.path_ = AnnealingPath()
        self.n_iter_ = 0
        if self.anneal:
            centers, log_w = self._anneal(X, rng)
        else:
            centers, log_w = self._fixed(X, rng)
        self.cluster_centers_ = centers + mean
        self.cluster_weights_ = np.exp(log_w)
        self.labels_, self.inertia_ = self._labels(X, centers, log_w)
        if self._stalled:
            T, shift = self._stalled[0]
            warn(
                f"the fixed point did not converge within max_iter={self.max_iter} at "
                f"{len(self._stalled)} temperature(s) (first at T={T:.4g}, last relative "
                f"change {shift / self._variance:.2e} > tol={self.tol}); increase "
                "max_iter or cool more slowly",
                ConvergenceWarning,
            )
        del self._x_sq, self._stalled

    def _labels(self, X, centers, log_w):
        """Most probable cluster at the final temperature, and the inertia."""
        labels, inertia = nearest(X, self._x_sq, centers)
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
        )
        self.n_iter_ += n_it
        if shift[0] > self._tol_abs:
            self._stalled.append((T, float(shift[0])))
        return c[0], lw[0], self._stats_from(X.shape[0], T, out) if with_stats else None

    @staticmethod
    def _stats_from(n, T, out):
        _, mass, dist, log_z, plogp = out
        stats = statistics_from_pass(n, T, mass, dist, log_z, plogp)
        stats["cluster_mass"], stats["cluster_distortion"] = mass[0], dist[0]
        return stats

    def _statistics(self, X, centers, log_w, T):
        """Path statistics of one Gibbs pass, with the per-cluster mass and distortion."""
        out = _checked_pass(X, centers[None], log_w[None], float(T), self._x_sq)
        return self._stats_from(X.shape[0], T, out)

    def _record(self, X, centers, log_w, T, stats=None):
        if stats is None:
            stats = self._statistics(X, centers, log_w, T)
        n_distinct = int(coincident_groups(coincident(centers, np.sqrt(self._scale))).max()) + 1
        self.path_._append(T, stats, centers + self._train_mean, np.exp(log_w), n_distinct)

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
        data = {"X": X, "x_sq": self._x_sq}
        if self.split_sample_size is not None and X.shape[0] > self.split_sample_size:
            rows = np.sort(rng.choice(X.shape[0], self.split_sample_size, replace=False))
            data["X"], self._x_sq = X[rows], self._x_sq[rows]

        def use_all_rows():
            data["X"], self._x_sq = X, data["x_sq"]

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

    def _relocate(self, X, centers, log_w, T, rng):
        """Split-and-merge, then swap moves at the final temperature (see Notes).

        Above ``SWAP_ROWS`` rows the moves are searched on an even thinning of
        X (each trial is a fixed point, tens of passes) and their result is
        kept only if its fixed point on all rows has a lower inertia.
        """
        x_sq = self._x_sq
        stride = -(-X.shape[0] // SWAP_ROWS)
        Xs, self._x_sq = X[::stride], x_sq[::stride]
        events = []

        def trial(X, centers, log_w, T):
            return self._iterate(X, centers, log_w, T, with_stats=False)

        try:
            moved_c, moved_w = relocate(Xs, self._x_sq, centers, log_w, T, trial, events)
            swapped = swap(Xs, self._x_sq, moved_c, T, trial, events, rng)
            if swapped is not None:
                moved_c, moved_w = swapped
        finally:
            self._x_sq = x_sq
        if not events:
            return centers, log_w
        if stride > 1:
            moved_c, moved_w, _ = self._iterate(X, moved_c, moved_w, T, with_stats=False)
            if not nearest(X, x_sq, moved_c)[1] < nearest(X, x_sq, centers)[1] * (1.0 - 1e-12):
                return centers, log_w
        self.path_.events.extend(events)
        return moved_c, moved_w

    def _single_moves(self, X, centers, log_w, T):
        """Hartigan's single-object moves on the final partition, kept if the free energy falls.

        The fixed point at the floor is one of Lloyd's: every row is nearest its own
        centroid, yet moving one row to another cluster can still lower the k-means
        cost (``n_b/(n_b+1) |x - m_b|^2 < n_a/(n_a-1) |x - m_a|^2``). The moves take the
        partition to a local minimum of the cost under single moves
        (:func:`~statmechlearn.cluster._polish.sse_moves`), where every row is still
        nearest its own centroid, so the fixed point from its means is that partition.
        """
        labels, _ = nearest(X, self._x_sq, centers)
        K = len(centers)
        if np.bincount(labels, minlength=K).min() == 0:
            return centers, log_w
        moved, n_moves = sse_moves(X, labels, K)
        if n_moves == 0:
            return centers, log_w
        counts = np.bincount(moved, minlength=K)
        sums = np.column_stack([np.bincount(moved, weights=col, minlength=K) for col in X.T])
        trial_w = np.log(counts / X.shape[0]) if self.mass_constrained else log_w
        trial, trial_w, _ = self._iterate(X, sums / counts[:, None], trial_w, T, with_stats=False)
        # judged by the anneal's own objective at T, the free energy (the inertia as
        # T -> 0): at a finite last temperature (EqualWidthMixture's width) a fixed point
        # of lower hard inertia can have a higher free energy
        before, after = (
            float(gibbs_statistics(X, c[None], w[None], T)["free_energy"][0])
            for c, w in ((centers, log_w), (trial, trial_w))
        )
        if not after < before - 1e-12 * abs(before):
            return centers, log_w
        self.path_.events.append(
            {
                "temperature": T,
                "critical_temperature": np.nan,
                "cluster": -1,
                "accepted": True,
                "single_moves": int(n_moves),
            }
        )
        return trial, trial_w

    def _settled(self, centers):
        """Whether no split can come any more: every code vector allowed is in use and distinct."""
        if self.mass_constrained:
            return len(centers) >= self.n_clusters
        return int(coincident_groups(coincident(centers, np.sqrt(self._scale))).max()) + 1 == len(
            centers
        )

    def _merge(self, centers, log_w, T, stats):
        """Merge mass-constrained code vectors that have fallen together.

        Coincident code vectors act as one whose weight is their sum, so
        merging them changes nothing but frees room for a split elsewhere.
        Two count as coincident when their squared gap is below ``1e-6``
        times their clusters' mean squared spread.
        """
        if len(centers) < 2:
            return centers, log_w
        mass = stats["cluster_mass"]
        spread = stats["cluster_distortion"] / np.maximum(mass, np.finfo(float).tiny)
        gap = squared_distances(centers, centers)
        labels = coincident_groups(gap < 1e-6 * (spread[:, None] + spread[None, :]) / 2.0)
        if labels.max() + 1 == len(centers):
            return centers, log_w
        members = [labels == g for g in range(labels.max() + 1)]
        merged_w = np.array([np.logaddexp.reduce(log_w[m]) for m in members])
        merged_c = np.array(
            [np.average(centers[m], axis=0, weights=mass[m] + 1e-300) for m in members]
        )
        for m in members:
            if m.sum() > 1:
                self.path_.events.append(
                    {
                        "temperature": T,
                        "critical_temperature": np.nan,
                        "cluster": int(np.argmax(m)),
                        "accepted": False,
                    }
                )
        return merged_c, merged_w

    def _candidates(self, X, centers, log_w, T):
        """Clusters that may still split, with their critical temperatures.

        Mass-constrained: every code vector while fewer than n_clusters exist.
        Unconstrained: every group of code vectors that still coincide. Returns
        ``(2 lambda_max, first member, members, lambda_max, principal axis)``
        of the posterior-weighted covariance, highest critical temperature first.
        """
        if self.mass_constrained:
            if len(centers) >= self.n_clusters:
                return []
            labels = np.arange(len(centers))
        else:
            labels = coincident_groups(coincident(centers, np.sqrt(self._scale)))
        groups = [np.flatnonzero(labels == g) for g in range(labels.max() + 1)]
        if not self.mass_constrained:
            groups = [members for members in groups if len(members) >= 2]
        axes = principal_axes(X, self._x_sq, centers, log_w, T, groups)
        candidates = [
            (2.0 * lam, members[0], members, lam, vec, mass)
            for members, (lam, vec, mass) in zip(groups, axes, strict=True)
        ]
        candidates.sort(key=lambda c: -c[0])
        return candidates

    def _split(self, X, centers, log_w, T, rng, candidates):
        """Split the candidate clusters whose critical temperature lies above T.

        Mass-constrained: a code vector is duplicated and the pair pushed apart
        along its principal axis (weights halved). Unconstrained: a group of
        coincident code vectors is divided in two halves the same way. Returns
        the new code vectors and weights, the path statistics at them (None
        when a pair was merged back), and the candidates left unsplit.
        """
        room = self.n_clusters - len(centers) if self.mass_constrained else len(centers)
        splits = [c for c in candidates if c[0] > T][:room]
        centers, log_w = list(centers), list(log_w)
        pairs = []
        for Tc_k, k, members, lam, vec, _ in splits:
            delta = 0.1 * np.sqrt(lam) * vec * rng.choice([-1.0, 1.0])
            base = centers[k].copy()
            if self.mass_constrained:
                centers[k] = base + delta
                centers.append(base - delta)
                log_w[k] -= np.log(2.0)
                log_w.append(log_w[k])
                pairs.append((Tc_k, k, len(centers) - 1, 4.0 * lam * 0.01))
            else:
                half = len(members) // 2
                for i, j in enumerate(members):
                    centers[j] = base + delta if i < half else base - delta
                pairs.append((Tc_k, members[0], members[-1], 4.0 * lam * 0.01))
        centers, log_w = np.array(centers), np.array(log_w)
        centers, log_w, stats = self._iterate(X, centers, log_w, T)
        # below its critical temperature a pair's gap grows (by about T_c/T per
        # iteration); a pair whose gap shrank is not splitting: merge it back
        merged = []
        for Tc_k, k, j, gap_0 in pairs:
            gap = np.sum((centers[k] - centers[j]) ** 2)
            accepted = bool(gap > gap_0)
            self.path_.events.append(
                {"temperature": T, "critical_temperature": Tc_k, "cluster": k, "accepted": accepted}
            )
            if not accepted and self.mass_constrained:
                log_w[k] = np.logaddexp(log_w[k], log_w[j])
                merged.append(j)
        if merged:
            keep = np.setdiff1d(np.arange(len(centers)), merged)
            centers, log_w, stats = centers[keep], log_w[keep], None
        rest = [c for c in candidates if not any(c is s for s in splits)]
        return centers, log_w, stats, rest

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
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
        X : array-like of shape (n_samples, n_features)
            One batch, finite.
        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : DeterministicAnnealing
            Updated estimator; ``labels_`` and ``inertia_`` refer to this batch.
        """
        if not hasattr(self, "_stream_mass"):
            self.fit(X)
            X = self._validate(X)
            proba, _ = self._posterior(X)
            self._stream_mass = proba.sum(axis=0)
            self._stream_sums = proba.T @ X
            self.n_samples_seen_ = X.shape[0]
            return self
        X = check_scale(self._validate(X))
        centers = self._centers_centred()
        log_w = np.log(self.cluster_weights_)
        x_sq = np.einsum("ij,ij->i", X, X)
        sums, mass, _, _, _ = _checked_pass(X, centers[None], log_w[None], self.temperature_, x_sq)
        self._stream_mass = self._stream_mass + mass[0]
        self._stream_sums = self._stream_sums + sums[0]
        self.n_samples_seen_ += X.shape[0]
        seen = self._stream_mass > 0.0
        centers = np.where(
            seen[:, None],
            self._stream_sums / np.where(seen, self._stream_mass, 1.0)[:, None],
            centers,
        )
        self.cluster_centers_ = centers + self._train_mean
        if self.mass_constrained:
            self.cluster_weights_ = self._stream_mass / self._stream_mass.sum()
        self._x_sq = x_sq
        self.labels_, self.inertia_ = self._labels(X, centers, np.log(self.cluster_weights_))
        del self._x_sq
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
        """Validated X, shifted by the training mean like the fit's distances."""
        check_is_fitted(self)
        return validate_named(self, X, dtype=np.float64, reset=False) - self._train_mean

    def predict_proba(self, X):
        """Gibbs assignment probabilities at the final temperature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_found)
        """
        return self._proba(self._validate(X))

    def predict(self, X):
        """Most probable cluster at the final temperature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.predict_proba(X).argmax(axis=1)

    @property
    def _n_features_out(self):
        """Number of output columns of :meth:`transform` (for ``get_feature_names_out``)."""
        return self.cluster_centers_.shape[0]

    def transform(self, X):
        """Euclidean distances to the code vectors (as ``KMeans.transform``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_found)
        """
        return np.sqrt(squared_distances(self._validate(X), self._centers_centred()))

    def free_energy(self, X):
        """Free energy per sample ``-T <log sum_k w_k exp(-|x - y_k|^2/T)>`` of X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        float
        """
        X = self._validate(X)
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

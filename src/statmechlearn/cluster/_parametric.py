"""Parametric distributional clustering: cluster histograms as mixtures of shared Gaussians (§4.2).

Histogram clustering compares histograms by KL divergence, which ignores the
order of the bins (permuting them changes nothing). Where the feature axis is
ordered (grey values, frequencies, orientations) the notes model each
cluster's feature density as a mixture of ``s`` Gaussian prototypes shared by
all clusters, ``p(y | nu) = sum_alpha p(alpha | nu) g_alpha(y)``, rectified to
the feature domain ``[e_0, e_m]`` (the mass outside cut off and the rest
rescaled) and integrated over each bin:
``q(j | nu) = sum_alpha p(alpha | nu) G_alpha(j)``. Neighbouring bins now
share probability, so a histogram with its mass one bin over is close.

The cost of object ``i`` in cluster ``nu`` is ``KL(p(.|i) || q(.|nu))`` as in
histogram clustering, annealed on the shared engine. The M-step has no closed
form: the mixture weights ``p(alpha | nu)`` follow by EM iterations inside each
fixed-point step, the prototype means and widths (shared, so they cannot
follow any one cluster) by a few bounded quasi-Newton steps on the expected
log-likelihood after each temperature.
"""

import numbers
from typing import ClassVar

import numpy as np
from scipy import sparse
from scipy.optimize import minimize
from scipy.special import ndtr
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import RANDOM_STATE, check_array_finite, validate_named
from statmechlearn.cluster import _count_tables
from statmechlearn.cluster._distributional import (
    _check_bins,
    _check_counts,
    _clusters,
    _count_tags,
    _kl_cost,
    _least_cost,
    _mix,
    _neg_entropy_rows,
    _object_weights,
    _sample_weights,
    kl_critical_temperature,
)
from statmechlearn.cluster._maxent import (
    assignment_entropy,
    gibbs_assignments,
    run_annealing,
)
from statmechlearn.cluster._schedule import GeometricSchedule

__all__ = ["ParametricDistributionalClustering", "rectified_gaussian_bins"]

_TINY = 1e-300


def rectified_gaussian_bins(edges, means, widths):
    """Bin probabilities of Gaussians rectified to ``[edges[0], edges[-1]]``.

    ``G[j, alpha] = (Phi(z_{j+1}) - Phi(z_j)) / (Phi(z_m) - Phi(z_0))`` with
    ``z_j = (edges[j] - means[alpha]) / widths[alpha]``: the Gaussian's mass
    in bin ``j``, the mass outside the domain cut off and the rest rescaled.

    Parameters
    ----------
    edges : ndarray of shape (m + 1,)
        Increasing bin edges.
    means, widths : ndarray of shape (s,)
        Widths ``> 0``.

    Returns
    -------
    ndarray of shape (m, s)
        Columns sum to one.
    """
    edges = check_array_finite(edges, "edges", ndim=1)
    if edges.size < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError("edges must hold at least two strictly increasing bin edges")
    means = check_array_finite(means, "means", ndim=1)
    if means.size == 0:
        raise ValueError("means must hold at least one value")
    widths = check_array_finite(widths, "widths", shape=means.shape)
    if np.any(widths <= 0):
        raise ValueError("widths must be > 0")
    z = (edges[:, None] - means[None, :]) / widths[None, :]
    cdf = ndtr(z)
    mass = np.diff(cdf, axis=0)
    total = cdf[-1] - cdf[0]
    # A prototype far outside the domain has no mass inside it; put it in the nearest bin.
    far = total <= 1e-12
    if np.any(far):
        mass[:, far] = 0.0
        nearest = np.where(means[far] < edges[0], 0, mass.shape[0] - 1)
        mass[nearest, np.flatnonzero(far)] = 1.0
        total = np.where(far, 1.0, total)
    return np.maximum(mass / total, _TINY)


class _Mixture:
    """Shared prototypes ``(mu, sigma)`` and per-cluster mixture weights ``A[alpha, nu]``."""

    def __init__(self, edges, means, widths, cond, weights, min_width, em_steps):
        self.edges, self.means, self.widths = edges, means, widths
        self.cond, self.weights = cond, weights
        self.neg_h = _neg_entropy_rows(cond)
        self.min_width, self.em_steps = min_width, em_steps
        self.G = rectified_gaussian_bins(edges, means, widths)
        self.A = None

    def _bin_counts(self, P):
        wP = P * self.weights[:, None]
        return self.cond.T @ wP, wP.sum(axis=0)  # (m, K) expected counts, masses

    def mixture_weights(self, N, steps):
        """EM for ``p(alpha | nu)`` given the prototypes: ``A <- A * G^T (N / (G A))``."""
        K = N.shape[1]
        A = self.A
        if A is None or A.shape[1] != K:
            A, steps = np.full((self.G.shape[1], K), 1.0 / self.G.shape[1]), 5 * steps
        for _ in range(steps):
            q = np.maximum(self.G @ A, _TINY)
            A = A * (self.G.T @ (N / q))
            A /= np.maximum(A.sum(axis=0, keepdims=True), _TINY)
        self.A = A
        return A

    def distributions(self, P):
        N, mass = self._bin_counts(P)
        A = self.mixture_weights(N, self.em_steps)
        return (self.G @ A).T, mass  # q (K, m)

    def field(self, P):
        q, mass = self.distributions(P)
        return _kl_cost(self.cond, self.neg_h, q), np.log(np.maximum(mass, _TINY))

    def free_energy(self, P, T):
        h, log_w = self.field(P)
        energy = float(self.weights @ (P * h).sum(axis=1))
        entropy = assignment_entropy(P, self.weights) + float(self.weights @ (P @ log_w))
        return energy - T * entropy

    def update_prototypes(self, P, max_iter):
        """Maximise ``sum_{j,nu} N[j,nu] log q(j|nu)`` over shared means and log-widths."""
        N, _ = self._bin_counts(P)
        A = self.mixture_weights(N, self.em_steps)
        s = self.means.size
        lo, hi = self.edges[0], self.edges[-1]

        def loss(theta):
            G = rectified_gaussian_bins(self.edges, theta[:s], np.exp(theta[s:]))
            return -float(np.sum(N * np.log(np.maximum(G @ A, _TINY))))

        theta0 = np.concatenate([self.means, np.log(self.widths)])
        bounds = [(lo, hi)] * s + [(np.log(self.min_width), np.log(hi - lo))] * s
        res = minimize(
            loss, theta0, method="L-BFGS-B", bounds=bounds, options={"maxiter": max_iter}
        )
        if res.fun <= loss(theta0):
            self.means, self.widths = res.x[:s], np.exp(res.x[s:])
            self.G = rectified_gaussian_bins(self.edges, self.means, self.widths)
        return res


class ParametricDistributionalClustering(ClusterMixin, BaseEstimator):
    """Clustering of histograms over an ordered axis with rectified-Gaussian-mixture centroids.

    Each cluster's bin distribution is ``q(j|nu) = sum_alpha p(alpha|nu)
    G_alpha(j)``, a mixture of ``n_prototypes`` Gaussians shared by all
    clusters and rectified to the binned domain (notes §4.2); objects are
    assigned by the KL divergence of their histograms, annealed in ``T``
    from above the first critical temperature of plain histogram
    clustering. Unlike :class:`HistogramClustering` the cost knows which
    bins are neighbours.

    Parameters
    ----------
    n_clusters : int, default=2
    n_prototypes : int, default=8
        Shared Gaussians ``s``.
    bin_edges : array_like of shape (n_bins + 1,) or None, default=None
        Increasing edges of the ordered feature axis; None is ``0, 1, ...,
        n_bins``.
    min_width : float or None, default=None
        Lower bound on prototype widths; None is a quarter of the narrowest
        bin.
    max_temperature : float or "auto", default="auto"
        First temperature; "auto" is twice the first critical temperature of
        plain histogram clustering (at least twice ``min_temperature``).
    min_temperature : float, default=1e-3
        Last temperature.
    cooling_rate : float, default=0.9
        Ratio of successive temperatures, in (0, 1).
    max_iter : int, default=500
        Fixed-point iterations per temperature.
    tol : float, default=1e-7
    em_steps : int, default=5
        EM iterations for the mixture weights per fixed-point step.
    prototype_iter : int, default=10
        Quasi-Newton iterations for the prototype means and widths after
        each temperature.
    noise : float, default=1e-3
    random_state : None, int, RandomState or Generator, default=None
    verbose : int, default=0
        0 prints nothing; 1 prints a line per temperature (clusters, free
        energy, prototype likelihood).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    assignments_ : ndarray of shape (n_samples, n_found)
    cluster_distributions_ : ndarray of shape (n_found, n_bins)
        ``q(j | nu)``. ``assignments_``, ``cluster_distributions_``,
        ``mixture_weights_`` and ``cluster_weights_`` are in the float dtype
        of ``X`` (float32 stays float32; the fit runs in float64); the
        prototypes live on the bin axis, in float64.
    mixture_weights_ : ndarray of shape (n_found, n_prototypes)
        ``p(alpha | nu)``.
    prototype_means_, prototype_widths_ : ndarray of shape (n_prototypes,)
    bin_edges_ : ndarray of shape (n_bins + 1,)
    cluster_weights_ : ndarray of shape (n_found,)
        Cluster priors ``p_nu``: the objects' mean assignment (objects
        without counts left out; weighted by ``sample_weight``).
    cost_ : float
        Mean KL divergence (nats) of the objects with counts to their
        clusters (the weighted mean with ``sample_weight``).
    path_ : AssignmentPath
    n_iter_ : int

    Notes
    -----
    With ``sample_weight`` every average over objects is weighted: the cost
    is ``sum_i s_i KL(p(.|i) || q(.|c(i))) / sum_i s_i`` over the objects
    with counts, and the expected bin counts that the mixture weights and
    prototypes are fitted to are weighted sums of the rows. An integer weight
    is the row repeated that many times, a zero weight drops it.

    A sparse ``X`` (CSR or CSC) of more than 2**22 entries is never
    densified: the KL cost of a row needs only its nonzero counts, and the
    expected bin counts are sparse-times-dense products. A smaller one is
    converted to a dense array, so that its fit is its dense twin's: the
    prototype steps (quasi-Newton on finite-difference gradients) turn the
    rounding of another summation order into differences of about 1e-4 in
    the fitted distributions.

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.cluster import ParametricDistributionalClustering
    >>> rng = np.random.default_rng(0)
    >>> low = rng.multinomial(50, np.exp(-0.5 * (np.arange(12) - 3) ** 2) / 2.5066, 20)
    >>> high = rng.multinomial(50, np.exp(-0.5 * (np.arange(12) - 8) ** 2) / 2.5066, 20)
    >>> model = ParametricDistributionalClustering(2, n_prototypes=4, random_state=0)
    >>> labels = model.fit(np.vstack([low, high])).labels_
    >>> bool(len(set(labels[:20])) == 1 and len(set(labels[20:])) == 1 and labels[0] != labels[20])
    True
    >>> bool((model.predict(np.vstack([low[:1], high[:1]])) == labels[[0, 20]]).all())
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_prototypes": [Interval(numbers.Integral, 1, None, closed="left")],
        "bin_edges": ["array-like", None],
        "min_width": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "max_temperature": [
            Interval(numbers.Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "min_temperature": [Interval(numbers.Real, 0, None, closed="neither")],
        "cooling_rate": [Interval(numbers.Real, 0, 1, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "em_steps": [Interval(numbers.Integral, 1, None, closed="left")],
        "prototype_iter": [Interval(numbers.Integral, 0, None, closed="left")],
        "noise": [Interval(numbers.Real, 0, None, closed="neither")],
        "random_state": [*RANDOM_STATE],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_clusters=2,
        *,
        n_prototypes=8,
        bin_edges=None,
        min_width=None,
        max_temperature="auto",
        min_temperature=1e-3,
        cooling_rate=0.9,
        max_iter=500,
        tol=1e-7,
        em_steps=5,
        prototype_iter=10,
        noise=1e-3,
        random_state=None,
        verbose=0,
    ):
        self.n_clusters = n_clusters
        self.n_prototypes = n_prototypes
        self.bin_edges = bin_edges
        self.min_width = min_width
        self.max_temperature = max_temperature
        self.min_temperature = min_temperature
        self.cooling_rate = cooling_rate
        self.max_iter = max_iter
        self.tol = tol
        self.em_steps = em_steps
        self.prototype_iter = prototype_iter
        self.noise = noise
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        return _count_tags(super().__sklearn_tags__())

    def _edges(self, m):
        if self.bin_edges is None:
            return np.arange(m + 1, dtype=float)
        edges = np.asarray(self.bin_edges, dtype=float)
        if edges.shape != (m + 1,):
            raise ValueError(
                f"bin_edges must have n_bins + 1 = {m + 1} entries, got shape {edges.shape}"
            )
        if not np.all(np.isfinite(edges)) or np.any(np.diff(edges) <= 0):
            raise ValueError("bin_edges must be finite and strictly increasing")
        return edges

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Cluster the histograms (rows of counts over ordered bins) in ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_bins)
            Non-negative counts over at least two bins. A row of zeros (an
            object without observations) does not move the cluster
            distributions and is assigned by the cluster prior. Sparse input
            (CSR or CSC) stays sparse.
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weight of each row (see Notes); None weighs every
            row with counts equally.

        Returns
        -------
        self
        """
        X = self._validate(X, reset=True, ensure_min_samples=2)
        dtype = X.dtype
        if sparse.issparse(X) and _count_tables.is_small(X):
            # the prototype steps (quasi-Newton on finite differences) turn the rounding of
            # another summation order into differences of 1e-4: a small table is fitted as
            # its dense twin
            X = X.toarray(order="C")
        cond, totals = _check_counts(X)
        n, m = cond.shape
        _check_bins(m)
        if self.n_clusters > n:
            raise ValueError(f"n_clusters={self.n_clusters} must be <= n_samples={n}")
        edges = self._edges(m)
        rng = check_random_state(self.random_state)
        weights = _object_weights(totals, _sample_weights(sample_weight, X))
        s = self.n_prototypes
        # Prototypes start at quantiles of the pooled histogram, one bin-spread wide.
        pooled = np.cumsum(_mix(weights, cond))
        centres = 0.5 * (edges[1:] + edges[:-1])
        means = np.interp((np.arange(s) + 0.5) / s, pooled / pooled[-1], centres)
        width = (edges[-1] - edges[0]) / (2.0 * s)
        min_width = 0.25 * float(np.diff(edges).min()) if self.min_width is None else self.min_width
        model = _Mixture(
            edges,
            means,
            np.full(s, max(width, min_width)),
            cond,
            weights,
            min_width,
            self.em_steps,
        )

        def refit_prototypes(k, T, P):
            if self.prototype_iter:
                model.update_prototypes(P, self.prototype_iter)
            if self.verbose:
                print(
                    f"Temperature {k + 1}, T={T:.6g}: {_clusters(P.shape[1])}, "
                    f"free energy {model.free_energy(P, T):.8g}."
                )

        t_start = (
            max(2.0 * kl_critical_temperature(cond, weights), 2.0 * self.min_temperature)
            if self.max_temperature == "auto"
            else self.max_temperature
        )
        temps = GeometricSchedule(t_start, self.min_temperature, self.cooling_rate)
        P, path = run_annealing(
            "ParametricDistributionalClustering",
            model.field,
            model.free_energy,
            n,
            self.n_clusters,
            temps,
            rng=rng,
            noise=self.noise,
            max_iter=self.max_iter,
            tol=self.tol,
            callback=refit_prototypes,
        )
        h, _ = model.field(P)
        q, _ = model.distributions(P)
        self.bin_edges_ = edges
        self.assignments_ = P.astype(dtype, copy=False)
        self.labels_ = np.argmax(P, axis=1)
        self.cluster_weights_ = (weights @ P).astype(dtype, copy=False)
        self.cluster_distributions_ = q.astype(dtype, copy=False)
        self.mixture_weights_ = model.A.T.astype(dtype)
        self.prototype_means_ = model.means.copy()
        self.prototype_widths_ = model.widths.copy()
        self.cost_ = float(weights @ h[np.arange(n), self.labels_])
        self.temperature_ = float(path.temperature[-1])
        self.path_ = path
        self.n_iter_ = int(sum(path.n_iter))
        if self.verbose:
            print(f"Fit complete: {_clusters(P.shape[1])}, cost {self.cost_:.8g} nats.")
        return self

    def _validate(self, X, reset, **kwargs):
        return validate_named(
            self,
            X,
            accept_sparse=("csr", "csc"),
            dtype=[np.float64, np.float32],
            reset=reset,
            **kwargs,
        )

    def _cost(self, X):
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        cond, totals = _check_counts(X)
        cost = _kl_cost(cond, _neg_entropy_rows(cond), self.cluster_distributions_)
        return cost, totals, X.dtype

    def predict(self, X):
        """Cluster of least KL divergence for new histograms.

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
        """Gibbs assignments at the last temperature, with the fitted cluster shares.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_bins)

        Returns
        -------
        ndarray of shape (n_samples, n_found)
            In the float dtype of ``X``.
        """
        cost, _, dtype = self._cost(X)
        log_w = np.log(np.maximum(self.cluster_weights_.astype(np.float64), _TINY))
        return gibbs_assignments(cost, self.temperature_, log_w)[0].astype(dtype, copy=False)

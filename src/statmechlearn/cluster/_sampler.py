"""Clustering by sampling the Gibbs distribution of the k-means cost (lecture notes §3.2)."""

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.cluster import kmeans_plusplus
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import RANDOM_STATE, validate_named
from statmechlearn.cluster._checks import check_scale
from statmechlearn.inference import KMeansCost, sample_assignments

__all__ = ["GibbsSamplerClustering"]


def _align(chain_marginals):
    """Permute each chain's cluster labels to best overlap chain 0 (labels are exchangeable)."""
    ref = chain_marginals[0]
    out = np.empty_like(chain_marginals)
    for b, M in enumerate(chain_marginals):
        _, perm = linear_sum_assignment(-(ref.T @ M))
        out[b] = M[:, perm]
    return out


class GibbsSamplerClustering(ClusterMixin, BaseEstimator):
    """Sample assignments from ``p(c) ∝ exp(-R_km(c) / T)`` and report their marginals.

    ``R_km(c)`` is the k-means cost with each centroid at the mean of its
    cluster (§3.1). Independent chains of single-site heat-bath (Gibbs) or
    Metropolis moves (§3.2, §9.6) visit assignments in proportion to their
    Gibbs weight; the fraction of kept sweeps in which object ``i`` sits in
    cluster ``nu`` estimates ``p(c(i) = nu)``. Unlike deterministic
    annealing, no factorisation or mean-field approximation is made; the
    price is Monte Carlo error and mixing time, reported in the diagnostics.

    Parameters
    ----------
    n_clusters : int, default=8
    temperature : float, default=1.0
        ``T > 0`` in units of squared distance (the cost of moving a point
        is of the order of its squared distance to a centroid, so scale the
        data or ``T`` together).
    method : {"gibbs", "metropolis"}, default="gibbs"
        Heat-bath or Metropolis single-site moves.
    n_chains : int, default=4
    n_sweeps : int, default=200
        Sweeps per chain, burn-in included.
    burn_in : int, default=None
        Discarded sweeps; None means ``n_sweeps // 4``.
    init : {"k-means++", "random"}, default="k-means++"
        Start of each chain: nearest of k-means++ seeds, or uniformly random
        labels.
    random_state : None, int, RandomState or Generator, default=None

    Attributes
    ----------
    marginals_ : ndarray of shape (n_samples, n_clusters)
        Estimated ``p(c(i) = nu)``, chains aligned to chain 0 by the
        Hungarian method (cluster labels are exchangeable, so only aligned
        chains can be averaged).
    labels_ : ndarray of shape (n_samples,)
        Most probable cluster of each object.
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Marginal-weighted cluster means.
    cluster_sizes_ : ndarray of shape (n_clusters,)
        Expected cluster sizes ``sum_i p(c(i) = nu)``.
    inertia_ : float
        k-means cost of ``labels_``.
    energy_trace_ : ndarray of shape (n_chains, n_sweeps)
        Cost after every sweep.
    acceptance_rate_ : ndarray of shape (n_chains,)
        Fraction of site visits that moved, after burn-in.
    autocorrelation_time_ : float
        Integrated autocorrelation time of the cost, in sweeps.
    r_hat_ : float
        Split R-hat of the cost across chains (NaN with one chain, or when the
        cost never changes: there is no variance to compare).
    n_iter_ : int
        Sweeps per chain.
    sampling_ : SamplingResult
        The sampler's whole output (:func:`~statmechlearn.inference.sample_assignments`):
        per-chain marginals and the final labeling of each chain, one
        independent draw per chain once the chains have mixed.
    n_features_in_ : int

    See Also
    --------
    DeterministicAnnealing : the same Gibbs distribution with fixed centroids,
        minimised over them by annealing.
    statmechlearn.inference.simulated_annealing : the same sampler at falling T.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from statmechlearn.cluster import GibbsSamplerClustering
    >>> X, _ = make_blobs(200, centers=3, random_state=0)
    >>> est = GibbsSamplerClustering(3, temperature=0.5, random_state=0).fit(X)
    >>> est.marginals_.shape
    (200, 3)
    >>> est.predict(X[:4]).shape
    (4,)
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "temperature": [Interval(Real, 0, None, closed="neither")],
        "method": [StrOptions({"gibbs", "metropolis"})],
        "n_chains": [Interval(Integral, 1, None, closed="left")],
        "n_sweeps": [Interval(Integral, 2, None, closed="left")],
        "burn_in": [Interval(Integral, 0, None, closed="left"), None],
        "init": [StrOptions({"k-means++", "random"})],
        "random_state": [*RANDOM_STATE],
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        temperature=1.0,
        method="gibbs",
        n_chains=4,
        n_sweeps=200,
        burn_in=None,
        init="k-means++",
        random_state=None,
    ):
        self.n_clusters = n_clusters
        self.temperature = temperature
        self.method = method
        self.n_chains = n_chains
        self.n_sweeps = n_sweeps
        self.burn_in = burn_in
        self.init = init
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Sample the assignments of X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        self : GibbsSamplerClustering
        """
        X = check_scale(validate_named(self, X, dtype=np.float64, ensure_min_samples=2))
        n, k = X.shape[0], self.n_clusters
        if k > n:
            raise ValueError(f"n_clusters={k} must be <= n_samples={n}")
        if self.burn_in is not None and self.burn_in >= self.n_sweeps:
            raise ValueError(f"burn_in={self.burn_in} must be < n_sweeps={self.n_sweeps}")
        rng = check_random_state(self.random_state)
        cost = KMeansCost(X, k)
        if self.init == "random":
            init = rng.integers(k, size=(self.n_chains, n))
        else:
            init = np.empty((self.n_chains, n), dtype=np.int64)
            for b in range(self.n_chains):
                seeds, _ = kmeans_plusplus(cost.X, k, random_state=int(rng.integers(2**31 - 1)))
                d = np.sum((cost.X[:, None, :] - seeds[None, :, :]) ** 2, axis=-1)
                init[b] = d.argmin(axis=1)
        res = sample_assignments(
            cost,
            self.temperature,
            n_chains=self.n_chains,
            n_sweeps=self.n_sweeps,
            burn_in=self.burn_in,
            method=self.method,
            init=init,
            random_state=rng,
        )
        self.sampling_ = res
        self.marginals_ = _align(res.chain_marginals).mean(axis=0)
        self.labels_ = self.marginals_.argmax(axis=1)
        sizes = self.marginals_.sum(axis=0)
        self.cluster_sizes_ = sizes
        centers = (self.marginals_.T @ X) / np.maximum(sizes, 1e-300)[:, None]
        centers[sizes <= 0] = X.mean(axis=0)
        self.cluster_centers_ = centers
        self.inertia_ = float(cost.energy(self.labels_)[0])
        self.energy_trace_ = res.energies
        self.acceptance_rate_ = res.acceptance_rate
        self.autocorrelation_time_ = res.autocorrelation_time
        self.r_hat_ = res.r_hat
        self.n_iter_ = self.n_sweeps
        return self

    def predict_proba(self, X):
        """Gibbs probability of adding each new point to each cluster.

        Adding ``x`` to a cluster of expected size ``n_nu`` and mean ``m_nu``
        raises the cost by ``n_nu / (n_nu + 1) |x - m_nu|^2``; the
        probabilities are the Boltzmann weights of these costs at
        ``temperature``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_clusters)
        """
        check_is_fitted(self)
        X = validate_named(self, X, dtype=np.float64, reset=False)
        n_nu = self.cluster_sizes_
        d = np.sum((X[:, None, :] - self.cluster_centers_[None, :, :]) ** 2, axis=-1)
        logits = -(n_nu / (n_nu + 1.0)) * d / self.temperature
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, X):
        """Most probable cluster of each new point.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.predict_proba(X).argmax(axis=1)

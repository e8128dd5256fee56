"""Width (sigma) view of deterministic annealing: ML equal-width Gaussian mixtures.

The negative log-likelihood of an equal-weight isotropic mixture of variance
``sigma`` is ``F / T + (d/2) log(2 pi sigma)`` with ``T = 2 sigma`` and ``F``
the unconstrained deterministic-annealing free energy, so its stationary
points are the fixed points of :class:`DeterministicAnnealing` with
``mass_constrained=False`` (Barkai & Sompolinsky, eqs. 4-8).
"""

import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from statmechlearn._core.validation import (
    RANDOM_STATE,
    check_array_finite,
    check_int,
    check_magnitude,
    check_real,
)
from statmechlearn.cluster._annealing import DeterministicAnnealing
from statmechlearn.cluster._annealing_inputs import dense_rows, sample_weights
from statmechlearn.cluster._gibbs import gibbs_fixed_point, gibbs_statistics

__all__ = ["EqualWidthMixture", "TwoCentreFixedPoints", "two_centre_fixed_points"]


@dataclass(frozen=True)
class TwoCentreFixedPoints:
    """Local maxima of the two-centre likelihood reached from many starts.

    Attributes
    ----------
    means : ndarray of shape (n_starts, 2, n_features)
    splitting_vector : ndarray of shape (n_starts, n_features)
        ``dU = (U_1 - U_2) / 2``.
    energy : ndarray of shape (n_starts,)
        Negative log-likelihood per point relative to the unsplit solution
        (both centres at the mean): the ``dU``-dependent part of eq. (6).
    n_iter : int
    converged : ndarray of bool, shape (n_starts,)
    """

    means: np.ndarray
    splitting_vector: np.ndarray
    energy: np.ndarray
    n_iter: int
    converged: np.ndarray


def two_centre_fixed_points(X, sigma, init, *, max_iter=2000, tol=1e-10):
    """Iterate the ML equations of two equal-weight Gaussians from many starts at once.

    Each start is ``U_1,2 = mean(X) +- dU_0``; the iteration is the
    deterministic-annealing fixed point at ``T = 2 sigma`` (EM), batched over
    starts so that one matrix product serves them all.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    sigma : float
        Width (per-coordinate variance) of the components, ``> 0``.
    init : array-like of shape (n_starts, n_features)
        Starting splitting vectors ``dU_0``.
    max_iter : int, default=2000
    tol : float, default=1e-10
        Convergence when the squared change of the two centres in one
        iteration is below ``tol`` times the total variance of X.

    Returns
    -------
    TwoCentreFixedPoints
    """
    X = check_array_finite(X, "X")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
    check_magnitude(X, "X")
    sigma = check_real(sigma, "sigma", minimum=0.0, include_min=False)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_real(tol, "tol", minimum=0.0)
    init = np.atleast_2d(check_array_finite(init, "init"))
    check_magnitude(init, "init")
    if init.ndim != 2 or init.shape[1] != X.shape[1]:
        raise ValueError(
            f"init must have shape (n_starts, n_features={X.shape[1]}), got {init.shape}"
        )
    T = 2.0 * sigma
    mean = X.mean(axis=0)
    scale = float(np.sum(X.var(axis=0)))
    x_sq = np.einsum("ij,ij->i", X, X)
    centers = np.stack([mean + init, mean - init], axis=1)
    log_w = np.full(centers.shape[:2], -np.log(2.0))
    centers, _, n_iter, shift = gibbs_fixed_point(
        X, centers, log_w, T, mass_constrained=False, max_iter=max_iter, tol=tol * scale, x_sq=x_sq
    )
    free = gibbs_statistics(X, centers, log_w, T, x_sq)["free_energy"]
    return TwoCentreFixedPoints(
        means=centers,
        splitting_vector=(centers[:, 0] - centers[:, 1]) / 2.0,
        energy=(free - scale) / T,
        n_iter=n_iter,
        converged=shift <= tol * scale,
    )


class EqualWidthMixture(ClusterMixin, BaseEstimator):
    """Maximum-likelihood equal-weight isotropic Gaussian mixture of fixed width sigma.

    Fitted by deterministic annealing in the width (``T = 2 sigma``,
    unconstrained weights) from above the first split down to ``sigma``, or,
    with ``anneal=False``, by EM from ``init`` at ``sigma``. This is the
    estimator of Barkai & Sompolinsky; with two components its
    :attr:`splitting_vector_` is their ``dU`` and :meth:`predict` is the ML
    classifier of eq. (9) (nearest mean).

    Parameters
    ----------
    n_components : int, default=2
    sigma : float, default=1.0
        Per-coordinate variance of every component.
    anneal : bool, default=True
        Anneal in sigma (True) or iterate at ``sigma`` from ``init`` (False).
    init : array-like of shape (n_components, n_features), default=None
        Starting means when ``anneal=False``; None draws data points.
    cooling_rate : float, default=0.9
        Factor of the width schedule.
    max_iter : int, default=300
        Fixed-point iterations per width.
    tol : float, default=1e-6
        Relative convergence tolerance (see :class:`DeterministicAnnealing`).
    random_state : None, int, RandomState or Generator, default=None
    verbose : int, default=0
        At 1 or more, :meth:`fit` prints one line per width of the anneal
        (as :class:`DeterministicAnnealing` does per temperature).

    Attributes
    ----------
    means_ : ndarray of shape (n_components, n_features)
        In X's float dtype (float32 for float32 ``X``).
    splitting_vector_ : ndarray of shape (n_features,)
        ``(means_[0] - means_[1]) / 2`` (two components only).
    labels_ : ndarray of shape (n_samples,)
    path_ : AnnealingPath
        The annealing path; its temperatures are ``2 sigma``.
    n_iter_ : int
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from statmechlearn.cluster import EqualWidthMixture
    >>> X, y = make_blobs(200, centers=2, random_state=1)
    >>> gm = EqualWidthMixture(sigma=1.0, random_state=0).fit(X)
    >>> gm.means_.shape
    (2, 2)
    >>> labels = gm.predict(X)
    >>> bool((labels == y).all() or (labels != y).all())  # the blobs, up to naming
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "sigma": [Interval(Real, 0, None, closed="neither")],
        "anneal": ["boolean"],
        "init": ["array-like", None],
        "cooling_rate": [Interval(Real, 0, 1, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": [*RANDOM_STATE],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_components=2,
        *,
        sigma=1.0,
        anneal=True,
        init=None,
        cooling_rate=0.9,
        max_iter=300,
        tol=1e-6,
        random_state=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.sigma = sigma
        self.anneal = anneal
        self.init = init
        self.cooling_rate = cooling_rate
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Fit the mixture means at width sigma.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Float64 or float32 (computed in float64); sparse input is
            converted to a dense array.
        y : Ignored
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights: the log-likelihood maximised is
            ``sum_i a_i log p(x_i)`` (an integer weight is the sample repeated).

        Returns
        -------
        self : EqualWidthMixture
        """
        X, dtype = dense_rows(self, X, reset=True)
        sample_weight = sample_weights(sample_weight, X)
        self._check_components(X)
        with warnings.catch_warnings():
            # coincident means are a legitimate ML solution above the split width
            # (and the only one of constant data)
            warnings.filterwarnings("ignore", message="reached min_temperature")
            warnings.filterwarnings("ignore", message="X is constant")
            da = self._annealer().fit(X, sample_weight=sample_weight)
        self.means_ = da.cluster_centers_.astype(dtype, copy=False)
        # the fitted annealer evaluates the posterior about the training mean
        self._fitted_annealer = da
        self.path_ = da.path_
        self.n_iter_ = da.n_iter_
        self.labels_ = da.labels_
        if self.n_components == 2:
            self.splitting_vector_ = (self.means_[0] - self.means_[1]) / 2.0
        return self

    def _check_components(self, X):
        """The annealer's own checks, in this class's parameter names."""
        n, d = X.shape
        if self.n_components > n:
            raise ValueError(
                f"n_components={self.n_components} must be <= n_samples={n}; there cannot be "
                "more components than points"
            )
        if self.anneal:
            return
        if self.init is None:
            n_distinct = len(np.unique(X, axis=0))
            if n_distinct < self.n_components:
                raise ValueError(
                    f"init=None draws the starting means from the distinct points of X, which "
                    f"has {n_distinct} < n_components={self.n_components}; pass init"
                )
            return
        init = np.asarray(self.init, dtype=float)
        if init.shape != (self.n_components, d) or not np.all(np.isfinite(init)):
            raise ValueError(
                f"init must be a finite array of shape (n_components, n_features) = "
                f"({self.n_components}, {d}), got shape {init.shape}"
            )

    def _annealer(self):
        return DeterministicAnnealing(
            self.n_components,
            mass_constrained=False,
            anneal=self.anneal,
            temperature=2.0 * self.sigma,
            init=self.init,
            min_temperature=2.0 * self.sigma,
            cooling_rate=self.cooling_rate,
            max_iter=self.max_iter,
            tol=self.tol,
            random_state=self.random_state,
            verbose=self.verbose,
        )

    def _validate(self, X):
        check_is_fitted(self)
        return dense_rows(self, X, reset=False)

    def _posterior(self, X):
        da = self._fitted_annealer
        return da._posterior(X - da._train_mean)

    def predict_proba(self, X):
        """Posterior component probabilities at width sigma.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            In X's float dtype.
        """
        X, dtype = self._validate(X)
        return self._posterior(X)[0].astype(dtype, copy=False)

    def predict(self, X):
        """ML classification: the nearest mean (eq. 9's classifier for two components).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self._posterior(self._validate(X)[0])[0].argmax(axis=1)

    def score_samples(self, X):
        """Log-likelihood of each sample under the fitted mixture.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X, _ = self._validate(X)
        _, log_z = self._posterior(X)
        return log_z - 0.5 * X.shape[1] * np.log(2.0 * np.pi * self.sigma)

    def score(self, X, y=None):
        """Mean log-likelihood per sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        float
        """
        return float(np.mean(self.score_samples(X)))

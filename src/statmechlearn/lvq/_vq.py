"""Unsupervised on-line vector quantization (winner-takes-all), as a scikit-learn clusterer."""

from numbers import Integral
from typing import ClassVar

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from statmechlearn._core.distances import squared_distances
from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import check_magnitude, validate_named
from statmechlearn.lvq import _kernels
from statmechlearn.lvq._prototypes import (
    COMMON_CONSTRAINTS,
    check_finite_prototypes,
    common_params,
    data_scale,
    init_prototypes,
    run_epochs,
)

__all__ = ["VQ"]


class VQ(ClassNamePrefixFeaturesOutMixin, ClusterMixin, TransformerMixin, BaseEstimator):
    """On-line winner-takes-all vector quantization.

    The nearest prototype moves towards each example:
    ``w_J <- w_J + learning_rate * (x - w_J)`` (eq. 1 of Biehl, Ghosh & Hammer
    with ``g = 1``), a stochastic gradient descent on the quantization error
    ``E = sum_x min_k |x - w_k|^2 / 2``. ``predict`` gives the index of the
    winning prototype, so the estimator is a quantizer (codebook) and a
    clusterer.

    Parameters
    ----------
    n_prototypes : int, default=2
        Number of prototypes (codebook size), >= 1.
    init : {"random-sample", "kmeans", "class-mean"} or array_like, default="random-sample"
        Starting prototypes: distinct random samples, the centres of one
        k-means run, the data mean with a 1 % random spread (the paper's
        start near the centre of mass), or an array of shape
        (n_prototypes, n_features).
    learning_rate : float, default=0.05
        Step size, > 0; the first epoch's in ``fit``, constant in ``partial_fit``.
    learning_rate_schedule : {"inverse", "linear", "constant"}, default="inverse"
        Learning rate of epoch e in ``fit``: ``learning_rate / (1 + e)``,
        ``learning_rate * (1 - e / max_iter)`` or constant.
    max_iter : int, default=100
        Maximum number of epochs of ``fit``.
    tol : float, default=1e-3
        ``fit`` stops when no prototype moved by more than ``tol`` times the
        root-mean-square distance of the samples to their mean in one epoch.
    shuffle : bool, default=True
        Visit the samples in a new random order in each epoch of ``fit``.
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator, default=None
        Seeds initialisation and shuffling.

    Attributes
    ----------
    prototypes_ : ndarray of shape (n_prototypes, n_features)
        The codebook.
    cluster_centers_ : ndarray of shape (n_prototypes, n_features)
        Alias of ``prototypes_`` (scikit-learn's clusterer vocabulary).
    labels_ : ndarray of shape (n_samples,)
        Winning prototype of each training sample after ``fit``.
    quantization_error_ : float
        Mean squared distance of the training samples to their winner.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when ``X`` had string column names.
    n_iter_ : int
        Epochs run by the last ``fit``.
    n_updates_ : int
        Examples presented in total.

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.lvq import VQ
    >>> X = np.r_[np.zeros((20, 2)), np.ones((20, 2))]
    >>> vq = VQ(n_prototypes=2, init="kmeans", random_state=0).fit(X)
    >>> np.sort(vq.prototypes_[:, 0]).round(2).tolist()
    [0.0, 1.0]
    >>> bool(vq.predict([[0.1, 0.0]])[0] != vq.predict([[0.9, 1.0]])[0])
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_prototypes": [Interval(Integral, 1, None, closed="left")],
        **COMMON_CONSTRAINTS,
    }

    def __init__(
        self,
        n_prototypes=2,
        *,
        init="random-sample",
        learning_rate=0.05,
        learning_rate_schedule="inverse",
        max_iter=100,
        tol=1e-3,
        shuffle=True,
        random_state=None,
    ):
        self.n_prototypes = n_prototypes
        self.init = init
        self.learning_rate = learning_rate
        self.learning_rate_schedule = learning_rate_schedule
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.random_state = random_state

    def _start(self, X, rng):
        k = int(self.n_prototypes)
        if isinstance(self.init, str) and self.init != "class-mean" and k > X.shape[0]:
            raise ValueError(
                f"n_prototypes={k} exceeds n_samples={X.shape[0]} for init={self.init!r}"
            )
        self.prototypes_ = init_prototypes(X, None, np.array([k]), self.init, rng)
        self._codes = np.zeros(k, dtype=np.int64)
        self._scale = data_scale(X)
        self.n_updates_ = 0
        self.n_iter_ = 0

    def _epoch(self, X, order, learning_rate):
        dummy = np.zeros(X.shape[0], dtype=np.int64)
        _kernels.wta_epoch(self.prototypes_, X, dummy, self._codes, order, learning_rate, 1.0, 0.0)

    @property
    def _n_features_out(self):
        """Number of columns of ``transform``: one distance per prototype."""
        return self.prototypes_.shape[0]

    @property
    def cluster_centers_(self):
        """Alias of ``prototypes_``."""
        check_is_fitted(self, "prototypes_")
        return self.prototypes_

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Train the codebook by epochs of on-line WTA updates over shuffled data.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        self
        """
        params = common_params(self)
        X = validate_named(self, X, dtype=np.float64, order="C")
        check_magnitude(X)
        rng = check_random_state(self.random_state)
        self._start(X, rng)
        run_epochs(
            self,
            X.shape[0],
            lambda order, lr: self._epoch(X, order, lr),
            params,
            bool(self.shuffle),
            rng,
            self._scale,
        )
        d = squared_distances(X, self.prototypes_)
        self.labels_ = np.argmin(d, axis=1)
        self.quantization_error_ = float(d.min(axis=1).mean())
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """One on-line pass over ``X`` in the given order at the constant learning rate.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        self
        """
        params = common_params(self)
        first = not hasattr(self, "prototypes_")
        X = validate_named(self, X, dtype=np.float64, order="C", reset=first)
        check_magnitude(X)
        if first:
            self._start(X, check_random_state(self.random_state))
        self._epoch(X, np.arange(X.shape[0]), params["learning_rate"])
        self.n_updates_ += X.shape[0]
        check_finite_prototypes(self, params["learning_rate"])
        return self

    def _check_X(self, X):
        check_is_fitted(self, "prototypes_")
        X = validate_named(self, X, dtype=np.float64, order="C", reset=False)
        check_magnitude(X)
        return X

    def transform(self, X):
        """Euclidean distances of each sample to every prototype.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_prototypes)
        """
        return np.sqrt(squared_distances(self._check_X(X), self.prototypes_))

    def predict(self, X):
        """Index of the winning (nearest) prototype.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,), int
        """
        return np.argmin(squared_distances(self._check_X(X), self.prototypes_), axis=1)

    def score(self, X, y=None):
        """Minus the mean squared quantization error (higher is better).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        float
        """
        d = squared_distances(self._check_X(X), self.prototypes_)
        return -float(d.min(axis=1).mean())

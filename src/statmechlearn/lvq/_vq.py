"""Unsupervised on-line vector quantization (winner-takes-all), as a scikit-learn clusterer."""

from numbers import Integral
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from statmechlearn._core.distances import squared_distances
from statmechlearn._core.rng import check_random_state
from statmechlearn.lvq import _kernels
from statmechlearn.lvq._prototypes import (
    COMMON_CONSTRAINTS,
    PrototypeInputMixin,
    check_finite_prototypes,
    check_sample_weight,
    common_params,
    data_scale,
    drop_zero_weight,
    init_prototypes,
    run_epochs,
    sq_distances,
    validate_predict_X,
    validate_train_X,
)

__all__ = ["VQ"]


class VQ(PrototypeInputMixin, ClusterMixin, TransformerMixin, BaseEstimator):
    """On-line winner-takes-all vector quantization.

    The nearest prototype moves towards each example:
    ``w_J <- w_J + learning_rate * (x - w_J)`` (eq. 1 of Biehl, Ghosh & Hammer
    with ``g = 1``), a stochastic gradient descent on the quantization error
    ``E = sum_x min_k |x - w_k|^2 / 2``. ``predict`` gives the index of the
    winning prototype, so the estimator is a quantizer (codebook) and a
    clusterer. With ``sample_weight`` it descends the weighted error
    ``sum_i sample_weight[i] min_k |x_i - w_k|^2 / 2`` (see :meth:`fit`).

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
    verbose : int, default=0
        At 1 or more ``fit`` prints one line per epoch: the learning rate, the
        quantization error and the largest prototype displacement (relative
        to the data's scale), and the epoch at which it converged.

    Attributes
    ----------
    prototypes_ : ndarray of shape (n_prototypes, n_features)
        The codebook; float32 if the training data were.
    cluster_centers_ : ndarray of shape (n_prototypes, n_features)
        Alias of ``prototypes_`` (scikit-learn's clusterer vocabulary).
    labels_ : ndarray of shape (n_samples,)
        Winning prototype of each training sample after ``fit``.
    quantization_error_ : float
        Mean squared distance of the training samples to their winner
        (weighted by ``sample_weight``).
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
        verbose=0,
    ):
        self.n_prototypes = n_prototypes
        self.init = init
        self.learning_rate = learning_rate
        self.learning_rate_schedule = learning_rate_schedule
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose

    def _start(self, X, rng, sw, dtype):
        k = int(self.n_prototypes)
        if isinstance(self.init, str) and self.init != "class-mean" and k > X.shape[0]:
            raise ValueError(
                f"n_prototypes={k} exceeds n_samples={X.shape[0]} for init={self.init!r}"
                + ("" if sw is None else " of non-zero weight")
            )
        # the rule updates float64 prototypes in place; prototypes_ is them in the input's dtype
        self._W = init_prototypes(X, None, np.array([k]), self.init, rng, sample_weight=sw)
        self.prototypes_ = self._W
        self._dtype = dtype
        self._codes = np.zeros(k, dtype=np.int64)
        self._scale = data_scale(X, sw)
        self.n_updates_ = 0
        self.n_iter_ = 0

    def _publish(self):
        self.prototypes_ = self._W if self._dtype == np.float64 else self._W.astype(self._dtype)

    def _epoch(self, X, order, learning_rate, weights):
        dummy = np.zeros(X.shape[0], dtype=np.int64)
        _kernels.wta_epoch(self._W, X, dummy, self._codes, order, learning_rate, 1.0, 0.0, weights)

    @property
    def cluster_centers_(self):
        """Alias of ``prototypes_``."""
        check_is_fitted(self, "prototypes_")
        return self.prototypes_

    def _quantization_error(self, X, sw):
        d = squared_distances(X, np.asarray(self.prototypes_, dtype=np.float64)).min(axis=1)
        return float(d.mean()) if sw is None else float(np.average(d, weights=sw))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Train the codebook by epochs of on-line WTA updates over shuffled data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; must be finite. Sparse input (CSR or CSC) is
            converted to a dense array: the rule steps through dense rows.
            float32 input gives float32 ``prototypes_`` and outputs (the
            updates are computed in float64).
        y : None
            Ignored.
        sample_weight : array_like of shape (n_samples,), default=None
            Non-negative weights; None means 1 for every sample. Sample i
            moves its winner by ``learning_rate * sample_weight[i]``: each
            epoch is stochastic gradient descent on the weighted error
            ``sum_i sample_weight[i] min_k |x_i - w_k|^2 / 2``, whose gradient
            is that of the data with row i repeated ``sample_weight[i]`` times.
            An integer weight therefore equals repeating the row to first
            order in the learning rate, not exactly: one step of
            ``learning_rate * w`` is not w steps of ``learning_rate`` in a
            shuffled sequence. The initialisation (k-means, the data mean,
            the random draw of samples), the stopping scale and
            ``quantization_error_`` are weighted, and a sample of weight 0 is
            dropped before anything else, which is exactly the fit without its
            row (``labels_`` still has an entry for it). Keep ``learning_rate *
            sample_weight`` below 1: a larger step overshoots the example.

        Returns
        -------
        self
        """
        params = common_params(self)
        X_all, _, dtype = validate_train_X(self, X, reset=True)
        sw, X = drop_zero_weight(check_sample_weight(sample_weight, X_all), X_all)
        rng = check_random_state(self.random_state)
        self._start(X, rng, sw, dtype)
        # unit weights are ones in the kernel: learning_rate * 1.0 is exactly learning_rate
        weights = np.ones(X.shape[0]) if sw is None else sw
        run_epochs(
            self,
            X.shape[0],
            lambda order, lr: self._epoch(X, order, lr, weights),
            params,
            bool(self.shuffle),
            rng,
            self._scale,
            lambda: f"quantization error {self._quantization_error(X, sw):.6g}",
        )
        # from the published prototypes, as predict and score see them
        self._publish()
        P = np.asarray(self.prototypes_, dtype=np.float64)
        self.labels_ = np.argmin(squared_distances(X_all, P), axis=1)
        self.quantization_error_ = self._quantization_error(X, sw)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None, sample_weight=None):
        """One on-line pass over ``X`` in the given order at the constant learning rate.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Sparse input is converted to a dense array. The first call's
            float dtype (float32 or float64) is that of ``prototypes_``.
        y : None
            Ignored.
        sample_weight : array_like of shape (n_samples,), default=None
            Non-negative weights scaling each sample's step, as in :meth:`fit`;
            a zero weight skips the sample.

        Returns
        -------
        self
        """
        params = common_params(self)
        first = not hasattr(self, "prototypes_")
        X, _, dtype = validate_train_X(self, X, reset=first)
        sw, X = drop_zero_weight(check_sample_weight(sample_weight, X), X)
        if first:
            self._start(X, check_random_state(self.random_state), sw, dtype)
        weights = np.ones(X.shape[0]) if sw is None else sw
        self._epoch(X, np.arange(X.shape[0]), params["learning_rate"], weights)
        self.n_updates_ += X.shape[0]
        check_finite_prototypes(self, params["learning_rate"])
        self._publish()
        return self

    def _distances(self, X):
        X, dtype = validate_predict_X(self, X)
        return sq_distances(X, np.asarray(self.prototypes_, dtype=np.float64)), dtype

    def transform(self, X):
        """Euclidean distances of each sample to every prototype.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Sparse input is used as it is (one sparse-dense product).

        Returns
        -------
        ndarray of shape (n_samples, n_prototypes)
            In the float dtype of ``X``.
        """
        d, dtype = self._distances(X)
        return np.sqrt(d).astype(dtype, copy=False)

    def predict(self, X):
        """Index of the winning (nearest) prototype.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,), int
        """
        return np.argmin(self._distances(X)[0], axis=1)

    def score(self, X, y=None, sample_weight=None):
        """Minus the mean squared quantization error (higher is better).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : None
            Ignored.
        sample_weight : array_like of shape (n_samples,), default=None
            Weights of the mean.

        Returns
        -------
        float
        """
        d = self._distances(X)[0].min(axis=1)
        if sample_weight is None:
            return -float(d.mean())
        sw = check_sample_weight(sample_weight, d)
        return -float(np.average(d, weights=sw))

"""Prototype classifiers: LVQ1, LVQ+, LVQ2.1 and GLVQ as scikit-learn estimators.

Each estimator is a set of labelled prototypes and a learning rule applied
one example at a time, exactly as in the on-line setting of Biehl, Ghosh &
Hammer. ``fit`` runs epochs over the shuffled data with a decreasing
learning rate; ``partial_fit`` is one on-line pass at the constant
``learning_rate``. The rules live in :mod:`statmechlearn.lvq._kernels` and
are the same compiled code the teacher-student simulations run.
"""

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.special import log_softmax
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets

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
    prototype_counts,
    run_epochs,
    sq_distances,
    validate_predict_X,
    validate_train_X,
)

__all__ = ["GLVQ", "LVQ1", "LVQ21", "LVQPlus"]

_COMMON_PARAMS = """
    n_prototypes_per_class : int or array_like of int, default=1
        Prototypes per class: one count for all classes, or one count per
        class in the (sorted) order of ``classes_``.
    init : {"kmeans", "class-mean", "random-sample"} or array_like, default="kmeans"
        Starting prototypes: the centres of k-means within each class (the
        class mean for one prototype per class), the class means (several per
        class get a small random spread, 1 % of the class's standard
        deviation, so they can separate), randomly drawn samples of each
        class, or an array of shape (n_prototypes, n_features) ordered by
        class as ``prototype_labels_`` will be.
    learning_rate : float, default={lr}
        Step size, > 0. In ``fit`` it is the first epoch's; ``partial_fit``
        always uses it unchanged (the paper's on-line setting, where
        ``learning_rate = eta / N`` for N features).
    learning_rate_schedule : {"inverse", "linear", "constant"}, default="inverse"
        Learning rate of epoch e in ``fit``: ``learning_rate / (1 + e)``,
        ``learning_rate * (1 - e / max_iter)`` (Kohonen's LVQ_PAK), or constant.
    max_iter : int, default=100
        Maximum number of epochs of ``fit``.
    tol : float, default=1e-3
        ``fit`` stops when no prototype moved by more than ``tol`` times the
        data's scale (the root-mean-square distance of the samples to their
        mean) in one epoch.
    shuffle : bool, default=True
        Visit the samples in a new random order in each epoch of ``fit``.
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator, default=None
        Seeds initialisation and shuffling.
    verbose : int, default=0
        At 1 or more ``fit`` prints one line per epoch: the learning rate,
        {progress} and the largest prototype displacement (relative to the
        data's scale), and the epoch at which it converged."""

_COMMON_ATTRS = """
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    prototypes_ : ndarray of shape (n_prototypes, n_features)
        The prototypes, grouped by class; float32 if the training data were.
    prototype_labels_ : ndarray of shape (n_prototypes,)
        Class label of each prototype.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when ``X`` had string column names.
    n_iter_ : int
        Epochs run by the last ``fit`` (0 after ``partial_fit`` alone).
    n_updates_ : int
        Examples presented in total, over ``fit`` and ``partial_fit`` calls.
    soft_assignment_variance_ : float
        Per-feature variance ``s2`` of the soft assignment used by
        ``predict_proba`` (see there), estimated from the training data."""


def _doc(template, **kw):
    for key, value in kw.items():
        template = template.replace("{" + key + "}", value)
    return template


class _PrototypeClassifier(PrototypeInputMixin, ClassifierMixin, TransformerMixin, BaseEstimator):
    """Base class: data handling, initialisation, epochs, prediction."""

    _parameter_constraints: ClassVar[dict] = {
        "n_prototypes_per_class": [Interval(Integral, 1, None, closed="left"), "array-like"],
        **COMMON_CONSTRAINTS,
    }

    def __init__(
        self,
        n_prototypes_per_class=1,
        *,
        init="kmeans",
        learning_rate=0.05,
        learning_rate_schedule="inverse",
        max_iter=100,
        tol=1e-3,
        shuffle=True,
        random_state=None,
        verbose=0,
    ):
        self.n_prototypes_per_class = n_prototypes_per_class
        self.init = init
        self.learning_rate = learning_rate
        self.learning_rate_schedule = learning_rate_schedule
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose

    # -- hooks of the learning rule ----------------------------------------
    def _rule_params(self):
        """Extra parameters of the rule (a tuple passed to _epoch), already validated."""
        return ()

    def _epoch(
        self, X, y_codes, order, learning_rate, rule, weights
    ):  # pragma: no cover - abstract
        raise NotImplementedError

    def _progress(self, X, y_codes, sw):
        """The training state printed after each epoch at ``verbose >= 1``."""
        d = self._class_distances(X)
        wrong = (np.argmin(d, axis=1) != y_codes).astype(np.float64)
        return f"training error {np.average(wrong, weights=sw):.4g}"

    # -- fitting -------------------------------------------------------------
    def _validate_targets(self, y, classes=None):
        check_classification_targets(y)
        if classes is None:
            classes = np.unique(y)
        if classes.size < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes; y has "
                f"{classes.size} class ({classes[0]!r})"
                if classes.size == 1
                else f"{type(self).__name__} needs samples of at least 2 classes; y is empty"
            )
        return classes

    def _start(self, X, y_codes, classes, rng, sw, dtype):
        self.classes_ = classes
        counts = prototype_counts(self.n_prototypes_per_class, classes.size)
        self._prototype_codes = np.repeat(np.arange(classes.size, dtype=np.int64), counts)
        self.prototype_labels_ = classes[self._prototype_codes]
        # the rules update float64 prototypes in place; prototypes_ is them in the input's dtype
        self._W = init_prototypes(
            X, y_codes, counts, self.init, rng, group_names=classes, sample_weight=sw
        )
        self.prototypes_ = self._W
        self._dtype = dtype
        self._scale = data_scale(X, sw)
        self.n_updates_ = 0
        self.n_iter_ = 0
        self._sq_error_sum = 0.0

    def _publish(self):
        self.prototypes_ = self._W if self._dtype == np.float64 else self._W.astype(self._dtype)

    def _update_soft_variance(self, X, reset, sw):
        # from the published prototypes, which predict_proba uses
        d = squared_distances(X, np.asarray(self.prototypes_, dtype=np.float64)).min(axis=1)
        if reset:
            self._sq_error_sum, self._n_soft = 0.0, 0
        if sw is None:
            self._sq_error_sum += float(d.sum())
            self._n_soft += X.shape[0]
        else:
            self._sq_error_sum += float(d @ sw)
            self._n_soft += float(sw.sum())
        s2 = self._sq_error_sum / (self._n_soft * X.shape[1])
        self.soft_assignment_variance_ = max(s2, np.finfo(float).tiny)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Train the prototypes by epochs of on-line updates over shuffled data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; must be finite. Sparse input (CSR or CSC) is
            converted to a dense array: the rule steps through dense rows.
            float32 input gives float32 ``prototypes_`` and outputs (the
            updates are computed in float64).
        y : array_like of shape (n_samples,)
            Class labels, at least two distinct (among the samples of non-zero weight).
        sample_weight : array_like of shape (n_samples,), default=None
            Non-negative weights; None means 1 for every sample. Sample i
            moves the prototypes by ``learning_rate * sample_weight[i]`` times
            the rule, so an epoch's expected (batch) update is
            ``sum_i sample_weight[i] Delta_i``, that of the data with row i
            repeated ``sample_weight[i]`` times (for GLVQ: stochastic gradient
            descent on the weighted cost ``sum_i sample_weight[i] f(mu_i)``).
            An integer weight therefore equals repeating the row to first
            order in the learning rate, not exactly: one step of
            ``learning_rate * w`` is not w steps of ``learning_rate`` in a
            shuffled sequence. The initialisation (class means, k-means, the
            random draw of samples), the stopping scale and
            ``soft_assignment_variance_`` are weighted, and a sample of weight
            0 is dropped before anything else, which is exactly the fit
            without its row. Keep ``learning_rate * sample_weight`` below 1:
            a larger step overshoots the example.

        Returns
        -------
        self
        """
        params = common_params(self)
        shuffle = bool(self.shuffle)
        rule = self._rule_params()
        X, y, dtype = validate_train_X(self, X, y, reset=True, ensure_min_samples=2)
        sw, X, y = drop_zero_weight(check_sample_weight(sample_weight, X), X, y)
        classes = self._validate_targets(y)
        y_codes = np.searchsorted(classes, y).astype(np.int64)
        rng = check_random_state(self.random_state)
        self._start(X, y_codes, classes, rng, sw, dtype)
        # unit weights are ones in the kernel: learning_rate * 1.0 is exactly learning_rate
        weights = np.ones(X.shape[0]) if sw is None else sw

        def epoch(order, lr):
            self._epoch(X, y_codes, order, lr, rule, weights)

        run_epochs(
            self,
            X.shape[0],
            epoch,
            params,
            shuffle,
            rng,
            self._scale,
            lambda: self._progress(X, y_codes, sw),
        )
        self._publish()
        self._update_soft_variance(X, True, sw)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One on-line pass over ``X`` in the given order at the constant learning rate.

        This is the setting of the paper: every example is seen once, in
        sequence, and moves the prototypes by ``learning_rate`` times the rule.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Sparse input is converted to a dense array. The first call's
            float dtype (float32 or float64) is that of ``prototypes_``.
        y : array_like of shape (n_samples,)
        classes : array_like of shape (n_classes,), optional
            All labels that will ever occur; required on the first call,
            ignored afterwards (labels must then be among ``classes_``).
        sample_weight : array_like of shape (n_samples,), default=None
            Non-negative weights scaling each sample's step, as in :meth:`fit`;
            a zero weight skips the sample.

        Returns
        -------
        self
        """
        params = common_params(self)
        rule = self._rule_params()
        first = not hasattr(self, "prototypes_")
        X, y, dtype = validate_train_X(self, X, y, reset=first)
        sw, X, y = drop_zero_weight(check_sample_weight(sample_weight, X), X, y)
        check_classification_targets(y)
        if first:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit "
                    "(all labels that will ever occur)"
                )
            classes = self._validate_targets(y, np.unique(np.asarray(classes)))
        known = classes if first else self.classes_
        unknown = np.setdiff1d(np.unique(y), known)
        if unknown.size:
            raise ValueError(
                f"y contains labels {unknown.tolist()} that are not in classes {known.tolist()}"
            )
        y_codes = np.searchsorted(known, y).astype(np.int64)
        if first:
            self._start(X, y_codes, classes, check_random_state(self.random_state), sw, dtype)
        weights = np.ones(X.shape[0]) if sw is None else sw
        self._epoch(X, y_codes, np.arange(X.shape[0]), params["learning_rate"], rule, weights)
        self.n_updates_ += X.shape[0]
        check_finite_prototypes(self, params["learning_rate"])
        self._publish()
        self._update_soft_variance(X, first, sw)
        return self

    # -- prediction ----------------------------------------------------------
    def _class_distances(self, X):
        d = sq_distances(X, np.asarray(self.prototypes_, dtype=np.float64))
        out = np.full((X.shape[0], self.classes_.size), np.inf)
        for c in range(self.classes_.size):
            out[:, c] = d[:, self._prototype_codes == c].min(axis=1)
        return out

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
        X, dtype = validate_predict_X(self, X)
        d = sq_distances(X, np.asarray(self.prototypes_, dtype=np.float64))
        return np.sqrt(d).astype(dtype, copy=False)

    def decision_function(self, X):
        """Closeness to each class: minus the squared distance to its nearest prototype.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, ``d_0 - d_1`` (positive means ``classes_[1]``),
            with ``d_c`` the squared distance to the nearest prototype of
            class c; otherwise ``-d_c`` per class. In the float dtype of ``X``.
        """
        X, dtype = validate_predict_X(self, X)
        d = self._class_distances(X)
        out = d[:, 0] - d[:, 1] if self.classes_.size == 2 else -d
        return out.astype(dtype, copy=False)

    def predict(self, X):
        """Label of the nearest prototype.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        d = self._class_distances(validate_predict_X(self, X)[0])
        return self.classes_[np.argmin(d, axis=1)]

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            In the float dtype of ``X``; for float32 ``X`` it is the logarithm
            of the float32 :meth:`predict_proba`, so probabilities below
            float32's range (about 1e-38) lose precision or give ``-inf``.
        """
        X, dtype = validate_predict_X(self, X)
        out = self._log_proba64(X)
        if dtype == np.float64:
            return out
        # a log-probability rounded to float32 need not be the log of the rounded
        # probability (1 - 1e-8 is 1 in float32): give the log of what predict_proba gives
        with np.errstate(divide="ignore"):
            return np.log(np.exp(out).astype(dtype))

    def _log_proba64(self, X):
        d = self._class_distances(X)
        return log_softmax(-d / (2.0 * self.soft_assignment_variance_), axis=1)

    def predict_proba(self, X):
        """Soft assignment to classes through each class's nearest prototype.

        ``P(c | x) ∝ exp(-d_c(x) / (2 s2))``, with ``d_c`` the squared
        distance to the nearest prototype of class c and ``s2`` =
        ``soft_assignment_variance_``: the posterior of a mixture of
        isotropic Gaussians of per-feature variance ``s2`` centred on the
        winning prototypes, ``s2`` being the mean squared quantization error
        per feature on the training data. The most probable class is the
        prediction.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            In the float dtype of ``X``.
        """
        X, dtype = validate_predict_X(self, X)
        return np.exp(self._log_proba64(X)).astype(dtype, copy=False)


class _WTAClassifier(_PrototypeClassifier):
    _a = _b = 0.0

    def _epoch(self, X, y_codes, order, learning_rate, rule, weights):
        _kernels.wta_epoch(
            self._W,
            X,
            y_codes,
            self._prototype_codes,
            order,
            learning_rate,
            self._a,
            self._b,
            weights,
        )


class LVQ1(_WTAClassifier):
    __doc__ = _doc(
        """Kohonen's LVQ1: the winner moves towards a correct example and away from a wrong one.

    On-line winner-takes-all rule, eq. (1) of Biehl, Ghosh & Hammer with
    ``g(S, sigma) = S sigma``: ``w_J <- w_J + learning_rate * (+-1) (x - w_J)``
    for the nearest prototype ``w_J`` (``+`` if its label is the example's).

    Parameters
    ----------{common}

    Attributes
    ----------{attrs}

    See Also
    --------
    LVQPlus : only correct winners move.
    GLVQ : gradient descent on a cost function.
    statmechlearn.theory.lvq_dynamics.learning_curve : its typical dynamics.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from statmechlearn.lvq import LVQ1
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = LVQ1(n_prototypes_per_class=2, random_state=0).fit(X, y)
    >>> clf.prototypes_.shape
    (6, 4)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """,
        common=_COMMON_PARAMS.replace("{lr}", "0.05").replace("{progress}", "the training error"),
        attrs=_COMMON_ATTRS,
    )
    _a, _b = 0.0, 1.0


class LVQPlus(_WTAClassifier):
    __doc__ = _doc(
        """LVQ+: the winner moves towards the example only if their labels agree.

    Eq. (1) of Biehl, Ghosh & Hammer with ``g(S, sigma) = (1 + S sigma) / 2``;
    within each class this is vector quantization of that class's data.
    Its asymptotic error does not depend on the class priors (the
    min-max classifier among those two prototypes realise).

    Parameters
    ----------{common}

    Attributes
    ----------{attrs}

    See Also
    --------
    LVQ1 : wrong winners are also pushed away.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from statmechlearn.lvq import LVQPlus
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = LVQPlus(random_state=0).fit(X, y)
    >>> clf.prototypes_.shape
    (3, 4)
    >>> bool(clf.score(X, y) > 0.85)
    True
    """,
        common=_COMMON_PARAMS.replace("{lr}", "0.05").replace("{progress}", "the training error"),
        attrs=_COMMON_ATTRS,
    )
    _a, _b = 0.5, 0.5


class LVQ21(_PrototypeClassifier):
    __doc__ = _doc(
        """Kohonen's LVQ2.1 with the window rule.

    For each example the two nearest prototypes ``w_i``, ``w_j`` (squared
    Euclidean distances ``d_i <= d_j``) are updated only if one carries the
    example's label and the other does not, and the example falls in the
    window ``sqrt(d_i / d_j) > (1 - window) / (1 + window)``: the correct one
    moves towards the example, the wrong one away from it, both by
    ``learning_rate``. The window keeps LVQ2.1 from the divergence of the
    unrestricted rule; even so the rule is a fine-tuning step (Kohonen), so
    it starts from k-means prototypes with a small learning rate: with
    larger steps the wrong prototype can still be pushed away for good.

    Parameters
    ----------{common}
    window : float, default=0.3
        Relative window width, in (0, 1).

    Attributes
    ----------{attrs}

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from statmechlearn.lvq import LVQ21
    >>> X, y = load_iris(return_X_y=True)
    >>> bool(LVQ21(random_state=0).fit(X, y).score(X, y) > 0.9)
    True
    """,
        common=_COMMON_PARAMS.replace("{lr}", "0.005").replace("{progress}", "the training error"),
        attrs=_COMMON_ATTRS,
    )

    def __init__(
        self,
        n_prototypes_per_class=1,
        *,
        init="kmeans",
        learning_rate=0.005,
        learning_rate_schedule="inverse",
        max_iter=100,
        tol=1e-3,
        shuffle=True,
        random_state=None,
        verbose=0,
        window=0.3,
    ):
        super().__init__(
            n_prototypes_per_class,
            init=init,
            learning_rate=learning_rate,
            learning_rate_schedule=learning_rate_schedule,
            max_iter=max_iter,
            tol=tol,
            shuffle=shuffle,
            random_state=random_state,
            verbose=verbose,
        )
        self.window = window

    _parameter_constraints: ClassVar[dict] = {
        **_PrototypeClassifier._parameter_constraints,
        "window": [Interval(Real, 0, 1, closed="neither")],
    }

    def _rule_params(self):
        w = float(self.window)
        return ((1.0 - w) / (1.0 + w),)

    def _epoch(self, X, y_codes, order, learning_rate, rule, weights):
        _kernels.lvq21_epoch(
            self._W, X, y_codes, self._prototype_codes, order, learning_rate, rule[0], weights
        )


class GLVQ(_PrototypeClassifier):
    __doc__ = _doc(
        """Generalized LVQ of Sato & Yamada, trained by stochastic gradient descent.

    Minimises ``sum_x f(mu(x))`` with the relative distance difference
    ``mu = (d_J - d_K) / (d_J + d_K)``, ``d_J`` (``d_K``) the squared distance
    to the nearest prototype with the correct (a wrong) label. The gradient
    of ``f(mu(x))`` is ``-f'(mu) 4 d_K / (d_J + d_K)^2 (x - w_J)`` for ``w_J``
    and ``+f'(mu) 4 d_J / (d_J + d_K)^2 (x - w_K)`` for ``w_K``; each step
    goes down it by ``eta = learning_rate * (d_J + d_K) / 2``. The cost is
    invariant under a rescaling of the data, and this step size makes the
    updates (and so ``learning_rate``) invariant too, with no state that
    would make ``partial_fit`` depend on how the data are split into batches.

    Parameters
    ----------{common}
    activation : {"sigmoid", "identity"}, default="sigmoid"
        ``f(mu) = 1 / (1 + exp(-beta mu))`` or ``f(mu) = mu``.
    beta : float, default=2.0
        Slope of the sigmoid, > 0.

    Attributes
    ----------{attrs}

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from statmechlearn.lvq import GLVQ
    >>> X, y = load_iris(return_X_y=True)
    >>> bool(GLVQ(random_state=0).fit(X, y).score(X, y) > 0.9)
    True
    """,
        common=_COMMON_PARAMS.replace("{lr}", "0.05").replace(
            "{progress}", "the cost per sample, the training error"
        ),
        attrs=_COMMON_ATTRS,
    )

    def __init__(
        self,
        n_prototypes_per_class=1,
        *,
        init="kmeans",
        learning_rate=0.05,
        learning_rate_schedule="inverse",
        max_iter=100,
        tol=1e-3,
        shuffle=True,
        random_state=None,
        verbose=0,
        activation="sigmoid",
        beta=2.0,
    ):
        super().__init__(
            n_prototypes_per_class,
            init=init,
            learning_rate=learning_rate,
            learning_rate_schedule=learning_rate_schedule,
            max_iter=max_iter,
            tol=tol,
            shuffle=shuffle,
            random_state=random_state,
            verbose=verbose,
        )
        self.activation = activation
        self.beta = beta

    _parameter_constraints: ClassVar[dict] = {
        **_PrototypeClassifier._parameter_constraints,
        "activation": [StrOptions(set(_kernels.ACTIVATIONS))],
        "beta": [Interval(Real, 0, np.inf, closed="neither")],
    }

    def _rule_params(self):
        return (_kernels.ACTIVATIONS[self.activation], float(self.beta))

    def _epoch(self, X, y_codes, order, learning_rate, rule, weights):
        _kernels.glvq_epoch(
            self._W,
            X,
            y_codes,
            self._prototype_codes,
            order,
            learning_rate,
            rule[0],
            rule[1],
            weights,
        )

    def _progress(self, X, y_codes, sw):
        d = self._class_distances(X)
        rows = np.arange(X.shape[0])
        dj = d[rows, y_codes]
        d[rows, y_codes] = np.inf
        dk = d.min(axis=1)
        total = dj + dk
        mu = np.divide(dj - dk, total, out=np.zeros_like(total), where=total > 0)
        f = 1.0 / (1.0 + np.exp(-float(self.beta) * mu)) if self.activation == "sigmoid" else mu
        wrong = (mu > 0).astype(np.float64)
        return (
            f"cost {np.average(f, weights=sw):.6g}, "
            f"training error {np.average(wrong, weights=sw):.4g}"
        )

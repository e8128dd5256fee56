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
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
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
    prototype_counts,
    run_epochs,
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
        Seeds initialisation and shuffling."""

_COMMON_ATTRS = """
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    prototypes_ : ndarray of shape (n_prototypes, n_features)
        The prototypes, grouped by class.
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


class _PrototypeClassifier(
    ClassNamePrefixFeaturesOutMixin, ClassifierMixin, TransformerMixin, BaseEstimator
):
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
    ):
        self.n_prototypes_per_class = n_prototypes_per_class
        self.init = init
        self.learning_rate = learning_rate
        self.learning_rate_schedule = learning_rate_schedule
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.random_state = random_state

    # -- hooks of the learning rule ----------------------------------------
    def _rule_params(self):
        """Extra parameters of the rule (a tuple passed to _epoch), already validated."""
        return ()

    @property
    def _n_features_out(self):
        """Number of columns of ``transform``: one distance per prototype."""
        return self.prototypes_.shape[0]

    def _epoch(self, X, y_codes, order, learning_rate, rule):  # pragma: no cover - abstract
        raise NotImplementedError

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

    def _start(self, X, y_codes, classes, rng):
        self.classes_ = classes
        counts = prototype_counts(self.n_prototypes_per_class, classes.size)
        self._prototype_codes = np.repeat(np.arange(classes.size, dtype=np.int64), counts)
        self.prototype_labels_ = classes[self._prototype_codes]
        self.prototypes_ = init_prototypes(X, y_codes, counts, self.init, rng, group_names=classes)
        self._scale = data_scale(X)
        self.n_updates_ = 0
        self.n_iter_ = 0
        self._sq_error_sum = 0.0

    def _update_soft_variance(self, X, reset):
        d = squared_distances(X, self.prototypes_).min(axis=1)
        if reset:
            self._sq_error_sum, self._n_soft = 0.0, 0
        self._sq_error_sum += float(d.sum())
        self._n_soft += X.shape[0]
        s2 = self._sq_error_sum / (self._n_soft * X.shape[1])
        self.soft_assignment_variance_ = max(s2, np.finfo(float).tiny)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Train the prototypes by epochs of on-line updates over shuffled data.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training data; must be finite.
        y : array_like of shape (n_samples,)
            Class labels, at least two distinct.

        Returns
        -------
        self
        """
        params = common_params(self)
        shuffle = bool(self.shuffle)
        rule = self._rule_params()
        X, y = validate_named(self, X, y, dtype=np.float64, order="C", ensure_min_samples=2)
        check_magnitude(X)
        classes = self._validate_targets(y)
        y_codes = np.searchsorted(classes, y).astype(np.int64)
        rng = check_random_state(self.random_state)
        self._start(X, y_codes, classes, rng)

        def epoch(order, lr):
            self._epoch(X, y_codes, order, lr, rule)

        run_epochs(self, X.shape[0], epoch, params, shuffle, rng, self._scale)
        self._update_soft_variance(X, reset=True)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None):
        """One on-line pass over ``X`` in the given order at the constant learning rate.

        This is the setting of the paper: every example is seen once, in
        sequence, and moves the prototypes by ``learning_rate`` times the rule.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
        classes : array_like of shape (n_classes,), optional
            All labels that will ever occur; required on the first call,
            ignored afterwards (labels must then be among ``classes_``).

        Returns
        -------
        self
        """
        params = common_params(self)
        rule = self._rule_params()
        first = not hasattr(self, "prototypes_")
        X, y = validate_named(self, X, y, dtype=np.float64, order="C", reset=first)
        check_magnitude(X)
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
            self._start(X, y_codes, classes, check_random_state(self.random_state))
        self._epoch(X, y_codes, np.arange(X.shape[0]), params["learning_rate"], rule)
        self.n_updates_ += X.shape[0]
        check_finite_prototypes(self, params["learning_rate"])
        self._update_soft_variance(X, reset=first)
        return self

    # -- prediction ----------------------------------------------------------
    def _class_distances(self, X):
        d = squared_distances(X, self.prototypes_)
        out = np.full((X.shape[0], self.classes_.size), np.inf)
        for c in range(self.classes_.size):
            out[:, c] = d[:, self._prototype_codes == c].min(axis=1)
        return out

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
        X = self._check_X(X)
        return np.sqrt(squared_distances(X, self.prototypes_))

    def decision_function(self, X):
        """Closeness to each class: minus the squared distance to its nearest prototype.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, ``d_0 - d_1`` (positive means ``classes_[1]``),
            with ``d_c`` the squared distance to the nearest prototype of
            class c; otherwise ``-d_c`` per class.
        """
        d = self._class_distances(self._check_X(X))
        if self.classes_.size == 2:
            return d[:, 0] - d[:, 1]
        return -d

    def predict(self, X):
        """Label of the nearest prototype.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        d = self._class_distances(self._check_X(X))
        return self.classes_[np.argmin(d, axis=1)]

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        d = self._class_distances(self._check_X(X))
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
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        return np.exp(self.predict_log_proba(X))


class _WTAClassifier(_PrototypeClassifier):
    _a = _b = 0.0

    def _epoch(self, X, y_codes, order, learning_rate, rule):
        _kernels.wta_epoch(
            self.prototypes_,
            X,
            y_codes,
            self._prototype_codes,
            order,
            learning_rate,
            self._a,
            self._b,
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
        common=_COMMON_PARAMS.replace("{lr}", "0.05"),
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
        common=_COMMON_PARAMS.replace("{lr}", "0.05"),
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
        common=_COMMON_PARAMS.replace("{lr}", "0.005"),
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
        )
        self.window = window

    _parameter_constraints: ClassVar[dict] = {
        **_PrototypeClassifier._parameter_constraints,
        "window": [Interval(Real, 0, 1, closed="neither")],
    }

    def _rule_params(self):
        w = float(self.window)
        return ((1.0 - w) / (1.0 + w),)

    def _epoch(self, X, y_codes, order, learning_rate, rule):
        _kernels.lvq21_epoch(
            self.prototypes_, X, y_codes, self._prototype_codes, order, learning_rate, rule[0]
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
        common=_COMMON_PARAMS.replace("{lr}", "0.05"),
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

    def _epoch(self, X, y_codes, order, learning_rate, rule):
        _kernels.glvq_epoch(
            self.prototypes_,
            X,
            y_codes,
            self._prototype_codes,
            order,
            learning_rate,
            rule[0],
            rule[1],
        )

"""Linear classifiers that learn in the presence of outliers (Dietrich & Opper).

The model behind them: an informative example of class S = +-1 lies around
``S m`` (``m`` a centre vector), an outlier lies around the origin with a
random label, and all have variance ``1 / gamma`` per component; a fraction
``1 / (1 + e^eta)`` is informative. :class:`OutlierRobustClassifier`
estimates ``m`` by EM, weighting (soft) or selecting (hard) the examples it
judges informative; :class:`HebbClassifier` weights all equally. Both
classify by the sign of ``(x - centre) . m``.
"""

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn._core.validation import check_choice, check_int, check_real
from statmechlearn.linear._selection_em import (
    hard_selection_em,
    hebb_vector,
    soft_selection_em,
)

__all__ = ["HebbClassifier", "OutlierRobustClassifier"]


def _binary_targets(est, y):
    check_classification_targets(y)
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(
            f"Only binary classification is supported. {type(est).__name__} needs exactly "
            f"2 classes; y has {classes.size} class{'es' if classes.size != 1 else ''} "
            f"({classes.tolist()[:5]})"
        )
    return classes, np.where(y == classes[1], 1.0, -1.0)


def _prepare(est, X, y):
    X, y = validate_data(est, X, y, dtype=np.float64, ensure_min_samples=2)
    classes, S = _binary_targets(est, y)
    centre = X.mean(axis=0) if est.fit_intercept else np.zeros(X.shape[1])
    return X - centre, S, classes, centre


def _set_linear(est, J, centre, classes):
    m = J / np.sqrt(J.shape[0])  # the paper's J has J.J/N ~ 1; the centre is J/sqrt(N)
    est.classes_ = classes
    est.J_ = J
    est.coef_ = m[None, :]
    est.intercept_ = np.array([-float(centre @ m)])


def _check_gamma(value, name="gamma"):
    if isinstance(value, str):
        return check_choice(value, name, ("auto",))
    return check_real(value, name, minimum=0.0, include_min=False)


class _LinearTwoClass(ClassifierMixin, BaseEstimator):
    """Prediction by the sign of ``X @ coef_ + intercept_``."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def decision_function(self, X):
        """Signed projection ``(x - centre) . m``; positive means ``classes_[1]``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]

    def predict(self, X):
        """Class of each sample: ``classes_[1]`` where the decision function is positive.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]


class HebbClassifier(_LinearTwoClass):
    """The Hebbian rule eq. (25) of Dietrich & Opper: every example weighted equally.

    ``J = sum_mu S_mu xi_mu / (sqrt(N) (alpha + 1 / gamma))``, i.e. the centre
    estimate ``m = J / sqrt(N) = sum S xi / (P + N / gamma)``: the difference
    of the class means, shrunk by the Gaussian prior on J. It is the EM
    estimate without outliers (eta -> -infinity).

    Parameters
    ----------
    gamma : float, default=1.0
        The learner's inverse cluster variance gamma~ (> 0); sets the shrinkage.
    fit_intercept : bool, default=True
        Centre the data on their mean first (the model's mixture is centred at
        the origin); False uses the data as they are, as the paper does.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` plays S = +1.
    J_ : ndarray of shape (n_features,)
        The estimate in the paper's normalisation (``J.J / N ~ 1``).
    coef_ : ndarray of shape (1, n_features)
        ``J_ / sqrt(n_features)``, the estimated centre of class ``classes_[1]``.
    intercept_ : ndarray of shape (1,)
        ``-centre . coef_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when ``X`` had string column names.

    Examples
    --------
    >>> from statmechlearn.models.outliers import OutlierMixture
    >>> from statmechlearn.linear import HebbClassifier
    >>> X, S, V = OutlierMixture(n_features=50, eta=-10.0, gamma=10.0).sample(500, 0)
    >>> bool(HebbClassifier(gamma=10.0).fit(X, S).score(X[V == 1], S[V == 1]) > 0.95)
    True
    """

    def __init__(self, gamma=1.0, *, fit_intercept=True):
        self.gamma = gamma
        self.fit_intercept = fit_intercept

    def fit(self, X, y):
        """Compute the Hebbian vector.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            Two distinct labels.

        Returns
        -------
        self
        """
        gamma = check_real(self.gamma, "gamma", minimum=0.0, include_min=False)
        Xc, S, classes, centre = _prepare(self, X, y)
        J = hebb_vector(Xc[None], S[None], gamma)[0]
        _set_linear(self, J, centre, classes)
        return self


class OutlierRobustClassifier(_LinearTwoClass):
    """Two-class linear classifier that learns which examples are outliers (Dietrich & Opper).

    ``selection="soft"`` computes the MAP of J by EM, eqs. (23)-(24): each
    example is weighted by its posterior probability ``<V>`` of being
    informative. ``selection="hard"`` computes the MAP of the selection
    variables V in {0, 1} by EM, eqs. (26)-(28), started from the soft
    solution (``<V> > 1/2``) and refined by exact single-example flips until
    no flip lowers the energy (10); it returns ``<J>`` given the V's.
    Classification is by the sign of ``(x - centre) . J``.

    Parameters
    ----------
    selection : {"soft", "hard"}, default="soft"
    gamma : float or "auto", default="auto"
        Inverse variance per component of the clusters (> 0). ``"auto"``
        estimates it, together with J, by maximising the marginal likelihood
        of the mixture with EM: ``1/gamma`` is the expected squared residual
        per component, ``sum_mu [<V>|xi - S J/sqrt(N)|^2 + (1 - <V>)|xi|^2] /
        (P N)``.
    eta : float or "auto", default="auto"
        Chemical potential: the model's informative fraction is ``1/(1 + e^eta)``.
        ``"auto"`` estimates it the same way: ``1 / (1 + e^eta)`` = mean ``<V>``.
        With ``selection="hard"`` estimated values come from the soft EM (the
        hard MAP of V has no useful estimate of them) and then stay fixed.
    fit_intercept : bool, default=True
        Centre the data on their mean first (the model's mixture is centred at
        the origin); False uses the data as they are, as the paper does.
    max_iter : int, default=500
        Maximum number of EM iterations.
    tol : float, default=1e-8
        Soft selection stops when J changes by less than ``tol`` relative to
        its norm; hard selection stops when no V changes.
    warm_start : bool, default=False
        Start EM from the previous fit's J (soft) or V (hard) when the number
        of features and samples allow it: the paper's hysteresis protocol
        (Fig. 5).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` plays S = +1.
    J_ : ndarray of shape (n_features,)
        The estimate in the paper's normalisation.
    coef_ : ndarray of shape (1, n_features)
        ``J_ / sqrt(n_features)``, the estimated centre of class ``classes_[1]``.
    intercept_ : ndarray of shape (1,)
    informative_proba_ : ndarray of shape (n_samples,)
        ``<V>`` of each training example: its probability of being
        informative (soft), or the selection 0/1 (hard). Low values mark the
        examples judged outliers.
    gamma_, eta_ : float
        The values used (estimated or given).
    n_iter_ : int
        EM iterations run.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when ``X`` had string column names.

    Examples
    --------
    >>> from statmechlearn.models.outliers import OutlierMixture
    >>> from statmechlearn.linear import OutlierRobustClassifier
    >>> model = OutlierMixture(n_features=50, eta=0.0, gamma=10.0)
    >>> X, S, V = model.sample(2000, random_state=0)
    >>> clf = OutlierRobustClassifier(fit_intercept=False).fit(X, S)
    >>> bool(abs(clf.eta_) < 0.1), round(clf.gamma_)    # estimated; true: 0 and 10
    (True, 10)
    """

    def __init__(
        self,
        selection="soft",
        *,
        gamma="auto",
        eta="auto",
        fit_intercept=True,
        max_iter=500,
        tol=1e-8,
        warm_start=False,
    ):
        self.selection = selection
        self.gamma = gamma
        self.eta = eta
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start

    def _check_params(self):
        selection = check_choice(self.selection, "selection", ("soft", "hard"))
        gamma = _check_gamma(self.gamma)
        if isinstance(self.eta, str):
            eta = check_choice(self.eta, "eta", ("auto",))
        elif isinstance(self.eta, numbers.Real) and not isinstance(self.eta, bool):
            eta = float(self.eta)
            if not np.isfinite(eta):
                raise ValueError(f"eta must be a finite number or 'auto', got {self.eta!r}")
        else:
            raise TypeError(f"eta must be a real number or 'auto', got {self.eta!r}")
        max_iter = check_int(self.max_iter, "max_iter", minimum=1)
        tol = check_real(self.tol, "tol", minimum=0.0)
        return selection, gamma, eta, max_iter, tol

    def fit(self, X, y):
        """Run EM on the training data.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            Two distinct labels.

        Returns
        -------
        self
        """
        selection, gamma, eta, max_iter, tol = self._check_params()
        warm = self.warm_start and hasattr(self, "J_")
        previous = (self.J_, getattr(self, "informative_proba_", None)) if warm else None
        Xc, S, classes, centre = _prepare(self, X, y)
        Xb, Sb = Xc[None], S[None]
        estimate = tuple(k for k, v in (("gamma", gamma), ("eta", eta)) if v == "auto")
        g0 = 1.0 if gamma == "auto" else gamma
        e0 = 0.0 if eta == "auto" else eta
        J0 = None
        if previous is not None and previous[0].shape == (Xc.shape[1],):
            J0 = previous[0][None]
        if selection == "soft" or estimate or (selection == "hard" and not warm):
            soft = soft_selection_em(
                Xb, Sb, gamma=g0, eta=e0, J0=J0, estimate=estimate, max_iter=max_iter, tol=tol
            )
            g0, e0 = float(soft.gamma[0]), float(soft.eta[0])
            result = soft
        if selection == "hard":
            # from the soft solution: EM from all examples selected falls into the
            # all-outlier state long before the MAP does (issue 4's notes)
            V0 = (soft.V > 0.5).astype(float) if not warm else None
            if previous is not None and previous[1] is not None and previous[1].shape == S.shape:
                V0 = previous[1][None]
            result = hard_selection_em(Xb, Sb, gamma=g0, eta=e0, V0=V0, max_iter=max_iter)
        if not bool(result.converged[0]):
            what = "relative change of J" if selection == "soft" else "examples whose V flipped"
            warnings.warn(
                f"{type(self).__name__}({selection!r}) did not converge in max_iter={max_iter} "
                f"EM iterations ({what} in the last one: {result.residual[0]:.3g}, tol={tol:g}); "
                "increase max_iter, or fix gamma and eta instead of estimating them",
                ConvergenceWarning,
                stacklevel=2,
            )
        _set_linear(self, result.J[0], centre, classes)
        self.informative_proba_ = result.V[0].copy()
        self.gamma_, self.eta_ = g0, e0
        self.n_iter_ = int(result.n_iter)
        return self

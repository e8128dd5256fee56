"""Linear classifiers that learn in the presence of outliers (Dietrich & Opper).

The model behind them: an informative example of class S = +-1 lies around
``S m`` (``m`` a centre vector), an outlier lies around the origin with a
random label, and all have variance ``1 / gamma`` per component; a fraction
``1 / (1 + e^eta)`` is informative. :class:`OutlierRobustClassifier`
estimates ``m`` by EM, weighting (soft) or selecting (hard) the examples it
judges informative; :class:`HebbClassifier` weights all equally. Both
classify by the sign of ``(x - centre) . m``, and ``predict_proba`` is the
class posterior of that mixture at the estimated parameters.
"""

from contextlib import nullcontext
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn._core.threads import one_blas_thread
from statmechlearn._core.validation import check_magnitude, validate_named
from statmechlearn._core.warn import warn
from statmechlearn.linear._selection_em import (
    EMResult,
    hebb_vector,
    soft_selection_em,
)
from statmechlearn.linear._selection_search import (
    direction_starts,
    hard_selection_search,
    hebb_quantile_starts,
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
    X, y = validate_named(est, X, y, dtype=np.float64, ensure_min_samples=2)
    check_magnitude(X)
    classes, S = _binary_targets(est, y)
    centre = X.mean(axis=0) if est.fit_intercept else np.zeros(X.shape[1])
    return X - centre, S, classes, centre


def _set_linear(est, J, centre, classes):
    m = J / np.sqrt(J.shape[0])  # the paper's J has J.J/N ~ 1; the centre is J/sqrt(N)
    est.classes_ = classes
    est.J_ = J
    est.coef_ = m[None, :]
    est.intercept_ = np.array([-float(centre @ m)])


# inf is excluded: an infinite variance or chemical potential is never meant
_POSITIVE = Interval(Real, 0, np.inf, closed="neither")


def _log_class_weight(a, c, log_rho, log_outlier):
    """``ln[rho exp(a - c) + (1 - rho)]``: ``ln p(x, S) / p_outlier(x)`` up to S-free terms."""
    if log_outlier == -np.inf:
        return a - c
    return np.logaddexp(log_rho + a - c, log_outlier)


class _LinearTwoClass(ClassifierMixin, BaseEstimator):
    """Prediction by the sign of ``X @ coef_ + intercept_``; the mixture's class posterior."""

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
        X = validate_named(self, X, dtype=np.float64, reset=False)
        check_magnitude(X)
        return X @ self.coef_[0] + self.intercept_[0]

    def _mixture(self):
        """``(gamma, eta)`` of the mixture whose posterior ``predict_proba`` is."""
        raise NotImplementedError  # pragma: no cover - abstract

    def _log_odds(self, X):
        """``ln P(classes_[1] | x) - ln P(classes_[0] | x)`` under the fitted mixture."""
        d = self.decision_function(X)  # checks that the estimator is fitted
        gamma, eta = self._mixture()
        m = self.coef_[0]
        a = gamma * d
        c = 0.5 * gamma * float(m @ m)
        # ln rho and ln(1 - rho) for rho = 1 / (1 + e^eta), without overflow
        log_rho = -np.logaddexp(0.0, eta)
        log_outlier = -np.logaddexp(0.0, -eta)
        return _log_class_weight(a, c, log_rho, log_outlier) - _log_class_weight(
            -a, c, log_rho, log_outlier
        )

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        z = self._log_odds(X)
        return np.column_stack([log_expit(-z), log_expit(z)])

    def predict_proba(self, X):
        """Class posterior of the outlier mixture at the fitted parameters.

        The model (Dietrich & Opper, eqs. 1-2; :class:`~statmechlearn.models.
        outliers.OutlierMixture`) draws S = +-1 with equal probability; with
        probability ``rho = 1 / (1 + e^eta)`` the example is informative,
        ``x - centre ~ N(S m, I / gamma)``, otherwise it is an outlier,
        ``x - centre ~ N(0, I / gamma)``, whose label carries no information.
        With ``a = gamma (x - centre) . m`` (``gamma`` times
        :meth:`decision_function`) and ``c = gamma |m|^2 / 2``, Bayes' rule gives

            P(S = +1 | x) = [rho e^(a - c) + 1 - rho]
                            / [rho e^(a - c) + rho e^(-a - c) + 2 (1 - rho)],

        evaluated at ``m = coef_[0]`` and the fitted ``gamma`` and ``eta``
        (see the class's Attributes). It is calibrated for data drawn from
        that mixture, up to the estimation error of the parameters. Where the
        outliers' density dominates (``rho e^(|a| - c) << 1 - rho``) it stays
        near 1/2. The larger probability is the prediction.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Columns ordered as ``classes_``.
        """
        z = self._log_odds(X)
        return np.column_stack([expit(-z), expit(z)])

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

    ``predict_proba`` is the class posterior of the same model without
    outliers, two Gaussian clusters ``N(S m, I / gamma)`` of equal weight:
    ``P(S = +1 | x) = sigma(2 gamma (x - centre) . m)``, calibrated for data
    drawn from that model (up to the estimation error of ``m``).

    Parameters
    ----------
    gamma : float, default=1.0
        The learner's inverse cluster variance gamma~ (> 0); sets the shrinkage
        and the slope of ``predict_proba``.
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
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when ``X`` had string column names.

    Examples
    --------
    >>> from statmechlearn.models.outliers import OutlierMixture
    >>> from statmechlearn.linear import HebbClassifier
    >>> X, S, V = OutlierMixture(n_features=50, eta=-10.0, gamma=10.0).sample(500, 0)
    >>> bool(HebbClassifier(gamma=10.0).fit(X, S).score(X[V == 1], S[V == 1]) > 0.95)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "gamma": [_POSITIVE],
        "fit_intercept": ["boolean"],
    }

    def __init__(self, gamma=1.0, *, fit_intercept=True):
        self.gamma = gamma
        self.fit_intercept = fit_intercept

    def _mixture(self):
        # the model without outliers: rho = 1
        return float(self.gamma), -np.inf

    def predict_proba(self, X):
        """Class posterior ``sigma(2 gamma (x - centre) . m)`` of two Gaussian clusters.

        The model without outliers (``eta -> -infinity`` in Dietrich &
        Opper's eqs. 1-2): S = +-1 with equal probability and ``x - centre ~
        N(S m, I / gamma)``, evaluated at ``m = coef_[0]`` and the parameter
        ``gamma``. Calibrated for data drawn from that model when ``gamma``
        is its true value, up to the estimation error of ``m``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Columns ordered as ``classes_``.
        """
        return super().predict_proba(X)

    @_fit_context(prefer_skip_nested_validation=True)
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
        gamma = float(self.gamma)
        Xc, S, classes, centre = _prepare(self, X, y)
        J = hebb_vector(Xc[None], S[None], gamma)[0]
        _set_linear(self, J, centre, classes)
        return self


class OutlierRobustClassifier(_LinearTwoClass):
    """Two-class linear classifier that learns which examples are outliers (Dietrich & Opper).

    ``predict_proba`` is the class posterior of the outlier mixture at the
    estimated parameters (see there). With ``selection="soft"`` it is
    calibrated on data drawn from the mixture; with ``"hard"`` the selected
    examples are those of large field, ``<J>`` given them overestimates the
    centre, and the probabilities come out somewhat overconfident.

    ``selection="soft"`` computes the MAP of J by EM, eqs. (23)-(24): each
    example is weighted by its posterior probability ``<V>`` of being
    informative. ``selection="hard"`` computes the MAP of the selection
    variables V in {0, 1}: the minimum of the energy (10), ``H_h(V) = -ln
    int dJ P(data, J, V)``. At large alpha and a large fraction of outliers
    the energy has many local minima and EM (eqs. 26-28) from one start can
    fall into the trivial state V = 0; the estimator therefore descends from
    several starts (the examples of largest Hebb field ``S xi . sum S xi``,
    selected at fractions 5 % to 85 %; the soft solution ``<V> > 1/2``; all
    examples; with ``warm_start`` the previous selection) and from the fixed
    point EM (eqs. 26-28, single-flip polish) reaches from each, each by
    exact coordinate descent in (J, V), the EM of eqs. (26)-(28) with the
    logarithm of eq. (10) kept exact, and exact single-example flips until no
    flip lowers (10), and keeps the lowest state. It returns ``<J>`` given the
    V's (eq. 28). When the trivial state is lower than every state reached,
    it is returned (J = 0) with a warning.
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
        its norm; hard selection stops when no single flip of a V lowers the
        energy (10) (its soft start uses ``tol``).
    warm_start : bool, default=False
        Start EM from the previous fit's J (soft), or add the previous fit's
        V to the starts (hard), when the number of features and samples allow
        it: the paper's hysteresis protocol (Fig. 5).

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
    energy_ : float
        Only with ``selection="hard"``: the energy (10) of the returned
        selection per feature, ``H_h(V) / N`` less its V-independent
        constants, ``eta k / N - |b|^2 / (2 N A) + ln(A) / 2`` with ``k = sum
        V``, ``A = 1 + gamma k / N`` and ``b = gamma sum V S xi / sqrt(N)``
        (:func:`hard_selection_energy`); 0 for the trivial state V = 0, the
        lowest over the starts otherwise.
    n_iter_ : int
        EM iterations run (hard selection: its soft start's, plus the
        descent's iterations, each one pass over the data for all starts).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
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
    >>> clf.predict_proba(X[:3]).shape
    (3, 2)
    """

    _parameter_constraints: ClassVar[dict] = {
        "selection": [StrOptions({"soft", "hard"})],
        "gamma": [_POSITIVE, StrOptions({"auto"})],
        "eta": [Interval(Real, -np.inf, np.inf, closed="neither"), StrOptions({"auto"})],
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, np.inf, closed="left")],
        "warm_start": ["boolean"],
    }

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

    def _mixture(self):
        return self.gamma_, self.eta_

    @_fit_context(prefer_skip_nested_validation=True)
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
        selection, max_iter, tol = self.selection, int(self.max_iter), float(self.tol)
        gamma = self.gamma if isinstance(self.gamma, str) else float(self.gamma)
        eta = self.eta if isinstance(self.eta, str) else float(self.eta)
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
        # the soft solution is also one of the hard selection's starts
        soft = soft_selection_em(
            Xb, Sb, gamma=g0, eta=e0, J0=J0, estimate=estimate, max_iter=max_iter, tol=tol
        )
        g0, e0 = float(soft.gamma[0]), float(soft.eta[0])
        result = soft
        energy = None
        if selection == "hard":
            # EM from one start falls into the trivial state or a high local minimum far
            # from the MAP at large alpha and many outliers: descend from several, keep the lowest
            starts = [hebb_quantile_starts(Xc, S), direction_starts(Xc, S)]
            starts.append((soft.V > 0.5).astype(float))
            starts.append(np.ones((1, S.size)))
            if previous is not None and previous[1] is not None and previous[1].shape == S.shape:
                starts.insert(0, previous[1][None])
            # below about a million entries of X, BLAS threads on the search's products cost
            # more than they save (a fit at P = 800, N = 40: 0.02 s on one thread, 0.15-0.6 s
            # on two of a busy machine)
            blas = one_blas_thread() if Xc.size < 1_000_000 else nullcontext()
            with blas:
                search = hard_selection_search(
                    Xc, S, gamma=g0, eta=e0, starts=np.vstack(starts), max_iter=max_iter
                )
            energy = search.energy
            result = EMResult(
                search.J[None],
                search.V[None],
                np.array([g0]),
                np.array([e0]),
                int(soft.n_iter) + search.n_iter,
                np.array([search.converged]),
                np.array([np.nan]),
            )
            if search.trivial_lowest:
                warn(
                    f"{type(self).__name__}('hard'): the trivial selection V = 0 (every example "
                    f"an outlier, J = 0) has a lower energy (10) than all {len(search.energies)} "
                    f"states reached (lowest {search.energies.min():.4g} per feature); it is "
                    f"returned and predicts classes_[0] everywhere. Lower eta (now {e0:.4g}) or "
                    "use selection='soft'",
                    UserWarning,
                )
        if not bool(result.converged[0]):
            if selection == "soft":
                what = f"relative change of J in the last one: {result.residual[0]:.3g}"
                what += f", tol={tol:g}"
            else:
                what = "a single-example flip still lowers the energy (10)"
            warn(
                f"{type(self).__name__}({selection!r}) did not converge in max_iter={max_iter} "
                f"EM iterations ({what}); "
                "increase max_iter, or fix gamma and eta instead of estimating them",
                ConvergenceWarning,
            )
        _set_linear(self, result.J[0], centre, classes)
        self.informative_proba_ = result.V[0].copy()
        self.gamma_, self.eta_ = g0, e0
        self.n_iter_ = int(result.n_iter)
        if energy is not None:
            self.energy_ = energy
        elif hasattr(self, "energy_"):
            del self.energy_
        return self

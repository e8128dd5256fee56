"""Linear classifiers that learn in the presence of outliers (Dietrich & Opper).

The model behind them: an informative example of class S = +-1 lies around
``S m`` (``m`` a centre vector), an outlier lies around the origin with a
random label, and all have variance ``1 / gamma`` per component; a fraction
``1 / (1 + e^eta)`` is informative. :class:`OutlierRobustClassifier`
estimates ``m`` by EM, weighting (soft) or selecting (hard) the examples it
judges informative; :class:`HebbClassifier` weights all equally. Both
classify by the sign of ``(x - centre) . m``, and ``predict_proba`` is the
class posterior of that mixture at the estimated parameters. Three or more
classes are fitted one against the rest (:mod:`._multiclass`).
"""

from contextlib import nullcontext
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn._core.threads import one_blas_thread
from statmechlearn._core.warn import warn
from statmechlearn.linear._multiclass import (
    as_float64,
    class_targets,
    decision_output,
    fit_problems,
    log_of,
    predict_output,
    proba_output,
    problem_name,
    stack_fitted,
    validate_fit_input,
    validate_predict_input,
    weights_or_none,
)
from statmechlearn.linear._selection_em import (
    EMResult,
    _soft_em,
    hebb_vector,
)
from statmechlearn.linear._selection_search import (
    direction_starts,
    hard_selection_search,
    hebb_quantile_starts,
)

__all__ = ["HebbClassifier", "OutlierRobustClassifier"]


def _centre(X, sample_weight, fit_intercept):
    """The (weighted) mean of the rows of a dense or sparse ``X``, or 0 without intercept."""
    if not fit_intercept:
        return np.zeros(X.shape[1])
    if sample_weight is not None:
        return np.asarray(X.T @ sample_weight).ravel() / sample_weight.sum()
    if sp.issparse(X):
        return np.asarray(X.mean(axis=0)).ravel()
    return X.mean(axis=0)


def _linear_result(J, centre):
    """The fitted linear model of one problem from its J."""
    m = J / np.sqrt(J.shape[0])  # the paper's J has J.J/N ~ 1; the centre is J/sqrt(N)
    return {"J_": J, "coef_": m[None, :], "intercept_": np.array([-float(centre @ m)])}


def _set_fitted(est, results, classes, dtype):
    """Fitted attributes of every problem, the model's arrays in the input's float dtype."""
    est.classes_ = classes
    for name, value in stack_fitted(results).items():
        if name in ("J_", "coef_", "intercept_"):
            value = value.astype(dtype, copy=False)
        setattr(est, name, value)


# inf is excluded: an infinite variance or chemical potential is never meant
_POSITIVE = Interval(Real, 0, np.inf, closed="neither")


def _log_class_weight(a, c, log_rho, log_outlier):
    """``ln[rho exp(a - c) + (1 - rho)]``: ``ln p(x, S) / p_outlier(x)`` up to S-free terms."""
    if log_outlier == -np.inf:
        return a - c
    return np.logaddexp(log_rho + a - c, log_outlier)


class _LinearTwoClass(ClassifierMixin, BaseEstimator):
    """Prediction by ``X @ coef_.T + intercept_``; the mixture's class posterior.

    With ``K >= 3`` classes every row of ``coef_`` is a problem ``classes_[k]``
    against the rest, and the methods return one column per class.
    """

    #: Whether the multiclass decision values are the logarithms of the class
    #: probabilities (when the problems' mixtures differ, their projections are not
    #: on one scale)
    _probability_decision = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _scores(self, X):
        """``(x - centre) . m`` of every problem, shape (n_samples, n_problems), in float64."""
        X = as_float64(X)
        coef = np.asarray(self.coef_, dtype=np.float64)
        intercept = np.asarray(self.intercept_, dtype=np.float64)
        return np.column_stack([X @ coef[k] + intercept[k] for k in range(coef.shape[0])])

    def _by_probability(self):
        return self._probability_decision and len(self.classes_) > 2

    def _proba(self, X):
        """:meth:`predict_proba` of validated ``X``, in its float dtype."""
        z = self._log_odds(X)
        return proba_output(expit(z), expit(-z)).astype(X.dtype, copy=False)

    def decision_function(self, X):
        """Signed projection ``(x - centre) . m``; positive means ``classes_[1]``.

        With three or more classes, one column per class: the projection of
        the problem ``classes_[k]`` against the rest (Hebb), or the logarithm
        of :meth:`predict_proba` (outlier-robust: each problem has its own
        gamma and eta, so the projections are not on one scale; the largest
        is the class of largest probability).

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            In the float dtype of ``X`` (float32 kept).
        """
        X = validate_predict_input(self, X)
        if self._by_probability():
            return log_of(self._proba(X))
        return decision_output(self._scores(X)).astype(X.dtype, copy=False)

    def _mixture(self):
        """``(gamma, eta)`` of the mixture of every problem, arrays of shape (n_problems,)."""
        raise NotImplementedError  # pragma: no cover - abstract

    def _log_odds(self, X):
        """``ln P(+1 | x) - ln P(-1 | x)`` of every problem under its fitted mixture."""
        scores = self._scores(X)
        gamma, eta = self._mixture()
        coef = np.asarray(self.coef_, dtype=np.float64)
        z = np.empty_like(scores)
        for k in range(scores.shape[1]):
            m = coef[k]
            a = gamma[k] * scores[:, k]
            c = 0.5 * gamma[k] * float(m @ m)
            # ln rho and ln(1 - rho) for rho = 1 / (1 + e^eta), without overflow
            log_rho = -np.logaddexp(0.0, eta[k])
            log_outlier = -np.logaddexp(0.0, -eta[k])
            z[:, k] = _log_class_weight(a, c, log_rho, log_outlier) - _log_class_weight(
                -a, c, log_rho, log_outlier
            )
        return z

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        X = validate_predict_input(self, X)
        if len(self.classes_) == 2 and X.dtype == np.float64:
            z = self._log_odds(X)[:, 0]
            return np.column_stack([log_expit(-z), log_expit(z)])
        # the logarithm of what predict_proba returns, in its dtype
        with np.errstate(divide="ignore"):
            return np.log(self._proba(X))

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
        near 1/2. The larger probability is the prediction. With three or
        more classes each problem's ``P(classes_[k] | x)`` (its ``coef_[k]``,
        ``gamma_[k]``, ``eta_[k]``) is divided by their sum over ``k``, as
        :class:`~sklearn.multiclass.OneVsRestClassifier` does, and the largest
        is the prediction.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns ordered as ``classes_``; in the float dtype of ``X``.
        """
        X = validate_predict_input(self, X)
        return self._proba(X)

    def predict(self, X):
        """Class of each sample: ``classes_[1]`` where the decision function is positive.

        With three or more classes, the class of the largest decision value
        (and of the largest probability).

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = validate_predict_input(self, X)
        if self._by_probability():
            return self.classes_[np.argmax(self._proba(X), axis=1)]
        return predict_output(self.classes_, self._scores(X))


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

    Three or more classes are fitted one against the rest, each class's row
    of ``coef_`` the rule for ``classes_[k]`` against all the others.

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
    classes_ : ndarray of shape (n_classes,)
        With two classes ``classes_[1]`` plays S = +1.
    J_ : ndarray of shape (n_features,) or (n_classes, n_features)
        The estimate in the paper's normalisation (``J.J / N ~ 1``); one row
        per class with three or more.
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        ``J_ / sqrt(n_features)``, the estimated centre of class ``classes_[1]``
        (of ``classes_[k]`` against the rest in row ``k``).
    intercept_ : ndarray of shape (1,) or (n_classes,)
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
        n = len(self.intercept_)
        return np.full(n, float(self.gamma)), np.full(n, -np.inf)

    def predict_proba(self, X):
        """Class posterior ``sigma(2 gamma (x - centre) . m)`` of two Gaussian clusters.

        The model without outliers (``eta -> -infinity`` in Dietrich &
        Opper's eqs. 1-2): S = +-1 with equal probability and ``x - centre ~
        N(S m, I / gamma)``, evaluated at ``m = coef_[0]`` and the parameter
        ``gamma``. Calibrated for data drawn from that model when ``gamma``
        is its true value, up to the estimation error of ``m``. With three or
        more classes each problem's ``P(classes_[k] | x)`` is divided by their
        sum over ``k`` (:class:`~sklearn.multiclass.OneVsRestClassifier`'s
        normalisation).

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns ordered as ``classes_``; in the float dtype of ``X``.
        """
        return super().predict_proba(X)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Compute the Hebbian vector.

        With weights ``w_mu`` the estimate is the MAP of the model without
        outliers whose every example's log-likelihood is multiplied by its
        weight: ``m = sum_mu w_mu S_mu xi_mu / (sum_mu w_mu + N / gamma)``, the
        centre the weighted mean. An integer weight is the example repeated.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)
            CSR or CSC input is used as it is (the rule is a weighted sum of
            the rows); float32 is kept.
        y : array_like of shape (n_samples,)
            At least two distinct labels.
        sample_weight : array_like of shape (n_samples,), optional
            Non-negative weights; None weights every example 1.

        Returns
        -------
        self
        """
        X, y, sample_weight = validate_fit_input(self, X, y, sample_weight, ensure_min_samples=2)
        dtype = X.dtype
        X = as_float64(X)
        sample_weight = weights_or_none(sample_weight)
        classes, targets = class_targets(self, y, sample_weight)
        gamma = float(self.gamma)
        centre = _centre(X, sample_weight, self.fit_intercept)
        if sp.issparse(X) or sample_weight is not None:
            w = np.ones(X.shape[0]) if sample_weight is None else sample_weight
            N = X.shape[1]

            def fit_binary(k, S):
                # sum w S (x - centre) without centring a sparse X
                ws = w * S
                total = np.asarray(X.T @ ws).ravel() - centre * ws.sum()
                return _linear_result(np.sqrt(N) * total / (w.sum() + N / gamma), centre)

        else:
            Xc = X - centre

            def fit_binary(k, S):
                return _linear_result(hebb_vector(Xc[None], S[None], gamma)[0], centre)

        _set_fitted(self, fit_problems(self, classes, targets, fit_binary), classes, dtype)
        return self


class OutlierRobustClassifier(_LinearTwoClass):
    """Linear classifier that learns which examples are outliers (Dietrich & Opper).

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

    Three or more classes are fitted one against the rest: problem ``k`` is
    the two-class fit of ``classes_[k]`` (S = +1) against all other classes
    (S = -1), with its own J, gamma and eta; the prediction is the class of
    the largest posterior probability, and ``decision_function`` gives the
    logarithms of the probabilities.

    With sample weights ``w_mu`` every example's term of the log posterior
    (its log-likelihood under the mixture, and with ``"hard"`` also its
    selection's prior ``-eta V_mu``) is multiplied by its weight, so an integer
    weight is the example repeated. Soft selection runs the weighted EM: the
    M-step's sums are weighted, ``J = sqrt(N) sum w <V> S xi / (sum w <V> +
    N / gamma)``, and ``P`` is ``sum w`` in the estimates of gamma and eta.
    Hard selection has one selection variable per example, and a repeated
    example has one per copy: it takes integer weights only and fits the
    examples repeated (a weight-0 example then gets the selection eq. (26)
    gives it at the returned J).

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
        Maximum number of EM iterations (with ``"hard"``: of its soft start,
        and of the descent).
    tol : float, default=1e-8
        Soft selection stops when J changes by less than ``tol`` relative to
        its norm; hard selection stops when no single flip of a V lowers the
        energy (10) (its soft start uses ``tol``).
    warm_start : bool, default=False
        Start EM from the previous fit's J (soft), or add the previous fit's
        V to the starts (hard), when the number of features and samples allow
        it: the paper's hysteresis protocol (Fig. 5).
    verbose : int, default=0
        At 1 or more, print every EM iteration's relative change of J, the
        convergence, and (hard) the descent's lowest energy.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        With two classes ``classes_[1]`` plays S = +1.
    J_ : ndarray of shape (n_features,) or (n_classes, n_features)
        The estimate in the paper's normalisation. With three or more
        classes this and every attribute below but ``coef_`` and
        ``intercept_`` get a leading class axis (row ``k``: the problem
        ``classes_[k]`` against the rest).
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        ``J_ / sqrt(n_features)``, the estimated centre of class ``classes_[1]``.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    informative_proba_ : ndarray of shape (n_samples,)
        ``<V>`` of each training example: its probability of being
        informative (soft), or the selection 0/1 (hard; with integer weights
        the fraction of the example's copies selected). Low values mark the
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
        "verbose": ["verbose"],
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
        verbose=0,
    ):
        self.selection = selection
        self.gamma = gamma
        self.eta = eta
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.verbose = verbose

    _probability_decision = True

    def _mixture(self):
        return np.atleast_1d(self.gamma_), np.atleast_1d(self.eta_)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Run EM on the training data.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)
            Sparse input is converted to a dense array (EM centres the data
            and reads every row); float32 is kept.
        y : array_like of shape (n_samples,)
            At least two distinct labels.
        sample_weight : array_like of shape (n_samples,), optional
            Non-negative weights (integers with ``selection="hard"``); None
            weights every example 1. See the class's description.

        Returns
        -------
        self
        """
        warm = self.warm_start and hasattr(self, "J_")
        previous = (self.J_, getattr(self, "informative_proba_", None)) if warm else None
        X, y, sample_weight = validate_fit_input(self, X, y, sample_weight, ensure_min_samples=2)
        dtype = X.dtype
        X = as_float64(X.toarray(order="C") if sp.issparse(X) else X)
        sample_weight = weights_or_none(sample_weight)
        counts = None
        if self.selection == "hard" and sample_weight is not None:
            counts = np.rint(sample_weight)
            if not np.array_equal(counts, sample_weight):
                raise ValueError(
                    "sample_weight must hold integers with selection='hard' (an integer "
                    "weight repeats the example, each copy with a selection variable of "
                    "its own); use selection='soft' for other weights"
                )
            counts = counts.astype(np.intp)
        classes, targets = class_targets(self, y, sample_weight)
        centre = _centre(X, sample_weight, self.fit_intercept)
        Xc = X - centre
        n_problems = len(targets)

        def fit_binary(k, S):
            start = _previous(previous, k, n_problems, Xc.shape)
            label = problem_name(classes, k, n_problems) if n_problems > 1 else None
            return self._fit_binary(Xc, S, centre, sample_weight, counts, start, label)

        results = fit_problems(self, classes, targets, fit_binary)
        _set_fitted(self, results, classes, dtype)
        if "energy_" not in results[0] and hasattr(self, "energy_"):
            del self.energy_
        return self

    def _print(self, message):
        if self.verbose:
            print(message)

    def _soft(self, X, S, gamma, eta, J0, estimate, weights):
        """The soft-selection EM of one problem (one run), reporting when verbose."""
        max_iter, tol = int(self.max_iter), float(self.tol)

        def report(n_iter, residual):
            print(f"Iteration {n_iter}, relative change of J {residual[0]:.3g}.")

        soft = _soft_em(
            X[None],
            S[None],
            np.array([gamma], dtype=float),
            np.array([eta], dtype=float),
            J0,
            estimate,
            max_iter,
            tol,
            weights=weights,
            callback=report if self.verbose else None,
        )
        if bool(soft.converged[0]):
            self._print(
                f"Converged at iteration {soft.n_iter}: relative change of J "
                f"{soft.residual[0]:.3g} <= tol={tol:g}."
            )
        return soft

    def _fit_binary(self, Xc, S, centre, sample_weight, counts, previous, label):
        """The two-class fit of one problem (S = +-1): its fitted attributes."""
        selection, max_iter, tol = self.selection, int(self.max_iter), float(self.tol)
        gamma = self.gamma if isinstance(self.gamma, str) else float(self.gamma)
        eta = self.eta if isinstance(self.eta, str) else float(self.eta)
        J_prev, V_prev = previous
        weights = sample_weight
        X_fit, S_fit = Xc, S
        if counts is not None:
            # hard selection: an integer weight is the example repeated, a V per copy
            X_fit, S_fit, weights = np.repeat(Xc, counts, axis=0), np.repeat(S, counts), None
            if V_prev is not None:
                V_prev = np.repeat(V_prev, counts)
        estimate = tuple(k for k, v in (("gamma", gamma), ("eta", eta)) if v == "auto")
        g0 = 1.0 if gamma == "auto" else gamma
        e0 = 0.0 if eta == "auto" else eta
        J0 = None if J_prev is None else J_prev[None]
        # the soft solution is also one of the hard selection's starts
        soft = self._soft(X_fit, S_fit, g0, e0, J0, estimate, weights)
        g0, e0 = float(soft.gamma[0]), float(soft.eta[0])
        result = soft
        energy = None
        suffix = f" ({label})" if label else ""
        if selection == "hard":
            # EM from one start falls into the trivial state or a high local minimum far
            # from the MAP at large alpha and many outliers: descend from several, keep the lowest
            starts = [hebb_quantile_starts(X_fit, S_fit), direction_starts(X_fit, S_fit)]
            starts.append((soft.V > 0.5).astype(float))
            starts.append(np.ones((1, S_fit.size)))
            if V_prev is not None and V_prev.shape == S_fit.shape:
                # a soft fit's <V> is a start once rounded; a hard fit's V is already 0/1
                starts.insert(0, (V_prev > 0.5).astype(float)[None])
            starts = np.vstack(starts)
            # below about a million entries of X, BLAS threads on the search's products cost
            # more than they save (a fit at P = 800, N = 40: 0.02 s on one thread, 0.15-0.6 s
            # on two of a busy machine)
            blas = one_blas_thread() if X_fit.size < 1_000_000 else nullcontext()
            with blas:
                search = hard_selection_search(
                    X_fit, S_fit, gamma=g0, eta=e0, starts=starts, max_iter=max_iter
                )
            energy = search.energy
            self._print(
                f"Hard selection: descended from {len(starts)} starts "
                f"in {search.n_iter} iterations; lowest energy {energy:.6g} per feature."
            )
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
                    f"use selection='soft'{suffix}",
                    UserWarning,
                )
            if estimate and not bool(soft.converged[0]):
                warn(
                    f"{type(self).__name__}('hard'): its soft start, which estimates "
                    f"{' and '.join(estimate)}, did not converge in max_iter={max_iter} EM "
                    f"iterations (relative change of J in the last one: "
                    f"{soft.residual[0]:.3g}, tol={tol:g}); the selection minimises the "
                    "energy (10) at those unconverged estimates. Increase max_iter, "
                    f"standardise the features, or fix gamma and eta{suffix}",
                    ConvergenceWarning,
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
                f"increase max_iter, or fix gamma and eta instead of estimating them{suffix}",
                ConvergenceWarning,
            )
        fitted = _linear_result(result.J[0], centre)
        V = result.V[0].copy()
        if counts is not None:
            V = _selection_of_examples(Xc, S, V, counts, result.J[0], g0, e0)
        fitted["informative_proba_"] = V
        fitted["gamma_"], fitted["eta_"] = g0, e0
        fitted["n_iter_"] = int(result.n_iter)
        if energy is not None:
            fitted["energy_"] = energy
        return fitted


def _previous(previous, k, n_problems, shape):
    """``(J, V)`` of problem ``k`` of the previous fit where they fit this one, else None."""
    if previous is None:
        return None, None
    P, N = shape
    J, V = previous
    J = np.asarray(J, dtype=np.float64)
    want_J, want_V = ((N,), (P,)) if n_problems == 1 else ((n_problems, N), (n_problems, P))
    J = None if J.shape != want_J else (J if n_problems == 1 else J[k])
    if V is not None:
        V = np.asarray(V, dtype=np.float64)
        V = None if V.shape != want_V else (V if n_problems == 1 else V[k])
    return J, V


def _selection_of_examples(Xc, S, V_copies, counts, J, gamma, eta):
    """Each example's fraction of copies selected; eq. (26)'s selection for weight 0."""
    P, N = Xc.shape
    owner = np.repeat(np.arange(P), counts)
    V = np.bincount(owner, weights=V_copies, minlength=P) / np.maximum(counts, 1)
    dropped = counts == 0
    if dropped.any():
        a = gamma * V_copies.sum() / N + 1.0
        h = S[dropped] * (Xc[dropped] @ J) / np.sqrt(N)
        cost = -gamma * h + gamma * float(J @ J) / N / 2.0 + eta + gamma / (2.0 * a)
        V[dropped] = (cost < 0.0).astype(float)
    return V

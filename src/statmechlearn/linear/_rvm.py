"""Tipping's relevance vector machine classifier with an ARD prior on the features.

:class:`RVMClassifier` is sparse Bayesian learning (Tipping 2001) with a
logistic likelihood and one prior precision ``alpha_i`` per *input feature*:
the basis functions are the features themselves, so the model is linear,
``P(y = classes_[1] | x) = sigma(w . x + b)``. The posterior of the weights
is approximated by Laplace's method at its mode, and the precisions are set
by maximising that approximation of the marginal likelihood with the fast
sequential algorithm of Tipping & Faul (2003), which adds, deletes or
re-estimates one feature at a time and only ever factorises matrices of the
size of the retained set. This makes it suited to ``n_features >> n_samples``
(microarray data), the "sparse Bayesian learning" of Uda & Kabashima's
Table 1. Three or more classes are fitted one against the rest
(:mod:`._multiclass`); sparse input is used as it is, through the products
``X.T @ v`` and the few retained columns (:class:`_SparseColumns`).
"""

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_solve, solve_triangular
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn._core.warn import warn
from statmechlearn.linear._multiclass import (
    as_float64,
    class_targets,
    decision_output,
    fit_problems,
    predict_output,
    proba_output,
    problem_name,
    stack_fitted,
    validate_fit_input,
    validate_predict_input,
    weights_or_none,
)

__all__ = ["RVMClassifier"]

# q^2 - s must exceed this (in units of the unit-norm features) to add a feature.
_ZERO_FACTOR = 1e-12
_NEWTON_MAX_ITER = 100
_RATE_MAX = 8.0


def _log_likelihood(f, s, sw=None):
    """``sum_n sw_n log sigma(s_n f_n)`` for labels ``s = +-1`` (``sw`` None: all 1)."""
    terms = np.logaddexp(0.0, -s * f)
    return -float(np.sum(terms if sw is None else sw * terms))


def _curvature(f, sw):
    """``B = sw sigma(f) sigma(-f)``: the weighted curvature of the log-likelihood."""
    B = expit(f) * expit(-f)
    return B if sw is None else sw * B


def _posterior_mode(Phi, s, prec, w, sw=None):
    """Mode of ``log p(t | w) - w^T diag(prec) w / 2`` by damped Newton (IRLS).

    Every step is halved until the penalised log posterior does not decrease,
    so the iteration cannot diverge on separable data (the prior keeps the
    objective strictly concave with a finite maximiser).

    With sample weights ``sw`` every example's log-likelihood term is
    multiplied by its weight (its gradient and curvature with it).

    Returns
    -------
    w, f, chol, converged
        Mode, activations ``Phi w``, lower Cholesky factor of the Hessian
        ``Phi^T B Phi + diag(prec)`` at the mode, and whether the Newton
        decrement fell below its tolerance.
    """
    if w.size == 0:
        # no active basis function: the mode is the empty vector (SciPy < 1.12's
        # LAPACK wrappers reject the 0 x 0 solve the loop would attempt)
        return w, np.zeros(Phi.shape[0]), np.zeros((0, 0)), True
    t = 0.5 * (s + 1.0)
    f = Phi @ w
    obj = _log_likelihood(f, s, sw) - 0.5 * float(prec @ (w * w))
    converged = False
    for _ in range(_NEWTON_MAX_ITER):
        y = expit(f)
        B = _curvature(f, sw)
        grad = Phi.T @ ((t - y) if sw is None else sw * (t - y)) - prec * w
        chol = _cholesky(Phi.T @ (B[:, None] * Phi) + np.diag(prec))
        step = cho_solve((chol, True), grad)
        decrement = float(grad @ step)
        if decrement <= 1e-14 * (1.0 + abs(obj)):
            # within rounding of the mode: the full step polishes it quadratically
            w = w + step
            f = Phi @ w
            y = expit(f)
            B = _curvature(f, sw)
            chol = _cholesky(Phi.T @ (B[:, None] * Phi) + np.diag(prec))
            converged = True
            break
        size = 1.0
        for _ in range(60):
            w_new = w + size * step
            f_new = Phi @ w_new
            obj_new = _log_likelihood(f_new, s, sw) - 0.5 * float(prec @ (w_new * w_new))
            if obj_new >= obj - 1e-12 * (1.0 + abs(obj)):
                break
            size *= 0.5
        else:  # no ascent along the Newton direction: at the mode to rounding
            converged = True
            break
        w, f, obj = w_new, f_new, obj_new
    else:  # refactorise at the final iterate
        B = _curvature(f, sw)
        chol = _cholesky(Phi.T @ (B[:, None] * Phi) + np.diag(prec))
    return w, f, chol, converged


def _cholesky(H):
    """Lower Cholesky factor, with a small diagonal shift if rounding breaks definiteness."""
    try:
        return np.linalg.cholesky(H)
    except np.linalg.LinAlgError:
        jitter = 1e-12 * max(float(np.trace(H)) / max(H.shape[0], 1), 1e-300)
        for _ in range(12):
            try:
                return np.linalg.cholesky(H + jitter * np.eye(H.shape[0]))
            except np.linalg.LinAlgError:
                jitter *= 10.0
        raise


class _DenseColumns:
    """Centred, unit-norm feature columns held as a dense array."""

    def __init__(self, X):
        self.X = X
        self.shape = X.shape

    def columns(self, idx):
        return self.X[:, idx]

    def rmatmat(self, V):
        """``X.T @ V``."""
        return self.X.T @ V

    def weighted_squares(self, B):
        """``sum_n B_n x_ni^2`` of every column ``i``."""
        return B @ (self.X * self.X)


class _SparseColumns:
    """``(X - mean) / scale`` of a sparse ``X``, never formed: its products from X's entries.

    ``X.T @ V`` is ``(X.T @ V - mean sum V) / scale``; the weighted squares of the
    centred columns are summed over the stored entries plus ``mean^2`` times the
    weight of the implicit zeros, with no cancellation. Columns that are not
    ``usable`` are zero.
    """

    def __init__(self, X, mean, scale, usable):
        X = X.tocsc(copy=True)
        X.sum_duplicates()
        self.X = X
        self.shape = X.shape
        self.mean = mean
        self.inv = np.where(usable, 1.0 / scale, 0.0)
        self._col = np.repeat(np.arange(X.shape[1]), np.diff(X.indptr))
        self._dev2 = (X.data - mean[self._col]) ** 2

    @classmethod
    def centred_squares(cls, X, mean, B):
        """``sum_n B_n (x_ni - mean_i)^2`` of every column of a sparse ``X``."""
        return cls(X, mean, np.ones_like(mean), np.ones(mean.size, dtype=bool))._squares(B)

    def _squares(self, B):
        rows = self.X.indices
        stored = np.bincount(self._col, weights=B[rows] * self._dev2, minlength=self.shape[1])
        implicit = B.sum() - np.bincount(self._col, weights=B[rows], minlength=self.shape[1])
        return stored + self.mean**2 * implicit

    def columns(self, idx):
        return (self.X[:, idx].toarray() - self.mean[idx]) * self.inv[idx]

    def rmatmat(self, V):
        """``X.T @ V`` of the centred, scaled columns."""
        XtV = np.asarray(self.X.T @ V)
        if V.ndim == 1:
            return (XtV - self.mean * V.sum()) * self.inv
        return (XtV - self.mean[:, None] * V.sum(axis=0)) * self.inv[:, None]

    def weighted_squares(self, B):
        return self._squares(B) * self.inv**2


class _Model:
    """The active set (intercept first when fitted) and its posterior at the mode.

    ``X`` holds the centred, unit-norm feature columns (:class:`_DenseColumns` or
    :class:`_SparseColumns`); ``sw`` the sample weights, None for all 1.
    """

    def __init__(self, X, s, fit_intercept, sw=None):
        self.X = X
        self.s = s
        self.sw = sw
        self.fit_intercept = fit_intercept
        n = X.shape[0]
        # the weighted number of samples: the intercept's column has unit norm in it
        self.n_eff = n if sw is None else float(sw.sum())
        self.bias = (
            np.full((n, 1), 1.0 / np.sqrt(self.n_eff)) if fit_intercept else np.zeros((n, 0))
        )
        self.active = np.zeros(0, dtype=int)
        self.alpha = np.zeros(0)
        self.w = np.zeros(self.bias.shape[1])
        if fit_intercept:  # the mode of the intercept-only model
            p = np.mean(s > 0) if sw is None else float(sw @ (s > 0)) / self.n_eff
            self.w[0] = np.log(p / (1.0 - p)) * np.sqrt(self.n_eff)
        self.n_newton_failures = 0

    @property
    def offset(self):
        return self.bias.shape[1]

    def basis(self):
        return np.hstack([self.bias, self.X.columns(self.active)])

    def precisions(self):
        return np.concatenate([np.zeros(self.offset), self.alpha])

    def update_mode(self):
        Phi = self.basis()
        self.w, self.f, self.chol, ok = _posterior_mode(
            Phi, self.s, self.precisions(), self.w, self.sw
        )
        self.n_newton_failures += not ok
        self.Phi = Phi
        self.B = _curvature(self.f, self.sw)
        self.y = expit(self.f)

    def log_evidence(self):
        """Laplace log marginal likelihood (unit-norm features; see ``RVMClassifier``)."""
        wf = self.w[self.offset :]
        value = (
            _log_likelihood(self.f, self.s, self.sw)
            - 0.5 * float(self.alpha @ (wf * wf))
            + 0.5 * float(np.sum(np.log(self.alpha)))
            - float(np.sum(np.log(np.diag(self.chol))))
        )
        if self.fit_intercept:  # flat prior on the intercept, in its own units
            value += 0.5 * np.log(2.0 * np.pi) - 0.5 * np.log(self.n_eff)
        return value

    def factors(self):
        """Tipping & Faul's sparsity and quality factors of every feature.

        In the Gaussian approximation at the mode (``B`` frozen),
        ``S_i = phi_i^T B phi_i - phi_i^T B Phi Sigma Phi^T B phi_i`` and
        ``Q_i = phi_i^T (t - y)``; ``s_i, q_i`` are the same with feature ``i``
        left out of the model: ``s_i = S_i / (alpha_i Sigma_ii)`` and
        ``q_i = Q_i / (alpha_i Sigma_ii)`` for a retained feature (since
        ``alpha_i - S_i = alpha_i^2 Sigma_ii``), ``s_i = S_i``, ``q_i = Q_i``
        otherwise. With sample weights ``B`` and ``t - y`` carry them.

        Returns
        -------
        S, Q, s, q : ndarray of shape (n_features,)
        """
        t = 0.5 * (self.s + 1.0)
        Z = self.X.rmatmat(self.B[:, None] * self.Phi)
        # an empty model gives no correction (SciPy < 1.12 rejects the 0 x 0 solve)
        V = solve_triangular(self.chol, Z.T, lower=True) if Z.shape[1] else Z.T
        S = np.maximum(self.X.weighted_squares(self.B) - np.sum(V * V, axis=0), 0.0)
        residual = t - self.y
        Q = self.X.rmatmat(residual if self.sw is None else self.sw * residual)
        s, q = S.copy(), Q.copy()
        if self.active.size:
            inv = solve_triangular(self.chol, np.eye(self.chol.shape[0]), lower=True)
            ratio = self.alpha * np.sum(inv[:, self.offset :] ** 2, axis=0)  # alpha Sigma_ii
            # S_i = alpha_i gamma_i without cancellation where gamma_i = 1 - ratio is large
            S_act = np.where(ratio < 0.5, self.alpha * (1.0 - ratio), S[self.active])
            S[self.active] = S_act
            s[self.active] = S_act / ratio
            q[self.active] = Q[self.active] / ratio
        return S, Q, s, q

    def add(self, j, alpha):
        self.active = np.append(self.active, j)
        self.alpha = np.append(self.alpha, alpha)
        self.w = np.append(self.w, 0.0)

    def delete(self, k):
        self.active = np.delete(self.active, k)
        self.alpha = np.delete(self.alpha, k)
        self.w = np.delete(self.w, self.offset + k)


def _feature_columns(X, sw, fit_intercept):
    """The centred, unit-norm columns of ``X`` and ``(mean, scale)`` to undo them.

    Centring and norms are weighted by ``sw`` (the weighted mean, ``sqrt(sum_n
    sw_n (x_ni - mean_i)^2)``), so an integer weight is a repeated row. Columns
    that are constant (zero after centring) can never be relevant: they are zero.
    """
    n_features = X.shape[1]
    if sp.issparse(X):
        if not fit_intercept:
            mean = np.zeros(n_features)
        elif sw is None:
            mean = np.asarray(X.mean(axis=0)).ravel()
        else:
            mean = np.asarray(X.T @ sw).ravel() / sw.sum()
        weights = np.ones(X.shape[0]) if sw is None else sw
        norms = np.sqrt(np.maximum(_SparseColumns.centred_squares(X, mean, weights), 0.0))
    else:
        if not fit_intercept:
            mean = np.zeros(n_features)
        elif sw is None:
            mean = X.mean(axis=0)
        else:
            mean = (X.T @ sw) / sw.sum()
        Xc = X - mean
        norms = np.linalg.norm(Xc, axis=0) if sw is None else np.sqrt(sw @ (Xc * Xc))
    usable = norms > 1e-12 * max(float(np.max(norms, initial=0.0)), 1e-300)
    scale = np.where(usable, norms, 1.0)
    if sp.issparse(X):
        return _SparseColumns(X, mean, scale, usable), mean, scale
    return _DenseColumns(np.where(usable, Xc / scale, 0.0)), mean, scale


class RVMClassifier(ClassifierMixin, BaseEstimator):
    """Relevance vector machine classifier with an ARD prior on the features (Tipping).

    Sparse Bayesian learning with a logistic likelihood,
    ``P(y = classes_[1] | x, w, b) = sigma(w . x + b)``, and the automatic
    relevance determination prior ``w_i ~ N(0, 1 / alpha_i)``, one precision
    per input feature (the intercept has a flat prior and is never pruned).
    The basis functions are the input features themselves, not kernels
    centred on the training samples; for a kernel RVM pass a kernel matrix
    as ``X``.

    For given precisions, the posterior mode ``w_MP`` is found by damped
    Newton iterations (IRLS) on the penalised log posterior, and Laplace's
    approximation at it, with covariance ``Sigma = (Phi^T B Phi + A)^-1``,
    gives the marginal likelihood (Tipping 2001, §4)::

        log p(t | alpha) ~ log p(t | w_MP) - w_MP^T A w_MP / 2
                           + log|A| / 2 - log|Sigma^-1| / 2.

    It is maximised by the fast sequential algorithm of Tipping & Faul
    (2003): from the intercept-only model, each iteration evaluates, in the
    Gaussian approximation at the current mode (the curvature ``B`` of the
    likelihood held fixed), the sparsity and quality factors ``s_i, q_i`` of
    every feature and performs the single action of largest gain in marginal
    likelihood: add a feature (``q_i^2 > s_i``, ``alpha_i = s_i^2 / (q_i^2 -
    s_i)``), delete one (``q_i^2 <= s_i``) or re-estimate one precision; the
    mode is then re-found (a re-estimate whose direction reverses from the
    previous one of that feature is damped, which breaks the two-cycles that
    the moving curvature ``B`` can cause). Once no addition or deletion is
    worth ``tol``,
    all retained precisions are moved together towards their individual
    optima ``s_i^2 / (q_i^2 - s_i)`` (in ``log alpha``, with a per-feature
    rate that grows while its direction persists and halves when it
    reverses); this has the same fixed point as one-at-a-time re-estimation
    but needs several times fewer iterations when ``n_features >>
    n_samples`` makes the retained features strongly correlated. The fit
    stops when no precision would move by ``tol`` in ``log alpha`` and no
    addition or deletion is due. Only matrices of the size of the retained
    set are factorised: an iteration costs ``O(n_samples n_features M)`` for
    ``M`` retained features.

    The fixed point is Tipping's: ``alpha_i = gamma_i / mu_i^2`` with
    ``gamma_i = 1 - alpha_i Sigma_ii`` for the retained features, and
    ``q_i^2 <= s_i`` for the pruned ones. Like Tipping's, it is a stationary
    point of the Laplace evidence with ``B`` held at the fitted mode; it is
    not exactly one of the Laplace evidence in which ``B`` follows the mode
    as ``alpha`` moves (on separable data, always the case when
    ``n_features >= n_samples``, that evidence keeps increasing as the
    weights of the retained features grow). The result is deterministic.

    Three or more classes are fitted one against the rest: problem ``k`` is
    the two-class fit of ``classes_[k]`` against all other classes, and
    ``predict_proba`` divides each problem's ``sigma(w_k . x + b_k)`` by their
    sum (as :class:`~sklearn.multiclass.OneVsRestClassifier` does). With
    sample weights ``sw_n`` each example's log-likelihood term is multiplied
    by its weight, ``sum_n sw_n log sigma(s_n (w . x_n + b))`` (the curvature
    ``B`` and the residuals ``t - y`` carry the weights, and the centring and
    unit norms of the features are weighted), so an integer weight is the
    example repeated.

    Parameters
    ----------
    max_iter : int, default=500
        Maximum number of hyperparameter updates (single-feature actions and
        joint re-estimates, each followed by a search for the mode),
        ``>= 1``.
    tol : float, default=1e-3
        Convergence when no re-estimate would change a ``log alpha_i`` by
        ``tol``, no deletion is due and no addition would raise the log
        marginal likelihood (in the Gaussian approximation) by ``tol``;
        ``> 0``.
    threshold_alpha : float, default=1e9
        Prune a feature whose precision exceeds this value, ``> 0``.
        Precisions are compared for features centred (when ``fit_intercept``)
        and scaled to unit Euclidean norm over the training samples, so the
        threshold does not depend on the units of ``X``.
    fit_intercept : bool, default=True
        Fit an intercept ``b`` with a flat prior (the features are centred
        internally; the model is unchanged by that).
    verbose : int, default=0
        At 1 or more, print every hyperparameter update (the action, the
        number of retained features, the log marginal likelihood) and the
        convergence.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels; with two, ``classes_[1]`` is the positive class.
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Posterior mean (mode) of the weights; zero for pruned features. In the
        float dtype of ``X`` (float32 kept). With three or more classes row
        ``k`` is the problem ``classes_[k]`` against the rest, and every
        attribute below gets a leading class axis: arrays of shape
        ``(n_classes, ...)``, or a list of ``n_classes`` arrays where their
        sizes differ between classes (``relevance_``, ``sigma_``, ``scores_``).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Posterior mode of the intercept (0 when ``fit_intercept=False``).
    relevance_ : ndarray of shape (n_relevant,)
        Indices of the retained ("relevant") features, ascending.
    alpha_ : ndarray of shape (n_features,)
        Prior precisions of the weights in the units of ``X``; ``inf`` for
        pruned features.
    sigma_ : ndarray of shape (n_relevant, n_relevant)
        Laplace posterior covariance of the retained weights, ordered as
        ``relevance_``, in the units of ``X``.
    log_marginal_likelihood_ : float
        Laplace approximation of the log marginal likelihood at the fitted
        precisions. The flat intercept prior is taken as the Lebesgue measure
        in the intercept's units, contributing ``log(2 pi) / 2 - log|...|``
        through the Laplace integral.
    scores_ : ndarray of shape (``n_iter_ + 1``,)
        The same quantity after every hyperparameter update (first entry:
        the intercept-only or empty model).
    n_iter_ : int
        Hyperparameter updates performed.
    converged_ : bool
        Whether both stages met ``tol`` within ``max_iter``.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of the features seen in ``fit`` when ``X`` has string column names.

    Notes
    -----
    Class probabilities are ``sigma(decision_function(X))`` at the posterior
    mode (Tipping's predictor), not moderated by the posterior variance.
    With ``n_features >> n_samples`` every labelling is separable; the ARD
    prior keeps the Laplace evidence maximum, and so the weights, finite.

    References
    ----------
    M. E. Tipping, "Sparse Bayesian learning and the relevance vector
    machine", J. Mach. Learn. Res. 1, 211-244 (2001).

    M. E. Tipping and A. C. Faul, "Fast marginal likelihood maximisation for
    sparse Bayesian models", Proc. AISTATS 2003.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from statmechlearn.linear import RVMClassifier
    >>> X, y = make_classification(80, 200, n_informative=5, random_state=0)
    >>> clf = RVMClassifier().fit(X, y)
    >>> clf.coef_.shape
    (1, 200)
    >>> bool(clf.relevance_.size < 20)
    True
    >>> clf.predict_proba(X[:3]).shape
    (3, 2)
    """

    _parameter_constraints: ClassVar[dict] = {
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "threshold_alpha": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "verbose": ["verbose"],
    }

    def __init__(
        self, *, max_iter=500, tol=1e-3, threshold_alpha=1e9, fit_intercept=True, verbose=0
    ):
        self.max_iter = max_iter
        self.tol = tol
        self.threshold_alpha = threshold_alpha
        self.fit_intercept = fit_intercept
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the weights and the precisions by evidence maximisation.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training inputs; finite. CSR or CSC input is used as it is (never
            densified: the fit needs ``X.T @ v`` and the retained columns);
            float32 is kept.
        y : array-like of shape (n_samples,)
            Labels of at least two classes.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights of the examples' log-likelihood terms; None
            weights every example 1.

        Returns
        -------
        self : RVMClassifier
        """
        # alpha_ and sigma_ are in the units of X: squares of extreme X would overflow
        X, y, sample_weight = validate_fit_input(self, X, y, sample_weight)
        dtype = X.dtype
        X = as_float64(X)
        sample_weight = weights_or_none(sample_weight)
        classes, targets = class_targets(self, y, sample_weight)
        columns, mean, scale = _feature_columns(X, sample_weight, self.fit_intercept)
        n_problems = len(targets)

        def fit_binary(k, s):
            label = problem_name(classes, k, n_problems) if n_problems > 1 else None
            return self._fit_binary(columns, s, sample_weight, mean, scale, label)

        results = fit_problems(self, classes, targets, fit_binary)
        self.classes_ = classes
        for name, value in stack_fitted(results).items():
            if name in ("coef_", "intercept_"):
                value = value.astype(dtype, copy=False)
            setattr(self, name, value)
        return self

    def _fit_binary(self, columns, s, sample_weight, mean, scale, label):
        """The two-class fit of one problem (``s = +-1``): its fitted attributes."""
        suffix = f" ({label})" if label else ""
        model = _Model(columns, s, self.fit_intercept, sample_weight)
        model.update_mode()
        scores = [model.log_evidence()]
        n_iter, converged = self._sequential(model, scores)
        del self._rate, self._last  # step-size state of _sequential
        if model.n_newton_failures:
            warn(
                f"RVMClassifier: the Newton iterations for the posterior mode did not "
                f"converge in {_NEWTON_MAX_ITER} steps ({model.n_newton_failures} times); "
                f"the data may be badly scaled{suffix}.",
                ConvergenceWarning,
            )
        if not converged:
            warn(
                f"RVMClassifier did not converge in max_iter={self.max_iter} hyperparameter "
                f"updates (tol={self.tol:g} on log alpha, {model.active.size} features "
                f"retained){suffix}. Increase max_iter or tol.",
                ConvergenceWarning,
            )

        n_features = scale.size
        order = np.argsort(model.active, kind="stable")
        active = model.active[order]
        k = model.offset + order
        w = model.w[k] / scale[active]
        coef = np.zeros(n_features)
        coef[active] = w
        alpha = np.full(n_features, np.inf)
        alpha[active] = model.alpha[order] * scale[active] ** 2
        n_basis = model.chol.shape[0]
        Sigma = cho_solve((model.chol, True), np.eye(n_basis)) if n_basis else np.zeros((0, 0))
        intercept = (
            model.w[0] / np.sqrt(model.n_eff) - float(mean @ coef) if self.fit_intercept else 0.0
        )
        return {
            "coef_": coef[None, :],
            "intercept_": np.array([intercept]),
            "relevance_": active,
            "alpha_": alpha,
            "sigma_": Sigma[np.ix_(k, k)] / np.outer(scale[active], scale[active]),
            "scores_": np.asarray(scores),
            "log_marginal_likelihood_": float(scores[-1]),
            "n_iter_": n_iter,
            "converged_": bool(converged),
        }

    def _sequential(self, model, scores):
        """Tipping & Faul's add / delete / re-estimate iterations."""
        n_features = model.X.shape[1]
        self._rate, self._last = np.ones(n_features), np.zeros(n_features)
        for it in range(self.max_iter):
            S, Q, s_, q_ = model.factors()
            a = model.alpha
            act = model.active
            theta = q_ * q_ - s_

            gain = np.full(n_features, -np.inf)
            in_model = np.zeros(n_features, dtype=bool)
            in_model[act] = True
            # addition
            add = ~in_model & (theta > _ZERO_FACTOR) & (S > 0)
            ratio = Q[add] ** 2 / S[add]
            gain[add] = 0.5 * (ratio - 1.0 - np.log(ratio))
            # re-estimation (deleting when the new precision is beyond the threshold)
            new_alpha = np.full(act.size, np.inf)
            keep = theta[act] > _ZERO_FACTOR
            new_alpha[keep] = s_[act][keep] ** 2 / theta[act][keep]
            new_alpha[new_alpha > self.threshold_alpha] = np.inf
            finite = np.isfinite(new_alpha)
            re_idx = act[finite]
            delta = 1.0 / new_alpha[finite] - 1.0 / a[finite]
            gain[re_idx] = 0.5 * (
                delta * Q[re_idx] ** 2 / (delta * S[re_idx] + 1.0) - np.log1p(S[re_idx] * delta)
            )
            # deletion
            del_idx = act[~finite]
            gain[del_idx] = np.maximum(
                -0.5
                * (
                    q_[del_idx] ** 2 / (s_[del_idx] + a[~finite])
                    - np.log1p(s_[del_idx] / a[~finite])
                ),
                0.0,
            )

            # converged: no precision would move by tol in log, no deletion is due and
            # no addition would raise the (Gaussian-approximation) evidence by tol
            moves = np.abs(np.log(new_alpha[finite]) - np.log(a[finite]))
            best_add = np.max(gain[add], initial=-np.inf)
            if np.max(moves, initial=0.0) < self.tol and not del_idx.size and best_add < self.tol:
                if self.verbose:
                    print(
                        f"Converged at iteration {it}: no log alpha moves by tol={self.tol:g}, "
                        f"no addition or deletion is due; {act.size} features retained."
                    )
                return it, True
            move = np.log(new_alpha) - np.log(a)  # only used where finite
            if not del_idx.size and best_add < self.tol:
                # only re-estimates are worth making: move all retained precisions
                # together, each towards its own optimum (see _step)
                model.alpha = a * np.exp(self._step(act, move, joint=True))
                action = "re-estimated every retained precision"
            else:
                j = int(np.argmax(gain))
                if del_idx.size and gain[j] < self.tol:  # small gains: deletions first
                    j = int(del_idx[np.argmax(gain[del_idx])])
                if not in_model[j]:
                    model.add(j, s_[j] ** 2 / theta[j])
                    self._rate[j], self._last[j] = 1.0, 0.0
                    action = f"added feature {j}"
                else:
                    k = int(np.flatnonzero(act == j)[0])
                    if np.isfinite(new_alpha[k]):
                        model.alpha[k] = (
                            a[k] * np.exp(self._step(act[k : k + 1], move[k : k + 1]))[0]
                        )
                        action = f"re-estimated feature {j}"
                    else:
                        model.delete(k)
                        action = f"deleted feature {j}"
            model.update_mode()
            scores.append(model.log_evidence())
            if self.verbose:
                print(
                    f"Iteration {it + 1}: {action}; {model.active.size} features retained, "
                    f"log marginal likelihood {scores[-1]:.6g}."
                )
        return self.max_iter, False

    def _step(self, idx, move, joint=False):
        """Damped (or, jointly, accelerated) steps in ``log alpha`` of features ``idx``.

        Each feature's step is its proposed move (to its optimum in the Gaussian
        approximation) times a rate that halves when the move reverses direction,
        which breaks the two-cycles the changing curvature ``B`` can cause, and
        grows by half while the direction persists, up to 1 for single
        re-estimates and up to ``_RATE_MAX`` for joint ones, which then cross the
        slow valleys of strongly correlated features. The fixed point is unchanged.
        """
        agree = move * self._last[idx]
        rate = self._rate[idx]
        rate = np.where(agree > 0, np.minimum(1.5 * rate, _RATE_MAX if joint else 1.0), rate)
        rate = np.where(agree < 0, 0.5 * rate, rate)
        self._rate[idx], self._last[idx] = rate, move
        return rate * move

    def _scores(self, X):
        """``w . x + b`` of every problem, shape (n_samples, n_problems), in float64."""
        X = as_float64(X)
        coef = np.asarray(self.coef_, dtype=np.float64)
        intercept = np.asarray(self.intercept_, dtype=np.float64)
        return np.column_stack([X @ coef[k] + intercept[k] for k in range(coef.shape[0])])

    def decision_function(self, X):
        """Activation ``w . x + b`` at the posterior mode.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            Positive values favour ``classes_[1]``; with three or more classes
            column ``k`` is the activation of ``classes_[k]`` against the rest.
            In the float dtype of ``X``.
        """
        X = validate_predict_input(self, X)
        return decision_output(self._scores(X)).astype(X.dtype, copy=False)

    def predict_proba(self, X):
        """Class probabilities ``sigma(w . x + b)``.

        With three or more classes each problem's ``sigma(w_k . x + b_k)``,
        divided by their sum over ``k``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns ordered as ``classes_``; in the float dtype of ``X``.
        """
        X = validate_predict_input(self, X)
        return proba_output(expit(self._scores(X))).astype(X.dtype, copy=False)

    def predict(self, X):
        """The class of larger probability (``classes_[1]`` when ``w . x + b > 0``).

        With three or more classes, the class of the largest activation.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = validate_predict_input(self, X)
        return predict_output(self.classes_, self._scores(X))

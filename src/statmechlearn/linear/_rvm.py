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
Table 1.
"""

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn._core.validation import check_magnitude, validate_named
from statmechlearn._core.warn import warn

__all__ = ["RVMClassifier"]

# q^2 - s must exceed this (in units of the unit-norm features) to add a feature.
_ZERO_FACTOR = 1e-12
_NEWTON_MAX_ITER = 100
_RATE_MAX = 8.0


def _log_likelihood(f, s):
    """``sum_n log sigma(s_n f_n)`` for labels ``s = +-1``."""
    return -float(np.sum(np.logaddexp(0.0, -s * f)))


def _posterior_mode(Phi, s, prec, w):
    """Mode of ``log p(t | w) - w^T diag(prec) w / 2`` by damped Newton (IRLS).

    Every step is halved until the penalised log posterior does not decrease,
    so the iteration cannot diverge on separable data (the prior keeps the
    objective strictly concave with a finite maximiser).

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
    obj = _log_likelihood(f, s) - 0.5 * float(prec @ (w * w))
    converged = False
    for _ in range(_NEWTON_MAX_ITER):
        y = expit(f)
        B = expit(f) * expit(-f)
        grad = Phi.T @ (t - y) - prec * w
        chol = _cholesky(Phi.T @ (B[:, None] * Phi) + np.diag(prec))
        step = cho_solve((chol, True), grad)
        decrement = float(grad @ step)
        if decrement <= 1e-14 * (1.0 + abs(obj)):
            # within rounding of the mode: the full step polishes it quadratically
            w = w + step
            f = Phi @ w
            y = expit(f)
            B = expit(f) * expit(-f)
            chol = _cholesky(Phi.T @ (B[:, None] * Phi) + np.diag(prec))
            converged = True
            break
        size = 1.0
        for _ in range(60):
            w_new = w + size * step
            f_new = Phi @ w_new
            obj_new = _log_likelihood(f_new, s) - 0.5 * float(prec @ (w_new * w_new))
            if obj_new >= obj - 1e-12 * (1.0 + abs(obj)):
                break
            size *= 0.5
        else:  # no ascent along the Newton direction: at the mode to rounding
            converged = True
            break
        w, f, obj = w_new, f_new, obj_new
    else:  # refactorise at the final iterate
        B = expit(f) * expit(-f)
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


class _Model:
    """The active set (intercept first when fitted) and its posterior at the mode."""

    def __init__(self, X, s, fit_intercept):
        self.X = X  # centred, unit-norm columns
        self.s = s
        self.fit_intercept = fit_intercept
        n = X.shape[0]
        self.bias = np.full((n, 1), 1.0 / np.sqrt(n)) if fit_intercept else np.zeros((n, 0))
        self.active = np.zeros(0, dtype=int)
        self.alpha = np.zeros(0)
        self.w = np.zeros(self.bias.shape[1])
        if fit_intercept:  # the mode of the intercept-only model
            p = np.mean(s > 0)
            self.w[0] = np.log(p / (1.0 - p)) * np.sqrt(n)
        self.n_newton_failures = 0

    @property
    def offset(self):
        return self.bias.shape[1]

    def basis(self):
        return np.hstack([self.bias, self.X[:, self.active]])

    def precisions(self):
        return np.concatenate([np.zeros(self.offset), self.alpha])

    def update_mode(self):
        Phi = self.basis()
        self.w, self.f, self.chol, ok = _posterior_mode(Phi, self.s, self.precisions(), self.w)
        self.n_newton_failures += not ok
        self.Phi = Phi
        self.B = expit(self.f) * expit(-self.f)
        self.y = expit(self.f)

    def log_evidence(self):
        """Laplace log marginal likelihood (unit-norm features; see ``RVMClassifier``)."""
        wf = self.w[self.offset :]
        value = (
            _log_likelihood(self.f, self.s)
            - 0.5 * float(self.alpha @ (wf * wf))
            + 0.5 * float(np.sum(np.log(self.alpha)))
            - float(np.sum(np.log(np.diag(self.chol))))
        )
        if self.fit_intercept:  # flat prior on the intercept, in its own units
            value += 0.5 * np.log(2.0 * np.pi) - 0.5 * np.log(self.X.shape[0])
        return value

    def factors(self):
        """Tipping & Faul's sparsity and quality factors of every feature.

        In the Gaussian approximation at the mode (``B`` frozen),
        ``S_i = phi_i^T B phi_i - phi_i^T B Phi Sigma Phi^T B phi_i`` and
        ``Q_i = phi_i^T (t - y)``; ``s_i, q_i`` are the same with feature ``i``
        left out of the model: ``s_i = S_i / (alpha_i Sigma_ii)`` and
        ``q_i = Q_i / (alpha_i Sigma_ii)`` for a retained feature (since
        ``alpha_i - S_i = alpha_i^2 Sigma_ii``), ``s_i = S_i``, ``q_i = Q_i``
        otherwise.

        Returns
        -------
        S, Q, s, q : ndarray of shape (n_features,)
        """
        t = 0.5 * (self.s + 1.0)
        Z = self.X.T @ (self.B[:, None] * self.Phi)
        # an empty model gives no correction (SciPy < 1.12 rejects the 0 x 0 solve)
        V = solve_triangular(self.chol, Z.T, lower=True) if Z.shape[1] else Z.T
        S = np.maximum(self.B @ (self.X * self.X) - np.sum(V * V, axis=0), 0.0)
        Q = self.X.T @ (t - self.y)
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

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Class labels; ``classes_[1]`` is the positive class.
    coef_ : ndarray of shape (1, n_features)
        Posterior mean (mode) of the weights; zero for pruned features.
    intercept_ : ndarray of shape (1,)
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
    }

    def __init__(self, *, max_iter=500, tol=1e-3, threshold_alpha=1e9, fit_intercept=True):
        self.max_iter = max_iter
        self.tol = tol
        self.threshold_alpha = threshold_alpha
        self.fit_intercept = fit_intercept

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the weights and the precisions by evidence maximisation.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs; finite.
        y : array-like of shape (n_samples,)
            Labels of exactly two classes.

        Returns
        -------
        self : RVMClassifier
        """
        X, y = validate_named(self, X, y, dtype=np.float64)
        # alpha_ and sigma_ are in the units of X: squares of extreme X would overflow
        check_magnitude(X)
        check_classification_targets(y)
        classes = np.unique(y)
        if classes.size != 2:
            raise ValueError(
                f"Only binary classification is supported: {type(self).__name__} needs "
                f"exactly 2 classes in y; y has {classes.size} "
                f"class{'es' if classes.size != 1 else ''} ({classes.tolist()[:5]})"
            )
        self.classes_ = classes
        s = np.where(y == classes[1], 1.0, -1.0)
        mean = X.mean(axis=0) if self.fit_intercept else np.zeros(X.shape[1])
        Xc = X - mean
        norms = np.linalg.norm(Xc, axis=0)
        # columns that are constant (zero after centring) can never be relevant
        usable = norms > 1e-12 * max(float(np.max(norms, initial=0.0)), 1e-300)
        scale = np.where(usable, norms, 1.0)
        model = _Model(np.where(usable, Xc / scale, 0.0), s, self.fit_intercept)

        model.update_mode()
        scores = [model.log_evidence()]
        n_iter, converged = self._sequential(model, scores)
        del self._rate, self._last  # step-size state of _sequential
        if model.n_newton_failures:
            warn(
                f"RVMClassifier: the Newton iterations for the posterior mode did not "
                f"converge in {_NEWTON_MAX_ITER} steps ({model.n_newton_failures} times); "
                "the data may be badly scaled.",
                ConvergenceWarning,
            )
        if not converged:
            warn(
                f"RVMClassifier did not converge in max_iter={self.max_iter} hyperparameter "
                f"updates (tol={self.tol:g} on log alpha, {model.active.size} features "
                "retained). Increase max_iter or tol.",
                ConvergenceWarning,
            )

        order = np.argsort(model.active, kind="stable")
        active = model.active[order]
        k = model.offset + order
        w = model.w[k] / scale[active]
        coef = np.zeros(X.shape[1])
        coef[active] = w
        alpha = np.full(X.shape[1], np.inf)
        alpha[active] = model.alpha[order] * scale[active] ** 2
        n_basis = model.chol.shape[0]
        Sigma = cho_solve((model.chol, True), np.eye(n_basis)) if n_basis else np.zeros((0, 0))
        self.coef_ = coef[None, :]
        self.intercept_ = np.array(
            [model.w[0] / np.sqrt(X.shape[0]) - float(mean @ coef) if self.fit_intercept else 0.0]
        )
        self.relevance_ = active
        self.alpha_ = alpha
        self.sigma_ = Sigma[np.ix_(k, k)] / np.outer(scale[active], scale[active])
        self.scores_ = np.asarray(scores)
        self.log_marginal_likelihood_ = float(scores[-1])
        self.n_iter_ = n_iter
        self.converged_ = bool(converged)
        return self

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
                return it, True
            move = np.log(new_alpha) - np.log(a)  # only used where finite
            if not del_idx.size and best_add < self.tol:
                # only re-estimates are worth making: move all retained precisions
                # together, each towards its own optimum (see _step)
                model.alpha = a * np.exp(self._step(act, move, joint=True))
            else:
                j = int(np.argmax(gain))
                if del_idx.size and gain[j] < self.tol:  # small gains: deletions first
                    j = int(del_idx[np.argmax(gain[del_idx])])
                if not in_model[j]:
                    model.add(j, s_[j] ** 2 / theta[j])
                    self._rate[j], self._last[j] = 1.0, 0.0
                else:
                    k = int(np.flatnonzero(act == j)[0])
                    if np.isfinite(new_alpha[k]):
                        model.alpha[k] = (
                            a[k] * np.exp(self._step(act[k : k + 1], move[k : k + 1]))[0]
                        )
                    else:
                        model.delete(k)
            model.update_mode()
            scores.append(model.log_evidence())
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

    def decision_function(self, X):
        """Activation ``w . x + b`` at the posterior mode.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Positive values favour ``classes_[1]``.
        """
        check_is_fitted(self)
        X = validate_named(self, X, dtype=np.float64, reset=False)
        check_magnitude(X)
        return X @ self.coef_[0] + self.intercept_[0]

    def predict_proba(self, X):
        """Class probabilities ``sigma(w . x + b)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Columns ordered as ``classes_``.
        """
        p1 = expit(self.decision_function(X))
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X):
        """The class of larger probability (``classes_[1]`` when ``w . x + b > 0``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        decision = self.decision_function(X)
        return self.classes_[(decision > 0).astype(int)]

"""The sparse Bayesian classifier (Uda & Kabashima) as scikit-learn estimators.

:class:`SparseBayesClassifier` approximates the Bayes prediction of a
perceptron whose inputs are pruned by ``c_l in {0, 1}`` (a fraction ``C``
kept), by the O(NM) message passing of eqs. (40)–(41). The leave-one-out
error eq. (56) comes from the cavity stabilities the algorithm computes
anyway, so :class:`~statmechlearn.linear.SparseBayesClassifierCV`
(:mod:`._sparse_bayes_cv`) chooses ``C`` and ``kappa`` on a grid without
refitting on subsets. Three or more classes are fitted one against the rest
(:mod:`._multiclass`), on inputs preprocessed once.
"""

from contextlib import nullcontext
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn._core.validation import (
    MAGNITUDE_RANGE,
    check_array_finite,
    check_magnitude,
    check_real,
)
from statmechlearn._core.warn import warn
from statmechlearn.linear._multiclass import (
    as_float64,
    class_targets,
    decision_output,
    fit_problems,
    log_of,
    proba_output,
    problem_name,
    stack_fitted,
    validate_fit_input,
    validate_predict_input,
    weights_or_none,
)
from statmechlearn.linear._sparse_bayes_adaptive import (
    adaptive_amp,
    blas_threads_for,
    pattern_matrix,
)
from statmechlearn.linear._sparse_bayes_mp import fixed_damping_amp
from statmechlearn.theory.sparse_bayes import SmoothedStepActivation

__all__ = [
    "PAPER_C_GRID",
    "PAPER_KAPPA_GRID",
    "SparseBayesClassifier",
    "sphere_rows",
]

#: The grid of ``C`` searched in Uda & Kabashima §5.
PAPER_C_GRID = (2.5e-3, 5.0e-3, 1.0e-2, 5.0e-2, 0.1, 0.2, 0.4, 0.6, 0.8)
#: The grid of ``kappa`` searched in Uda & Kabashima §5.
PAPER_KAPPA_GRID = (0.1, 0.2, 0.3, 0.4)
#: Updates without a smaller residual after which a grid fit of the CV stops (adaptive
#: damping): on teacher data (N = M = 1000) the grid points that converge never wait
#: that long (nor on the colon data), those that stall (C <= 0.01 at small kappa) would
#: run to max_iter.
_CV_PATIENCE = 50


def sphere_rows(X, dim=None):
    """Scale each row to Euclidean norm ``sqrt(dim)`` (default: the number of columns).

    Rows of zeros stay zero.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    dim : float, optional
        Target squared norm.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
    """
    X = check_array_finite(X, "X", ndim=2)
    if X.shape[1] == 0:
        raise ValueError(f"X must have at least one feature, got shape {X.shape}")
    dim = X.shape[1] if dim is None else check_real(dim, "dim", minimum=0.0, include_min=False)
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    if not np.all(np.isfinite(norms)):
        # |x|^2 overflowed: the direction of x / max|x| is the same
        top = np.max(np.abs(X), axis=1, keepdims=True)
        X = X / np.where(top > 0, top, 1.0)
        norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X * np.where(norms > 0, np.sqrt(dim) / np.where(norms > 0, norms, 1.0), 0.0)


def _make_activation(activation, kappa):
    """The channel object of a validated ``activation`` parameter."""
    if isinstance(activation, str):
        return SmoothedStepActivation(kappa, 0.0 if activation == "step" else 1.0)
    return activation


def _unit(X):
    """A power of two that brings ``max |X|`` into :data:`MAGNITUDE_RANGE`, else 1.

    Division by a power of two is exact, and the preprocessings are invariant
    under a rescaling of the inputs, so extreme inputs give the same fit as
    moderate ones while moderate ones are left bit for bit as they are.
    """
    top = float(np.max(np.abs(X), initial=0.0))
    if top == 0.0 or MAGNITUDE_RANGE[0] <= top <= MAGNITUDE_RANGE[1]:
        return 1.0
    return float(2.0 ** np.round(np.log2(top)))


class _Preprocessor:
    """The §5 preprocessing, fitted on the training inputs.

    With sample weights ``sw`` the mean and the principal directions are those
    of the rows repeated by their weights: the weighted mean, and the SVD of
    ``sqrt(sw) (X - mean)`` scaled to unit weighted variance.
    """

    def __init__(self, kind, X, sw=None):
        self.kind = kind
        if kind is None:
            # the model reads raw inputs: there is no scale to divide out
            check_magnitude(X)
            self.unit = 1.0
            self.mean = np.zeros(X.shape[1])
            return
        self.unit = _unit(X)
        X = X / self.unit if self.unit != 1.0 else X
        self.mean = X.mean(axis=0) if sw is None else (X.T @ sw) / sw.sum()
        if kind == "whiten":
            Xc = X - self.mean
            n_rows = X.shape[0] if sw is None else sw.sum()
            _, s, vt = np.linalg.svd(
                Xc if sw is None else np.sqrt(sw)[:, None] * Xc, full_matrices=False
            )
            keep = s > s[0] * max(Xc.shape) * np.finfo(float).eps if s.size and s[0] > 0 else []
            rank = max(int(np.sum(keep)), 1)
            # Whitened coordinates z = Xc V_r diag(sqrt(M)/s_r): (1/M) sum z z^T = I_r.
            s_r = np.where(s[:rank] > 0, s[:rank], 1.0)
            self.projection = vt[:rank].T * (np.sqrt(n_rows) / s_r)

    @property
    def n_dims(self):
        return self.projection.shape[1] if self.kind == "whiten" else self.mean.size

    def transform(self, X):
        if self.kind is None:
            check_magnitude(X)
            return np.asarray(X, dtype=float)
        # inputs far larger than the training data: rescale them and the fitted mean
        # together (the result is invariant); smaller ones are safe, sphere_rows copes
        extra = max(_unit(X / self.unit), 1.0)
        unit = self.unit * extra
        Xc = X / unit - self.mean / extra if unit != 1.0 else X - self.mean
        if self.kind == "whiten":
            Xc = Xc @ self.projection
        return sphere_rows(Xc)


def _run(F, C, kappa, params, weights=None):
    """One fit on the pattern matrix ``F`` of preprocessed inputs: ``(solver output, channel)``.

    ``damping="auto"`` runs the adaptive kernel, a float damping the fixed-damping one.
    """
    activation = _make_activation(params["activation"], kappa)
    if params["damping"] == "auto":
        out = adaptive_amp(
            F,
            C,
            activation,
            max_iter=params["max_iter"],
            tol=params["tol"],
            patience=params["patience"],
            weights=weights,
        )
    else:
        out = fixed_damping_amp(
            F,
            float(C),
            activation,
            int(params["max_iter"]),
            float(params["tol"]),
            float(params["damping"]),
            weights=weights,
        )
    return out, activation


def _binary_result(result, weights=None):
    """The fitted attributes of one problem from one run of :func:`_run`."""
    out, activation = result
    m, rho = out["m"], out["rho"]
    variance = out["variance"]
    omega = out["omega"]
    p_own = activation.probability(omega, variance)
    if weights is None:
        loo_error = float(np.mean(p_own < 0.5))
        loo_log_loss = float(-np.mean(np.log(np.clip(p_own, 1e-300, None))))
    else:
        loo_error = float(np.average(p_own < 0.5, weights=weights))
        loo_log_loss = float(-np.average(np.log(np.clip(p_own, 1e-300, None)), weights=weights))
    return {
        # the MAP of each c_l is 1 where <c_l> > 1/2: those components keep <c_l w_l>
        "coef_": np.where(rho > 0.5, m, 0.0),
        "coef_posterior_mean_": m,
        "relevance_": rho,
        "self_overlap_": float(np.mean(m**2)),
        "precision_": out["A"],
        "log_odds_": out["lam"],
        "n_iter_": out["n_iter"],
        "converged_": bool(out["converged"]),
        "cavity_stability_": omega,
        "loo_error_": loo_error,
        "loo_log_loss_": loo_log_loss,
        "_variance": variance,
        "_change": out["change"],
        "_step": np.asarray(out.get("step", ())),
        "_stalled": bool(out.get("stalled", False)),
    }


def _warning_text(fitted, C, activation, params, label=None):
    """The ``ConvergenceWarning`` of a fit that did not meet ``tol``."""
    change = fitted["_change"]
    how = (
        "stopped: no smaller residual in the last updates"
        if fitted["_stalled"]
        else f"did not converge in max_iter={params['max_iter']} updates"
    )
    advice = (
        "Increase max_iter; at a very small C there may be no stable fixed point."
        if params["damping"] == "auto"
        else "Increase max_iter or damping, or use damping='auto'."
    )
    where = f" ({label})" if label else ""
    return (
        f"SparseBayesClassifier {how} (C={float(C):g}, "
        f"{getattr(activation, 'name', activation)}){where}: last relative change "
        f"{change[-1]:.3g} > tol={params['tol']:g}, smallest {np.min(change):.3g}. {advice}"
    )


def _report(fitted, tol):
    """Print every update's residual and how the iteration ended (``verbose``)."""
    change, step = fitted["_change"], fitted["_step"]
    for t, value in enumerate(change, start=1):
        at = f", step {step[t - 1]:.3g}" if step.size else ""
        print(f"Iteration {t}, residual {value:.3g}{at}.")
    n = fitted["n_iter_"]
    if fitted["converged_"]:
        print(f"Converged at iteration {n}: residual {change[-1]:.3g} < tol={tol:g}.")
    elif fitted["_stalled"]:
        print(f"Stopped at iteration {n}: no smaller residual in the last updates.")


def _dense64(X):
    """A validated ``X`` as a dense float64 array (sparse input is densified, row-major
    as a dense input's: the products then round as the dense fit's)."""
    return as_float64(X.toarray(order="C") if sp.issparse(X) else X)


class _SparseBayesPrediction(ClassifierMixin, BaseEstimator):
    """Prediction from fitted problems: ``_preprocessor``, ``coef_posterior_mean_``, channels.

    A subclass sets ``_preprocessor``, ``coef_posterior_mean_`` (one row per problem
    with several), ``_variance`` (one per problem) and ``_channels`` (the output
    channel of every problem).
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _transform(self, X):
        """Validated, preprocessed ``X`` and the float dtype of the outputs."""
        # extreme inputs are rescaled by the preprocessing (_unit), not refused
        X = validate_predict_input(self, X, magnitude=False)
        return self._preprocessor.transform(_dense64(X)), X.dtype

    def _scores(self, Xp):
        """``<Delta> = x . <c w> / sqrt(N)`` of every problem, shape (n, n_problems)."""
        means = np.asarray(self.coef_posterior_mean_, dtype=np.float64)
        means = means[None] if means.ndim == 1 else means
        return np.column_stack([Xp @ m / np.sqrt(Xp.shape[1]) for m in means])

    def _probabilities(self, scores, channels):
        """Each problem's predictive probability of its class, shape (n, n_problems)."""
        variances = np.atleast_1d(self._variance)
        return np.column_stack(
            [
                np.asarray(channel.probability(scores[:, k], variances[k]))
                for k, channel in enumerate(channels)
            ]
        )

    def decision_function(self, X):
        """Mean stability ``<Delta> = sum_l x_l <c_l w_l> / sqrt(N)`` of ``y = classes_[1]``.

        With three or more classes, one column per class: the logarithm of
        :meth:`predict_proba`, whose largest is the predicted class.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            Positive values favour ``classes_[1]`` (two classes); in the float
            dtype of ``X``.
        """
        Xp, dtype = self._transform(X)
        scores = self._scores(Xp)
        if scores.shape[1] > 1:
            return log_of(self._proba(scores, dtype))
        return decision_output(scores).astype(dtype, copy=False)

    def _proba(self, scores, dtype):
        """The class probabilities from the problems' stabilities, in ``dtype``."""
        return proba_output(self._probabilities(scores, self._channels)).astype(dtype, copy=False)

    def predict_proba(self, X):
        """Predictive probabilities ``int Du f(sqrt(C - Q) u + <Delta>)`` (eqs. 6, 37).

        With three or more classes, each problem's probability of its class
        divided by their sum over the classes.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns ordered as ``classes_``; in the float dtype of ``X``.
        """
        Xp, dtype = self._transform(X)
        return self._proba(self._scores(Xp), dtype)

    def predict_noise_free_proba(self, X):
        """Posterior probability of each class before the label noise.

        :meth:`predict_proba` is ``kappa + (1 - 2 kappa) p``: with
        probability ``kappa`` the model flips the label, so it never leaves
        ``[kappa, 1 - kappa]``. This is ``p`` itself, the posterior
        probability that the noise-free output ``Phi(u / width)`` of the
        perceptron (``Theta(u)`` for ``activation="step"``, where ``p =
        Phi(<Delta> / sqrt(C - Q))``) gives ``classes_[1]``, averaged over the
        posterior of the weights. Both are probabilities of the same fitted
        posterior; this one answers "which side of the teacher's boundary",
        :meth:`predict_proba` "which label will be observed". Both give the
        same prediction with two classes; with three or more each problem's
        ``p`` is divided by their sum over the classes.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns ordered as ``classes_``; in the float dtype of ``X``.

        Raises
        ------
        TypeError
            If ``activation`` is an object without a ``kappa`` attribute (its
            noise level is then unknown).
        """
        check_is_fitted(self)
        clean = []
        for activation in self._channels:
            if isinstance(activation, SmoothedStepActivation):
                # the same channel at kappa = 0, without the cancellation of (p - kappa)
                clean.append(SmoothedStepActivation(0.0, activation.width))
            elif getattr(activation, "kappa", None) is None:
                raise TypeError(
                    "predict_noise_free_proba needs the label-noise level: activation must "
                    "be 'step', 'probit' or an object with a kappa attribute; got "
                    f"{self.activation!r}"
                )
            else:
                clean.append(None)
        Xp, dtype = self._transform(X)
        scores = self._scores(Xp)
        variances = np.atleast_1d(self._variance)
        columns = []
        for k, (activation, channel) in enumerate(zip(self._channels, clean, strict=True)):
            if channel is not None:
                p1 = np.asarray(channel.probability(scores[:, k], variances[k]))
            else:
                kappa = activation.kappa
                p1 = np.asarray(activation.probability(scores[:, k], variances[k]))
                p1 = np.clip((p1 - kappa) / (1.0 - 2.0 * kappa), 0.0, 1.0)  # round-off only
            columns.append(p1)
        return proba_output(np.column_stack(columns)).astype(dtype, copy=False)

    def predict(self, X):
        """Bayes prediction eq. (37): the class of larger predictive probability.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        Xp, dtype = self._transform(X)
        scores = self._scores(Xp)
        if scores.shape[1] == 1:
            p1 = self._probabilities(scores, self._channels)[:, 0]
            return self.classes_[(p1 > 0.5).astype(int)]
        # the largest of what predict_proba returns, in its dtype
        return self.classes_[np.argmax(self._proba(scores, dtype), axis=1)]


class SparseBayesClassifier(_SparseBayesPrediction):
    """Sparse Bayesian perceptron by O(NM) message passing (Uda & Kabashima).

    The model is ``P(y | x, w, c) = f(y sum_l c_l w_l x_l / sqrt(N))`` (eq. 3)
    with pruning variables ``c_l in {0, 1}`` of which a fraction ``C`` is
    active, and ``f(u) = kappa + (1 - 2 kappa) Theta(u)`` (eq. 17) by
    default. The posterior is approximated by belief propagation in its
    O(NM)-per-update form, eqs. (40)–(41), with the canonical prior eq. (19)
    whose two hyperparameters are tuned at each update so that ``<sum c_l> =
    NC`` and ``<sum c_l w_l^2> = NC`` (eqs. 34–35). Prediction is the Bayes
    rule eq. (37): the label whose predictive probability
    ``int Du f(sqrt(C - Q) u + <Delta>)`` exceeds 1/2.

    ``predict_proba`` is that predictive probability of the *observed*
    label, which the label noise keeps inside ``[kappa, 1 - kappa]``;
    ``predict_noise_free_proba`` is the same posterior's probability for the
    label before the noise, ``int Du Phi((sqrt(C - Q) u + <Delta>) / width)``
    (a step for ``activation="step"``), which spans ``(0, 1)``.

    Three or more classes are fitted one against the rest on inputs
    preprocessed once: problem ``k`` is the two-class fit of ``classes_[k]``
    (``y = +1``) against all other classes. ``predict_proba`` divides each
    problem's predictive probability of its class by their sum (as
    :class:`~sklearn.multiclass.OneVsRestClassifier` does), the prediction is
    the class of the largest, and ``decision_function`` gives their logarithms
    (the stabilities ``<Delta>`` of different problems have different
    predictive variances ``C - Q``, so their largest is not the most probable
    class).

    With sample weights ``w_mu`` the posterior is the prior times every
    example's likelihood factor raised to its weight, ``f(y_mu Delta_mu)^w_mu``
    (an integer weight is the example repeated). The message passing treats a
    weight as that many factors of their own with the same messages: example
    ``mu``'s output messages ``a_mu`` and ``b_mu`` enter the fields ``theta =
    F^T (w a)`` and ``Gamma = sum w b / N`` times ``w_mu``, which for integer
    weights is the O(NM) iteration on the data with the rows repeated, exactly.
    It is not the belief propagation of one factor ``f^w`` (whose channel
    ``ln int Du f(sqrt(V) u + omega)^w`` would couple the copies through their
    shared Gaussian field); for non-integer weights it interpolates the
    messages, and the preprocessing (the mean, the principal directions) and
    the leave-one-out estimates are weighted the same way.

    Parameters
    ----------
    C : float, default=0.1
        Fraction of input components the classifier keeps, in ``(0, 1]``.
    kappa : float, default=0.1
        Label-noise level of the activation, in ``[0, 1/2)``; used by the
        named activations.
    activation : {"step", "probit"} or object, default="step"
        ``"step"``: ``kappa + (1 - 2 kappa) Theta(u)`` (eq. 17);
        ``"probit"``: ``kappa + (1 - 2 kappa) Phi(u)``. Any object with
        ``log_partition(h, V)`` (``ln Z`` and its first two ``h``-derivatives)
        and ``probability(h, V)`` can be plugged in (see
        :class:`~statmechlearn.theory.sparse_bayes.SmoothedStepActivation`).
    preprocessing : {"sphere", "whiten"} or None, default="sphere"
        ``"sphere"`` (§5): subtract the training mean and scale every row to
        norm ``sqrt(N)``, so the data resemble the spherical inputs the
        algorithm is derived for. ``"whiten"`` (§5): project the centred data
        on its ``r <= M - 1`` principal directions, scale them to unit
        training variance, then scale rows to norm ``sqrt(r)``; the
        coefficients then refer to those directions, not to the inputs.
        ``None``: use ``X`` as given.
    damping : "auto" or float, default="auto"
        Weight of the previous messages in each update. Damping changes the
        path, not the fixed point. ``"auto"``: adaptive damping (changed from
        0.8): the first update is the paper's undamped one; after it the step
        ``beta`` (damping ``1 - beta``) is halved when the residual
        ``<c w>(h) - m`` grows and flips direction (oscillation) and otherwise
        grows by ``exp(0.15 cos)``, ``cos`` being the cosine between
        successive residuals (creep), within ``[0.01, 1]``; the messages
        ``a``, the Onsager coefficient and the ``m`` of the Onsager term are
        damped together (the GAMP form of Rangan et al., 2019). It converges
        where fixed damping needs tuning: undamped (``0``, the paper's) it
        takes tens of updates on teacher–student data but oscillates on real
        data; with 0.8, 16 of the paper's 36 grid points stay unconverged in
        500 updates on teacher data (N = M = 1000, C_t = 0.2), against 7 (all
        at ``C <= 0.01``) with ``"auto"`` in under a fifth of the updates. A float
        in ``[0, 1)`` runs that fixed damping of ``m``
        and ``a`` (:func:`~statmechlearn.linear.sparse_bayes_amp`), as before.
    max_iter : int, default=500
        Maximum number of message-passing updates.
    tol : float, default=1e-6
        Convergence when the largest change of ``<c_l w_l>`` is below ``tol``
        times their RMS: with ``damping="auto"`` the change of the undamped
        update (the fixed-point residual, whatever the step), with a float the
        damped change.
    verbose : int, default=0
        At 1 or more, print the residual (and the step) of every update and
        the convergence, once the (compiled) iteration returns.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels; with two, ``classes_[1]`` is ``y = +1`` of the model.
    coef_ : ndarray of shape (n_dims,) or (n_classes, n_dims)
        The coefficients at the MAP of the pruning variables: ``<c_l w_l>``
        where ``relevance_ > 1/2`` (``c_l = 1`` is the more probable), exactly
        0 for the pruned components. Acting on preprocessed inputs; in the
        float dtype of ``X``. With three or more classes row ``k`` is the
        problem ``classes_[k]`` against the rest, and every attribute below
        gets the same leading class axis.
    coef_posterior_mean_ : ndarray of shape (n_dims,) or (n_classes, n_dims)
        Posterior means ``<c_l w_l>`` (eq. 36) of every component: what the
        Bayes prediction eq. (37) and ``decision_function`` use.
    relevance_ : ndarray of shape (n_dims,)
        Posterior probabilities ``<c_l>`` that component ``l`` is kept.
    loo_error_ : float
        Leave-one-out error eq. (56), from the cavity stabilities (weighted
        by the sample weights).
    loo_log_loss_ : float
        Mean negative log predictive probability of each training label with
        that example left out (the continuous companion of ``loo_error_``).
    cavity_stability_ : ndarray of shape (n_samples,)
        ``<Delta_mu>_mu``, each training example's stability in the posterior
        that leaves it out.
    self_overlap_ : float
        ``Q = sum_l <c_l w_l>^2 / N``; the predictive variance is ``C - Q``.
    precision_, log_odds_ : float
        The tuned prior's ``F + Qhat`` and ``lambda`` at the last update.
    n_iter_ : int
        Updates performed.
    converged_ : bool
        Whether the tolerance was met.
    n_features_in_ : int
        Number of input features.

    Notes
    -----
    The algorithm assumes self-averaging inputs (independent, roughly
    isotropic components); keep ``preprocessing="sphere"`` (or whiten) on real
    data. It costs two matrix–vector products with the data per update.

    References
    ----------
    S. Uda and Y. Kabashima, "Statistical mechanical development of a sparse
    Bayesian classifier", J. Phys. Soc. Jpn. 74, 2233 (2005).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from statmechlearn.linear import SparseBayesClassifier
    >>> X, y = make_classification(80, 200, n_informative=5, random_state=0)
    >>> clf = SparseBayesClassifier(C=0.05, kappa=0.1).fit(X, y)
    >>> clf.relevance_.shape
    (200,)
    >>> bool(np.all((clf.coef_ != 0) == (clf.relevance_ > 0.5)))
    True
    >>> clf.predict(X[:3]).shape
    (3,)
    """

    _parameter_constraints: ClassVar[dict] = {
        "C": [Interval(Real, 0, 1, closed="right")],
        "kappa": [Interval(Real, 0, 0.5, closed="left")],
        "activation": [
            StrOptions({"step", "probit"}),
            HasMethods(["log_partition", "probability"]),
        ],
        "preprocessing": [StrOptions({"sphere", "whiten"}), None],
        "damping": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, np.inf, closed="neither")],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        C=0.1,
        kappa=0.1,
        *,
        activation="step",
        preprocessing="sphere",
        damping="auto",
        max_iter=500,
        tol=1e-6,
        verbose=0,
    ):
        self.C = C
        self.kappa = kappa
        self.activation = activation
        self.preprocessing = preprocessing
        self.damping = damping
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Run message passing on the training data.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)
            Training inputs; finite. Sparse input is converted to a dense
            array (the preprocessing centres and rescales every row); float32
            is kept.
        y : array_like of shape (n_samples,)
            At least two distinct labels.
        sample_weight : array_like of shape (n_samples,), optional
            Non-negative weights of the examples' likelihood factors (see the
            class's description); None weights every example 1.

        Returns
        -------
        self : SparseBayesClassifier
        """
        X, y, sample_weight = validate_fit_input(self, X, y, sample_weight, magnitude=False)
        dtype = X.dtype
        X = _dense64(X)
        sample_weight = weights_or_none(sample_weight)
        classes, targets = class_targets(self, y, sample_weight)
        self._preprocessor = _Preprocessor(self.preprocessing, X, sample_weight)
        Xp = self._preprocessor.transform(X)
        C, kappa, params = float(self.C), float(self.kappa), self._solver_params()
        n_problems = len(targets)
        channels = []

        def fit_binary(k, s):
            F = pattern_matrix(Xp, s)
            with blas_threads_for(F) if params["damping"] == "auto" else nullcontext():
                result = _run(F, C, kappa, params, sample_weight)
            channels.append(result[1])
            fitted = _binary_result(result, sample_weight)
            if self.verbose:
                _report(fitted, params["tol"])
            if not fitted["converged_"]:
                label = problem_name(classes, k, n_problems) if n_problems > 1 else None
                warn(_warning_text(fitted, C, result[1], params, label), ConvergenceWarning)
            return fitted

        results = fit_problems(self, classes, targets, fit_binary)
        self.classes_ = classes
        self._activation = channels[0]
        self._channels = channels
        for name, value in stack_fitted(results, concat=()).items():
            if name in ("coef_", "coef_posterior_mean_"):
                value = value.astype(dtype, copy=False)
            setattr(self, name, value)
        return self

    def _solver_params(self, patience=None):
        return {
            "activation": self.activation,
            "damping": self.damping,
            "max_iter": self.max_iter,
            "tol": self.tol,
            "patience": patience,
        }

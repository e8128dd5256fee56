"""Sparse Bayesian classifier with ``C`` and ``kappa`` chosen by leave-one-out error.

:class:`SparseBayesClassifierCV` fits :class:`~statmechlearn.linear.SparseBayesClassifier`
at every point of a ``(C, kappa)`` grid on inputs preprocessed once, and keeps the
point of least leave-one-out error: eq. (56) of Uda & Kabashima from the cavity
stabilities each fit computes anyway, or the error of refits on folds.
"""

from contextlib import nullcontext
from numbers import Integral
from typing import ClassVar

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import _fit_context
from sklearn.model_selection import LeaveOneOut, check_cv
from sklearn.utils._param_validation import StrOptions

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn._core.validation import check_real
from statmechlearn._core.warn import warn
from statmechlearn.linear._multiclass import (
    class_targets,
    fit_problems,
    problem_name,
    stack_fitted,
    validate_fit_input,
    weights_or_none,
)
from statmechlearn.linear._sparse_bayes import (
    _CV_PATIENCE,
    PAPER_C_GRID,
    PAPER_KAPPA_GRID,
    SparseBayesClassifier,
    _binary_result,
    _dense64,
    _Preprocessor,
    _run,
    _SparseBayesPrediction,
)
from statmechlearn.linear._sparse_bayes_adaptive import blas_threads_for, pattern_matrix

__all__ = ["SparseBayesClassifierCV"]

#: The attributes of the chosen fit that the CV estimator carries itself.
_CHOSEN = ("coef_", "coef_posterior_mean_", "relevance_", "_variance")


def _fit_point(F, C, kappa, params, weights):
    """The fitted attributes and the channel of one grid point on the pattern matrix ``F``."""
    result = _run(F, C, kappa, params, weights)
    return _binary_result(result, weights), result[1]


def _fit_fold(kind, X, targets, sample_weight, train, test, points, params):
    """Refit every grid point of every problem on ``train`` (the preprocessing too).

    The same fit as :meth:`SparseBayesClassifier.fit` without its input validation,
    which would otherwise cost more than the message passing at the colon data's size
    (42 x 61: about 3 ms of a 6 ms refit). Returns, per problem and grid point, the
    (weighted) number of wrong held-out predictions, their summed negative log
    predictive probability and whether the refit converged.
    """
    for s in targets:
        if np.unique(s[train]).size < 2:
            raise ValueError(
                "cv: a training fold holds examples of one class only; use fewer folds or a "
                "stratified splitter"
            )
    w_train = None if sample_weight is None else sample_weight[train]
    w_test = None if sample_weight is None else sample_weight[test]
    preprocessor = _Preprocessor(kind, X[train], w_train)
    Xp = preprocessor.transform(X[train])
    Xq = preprocessor.transform(X[test])
    problems = []
    for s in targets:
        F = pattern_matrix(Xp, s[train])
        rows = []
        with blas_threads_for(F) if params["damping"] == "auto" else nullcontext():
            for C, kappa in points:
                out, activation = _run(F, C, kappa, params, w_train)
                p1 = np.asarray(
                    activation.probability(Xq @ out["m"] / np.sqrt(Xq.shape[1]), out["variance"])
                )
                # the label predicted as SparseBayesClassifier.predict does: +1 where p1 > 1/2
                wrong = (p1 > 0.5) != (s[test] > 0)
                own = np.where(s[test] > 0, p1, 1.0 - p1)
                log_loss = -np.log(np.clip(own, 1e-300, None))
                if w_test is None:
                    wrong, log_loss = np.sum(wrong), np.sum(log_loss)
                else:
                    wrong, log_loss = w_test @ wrong, w_test @ log_loss
                rows.append((float(wrong), float(log_loss), bool(out["converged"])))
        problems.append(rows)
    return problems


class SparseBayesClassifierCV(_SparseBayesPrediction):
    """Sparse Bayesian classifier with ``C`` and ``kappa`` chosen by leave-one-out error.

    Fits :class:`SparseBayesClassifier` at every ``(C, kappa)`` of the grid on
    all the training data and keeps the one of least leave-one-out error.
    By default (``cv=None``) that is eq. (56) (Uda & Kabashima §5), read off
    the cavity stabilities: a by-product of each fit, so no refitting on
    subsets is needed. ``cv="loo"`` refits every grid point without each
    example in turn (exact leave-one-out; ``M`` refits per grid point), and
    any other ``cv`` refits on its folds. Ties, frequent with few examples,
    go to the smaller (cavity or held-out) log loss.

    The cavity estimate assumes many weakly correlated inputs of which many
    are kept (``N C >> 1``); with few examples, or inputs far from
    isotropic, it can be far from the exact leave-one-out error, and then
    it, not the classifier, picks the wrong ``C``. Measured on the colon
    data (42 training tissues, 200 random splits): whitened on all tissues
    (61 inputs, ``kappa = 0.4``) at ``C = 0.0025`` (``N C = 0.15``) eq. (56)
    gives 0.42 on average where refits give 0.18 (the test error is 0.18),
    so it passes over the ``C`` of least test error (test error 21.8 % with
    ``C`` by eq. (56), 18.5 % by refits); on the 2000 sphered genes at
    ``kappa = 0.1`` it was off by 0.03–0.16 on average (20 splits). On
    isotropic teacher data (``N = M = 150``, ``N C = 30``) it agreed with
    refits to 0.017 on average (at most 0.04). ``cv="loo"`` costs ``M``
    refits per grid point (there: 0.13 s for 9 points on 61 inputs, 12 s
    for the 36-point grid on 2000 genes, against 0.01 s and 0.33 s); there
    is no automatic switch, as the failures measured share no one quantity
    a rule could test.

    The inputs are preprocessed, and the pattern matrix built, once for the
    whole grid; every grid point starts from ``m = 0`` (warm starts from a
    neighbouring point saved 5–15 % of the updates on teacher and colon data
    and made one converging point stall, so they are not used).

    Three or more classes are searched one against the rest, as
    :class:`SparseBayesClassifier` fits them: every problem ``classes_[k]``
    against the rest chooses its own ``(C, kappa)`` (as
    :class:`~sklearn.linear_model.LogisticRegressionCV` chooses a ``C`` per
    class one against the rest), on inputs preprocessed once and, with
    ``cv``, on the same folds. Sample weights are those of
    :class:`SparseBayesClassifier`; the leave-one-out and held-out errors are
    weighted by them.

    Parameters
    ----------
    Cs : sequence of float, default=PAPER_C_GRID
        Candidate ``C`` in ``(0, 1]`` (the paper's nine values).
    kappas : sequence of float, default=PAPER_KAPPA_GRID
        Candidate ``kappa`` in ``[0, 1/2)`` (the paper's four values).
    activation : {"step", "probit"} or object, default="step"
        As in :class:`SparseBayesClassifier`.
    preprocessing : {"sphere", "whiten"} or None, default="sphere"
        As in :class:`SparseBayesClassifier`.
    damping : "auto" or float, default="auto"
        As in :class:`SparseBayesClassifier` (default changed from 0.8). With
        ``"auto"`` a grid fit also stops, unconverged, once its residual has
        not reached a new minimum for 50 updates (an unstable fixed point,
        typically at the smallest ``C``, where more updates do not help).
    max_iter : int, default=500
        As in :class:`SparseBayesClassifier`.
    tol : float, default=1e-6
        As in :class:`SparseBayesClassifier`.
    cv : None, "loo", int, cross-validation generator or iterable, default=None
        How the error of each grid point is estimated. ``None``: the
        leave-one-out error eq. (56) from the cavity stabilities of the fit on
        all the data (no refits). ``"loo"``: exact leave-one-out, a refit
        without each example in turn (:class:`~sklearn.model_selection.LeaveOneOut`).
        An int (stratified ``k``-fold), a splitter or an iterable of
        ``(train, test)`` index arrays: the held-out error of refits on its
        folds, pooled over all held-out predictions. Refits include the
        preprocessing, fitted on each training fold.
    n_jobs : int, optional
        Parallel fits over the grid (and folds) (joblib); the result does not
        depend on it.
    verbose : int, default=0
        At 1 or more, print every grid point's errors and updates and the
        point chosen.

    Attributes
    ----------
    best_estimator_ : SparseBayesClassifier or list of SparseBayesClassifier
        The fit at the chosen ``(C, kappa)``, fitted on the validated array
        (this estimator holds the feature names). With three or more
        classes, a list of one two-class fit per class, the ``k``-th of ``y ==
        classes_[k]`` (its ``classes_`` is ``[False, True]``).
    coef_, coef_posterior_mean_, relevance_ : ndarray of shape (n_dims,)
        Those of the chosen fit (see :class:`SparseBayesClassifier`):
        ``coef_`` is exactly 0 for the pruned components. With three or more
        classes, of shape ``(n_classes, n_dims)``.
    best_C_, best_kappa_ : float
        The chosen hyperparameters.
    best_index_ : int
        Their row in ``cv_results_``.
    n_iter_ : int
        Updates of the chosen fit. With three or more classes this and
        ``best_C_``, ``best_kappa_``, ``best_index_`` have one entry per class,
        and every entry of ``cv_results_`` but ``param_C`` and ``param_kappa``
        one row per class.
    cv_results_ : dict of ndarray
        ``param_C``, ``param_kappa``, ``loo_error``, ``loo_log_loss`` (eq. 56
        and its log loss, always), ``n_iter`` and ``converged`` (of the fit on
        all the data) per grid point (C varies slowest); with ``cv`` given
        also ``cv_error`` and ``cv_log_loss`` (mean held-out error and
        negative log predictive probability, which choose the point) and
        ``cv_converged`` (fraction of the refits that converged).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when ``X`` had string column names.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from statmechlearn.linear import SparseBayesClassifierCV
    >>> X, y = make_classification(80, 50, n_informative=5, random_state=0)
    >>> clf = SparseBayesClassifierCV(Cs=(0.05, 0.2), kappas=(0.1,)).fit(X, y)
    >>> clf.best_C_ in (0.05, 0.2), len(clf.cv_results_["loo_error"])
    (True, 2)
    >>> clf.predict(X[:3]).shape
    (3,)
    """

    _parameter_constraints: ClassVar[dict] = {
        **{
            k: v
            for k, v in SparseBayesClassifier._parameter_constraints.items()
            if k not in ("C", "kappa")
        },
        "Cs": ["array-like"],
        "kappas": ["array-like"],
        "cv": [StrOptions({"loo"}), "cv_object"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        Cs=PAPER_C_GRID,
        kappas=PAPER_KAPPA_GRID,
        *,
        activation="step",
        preprocessing="sphere",
        damping="auto",
        max_iter=500,
        tol=1e-6,
        cv=None,
        n_jobs=None,
        verbose=0,
    ):
        self.Cs = Cs
        self.kappas = kappas
        self.activation = activation
        self.preprocessing = preprocessing
        self.damping = damping
        self.max_iter = max_iter
        self.tol = tol
        self.cv = cv
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _grid(self):
        """Every value of the grids, checked: their ranges are not array constraints."""
        grid = []
        for name, values, lo, hi, inc_lo, inc_hi in (
            ("Cs", self.Cs, 0.0, 1.0, False, True),
            ("kappas", self.kappas, 0.0, 0.5, True, False),
        ):
            values = np.atleast_1d(np.asarray(values, dtype=object))
            if values.size == 0:
                raise ValueError(f"{name} must hold at least one value")
            grid.append(
                [
                    check_real(
                        v, name, minimum=lo, maximum=hi, include_min=inc_lo, include_max=inc_hi
                    )
                    for v in values
                ]
            )
        return [(C, k) for C in grid[0] for k in grid[1]]

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit every grid point and keep the one of least leave-one-out (or ``cv``) error.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)
            Sparse input is converted to a dense array; float32 is kept.
        y : array_like of shape (n_samples,)
        sample_weight : array_like of shape (n_samples,), optional
            Non-negative weights (see :class:`SparseBayesClassifier`).

        Returns
        -------
        self : SparseBayesClassifierCV
        """
        points = self._grid()
        X, y, sample_weight = validate_fit_input(self, X, y, sample_weight, magnitude=False)
        dtype = X.dtype
        X = _dense64(X)
        sample_weight = weights_or_none(sample_weight)
        classes, targets = class_targets(self, y, sample_weight)
        # the preprocessing does not depend on (C, kappa) nor on the class: once for all
        preprocessor = _Preprocessor(self.preprocessing, X, sample_weight)
        Xp = preprocessor.transform(X)
        # a grid point whose residual stops falling is an unstable fixed point: more
        # updates would not converge it, and it is reported unconverged either way
        params = {
            "activation": self.activation,
            "damping": self.damping,
            "max_iter": self.max_iter,
            "tol": self.tol,
            "patience": _CV_PATIENCE if self.damping == "auto" else None,
        }
        held_out = None
        if self.cv is not None:
            held_out = self._refit_errors(X, y, targets, sample_weight, points, params)
        n_problems = len(targets)

        def fit_binary(k, s):
            label = problem_name(classes, k, n_problems) if n_problems > 1 else None
            errors = None if held_out is None else held_out[k]
            return self._search(Xp, s, sample_weight, points, params, errors, label)

        results = fit_problems(self, classes, targets, fit_binary)
        self.classes_ = classes
        self._preprocessor = preprocessor
        self._channels = [r.pop("_channel") for r in results]
        chosen = [r.pop("_chosen") for r in results]
        tables = [r.pop("cv_results_") for r in results]
        self.cv_results_ = tables[0]
        if n_problems > 1:
            self.cv_results_ = {
                key: value if key.startswith("param_") else np.stack([t[key] for t in tables])
                for key, value in tables[0].items()
            }
        for name, value in stack_fitted(results, concat=()).items():
            if name in ("coef_", "coef_posterior_mean_"):
                value = value.astype(dtype, copy=False)
            setattr(self, name, value)
        best = [
            self._estimator(fitted, channel, C, kappa, dtype, classes if n_problems == 1 else None)
            for (fitted, (C, kappa)), channel in zip(chosen, self._channels, strict=True)
        ]
        self.best_estimator_ = best[0] if n_problems == 1 else best
        return self

    def _search(self, Xp, s, sample_weight, points, params, held_out, label):
        """The grid of one problem (``s = +-1``): its table, chosen point and that fit."""
        F = pattern_matrix(Xp, s)
        with blas_threads_for(F) if self.damping == "auto" else nullcontext():
            fits = Parallel(n_jobs=self.n_jobs)(
                delayed(_fit_point)(F, C, k, params, sample_weight) for C, k in points
            )
        loo = np.array([fitted["loo_error_"] for fitted, _ in fits])
        loss = np.array([fitted["loo_log_loss_"] for fitted, _ in fits])
        table = {
            "param_C": np.array([p[0] for p in points]),
            "param_kappa": np.array([p[1] for p in points]),
            "loo_error": loo,
            "loo_log_loss": loss,
            "n_iter": np.array([fitted["n_iter_"] for fitted, _ in fits]),
            "converged": np.array([fitted["converged_"] for fitted, _ in fits]),
        }
        if held_out is not None:
            loo, loss, converged = held_out
            table["cv_error"], table["cv_log_loss"], table["cv_converged"] = loo, loss, converged
        index = int(np.lexsort((loss, loo))[0])
        fitted, channel = fits[index]
        if self.verbose:
            for i, ((C, kappa), (f, _)) in enumerate(zip(points, fits, strict=True)):
                extra = f", cv error {table['cv_error'][i]:.4g}" if held_out is not None else ""
                state = "converged" if f["converged_"] else "not converged"
                print(
                    f"C={C:g}, kappa={kappa:g}: LOO error {f['loo_error_']:.4g}, log loss "
                    f"{f['loo_log_loss_']:.4g}{extra}; {f['n_iter_']} updates, {state}."
                )
            print(f"Chose C={points[index][0]:g}, kappa={points[index][1]:g}.")
        if not table["converged"][index]:
            where = f" ({label})" if label else ""
            warn(
                f"SparseBayesClassifierCV: the chosen fit (C={points[index][0]:g}, "
                f"kappa={points[index][1]:g}) did not converge; its LOO error may be "
                f"unreliable{where}",
                ConvergenceWarning,
            )
        out = {name: fitted[name] for name in _CHOSEN}
        out.update(
            best_index_=index,
            best_C_=points[index][0],
            best_kappa_=points[index][1],
            n_iter_=fitted["n_iter_"],
            cv_results_=table,
            _channel=channel,
            _chosen=(fitted, points[index]),
        )
        return out

    def _estimator(self, fitted, channel, C, kappa, dtype, classes):
        """The chosen fit as a :class:`SparseBayesClassifier` (fitted on the validated array)."""
        est = SparseBayesClassifier(
            C=C,
            kappa=kappa,
            activation=self.activation,
            preprocessing=self.preprocessing,
            damping=self.damping,
            max_iter=self.max_iter,
            tol=self.tol,
        )
        est.classes_ = np.array([False, True]) if classes is None else classes
        est._preprocessor = self._preprocessor
        est.n_features_in_ = self.n_features_in_
        for name, value in fitted.items():
            if name in ("coef_", "coef_posterior_mean_"):
                value = value.astype(dtype, copy=False)
            setattr(est, name, value)
        est._activation = channel
        est._channels = [channel]
        return est

    def _refit_errors(self, X, y, targets, sample_weight, points, params):
        """Held-out error, log loss and converged fraction per problem and grid point."""
        cv = LeaveOneOut() if isinstance(self.cv, str) else self.cv
        folds = list(check_cv(cv, y, classifier=True).split(X, y))
        parts = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_fold)(
                self.preprocessing, X, targets, sample_weight, train, test, points, params
            )
            for train, test in folds
        )
        parts = np.array(parts, dtype=float)  # (fold, problem, grid point, 3)
        if sample_weight is None:
            held_out = sum(len(test) for _, test in folds)
        else:
            held_out = sum(float(sample_weight[test].sum()) for _, test in folds)
        error = parts[:, :, :, 0].sum(axis=0) / held_out
        loss = parts[:, :, :, 1].sum(axis=0) / held_out
        converged = parts[:, :, :, 2].mean(axis=0)
        return [(error[k], loss[k], converged[k]) for k in range(len(targets))]

"""Three or more classes, one against the rest inside every linear classifier.

Each problem ``classes_[k]`` against the rest is the two-class fit unchanged, so
:class:`~sklearn.multiclass.OneVsRestClassifier` around the two-class estimator is an
independent reference: the same per-class probabilities (normalised the same way)
and, for the linear rules, the same decision values.
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning
from sklearn.multiclass import OneVsRestClassifier
from sklearn.preprocessing import StandardScaler

from statmechlearn.linear import (
    HebbClassifier,
    OutlierRobustClassifier,
    RVMClassifier,
    SparseBayesClassifier,
    SparseBayesClassifierCV,
)

ESTIMATORS = {
    "hebb": HebbClassifier(),
    "soft": OutlierRobustClassifier(),
    "hard": OutlierRobustClassifier("hard"),
    "rvm": RVMClassifier(),
    "sbc": SparseBayesClassifier(),
    "sbc-cv": SparseBayesClassifierCV(Cs=(0.05, 0.2, 0.6), kappas=(0.1, 0.3)),
}
#: whose decision values are the projections of each problem (the others give the
#: logarithm of their probabilities: each problem's own mixture or predictive variance
#: puts the projections on different scales)
LINEAR = ("hebb", "rvm")


def _data(name):
    X, y = (load_iris if name == "iris" else load_wine)(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _fit(est, X, y):
    with warnings.catch_warnings():
        # small grids and real data: some one-against-the-rest fits stop unconverged
        warnings.simplefilter("ignore", SklearnConvergenceWarning)
        return est.fit(X, y)


@pytest.mark.parametrize("data", ["iris", "wine"])
@pytest.mark.parametrize("key", list(ESTIMATORS))
def test_one_against_the_rest_is_the_wrapped_binary_fit(key, data):
    X, y = _data(data)
    est = _fit(clone(ESTIMATORS[key]), X, y)
    ovr = _fit(OneVsRestClassifier(clone(ESTIMATORS[key])), X, y)
    K = 3
    P, P_ovr = est.predict_proba(X), ovr.predict_proba(X)
    np.testing.assert_allclose(P, P_ovr, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    decision = est.decision_function(X)
    assert decision.shape == (len(X), K) and P.shape == (len(X), K)
    if key in LINEAR:
        np.testing.assert_allclose(decision, ovr.decision_function(X), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(est.predict(X), ovr.predict(X))
    else:
        np.testing.assert_allclose(decision, np.log(P), rtol=1e-12)
    # the prediction is the largest decision value and the largest probability
    np.testing.assert_array_equal(est.predict(X), est.classes_[decision.argmax(axis=1)])
    np.testing.assert_array_equal(est.predict(X), est.classes_[P.argmax(axis=1)])
    # as accurate as the wrapped fits (more, where the probabilities pick the class)
    assert est.score(X, y) >= ovr.score(X, y) - 0.03


@pytest.mark.parametrize("key", list(ESTIMATORS))
def test_each_row_is_the_binary_fit_of_its_class(key):
    X, y = _data("wine")
    est = _fit(clone(ESTIMATORS[key]), X, y)
    for k, c in enumerate(est.classes_):
        binary = _fit(clone(ESTIMATORS[key]), X, (y == c).astype(int))
        coef = np.atleast_2d(binary.coef_)[0]
        np.testing.assert_array_equal(np.atleast_2d(est.coef_)[k], coef)
        if hasattr(binary, "n_iter_"):
            np.testing.assert_array_equal(est.n_iter_[k], binary.n_iter_)
        if hasattr(binary, "intercept_"):
            np.testing.assert_array_equal(est.intercept_[k], binary.intercept_[0])
        if key in ("sbc", "sbc-cv"):
            np.testing.assert_array_equal(est.relevance_[k], binary.relevance_)
        if key == "sbc-cv":
            assert est.best_C_[k] == binary.best_C_
            assert est.best_estimator_[k].C == binary.best_C_


@pytest.mark.parametrize("key", list(ESTIMATORS))
def test_shapes_with_two_and_three_classes(key):
    X, y = _data("iris")
    n, p = X.shape
    three = _fit(clone(ESTIMATORS[key]), X, y)
    two = _fit(clone(ESTIMATORS[key]), X, (y > 0).astype(int))
    assert two.decision_function(X).shape == (n,)
    assert two.predict_proba(X).shape == (n, 2)
    if key in ("sbc", "sbc-cv"):
        # the two-class coefficients stay a vector; with three, one row per class
        assert two.coef_.shape == two.relevance_.shape == (p,)
        assert three.coef_.shape == three.coef_posterior_mean_.shape == (3, p)
        assert three.relevance_.shape == (3, p)
    else:
        assert two.coef_.shape == (1, p) and two.intercept_.shape == (1,)
        assert three.coef_.shape == (3, p) and three.intercept_.shape == (3,)
    if key != "hebb":  # the rule is a sum, not an iteration
        assert np.shape(three.n_iter_) == (3,) and np.ndim(two.n_iter_) == 0
    if key in ("soft", "hard"):
        assert three.J_.shape == (3, p) and three.informative_proba_.shape == (3, n)
        assert three.gamma_.shape == three.eta_.shape == (3,)
    if key == "hard":
        assert three.energy_.shape == (3,)
    if key == "rvm":
        assert three.alpha_.shape == (3, p) and three.converged_.shape == (3,)
        # retained sets differ in size between classes: one array per class
        assert len(three.relevance_) == 3 and len(three.sigma_) == 3
    if key == "sbc":
        assert three.loo_error_.shape == (3,) and three.cavity_stability_.shape == (3, n)
    if key == "sbc-cv":
        assert len(three.best_estimator_) == 3
        assert three.cv_results_["loo_error"].shape == (3, 6)
        assert three.cv_results_["param_C"].shape == (6,)


@pytest.mark.parametrize("key", list(ESTIMATORS))
def test_string_labels_and_one_class(key):
    X, y = _data("iris")
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    est = _fit(clone(ESTIMATORS[key]), X, names)
    np.testing.assert_array_equal(est.classes_, ["setosa", "versicolor", "virginica"])
    assert set(est.predict(X)) <= set(names)
    with pytest.raises(ValueError, match="at least 2 classes in y; y has 1 class"):
        clone(ESTIMATORS[key]).fit(X, np.zeros(len(X)))


@pytest.mark.parametrize("key", ["soft", "sbc"])
def test_probability_rules_beat_the_largest_projection_on_wine(key):
    """Each problem has its own mixture (gamma, eta) or predictive variance: the class
    of largest probability is the better multiclass rule than the largest projection."""
    X, y = _data("wine")
    est = _fit(clone(ESTIMATORS[key]), X, y)
    ovr = _fit(OneVsRestClassifier(clone(ESTIMATORS[key])), X, y)
    # OneVsRestClassifier predicts by the largest two-class decision value
    assert est.score(X, y) >= ovr.score(X, y)

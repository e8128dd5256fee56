"""The inputs a scikit-learn user hands the linear classifiers.

Sample weights (an integer weight is the row repeated), sparse matrices (the dense
fit), float32 (kept), ``verbose``, the feature names of the cross-validated sparse
Bayesian classifier and the sparse ``coef_`` of the sparse Bayesian classifier.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning
from sklearn.preprocessing import StandardScaler

from statmechlearn.linear import (
    HebbClassifier,
    OutlierRobustClassifier,
    RVMClassifier,
    SparseBayesClassifier,
    SparseBayesClassifierCV,
)
from statmechlearn.linear._selection_kernels import stable_argsort
from statmechlearn.models import SparsePerceptron

ESTIMATORS = {
    "hebb": HebbClassifier(),
    "soft": OutlierRobustClassifier(tol=1e-13, max_iter=5000),
    "hard": OutlierRobustClassifier("hard"),
    "rvm": RVMClassifier(tol=1e-6),
    "sbc": SparseBayesClassifier(C=0.2, tol=1e-10),
    "sbc-cv": SparseBayesClassifierCV(Cs=(0.1, 0.3), kappas=(0.1,), tol=1e-10),
}


@pytest.fixture
def rng():
    return np.random.default_rng(20240517)


def _fit(est, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SklearnConvergenceWarning)
        return est.fit(*args, **kwargs)


def _iris(classes=3):
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    return X, (y if classes == 3 else (y > 0).astype(int))


def _teacher(seed=0, n_samples=120, n_features=60):
    """Teacher-student data, where the message passing converges fast and far from tol."""
    rng = np.random.default_rng(seed)
    teacher = SparsePerceptron(n_features, 0.2, 0.05, random_state=rng)
    return teacher.sample(n_samples, rng)


def _data(key, classes):
    """Standardised iris; teacher data for the message passing, which converges there."""
    if not key.startswith("sbc"):
        return _iris(classes)
    X, y = _teacher()
    if classes == 3:
        y = np.where(X[:, 0] > 0.5, 2, (y > 0).astype(int))
    return X, y


def _coef(est):
    name = "coef_posterior_mean_" if hasattr(est, "coef_posterior_mean_") else "coef_"
    return np.asarray(getattr(est, name))


# ---------------------------------------------------------------- sample weights


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("key", list(ESTIMATORS))
def test_integer_weights_are_the_rows_repeated(key, classes, rng):
    X, y = _data(key, classes)
    counts = rng.integers(0, 4, size=len(y))
    counts[[0, -1]] = 1  # every class keeps examples
    weighted = _fit(clone(ESTIMATORS[key]), X, y, sample_weight=counts.astype(float))
    repeated = _fit(clone(ESTIMATORS[key]), np.repeat(X, counts, axis=0), np.repeat(y, counts))
    np.testing.assert_array_equal(weighted.classes_, repeated.classes_)
    # deterministic fits of the same objective: equal to the iterations' tolerances
    rtol = {"hebb": 1e-12, "soft": 1e-9, "hard": 1e-12, "rvm": 1e-6}.get(key, 1e-7)
    np.testing.assert_allclose(_coef(weighted), _coef(repeated), rtol=rtol, atol=rtol * 1e-2)
    P_w, P_r = weighted.predict_proba(X), repeated.predict_proba(X)
    np.testing.assert_allclose(P_w, P_r, rtol=max(rtol, 1e-12), atol=max(rtol, 1e-12))


@pytest.mark.parametrize("key", list(ESTIMATORS))
def test_zero_weight_drops_the_row_and_unit_weights_change_nothing(key):
    X, y = _teacher() if key.startswith("sbc") else _iris(2)
    keep = np.arange(len(y)) % 5 != 0
    weights = keep.astype(float)
    dropped = _fit(clone(ESTIMATORS[key]), X, y, sample_weight=weights)
    subset = _fit(clone(ESTIMATORS[key]), X[keep], y[keep])
    np.testing.assert_allclose(_coef(dropped), _coef(subset), rtol=1e-6, atol=1e-9)
    plain = _fit(clone(ESTIMATORS[key]), X, y)
    ones = _fit(clone(ESTIMATORS[key]), X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_array_equal(_coef(plain), _coef(ones))


def test_a_weighted_class_that_is_all_zero_is_dropped(rng):
    X, y = _iris(3)
    weights = (y != 1).astype(float)
    est = HebbClassifier().fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(est.classes_, [0, 2])
    with pytest.raises(ValueError, match="1 class of nonzero sample_weight"):
        HebbClassifier().fit(X, y, sample_weight=(y == 1).astype(float))


def test_hard_selection_takes_integer_weights_only():
    X, y = _iris(2)
    with pytest.raises(ValueError, match="sample_weight must hold integers"):
        OutlierRobustClassifier("hard").fit(X, y, sample_weight=np.full(len(y), 0.5))


def test_weighted_soft_em_is_the_weighted_fixed_point(rng):
    """At convergence J = sqrt(N) sum w <V> S xi / (sum w <V> + N / gamma), <V> the E-step."""
    X, y = _iris(2)
    w = rng.uniform(0.1, 3.0, size=len(y))
    est = OutlierRobustClassifier(gamma=2.0, eta=0.5, tol=1e-14, max_iter=10_000).fit(
        X, y, sample_weight=w
    )
    S = np.where(y == 1, 1.0, -1.0)
    centre = w @ X / w.sum()
    Xc = X - centre
    N = X.shape[1]
    J = est.J_
    f = -2.0 * S * (Xc @ J) / np.sqrt(N) + 2.0 * (J @ J) / N / 2.0 + 0.5
    V = 1.0 / (1.0 + np.exp(f))
    np.testing.assert_allclose(est.informative_proba_, V, rtol=1e-10)
    expected = np.sqrt(N) * ((w * V * S) @ Xc) / ((w * V).sum() + N / 2.0)
    np.testing.assert_allclose(J, expected, rtol=1e-10)


# ------------------------------------------------------------------------ sparse


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("key", list(ESTIMATORS))
def test_sparse_input_gives_the_dense_fit(key, fmt, rng):
    X = rng.standard_normal((90, 12)) * (rng.random((90, 12)) < 0.3)
    X[:, 3] += 2.0  # a column of large mean: the sparse centring is implicit
    y = (X[:, 0] + X[:, 1] - X[:, 2] + 0.3 * rng.standard_normal(90) > 0).astype(int)
    y[X[:, 4] > 0.5] = 2
    w = rng.integers(1, 3, size=90).astype(float)
    for weights in (None, w):
        dense = _fit(clone(ESTIMATORS[key]), X, y, sample_weight=weights)
        Xs = sp.csr_matrix(X).asformat(fmt)
        sparse = _fit(clone(ESTIMATORS[key]), Xs, y, sample_weight=weights)
        np.testing.assert_allclose(_coef(sparse), _coef(dense), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(
            sparse.decision_function(Xs), dense.decision_function(X), rtol=1e-10, atol=1e-12
        )
        np.testing.assert_array_equal(sparse.predict(Xs), dense.predict(X))


def test_rvm_on_sparse_input_reads_only_retained_columns(rng):
    """A wide sparse table is fitted without densifying it."""
    X = sp.random(200, 20_000, density=0.001, format="csr", random_state=0)
    y = (X[:, :5].sum(axis=1).A1 > 0).astype(int)
    y[:3] = 1 - y[:3]
    est = _fit(RVMClassifier(), X, y)
    assert est.coef_.shape == (1, 20_000)
    assert np.count_nonzero(est.coef_) == len(est.relevance_) < 200


# ----------------------------------------------------------------------- float32


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("key", list(ESTIMATORS))
def test_float32_is_kept_and_close_to_the_float64_fit(key, classes):
    X, y = _data(key, classes)
    est32 = _fit(clone(ESTIMATORS[key]), X.astype(np.float32), y)
    est64 = _fit(clone(ESTIMATORS[key]), X, y)
    for name in ("coef_", "intercept_", "coef_posterior_mean_", "J_"):
        if hasattr(est64, name):
            value = getattr(est32, name)
            assert value.dtype == np.float32, name
            np.testing.assert_allclose(value, getattr(est64, name), rtol=1e-4, atol=1e-5)
    X32 = X.astype(np.float32)
    for method in ("decision_function", "predict_proba"):
        out = getattr(est32, method)(X32)
        assert out.dtype == np.float32, method
        np.testing.assert_allclose(out, getattr(est64, method)(X), rtol=1e-4, atol=1e-5)
    assert np.mean(est32.predict(X32) == est64.predict(X)) > 0.98
    # float32 fits predict float64 input, and in its dtype
    assert est32.decision_function(X).dtype == np.float64


# ----------------------------------------------------------------------- verbose


@pytest.mark.parametrize(
    ("key", "lines"),
    [
        ("soft", ["Iteration 1, relative change of J", "Converged at iteration"]),
        ("hard", ["Iteration 1, relative change of J", "Hard selection: descended from"]),
        ("rvm", ["Iteration 1: added feature", "Converged at iteration"]),
        ("sbc", ["Iteration 1, residual", "Converged at iteration"]),
        ("sbc-cv", ["C=0.1, kappa=0.1: LOO error", "Chose C="]),
    ],
)
def test_verbose_prints_the_iterations(key, lines, capsys):
    X, y = _iris(2)
    _fit(clone(ESTIMATORS[key]), X, y)
    assert capsys.readouterr().out == ""
    _fit(clone(ESTIMATORS[key]).set_params(verbose=1), X, y)
    out = capsys.readouterr().out
    for line in lines:
        assert line in out
    # three classes: each problem is announced
    _fit(clone(ESTIMATORS[key]).set_params(verbose=1), *_iris(3))
    assert "class 2 against the rest" in capsys.readouterr().out


# ------------------------------------------------- feature names of the CV estimator


def test_cv_keeps_the_feature_names_through_its_refit():
    pd = pytest.importorskip("pandas")
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target
    cv = _fit(SparseBayesClassifierCV(Cs=(0.05, 0.2), kappas=(0.1, 0.3)), X, y)
    np.testing.assert_array_equal(cv.feature_names_in_, X.columns)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "fitted without feature names" warning
        predicted = cv.predict(X)
    np.testing.assert_array_equal(predicted, cv.best_estimator_.predict(X.to_numpy()))
    reordered = X[X.columns[::-1]]
    assert isinstance(reordered, pd.DataFrame)
    for method in ("predict", "predict_proba", "decision_function", "predict_noise_free_proba"):
        with pytest.raises(ValueError, match="feature names"):
            getattr(cv, method)(reordered)


def test_cv_carries_the_coefficients_of_its_chosen_fit():
    X, y = load_breast_cancer(return_X_y=True)
    cv = _fit(SparseBayesClassifierCV(Cs=(0.05, 0.2), kappas=(0.1, 0.3)), X, y)
    best = cv.best_estimator_
    for name in ("coef_", "coef_posterior_mean_", "relevance_"):
        np.testing.assert_array_equal(getattr(cv, name), getattr(best, name))
    assert best.C == cv.best_C_ and best.kappa == cv.best_kappa_
    np.testing.assert_array_equal(cv.predict_proba(X), best.predict_proba(X))


# ----------------------------------------------------------- the sparse coefficients


@pytest.mark.parametrize("C", [0.05, 0.2])
def test_coef_is_the_posterior_mean_of_the_components_kept(C):
    X, y = load_breast_cancer(return_X_y=True)
    est = _fit(SparseBayesClassifier(C=C), X, y)
    kept = est.relevance_ > 0.5
    np.testing.assert_array_equal(est.coef_[kept], est.coef_posterior_mean_[kept])
    assert np.all(est.coef_[~kept] == 0.0)
    assert 0 < np.count_nonzero(est.coef_) < X.shape[1]
    # the Bayes prediction eq. (37) averages over every component: the posterior mean
    Xp = est._preprocessor.transform(X)
    np.testing.assert_allclose(
        est.decision_function(X), Xp @ est.coef_posterior_mean_ / np.sqrt(X.shape[1]), rtol=1e-12
    )


# --------------------------------------------------------------- compiled sorting


@pytest.mark.parametrize("n", [0, 1, 2, 7, 64, 1000])
def test_compiled_stable_argsort_is_numpys(n, rng):
    keys = rng.integers(0, max(n // 3, 1), size=n).astype(float)  # many ties
    np.testing.assert_array_equal(stable_argsort(keys), np.argsort(keys, kind="stable"))
    keys = rng.standard_normal(n)
    np.testing.assert_array_equal(stable_argsort(keys), np.argsort(keys, kind="stable"))

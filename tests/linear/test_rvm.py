"""Relevance vector machine classifier with an ARD prior on the features (Tipping)."""

import warnings

import numpy as np
import pytest
from scipy.special import expit
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn.linear import RVMClassifier


# the defaults run in tests/conventions/test_sklearn_suite.py
@parametrize_with_checks([RVMClassifier(fit_intercept=False)])
def test_sklearn_contract(estimator, check):
    check(estimator)


def _teacher(seed, n=150, d=200, n_test=2000, k=5):
    rng = np.random.default_rng(seed)
    w0 = np.zeros(d)
    support = rng.choice(d, k, replace=False)
    w0[support] = rng.normal(size=k)
    X = rng.normal(size=(n + n_test, d))
    y = np.where(X @ w0 > 0, 1, -1)
    return X[:n], y[:n], X[n:], y[n:], w0


def _noisy(seed, n=60, d=4):
    """Logistic-teacher labels: not separable, so the precisions are moderate."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, d))
    y = np.where(rng.random(n) < expit(2.0 * Z[:, 0] - 1.5 * Z[:, 1] + 0.3), 1, 0)
    return Z * rng.uniform(0.5, 3.0, size=d) + rng.normal(size=d), y


# ------------------------------------------------------------------ learning


@pytest.mark.parametrize("seed", range(6))
def test_sparse_teacher_recovered(seed):
    X, y, X_test, y_test, w0 = _teacher(seed)
    clf = RVMClassifier().fit(X, y)
    assert clf.converged_
    assert 1 <= clf.relevance_.size <= 20
    # the retained features carry most of the teacher (a teacher weight far below
    # the others can be missed: over 100 seeds the smallest share is 0.93)
    assert np.sum(w0[clf.relevance_] ** 2) >= 0.85 * np.sum(w0**2)
    assert clf.score(X_test, y_test) > 0.85
    # pruned features: zero weight, infinite precision
    pruned = np.setdiff1d(np.arange(X.shape[1]), clf.relevance_)
    assert np.all(clf.coef_[0, pruned] == 0) and np.all(np.isinf(clf.alpha_[pruned]))
    assert np.all(np.isfinite(clf.alpha_[clf.relevance_]))
    assert clf.sigma_.shape == (clf.relevance_.size,) * 2
    assert np.all(np.linalg.eigvalsh(clf.sigma_) > 0)


def test_many_more_features_than_samples_is_fast_and_finite():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(62, 2000))
    y = rng.integers(0, 2, 62)
    y[:2] = [0, 1]
    clf = RVMClassifier().fit(X, y)  # separable: the prior must keep w finite
    assert np.all(np.isfinite(clf.coef_)) and np.isfinite(clf.intercept_[0])
    assert clf.relevance_.size < 62
    assert np.isfinite(clf.log_marginal_likelihood_)


# ------------------------------------------------------------------ evidence


def _newton_mode(Phi, t, prec):
    w = np.zeros(Phi.shape[1])
    for _ in range(200):
        y = expit(Phi @ w)
        H = Phi.T @ ((y * (1 - y))[:, None] * Phi) + np.diag(prec)
        step = np.linalg.solve(H, Phi.T @ (t - y) - prec * w)
        w = w + step
        if np.max(np.abs(step)) < 1e-13 * (1 + np.max(np.abs(w))):
            break
    return w


def _log_lik(Phi, t, w):
    f = Phi @ w
    return float(np.sum(t * -np.logaddexp(0, -f) + (1 - t) * -np.logaddexp(0, f)))


def _laplace_pieces(clf, X, y):
    """Basis (relevant features, then a column of ones) and 0/1 targets, in X's units."""
    Phi = np.column_stack([X[:, clf.relevance_], np.ones(len(X))])
    t = (y == clf.classes_[1]).astype(float)
    return Phi, t


def _laplace_evidence(Phi, t, alpha, w, curvature=None):
    """Laplace log evidence of the features' precisions ``alpha`` (flat intercept prior).

    ``log p(t | w) - w^T A w / 2 + log|A| / 2 + log(2 pi) / 2 - log|H| / 2`` at
    the mode ``w``, ``H = Phi^T B Phi + A`` (``B`` at ``w``, or ``curvature``).
    """
    prec = np.r_[alpha, 0.0]
    y = expit(Phi @ w)
    B = y * (1 - y) if curvature is None else curvature
    H = Phi.T @ (B[:, None] * Phi) + np.diag(prec)
    return (
        _log_lik(Phi, t, w)
        - 0.5 * float(prec @ w**2)
        + 0.5 * np.sum(np.log(alpha))
        + 0.5 * np.log(2 * np.pi)
        - 0.5 * np.linalg.slogdet(H)[1]
    )


@pytest.mark.parametrize("seed", range(4))
def test_reported_evidence_is_the_laplace_approximation(seed):
    X, y = _noisy(seed)
    clf = RVMClassifier(tol=1e-10, max_iter=2000).fit(X, y)
    assert clf.relevance_.size >= 1
    Phi, t = _laplace_pieces(clf, X, y)
    w = _newton_mode(Phi, t, np.r_[clf.alpha_[clf.relevance_], 0.0])
    np.testing.assert_allclose(w, np.r_[clf.coef_[0, clf.relevance_], clf.intercept_], rtol=1e-7)
    expected = _laplace_evidence(Phi, t, clf.alpha_[clf.relevance_], w)
    assert clf.log_marginal_likelihood_ == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert clf.scores_[-1] == clf.log_marginal_likelihood_
    # posterior covariance of the features' weights
    y1 = expit(Phi @ w)
    H = Phi.T @ ((y1 * (1 - y1))[:, None] * Phi) + np.diag(np.r_[clf.alpha_[clf.relevance_], 0])
    k = clf.relevance_.size
    np.testing.assert_allclose(clf.sigma_, np.linalg.inv(H)[:k, :k], rtol=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_fixed_point_is_stationary_for_the_laplace_evidence_at_frozen_curvature(seed):
    # Tipping's re-estimation (and Tipping & Faul's factors) maximise the Laplace
    # evidence with the likelihood replaced by its quadratic expansion at the mode,
    # i.e. with the curvature B held at the fitted mode: re-optimising w for that
    # expansion after perturbing one log alpha_i must not increase the evidence.
    X, y = _noisy(seed)
    clf = RVMClassifier(tol=1e-10, max_iter=2000).fit(X, y)
    Phi, t = _laplace_pieces(clf, X, y)
    alpha = clf.alpha_[clf.relevance_]
    w_star = np.r_[clf.coef_[0, clf.relevance_], clf.intercept_]
    y_star = expit(Phi @ w_star)
    B = y_star * (1 - y_star)
    g = Phi.T @ (t - y_star)
    H_lik = Phi.T @ (B[:, None] * Phi)
    ll_star = _log_lik(Phi, t, w_star)

    def frozen(alpha):
        prec = np.r_[alpha, 0.0]
        w = np.linalg.solve(H_lik + np.diag(prec), g + H_lik @ w_star)
        d = w - w_star
        quad = ll_star + g @ d - 0.5 * d @ H_lik @ d
        H = H_lik + np.diag(prec)
        return (
            quad
            - 0.5 * float(prec @ w**2)
            + 0.5 * np.sum(np.log(alpha))
            + 0.5 * np.log(2 * np.pi)
            - 0.5 * np.linalg.slogdet(H)[1]
        )

    base = frozen(alpha)
    assert base == pytest.approx(clf.log_marginal_likelihood_, rel=1e-9, abs=1e-9)
    for i in range(alpha.size):
        for step in (-1e-3, 1e-3):
            moved = alpha.copy()
            moved[i] *= np.exp(step)
            assert frozen(moved) <= base + 1e-12 * (1 + abs(base))


@pytest.mark.parametrize("seed", range(3))
def test_pruned_features_are_not_worth_adding(seed):
    # for every pruned feature q_i^2 <= s_i (Tipping & Faul's criterion), up to tol
    X, y = _noisy(seed, d=8)
    clf = RVMClassifier(tol=1e-10, max_iter=2000).fit(X, y)
    Phi, t = _laplace_pieces(clf, X, y)
    w = np.r_[clf.coef_[0, clf.relevance_], clf.intercept_]
    p = expit(Phi @ w)
    B = p * (1 - p)
    H = Phi.T @ (B[:, None] * Phi) + np.diag(np.r_[clf.alpha_[clf.relevance_], 0.0])
    Xc = X - X.mean(axis=0)
    for j in np.setdiff1d(np.arange(X.shape[1]), clf.relevance_):
        phi = Xc[:, j]
        z = Phi.T @ (B * phi)
        S = phi @ (B * phi) - z @ np.linalg.solve(H, z)
        Q = phi @ (t - p)
        gain = 0.5 * (Q**2 / S - 1 - np.log(Q**2 / S)) if Q**2 > S else 0.0
        assert gain < 1e-10


# ------------------------------------------------------------------ invariances


@pytest.mark.parametrize("seed", range(3))
def test_feature_permutation_invariance(seed):
    X, y, X_test, _, _ = _teacher(seed, n=80, d=60)
    perm = np.random.default_rng(seed + 100).permutation(X.shape[1])
    a = RVMClassifier().fit(X, y)
    b = RVMClassifier().fit(X[:, perm], y)
    np.testing.assert_allclose(b.coef_[0], a.coef_[0, perm], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(
        b.decision_function(X_test[:, perm]), a.decision_function(X_test), rtol=1e-8, atol=1e-10
    )
    np.testing.assert_array_equal(np.sort(perm[b.relevance_]), a.relevance_)


@pytest.mark.parametrize("seed", range(3))
def test_feature_scale_and_shift_invariance(seed):
    X, y, X_test, _, _ = _teacher(seed, n=80, d=60)
    rng = np.random.default_rng(seed + 100)
    scale = rng.uniform(0.01, 100, size=X.shape[1])
    shift = rng.normal(size=X.shape[1]) * 10
    a = RVMClassifier().fit(X, y)
    b = RVMClassifier().fit(X * scale + shift, y)
    np.testing.assert_array_equal(a.relevance_, b.relevance_)
    np.testing.assert_allclose(
        b.decision_function(X_test * scale + shift), a.decision_function(X_test), rtol=1e-6
    )
    np.testing.assert_allclose(b.coef_[0] * scale, a.coef_[0], rtol=1e-6, atol=1e-12)


def test_labels_and_probabilities():
    X, y, X_test, _, _ = _teacher(5, n=100, d=30)
    labels = np.where(y > 0, "yes", "no")
    clf = RVMClassifier().fit(X, labels)
    np.testing.assert_array_equal(clf.classes_, ["no", "yes"])
    proba = clf.predict_proba(X_test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(proba[:, 1], expit(clf.decision_function(X_test)))
    np.testing.assert_array_equal(clf.predict(X_test), clf.classes_[(proba[:, 1] > 0.5) * 1])
    # swapping the labels flips the decision function
    flipped = RVMClassifier().fit(X, -y)
    np.testing.assert_allclose(
        flipped.decision_function(X_test), -clf.decision_function(X_test), rtol=1e-6, atol=1e-9
    )


def test_constant_feature_and_no_intercept():
    X, y, _, _, _ = _teacher(0, n=100, d=20)
    X[:, 3] = 7.0
    clf = RVMClassifier().fit(X, y)
    assert clf.coef_[0, 3] == 0 and 3 not in clf.relevance_
    bare = RVMClassifier(fit_intercept=False).fit(X[:, :3], y)
    assert bare.intercept_[0] == 0.0
    assert np.isfinite(bare.log_marginal_likelihood_)


# ------------------------------------------------------------------ errors


def test_bad_targets():
    X = np.random.default_rng(0).normal(size=(12, 3))
    with pytest.raises(ValueError, match=r"at least 2 classes in y; y has 1 class"):
        RVMClassifier().fit(X, np.ones(12))
    with pytest.raises(ValueError, match=r"1 class of nonzero sample_weight"):
        RVMClassifier().fit(X, np.arange(12) % 2, sample_weight=np.arange(12) % 2)
    with pytest.raises(ValueError, match="Unknown label type"):
        RVMClassifier().fit(X, np.linspace(0, 1, 12))


def test_non_finite_input():
    X = np.random.default_rng(0).normal(size=(12, 3))
    y = np.arange(12) % 2
    for bad in (np.nan, np.inf):
        Xb = X.copy()
        Xb[2, 1] = bad
        with pytest.raises(ValueError, match=r"NaN|infinity"):
            RVMClassifier().fit(Xb, y)
        clf = RVMClassifier().fit(X, y)
        with pytest.raises(ValueError, match=r"NaN|infinity"):
            clf.predict(Xb)


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"max_iter": 0}, "max_iter"),
        ({"tol": 0.0}, "tol"),
        ({"threshold_alpha": -1.0}, "threshold_alpha"),
        ({"fit_intercept": "yes"}, "fit_intercept"),
    ],
)
def test_bad_parameters(params, name):
    X = np.random.default_rng(0).normal(size=(12, 3))
    with pytest.raises(InvalidParameterError, match=name):
        RVMClassifier(**params).fit(X, np.arange(12) % 2)


def test_convergence_warning():
    X, y, _, _, _ = _teacher(0)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        clf = RVMClassifier(max_iter=2).fit(X, y)
    assert not clf.converged_ and clf.n_iter_ == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        RVMClassifier().fit(X, y)

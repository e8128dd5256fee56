"""Outlier model and the soft/hard-selection EM classifiers of Dietrich & Opper."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit
from sklearn.datasets import make_blobs
from sklearn.metrics import roc_auc_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from statmechlearn.linear import (
    HebbClassifier,
    OutlierRobustClassifier,
    hard_selection_em,
    hebb_vector,
    soft_selection_em,
)
from statmechlearn.linear._selection_em import soft_em_pass, soft_em_pass_numpy
from statmechlearn.models.outliers import OutlierMixture, informative_fraction


# the defaults run in tests/conventions/test_sklearn_suite.py
@parametrize_with_checks([OutlierRobustClassifier("hard")])
def test_sklearn_contract(estimator, check):
    check(estimator)


def _data(seed=0, n=400, N=40, eta=0.0, gamma=10.0):
    model = OutlierMixture(n_features=N, eta=eta, gamma=gamma)
    X, S, V = model.sample(n, random_state=seed)
    return model, X, S.astype(float), V


# ------------------------------------------------------------------ model


def test_model_moments_and_order_parameters():
    model, X, S, V = _data(n=20000, N=20, eta=1.0, gamma=4.0)
    frac = informative_fraction(1.0)
    assert V.mean() == pytest.approx(frac, abs=4 * np.sqrt(frac * (1 - frac) / V.size))
    # informative examples have mean S B / sqrt(N) along S; outliers mean 0
    proj = (S[:, None] * X) @ model.B / np.sqrt(model.n_features)
    assert proj[V == 1].mean() == pytest.approx(1.0, abs=4 * 0.5 / np.sqrt((V == 1).sum()))
    assert proj[V == 0].mean() == pytest.approx(0.0, abs=4 * 0.5 / np.sqrt((V == 0).sum()))
    assert X[V == 0].var() == pytest.approx(1 / 4.0, rel=0.02)
    exact = model.order_parameters(model.B)
    assert (exact.R, exact.Q, exact.Phi, exact.Delta) == pytest.approx((1, 1, 0, 0))
    orth = model.order_parameters(np.r_[1.0, -1.0, np.zeros(18)] * np.sqrt(10))
    assert orth.Phi == pytest.approx(0.5) and orth.Delta == pytest.approx(orth.Q + 1)


def test_model_bad_parameters():
    with pytest.raises(ValueError, match="gamma"):
        OutlierMixture(n_features=5, eta=0.0, gamma=0.0)
    with pytest.raises(ValueError, match="eta"):
        OutlierMixture(n_features=5, eta=np.nan, gamma=1.0)
    with pytest.raises(ValueError, match="teacher"):
        OutlierMixture(n_features=5, eta=0.0, gamma=1.0, teacher=np.zeros(5))


# -------------------------------------------------------------------- EM


def _log_posterior(X, S, J, gamma, eta):
    """ln P(ID, J) up to constants, eqs. (4)-(5), with gamma and eta free."""
    P, N = X.shape
    h = S * (X @ J) / np.sqrt(N)
    Q = J @ J / N
    f = -gamma * h + gamma * Q / 2 + eta
    return (
        P * N / 2 * np.log(gamma)
        - gamma / 2 * np.sum(X * X)
        - P * np.log1p(np.exp(-eta))
        + np.sum(np.logaddexp(0.0, -f))
        - J @ J / 2
    )


def test_soft_em_fixed_point_solves_eqs_23_24():
    _, X, S, _ = _data(seed=1)
    res = soft_selection_em(X[None], S[None], gamma=10.0, eta=0.0, tol=1e-13, max_iter=2000)
    J, N = res.J[0], X.shape[1]
    v = expit(-(-10.0 * S * (X @ J) / np.sqrt(N) + 10.0 * (J @ J / N) / 2 + 0.0))
    J_again = np.sqrt(N) * (v * S) @ X / (v.sum() + N / 10.0)
    np.testing.assert_allclose(J_again, J, rtol=1e-10)
    # a stationary point of the posterior: its gradient vanishes
    h = 1e-6
    grad = [
        (_log_posterior(X, S, J + h * e, 10.0, 0.0) - _log_posterior(X, S, J - h * e, 10.0, 0.0))
        / (2 * h)
        for e in np.eye(N)[:5]
    ]
    np.testing.assert_allclose(grad, 0.0, atol=1e-4)


def test_em_with_estimated_gamma_eta_never_lowers_the_posterior():
    _, X, S, _ = _data(seed=2, eta=1.0, gamma=5.0)
    values = []
    for k in range(1, 15):
        r = soft_selection_em(
            X[None], S[None], gamma=1.0, eta=0.0, estimate=("gamma", "eta"), max_iter=k, tol=0
        )
        # the M-step of iteration k used the E-step at J_{k-1}; evaluate the posterior
        # at the parameters and J it produced
        values.append(_log_posterior(X, S, r.J[0], r.gamma[0], r.eta[0]))
    assert np.all(np.diff(values) >= -1e-8 * np.abs(values[:-1]))


def test_hebb_limit_eta_to_minus_infinity():
    _, X, S, _ = _data(seed=3)
    res = soft_selection_em(X[None], S[None], gamma=10.0, eta=-50.0)
    np.testing.assert_allclose(res.J, hebb_vector(X[None], S[None], 10.0), rtol=1e-12)
    assert res.n_iter == 1 or np.allclose(res.V, 1.0)


def _hard_energy(X, S, V, gamma, eta):
    """-H_h(V) of eq. (10) up to constants: |b|^2/(2a) - N/2 ln a - eta sum V."""
    N = X.shape[1]
    a = gamma * V.sum() / N + 1
    b = gamma / np.sqrt(N) * (V * S) @ X
    return b @ b / (2 * a) - N / 2 * np.log(a) - eta * V.sum()


def test_hard_em_steps_never_lower_the_evidence_and_stop_at_a_fixed_point():
    _, X, S, _ = _data(seed=4, eta=0.5)
    V = np.ones(len(S))
    values = [_hard_energy(X, S, V, 10.0, 0.5)]
    for _ in range(10):
        V = hard_selection_em(X[None], S[None], gamma=10.0, eta=0.5, V0=V[None], max_iter=1).V[0]
        values.append(_hard_energy(X, S, V, 10.0, 0.5))
    assert np.all(np.diff(values) >= -1e-9 * np.abs(values[:-1]))
    final = hard_selection_em(X[None], S[None], gamma=10.0, eta=0.5)
    assert final.converged[0]
    again = hard_selection_em(X[None], S[None], gamma=10.0, eta=0.5, V0=final.V, max_iter=1)
    np.testing.assert_array_equal(again.V, final.V)


def test_batched_runs_equal_single_runs():
    _, X1, S1, _ = _data(seed=5)
    _, X2, S2, _ = _data(seed=6)
    both = soft_selection_em(np.stack([X1, X2]), np.stack([S1, S2]), gamma=10.0, eta=0.0, tol=1e-12)
    one = soft_selection_em(X2[None], S2[None], gamma=10.0, eta=0.0, tol=1e-12)
    np.testing.assert_allclose(both.J[1], one.J[0], rtol=1e-9)


# -------------------------------------------------------------- estimators


def test_em_beats_hebb_and_finds_the_outliers():
    model, X, S, V = _data(seed=7, n=3000, N=50)
    soft = OutlierRobustClassifier(fit_intercept=False).fit(X, S)
    hebb = HebbClassifier(10.0, fit_intercept=False).fit(X, S)
    assert model.order_parameters(soft.J_).Delta < 0.1 * model.order_parameters(hebb.J_).Delta
    assert roc_auc_score(V, soft.informative_proba_) > 0.95
    assert soft.gamma_ == pytest.approx(10.0, rel=0.05)
    assert soft.eta_ == pytest.approx(0.0, abs=0.2)
    hard = OutlierRobustClassifier("hard", fit_intercept=False).fit(X, S)
    assert set(np.unique(hard.informative_proba_)) <= {0.0, 1.0}
    assert roc_auc_score(V, hard.informative_proba_) > 0.9


def test_any_two_labels_and_intercept():
    X, y = make_blobs(200, centers=[[5, 5], [7, 7]], cluster_std=0.5, random_state=0)
    labels = np.array(["no", "yes"])[y]
    for est in (HebbClassifier(), OutlierRobustClassifier(), OutlierRobustClassifier("hard")):
        est.fit(X, labels)
        assert est.score(X, labels) > 0.97
        np.testing.assert_array_equal(
            est.predict(X), np.where(est.decision_function(X) > 0, "yes", "no")
        )


def test_warm_start_continues_from_the_previous_solution():
    _, X, S, _ = _data(seed=8, n=1000)
    est = OutlierRobustClassifier(gamma=10.0, eta=0.0, warm_start=True, fit_intercept=False)
    est.fit(X, S)
    first = est.n_iter_
    J = est.J_.copy()
    est.fit(X, S)
    assert est.n_iter_ < first
    np.testing.assert_allclose(est.J_, J, rtol=1e-6)


def test_non_convergence_warns_with_the_residual():
    from statmechlearn._core.exceptions import ConvergenceWarning

    _, X, S, _ = _data(seed=9)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        OutlierRobustClassifier(max_iter=1).fit(X, S)


def test_bad_input_is_named():
    _, X, S, _ = _data(seed=10, n=30)
    with pytest.raises(ValueError, match="at least 2 classes in y; y has 1 class"):
        OutlierRobustClassifier().fit(X, np.ones(30))
    with pytest.raises(ValueError, match="1 class"):
        HebbClassifier().fit(X, np.ones(30))
    with pytest.raises(ValueError, match="gamma"):
        OutlierRobustClassifier(gamma=-1.0).fit(X, S)
    with pytest.raises(ValueError, match="gamma"):
        HebbClassifier(gamma=0.0).fit(X, S)
    with pytest.raises(ValueError, match="'eta' parameter of OutlierRobustClassifier"):
        OutlierRobustClassifier(eta=np.inf).fit(X, S)
    with pytest.raises(ValueError, match="selection"):
        OutlierRobustClassifier("medium").fit(X, S)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        OutlierRobustClassifier().fit(bad, S)
    with pytest.raises(ValueError, match="1 sample"):
        OutlierRobustClassifier().fit(X[:1], S[:1])


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    P=st.integers(1, 40),
    N=st.integers(1, 12),
    gamma=st.floats(0.1, 50.0),
    eta=st.floats(-30.0, 30.0),
)
def test_fused_em_pass_matches_its_numpy_twin(seed, P, N, gamma, eta):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((P, N))
    S = rng.choice([-1.0, 1.0], size=P)
    J = 3 * rng.standard_normal(N)
    fast = soft_em_pass(X, S, J, gamma, eta)
    slow = soft_em_pass_numpy(X, S, J, gamma, eta)
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_fused_em_pass_in_parallel_blocks_matches_its_twin(all_threads):
    rng = np.random.default_rng(11)
    X = rng.standard_normal((6000, 7))  # >= 2048 rows per block: several threads
    S = rng.choice([-1.0, 1.0], size=6000)
    J = rng.standard_normal(7)
    for a, b in zip(
        soft_em_pass(X, S, J, 3.0, 0.5), soft_em_pass_numpy(X, S, J, 3.0, 0.5), strict=True
    ):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


# ------------------------------------------------------------- predict_proba


def _mixture_posterior(X, centre, gamma, eta):
    """P(S = +1 | x) of the outlier mixture, from the Gaussian densities themselves."""
    from scipy.stats import multivariate_normal

    cov = np.eye(X.shape[1]) / gamma
    rho = informative_fraction(eta)
    outlier = (1.0 - rho) * multivariate_normal(np.zeros(X.shape[1]), cov).pdf(X)
    plus = rho * multivariate_normal(centre, cov).pdf(X) + outlier
    minus = rho * multivariate_normal(-centre, cov).pdf(X) + outlier
    return plus / (plus + minus)


@pytest.mark.parametrize("selection", ["soft", "hard"])
def test_predict_proba_is_the_mixture_posterior_at_the_fitted_parameters(selection):
    model, X, S, _ = _data(seed=11, n=600, N=5, gamma=2.0)
    clf = OutlierRobustClassifier(selection, fit_intercept=False).fit(X, S)
    Xt = model.sample(300, random_state=12)[0]
    proba = clf.predict_proba(Xt)
    expected = _mixture_posterior(Xt, clf.coef_[0], clf.gamma_, clf.eta_)
    np.testing.assert_allclose(proba[:, 1], expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(clf.predict_log_proba(Xt), np.log(proba), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(Xt), clf.classes_[np.argmax(proba, axis=1)])


def test_soft_selection_proba_is_calibrated_on_data_from_the_model():
    # the model's posterior with the true parameters, and binned frequencies of fresh labels
    model = OutlierMixture(n_features=4, eta=0.0, gamma=2.0)
    X, S, _ = model.sample(20000, random_state=21)
    clf = OutlierRobustClassifier(fit_intercept=False).fit(X, S)
    Xt, St, _ = model.sample(40000, random_state=22)
    p = clf.predict_proba(Xt)[:, 1]
    truth = _mixture_posterior(Xt, model.B / np.sqrt(model.n_features), model.gamma, model.eta)
    assert np.mean(np.abs(p - truth)) < 0.02
    order = np.argsort(p)
    chi2 = 0.0
    for block in np.array_split(order, 10):
        q = p[block].mean()
        chi2 += (np.mean(St[block] == 1) - q) ** 2 / (q * (1 - q) / block.size)
    assert chi2 < 40.0  # 10 bins: P(chi2_10 > 40) ~ 2e-5


def test_hebb_proba_is_the_two_cluster_posterior():
    model = OutlierMixture(n_features=4, eta=-np.inf, gamma=2.0)
    X, S, _ = model.sample(20000, random_state=31)
    clf = HebbClassifier(gamma=2.0, fit_intercept=False).fit(X, S)
    Xt, St, _ = model.sample(40000, random_state=32)
    p = clf.predict_proba(Xt)[:, 1]
    np.testing.assert_allclose(p, expit(2 * 2.0 * clf.decision_function(Xt)), rtol=1e-12)
    truth = _mixture_posterior(Xt, model.B / np.sqrt(model.n_features), 2.0, -np.inf)
    assert np.mean(np.abs(p - truth)) < 0.02
    order = np.argsort(p)
    chi2 = sum(
        (np.mean(St[b] == 1) - p[b].mean()) ** 2 / (p[b].mean() * (1 - p[b].mean()) / b.size)
        for b in np.array_split(order, 10)
    )
    assert chi2 < 40.0


def test_hard_selection_warns_when_its_soft_start_stops_short():
    """The estimated gamma and eta of the hard selection come from its soft start; on raw
    wine (features of very different scales) EM needs thousands of iterations, and a
    search at unconverged estimates minimises another energy: it must say so."""
    from sklearn.datasets import load_wine

    from statmechlearn._core.exceptions import ConvergenceWarning

    X, y = load_wine(return_X_y=True)
    with pytest.warns(ConvergenceWarning, match="its soft start, which estimates gamma and eta"):
        OutlierRobustClassifier("hard").fit(X, y == 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        OutlierRobustClassifier("hard", max_iter=20_000).fit(X, y == 2)
        # fixed gamma and eta: the soft fit is only a start, and is not waited for
        OutlierRobustClassifier("hard", gamma=1e-4, eta=0.0).fit(X, y == 2)

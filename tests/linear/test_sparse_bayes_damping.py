"""Adaptive damping of the sparse Bayesian classifier's message passing (issue 26)."""

import math
import warnings

import numpy as np
import pytest

from statmechlearn.datasets import load_colon
from statmechlearn.exceptions import ConvergenceWarning
from statmechlearn.linear import SparseBayesClassifier, SparseBayesClassifierCV, sparse_bayes_amp
from statmechlearn.linear._sparse_bayes import _make_activation
from statmechlearn.linear._sparse_bayes_adaptive import MIN_STEP, adaptive_amp, pattern_matrix
from statmechlearn.linear._sparse_bayes_kernels import prior_update, prior_update_reference
from statmechlearn.models import SparsePerceptron


def _teacher(N, M, seed, C_t=0.2, kappa=0.05):
    rng = np.random.default_rng(seed)
    teacher = SparsePerceptron(N, C_t, kappa, random_state=rng)
    X, y = teacher.sample(M, rng)
    return teacher, X, y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_adaptive_reaches_the_undamped_fixed_point(seed):
    """Damping changes the path, not the fixed point: where the paper's undamped
    iteration converges, the adaptive one lands on the same m, omega and prior."""
    teacher, X, y = _teacher(300, 300, seed)
    act = teacher.activation
    ref = sparse_bayes_amp(X, y, 0.15, act, max_iter=2000, tol=1e-11)
    out = adaptive_amp(pattern_matrix(X, y), 0.15, act, max_iter=2000, tol=1e-11)
    assert ref["converged"] and out["converged"]
    scale = math.sqrt(np.mean(ref["m"] ** 2))
    np.testing.assert_allclose(out["m"], ref["m"], atol=1e-8 * scale)
    np.testing.assert_allclose(out["omega"], ref["omega"], atol=1e-8)
    assert out["A"] == pytest.approx(ref["A"], rel=1e-8)
    assert out["rho"].mean() == pytest.approx(0.15, rel=1e-8)
    assert np.all((out["step"] >= MIN_STEP) & (out["step"] <= 1.0))


def test_default_converges_on_teacher_data_without_warning():
    _, X, y = _teacher(400, 400, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = SparseBayesClassifier().fit(X, y)
    assert clf.converged_ and clf.n_iter_ < clf.max_iter
    # the former default needs max_iter and warns on the same data
    with pytest.warns(ConvergenceWarning, match="damping='auto'"):
        SparseBayesClassifier(damping=0.8, max_iter=60).fit(X, y)


@pytest.mark.parametrize("seed", [0, 1])
def test_default_converges_on_colon_data_without_warning(seed):
    X, y, _ = load_colon()
    train = np.random.default_rng(seed).permutation(len(y))[:42]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = SparseBayesClassifier().fit(X[train], y[train])
    assert clf.converged_


def test_float_damping_still_runs_the_fixed_damping_kernel():
    _, X, y = _teacher(200, 200, 3)
    clf = SparseBayesClassifier(damping=0.5, preprocessing=None).fit(X, y)
    out = sparse_bayes_amp(X, y, 0.1, _make_activation("step", 0.1), max_iter=500, damping=0.5)
    np.testing.assert_array_equal(clf.coef_, out["m"])
    assert clf.n_iter_ == out["n_iter"]


def test_stall_stops_an_unstable_fixed_point_early():
    """At a handful of kept components (C N = 2.5) the iteration has no stable fixed
    point on these data; with patience it stops instead of running to max_iter."""
    _, X, y = _teacher(1000, 1000, 0)
    out = adaptive_amp(
        pattern_matrix(X, y), 0.0025, _make_activation("step", 0.1), max_iter=500, patience=50
    )
    assert not out["converged"] and out["stalled"] and out["n_iter"] < 500


def test_cv_grid_converges_and_matches_single_fits():
    _, X, y = _teacher(300, 300, 11)
    cv = SparseBayesClassifierCV(Cs=(0.1, 0.2, 0.4), kappas=(0.1, 0.3)).fit(X, y)
    res = cv.cv_results_
    assert res["converged"].all()
    for i in range(res["loo_error"].size):
        single = SparseBayesClassifier(C=res["param_C"][i], kappa=res["param_kappa"][i]).fit(X, y)
        assert single.loo_error_ == res["loo_error"][i]
        assert single.n_iter_ == res["n_iter"][i]
    np.testing.assert_array_equal(cv.predict(X), cv.best_estimator_.predict(X))


@pytest.mark.parametrize("C", [0.0025, 0.05, 0.3, 0.9, 1.0])
@pytest.mark.parametrize("scale", [0.1, 3.0])
@pytest.mark.parametrize("warm", [False, True])
def test_compiled_prior_update_matches_its_numpy_twin(C, scale, warm):
    rng = np.random.default_rng()
    h = rng.standard_normal(int(rng.integers(20, 3000))) * scale
    start = {}
    if warm:
        A_ref, lam_ref = prior_update_reference(h * 1.1, C)[:2]
        start = {"A0": A_ref, "lam0": lam_ref}
    A, lam, rho, m = prior_update(h, C, **start)
    A_ref, lam_ref, rho_ref, m_ref = prior_update_reference(h, C, **start)
    # both solve eqs. (34)-(35) to a relative residual of 1e-12; the solutions agree to
    # that over the conditioning of the 2 x 2 system
    assert A == pytest.approx(A_ref, rel=1e-9)
    assert lam == pytest.approx(lam_ref, rel=1e-9, abs=1e-9)
    np.testing.assert_allclose(rho, rho_ref, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(m, m_ref, rtol=1e-8, atol=1e-12 * np.abs(m_ref).max())
    assert rho.mean() == pytest.approx(C, rel=1e-10)

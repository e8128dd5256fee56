"""Sparse Bayesian classifier (Uda & Kabashima): channel, prior tuning, message passing,
estimators, replica theory and state evolution."""

import math
import warnings

import numpy as np
import pytest
from scipy import integrate, special
from sklearn.utils.estimator_checks import check_estimator

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn.linear import (
    SparseBayesClassifier,
    SparseBayesClassifierCV,
    sparse_bayes_amp,
    sparse_bayes_bp,
)
from statmechlearn.models import SparsePerceptron
from statmechlearn.theory import sparse_bayes as sb
from statmechlearn.theory.sparse_bayes import (
    SmoothedStepActivation,
    belief_moments,
    match_pruning,
)

# --------------------------------------------------------------------------- channel


@pytest.mark.parametrize("kappa,width", [(0.05, 0.0), (0.0, 0.0), (0.2, 0.7)])
def test_channel_matches_quadrature_and_derivatives(kappa, width):
    act = SmoothedStepActivation(kappa, width)
    V = 0.3
    for h in (-1.3, 0.0, 0.4, 2.0):
        integrand = lambda u, h=h: act(math.sqrt(V) * u + h) * np.exp(-0.5 * u * u)  # noqa: E731
        # the step is at u = -h/sqrt(V): split the integral there
        cut = -h / math.sqrt(V)
        z = sum(integrate.quad(integrand, a, b)[0] for a, b in ((-np.inf, cut), (cut, np.inf)))
        z /= math.sqrt(2 * math.pi)
        log_z, d1, d2 = act.log_partition(h, V)
        assert act.probability(h, V) == pytest.approx(z, rel=1e-9)
        assert log_z == pytest.approx(math.log(z), rel=1e-9, abs=1e-12)
        eps = 1e-5
        lp = act.log_partition(h + eps, V)[0]
        lm = act.log_partition(h - eps, V)[0]
        assert d1 == pytest.approx((lp - lm) / (2 * eps), rel=1e-6, abs=1e-9)
        d1p = act.log_partition(h + eps, V)[1]
        d1m = act.log_partition(h - eps, V)[1]
        assert d2 == pytest.approx((d1p - d1m) / (2 * eps), rel=1e-5, abs=1e-8)


def test_channel_is_finite_far_in_the_wrong_tail_without_noise():
    act = SmoothedStepActivation(0.0)
    log_z, d1, d2 = act.log_partition(np.array([-60.0, -8.0, 0.0, 8.0]), 1.0)
    assert np.all(np.isfinite(log_z)) and np.all(np.isfinite(d1)) and np.all(np.isfinite(d2))
    # phi/Phi ~ |x| and d2 -> -1 for x -> -inf
    assert d1[0] == pytest.approx(60.0, rel=1e-3)
    assert d2[0] == pytest.approx(-1.0, abs=1e-3)
    assert act.probability(0.0, 0.5) == 0.5


@pytest.mark.parametrize("kappa", [-0.1, 0.5, np.nan])
def test_channel_rejects_bad_kappa(kappa):
    with pytest.raises(ValueError, match="kappa"):
        SmoothedStepActivation(kappa)


# --------------------------------------------------------------------------- prior tuning


@pytest.mark.parametrize("C", [0.0025, 0.05, 0.3, 0.9])
@pytest.mark.parametrize("scale", [0.1, 3.0])
def test_match_pruning_meets_both_conditions(C, scale):
    h = np.random.default_rng(1).standard_normal(3000) * scale
    A, lam = match_pruning(h, C)
    rho, _, second = belief_moments(h, A, lam)
    assert A > 0
    assert rho.mean() == pytest.approx(C, rel=1e-9)
    assert second.mean() == pytest.approx(C, rel=1e-9)
    # a warm start far off converges to the same solution
    A2, lam2 = match_pruning(h, C, A0=50 * A, lam0=lam + 10)
    assert A2 == pytest.approx(A, rel=1e-8)
    assert lam2 == pytest.approx(lam, abs=1e-7)


def test_match_pruning_without_data_and_without_pruning():
    A, lam = match_pruning(np.zeros(10), 0.2)
    assert A == pytest.approx(1.0) and lam == pytest.approx(special.logit(0.2))
    h = np.linspace(-2, 2, 7)
    A, lam = match_pruning(h, 1.0)
    assert np.isposinf(lam)
    assert np.mean(1 / A + h**2 / A**2) == pytest.approx(1.0)


# --------------------------------------------------------------------------- message passing


def _teacher_data(N, M, C_t=0.2, kappa=0.05, seed=0, binary=False):
    rng = np.random.default_rng(seed)
    teacher = SparsePerceptron(N, C_t, kappa, random_state=rng)
    X, y = teacher.sample(M, rng)
    if binary:
        X = rng.choice([-1.0, 1.0], size=(M, N))
        y = np.where(rng.random(M) < teacher.activation(X @ teacher.w_o / math.sqrt(N)), 1.0, -1.0)
    return teacher, X, y


@pytest.mark.parametrize("seed", [0, 1])
def test_amp_agrees_with_naive_bp(seed):
    """With +-1 inputs every x^2 / N is exactly 1/N, so the O(NM) form's self-averaged
    Onsager terms are exact and it differs from BP only by the O(N^-1/2) terms the
    expansion (38)-(39) drops: the relative difference must be below 1/sqrt(N)."""
    N = 200
    teacher, X, y = _teacher_data(N, N, seed=seed, binary=True)
    act = teacher.activation
    amp = sparse_bayes_amp(X, y, 0.2, act, max_iter=40, tol=0.0)
    bp = sparse_bayes_bp(X, y, 0.2, act, n_iter=40)
    rel = np.linalg.norm(amp["m"] - bp["m"]) / np.linalg.norm(bp["m"])
    rel_omega = np.linalg.norm(amp["omega"] - bp["omega"]) / np.linalg.norm(bp["omega"])
    assert rel < 1 / math.sqrt(N)
    assert rel_omega < 1 / math.sqrt(N)


def test_amp_fixed_point_meets_pruning_conditions_and_is_deterministic():
    teacher, X, y = _teacher_data(300, 300)
    out = sparse_bayes_amp(X, y, 0.15, teacher.activation, max_iter=300, tol=1e-10)
    assert out["converged"]
    assert out["rho"].mean() == pytest.approx(0.15, rel=1e-8)
    assert out["variance"] == pytest.approx(0.15 - np.mean(out["m"] ** 2))
    again = sparse_bayes_amp(X, y, 0.15, teacher.activation, max_iter=300, tol=1e-10)
    np.testing.assert_array_equal(out["m"], again["m"])
    # damping changes the path, not the fixed point
    damped = sparse_bayes_amp(X, y, 0.15, teacher.activation, max_iter=2000, tol=1e-10, damping=0.7)
    np.testing.assert_allclose(damped["m"], out["m"], atol=1e-7)


def test_cavity_stabilities_predict_leave_one_out_refits():
    """eq. (56): the cavity stability of example mu is its stability under the fit that
    never saw it. Compare with real refits on M - 1 examples."""
    N = 400
    teacher, X, y = _teacher_data(N, N, seed=3)
    act = teacher.activation
    full = sparse_bayes_amp(X, y, 0.2, act, max_iter=500, tol=1e-9)
    idx = np.arange(8)
    refit = []
    for mu in idx:
        keep = np.arange(N) != mu
        m = sparse_bayes_amp(X[keep], y[keep], 0.2, act, max_iter=500, tol=1e-9)["m"]
        refit.append(y[mu] * X[mu] @ m / math.sqrt(N))
    refit = np.array(refit)
    # the cavity field is correct up to O(N^-1/2) fluctuations of the O(1) stabilities
    assert np.max(np.abs(full["omega"][idx] - refit)) < 3 / math.sqrt(N)
    naive = y[idx] * (X[idx] @ full["m"]) / math.sqrt(N)
    assert np.max(np.abs(full["omega"][idx] - refit)) < 0.5 * np.max(np.abs(naive - refit))


def test_estimator_recovers_the_relevant_components():
    teacher, X, y = _teacher_data(500, 1000, C_t=0.1, kappa=0.0, seed=4)
    clf = SparseBayesClassifier(C=0.1, kappa=0.05, preprocessing=None).fit(X, np.where(y > 0, 1, 0))
    relevant = teacher.w_o != 0
    top = np.argsort(-clf.relevance_)[: relevant.sum()]
    assert relevant[top].mean() > 0.8
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(1), 1.0)
    assert np.all((proba >= 0) & (proba <= 1))
    assert clf.loo_error_ == np.mean(
        teacher.activation.probability(clf.cavity_stability_, clf._variance) < 0.5
    )
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[(clf.decision_function(X) > 0) * 1])


@pytest.mark.parametrize(
    "est",
    [
        SparseBayesClassifier(),
        SparseBayesClassifier(preprocessing="whiten", activation="probit"),
        SparseBayesClassifier(C=1.0, preprocessing=None),
        SparseBayesClassifierCV(Cs=(0.1, 0.5), kappas=(0.1,)),
        SparseBayesClassifierCV(Cs=(0.1, 0.5), kappas=(0.1,), cv=3),
    ],
    ids=["sphere", "whiten-probit", "no-pruning", "cv", "cv-folds"],
)
def test_check_estimator(est):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check_estimator(est)


@pytest.mark.parametrize(
    "params,match",
    [
        ({"C": 0.0}, "'C' parameter of SparseBayesClassifier .* \\(0.0, 1.0\\]"),
        ({"C": 1.5}, "'C' parameter of SparseBayesClassifier .* \\(0.0, 1.0\\]"),
        ({"kappa": 0.5}, "'kappa' parameter of SparseBayesClassifier .* \\[0.0, 0.5\\)"),
        ({"kappa": -0.1}, "kappa"),
        ({"damping": 1.0}, "damping"),
        ({"preprocessing": "pca"}, "preprocessing"),
        ({"activation": "logistic"}, "activation"),
    ],
)
def test_bad_parameters_are_named(params, match):
    X, y = np.random.default_rng(0).standard_normal((10, 4)), np.arange(10) % 2
    with pytest.raises(ValueError, match=match):
        SparseBayesClassifier(**params).fit(X, y)


def test_bad_data_gets_clear_errors():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((10, 4)), np.arange(10) % 2
    with pytest.raises(ValueError, match="at least 2 classes"):
        SparseBayesClassifier().fit(X, np.zeros(10))
    with pytest.raises(ValueError, match="at least 2 classes"):
        SparseBayesClassifierCV().fit(X, np.zeros(10))
    with pytest.raises(ValueError, match="1d array"):
        SparseBayesClassifier().fit(X, np.column_stack([y, y]))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SparseBayesClassifier().fit(Xn, y)
    with pytest.raises(TypeError, match="activation"):
        SparseBayesClassifier(activation=object()).fit(X, y)
    with pytest.raises(ValueError, match="Cs"):
        SparseBayesClassifierCV(Cs=(0.1, 2.0)).fit(X, y)


def test_non_convergence_warns_with_diagnostics():
    _, X, y = _teacher_data(100, 100)
    with pytest.warns(ConvergenceWarning, match="max_iter=2.*last relative change"):
        clf = SparseBayesClassifier(max_iter=2).fit(X, y)
    assert not clf.converged_ and clf.n_iter_ == 2


def test_cv_picks_least_loo_error_with_log_loss_tie_break():
    _, X, y = _teacher_data(200, 120, C_t=0.1, seed=5)
    cv = SparseBayesClassifierCV(Cs=(0.05, 0.1, 0.4), kappas=(0.1, 0.3), damping=0.0).fit(X, y)
    res = cv.cv_results_
    assert res["loo_error"].shape == (6,)
    best = cv.best_index_
    assert res["loo_error"][best] == res["loo_error"].min()
    tied = res["loo_error"] == res["loo_error"].min()
    assert res["loo_log_loss"][best] == res["loo_log_loss"][tied].min()
    assert (cv.best_C_, cv.best_kappa_) == (res["param_C"][best], res["param_kappa"][best])
    np.testing.assert_array_equal(cv.predict(X), cv.best_estimator_.predict(X))


def _refit_errors(X, y, Cs, kappas, splitter, **params):
    """Held-out error and log loss of SparseBayesClassifier refitted on each fold: the
    reference for cv, through the public estimator only."""
    error, loss = [], []
    for C in Cs:
        for kappa in kappas:
            wrong, nll, n = 0, 0.0, 0
            for train, test in splitter.split(X, y):
                clf = SparseBayesClassifier(C=C, kappa=kappa, **params).fit(X[train], y[train])
                proba = clf.predict_proba(X[test])
                own = proba[np.arange(len(test)), np.searchsorted(clf.classes_, y[test])]
                wrong += np.sum(clf.predict(X[test]) != y[test])
                nll -= np.sum(np.log(own))
                n += len(test)
            error.append(wrong / n)
            loss.append(nll / n)
    return np.array(error), np.array(loss)


@pytest.mark.parametrize("preprocessing", ["sphere", None])
def test_cv_loo_is_exact_leave_one_out_by_refits(preprocessing):
    from sklearn.model_selection import LeaveOneOut

    _, X, y = _teacher_data(40, 30, C_t=0.2, seed=6)
    grid = {"Cs": (0.1, 0.5), "kappas": (0.1, 0.3)}
    cv = SparseBayesClassifierCV(**grid, preprocessing=preprocessing, cv="loo").fit(X, y)
    error, loss = _refit_errors(X, y, *grid.values(), LeaveOneOut(), preprocessing=preprocessing)
    res = cv.cv_results_
    assert np.all(res["cv_converged"] == 1.0)
    np.testing.assert_array_equal(res["cv_error"], error)
    np.testing.assert_allclose(res["cv_log_loss"], loss, rtol=1e-9)
    # the choice is by the refits, ties to the smaller held-out log loss
    best = cv.best_index_
    tied = res["cv_error"] == res["cv_error"].min()
    assert tied[best] and res["cv_log_loss"][best] == res["cv_log_loss"][tied].min()
    # the cavity estimate is still reported, and the chosen fit is on all the data
    assert res["loo_error"].shape == (4,)
    assert cv.best_estimator_.cavity_stability_.shape == (30,)


def test_cv_folds_from_an_int_or_a_splitter():
    from sklearn.model_selection import KFold, StratifiedKFold

    _, X, y = _teacher_data(40, 40, C_t=0.2, seed=7)
    grid = {"Cs": (0.1, 0.5), "kappas": (0.2,)}
    by_int = SparseBayesClassifierCV(**grid, cv=4).fit(X, y).cv_results_
    error, loss = _refit_errors(X, y, *grid.values(), StratifiedKFold(4))
    np.testing.assert_array_equal(by_int["cv_error"], error)
    np.testing.assert_allclose(by_int["cv_log_loss"], loss, rtol=1e-9)
    folds = KFold(5, shuffle=True, random_state=0)
    by_splitter = SparseBayesClassifierCV(**grid, cv=folds).fit(X, y).cv_results_
    np.testing.assert_array_equal(
        by_splitter["cv_error"], _refit_errors(X, y, *grid.values(), folds)[0]
    )
    # an iterable of (train, test) gives the same as the splitter it came from
    listed = SparseBayesClassifierCV(**grid, cv=list(folds.split(X, y))).fit(X, y).cv_results_
    np.testing.assert_array_equal(listed["cv_error"], by_splitter["cv_error"])


def test_cv_errors_name_the_parameter():
    _, X, y = _teacher_data(20, 12, seed=8)
    with pytest.raises(ValueError, match="'cv' parameter"):
        SparseBayesClassifierCV(cv="exact").fit(X, y)
    with pytest.raises(ValueError, match="'cv' parameter"):
        SparseBayesClassifierCV(cv=1).fit(X, y)
    # a class of one example leaves a leave-one-out fold with one class
    y = np.where(np.arange(12) == 0, 1.0, -1.0)
    with pytest.raises(ValueError, match="cv: a training fold holds examples of one class"):
        SparseBayesClassifierCV(Cs=(0.2,), kappas=(0.1,), cv="loo").fit(X, y)


def test_cavity_loo_error_against_exact_refits():
    """Where eq. (56) holds and where it fails, against exact leave-one-out refits.

    Isotropic teacher inputs (N = M = 150, C = C_t = 0.2, N C = 30): over 24 seeds
    |cavity - exact| was 0.017 on average (sd 0.010, at most 0.04): the two differ only
    by examples whose stability is near zero. §5's whitening of the colon data on all
    62 tissues (61 inputs) at C = 0.0025 (N C = 0.15), kappa = 0.4: over 100 random
    42/20 splits the cavity estimate was 0.24 above the exact one on average, 0.12 at
    the least, and 0.035 (sd 0.032) at C = 0.1.
    """
    from statmechlearn.datasets import load_colon
    from statmechlearn.papers.sparse.colon import whiten_all_tissues

    for seed in (9, 10):
        teacher, X, y = _teacher_data(150, 150, C_t=0.2, seed=seed)
        kappa = teacher.activation.kappa
        cv = SparseBayesClassifierCV(Cs=(0.2,), kappas=(kappa,), preprocessing=None, cv="loo")
        res = cv.fit(X, y).cv_results_
        assert abs(res["loo_error"][0] - res["cv_error"][0]) <= 0.017 + 5 * 0.010
    X, y, _ = load_colon()
    W = whiten_all_tissues(X)
    gaps = []
    for seed in range(4):
        train = np.random.default_rng([19990601, seed]).permutation(62)[:42]
        cv = SparseBayesClassifierCV(Cs=(0.0025, 0.1), kappas=(0.4,), preprocessing=None, cv="loo")
        res = cv.fit(W[train], y[train]).cv_results_
        gaps.append(res["loo_error"] - res["cv_error"])
    gaps = np.array(gaps)
    # measured: mean 0.24 (sd 0.040 per split) at C = 0.0025, 0.035 (0.032) at C = 0.1
    assert np.all(gaps[:, 0] > 0.05) and gaps[:, 0].mean() > 0.15
    assert gaps[:, 1].mean() < 0.035 + 5 * 0.032 / 2


# --------------------------------------------------------------------------- theory


@pytest.mark.parametrize("alpha,C_t", [(1.0, 0.2), (0.5, 0.1), (2.0, 0.3)])
def test_nishimori_identities_at_the_true_sparsity(alpha, C_t):
    s = sb.replica(alpha, C_t, C_t=C_t, kappa=0.05)
    assert s.R == pytest.approx(s.Q, rel=1e-9)
    assert s.R_hat == pytest.approx(s.Q_hat, rel=1e-9)
    assert s.F == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("C", [0.08, 0.2, 0.45])
def test_fixed_point_is_stationary_point_of_the_free_entropy(C):
    kw = {"alpha": 1.0, "C": C, "C_t": 0.2, "kappa": 0.05}
    s = sb.replica(1.0, C, C_t=0.2, kappa=0.05)
    x0 = np.array([s.R, s.Q, s.R_hat, s.Q_hat, s.F, s.lam])
    assert sb.free_entropy(*x0, **kw) == pytest.approx(s.free_entropy)
    for i in range(6):
        step = np.zeros(6)
        step[i] = 1e-5 * max(1.0, abs(x0[i]))
        grad = (sb.free_entropy(*(x0 + step), **kw) - sb.free_entropy(*(x0 - step), **kw)) / (
            2 * step[i]
        )
        # central differences of a function of size O(1): error ~ step^2 + 1e-16/step
        assert abs(grad) < 1e-6, (i, grad)


def test_sbc_error_is_minimal_at_the_true_sparsity_and_gibbs_is_not():
    Cs = np.array([0.1, 0.15, 0.18, 0.2, 0.22, 0.25, 0.3])
    sols = [sb.replica(1.0, C, C_t=0.2, kappa=0.05) for C in Cs]
    eps = np.array([s.eps_g for s in sols])
    gibbs = np.array([s.eps_gibbs for s in sols])
    assert Cs[np.argmin(eps)] == 0.2
    assert Cs[np.argmin(gibbs)] != 0.2
    # F < 0 is allowed (and happens) below C_t; F + Q_hat stays positive
    low = sols[0]
    assert low.F < 0 < low.F + low.Q_hat


def test_no_data_free_entropy_is_zero_and_error_is_a_coin():
    s = sb.replica(0.0, 0.3, C_t=0.2, kappa=0.05)
    assert s.Q == 0 and s.eps_g == 0.5
    assert sb.state_evolution(0.0, 0.3, C_t=0.2, kappa=0.05, n_iter=3).eps_g[-1] == 0.5


def test_generalization_error_formula_against_direct_integration():
    R, Q, C_t, kappa = 0.1, 0.14, 0.2, 0.05
    act = SmoothedStepActivation(kappa)
    r, s2 = R / math.sqrt(Q), C_t - R**2 / Q

    def integrand(z):  # eq. (11): the student predicts sign(z)
        return 2 * (1 - act.probability(r * z, s2)) * np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)

    direct = integrate.quad(integrand, 0, np.inf)[0]
    assert sb.generalization_error(R, Q, C_t=C_t, kappa=kappa) == pytest.approx(direct, rel=1e-9)


def test_state_evolution_predicts_the_algorithm():
    """Mean eps_g of 16 runs at N = M = 600 within 4 standard errors of state evolution."""
    N, T, C = 600, 6, 0.3
    se = sb.state_evolution(1.0, C, C_t=0.2, kappa=0.05, n_iter=T)
    runs = []
    for seed in range(16):
        teacher, X, y = _teacher_data(N, N, seed=100 + seed)
        rec = []
        sparse_bayes_amp(
            X,
            y,
            C,
            teacher.activation,
            max_iter=T,
            tol=0.0,
            callback=lambda t, m, teacher=teacher, rec=rec: rec.append(teacher.overlaps(m).eps_g),
        )
        runs.append(rec)
    runs = np.array(runs)
    mean, err = runs.mean(0), runs.std(0, ddof=1) / math.sqrt(len(runs))
    assert np.all(np.abs(mean - se.eps_g[1:]) <= 4 * err)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"C": 0.0}, "C must be"),
        ({"C_t": 1.2}, "C_t must be"),
        ({"kappa": 0.5}, "kappa must be"),
        ({"alpha": -1.0}, "alpha must be"),
    ],
)
def test_theory_rejects_bad_parameters(kwargs, match):
    args = {"alpha": 1.0, "C": 0.2, "C_t": 0.2, "kappa": 0.05} | kwargs
    with pytest.raises(ValueError, match=match):
        sb.replica(args.pop("alpha"), args.pop("C"), **args)


def test_teacher_samples_spherical_inputs_and_noisy_labels():
    teacher = SparsePerceptron(400, 0.25, kappa=0.1, random_state=0)
    X, y = teacher.sample(4000, random_state=1)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), math.sqrt(400))
    T = X @ teacher.w_o / math.sqrt(400)
    flips = np.mean(y != np.sign(T))
    assert abs(flips - 0.1) < 4 * math.sqrt(0.1 * 0.9 / 4000)
    ov = teacher.overlaps(teacher.w_o)
    assert ov.R == pytest.approx(ov.Q) and ov.eps_g == pytest.approx(0.1)


@pytest.mark.parametrize("activation,width", [("step", 0.0), ("probit", 1.0)])
def test_predict_proba_with_and_without_the_label_noise(activation, width):
    _, X, y = _teacher_data(100, 150, seed=3)
    kappa = 0.1
    clf = SparseBayesClassifier(C=0.2, kappa=kappa, activation=activation, damping=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    _, Xt, _ = _teacher_data(100, 400, seed=4)
    d = clf.decision_function(Xt)
    V = max(clf.C - clf.self_overlap_, 1e-12 * clf.C)
    clean = special.ndtr(d / math.sqrt(V + width**2))
    free = clf.predict_noise_free_proba(Xt)
    np.testing.assert_allclose(free[:, 1], clean, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(free.sum(axis=1), 1.0)
    # the default: the observed label's probability, inside [kappa, 1 - kappa]
    proba = clf.predict_proba(Xt)
    np.testing.assert_allclose(proba[:, 1], kappa + (1 - 2 * kappa) * clean, rtol=1e-12)
    assert proba.min() >= kappa and proba.max() <= 1 - kappa
    if width == 0:  # the step posterior is confident far from the boundary: not clipped
        assert free.min() < kappa / 2 and free.max() > 1 - kappa / 2
    np.testing.assert_array_equal(np.argmax(free, axis=1), np.argmax(proba, axis=1))


def test_noise_free_proba_needs_the_noise_level_of_a_custom_channel():
    class Channel:
        def __init__(self):
            self._inner = SmoothedStepActivation(0.1, 0.0)

        def log_partition(self, h, V):
            return self._inner.log_partition(h, V)

        def probability(self, h, V):
            return self._inner.probability(h, V)

    _, X, y = _teacher_data(60, 80, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = SparseBayesClassifier(activation=Channel()).fit(X, y)
    with pytest.raises(TypeError, match="activation"):
        clf.predict_noise_free_proba(X)
    assert np.all(np.isfinite(clf.predict_proba(X)))

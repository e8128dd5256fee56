"""Adaptive damping of the sparse Bayesian classifier's message passing (issue 26)."""

import math
import warnings

import numpy as np
import pytest

from statmechlearn.datasets import load_colon
from statmechlearn.exceptions import ConvergenceWarning
from statmechlearn.linear import (
    SmoothedStepActivation,
    SparseBayesClassifier,
    SparseBayesClassifierCV,
    sparse_bayes_amp,
)
from statmechlearn.linear._sparse_bayes import _make_activation
from statmechlearn.linear._sparse_bayes_adaptive import (
    MIN_STEP,
    adaptive_amp,
    adaptive_amp_numpy,
    pattern_matrix,
)
from statmechlearn.linear._sparse_bayes_kernels import (
    log_ndtr,
    prior_update,
    prior_update_reference,
    step_channel,
)
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
    np.testing.assert_array_equal(clf.coef_posterior_mean_, out["m"])
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


def _exact_log_ndtr(x):
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(40):
        v = mpmath.mpf(float(x))
        # above 0 through 1 - Phi(-x): ln of a number near 1 keeps the digits of its gap
        return float(mpmath.log1p(-mpmath.ncdf(-v)) if x > 0 else mpmath.log(mpmath.ncdf(v)))


@pytest.mark.parametrize(
    "x",
    [
        *np.linspace(-45.0, 37.0, 165),
        -20.0,
        np.nextafter(-20.0, 0.0),
        np.nextafter(-20.0, -np.inf),
        0.0,
        1e-300,
        -1e-300,
        5.999,
        6.001,
    ],
)
def test_compiled_log_ndtr_against_mpmath(x):
    exact = _exact_log_ndtr(x)
    # erfc(x / sqrt 2) above 0: the rounding of x / sqrt(2) (half an ulp) moves
    # 1 - Phi(x) by x^2 ulps relative, an error of the formula scipy shares, not of the code
    rel = 1e-13 + (x * x * 1e-15 if x > 0 else 0.0)
    assert log_ndtr(x) == pytest.approx(exact, rel=rel, abs=1e-300)


@pytest.mark.parametrize(("kappa", "width"), [(0.0, 0.0), (0.05, 0.0), (0.1, 0.3)])
def test_compiled_channel_matches_log_partition(kappa, width):
    act = SmoothedStepActivation(kappa, width)
    # |x| = |h| / s <= 40: r = exp(-x^2/2 - ln Z) cancels two terms of size x^2 / 2, so
    # any two implementations differ by x^2 ulps there (both references included)
    h = np.linspace(-8.0, 8.0, 2001)
    for V in (0.04, 0.37, 25.0):
        d1, d2 = np.empty_like(h), np.empty_like(h)
        step_channel(h, V, act._log_kappa, act._log_slope, width**2, d1, d2)
        _, ref1, ref2 = act.log_partition(h, V)
        # the reference's log_ndtr and ours differ by ulps; d2 = -(r/s^2)(x + r) cancels
        # where x ~ -r (kappa = 0 far in the wrong tail), so it is held to the scale of r x
        np.testing.assert_allclose(d1, ref1, rtol=1e-12, atol=1e-300)
        scale = np.abs(ref1) * (np.abs(h) / (V + width**2) + np.abs(ref1))
        np.testing.assert_allclose(d2, ref2, rtol=0, atol=1e-12 * scale.max())


def _colon_patterns(seed):
    X, y, _ = load_colon()
    rng = np.random.default_rng(seed)
    keep = rng.permutation(len(y))[:42]
    X = np.log10(X[keep])
    X = (X - X.mean(0)) / X.std(0)
    return pattern_matrix(X, np.where(y[keep] == y[keep][0], 1.0, -1.0))


@pytest.mark.parametrize("data", ["teacher", "colon"])
@pytest.mark.parametrize("C", [0.01, 0.05, 0.2])
@pytest.mark.parametrize("kappa", [0.0, 0.1])
def test_compiled_iteration_follows_its_numpy_twin(data, C, kappa):
    """The same updates, then the same fixed point.

    The two differ by rounding (``log_ndtr``, sums and norms in another order), which the
    step rule amplifies over a hundred updates into a different path; where both
    converge, they converge to the same fixed point, and where both stall (an unstable
    fixed point, e.g. kappa = 0 at C = 0.01 on teacher data) they stop as unconverged.
    """
    if data == "teacher":
        _, X, y = _teacher(400, 300, 7)
        F = pattern_matrix(X, y)
    else:
        F = _colon_patterns(0)
    act = SmoothedStepActivation(kappa)
    got = adaptive_amp(F, C, act, max_iter=400, tol=1e-9, patience=60)
    ref = adaptive_amp_numpy(F, C, act, max_iter=400, tol=1e-9, patience=60)
    np.testing.assert_allclose(got["step"][:20], ref["step"][:20], rtol=1e-7)
    np.testing.assert_allclose(got["change"][:20], ref["change"][:20], rtol=1e-6)
    assert (got["converged"], got["stalled"]) == (ref["converged"], ref["stalled"])
    assert abs(got["n_iter"] - ref["n_iter"]) <= 0.05 * ref["n_iter"] + 2
    if ref["converged"]:
        scale = np.abs(ref["m"]).max()
        for name in ("m", "rho", "a", "omega"):
            np.testing.assert_allclose(got[name], ref[name], rtol=0, atol=1e-8 * max(scale, 1.0))
        assert got["A"] == pytest.approx(ref["A"], rel=1e-8)
        assert got["Gamma"] == pytest.approx(ref["Gamma"], rel=1e-8)


def test_other_channels_and_a_failed_newton_run_the_numpy_iteration(monkeypatch):
    _, X, y = _teacher(200, 200, 3)
    F = pattern_matrix(X, y)

    class Shifted(SmoothedStepActivation):
        """A channel the compiled loop does not know (a subclass may override anything)."""

    ref = adaptive_amp_numpy(F, 0.1, Shifted(0.05), max_iter=100)
    got = adaptive_amp(F, 0.1, Shifted(0.05), max_iter=100)
    np.testing.assert_array_equal(got["m"], ref["m"])
    # a prior update whose Newton fails needs the bracketing reference: the NumPy loop
    import statmechlearn.linear._sparse_bayes_adaptive as adaptive

    def fails(*args):
        return (1, *([None] * 11))

    monkeypatch.setattr(adaptive, "adaptive_step_loop", fails)
    act = SmoothedStepActivation(0.05)
    ref = adaptive_amp_numpy(F, 0.1, act, max_iter=100)
    np.testing.assert_array_equal(adaptive_amp(F, 0.1, act, max_iter=100)["m"], ref["m"])


@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (42, 2000), (300, 40)])
def test_compiled_blas_products_are_numbas_bit_for_bit(shape):
    """The iteration's direct BLAS calls make numba's own '@' and np.dot products."""
    from numba import njit

    from statmechlearn.linear._sparse_bayes_kernels import _dot, _matvec

    @njit
    def reference(F, x, w):
        return F @ x, F.T @ w, np.dot(x, x)

    rng = np.random.default_rng(shape[0])
    F = rng.standard_normal(shape)
    x, w = rng.standard_normal(shape[1]), rng.standard_normal(shape[0])
    Fx, Ftw, xx = reference(F, x, w)
    out, out_t = np.empty(shape[0]), np.empty(shape[1])
    _matvec(F, x, out, 0)
    _matvec(F, w, out_t, 1)
    np.testing.assert_array_equal(out, Fx)
    np.testing.assert_array_equal(out_t, Ftw)
    assert _dot(x, x) == xx
    np.testing.assert_allclose(out, F @ x, rtol=1e-12, atol=1e-12)

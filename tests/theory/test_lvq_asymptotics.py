"""Asymptotic (eta -> 0, eta alpha -> inf) errors and the reference errors of Fig. 3b."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import norm

from statmechlearn._core.exceptions import ConvergenceError
from statmechlearn.theory.lvq_dynamics import (
    asymptotic_error,
    asymptotic_initial_overlaps,
    asymptotic_state,
    bayes_error,
    generalization_error,
    learning_curve,
    order_parameter_rhs,
    trivial_error,
)

LAM = 1.2


def _brute_threshold_error(p, lam, vp, vm):
    mu = lam / np.sqrt(2)
    theta = np.linspace(-30, 30, 600_001)
    err = p * norm.cdf((theta - mu) / np.sqrt(vp)) + (1 - p) * norm.cdf((-mu - theta) / np.sqrt(vm))
    return min(err.min(), (1 - err).min(), p, 1 - p)


@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.8])
@pytest.mark.parametrize(("vp", "vm"), [(1.0, 1.0), (0.5, 1.5), (2.0, 0.3)])
def test_bayes_error_is_the_best_threshold(p, vp, vm):
    expected = _brute_threshold_error(p, LAM, vp, vm)
    assert bayes_error(p_plus=p, lam=LAM, v_plus=vp, v_minus=vm) == pytest.approx(
        expected, abs=1e-9
    )


def test_bayes_error_closed_form_for_equal_priors_and_variances():
    for lam in (0.0, 0.5, 1.2, 3.0):
        assert bayes_error(p_plus=0.5, lam=lam) == pytest.approx(norm.cdf(-lam / np.sqrt(2)))


def test_bayes_error_is_the_best_pair_of_prototypes():
    """Minimising eq. (30) over prototypes in the B-plane reaches bayes_error."""
    p, vp, vm = 0.7, 0.8, 1.3

    def eps(x):
        R = x.reshape(2, 2)
        Q = R @ R.T + 1e-9 * np.eye(2)
        return generalization_error(R, Q, p_plus=p, lam=LAM, v_plus=vp, v_minus=vm)

    best = min(
        minimize(eps, x0, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-13}).fun
        for x0 in ([1.0, 0.0, 0.0, 1.0], [0.5, -0.2, 0.1, 0.7])
    )
    assert best == pytest.approx(bayes_error(p_plus=p, lam=LAM, v_plus=vp, v_minus=vm), abs=1e-7)


def test_trivial_error():
    assert trivial_error(0.3) == pytest.approx(0.3)
    assert trivial_error(0.9) == pytest.approx(0.1)
    with pytest.raises(ValueError, match="p_plus"):
        trivial_error(1.5)


def test_lvq_plus_asymptote_does_not_depend_on_the_priors():
    values = [asymptotic_error("lvq+", p_plus=p, lam=LAM) for p in (0.1, 0.35, 0.5, 0.9)]
    np.testing.assert_allclose(values, values[2], rtol=0, atol=1e-9)
    assert values[2] == pytest.approx(bayes_error(p_plus=0.5, lam=LAM), abs=1e-9)


def test_vq_is_optimal_at_equal_priors_and_tends_to_one_half():
    assert asymptotic_error("vq", p_plus=0.5, lam=LAM) == pytest.approx(
        bayes_error(p_plus=0.5, lam=LAM), abs=1e-9
    )
    edges = [asymptotic_error("vq", p_plus=p, lam=LAM) for p in (0.01, 0.001)]
    assert 0.5 - edges[1] < 0.5 - edges[0] < 0.02


@pytest.mark.parametrize("p", [0.05, 0.2, 0.5, 0.7, 0.95])
def test_lvq1_is_close_to_but_never_below_the_optimum(p):
    lvq1 = asymptotic_error("lvq1", p_plus=p, lam=LAM)
    best = bayes_error(p_plus=p, lam=LAM)
    assert (
        best - 1e-10
        <= lvq1
        < min(trivial_error(p), asymptotic_error("lvq+", p_plus=p, lam=LAM)) + 1e-10
    )
    assert lvq1 - best < 0.01  # the paper's "very close to optimal"


def test_fixed_point_is_stationary_and_in_the_plane():
    st = asymptotic_state("lvq1", p_plus=0.8, lam=LAM)
    dR, dQ = order_parameter_rhs(st.R, st.Q, a=0, b=1, p_plus=0.8, lam=LAM, eta=1e-8)
    assert np.abs(dR).max() < 1e-15 and np.abs(dQ).max() < 1e-15
    # no component orthogonal to B_+-: Q = R R^T
    np.testing.assert_allclose(st.Q, st.R @ st.R.T, atol=1e-8)


def test_small_learning_rate_curves_approach_the_fixed_point_linearly_in_eta():
    target = asymptotic_error("lvq1", p_plus=0.8, lam=LAM)
    gaps = []
    for eta in (0.02, 0.01):
        curve = learning_curve(
            "lvq1",
            [0.0, 600.0 / eta],
            p_plus=0.8,
            lam=LAM,
            eta=eta,
            init=asymptotic_initial_overlaps(),
        )
        gaps.append(curve.eps_g[-1] - target)
    assert gaps[0] > gaps[1] > 0
    assert gaps[0] / gaps[1] == pytest.approx(2.0, rel=0.05)  # O(eta) correction


def test_non_convergence_is_reported_with_diagnostics():
    with pytest.raises(ConvergenceError, match="did not settle") as info:
        asymptotic_state("vq", p_plus=0.6, lam=LAM, max_alpha_tilde=10.0)
    assert {"R", "Q", "residual"} <= set(info.value.diagnostics)


def test_bad_parameters_are_named():
    with pytest.raises(ValueError, match="p_plus"):
        asymptotic_error("lvq1", p_plus=1.0, lam=1.0)
    with pytest.raises(ValueError, match="v_minus"):
        bayes_error(p_plus=0.5, lam=1.0, v_minus=-1.0)
    with pytest.raises(ValueError, match="algorithm"):
        asymptotic_error("lvq3", p_plus=0.5, lam=1.0)


def test_vq_plateau_length_grows_like_log_inverse_tilt_over_kappa():
    from statmechlearn.theory.lvq_dynamics import plateau_instability

    kw = {"p_plus": 0.7, "lam": 1.0, "eta": 0.2}
    plateau = plateau_instability(**kw)
    assert plateau.eps_g == pytest.approx(0.5)
    np.testing.assert_allclose(plateau.R[0], plateau.R[1])
    np.testing.assert_allclose(plateau.R[0], [0.7, 0.3])  # both at the centre of mass
    alpha = np.linspace(0, 1200, 24001)
    lengths = []
    for delta in (1e-5, 1e-7):
        curve = learning_curve("vq", alpha, init=(delta * np.eye(2), 1e-4 * np.eye(2)), **kw)
        lengths.append(alpha[np.argmax(curve.eps_g < 0.45)])
    slope = (lengths[1] - lengths[0]) / np.log(100.0)
    assert slope * plateau.escape_rate == pytest.approx(1.0, rel=0.01)


def test_vq_from_an_exactly_symmetric_start_never_leaves_the_plateau():
    curve = learning_curve("vq", [0, 500], p_plus=0.8, lam=1.0, eta=0.2)
    # the plateau amplifies any rounding asymmetry (1e-16 grows to ~1e-10 by alpha = 500);
    # leaving it would move eps_g by ~0.1
    assert curve.eps_g[-1] == pytest.approx(0.5, abs=1e-6)

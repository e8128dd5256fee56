"""Replica theory of learning with outliers: identities, limits and simulations."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from statmechlearn._core.saddle import newton
from statmechlearn.linear._selection_em import (
    hard_selection_em,
    hard_selection_energy,
    soft_selection_em,
)
from statmechlearn.models.outliers import OutlierMixture
from statmechlearn.theory import _outlier_saddle
from statmechlearn.theory import outliers as theory
from statmechlearn.theory._outlier_kernels import prox_softplus, prox_softplus_numpy

GAMMA = 10.0


def _softplus(t):
    return np.logaddexp(0.0, t)


@settings(max_examples=60, deadline=None)
@given(
    a=st.floats(-40, 40),
    b=st.floats(0.01, 30),
)
def test_prox_is_the_global_maximiser(a, b):
    t = prox_softplus(np.array([a]), b)[0]
    assert t == pytest.approx(prox_softplus_numpy(np.array([a]), b)[0], abs=1e-9)
    grid = np.linspace(a - 1.0, a + b + 1.0, 200001)
    values = _softplus(grid) - (grid - a) ** 2 / (2 * b)
    best = _softplus(t) - (t - a) ** 2 / (2 * b)
    assert best >= values.max() - 1e-9


def test_prox_jumps_at_minus_half_b():
    # for b > 4 the two local maxima tie at a = -b/2 and the maximiser jumps
    b = 8.0
    left, right = prox_softplus(np.array([-4.0 - 1e-9, -4.0 + 1e-9]), b)
    assert left < -1.0 < 1.0 < right
    # for b < 4 it is continuous, and t = 0 at the symmetric point a = -b/2
    left, mid, right = prox_softplus(np.array([-1.5 - 1e-9, -1.5, -1.5 + 1e-9]), 3.0)
    assert mid == pytest.approx(0.0, abs=1e-9)
    assert right - left < 1e-7


@pytest.mark.parametrize("alpha", [0.5, 3.0, 20.0])
def test_hebb_limit(alpha):
    """eta -> -inf: every example informative, J is Hebb's eq. (25), z = 1/(1 + alpha gamma~)."""
    res = theory.soft_selection(alpha, -14.0, gamma=GAMMA)
    hebb = theory.hebb(alpha, -14.0, gamma=GAMMA)
    assert res.n_branches == 1
    assert res.R[0] == pytest.approx(hebb.R, rel=1e-4)
    assert res.Q[0] == pytest.approx(hebb.Q, rel=1e-4)
    assert res.z[0] == pytest.approx(1.0 / (1.0 + alpha * GAMMA), rel=1e-4)


def test_hebb_closed_form_matches_simulation():
    rng = np.random.default_rng(3)
    model = OutlierMixture(400, 0.0, GAMMA)
    X, S, _ = model.sample(800, rng, batch_shape=(6,))
    from statmechlearn.linear._selection_em import hebb_vector

    op = model.order_parameters(hebb_vector(X, S.astype(float), GAMMA))
    th = theory.hebb(2.0, 0.0, gamma=GAMMA)
    for name in ("R", "Q"):
        values = getattr(op, name)
        assert abs(values.mean() - getattr(th, name)) < 4 * values.std(ddof=1) / math.sqrt(6) + 1e-3


def _free_energy(problem, y, eta):
    return problem.observables(np.append(y, eta))[3]


@pytest.mark.parametrize(("alpha", "eta"), [(1.0, 0.0), (20.0, 3.9), (5.0, 2.0)])
@pytest.mark.parametrize("selection", ["soft", "hard"])
def test_saddle_points_are_stationary_points_of_f(selection, alpha, eta):
    """The order-parameter equations are the gradient of the printed free energy (sign check)."""
    func = theory.soft_selection if selection == "soft" else theory.hard_selection
    res = func(alpha, eta, gamma=GAMMA)
    problem, points, _, folds = theory._curve(
        selection, alpha, GAMMA, GAMMA, "exact", *theory._ETA_RANGE
    )
    for u in theory._solutions_at(problem, points, folds, eta):
        y = u[:-1]
        for i in range(y.size):
            dy = np.zeros_like(y)
            dy[i] = 1e-5
            grad = (_free_energy(problem, y + dy, eta) - _free_energy(problem, y - dy, eta)) / 2e-5
            scale = abs(_free_energy(problem, y, eta)) + 1.0
            assert abs(grad) < 1e-6 * scale * 10
    assert res.n_branches >= 1


def test_envelope_identity():
    """f is stationary in R, Q, z: re-solving after eta -> eta + h moves f only at O(h^2)."""
    alpha, eta, h = 5.0, 1.0, 1e-3
    problem, points, _, folds = theory._curve(
        "soft", alpha, GAMMA, GAMMA, "exact", *theory._ETA_RANGE
    )
    (u,) = theory._solutions_at(problem, points, folds, eta)
    (v,) = theory._solutions_at(problem, points, folds, eta + h)
    frozen = _free_energy(problem, u[:-1], eta + h)
    resolved = _free_energy(problem, v[:-1], eta + h)
    first_order = abs(_free_energy(problem, u[:-1], eta) - frozen)
    assert abs(resolved - frozen) < 1e-3 * first_order


def test_all_solutions_found_by_multistart():
    alpha, eta = 20.0, 3.9
    res = theory.soft_selection(alpha, eta, gamma=GAMMA)
    assert res.n_branches == 3
    problem = _outlier_saddle._SoftProblem(alpha, GAMMA, GAMMA, True)
    rng = np.random.default_rng(0)
    for _ in range(25):
        y0 = np.log([rng.uniform(0.01, 1.2), rng.uniform(0.05, 1.5), rng.uniform(0.02, 1.0)])
        sol = newton(lambda y: problem.residual(np.append(y, eta)), y0, raise_on_failure=False)
        if sol.converged:
            R = math.exp(sol.x[0])
            assert np.min(np.abs(res.R - R)) < 1e-6


def test_first_order_transition_structure():
    tr = theory.soft_transition(20.0, gamma=GAMMA)
    lo, hi = sorted(tr.spinodals[:2])
    assert lo < tr.eta_c < hi
    at = theory.soft_selection(20.0, tr.eta_c, gamma=GAMMA)
    f = np.sort(at.free_energy)
    assert at.n_branches == 3
    # the two outer branches are degenerate at eta_c
    assert at.free_energy[0] == pytest.approx(at.free_energy[-1], abs=1e-7)
    assert f[-1] > f[0] + 1e-3  # the middle branch is higher
    below = theory.soft_selection(20.0, tr.eta_c - 0.05, gamma=GAMMA)
    above = theory.soft_selection(20.0, tr.eta_c + 0.05, gamma=GAMMA)
    assert below.global_minimum == 0
    assert above.global_minimum == above.n_branches - 1
    assert above.branch().Phi > below.branch().Phi + 0.1


def test_no_transition_at_small_eta_single_branch():
    res = theory.soft_selection(2.0, 0.0, gamma=GAMMA)
    assert res.n_branches == 1


def test_gaussian_form_agrees_when_b_is_small_and_differs_when_not():
    exact = theory.soft_selection(50.0, 0.0, gamma=GAMMA).branch()
    gauss = theory.soft_selection(50.0, 0.0, gamma=GAMMA, limit="gaussian").branch()
    assert gauss.R == pytest.approx(exact.R, abs=1e-4)
    exact = theory.soft_selection(0.5, 0.0, gamma=GAMMA).branch()
    gauss = theory.soft_selection(0.5, 0.0, gamma=GAMMA, limit="gaussian").branch()
    assert abs(gauss.R - exact.R) > 1e-3


def test_asymptotic_decay_eq29():
    asym = theory.soft_selection_asymptotics(0.0, gamma=GAMMA)
    assert asym.R_inf == pytest.approx(1.0, abs=1e-5)  # matched model: consistent MAP
    predicted = math.sqrt(asym.c) / (math.pi * asym.R_inf)
    ratios = [
        theory.soft_selection(a, 0.0, gamma=GAMMA).branch().Phi * math.sqrt(a)
        for a in (200.0, 2000.0)
    ]
    assert abs(ratios[1] - predicted) < abs(ratios[0] - predicted)
    assert ratios[1] == pytest.approx(predicted, rel=0.01)


def test_hard_trivial_threshold():
    assert theory.hard_trivial_threshold(gamma=10.0) == 0.0
    assert theory.hard_trivial_threshold(gamma=10.0, gamma_student=5.0) == pytest.approx(-1.25)
    below = theory.hard_selection(5.0, -0.01, gamma=GAMMA)
    above = theory.hard_selection(5.0, 0.01, gamma=GAMMA)
    assert not below.trivial.any()
    assert above.trivial.any()
    trivial = np.nonzero(above.trivial)[0][0]
    assert above.free_energy[trivial] == 0.0 and above.Phi[trivial] == 0.5


def test_single_flip_argument_for_eta0():
    """Adding one example to the empty selection changes (10) by eta - eta0 (large N)."""
    rng = np.random.default_rng(1)
    model = OutlierMixture(2000, 0.0, GAMMA)
    X, S, _ = model.sample(50, rng, batch_shape=(1,))
    V = np.zeros((1, 50))
    V[0, 7] = 1.0
    for eta in (-0.5, 0.5):
        dE = hard_selection_energy(X, S.astype(float), V, gamma=GAMMA, eta=eta)[0] * 2000
        assert dE == pytest.approx(eta - theory.hard_trivial_threshold(gamma=GAMMA), abs=0.6)


def test_hard_critical_eta_grows_with_alpha():
    """The paper's finite asymptotic eta_c does not survive: the MAP keeps learning."""
    values = [theory.hard_transition(a, gamma=GAMMA).eta_c for a in (5.0, 50.0, 500.0)]
    assert values[0] < values[1] < values[2]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"alpha": 0.0, "eta": 0.0, "gamma": 1.0},
        {"alpha": 1.0, "eta": math.nan, "gamma": 1.0},
        {"alpha": 1.0, "eta": 0.0, "gamma": -1.0},
        {"alpha": 1.0, "eta": 0.0, "gamma": 1.0, "gamma_student": 0.0},
    ],
)
def test_bad_input(kwargs):
    with pytest.raises(ValueError, match=r"alpha|eta|gamma"):
        theory.soft_selection(**kwargs)
    with pytest.raises(ValueError, match=r"alpha|eta|gamma"):
        theory.hard_selection(**kwargs)


def test_bad_limit():
    with pytest.raises(ValueError, match="limit"):
        theory.soft_selection(1.0, 0.0, gamma=1.0, limit="quadratic")


def _simulate(alpha, eta, n_features, n_runs, seed):
    model = OutlierMixture(n_features, eta, GAMMA)
    X, S, _ = model.sample(
        int(alpha * n_features), np.random.default_rng(seed), batch_shape=(n_runs,)
    )
    return model, X, S.astype(float)


def test_soft_theory_matches_em():
    alpha, eta, n_runs = 2.0, 0.0, 8
    model, X, S = _simulate(alpha, eta, 300, n_runs, seed=11)
    result = soft_selection_em(X, S, gamma=GAMMA, eta=eta)
    op = model.order_parameters(result.J)
    th = theory.soft_selection(alpha, eta, gamma=GAMMA).branch()
    for name in ("R", "Q", "Phi"):
        values = getattr(op, name)
        se = values.std(ddof=1) / math.sqrt(n_runs)
        # finite-N bias is O(1/N) ~ 3e-3
        assert abs(values.mean() - getattr(th, name)) < 4 * se + 3e-3, name


def test_hard_theory_matches_polished_em():
    alpha, eta, n_runs = 20.0, 3.0, 6
    _, X, S = _simulate(alpha, eta, 200, n_runs, seed=5)
    soft = soft_selection_em(X, S, gamma=GAMMA, eta=eta)
    result = hard_selection_em(X, S, gamma=GAMMA, eta=eta, V0=(soft.V > 0.5).astype(float))
    th = theory.hard_selection(alpha, eta, gamma=GAMMA).branch(0)
    selected = result.V.mean(axis=1)
    se = selected.std(ddof=1) / math.sqrt(n_runs)
    assert abs(selected.mean() - th.informative) < 4 * se + 2e-3
    energy = hard_selection_energy(X, S, result.V, gamma=GAMMA, eta=eta)
    # local minima lie above the ground state; the gap and finite N are O(1/sqrt N)
    assert energy.mean() > th.free_energy - 4 * energy.std(ddof=1) / math.sqrt(n_runs)
    assert abs(energy.mean() - th.free_energy) < 0.15 * abs(th.free_energy)
    assert np.all(result.converged)

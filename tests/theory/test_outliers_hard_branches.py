"""Hard selection's branches, eta_learn, the AT (replicon) eigenvalue and App. B (B3)-(B5).

See docs/derivations/outliers_hard_branches.md.
"""

import math
import warnings

import numpy as np
import pytest
from scipy.special import expit

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn.linear._selection_em import soft_selection_em
from statmechlearn.models.outliers import OutlierMixture
from statmechlearn.theory import outliers as th

G = 10.0


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


@pytest.mark.parametrize("alpha", [100.0, 1000.0])
def test_eta_learn_below_eta_c_at_narrow_clouds(alpha):
    t = th.hard_transition(alpha, gamma=G)
    # keeps the public contract
    assert t.spinodals[0] == 0.0 and np.isfinite(t.eta_c)
    # the learning branch loses by a first-order jump to the R ~ 0 state, well below eta_c
    assert t.learn_jump
    assert t.eta_learn < t.eta_learn_spinodal < t.eta_c - 2.0
    assert t.transitions[0] == pytest.approx(t.eta_learn, abs=1e-9)
    # just above eta_learn the global minimum ignores the teacher but is not trivial
    res = th.hard_selection(alpha, t.eta_learn + 0.2, gamma=G)
    state = res.branch()
    assert not res.trivial[res.global_minimum]
    assert state.R / math.sqrt(state.Q) < 0.1 < state.Q
    # just below, it learns
    state = th.hard_selection(alpha, t.eta_learn - 0.2, gamma=G).branch()
    assert state.R / math.sqrt(state.Q) > 0.7


def test_issue_example_alpha_1000_eta_7():
    res = th.hard_selection(1000.0, 7.0, gamma=G)
    s = res.branch()
    assert s.R == pytest.approx(0.0028, abs=5e-4)
    assert s.Q == pytest.approx(1.71, abs=0.02)
    assert s.informative == pytest.approx(5.4e-4, rel=0.05)
    assert th.hard_transition(1000.0, gamma=G).eta_learn < 7.0


def test_eta_learn_equals_eta_c_without_intermediate_state():
    # gamma = 1, alpha = 10: a single S; learning is lost continuously before the trivial jump
    t = th.hard_transition(10.0, gamma=1.0)
    assert not t.learn_jump
    assert t.eta_learn < t.eta_c
    assert t.eta_learn == pytest.approx(t.eta_learn_spinodal, abs=1e-6)
    # at the crossing Phi equals the criterion on the global minimum
    state = th.hard_selection(10.0, t.eta_learn, gamma=1.0).branch()
    assert state.Phi == pytest.approx(t.phi_learn, abs=1e-6)


def test_eta_learn_grows_like_log_alpha():
    values = [th.hard_transition(a, gamma=G).eta_learn for a in (10.0, 100.0, 1000.0)]
    steps = np.diff(values)
    assert np.all(steps > 1.0)  # no finite alpha -> infinity limit


def test_hard_at_eigenvalue_and_rs_flags():
    res = th.hard_selection(1000.0, 7.0, gamma=G)
    for i in range(res.n_branches):
        if res.trivial[i]:
            assert res.at_eigenvalue[i] == 1.0 and res.rs_stable[i]
        else:
            assert res.at_eigenvalue[i] == -math.inf and not res.rs_stable[i]
    t = th.hard_transition(100.0, gamma=G)
    labels = {label for _, _, label in t.rs_unstable}
    assert labels == {f"segment {k}" for k in range(len(t.spinodals))}
    # below eta0 only the learning branch exists, and it is RS-unstable too
    res = th.hard_selection(100.0, -1.0, gamma=G)
    assert res.n_branches == 1 and not res.rs_stable[0]


def test_soft_at_eigenvalue_changes_sign_before_b_reaches_4():
    # soft selection, alpha = 5: stable at small eta, unstable once b = g z grows towards 4
    stable = th.soft_selection(5.0, 1.5, gamma=G)
    assert 0.0 < stable.at_eigenvalue[0] < 1.0
    t = th.soft_transition(5.0, gamma=G)
    lo = min(e for e, _, label in t.rs_unstable if label == "segment 0")
    assert 1.5 < lo < 3.2
    below = th.soft_selection(5.0, lo - 0.02, gamma=G)
    above = th.soft_selection(5.0, lo + 0.02, gamma=G)
    assert below.at_eigenvalue[below.global_minimum] > 0 > above.at_eigenvalue[0]
    b_edge = G * th.soft_selection(5.0, lo, gamma=G).z[0]
    assert b_edge < 4.0


def test_soft_replicon_matches_hessian_of_em_minimum(seed=11):
    """(1/N) tr H^-2 / ((1/N) tr H^-1)^2 = 1 / lambda_AT at the soft MAP (N = 300).

    The theory gives the typical sample, so the test takes the median over 8 samples.
    Measured over 3000 samples at N = 300: the trace is z (1 + 0.003) with a spread of
    4.4 % per sample, and the ratio is 1 / lambda (1 + 0.0014) with a spread of 0.87 %.
    The spread's tail is long: the largest trace was 1.16 z, and a CI run drew a pair whose
    mean was 1.17 z. The median of 8 has a spread of 1.8 % on the trace and 0.35 % on the
    ratio over 375 groups (largest deviations 5.3 % and 1.2 %). The tolerances below are
    5 of those spreads plus the bias.
    """
    alpha, eta, N, n_samples = 5.0, 1.5, 300, 8
    res = th.soft_selection(alpha, eta, gamma=G)
    lam, z = res.at_eigenvalue[0], res.z[0]
    model = OutlierMixture(N, eta, G)
    X, S, _ = model.sample(round(alpha * N), np.random.default_rng(seed), batch_shape=(n_samples,))
    S = S.astype(float)
    em = soft_selection_em(X, S, gamma=G, eta=eta, max_iter=3000)
    ratios, traces = [], []
    for r in range(n_samples):
        J, Xs = em.J[r], X[r] * S[r][:, None]
        Q = J @ J / N
        s = expit(G * (Xs @ J) / math.sqrt(N) - G * Q / 2.0 - eta)
        grad = G * (Xs / math.sqrt(N) - J[None, :] / N)
        H = np.eye(N) * (1.0 + G * s.sum() / N) - (grad * (s * (1.0 - s))[:, None]).T @ grad
        ev = np.linalg.eigvalsh(H)
        t1, t2 = np.mean(1.0 / ev), np.mean(1.0 / ev**2)
        traces.append(t1)
        ratios.append(t2 / t1**2)
    assert np.median(traces) == pytest.approx(z, rel=0.10)
    assert np.median(ratios) == pytest.approx(1.0 / lam, rel=0.02)
    assert np.median(ratios) > 1.02  # resolves 1/lambda - 1 = 0.052 from 0 (9 spreads)


@pytest.mark.parametrize(
    ("gamma", "gamma_student", "alpha", "eta"),
    [
        (10.0, 10.0, 1000.0, 5.0),
        (10.0, 10.0, 1000.0, 7.0),
        (10.0, 10.0, 1e4, 5.0),
        (2.0, 4.0, 30.0, 3.0),
    ],
)
def test_b3_b4_against_the_saddle_points(gamma, gamma_student, alpha, eta):
    branches = th.hard_hat_parameters(alpha, eta, gamma=gamma, gamma_student=gamma_student)
    assert branches
    kw = {"gamma": gamma, "gamma_student": gamma_student}
    for h in branches:
        args = (h.R_hat, h.Q_hat, h.z_hat)
        printed = th.hard_b4_order_parameters(*args, **kw)
        fixed = th.hard_b4_order_parameters(*args, **kw, corrected=True)
        # R of (B4) as printed, with z^ = -rho, is the saddle point's R
        assert printed.R == pytest.approx(h.R, rel=1e-7, abs=1e-12)
        assert fixed.Q_mean == pytest.approx(h.Q, rel=1e-7, abs=1e-12)
        f3 = th.hard_b3_free_energy(*args, eta=eta, **kw, corrected=True)
        assert f3 == pytest.approx(h.free_energy, rel=1e-7, abs=1e-10)
        # the printed diagonal weight is half the right one: Q_mean too small by Q^/D^2 terms
        assert printed.Q_mean < h.Q
        assert th.hard_b3_free_energy(*args, eta=eta, **kw) > h.free_energy


def test_b3_as_printed_gives_eq30():
    # d f_B3 / d Q^ at Q^ = R^ = z^ = 0 vanishes at the paper's eta0 = g~^2/(4g) - g~/2
    eta0 = G / 4.0 - G / 2.0
    eps = 1e-7
    slope = th.hard_b3_free_energy(0.0, eps, 0.0, eta=eta0, gamma=G) / eps
    assert slope == pytest.approx(0.0, abs=1e-5)
    corrected = th.hard_b3_free_energy(0.0, eps, 0.0, eta=0.0, gamma=G, corrected=True) / eps
    assert corrected == pytest.approx(0.0, abs=1e-5)  # eta0 = 0 (hard_trivial_threshold)


def test_b5_readings():
    # neither reading of Phi[.] in (B5) has a root for gamma <= 0.3 or a jump at 0.278
    for reading in ("cdf", "erf"):
        for gamma in (0.1, 0.2, 0.278, 0.3):
            assert th.hard_b5_roots(gamma=gamma, reading=reading) == ()
    assert len(th.hard_b5_roots(gamma=1.0, reading="erf")) == 1
    assert th.hard_b5(1.0, gamma=1.0) == pytest.approx(th.hard_b5(1.0, gamma=1.0, reading="cdf"))
    with pytest.raises(ValueError, match="reading"):
        th.hard_b5(1.0, gamma=1.0, reading="bogus")

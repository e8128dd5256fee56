import numpy as np
import pytest

from statmechlearn.papers.lvq._common import simulate_learning_curve
from statmechlearn.theory.lvq_dynamics import (
    WTA_ALGORITHMS,
    generalization_error,
    learning_curve,
    order_parameter_rhs,
)

LABELS = np.array([1.0, -1.0])


def _random_overlaps(rng):
    while True:
        R = rng.normal(0.0, 0.5, (2, 2))
        A = rng.normal(0.0, 0.4, (2, 2))
        Q = R @ R.T + A @ A.T + 0.05 * np.eye(2)
        if Q[0, 0] + Q[1, 1] - 2 * Q[0, 1] > 0.1:
            return R, Q


@pytest.mark.parametrize("algorithm", ["lvq1", "lvq+", "vq"])
def test_rhs_equals_monte_carlo_average_of_the_exact_recursion(algorithm):
    """Average the one-step recursion (5) over sampled projections, compare with the ODE."""
    rng = np.random.default_rng(12)
    a, b = WTA_ALGORITHMS[algorithm]
    p_plus, lam, eta, v = 0.65, 1.3, 0.7, np.array([0.6, 1.7])
    R, Q = _random_overlaps(rng)
    n = 400_000
    sigma_idx = (rng.random(n) >= p_plus).astype(int)
    sigma = LABELS[sigma_idx]
    C = np.block([[Q, R], [R.T, np.eye(2)]])
    Lc = np.linalg.cholesky(C + 1e-14 * np.eye(4))
    z = rng.standard_normal((n, 4)) @ Lc.T
    mu = np.empty((2, 4))
    mu[:, :2] = lam * R.T
    mu[:, 2:] = lam * np.eye(2)
    x = mu[sigma_idx] + np.sqrt(v[sigma_idx])[:, None] * z
    h, bproj = x[:, :2], x[:, 2:]
    d = -2 * h + np.diag(Q)[None, :]  # d_S minus the common xi^2
    winner = np.where(d[:, 0] < d[:, 1], 0, 1)
    theta = np.zeros((n, 2))
    theta[np.arange(n), winner] = 1.0
    g = a + b * LABELS[None, :] * sigma[:, None]  # g[n, l]
    incr_R = eta * (theta * g)[:, :, None] * (bproj[:, None, :] - R[None])
    tg = (theta * g)[:, :, None]
    incr_Q = eta * (tg * (h[:, None, :] - Q[None]))
    incr_Q = incr_Q + np.swapaxes(incr_Q, 1, 2)
    noise = eta**2 * theta * g**2 * v[sigma_idx][:, None]
    incr_Q[:, 0, 0] += noise[:, 0]
    incr_Q[:, 1, 1] += noise[:, 1]
    dR, dQ = order_parameter_rhs(
        R, Q, a=a, b=b, p_plus=p_plus, lam=lam, eta=eta, v_plus=v[0], v_minus=v[1]
    )
    for mc, th in ((incr_R, dR), (incr_Q, dQ)):
        mean = mc.mean(0)
        se = mc.std(0, ddof=1) / np.sqrt(n)
        assert np.all(np.abs(mean - th) <= 5 * se + 1e-12), (mean, th, se)


def test_lvq_plus_eta2_term_counts_only_own_class():
    """With a = b = 1/2, g^2 = Theta(l sigma): the eta^2 term is p_l v_l <Theta_l>_l."""
    rng = np.random.default_rng(3)
    R, Q = _random_overlaps(rng)
    kw = {"a": 0.5, "b": 0.5, "p_plus": 0.8, "lam": 1.0, "v_plus": 0.7, "v_minus": 1.4}
    _, dQ1 = order_parameter_rhs(R, Q, eta=1.0, **kw)
    _, dQ2 = order_parameter_rhs(R, Q, eta=2.0, **kw)
    eta2_coeff = np.diag(dQ2 - 2 * dQ1) / 2.0  # dQ = eta*M + eta^2*noise
    from statmechlearn._core.gauss import Phi

    spread = np.sqrt(Q[0, 0] + Q[1, 1] - 2 * Q[0, 1])
    expected = []
    for s, S in enumerate(LABELS):
        v = kw["v_plus"] if S > 0 else kw["v_minus"]
        p = kw["p_plus"] if S > 0 else 1 - kw["p_plus"]
        beta = 2 * S * kw["lam"] * (R[0, s] - R[1, s]) - S * (Q[0, 0] - Q[1, 1])
        expected.append(p * v * Phi(beta / (2 * np.sqrt(v) * spread)))
    np.testing.assert_allclose(eta2_coeff, expected, rtol=1e-10)


def test_eq30_has_the_factor_two_that_eq8_lacks():
    # equal self-overlaps, R_{++} - R_{-+} = 1/2, lam = 1, |w+ - w-|^2 = 1:
    # eq. (30) gives Phi(-1/2) for class +; eq. (8) as printed would give Phi(-1).
    R = np.array([[0.5, 0.0], [0.0, 0.5]])
    Q = np.array([[0.5, 0.0], [0.0, 0.5]])
    from statmechlearn._core.gauss import Phi

    eps = generalization_error(R, Q, p_plus=0.5, lam=1.0)
    assert eps == pytest.approx(Phi(-0.5), rel=1e-12)
    assert abs(eps - Phi(-1.0)) > 0.1


def test_symmetric_problem_stays_symmetric():
    curve = learning_curve("lvq1", np.linspace(0, 20, 5), p_plus=0.5, lam=1.0, eta=0.3)
    np.testing.assert_allclose(curve.R[:, 0, 0], curve.R[:, 1, 1], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(curve.R[:, 0, 1], curve.R[:, 1, 0], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(curve.Q[:, 0, 0], curve.Q[:, 1, 1], rtol=1e-6, atol=1e-9)


def test_shapes_and_paper_initial_condition():
    c = learning_curve("LVQ1", [0.0, 1.0, 2.0], p_plus=0.8, lam=1.0, eta=0.2)
    assert c.R.shape == (3, 2, 2) and c.Q.shape == (3, 2, 2) and c.eps_g.shape == (3,)
    np.testing.assert_array_equal(c.R[0], 0.0)
    np.testing.assert_array_equal(c.Q[0], np.diag([1e-4, 1e-4]))
    assert c.eps_g[0] == pytest.approx(0.5)
    assert c.algorithm == "lvq1" and (c.a, c.b) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"algorithm": "lvq3"}, "algorithm must be one of"),
        ({"p_plus": 1.0}, r"p_plus must be in \(0, 1\)"),
        ({"eta": 0.0}, r"eta must be in \(0, inf\)"),
        ({"lam": np.nan}, "lam must be finite"),
        ({"alphas": [1.0, 0.5]}, "non-decreasing"),
        ({"init": (np.zeros((2, 2)), np.zeros((2, 2)))}, "distinct prototypes"),
        ({"init": (np.eye(2), np.eye(2) * 0.1)}, "not realisable"),
    ],
)
def test_bad_input_is_named(kwargs, match):
    args = {"algorithm": "lvq1", "alphas": [0.0, 1.0], "p_plus": 0.5, "lam": 1.0, "eta": 0.1}
    args |= kwargs
    algorithm = args.pop("algorithm")
    alphas = args.pop("alphas")
    with pytest.raises(ValueError, match=match):
        learning_curve(algorithm, alphas, **args)


@pytest.mark.parametrize(
    ("rule", "p_plus", "v_plus", "v_minus"),
    [("lvq1", 0.8, 1.0, 1.0), ("lvq+", 0.7, 0.6, 1.4)],
)
def test_ode_agrees_with_simulation_at_n200(rule, p_plus, v_plus, v_minus):
    """Mean over 40 runs at N = 200 within 4.5 standard errors of the run-to-run spread.

    28 comparisons per case: with Gaussian means the chance that any exceeds 4.5 SE is
    below 2e-4; the O(1/N) finite-size bias measured at N = 200 is under one SE.
    """
    alphas = np.array([0.0, 2.0, 5.0, 10.0, 20.0])
    lam, eta, n_runs, N = 1.0, 0.2, 40, 200
    rng = np.random.default_rng(2024)
    R, Q, eps = simulate_learning_curve(
        rule,
        alphas,
        n_features=N,
        p_plus=p_plus,
        lam=lam,
        eta=eta,
        rng=rng,
        v_plus=v_plus,
        v_minus=v_minus,
        n_runs=n_runs,
    )
    th = learning_curve(
        rule, alphas, p_plus=p_plus, lam=lam, eta=eta, v_plus=v_plus, v_minus=v_minus
    )
    for sim, theory in ((R, th.R), (Q, th.Q), (eps, th.eps_g)):
        mean = sim[:, 1:].mean(0)
        se = sim[:, 1:].std(0, ddof=1) / np.sqrt(n_runs)
        z = np.abs(mean - theory[1:]) / se
        assert np.all(z < 4.5), z


def test_theory_and_kernel_name_the_same_rules():
    # theory may not import lvq (layering), so the (a, b) table exists twice: keep them equal
    from statmechlearn.lvq import WTA_RULES

    assert WTA_RULES == WTA_ALGORITHMS

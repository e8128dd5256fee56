"""Random-walk Metropolis–Hastings: exact moments, tuned acceptance, frozen kernel, errors."""

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from statmechlearn.inference import MetropolisResult, metropolis_hastings

# Per-chain estimates of independent chains are compared within z_limit standard errors:
# the Student-t quantile at a family-wise false-alarm rate of 1e-4 over the entries compared.


def z_limit(n_compared, n_chains, alpha=1e-4):
    return float(stats.t.isf(alpha / (2 * n_compared), n_chains - 1))


def _std_normal(x):
    return -0.5 * np.sum(x**2, axis=1)


def _iid_acceptance(scale, d):
    """Stationary acceptance of the isotropic walk ``N(0, scale^2 I)`` on ``N(0, I_d)``.

    Given the step ``z``, ``log p(x + z) - log p(x) ~ N(-r^2/2, r^2)`` with ``r = |z|``, and
    ``E min(1, e^D) = 2 Phi(-r/2)``; ``r^2 = scale^2 chi2_d``.
    """

    def f(q):
        return 2.0 * stats.norm.cdf(-scale * math.sqrt(q) / 2.0) * stats.chi2.pdf(q, d)

    return integrate.quad(f, 0.0, np.inf, limit=200)[0]


def _gaussian(mu, cov):
    prec = np.linalg.inv(cov)

    def log_density(x):
        r = x - mu
        return -0.5 * np.einsum("ci,ij,cj->c", r, prec, r)

    return log_density


def test_moments_of_a_correlated_gaussian():
    mu = np.array([1.0, -2.0, 0.5])
    cov = np.array([[1.0, 0.6, 0.2], [0.6, 2.0, -0.3], [0.2, -0.3, 0.5]])
    rng = np.random.default_rng(7)
    B = 24
    start = rng.multivariate_normal(mu, cov, size=B)  # stationary from the first step
    res = metropolis_hastings(
        _gaussian(mu, cov), start, n_draws=3000, n_chains=B, n_tune=500, random_state=rng
    )
    assert isinstance(res, MetropolisResult)
    assert res.draws.shape == (B, 3000, 3) and res.log_density.shape == (B, 3000)
    means = res.draws.mean(axis=1)  # (B, d)
    second = np.einsum("bti,btj->bij", res.draws - mu, res.draws - mu) / 3000
    est = np.concatenate([means, second.reshape(B, -1)], axis=1)
    exact = np.concatenate([mu, cov.ravel()])
    z = (est.mean(axis=0) - exact) / (est.std(axis=0, ddof=1) / math.sqrt(B))
    assert np.abs(z).max() < z_limit(z.size, B), z
    np.testing.assert_allclose(
        res.log_density, _gaussian(mu, cov)(res.draws.reshape(-1, 3)).reshape(B, -1)
    )
    assert np.all(res.r_hat < 1.05) and np.all(res.ess > 0)


@pytest.mark.parametrize(("d", "target"), [(1, 0.44), (4, 0.234)])
def test_tuning_reaches_the_target_acceptance_then_freezes(d, target):
    B = 32
    rng = np.random.default_rng(d)
    res = metropolis_hastings(
        _std_normal,
        rng.standard_normal((B, d)),
        n_draws=2000,
        n_chains=B,
        n_tune=2000,
        random_state=rng,
    )
    assert res.target_acceptance == target
    # the kept chain runs at the frozen scale: its acceptance is that scale's exact one
    exact = _iid_acceptance(res.proposal_scale, d)
    se = res.acceptance_rate.std(ddof=1) / math.sqrt(B)
    assert abs(res.acceptance_rate.mean() - exact) < z_limit(1, B) * se
    # and the frozen scale is near the one of the target acceptance (tuning noise:
    # averaged Robbins-Monro iterates over 32 chains, a few per cent at most)
    best = optimize.brentq(lambda s: _iid_acceptance(s, d) - target, 0.05, 20.0)
    assert res.proposal_scale == pytest.approx(best, rel=0.05)
    np.testing.assert_allclose(res.proposal_cov, res.proposal_scale**2 * np.eye(d))


def test_a_given_scale_is_kept_unless_a_target_is_given():
    res = metropolis_hastings(
        _std_normal, np.zeros(2), n_draws=50, proposal_scale=0.3, random_state=0
    )
    assert res.proposal_scale == 0.3 and math.isnan(res.target_acceptance)
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    res = metropolis_hastings(
        _std_normal,
        np.zeros(2),
        n_draws=50,
        n_tune=300,
        proposal_scale=cov,
        target_acceptance=0.3,
        random_state=0,
    )
    assert res.proposal_scale != 1.0 and res.target_acceptance == 0.3
    np.testing.assert_allclose(res.proposal_cov, res.proposal_scale**2 * cov)
    # no tuning steps: "auto" keeps its start 2.38 / sqrt(d)
    res = metropolis_hastings(_std_normal, np.zeros(4), n_draws=10, n_tune=0, random_state=0)
    assert res.proposal_scale == pytest.approx(2.38 / 2) and math.isnan(res.target_acceptance)


def test_per_point_callable_gives_the_same_chain():
    def one(x):
        return -0.5 * float(np.sum(x**2))

    kw = {"n_draws": 30, "n_chains": 3, "n_tune": 20, "random_state": 5}
    a = metropolis_hastings(_std_normal, np.ones(2), **kw)
    b = metropolis_hastings(one, np.ones(2), vectorized=False, **kw)
    # the same uniforms decide; a rounding difference in log p would move only the tuned scale
    np.testing.assert_allclose(a.draws, b.draws, rtol=1e-12, atol=1e-14)
    c = metropolis_hastings(_std_normal, np.ones(2), **kw)
    np.testing.assert_array_equal(a.draws, c.draws)


def test_zero_density_proposals_are_rejected():
    # uniform on [0, 1]^2: mean 1/2, variance 1/12, nothing outside
    def box(x):
        inside = np.all((x >= 0.0) & (x <= 1.0), axis=1)
        return np.where(inside, 0.0, -np.inf)

    B = 16
    rng = np.random.default_rng(3)
    res = metropolis_hastings(
        box, rng.random((B, 2)), n_draws=2000, n_chains=B, n_tune=200, random_state=rng
    )
    assert np.all((res.draws >= 0.0) & (res.draws <= 1.0))
    est = np.concatenate([res.draws.mean(axis=1), res.draws.var(axis=1)], axis=1)
    exact = np.array([0.5, 0.5, 1 / 12, 1 / 12])
    z = (est.mean(axis=0) - exact) / (est.std(axis=0, ddof=1) / math.sqrt(B))
    assert np.abs(z).max() < z_limit(z.size, B), z


def test_bad_arguments_are_refused_by_name():
    ok = np.zeros(2)
    with pytest.raises(ValueError, match=r"\binit\b.*finite"):
        metropolis_hastings(_std_normal, [0.0, np.nan])
    with pytest.raises(ValueError, match=r"init has 3 rows"):
        metropolis_hastings(_std_normal, np.zeros((3, 2)), n_chains=4)
    with pytest.raises(ValueError, match=r"\binit\b.*empty"):
        metropolis_hastings(_std_normal, [])
    with pytest.raises(ValueError, match=r"log_density must be finite at init"):
        metropolis_hastings(lambda x: np.full(len(x), np.nan), ok)
    with pytest.raises(ValueError, match=r"log_density must be finite at init"):
        metropolis_hastings(lambda x: np.full(len(x), -np.inf), ok)
    with pytest.raises(ValueError, match=r"log_density must be finite at init"):
        metropolis_hastings(lambda x: np.full(len(x), np.inf), ok)
    with pytest.raises(ValueError, match=r"log_density must return shape \(4,\).*vectorized"):
        metropolis_hastings(lambda x: 0.0, ok)
    with pytest.raises(TypeError, match=r"log_density must be callable"):
        metropolis_hastings(None, ok)
    with pytest.raises(ValueError, match=r"proposal_scale.*positive definite"):
        metropolis_hastings(_std_normal, ok, proposal_scale=np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match=r"proposal_scale.*shape \(2, 2\)"):
        metropolis_hastings(_std_normal, ok, proposal_scale=np.eye(3))
    with pytest.raises(ValueError, match=r"proposal_scale must be 'auto'"):
        metropolis_hastings(_std_normal, ok, proposal_scale="optimal")
    with pytest.raises(ValueError, match=r"proposal_scale"):
        metropolis_hastings(_std_normal, ok, proposal_scale=0.0)
    with pytest.raises(ValueError, match=r"target_acceptance"):
        metropolis_hastings(_std_normal, ok, target_acceptance=1.0)
    with pytest.raises(ValueError, match=r"n_draws"):
        metropolis_hastings(_std_normal, ok, n_draws=3)
    with pytest.raises(TypeError, match=r"vectorized"):
        metropolis_hastings(_std_normal, ok, vectorized="yes")


def test_nan_during_the_run_is_an_error():
    # finite at the start, NaN once a chain leaves the unit ball
    def bad(x):
        r = np.sum(x**2, axis=1)
        return np.where(r < 1.0, -r, np.nan)

    with pytest.raises(ValueError, match=r"log_density returned nan"):
        metropolis_hastings(bad, np.zeros(2), n_draws=200, proposal_scale=1.0, random_state=0)

"""Chain diagnostics on ArviZ: exact references, degenerate traces, the deprecated window."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.signal import lfilter

from statmechlearn.inference import effective_sample_size, integrated_autocorrelation_time, r_hat


def _ar1(phi, n_chains, n_draws, seed):
    """Stationary AR(1) chains ``x_t = phi x_{t-1} + e_t``: ``tau = (1 + phi) / (1 - phi)``."""
    rng = np.random.default_rng(seed)
    e = rng.standard_normal((n_chains, n_draws))
    e[:, 0] /= np.sqrt(1.0 - phi**2)  # start in the stationary distribution
    return lfilter([1.0], [1.0, -phi], e, axis=1)


@pytest.mark.parametrize("phi", [0.0, 0.5, 0.8])
def test_autocorrelation_time_of_ar1(phi):
    B, n = 4, 20_000
    x = _ar1(phi, B, n, seed=int(phi * 10))
    tau = integrated_autocorrelation_time(x)
    expected = (1 + phi) / (1 - phi)
    # Sokal's variance of a windowed sum, 2 (2M + 1) / N, bounds Geyer's truncated sum
    # (M below 5 tau; 100 replicates measured 0.7 of the bound): 4 of these is a safe band
    rel_se = np.sqrt(2 * (2 * 5 * expected + 1) / (B * n))
    assert tau == pytest.approx(expected, rel=4 * rel_se)
    # tau is the draws over the ESS of the trace itself, exactly
    assert effective_sample_size(x, method="mean") == pytest.approx(B * n / tau, rel=1e-12)
    # the bulk ESS ranks the draws first: for a Gaussian trace about the same number
    assert effective_sample_size(x) == pytest.approx(B * n / expected, rel=4 * rel_se)


def test_r_hat_of_independent_chains_is_near_one():
    # i.i.d. draws: the 8 split halves of n draws give R^2 = (n-1)/n + F/n with F the
    # ratio of between- to within-half variance, F ~ chi2_7 / 7
    m, n_draws = 4, 2000
    n = n_draws // 2
    bound = np.sqrt((n - 1) / n + stats.chi2.isf(1e-6, 2 * m - 1) / (2 * m - 1) / n)
    for seed in range(5):
        x = np.random.default_rng(seed).standard_normal((m, n_draws))
        assert 1.0 - 1e-3 < r_hat(x) < bound


def test_r_hat_detects_shifted_and_stuck_chains():
    x = np.random.default_rng(0).standard_normal((4, 1000))
    x[0] += 3.0
    assert r_hat(x) > 1.1
    # the folded (tail) R-hat sees chains that differ in scale only
    y = np.random.default_rng(1).standard_normal((4, 1000))
    y[0] *= 4.0
    assert r_hat(y) > 1.01
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(r_hat(np.ones((2, 10))))
        assert r_hat(np.repeat([[0.0], [1.0]], 10, axis=1)) == np.inf


def test_constant_trace_and_scale_invariance():
    assert integrated_autocorrelation_time(np.full((2, 50), 3.0)) == 1.0
    assert effective_sample_size(np.full((2, 50), 3.0)) == 100.0
    x = _ar1(0.5, 2, 400, seed=3)
    assert r_hat(x * 1e300) == pytest.approx(r_hat(x), rel=1e-12)
    assert effective_sample_size(x * 1e300) == pytest.approx(effective_sample_size(x), rel=1e-9)
    # a single chain is one row
    assert integrated_autocorrelation_time(x[0]) == integrated_autocorrelation_time(x[:1])


def test_short_and_invalid_traces_are_refused_by_name():
    with pytest.raises(ValueError, match="at least 4"):
        r_hat(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="at least 2 chains"):
        r_hat(np.arange(10.0))
    with pytest.raises(ValueError, match="at least 4"):
        effective_sample_size(np.arange(3.0))
    with pytest.raises(ValueError, match="at least 2"):
        integrated_autocorrelation_time([1.0])
    # 2 or 3 draws: too few for split chains, but not an error (SamplingResult keeps them)
    assert np.isnan(integrated_autocorrelation_time([[1.0, 2.0, 0.5], [0.0, 1.0, 3.0]]))
    with pytest.raises(ValueError, match="finite"):
        integrated_autocorrelation_time([1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="method"):
        effective_sample_size(np.arange(10.0), method="geyer")
    with pytest.raises(ValueError, match=r"x must have shape"):
        r_hat(np.zeros((2, 3, 4)))


def test_window_constant_is_deprecated():
    x = _ar1(0.5, 2, 200, seed=4)
    with pytest.warns(FutureWarning, match="c .* unused"):
        tau = integrated_autocorrelation_time(x, c=5.0)
    assert tau == integrated_autocorrelation_time(x)
    with pytest.warns(FutureWarning, match="unused"):
        effective_sample_size(x, 7.0)
    with pytest.raises(ValueError, match=r"\bc\b"):
        integrated_autocorrelation_time(x, c=-1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        integrated_autocorrelation_time(x)


def test_importing_inference_does_not_import_arviz():
    code = (
        "import sys, statmechlearn.inference; "
        "print(any(m.split('.')[0] in ('arviz', 'arviz_stats') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_missing_arviz_names_the_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "arviz_stats.base", None)
    with pytest.raises(ImportError, match="pip install arviz-stats"):
        r_hat(np.random.default_rng(0).standard_normal((2, 10)))

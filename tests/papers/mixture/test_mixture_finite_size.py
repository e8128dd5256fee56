"""The mixture's finite-size ladder below sigma_AT: its energy convention and its plumbing."""

import dataclasses
import math
import types

import matplotlib
import numpy as np
import pytest

from statmechlearn.cluster import two_centre_fixed_points
from statmechlearn.experiments import evaluate_checks, get, run_experiment
from statmechlearn.models import TwoGaussians
from statmechlearn.papers.mixture import finite_size
from statmechlearn.papers.mixture._common import _ground, annealed_fixed_points
from statmechlearn.papers.mixture.finite_size import _ENERGY_CONTROL, _RSB_CASES, FSS_CASES

matplotlib.use("Agg")


def test_da_energy_is_the_theory_energy_per_pattern():
    # the theory's E/P is q / (2 sigma) - < ln cosh(dU.(S - m) / sigma) > relative to the
    # unsplit state, with the midpoint m of the centres at the sample mean; the ML fixed
    # point also moves its midpoint, along dU by -<tanh> dU (an O(1/N) shift), which adds
    # |m - mean|^2 / (2 sigma): the fixed point's energy must be exactly that
    rng = np.random.default_rng(5)
    model = TwoGaussians(40, u0=2.0)
    S, _ = model.sample(40, rng)
    sigma = 0.8
    dU, energy, converged = annealed_fixed_points(S, [sigma], rng)
    assert converged.all()
    fp = two_centre_fixed_points(S, sigma, dU, max_iter=20000, tol=1e-14)
    midpoint = fp.means[0].mean(axis=0)
    h = (S - midpoint) @ dU[0]
    log_cosh = np.logaddexp(h / sigma, -h / sigma) - math.log(2.0)
    shift = midpoint - S.mean(axis=0)
    q = float(dU[0] @ dU[0])
    direct = (shift @ shift + q) / (2.0 * sigma) - log_cosh.mean()
    assert q > 0.1  # split: the comparison is not at the trivial state
    assert energy[0] == pytest.approx(direct, rel=1e-10)
    # the midpoint's shift is -<tanh(h / sigma)> dU: O(1/sqrt(N)), its energy O(1/N)
    np.testing.assert_allclose(shift, -np.tanh(h / sigma).mean() * dU[0], atol=1e-6)


def _fake_rsb_ground(alpha, sigma, u0):
    # a stand-in for the 1RSB solve (seconds per width), shifted from RS as 1RSB is:
    # the test is of the ladder's plumbing; tests/theory/test_ml_mixture_1rsb.py tests
    # the theory
    rs = _ground(alpha, sigma, u0)
    return types.SimpleNamespace(R=rs.R + 0.005, energy=rs.energy + 0.001, delta=0.1)


def test_rsb_ladder_runs_pairs_and_reports(tmp_path, monkeypatch):
    monkeypatch.setattr(finite_size, "_rsb_ground", _fake_rsb_ground)
    base = get("mixture-fss")
    small = dict(
        base.settings["quick"],
        n_seeds=6,
        n_max=100,
        n_seeds_minima=2,
        n_max_minima=50,
        n_seeds_rsb=6,
        n_max_rsb=200,
    )
    spec = dataclasses.replace(
        base, name="mixture-fss-small", settings={"quick": small, "full": small}
    )
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    spec.plot(ds)
    matplotlib.pyplot.close("all")
    for case in _RSB_CASES:
        d = ds.sel(case=case)
        done = d["sim_done"].values
        assert done.sum() == 6 + 3 + 2
        # the paired variables are the differences the checks extrapolate
        beta = _ENERGY_CONTROL[case]
        np.testing.assert_array_equal(
            d["sim_dr"].values[done], (d["sim_r"] - d["sim_r_ref"]).values[done]
        )
        np.testing.assert_allclose(
            d["sim_de"].values[done],
            (d["sim_energy"] - beta * d["sim_energy_ref"]).values[done],
            rtol=0,
            atol=1e-14,
        )
        # DA at its best is never above DA
        assert np.all(d["sim_energy_best"].values[done] <= d["sim_energy"].values[done])
        assert set(np.unique(d["sim_beaten"].values[done])) <= {0.0, 1.0}
        # the theory of the case and its reference width
        _, sigma, u0 = FSS_CASES[case]
        theory = d.isel(n_features=0)
        assert float(theory["theory_r_1rsb"]) == _ground(1.0, sigma, u0).R + 0.005
        assert float(theory["theory_r_ref"]) == _ground(1.0, 2.6, u0).R
    results = evaluate_checks(spec, ds)
    paired = "r of DA at α = 1, σ = 1, paired with DA at σ = 2.6 on the same sample"
    minus_rsb = next(r for r in results if r.quantity.startswith(paired) and "1RSB" in r.quantity)
    minus_rs = next(r for r in results if r.quantity.startswith(paired) and "RS (z" in r.quantity)
    # one extrapolation against the two theories: they differ by the fake 1RSB shift
    assert minus_rs.simulation - minus_rsb.simulation == pytest.approx(0.005, abs=1e-12)
    assert minus_rs.observed_se == minus_rsb.observed_se > 0
    # the paired estimate is shifted back to r: within its error of the theory's r
    assert abs(minus_rsb.simulation) < 5 * minus_rsb.observed_se + 0.05
    bounds = [r for r in results if "not below −4" in r.quantity]
    assert len(bounds) == 4 and all(np.isfinite(r.simulation) for r in bounds)
    assert all(r.passed == (r.simulation >= -4) for r in bounds)
    rsb_rows = {c.quantity for case in _RSB_CASES for c in finite_size._rsb_checks(case)}
    for r in results:
        if r.reported and r.quantity in rsb_rows:
            shown = r.theory if r.simulation is None else r.simulation
            assert shown is not None and np.isfinite(shown), r.quantity

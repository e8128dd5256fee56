"""The mixture paper's Monte Carlo figures at small sizes, and their check logic."""

import dataclasses
import types

import matplotlib
import numpy as np
import pytest

from statmechlearn.cluster import two_centre_fixed_points
from statmechlearn.exceptions import ConvergenceError
from statmechlearn.experiments import evaluate_checks, get, run_experiment
from statmechlearn.models import TwoGaussians
from statmechlearn.papers.mixture import fig3
from statmechlearn.papers.mixture._common import annealed_fixed_points
from statmechlearn.papers.mixture.fig4 import _crossings

matplotlib.use("Agg")


def _small(name, **settings):
    base = get(name)
    quick = dict(base.settings["quick"], **settings)
    return dataclasses.replace(base, name=f"{name}-small", settings={"quick": quick, "full": quick})


def test_crossings_counts_order_changes_of_distinct_pairs():
    energy = np.array(
        [
            [0.0, 0.1, 0.2],  # crosses row 1
            [0.05, 0.1, 0.15],  # touches row 0 at the middle: still one crossing
            [1.0, 1.0, 1.0],  # never meets the others
            [1.0, 1.0, 1.0],  # identical to row 2: not a distinct pair
        ]
    )
    n_crossing, n_pairs = _crossings(energy)
    assert (n_crossing, n_pairs) == (1, 5)


def test_annealed_fixed_points_split_just_below_the_critical_width():
    # just below sigma_c = lambda_max the unsplit saddle is so flat that a start at
    # it converges (by step size) on it; the library's annealer splits along the
    # principal axis there, and the polished fixed point is the lowest minimum
    rng = np.random.default_rng(3)
    model = TwoGaussians(60, u0=2.0)
    S, _ = model.sample(240, rng)
    centred = S - S.mean(axis=0)
    lam_max = np.linalg.eigvalsh(centred.T @ centred / len(S))[-1]
    sigmas = [1.05 * lam_max, 0.97 * lam_max]
    dU, energy, converged = annealed_fixed_points(S, sigmas, rng)
    assert np.linalg.norm(dU[0]) < 1e-3 and abs(energy[0]) < 1e-8
    assert converged.all()
    best = two_centre_fixed_points(
        S, sigmas[1], rng.standard_normal((8, 60)), max_iter=20000, tol=1e-14
    )
    assert energy[1] < -1e-6
    assert energy[1] <= best.energy.min() + 1e-9


def _fake_r(sigma):
    return 0.9 + 0.01 * (1.6 - sigma)


def _fake_rsb_ground(alpha, sigma, u0):
    # a stand-in for the 1RSB solve (seconds per width), failing at one width as the
    # real one can: the test is of the figure's plumbing; tests/theory/
    # test_ml_mixture_1rsb.py tests the theory
    if sigma == 0.8:
        raise ConvergenceError("no static point", diagnostics={})
    return types.SimpleNamespace(R=_fake_r(sigma), delta=0.1)


def _fake_rsb_line(alpha, u0, sigma_min):
    sigma = np.linspace(1.54, sigma_min, 23)
    return sigma, _fake_r(sigma)


@pytest.mark.parametrize("name", ["mixture-fig3", "mixture-fig4"])
def test_mixture_figures_run_and_report(tmp_path, monkeypatch, name):
    monkeypatch.setattr(fig3, "_rsb_ground", _fake_rsb_ground)
    monkeypatch.setattr(fig3, "_rsb_line", _fake_rsb_line)
    settings = (
        # three samples: the correlation of r across widths needs them
        {"n_seeds": 3, "n_features": 60, "n_starts": 3}
        if name == "mixture-fig3"
        else {"n_seeds": 1, "n_features": 80, "n_starts": 3}
    )
    spec = _small(name, **settings)
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    spec.plot(ds)
    matplotlib.pyplot.close("all")
    results = evaluate_checks(spec, ds)
    reported = [r for r in results if r.reported]
    shown = [r.theory if r.simulation is None else r.simulation for r in reported]
    assert reported and all(np.isfinite(v) for v in shown)
    # DA is never above a minimum that every random start reaches
    if name == "mixture-fig3":
        unique = next(r for r in results if "every random start" in r.quantity)
        assert unique.simulation == 0 and unique.passed
        # 1RSB only where RS is broken; NaN above sigma_AT, where it is the RS state, and
        # +inf (counted, failing a check) where the solve found no static point
        d = ds.isel(alpha=0, u0=0)
        s = d["sigma"].values
        below = s < float(d["theory_sigma_at"])
        r_1rsb = d["theory_r_1rsb"].values
        assert np.isnan(r_1rsb[~below]).all()
        assert np.isinf(r_1rsb[s == 0.8]).all()
        solved = below & (s != 0.8)
        assert solved.sum() == below.sum() - 1 >= 3
        np.testing.assert_allclose(r_1rsb[solved], _fake_r(s[solved]))
        failed = next(r for r in results if "no static 1RSB point" in r.quantity)
        assert failed.theory == 1 and failed.passed is False
        line = next(r for r in results if "continued 1RSB branch" in r.quantity)
        assert line.passed and line.theory < 1e-12
        shift = next(r for r in results if "one step of RSB" in r.quantity)
        expected = np.max(r_1rsb[solved] - d["theory_r"].values[solved])
        assert shift.theory == pytest.approx(expected, abs=1e-15)

"""The LVQ paper's further figures and the experiments beyond it, at small sizes."""

import dataclasses

import matplotlib
import numpy as np
import pytest
import xarray as xr

from statmechlearn.experiments import Derived, evaluate_checks, get, run_experiment
from statmechlearn.lvq import wta_online_updates
from statmechlearn.models import LabeledMixture
from statmechlearn.models.labeled_mixture import LABELS
from statmechlearn.papers.lvq._common import simulate_learning_curve
from statmechlearn.papers.lvq.beyond import _escape_time

matplotlib.use("Agg")


def _small(name, grid=None, **settings):
    base = get(name)
    quick = dict(base.settings["quick"], **settings)
    return dataclasses.replace(
        base,
        name=f"{name}-small",
        grid=grid or base.grid,
        settings={"quick": quick, "full": quick},
    )


def _run(spec, tmp_path):
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    spec.plot(ds)
    matplotlib.pyplot.close("all")
    return {r.quantity: r for r in evaluate_checks(spec, ds)}, ds


def test_derived_check_logic():
    ds = xr.Dataset()
    ok = Derived("x", lambda _: (1.0, 0.1), target=1.2, n_standard_errors=4).evaluate(ds)
    assert ok.passed and "|z| ≤ 4" in ok.tolerance
    off = Derived("x", lambda _: (1.0, 0.01), target=1.2).evaluate(ds)
    assert not off.passed
    assert Derived("x", lambda _: (0.5, None), lower=0.0, upper=1.0).evaluate(ds).passed
    assert not Derived("x", lambda _: (1.5, None), upper=1.0).evaluate(ds).passed
    nan = Derived("x", lambda _: (np.nan, None), lower=0.0).evaluate(ds)
    assert not nan.passed and "not computable" in nan.note
    sim = Derived("x", lambda _: (2.0, 0.5), lower=0.0, source="simulation").evaluate(ds)
    assert sim.simulation == 2.0 and sim.theory is None and sim.simulation_se == 0.5
    shown = Derived("n", lambda _: (3.0, None), source="simulation", reported=True).evaluate(ds)
    assert shown.reported and shown.simulation == 3.0 and "no bound" in shown.tolerance
    with pytest.raises(ValueError, match="reported=True"):
        Derived("n", lambda _: (3.0, None), upper=1.0, reported=True)


def test_escape_time_interpolates():
    alpha = np.array([0.0, 1.0, 2.0, 3.0])
    assert _escape_time(alpha, [0.5, 0.49, 0.44, 0.4]) == pytest.approx(1.8)
    assert _escape_time(alpha, [0.5, 0.52, 0.56, 0.6]) == pytest.approx(1.75)  # either labelling
    assert np.isnan(_escape_time(alpha, [0.5, 0.5, 0.5, 0.5]))


def test_fig3a_small(tmp_path):
    spec = _small(
        "lvq-fig3a",
        n_features=60,
        n_seeds=4,
        alpha_max=20.0,
        alpha_step_sim=10.0,
        n_theory_points=41,
    )
    checks, ds = _run(spec, tmp_path)
    assert np.isnan(ds["sim_eps_g"].sel(algorithm="vq")).all()
    assert np.isfinite(ds["sim_eps_g"].sel(algorithm="lvq1")).all()
    for name, result in checks.items():
        if result.simulation is None:  # theory statements hold at any size
            assert result.passed, name


def test_fig3b_small(tmp_path):
    spec = _small("lvq-fig3b", grid={"p_plus": (0.02, 0.2, 0.5, 0.8, 0.98), "lam": (1.2,)})
    checks, ds = _run(spec, tmp_path)
    assert all(r.passed is not False for r in checks.values()), [
        r for r in checks.values() if r.passed is False
    ]
    assert ds["theory_eps_inf"].sizes["algorithm"] == 3


def test_plateau_small(tmp_path):
    spec = _small(
        "lvq-vq-plateau",
        grid={"delta": (1e-3, 1e-5, 1e-7), "p_plus": (0.8,), "lam": (1.0,), "eta": (0.2,)},
        n_features=50,
        n_seeds=3,
        alpha_max=600.0,
        n_theory_points=121,
        sim_alpha_max=400.0,
    )
    checks, ds = _run(spec, tmp_path)
    slope = next(r for q, r in checks.items() if q.startswith("ODE: slope"))
    assert slope.passed, slope
    assert np.isfinite(ds["sim_escape"]).all()


def test_self_averaging_small(tmp_path):
    spec = _small(
        "lvq-self-averaging",
        grid={"n_features": (50, 200), "p_plus": (0.8,), "lam": (1.0,), "eta": (0.2,)},
        n_seeds=6,
    )
    checks, _ = _run(spec, tmp_path)
    assert len(checks) == 6  # two means against the ODE at the largest N, four slopes
    for r in checks.values():
        assert np.isfinite(r.simulation) and r.simulation_se > 0


def test_real_data_small(tmp_path):
    spec = _small(
        "lvq-real-data",
        grid={"dataset": ("iris", "digits"), "classifier": ("lvq1-1", "lvq1-3", "glvq-1")},
        n_seeds=3,
    )
    _, ds = _run(spec, tmp_path)
    acc = ds["sim_accuracy"]
    assert bool(((acc > 0.6) & (acc <= 1.0)).all())  # standardised iris is hard for 1 prototype


def test_fig1_quick(tmp_path):
    """Fig. 1 as run by the main job: the model's moments hold, and a wrong one is caught."""
    spec = get("lvq-fig1")
    checks, ds = _run(spec, tmp_path)
    assert len(checks) == 12
    assert all(r.passed for r in checks.values()), [r for r in checks.values() if not r.passed]
    assert sum(r.is_evidence for r in checks.values()) >= 4
    first = ds.isel(seed=0).squeeze(["p_plus", "lam"])
    label = first["sim_label"].values
    assert (label == 1).sum() == 160 and (label == -1).sum() == 240  # as in the caption
    assert first["sim_h"].shape == first["sim_b"].shape == (400, 2)
    assert float(ds["theory_h_center_sep2"].squeeze()) == pytest.approx(2 * 1.5**2 / 200)

    # a projection that kept the cluster structure would not pass the random-plane checks
    wrong = ds.copy(deep=True)
    wrong["sim_h_sep2"] = wrong["sim_h_sep2"] * 1.5
    bad = {r.quantity: r for r in evaluate_checks(spec, wrong)}
    assert not next(r for q, r in bad.items() if "sample class means" in q).passed


def test_fss_small(tmp_path):
    """The finite-size ladder on three rungs: seeds ∝ 1/N, the N → ∞ fit meets the ODE."""
    from statmechlearn.experiments._finite_size import seeds_for

    spec = _small("lvq-fss", n_seeds=48, n_max=200)
    checks, ds = _run(spec, tmp_path)
    assert len(checks) == 9  # value vs ODE, fit p-value, slope (reported) for ε_g, R++, Q++
    verdicts = [r for r in checks.values() if not r.reported]
    assert len(verdicts) == 6 and all(r.passed for r in verdicts), verdicts
    done = ds["sim_done"].squeeze(["p_plus", "lam", "eta"]).sum("seed")
    for n in ds["n_features"].values:
        expected = seeds_for(int(n), n_seeds=48, n_ref=50) if n <= 200 else 0
        assert int(done.sel(n_features=n)) == expected

    # a simulation off the ODE by 0.01 in ε_g is rejected
    wrong = ds.copy(deep=True)
    wrong["sim_eps_g"] = wrong["sim_eps_g"] + 0.01
    bad = {r.quantity: r for r in evaluate_checks(spec, wrong)}
    assert not bad["ε_g(α=10), N → ∞ (1/N fit) vs theory"].passed


def test_one_run_in_chunks_learns_exactly_as_in_one_piece():
    kw = {"n_features": 40, "p_plus": 0.8, "lam": 1.0, "eta": 0.2}
    R, Q, _ = simulate_learning_curve("lvq1", [1.0, 30.0], rng=np.random.default_rng(2), **kw)
    # the same run with the examples drawn in one piece
    rng = np.random.default_rng(2)
    m = LabeledMixture(n_features=40, p_plus=0.8, lam=1.0)
    W = m.prototypes_from_overlaps(np.zeros((2, 2)), 1e-4 * np.eye(2), rng)[None]
    for n in (40, 1160):
        X, y = m.sample(n, rng, batch_shape=(1,))
        wta_online_updates(W, X, y, LABELS, learning_rate=0.2 / 40, a=0.0, b=1.0)
    np.testing.assert_array_equal(m.overlaps(W)[1], Q[:, -1])
    np.testing.assert_array_equal(m.overlaps(W)[0], R[:, -1])

"""Simulation helpers of the outliers figures (the hard-selection learner and EM from the
teacher, Fig. 2 sizes)."""

import warnings

import numpy as np
import pytest
import xarray as xr

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn.papers.outliers import _common as od
from statmechlearn.papers.outliers import fig2, finite_size


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


@pytest.mark.parametrize("start", od.HARD_STARTS)
def test_hard_learner_learns_at_small_eta_and_not_at_large(start):
    seed = int(np.random.default_rng().integers(2**62))
    run = od.hard_selection_run
    low = run(20.0, 0.0, n_features=40, seed=seed, start=start)
    assert low["cos"] > 0.8 and 0.2 < low["selected"] < 0.8 and low["energy"] < 0
    high = run(20.0, 9.0, n_features=40, seed=seed, start=start)
    assert high["cos"] == 0.0 and high["selected"] == 0.0 and high["energy"] == 0.0


def test_the_teacher_start_is_hard_em_from_the_true_selection():
    seed = int(np.random.default_rng().integers(2**62))
    assert od.hard_em_from_teacher(20.0, 2.0, n_features=40, seed=seed) == od.hard_selection_run(
        20.0, 2.0, n_features=40, seed=seed, start="teacher"
    )
    with pytest.raises(ValueError, match="start must be one of"):
        od.hard_selection_run(20.0, 2.0, n_features=40, seed=seed, start="random")


def test_the_learner_is_the_estimator_at_the_true_parameters():
    from statmechlearn.linear import OutlierRobustClassifier
    from statmechlearn.models.outliers import OutlierMixture

    seed = int(np.random.default_rng().integers(2**62))
    model = OutlierMixture(30, 1.0, od.GAMMA)
    X, S, _ = model.sample(600, np.random.default_rng(seed), batch_shape=(1,))
    fit = OutlierRobustClassifier("hard", gamma=od.GAMMA, eta=1.0, fit_intercept=False)
    fit.set_params(max_iter=5000).fit(X[0], S[0])
    run = od.hard_selection_run(20.0, 1.0, n_features=30, seed=seed)
    assert run["energy"] == fit.energy_
    assert run["selected"] == fit.informative_proba_.mean()


@pytest.mark.parametrize("start", od.HARD_STARTS)
def test_eta_learning_lost_is_inside_the_bracket_and_consistent(start):
    seed = int(np.random.default_rng().integers(2**62))
    eta = od.eta_learning_lost(20.0, n_features=40, seed=seed, lo=1.0, hi=9.0, steps=4, start=start)
    assert 1.0 < eta < 9.0
    width = 8.0 / 2**5

    def cos(eta):
        return od.hard_selection_run(20.0, eta, n_features=40, seed=seed, start=start)["cos"]

    assert cos(eta - width) >= 0.5 > cos(eta + width)
    # censored ends
    lost = od.eta_learning_lost
    assert lost(20.0, n_features=40, seed=seed, lo=9.0, hi=10.0, start=start) == 9.0
    assert lost(20.0, n_features=40, seed=seed, lo=-2.0, hi=-1.0, start=start) == -1.0


def test_fig2_sizes_and_seeds():
    full = fig2.FIG2.settings["full"]
    assert fig2.fig2_n_features(200.0, full) == 500
    assert fig2.fig2_n_features(2000.0, full) == 50
    assert fig2.fig2_n_features(2000.0, full) * 2000.0 <= full["max_examples"]
    quick = fig2.FIG2.settings["quick"]
    assert fig2.FIG2.seeds_at({"eta": 0.0, "alpha": 20.0}, "quick") == quick["n_seeds"]
    assert fig2.FIG2.seeds_at({"eta": 0.0, "alpha": 35.566}, "quick") == 0
    assert fig2.FIG2.seeds_at({"eta": 4.0, "alpha": 2.0}, "full") == 0
    assert fig2.FIG2.seeds_at({"eta": 0.0, "alpha": 2000.0}, "full") == full["n_seeds"]


def test_hard_fss_seeds():
    spec = finite_size.HARD_FSS
    assert spec.seeds_at({"n_features": 200}, "quick") == 0
    assert spec.seeds_at({"n_features": 25}, "quick") == spec.settings["quick"]["n_seeds"]
    assert spec.seeds_at({"n_features": 200}, "full") >= 2


@pytest.mark.parametrize("start", od.HARD_STARTS)
def test_hard_fss_full_bounds_only_the_teacher_start_by_the_spinodal(start):
    # the learner at its best meets the R ~ 0 state that RS puts beyond eta_learn: its
    # threshold is reported against eta_learn; only one start kept at the teacher's
    # examples is claimed to learn past the end of the RS learning branch
    spec = finite_size.HARD_FSS
    checks = spec.checks(dict(spec.settings["full"], start=start))
    where = {c.quantity: c for c in checks if "stops learning" in c.quantity}
    spinodal = [c for q, c in where.items() if "spinodal" in q]
    learn = [c for q, c in where.items() if "minus RS eta_learn" in q]
    if start == "teacher":
        assert len(spinodal) == 1 and spinodal[0].lower is not None and not learn
    else:
        assert len(learn) == 1 and learn[0].reported and not spinodal
    assert any("below eta_c" in q for q in where)


@pytest.mark.parametrize("start", od.HARD_STARTS)
def test_selection_thresholds_bracket_both_predicates(start):
    from statmechlearn.papers.outliers.hard_thresholds import selection_thresholds

    seed = int(np.random.default_rng().integers(2**62))
    lo, hi, steps = 0.0, 9.0, 4
    found = selection_thresholds(
        20.0, 10.0, n_features=40, seed=seed, lo=lo, hi=hi, steps=steps, start=start
    )
    width = (hi - lo) / 2 ** (steps + 1)
    for key in ("lost", "trivial"):
        assert lo < found[key] < hi

    def run(eta):
        return od.hard_selection_run(20.0, eta, n_features=40, seed=seed, start=start)

    # each threshold separates its predicate: true a bracket-width below, false above
    assert run(found["lost"] - width)["cos"] >= 0.5 > run(found["lost"] + width)["cos"]
    assert run(found["trivial"] - width)["energy"] < 0.0 <= run(found["trivial"] + width)["energy"]
    # the same runs as the single-threshold helper: the same learning threshold
    lost = od.eta_learning_lost(
        20.0, n_features=40, seed=seed, lo=lo, hi=hi, steps=steps, start=start
    )
    assert lost == found["lost"]


def test_hard_thresholds_seeds_and_marked_checks():
    from statmechlearn.papers.outliers.hard_thresholds import HARD_THRESHOLDS

    spec = HARD_THRESHOLDS
    point = {"gamma": 1.0, "alpha": 100.0}
    assert spec.seeds_at(point | {"n_features": 100}, "quick") == 0
    assert spec.seeds_at(point | {"n_features": 25}, "full") == spec.settings["full"]["n_seeds"]
    assert spec.seeds_at(point | {"n_features": 100}, "full") < spec.seeds_at(
        point | {"n_features": 25}, "full"
    )
    assert spec.seeds_at(point | {"n_features": 25, "alpha": 1000.0}, "quick") == 0
    checks = spec.checks(dict(spec.settings["full"]))
    assert all("the learner" in c.quantity for c in checks if "stops learning" in c.quantity)
    teacher = spec.with_overrides(start="teacher")
    assert teacher.settings["full"]["start"] == "teacher"
    assert any(
        "EM from the teacher" in c.quantity for c in teacher.checks(teacher.settings["full"])
    )
    against_rs = [c for c in checks if "minus RS" in c.quantity]
    # every comparison with the AT-unstable RS thresholds is marked, and is not a verdict
    assert len(against_rs) == 12 and all(c.rs_unstable and c.reported for c in against_rs)
    assert any("χ²" in c.quantity and not c.reported for c in checks)
    # 1RSB is unstable too: measured against, not checked; the bound eta_c is checked
    against_rsb = [c for c in checks if "minus 1RSB" in c.quantity]
    assert len(against_rsb) == 12 and all(c.reported and not c.rs_unstable for c in against_rsb)
    bounds = [c for c in checks if "above 1RSB eta_c" in c.quantity]
    assert len(bounds) == 6 and all(c.target == 0.0 and not c.reported for c in bounds)
    # quick mode, few runs: a Student-t band of many SE, no bound
    quick = spec.checks(dict(spec.settings["quick"]))
    assert not [c for c in quick if "above 1RSB eta_c" in c.quantity]


def _ladder(trivial, eta_c_1rsb, *, gamma=1.0, alpha=100.0, eta_c_rs=3.0507):
    """A thresholds dataset at one (gamma, alpha): runs of eta_trivial = trivial + 2/N + noise."""
    rng = np.random.default_rng()
    ladder, seeds = (25, 50, 100), 24
    n = np.array(ladder)[:, None]
    noise = rng.normal(0.0, 0.05, (3, seeds)) * np.sqrt(25.0 / n)
    runs = (trivial + 2.0 / n + noise)[None, None]
    done = np.ones_like(runs, dtype=bool)
    done[..., 1, 12:], done[..., 2, 6:] = False, False  # seeds ∝ 1/N, as in the figure
    dims = ("gamma", "alpha", "n_features", "seed")
    theory = {
        "theory_eta_c": eta_c_rs,
        "theory_eta_c_1rsb": eta_c_1rsb,
        "theory_eta_learn": 1.941,
        "theory_eta_learn_1rsb": 2.117,
    }
    return xr.Dataset(
        {
            "sim_eta_trivial": (dims, np.where(done, runs, np.nan)),
            "sim_eta_lost": (dims, np.where(done, runs - 0.5, np.nan)),
            "sim_done": (dims, done),
            **{k: (dims[:3], np.full((1, 1, 3), v)) for k, v in theory.items()},
        },
        coords={
            "gamma": [gamma],
            "alpha": [alpha],
            "n_features": list(ladder),
            "seed": range(seeds),
        },
    )


def test_hard_thresholds_bound_by_1rsb_eta_c_fails_only_beyond_its_resolution():
    from statmechlearn.experiments._checks import critical_value
    from statmechlearn.papers.outliers import hard_thresholds as ht

    spec = ht.HARD_THRESHOLDS
    (check,) = [
        c
        for c in spec.checks(dict(spec.settings["full"]))
        if "gamma=1, alpha=100:" in c.quantity and "above 1RSB eta_c" in c.quantity
    ]
    at = {"gamma": 1.0, "alpha": 100.0}
    ds = _ladder(2.8, 2.897)
    # the intercept is linear in the rung means: weights sum to 1 and cancel the 1/N term
    weights = ht._intercept_weights(ds, "sim_eta_trivial", at)
    assert weights.sum() == pytest.approx(1.0, abs=1e-9)
    assert weights @ (1.0 / np.array([25, 50, 100])) == pytest.approx(0.0, abs=1e-9)
    m = ht._limit(ds, "sim_eta_trivial", **at).measurement()
    bias = ht._half_step(ds, at) * np.abs(weights).sum()
    # below the bound: no excess, the check passes
    below = check.evaluate(ds)
    assert below.passed and below.observed == 0.0 and below.observed_se == m.se

    def bounded_by(eta_c_1rsb):
        return ds.assign(theory_eta_c_1rsb=xr.full_like(ds["theory_eta_c_1rsb"], eta_c_1rsb))

    # above 1RSB eta_c by less than the bisection's bias plus k SE: no contradiction; by
    # more: the learner would hold negative-energy states where 1RSB has none
    band = critical_value(check.n_standard_errors, m.n) * m.se
    inside = check.evaluate(bounded_by(m.value - bias - 0.99 * band))
    assert inside.passed and inside.observed == pytest.approx(0.99 * band)
    assert not check.evaluate(bounded_by(m.value - bias - 1.01 * band)).passed
    # no theory value: not computable, and not read as "below the bound"
    assert not check.evaluate(bounded_by(np.nan)).passed


def test_hard_thresholds_half_step_is_the_bisection_of_the_bracket():
    from statmechlearn.papers.outliers import hard_thresholds as ht

    lo, hi = ht._bracket(100.0, 1.0)
    ds = _ladder(2.8, 2.897, eta_c_rs=ht._rs_transition(100.0, 1.0).eta_c)
    width = (hi - lo) / 2**ht._STEPS  # the final bracket; its midpoint is returned
    assert ht._half_step(ds, {"gamma": 1.0, "alpha": 100.0}) == pytest.approx(width / 2, rel=1e-12)


def test_hard_thresholds_plot_with_an_alpha_left_unsimulated(tmp_path):
    # quick mode simulates one alpha of the two panels: the other shows the RS lines alone
    # (the N -> infinity fit of an alpha without runs raised inside the report)
    import dataclasses

    import matplotlib

    from statmechlearn.experiments import run_experiment
    from statmechlearn.papers.outliers.hard_thresholds import HARD_THRESHOLDS

    quick = dict(HARD_THRESHOLDS.settings["quick"], sim_alphas=(20.0,), n_seeds=2, max_n=30)
    spec = dataclasses.replace(
        HARD_THRESHOLDS,
        name="outliers-hard-thresholds-small",
        grid={"gamma": (10.0,), "alpha": (20.0, 100.0), "n_features": (20, 30)},
        settings={"quick": quick, "full": quick},
    )
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    assert np.isfinite(ds["sim_eta_lost"].sel(alpha=20.0)).any()
    assert not np.isfinite(ds["sim_eta_lost"].sel(alpha=100.0)).any()
    spec.plot(ds)
    axes = matplotlib.pyplot.gcf().axes
    titles = [a.get_title() for a in axes]
    labels = [line.get_label() for line in axes[1].get_lines()]
    matplotlib.pyplot.close("all")
    assert titles == [r"$\alpha = 20$", r"$\alpha = 100$ (theory only in this mode)"]
    # RS and 1RSB lines in every panel, the 1RSB values stored by the theory cell
    assert sum(label.startswith("RS theory:") for label in labels) == 3
    assert sum(label.startswith("1RSB theory:") for label in labels) == 3
    at = ds.sel(alpha=20.0, gamma=10.0).isel(n_features=0)
    assert float(at["theory_eta_c_1rsb"]) < float(at["theory_eta_c"])

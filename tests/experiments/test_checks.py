"""Checks: observed, expected, z, resolution, evidence vs smoke, non-finite runs, skipped peers."""

import json
import math

import numpy as np
import pytest
import xarray as xr
from scipy import stats

from statmechlearn.experiments import Check, Derived, Measurement, measure
from statmechlearn.experiments._checks import critical_value, printed_number


def _dataset(sim, theory=1.0, done=None, peers=None):
    sim = np.asarray(sim, dtype=float)
    done = np.ones(sim.size, bool) if done is None else np.asarray(done)
    return xr.Dataset(
        {
            "theory_x": ((), theory),
            "sim_x": (("seed",), sim),
            "sim_done": (("seed",), done),
        },
        coords={"seed": np.arange(sim.size)},
        attrs={"peers_json": json.dumps(peers or {})},
    )


def test_critical_value_keeps_the_normal_tail_rate():
    assert critical_value(4.0, None) == 4.0
    # mean / estimated SE of n runs is t(n-1): the band widens to the same tail rate
    for n in (2, 5, 24, 200):
        k = critical_value(4.0, n)
        assert stats.t.sf(k, n - 1) == pytest.approx(stats.norm.sf(4.0), rel=1e-6)
    assert critical_value(4.0, 2) > 1e4 and critical_value(4.0, 1) == math.inf


def test_theory_vs_simulation_records_z_and_resolution():
    rng = np.random.default_rng(0)
    sim = 1.0 + 0.01 * rng.standard_normal(40)
    res = Check("x", theory=("theory_x", {}), simulation=("sim_x", {})).evaluate(_dataset(sim))
    m = measure(sim)
    k = critical_value(4.0, 40)
    assert res.observed == pytest.approx(m.value) and res.observed_se == pytest.approx(m.se)
    assert res.expected == 1.0 and res.expected_from == "theory"
    assert res.z == pytest.approx((m.value - 1.0) / m.se)
    assert res.resolution == pytest.approx(k * m.se / 1.0)
    assert res.kind == "evidence" and res.passed


def test_a_check_without_power_is_smoke_and_a_deviation_fails():
    rng = np.random.default_rng(1)
    noisy = 1.0 + 0.2 * rng.standard_normal(10)  # resolution far above 5 %
    res = Check("x", ("theory_x", {}), ("sim_x", {})).evaluate(_dataset(noisy))
    assert res.kind == "smoke" and res.resolution > 0.05
    # a 3 % error with 0.1 % noise: detected
    off = 1.03 + 0.001 * rng.standard_normal(40)
    res = Check("x", ("theory_x", {}), ("sim_x", {})).evaluate(_dataset(off))
    assert not res.passed and abs(res.z) > 20


def test_non_finite_runs_are_counted_and_fail_the_check():
    sim = [1.0, 1.001, np.nan, 0.999, np.inf, 1.0]
    res = Check("x", ("theory_x", {}), ("sim_x", {})).evaluate(_dataset(sim))
    assert res.n_nonfinite == 2 and res.n_runs == 4
    assert not res.passed and "2 of 6 runs non-finite" in res.note
    # unfinished seeds are not runs
    res = Check("x", ("theory_x", {}), ("sim_x", {})).evaluate(
        _dataset([1.0, 1.001, np.nan, 0.999], done=[True, True, False, True])
    )
    assert res.n_nonfinite == 0 and res.n_runs == 3


def test_paper_value_carries_its_printed_precision_and_source():
    assert printed_number("0.90") == (0.9, pytest.approx(0.005))
    assert printed_number("2.1") == (2.1, pytest.approx(0.05))
    assert printed_number("1.5e-3") == (0.0015, pytest.approx(5e-5))
    with pytest.raises(ValueError, match="source"):
        Derived("x", lambda ds: (1.0, None), paper_value="2.1")
    ds = _dataset([1.0, 1.0])
    close = Derived("x", lambda ds: (2.1036, None), paper_value="2.1", paper_source="Fig. 2")
    far = Derived("x", lambda ds: (2.16, None), paper_value="2.1", paper_source="Fig. 2")
    assert close.evaluate(ds).passed and not far.evaluate(ds).passed
    assert close.evaluate(ds).kind == "evidence"  # 0.05 / 2.1: the paper's own precision
    shown = Derived(
        "x",
        lambda ds: (0.0, None),
        target=0.0,
        tolerance=1e-3,
        scale=2.5,
        paper_value="-2.5",
        paper_source="eq. (30)",
        paper_checked=False,
    ).evaluate(ds)
    assert shown.passed and shown.paper == -2.5 and not shown.paper_compared


def test_one_sided_statistical_claims_need_a_significant_margin():
    values = np.full(50, 0.1) + 0.01 * np.random.default_rng(2).standard_normal(50)
    ds = _dataset([1.0, 1.0])
    positive = Derived("d", lambda ds: measure(values), lower=0.0, scale=0.1).evaluate(ds)
    assert positive.passed and positive.two_sided is False
    weak = Derived("d", lambda ds: measure(values - 0.099), lower=0.0, scale=0.1).evaluate(ds)
    assert not weak.passed  # not significantly above 0: the claim is not shown


def test_exact_targets_and_intervals():
    ds = _dataset([1.0, 1.0])
    res = Derived("x", lambda ds: (1.0005, None), target=1.0, tolerance=1e-3).evaluate(ds)
    assert res.passed and res.resolution == pytest.approx(1e-3) and res.kind == "evidence"
    res = Derived("x", lambda ds: (-0.5, None), lower=-0.6, upper=-0.4).evaluate(ds)
    assert res.resolution == pytest.approx(0.2) and res.kind == "smoke"  # ±20 % is no evidence
    declared = Derived("x", lambda ds: (1.0, None), target=1.0, tolerance=0.0, smoke=True)
    assert declared.evaluate(ds).kind == "smoke"
    with pytest.raises(ValueError, match="target, bounds or reported"):
        Derived("x", lambda ds: (1.0, None))


def test_measurements_and_reported_rows():
    m = measure([1.0, 2.0, np.nan, 3.0])
    assert (m.value, m.n, m.n_nonfinite) == (2.0, 3, 1)
    assert m.se == pytest.approx(1.0 / math.sqrt(3))
    row = Derived("speed", lambda ds: Measurement(3.0, 0.1, 5), reported=True).evaluate(
        _dataset([1.0])
    )
    assert row.kind == "reported" and row.passed is None and row.observed_se == 0.1


def test_a_missing_peer_skips_the_check_instead_of_failing_it():
    ds = _dataset([np.nan, np.nan, np.nan], peers={"minisom": None})
    res = Check("x", ("theory_x", {}), ("sim_x", {}), requires=("minisom",)).evaluate(ds)
    assert res.kind == "skipped" and res.passed is None and "minisom" in res.note
    ds = _dataset([1.0, 1.0001, 0.9999], peers={"minisom": "2.3.5"})
    res = Check("x", ("theory_x", {}), ("sim_x", {}), requires=("minisom",)).evaluate(ds)
    assert res.kind != "skipped"

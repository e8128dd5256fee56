"""outliers-fig8: the RS and one-step RSB thresholds of hard selection, their plot and checks."""

import warnings

import matplotlib
import numpy as np
import pytest
import xarray as xr

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn.experiments import evaluate_checks
from statmechlearn.papers.outliers.fig8 import FIG8, FIG8_ALPHAS, FIG8_GAMMAS, _fig8_theory

matplotlib.use("Agg")


def _dataset():
    """Fig. 8's variables with the measured shapes: ln alpha growth, 1RSB eta_c below RS."""
    g = np.array(FIG8_GAMMAS)[:, None]
    decades = np.log10(np.array(FIG8_ALPHAS))[None, :]
    eta_c = 1.0 + np.log10(g / 0.1 + 1.0) + (1.0 + 0.1 * np.log(g / 0.1 + 1.0)) * (decades - 2)
    eta_learn = 0.6 * eta_c
    dims = ("gamma", "alpha_large")
    ds = xr.Dataset(
        {
            "theory_eta_c": (dims, eta_c),
            "theory_eta_learn": (dims, eta_learn),
            "theory_eta_c_1rsb": (dims, eta_c - 0.01 - 0.1 * np.log10(g / 0.1)),
            "theory_eta_learn_1rsb": (dims, eta_learn + 0.05),
            "theory_eta_c_next_decade": ("gamma", 2 * eta_c[:, -1] - eta_c[:, -2]),
            "theory_eta_learn_next_decade": ("gamma", 2 * eta_learn[:, -1] - eta_learn[:, -2]),
            "theory_b5_cdf": ("gamma", np.where(g[:, 0] > 4, 0.1, np.nan)),
            "theory_b5_erf": ("gamma", np.where(g[:, 0] > 0.3, 2.0, np.nan)),
        },
        coords={"gamma": list(FIG8_GAMMAS), "alpha_large": list(FIG8_ALPHAS)},
        attrs={"mode": "full"},
    )
    return ds


def _verdicts(ds):
    return {r.quantity: r for r in evaluate_checks(FIG8, ds)}


def _row(verdicts, *words):
    (row,) = [r for q, r in verdicts.items() if all(w in q for w in words)]
    return row


def test_fig8_checks_pass_on_the_expected_shape_and_fail_where_1rsb_breaks_its_bounds():
    ds = _dataset()
    verdicts = _verdicts(ds)
    assert all(r.passed for r in verdicts.values() if not r.reported)
    reported = [r for r in verdicts.values() if r.reported]
    assert len(reported) == 2 * len(FIG8_ALPHAS)
    assert _row(verdicts, "alpha=100:", "1RSB − RS eta_c").observed == pytest.approx(
        -0.01 - 0.1 * np.log10(100.0)
    )

    # a 1RSB eta_c above RS contradicts the derived order of the energies
    above = ds.copy(deep=True)
    above["theory_eta_c_1rsb"][3, 1] = above["theory_eta_c"][3, 1] + 1e-3
    row = _row(_verdicts(above), "RS eta_c − 1RSB eta_c")
    assert not row.passed and row.observed == pytest.approx(-1e-3)

    # a 1RSB threshold not found (NaN) fails its rows instead of being skipped
    missing = ds.copy(deep=True)
    missing["theory_eta_learn_1rsb"][-1, -1] = np.nan
    failed = [q for q, r in _verdicts(missing).items() if r.passed is False]
    assert failed == ["1RSB: d eta_learn / d log10 alpha (alpha 1e3 -> 1e4), min over gamma"]

    # a 1RSB eta_c that saturates in alpha (the paper's Fig. 8) fails its growth check
    flat = ds.copy(deep=True)
    flat["theory_eta_c_1rsb"][:, -1] = flat["theory_eta_c_1rsb"][:, -2] + 0.1
    assert not _row(_verdicts(flat), "1RSB: d eta_c / d log10 alpha").passed


def test_fig8_plot_has_an_eta_c_and_an_eta_learn_panel_with_rs_and_1rsb():
    ds = _dataset()
    ds["theory_eta_learn_1rsb"][-1, -1] = np.nan  # a missing point is a gap, not an error
    ax = FIG8.plot(ds)
    fig = ax.figure
    assert len(fig.axes) == 2
    for panel, symbol in zip(fig.axes, (r"\eta_c", r"\eta_{learn}"), strict=True):
        labels = [line.get_label() for line in panel.get_lines()]
        assert symbol in panel.get_title()
        assert sum(label.startswith("1RSB") for label in labels) == len(FIG8_ALPHAS)
        assert sum(label.startswith("RS,") for label in labels) == len(FIG8_ALPHAS)
    assert any("(B5)" in line.get_label() for line in fig.axes[0].get_lines())
    assert not any("(B5)" in line.get_label() for line in fig.axes[1].get_lines())
    matplotlib.pyplot.close("all")


def test_fig8_theory_cell_gives_the_1rsb_thresholds_beside_rs():
    # docs/derivations/outliers_1rsb.md §10 (gamma = 0.1, alpha = 100, 1000): eta_learn
    # 0.536 -> 0.594, 1.424 -> 1.573; eta_c 1.061 -> 1.047, 2.309 -> 2.271 (three decimals)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        out = _fig8_theory({"gamma": 0.1}, FIG8.settings["quick"])
    np.testing.assert_allclose(out["theory_eta_learn"][:2], [0.536, 1.424], atol=6e-4)
    np.testing.assert_allclose(out["theory_eta_learn_1rsb"][:2], [0.594, 1.573], atol=6e-4)
    np.testing.assert_allclose(out["theory_eta_c"][:2], [1.061, 2.309], atol=6e-4)
    np.testing.assert_allclose(out["theory_eta_c_1rsb"][:2], [1.047, 2.271], atol=6e-4)
    assert np.all(out["theory_eta_c_1rsb"] < out["theory_eta_c"])
    assert set(out) == set(FIG8.outputs)

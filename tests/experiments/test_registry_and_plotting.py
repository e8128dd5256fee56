"""The registry finds the paper packages' specs one-way; the shared mean ± SE and plot style."""

import ast
import dataclasses
import pkgutil
from pathlib import Path

import matplotlib
import numpy as np
import pytest
import xarray as xr

import statmechlearn.papers as papers_package
from statmechlearn.experiments import FigureSpec, _registry, get, names
from statmechlearn.experiments._plotting import mean_se, plot_simulation, plot_theory, subplots

matplotlib.use("Agg")

PAPER_MODULES = sorted(
    m.name for m in pkgutil.walk_packages(papers_package.__path__, "statmechlearn.papers.")
)


def _source(module):
    import importlib.util

    return Path(importlib.util.find_spec(module).origin).read_text()


@pytest.mark.parametrize("module", PAPER_MODULES)
def test_paper_modules_use_only_the_engines_public_api(module):
    # the registry discovers them; they import the engine as a user's package does
    for node in ast.walk(ast.parse(_source(module))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "statmechlearn.experiments"
        ):
            assert node.module == "statmechlearn.experiments", (module, node.module)
            assert all(not a.name.startswith("_") for a in node.names), module


def test_every_module_level_spec_of_every_paper_module_is_discovered():
    import importlib

    found = set()
    for module in PAPER_MODULES:
        mod = importlib.import_module(module)
        found |= {v.name for v in vars(mod).values() if isinstance(v, FigureSpec)}
    assert found and found == set(names())
    assert {get(n).paper for n in found} >= {"lvq", "outliers", "mixture", "sparse", "maxent"}


def test_a_name_defined_twice_is_an_error_naming_both_places(monkeypatch):
    names()  # discover first
    twin = dataclasses.replace(get("lvq-fig2"))
    monkeypatch.setattr(_registry, "_SPECS", dict(_registry._SPECS))
    with pytest.raises(ValueError, match=r"'lvq-fig2' is defined twice: in module .*lvq.fig2"):
        _registry.register(twin)
    assert _registry.register(get("lvq-fig2")) is get("lvq-fig2")  # the same object: fine
    with pytest.raises(TypeError, match="FigureSpec"):
        _registry.register("lvq-fig2")


def test_mean_se_is_nan_aware_with_ddof_1():
    values = np.array([[1.0, 2.0, np.nan, 4.0], [3.0, np.nan, np.nan, np.nan], [np.nan] * 4])
    da = xr.DataArray(values, dims=("x", "seed"))
    mean, se = mean_se(da)
    expected_se = np.std([1.0, 2.0, 4.0], ddof=1) / np.sqrt(3)
    np.testing.assert_allclose(mean.values, [7 / 3, 3.0, np.nan])
    np.testing.assert_allclose(se.values, [expected_se, np.nan, np.nan])
    m, s = mean_se(values, 1)
    np.testing.assert_allclose(m, mean.values)
    np.testing.assert_allclose(s, se.values)
    assert mean_se([1.0, 2.0, 4.0], None) == pytest.approx((7 / 3, expected_se))
    with pytest.raises(TypeError, match="dim"):
        mean_se(values)  # an array has axes, not dimension names


def test_theory_is_a_line_and_simulation_markers_with_error_bars():
    import matplotlib.pyplot as plt

    fig, ax = subplots(figsize=(3, 2))
    assert subplots(ax) == (fig, ax)
    line = plot_theory(ax, [0, 1, 2], [0, 1, 4])
    bars = plot_simulation(ax, [0, 1, 2], [0.1, 0.9, 4.2], [0.1, 0.1, np.nan])
    assert line.get_linestyle() == "-" and line.get_marker() in ("None", None, "")
    assert bars.lines[0].get_linestyle() == "None" and bars.lines[0].get_marker() == "o"
    assert [t.get_text() for t in ax.legend().get_texts()] == ["theory", "simulation"]
    _, grid = subplots(None, 1, 2)
    assert grid.shape == (2,)
    assert subplots(list(grid))[1].shape == (2,)
    plt.close("all")

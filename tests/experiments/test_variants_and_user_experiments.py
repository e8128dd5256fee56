"""Vary and extend without editing the library: ``--set`` variants, entry points, ``--module``."""

import importlib.metadata
import importlib.util
import json
import os
import pkgutil
import py_compile
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from statmechlearn.cli import app
from statmechlearn.experiments import (
    Check,
    Derived,
    FigureSpec,
    ResultStore,
    _registry,
    evaluate_checks,
    get,
    run_experiment,
)
from statmechlearn.experiments._store import result_key, spec_hash
from statmechlearn.experiments._variant_store import register_stored_variants
from statmechlearn.experiments._variants import (
    OverrideError,
    make_variant,
    overridable,
    parse_assignments,
)

runner = CliRunner()
TUTORIAL = Path(__file__).parents[2] / "docs" / "user_experiments.md"


@pytest.fixture
def registry():
    """The registry, without the modules the test loaded afterwards (conftest's autouse
    fixture restores the registry's own tables)."""
    before = set(sys.modules)
    yield _registry
    for name in set(sys.modules) - before:
        if name.startswith(("hebb_experiment", "user_exp_", "plugin_exp_")):
            del sys.modules[name]


def _tutorial_code():
    """The Python blocks of docs/user_experiments.md, in order: the tutorial's file."""
    blocks = re.findall(r"```python\n(.*?)```", TUTORIAL.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 5
    return "\n\n".join(blocks)


# ------------------------------------------------------------- entry points ----


def test_every_paper_package_is_an_entry_point():
    import statmechlearn.papers as papers_package

    packages = {
        f"statmechlearn.papers.{m.name}"
        for m in pkgutil.iter_modules(papers_package.__path__)
        if m.ispkg
    }
    points = importlib.metadata.entry_points(group=_registry.ENTRY_POINT_GROUP)
    listed = {e.value for e in points if e.value.startswith("statmechlearn.")}
    assert packages and listed == packages, "add the new paper to pyproject.toml's entry points"


def _plugin_source():
    return """
import numpy as np
from statmechlearn.experiments import Check, FigureSpec


def theory(point, settings):
    return {"theory_x": np.array(point["a"])}


def simulation(point, settings, rng):
    return {"sim_x": point["a"] + 0.01 * rng.standard_normal()}


SPEC = FigureSpec(
    name="plugin-x",
    paper="plugin",
    citation="a user",
    figure="x",
    caption="x",
    grid={"a": (1.0, 2.0)},
    settings={"quick": {"n_seeds": 8}, "full": {"n_seeds": 8}},
    outputs={"theory_x": (), "sim_x": ()},
    coords=lambda settings: {},
    theory=theory,
    simulation=simulation,
    plot=lambda ds, ax=None: ax,
    checks=lambda settings: [Check("x", ("theory_x", {"a": 1.0}), ("sim_x", {"a": 1.0}))],
)
"""


def test_a_users_package_registers_through_the_entry_point_group(registry, monkeypatch, tmp_path):
    (tmp_path / "plugin_exp_pkg").mkdir()
    (tmp_path / "plugin_exp_pkg" / "__init__.py").write_text("")
    (tmp_path / "plugin_exp_pkg" / "figures.py").write_text(_plugin_source())
    monkeypatch.syspath_prepend(str(tmp_path))
    group = _registry.ENTRY_POINT_GROUP
    mine = importlib.metadata.EntryPoint("mine", "plugin_exp_pkg.figures", group)
    broken = importlib.metadata.EntryPoint("broken", "plugin_exp_missing", group)
    real = _registry._entry_points()
    monkeypatch.setattr(_registry, "_entry_points", lambda: [*real, mine, broken])
    monkeypatch.setattr(_registry, "_SPECS", {})
    monkeypatch.setattr(_registry, "_ORIGIN", {})
    monkeypatch.setattr(_registry, "_discovered", False)
    with pytest.warns(RuntimeWarning, match="'broken'.*cannot be loaded") as record:
        names = _registry.names()
    ours = [r for r in record if "cannot be loaded" in str(r.message)]
    assert [r.filename for r in ours] == [__file__]
    assert "plugin-x" in names and "lvq-fig2" in names  # the package's own, the same way
    assert _registry.papers()["plugin"] == ["plugin-x"]
    # the user's functions are fingerprinted one by one, as the package's are
    assert (
        "function:plugin_exp_pkg.figures.simulation" in result_key(get("plugin-x"), "quick")["code"]
    )


def test_without_registered_entry_points_the_registry_says_to_reinstall(registry, monkeypatch):
    monkeypatch.setattr(_registry, "_entry_points", lambda: [])
    monkeypatch.setattr(_registry, "_discovered", False)
    with pytest.raises(RuntimeError, match="reinstall"):
        _registry.names()


# ---------------------------------------------------------------- variants ----


def test_paper_specs_are_no_variants():
    spec = get("lvq-fig2")
    assert spec.variant_of is None and spec.overrides == {}


def test_a_variant_is_named_keyed_and_described_deterministically():
    base = get("lvq-fig2")
    a = base.with_overrides(p_plus=0.6, eta=0.5)
    b = make_variant(base, {"eta": "0.5", "p_plus": "0.6"})  # text, other order
    assert a.name == b.name == "lvq-fig2@eta=0.5,p_plus=0.6"
    assert a.variant_of == "lvq-fig2" and a.overrides == {"eta": 0.5, "p_plus": 0.6}
    assert a.grid == {"p_plus": (0.6,), "lam": (1.0,), "eta": (0.5,)}
    assert a.settings == base.settings and a.paper == base.paper and a.plot is base.plot
    assert "Variant of lvq-fig2" in a.caption and "p_plus = 0.6 (paper: 0.8)" in a.caption
    assert spec_hash(a, "quick") == spec_hash(b, "quick") != spec_hash(base, "quick")
    # the paper's own values still give a key of their own: a variant never replaces the paper
    same = base.with_overrides(p_plus=0.8)
    assert same.grid == base.grid and spec_hash(same, "quick") != spec_hash(base, "quick")
    settings = base.with_overrides(n_seeds=7)
    assert settings.settings["quick"]["n_seeds"] == settings.settings["full"]["n_seeds"] == 7
    assert settings.grid == base.grid


def test_an_axis_of_several_points_takes_a_list_of_allowed_names():
    base = get("lvq-fig3a")
    v = make_variant(base, {"algorithm": "lvq1,lvq+"})
    assert v.grid["algorithm"] == ("lvq1", "lvq+") and v.name == "lvq-fig3a@algorithm=lvq1~lvq+"
    assert re.fullmatch(r"[A-Za-z0-9._+~=,@-]+", v.name)  # safe in file names and HTML ids
    with pytest.raises(OverrideError, match="algorithm must be one of lvq\\+, lvq1, vq"):
        make_variant(base, {"algorithm": "glvq"})
    with pytest.raises(OverrideError, match="lists a value twice"):
        make_variant(base, {"algorithm": "lvq1,lvq1"})


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"foo": "1"}, r"lvq-fig2 has no overridable 'foo'; valid keys: alpha_max, .*p_plus$"),
        ({"p_plus": "1.5"}, r"p_plus must be in \(0, 1\); got 1.5"),
        ({"p_plus": "0"}, r"p_plus must be in \(0, 1\); got 0.0"),
        ({"p_plus": "high"}, r"p_plus must be a number; got 'high'"),
        ({"eta": "inf"}, r"eta must be finite"),
        ({"n_features": "2.5"}, r"n_features must be an integer; got '2.5'"),
        ({"n_seeds": "1"}, r"n_seeds must be in \[2, inf\); got 1"),
        ({"p_plus": "0.5,0.6"}, r"p_plus takes one value \(the paper's figure has one\)"),
        ({"p_plus": ""}, r"p_plus needs a value"),
        ({}, r"no override given"),
    ],
)
def test_bad_overrides_are_one_line_errors_naming_key_and_range(overrides, message):
    with pytest.raises(OverrideError, match=message) as info:
        make_variant(get("lvq-fig2"), overrides)
    assert "\n" not in str(info.value)


def test_without_declared_ranges_numbers_keep_their_sign_and_types_hold():
    spec = get("outliers-fig2")  # declares no ranges
    described = overridable(spec)
    assert described["n_features"].startswith("n_features: integer in (0, inf)")
    with pytest.raises(OverrideError, match=r"n_features must be in \(0, inf\); got -3"):
        make_variant(spec, {"n_features": "-3"})
    with pytest.raises(OverrideError, match="already a variant"):
        make_variant(make_variant(spec, {"n_features": "50"}), {"n_features": "60"})


def test_parse_assignments():
    assert parse_assignments(["p_plus=0.6", "eta = 0.5"]) == {"p_plus": "0.6", "eta": " 0.5"}
    for bad, match in ((["p_plus"], "KEY=VALUE"), (["=1"], "KEY=VALUE"), (["a=1", "a=2"], "twice")):
        with pytest.raises(OverrideError, match=match):
            parse_assignments(bad)


def test_cli_rejects_a_bad_override_before_running(tmp_path):
    result = runner.invoke(
        app, ["run", "lvq-fig2", "--set", "p_plus=1.5", "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 2
    assert result.output.strip() == "error: lvq-fig2: p_plus must be in (0, 1); got 1.5"
    assert not (tmp_path / "r" / "store").exists()


AT = {"width": 1.0}


def _toy_checks(settings):
    return [
        Check("theory vs simulation", ("theory_m", AT), ("sim_m", AT)),
        Check(
            "both, and the paper",
            ("theory_m", AT),
            ("sim_m", AT),
            paper_value="1.0",
            paper_source="Fig. 1",
        ),
        Check(
            "theory vs the paper", theory=("theory_m", AT), paper_value="1.0", paper_source="eq. 1"
        ),
        Derived(
            "mean, paper target",
            lambda ds: (float(ds["sim_m"].sel(**AT).mean()), None),
            target=1.0,
            tolerance=0.2,
            target_from="paper, Table 1",
        ),
        Derived(
            "theory, from a second computation",
            lambda ds: (float(ds["theory_m"].sel(**AT).squeeze()), None),
            target=lambda ds: float(ds["mu"].squeeze()),
            tolerance=1e-12,
        ),
        Check("at width 2 only", ("theory_m", {"width": 2.0}), ("sim_m", {"width": 2.0})),
    ]


def _toy_theory(point, settings):
    return {"theory_m": np.array(point["mu"])}


def _toy_simulation(point, settings, rng):
    return {"sim_m": point["mu"] + 0.01 * rng.standard_normal()}


TOY = FigureSpec(
    name="toy-mean",
    paper="toy",
    citation="toy",
    figure="toy",
    caption="toy",
    grid={"mu": (1.0,), "width": (1.0, 2.0)},
    settings={"quick": {"n_seeds": 30}, "full": {"n_seeds": 30}},
    outputs={"theory_m": (), "sim_m": ()},
    coords=lambda settings: {},
    theory=_toy_theory,
    simulation=_toy_simulation,
    plot=lambda ds, ax=None: ax,
    checks=_toy_checks,
)


def test_a_variants_checks_compare_theory_with_simulation_but_not_with_the_paper(tmp_path):
    variant = make_variant(TOY, {"mu": "3", "width": "1"})
    assert variant.grid == {"mu": (3.0,), "width": (1.0,)}
    adapted = variant.checks(variant.settings["quick"])
    assert [type(c).__name__ for c in adapted] == [
        "_VariantCheck",
        "_VariantCheck",
        "NotApplicable",
        "NotApplicable",
        "_VariantDerived",
        "_VariantCheck",
    ]
    store = ResultStore(tmp_path / "store")
    for spec in (TOY, variant):
        run_experiment(spec, "quick", out=tmp_path, progress=False)
    base_rows = {c.quantity: c for c in evaluate_checks(TOY, store.latest(TOY))}
    rows = {c.quantity: c for c in evaluate_checks(variant, store.latest(variant))}
    assert all(c.passed for c in base_rows.values())  # at mu = 1 the paper's numbers hold
    assert base_rows["theory vs the paper"].paper == 1.0
    assert rows["theory vs simulation"].passed and rows["theory vs simulation"].theory == 3.0
    both = rows["both, and the paper"]
    assert both.passed and both.paper is None and "not compared in a variant" in both.note
    for quantity in ("theory vs the paper", "mean, paper target"):
        assert rows[quantity].kind == "skipped", quantity
        assert "paper's parameters" in rows[quantity].note
    assert rows["theory, from a second computation"].passed
    off = rows["at width 2 only"]
    assert off.kind == "skipped" and "not applicable to this variant" in off.note
    # a variant's theory-vs-simulation check still fails where the numbers disagree
    ds = store.latest(variant).copy(deep=True)
    ds["sim_m"] = ds["sim_m"] + 1.0
    moved = {c.quantity: c for c in evaluate_checks(variant, ds)}
    assert moved["theory vs simulation"].passed is False


# -------------------------------------------------- the command line, end to end ----


def test_set_runs_a_variant_under_its_own_key_and_the_report_shows_it(registry, tmp_path):
    out = tmp_path / "results"
    result = runner.invoke(
        app, ["run", "lvq-fig2", "--set", "p_plus=0.6", "--set", "eta=0.5", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    name = "lvq-fig2@eta=0.5,p_plus=0.6"
    assert f"{name} (quick): 25 cells computed" in result.output
    stored = sorted(p.name for p in (out / "store").glob("*.nc"))
    assert len(stored) == 1 and stored[0].startswith(f"{name}__quick__")
    record = json.loads((out / "store" / "variants" / f"{name}.json").read_text())
    assert record == {
        "name": name,
        "variant_of": "lvq-fig2",
        "overrides": {"eta": 0.5, "p_plus": 0.6},
    }
    variant = get(name)
    ds = ResultStore(out / "store").latest(variant)
    assert ds["p_plus"].values.tolist() == [0.6] and ds["eta"].values.tolist() == [0.5]
    rows = evaluate_checks(variant, ds)
    assert all(c.passed for c in rows) and sum(c.kind == "evidence" for c in rows) >= 4
    # theory and simulation moved together: the paper's values give other overlaps
    paper_theory = get("lvq-fig2").theory(
        {"p_plus": 0.8, "lam": 1.0, "eta": 0.2}, get("lvq-fig2").settings["quick"]
    )
    assert not np.allclose(ds["theory_R"].squeeze().values, paper_theory["theory_R"], atol=0.05)

    # a new process knows nothing of the variant: `report` re-creates it from the store
    _registry._forget(name)
    result = runner.invoke(app, ["report", "--out", str(out)])
    assert result.exit_code == 3, result.output  # the paper figures themselves were not run
    assert "evidence: " in result.output and "0 failed" in result.output
    html = (out / "report.html").read_text()
    assert "Variant of lvq-fig2: eta=0.5, p_plus=0.6" in html
    assert get(name).variant_of == "lvq-fig2"


# --------------------------------------------------------- users' experiments ----


def test_the_tutorial_experiment_runs_from_a_file_outside_the_package(
    registry, tmp_path, monkeypatch
):
    home = tmp_path / "mine"
    home.mkdir()
    (home / "hebb_experiment.py").write_text(_tutorial_code(), encoding="utf-8")
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the file is importable from nowhere: --module loads it
    module = str(home / "hebb_experiment.py")
    result = runner.invoke(
        app, ["reproduce", "hebb", "--module", module, "--out", "results", "--n-jobs", "2"]
    )
    assert result.exit_code == 0, result.output  # every check passed, the experiment ran
    assert "hebb-overlap (quick): 105 cells computed" in result.output
    spec = get("hebb-overlap")
    assert Path(sys.modules["hebb_experiment"].__file__) == home / "hebb_experiment.py"
    rows = evaluate_checks(spec, ResultStore("results/store").latest(spec))
    assert rows and all(c.passed and c.kind == "evidence" for c in rows)
    html = Path("results/report.html").read_text()
    assert "hebb-overlap" in html and "Hebb rule" in html
    listed = runner.invoke(app, ["list", "--module", module, "--out", "results"])
    assert listed.exit_code == 0, listed.output
    row = next(line for line in listed.output.splitlines() if line.startswith("hebb-overlap "))
    assert "quick" in row.split() and "?" in row  # stored; no measured time estimate

    # a variant of the user's experiment, re-created for the next report from the same file
    result = runner.invoke(
        app, ["run", "hebb-overlap", "--module", module, "--set", "alpha=1,2", "--out", "results"]
    )
    assert result.exit_code == 0, result.output
    _registry._forget("hebb-overlap@alpha=1.0~2.0")
    result = runner.invoke(app, ["reproduce", "hebb", "--module", module, "--out", "results"])
    assert result.exit_code == 0, result.output
    assert "0 cells computed" in result.output  # the stored result is used
    html = Path("results/report.html").read_text()
    assert html.index("Variant of hebb-overlap: alpha=") > html.index("hebb-overlap")
    # without the module the variant's base is unknown: said, not dropped silently
    registry._forget("hebb-overlap")
    names, problems = register_stored_variants("results")
    assert names == [] and "give its --module" in problems["hebb-overlap@alpha=1.0~2.0"]


FINGERPRINTED = """
import numpy as np
from statmechlearn.experiments import Check, FigureSpec

SCALE = {scale}


def theory(point, settings):
    return {{"theory_x": np.array(point["a"])}}


def simulation(point, settings, rng):
    return {{"sim_x": point["a"] * SCALE + {noise} * rng.standard_normal()}}


def plot(ds, ax=None):
    return {plot}


SPEC = FigureSpec(
    name="user-exp-x",
    paper="user",
    citation="a user",
    figure="x",
    caption="x",
    grid={{"a": (1.0,)}},
    settings={{"quick": {{"n_seeds": 4}}, "full": {{"n_seeds": 4}}}},
    outputs={{"theory_x": (), "sim_x": ()}},
    coords=lambda settings: {{}},
    theory=theory,
    simulation=simulation,
    plot=plot,
    checks=lambda settings: [],
)
"""


def test_an_edited_user_file_gets_a_new_key_and_an_edited_plot_does_not(registry, tmp_path):
    path = tmp_path / "user_exp_fp.py"

    def key(**kw):
        path.write_text(FINGERPRINTED.format(**({"scale": 1.0, "noise": 0.1, "plot": "ax"} | kw)))
        assert _registry.load_module(path) == ["user-exp-x"]
        return spec_hash(get("user-exp-x"), "quick")

    first = key()
    assert key() == first  # loading the unchanged file again is a no-op
    assert key(plot="None") == first  # the plot does not change numbers
    assert key(noise=0.2) != first  # an edited simulation does
    assert key(scale=2.0) != first  # and so does a constant it reads
    assert key() == first


def test_a_loaded_file_runs_its_bytes_even_where_a_cached_pyc_looks_current(
    registry, tmp_path, monkeypatch
):
    # a .pyc is checked against the source's size and mtime in whole seconds: an edit that
    # keeps both (a script rewriting one digit) must still run the edited code
    path = tmp_path / "user_exp_pyc.py"

    def text(scale):
        return FINGERPRINTED.format(scale=scale, noise=0.1, plot="ax")

    path.write_text(text(1.0))
    py_compile.compile(str(path), cfile=importlib.util.cache_from_source(str(path)))
    before = path.stat()
    path.write_text(text(2.0))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert _registry.load_module(path) == ["user-exp-x"]
    assert sys.modules["user_exp_pyc"].SCALE == 2.0


def test_a_broken_or_clashing_module_is_a_one_line_error(registry, tmp_path):
    bad = tmp_path / "user_exp_bad.py"
    bad.write_text("import numpy as np\n\nx = 1 / 0\n")
    result = runner.invoke(app, ["run", "x", "--module", str(bad), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"error: --module {bad} fails to load (line 3): ZeroDivisionError: division by zero"
    )
    empty = tmp_path / "user_exp_empty.py"
    empty.write_text("x = 1\n")
    with pytest.raises(ValueError, match="defines no FigureSpec"):
        _registry.load_module(empty)
    with pytest.raises(ValueError, match=r"existing \.py file"):
        _registry.load_module(tmp_path / "user_exp_missing.py")
    clash = tmp_path / "json.py"
    clash.write_text("x = 1\n")
    with pytest.raises(ValueError, match="'json' is already imported"):
        _registry.load_module(clash)
    twin = tmp_path / "user_exp_twin.py"
    twin.write_text(
        "import dataclasses\nfrom statmechlearn.experiments import get\n"
        "SPEC = dataclasses.replace(get('lvq-fig2'), caption='mine')\n"
    )
    with pytest.raises(ValueError, match="'lvq-fig2' is defined twice"):
        _registry.load_module(twin)

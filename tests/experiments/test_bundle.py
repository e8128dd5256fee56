import dataclasses
import json
import re

import pytest

from statmechlearn.experiments import Derived, _registry, run_experiment
from statmechlearn.experiments._bundle import (
    bundle_page,
    bundle_status,
    read_bundle,
    write_bundle,
)


@pytest.fixture
def published(tmp_path, small_spec, monkeypatch):
    """A bundle of one computed experiment (one grid point, as its figure draws) and one not run."""

    def checks(settings):
        return [
            Derived(
                "simulations finished",
                lambda ds: (float(ds["sim_done"].sum()), None),
                target=lambda ds: 6.0,
                tolerance=0.0,
            ),
            Derived(
                "finished | planned, N → ∞",
                lambda ds: (float(ds["sim_done"].mean()), None),
                target=lambda ds: 1.0,
                tolerance=0.0,
            ),
        ]

    spec = dataclasses.replace(
        small_spec, grid={"p_plus": (0.8,), "lam": (1.0,), "eta": (0.2,)}, checks=checks
    )
    idle = dataclasses.replace(spec, name="lvq-fig2-idle")
    for s in (spec, idle):
        monkeypatch.setitem(_registry._SPECS, s.name, s)
    run_experiment(spec, "quick", out=tmp_path, progress=False)
    bundle = write_bundle(tmp_path, tmp_path / "bundle", mode="quick", names=[spec.name, idle.name])
    return tmp_path / "bundle", bundle, spec, monkeypatch


def test_bundle_holds_the_figure_checks_and_key_of_each_result(published):
    folder, bundle, spec, _ = published
    assert read_bundle(folder) == json.loads(json.dumps(bundle))
    (entry,) = bundle["experiments"]
    assert entry["name"] == spec.name and entry["cells_done"] == entry["cells_total"] == 7
    assert (folder / "figures" / entry["figure_file"]).stat().st_size > 1000
    assert [(c["quantity"], c["verdict"]) for c in entry["checks"]] == [
        ("simulations finished", "evidence: pass"),
        ("finished | planned, N → ∞", "evidence: pass"),
    ]
    assert bundle["not_run"] == [{"name": "lvq-fig2-idle", "paper": "lvq", "figure": spec.figure}]
    counted = sum(bundle["counts"].values())
    assert counted == len(entry["checks"])


def test_a_result_of_changed_code_or_spec_is_marked_stale(published):
    _, bundle, spec, monkeypatch = published
    assert bundle_status(bundle) == {spec.name: "current"}
    # other library versions: the same code and spec, so not stale, but not current either
    other = json.loads(json.dumps(bundle))
    other["experiments"][0]["key"] = "0" * 64
    assert bundle_status(other) == {spec.name: "other libraries"}
    # the spec changes (one more seed): the published numbers are no longer what it computes
    monkeypatch.setitem(
        _registry._SPECS,
        spec.name,
        dataclasses.replace(
            spec, settings={**spec.settings, "quick": dict(spec.settings["quick"], n_seeds=7)}
        ),
    )
    assert bundle_status(bundle) == {spec.name: "stale"}
    page = bundle_page(bundle, bundle_status(bundle), sections=lambda k: (k.upper(), 0))
    assert "1 published results are stale" in page and "**stale**" in page
    monkeypatch.delitem(_registry._SPECS, spec.name)
    assert bundle_status(bundle) == {spec.name: "unknown"}


def test_page_shows_every_check_with_its_verdict_and_escapes_markdown(published):
    bundle = published[1]
    page = bundle_page(bundle, bundle_status(bundle), sections=lambda k: ("LVQ | paper", 1))
    checks = bundle["experiments"][0]["checks"]
    assert page.count("\n| ") == (2 + len(checks)) + (2 + 1)  # and the limits table, one row
    assert "## Thermodynamic limits" in page and "finished \\| planned" in page
    assert "## LVQ \\| paper" in page
    assert f"figures/{bundle['experiments'][0]['figure_file']}" in page
    assert "result key matches the current code" in page
    assert "## Not run at this scale" in page and "lvq-fig2-idle" in page


def _markdown_tables(page):
    """Each pipe table of a page as (header cells, rows of cells); escaped pipes stay in a cell."""
    tables, rows = [], []
    for line in [*page.splitlines(), ""]:
        if line.startswith("| "):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows.append(cells)
        elif rows:
            tables.append((rows[0], [r for r in rows[2:]]))
            rows = []
    return tables


def test_every_table_cell_sits_under_its_header(published):
    bundle = published[1]
    page = bundle_page(bundle, bundle_status(bundle), sections=lambda k: ("LVQ", 1))
    checks = bundle["experiments"][0]["checks"]
    (limits_header, limits_rows), (checks_header, checks_rows) = _markdown_tables(page)
    assert limits_header[:2] == ["experiment", "check"] and checks_header[0] == "check"
    # the limits table lists the one check marked as a thermodynamic limit, the other every check
    for header, rows, expected in (
        (limits_header, limits_rows, [checks[1]]),
        (checks_header, checks_rows, checks),
    ):
        assert len(rows) == len(expected)
        for row, check in zip(rows, expected, strict=True):
            cell = dict(zip(header, row, strict=True))
            assert cell["check"].replace("\\|", "|") == check["quantity"]
            assert cell["kind"] == check["kind"]
            assert cell["observed"].split(" ± ")[0] == f"{check['observed']:.4g}"
            assert cell["verdict"] == check["verdict"]


def test_write_bundle_replaces_the_figures_of_an_earlier_bundle(published, tmp_path):
    folder, _, spec, _ = published
    (folder / "figures" / "gone.svg").write_text("<svg/>")
    write_bundle(tmp_path, folder, mode="quick", names=[spec.name])
    assert not (folder / "figures" / "gone.svg").exists()
    with pytest.raises(ValueError, match="mode"):
        write_bundle(tmp_path, folder, mode="paper")


def test_a_run_in_progress_whose_checks_cannot_be_evaluated_is_listed_not_published(
    tmp_path, small_spec, monkeypatch, interrupt_run
):
    def needs_every_seed(settings):
        def compute(ds):
            if not bool(ds["sim_done"].all()):
                raise ValueError("a fit needs every seed")
            return 1.0, None

        return [Derived("every seed", compute, target=lambda ds: 1.0, tolerance=0.0)]

    spec = dataclasses.replace(
        small_spec,
        grid={"p_plus": (0.8,), "lam": (1.0,), "eta": (0.2,)},
        checks=needs_every_seed,
    )
    monkeypatch.setitem(_registry._SPECS, spec.name, spec)
    interrupt_run(spec, tmp_path, at=4)
    bundle = write_bundle(tmp_path, tmp_path / "bundle", mode="quick", names=[spec.name])
    assert bundle["experiments"] == []
    (entry,) = bundle["not_run"]
    assert entry["reason"].startswith("incomplete: 3 of 7 cells (a fit needs every seed")
    page = bundle_page(bundle, bundle_status(bundle), sections=lambda k: (k, 0))
    assert "incomplete: 3 of 7 cells" in page

import os
import re
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from statmechlearn.cli import app
from statmechlearn.experiments import get, names, run_experiment, write_report

runner = CliRunner()


def _kinds(out):
    """Every check's result in the stored quick run, by experiment."""
    from statmechlearn.experiments import ResultStore, evaluate_checks

    store = ResultStore(out / "store")
    return {n: evaluate_checks(get(n), store.latest(get(n))) for n in names()}


def test_reproduce_writes_report_and_every_check_passes(quick_results):
    out, result = quick_results
    assert result.exit_code == 0, result.output
    results = _kinds(out)
    rows = [c for cs in results.values() for c in cs]
    assert not [(c.quantity, c.note) for c in rows if c.passed is False]
    n_evidence = sum(c.kind == "evidence" for c in rows)
    assert f"evidence: {n_evidence} passed, 0 failed" in result.output
    assert f"{len(names())} experiment(s) run, 0 not run" in result.output
    report = out / "report.html"
    assert f"report: {report.resolve()}" in result.output
    html = report.read_text()
    assert "Fig. 2" in html and "Biehl" in html and "All evidence passes" in html
    assert 'class="fail' not in html
    assert "reported" in html and "smoke" in html  # rows without power or verdict are shown
    for name in names():
        assert get(name).figure in html and f'href="#{name}"' in html
    assert "data:image/png;base64," in html and 'src="http' not in html  # self-contained
    assert "commit" in html and "base seed" in html and "computed under key" in html


def test_quick_mode_gives_evidence_for_every_figure(quick_results):
    out, _ = quick_results
    for name, checks in _kinds(out).items():
        assert any(c.kind == "evidence" and c.passed for c in checks), name


def test_table_1_is_in_the_report(quick_results):
    out, _ = quick_results
    html = (out / "report.html").read_text()
    assert 'id="sparse-table1"' in html and "Table 1" in html and 'id="not-run"' not in html


def test_every_paper_has_a_thermodynamic_limit_in_the_summary(quick_results):
    from statmechlearn.experiments import specs_for
    from statmechlearn.experiments._finite_size import LIMIT_MARK

    out, _ = quick_results
    html = (out / "report.html").read_text()
    table = html.split('id="limits-table"', 1)[1].split("</table>", 1)[0]
    # one key per seed paper (000-004); the lecture notes' theory of a phase transition
    # with an N -> oo limit is DA's critical temperature (maxent)
    for paper in ("outliers", "mixture", "lvq", "sparse", "maxent"):
        extrapolated = [
            s.name
            for s in specs_for(paper)
            if any(LIMIT_MARK in c.quantity for c in s.checks(s.settings["quick"]))
        ]
        assert extrapolated, f"paper {paper!r} has no finite-size extrapolation"
        assert any(f'href="#{name}"' in table for name in extrapolated), paper


def test_report_command_rebuilds_from_store(quick_results):
    out, _ = quick_results
    result = runner.invoke(app, ["report", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"{len(names())} experiment(s) run, 0 not run" in result.output


def _chromium():
    for exe in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(exe)
        if path:
            return path
    if os.environ.get("CI") == "true":
        pytest.fail("CI needs chromium (scripts/ensure-chromium.sh installs it)")
    pytest.skip("no chromium on PATH (scripts/ensure-chromium.sh installs Debian's)")


@pytest.mark.browser
def test_every_figure_renders_in_headless_chromium(quick_results, tmp_path):
    out, _ = quick_results
    browser = _chromium()
    cmd = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--virtual-time-budget=5000",
        "--dump-dom",
        (out / "report.html").resolve().as_uri(),
    ]
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout
    match = re.search(r'data-figures-rendered="(\d+)/(\d+)"', dom)
    assert match, dom[-2000:]
    rendered, total = map(int, match.groups())
    assert total == len(names()) and rendered == total


def test_cli_errors_are_one_line_and_non_zero(tmp_path):
    result = runner.invoke(app, ["run", "lvq-fig9", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "unknown experiment 'lvq-fig9'" in result.output and "lvq-fig2" in result.output
    result = runner.invoke(app, ["reproduce", "nopaper"])
    assert result.exit_code == 2 and "valid: all, lvq" in result.output
    result = runner.invoke(app, ["report", "--out", str(tmp_path / "empty")])
    assert result.exit_code == 2 and "no results" in result.output
    result = runner.invoke(app, ["run", "lvq-fig2", "--n-jobs", "0", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "--n-jobs must be" in result.output


def _computing_fails(*args, **kwargs):
    raise AssertionError("cells were computed although an option was invalid")


@pytest.mark.parametrize("command", [["run", "lvq-fig2"], ["reproduce", "lvq"]])
@pytest.mark.parametrize("n_jobs", ["0", "-2", "-100"])
def test_n_jobs_is_checked_before_anything_runs(tmp_path, monkeypatch, command, n_jobs):
    monkeypatch.setattr("statmechlearn.experiments.run_experiments", _computing_fails)
    result = runner.invoke(app, [*command, "--n-jobs", n_jobs, "--out", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"error: --n-jobs must be a positive integer or -1 (all cores); got {n_jobs}"
    ]


def _unwritable(tmp_path, monkeypatch):
    """Folders --out cannot be: a file, a folder below a file, a folder refusing writes."""
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    yield a_file, "File exists|is not a folder"
    yield a_file / "below", "Not a directory"
    locked = tmp_path / "locked"
    locked.mkdir()

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    # chmod does not stop root: refuse the probe file the way a read-only folder does
    monkeypatch.setattr("statmechlearn.cli.tempfile.mkstemp", refuse)
    yield locked, "cannot write to .*Permission denied"
    monkeypatch.undo()


@pytest.mark.parametrize("command", [["run", "lvq-fig2"], ["reproduce", "lvq"], ["report"]])
def test_out_is_checked_before_anything_runs(tmp_path, monkeypatch, command):
    for out, why in _unwritable(tmp_path, monkeypatch):
        if command == ["report"] and not out.exists():
            continue  # `report` creates nothing: a missing folder holds "no results"
        monkeypatch.setattr("statmechlearn.experiments.run_experiments", _computing_fails)
        result = runner.invoke(app, [*command, "--out", str(out)])
        assert result.exit_code == 2, (out, result.output)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: --out must be a writable folder")
        assert re.search(why, lines[0]), lines[0]


def test_out_is_created_and_the_probe_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr("statmechlearn.experiments.run_experiments", lambda *a, **k: [])
    out = tmp_path / "new" / "results"
    result = runner.invoke(app, ["run", "lvq-fig2", "--n-jobs", "-1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.is_dir() and not list(out.iterdir())


def test_cli_unreachable_scheduler(tmp_path):
    pytest.importorskip("distributed")
    result = runner.invoke(
        app, ["run", "lvq-fig2", "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "cannot reach dask scheduler at tcp://127.0.0.1:9" in result.output


def test_list_and_help():
    result = runner.invoke(app, ["list"])
    assert result.exit_code == 0 and "lvq-fig2" in result.output and "Fig. 2" in result.output
    for sub in ([], ["run"], ["reproduce"], ["report"], ["list"]):
        assert runner.invoke(app, [*sub, "--help"]).exit_code == 0


def test_write_report_lists_failing_checks(tmp_path, small_spec, monkeypatch):
    """A failing check shows as FAIL, the summary says so, and reproduce exits with 1."""
    import dataclasses

    from statmechlearn.experiments import Check, _registry

    bad = dataclasses.replace(
        small_spec,
        name="lvq-fig2-failing",
        paper="failing",
        grid={"p_plus": (0.8,), "lam": (1.0,), "eta": (0.2,)},
        checks=lambda s: [
            Check(
                "impossible",
                ("theory_eps_g", {"alpha": 0.0}),
                paper_value="0.100",
                paper_source="nowhere",
            )
        ],
    )
    monkeypatch.setitem(_registry._SPECS, bad.name, bad)
    run_experiment(bad, "quick", out=tmp_path, progress=False)
    summary = write_report(tmp_path, [bad.name])
    assert summary.results[bad.name][0].passed is False and summary.evidence_failed == 1
    html = summary.path.read_text()
    assert "evidence: FAIL" in html and 'id="evidence-failed">1<' in html
    result = runner.invoke(app, ["reproduce", "failing", "--out", str(tmp_path)])
    assert result.exit_code == 1 and "check failed (evidence)" in result.output


def test_an_experiment_that_cannot_run_is_shown_and_the_exit_status_says_so(
    tmp_path, small_spec, monkeypatch
):
    import dataclasses

    from statmechlearn.experiments import _registry

    needy = dataclasses.replace(
        small_spec, name="lvq-fig2-needy", paper="needy", requires=("no_such_package_x",)
    )
    monkeypatch.setitem(_registry._SPECS, needy.name, needy)
    result = runner.invoke(app, ["reproduce", "needy", "--out", str(tmp_path)])
    assert result.exit_code == 3, result.output
    assert "not run: needs no_such_package_x" in result.output
    html = (tmp_path / "report.html").read_text()
    assert 'id="not-run"' in html and "lvq-fig2-needy" in html and "needs no_such_package_x" in html
    result = runner.invoke(app, ["run", needy.name, "--out", str(tmp_path)])
    assert result.exit_code == 3


def test_an_error_inside_an_experiment_is_reported_as_not_run(tmp_path, small_spec, monkeypatch):
    import dataclasses

    from statmechlearn.experiments import _registry

    def broken(point, settings, rng):
        raise RuntimeError("cell exploded")

    bad = dataclasses.replace(small_spec, name="lvq-fig2-broken", paper="broken", simulation=broken)
    monkeypatch.setitem(_registry._SPECS, bad.name, bad)
    result = runner.invoke(app, ["reproduce", "broken", "--out", str(tmp_path)])
    assert result.exit_code == 3
    assert "not run: error: RuntimeError: cell exploded" in result.output


def test_force_recomputes_from_the_command_line(tmp_path, small_spec, monkeypatch):
    from statmechlearn.experiments import _registry

    monkeypatch.setitem(_registry._SPECS, small_spec.name, small_spec)
    args = ["run", small_spec.name, "--out", str(tmp_path)]
    first = runner.invoke(app, args)
    assert first.exit_code == 0 and "14 cells computed, 0 from the store" in first.output
    cached = runner.invoke(app, args)
    assert "0 cells computed, 14 from the store" in cached.output
    forced = runner.invoke(app, [*args, "--force"])
    assert "14 cells computed, 0 from the store" in forced.output

import os
import re
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from statmechlearn.cli import app
from statmechlearn.experiments import get, names, run_experiment, write_report

runner = CliRunner()


def _n_checks():
    """Checks of every registered experiment in quick mode (reported rows carry no verdict)."""
    return sum(
        not getattr(c, "reported", False)
        for n in names()
        for c in get(n).checks(get(n).settings["quick"])
    )


@pytest.fixture(scope="module")
def quick_results(tmp_path_factory):
    """The real main job (`reproduce all --quick`) run once for this module."""
    out = tmp_path_factory.mktemp("results")
    result = runner.invoke(app, ["reproduce", "all", "--quick", "--n-jobs", "2", "--out", str(out)])
    return out, result


def test_reproduce_writes_report_and_every_check_passes(quick_results):
    out, result = quick_results
    assert result.exit_code == 0, result.output
    n = _n_checks()
    assert n >= 39 and f"{n} of {n} checks pass" in result.output
    report = out / "report.html"
    assert f"report: {report.resolve()}" in result.output
    html = report.read_text()
    assert "Fig. 2" in html and "Biehl" in html and "all checks pass" in html
    assert html.count('class="pass"') == n and 'class="fail"' not in html
    assert 'class="reported"' in html  # measured rows without a verdict are shown
    for name in names():
        assert get(name).figure in html
    assert "data:image/png;base64," in html and 'src="http' not in html  # self-contained
    assert "commit" in html and "base seed" in html


def test_report_command_rebuilds_from_store(quick_results):
    out, _ = quick_results
    result = runner.invoke(app, ["report", "--out", str(out)])
    assert result.exit_code == 0, result.output
    n = _n_checks()
    assert f"{len(names())} figure(s), {n} of {n} checks pass" in result.output


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
    assert result.exit_code == 2 and "n_jobs must be" in result.output


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
    """A failing check shows as FAIL and the summary says not all pass."""
    import dataclasses

    from statmechlearn.experiments import Check, _registry

    bad = dataclasses.replace(
        small_spec,
        name="lvq-fig2-failing",
        grid={"p_plus": (0.8,), "lam": (1.0,), "eta": (0.2,)},
        checks=lambda s: [
            Check(
                "impossible",
                ("theory_eps_g", {"alpha": 0.0}),
                paper_value=0.1,
                paper_tolerance=1e-3,
            )
        ],
    )
    monkeypatch.setitem(_registry._SPECS, bad.name, bad)
    run_experiment(bad, "quick", out=tmp_path, progress=False)
    path, results = write_report(tmp_path, [bad.name])
    assert not results[bad.name][0].passed
    html = path.read_text()
    assert "FAIL" in html and "0 of 1 checks pass" in html

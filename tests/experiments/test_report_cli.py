import dataclasses
import functools
import html as html_lib
import io
import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest
from typer.testing import CliRunner

from statmechlearn.cli import app
from statmechlearn.experiments import get, names, run_experiment, write_report

runner = CliRunner()


@functools.cache  # the stored run does not change: its checks are evaluated once
def _kinds(out, reproduced):
    """Every check's result in the stored quick run, by experiment."""
    from statmechlearn.experiments import ResultStore, evaluate_checks

    store = ResultStore(out / "store")
    return {n: evaluate_checks(get(n), store.latest(get(n))) for n in reproduced}


def test_reproduce_writes_report_and_every_check_passes(quick_results, reproduced):
    from statmechlearn.experiments import paper_section

    out, result = quick_results
    assert result.exit_code == 0, result.output
    results = _kinds(out, tuple(reproduced))
    rows = [c for cs in results.values() for c in cs]
    assert not [(c.quantity, c.note) for c in rows if c.passed is False]
    n_evidence = sum(c.kind == "evidence" for c in rows)
    assert f"evidence: {n_evidence} passed, 0 failed" in result.output
    assert f"{len(reproduced)} experiment(s) run, 0 not run" in result.output
    report = out / "report.html"
    assert f"report: {report.resolve()}" in result.output
    html = report.read_text()
    assert "All evidence passes" in html and 'class="fail' not in html
    assert "reported" in html and "smoke" in html  # rows without power or verdict are shown
    for name in reproduced:
        assert get(name).figure in html and f'href="#{name}"' in html
    # self-contained: figures inline (SVG, or PNG as a data URI), nothing fetched
    assert html.count('class="report-figure') == len(reproduced)
    assert 'src="http' not in html and "<link" not in html
    assert "commit" in html and "base seed" in html and "result key" in html
    assert 'id="toc"' in html
    # every paper shown is cited with its link
    for paper in {get(name).paper for name in reproduced}:
        refs = paper_section(paper).references
        assert refs and all(ref.doi_url in html for ref in refs if ref.doi), paper


def test_quick_mode_gives_evidence_for_every_figure(quick_results, reproduced):
    out, _ = quick_results
    for name, checks in _kinds(out, tuple(reproduced)).items():
        assert any(c.kind == "evidence" and c.passed for c in checks), name


def test_table_1_is_in_the_report(quick_results, reproduced):
    if "sparse-table1" not in reproduced:
        pytest.skip("sparse-table1 is not in this reproduction (make test-report covers it)")
    out, _ = quick_results
    html = (out / "report.html").read_text()
    assert 'id="sparse-table1"' in html and "Table 1" in html and 'id="not-run"' not in html


def test_every_paper_has_a_thermodynamic_limit():
    from statmechlearn.experiments import specs_for
    from statmechlearn.experiments._finite_size import LIMIT_MARK

    # one key per seed paper (000-004); the lecture notes' theory of a phase transition
    # with an N -> oo limit is DA's critical temperature (maxent)
    for paper in ("outliers", "mixture", "lvq", "sparse", "maxent"):
        extrapolated = [
            s.name
            for s in specs_for(paper)
            if any(LIMIT_MARK in c.quantity for c in s.checks(s.settings["quick"]))
        ]
        assert extrapolated, f"paper {paper!r} has no finite-size extrapolation"


def test_the_summary_links_each_reproduced_limit(quick_results, reproduced):
    from statmechlearn.experiments._finite_size import LIMIT_MARK

    out, _ = quick_results
    html = (out / "report.html").read_text()
    table = html.split('id="limits-table"', 1)[1].split("</table>", 1)[0]
    # every N -> oo extrapolation the stored results measured (a z to show) has its row
    extrapolated = [
        name
        for name, checks in _kinds(out, tuple(reproduced)).items()
        if any(LIMIT_MARK in c.quantity and c.z is not None for c in checks)
    ]
    assert extrapolated, "the reproduction holds no finite-size extrapolation"
    for name in extrapolated:
        assert f'href="#{name}"' in table, name


def test_report_command_rebuilds_from_store(quick_results, reproduced):
    out, _ = quick_results
    result = runner.invoke(app, ["report", "--out", str(out)])
    # the report lists every registered experiment: those the reproduction left out are
    # "not run" (exit status 3) when it is one paper's
    left = len(names()) - len(reproduced)
    assert result.exit_code == (3 if left else 0), result.output
    assert f"{len(reproduced)} experiment(s) run, {left} not run" in result.output


def _chromium():
    for exe in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(exe)
        if path:
            return path
    if os.environ.get("CI") == "true":
        pytest.fail("CI needs chromium (scripts/ensure-chromium.sh installs it)")
    pytest.skip("no chromium on PATH (scripts/ensure-chromium.sh installs Debian's)")


#: Injected into a copy of the report (the report itself carries no test hook): checks that
#: every in-page link resolves to an element id and every figure loaded with a size.
_BROWSER_CHECK = """<script>
window.addEventListener("load", function () {
  var bad = [], toc = 0, links = 0, loaded = 0;
  document.querySelectorAll('a[href^="#"]').forEach(function (a) {
    var id = decodeURIComponent(a.getAttribute("href").slice(1));
    links += 1;
    if (a.closest("#toc")) { toc += 1; }
    if (!document.getElementById(id)) { bad.push("link:" + id); }
  });
  var figures = document.querySelectorAll(".report-figure");
  figures.forEach(function (f) {
    var box = f.getBoundingClientRect();
    var ok = box.width > 0 && box.height > 0;
    if (f.tagName.toLowerCase() === "img") {
      ok = ok && f.complete && f.naturalWidth > 0;
    } else {
      var content = f.getBBox();
      ok = ok && content.width > 0 && content.height > 0 && f.querySelector("path") !== null;
    }
    if (ok) { loaded += 1; } else { bad.push("figure:" + (f.getAttribute("aria-label") || f.alt)); }
  });
  var ids = {}, dup = [];
  document.querySelectorAll("[id]").forEach(function (e) {
    if (ids[e.id]) { dup.push(e.id); } ids[e.id] = true;
  });
  var result = {toc: toc, links: links, figures: figures.length, loaded: loaded, bad: bad,
                duplicate_ids: dup};
  document.body.setAttribute("data-report-check", JSON.stringify(result));
});
</script>"""


def _check_in_chromium(report, tmp_path):
    """Open a copy of ``report`` with the checking script in headless Chromium."""
    browser = _chromium()
    page = tmp_path / "checked.html"
    page.write_text(
        report.read_text(encoding="utf-8").replace("</body>", _BROWSER_CHECK + "</body>", 1),
        encoding="utf-8",
    )
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
        page.resolve().as_uri(),
    ]
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout
    match = re.search(r'data-report-check="([^"]*)"', dom)
    assert match, dom[-2000:]
    return json.loads(html_lib.unescape(match.group(1)))


@pytest.mark.browser
def test_every_figure_renders_in_headless_chromium(quick_results, reproduced, tmp_path):
    out, _ = quick_results
    result = _check_in_chromium(out / "report.html", tmp_path)
    assert not result["bad"] and not result["duplicate_ids"], result
    assert result["figures"] == len(reproduced) and result["loaded"] == result["figures"]
    assert result["toc"] >= len(reproduced)


def test_reproduce_takes_papers_and_experiment_names_each_once_in_order():
    from statmechlearn.cli import _targets
    from statmechlearn.experiments import specs_for

    lvq = [s.name for s in specs_for("lvq")]
    got = [s.name for s in _targets(["mixture-fig2", "lvq", "lvq-fig2", "mixture-fig2"])]
    assert got == ["mixture-fig2", *lvq]
    assert [s.name for s in _targets(["all"])] == names()


def test_reproduce_names_a_bad_target_among_good_ones(tmp_path):
    result = runner.invoke(app, ["reproduce", "lvq-fig2", "lvq-fig9", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: unknown paper or experiment 'lvq-fig9'; valid: all, "
        + ", ".join(sorted({get(n).paper for n in names()}))
        + ", or an experiment name (see `statmechlearn list`)"
    ]
    assert not (tmp_path / "store").exists()  # nothing ran


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


def test_cli_unreachable_scheduler(tmp_path, monkeypatch):
    import functools

    from statmechlearn.experiments import _runner

    pytest.importorskip("distributed")
    # a refused port is retried until the timeout: wait 1 s, not the default 10 s, for it
    monkeypatch.setattr(
        _runner, "executor", functools.partial(_runner.executor, connect_timeout=1.0)
    )
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


def _plottable(small_spec):
    """One grid point, as the figure draws; no checks (the paper's read alphas beyond the grid)."""
    return dataclasses.replace(
        small_spec,
        grid={"p_plus": (0.8,), "lam": (1.0,), "eta": (0.2,)},
        checks=lambda settings: [],
    )


def _variant(base, name, **overrides):
    """``base`` with some grid values changed, marked as a variant (as ``run --set`` makes)."""
    grid = {k: ((overrides[k],) if k in overrides else v) for k, v in base.grid.items()}
    fields = {f.name for f in dataclasses.fields(base)}
    marks = {"variant_of": base.name, "overrides": dict(overrides)}
    spec = dataclasses.replace(
        base, name=name, grid=grid, **{k: v for k, v in marks.items() if k in fields}
    )
    for k, v in marks.items():  # before FigureSpec has the fields: the report reads getattr
        if k not in fields:
            object.__setattr__(spec, k, v)
    return spec


@pytest.fixture
def small_report(tmp_path, small_spec, monkeypatch):
    """A report of a computed experiment, its variant and one that cannot run."""
    from statmechlearn.experiments import _registry

    small_spec = _plottable(small_spec)
    variant = (
        small_spec.with_overrides(lam=1.5, eta=0.5)  # as `run --set lam=1.5 --set eta=0.5`
        if hasattr(small_spec, "with_overrides")
        else _variant(small_spec, "lvq-fig2-small@eta=0.5,lam=1.5", lam=1.5, eta=0.5)
    )
    needy = dataclasses.replace(small_spec, name="lvq-fig2-needy", requires=("no_such_pkg_x",))
    for spec in (small_spec, variant, needy):
        monkeypatch.setitem(_registry._SPECS, spec.name, spec)
    for spec in (small_spec, variant):
        run_experiment(spec, "quick", out=tmp_path, progress=False)
    # the variant is named first: the page still puts it right after its base
    summary = write_report(tmp_path, [variant.name, needy.name, small_spec.name])
    return summary, small_spec, variant, needy


def _ids_and_links(html):
    ids = re.findall(r'\sid="([^"]+)"', html)
    links = re.findall(r'href="#([^"]+)"', html)
    return ids, links


def test_report_has_summary_toc_and_a_section_per_paper(small_report):
    summary, base, variant, needy = small_report
    html = summary.path.read_text()
    toc = html.split('<nav id="toc"', 1)[1].split("</nav>", 1)[0]
    assert html.index('id="summary"') < html.index('<nav id="toc"') < html.index('id="paper-lvq"')
    for target in ("paper-lvq", base.name, variant.name, needy.name, "summary"):
        assert f'href="#{target}"' in toc, target
    ids, links = _ids_and_links(html)
    assert len(ids) == len(set(ids)), "ids must be unique in the page"
    assert set(links) <= set(ids), sorted(set(links) - set(ids))
    # the paper's full reference with its DOI as a link
    section = html.split('id="paper-lvq"', 1)[1]
    assert "M. Biehl, A. Ghosh, B. Hammer" in section and "<i>Neurocomputing</i>" in section
    assert 'href="https://doi.org/10.1016/j.neucom.2005.12.007"' in section
    # figures sit in their paper's section; the variant right after its base
    at = {n: section.index(f'<figure id="{n}"') for n in (base.name, variant.name, needy.name)}
    assert at[base.name] < at[variant.name]
    assert section[at[base.name] : at[variant.name]].count("<figure") == 1


def test_a_variant_is_headed_and_captioned_as_not_the_papers_figure(small_report):
    summary, base, variant, _ = small_report
    html = summary.path.read_text()
    figure = html.split(f'<figure id="{variant.name}"', 1)[1].split("</figure>", 1)[0]
    heading = re.search(r"<h3>(.*?)</h3>", figure).group(1)
    assert heading.startswith(f"{variant.name}: Variant of {base.name}: ")
    assert "lam=1.5" in heading and "eta=0.5" in heading
    assert "Not the paper&#39;s figure" in figure or "Not the paper's figure" in figure
    base_figure = html.split(f'<figure id="{base.name}"', 1)[1].split("</figure>", 1)[0]
    assert "Variant of" not in base_figure and "reproduced" in base_figure


def test_figures_are_inline_vector_graphics_with_ids_of_their_own(small_report):
    summary = small_report[0]
    html = summary.path.read_text()
    svgs = re.findall(r"<svg class=\"report-figure\".*?</svg>", html, flags=re.S)
    assert len(svgs) == 2 and "<img" not in html
    prefixes = []
    for svg in svgs:
        own = re.findall(r'\sid="([^"]+)"', svg)
        prefix = {i.split("--", 1)[0] for i in own}
        assert own and len(prefix) == 1 and re.fullmatch(r"[A-Za-z0-9-]+", prefix.pop())
        prefixes.append(own[0].split("--", 1)[0])
        # every reference inside the drawing points at one of its own definitions
        refs = re.findall(r'href="#([^"]+)"', svg) + re.findall(r"url\(#([^)]+)\)", svg)
        assert refs and set(refs) <= set(own)
    assert prefixes[0] != prefixes[1]


def _make_svg_heavy(monkeypatch):
    """Every drawing's SVG grows past the limit, as a dense scatter or an image does."""
    from statmechlearn.experiments import _report

    light = _report.render_svg
    padding = "<!--" + "x" * (2 * _report.SVG_LIMIT) + "-->"

    def heavy(spec, ds):
        svg = light(spec, ds)
        return svg.replace("</svg>", padding + "</svg>")

    monkeypatch.setattr(_report, "render_svg", heavy)


def test_a_heavy_figure_falls_back_to_a_high_resolution_png(tmp_path, small_spec, monkeypatch):
    import base64
    import struct

    from statmechlearn.experiments import _registry, _report

    small_spec = _plottable(small_spec)
    monkeypatch.setitem(_registry._SPECS, small_spec.name, small_spec)
    run_experiment(small_spec, "quick", out=tmp_path, progress=False)
    _make_svg_heavy(monkeypatch)
    html = write_report(tmp_path, [small_spec.name]).path.read_text()
    match = re.search(
        r'<img class="report-figure[^"]*"[^>]*src="data:image/png;base64,([^"]+)"', html
    )
    assert match and "<svg class" not in html
    png = base64.b64decode(match.group(1))
    width = struct.unpack(">I", png[16:20])[0]
    # 200 dpi: the default 6.4-inch-wide figure is 1280 pixels wide (or more panels)
    assert width >= 6 * _report.PNG_DPI and _report.PNG_DPI >= 200


def test_provenance_is_recorded_with_the_result_and_shown(small_report):
    from statmechlearn.experiments import ResultStore
    from statmechlearn.experiments._provenance import CORE_DISTRIBUTIONS

    summary, base, _, _ = small_report
    ds = ResultStore(summary.path.parent / "store").latest(base)
    libraries = json.loads(ds.attrs["libraries_json"])
    assert set(CORE_DISTRIBUTIONS) <= set(libraries) and all(libraries.values())
    assert ds.attrs["cpu"] and int(ds.attrs["cpu_count"]) >= 1
    assert float(ds.attrs["run_wall_s"]) > 0 and int(ds.attrs["run_cells_computed"]) == 7
    threads = json.loads(ds.attrs["threads_json"])
    assert threads["cell"] == {"blas": 1, "numba": 1} and threads["usable_cpus"] >= 1
    assert ds.attrs["command"]
    html = summary.path.read_text()
    figure = html.split(f'<figure id="{base.name}"', 1)[1].split("</figure>", 1)[0]
    assert "not recorded" not in figure
    for shown in (
        f"numpy {libraries['numpy']}",
        f"scikit-learn {libraries['scikit-learn']}",
        f"numba {libraries['numba']}",
        html_lib.escape(ds.attrs["cpu"]),
        f"{float(ds.attrs['run_wall_s']):.1f} s",
        "each cell runs on 1 BLAS and 1 numba thread",
    ):
        assert shown in figure, shown


def test_results_stored_before_provenance_existed_say_not_recorded(
    tmp_path, small_spec, monkeypatch
):
    from statmechlearn.experiments import ResultStore, _registry
    from statmechlearn.experiments._provenance import RUN_ATTRS

    small_spec = _plottable(small_spec)
    monkeypatch.setitem(_registry._SPECS, small_spec.name, small_spec)
    run = run_experiment(small_spec, "quick", out=tmp_path, progress=False)
    ds = run.dataset.copy()
    for attr in (*RUN_ATTRS, "run_wall_s", "run_cells_computed", "run_finished"):
        ds.attrs.pop(attr)
    ResultStore(tmp_path / "store").save(ds, run.path)
    html = write_report(tmp_path, [small_spec.name]).path.read_text()
    figure = html.split(f'<figure id="{small_spec.name}"', 1)[1].split("</figure>", 1)[0]
    rows = dict(re.findall(r"<tr><td>([^<]+)</td><td>(?:<code>)?([^<]*)", figure))
    for label in ("command line", "wall time of the run", "CPU", "threads"):
        assert rows[label].startswith("not recorded"), (label, rows[label])
    assert rows["libraries"].startswith("not recorded (the result key names ")
    assert "numpy" in rows["libraries"]


def test_cells_run_on_the_threads_the_provenance_records():
    from statmechlearn.experiments._provenance import CELL_THREADS
    from statmechlearn.experiments._runner import _execute_cell

    def probe(settings):
        import numba
        from threadpoolctl import threadpool_info

        blas = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
        return {"blas": max(blas), "numba": numba.get_num_threads()}

    _, _, out, *_ = _execute_cell(("shared", probe, {}, {}, None, ()))
    assert {k: int(v) for k, v in out.items()} == CELL_THREADS


def test_specs_added_at_run_time_stay_out_of_a_users_report(tmp_path, small_spec, monkeypatch):
    """Only experiments found in modules are in the default report; others when named."""
    from statmechlearn.experiments import _registry

    registered = dataclasses.replace(small_spec, name="lvq-fig2-registered")
    _registry.names()  # discovery first, so that the spec below is the only run-time one
    monkeypatch.setitem(_registry._SPECS, small_spec.name, small_spec)
    monkeypatch.setitem(_registry._SPECS, registered.name, registered)
    monkeypatch.setitem(_registry._ORIGIN, registered.name, "register()")
    summary = write_report(tmp_path)
    html = summary.path.read_text()
    assert small_spec.name not in html and registered.name not in html
    assert set(summary.not_run) == {
        n for n in _registry.names() if n not in (small_spec.name, registered.name)
    }
    assert "lvq-fig2" in summary.not_run
    named = write_report(tmp_path, [registered.name]).path.read_text()
    assert f'id="{registered.name}"' in named


def test_every_paper_key_has_a_full_reference():
    from statmechlearn.experiments import paper_section, papers

    sections = {key: paper_section(key) for key in papers()}
    # each paper's package orders its own section; two papers never share a place
    orders = [s.order for s in sections.values()]
    assert len(set(orders)) == len(orders) and all(np.isfinite(orders))
    for key, section in sections.items():
        assert section.key == key and section.references, key
        for ref in section.references:
            assert ref.authors and ref.title and 1900 < ref.year < 2100 and ref.source
            if ref.journal:  # published: volume, pages and a resolvable DOI
                assert ref.volume and ref.pages and ref.doi and ref.doi.startswith("10.")
            else:  # the lecture notes: no DOI exists, and the entry says so
                assert ref.doi is None and ref.link is None and "No DOI" in ref.note


@pytest.mark.browser
@pytest.mark.parametrize("heavy", [False, True], ids=["svg", "png"])
def test_toc_links_resolve_and_figures_load_in_headless_chromium(
    small_report, tmp_path, monkeypatch, heavy
):
    summary, base, variant, needy = small_report
    if heavy:
        _make_svg_heavy(monkeypatch)
        summary = write_report(summary.path.parent, [base.name, variant.name, needy.name])
        assert summary.path.read_text().count("data:image/png;base64,") == 2
    result = _check_in_chromium(summary.path, tmp_path)
    assert not result["bad"] and not result["duplicate_ids"], result
    assert result["figures"] == 2 and result["loaded"] == 2
    assert result["toc"] >= 5  # summary, overview, the paper, its three entries


def test_compacting_a_drawing_moves_no_point_by_more_than_a_hundredth_of_a_point():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from statmechlearn.experiments._report import _SVG_GEOMETRY, _inline_svg

    fig, ax = plt.subplots()
    rng = np.random.default_rng(0)
    ax.plot(rng.random(50) * 123.456789, "o-", label=r"$R_{++}$")
    ax.set_title("small text", fontsize=8.5)  # glyphs scaled by 0.085: must keep every digit
    ax.legend()
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    original = buf.getvalue()
    compact = _inline_svg(original, "fig--", "a figure")
    assert len(compact) < 0.9 * len(original)

    def numbers(svg):
        values = [m.group(2) for m in _SVG_GEOMETRY.finditer(svg)]
        return [float(x) for v in values for x in re.findall(r"-?\d+(?:\.\d+)?", v)]

    before, after = numbers(original), numbers(compact)
    assert len(before) == len(after) > 100
    for b, a in zip(before, after, strict=True):
        assert abs(a - b) <= 0.01 and (abs(b) >= 10 or a == b), (b, a)


def test_a_comparison_with_unstable_replica_symmetry_is_marked(tmp_path, small_spec, monkeypatch):
    """A check flagged rs_unstable carries the mark in the report and in the bundle page."""
    import dataclasses

    from statmechlearn.experiments import Check, _registry, bundle_page, bundle_status, write_bundle

    marked = dataclasses.replace(
        small_spec,
        name="lvq-fig2-rsb",
        paper="rsb",
        grid={"p_plus": (0.8,), "lam": (1.0,), "eta": (0.2,)},
        checks=lambda s: [
            Check("plain", ("theory_eps_g", {"alpha": 0.0}), paper_value="0.5", paper_source="x"),
            Check(
                "beyond AT",
                ("theory_eps_g", {"alpha": 0.0}),
                paper_value="0.5",
                paper_source="x",
                rs_unstable=True,
            ),
        ],
    )
    monkeypatch.setitem(_registry._SPECS, marked.name, marked)
    run_experiment(marked, "quick", out=tmp_path, progress=False)
    summary = write_report(tmp_path, [marked.name])
    flags = [r.rs_unstable for r in summary.results[marked.name]]
    assert flags == [False, True]
    assert summary.path.read_text().count('class="rs-unstable"') == 1
    bundle = write_bundle(tmp_path, tmp_path / "bundle", mode="quick", names=[marked.name])
    page = bundle_page(bundle, bundle_status(bundle), sections=lambda k: (k, 0))
    assert page.count("*(RS unstable)*") == 1

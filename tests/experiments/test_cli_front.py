"""The command line's front: --version, a fast aligned `list`, progress in logs, --verbose."""

import io
import json
import re
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from statmechlearn import __version__
from statmechlearn._experiment_index import load_index, static_entries
from statmechlearn.cli import app
from statmechlearn.experiments import names, run_experiment
from statmechlearn.experiments._progress import ProgressLog, progress_reporter

runner = CliRunner()

#: What `list` and `--version` must not import: the paper modules and what they pull in.
HEAVY = ("numba", "scipy", "sklearn", "xarray", "matplotlib", "statmechlearn.experiments")


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"statmechlearn {__version__}\n"
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", __version__)


def _table(output):
    """Header and rows of `list` (everything before the blank line of the footer)."""
    lines = output.split("\n\n", 1)[0].splitlines()
    return lines[0], lines[1:]


def _column_starts(header):
    return [m.start() for m in re.finditer(r"\S+", header)]


def test_list_is_aligned_and_names_every_experiment(tmp_path):
    result = runner.invoke(app, ["list", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    header, rows = _table(result.output)
    assert header.split() == ["NAME", "PAPER", "QUICK", "FULL", "STORED", "FIGURE"]
    starts = _column_starts(header)
    for row in rows:
        for start in starts[1:]:
            # every column starts at the header's offset, after a gap, with a non-blank cell
            assert row[start - 2 : start] == "  " and row[start] != " ", (start, row)
    assert [row.split()[0] for row in rows] == [e["name"] for e in static_entries()]
    assert "measured on" in result.output
    by_name = {row.split()[0]: row for row in rows}
    fig2 = by_name["lvq-fig2"]
    assert fig2[starts[1] :].startswith("lvq ") and fig2.endswith("Fig. 2")
    assert re.match(r"(~\d+ (s|min)|<1 s|~\d+\.\d h) ", fig2[starts[2] :]), fig2
    assert fig2[starts[4] :].startswith("- "), fig2  # nothing stored in an empty --out


def test_list_shows_what_the_store_holds(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    # a file under a key no code produces: stored, and stale once checked
    (store / "lvq-fig2__quick__0123456789abcdef.nc").write_bytes(b"")
    (store / "lvq-fig2__quick__0123456789abcdef.nc.damaged").write_bytes(b"")
    (store / "outliers-fig1__full__0123456789abcdef.nc.tmp").write_bytes(b"")
    result = runner.invoke(app, ["list", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    header, rows = _table(result.output)
    stored = _column_starts(header)[4]
    cells = {row.split()[0]: row[stored:].split("  ")[0] for row in rows}
    assert cells["lvq-fig2"] == "quick"
    assert {name for name, cell in cells.items() if cell != "-"} == {"lvq-fig2"}

    result = runner.invoke(app, ["list", "--out", str(tmp_path), "--verify"])
    assert result.exit_code == 0, result.output
    header, rows = _table(result.output)
    stored = _column_starts(header)[4]
    cells = {row.split()[0]: row[stored:].split("  ")[0] for row in rows}
    assert cells["lvq-fig2"] == "quick stale" and cells["lvq-fig1"] == "-"


def test_index_matches_the_registry():
    """Fails when an experiment is added, renamed or resized without rebuilding the index:
    python scripts/build_experiment_index.py --store results/store (after a quick run)."""
    index = load_index()["experiments"]
    static = [{k: e[k] for k in static_entries()[0]} for e in index]
    assert static == static_entries()
    # the registry may hold more: variants and specs registered at run time
    assert {e["name"] for e in index} <= set(names())
    for e in index:
        # every estimate comes from a measured run
        assert e["cell_s"]["quick"] > 0 and e["measured"]["quick"], e["name"]
        assert e["cell_s"]["full"] is None or e["cell_s"]["full"] > 0, e["name"]


def _modules_after(argv, tmp_path):
    code = (
        "import json, sys\n"
        "from typer.testing import CliRunner\n"
        "from statmechlearn.cli import app\n"
        f"result = CliRunner().invoke(app, {argv!r})\n"
        "assert result.exit_code == 0, result.output\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("argv", [["list"], ["--version"], ["--help"]])
def test_list_and_version_import_no_experiment_stack(argv, tmp_path):
    loaded = _modules_after(argv, tmp_path)
    heavy = [m for m in loaded if m.startswith(HEAVY) and m.split(".")[0] != "statmechlearn"]
    heavy += [m for m in loaded if m.startswith("statmechlearn.experiments")]
    assert not heavy, heavy[:10]


def test_progress_log_lines_are_periodic():
    now = [0.0]
    out = io.StringIO()
    log = ProgressLog(
        100, "demo (quick)", file=out, note=" (4 from the store)", clock=lambda: now[0]
    )
    for _ in range(100):
        now[0] += 0.5  # 50 s for the run: a line per tenth, but at most one per 10 s
        log.update()
    log.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "demo (quick): computing 100 cells (4 from the store)"
    counts = [int(re.match(r"demo \(quick\): (\d+)/100 cells, ", ln).group(1)) for ln in lines[1:]]
    assert counts == [20, 40, 60, 80, 100]
    assert lines[1] == "demo (quick): 20/100 cells, 10 s elapsed, ~40 s left"
    assert lines[-1] == "demo (quick): 100/100 cells, 50 s elapsed"


def test_progress_log_is_quiet_for_a_fast_run_and_alive_for_a_slow_one():
    now = [0.0]
    out = io.StringIO()
    fast = ProgressLog(1000, "fast", file=out, clock=lambda: now[0])
    for _ in range(1000):
        now[0] += 0.001
        fast.update()
    fast.close()
    assert out.getvalue().splitlines() == ["fast: computing 1000 cells"]

    out = io.StringIO()
    slow = ProgressLog(1000, "slow", file=out, clock=lambda: now[0])
    for _ in range(3):
        now[0] += 61.0  # far less than a tenth, but a minute passed each time
        slow.update()
    assert len(out.getvalue().splitlines()) == 4
    assert "3/1000 cells, 3 min 3 s elapsed, ~16 h 53 min left" in out.getvalue()


def test_progress_choice_follows_the_terminal(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stderr", Terminal())
    assert type(progress_reporter(True, 3, "x")).__name__ == "_TqdmBar"
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert isinstance(progress_reporter(True, 3, "x"), ProgressLog)
    assert isinstance(progress_reporter("log", 3, "x"), ProgressLog)
    with pytest.raises(ValueError, match="progress must be"):
        progress_reporter("loud", 3, "x")


def test_runner_progress_false_stays_silent_and_log_writes_lines(small_spec, tmp_path, capsys):
    run_experiment(small_spec, "quick", out=tmp_path / "a", progress=False)
    assert capsys.readouterr().err == ""
    summary = run_experiment(small_spec, "quick", out=tmp_path / "b", progress="log")
    err = capsys.readouterr().err
    assert err.splitlines()[0] == f"lvq-fig2-small (quick): computing {summary.n_cells} cells"
    assert "\r" not in err


def test_run_writes_log_lines_when_not_on_a_terminal(tmp_path):
    # CliRunner's stderr is no terminal: a log line instead of a bar
    result = runner.invoke(app, ["run", "maxent-inference", "--quick", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert re.search(r"^maxent-inference \(quick\): computing \d+ cells$", result.output, re.M)
    assert "\r" not in result.output and "cell/s" not in result.output


def test_verbose_adds_the_key_and_a_line_per_cell(tmp_path):
    plain = runner.invoke(app, ["run", "maxent-inference", "--quick", "--out", str(tmp_path / "a")])
    loud = runner.invoke(
        app, ["-v", "run", "maxent-inference", "--quick", "--out", str(tmp_path / "b")]
    )
    assert plain.exit_code == 0 and loud.exit_code == 0, loud.output
    computed = int(re.search(r"(\d+) cells computed", loud.output).group(1))
    cell_lines = re.findall(
        r"^maxent-inference \(quick\): \w+ cell \(.*\) \S+ s$", loud.output, re.M
    )
    assert len(cell_lines) == computed > 0
    assert re.search(r"key [0-9a-f]{16}, \d+ cells, 0 stored: ", loud.output)
    assert not re.search(r" cell \(", plain.output) and "key " not in plain.output
    # a stored result: verbose names its key and file, the plain run does not
    again = runner.invoke(
        app, ["--verbose", "run", "maxent-inference", "--quick", "--out", str(tmp_path / "b")]
    )
    assert re.search(r"all \d+ cells in the store, key [0-9a-f]{16}: ", again.output)


def test_list_adds_the_experiments_of_other_packages(monkeypatch, small_spec, tmp_path):
    import statmechlearn._experiment_index as index
    import statmechlearn.experiments as experiments

    real_names, real_get = experiments.names, experiments.get
    monkeypatch.setattr(index, "_user_entry_points", lambda: ["their_package.experiments"])
    monkeypatch.setattr(experiments, "names", lambda: sorted([*real_names(), small_spec.name]))
    monkeypatch.setattr(
        experiments, "get", lambda n: small_spec if n == small_spec.name else real_get(n)
    )
    result = runner.invoke(app, ["list", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    header, rows = _table(result.output)
    starts = _column_starts(header)
    (row,) = [r for r in rows if r.startswith(f"{small_spec.name} ")]
    assert row[starts[2] :].startswith("?") and row[starts[3] :].startswith("?")
    assert len(rows) == len(static_entries()) + 1


def test_the_index_spells_the_registry_constants_as_the_registry_does():
    # the index copies them so that `list` need not import the experiment package
    from statmechlearn import _experiment_index
    from statmechlearn.experiments import ENTRY_POINT_GROUP, MODES

    assert tuple(_experiment_index.MODES) == tuple(MODES)
    assert _experiment_index.ENTRY_POINT_GROUP == ENTRY_POINT_GROUP

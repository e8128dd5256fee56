"""A report over a store that holds partly computed experiments, or code that raises."""

import dataclasses

import pytest

from statmechlearn.cli import EXIT_NOT_RUN, _report
from statmechlearn.experiments import _registry, run_experiment, write_report


def test_a_partly_computed_experiment_is_shown_as_incomplete_and_not_counted(
    tmp_path, small_spec, interrupt_run, monkeypatch, capsys
):
    monkeypatch.setitem(_registry._SPECS, small_spec.name, small_spec)
    interrupt_run(small_spec, tmp_path, at=5)
    total = small_spec.n_cells("quick")
    summary = write_report(tmp_path, [small_spec.name])
    assert summary.results == {}
    assert summary.incomplete == {small_spec.name: (4, total)}
    assert summary.evidence_passed == summary.evidence_failed == 0
    reason = summary.not_run[small_spec.name]
    assert reason.startswith(f"incomplete: 4 of {total} cells computed")
    assert f"statmechlearn run {small_spec.name} --quick" in reason
    html = summary.path.read_text()
    assert 'id="incomplete">1 of them incomplete' in html and "— incomplete</h3>" in html
    # the command line says so too, and finishing the run makes it complete
    assert _report(tmp_path, [small_spec.name]) == EXIT_NOT_RUN
    assert "1 experiment(s) incomplete" in capsys.readouterr().err
    run_experiment(small_spec, "quick", out=tmp_path, progress=False)
    summary = write_report(tmp_path, [small_spec.name])
    assert summary.incomplete == {} and small_spec.name in summary.results


@pytest.mark.parametrize("broken", ["plot", "checks"])
def test_a_figure_or_checks_that_raise_are_shown_in_place_and_the_rest_is_written(
    tmp_path, small_spec, monkeypatch, broken
):
    def boom(*args, **kwargs):
        raise RuntimeError("drawing went wrong")

    bad = dataclasses.replace(small_spec, name="lvq-fig2-broken", **{broken: boom})
    for spec in (bad, small_spec):
        monkeypatch.setitem(_registry._SPECS, spec.name, spec)
        run_experiment(spec, "quick", out=tmp_path, progress=False)
    summary = write_report(tmp_path, [bad.name, small_spec.name])
    html = summary.path.read_text()
    assert set(summary.results) == {bad.name, small_spec.name}
    if broken == "plot":
        assert "drawing the figure raised RuntimeError: drawing went wrong" in html
        assert summary.results[bad.name] == summary.results[small_spec.name]
    else:
        (row,) = summary.results[bad.name]
        assert row.passed is False and "RuntimeError: drawing went wrong" in row.note
    assert html.count('class="report-figure') == 2

"""Command line: ``statmechlearn list | run | reproduce | report``."""

import os
import sys
import tempfile
from pathlib import Path
from typing import Annotated

from statmechlearn._core.optional import import_optional

# the core install has no command line; its console script says which extra to install
typer = import_optional("typer", purpose="the statmechlearn command line")

__all__ = ["app", "main"]

app = typer.Typer(
    name="statmechlearn",
    help="Reproduce the statistical mechanics of learning: theory beside simulation.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _fail(message, code=2):
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


# Options are checked while the command line is parsed, before any cell runs: an
# unwritable --out used to fail only after every cell had been computed, losing them.
# The errors are one line, like every other error of this command line.


def _probe_writable(out):
    """Exit with an error unless ``out`` is a folder a file can be written to."""
    if not out.is_dir():
        _fail(f"--out must be a writable folder; {out} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(prefix=".statmechlearn-probe-", dir=out)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        _fail(f"--out must be a writable folder; cannot write to {out} ({exc.strerror or exc})")


def _writable_out(out):
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _fail(f"--out must be a writable folder; cannot create {out} ({exc.strerror or exc})")
    _probe_writable(out)
    return out


def _report_out(out):
    # a missing folder is reported by the command itself ("no results"): not created here
    if out.exists():
        _probe_writable(out)
    return out


def _n_jobs(n_jobs):
    if n_jobs == 0 or n_jobs < -1:
        _fail(f"--n-jobs must be a positive integer or -1 (all cores); got {n_jobs}")
    return n_jobs


OutOpt = Annotated[
    Path,
    typer.Option("--out", help="Output folder (store/ and report.html).", callback=_writable_out),
]
ReportOutOpt = Annotated[
    Path,
    typer.Option(
        "--out", help="Folder holding store/; report.html is written there.", callback=_report_out
    ),
]
JobsOpt = Annotated[
    int,
    typer.Option(
        "--n-jobs",
        help="Worker processes (joblib loky): a positive integer, or -1 for all cores.",
        callback=_n_jobs,
    ),
]
SchedOpt = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        help="dask.distributed scheduler: tcp://HOST:PORT, or 'local' for a LocalCluster.",
    ),
]
FullOpt = Annotated[
    bool,
    typer.Option("--full/--quick", help="Paper-size runs (--full) or small fast ones (--quick)."),
]


ForceOpt = Annotated[
    bool, typer.Option("--force", help="Recompute every cell, ignoring what the store holds.")
]

#: Exit statuses: a check failed; an experiment did not run (and none failed).
EXIT_CHECK_FAILED, EXIT_NOT_RUN = 1, 3


def _run(specs, full, n_jobs, scheduler, out, force=False):
    from statmechlearn.experiments import SchedulerUnavailableError, run_experiments

    mode = "full" if full else "quick"
    try:
        summaries = run_experiments(
            specs,
            mode,
            out=out,
            n_jobs=n_jobs,
            scheduler=scheduler,
            progress=sys.stderr.isatty(),
            force=force,
            errors="record",
        )
    except SchedulerUnavailableError as exc:
        _fail(str(exc))
    except ValueError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        typer.echo("interrupted: finished cells are saved; run again to resume", err=True)
        raise typer.Exit(130) from None
    for s in summaries:
        if s.not_run:
            typer.echo(f"{s.name} ({s.mode}): not run: {s.not_run}", err=True)
            continue
        typer.echo(
            f"{s.name} ({s.mode}): {s.n_computed} cells computed, {s.n_cached} from the store, "
            f"{s.wall_s:.1f} s -> {s.path}"
        )
    return summaries


def _report(out, names=None, not_run=None):
    """Write the report; return the exit status it calls for."""
    from statmechlearn.experiments import write_report

    summary = write_report(out, names, not_run=not_run)
    for name, c in summary.failed:
        typer.echo(f"check failed ({c.kind}): {name}: {c.quantity} {c.note}".rstrip(), err=True)
    for name, why in summary.not_run.items():
        if not_run is None or name not in not_run:
            typer.echo(f"not run: {name}: {why}", err=True)
    typer.echo(
        f"{len(summary.results)} experiment(s) run, {len(summary.not_run)} not run; "
        f"evidence: {summary.evidence_passed} passed, {summary.evidence_failed} failed; "
        f"smoke: {summary.smoke_passed} passed, {summary.smoke_failed} failed; "
        f"{summary.skipped} skipped"
    )
    typer.echo(f"report: {summary.path.resolve()}")
    if summary.failed:
        return EXIT_CHECK_FAILED
    return EXIT_NOT_RUN if summary.not_run else 0


@app.command("list")
def list_experiments():
    """List the experiments with their paper and figure."""
    from statmechlearn.experiments import get, names

    for name in names():
        spec = get(name)
        typer.echo(f"{name:16s} {spec.paper:8s} {spec.figure:10s} {spec.citation}")


@app.command()
def run(
    names: Annotated[list[str], typer.Argument(help="Experiment names (see `list`).")],
    full: FullOpt = False,
    n_jobs: JobsOpt = 1,
    scheduler: SchedOpt = None,
    out: OutOpt = Path("results"),
    force: ForceOpt = False,
):
    """Compute experiments into the store (resumes; recomputes only missing cells).

    Exit status 3 when an experiment could not run.
    """
    from statmechlearn.experiments import UnknownExperimentError, get

    try:
        specs = [get(n) for n in names]
    except UnknownExperimentError as exc:
        _fail(str(exc))
    summaries = _run(specs, full, n_jobs, scheduler, out, force)
    if any(s.not_run for s in summaries):
        raise typer.Exit(EXIT_NOT_RUN)


@app.command()
def reproduce(
    target: Annotated[str, typer.Argument(help="'all' or a paper key (see `list`).")] = "all",
    full: FullOpt = False,
    n_jobs: JobsOpt = 1,
    scheduler: SchedOpt = None,
    out: OutOpt = Path("results"),
    force: ForceOpt = False,
):
    """Run every experiment of a paper (or all) and write the HTML report.

    Exit status 0 when every check passes and every experiment ran, 1 when a
    check failed, 3 when an experiment could not run (the report says why).
    """
    from statmechlearn.experiments import UnknownExperimentError, specs_for

    try:
        specs = specs_for(target)
    except UnknownExperimentError as exc:
        _fail(str(exc))
    summaries = _run(specs, full, n_jobs, scheduler, out, force)
    not_run = {s.name: s.not_run for s in summaries if s.not_run}
    status = _report(out, [s.name for s in specs], not_run)
    if status:
        raise typer.Exit(status)


@app.command()
def report(out: ReportOutOpt = Path("results")):
    """Write report.html from what the store holds (every registered experiment).

    Experiments without a result of the current code are listed as not run
    (exit status 3); a failed check gives exit status 1.
    """
    if not (out / "store").is_dir():
        _fail(f"no results in {out}/store; run `statmechlearn reproduce` first")
    status = _report(out)
    if status:
        raise typer.Exit(status)


def main():
    """Entry point of the ``statmechlearn`` script."""
    app()


if __name__ == "__main__":
    main()

"""Command line: ``statmechlearn list | run | reproduce | report``."""

import sys
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    name="statmechlearn",
    help="Reproduce the statistical mechanics of learning: theory beside simulation.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

OutOpt = Annotated[Path, typer.Option("--out", help="Output folder (store/ and report.html).")]
JobsOpt = Annotated[
    int, typer.Option("--n-jobs", help="Worker processes (joblib loky); -1 for all cores.")
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


def _fail(message, code=2):
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _run(specs, full, n_jobs, scheduler, out):
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
        )
    except SchedulerUnavailableError as exc:
        _fail(str(exc))
    except ValueError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        typer.echo("interrupted: finished cells are saved; run again to resume", err=True)
        raise typer.Exit(130) from None
    for s in summaries:
        typer.echo(
            f"{s.name} ({s.mode}): {s.n_computed} cells computed, {s.n_cached} from the store, "
            f"{s.wall_s:.1f} s -> {s.path}"
        )
    return summaries


def _report(out, names=None):
    from statmechlearn.experiments import write_report

    path, results = write_report(out, names)
    checks = [c for cs in results.values() for c in cs if not c.reported]
    n_pass = sum(c.passed for c in checks)
    for name, cs in results.items():
        for c in cs:
            if not c.passed and not c.reported:
                typer.echo(f"check failed: {name}: {c.quantity} {c.note}".rstrip(), err=True)
    typer.echo(f"{len(results)} figure(s), {n_pass} of {len(checks)} checks pass")
    typer.echo(f"report: {path.resolve()}")
    return n_pass == len(checks)


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
):
    """Compute experiments into the store (resumes; recomputes only missing cells)."""
    from statmechlearn.experiments import UnknownExperimentError, get

    try:
        specs = [get(n) for n in names]
    except UnknownExperimentError as exc:
        _fail(str(exc))
    _run(specs, full, n_jobs, scheduler, out)


@app.command()
def reproduce(
    target: Annotated[str, typer.Argument(help="'all' or a paper key (see `list`).")] = "all",
    full: FullOpt = False,
    n_jobs: JobsOpt = 1,
    scheduler: SchedOpt = None,
    out: OutOpt = Path("results"),
):
    """Run every experiment of a paper (or all) and write the HTML report."""
    from statmechlearn.experiments import UnknownExperimentError, specs_for

    try:
        specs = specs_for(target)
    except UnknownExperimentError as exc:
        _fail(str(exc))
    _run(specs, full, n_jobs, scheduler, out)
    if not _report(out, [s.name for s in specs]):
        raise typer.Exit(1)


@app.command()
def report(out: OutOpt = Path("results")):
    """Write report.html from what the store holds."""
    if not (out / "store").is_dir():
        _fail(f"no results in {out}/store; run `statmechlearn reproduce` first")
    if not _report(out):
        raise typer.Exit(1)


def main():
    """Entry point of the ``statmechlearn`` script."""
    app()


if __name__ == "__main__":
    main()

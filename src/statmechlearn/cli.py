"""Command line: ``statmechlearn list | run | reproduce | report``."""

import contextlib
import os
import signal
import tempfile
from pathlib import Path
from typing import Annotated

try:
    import typer
except ImportError as exc:
    # the core install has no command line; its console script says which extra to install.
    # (not _core.optional: importing statmechlearn._core costs scikit-learn, and `list` < 1 s)
    raise ImportError(
        "the statmechlearn command line needs typer, which the core install does not "
        "include: pip install 'statmechlearn[experiments]'"
    ) from exc

__all__ = ["app", "main"]

app = typer.Typer(
    name="statmechlearn",
    help="Reproduce the statistical mechanics of learning: theory beside simulation.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _fail(message, code=2):
    # one line whatever the user typed: control characters (a path with a newline or a
    # record separator in it) are written as escapes
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message))
    typer.echo(f"error: {text}", err=True)
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


#: Exit status after SIGTERM, as a shell reports a process it terminated.
EXIT_TERMINATED = 128 + signal.SIGTERM


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C would be so that the same clean-up runs."""


@contextlib.contextmanager
def _terminate_as_interrupt():
    # timeout, CI runners and job managers stop a job with SIGTERM; its default action kills
    # the runner at once and leaves the worker processes holding the output pipe open
    def handler(signum, frame):
        raise _Terminated

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave the signal as it is
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run(specs, full, n_jobs, scheduler, out, force=False):
    from statmechlearn.experiments import SchedulerUnavailableError, run_experiments

    mode = "full" if full else "quick"
    try:
        with _terminate_as_interrupt():
            summaries = run_experiments(
                specs,
                mode,
                out=out,
                n_jobs=n_jobs,
                scheduler=scheduler,
                progress=True,
                verbose=_verbose(),
                force=force,
                errors="record",
            )
    except SchedulerUnavailableError as exc:
        _fail(str(exc))
    except ValueError as exc:
        _fail(str(exc))
    except MemoryError as exc:
        _fail(f"the run needs more memory than this machine has ({exc}); make it smaller")
    except OSError as exc:  # a full disk or a store that became unwritable mid-run
        _fail(f"cannot write the store in {out}: {exc}; the cells saved before are kept")
    except _Terminated:
        typer.echo("terminated: finished cells are saved; run again to resume", err=True)
        raise typer.Exit(EXIT_TERMINATED) from None
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
    if summary.incomplete:
        typer.echo(
            f"{len(summary.incomplete)} experiment(s) incomplete (among those not run): "
            "their checks are not counted; `statmechlearn run NAME --MODE` finishes each",
            err=True,
        )
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


def _print_version(value):
    if value:
        from statmechlearn._version import __version__

        typer.echo(f"statmechlearn {__version__}")
        raise typer.Exit()


@app.callback()
def _global_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", callback=_print_version, is_eager=True
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="More detail on stderr: each experiment's result key and store file, "
            "and one line per finished cell. Goes before the command: statmechlearn -v run ...",
        ),
    ] = False,
):
    """Reproduce the statistical mechanics of learning: theory beside simulation.

    Progress goes to stderr: a bar on a terminal, otherwise (a log, CI) a line
    per tenth of the cells, at most every 10 s and at least every minute.
    """
    # set on every invocation, so a value never outlives its command line
    _GLOBAL["verbose"] = verbose


#: The global options of the command line being run (typer's context API differs
#: between the click it depends on and the click it vendors, so no context lookup).
_GLOBAL = {"verbose": False}


def _verbose():
    return bool(_GLOBAL["verbose"])


@app.command("list")
def list_experiments(
    out: Annotated[
        Path, typer.Option("--out", help="Folder whose store/ the STORED column looks in.")
    ] = Path("results"),
    verify: Annotated[
        bool,
        typer.Option(
            "--verify",
            help="Tell complete results of the current code (current) from interrupted "
            "ones (partial) and older ones (stale); imports every experiment and opens "
            "each current file, so it takes seconds.",
        ),
    ] = False,
    modules: Annotated[
        list[Path] | None,
        typer.Option(
            "--module",
            metavar="FILE.py",
            help="Also list the experiments of a Python file of your own (repeatable).",
        ),
    ] = None,
):
    """List the experiments: paper, estimated run times, stored results, figure.

    Reads a table shipped with the package instead of importing the
    experiments, so it answers at once.

    QUICK and FULL estimate the time of `run NAME` on one worker (--n-jobs 1)
    from seconds per cell measured in a real run on the machine the footer
    names: `~` from a run of that mode, `>` a full run estimated from quick
    cells, which are smaller than paper-size ones (3 to 25 times less time
    per cell where both were measured), so read it as a lower bound; `?` not
    measured (the experiments of other installed packages and of --module files).

    STORED lists the modes of which --out holds a result under any key,
    without checking that it is the current code's; with --verify each says
    current, partial (an interrupted run: the next run computes only the cells
    it lacks) or stale (the next run recomputes it).
    """
    from statmechlearn._experiment_index import (
        format_estimate,
        format_table,
        load_index,
        plugin_entries,
        stored_modes,
        verified_states,
    )

    _load_modules(modules)
    index = load_index()
    entries = index["experiments"]
    entries += plugin_entries({e["name"] for e in entries}, loaded=bool(modules))
    states = verified_states(out, [e["name"] for e in entries]) if verify else {}
    rows = []
    for e in entries:
        if verify:
            stored = ", ".join(f"{m} {s}" for m, s in states.get(e["name"], {}).items())
        else:
            stored = ", ".join(stored_modes(out, e["name"]))
        quick, full = format_estimate(e, "quick"), format_estimate(e, "full")
        # the figure last: long section titles then widen no other column
        rows.append([e["name"], e["paper"], quick, full, stored or "-", e["figure"]])
    header = ["NAME", "PAPER", "QUICK", "FULL", "STORED", "FIGURE"]
    for line in format_table(header, rows):
        typer.echo(line)
    typer.echo(
        f"\ntimes: one worker, measured on {index['measured_on']}; "
        f"STORED: results in {out}/store ({'checked' if verify else 'not checked; --verify'})"
    )


SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="KEY=VALUE",
        help="Change a grid coordinate or setting (repeatable), e.g. --set p_plus=0.6; a comma "
        "list replaces an axis of several points. Runs a variant with its own result key, shown "
        "in the report after the paper's figure. An unknown key lists the valid ones.",
    ),
]
ModuleOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--module",
        metavar="FILE.py",
        help="A Python file of your own whose module-level FigureSpecs join the experiments "
        "(repeatable). An installed package adds its own through the entry-point group "
        "statmechlearn.experiments instead (docs/user_experiments.md).",
    ),
]


def _load_modules(modules):
    """Register the experiments of ``--module`` files; a broken file is a one-line error."""
    if not modules:
        return  # nothing to import: `list` stays free of the experiment stack
    import traceback

    from statmechlearn.experiments import load_module

    for path in modules:
        try:
            load_module(path)
        except ValueError as exc:
            _fail(str(exc))
        except Exception as exc:  # the user's code: say where it failed, in one line
            frames = reversed(traceback.extract_tb(exc.__traceback__))
            where = next((f for f in frames if Path(f.filename) == path.resolve()), None)
            at = f" (line {where.lineno})" if where else ""
            _fail(f"--module {path} fails to load{at}: {type(exc).__name__}: {exc}")


def _variants(specs, assignments, out):
    """The variants of ``specs`` that ``--set`` asks for, registered and written down."""
    from statmechlearn.experiments import (
        OverrideError,
        make_variant,
        parse_assignments,
        register_variant,
        save_variant,
    )

    try:
        overrides = parse_assignments(assignments)
        variants = [make_variant(spec, overrides) for spec in specs]
    except OverrideError as exc:
        _fail(str(exc))
    for variant in variants:
        register_variant(variant)
        save_variant(out, variant)
    return variants


def _stored_variants(out, bases=None):
    """Register the variants ``out`` holds results of; say which cannot be shown."""
    from statmechlearn.experiments import register_stored_variants

    names, problems = register_stored_variants(out, bases)
    for name, why in problems.items():
        typer.echo(f"variant left out of the report: {name}: {why}", err=True)
    return names


def _with_variants(names, variants):
    """``names`` with each variant right after its paper figure."""
    from statmechlearn.experiments import get

    shown = []
    for name in names:
        shown += [name, *(v for v in variants if get(v).variant_of == name)]
    return shown + [v for v in variants if v not in shown]


@app.command()
def run(
    names: Annotated[list[str], typer.Argument(help="Experiment names (see `list`).")],
    full: FullOpt = False,
    n_jobs: JobsOpt = 1,
    scheduler: SchedOpt = None,
    out: OutOpt = Path("results"),
    force: ForceOpt = False,
    assignments: SetOpt = None,
    modules: ModuleOpt = None,
):
    """Compute experiments into the store (resumes; recomputes only missing cells).

    With --set, the experiments at other parameter values (variants); with
    --module, experiments of your own. Exit status 3 when an experiment could
    not run.
    """
    from statmechlearn.experiments import UnknownExperimentError, get

    _load_modules(modules)
    try:
        specs = [get(n) for n in names]
    except UnknownExperimentError as exc:
        _fail(str(exc))
    if assignments:
        specs = _variants(specs, assignments, out)
    summaries = _run(specs, full, n_jobs, scheduler, out, force)
    if any(s.not_run for s in summaries):
        raise typer.Exit(EXIT_NOT_RUN)


def _targets(targets):
    """The specs of ``targets`` ('all', paper keys, experiment names), each once, in order."""
    from statmechlearn.experiments import UnknownExperimentError, get, papers, specs_for

    keys = ("all", *papers())
    specs = {}
    for target in targets:
        try:
            found = specs_for(target) if target in keys else [get(target)]
        except UnknownExperimentError:
            _fail(
                f"unknown paper or experiment {target!r}; valid: {', '.join(keys)}, "
                "or an experiment name (see `statmechlearn list`)"
            )
        specs.update((spec.name, spec) for spec in found)
    return list(specs.values())


@app.command()
def reproduce(
    targets: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="TARGET",
            help="'all' (the default), paper keys or experiment names (see `list`).",
        ),
    ] = None,
    full: FullOpt = False,
    n_jobs: JobsOpt = 1,
    scheduler: SchedOpt = None,
    out: OutOpt = Path("results"),
    force: ForceOpt = False,
    modules: ModuleOpt = None,
):
    """Run every experiment of a paper (or all) and write the HTML report.

    Several targets give one report of them all, in the order given; a target
    may also be one experiment's name. The report also shows the stored
    variants (run --set) of these experiments. Exit status 0 when every check
    passes and every experiment ran, 1 when a check failed, 3 when an
    experiment could not run (the report says why).
    """
    _load_modules(modules)
    specs = _targets(targets or ["all"])
    summaries = _run(specs, full, n_jobs, scheduler, out, force)
    not_run = {s.name: s.not_run for s in summaries if s.not_run}
    variants = _stored_variants(out, {s.name for s in specs})
    status = _report(out, _with_variants([s.name for s in specs], variants), not_run)
    if status:
        raise typer.Exit(status)


@app.command()
def report(out: ReportOutOpt = Path("results"), modules: ModuleOpt = None):
    """Write report.html from what the store holds (every registered experiment).

    Variants run with --set are shown after their paper figure. Experiments
    without a result of the current code are listed as not run (exit status
    3); a failed check gives exit status 1.
    """
    if not (out / "store").is_dir():
        _fail(f"no results in {out}/store; run `statmechlearn reproduce` first")
    from statmechlearn.experiments import module_names

    _load_modules(modules)
    variants = _stored_variants(out)
    status = _report(out, _with_variants(module_names(), variants) if variants else None)
    if status:
        raise typer.Exit(status)


@app.command()
def publish(
    out: Annotated[
        Path, typer.Option("--out", help="Folder holding store/ (the runs to publish).")
    ] = Path("results"),
    to: Annotated[
        Path,
        typer.Option("--to", help="Bundle folder (bundle.json and figures/); replaced whole."),
    ] = Path("docs/paper_scale"),
    full: Annotated[
        bool, typer.Option("--full/--quick", help="Publish the full runs (default) or the quick.")
    ] = True,
    modules: ModuleOpt = None,
):
    """Write the compact bundle the documentation site shows: figures, checks, provenance.

    Every experiment with a result of the current code in the store is
    published (SVG figure, checks with observed value, SE, expectation, z and
    verdict, result key and commit); the others are listed as not run.
    `make docs` builds the "Reproduced at paper scale" page from the bundle.
    """
    if not (out / "store").is_dir():
        _fail(f"no results in {out}/store; run `statmechlearn reproduce --full` first")
    from statmechlearn.experiments import write_bundle

    _load_modules(modules)
    bundle = write_bundle(out, to, mode="full" if full else "quick")
    counts = bundle["counts"]
    typer.echo(
        f"{len(bundle['experiments'])} experiments published, {len(bundle['not_run'])} not run; "
        f"evidence {counts['evidence_passed']} passed, {counts['evidence_failed']} failed; "
        f"smoke {counts['smoke_passed']} passed, {counts['smoke_failed']} failed -> {to}"
    )


def main():
    """Entry point of the ``statmechlearn`` script."""
    app()


if __name__ == "__main__":
    main()

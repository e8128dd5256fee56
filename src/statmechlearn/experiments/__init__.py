"""Paper figures and tables as data: grid, theory, simulation, plot, checks.

Public entry points
-------------------
run_experiment, run_experiments
    Compute missing cells into the store.
write_report
    Build the HTML report from the store.
get, names, papers, specs_for
    The registry of figure specs.
"""

from statmechlearn.experiments._registry import (
    UnknownExperimentError,
    get,
    names,
    papers,
    specs_for,
)
from statmechlearn.experiments._report import ReportSummary, evaluate_checks, write_report
from statmechlearn.experiments._runner import (
    RunSummary,
    SchedulerUnavailableError,
    run_experiment,
    run_experiments,
)
from statmechlearn.experiments._spec import (
    MODES,
    Check,
    CheckResult,
    Derived,
    FigureSpec,
    Measurement,
    measure,
)
from statmechlearn.experiments._store import ResultStore, result_key

__all__ = [
    "MODES",
    "Check",
    "CheckResult",
    "Derived",
    "FigureSpec",
    "Measurement",
    "ReportSummary",
    "ResultStore",
    "RunSummary",
    "SchedulerUnavailableError",
    "UnknownExperimentError",
    "evaluate_checks",
    "get",
    "measure",
    "names",
    "papers",
    "result_key",
    "run_experiment",
    "run_experiments",
    "specs_for",
    "write_report",
]

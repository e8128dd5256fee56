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
from statmechlearn.experiments._report import evaluate_checks, write_report
from statmechlearn.experiments._runner import (
    RunSummary,
    SchedulerUnavailableError,
    run_experiment,
    run_experiments,
)
from statmechlearn.experiments._spec import MODES, Check, CheckResult, Derived, FigureSpec
from statmechlearn.experiments._store import ResultStore

__all__ = [
    "MODES",
    "Check",
    "CheckResult",
    "Derived",
    "FigureSpec",
    "ResultStore",
    "RunSummary",
    "SchedulerUnavailableError",
    "UnknownExperimentError",
    "evaluate_checks",
    "get",
    "names",
    "papers",
    "run_experiment",
    "run_experiments",
    "specs_for",
    "write_report",
]

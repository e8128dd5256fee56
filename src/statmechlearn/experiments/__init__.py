"""Paper figures and tables as data: grid, theory, simulation, plot, checks.

Public entry points
-------------------
run_experiment, run_experiments
    Compute missing cells into the store.
write_report
    Build the HTML report from the store.
get, names, papers, specs_for, register, load_module, module_names
    The registry of figure specs, and experiments of your own (a file, or a
    package's ``statmechlearn.experiments`` entry point).
make_variant, parse_assignments, overridable, register_variant, save_variant,
register_stored_variants
    A paper figure at other parameter values (``statmechlearn run --set``).
"""

from statmechlearn.experiments._registry import (
    ENTRY_POINT_GROUP,
    UnknownExperimentError,
    get,
    load_module,
    module_names,
    names,
    papers,
    register,
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
from statmechlearn.experiments._variants import (
    OverrideError,
    make_variant,
    overridable,
    parse_assignments,
    register_stored_variants,
    register_variant,
    save_variant,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "MODES",
    "Check",
    "CheckResult",
    "Derived",
    "FigureSpec",
    "Measurement",
    "OverrideError",
    "ReportSummary",
    "ResultStore",
    "RunSummary",
    "SchedulerUnavailableError",
    "UnknownExperimentError",
    "evaluate_checks",
    "get",
    "load_module",
    "make_variant",
    "measure",
    "module_names",
    "names",
    "overridable",
    "papers",
    "parse_assignments",
    "register",
    "register_stored_variants",
    "register_variant",
    "result_key",
    "run_experiment",
    "run_experiments",
    "save_variant",
    "specs_for",
    "write_report",
]

"""The engine for theory-versus-simulation figures; it knows no paper.

An experiment is data: a :class:`FigureSpec` (grid, cell functions, plot,
checks) defined at module level in a module that the ``statmechlearn.experiments``
entry-point group lists; the package's own papers (``statmechlearn.papers``)
register exactly so, and so can a user's package or a file (``--module``).
Everything an experiment author needs is imported from here.

Defining experiments
--------------------
FigureSpec, Check, Derived, Measurement, measure, select, MODES
    The spec and the checks that judge it (theory against simulation, a
    number from the whole dataset against a target or the paper).
PaperSection, Reference
    A paper's heading and references in the report.
padded, seeds_for
    Cells of variable length; more seeds at small N on a ladder of sizes.
mean_se, subplots, plot_theory, plot_simulation, simulation_label
    The house style of figures: theory as lines, simulation as markers ± SE.
extrapolate_dataset, ladder_checks, plot_extrapolation
    Finite-size ladders: the ``a + b N^-p`` fit, its checks and its plot.

Running and reporting
---------------------
run_experiment, run_experiments
    Compute missing cells into the store.
missing_cells
    How many cells a stored (possibly interrupted) result still lacks.
write_report
    Build the HTML report from the store.
write_bundle, read_bundle, bundle_status, bundle_page
    Publish a store's figures and checks as a compact bundle, say whether
    each published result is what the current code computes, and render the
    bundle as a documentation page.
get, names, papers, paper_section, specs_for, register, load_module, module_names
    The registry of figure specs, and experiments of your own (a file, or a
    package's ``statmechlearn.experiments`` entry point).
make_variant, parse_assignments, overridable, register_variant, save_variant,
register_stored_variants
    A paper figure at other parameter values (``statmechlearn run --set``).
"""

from statmechlearn.experiments._bundle import bundle_page, bundle_status, read_bundle, write_bundle
from statmechlearn.experiments._cells import padded
from statmechlearn.experiments._checks import (
    MODES,
    Check,
    CheckResult,
    Derived,
    Measurement,
    measure,
    select,
)
from statmechlearn.experiments._finite_size import (
    extrapolate_dataset,
    ladder_checks,
    plot_extrapolation,
    seeds_for,
)
from statmechlearn.experiments._plotting import (
    mean_se,
    plot_simulation,
    plot_theory,
    simulation_label,
    subplots,
)
from statmechlearn.experiments._references import PaperSection, Reference
from statmechlearn.experiments._registry import (
    ENTRY_POINT_GROUP,
    UnknownExperimentError,
    get,
    load_module,
    module_names,
    names,
    paper_section,
    papers,
    register,
    specs_for,
)
from statmechlearn.experiments._report import ReportSummary, evaluate_checks, write_report
from statmechlearn.experiments._runner import (
    RunSummary,
    SchedulerUnavailableError,
    missing_cells,
    run_experiment,
    run_experiments,
)
from statmechlearn.experiments._spec import FigureSpec
from statmechlearn.experiments._store import ResultStore, result_key
from statmechlearn.experiments._variant_store import (
    register_stored_variants,
    register_variant,
    save_variant,
)
from statmechlearn.experiments._variants import (
    OverrideError,
    make_variant,
    overridable,
    parse_assignments,
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
    "PaperSection",
    "Reference",
    "ReportSummary",
    "ResultStore",
    "RunSummary",
    "SchedulerUnavailableError",
    "UnknownExperimentError",
    "bundle_page",
    "bundle_status",
    "evaluate_checks",
    "extrapolate_dataset",
    "get",
    "ladder_checks",
    "load_module",
    "make_variant",
    "mean_se",
    "measure",
    "missing_cells",
    "module_names",
    "names",
    "overridable",
    "padded",
    "paper_section",
    "papers",
    "parse_assignments",
    "plot_extrapolation",
    "plot_simulation",
    "plot_theory",
    "read_bundle",
    "register",
    "register_stored_variants",
    "register_variant",
    "result_key",
    "run_experiment",
    "run_experiments",
    "save_variant",
    "seeds_for",
    "select",
    "simulation_label",
    "specs_for",
    "subplots",
    "write_bundle",
    "write_report",
]

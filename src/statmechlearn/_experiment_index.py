"""The experiments as a static table, so ``statmechlearn list`` imports no paper module.

Finding the experiments means importing every paper module, and with them
numba, SciPy and scikit-learn: seconds, where a listing should take a blink.
``_experiment_index.json`` beside this module holds what ``list`` shows:
name, paper, figure, citation and defining module of every experiment, its
number of cells in each mode, and the seconds per cell measured in a real
run. ``scripts/build_experiment_index.py`` writes it from the registry and
a result store; ``tests/experiments/test_cli_front.py`` fails whenever the
registry and the file disagree, so it cannot go stale unnoticed.

The estimates are serial times (one worker): seconds per cell times the
number of cells. A quick run's seconds per cell stand in for the full run's
where no full run was measured; paper-size cells are often larger (bigger
N), so such a full estimate is rather a lower bound. Whether a result is
stored is read from file names in ``<out>/store`` (no import); whether it
is the current code's needs the result key, hence the paper modules
(:func:`verified_states`).
"""

import json
from pathlib import Path

__all__ = [
    "INDEX_PATH",
    "format_estimate",
    "format_table",
    "load_index",
    "plugin_entries",
    "static_entries",
    "stored_modes",
    "stored_state",
    "timings_from_store",
    "verified_states",
]

INDEX_PATH = Path(__file__).with_name("_experiment_index.json")
MODES = ("quick", "full")
#: Where other packages list their experiment modules (the registry's group).
ENTRY_POINT_GROUP = "statmechlearn.experiments"
#: The fields of an entry that the registry decides (the rest is measured).
STATIC_FIELDS = ("name", "paper", "figure", "citation", "module", "cells", "full_is_quick")


def load_index(path=INDEX_PATH):
    """The shipped index: ``{"measured_on": str, "experiments": [entry, ...]}``.

    Parameters
    ----------
    path : Path, default=INDEX_PATH

    Returns
    -------
    dict
    """
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _package_specs():
    """(module name, spec) of every experiment defined in the package's paper packages.

    The registry's own discovery: the package's entries of the entry-point
    group, every module inside each listed package, so the defining module
    is known; imports them all.
    """
    import importlib
    import importlib.metadata
    import pkgutil

    from statmechlearn.experiments import FigureSpec

    seen = {}
    points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    for point in sorted(points, key=lambda e: e.value):
        if not point.value.startswith("statmechlearn."):
            continue
        package = importlib.import_module(point.value)
        names = [package.__name__]
        if hasattr(package, "__path__"):
            prefix = package.__name__ + "."
            names += sorted(m.name for m in pkgutil.walk_packages(package.__path__, prefix))
        for name in names:
            module = importlib.import_module(name)
            for value in vars(module).values():
                if isinstance(value, FigureSpec) and value.name not in seen:
                    seen[value.name] = (module.__name__, value)
    return [seen[name] for name in sorted(seen)]


def static_entries():
    """The registry's side of every index entry (imports the paper modules).

    Returns
    -------
    list of dict
        One per experiment, sorted by name, with the keys of ``STATIC_FIELDS``
        (``full_is_quick``: both modes have the same settings).
    """
    return [
        {
            "name": spec.name,
            "paper": spec.paper,
            "figure": spec.figure,
            "citation": spec.citation,
            "module": module,
            "cells": {mode: spec.n_cells(mode) for mode in MODES},
            # same settings: a quick run's seconds per cell are a full run's
            "full_is_quick": spec.settings["quick"] == spec.settings["full"],
        }
        for module, spec in _package_specs()
    ]


def timings_from_store(store):
    """Measured seconds per cell of every experiment a store holds a matching run of.

    A dataset counts when its grid and number of seeds are the current
    spec's; its cells' own processor times (the runner records each;
    wall times for stores written before it did) are averaged over the
    cells it finished, so an interrupted run counts too.
    Of several datasets the one updated last wins.

    Parameters
    ----------
    store : str or Path
        A ``store`` folder of ``statmechlearn run``.

    Returns
    -------
    dict
        ``{(name, mode): {"cell_s": float, "measured": str}}``; ``measured``
        is the date of the run and its git commit.
    """
    import numpy as np
    import xarray as xr

    from statmechlearn.experiments import get, names

    known = set(names())
    found = {}
    for path in sorted(Path(store).glob("*__*__*.nc")):
        name, mode, _ = path.name.rsplit("__", 2)
        if name not in known or mode not in MODES:
            continue
        spec = get(name)
        with xr.open_dataset(path, engine="h5netcdf") as ds:
            attrs = dict(ds.attrs)
            grid = {
                k: [x if isinstance(x, str) else float(x) for x in v] for k, v in spec.grid.items()
            }
            if json.loads(attrs.get("grid_json", "null")) != grid:
                continue
            if int(attrs.get("n_seeds", -1)) != int(spec.settings[mode]["n_seeds"]):
                continue
            done = wall = 0
            for kind in ("shared", "theory", "sim"):
                if f"{kind}_done" in ds:
                    flags = np.asarray(ds[f"{kind}_done"].values, bool)
                    done += int(flags.sum())
                    # processor time where the store has it: a busy machine does not inflate it
                    timed = f"{kind}_cpu_s" if f"{kind}_cpu_s" in ds else f"{kind}_wall_s"
                    wall += float(np.nansum(np.asarray(ds[timed].values)[flags]))
        if not done:
            continue
        updated = attrs.get("updated", attrs.get("created", ""))
        held = found.get((name, mode))
        if held is not None and held["_updated"] >= updated:
            continue
        commit = str(attrs.get("git_commit", "unknown"))[:8]
        found[(name, mode)] = {
            "cell_s": wall / done,
            "measured": f"{updated[:10]} (git {commit}, {done} cells)",
            "_updated": updated,
        }
    return {k: {f: v for f, v in d.items() if not f.startswith("_")} for k, d in found.items()}


def _user_entry_points():
    """Entry points of the group that other packages (not this one) declare."""
    import importlib.metadata

    points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    return [e for e in points if not e.value.startswith("statmechlearn.")]


def plugin_entries(known, *, loaded=False):
    """Entries of the experiments other installed packages add, unmeasured.

    Only when some package declares the entry-point group, or ``loaded``
    says that files of the user's are in the registry, does this import the
    experiments (theirs and this package's); otherwise it costs a scan of
    the installed packages' metadata.

    Parameters
    ----------
    known : collection of str
        Names the index already has.
    loaded : bool, default=False
        Whether ``--module`` files were loaded into the registry.

    Returns
    -------
    list of dict
        Like the index's entries, with no ``cell_s``.
    """
    if not loaded and not _user_entry_points():
        return []
    from statmechlearn.experiments import get, names

    out = []
    for name in names():
        if name not in known:
            spec = get(name)
            out.append(
                {
                    "name": name,
                    "paper": spec.paper,
                    "figure": spec.figure,
                    "cells": {mode: spec.n_cells(mode) for mode in MODES},
                    "cell_s": {},
                }
            )
    return out


def stored_modes(out, name):
    """Modes of which ``out/store`` holds a result of ``name`` under any key.

    Parameters
    ----------
    out : Path
        The ``--out`` folder.
    name : str

    Returns
    -------
    list of str
    """
    store = Path(out) / "store"
    return [m for m in MODES if any(store.glob(f"{_glob_escape(name)}__{m}__*.nc"))]


def _glob_escape(text):
    return "".join(f"[{c}]" if c in "*?[]" else c for c in text)


def stored_state(store, spec, mode):
    """What ``store`` holds of ``spec`` in ``mode``: current, partial or stale.

    Current means a complete result under the key of today's code and
    libraries; partial, a run under that key that was interrupted (the next
    run computes only the cells it lacks); stale, only files under other
    keys (the next run recomputes them all).

    Parameters
    ----------
    store : ResultStore
    spec : FigureSpec
    mode : {"quick", "full"}

    Returns
    -------
    str
    """
    from statmechlearn.experiments import missing_cells

    ds = store.load(spec, mode)
    if ds is None:
        # none under today's key, or a damaged one (load sets it aside): all to recompute
        return "stale"
    missing = missing_cells(spec, mode, ds)
    return "current" if missing == 0 else f"partial ({missing} cells to go)"


def verified_states(out, names):
    """``{name: {mode: state}}`` for the stored results of ``names`` (:func:`stored_state`).

    Imports the paper modules (the key hashes their code) and opens each
    current file to count the cells it lacks.

    Parameters
    ----------
    out : Path
    names : iterable of str

    Returns
    -------
    dict
    """
    from statmechlearn.experiments import ResultStore, get

    store = ResultStore(Path(out) / "store")
    states = {}
    for name in names:
        modes = stored_modes(out, name)
        if modes:
            spec = get(name)
            states[name] = {m: stored_state(store, spec, m) for m in modes}
    return states


def format_estimate(entry, mode):
    """Estimated serial time of ``entry`` in ``mode``, as ``list`` shows it.

    ``"~3 min"`` from seconds per cell measured in that mode (or in quick
    mode when both modes have the same settings); ``">3 min"`` for a full
    run estimated from quick cells, which are smaller than paper-size ones;
    ``"<1 s"``; ``"?"`` when nothing was measured.

    Parameters
    ----------
    entry : dict
        An index entry.
    mode : {"quick", "full"}

    Returns
    -------
    str
    """
    per_cell = entry.get("cell_s") or {}
    seconds, mark = per_cell.get(mode), "~"
    if seconds is None and mode == "full":
        seconds = per_cell.get("quick")
        mark = "~" if entry.get("full_is_quick") else ">"
    if seconds is None:
        return "?"
    total = seconds * entry["cells"][mode]
    if total < 1:
        return "<1 s"
    if total < 60:
        return f"{mark}{total:.0f} s"
    if total < 3600:
        return f"{mark}{total / 60:.0f} min"
    return f"{mark}{total / 3600:.1f} h"


def format_table(header, rows, gap=2):
    """Rows as text columns, each as wide as its widest cell (the last one unpadded).

    Parameters
    ----------
    header : sequence of str
    rows : sequence of sequence of str
    gap : int, default=2
        Spaces between columns.

    Returns
    -------
    list of str
        One line per row, the header first.
    """
    table = [list(header), *map(list, rows)]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    return [
        (" " * gap).join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in table
    ]

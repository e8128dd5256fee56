"""One self-contained HTML page: a summary, then every figure with its caption,
provenance and checks. Rendering only reads the store: no solver, estimator or
sampler runs here (``tests/experiments/test_render_reads_only.py``)."""

import base64
import io
import json
import math
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import jinja2
import numpy as np

from statmechlearn.experiments import _registry
from statmechlearn.experiments._finite_size import LIMIT_MARK
from statmechlearn.experiments._provenance import provenance
from statmechlearn.experiments._runner import missing_requirements
from statmechlearn.experiments._store import ResultStore

__all__ = ["ReportSummary", "evaluate_checks", "render_png", "write_report"]


def evaluate_checks(spec, ds):
    """Evaluate every check of ``spec`` on its dataset.

    Parameters
    ----------
    spec : FigureSpec
    ds : xarray.Dataset

    Returns
    -------
    list of CheckResult
    """
    settings = spec.settings[ds.attrs["mode"]]
    return [check.evaluate(ds) for check in spec.checks(settings)]


def render_png(spec, ds, dpi=110):
    """The spec's figure as PNG bytes (matplotlib, Agg backend).

    Parameters
    ----------
    spec : FigureSpec
    ds : xarray.Dataset
    dpi : int, default=110

    Returns
    -------
    bytes
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    axes = np.atleast_1d(spec.plot(ds))
    fig = axes.flat[0].figure
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    plt.close(fig)
    return buf.getvalue()


@dataclass
class ReportSummary:
    """Counts of one report (its top section), for the command line.

    Attributes
    ----------
    path : pathlib.Path
    results : dict of str to list of CheckResult
    not_run : dict of str to str
        Experiments without results, with the reason.
    evidence_passed, evidence_failed, smoke_passed, smoke_failed, skipped, reported : int
    """

    path: Path
    results: dict
    not_run: dict = field(default_factory=dict)
    evidence_passed: int = 0
    evidence_failed: int = 0
    smoke_passed: int = 0
    smoke_failed: int = 0
    skipped: int = 0
    reported: int = 0

    @property
    def failed(self):
        """Checks that failed, evidence or smoke."""
        return [(name, c) for name, cs in self.results.items() for c in cs if c.passed is False]


def _fmt(x, digits=4):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    return f"{x:.{digits}g}"


def _verdict(c):
    if c.kind == "skipped":
        return "skipped", "skipped"
    if c.kind == "reported":
        return "reported", "reported"
    word = "pass" if c.passed else "FAIL"
    return f"{c.kind}: {word}", ("pass" if c.passed else "fail") + f" {c.kind}"


def _counts(checks):
    out = {
        "evidence_passed": 0,
        "evidence_failed": 0,
        "smoke_passed": 0,
        "smoke_failed": 0,
        "skipped": 0,
        "reported": 0,
    }
    for c in checks:
        if c.kind in ("skipped", "reported"):
            out[c.kind] += 1
        else:
            out[f"{c.kind}_{'passed' if c.passed else 'failed'}"] += 1
    return out


def _largest_z(checks):
    zs = [
        (abs(c.z), c.quantity)
        for c in checks
        if c.z is not None and c.two_sided and math.isfinite(c.z) and c.kind != "skipped"
    ]
    return max(zs) if zs else None


def _key_parts(attrs):
    try:
        key = json.loads(attrs.get("key_json", "{}"))
    except json.JSONDecodeError:
        return {}, {}, []
    code = sorted(k.split(":", 1)[1] for k in key.get("code", {}) if k.startswith("module:"))
    return key.get("libraries", {}), key.get("peers", {}), code


def write_report(out="results", names=None, not_run=None):
    """Build ``out/report.html`` from the stored datasets.

    Every experiment named appears: with its figure and checks when the
    store holds a result computed by the current code, else as *not run*
    with the reason.

    Parameters
    ----------
    out : str or Path, default="results"
        Output folder holding ``store/``.
    names : sequence of str, optional
        Experiments to include; default every registered one.
    not_run : mapping of str to str, optional
        Reasons, from the run, why experiments did not run.

    Returns
    -------
    ReportSummary
    """
    out = Path(out)
    store = ResultStore(out / "store")
    names = _registry.names() if names is None else list(names)
    reasons = dict(not_run or {})
    figures, results, skipped_runs = [], {}, {}
    for name in names:
        spec = _registry.get(name)
        ds = None if name in reasons else store.latest(spec)
        if ds is None:
            if name not in reasons:
                missing = missing_requirements(spec)
                reasons[name] = (
                    f"needs {', '.join(missing)} (pip install 'statmechlearn[peers]')"
                    if missing
                    else "no result computed by the current code in the store "
                    f"(statmechlearn run {name})"
                )
            skipped_runs[name] = {"name": name, "figure": spec.figure, "reason": reasons[name]}
            continue
        checks = evaluate_checks(spec, ds)
        results[name] = checks
        n_points = max(1, int(np.prod([len(v) for v in spec.grid.values()])))
        n_done = int(ds["sim_done"].sum()) if "sim_done" in ds else 0
        libraries, peers, modules = _key_parts(ds.attrs)
        counts = _counts(checks)
        largest = _largest_z(checks)
        figures.append(
            {
                "name": name,
                "figure": spec.figure,
                "citation": spec.citation,
                "caption": spec.caption,
                "png": base64.b64encode(render_png(spec, ds)).decode("ascii"),
                "checks": [(c, *_verdict(c)) for c in checks],
                "counts": counts,
                "largest_z": largest,
                "attrs": dict(ds.attrs),
                "libraries": libraries,
                "peers": peers,
                "modules": modules,
                "n_seeds_done": n_done // n_points,
            }
        )
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    source = resources.files("statmechlearn.experiments").joinpath("templates/report.html.j2")
    template = env.from_string(source.read_text(encoding="utf-8"))
    totals = _counts([c for cs in results.values() for c in cs])
    html = template.render(
        figures=figures,
        not_run=[skipped_runs[n] for n in names if n in skipped_runs],
        limits=[
            (name, c, *_verdict(c))
            for name, cs in results.items()
            for c in cs
            if LIMIT_MARK in c.quantity and c.z is not None
        ],
        n_run=len(figures),
        totals=totals,
        all_good=not skipped_runs
        and totals["evidence_failed"] == 0
        and totals["smoke_failed"] == 0,
        generated=time.strftime("%Y-%m-%d %H:%M:%S"),
        fmt=_fmt,
        **provenance(),
    )
    out.mkdir(parents=True, exist_ok=True)
    path = out / "report.html"
    tmp = path.with_suffix(".html.tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(path)
    return ReportSummary(
        path=path,
        results=results,
        not_run={n: skipped_runs[n]["reason"] for n in names if n in skipped_runs},
        **totals,
    )

"""One self-contained HTML page: every figure, its caption, provenance and checks."""

import base64
import io
import math
import time
from importlib import resources
from pathlib import Path

import jinja2
import numpy as np

from statmechlearn.experiments import _registry
from statmechlearn.experiments._provenance import provenance
from statmechlearn.experiments._store import ResultStore

__all__ = ["evaluate_checks", "render_png", "write_report"]


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


def _fmt(x):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    return f"{x:.4g}"


def write_report(out="results", names=None):
    """Build ``out/report.html`` from the stored datasets.

    Parameters
    ----------
    out : str or Path, default="results"
        Output folder holding ``store/``.
    names : sequence of str, optional
        Experiments to include; default every registered one with results.

    Returns
    -------
    path : Path
        The report.
    results : dict of str to list of CheckResult
        Check outcomes per experiment.
    """
    out = Path(out)
    store = ResultStore(out / "store")
    names = _registry.names() if names is None else list(names)
    figures, results = [], {}
    for name in names:
        spec = _registry.get(name)
        ds = store.latest(spec)
        if ds is None:
            continue
        checks = evaluate_checks(spec, ds)
        results[name] = checks
        n_done = int(ds["sim_done"].sum()) if "sim_done" in ds else 0
        figures.append(
            {
                "name": name,
                "figure": spec.figure,
                "citation": spec.citation,
                "caption": spec.caption,
                "png": base64.b64encode(render_png(spec, ds)).decode("ascii"),
                "checks": checks,
                "n_passed": sum(c.passed for c in checks if not c.reported),
                "n_checks": sum(not c.reported for c in checks),
                "attrs": dict(ds.attrs),
                "n_seeds_done": n_done
                // max(1, int(np.prod([len(v) for v in spec.grid.values()]))),
            }
        )
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    source = resources.files("statmechlearn.experiments").joinpath("templates/report.html.j2")
    template = env.from_string(source.read_text(encoding="utf-8"))
    all_checks = [c for cs in results.values() for c in cs if not c.reported]
    html = template.render(
        figures=figures,
        n_figures=len(figures),
        n_checks=len(all_checks),
        n_passed=sum(c.passed for c in all_checks),
        generated=time.strftime("%Y-%m-%d %H:%M:%S"),
        fmt=_fmt,
        **provenance(),
    )
    out.mkdir(parents=True, exist_ok=True)
    path = out / "report.html"
    tmp = path.with_suffix(".html.tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(path)
    return path, results

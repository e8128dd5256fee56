"""One self-contained HTML page: a summary and a table of contents, then one
section per paper (its full reference, DOI or stable link) holding its figures,
each with caption, checks and provenance.

Figures are inline SVG (vector, no external file); one whose SVG would be
larger than :data:`SVG_LIMIT` bytes (dense scatter, images) is a PNG at
:data:`PNG_DPI` dpi instead, shown scaled and at full size on a click.
Rendering only reads the store: no solver, estimator or sampler runs here
(``tests/experiments/test_render_reads_only.py``).
"""

import base64
import hashlib
import io
import json
import math
import re
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import jinja2
import numpy as np
from markupsafe import Markup

from statmechlearn.experiments import _registry
from statmechlearn.experiments._checks import CheckResult
from statmechlearn.experiments._finite_size import LIMIT_MARK
from statmechlearn.experiments._notation import notation_html
from statmechlearn.experiments._provenance import provenance
from statmechlearn.experiments._runner import missing_cells, missing_requirements
from statmechlearn.experiments._spec import FigureSpec
from statmechlearn.experiments._store import ResultStore

__all__ = [
    "PNG_DPI",
    "SVG_LIMIT",
    "ReportSummary",
    "evaluate_checks",
    "render_figure",
    "render_png",
    "render_svg",
    "write_report",
]

#: Resolution of a figure drawn as PNG (one too heavy for SVG).
PNG_DPI = 200
#: Bytes above which a figure's SVG is replaced by its PNG when the PNG is smaller.
SVG_LIMIT = 400_000

#: Words shown for a provenance attribute that a stored result does not carry.
NOT_RECORDED = "not recorded"


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


def _draw(spec, ds, **savefig):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    axes = np.atleast_1d(spec.plot(ds))
    fig = axes.flat[0].figure
    buf = io.BytesIO()
    try:
        fig.savefig(buf, **savefig)
    finally:
        plt.close(fig)
    return buf.getvalue()


def render_png(spec, ds, dpi=PNG_DPI):
    """The spec's figure as PNG bytes (matplotlib, Agg backend).

    Parameters
    ----------
    spec : FigureSpec
    ds : xarray.Dataset
    dpi : int, default=PNG_DPI

    Returns
    -------
    bytes
    """
    return _draw(spec, ds, format="png", dpi=dpi, metadata={"Software": None})


def render_svg(spec, ds):
    """The spec's figure as SVG text (glyphs as paths: no font needed to view it).

    Parameters
    ----------
    spec : FigureSpec
    ds : xarray.Dataset

    Returns
    -------
    str
    """
    import matplotlib

    with matplotlib.rc_context({"svg.fonttype": "path"}):
        # no date: the same result draws the same bytes
        return _draw(spec, ds, format="svg", metadata={"Date": None}).decode("utf-8")


_SVG_ID = re.compile(r'\sid="([^"]+)"')
_SVG_HREF = re.compile(r'(href=")#([^"]+)"')
_SVG_HREF_TARGET = re.compile(r'href="#([^"]+)"')
_SVG_URL = re.compile(r"url\(#([^)]+)\)")


_SVG_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_SVG_GEOMETRY = re.compile(r'(\s(?:d|x|y|width|height|transform|points)=")([^"]*)"')
#: Two decimals on numbers of at least 10: coordinates in pt and glyph offsets in font
#: units; smaller numbers (the scale factors of glyphs) keep every digit.
_LONG_DECIMAL = re.compile(r"(\d{2}\.\d{2})\d+")


def _compact_geometry(match):
    # 0.01 pt is below a pixel at any zoom a reader uses; the line breaks are matplotlib's
    value = _LONG_DECIMAL.sub(r"\1", " ".join(match.group(2).split()))
    return f'{match.group(1)}{value}"'


def _inline_svg(svg, prefix, label):
    """SVG text ready to sit in the page: its ids made unique to this figure.

    matplotlib names glyphs, markers and clip paths after their content, so
    two figures share ids; inside one HTML page an id must be unique, and a
    reference would otherwise resolve to the other figure's definition. Ids
    nothing refers to (matplotlib names every group) are dropped, as are the
    metadata block and digits beyond 0.01 pt: a sixth of the size.
    """
    svg = svg[svg.index("<svg") :]
    svg = _SVG_METADATA.sub("", svg)
    svg = _SVG_GEOMETRY.sub(_compact_geometry, svg)
    svg = re.sub(r">\s+<", "><", svg)
    ids = set(_SVG_HREF_TARGET.findall(svg)) | set(_SVG_URL.findall(svg))
    svg = _SVG_ID.sub(lambda m: f' id="{prefix}{m.group(1)}"' if m.group(1) in ids else "", svg)
    svg = _SVG_HREF.sub(
        lambda m: f'{m.group(1)}#{prefix}{m.group(2)}"' if m.group(2) in ids else m.group(0), svg
    )
    svg = _SVG_URL.sub(
        lambda m: f"url(#{prefix}{m.group(1)})" if m.group(1) in ids else m.group(0), svg
    )
    label = str(Markup.escape(label))
    return svg.replace("<svg", f'<svg class="report-figure" role="img" aria-label="{label}"', 1)


def render_figure(spec, ds, svg_limit=None):
    """The figure as it goes into the page: inline SVG, or a PNG when that is smaller.

    Parameters
    ----------
    spec : FigureSpec
    ds : xarray.Dataset
    svg_limit : int, optional
        SVG size in bytes above which the PNG is drawn and kept if smaller;
        default :data:`SVG_LIMIT`.

    Returns
    -------
    dict
        ``format`` (``"svg"`` or ``"png"``), ``html`` (markup for the page)
        and ``bytes`` (size of the figure in the page).
    """
    svg_limit = SVG_LIMIT if svg_limit is None else svg_limit
    label = f"{spec.name}: {spec.figure}"
    # ids inside the drawing: letters, digits and hyphens only (CSS url() reads them too)
    prefix = re.sub(r"[^A-Za-z0-9-]+", "-", spec.name)
    prefix += "-" + hashlib.sha256(spec.name.encode()).hexdigest()[:6] + "--"
    svg = _inline_svg(render_svg(spec, ds), prefix, label)
    size = len(svg.encode("utf-8"))
    if size > svg_limit:
        png = base64.b64encode(render_png(spec, ds)).decode("ascii")
        if len(png) < size:
            html = (
                f'<img class="report-figure zoomable" alt="{Markup.escape(label)}" '
                f'title="click for full size ({PNG_DPI} dpi)" src="data:image/png;base64,{png}">'
            )
            return {"format": "png", "html": Markup(html), "bytes": len(html)}
    return {"format": "svg", "html": Markup(svg), "bytes": size}


def _broken_check(spec, exc):
    """A failed smoke row that says why the checks of ``spec`` could not be evaluated."""
    return CheckResult(
        quantity="checks evaluated",
        observed=None,
        observed_se=None,
        expected=None,
        expected_from="",
        z=None,
        tolerance="",
        resolution=None,
        kind="smoke",
        passed=False,
        note=f"evaluating the checks raised {type(exc).__name__}: {exc}",
    )


def _broken_figure(spec, exc):
    """What the page shows in place of a figure whose drawing raised."""
    text = Markup.escape(f"{spec.figure}: drawing the figure raised {type(exc).__name__}: {exc}")
    html = f'<p class="report-figure figure-error">{text}</p>'
    return {"format": "error", "html": Markup(html), "bytes": len(html)}


@dataclass
class ReportSummary:
    """Counts of one report (its top section), for the command line.

    Attributes
    ----------
    path : pathlib.Path
    results : dict of str to list of CheckResult
    not_run : dict of str to str
        Experiments without results, with the reason (the incomplete ones
        among them).
    incomplete : dict of str to tuple of int
        Experiments whose stored result lacks cells: ``(done, total)``;
        their checks are not evaluated.
    evidence_passed, evidence_failed, smoke_passed, smoke_failed, skipped, reported : int
    """

    path: Path
    results: dict
    not_run: dict = field(default_factory=dict)
    incomplete: dict = field(default_factory=dict)
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


def _json_attr(attrs, name):
    try:
        return json.loads(attrs[name])
    except (KeyError, TypeError, json.JSONDecodeError):
        return None


def _key_parts(attrs):
    key = _json_attr(attrs, "key_json") or {}
    code = sorted(k.split(":", 1)[1] for k in key.get("code", {}) if k.startswith("module:"))
    return key.get("libraries", {}), key.get("peers", {}), code


def _versions(mapping):
    return ", ".join(f"{k} {v if v else 'not installed'}" for k, v in mapping.items())


def _threads_text(threads):
    blas = "; ".join(
        f"{b.get('api') or 'BLAS'} {b.get('version') or ''} ({b.get('threads')} threads)".replace(
            "  ", " "
        )
        for b in threads.get("blas") or []
    )
    cell = threads.get("cell") or {}
    parts = [f"{threads.get('usable_cpus', '?')} CPUs usable by the process"]
    if blas:
        parts.append(f"BLAS: {blas}")
    if threads.get("numba_threads") is not None:
        parts.append(f"numba: {threads['numba_threads']} threads ({threads.get('numba_layer')})")
    if cell:
        parts.append(
            f"each cell runs on {cell.get('blas')} BLAS and {cell.get('numba')} numba thread(s)"
        )
    return "; ".join(parts)


def _seeds_per_point(spec, ds):
    """Finished simulation runs per grid point, as the provenance states them."""
    n_points = max(1, int(np.prod([len(v) for v in spec.grid.values()])))
    return (int(ds["sim_done"].sum()) if "sim_done" in ds else 0) // n_points


def _provenance_rows(attrs, n_seeds_done):
    """(label, text) rows of one result's provenance; missing attributes say so."""
    libraries, peers, modules = _key_parts(attrs)
    recorded_libs = _json_attr(attrs, "libraries_json")
    threads = _json_attr(attrs, "threads_json")
    if "run_wall_s" in attrs:
        wall = f"{float(attrs['run_wall_s']):.1f} s"
        if "run_cells_computed" in attrs:
            wall += f" ({int(attrs['run_cells_computed'])} cells computed"
            wall += f", finished {attrs['run_finished']})" if "run_finished" in attrs else ")"
    else:
        wall = NOT_RECORDED
    cell_total = attrs.get("cell_wall_s_total")
    if cell_total is not None:
        wall += f"; compute time summed over all cells {float(cell_total):.1f} s"
    cell_cpu = attrs.get("cell_cpu_s_total")
    if cell_cpu is not None:
        wall += f" ({float(cell_cpu):.1f} s of processor time)"
    if recorded_libs:
        libs = _versions(recorded_libs)
    else:
        libs = NOT_RECORDED
        if libraries:
            libs += f" (the result key names {_versions(libraries)})"
    if peers:
        libs += f"; peers in the key: {_versions(peers)}"
    cpu = NOT_RECORDED
    if "cpu" in attrs:
        cpu = f"{attrs['cpu']}, {attrs.get('cpu_count', '?')} logical CPUs"
    n_features = f" N = {attrs['n_features']};" if "n_features" in attrs else ""
    return [
        (
            "run",
            f"mode {attrs.get('mode')};{n_features} seeds: {n_seeds_done} of "
            f"{attrs.get('n_seeds')} finished (base seed {attrs.get('base_seed')}, cell streams "
            "SeedSequence(base, spawn_key=(point, seed)))",
        ),
        ("command line", attrs.get("command", NOT_RECORDED)),
        ("wall time of the run", wall),
        ("libraries", libs),
        ("CPU", cpu),
        ("threads", _threads_text(threads) if threads else NOT_RECORDED),
        (
            "package",
            f"statmechlearn {attrs.get('version', '?')}, commit {attrs.get('git_commit', '?')}, "
            f"Python {attrs.get('python', '?')}, {attrs.get('machine', '?')}",
        ),
        ("parameters", attrs.get("grid_json", "")),
        (
            "result key",
            f"{str(attrs.get('spec_hash', ''))[:16]} (SHA-256 of the code its cells run, library "
            f"versions, peers, mode, seeds and coordinates), first written "
            f"{attrs.get('created')}, last updated {attrs.get('updated', '—')}",
        ),
        ("package modules in the key", ", ".join(modules) or "—"),
    ]


def _default_names():
    """Experiments found in modules (entry points, ``--module`` files).

    A spec added at run time (``register()``, or a test placing one in the
    registry) belongs to that process: it appears in a report only when
    named explicitly, never in a user's ``statmechlearn report``.
    """
    return _registry.module_names()


_SAFE_ID = re.compile(r"[A-Za-z][A-Za-z0-9_.:@=,~+-]*")


def _anchor(name):
    """An element id for an experiment: its name where that is a safe id and link target."""
    if _SAFE_ID.fullmatch(name):
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return "x-" + re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-") + f"-{digest}"


def _resolve(entries):
    """Specs for names or specs, in the order given, each once."""
    specs, seen = [], set()
    for entry in entries:
        spec = entry if isinstance(entry, FigureSpec) else _registry.get(entry)
        if spec.name not in seen:
            seen.add(spec.name)
            specs.append(spec)
    return specs


def _override_text(value):
    if isinstance(value, list | tuple):
        return "(" + ", ".join(str(v) for v in value) + ")"
    return str(value)


def _variant_heading(spec):
    overrides = getattr(spec, "overrides", None) or {}
    settings = ", ".join(f"{k}={_override_text(v)}" for k, v in overrides.items())
    return f"Variant of {spec.variant_of}" + (f": {settings}" if settings else "")


def _paper_order(keys):
    """Paper keys in their sections' order, ties and unordered keys by key."""
    return sorted(keys, key=lambda k: (_registry.paper_section(k).order, k))


def _arrange(entries):
    """Entries grouped by paper (in the papers' order), each variant right after its base."""
    by_paper = {}
    for e in entries:
        by_paper.setdefault(e["paper"], []).append(e)
    sections = []
    for key in _paper_order(by_paper):
        items = by_paper[key]
        bases = [e for e in items if not e["variant_of"]]
        variants = [e for e in items if e["variant_of"]]
        ordered = []
        for base in bases:
            ordered.append(base)
            ordered.extend(v for v in variants if v["variant_of"] == base["name"])
        # a variant whose base is not in this report closes the section
        ordered.extend(v for v in variants if v not in ordered)
        section = _registry.paper_section(key)
        sections.append(
            {
                "key": key,
                "id": f"paper-{key}",
                "heading": section.heading,
                "references": section.references,
                "entries": ordered,
                "n_run": sum(e["run"] for e in ordered),
                "counts": _counts([c for e in ordered if e["run"] for c, _, _ in e["checks"]]),
            }
        )
    return sections


def write_report(out="results", names=None, not_run=None):
    """Build ``out/report.html`` from the stored datasets.

    Every experiment named appears: with its figure and checks when the
    store holds a result computed by the current code, else as *not run*
    with the reason.

    Parameters
    ----------
    out : str or Path, default="results"
        Output folder holding ``store/``.
    names : sequence of str or FigureSpec, optional
        Experiments to include (a spec that is not in the registry, such as
        a variant, may be passed itself). Default: every experiment found
        in an experiment module; specs added at run time with
        ``register()`` appear only when named here.
    not_run : mapping of str to str, optional
        Reasons, from the run, why experiments did not run.

    Returns
    -------
    ReportSummary
    """
    out = Path(out)
    store = ResultStore(out / "store")
    specs = _resolve(_default_names() if names is None else names)
    reasons = dict(not_run or {})
    entries, results, skipped_runs, incomplete = [], {}, {}, {}
    for spec in specs:
        name = spec.name
        variant_of = getattr(spec, "variant_of", None)
        entry = {
            "name": name,
            "anchor": _anchor(name),
            "base_anchor": _anchor(variant_of) if variant_of else None,
            "paper": spec.paper,
            "figure": spec.figure,
            "citation": spec.citation,
            "caption": spec.caption,
            "variant_of": variant_of,
            "heading": _variant_heading(spec) if variant_of else None,
        }
        ds = None if name in reasons else store.latest(spec)
        if ds is not None:
            mode = ds.attrs.get("mode", "quick")
            missing, total = missing_cells(spec, mode, ds), spec.n_cells(mode)
            if missing:
                # checks on part of the cells would be counted as passed or failed on the
                # wrong number of runs; the figure waits with them
                incomplete[name] = (total - missing, total)
                reasons[name] = (
                    f"incomplete: {total - missing} of {total} cells computed "
                    f"(statmechlearn run {name} --{mode} finishes it)"
                )
                ds = None
        if ds is None:
            if name not in reasons:
                missing = missing_requirements(spec)
                reasons[name] = (
                    f"needs {', '.join(missing)} (pip install 'statmechlearn[peers]')"
                    if missing
                    else "no result computed by the current code in the store "
                    f"(statmechlearn run {name})"
                )
            skipped_runs[name] = {
                "name": name,
                "anchor": entry["anchor"],
                "figure": spec.figure,
                "reason": reasons[name],
            }
            entries.append(entry | {"run": False, "reason": reasons[name]})
            continue
        try:
            checks = evaluate_checks(spec, ds)
        except Exception as exc:  # one experiment's checks must not take the report down
            checks = [_broken_check(spec, exc)]
        results[name] = checks
        counts = _counts(checks)
        try:
            image = render_figure(spec, ds)
        except Exception as exc:  # the error is shown where the figure would be
            image = _broken_figure(spec, exc)
        entries.append(
            entry
            | {
                "run": True,
                "image": image,
                "checks": [(c, *_verdict(c)) for c in checks],
                "counts": counts,
                "largest_z": _largest_z(checks),
                "provenance": _provenance_rows(dict(ds.attrs), _seeds_per_point(spec, ds)),
                "summary_line": _summary_line(dict(ds.attrs)),
            }
        )
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    env.filters["notation"] = lambda text: Markup(notation_html(str(text)))
    source = resources.files("statmechlearn.experiments").joinpath("templates/report.html.j2")
    template = env.from_string(source.read_text(encoding="utf-8"))
    totals = _counts([c for cs in results.values() for c in cs])
    sections = _arrange(entries)
    html = template.render(
        sections=sections,
        entries=[e for s in sections for e in s["entries"]],
        not_run=[skipped_runs[s.name] for s in specs if s.name in skipped_runs],
        limits=[
            (name, _anchor(name), c, *_verdict(c))
            for name, cs in results.items()
            for c in cs
            if LIMIT_MARK in c.quantity and c.z is not None
        ],
        n_run=len(results),
        n_incomplete=len(incomplete),
        totals=totals,
        all_good=not skipped_runs
        and totals["evidence_failed"] == 0
        and totals["smoke_failed"] == 0,
        generated=time.strftime("%Y-%m-%d %H:%M:%S"),
        fmt=_fmt,
        png_dpi=PNG_DPI,
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
        not_run={s.name: skipped_runs[s.name]["reason"] for s in specs if s.name in skipped_runs},
        incomplete=incomplete,
        **totals,
    )


def _summary_line(attrs):
    """The visible provenance line: command, wall time, CPU, core library versions."""
    libs = _json_attr(attrs, "libraries_json") or {}
    wall = attrs.get("run_wall_s")
    return {
        "recorded": "command" in attrs,
        "command": attrs.get("command", NOT_RECORDED),
        "wall": NOT_RECORDED if wall is None else f"{float(wall):.1f} s",
        "cpu": (
            f"{attrs['cpu']} ({attrs.get('cpu_count', '?')} logical CPUs)"
            if "cpu" in attrs
            else NOT_RECORDED
        ),
        "libraries": ", ".join(f"{k} {v}" for k, v in libs.items() if v) or NOT_RECORDED,
    }

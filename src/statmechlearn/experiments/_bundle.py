"""The reproduction as a compact, publishable bundle: figures and checks without the store.

A store of full runs is hundreds of megabytes of netCDF; the documentation
site needs only what a reader looks at. :func:`write_bundle` writes, for
every experiment with a stored result, its figure (compact SVG, or PNG
where that is smaller) and one ``bundle.json`` holding each check's
observation, expectation, z and verdict, the result's provenance and its
result key. :func:`bundle_status` compares those keys with the ones the
current code would file its results under, so a published figure that
older code computed is marked as such, never shown as current.
"""

import json
import math
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from statmechlearn.experiments._finite_size import LIMIT_MARK
from statmechlearn.experiments._provenance import provenance
from statmechlearn.experiments._registry import get, names, paper_section
from statmechlearn.experiments._report import (
    PNG_DPI,
    SVG_LIMIT,
    _counts,
    _default_names,
    _inline_svg,
    _provenance_rows,
    _resolve,
    _seeds_per_point,
    _verdict,
    evaluate_checks,
    render_png,
    render_svg,
)
from statmechlearn.experiments._store import ResultStore, key_digest, result_key

__all__ = ["BUNDLE_FORMAT", "bundle_page", "bundle_status", "read_bundle", "write_bundle"]

#: Version of the bundle's layout (``bundle.json``'s ``format``).
BUNDLE_FORMAT = 1
#: Parts of a result key that are the code and the spec; the rest are library versions.
_LIBRARY_PARTS = ("libraries", "peers")


def _finite(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else repr(x)


def _check_record(check):
    record = {k: (_finite(v) if isinstance(v, float) else v) for k, v in asdict(check).items()}
    record["verdict"] = _verdict(check)[0]
    record["thermodynamic_limit"] = LIMIT_MARK in check.quantity
    return record


def _code_digest(key):
    return key_digest({k: v for k, v in key.items() if k not in _LIBRARY_PARTS})


def _cells_done(ds):
    return sum(
        int(np.asarray(ds[f"{kind}_done"].values, bool).sum())
        for kind in ("shared", "theory", "sim")
        if f"{kind}_done" in ds
    )


def _figure_file(spec, ds, folder):
    label = f"{spec.name}: {spec.figure}"
    svg = _inline_svg(render_svg(spec, ds), "", label)
    if len(svg.encode("utf-8")) > SVG_LIMIT:
        png = render_png(spec, ds, dpi=PNG_DPI)
        if len(png) < len(svg.encode("utf-8")):
            path = folder / f"{spec.name}.png"
            path.write_bytes(png)
            return path.name
    path = folder / f"{spec.name}.svg"
    path.write_text(svg, encoding="utf-8")
    return path.name


def write_bundle(out="results", to="docs/paper_scale", mode="full", names=None):
    """Write the figures and checks of a store's results to a compact bundle.

    Parameters
    ----------
    out : str or Path, default="results"
        Output folder of the runs, holding ``store/``.
    to : str or Path, default="docs/paper_scale"
        Bundle folder: ``bundle.json`` and ``figures/``; replaced whole, so a
        figure whose result is gone does not linger.
    mode : {"full", "quick"}, default="full"
        Which runs to publish.
    names : sequence of str, optional
        Experiments to include; default every registered one. One without a
        result of the current code in ``mode`` is listed as not run.

    Returns
    -------
    dict
        The bundle as written to ``bundle.json``.
    """
    if mode not in ("quick", "full"):
        raise ValueError(f"mode must be 'quick' or 'full'; got {mode!r}")
    to = Path(to)
    figures = to / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    for old in figures.iterdir():
        old.unlink()
    store = ResultStore(Path(out) / "store")
    experiments, not_run, totals = [], [], []
    for spec in _resolve(_default_names() if names is None else names):
        ds = store.latest(spec, modes=(mode,))
        if ds is None:
            not_run.append({"name": spec.name, "paper": spec.paper, "figure": spec.figure})
            continue
        done, planned = _cells_done(ds), spec.n_cells(mode)
        try:
            checks = evaluate_checks(spec, ds)
            figure_file = _figure_file(spec, ds, figures)
        except ValueError as exc:
            if done == planned:
                raise
            # a run still going (or stopped) may not have what its fits need yet
            not_run.append(
                {
                    "name": spec.name,
                    "paper": spec.paper,
                    "figure": spec.figure,
                    "reason": f"incomplete: {done} of {planned} cells ({exc})",
                }
            )
            continue
        totals.extend(checks)
        key = json.loads(ds.attrs["key_json"])
        experiments.append(
            {
                "name": spec.name,
                "paper": spec.paper,
                "figure": spec.figure,
                "caption": spec.caption,
                "citation": spec.citation,
                "figure_file": figure_file,
                "checks": [_check_record(c) for c in checks],
                "counts": _counts(checks),
                "cells_done": done,
                "cells_total": planned,
                "key": ds.attrs["spec_hash"],
                "code_key": _code_digest(key),
                "libraries": key.get("libraries", {}),
                "git_commit": str(ds.attrs.get("git_commit", "unknown")),
                "computed": str(ds.attrs.get("updated", ds.attrs.get("created", ""))),
                "provenance": [
                    list(r) for r in _provenance_rows(dict(ds.attrs), _seeds_per_point(spec, ds))
                ],
            }
        )
    bundle = {
        "format": BUNDLE_FORMAT,
        "mode": mode,
        "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "written_by": provenance(),
        "counts": _counts(totals),
        "experiments": experiments,
        "not_run": not_run,
    }
    tmp = to / "bundle.json.tmp"
    tmp.write_text(json.dumps(bundle, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(to / "bundle.json")
    return bundle


def read_bundle(path="docs/paper_scale"):
    """The bundle a folder holds.

    Parameters
    ----------
    path : str or Path, default="docs/paper_scale"

    Returns
    -------
    dict
    """
    data = json.loads((Path(path) / "bundle.json").read_text(encoding="utf-8"))
    if data.get("format") != BUNDLE_FORMAT:
        raise ValueError(
            f"{path}: bundle format {data.get('format')!r}, this version reads {BUNDLE_FORMAT}"
        )
    return data


def bundle_status(bundle):
    """Whether each published result is what the current code would compute.

    Parameters
    ----------
    bundle : dict
        From :func:`read_bundle`.

    Returns
    -------
    dict of str to str
        Per experiment: ``"current"`` (the result key matches), ``"other
        libraries"`` (same code and spec, other versions of the numeric
        libraries), ``"stale"`` (code or spec changed since) or
        ``"unknown"`` (no experiment of that name is registered now).
    """
    known = set(names())
    status = {}
    for entry in bundle["experiments"]:
        name = entry["name"]
        if name not in known:
            status[name] = "unknown"
            continue
        key = result_key(get(name), bundle["mode"])
        if key_digest(key) == entry["key"]:
            status[name] = "current"
        elif _code_digest(key) == entry["code_key"]:
            status[name] = "other libraries"
        else:
            status[name] = "stale"
    return status


_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_|<>[]#"})

_STATUS_WORDS = {
    "current": "result key matches the current code",
    "other libraries": "same code, computed with other versions of the numeric libraries",
    "stale": "**stale**: the code or the spec changed since; run it again",
    "unknown": "**stale**: no experiment of this name in the current code",
}


def _md(text):
    return str(text).translate(_MD_SPECIAL)


def _number(x, se=None):
    if x is None:
        return "—"
    if isinstance(x, str):
        return _md(x)
    out = f"{x:.4g}"
    return out if se is None or isinstance(se, str) else f"{out} ± {se:.2g}"


def _checks_table(checks):
    rows = [
        "| check | kind | observed | expected | z | verdict |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for c in checks:
        z = "—" if c["z"] is None or isinstance(c["z"], str) else f"{c['z']:+.2f}"
        expected = _number(c["expected"])
        if c["expected"] is not None and c["expected_from"]:
            expected += f" ({_md(c['expected_from'])})"
        quantity = _md(c["quantity"])
        if c.get("rs_unstable"):
            quantity += " *(RS unstable)*"
        rows.append(
            f"| {quantity} | {c['kind']} | {_number(c['observed'], c['observed_se'])} "
            f"| {expected} | {z} | {_md(c['verdict'])} |"
        )
    return rows


def bundle_page(bundle, status, figures="figures", sections=None):
    """The bundle as one MyST Markdown page: summary, limits table, figures with their checks.

    Parameters
    ----------
    bundle : dict
        From :func:`read_bundle`.
    status : dict of str to str
        From :func:`bundle_status`.
    figures : str, default="figures"
        Path of the bundle's ``figures/`` folder relative to the page.
    sections : callable, optional
        Paper key to ``(heading, order)``; default: the registry's paper
        sections.

    Returns
    -------
    str
    """
    if sections is None:

        def sections(key):
            section = paper_section(key)
            return section.heading, section.order

    counts = bundle["counts"]
    lines = [
        f"Mode: **{bundle['mode']}**. Evidence {counts['evidence_passed']} passed, "
        f"{counts['evidence_failed']} failed; smoke {counts['smoke_passed']} passed, "
        f"{counts['smoke_failed']} failed; {counts['reported']} reported, "
        f"{counts['skipped']} skipped; {len(bundle['experiments'])} experiments published, "
        f"{len(bundle['not_run'])} not run. Bundle written {bundle['written'][:10]} at "
        f"commit {bundle['written_by'].get('git_commit', 'unknown')[:10]}.",
        "",
    ]
    stale = sorted(n for n, s in status.items() if s in ("stale", "unknown"))
    if stale:
        lines += [
            f"**{len(stale)} published results are stale** (the code that computes them "
            f"changed since): {', '.join(_md(n) for n in stale)}.",
            "",
        ]
    limits = [
        (e, c) for e in bundle["experiments"] for c in e["checks"] if c["thermodynamic_limit"]
    ]
    if limits:
        lines += [
            "## Thermodynamic limits",
            "",
            "| experiment | check | kind | observed | expected | z | verdict |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for e, row in ((e, _checks_table([c])[-1]) for e, c in limits):
            lines.append(f"| {_md(e['name'])} {row}")
        lines.append("")
    by_paper = {}
    for e in bundle["experiments"]:
        by_paper.setdefault(e["paper"], []).append(e)
    for paper in sorted(by_paper, key=lambda k: (sections(k)[1], k)):
        lines += [f"## {_md(sections(paper)[0])}", ""]
        for e in by_paper[paper]:
            done = (
                ""
                if e["cells_done"] == e["cells_total"]
                else (f" **Incomplete: {e['cells_done']} of {e['cells_total']} cells.**")
            )
            lines += [
                f"### {_md(e['name'])}: {_md(e['figure'])}",
                "",
                f"![{_md(e['name'])}]({figures}/{e['figure_file']})",
                "",
                _md(e["caption"]),
                "",
                f"Computed {e['computed'][:10]} at commit {_md(e['git_commit'][:10])}; "
                f"{_STATUS_WORDS[status.get(e['name'], 'unknown')]}.{done}",
                "",
                *_checks_table(e["checks"]),
                "",
            ]
    if bundle["not_run"]:
        lines += ["## Not run at this scale", ""]
        lines += [
            f"- {_md(e['name'])} ({_md(e['figure'])})"
            + (f": {_md(e['reason'])}" if e.get("reason") else "")
            for e in bundle["not_run"]
        ]
        lines.append("")
    return "\n".join(lines)

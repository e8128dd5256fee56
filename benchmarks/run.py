"""Run every benchmark and write ``docs/benchmarks.md`` from their output (``make bench``).

Each ``bench_*.py`` runs in its own process (so that thread pools and compiled
kernels start clean) and prints its section as markdown; this script puts the
sections under a header that says on what machine, with which versions and
when they were measured. No number on the page is typed by hand.

Run: ``python benchmarks/run.py [--out docs/benchmarks.md] [NAME ...]`` where
NAME selects scripts by substring (all by default). With NAMEs and an existing
page, only the selected scripts' sections are replaced (or added): the other
sections and the header stay, and the header's date line says what was rerun
when.
"""

import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _bench import all_threads, progress, table, version

__all__ = ["main", "splice"]

HERE = Path(__file__).parent
CORE = ("statmechlearn", "numpy", "scipy", "scikit-learn", "numba", "threadpoolctl")
PEERS = ("minisom", "gap-stat", "dit", "sklearn-rvm", "scikit-image", "dask", "distributed")


def _cpu():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:  # pragma: no cover - not Linux
        pass
    return platform.processor() or platform.machine()


def _memory():
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        return f"{pages * size / 2**30:.0f} GiB"
    except (ValueError, OSError, AttributeError):  # pragma: no cover
        return "unknown"


def _blas():
    from threadpoolctl import threadpool_info

    return ", ".join(
        f"{i.get('internal_api')} {i.get('version')}"
        for i in threadpool_info()
        if i.get("user_api") == "blas"
    )


def header(argv, wall):
    """The page's header: machine, versions, date and command."""
    import numpy  # noqa: F401  (loads BLAS so threadpoolctl can see it)

    rows = [(name, version(name) or "not installed") for name in CORE + PEERS]
    return "\n\n".join(
        [
            "# Benchmarks",
            "Written by `make bench` (`python benchmarks/run.py`) from the scripts' own "
            "output; rerun it to measure your machine. Every time is the median of "
            "repeated runs with the spread (min–max) in brackets; every ratio is the ratio "
            "of two medians measured in the same process, on one thread and on all the "
            "threads the machine has.",
            f"- **Machine:** {_cpu()}, {all_threads()} CPUs available, {_memory()} memory; "
            f"{platform.system()} {platform.release()}; Python {platform.python_version()}; "
            f"BLAS: {_blas()}",
            f"- **When:** {datetime.date.today().isoformat()}, {wall / 60:.1f} min in all",
            f"- **Command:** `{' '.join(argv)}`",
            table(("package", "version"), rows),
        ]
    )


_SECTION = re.compile(r"^## .*\(`benchmarks/(bench_\w+)\.py`\)")


def _split(page):
    """A written page as (its header, {script stem: its section}) in page order."""
    parts = re.split(r"(?m)^(?=## )", page)
    sections = {}
    for part in parts[1:]:
        found = _SECTION.match(part)
        if found is None:
            raise ValueError(f"a section of the page names no script: {part.splitlines()[0]!r}")
        sections[found.group(1)] = part.strip()
    return parts[0].strip(), sections


def splice(page, new, note):
    """``page`` with the sections in ``new`` ({stem: section}) replaced or added.

    The sections stay in the scripts' order; ``note`` is appended to the header's
    date line."""
    header, sections = _split(page)
    sections = dict(sorted((sections | new).items()))
    header = re.sub(r"(?m)^(- \*\*When:\*\* .*)$", lambda m: f"{m.group(1)}; {note}", header)
    return header + "\n\n" + "\n\n".join(sections.values()) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="substrings selecting bench_*.py scripts")
    parser.add_argument("--out", default=str(HERE.parent / "docs" / "benchmarks.md"))
    args = parser.parse_args(argv)
    scripts = sorted(HERE.glob("bench_*.py"))
    if args.names:
        scripts = [s for s in scripts if any(n in s.stem for n in args.names)]
    start = time.perf_counter()
    sections = {}
    for script in scripts:
        progress(f"{script.name} …")
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, check=False
        )
        if done.returncode != 0:
            raise SystemExit(f"{script.name} failed with exit status {done.returncode}")
        sections[script.stem] = done.stdout.strip()
        progress(f"{script.name} done in {time.perf_counter() - t0:.0f} s")
    command = ["python", "benchmarks/run.py", *(sys.argv[1:] if argv is None else argv)]
    wall = time.perf_counter() - start
    out = Path(args.out)
    if args.names and out.exists():
        note = (
            f"{', '.join(f'`{stem}`' for stem in sections)} rerun on "
            f"{datetime.date.today().isoformat()} (`{' '.join(command)}`, {wall / 60:.1f} min)"
        )
        out.write_text(splice(out.read_text(), sections, note))
    else:
        page = header(command, wall)
        out.write_text(page + "\n\n" + "\n\n".join(sections.values()) + "\n")
    progress(f"wrote {args.out}")


if __name__ == "__main__":
    main()

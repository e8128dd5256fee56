"""Shared machinery of the benchmark scripts: repeated timings, thread limits and markdown.

Every ``bench_*.py`` prints its section of ``docs/benchmarks.md`` as markdown on
stdout (progress goes to stderr), built only from what it measured in that run;
``benchmarks/run.py`` (``make bench``) runs them one process each and writes
the page. A timing is the median of ``repeat`` runs (default 5) after one
warm-up call, with the spread (min–max) beside it; a ratio is the ratio of two
medians taken in the same process, one after the other.
"""

import importlib.metadata
import os
import statistics
import sys
import time
import tracemalloc
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = [
    "Timing",
    "all_threads",
    "fmt_ratio",
    "limit_threads",
    "measure",
    "mib",
    "peak_memory",
    "progress",
    "table",
    "thread_settings",
    "version",
]

REPEAT = int(os.environ.get("BENCH_REPEAT", "5"))


@dataclass(frozen=True)
class Timing:
    """Wall times of repeated runs of one call, in seconds."""

    runs: tuple

    @property
    def median(self):
        return statistics.median(self.runs)

    def __str__(self):
        return f"{_fmt(self.median)} ({_fmt(min(self.runs))}–{_fmt(max(self.runs))})"

    def __truediv__(self, other):
        return self.median / other.median


def _fmt(seconds):
    if seconds >= 1.0:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def fmt_ratio(ratio):
    """A ratio with three significant digits and a times sign."""
    return f"{ratio:.3g}×"


def measure(fn, repeat=None, warmup=1):
    """Time ``repeat`` calls of ``fn()`` after ``warmup`` untimed ones (compilation, caches)."""
    repeat = REPEAT if repeat is None else repeat
    for _ in range(warmup):
        fn()
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return Timing(tuple(runs))


def peak_memory(fn):
    """``(fn(), peak bytes allocated while it ran)`` (``tracemalloc``: its inputs not counted)."""
    tracemalloc.start()
    try:
        result = fn()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def mib(nbytes):
    """A byte count in MiB, one decimal."""
    return f"{nbytes / 2**20:.1f} MiB"


def all_threads():
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def thread_settings():
    """The thread counts every benchmark reports: one, and all the process may use."""
    n = all_threads()
    return (1,) if n == 1 else (1, n)


@contextmanager
def limit_threads(n):
    """BLAS/OpenMP pools and numba's parallel loops limited to ``n`` threads."""
    import numba
    from threadpoolctl import threadpool_limits

    before = numba.get_num_threads()
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    try:
        with threadpool_limits(limits=n):
            yield
    finally:
        numba.set_num_threads(before)


def version(package):
    """Installed version of ``package``, or None when it is not installed."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def progress(message):
    """A progress line on stderr (stdout carries the markdown)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def table(header, rows):
    """A markdown table as a string."""
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)

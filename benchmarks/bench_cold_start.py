"""Cold start: the import and the first fit of every estimator in a fresh process.

Prints its section of ``docs/benchmarks.md`` (markdown on stdout, progress on stderr).
A user's first ``fit`` in a new environment pays numba's compilation of every kernel
the fit calls; a second process finds the compiled code in numba's on-disk cache.
For every public estimator (found as the convention tests find them, from the
packages' ``__all__``), one after another so that they do not share the cores:

1. a fresh process with an empty numba cache (``NUMBA_CACHE_DIR`` a new temporary
   folder) imports the estimator from its package (``from statmechlearn.cluster
   import KohonenSOM``), builds its input from iris and times its first ``fit`` with
   default parameters (wall clock and processor time, all threads) and the part of it
   numba spent compiling (its ``numba:compile`` events);
2. a second fresh process with the same, now filled, cache does the same: what is
   compiled there is what numba does not cache.

The input follows the kind of data the estimator takes (``tests/conventions/_inputs.py``):
iris's 150 x 4 points; their squared-distance matrix; a signed similarity
``exp(-D) - 1/2``; counts ``round(10 X)``; the joint table ``X / sum(X)``; iris with
its three classes for a classifier (with two, setosa against the rest, where three
are refused, and the row says so); a 16 x 16 noisy binary square for an image
model. Beside them, scikit-learn's ``KMeans`` and ``LogisticRegression`` in fresh
processes. A cold fit over 5 s is marked. The numbers need an idle machine: the
section prints the load average before and after.

Run: ``python benchmarks/bench_cold_start.py [NAME ...]`` (NAME: estimator names, all by
default; ``BENCH_COLD_REPEAT`` sets the number of cold/warm process pairs per estimator,
1 by default, the median reported).
"""

# A child process runs this file with --child; its imports before the timed one are only
# the standard library's, so that the import it times starts from nothing.
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

__all__ = ["main"]

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent / "tests"
TARGET_S = 5.0
REPEAT = int(os.environ.get("BENCH_COLD_REPEAT", "1"))
TIMEOUT_S = 600
PEERS = (
    ("KMeans", "sklearn.cluster", "points"),
    ("LogisticRegression", "sklearn.linear_model", "labelled"),
)


def _inputs(kind):
    """``(fit arguments, note)`` for an input of ``kind`` derived from iris."""
    import numpy as np
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    if kind == "points":
        return (X,), ""
    if kind == "labelled":
        return (X, y), "3 classes"
    if kind == "dissimilarity":
        return (D,), "150 × 150"
    if kind == "similarity":
        S = np.exp(-D) - 0.5
        np.fill_diagonal(S, 0.0)
        return (S,), "150 × 150"
    if kind == "counts":
        return (np.round(X * 10),), ""
    if kind == "joint":
        return (X / X.sum(),), ""
    if kind == "image":
        rng = np.random.default_rng(0)
        clean = np.zeros((16, 16), dtype=bool)
        clean[4:12, 4:12] = True
        return (clean ^ (rng.random(clean.shape) < 0.1),), "16 × 16"
    raise ValueError(f"unknown input kind {kind!r}")


class _CompileClock:
    """Numba compilations in this process: how many, and the wall time they covered.

    numba reports each compilation (not a load from its cache) as a ``numba:compile``
    event; a kernel's callees compile inside its event, so only the outermost count
    towards the time."""

    def __init__(self):
        from numba.core import event

        self.count, self.seconds, self._depth, self._start = 0, 0.0, 0, 0.0
        clock = self

        class Listener(event.Listener):
            def on_start(self, ev):
                if clock._depth == 0:
                    clock._start = time.perf_counter()
                clock._depth += 1

            def on_end(self, ev):
                clock._depth -= 1
                clock.count += 1
                if clock._depth == 0:
                    clock.seconds += time.perf_counter() - clock._start

        event.register("numba:compile", Listener())


def child(name, package, kind):
    """In a fresh process: time the import and the first fit; print one JSON line."""
    warnings.simplefilter("ignore")
    wall, cpu = time.perf_counter(), time.process_time()
    import importlib

    cls = getattr(importlib.import_module(package), name)
    import_s = (time.perf_counter() - wall, time.process_time() - cpu)
    # listen only where the import brought numba: importing it here would move its import
    # out of a fit that imports it late
    compiling = _CompileClock() if "numba" in sys.modules else None
    args, note = _inputs(kind)
    attempts = [args]
    if kind == "labelled":
        attempts.append((args[0], (args[1] > 0).astype(int)))
    for i, fit_args in enumerate(attempts):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            cls().fit(*fit_args)
        except ValueError:
            if i + 1 == len(attempts):
                raise
            note = "2 classes (3 refused)"
            continue
        break
    fit_s = (time.perf_counter() - wall, time.process_time() - cpu)
    compiled = (compiling.seconds, compiling.count) if compiling is not None else (0.0, 0)
    print(json.dumps({"import": import_s, "fit": fit_s, "compiled": compiled, "note": note}))


def _run_child(name, package, kind, cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", name, package, kind]
    try:
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"error": f"over {TIMEOUT_S} s"}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return {"error": last[:120]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure_one(name, package, kind, repeat):
    """Cold and warm runs of one estimator: a dict of lists (or an ``error``)."""
    out = {"import": [], "cold": [], "warm": [], "cold_compiled": [], "warm_compiled": []}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="bench-cold-") as cache_dir:
            cold = _run_child(name, package, kind, cache_dir)
            if "error" in cold:
                return cold
            warm = _run_child(name, package, kind, cache_dir)
            if "error" in warm:
                return warm
        out["import"] += [cold["import"][0], warm["import"][0]]
        out["cold"].append(cold["fit"])
        out["warm"].append(warm["fit"])
        out["cold_compiled"].append(cold["compiled"])
        out["warm_compiled"].append(warm["compiled"])
        out["note"] = cold["note"]
    return out


def _estimators():
    """(name, package, kind) of every public estimator, as the convention tests find them."""
    sys.path.insert(0, str(TESTS))
    from conventions._discovery import public_estimators
    from conventions._inputs import KIND

    return [
        (cls.__name__, path.rsplit(".", 1)[0], KIND[cls.__name__])
        for path, cls in public_estimators()
    ]


def _median(values):
    import statistics

    return statistics.median(values)


def _row(label, package, m):
    from _bench import _fmt

    if "error" in m:
        return [label, f"`{package}`", *[""] * 6, f"failed: {m['error']}"]
    cold_wall = _median([w for w, _ in m["cold"]])
    cold_cpu = _median([c for _, c in m["cold"]])
    warm_wall = _median([w for w, _ in m["warm"]])
    warm_cpu = _median([c for _, c in m["warm"]])
    over = cold_wall > TARGET_S
    note = "; ".join(n for n in ("**over 5 s**" if over else "", m["note"]) if n)

    def compiled(runs):
        if not package.startswith("statmechlearn"):
            return "–"  # no numba
        seconds, count = _median([r[0] for r in runs]), int(_median([r[1] for r in runs]))
        return f"{_fmt(seconds)} ({count})" if count else "0"

    return [
        label,
        f"`{package}`",
        _fmt(_median(m["import"])),
        f"**{_fmt(cold_wall)}**" if over else _fmt(cold_wall),
        _fmt(cold_cpu),
        compiled(m["cold_compiled"]),
        f"{_fmt(warm_wall)} ({_fmt(warm_cpu)})",
        compiled(m["warm_compiled"]),
        note,
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="estimator names (all by default)")
    parser.add_argument("--child", nargs=3, metavar=("NAME", "PACKAGE", "KIND"))
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return
    sys.path.insert(0, str(HERE))
    from _bench import progress, table, version

    estimators = _estimators()
    if args.names:
        estimators = [e for e in estimators if e[0] in args.names]
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    rows, over = [], []
    for name, package, kind in [*PEERS, *estimators]:
        progress(f"{name} …")
        m = measure_one(name, package, kind, REPEAT)
        label = f"{name} (scikit-learn)" if package.startswith("sklearn") else name
        rows.append(_row(label, package, m))
        if "error" not in m and _median([w for w, _ in m["cold"]]) > TARGET_S:
            over.append(name)
        progress(f"{name}: {rows[-1][3]} cold, {rows[-1][6]} warm")
    load_after = os.getloadavg()[0]
    n_ours = len(estimators)
    header = (
        "estimator",
        "imported from",
        "import",
        "first fit, cold",
        "its CPU",
        "compiling (kernels)",
        "first fit, warm (CPU)",
        "compiling, warm",
        "note",
    )
    lines = [
        "## Cold start: import and first fit (`benchmarks/bench_cold_start.py`)",
        "Each estimator in fresh processes, one after another: *cold* with an empty numba "
        "cache (`NUMBA_CACHE_DIR` a new temporary folder), as in a new environment, a "
        "fresh dask worker or a container; *warm* a second process with the same cache, "
        "now filled. *import* is `from <package> import <estimator>` in the fresh "
        "interpreter (NumPy, SciPy and scikit-learn included: compare with the "
        "scikit-learn rows); *first fit* the wall time of the first `fit` with default "
        "parameters on iris-sized input (150 × 4 points, their 150 × 150 squared "
        "distances or signed similarities, counts `round(10 X)`, the joint table "
        "`X / sum(X)`, iris's 3 classes; a 16 × 16 noisy binary square for the image "
        "model), *CPU* its processor time over all threads. *compiling*: the part of the "
        "fit numba spent compiling, and how many specialisations it compiled (a kernel's "
        "callees included); in the warm process a kernel compiled again is one numba "
        "does not cache (`cache=True` missing, or a type it cannot cache). Target: a "
        f"cold first fit within {TARGET_S:g} s. scikit-learn {version('scikit-learn')}, "
        f"numba {version('numba')}; {REPEAT} cold/warm pair(s) per estimator "
        f"(`BENCH_COLD_REPEAT`), medians; load average {load_before:.2f} before and "
        f"{load_after:.2f} after ({(time.perf_counter() - start) / 60:.1f} min).",
        table(header, rows),
        f"- Cold first fits over {TARGET_S:g} s: "
        + (f"{len(over)} of {n_ours} ({', '.join(over)})." if over else f"none of {n_ours}."),
    ]
    print("\n\n".join(lines))


if __name__ == "__main__":
    main()

"""How deterministic annealing's time and memory grow with n, K and d (``docs/scaling.md``).

Measures, on the default thread count, the time of one Gibbs pass (assignment
and sufficient statistics, the unit every iteration costs) and the peak memory
of a whole fit (tracemalloc), varying one of n, K, d at a time around
n = 10^5, K = 10, d = 10; fits the log–log slopes; draws
``docs/images/da_scaling.svg`` and prints its section of ``docs/benchmarks.md``.

Run: ``python benchmarks/bench_da_scaling.py``.
"""

import sys
import tracemalloc
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_blobs

sys.path.insert(0, str(Path(__file__).parent))
from _bench import all_threads, measure, progress, table

from statmechlearn.cluster import DeterministicAnnealing, gibbs_pass

__all__ = ["main"]

FIGURE = Path(__file__).parent.parent / "docs" / "images" / "da_scaling.svg"
BASE = {"n": 100_000, "K": 10, "d": 10}
GRID = {
    "n": [10_000, 30_000, 100_000, 300_000, 1_000_000],
    "K": [2, 4, 8, 16, 32, 64],
    "d": [2, 4, 8, 16, 32, 64, 128],
}
MEMORY_N = [3_000, 10_000, 30_000, 100_000, 300_000]


def _data(n, K, d, seed=0):
    X, _ = make_blobs(n, n_features=d, centers=K, cluster_std=2.0, random_state=seed)
    return X - X.mean(axis=0)


def _pass_time(n, K, d):
    X = _data(n, K, d)
    centers = X[np.random.default_rng(0).choice(n, K, replace=False)][None]
    log_w = np.full((1, K), -np.log(K))
    x_sq = np.einsum("ij,ij->i", X, X)
    return measure(lambda: gibbs_pass(X, centers, log_w, 20.0, x_sq)).median


def _fit_memory(n):
    X = _data(n, BASE["K"], BASE["d"])
    tracemalloc.start()
    DeterministicAnnealing(BASE["K"], random_state=0).fit(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def _slope(x, y):
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def main():
    DeterministicAnnealing(3, random_state=0).fit(_data(500, 3, 2))  # load the kernels
    times = {}
    for name, values in GRID.items():
        times[name] = []
        for v in values:
            size = dict(BASE, **{name: v})
            progress(f"one pass at {size}")
            times[name].append(_pass_time(size["n"], size["K"], size["d"]))
    memory = []
    for n in MEMORY_N:
        progress(f"fit memory at n = {n}")
        memory.append(_fit_memory(n))

    fig, axes = plt.subplots(1, 4, figsize=(13, 3.2), layout="constrained")
    for ax, (name, values) in zip(axes, GRID.items(), strict=False):
        ax.loglog(values, np.array(times[name]) * 1e3, "o-", label="one pass (measured)")
        ax.set_xlabel(name)
        ax.set_ylabel("time of one pass (ms)")
        ax.set_title(f"slope {_slope(values, times[name]):.2f}")
    axes[-1].loglog(MEMORY_N, np.array(memory) / 2**20, "s-", color="C1", label="peak (measured)")
    axes[-1].set_xlabel("n")
    axes[-1].set_ylabel("peak memory of a fit (MiB)")
    axes[-1].set_title(f"slope {_slope(MEMORY_N, memory):.2f}")
    fig.suptitle(
        f"DeterministicAnnealing: one Gibbs pass (T = 20) and a fit's memory; "
        f"base n = {BASE['n']:,}, K = {BASE['K']}, d = {BASE['d']}; {all_threads()} threads"
    )
    FIGURE.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(FIGURE, metadata={"Date": None})
    plt.close(fig)

    print("## How deterministic annealing scales (`benchmarks/bench_da_scaling.py`)\n")
    print(
        "One Gibbs pass (assignment and sufficient statistics at T = 20, the unit of every "
        "iteration) timed while one of n, K, d varies around "
        f"n = {BASE['n']:,}, K = {BASE['K']}, d = {BASE['d']} ({all_threads()} threads), and "
        "the peak memory of a whole fit (tracemalloc, X itself not counted) against n. The "
        "log–log plot is `docs/images/da_scaling.svg` (in `docs/scaling.md`).\n"
    )
    rows = [
        (name, ", ".join(f"{v:,}" for v in values), f"{_slope(values, times[name]):.2f}")
        for name, values in GRID.items()
    ]
    rows.append(
        (
            "n (peak memory of a fit)",
            ", ".join(f"{v:,}" for v in MEMORY_N),
            f"{_slope(MEMORY_N, memory):.2f}",
        )
    )
    print(table(("varied", "values", "log–log slope"), rows))
    per = memory[-1] / (8 * MEMORY_N[-1])
    print(
        f"\nAt n = {MEMORY_N[-1]:,} the fit's peak is {memory[-1] / 2**20:.0f} MiB = "
        f"{per:.1f} doubles per sample (d = {BASE['d']}, K = {BASE['K']}): the centred copy of X "
        "and a few per-sample vectors; the per-sample posteriors exist only one chunk at a time."
    )


if __name__ == "__main__":
    main()

"""Throughput of the on-line WTA kernel: numba against its NumPy twin.

Run: ``python benchmarks/bench_wta_kernel.py`` (markdown on stdout). The
simulation of the paper's Fig. 2 setting (N = 200, two prototypes, LVQ1):
examples per second of ``wta_online_updates`` and of
``wta_online_updates_numpy`` for one run and for 100 runs advanced together,
on one thread and on all threads.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _bench import fmt_ratio, limit_threads, measure, progress, table, thread_settings

from statmechlearn.lvq import wta_online_updates, wta_online_updates_numpy, wta_rule

N_FEATURES = 200
CASES = ((1, 5_000), (100, 500))  # (runs, steps per run): the twin takes seconds


def _problem(n_runs, n_steps, seed=0):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((n_runs, 2, N_FEATURES)) * 0.01
    X = rng.standard_normal((n_runs, n_steps, N_FEATURES))
    y = rng.choice([1.0, -1.0], size=(n_runs, n_steps))
    return W, X, y, np.array([1.0, -1.0])


def _timing(fn, W, X, y, labels):
    a, b = wta_rule("lvq1")
    return measure(lambda: fn(W.copy(), X, y, labels, learning_rate=0.2 / N_FEATURES, a=a, b=b))


def main():
    rows, ratios = [], []
    for n_runs, n_steps in CASES:
        W, X, y, labels = _problem(n_runs, n_steps)
        examples = n_runs * n_steps
        for n in thread_settings():
            with limit_threads(n):
                progress(f"wta: {n_runs} run(s) x {n_steps} steps, {n} thread(s)")
                fast = _timing(wta_online_updates, W, X, y, labels)
                slow = _timing(wta_online_updates_numpy, W, X, y, labels)
            ratios.append(((n_runs, n), slow / fast))
            rows.append(
                (
                    f"{n_runs} × {n_steps}",
                    n,
                    f"{fast} = {examples / fast.median:.3g} ex/s",
                    f"{slow} = {examples / slow.median:.3g} ex/s",
                    f"**{fmt_ratio(slow / fast)}**",
                )
            )
    single = [r for (runs, _), r in ratios if runs == 1]
    batched = [r for (runs, _), r in ratios if runs > 1]
    print(
        "\n\n".join(
            [
                "## The on-line WTA kernel alone (`benchmarks/bench_wta_kernel.py`)",
                f"The teacher–student simulation of the LVQ paper's Fig. 2 (N = {N_FEATURES}, "
                "two prototypes, LVQ1): `wta_online_updates` (numba, serial) against its "
                "plain-NumPy twin `wta_online_updates_numpy`, which loops over the steps "
                "and is vectorised over the runs. Times of a whole call (runs × steps "
                "examples) and the examples per second they give.",
                table(("runs × steps", "threads", "numba kernel", "NumPy twin", "ratio"), rows),
                f"For one run the kernel is {fmt_ratio(min(single))}–"
                f"{fmt_ratio(max(single))} the twin; for {CASES[1][0]} runs advanced "
                f"together {fmt_ratio(min(batched))}–{fmt_ratio(max(batched))}, because "
                "there the twin's every step is one vectorised operation over all runs. "
                "The kernel is serial and the twin calls no BLAS, so the thread count "
                "changes nothing but the noise.",
            ]
        )
    )


if __name__ == "__main__":
    main()

"""Time of the Fig. 3 relief: R and Q of the soft-selection MAP on the (alpha, eta) grid.

Run: ``python benchmarks/bench_outlier_relief.py`` (markdown on stdout). Each
alpha is one pseudo-arclength continuation in eta (every branch, folds
included) followed by a Newton solve per eta; the alphas are spread over
``n_jobs`` processes with joblib, as the experiment runner does. To stay within
a few minutes, every ``STRIDE``-th alpha of the 40 x 40 grid is timed (all 40
etas) and the whole grid's time is extrapolated from it (the alphas are
independent, so the time is linear in their number). Target: the
whole relief under one minute on all cores.
"""

import sys
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).parent))
from _bench import limit_threads, measure, progress, table, thread_settings

from statmechlearn.papers.outliers.fig3 import FIG3_ALPHAS, FIG3_ETAS, relief

STRIDE = 5
TARGET = 60.0  # seconds for the whole grid


def _run(alphas, n_jobs):
    rows = Parallel(n_jobs=n_jobs)(delayed(relief)(a, FIG3_ETAS) for a in alphas)
    assert np.all(np.isfinite(np.array(rows)))


def main():
    alphas = FIG3_ALPHAS[::STRIDE]
    relief(1.0, FIG3_ETAS[:2])  # compile the numba kernels once
    rows, whole = [], {}
    for n in thread_settings():
        with limit_threads(n):
            progress(f"relief: {len(alphas)} alphas, {n} process(es)")
            # starts the workers and loads their compiled kernels outside the timing
            Parallel(n_jobs=n)(delayed(relief)(a, FIG3_ETAS[:2]) for a in FIG3_ALPHAS[:n])
            t = measure(lambda n=n: _run(alphas, n), warmup=0)
        whole[n] = t.median * len(FIG3_ALPHAS) / len(alphas)
        rows.append((n, t, f"{whole[n]:.3g} s"))
    n_all = max(whole)
    verdict = "met" if whole[n_all] < TARGET else "not met"
    print(
        "\n\n".join(
            [
                "## Outliers theory: the Fig. 3 relief (`benchmarks/bench_outlier_relief.py`)",
                f"R and Q of the soft-selection MAP on the {len(FIG3_ALPHAS)} × "
                f"{len(FIG3_ETAS)} (α, η) grid of Fig. 3: per α one pseudo-arclength "
                "continuation in η (all branches, folds refined), then one Newton solve per "
                "η; the α are spread over processes (joblib), as `statmechlearn run "
                f"outliers-fig3 --n-jobs N` does. Timed: every {STRIDE}th α "
                f"({len(alphas)} of {len(FIG3_ALPHAS)}, all {len(FIG3_ETAS)} η); the whole "
                "grid's time is that times "
                f"{len(FIG3_ALPHAS)}/{len(alphas)}, the α being independent.",
                table(
                    (
                        "processes (and threads each)",
                        f"{len(alphas)} × {len(FIG3_ETAS)} grid",
                        f"whole {len(FIG3_ALPHAS)} × {len(FIG3_ETAS)} grid (extrapolated)",
                    ),
                    rows,
                ),
                f"Target: the whole relief under {TARGET:g} s on all {n_all} cores: "
                f"**{verdict}** ({whole[n_all]:.3g} s).",
            ]
        )
    )


if __name__ == "__main__":
    main()

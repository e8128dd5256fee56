"""Time of the Fig. 3 relief: R and Q of the soft-selection MAP on a 40 x 40 (alpha, eta) grid.

Run: ``.venv/bin/python benchmarks/bench_outlier_relief.py``. Each alpha is
one pseudo-arclength continuation in eta (every branch, folds included)
followed by a Newton solve per eta; the alphas are spread over ``n_jobs``
processes with joblib, as the experiment runner does. Target (issue 4):
under one minute on 2 cores. Prints the wall time with 1 and 2 processes.
"""

import time

import numpy as np
from joblib import Parallel, delayed

from statmechlearn.experiments.outliers_dietrich import FIG3_ALPHAS, FIG3_ETAS, relief


def _run(n_jobs):
    start = time.perf_counter()
    rows = Parallel(n_jobs=n_jobs)(delayed(relief)(a, FIG3_ETAS) for a in FIG3_ALPHAS)
    wall = time.perf_counter() - start
    assert np.all(np.isfinite(np.array(rows)))
    return wall


def main():
    relief(1.0, FIG3_ETAS[:2])  # compile the numba kernels once
    for n_jobs in (1, 2):
        wall = _run(n_jobs)
        print(f"40 x 40 relief, n_jobs={n_jobs}: {wall:.1f} s")


if __name__ == "__main__":
    main()

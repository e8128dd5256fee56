"""Deterministic annealing against scikit-learn's KMeans (n = 1e5, d = 10, K = 10).

Reports, as ratios from one run on this machine:
- one DA fixed-point iteration (distances + Gibbs assignment + centroid update)
  against one Lloyd iteration of KMeans (``max_iter=1, n_init=1`` from the same
  centres, algorithm="lloyd");
- a whole annealed fit to K = 10 against KMeans(n_init=10), with the inertia
  each reaches.

Run: ``python benchmarks/bench_deterministic_annealing.py``.
"""

import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

sys.path.insert(0, str(Path(__file__).parent))
from _timing import best_of

from statmechlearn.cluster import DeterministicAnnealing
from statmechlearn.cluster._gibbs import gibbs_fixed_point


def main():
    X, _ = make_blobs(100_000, n_features=10, centers=10, cluster_std=2.0, random_state=0)
    rng = np.random.default_rng(0)
    centers = X[rng.choice(len(X), 10, replace=False)]
    x_sq = np.einsum("ij,ij->i", X, X)
    log_w = np.full((1, 10), -np.log(10))

    def da_iter():
        gibbs_fixed_point(
            X, centers[None], log_w, 5.0, mass_constrained=True, max_iter=1, tol=0.0, x_sq=x_sq
        )

    def lloyd_iter():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            KMeans(10, init=centers, n_init=1, max_iter=1, algorithm="lloyd").fit(X)

    t_da, t_lloyd = best_of(da_iter), best_of(lloyd_iter)
    print(
        f"one iteration: DA {t_da * 1e3:.1f} ms, KMeans Lloyd {t_lloyd * 1e3:.1f} ms, "
        f"ratio {t_da / t_lloyd:.2f}"
    )

    start = time.perf_counter()
    da = DeterministicAnnealing(10, random_state=0).fit(X)
    t_fit_da = time.perf_counter() - start
    start = time.perf_counter()
    km = KMeans(10, n_init=10, random_state=0).fit(X)
    t_fit_km = time.perf_counter() - start
    print(
        f"whole fit: DA {t_fit_da:.2f} s ({da.n_iter_} iterations, "
        f"{len(da.path_.temperature)} temperatures), KMeans(n_init=10) {t_fit_km:.2f} s, "
        f"ratio {t_fit_da / t_fit_km:.2f}"
    )
    print(
        f"inertia: DA {da.inertia_:.6g}, KMeans {km.inertia_:.6g}, "
        f"ratio {da.inertia_ / km.inertia_:.6f}"
    )


if __name__ == "__main__":
    main()

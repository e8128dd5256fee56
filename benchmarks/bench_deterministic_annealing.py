"""Deterministic annealing against scikit-learn's KMeans (n = 1e5, d = 10, K = 10).

Reports, as ratios from one run on this machine:

- the marginal cost of one fixed-point iteration (Gibbs assignment + centroid
  update), DA against a Lloyd iteration of KMeans: both run 51 and 1
  iterations from the same centres with ``tol=0`` and the difference is
  divided by 50, so that KMeans's per-fit set-up (validation, norms, final
  labels) is not counted as iteration time. DA is timed at three
  temperatures: low (``T = 1``, nearly hard assignments, as late in the
  anneal), at the blobs' scale (``T = 20``) and high (``T = 200``, every
  exponential needed);
- a whole annealed fit to K = 10 against KMeans(n_init=10), with the inertia
  each reaches;
- the peak memory the DA fit allocates, against ``n K`` doubles.

Run: ``python benchmarks/bench_deterministic_annealing.py``.
"""

import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

sys.path.insert(0, str(Path(__file__).parent))
from _timing import best_of

from statmechlearn.cluster import DeterministicAnnealing, gibbs_fixed_point

N, D, K = 100_000, 10, 10


def _per_iteration(run):
    """Marginal seconds per iteration: (51 iterations - 1 iteration) / 50."""
    return (best_of(lambda: run(51)) - best_of(lambda: run(1))) / 50


def main():
    X, _ = make_blobs(N, n_features=D, centers=K, cluster_std=2.0, random_state=0)
    X -= X.mean(axis=0)
    rng = np.random.default_rng(0)
    centers = X[rng.choice(len(X), K, replace=False)]
    x_sq = np.einsum("ij,ij->i", X, X)
    log_w = np.full((1, K), -np.log(K))

    def lloyd(n_iter):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            KMeans(K, init=centers, n_init=1, max_iter=n_iter, tol=0, algorithm="lloyd").fit(X)

    t_lloyd = _per_iteration(lloyd)
    print(f"one Lloyd iteration (KMeans): {t_lloyd * 1e3:.2f} ms")
    for T in (1.0, 20.0, 200.0):

        def da(n_iter, T=T):
            gibbs_fixed_point(
                X, centers[None], log_w, T, mass_constrained=True, max_iter=n_iter, tol=0, x_sq=x_sq
            )

        t_da = _per_iteration(da)
        print(f"one DA iteration at T={T:g}: {t_da * 1e3:.2f} ms, ratio {t_da / t_lloyd:.2f}")

    DeterministicAnnealing(K, random_state=0).fit(X[:2000])  # load the compiled kernels
    start = time.perf_counter()
    da = DeterministicAnnealing(K, random_state=0).fit(X)
    t_fit_da = time.perf_counter() - start
    start = time.perf_counter()
    km = KMeans(K, n_init=10, random_state=0).fit(X)
    t_fit_km = time.perf_counter() - start
    print(
        f"whole fit: DA {t_fit_da:.2f} s ({da.n_iter_} passes, "
        f"{len(da.path_.temperature)} temperatures), KMeans(n_init=10) {t_fit_km:.2f} s, "
        f"ratio {t_fit_da / t_fit_km:.2f}"
    )
    print(
        f"inertia: DA {da.inertia_:.6g}, KMeans {km.inertia_:.6g}, "
        f"ratio {da.inertia_ / km.inertia_:.6f}"
    )

    tracemalloc.start()
    DeterministicAnnealing(K, random_state=0).fit(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"peak memory of the DA fit: {peak / 2**20:.1f} MiB = {peak / (8 * N * K):.2f} x n K "
        f"doubles (X itself is {8 * N * D / 2**20:.1f} MiB)"
    )


if __name__ == "__main__":
    main()

"""Samplers and mean field: site-update throughput against plain NumPy, and peers.

Run as ``python benchmarks/bench_sampling.py``. Prints, from one run (one core:
every kernel here is serial):

- the heat-bath (Gibbs) Ising sampler on the 328 x 400 horse, checkerboard
  order: site updates per second of the numba kernel, of the same sweep in
  vectorised NumPy (one colour at a time, what one would write by hand),
  and of the plain NumPy loop over sites (the library's reference twin);
- the k-means Gibbs sampler (Hartigan moves) on 2000 points, 8 clusters:
  numba kernel against the NumPy loop;
- one asynchronous mean-field sweep of a 3-state Potts model on a
  164 x 200 grid: numba kernel against the NumPy colour-block twin;
- simulated annealing (1000 sweeps) and deterministic annealing against
  scikit-learn's KMeans (10 starts) on the same k-means problem: time and cost.
"""

import time
import warnings

import numpy as np
from _timing import best_of
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

from statmechlearn.cluster import DeterministicAnnealing
from statmechlearn.inference import (
    CoolingSchedule,
    KMeansCost,
    PairwiseMRFCost,
    grid_graph,
    ising_cost,
    mean_field,
    simulated_annealing,
    sweep,
)


def _horse():
    from skimage import data

    clean = ~data.horse()
    rng = np.random.default_rng(0)
    return clean ^ (rng.random(clean.shape) < 0.1)


def _numpy_checkerboard(spins, y, beta, mu, T, u):
    """Heat-bath sweep of the 4-neighbour Ising model with array slicing, colour by colour."""
    h, w = spins.shape
    deg = np.full((h, w), 4.0)
    deg[0, :] -= 1
    deg[-1, :] -= 1
    deg[:, 0] -= 1
    deg[:, -1] -= 1
    inv = 1.0 / deg
    parity = np.add.outer(np.arange(h), np.arange(w)) % 2
    for colour in (0, 1):
        field = np.zeros((h, w))
        # w_ij = beta / 2 (1/|N_i| + 1/|N_j|)
        for sl_a, sl_b in (
            ((slice(1, None), slice(None)), (slice(None, -1), slice(None))),
            ((slice(None, -1), slice(None)), (slice(1, None), slice(None))),
            ((slice(None), slice(1, None)), (slice(None), slice(None, -1))),
            ((slice(None), slice(None, -1)), (slice(None), slice(1, None))),
        ):
            field[sl_a] += 0.5 * beta * (inv[sl_a] + inv[sl_b]) * spins[sl_b]
        field += mu * y
        p_up = 1.0 / (1.0 + np.exp(-2.0 * field / T))
        mask = parity == colour
        spins[mask] = np.where(u[mask] < p_up[mask], 1.0, -1.0)
    return spins


def ising_throughput():
    noisy = _horse()
    cost = ising_cost(noisy, 2.0, 1.0)
    n = cost.n_sites
    rng = np.random.default_rng(1)
    state = cost.init_state(noisy.ravel().astype(np.int64))
    u = rng.random((1, n, 2))
    n_sweeps = 20
    kernel = best_of(lambda: [sweep(cost, state, 1.0, u) for _ in range(n_sweeps)], 3)
    rate_kernel = n * n_sweeps / kernel
    spins = np.where(noisy, 1.0, -1.0)
    y = spins.copy()
    uu = rng.random(noisy.shape)
    vec = best_of(lambda: [_numpy_checkerboard(spins, y, 2.0, 1.0, 1.0, uu) for _ in range(5)], 3)
    rate_vec = n * 5 / vec
    small = ising_cost(noisy[:60, :60], 2.0, 1.0)
    s_state = small.init_state(noisy[:60, :60].ravel().astype(np.int64))
    su = rng.random((1, small.n_sites, 2))
    loop = best_of(lambda: sweep(small, s_state, 1.0, su, compiled=False), 2)
    rate_loop = small.n_sites / loop
    print(
        f"Ising heat-bath, 328x400, one chain: numba {rate_kernel:.3g} site updates/s; "
        f"vectorised NumPy checkerboard {rate_vec:.3g}/s ({rate_kernel / rate_vec:.1f}x); "
        f"NumPy loop over sites {rate_loop:.3g}/s ({rate_kernel / rate_loop:.0f}x)"
    )


def kmeans_sampler_throughput():
    X, _ = make_blobs(2000, centers=8, random_state=0)
    cost = KMeansCost(X, 8)
    rng = np.random.default_rng(0)
    L = rng.integers(8, size=(4, 2000))
    state = cost.init_state(L)
    u = rng.random((4, 2000, 2))
    kernel = best_of(lambda: [sweep(cost, state, 1.0, u) for _ in range(10)], 3)
    small = cost.init_state(L[:, :])
    loop = best_of(lambda: sweep(cost, small, 1.0, u, compiled=False), 1)
    print(
        f"k-means Gibbs sampler, 2000 points, k=8, 4 chains: numba {4 * 2000 * 10 / kernel:.3g} "
        f"site updates/s, NumPy loop {4 * 2000 / loop:.3g}/s ({10 * loop / kernel:.0f}x)"
    )


def mean_field_sweep():
    rng = np.random.default_rng(0)
    W = grid_graph((164, 200))
    cost = PairwiseMRFCost(rng.random((W.shape[0], 3)), 0.5 * W)
    Q0 = rng.dirichlet(np.ones(3), size=W.shape[0])
    kw = {"init": Q0, "max_iter": 10, "tol": 0.0, "warn": False}
    kernel = best_of(lambda: mean_field(cost, 1.0, **kw), 3)
    twin = best_of(lambda: mean_field(cost, 1.0, compiled=False, **kw), 3)
    print(
        f"mean field, 3-state Potts on 164x200, 10 asynchronous sweeps (with the bound): "
        f"numba {kernel * 100:.2f} ms/sweep, NumPy colour blocks {twin * 100:.2f} ms/sweep "
        f"({twin / kernel:.1f}x)"
    )


def annealing_vs_kmeans():
    X, _ = make_blobs(
        1000, n_features=2, centers=10, cluster_std=1.0, center_box=(-10, 10), random_state=3
    )
    cost = KMeansCost(X, 10)
    t_c = 2.0 * float(np.linalg.eigvalsh(np.cov(X.T, bias=True))[-1])
    simulated_annealing(cost, CoolingSchedule("exponential", 1.0, 0.5, 2), random_state=0)
    start = time.perf_counter()
    sa = simulated_annealing(
        cost, CoolingSchedule("exponential", t_c, 1e-3 * t_c, 1000), random_state=0
    )
    sa_s = time.perf_counter() - start
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        da = DeterministicAnnealing(10, random_state=0).fit(X)
    da_s = time.perf_counter() - start
    start = time.perf_counter()
    km = KMeans(10, n_init=10, random_state=0).fit(X)
    km_s = time.perf_counter() - start
    print(
        f"k-means cost, 1000 points, k=10: SA 1000 sweeps {sa_s:.2f} s cost {sa.best_energy:.1f}; "
        f"DA {da_s:.2f} s cost {cost.energy(da.labels_)[0]:.1f}; "
        f"KMeans n_init=10 {km_s:.2f} s cost {km.inertia_:.1f}"
    )


if __name__ == "__main__":
    ising_throughput()
    kmeans_sampler_throughput()
    mean_field_sweep()
    annealing_vs_kmeans()

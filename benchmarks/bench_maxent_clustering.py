"""Maximum-entropy clustering against the packages a user would otherwise pick.

Run as ``python benchmarks/bench_maxent_clustering.py``. Prints, from one run:

- the information bottleneck of the issue's 5-point joint up to beta = 10:
  ours (annealed, one path) against dit's ``IBCurve`` (101 beta, restarts);
- TopologicalVQ against MiniSom on 2000 uniform points in the square, a
  6 x 6 map: quantisation and topographic errors and fit times;
- PairwiseClustering against scikit-learn's SpectralClustering on the same
  similarity (an RBF kernel and the squared distances it comes from) of
  three blobs: adjusted Rand index and fit times;
- the cost of one fixed-point iteration of histogram clustering against
  n * m * K (BLAS products), and of one asynchronous mean-field sweep of
  correlation clustering against one synchronous BLAS product.
"""

import time
import warnings

import numpy as np
from _timing import best_of
from sklearn.cluster import SpectralClustering
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score
from sklearn.metrics.pairwise import rbf_kernel

from statmechlearn.cluster import (
    InformationBottleneck,
    PairwiseClustering,
    TopologicalVQ,
)
from statmechlearn.cluster._distributional import _KLClustering
from statmechlearn.cluster._maxent import gibbs_assignments
from statmechlearn.cluster._mean_field import async_sweep


def ib_vs_dit():
    import dit
    from dit.rate_distortion import IBCurve

    J = np.zeros((3, 3))
    for a, b in [(0, 0), (0, 2), (1, 2), (2, 1), (2, 2)]:
        J[a, b] = 0.2
    ours = best_of(lambda: InformationBottleneck(min_temperature=0.1, random_state=0).fit(J), 3)
    dist = dit.Distribution(["00", "02", "12", "21", "22"], [0.2] * 5)
    start = time.perf_counter()
    IBCurve(dist, beta_max=10)
    peer = time.perf_counter() - start
    print(f"IB to beta=10: ours {ours:.3f} s, dit IBCurve {peer:.1f} s, ratio {peer / ours:.0f}x")


def som_vs_minisom():
    from minisom import MiniSom

    X = np.random.default_rng(0).uniform(0, 1, (2000, 2))
    start = time.perf_counter()
    som = TopologicalVQ((6, 6), sigma=0.5, random_state=0).fit(X)
    ours = time.perf_counter() - start
    start = time.perf_counter()
    peer = MiniSom(6, 6, 2, sigma=1.0, learning_rate=0.5, random_seed=0)
    peer.random_weights_init(X)
    peer.train(X, 20000)
    peer_s = time.perf_counter() - start
    print(
        f"SOM 6x6, 2000 points: TopologicalVQ QE {som.quantization_error(X):.4f} "
        f"TE {som.topographic_error(X):.3f} in {ours:.2f} s; MiniSom QE "
        f"{peer.quantization_error(X):.4f} TE {peer.topographic_error(X):.3f} in {peer_s:.2f} s"
    )


def pairwise_vs_spectral():
    X, y = make_blobs(n_samples=600, centers=3, cluster_std=1.5, random_state=0)
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    S = rbf_kernel(X, gamma=1.0 / np.median(D))
    start = time.perf_counter()
    ours = PairwiseClustering(3, random_state=0).fit(D)
    ours_s = time.perf_counter() - start
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = SpectralClustering(3, affinity="precomputed", random_state=0).fit(S)
    spec_s = time.perf_counter() - start
    print(
        f"600 points, 3 blobs: PairwiseClustering(D) ARI {adjusted_rand_score(y, ours.labels_):.3f}"
        f" in {ours_s:.2f} s; SpectralClustering(rbf S) ARI "
        f"{adjusted_rand_score(y, spec.labels_):.3f} in {spec_s:.2f} s"
    )


def histogram_iteration_scaling():
    rng = np.random.default_rng(0)
    for n, m, K in [(2000, 64, 8), (8000, 64, 8), (8000, 256, 8), (8000, 256, 32)]:
        cond = rng.dirichlet(np.ones(m), size=n)
        model = _KLClustering(cond, np.full(n, 1 / n), mass_constrained=True)
        P = rng.dirichlet(np.ones(K), size=n)

        def step(model=model, P=P):
            h, log_w = model.field(P)
            gibbs_assignments(h, 1.0, log_w)

        t = best_of(step, 5)
        print(
            f"histogram iteration n={n} m={m} K={K}: {t * 1e3:.1f} ms, "
            f"{t / (n * m * K) * 1e9:.2f} ns per n*m*K"
        )


def async_vs_sync_sweep():
    rng = np.random.default_rng(0)
    for n, K in [(1000, 8), (3000, 8)]:
        J = rng.standard_normal((n, n))
        J = J + J.T
        np.fill_diagonal(J, 0.0)
        P = rng.dirichlet(np.ones(K), size=n)
        async_sweep(J, P, 1.0)  # compile
        t_async = best_of(lambda J=J, P=P: async_sweep(J, P, 1.0), 3)
        t_sync = best_of(lambda J=J, P=P: J @ P, 5)
        print(
            f"mean-field sweep n={n} K={K}: asynchronous {t_async * 1e3:.1f} ms, "
            f"synchronous product {t_sync * 1e3:.1f} ms, ratio {t_async / t_sync:.1f}"
        )


if __name__ == "__main__":
    ib_vs_dit()
    som_vs_minisom()
    pairwise_vs_spectral()
    histogram_iteration_scaling()
    async_vs_sync_sweep()

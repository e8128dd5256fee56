"""The gap statistic against the gap-stat package (``gap_statistic.OptimalK``).

Run as ``python benchmarks/bench_model_selection.py``. gap-stat is not a
dependency (its source distribution needs ``wheel`` to build): install it with
``pip install wheel && pip install --no-build-isolation gap-stat`` first; without
it the peer rows are skipped.

Both use scikit-learn's KMeans (10 starts) on the same data with B = 50 uniform
references and one process; gap-stat returns the k of the largest gap, so our
``global-max`` rule must agree with it, and Tibshirani's rule is shown beside.
"""

import time

import numpy as np
from sklearn.cluster import KMeans

from statmechlearn.model_selection import gap_statistic


def _three(rng):
    return np.vstack(
        [
            rng.normal([0, 0], 1, (25, 2)),
            rng.normal([0, 5], 1, (50, 2)),
            rng.normal([5, -3], 1, (25, 2)),
        ]
    )


def _kmeans(X, k, **kwargs):
    km = KMeans(k, n_init=10, random_state=0).fit(X)
    return km.cluster_centers_, km.labels_


def compare(name, X, ks=range(1, 9), B=50):
    start = time.perf_counter()
    ours = gap_statistic(X, KMeans(n_init=10), ks, n_references=B, random_state=0)
    ours_s = time.perf_counter() - start
    line = (
        f"{name}: ours {ours_s:.2f} s, k = {ours.choose('global-max')} (global max), "
        f"{ours.n_clusters} (Tibshirani)"
    )
    try:
        from gap_statistic import OptimalK
    except ImportError:
        print(line + "; gap-stat not installed")
        return
    peer = OptimalK(n_jobs=1, parallel_backend=None, clusterer=_kmeans, random_state=0)
    start = time.perf_counter()
    k_peer = peer(X, n_refs=B, cluster_array=np.array(list(ks)))
    peer_s = time.perf_counter() - start
    print(
        line + f"; gap-stat {peer_s:.2f} s, k = {k_peer} (its argmax); "
        f"time ratio {peer_s / ours_s:.2f}"
    )


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    compare("three clusters (25/50/25, 2-D)", _three(rng))
    compare("null (200 points, 10-D uniform)", rng.uniform(size=(200, 10)))

"""Pairwise clustering of a sparse neighbour graph against spectral clustering of the same graph.

Run as ``python benchmarks/bench_pairwise_graph.py`` (markdown on stdout, progress on stderr).

Data: two sets of overlapping Gaussian blobs (``random_state=0``): those of
``bench_pairwise.py`` (three in the plane, ``cluster_std=1.5``) and four in five
dimensions (``cluster_std=2.5``), at n = 2000, 20 000 and 100 000, and their
ten-nearest-neighbour graph ``G = kneighbors_graph(X, 10, mode="distance")``, built
once, outside the timings: both methods start from it. Ours:
``PairwiseClustering(k).fit(G)`` with its defaults (path-length completion through 100
landmarks). The peer: ``SpectralClustering(k, affinity="precomputed_nearest_neighbors",
n_neighbors=10)``, scikit-learn's clustering of a precomputed neighbour graph, at its
defaults (ARPACK). Measured: fit time on one thread and on all, adjusted Rand index
against the blobs, peak memory allocated during the fit (``tracemalloc``; the graph, the
input, not counted), and the ARI of the dense ``PairwiseClustering(k,
metric="euclidean")`` where its ``n x n`` matrix fits (n = 2000). At n = 20 000 each fit
is timed once. At n = 100 000 our fit is timed once per thread setting, and the peer
runs once, on all threads, in a child process stopped after ``PEER_LIMIT`` seconds.
"""

import multiprocessing
import sys
import time
import warnings
from pathlib import Path

from sklearn.cluster import SpectralClustering
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score
from sklearn.neighbors import kneighbors_graph

sys.path.insert(0, str(Path(__file__).parent))
from _bench import (
    _fmt,
    all_threads,
    fmt_ratio,
    limit_threads,
    measure,
    mib,
    peak_memory,
    progress,
    table,
    thread_settings,
    version,
)

from statmechlearn.cluster import PairwiseClustering

SIZES = (2000, 20000)
LARGE = 100_000
NEIGHBOURS = 10
PEER_LIMIT = 90.0  # seconds the peer may take at n = LARGE
#: name -> (centres, dimension, cluster_std)
DATA = {"3 blobs, d = 2, std 1.5": (3, 2, 1.5), "4 blobs, d = 5, std 2.5": (4, 5, 2.5)}


def _data(name, n):
    centres, d, std = DATA[name]
    X, y = make_blobs(n_samples=n, n_features=d, centers=centres, cluster_std=std, random_state=0)
    return X, kneighbors_graph(X, NEIGHBOURS, mode="distance"), y


def _ours(G, k):
    return PairwiseClustering(k, random_state=0).fit(G)


def _spectral(G, k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a graph that is "not fully connected" is irrelevant
        return SpectralClustering(
            k, affinity="precomputed_nearest_neighbors", n_neighbors=NEIGHBOURS, random_state=0
        ).fit(G)


def _dense_ari(X, y, k):
    labels = PairwiseClustering(k, metric="euclidean", random_state=0).fit(X).labels_
    return f"{adjusted_rand_score(y, labels):.3f}"


def _peer_in_child(name, n, queue):  # pragma: no cover - runs in a child process
    _, G, y = _data(name, n)
    start = time.perf_counter()
    labels = _spectral(G, DATA[name][0]).labels_
    queue.put((time.perf_counter() - start, adjusted_rand_score(y, labels)))


def _peer_limited(name, n):
    """The peer's fit time and ARI at ``n``, or None when it runs past ``PEER_LIMIT``."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    child = ctx.Process(target=_peer_in_child, args=(name, n, queue))
    child.start()
    # the child builds its own data first; allow for that beyond the limit
    child.join(PEER_LIMIT + 30.0)
    if child.is_alive():
        child.terminate()
        child.join()
        return None
    return queue.get() if not queue.empty() else None


def _compare(name, k, n, rows, quality):
    """Time, quality and memory of ours and the peer on one data set at one size."""
    X, G, y = _data(name, n)
    ours, mem_ours = peak_memory(lambda: _ours(G, k))
    peer, mem_peer = peak_memory(lambda: _spectral(G, k))
    quality.append(
        (
            name,
            n,
            f"{adjusted_rand_score(y, ours.labels_):.3f}",
            f"{adjusted_rand_score(y, peer.labels_):.3f}",
            _dense_ari(X, y, k) if n <= 2000 else "—",
            ours.embedding_.shape[1],
            ours.n_products_,
            mib(mem_ours),
            mib(mem_peer),
            mib(8 * n * n),
        )
    )
    # n = 2000: the usual repeats; n = 20 000: one timed fit (the kernels are warm)
    runs = {} if n <= 2000 else {"repeat": 1, "warmup": 0}
    for t in thread_settings():
        with limit_threads(t):
            progress(f"pairwise graph: {name}, n={n}, {t} thread(s): ours")
            t_ours = measure(lambda: _ours(G, k), **runs)
            progress(f"pairwise graph: {name}, n={n}, {t} thread(s): spectral")
            t_peer = measure(lambda: _spectral(G, k), **runs)
        rows.append((name, n, t, t_ours, t_peer, f"**{fmt_ratio(t_ours / t_peer)}**"))


def _large(name, k):
    """Our fit at n = LARGE (time per thread setting, ARI, peak memory) and the peer's."""
    _, G, y = _data(name, LARGE)
    times = []
    for t in thread_settings():
        with limit_threads(t):
            progress(f"pairwise graph: {name}, n={LARGE}, {t} thread(s): ours")
            start = time.perf_counter()
            ours = _ours(G, k)
            times.append(f"{_fmt(time.perf_counter() - start)} ({t} thread(s))")
    _, mem = peak_memory(lambda: _ours(G, k))
    progress(f"pairwise graph: {name}, n={LARGE}: spectral (child process)")
    peer = _peer_limited(name, LARGE)
    row = (
        name,
        ", ".join(times),
        f"{adjusted_rand_score(y, ours.labels_):.3f}",
        f"{mib(mem)} ({mem / (8 * LARGE * LARGE):.2%} of a dense D)",
        f"not finished in {PEER_LIMIT:g} s (stopped)"
        if peer is None
        else f"{_fmt(peer[0])}, ARI {peer[1]:.3f}",
    )
    return row, mem


def main():
    sk = version("scikit-learn")
    rows, quality, large, peaks = [], [], [], []
    for name, (k, _, _) in DATA.items():
        for n in SIZES:
            _compare(name, k, n, rows, quality)
        row, mem = _large(name, k)
        large.append(row)
        peaks.append(mem)

    out = ["## Pairwise clustering of a neighbour graph (`benchmarks/bench_pairwise_graph.py`)"]
    out.append(
        "`PairwiseClustering(k)` (defaults: the missing pairs completed by path lengths, "
        "held through 100 landmarks) on the ten-nearest-neighbour distance graph of two "
        "sets of overlapping blobs, against scikit-learn "
        f'{sk}\'s `SpectralClustering(k, affinity="precomputed_nearest_neighbors", '
        "n_neighbors=10)` on the same graph, at its defaults. The graph is built once, "
        "outside the timings. Ratios are our time over the peer's (below 1: ours is faster)."
    )
    out.append(
        table(("data", "n", "threads", "PairwiseClustering", "SpectralClustering", "ratio"), rows)
    )
    out.append(
        "Quality and cost of one fit: adjusted Rand index against the blobs (ours, the peer, "
        'and the dense `PairwiseClustering(k, metric="euclidean")` on all n² distances '
        "where that fits), the embedding's dimension p, products `D @ Z`, and peak memory "
        "allocated during the fit (`tracemalloc`, the input graph not counted) against the "
        "size of a dense `D`."
    )
    out.append(
        table(
            (
                "data",
                "n",
                "ARI ours",
                "ARI spectral",
                "ARI dense ours",
                "p",
                "products",
                "peak memory ours",
                "peak memory spectral",
                "a dense D",
            ),
            quality,
        )
    )
    out.append(
        f"At n = {LARGE:,}: our fit timed once per thread setting; the peer once, on all "
        f"{all_threads()} threads, in a child process stopped after {PEER_LIMIT:g} s."
    )
    out.append(
        table(
            ("data", "PairwiseClustering", "ARI ours", "peak memory ours", "SpectralClustering"),
            large,
        )
    )
    worst = max(peaks)
    dense = 8 * LARGE * LARGE
    out.append(
        f"Target: a sparse path that clusters n = {LARGE:,} in memory ≪ n²: "
        f"**{'met' if worst < 0.01 * dense else 'not met'}** (at most {mib(worst)}, "
        f"{worst / dense:.2%} of a dense `D`)."
    )
    print("\n\n".join(out))


if __name__ == "__main__":
    main()

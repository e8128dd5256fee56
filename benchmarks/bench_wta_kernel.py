"""Throughput of the on-line WTA kernel: numba vs its NumPy twin.

Run: ``.venv/bin/python benchmarks/bench_wta_kernel.py``. Prints examples per
second of each and their ratio from one run (a simulation of the paper's
Fig. 2 setting: N = 200, two prototypes, LVQ1).
"""

import time

import numpy as np

from statmechlearn.lvq import wta_online_updates, wta_online_updates_numpy, wta_rule


def _throughput(fn, W, X, y, labels, repeat=3):
    a, b = wta_rule("lvq1")
    best = np.inf
    for _ in range(repeat):
        W_run = W.copy()
        start = time.perf_counter()
        fn(W_run, X, y, labels, learning_rate=0.2 / X.shape[-1], a=a, b=b)
        best = min(best, time.perf_counter() - start)
    return X.shape[0] * X.shape[1] / best


def main(n_features=200, n_steps=20_000, n_runs=1):
    rng = np.random.default_rng(0)
    W = rng.standard_normal((n_runs, 2, n_features)) * 0.01
    X = rng.standard_normal((n_runs, n_steps, n_features))
    y = rng.choice([1.0, -1.0], size=(n_runs, n_steps))
    labels = np.array([1.0, -1.0])
    wta_online_updates(W.copy(), X[:, :10], y[:, :10], labels, learning_rate=0.0, a=0, b=1)
    fast = _throughput(wta_online_updates, W, X, y, labels)
    slow = _throughput(wta_online_updates_numpy, W, X, y, labels)
    print(f"N={n_features}, runs={n_runs}, steps={n_steps}")
    print(f"numba kernel : {fast:12.0f} examples/s")
    print(f"NumPy twin   : {slow:12.0f} examples/s")
    print(f"ratio        : {fast / slow:12.1f}x")


if __name__ == "__main__":
    main()
    main(n_runs=100, n_steps=2_000)

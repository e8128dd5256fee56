"""LVQ performance: kernels vs NumPy, the simulation vs memory bandwidth, one ODE curve.

Run: ``.venv/bin/python benchmarks/bench_lvq_throughput.py``. Prints, from one run:

1. on-line training throughput (examples/s) of LVQ1 and GLVQ epochs on
   digits (standardised, 3 prototypes per class): the numba kernels against
   their plain-NumPy per-sample twins (target >= 10x);
2. the batched teacher-student simulation (N = 200, two prototypes, 100 runs):
   time per update against a memory-bandwidth estimate of the bytes it must
   touch, as a fraction of the machine's measured copy bandwidth;
3. one ODE learning curve of LVQ1 to alpha = 100 (target < 0.5 s).
"""

import warnings

import numpy as np
from _timing import best_of
from sklearn.datasets import load_digits
from sklearn.preprocessing import StandardScaler

from statmechlearn.lvq import GLVQ, LVQ1, wta_online_updates
from statmechlearn.lvq import _kernels as K
from statmechlearn.theory.lvq_dynamics import learning_curve


def kernels_vs_numpy():
    X, y = load_digits(return_X_y=True)
    X = np.ascontiguousarray(StandardScaler().fit_transform(X))
    y = y.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(X))
    rows = []
    for name, cls, fast, slow, extra in (
        ("LVQ1", LVQ1, K.wta_epoch, K.wta_epoch_numpy, (0.0, 1.0)),
        ("GLVQ", GLVQ, K.glvq_epoch, K.glvq_epoch_numpy, (1, 2.0)),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # one epoch: "not converged" is expected
            est = cls(3, max_iter=1, random_state=0).fit(X, y)  # compiles, gives prototypes
        W0, labels = est.prototypes_.copy(), est._prototype_codes

        def run(kernel, W0=W0, labels=labels, extra=extra):
            W = W0.copy()
            kernel(W, X, y, labels, order, 0.01, *extra)

        t_fast = best_of(lambda run=run, fast=fast: run(fast))
        t_slow = best_of(lambda run=run, slow=slow: run(slow), repeat=2)
        rows.append((name, len(X) / t_fast, len(X) / t_slow))
    print("1. on-line epoch on digits (1797 x 64, 30 prototypes)")
    for name, fast, slow in rows:
        print(
            f"   {name}: numba {fast:11.0f} ex/s | NumPy twin {slow:9.0f} ex/s | "
            f"{fast / slow:6.1f}x"
        )


def simulation_bandwidth(n_features=200, n_runs=100, n_steps=5000):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((n_runs, n_steps, n_features))
    y = rng.choice([1.0, -1.0], size=(n_runs, n_steps))
    W = rng.standard_normal((n_runs, 2, n_features)) * 0.01
    labels = np.array([1.0, -1.0])
    wta_online_updates(W.copy(), X[:, :2], y[:, :2], labels, learning_rate=0.001, a=0, b=1)
    t = best_of(
        lambda: wta_online_updates(W.copy(), X, y, labels, learning_rate=0.001, a=0, b=1), 3
    )
    per_update = t / (n_runs * n_steps)
    # bytes that must come from memory per update: the example (8N) and its label;
    # the 2 x N prototypes of a run stay in L1 across its steps
    needed = 8 * n_features + 8
    big = np.ones(50_000_000)
    dst = np.empty_like(big)
    t_copy = best_of(lambda: np.copyto(dst, big), 3)
    bandwidth = 2 * big.nbytes / t_copy  # read + write
    achieved = needed / per_update
    print(f"2. batched simulation, N={n_features}, {n_runs} runs x {n_steps} steps")
    print(
        f"   {per_update * 1e9:8.1f} ns per update; {needed} B needed -> {achieved / 1e9:.2f} GB/s"
    )
    print(
        f"   copy bandwidth {bandwidth / 1e9:.2f} GB/s -> "
        f"fraction achieved {achieved / bandwidth:.2f}"
    )


def ode_curve():
    alphas = np.linspace(0, 100, 401)
    learning_curve("lvq1", alphas[:3], p_plus=0.8, lam=1.0, eta=0.2)
    t = best_of(lambda: learning_curve("lvq1", alphas, p_plus=0.8, lam=1.0, eta=0.2), 3)
    print(f"3. ODE learning curve LVQ1 to alpha=100 (401 points): {t:.3f} s")


if __name__ == "__main__":
    kernels_vs_numpy()
    simulation_bandwidth()
    ode_curve()

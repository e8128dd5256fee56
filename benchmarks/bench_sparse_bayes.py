"""Cost of the sparse Bayesian classifier (Uda & Kabashima), against what it must beat.

Run: ``.venv/bin/python benchmarks/bench_sparse_bayes.py [--splits 20]``.

1. One update of the O(NM) message passing (eqs. 40-41) at N = M = 4000
   against the two matrix-vector products with the data that any O(NM)
   method needs (target: at most 3 of those pairs). The time per update is a
   marginal cost, (t(21 updates) - t(1 update)) / 20, so building the
   pattern matrix once is not counted.
2. The naive belief propagation (eqs. 28-35, one message per edge) against
   the fast form at N = M = 50 ... 400, with the fitted exponent of its cost.
3. On the colon data (shipped with the package): the
   leave-one-out model choice over the paper's 36-point grid per 42/20 split,
   one and two processes, extrapolated to the paper's 200 splits; and fit time
   and test error of SBC against scikit-learn's LDA and ARDRegression (ARD
   prior on the genes) and sklearn-rvm's EMRVC (when installed), on the same
   splits.
"""

import argparse
import time
import warnings

import numpy as np
from _timing import best_of

from statmechlearn.linear._sparse_bayes_mp import sparse_bayes_amp, sparse_bayes_bp
from statmechlearn.models.sparse_perceptron import SparsePerceptron


def _teacher_data(n, alpha=1.0, C_t=0.2, kappa=0.05, seed=0):
    teacher = SparsePerceptron(n, C_t, kappa, random_state=seed)
    X, y = teacher.sample(round(alpha * n), random_state=seed + 1)
    return X, y, teacher.activation


def _per_update(run, k0, k1, repeat):
    """Marginal time of one update: (t(k1 updates) - t(k0 updates)) / (k1 - k0)."""
    return (best_of(lambda: run(k1), repeat) - best_of(lambda: run(k0), repeat)) / (k1 - k0)


def _amp(X, y, act):
    return lambda k: sparse_bayes_amp(X, y, 0.2, act, max_iter=k, tol=0.0)


def _bp(X, y, act):
    return lambda k: sparse_bayes_bp(X, y, 0.2, act, n_iter=k)


def per_update(n=4000):
    X, y, act = _teacher_data(n)
    F = y[:, None] * X / np.sqrt(n)
    m = np.random.default_rng(1).standard_normal(n)
    a = np.random.default_rng(2).standard_normal(n)
    t_pair = best_of(lambda: (F @ m, F.T @ a), 10)
    t_update = _per_update(_amp(X, y, act), 1, 21, 3)
    print(f"1. N = M = {n}: two matvecs (F m, F^T a) {t_pair * 1e3:.1f} ms")
    print(f"   one update {t_update * 1e3:.1f} ms = {t_update / t_pair:.2f} pairs of matvecs")


def naive_vs_fast(sizes=(100, 200, 400, 800)):
    print("2. naive BP (eqs. 28-35) vs the O(NM) form, one update, N = M:")
    times = []
    for n in sizes:
        data = _teacher_data(n)
        t_bp = _per_update(_bp(*data), 1, 3, 2)
        t_amp = _per_update(_amp(*data), 1, 21, 3)
        times.append(t_bp)
        print(
            f"   N = {n:4d}: naive {t_bp * 1e3:9.2f} ms, fast {t_amp * 1e3:7.3f} ms, "
            f"ratio {t_bp / t_amp:8.0f}"
        )
    slope = np.polyfit(np.log(sizes[1:]), np.log(times[1:]), 1)[0]
    print(f"   naive cost grows as N^{slope:.2f} (N = M; O(N^2 M) = N^3)")


def colon(n_splits=20):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import ARDRegression

    from statmechlearn.datasets import load_colon
    from statmechlearn.linear import SparseBayesClassifier, SparseBayesClassifierCV, sphere_rows

    X, y, _ = load_colon()
    rng = np.random.default_rng(20261122)
    splits = [rng.permutation(62) for _ in range(n_splits)]

    cv_name, refit_name = "SBC, LOO choice over 36 grid points", "SBC, one fit at the chosen point"
    peers = {
        "LDA (scikit-learn)": LinearDiscriminantAnalysis,
        "ARDRegression on the labels (scikit-learn)": ARDRegression,
    }
    try:
        from sklearn_rvm import EMRVC

        peers["EMRVC, linear kernel (sklearn-rvm)"] = lambda: EMRVC(kernel="linear")
    except ImportError:
        pass
    names = [cv_name, refit_name, *peers]
    times = {k: [] for k in names}
    errors = {k: [] for k in names}
    cv_times_2 = []

    def timed(name, est, Xtr, Xte, ytr, yte):
        start = time.perf_counter()
        est.fit(Xtr, ytr)
        times[name].append(time.perf_counter() - start)
        pred = np.where(est.predict(Xte) >= 0, 1, -1)  # ARDRegression predicts a real number
        errors[name].append(np.mean(pred != yte))
        return est

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for perm in splits:
            tr, te = perm[:42], perm[42:]
            data = (X[tr], X[te], y[tr], y[te])
            cv = timed(cv_name, SparseBayesClassifierCV(), *data)
            refit = SparseBayesClassifier(C=cv.best_C_, kappa=cv.best_kappa_)
            timed(refit_name, refit, *data)
            mean = X[tr].mean(axis=0)
            sphered = (sphere_rows(X[tr] - mean), sphere_rows(X[te] - mean), y[tr], y[te])
            for name, make in peers.items():
                timed(name, make(), *sphered)
            start = time.perf_counter()
            SparseBayesClassifierCV(n_jobs=2).fit(X[tr], y[tr])
            cv_times_2.append(time.perf_counter() - start)
    print(f"3. colon, {n_splits} random 42/20 splits (mean fit time, mean test error ± SE):")
    for name in names:
        e = np.asarray(errors[name])
        print(
            f"   {name:45s} {np.mean(times[name]):7.3f} s  "
            f"{100 * e.mean():5.1f} ± {100 * e.std(ddof=1) / np.sqrt(e.size):.1f} %"
        )
    t1 = np.mean(times[cv_name])
    t2 = np.mean(cv_times_2)
    print(
        f"   LOO choice with n_jobs=2: {t2:.3f} s per split; the paper's protocol "
        f"(200 splits x 36 points): {200 * t1 / 60:.1f} min on one process, "
        f"{200 * t2 / 60:.1f} min on two"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=20, help="colon splits to time")
    args = parser.parse_args()
    per_update()
    naive_vs_fast()
    colon(args.splits)


if __name__ == "__main__":
    main()

"""The gap statistic against the gap-stat package (``gap_statistic.OptimalK``).

Run as ``python benchmarks/bench_model_selection.py`` (markdown on stdout).
gap-stat is not a dependency: its source distribution needs ``wheel`` to build,
so install it with ``pip install wheel && pip install --no-build-isolation
gap-stat``; without it the peer rows say so.

Both sides compute the gap curve for k = 1…8 with B = 50 uniform references on
the same data. gap-stat is timed with the k-means of our default (scikit-learn's
``KMeans(n_init=10)``, passed as its ``clusterer``) and with its own default
(SciPy's ``kmeans2``, one start, 10 iterations); ours with its default (the same
k-means as ``KMeans(n_init=10)``, compiled). One thread: both serial; all
threads: ours ``n_jobs`` threads over the references, gap-stat's joblib
backend over the k. How good the fits are is measured beside the times: the
within-cluster sum of squares W_k each clusterer reaches on the data and on
reference sets, against the lowest any of them finds.
"""

import sys
import warnings
from pathlib import Path

import numpy as np
from scipy.cluster.vq import kmeans2
from sklearn.cluster import KMeans

sys.path.insert(0, str(Path(__file__).parent))
from _bench import fmt_ratio, limit_threads, measure, progress, table, thread_settings, version

from statmechlearn.model_selection import gap_statistic
from statmechlearn.model_selection._common import within_dispersion
from statmechlearn.model_selection._gap import _compiled_curve

KS = range(1, 9)
B = 50
TARGET = 3.0
SAME_FITS_DATA = "three clusters 25/50/25, 2-D"


def _three(rng):
    return np.vstack(
        [
            rng.normal([0, 0], 1, (25, 2)),
            rng.normal([0, 5], 1, (50, 2)),
            rng.normal([5, -3], 1, (25, 2)),
        ]
    )


def _sk_kmeans(X, k, **kwargs):
    km = KMeans(k, n_init=10, random_state=0).fit(X)
    return km.cluster_centers_, km.labels_


#: the k gap-stat chose in its last timed call, per clusterer (so it is not run again)
_LAST_K = {}


def _peer_k(clusterer, n_threads, X):
    k = _peer(clusterer, n_threads)(X, n_refs=B, cluster_array=np.array(KS))
    _LAST_K[clusterer] = k
    return k


def _peer(clusterer, n_threads):
    from gap_statistic import OptimalK

    kwargs = {"clusterer": clusterer} if clusterer is not None else {}
    if n_threads == 1:
        return OptimalK(n_jobs=1, parallel_backend=None, random_state=0, **kwargs)
    return OptimalK(n_jobs=n_threads, parallel_backend="joblib", random_state=0, **kwargs)


def _fit_quality(X, rng, n_sets=10):
    """Mean excess of W_k (k = 2…8) over the lowest found, per clusterer, data and references."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    sets = [X] + [rng.uniform(lo, hi, size=X.shape) for _ in range(n_sets)]
    ks = np.arange(2, 9)
    w = {"ours": [], "KMeans(n_init=10)": [], "kmeans2 (gap-stat's default)": []}
    for i, R in enumerate(sets):
        w["ours"].append(np.exp(_compiled_curve(R, ks, np.random.default_rng(i))))
        w["KMeans(n_init=10)"].append(
            [KMeans(k, n_init=10, random_state=i).fit(R).inertia_ for k in ks]
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # kmeans2 warns when a cluster empties
            w["kmeans2 (gap-stat's default)"].append(
                [
                    within_dispersion(R, kmeans2(R, int(k), iter=10, minit="points", seed=i)[1])
                    for k in ks
                ]
            )
    w = {name: np.array(v) for name, v in w.items()}
    lowest = np.minimum.reduce(list(w.values()))
    return {name: float(np.mean(v / lowest - 1.0)) for name, v in w.items()}


def main():
    rng = np.random.default_rng(0)
    data = {
        "three clusters 25/50/25, 2-D": _three(rng),
        "null: 200 points uniform in 10-D": rng.uniform(size=(200, 10)),
    }
    peer_version = version("gap-stat")
    rows, choices, ratios = [], [], {}
    for name, X in data.items():
        # gap-stat's scikit-learn fits take seconds a call: timed on the first data set only
        same_fits = name == SAME_FITS_DATA
        for n in thread_settings():
            with limit_threads(n):
                progress(f"gap: {name}, {n} thread(s): ours")
                t_ours = measure(
                    lambda X=X, n=n: gap_statistic(
                        X, None, KS, n_references=B, random_state=0, n_jobs=n
                    )
                )
                if peer_version is None:
                    rows.append((name, n, t_ours, "not installed", "", "not installed", ""))
                    continue
                progress(f"gap: {name}, {n} thread(s): gap-stat, its default kmeans2")
                t_default = measure(
                    lambda X=X, n=n: _peer_k(None, n, X),
                    warmup=0,  # nothing to compile
                )
                t_same, ratio = "not timed", ""
                if same_fits:
                    progress(f"gap: {name}, {n} thread(s): gap-stat with KMeans(n_init=10)")
                    t_same = measure(
                        lambda X=X, n=n: _peer_k(_sk_kmeans, n, X),
                        warmup=0,  # nothing to compile; each call is seconds
                    )
                    ratios[n] = t_same / t_ours
                    ratio = f"**{fmt_ratio(t_same / t_ours)}**"
                rows.append(
                    (name, n, t_ours, t_same, ratio, t_default, fmt_ratio(t_default / t_ours))
                )
        ours = gap_statistic(X, None, KS, n_references=B, random_state=0)
        if peer_version is None:
            peer_k = "not installed"
        else:
            peer_k = f"{_LAST_K[None]} (kmeans2)"
            if same_fits:
                peer_k = f"{_LAST_K[_sk_kmeans]} (KMeans), " + peer_k
        choices.append((name, ours.choose("global-max"), ours.n_clusters, peer_k))

    progress("gap: quality of the fits")
    quality = _fit_quality(data["three clusters 25/50/25, 2-D"], np.random.default_rng(1))
    quality_null = _fit_quality(data["null: 200 points uniform in 10-D"], np.random.default_rng(2))

    out = ["## Gap statistic against gap-stat (`benchmarks/bench_model_selection.py`)"]
    peer = (
        f"gap-stat {peer_version} (`gap_statistic.OptimalK`; its source distribution "
        "needs `wheel` to build, so it installs with `pip install wheel && pip install "
        "--no-build-isolation gap-stat` and is not a dependency)"
        if peer_version
        else "gap-stat (not installed: `pip install wheel && pip install --no-build-isolation "
        "gap-stat`)"
    )
    out.append(
        f"Ours against {peer}: the gap curve for k = 1…{max(KS)} with B = {B} uniform "
        "references on the same data. Ours runs its default k-means: scikit-learn's "
        "`KMeans(n_init=10)` algorithm (greedy k-means++ seeding, Lloyd iterations, best "
        "of 10 starts), compiled. gap-stat is timed with that same scikit-learn "
        "`KMeans(n_init=10)` as its `clusterer` (the same fits) and with its own default, "
        "SciPy's `kmeans2` (one start, 10 iterations). One thread: both serial; all "
        "threads: ours `n_jobs` threads over the references, gap-stat's joblib backend "
        "over the k. Ratios are gap-stat's time over ours. gap-stat with scikit-learn's "
        "k-means takes seconds a call, so it is timed on the three clusters only."
    )
    out.append(
        table(
            (
                "data",
                "threads",
                "ours",
                "gap-stat, `KMeans(n_init=10)`",
                "ratio",
                "gap-stat, its default `kmeans2`",
                "ratio",
            ),
            rows,
        )
    )
    out.append(
        table(
            ("data", "ours, global max", "ours, Tibshirani's rule", "gap-stat (its argmax)"),
            choices,
        )
    )
    out.append(
        "How good the fits are: the mean excess of W_k (k = 2…8) over the lowest W_k any "
        "of the three clusterers found, on the data and on 10 uniform reference sets "
        "(0 % = always the lowest):"
    )
    out.append(
        table(
            ("clusterer", "three clusters", "10-D null"),
            [(c, f"{quality[c]:.2%}", f"{quality_null[c]:.2%}") for c in quality],
        )
    )
    if ratios:
        worst = min(ratios.values())
        verdict = "met" if worst >= TARGET else "not met"
        out.append(
            f"Target: ≥ {TARGET:g}× gap-stat at the same fits, on one thread "
            f"and on all: **{verdict}** ({', '.join(fmt_ratio(r) for r in ratios.values())}). "
            "With the same scikit-learn k-means both sides spend their time in the "
            "k-means fits, each mostly scikit-learn's per-call overhead on data this "
            "small; ours makes the same fits compiled. gap-stat's "
            "default `kmeans2` is cheaper per fit (one start of 10 iterations, no "
            "k-means++), and its fits are worse by the excess above. Passing a "
            "scikit-learn estimator as our `clusterer` runs it as given, and then the "
            "time is that of its fits, as in gap-stat. The second table gives the k each "
            "chose; on the null the global maximum (what gap-stat returns) is noise, and "
            "Tibshirani's 1-SE rule is the one to use (`selection-gap` in the report)."
        )
    else:
        out.append("Target: ≥ 3× gap-stat: not measured, gap-stat is not installed.")
    print("\n\n".join(out))


if __name__ == "__main__":
    main()

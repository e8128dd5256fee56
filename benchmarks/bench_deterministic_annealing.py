"""Deterministic annealing against scikit-learn's KMeans: iteration, whole fit, memory, quality.

Prints its section of ``docs/benchmarks.md`` (run by ``make bench``):

- the marginal cost of one fixed-point iteration (Gibbs assignment and
  centroid update) against one Lloyd iteration, n = 10^5, d = 10, K = 10:
  both run 21 and 1 iterations from the same centres with ``tol=0`` and the
  difference is divided by 20, so that KMeans's per-fit set-up is not
  counted. DA at a low temperature (``T = 1``, nearly hard assignments, where
  most of an anneal's iterations are), at the blobs' scale and high;
- the whole annealed fit to K = 10 against ``KMeans(n_init=10)`` at
  n = 10^6 (blob std 2) and n = 2 10^5 (std 2 and 5), with the inertia each
  reaches, and the peak memory each allocates at n = 10^6 (tracemalloc);
- the default's quality against ``KMeans(n_init=10)`` over ten seeds on
  digits (raw and standardised), iris (raw), wine and breast cancer
  (standardised), overlapping blobs and the whole-fit blobs at n = 2 10^5:
  the mean inertia ratio with its standard error, ARI, and the time of the
  ten fits on one thread and on all.

Run: ``python benchmarks/bench_deterministic_annealing.py`` (``BENCH_REPEAT``
sets the number of timed runs, 5 by default).
"""

import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import (
    load_breast_cancer,
    load_digits,
    load_iris,
    load_wine,
    make_blobs,
)
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, str(Path(__file__).parent))
from _bench import (
    fmt_ratio,
    limit_threads,
    measure,
    peak_memory,
    progress,
    table,
    thread_settings,
    version,
)

from statmechlearn.cluster import DeterministicAnnealing, gibbs_fixed_point
from statmechlearn.cluster._gibbs import _pass

__all__ = ["main"]

D, K = 10, 10
N_ITER, N_FIT = 100_000, 1_000_000


def _blobs(n, std=2.0):
    X, y = make_blobs(n, n_features=D, centers=K, cluster_std=std, random_state=0)
    return X - X.mean(axis=0), y


def _soft_fraction(X, centers, T):
    """Fraction of rows whose second Gibbs term is above e^-40 of their largest (not one-hot)."""
    d2 = ((X[:, None, :] - centers[None]) ** 2).sum(-1) / T
    d2.sort(axis=1)
    return float(np.mean(d2[:, 1] - d2[:, 0] < 40.0))


def _lloyd_step(X, centers, n_threads):
    """One Lloyd iteration by scikit-learn's own kernel (what KMeans runs per iteration)."""
    from sklearn.cluster._k_means_lloyd import lloyd_iter_chunked_dense

    new = np.empty_like(centers)
    lloyd_iter_chunked_dense(
        X,
        np.ones(len(X)),
        centers.copy(),
        new,
        np.zeros(K),
        np.zeros(len(X), dtype=np.int32),
        np.zeros(K),
        n_threads,
    )


def _da_step(X, centers, log_w, T, x_sq):
    """One DA iteration: the Gibbs pass, then the centroid and mass conditions."""
    sums, mass = _pass(X, centers[None], log_w, T, x_sq, with_stats=0)[:2]
    return sums / mass[:, :, None], np.log(mass / len(X))


def _iteration_rows(threads):
    X, _ = _blobs(N_ITER)
    x_sq = np.einsum("ij,ij->i", X, X)
    log_w = np.full((1, K), -np.log(K))
    starts = {
        "random data points": X[np.random.default_rng(0).choice(len(X), K, replace=False)],
        # where an anneal ends: every row hard at T = 1
        "KMeans' fixed point": KMeans(K, n_init=1, random_state=0).fit(X).cluster_centers_,
    }

    def lloyd(centers, n_iter):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            KMeans(K, init=centers, n_init=1, max_iter=n_iter, tol=0, algorithm="lloyd").fit(X)

    def da(centers, n_iter, T):
        gibbs_fixed_point(
            X, centers[None], log_w, T, mass_constrained=True, max_iter=n_iter, tol=0, x_sq=x_sq
        )

    rows, ratios, split, soft = [], [], [], []
    for n in threads:
        with limit_threads(n):
            progress(f"one iteration, {n} thread(s)")
            for start, centers in starts.items():
                if start == "random data points":
                    # marginal cost of 20 iterations from the same start, both moving
                    t_lloyd = (
                        measure(lambda c=centers: lloyd(c, 21)).median
                        - measure(lambda c=centers: lloyd(c, 1)).median
                    ) / 20
                    temperatures = (1.0, 20.0, 200.0)
                    # one step from here at T = 1, against one at the fixed point below: what
                    # the soft rows cost
                    t_soft_step = measure(lambda c=centers: _da_step(X, c, log_w, 1.0, x_sq)).median
                    n_soft = round(_soft_fraction(X, centers, 1.0) * len(X))
                else:
                    # both fits would stop at once at a fixed point: one step each, timed alone
                    t_lloyd = measure(lambda c=centers, n=n: _lloyd_step(X, c, n)).median
                    temperatures = (1.0,)
                for T in temperatures:
                    if start == "random data points":
                        t_da = (
                            measure(lambda c=centers, T=T: da(c, 21, T)).median
                            - measure(lambda c=centers, T=T: da(c, 1, T)).median
                        ) / 20
                    else:
                        t_da = measure(lambda c=centers, T=T: _da_step(X, c, log_w, T, x_sq)).median
                        # the cross terms both steps compute: one BLAS product over all rows,
                        # timed after the step (a threaded product leaves OpenBLAS's threads
                        # spinning, which a fit never meets: it holds BLAS to one thread)
                        t_product = measure(lambda c=centers: X @ c.T).median
                    ratios.append((n, start, T, t_da / t_lloyd))
                    if start != "random data points":
                        split.append((n, t_product, t_da, t_lloyd))
                        soft.append((n, t_soft_step, t_da, n_soft))
                    rows.append(
                        (
                            n,
                            start,
                            f"T = {T:g}",
                            f"{_soft_fraction(X, centers, T):.0%}",
                            f"{t_da * 1e3:.3g} ms",
                            f"{t_lloyd * 1e3:.3g} ms",
                            f"**{fmt_ratio(t_da / t_lloyd)}**",
                        )
                    )
    return rows, ratios, split, soft


#: Whole-fit data sets (n, blob std) and the target ratio to KMeans(n_init=10) on each.
FITS = ((N_FIT, 2.0, 1.0), (200_000, 2.0, 1.5), (200_000, 5.0, 1.5))


def _fit_rows(threads):
    DeterministicAnnealing(K, random_state=0).fit(_blobs(2000)[0])  # load the compiled kernels
    rows, verdicts = [], []
    for n_rows, std, target in FITS:
        X, _ = _blobs(n_rows, std)
        for n in threads:
            fits = {}

            def fit(name, make, X=X, fits=fits):
                fits[name] = make().fit(X)

            with limit_threads(n):
                progress(f"whole fit at n = {n_rows:.0e}, std {std:g}, {n} thread(s)")
                t_da = measure(
                    lambda fit=fit: fit("da", lambda: DeterministicAnnealing(K, random_state=0)),
                    warmup=0,
                )
                t_km = measure(
                    lambda fit=fit: fit("km", lambda: KMeans(K, n_init=10, random_state=0)),
                    warmup=0,
                )
            ratio = t_da / t_km
            da, km = fits["da"], fits["km"]
            quality = da.inertia_ / km.inertia_
            verdicts.append((n_rows, std, n, ratio, target, quality))
            rows.append(
                (
                    f"{n_rows:,}",
                    f"{std:g}",
                    n,
                    f"{t_da} ({da.n_iter_} passes, {len(da.path_.temperature)} temperatures)",
                    str(t_km),
                    f"**{fmt_ratio(ratio)}**",
                    f"≤ {target:g}×",
                    f"{quality:.6f}",
                )
            )
    return rows, verdicts


def _memory_row():
    X, _ = _blobs(N_FIT)
    progress("peak memory")
    da = peak_memory(lambda: DeterministicAnnealing(K, random_state=0).fit(X))[1]
    km = peak_memory(lambda: KMeans(K, n_init=10, random_state=0).fit(X))[1]
    nk = 8 * N_FIT * K
    return (
        da,
        km,
        (
            f"{da / 2**20:.0f} MiB = {da / nk:.2f} n K doubles",
            f"{km / 2**20:.0f} MiB = {km / nk:.2f} n K doubles",
            f"**{fmt_ratio(da / km)}**",
        ),
    )


#: Seeds of the quality comparison: each is DA's random_state and KMeans' own.
SEEDS = range(10)


def _quality_data():
    digits, digit_labels = load_digits(return_X_y=True)
    iris, iris_labels = load_iris(return_X_y=True)
    wine, wine_labels = load_wine(return_X_y=True)
    cancer, cancer_labels = load_breast_cancer(return_X_y=True)
    blobs, blob_labels = make_blobs(2000, centers=8, cluster_std=1.5, random_state=1)
    data = {
        "digits, raw pixels (k = 10)": (digits, digit_labels, 10),
        "digits, standardised (k = 10)": (StandardScaler().fit_transform(digits), digit_labels, 10),
        "iris, raw (k = 3)": (iris, iris_labels, 3),
        "wine, standardised (k = 3)": (StandardScaler().fit_transform(wine), wine_labels, 3),
        "breast cancer, standardised (k = 2)": (
            StandardScaler().fit_transform(cancer),
            cancer_labels,
            2,
        ),
        "blobs, 8 overlapping (k = 8)": (blobs, blob_labels, 8),
    }
    for _, std, _ in FITS[1:]:
        X, y = _blobs(200_000, std)
        data[f"blobs, n = 200,000, d = {D}, std {std:g} (k = {K})"] = (X, y, K)
    return data


def _quality_rows(threads):
    """DA's defaults against KMeans(n_init=10) over SEEDS: inertia, ARI and the time of all fits."""
    rows, times, verdicts = [], [], []
    for name, (X, y, k) in _quality_data().items():
        fits = {}

        def run(kind, make, X=X, fits=fits):
            fits[kind] = [make(seed).fit(X) for seed in SEEDS]

        ratio = {}
        for n in threads:
            # the small sets on one thread over repeated runs; the ten fits once on all
            # threads (each fit's parallel passes are short) and at n = 2e5
            repeat = None if len(X) < 10_000 and n == 1 else 1
            with limit_threads(n):
                progress(f"quality: {name}, {n} thread(s)")
                t_da = measure(
                    lambda run=run, k=k: run(
                        "da", lambda s: DeterministicAnnealing(k, random_state=s)
                    ),
                    repeat=repeat,
                    warmup=0 if repeat == 1 else 1,
                )
                t_km = measure(
                    lambda run=run, k=k: run("km", lambda s: KMeans(k, n_init=10, random_state=s)),
                    repeat=repeat,
                    warmup=0 if repeat == 1 else 1,
                )
            ratio[n] = t_da / t_km
            times.append((name, n, str(t_da), str(t_km), f"**{fmt_ratio(ratio[n])}**"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plain = [
                DeterministicAnnealing(k, relocate=False, random_state=seed).fit(X)
                for seed in SEEDS
            ]
        km_inertia = np.array([km.inertia_ for km in fits["km"]])
        da_ratio = np.array([da.inertia_ for da in fits["da"]]) / km_inertia
        plain_ratio = np.array([p.inertia_ for p in plain]) / km_inertia
        mean, se = da_ratio.mean(), da_ratio.std(ddof=1) / np.sqrt(len(da_ratio))

        def ari(models, y=y):
            return np.mean([adjusted_rand_score(y, m.labels_) for m in models])

        verdicts.append((name, mean, se, ratio))
        rows.append(
            (
                name,
                f"{X.shape[0]:,} × {X.shape[1]}",
                f"**{mean:.5f}** ± {se:.5f}",
                f"{da_ratio.max():.5f}",
                f"{plain_ratio.mean():.5f}",
                f"{ari(fits['da']):.3f}",
                f"{ari(plain):.3f}",
                f"{ari(fits['km']):.3f}",
            )
        )
    return rows, times, verdicts


def main():
    threads = thread_settings()
    iteration, it_ratios, split, soft = _iteration_rows(threads)
    fit, fit_verdicts = _fit_rows(threads)
    mem_da, mem_km, mem_row = _memory_row()
    quality, quality_times, quality_verdicts = _quality_rows(threads)
    low = {
        start: max(r for n, s, T, r in it_ratios if s == start and T == 1.0)
        for start in dict.fromkeys(s for _, s, _, _ in it_ratios)
    }
    print("## Deterministic annealing (`benchmarks/bench_deterministic_annealing.py`)\n")
    print(
        f"Against scikit-learn {version('scikit-learn')} `KMeans`, on `make_blobs` with d = {D} "
        f"and K = {K} centres (std 2 unless said, centred). Per-iteration times are marginal "
        "costs from the same starting centres with `tol=0` ((21 − 1 iterations)/20, so "
        "KMeans's per-fit set-up is not counted).\n"
    )
    print(f"**One iteration**, n = {N_ITER:,}:\n")
    print(
        table(
            (
                "threads",
                "start",
                "DA temperature",
                "soft rows at the start",
                "DA iteration",
                "Lloyd iteration",
                "ratio",
            ),
            iteration,
        )
    )
    verdicts = "; ".join(
        f"from {start}, worst {fmt_ratio(r)} — {'met' if r <= 1.2 else 'not met'}"
        for start, r in low.items()
    )
    print(
        "\nA *soft* row is one whose second Gibbs term is above e^-40 of its largest; every "
        "other row is one-hot exactly and takes Lloyd's path (one product, its row added to "
        "one centroid sum, no exponential). Only the soft rows pay for exponentials and a "
        "second product. From random data points two code vectors often share a blob, whose "
        "rows stay soft at T = 1; at the fixed point an anneal ends on, none are.\n"
    )
    print(f"Target ≤ 1.2× a Lloyd iteration at T = 1: {verdicts}.\n")
    for n, t_product, t_da, t_lloyd in split:
        print(
            f"- Where the step at KMeans' fixed point goes, {n} thread(s): the cross terms "
            f"X·Yᵀ alone (one BLAS product over all rows) take {t_product * 1e3:.3g} ms; "
            f"beyond them our step spends {(t_da - t_product) * 1e3:.3g} ms (logits and each "
            f"row's two largest, the hard rows' centroid sums, the per-block products and "
            f"threads) against Lloyd's {(t_lloyd - t_product) * 1e3:.3g} ms (distances, "
            "argmin and centroid sums, in chunks)."
        )
    for n, t_soft, t_hard, n_soft in soft:
        print(
            f"- Where the step from random data points goes, {n} thread(s): one step at the "
            f"random start (T = 1, {n_soft:,} soft rows) takes {t_soft * 1e3:.3g} ms against "
            f"{t_hard * 1e3:.3g} ms at KMeans' fixed point (none): "
            f"{(t_soft - t_hard) / max(n_soft, 1) * 1e9:.3g} ns more per soft row, its K "
            f"exponentials, normalisation and share of the second product. The marginal "
            "iteration of the fixed-point loop above also moves the centres and their masses "
            "and tests convergence."
        )
    print()
    print(f"**Whole fit** to K = {K} against KMeans with `n_init=10`:\n")
    print(
        table(
            ("n", "blob std", "threads", "DA", "KMeans", "ratio", "target", "inertia DA / KMeans"),
            fit,
        )
    )
    print(
        "\nTarget: one annealing path costs no more than KMeans' ten restarts at n = 10⁶ and "
        "at most 1.5× at n = 2·10⁵, at no more than KMeans' inertia."
    )
    for n_rows, std, n, ratio, target, inertia in fit_verdicts:
        met = ratio <= target and inertia <= 1.0 + 1e-6
        print(
            f"\n- n = {n_rows:,}, std {std:g}, {n} thread(s): {fmt_ratio(ratio)} at inertia "
            f"ratio {inertia:.6f} — {'met' if met else 'not met'}."
        )
    print()
    print(
        f"**Peak memory** of one fit, n = {N_FIT:,} (tracemalloc; X itself is "
        f"{8 * N_FIT * D / 2**20:.0f} MiB and is not counted):\n"
    )
    print(table(("DA", "KMeans", "ratio"), [mem_row]))
    print(
        f"\nTarget ≤ 1.2× KMeans: {fmt_ratio(mem_da / mem_km)} — "
        f"{'met' if mem_da <= 1.2 * mem_km else 'not met'}.\n"
    )
    print(
        f"**Quality of the defaults** against `KMeans(n_init=10)`, seeds {SEEDS.start}–"
        f"{SEEDS.stop - 1} (each the `random_state` of both): the inertia ratio is the mean "
        "over the seeds ± its standard error, with the worst seed; `relocate=False` is "
        "the annealed path without the split-and-merge and swap moves at the final "
        "temperature; ARI against the data's own labels, mean over the seeds:\n"
    )
    print(
        table(
            (
                "data",
                "n × d",
                "inertia DA / KMeans",
                "worst seed",
                "same, `relocate=False`",
                "ARI DA",
                "ARI `relocate=False`",
                "ARI KMeans",
            ),
            quality,
        )
    )
    print(
        f"\n**Time of the same fits**: all {len(SEEDS)} seeds one after the other (the "
        "sets below n = 10⁴ on one thread timed over repeated runs, the others once):\n"
    )
    print(table(("data", "threads", "DA", "KMeans", "ratio"), quality_times))
    print(
        "\nTarget: DA's inertia at most KMeans' (mean over the seeds) on every set, in no "
        "more than KMeans' time on one thread."
    )
    for name, mean, se, ratio in quality_verdicts:
        met_inertia = mean <= 1.0 + 1e-9
        met_time = ratio[1] <= 1.0 if 1 in ratio else None
        print(
            f"\n- {name}: inertia ratio {mean:.5f} ± {se:.5f} — "
            f"{'met' if met_inertia else 'not met'}; time ratio on one thread "
            f"{fmt_ratio(ratio[1]) if 1 in ratio else 'not measured'} — "
            f"{'met' if met_time else 'not met'}."
        )


if __name__ == "__main__":
    main()

"""Maximum-entropy clustering: the information bottleneck against dit, and kernel costs.

Run: ``python benchmarks/bench_maxent_clustering.py`` (markdown on stdout). On one
thread and on all threads:

- the information bottleneck of the issue's 5-point joint up to beta = 10:
  ours (annealed, one path) against dit's ``IBCurve`` (a grid of beta, each
  optimised with restarts);
- the cost of one fixed-point iteration of histogram clustering against
  n * m * K (BLAS products), and of one asynchronous mean-field sweep of
  correlation clustering against one synchronous BLAS product.

(TopologicalVQ against MiniSom is in ``bench_som.py``, PairwiseClustering
against SpectralClustering in ``bench_pairwise.py``.)
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _bench import fmt_ratio, limit_threads, measure, progress, table, thread_settings, version

from statmechlearn.cluster import InformationBottleneck
from statmechlearn.cluster._distributional import _KLClustering
from statmechlearn.cluster._maxent import gibbs_assignments
from statmechlearn.cluster._mean_field import async_sweep

DIT_BETAS = 11  # dit's default is 101; its time grows with the number of beta
HIST_SIZES = ((2000, 64, 8), (8000, 64, 8), (8000, 256, 8), (8000, 256, 32))
SWEEP_SIZES = ((1000, 8), (3000, 8))


def ib_vs_dit(n):
    J = np.zeros((3, 3))
    for a, b in [(0, 0), (0, 2), (1, 2), (2, 1), (2, 2)]:
        J[a, b] = 0.2
    ours = measure(lambda: InformationBottleneck(min_temperature=0.1, random_state=0).fit(J))
    if version("dit") is None:
        return (n, ours, "not installed", "")
    import dit
    from dit.rate_distortion import IBCurve

    dist = dit.Distribution(["00", "02", "12", "21", "22"], [0.2] * 5)
    peer = measure(lambda: IBCurve(dist, beta_max=10, beta_num=DIT_BETAS), warmup=0)
    return (n, ours, peer, f"**{fmt_ratio(peer / ours)}** faster")


def histogram_iteration(n_threads):
    rng = np.random.default_rng(0)
    rows, per = [], []
    for n, m, K in HIST_SIZES:
        cond = rng.dirichlet(np.ones(m), size=n)
        model = _KLClustering(cond, np.full(n, 1 / n), mass_constrained=True)
        P = rng.dirichlet(np.ones(K), size=n)

        def step(model=model, P=P):
            h, log_w = model.field(P)
            gibbs_assignments(h, 1.0, log_w)

        t = measure(step)
        per.append(t.median / (n * m * K) * 1e9)
        rows.append((f"n = {n}, m = {m}, K = {K}", n_threads, t, f"{per[-1]:.3g} ns"))
    return rows, per


def async_vs_sync(n_threads):
    rng = np.random.default_rng(0)
    rows, ratios = [], []
    for n, K in SWEEP_SIZES:
        J = rng.standard_normal((n, n))
        J = J + J.T
        np.fill_diagonal(J, 0.0)
        P = rng.dirichlet(np.ones(K), size=n)
        async_sweep(J, P, 1.0)  # compile
        t_async = measure(lambda J=J, P=P: async_sweep(J, P, 1.0))
        t_sync = measure(lambda J=J, P=P: J @ P)
        ratios.append(t_async / t_sync)
        rows.append((f"n = {n}, K = {K}", n_threads, t_async, t_sync, fmt_ratio(ratios[-1])))
    return rows, ratios


def main():
    ib_rows, hist_rows, sweep_rows, per, ratios = [], [], [], [], {}
    for n in thread_settings():
        with limit_threads(n):
            progress(f"maxent: information bottleneck, {n} thread(s)")
            ib_rows.append(ib_vs_dit(n))
            progress(f"maxent: histogram clustering, {n} thread(s)")
            rows, p = histogram_iteration(n)
            hist_rows += rows
            if n == 1:
                per = p
            progress(f"maxent: correlation clustering, {n} thread(s)")
            rows, r = async_vs_sync(n)
            sweep_rows += rows
            ratios[n] = r
    dit_version = version("dit")
    sizes = [n * m * K for n, m, K in HIST_SIZES]
    size_span = max(sizes) / min(sizes)
    peer = f"dit {dit_version}" if dit_version else "dit (not installed)"
    r1, r_all = ratios[1], ratios[max(ratios)]
    if max(ratios) == 1:
        threads_note = ""
    elif r_all[-1] > r1[-1]:
        threads_note = (
            f" The sweep is serial, so on {max(ratios)} threads only the BLAS product gains "
            f"and the ratio at n = {SWEEP_SIZES[-1][0]} grows to {fmt_ratio(r_all[-1])}."
        )
    else:
        threads_note = (
            f" The sweep is serial; on {max(ratios)} threads the ratio at "
            f"n = {SWEEP_SIZES[-1][0]} is {fmt_ratio(r_all[-1])}."
        )
    print(
        "\n\n".join(
            [
                "## Maximum-entropy clustering (`benchmarks/bench_maxent_clustering.py`)",
                "The information bottleneck of the issue's 5-point joint p(x, y) up to "
                "β = 10: `InformationBottleneck` follows one annealed path from high "
                f"temperature down; {peer} `IBCurve` optimises each β of a grid from "
                f"restarts, here {DIT_BETAS} β (its default is 101, and its time grows "
                "with their number).",
                table(("threads", "`InformationBottleneck`", "dit `IBCurve`", "ratio"), ib_rows),
                "Cost per fixed-point iteration of histogram clustering (two BLAS products "
                "and the Gibbs step), against n·m·K:",
                table(("size", "threads", "one iteration", "per n·m·K"), hist_rows),
                f"On one thread {min(per):.3g}–{max(per):.3g} ns per n·m·K (a factor "
                f"{max(per) / min(per):.2g} between the extremes) over sizes whose n·m·K "
                f"spans a factor {size_span:.3g}. "
                "One asynchronous mean-field sweep of correlation clustering (numba, "
                "O(n²K), one object at a time) against one synchronous BLAS product `J @ P`:",
                table(("size", "threads", "asynchronous sweep", "`J @ P`", "ratio"), sweep_rows),
                f"On one thread the sweep costs {fmt_ratio(r1[0])} the product at "
                f"n = {SWEEP_SIZES[0][0]} and {fmt_ratio(r1[-1])} at n = {SWEEP_SIZES[-1][0]}: "
                "the price of updates that never oscillate (synchronous sweeps of signed "
                "couplings cycle forever, see `tests/cluster/test_quadratic.py`)." + threads_note,
            ]
        )
    )


if __name__ == "__main__":
    main()

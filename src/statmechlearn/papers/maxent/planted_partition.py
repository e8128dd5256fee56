"""``maxent-planted-partition``: correlation clustering and graph partitioning (notes §5.2).

Stochastic block model graphs (two blocks, mean degree fixed) clustered by
shifted correlation clustering, graph partitioning and normalised graph
partitioning (:class:`~statmechlearn.cluster.CorrelationClustering`) and by
scikit-learn's spectral clustering: ARI against the planted blocks as a
function of the signal-to-noise ratio, and the normalised cost's advantage
on unequal blocks.
"""

import math
import warnings

import numpy as np

from statmechlearn.experiments import (
    Derived,
    FigureSpec,
    Measurement,
    mean_se,
    measure,
    plot_simulation,
    subplots,
)
from statmechlearn.papers.maxent._common import CITATION, PAPER
from statmechlearn.papers.maxent._pairwise import _runs

__all__ = ["PLANTED_PARTITION", "stochastic_block_model"]


_SNR = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)


_BALANCE = {"equal": 0.5, "unequal": 0.75}


_GRAPH_METHODS = (
    "correlation (shifted)",
    "graph partitioning",
    "normalized graph partitioning",
    "spectral (scikit-learn)",
)


def stochastic_block_model(rng, sizes, mean_degree, snr):
    """Adjacency matrix of a two-or-more block SBM at a given signal-to-noise ratio.

    Edge probabilities ``a / n`` within and ``b / n`` between blocks, with
    ``a + (k - 1) b = k c`` (mean degree ``c`` for equal blocks) and
    ``SNR = (a - b)^2 / (k (a + (k - 1) b))`` (Decelle et al. 2011; the
    Kesten–Stigum threshold of sparse equal blocks is SNR = 1).

    Parameters
    ----------
    rng : numpy.random.Generator
    sizes : sequence of int
        Block sizes (at least two blocks).
    mean_degree : float
        ``c > 0``.
    snr : float
        ``>= 0``; ``b`` must stay non-negative and ``a <= n``.

    Returns
    -------
    A : ndarray of shape (n, n)
        Symmetric 0/1 adjacency, zero diagonal.
    labels : ndarray of shape (n,)
    """
    k, n = len(sizes), int(sum(sizes))
    if k < 2:
        raise ValueError(f"sizes must name at least 2 blocks, got {k}")
    if not (math.isfinite(mean_degree) and mean_degree > 0):
        raise ValueError(f"mean_degree must be finite and > 0, got {mean_degree}")
    if not (math.isfinite(snr) and snr >= 0):
        raise ValueError(f"snr must be finite and >= 0, got {snr}")
    gap = math.sqrt(snr * k * k * mean_degree)  # a - b
    a, b = mean_degree + (k - 1) * gap / k, mean_degree - gap / k
    if b < 0 or a > n:
        raise ValueError(
            f"snr={snr} at mean_degree={mean_degree} needs a = {a:.3g} <= n = {n} and "
            f"b = {b:.3g} >= 0"
        )
    labels = np.repeat(np.arange(k), sizes)
    p = np.where(labels[:, None] == labels[None, :], a / n, b / n)
    upper = np.triu(rng.random((n, n)) < p, 1)
    return (upper | upper.T).astype(float), labels


def _planted_seeds(point, settings):
    """Quick mode runs the points its checks read (and a few between); full mode all."""
    plan = settings.get("seed_plan")
    if plan is None:
        return settings["n_seeds"]
    return min(plan.get(f"{point['balance']}@{point['snr']:g}", 0), settings["n_seeds"])


def _planted_simulation(point, settings, rng):
    from sklearn.cluster import SpectralClustering
    from sklearn.metrics import adjusted_rand_score

    from statmechlearn.cluster import CorrelationClustering

    n = settings["n_nodes"]
    first = round(n * _BALANCE[point["balance"]])
    A, y = stochastic_block_model(rng, (first, n - first), settings["mean_degree"], point["snr"])
    seed = int(rng.integers(2**31 - 1))
    D = 1.0 - A
    np.fill_diagonal(D, 0.0)
    density = A.sum() / (n * (n - 1))
    # +1 edge / -1 non-edge counted relative to the graph's own density: the shifted cost
    # is then -sum_{i<j in nu} (A_ij - density), modularity with an Erdős–Rényi null model.
    runs = [
        (2.0 * A - 1.0, {"cost": "shifted_correlation", "threshold": 2.0 * density - 1.0}),
        (D, {"cost": "graph_partitioning"}),
        (D, {"cost": "normalized_graph_partitioning"}),
    ]
    ari = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for X, kw in runs:
            labels = CorrelationClustering(2, random_state=seed, **kw).fit(X).labels_
            ari.append(adjusted_rand_score(y, labels))
        sc = SpectralClustering(2, affinity="precomputed", random_state=seed).fit(A)
    ari.append(adjusted_rand_score(y, sc.labels_))
    return {"sim_ari": np.array(ari)}


def _plot_planted(ds, ax=None):
    _, ax = subplots(ax, 1, 2, figsize=(10, 4.2))
    for a, balance in zip(ax, ds["balance"].values, strict=True):
        sub = ds.sel(balance=balance)
        for j, method in enumerate(ds["graph_method"].values):
            mean, se = mean_se(sub["sim_ari"].sel(graph_method=method).where(sub["sim_done"]))
            x = sub["snr"].values * (1.0 + 0.04 * (j - 1.5))  # side by side
            plot_simulation(a, x, mean, se, color=f"C{j}", label=str(method))
        a.axvline(1.0, color="0.5", ls=":", lw=1.0, gid="guide", label="SNR = 1 (sparse KS)")
        a.axhline(0.0, color="0.7", lw=0.8)
        a.set_xscale("log")
        a.set_xlabel("SNR = (a − b)² / (k (a + (k − 1) b))")
        a.set_ylabel("ARI vs planted blocks (mean ± SE)")
        share = _BALANCE[str(balance)]
        a.set_title(f"blocks {share:.0%} / {1 - share:.0%} of the nodes", fontsize=9)
    ax[0].legend(fontsize=7)
    return ax


def _planted_checks(settings):
    def worst(balance, snr, method):
        point = {"balance": balance, "snr": snr}

        def compute(ds):
            a = _runs(ds, "sim_ari", point, graph_method=method)
            return Measurement(float(a.min()) if a.size else math.nan, None, a.size)

        return compute

    def mean(balance, snr, method):
        point = {"balance": balance, "snr": snr}
        return lambda ds: measure(_runs(ds, "sim_ari", point, graph_method=method))

    def gap(ds):
        point = {"balance": "unequal", "snr": _SNR[-1]}
        a = _runs(ds, "sim_ari", point, graph_method="normalized graph partitioning")
        b = _runs(ds, "sim_ari", point, graph_method="graph partitioning")
        return measure(a - b)

    checks = []
    for method in _GRAPH_METHODS:
        checks.append(
            Derived(
                f"{method}: ARI at SNR = {_SNR[-1]:g}, equal blocks, worst seed (≥ 0.95)",
                worst("equal", _SNR[-1], method),
                lower=0.95,
                source="simulation",
            )
        )
    for method in _GRAPH_METHODS:
        checks.append(
            Derived(
                f"{method}: ARI at SNR = {_SNR[0]:g}, equal blocks (chance: 0)",
                mean("equal", _SNR[0], method),
                target=0.0,
                target_from="chance (ARI of independent labels)",
                scale=1.0,
                source="simulation",
            )
        )
    checks.append(
        Derived(
            f"ARI normalised − un-normalised graph partitioning, blocks 75 % / 25 %, "
            f"SNR = {_SNR[-1]:g}, paired (> 0: the normalisation removes the balance bias)",
            gap,
            lower=0.0,
            scale=1.0,
            source="simulation",
        )
    )
    checks.append(
        Derived(
            f"ARI shifted correlation, blocks 75 % / 25 %, SNR = {_SNR[-1]:g}",
            mean("unequal", _SNR[-1], "correlation (shifted)"),
            source="simulation",
            reported=True,
        )
    )
    return checks


#: Quick mode: seeds per (balance, snr); the points the checks read get enough of them.
_QUICK_PLAN = {
    "equal@0.25": 12,
    "equal@1": 2,
    "equal@4": 2,
    "equal@16": 5,
    "unequal@16": 8,
}


PLANTED_PARTITION = FigureSpec(
    name="maxent-planted-partition",
    paper=PAPER,
    citation=CITATION,
    figure="§5.2: correlation clustering and graph partitioning",
    caption=(
        "Two-block stochastic block model graphs (n = 120 nodes, mean degree 24, edge "
        "probabilities a/n within and b/n between blocks) clustered into two groups: shifted "
        "correlation clustering of S = +1 (edge) / −1 (no edge) counted relative to the "
        "graph's density, graph partitioning and normalised graph partitioning of D = 1 − A "
        "(CorrelationClustering, mean-field annealing) and spectral clustering of A "
        "(scikit-learn). ARI against the planted blocks (mean ± SE over graphs) vs SNR = "
        "(a − b)²/(k(a + (k − 1)b)); the dotted line is the sparse-graph Kesten–Stigum "
        "threshold SNR = 1, a guide only. Left: equal blocks. Right: blocks of 90 and 30 "
        "nodes; un-normalised graph partitioning, whose cost Σ_ν C(n_ν, 2) − E_in prefers equal "
        "sizes, cuts the large block, the normalised cost (n − k)/2 − Σ_ν E_ν/n_ν does not. "
        "Quick mode runs only the points its checks read."
    ),
    grid={"balance": tuple(_BALANCE), "snr": _SNR},
    settings={
        "quick": {"n_seeds": 12, "n_nodes": 120, "mean_degree": 24.0, "seed_plan": _QUICK_PLAN},
        "full": {"n_seeds": 20, "n_nodes": 120, "mean_degree": 24.0},
    },
    outputs={"sim_ari": ("graph_method",)},
    coords=lambda s: {"graph_method": np.array(_GRAPH_METHODS)},
    simulation=_planted_simulation,
    seeds=_planted_seeds,
    plot=_plot_planted,
    checks=_planted_checks,
    base_seed=20261202,
)

"""The library's SOM and pairwise clustering against the peers a user would pick
(MiniSom, scikit-learn's spectral clustering).
"""

import math
import time
import warnings

import numpy as np

from statmechlearn.experiments import (
    Derived,
    FigureSpec,
    measure,
    subplots,
)
from statmechlearn.papers.maxent._common import CITATION, PAPER

__all__ = ["PEERS"]


_SOM_METRICS = ("quantization error", "topographic error", "seconds")


_PAIR_METRICS = ("ARI vs truth", "seconds")


_PEERS_SOM = ("TopologicalVQ", "MiniSom")


_PEERS_PAIR = ("PairwiseClustering", "SpectralClustering")


def _peers_simulation(point, settings, rng):
    from sklearn.cluster import SpectralClustering
    from sklearn.datasets import make_blobs
    from sklearn.metrics import adjusted_rand_score

    from statmechlearn.cluster import (
        PairwiseClustering,
        TopologicalVQ,
        quantization_error,
        topographic_error,
    )

    seed = int(rng.integers(2**31 - 1))
    side = settings["grid_side"]
    X = rng.uniform(0, 1, (settings["n_som"], 2))
    start = time.perf_counter()
    # the default cooling (0.9) leaves a kink in ~2 % of maps (3 of 150); 0.95 in none of 150
    som = TopologicalVQ((side, side), sigma=0.5, cooling_rate=0.95, random_state=seed).fit(X)
    ours_s = time.perf_counter() - start
    codebook = som.cluster_centers_
    som_rows = [
        [quantization_error(X, codebook), topographic_error(X, codebook, (side, side)), ours_s]
    ]
    try:
        from minisom import MiniSom
    except ImportError:  # pragma: no cover - minisom is a dev dependency
        som_rows.append([math.nan] * 3)
    else:
        start = time.perf_counter()
        peer = MiniSom(side, side, 2, sigma=1.0, learning_rate=0.5, random_seed=seed % 2**31)
        peer.random_weights_init(X)
        peer.train(X, 10 * settings["n_som"])
        som_rows.append(
            [peer.quantization_error(X), peer.topographic_error(X), time.perf_counter() - start]
        )
    Xb, y = make_blobs(n_samples=settings["n_blobs"], centers=4, cluster_std=1.0, random_state=seed)
    D = ((Xb[:, None, :] - Xb[None, :, :]) ** 2).sum(-1)
    S = np.exp(-D / np.median(D))  # the same relations, as an affinity
    start = time.perf_counter()
    pc = PairwiseClustering(4, random_state=seed).fit(D)
    pc_s = time.perf_counter() - start
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sc = SpectralClustering(4, affinity="precomputed", random_state=seed).fit(S)
    sc_s = time.perf_counter() - start
    return {
        "sim_som": np.array(som_rows),
        "sim_pairwise": np.array(
            [[adjusted_rand_score(y, pc.labels_), pc_s], [adjusted_rand_score(y, sc.labels_), sc_s]]
        ),
    }


def _plot_peers(ds, ax=None):
    _, ax = subplots(ax, 1, 2, figsize=(10, 4.2))
    sel = ds.isel(n_som=0).where(ds["sim_done"].isel(n_som=0))
    som = sel["sim_som"]
    for j, peer in enumerate(ds["som_method"].values):
        s = som.sel({"som_method": peer})
        ax[0].scatter(
            s.sel({"som_metric": "quantization error"}),
            s.sel({"som_metric": "topographic error"}),
            color=f"C{j}",
            label=str(peer),
        )
    ax[0].set_xlabel("quantisation error (mean distance to the winner)")
    ax[0].set_ylabel("topographic error")
    ax[0].legend(fontsize=8)
    ax[0].set_title("uniform square, 5 × 5 map, one point per seed", fontsize=9)
    pair = sel["sim_pairwise"].sel({"pair_metric": "ARI vs truth"})
    a = pair.sel({"pair_method": "PairwiseClustering"})
    b = pair.sel({"pair_method": "SpectralClustering"})
    ax[1].scatter(b, a, color="C2")
    ax[1].plot([0, 1], [0, 1], "k:", lw=0.8)
    ax[1].set_xlabel("SpectralClustering (affinity exp(−D / median D)), ARI")
    ax[1].set_ylabel("PairwiseClustering (D), ARI")
    ax[1].set_title("four Gaussian blobs, one point per seed", fontsize=9)
    return ax


def _peers_checks(settings):
    def seeds(ds, var, **sel):
        v = ds[var].sel(sel).isel(n_som=0)
        return v.values[ds["sim_done"].isel(n_som=0).values.astype(bool)]

    def qe_ratio(ds):
        q = {
            m: seeds(ds, "sim_som", som_method=m, som_metric="quantization error")
            for m in _PEERS_SOM
        }
        return measure(q["TopologicalVQ"] / q["MiniSom"])

    def ari(ds, method):
        return seeds(ds, "sim_pairwise", pair_method=method, pair_metric="ARI vs truth")

    return [
        # Annealing unfolds the map from the collapsed state: no twisted maps.
        Derived(
            "TopologicalVQ topographic error, worst seed (no twisted map)",
            lambda ds: (
                float(
                    np.max(
                        seeds(
                            ds,
                            "sim_som",
                            som_method="TopologicalVQ",
                            som_metric="topographic error",
                        )
                    )
                ),
                None,
            ),
            upper=0.01,
            source="simulation",
            smoke=True,
            note="zero twisted maps in n runs bounds their rate only to 1 − (3·10⁻⁵)^(1/n)",
        ),
        Derived(
            "MiniSom topographic error, mean ± SE",
            lambda ds: measure(
                seeds(ds, "sim_som", som_method="MiniSom", som_metric="topographic error")
            ),
            source="simulation",
            reported=True,
            requires=("minisom",),
        ),
        Derived(
            "quantisation error TopologicalVQ / MiniSom, mean ± SE",
            qe_ratio,
            source="simulation",
            reported=True,
            requires=("minisom",),
        ),
        Derived(
            "ARI pairwise − spectral on the same distances, paired (not worse than −0.05)",
            lambda ds: measure(ari(ds, "PairwiseClustering") - ari(ds, "SpectralClustering")),
            lower=-0.05,
            scale=lambda ds: float(np.mean(ari(ds, "SpectralClustering"))),
            source="simulation",
        ),
    ]


PEERS = FigureSpec(
    name="maxent-peers",
    paper=PAPER,
    citation=CITATION,
    figure="§3.5, §5.4: against the usual tools",
    caption=(
        "Left: soft topographic VQ (fixed neighbourhood σ = 0.5, annealed with cooling "
        "rate 0.95) against "
        "MiniSom (on-line, σ = 1 shrinking, 10 passes' worth of steps) on uniform points "
        "in the square, 5 × 5 maps: quantisation error (mean distance to the winning "
        "unit) and topographic error (share of points whose two nearest units are not "
        "grid neighbours). Annealing slowly enough leaves no twisted maps (at the "
        "default cooling 0.9, 3 of 150 maps kept a kink); the fixed neighbourhood "
        "costs a few per cent of quantisation error. Right: pairwise clustering of "
        "squared distances against spectral clustering of the affinity exp(−D / median "
        "D) built from the same distances, four Gaussian blobs."
    ),
    grid={"n_som": (1000,)},
    settings={
        "quick": {"n_seeds": 12, "n_som": 1000, "grid_side": 5, "n_blobs": 300},
        "full": {"n_seeds": 30, "n_som": 1000, "grid_side": 5, "n_blobs": 300},
    },
    outputs={
        "sim_som": ("som_method", "som_metric"),
        "sim_pairwise": ("pair_method", "pair_metric"),
    },
    coords=lambda s: {
        "som_method": np.array(_PEERS_SOM),
        "som_metric": np.array(_SOM_METRICS),
        "pair_method": np.array(_PEERS_PAIR),
        "pair_metric": np.array(_PAIR_METRICS),
    },
    simulation=_peers_simulation,
    peers=("minisom",),
    plot=_plot_peers,
    checks=_peers_checks,
    base_seed=20261125,
)

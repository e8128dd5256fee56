"""``maxent-constant-shift``: constant shift embedding of pairwise data (lecture notes §9.10).

:class:`~statmechlearn.cluster.ConstantShiftEmbedding` of squared Euclidean
distances (the embedding reproduces them, no shift) and of non-Euclidean
dissimilarities (the same plus symmetric noise): negative eigenvalues before
and none after the shift, the pairwise cost changed by exactly
``shift (n - k) / 2``, and the partitions found on ``D``, on the shifted
``D`` and by k-means on the embedding compared.
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
from statmechlearn.papers.maxent._pairwise import _pooled, _runs
from statmechlearn.papers.shared import matched_accuracy

__all__ = ["CONSTANT_SHIFT"]


_CS_NOISE = (0.0, 0.25, 0.5, 1.0)


_CS_PARTITIONS = ("pairwise on D", "pairwise on shifted D", "k-means on embedding")


def _blobs(rng, n_per, k=3, d=5, separation=4.0):
    centres = separation * rng.standard_normal((k, d)) / math.sqrt(2.0)
    y = np.repeat(np.arange(k), n_per)
    return centres[y] + rng.standard_normal((y.size, d)), y


def _constant_shift_simulation(point, settings, rng):
    from scipy.spatial.distance import pdist, squareform
    from sklearn.cluster import KMeans

    from statmechlearn.cluster import ConstantShiftEmbedding, PairwiseClustering, pairwise_cost

    X, y = _blobs(rng, settings["n_per"])
    n, k = X.shape[0], 3
    D = squareform(pdist(X, "sqeuclidean"))
    if point["noise"] > 0:
        # symmetric, non-negative, zero diagonal: still a dissimilarity, no longer Euclidean
        noise = np.triu(rng.uniform(0.0, point["noise"] * D.mean(), (n, n)), 1)
        D = D + noise + noise.T
    seed = int(rng.integers(2**31 - 1))
    cse = ConstantShiftEmbedding().fit(D)
    shifted = cse.shifted_dissimilarity_
    Y = cse.embedding_
    # the embedding's own squared distances, computed from the vectors (not from S~)
    recon = squareform(pdist(Y, "sqeuclidean"))
    target = D + cse.shift_ * (1.0 - np.eye(n))
    centred = D - D.mean(axis=0) - D.mean(axis=1)[:, None] + D.mean()
    before = np.linalg.eigvalsh(-0.5 * centred)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels = [
            PairwiseClustering(k, random_state=seed).fit(D).labels_,
            PairwiseClustering(k, random_state=seed).fit(shifted).labels_,
            KMeans(k, n_init=10, random_state=seed).fit(Y).labels_,
        ]
    # Closed forms: the cost of any partition grows by shift (n - k_l) / 2, and for the
    # shifted D it is the k-means cost of the embedding.
    identity, kmeans_identity = [], []
    for lab in (*labels, y):
        k_l = np.unique(lab).size
        diff = pairwise_cost(shifted, lab) - pairwise_cost(D, lab)
        expected = cse.shift_ * (n - k_l) / 2.0
        identity.append(abs(diff - expected) / max(pairwise_cost(shifted, lab), 1e-300))
        inertia = sum(
            float(np.sum((Y[lab == c] - Y[lab == c].mean(axis=0)) ** 2)) for c in np.unique(lab)
        )
        kmeans_identity.append(abs(inertia - pairwise_cost(shifted, lab)) / inertia)
    return {
        "sim_shift": np.array(cse.shift_ / D.mean()),
        "sim_embedding_error": np.array(np.max(np.abs(recon - target)) / target.max()),
        "sim_min_eig_before": np.array(before[0] / before[-1]),
        "sim_min_eig_after": np.array(cse.eigenvalues_.min() / cse.eigenvalues_.max()),
        "sim_cost_identity": np.array(max(identity)),
        "sim_kmeans_identity": np.array(max(kmeans_identity)),
        "sim_truth_accuracy": np.array([matched_accuracy(y, lab) for lab in labels]),
        "sim_agreement": np.array(
            [matched_accuracy(labels[0], labels[1]), matched_accuracy(labels[0], labels[2])]
        ),
        "sim_spectrum_before": np.sort(before)[::-1][: settings["n_eig"]] / before[-1],
        "sim_spectrum_after": cse.eigenvalues_[: settings["n_eig"]] / cse.eigenvalues_[0],
    }


def _plot_constant_shift(ds, ax=None):
    _, ax = subplots(ax, 1, 2, figsize=(10, 4.2))
    rank = ds["eig_rank"].values + 1
    first = ds.isel(seed=0)
    for j, noise in enumerate(ds["noise"].values):
        s = first.sel(noise=noise)
        ax[0].plot(
            rank,
            s["sim_spectrum_before"],
            f"C{j}o",
            ms=3,
            mfc="none",
            label=f"noise {noise:g}: before",
        )
        ax[0].plot(rank, s["sim_spectrum_after"], f"C{j}.", ms=4, label="after shift")
    ax[0].axhline(0.0, color="k", lw=0.8)
    ax[0].set_xlabel("eigenvalue rank")
    ax[0].set_ylabel("eigenvalue of −QDQ/2 / the largest")
    ax[0].set_title("one data set per noise level", fontsize=9)
    ax[0].legend(fontsize=6, ncol=2)
    x = ds["noise"].values
    pairs = ("pairwise D vs shifted D", "pairwise D vs k-means on embedding")
    for j, pair in enumerate(ds["pair"].values):
        mean, se = mean_se(ds["sim_agreement"].sel(pair=pair).where(ds["sim_done"]))
        plot_simulation(ax[1], x + 0.01 * j, mean, se, color=f"C{j + 4}", label=pairs[j])
    mean, se = mean_se(
        ds["sim_truth_accuracy"].sel(partition=_CS_PARTITIONS[0]).where(ds["sim_done"])
    )
    plot_simulation(ax[1], x - 0.01, mean, se, color="k", marker="s", label="pairwise D vs truth")
    ax[1].set_xlabel("noise (uniform, × mean D)")
    ax[1].set_ylabel("agreement of partitions, mean ± SE\n(best label matching)")
    ax[1].legend(fontsize=8)
    return ax


def _constant_shift_checks(settings):
    def at(noise, var, agg):
        def compute(ds):
            v = _runs(ds, var, {"noise": noise})
            return Measurement(float(getattr(np, agg)(v)) if v.size else math.nan, None, v.size)

        return compute

    def pooled(var, agg, noisy=False):
        def compute(ds):
            sub = ds.sel(noise=ds["noise"] > 0) if noisy else ds
            v = _pooled(sub, var)
            return Measurement(float(getattr(np, agg)(v)) if v.size else math.nan, None, v.size)

        return compute

    def agreement(pair):
        def compute(ds):
            return measure(_pooled(ds, "sim_agreement", pair=pair))

        return compute

    return [
        Derived(
            "metric input: max |‖y_i − y_j‖² − D_ij| / max D, worst seed",
            at(0.0, "sim_embedding_error", "max"),
            upper=1e-10,
            source="simulation",
        ),
        Derived(
            "metric input: shift / mean D, worst seed (0 for squared Euclidean D)",
            at(0.0, "sim_shift", "max"),
            upper=1e-10,
            source="simulation",
        ),
        Derived(
            "non-metric input: max |‖y_i − y_j‖² − D~_ij| / max D~, worst seed",
            pooled("sim_embedding_error", "max", noisy=True),
            upper=1e-10,
            source="simulation",
        ),
        Derived(
            "non-metric input: smallest eigenvalue of −QDQ/2 / largest, before the shift "
            "(largest over runs; < 0: not Euclidean)",
            pooled("sim_min_eig_before", "max", noisy=True),
            upper=-1e-3,
            source="simulation",
        ),
        Derived(
            "smallest eigenvalue of S~ / largest, after the shift (smallest over runs)",
            pooled("sim_min_eig_after", "min"),
            lower=-1e-12,
            source="simulation",
        ),
        Derived(
            "|R(D~) − R(D) − shift (n − k)/2| / R(D~), largest over partitions and runs",
            pooled("sim_cost_identity", "max"),
            upper=1e-10,
            source="simulation",
        ),
        Derived(
            "|k-means cost of the embedding − R(D~)| / k-means cost, largest",
            pooled("sim_kmeans_identity", "max"),
            upper=1e-10,
            source="simulation",
        ),
        Derived(
            "agreement pairwise clustering of D vs of shifted D (1: shift changes nothing)",
            agreement(_CS_PAIRS[0]),
            target=1.0,
            target_from="theory (shift invariance of the cost)",
            source="simulation",
        ),
        Derived(
            "agreement pairwise clustering of D vs k-means on the embedding",
            agreement(_CS_PAIRS[1]),
            target=1.0,
            target_from="theory (R(D) = k-means cost − shift (n − k)/2)",
            source="simulation",
        ),
    ]


_CS_PAIRS = ("D vs shifted D", "D vs embedding")


CONSTANT_SHIFT = FigureSpec(
    name="maxent-constant-shift",
    paper=PAPER,
    citation=CITATION,
    figure="§5.4, §9.10: constant shift embedding",
    caption=(
        "Constant shift embedding (Roth, Laub, Kawanabe & Buhmann 2003; notes §9.10) of the "
        "squared distances of three Gaussian blobs (20 points each in 5 dimensions), plus "
        "symmetric uniform noise of up to the given multiple of the mean dissimilarity, "
        "which makes D non-Euclidean. Left: spectrum of the centred similarities −QDQ/2 "
        "before (open) and after (dots) the shift, one data set per noise level: the shift "
        "−2λ_min removes the negative eigenvalues, and is zero for the squared Euclidean "
        "input (noise 0), whose embedding reproduces the distances to rounding. Right: "
        "agreement (best label matching) of pairwise clustering of D with pairwise "
        "clustering of the shifted D and with k-means on the embedding; the pairwise cost "
        "of every partition changes by exactly shift·(n − k)/2, so the three optimise the "
        "same objective. Black squares: pairwise clustering of D against the blobs. "
        "Markers: mean ± SE over seeds."
    ),
    grid={"noise": _CS_NOISE},
    settings={
        "quick": {"n_seeds": 4, "n_per": 20, "n_eig": 60},
        "full": {"n_seeds": 20, "n_per": 20, "n_eig": 60},
    },
    outputs={
        "sim_shift": (),
        "sim_embedding_error": (),
        "sim_min_eig_before": (),
        "sim_min_eig_after": (),
        "sim_cost_identity": (),
        "sim_kmeans_identity": (),
        "sim_truth_accuracy": ("partition",),
        "sim_agreement": ("pair",),
        "sim_spectrum_before": ("eig_rank",),
        "sim_spectrum_after": ("eig_rank",),
    },
    coords=lambda s: {
        "partition": np.array(_CS_PARTITIONS),
        "pair": np.array(_CS_PAIRS),
        "eig_rank": np.arange(s["n_eig"]),
    },
    simulation=_constant_shift_simulation,
    plot=_plot_constant_shift,
    checks=_constant_shift_checks,
    base_seed=20261203,
)

"""Texture segmentation by histogram clustering of local binary-pattern histograms (lecture
notes §4.1).
"""

import time

import numpy as np

from statmechlearn.experiments import (
    Derived,
    FigureSpec,
    mean_se,
    measure,
    plot_simulation,
    subplots,
)
from statmechlearn.papers.maxent._common import CITATION, PAPER
from statmechlearn.papers.shared import matched_accuracy

__all__ = ["TEXTURE", "texture_mosaic"]


_LAYOUT = np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1]])


_TEXTURES = ("brick", "grass", "gravel")


def texture_mosaic(rng, tile=128):
    """A 3 x 3 mosaic of brick, grass and gravel tiles (a Latin square) and its true labels.

    Each tile is cut from a random place of scikit-image's 512 x 512 texture.

    Parameters
    ----------
    rng : numpy.random.Generator
    tile : int, default=128

    Returns
    -------
    image : ndarray of shape (3 tile, 3 tile), uint8
    truth : ndarray of shape (3 tile, 3 tile), int
    """
    from skimage import data

    images = [getattr(data, name)() for name in _TEXTURES]
    image = np.zeros((3 * tile, 3 * tile), dtype=np.uint8)
    truth = np.zeros(image.shape, dtype=int)
    for r in range(3):
        for c in range(3):
            k = _LAYOUT[r, c]
            y0, x0 = rng.integers(0, images[k].shape[0] - tile, 2)
            image[r * tile : (r + 1) * tile, c * tile : (c + 1) * tile] = images[k][
                y0 : y0 + tile, x0 : x0 + tile
            ]
            truth[r * tile : (r + 1) * tile, c * tile : (c + 1) * tile] = k
    return image, truth


def _lbp_histograms(image, truth, block, window):
    from skimage.feature import local_binary_pattern

    pad = (window - block) // 2
    maps = []
    for P, R in ((8, 1.0), (16, 2.0)):
        codes = local_binary_pattern(image, P, R, "uniform").astype(int)
        maps.append((np.pad(codes, pad, mode="reflect"), P + 2))
    rows, labels = [], []
    for y in range(0, image.shape[0], block):
        for x in range(0, image.shape[1], block):
            rows.append(
                np.concatenate(
                    [
                        np.bincount(m[y : y + window, x : x + window].ravel(), minlength=b)
                        for m, b in maps
                    ]
                )
            )
            labels.append(truth[y + block // 2, x + block // 2])
    return np.array(rows, dtype=float), np.array(labels)


def _texture_simulation(point, settings, rng):
    from sklearn.cluster import KMeans

    from statmechlearn.cluster import HistogramClustering

    image, truth = texture_mosaic(rng)
    X, y = _lbp_histograms(image, truth, settings["block"], point["window"])
    seed = int(rng.integers(2**31 - 1))
    start = time.perf_counter()
    hc = HistogramClustering(3, random_state=seed).fit(X)
    hc_s = time.perf_counter() - start
    start = time.perf_counter()
    km = KMeans(3, n_init=10, random_state=seed).fit(X / X.sum(axis=1, keepdims=True))
    km_s = time.perf_counter() - start
    return {
        "sim_accuracy": np.array(
            [matched_accuracy(y, hc.labels_), matched_accuracy(y, km.labels_)]
        ),
        "sim_seconds": np.array([hc_s, km_s]),
    }


def _texture_shared(settings):
    """One example mosaic (seed 0), at half resolution, and its 64-px segmentation."""
    from statmechlearn.cluster import HistogramClustering

    image, truth = texture_mosaic(np.random.default_rng(0))
    X, _ = _lbp_histograms(image, truth, settings["block"], 64)
    labels = HistogramClustering(3, random_state=0).fit(X).labels_
    side = image.shape[0] // settings["block"]
    return {
        "shared_mosaic": image[::2, ::2].astype(float),
        "shared_segmentation": labels.reshape(side, side).astype(float),
    }


def _plot_texture(ds, ax=None):
    _, ax = subplots(ax, 1, 2, figsize=(10, 4.2))
    image = ds["shared_mosaic"].values
    ax[0].imshow(image, cmap="gray")
    ax[0].imshow(
        ds["shared_segmentation"].values,
        cmap="brg",
        alpha=0.25,
        extent=(-0.5, image.shape[1] - 0.5, image.shape[0] - 0.5, -0.5),
        interpolation="nearest",
    )
    ax[0].set_title("mosaic (brick / grass / gravel) and its 64-px segmentation", fontsize=9)
    ax[0].axis("off")
    mean, se = mean_se(ds["sim_accuracy"].where(ds["sim_done"]))
    x = np.arange(ds.sizes["window"])
    for j, method in enumerate(ds["method"].values):
        plot_simulation(
            ax[1],
            x + 0.1 * (j - 0.5),
            mean.sel({"method": method}),
            se.sel({"method": method}),
            color=f"C{j}",
            label=str(method),
        )
    ax[1].set_xticks(x, [f"{int(w)} px" for w in ds["window"].values])
    ax[1].set_xlabel("histogram window (16-px blocks)")
    ax[1].set_ylabel("accuracy vs tiling (mean ± SE)")
    ax[1].axhline(1 / 3, color="0.6", ls=":", label="chance")
    ax[1].legend(fontsize=8)
    return ax


def _texture_checks(settings):
    def accuracies(ds, window):
        a = ds["sim_accuracy"].sel({"window": window})
        done = ds["sim_done"].sel({"window": window}).values.astype(bool)
        return {m: a.sel({"method": m}).values[done] for m in ("histogram clustering", "KMeans")}

    def paired_gap(ds):
        a = accuracies(ds, 64)
        return measure(a["histogram clustering"] - a["KMeans"])

    def stat(method, window):
        return lambda ds: measure(accuracies(ds, window)[method])

    return [
        # Both cluster the same histograms: the KL cost must do as well as the squared
        # distance, within a margin of 5 points of accuracy (significantly, paired over seeds).
        Derived(
            "accuracy histogram clustering − KMeans, 64-px windows, paired (not worse than −0.05)",
            paired_gap,
            lower=-0.05,
            scale=lambda ds: float(np.mean(accuracies(ds, 64)["KMeans"])),
            source="simulation",
        ),
        Derived(
            "histogram clustering accuracy, 64-px windows, mean",
            stat("histogram clustering", 64),
            source="simulation",
            reported=True,
        ),
        Derived(
            "histogram clustering accuracy, 64-px windows, worst seed",
            lambda ds: (float(np.min(accuracies(ds, 64)["histogram clustering"])), None),
            source="simulation",
            reported=True,
        ),
        Derived(
            "KMeans on the same histograms, 64-px windows, mean",
            stat("KMeans", 64),
            source="simulation",
            reported=True,
        ),
        Derived(
            "histogram clustering accuracy, 32-px windows, worst seed",
            lambda ds: (float(np.min(accuracies(ds, 32)["histogram clustering"])), None),
            source="simulation",
            reported=True,
        ),
    ]


TEXTURE = FigureSpec(
    name="maxent-texture",
    paper=PAPER,
    citation=CITATION,
    figure="§4.1: texture segmentation",
    caption=(
        "Histogram clustering (KL distortion, annealed, 3 clusters) of local binary-pattern "
        "histograms (uniform LBP at radii 1 and 2) of 16-px blocks of a 384 × 384 mosaic of "
        "scikit-image's brick, grass and gravel (3 × 3 tiles in a Latin square, cut at "
        "random places per seed); accuracy against the tiling after the best matching of "
        "labels, and KMeans on the same normalised histograms. Errors sit at tile borders, "
        "where a window sees two textures."
    ),
    grid={"window": (32, 64)},
    settings={"quick": {"n_seeds": 14, "block": 16}, "full": {"n_seeds": 40, "block": 16}},
    outputs={
        "sim_accuracy": ("method",),
        "sim_seconds": ("method",),
        "shared_mosaic": ("row", "col"),
        "shared_segmentation": ("block_row", "block_col"),
    },
    coords=lambda s: {
        "method": np.array(["histogram clustering", "KMeans"]),
        "row": np.arange(192),
        "col": np.arange(192),
        "block_row": np.arange(384 // s["block"]),
        "block_col": np.arange(384 // s["block"]),
    },
    shared=_texture_shared,
    simulation=_texture_simulation,
    requires=("skimage",),
    plot=_plot_texture,
    checks=_texture_checks,
    base_seed=20261124,
)

"""The coding view of the maximum-entropy notes (§4.1, §4.4, §8, §9.11).

One figure, ``maxent-coding``, four panels:

* channel capacity of the binary symmetric, binary erasure and Z channels
  against their noise, Blahut–Arimoto (:func:`model_selection.channel_capacity`,
  markers, bracketed to 1e-13 bits) against the closed forms ``1 - H(eps)``,
  ``1 - eps`` and ``log2(1 + (1 - p) p^{p/(1-p)})`` (lines);
* the rate–distortion function of a Bernoulli(p) source under Hamming
  distortion, ``R(D) = H(p) - H(D)`` for ``D <= min(p, 1 - p)`` (line),
  against :func:`cluster.rate_distortion` (markers), with the capacities of
  two binary symmetric channels as levels;
* source–channel separation: sending the source once per use of a BSC(eps),
  the smallest achievable distortion solves ``R(D*) = C``, so
  ``D* = H^{-1}(H(p) - (1 - H(eps)))`` (line) against the two Blahut–Arimoto
  solvers combined (markers: the multiplier whose ``R`` equals the computed
  capacity, found by root finding);
* histogram clustering of sparse histograms over an ordered feature axis
  (planted clusters: shifted smooth bumps, a few counts per object): adjusted
  Rand index against the planted partition with a pseudo-count, with counts
  spread to neighbouring bins (the notes' smoothing), and with the same
  spreading after a random shuffle of the bins (the control: it is the bin
  order that helps).
"""

import math
import warnings

import numpy as np

from statmechlearn.experiments import (
    Derived,
    FigureSpec,
    mean_se,
    measure,
    plot_simulation,
    plot_theory,
    subplots,
)
from statmechlearn.papers.maxent._common import CITATION, PAPER

__all__ = ["CODING", "binary_entropy", "capacity_closed_form", "planted_bumps"]


_CHANNELS = ("BSC", "BEC", "Z")


_NOISE = np.round(np.linspace(0.05, 0.95, 10), 10)


_NOISE_DENSE = np.linspace(0.0, 0.99, 199)


_D_GRID = np.array([0.01, 0.03, 0.06, 0.1, 0.15])


_D_DENSE = np.linspace(0.0, 0.2, 101)


_EPS = np.array([0.06, 0.1, 0.15, 0.2, 0.3, 0.4])


_EPS_DENSE = np.linspace(0.0, 0.5, 126)


_LEVEL_EPS = (0.1, 0.2)  # the BSCs whose capacities are drawn over R(D)


_METHODS = ("pseudo-count", "spreading", "spreading, bins shuffled")


_N_COUNTS = (5, 10, 20, 40)


_N_BINS = 30


_SPARSE = (5, 10, 20)  # fewer counts per object than bins


#: Blahut–Arimoto bracket asked of channel_capacity, bits.
_TOL = 1e-13


#: Rounding allowance when a closed form is compared with the bracket, bits.
_ULPS = 1e-14


def binary_entropy(p):
    """``H(p)`` in bits, elementwise, with ``H(0) = H(1) = 0``."""
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(p * np.log2(p) + (1 - p) * np.log2(1 - p))
    return np.where((p <= 0) | (p >= 1), 0.0, h)


def _z_capacity(p):
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = (1 - p) * np.power(p, p / (1 - p))
    return np.where(p <= 0, 1.0, np.log2(1 + np.where(p >= 1, 0.0, inner)))


def capacity_closed_form(channel, noise):
    """Capacity in bits of a named binary channel at noise ``noise`` (closed forms).

    Parameters
    ----------
    channel : {"BSC", "BEC", "Z"}
        Binary symmetric (crossover ``noise``), binary erasure (erasure
        probability ``noise``), Z channel (a 1 turns into a 0 with
        probability ``noise``).
    noise : float or ndarray

    Returns
    -------
    float or ndarray
    """
    if channel == "BSC":
        return 1.0 - binary_entropy(noise)
    if channel == "BEC":
        return 1.0 - np.asarray(noise, dtype=float)
    if channel == "Z":
        return _z_capacity(noise)
    raise ValueError(f"channel must be one of {_CHANNELS}, got {channel!r}")


def _transition(channel, e):
    if channel == "BSC":
        return np.array([[1 - e, e], [e, 1 - e]])
    if channel == "BEC":
        return np.array([[1 - e, e, 0.0], [0.0, e, 1 - e]])
    return np.array([[1.0, 0.0], [e, 1 - e]])


def _d_star_closed(p, eps):
    """Smallest distortion of a Bernoulli(p) source over a BSC(eps): ``H(D) = H(p) - C``."""
    from scipy.optimize import brentq

    target = float(binary_entropy(p)) - (1.0 - float(binary_entropy(eps)))
    if target <= 0:
        return 0.0
    return brentq(lambda d: float(binary_entropy(d)) - target, 1e-300, min(p, 1 - p), xtol=1e-15)


def _d_star_blahut_arimoto(p_x, capacity):
    """The same from the two solvers: the multiplier whose R(D) point has ``R = capacity``."""
    from scipy.optimize import brentq

    from statmechlearn.cluster import rate_distortion

    hamming = 1.0 - np.eye(2)

    def rate(log_beta):
        return float(rate_distortion(p_x, hamming, [math.exp(log_beta)]).rate[0]) - capacity

    if rate(4.0) <= 0:  # C >= H(p) (within e^-55): the source crosses losslessly
        return 0.0
    log_beta = brentq(rate, -1.0, 4.0, xtol=1e-13)
    return float(rate_distortion(p_x, hamming, [math.exp(log_beta)]).distortion[0])


def _coding_theory(point, settings):
    from statmechlearn.cluster import rate_distortion
    from statmechlearn.model_selection import channel_capacity

    p = point["source_p"]
    p_x = np.array([1 - p, p])
    ba = np.empty((len(_CHANNELS), _NOISE.size))
    gap = np.empty_like(ba)
    for i, name in enumerate(_CHANNELS):
        for j, e in enumerate(_NOISE):
            res = channel_capacity(_transition(name, e), tol=_TOL)
            ba[i, j], gap[i, j] = res.capacity, res.gap
    # at slope beta the optimal backward channel is a BSC(D) with D = 1 / (1 + e^beta)
    curve = rate_distortion(p_x, 1.0 - np.eye(2), np.log((1 - _D_GRID) / _D_GRID))
    bsc_capacity = {e: channel_capacity(_transition("BSC", e), tol=_TOL).capacity for e in _EPS}
    levels = [channel_capacity(_transition("BSC", e), tol=_TOL).capacity for e in _LEVEL_EPS]
    return {
        "theory_capacity": np.array([capacity_closed_form(c, _NOISE) for c in _CHANNELS]),
        "theory_capacity_dense": np.array(
            [capacity_closed_form(c, _NOISE_DENSE) for c in _CHANNELS]
        ),
        "theory_ba_capacity": ba,
        "theory_ba_gap": gap,
        "theory_rate_dense": binary_entropy(p) - binary_entropy(np.minimum(_D_DENSE, p)),
        "theory_ba_rate": curve.rate,
        "theory_ba_distortion": curve.distortion,
        "theory_rate_at_ba": binary_entropy(p) - binary_entropy(curve.distortion),
        "theory_ba_levels": np.array(levels),
        "theory_d_star": np.array([_d_star_closed(p, e) for e in _EPS]),
        "theory_d_star_dense": np.array([_d_star_closed(p, e) for e in _EPS_DENSE]),
        "theory_ba_d_star": np.array([_d_star_blahut_arimoto(p_x, bsc_capacity[e]) for e in _EPS]),
    }


def planted_bumps(rng, n_per_cluster, n_counts, *, n_bins=_N_BINS, width=3.0, shift=3.0):
    """Count histograms of three planted clusters over an ordered feature axis.

    Cluster ``k`` draws its objects' features from a discretised Gaussian bump
    of ``width`` bins centred ``shift`` bins from its neighbour's; each object
    has ``n_counts`` counts (sparse when fewer than ``n_bins``).

    Parameters
    ----------
    rng : numpy.random.Generator
    n_per_cluster, n_counts : int
    n_bins : int, default=30
    width, shift : float, default=3.0

    Returns
    -------
    X : ndarray of shape (3 n_per_cluster, n_bins)
    labels : ndarray of shape (3 n_per_cluster,)
    bumps : ndarray of shape (3, n_bins)
        The planted feature distributions.
    """
    centres = (n_bins - 1) / 2 + shift * np.array([-1.0, 0.0, 1.0])
    j = np.arange(n_bins)
    bumps = np.exp(-0.5 * ((j[None] - centres[:, None]) / width) ** 2)
    bumps /= bumps.sum(axis=1, keepdims=True)
    labels = np.repeat(np.arange(3), n_per_cluster)
    X = np.array([rng.multinomial(n_counts, bumps[k]) for k in labels], dtype=float)
    return X, labels, bumps


def _coding_simulation(point, settings, rng):
    from sklearn.metrics import adjusted_rand_score

    from statmechlearn.cluster import HistogramClustering

    ari = np.empty((len(_N_COUNTS), len(_METHODS)))
    for i, n_counts in enumerate(_N_COUNTS):
        X, labels, _ = planted_bumps(rng, settings["n_per_cluster"], n_counts)
        shuffle = rng.permutation(_N_BINS)
        seed = int(rng.integers(2**31 - 1))
        common = {
            "smoothing": settings["pseudo_count"],
            "cooling_rate": settings["cooling_rate"],
            "random_state": seed,
        }
        runs = (
            (X, {}),
            (X, {"spreading": settings["spreading"]}),
            (X[:, shuffle], {"spreading": settings["spreading"]}),
        )
        for j, (data, extra) in enumerate(runs):
            with warnings.catch_warnings():
                # an annealing that ends with fewer than three distinct clusters is scored as is
                warnings.simplefilter("ignore")
                est = HistogramClustering(3, **common, **extra).fit(data)
            ari[i, j] = adjusted_rand_score(labels, est.labels_)
    return {"sim_ari": ari}


def _plot_coding(ds, ax=None):
    _, ax = subplots(ax, 1, 4, figsize=(17, 4.2))
    d = ds.isel(source_p=0)
    p = float(ds["source_p"][0])
    for i, name in enumerate(_CHANNELS):
        color = f"C{i}"
        plot_theory(
            ax[0],
            ds["noise_dense"],
            d["theory_capacity_dense"].sel({"channel": name}),
            label=f"{name} (closed form)",
            color=color,
        )
        ax[0].plot(
            ds["noise"],
            d["theory_ba_capacity"].sel({"channel": name}),
            "o",
            color=color,
            ms=5,
            mfc="none",
            label=f"{name} (Blahut–Arimoto)",
        )
    ax[0].set_xlabel("noise: crossover ε, erasure ε, Z flip p")
    ax[0].set_ylabel("capacity C, bits per use")
    ax[0].legend(fontsize=7)
    ax[0].set_title("channel capacity (§8, §9.11)", fontsize=9)

    plot_theory(ax[1], ds["distortion_dense"], d["theory_rate_dense"], label="H(p) − H(D)")
    ax[1].plot(d["theory_ba_distortion"], d["theory_ba_rate"], "C3o", ms=5, label="Blahut–Arimoto")
    for k, e in enumerate(_LEVEL_EPS):
        level = float(d["theory_ba_levels"].isel(level=k))
        ax[1].axhline(level, color="0.5", ls=":", lw=1)
        ax[1].annotate(f"C of BSC({e:g})", (0.13, level), fontsize=7, va="bottom")
    ax[1].set_xlabel("D (Hamming)")
    ax[1].set_ylabel("R(D), bits per symbol")
    ax[1].legend(fontsize=8)
    ax[1].set_title(f"rate–distortion, Bernoulli({p:g}) source (§4.4)", fontsize=9)

    plot_theory(ax[2], ds["crossover_dense"], d["theory_d_star_dense"], label="H⁻¹(H(p) − C)")
    ax[2].plot(ds["crossover"], d["theory_ba_d_star"], "C3o", ms=5, label="R(D*) = C, both BA")
    ax[2].set_xlabel("BSC crossover ε")
    ax[2].set_ylabel("smallest distortion D*")
    ax[2].legend(fontsize=8)
    ax[2].set_title("source–channel separation, one use per symbol", fontsize=9)

    mean, se = mean_se(d["sim_ari"].where(d["sim_done"]))
    counts = np.asarray(ds["n_counts"])
    x = np.arange(counts.size, dtype=float)  # counts double from one to the next
    for j, method in enumerate(_METHODS):
        plot_simulation(
            ax[3],
            x + 0.08 * (j - 1),
            mean.sel({"smoothing_kind": method}),
            se.sel({"smoothing_kind": method}),
            color=f"C{j}",
            label=method,
        )
    ax[3].set_xticks(x, [str(int(v)) for v in counts])
    ax[3].set_xlabel(f"counts per object ({_N_BINS} ordered bins)")
    ax[3].set_ylabel("ARI vs planted clusters (mean ± SE)")
    ax[3].legend(fontsize=8)
    ax[3].set_title("histogram clustering, shifted bumps (§4.1)", fontsize=9)
    return ax


def _ari(ds, method, counts):
    d = ds.isel(source_p=0)
    done = d["sim_done"].values.astype(bool)
    v = d["sim_ari"].sel({"smoothing_kind": method, "n_counts": list(counts)}).values
    return v[done]  # (seed, n_counts)


def _paired(ds, counts, other="pseudo-count", method="spreading"):
    return measure((_ari(ds, method, counts) - _ari(ds, other, counts)).ravel())


def _coding_checks(settings):
    def stored(var):
        return lambda ds: ds[var].isel(source_p=0).values

    ba, closed, gap = (
        stored("theory_ba_capacity"),
        stored("theory_capacity"),
        stored("theory_ba_gap"),
    )
    rate, rate_closed = stored("theory_ba_rate"), stored("theory_rate_at_ba")
    d_star, d_star_closed = stored("theory_ba_d_star"), stored("theory_d_star")
    checks = [
        Derived(
            "min over channel and noise of C(closed form) − C(Blahut–Arimoto), bits "
            "(BA's rate is achieved, so never above C)",
            lambda ds: (float(np.min(closed(ds) - ba(ds))), None),
            lower=-_ULPS,
        ),
        Derived(
            "max over channel and noise of C(closed form) − (C(BA) + bracket), bits "
            "(BA's upper bound max_x KL(W(.|x) || q) is never below C)",
            lambda ds: (float(np.max(closed(ds) - ba(ds) - gap(ds))), None),
            upper=_ULPS,
        ),
        Derived(
            "widest Blahut–Arimoto bracket I_U − I_L, bits (its own stopping rule)",
            lambda ds: (float(np.max(gap(ds))), None),
            upper=_TOL,
            smoke=True,
        ),
        Derived(
            "max |C(BA) − C(closed form)| over BSC, BEC, Z, bits",
            lambda ds: (float(np.max(np.abs(ba(ds) - closed(ds)))), None),
            reported=True,
        ),
        Derived(
            "max |R(BA) − (H(p) − H(D))| at the BA points (D, R), Bernoulli(0.2), bits",
            lambda ds: (
                float(np.max(np.abs(rate(ds) - rate_closed(ds)))),
                None,
            ),
            upper=1e-9,
        ),
        Derived(
            "max |D(β) − 1/(1 + e^β)| at the BA points (the backward BSC(D) of the optimum)",
            lambda ds: (
                float(np.max(np.abs(stored("theory_ba_distortion")(ds) - _D_GRID))),
                None,
            ),
            upper=1e-9,
        ),
        Derived(
            "max |D*(both BA) − H⁻¹(H(p) − C)| over BSC(ε), ε = 0.06 … 0.4",
            lambda ds: (
                float(np.max(np.abs(d_star(ds) - d_star_closed(ds)))),
                None,
            ),
            upper=1e-8,
        ),
    ]
    sparse_note = (
        "paired over seeds (same data and seed), pooled over 5, 10, 20 counts per object "
        "(fewer counts than bins)"
    )
    if settings["n_seeds"] >= 30:
        checks.append(
            Derived(
                "ARI spreading − pseudo-count, sparse histograms (> 0 by k SE)",
                lambda ds: _paired(ds, _SPARSE),
                lower=0.0,
                scale=lambda ds: float(np.mean(_ari(ds, "pseudo-count", _SPARSE))),
                source="simulation",
                note=sparse_note,
            )
        )
    else:
        checks.append(
            Derived(
                "ARI spreading − pseudo-count, sparse histograms, mean ± SE",
                lambda ds: _paired(ds, _SPARSE),
                source="simulation",
                reported=True,
                note=sparse_note + "; too few seeds here to resolve it (full mode checks it)",
            )
        )
    for n in _N_COUNTS:
        checks.append(
            Derived(
                f"ARI spreading − pseudo-count, {n} counts per object, mean ± SE",
                lambda ds, n=n: _paired(ds, (n,)),
                source="simulation",
                reported=True,
            )
        )
    checks.append(
        Derived(
            "ARI spreading on shuffled bins − pseudo-count, sparse histograms, mean ± SE",
            lambda ds: _paired(ds, _SPARSE, method="spreading, bins shuffled"),
            source="simulation",
            reported=True,
            note="the control: spreading along a meaningless order",
        )
    )
    return checks


CODING = FigureSpec(
    name="maxent-coding",
    paper=PAPER,
    citation=CITATION,
    figure="§8, §9.11 (capacity), §4.4 (rate distortion), §4.1 (histogram smoothing)",
    caption=(
        "(a) Capacity of the binary symmetric (1 − H(ε)), binary erasure (1 − ε) and Z "
        "(log₂(1 + (1 − p) p^{p/(1−p)})) channels: closed forms (lines) and Blahut–Arimoto "
        "(open markers), whose bracket I_L ≤ C ≤ max_x KL(W(.|x) ‖ q) is closed to 1e-13 "
        "bits. (b) Rate–distortion function of a Bernoulli(0.2) source under Hamming "
        "distortion, H(p) − H(D) (line) and Blahut–Arimoto at the slopes β = ln((1 − D)/D) "
        "(markers); dotted: capacities of BSC(0.1) and BSC(0.2). (c) Source–channel "
        "separation: the smallest distortion for one channel use per source symbol over a "
        "BSC(ε) solves R(D*) = C: closed form (line) and the two solvers combined "
        "(markers). (d) Histogram clustering (annealed, 3 clusters) of planted clusters of "
        "30 objects whose features are Gaussian bumps (width 3 bins) 3 bins apart on 30 "
        "ordered bins, few counts per object: ARI vs the planted partition (mean ± SE over "
        "seeds) with a pseudo-count of 0.1, with half of each count spread to the two "
        "neighbouring bins (notes §4.1) and, as control, the same spreading after a random "
        "shuffle of the bins. Spreading is a low-pass filter: it damps the count noise, "
        "which is independent from bin to bin, and keeps the smooth difference between "
        "neighbouring bumps; a pseudo-count shrinks signal and noise alike."
    ),
    grid={"source_p": (0.2,)},
    settings={
        "quick": {
            "n_seeds": 8,
            "n_per_cluster": 30,
            "pseudo_count": 0.1,
            "spreading": 0.5,
            "cooling_rate": 0.8,
        },
        "full": {
            "n_seeds": 40,
            "n_per_cluster": 30,
            "pseudo_count": 0.1,
            "spreading": 0.5,
            "cooling_rate": 0.8,
        },
    },
    outputs={
        "theory_capacity": ("channel", "noise"),
        "theory_capacity_dense": ("channel", "noise_dense"),
        "theory_ba_capacity": ("channel", "noise"),
        "theory_ba_gap": ("channel", "noise"),
        "theory_rate_dense": ("distortion_dense",),
        "theory_ba_rate": ("distortion",),
        "theory_ba_distortion": ("distortion",),
        "theory_rate_at_ba": ("distortion",),
        "theory_ba_levels": ("level",),
        "theory_d_star": ("crossover",),
        "theory_d_star_dense": ("crossover_dense",),
        "theory_ba_d_star": ("crossover",),
        "sim_ari": ("n_counts", "smoothing_kind"),
    },
    coords=lambda s: {
        "channel": np.array(_CHANNELS),
        "noise": _NOISE,
        "noise_dense": _NOISE_DENSE,
        "distortion": _D_GRID,
        "distortion_dense": _D_DENSE,
        "level": np.array(_LEVEL_EPS),
        "crossover": _EPS,
        "crossover_dense": _EPS_DENSE,
        "n_counts": np.array(_N_COUNTS),
        "smoothing_kind": np.array(_METHODS),
    },
    theory=_coding_theory,
    simulation=_coding_simulation,
    plot=_plot_coding,
    checks=_coding_checks,
    base_seed=20261126,
)

"""Quadratic and pairwise clustering costs against known answers (lecture notes §3.4, §5.2, §9.10).

Three figures:

``maxent-least-angle``
    :class:`~statmechlearn.cluster.LeastAngleClustering` on unit vectors drawn
    around k planted directions (``normalise(mu_nu + sigma z)``): accuracy
    against the noise, the cost found against the cost of the planted
    partition, the exact global minimum by enumeration of all ``3^9``
    labelings of nine vectors, and the bias towards large clusters the notes
    warn of, on unbalanced planted clusters (k-means on the same unit vectors
    beside it).
``maxent-planted-partition``
    Stochastic block model graphs (two blocks, mean degree fixed) clustered by
    shifted correlation clustering, graph partitioning and normalised graph
    partitioning (:class:`~statmechlearn.cluster.CorrelationClustering`) and by
    scikit-learn's spectral clustering: ARI against the planted blocks as a
    function of the signal-to-noise ratio, and the normalised cost's
    advantage on unequal blocks.
``maxent-constant-shift``
    :class:`~statmechlearn.cluster.ConstantShiftEmbedding` of squared
    Euclidean distances (the embedding reproduces them, no shift) and of
    non-Euclidean dissimilarities (the same plus symmetric noise): negative
    eigenvalues before and none after the shift, the pairwise cost changed by
    exactly ``shift (n - k) / 2``, and the partitions found on ``D``, on the
    shifted ``D`` and by k-means on the embedding compared.
"""

import itertools
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
from statmechlearn.papers.shared import matched_accuracy

__all__ = [
    "CONSTANT_SHIFT",
    "LEAST_ANGLE",
    "PLANTED_PARTITION",
    "planted_directions",
    "stochastic_block_model",
]


def _done(ds, point=None):
    sel = ds if point is None else ds.sel(point)
    return sel["sim_done"].values.astype(bool)


def _runs(ds, var, point=None, **coords):
    """Values of ``var`` (at ``point``, ``coords``) over the finished seeds."""
    sel = ds if point is None else ds.sel(point)
    return sel[var].sel(coords).values[_done(ds, point)]


def _pooled(ds, var, **coords):
    """``var`` over every finished (grid point, seed) cell, flattened."""
    v = ds[var].sel(coords)
    return v.values[ds["sim_done"].values.astype(bool)]


_LA_NOISE = (0.2, 0.4, 0.6, 0.8, 1.0, 1.4)


_LA_METHODS = ("LeastAngleClustering", "KMeans (unit vectors)")


_LA_UNEQUAL = (80, 20, 20)


def planted_directions(rng, sizes, noise, n_features=3):
    """Unit vectors ``normalise(mu_nu + noise z)`` around the vertices of a regular simplex.

    The ``k = len(sizes)`` directions ``mu_nu`` have pairwise cosine
    ``-1 / (k - 1)`` (in the first ``k`` coordinates), so the sums of the
    planted clusters point away from one another and, at low noise, the
    planted partition minimises the least-angle cost.

    Parameters
    ----------
    rng : numpy.random.Generator
    sizes : sequence of int
        Objects per planted cluster (at least two clusters).
    noise : float
        Standard deviation of the isotropic Gaussian added before normalising (>= 0).
    n_features : int, default=3
        Dimension (>= ``len(sizes)``).

    Returns
    -------
    E : ndarray of shape (sum(sizes), n_features)
        Unit vectors.
    labels : ndarray of shape (sum(sizes),)
        Planted clusters.
    """
    k = len(sizes)
    if k < 2 or n_features < k:
        raise ValueError(
            f"sizes must name at least 2 clusters and n_features >= len(sizes), got "
            f"{k} clusters and n_features={n_features}"
        )
    if not math.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be finite and >= 0, got {noise}")
    mu = np.zeros((k, n_features))
    mu[:, :k] = np.eye(k) - 1.0 / k
    mu /= np.linalg.norm(mu, axis=1, keepdims=True)
    labels = np.repeat(np.arange(k), sizes)
    X = mu[labels] + noise * rng.standard_normal((labels.size, n_features))
    return X / np.linalg.norm(X, axis=1, keepdims=True), labels


def _least_angle_enumerated(E, k):
    """Exact minimum of the least-angle cost over all ``k^n`` labelings (n <= 10).

    Written from the definition ``R = -(1/(2n)) sum_nu |sum_{i in nu} e_i|^2 + 1`` as one
    tensor contraction, independently of :func:`least_angle_cost`.
    """
    n = E.shape[0]
    onehot = np.eye(k)[np.array(list(itertools.product(range(k), repeat=n)))]
    sums = np.einsum("lnk,nd->lkd", onehot, E)
    return 1.0 - float(np.max(np.sum(sums**2, axis=(1, 2)))) / (2.0 * n)


def _improving_moves(E, labels, k):
    """Single-object moves that lower the least-angle cost of ``labels`` (0 at a local minimum)."""
    from statmechlearn.cluster import least_angle_cost

    base = least_angle_cost(E, labels)
    count = 0
    for i in range(labels.size):
        for nu in range(k):
            if nu != labels[i]:
                moved = labels.copy()
                moved[i] = nu
                count += least_angle_cost(E, moved) < base - 1e-12 * max(abs(base), 1.0)
    return count


def _big_share(truth, labels):
    """Share of the objects in the found cluster holding most of planted cluster 0."""
    return float(np.mean(labels == np.bincount(labels[truth == 0]).argmax()))


def _least_angle_simulation(point, settings, rng):
    from sklearn.cluster import KMeans

    from statmechlearn.cluster import LeastAngleClustering, least_angle_cost

    k, noise = 3, point["noise"]
    seed = int(rng.integers(2**31 - 1))
    E, y = planted_directions(rng, [settings["n_per"]] * k, noise)
    Eu, yu = planted_directions(rng, _LA_UNEQUAL, noise)
    Es, _ = planted_directions(rng, [settings["n_small"] // k] * k, noise)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fewer clusters than asked is part of what is measured
        la = LeastAngleClustering(k, random_state=seed).fit(E)
        la_u = LeastAngleClustering(k, random_state=seed).fit(Eu)
        la_s = LeastAngleClustering(k, random_state=seed).fit(Es)
    km = KMeans(k, n_init=10, random_state=seed).fit(E)
    km_u = KMeans(k, n_init=10, random_state=seed).fit(Eu)
    exact = _least_angle_enumerated(Es, k)
    return {
        "sim_accuracy": np.array(
            [matched_accuracy(y, la.labels_), matched_accuracy(y, km.labels_)]
        ),
        "sim_cost_found": np.array(la.cost_),
        "sim_cost_planted": np.array(least_angle_cost(E, y)),
        "sim_big_share": np.array([_big_share(yu, la_u.labels_), _big_share(yu, km_u.labels_)]),
        "sim_small_found": np.array(least_angle_cost(Es, la_s.labels_)),
        "sim_small_exact": np.array(exact),
        "sim_improving_moves": np.array(
            sum(_improving_moves(X, m.labels_, k) for X, m in ((E, la), (Eu, la_u), (Es, la_s))),
            dtype=float,
        ),
    }


def _plot_least_angle(ds, ax=None):
    _, ax = subplots(ax, 1, 2, figsize=(10, 4.2))
    x = ds["noise"].values
    for j, method in enumerate(ds["la_method"].values):
        sel = {"la_method": method}
        mean, se = mean_se(ds["sim_accuracy"].sel(sel).where(ds["sim_done"]))
        plot_simulation(ax[0], x, mean, se, color=f"C{j}", label=f"{method}, equal clusters")
        mean, se = mean_se(ds["sim_big_share"].sel(sel).where(ds["sim_done"]))
        plot_simulation(ax[1], x, mean, se, color=f"C{j}", label=str(method))
    ax[0].axhline(1 / 3, color="0.6", ls=":", label="chance")
    ax[0].set_xlabel("noise σ (per coordinate, before normalising)")
    ax[0].set_ylabel("accuracy vs planted clusters (mean ± SE)")
    ax[0].legend(fontsize=8)
    share = _LA_UNEQUAL[0] / sum(_LA_UNEQUAL)
    ax[1].axhline(share, color="k", ls="--", lw=0.8, label="planted share")
    ax[1].set_xlabel("noise σ")
    ax[1].set_ylabel("share of the cluster found for the large planted one (mean ± SE)")
    done = ds["sim_done"].values.astype(bool)
    gap = ds["sim_small_found"].values[done] - ds["sim_small_exact"].values[done]
    scale = np.abs(ds["sim_small_exact"].values[done])
    hit = float(np.mean(gap <= 1e-10 * np.maximum(scale, 1.0))) if gap.size else math.nan
    ax[1].set_title(
        f"planted sizes {_LA_UNEQUAL}\nn = 9: exact global minimum attained in {hit:.0%} of runs",
        fontsize=9,
    )
    ax[1].legend(fontsize=8)
    return ax


def _least_angle_checks(settings):
    low = {"noise": _LA_NOISE[0]}

    def worst_accuracy(ds):
        a = _runs(ds, "sim_accuracy", low, la_method=_LA_METHODS[0])
        return Measurement(float(a.min()) if a.size else math.nan, None, a.size)

    def found_minus_planted(ds):
        d = _pooled(ds, "sim_cost_found") - _pooled(ds, "sim_cost_planted")
        return Measurement(float(d.max()) if d.size else math.nan, None, d.size)

    def share_gap(ds):
        # overlapping clusters only: at the lowest noise both methods recover the truth
        keep = ds["noise"] >= 0.4
        sub = ds.sel(noise=keep)
        a = _pooled(sub, "sim_big_share", la_method=_LA_METHODS[0])
        b = _pooled(sub, "sim_big_share", la_method=_LA_METHODS[1])
        return measure(a - b)

    def exact_hits(ds):
        gap = _pooled(ds, "sim_small_found") - _pooled(ds, "sim_small_exact")
        scale = np.maximum(np.abs(_pooled(ds, "sim_small_exact")), 1.0)
        return measure((gap <= 1e-10 * scale).astype(float))

    def improving_moves(ds):
        v = _pooled(ds, "sim_improving_moves")
        return Measurement(float(v.sum()) if v.size else math.nan, None, v.size)

    def below_exact(ds):
        gap = _pooled(ds, "sim_small_found") - _pooled(ds, "sim_small_exact")
        return Measurement(float(gap.min()) if gap.size else math.nan, None, gap.size)

    return [
        Derived(
            f"LeastAngleClustering accuracy at σ = {_LA_NOISE[0]}, worst seed (planted truth)",
            worst_accuracy,
            lower=0.95,
            source="simulation",
        ),
        # The planted partition is one candidate of the cost: a minimiser is never worse.
        Derived(
            "least-angle cost found − cost of the planted partition, largest over all runs",
            found_minus_planted,
            upper=1e-9,
            source="simulation",
        ),
        # The notes (§3.4): the cost weights a cluster by its squared size, so overlapping
        # objects go to the large cluster; k-means on the same unit vectors weighs means.
        Derived(
            f"share of the large planted cluster {_LA_UNEQUAL}: least angle − k-means, "
            "paired, σ ≥ 0.4 (> 0: the bias to large clusters)",
            share_gap,
            source="simulation",
            reported=True,
            note="a few seeds per σ in quick mode: the mean ± SE is shown, without a verdict",
        ),
        # At T -> 0 the naive mean field of the exact cost stops only where no single object
        # can move to lower R; the notes' saddle point (self term kept) did not (a third of the
        # n = 9 runs before the estimator dropped it).
        Derived(
            "single-object moves that would lower R from the labels found, all runs and sizes",
            improving_moves,
            target=0.0,
            tolerance=0.0,
            scale=1.0,
            source="simulation",
        ),
        Derived(
            "n = 9: share of runs whose labels attain the exact minimum (3^9 labelings)",
            exact_hits,
            source="simulation",
            reported=True,
        ),
        Derived(
            "n = 9: cost found − exact minimum, smallest (≥ 0: the enumeration is a minimum)",
            below_exact,
            lower=-1e-12,
            source="simulation",
            smoke=True,
        ),
    ]


LEAST_ANGLE = FigureSpec(
    name="maxent-least-angle",
    paper=PAPER,
    citation=CITATION,
    figure="§3.4: least-angle clustering",
    caption=(
        "Least-angle clustering (cosine cost R = −(1/2n) Σ_ν |Σ_{i∈ν} e_i|² + 1, solved with "
        "the linearisation trick: y_ν = (1/n) Σ_i e_i P_iν, annealed; each object's field "
        "leaves out its own pull, the naive mean field of the exact cost) of unit vectors "
        "normalise(μ_ν + σ z) around three directions at 120°. Left: accuracy against the "
        "planted clusters (40 each) vs σ, k-means on the same unit vectors beside it. Right: "
        f"planted sizes {_LA_UNEQUAL}: share of the objects in the cluster found for the "
        "large one; the dashed line is its planted share. The cost weights a cluster by its "
        "squared size (the notes' warning), so it pulls overlapping objects into the large "
        "cluster more than k-means does. Title: how often the labels found for nine vectors "
        "attain the exact minimum over all 3⁹ labelings. Markers: mean ± SE over seeds."
    ),
    grid={"noise": _LA_NOISE},
    settings={
        "quick": {"n_seeds": 2, "n_per": 40, "n_small": 9},
        "full": {"n_seeds": 20, "n_per": 40, "n_small": 9},
    },
    outputs={
        "sim_accuracy": ("la_method",),
        "sim_cost_found": (),
        "sim_cost_planted": (),
        "sim_improving_moves": (),
        "sim_big_share": ("la_method",),
        "sim_small_found": (),
        "sim_small_exact": (),
    },
    coords=lambda s: {"la_method": np.array(_LA_METHODS)},
    simulation=_least_angle_simulation,
    plot=_plot_least_angle,
    checks=_least_angle_checks,
    base_seed=20261201,
)


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

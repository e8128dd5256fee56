"""Sampling and mean field (lecture notes §3.2, §6, §9.1–9.8).

Four figures:

``sampling-exactness``
    A 3 × 3 Potts problem small enough to enumerate (3^9 labelings): the
    heat-bath sampler's mean cost and its free energy by thermodynamic
    integration against the exact ones, and the mean-field bound ``B``
    above the exact ``F`` at every temperature.
``sampling-sa-vs-da``
    The same k-means problems solved by simulated annealing (Metropolis,
    exponential cooling, 10 to 1000 sweeps) and by deterministic annealing
    (cooling rates 0.5 to 0.95): final cost against wall time (§9.8).
``sampling-denoising``
    Ising de-noising of scikit-image's binary ``horse`` with flipped
    pixels: pixel error against flip probability for mean field, Gibbs
    sampling and ICM (§9.1).
``sampling-smooth-kmeans``
    Smooth k-means (§6.6) against k-means on a noisy piecewise-constant
    image: segmentation accuracy against the noise level.
"""

import time
import warnings

import numpy as np

from statmechlearn.experiments import (
    Check,
    Derived,
    FigureSpec,
    mean_se,
    measure,
    plot_simulation,
    plot_theory,
    simulation_label,
    subplots,
)
from statmechlearn.papers.sampling._common import CITATION, PAPER
from statmechlearn.papers.shared import matched_accuracy

__all__ = ["DENOISING", "EXACTNESS", "SA_VS_DA", "SMOOTH", "horse_image"]


def _runs(ds, point, var, method):
    """Values of ``var`` for ``method`` at ``point`` over the finished seeds."""
    sel = ds.sel(point)
    return sel[var].sel({"method": method}).values[sel["sim_done"].values.astype(bool)]


def _paired(point, var, first, second):
    """``compute(ds)``: mean ± SE over seeds of ``var[first] - var[second]`` at ``point``."""
    return lambda ds: measure(_runs(ds, point, var, first) - _runs(ds, point, var, second))


#: Shape of scikit-image's horse.
_HORSE_SHAPE = (328, 400)


def horse_image():
    """scikit-image's binary ``horse`` (328 × 400, True on the horse), shipped with skimage."""
    from skimage import data

    return ~data.horse()


_EXACT_T = (0.5, 1.0, 2.0)


def _potts():
    from statmechlearn.inference import PairwiseMRFCost, grid_graph

    rng = np.random.default_rng(20261122)
    A = grid_graph((3, 3))
    W = A.multiply(rng.uniform(0.2, 1.0, A.shape))
    return PairwiseMRFCost(rng.normal(size=(9, 3)), (W + W.T) / 2)


def _exact_theory(point, settings):
    from statmechlearn.inference import exact_gibbs, mean_field

    cost = _potts()
    T = point["temperature"]
    ex = exact_gibbs(cost, T)
    bounds = [mean_field(cost, T, random_state=s, max_iter=5000, tol=1e-10).bound for s in range(5)]
    return {
        "theory_free_energy": np.array(ex.free_energy),
        "theory_mean_energy": np.array(ex.mean_energy),
        "theory_mf_bound": np.array(min(bounds)),
    }


def _exact_simulation(point, settings, rng):
    from statmechlearn.inference import sample_assignments, thermodynamic_free_energy

    cost = _potts()
    T = point["temperature"]
    res = sample_assignments(cost, T, n_chains=4, n_sweeps=settings["n_sweeps"], random_state=rng)
    F, _ = thermodynamic_free_energy(
        cost, T, n_chains=4, n_sweeps=settings["n_sweeps"] // 2, random_state=rng
    )
    return {"sim_mean_energy": np.array(res.mean_energy), "sim_free_energy": np.array(F)}


def _plot_exact(ds, ax=None):
    _, ax = subplots(ax, figsize=(5.5, 4.2))
    T = ds["temperature"].values
    done = ds["sim_done"]
    label = r"theory: $F$ exact ($3^9$ labelings)"
    plot_theory(ax, T, ds["theory_free_energy"], color="k", label=label)
    plot_theory(
        ax,
        T,
        ds["theory_mf_bound"],
        color="C3",
        linestyle="--",
        label="theory: mean-field bound $B$",
    )
    plot_theory(
        ax, T, ds["theory_mean_energy"], color="C0", label=r"theory: $\langle R\rangle$ exact"
    )
    for var, color, marker, lab in (
        ("sim_free_energy", "k", "o", "$F$, thermodynamic integration"),
        ("sim_mean_energy", "C0", "s", r"$\langle R\rangle$, heat-bath sampler"),
    ):
        runs = ds[var].where(done)
        mean, se = mean_se(runs)
        label = simulation_label(runs.count("seed"), f"{lab}, simulation")
        plot_simulation(ax, T, mean, se, color=color, marker=marker, label=label)
    ax.set_xscale("log")
    ax.set_xlabel("temperature $T$")
    ax.set_ylabel("energy")
    ax.legend(fontsize=8)
    return ax


def _exact_checks(settings):
    checks = []
    for T in _EXACT_T:
        sel = {"temperature": T}
        checks.append(
            Check(
                f"⟨R⟩ heat-bath vs exact, T={T:g}",
                ("theory_mean_energy", sel),
                ("sim_mean_energy", sel),
            )
        )
        checks.append(
            Check(
                f"F thermodynamic integration vs exact, T={T:g}",
                ("theory_free_energy", sel),
                ("sim_free_energy", sel),
            )
        )

    def gap(ds):
        return float((ds["theory_mf_bound"] - ds["theory_free_energy"]).min()), None

    checks.append(Derived("min over T of B − F (mean-field bound, ≥ 0)", gap, lower=0.0))
    return checks


EXACTNESS = FigureSpec(
    name="sampling-exactness",
    paper=PAPER,
    citation=CITATION,
    figure="§6.2, §9.3, §9.6: exact checks",
    caption=(
        "A 3 × 3 Potts problem (3 states, random single-site costs, ferromagnetic "
        "nearest-neighbour couplings) enumerated exactly (3^9 = 19683 labelings): the "
        "heat-bath sampler's mean cost and the free energy by thermodynamic integration "
        "(12 Gauss–Legendre nodes in β) agree with enumeration within Monte Carlo error, "
        "and the mean-field bound B lies above F at every T (§6.2)."
    ),
    grid={"temperature": _EXACT_T},
    settings={
        "quick": {"n_seeds": 16, "n_sweeps": 400},
        "full": {"n_seeds": 40, "n_sweeps": 1000},
    },
    outputs={
        "theory_free_energy": (),
        "theory_mean_energy": (),
        "theory_mf_bound": (),
        "sim_mean_energy": (),
        "sim_free_energy": (),
    },
    coords=lambda s: {},
    theory=_exact_theory,
    simulation=_exact_simulation,
    plot=_plot_exact,
    checks=_exact_checks,
    base_seed=20261201,
)


_SA_STEPS = (10, 30, 100, 300, 1000)


_DA_RATES = (0.5, 0.8, 0.9, 0.95)


_METHODS = (
    tuple(f"SA {s} sweeps" for s in _SA_STEPS)
    + tuple(f"DA cooling {a:g}" for a in _DA_RATES)
    + ("KMeans n_init=1", "KMeans n_init=10")
)


_PROBLEMS = {
    # name: (n_samples, centers, n_features, cluster_std)
    "8 blobs, 2-D": (400, 8, 2, 1.0),
    "12 blobs, 5-D, overlapping": (600, 12, 5, 2.0),
}


def _sa_da_simulation(point, settings, rng):
    from sklearn.cluster import KMeans
    from sklearn.datasets import make_blobs

    from statmechlearn.cluster import DeterministicAnnealing
    from statmechlearn.inference import CoolingSchedule, KMeansCost, simulated_annealing

    n, k, d, std = _PROBLEMS[point["problem"]]
    seed = int(rng.integers(2**31 - 1))
    X, _ = make_blobs(
        n, n_features=d, centers=k, cluster_std=std, center_box=(-10, 10), random_state=seed
    )
    cost = KMeansCost(X, k)
    t_c = 2.0 * float(np.linalg.eigvalsh(np.cov(X.T, bias=True))[-1])
    # compile (or load) the kernel outside the timed region
    simulated_annealing(cost, CoolingSchedule("exponential", 1.0, 0.5, 2), random_state=0)
    costs, secs = [], []
    for steps in _SA_STEPS:
        start = time.perf_counter()
        res = simulated_annealing(
            cost, CoolingSchedule("exponential", t_c, 1e-3 * t_c, steps), random_state=rng
        )
        secs.append(time.perf_counter() - start)
        costs.append(res.best_energy)
    for a in _DA_RATES:
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            da = DeterministicAnnealing(k, cooling_rate=a, random_state=seed).fit(X)
        secs.append(time.perf_counter() - start)
        costs.append(float(cost.energy(da.labels_)[0]))
    for n_init in (1, 10):
        start = time.perf_counter()
        km = KMeans(k, n_init=n_init, random_state=seed).fit(X)
        secs.append(time.perf_counter() - start)
        costs.append(float(cost.energy(km.labels_)[0]))
    costs = np.array(costs)
    return {"sim_excess": costs / costs.min() - 1.0, "sim_seconds": np.array(secs)}


def _plot_sa_da(ds, ax=None):
    n_prob = ds.sizes["problem"]
    _, ax = subplots(ax, 1, n_prob, figsize=(5.2 * n_prob, 4.2))
    ax = np.atleast_1d(ax)
    methods = [str(m) for m in ds["method"].values]
    groups = (
        ("SA", "C0", "o-", "simulated annealing (Metropolis)"),
        ("DA", "C3", "s-", "deterministic annealing"),
        ("KMeans", "0.4", "^", "KMeans"),
    )
    for j, prob in enumerate(ds["problem"].values):
        sel = ds.sel({"problem": prob})
        done = sel["sim_done"]
        ex = sel["sim_excess"].where(done)
        sec = sel["sim_seconds"].where(done)
        for prefix, color, fmt, label in groups:
            idx = [i for i, m in enumerate(methods) if m.startswith(prefix)]
            x = sec.isel(method=idx).median("seed").values
            y, e = (v.values for v in mean_se(ex.isel(method=idx)))
            marker, line = fmt[0], "-" if fmt.endswith("-") else "none"
            plot_simulation(ax[j], x, y, e, marker=marker, linestyle=line, color=color, label=label)
            for xi, yi, m in zip(x, y, (methods[i] for i in idx), strict=True):
                ax[j].annotate(
                    m.split(" ", 1)[1],
                    (xi, yi),
                    fontsize=6,
                    xytext=(3, 3),
                    textcoords="offset points",
                )
        ax[j].set_xscale("log")
        ax[j].set_yscale("symlog", linthresh=1e-3)
        ax[j].set_xlabel("wall time [s] (median over seeds)")
        ax[j].set_ylabel("final cost / best found − 1 (mean ± SE)")
        ax[j].set_title(str(prob), fontsize=9)
        ax[j].legend(fontsize=8)
    return ax


def _sa_da_checks(settings):
    def stat(problem, method, var):
        return lambda ds: measure(_runs(ds, {"problem": problem}, var, method))

    def sa_vs_kmeans(ds):
        # cost of SA's partition over KMeans(n_init=10)'s, both as excess over the best found
        at = {"problem": "8 blobs, 2-D"}
        sa = _runs(ds, at, "sim_excess", "SA 1000 sweeps")
        km = _runs(ds, at, "sim_excess", "KMeans n_init=10")
        return measure((1.0 + sa) / (1.0 + km) - 1.0)

    checks = [
        Derived(
            "8 blobs, 2-D: k-means cost of SA (1000 sweeps) / KMeans(n_init=10) − 1: slow "
            "cooling reaches the optimum that Lloyd's restarts find on separated blobs",
            sa_vs_kmeans,
            target=0.0,
            scale=1.0,
            source="simulation",
        )
    ]
    for prob in _PROBLEMS:
        at = {"problem": prob}
        checks.append(
            Derived(
                f"{prob}: excess cost SA 1000 sweeps − DA cooling 0.9, paired",
                _paired(at, "sim_excess", "SA 1000 sweeps", "DA cooling 0.9"),
                source="simulation",
                reported=True,
            )
        )
        checks.append(
            Derived(
                f"{prob}: excess cost SA 1000 − SA 10 sweeps, paired (< 0: slower cooling wins)",
                _paired(at, "sim_excess", "SA 1000 sweeps", "SA 10 sweeps"),
                upper=0.0,
                scale=lambda ds, at=at: float(np.mean(_runs(ds, at, "sim_excess", "SA 10 sweeps"))),
                source="simulation",
            )
        )
        for m in ("SA 1000 sweeps", "DA cooling 0.9", "KMeans n_init=10"):
            checks.append(
                Derived(
                    f"{prob}: mean excess cost, {m}",
                    stat(prob, m, "sim_excess"),
                    source="simulation",
                    reported=True,
                )
            )
        for m in ("SA 1000 sweeps", "DA cooling 0.9"):
            checks.append(
                Derived(
                    f"{prob}: seconds, {m} (mean ± SE)",
                    stat(prob, m, "sim_seconds"),
                    source="simulation",
                    reported=True,
                )
            )
    return checks


SA_VS_DA = FigureSpec(
    name="sampling-sa-vs-da",
    paper=PAPER,
    citation=CITATION,
    figure="§9.8: simulated vs deterministic annealing",
    caption=(
        "The k-means cost (centroids at the cluster means) of make_blobs problems, "
        "minimised by simulated annealing (single-site Metropolis, one sweep per "
        "temperature, exponential cooling from T_c = 2λ_max to 10⁻³ T_c in 10 to 1000 "
        "steps) and by deterministic annealing (cooling rates 0.5 to 0.95); KMeans "
        "(1 and 10 starts) for reference. Final cost over the best any method found, "
        "against wall time. Slow simulated annealing reaches the optimum on separated "
        "blobs (checked against KMeans' best of 10 restarts); "
        "deterministic annealing is not guaranteed to (a split can follow a local "
        "minimum), however slowly it cools."
    ),
    grid={"problem": tuple(_PROBLEMS)},
    settings={"quick": {"n_seeds": 10}, "full": {"n_seeds": 32}},
    outputs={"sim_excess": ("method",), "sim_seconds": ("method",)},
    coords=lambda s: {"method": np.array(_METHODS)},
    simulation=_sa_da_simulation,
    plot=_plot_sa_da,
    checks=_sa_da_checks,
    base_seed=20261202,
)


_DENOISE_METHODS = ("mean field", "Gibbs", "ICM")


def _denoise_simulation(point, settings, rng):
    from statmechlearn.inference import IsingDenoiser, field_from_flip_probability

    clean = horse_image()
    p = point["flip_probability"]
    noisy = clean ^ (rng.random(clean.shape) < p)
    mu = field_from_flip_probability(p)
    errors, secs = [], []
    for method in ("mean_field", "gibbs", "icm"):
        den = IsingDenoiser(
            coupling=settings["coupling"],
            field=mu,
            method=method,
            n_chains=settings["n_chains"],
            n_sweeps=settings["n_sweeps"],
            random_state=rng,
        )
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = den.fit_transform(noisy)
        secs.append(time.perf_counter() - start)
        errors.append(np.mean(out != clean))
    return {
        "sim_error": np.array(errors),
        "sim_seconds": np.array(secs),
        "sim_noise": np.array(np.mean(noisy != clean)),
    }


def _denoise_shared(settings):
    """One example at flip probability 0.2 (seed 0): noisy, mean field and ICM."""
    from statmechlearn.inference import IsingDenoiser, field_from_flip_probability

    clean = horse_image()
    noisy = clean ^ (np.random.default_rng(0).random(clean.shape) < 0.2)
    mu = field_from_flip_probability(0.2)
    out = {"shared_noisy": noisy.astype(float)}
    for method in ("mean_field", "icm"):
        den = IsingDenoiser(coupling=settings["coupling"], field=mu, method=method).fit(noisy)
        out[f"shared_{method}"] = den.denoised_.astype(float)
    return out


def _plot_denoise(ds, ax=None):
    _, ax = subplots(ax, 1, 2, figsize=(10, 4.2))
    panels = [ds[v].values for v in ("shared_noisy", "shared_mean_field", "shared_icm")]
    ax[0].imshow(np.hstack(panels), cmap="gray")
    ax[0].set_title("flip probability 0.2: noisy | mean field | ICM", fontsize=9)
    ax[0].axis("off")
    p = ds["flip_probability"].values
    done = ds["sim_done"]
    # the noisy image itself: its pixel error is p (a reference through stored points)
    ax[1].plot(p, p, ":", color="0.5", gid="guide", label="no de-noising (error $= p$)")
    for j, m in enumerate(ds["method"].values):
        mean, se = mean_se(ds["sim_error"].sel({"method": m}).where(done))
        plot_simulation(ax[1], p, mean, se, linestyle="-", color=f"C{j}", label=str(m))
    ax[1].set_yscale("log")
    ax[1].set_xlabel("flip probability $p$")
    ax[1].set_ylabel("pixel error (mean ± SE)")
    ax[1].legend(fontsize=8)
    return ax


def _denoise_checks(settings):
    def worst_ratio(ds):
        e = ds["sim_error"].where(ds["sim_done"]).mean("seed")
        return float((e / ds["flip_probability"]).max()), None

    checks = [
        Derived(
            "max over p and methods of pixel error / p (< 1: every method de-noises)",
            worst_ratio,
            upper=1.0,
            source="simulation",
            smoke=True,
            note="far from the bound at β = 2: a sanity check",
        ),
    ]
    for p in (0.1, 0.2):
        at = {"flip_probability": p}
        for better in ("mean field", "Gibbs"):
            checks.append(
                Derived(
                    f"p={p:g}: pixel error {better} − ICM, paired (< 0: ICM stops in a local "
                    "minimum)",
                    _paired(at, "sim_error", better, "ICM"),
                    upper=0.0,
                    scale=lambda ds, at=at: float(np.mean(_runs(ds, at, "sim_error", "ICM"))),
                    source="simulation",
                )
            )
        for m in _DENOISE_METHODS:
            checks.append(
                Derived(
                    f"p={p:g}: pixel error, {m} (mean ± SE)",
                    lambda ds, at=at, m=m: measure(_runs(ds, at, "sim_error", m)),
                    source="simulation",
                    reported=True,
                )
            )
    return checks


DENOISING = FigureSpec(
    name="sampling-denoising",
    paper=PAPER,
    citation=CITATION,
    figure="§9.1: Ising de-noising",
    caption=(
        "scikit-image's binary horse (328 × 400) with each pixel flipped with probability "
        "p, de-noised with the Ising energy of §9.1 (4 neighbours, coupling β = 2, data "
        "term μ = ½ log((1 − p)/p), T = 1) by mean field (checkerboard-asynchronous), "
        "heat-bath Gibbs sampling (posterior marginals thresholded at ½) and ICM. Mean "
        "field and Gibbs sampling agree; ICM stops in the first local minimum and "
        "keeps flipped pairs and clumps."
    ),
    grid={"flip_probability": (0.05, 0.1, 0.2, 0.3)},
    settings={
        "quick": {"n_seeds": 10, "coupling": 2.0, "n_chains": 1, "n_sweeps": 60},
        "full": {"n_seeds": 5, "coupling": 2.0, "n_chains": 2, "n_sweeps": 200},
    },
    outputs={
        "sim_error": ("method",),
        "sim_seconds": ("method",),
        "sim_noise": (),
        "shared_noisy": ("row", "col"),
        "shared_mean_field": ("row", "col"),
        "shared_icm": ("row", "col"),
    },
    coords=lambda s: {
        "method": np.array(_DENOISE_METHODS),
        "row": np.arange(_HORSE_SHAPE[0]),
        "col": np.arange(_HORSE_SHAPE[1]),
    },
    shared=_denoise_shared,
    simulation=_denoise_simulation,
    requires=("skimage",),
    plot=_plot_denoise,
    checks=_denoise_checks,
    base_seed=20261203,
)


def _regions(step=2):
    """Three regions on the horse's grid taken every ``step`` pixels: background, horse, a disc."""
    horse = horse_image()[::step, ::step]
    h, w = horse.shape
    yy, xx = np.mgrid[:h, :w]
    truth = horse.astype(np.int64)
    disc = (yy - 0.78 * h) ** 2 + (xx - 0.18 * w) ** 2 < (0.2 * h) ** 2
    truth[disc] = 2
    return truth


def _smooth_simulation(point, settings, rng):
    from sklearn.cluster import KMeans

    from statmechlearn.cluster import SmoothKMeans
    from statmechlearn.inference import grid_graph

    truth = _regions(settings["step"])
    noisy = truth + rng.normal(0.0, point["noise"], truth.shape)
    X = noisy.reshape(-1, 1)
    seed = int(rng.integers(2**31 - 1))
    start = time.perf_counter()
    sk = SmoothKMeans(
        3,
        smoothness=settings["smoothness"],
        connectivity=grid_graph(truth.shape),
        cooling_rate=settings["cooling_rate"],
        random_state=seed,
    ).fit(X)
    sk_s = time.perf_counter() - start
    start = time.perf_counter()
    km = KMeans(3, n_init=10, random_state=seed).fit(X)
    km_s = time.perf_counter() - start
    return {
        "sim_accuracy": np.array(
            [
                matched_accuracy(truth.ravel(), sk.labels_),
                matched_accuracy(truth.ravel(), km.labels_),
            ]
        ),
        "sim_seconds": np.array([sk_s, km_s]),
    }


def _smooth_shared(settings):
    """One example at noise 0.8 (seed 0): the noisy image and its smooth k-means segmentation."""
    from statmechlearn.cluster import SmoothKMeans
    from statmechlearn.inference import grid_graph

    truth = _regions(settings["step"])
    noisy = truth + np.random.default_rng(0).normal(0.0, 0.8, truth.shape)
    sk = SmoothKMeans(
        3,
        smoothness=settings["smoothness"],
        connectivity=grid_graph(truth.shape),
        cooling_rate=settings["cooling_rate"],
        random_state=0,
    ).fit(noisy.reshape(-1, 1))
    order = np.argsort(sk.cluster_centers_[:, 0])
    seg = np.argsort(order)[sk.labels_].reshape(truth.shape)
    return {"shared_noisy": noisy, "shared_segmentation": seg.astype(float)}


def _plot_smooth(ds, ax=None):
    _, ax = subplots(ax, 1, 2, figsize=(10, 4.2))
    ax[0].imshow(
        np.hstack([ds["shared_noisy"].values, ds["shared_segmentation"].values]), cmap="gray"
    )
    ax[0].set_title(r"$\sigma = 0.8$: noisy | smooth k-means", fontsize=9)
    ax[0].axis("off")
    s = ds["noise"].values
    done = ds["sim_done"]
    for j, m in enumerate(ds["method"].values):
        mean, se = mean_se(ds["sim_accuracy"].sel({"method": m}).where(done))
        plot_simulation(ax[1], s, mean, se, linestyle="-", color=f"C{j}", label=str(m))
    ax[1].set_xlabel(r"noise $\sigma$ (levels 0, 1, 2)")
    ax[1].set_ylabel("accuracy vs the regions (mean ± SE)")
    ax[1].legend(fontsize=8)
    return ax


def _smooth_checks(settings):
    checks = []
    for sigma in (0.4, 0.8, 1.0):
        at = {"noise": sigma}
        checks.append(
            Derived(
                f"σ={sigma:g}: accuracy k-means − smooth k-means, paired (< 0: the smoothness "
                "term helps)",
                _paired(at, "sim_accuracy", "k-means", "smooth k-means"),
                upper=0.0,
                scale=lambda ds, at=at: float(np.mean(_runs(ds, at, "sim_accuracy", "k-means"))),
                source="simulation",
            )
        )
        for m in ("smooth k-means", "k-means"):
            checks.append(
                Derived(
                    f"σ={sigma:g}: accuracy, {m} (mean ± SE)",
                    lambda ds, at=at, m=m: measure(_runs(ds, at, "sim_accuracy", m)),
                    source="simulation",
                    reported=True,
                )
            )
    return checks


SMOOTH = FigureSpec(
    name="sampling-smooth-kmeans",
    paper=PAPER,
    citation=CITATION,
    figure="§6.6: smooth k-means",
    caption=(
        "A three-region image (background 0, the horse 1, a disc 2; the horse's 328 × 400 "
        "grid taken every 2nd pixel, every 4th in quick mode) "
        "with Gaussian noise σ, segmented pixel by pixel by k-means (10 starts) and by "
        "smooth k-means (λ = 1 per disagreeing 4-neighbour pair, annealed mean field, "
        "cooling rate 0.8); "
        "accuracy against the regions after the best matching of labels."
    ),
    grid={"noise": (0.4, 0.6, 0.8, 1.0)},
    settings={
        "quick": {"n_seeds": 10, "smoothness": 1.0, "cooling_rate": 0.8, "step": 4},
        "full": {"n_seeds": 16, "smoothness": 1.0, "cooling_rate": 0.8, "step": 2},
    },
    outputs={
        "sim_accuracy": ("method",),
        "sim_seconds": ("method",),
        "shared_noisy": ("row", "col"),
        "shared_segmentation": ("row", "col"),
    },
    coords=lambda s: {
        "method": np.array(["smooth k-means", "k-means"]),
        "row": np.arange(-(-_HORSE_SHAPE[0] // s["step"])),
        "col": np.arange(-(-_HORSE_SHAPE[1] // s["step"])),
    },
    shared=_smooth_shared,
    simulation=_smooth_simulation,
    requires=("skimage",),
    plot=_plot_smooth,
    checks=_smooth_checks,
    base_seed=20261204,
)

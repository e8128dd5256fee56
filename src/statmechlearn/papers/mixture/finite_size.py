"""The mixture's order parameters over a ladder of N, extrapolated to N -> infinity
against the saddle point.
"""

import math

import numpy as np

from statmechlearn.experiments import (
    Derived,
    FigureSpec,
    Measurement,
    extrapolate_dataset,
    ladder_checks,
    mean_se,
    plot_extrapolation,
    plot_simulation,
    seeds_for,
    subplots,
)
from statmechlearn.papers.mixture._common import (
    _FIXED_POINT_TOL,
    _SAME_ENERGY,
    CITATION,
    PAPER,
    _ground,
    annealed_fixed_points,
)

__all__ = ["FSS", "FSS_CASES", "FSS_LADDER", "plot_fss"]


# ------------------------------------------------------------ finite size --
# (alpha, sigma, u0) of each case: r where the RS ground state is the unique,
# stable minimum (Fig. 3's range); |r| in the split-random phase below
# alpha_c = 4 u0^-4 = 0.25 (theory: 0); the minima below sigma_AT = 1.55.
FSS_CASES = {
    "learning": (1.0, 2.6, 2.0),
    "random": (0.125, 1.0, 2.0),
    "minima": (1.0, 1.0, 2.0),
}


FSS_LADDER = (50, 100, 200, 400, 800, 1600)


def _fss_seeds(point, settings):
    n = point["n_features"]
    if point["case"] == "minima":
        return settings["n_seeds_minima"] if n <= settings["n_max_minima"] else 0
    if n > settings["n_max"]:
        return 0
    # n_seeds at the smallest rung, fewer (as 1/N) above it: equal SE per rung
    return seeds_for(n, n_seeds=settings["n_seeds"], n_ref=FSS_LADDER[0])


def _fss_theory(point, settings):
    alpha, sigma, u0 = FSS_CASES[point["case"]]
    return {"theory_r": _ground(alpha, sigma, u0).R}


def _fss_simulation(point, settings, rng):
    from statmechlearn.cluster import two_centre_fixed_points
    from statmechlearn.models import TwoGaussians

    alpha, sigma, u0 = FSS_CASES[point["case"]]
    N = int(point["n_features"])
    model = TwoGaussians(N, u0=u0)
    S, _ = model.sample(round(alpha * N), rng)
    out = {"sim_r": math.nan, "sim_n_minima": math.nan, "sim_spread_nats": math.nan}
    if point["case"] == "minima":
        starts = rng.standard_normal((settings["n_starts"], N)) / math.sqrt(N)
        fp = two_centre_fixed_points(S, sigma, starts, max_iter=20000, tol=_FIXED_POINT_TOL)
        e = np.sort(fp.energy[fp.converged])
        if e.size:
            out["sim_n_minima"] = 1 + int(np.sum(np.diff(e) > _SAME_ENERGY))
            out["sim_spread_nats"] = float(S.shape[0] * (e[-1] - e[0]))
        return out
    dU, _, ok = annealed_fixed_points(S, [sigma], rng)
    out["sim_r"] = float(abs(model.order_parameters(dU).R[0])) if ok[0] else math.nan
    return out


def plot_fss(ds, ax=None):
    """r against 1/N (learning), |r| against 1/√N (split-random), minima against N."""
    if ax is None:
        _, axes = subplots(None, 1, 3, figsize=(12.0, 3.8))
    else:
        axes = [ax, ax.inset_axes([0.62, 0.12, 0.35, 0.35]), None]
    learning = extrapolate_dataset(ds, "sim_r", sel={"case": "learning"})
    plot_extrapolation(
        axes[0],
        learning,
        theory=float(ds["theory_r"].sel(case="learning").isel(n_features=0)),
        label="DA, simulation (mean ± SE)",
    )
    axes[0].set_ylabel("$r$")
    axes[0].set_title(r"$\alpha = 1$, $\sigma = 2.6$: $r \to$ RS theory")
    axes[0].legend(fontsize=8)
    random = extrapolate_dataset(ds, "sim_r", sel={"case": "random"}, form="1/sqrt(N)")
    plot_extrapolation(axes[1], random, theory=0.0, color="C2")
    axes[1].set_ylabel("$|r|$")
    axes[1].set_title(r"$\alpha = 0.125 < \alpha_c$: $|r| \to 0$")
    if axes[2] is not None:
        d = ds.sel(case="minima")
        done = d["sim_done"]
        n = d["n_features"].values
        for var, color, label in (
            ("sim_n_minima", "C1", "distinct minima found (mean ± SE)"),
            ("sim_spread_nats", "C3", r"$N\cdot$(energy spread), nats (mean ± SE)"),
        ):
            mean, se = mean_se(d[var].where(done))
            keep = done.sum("seed").values >= 2
            plot_simulation(
                axes[2],
                n[keep],
                mean.values[keep],
                se.values[keep],
                linestyle="-",
                color=color,
                label=label,
            )
        axes[2].set_xscale("log")
        axes[2].set_yscale("log")
        axes[2].set_xlabel("$N$")
        axes[2].set_title(r"$\alpha = 1$, $\sigma = 1.0 < \sigma_{AT}$: random-start minima")
        axes[2].legend(fontsize=8)
    return axes[0]


def _log_slope(var):
    def compute(ds):
        d = ds.sel(case="minima")
        done = d["sim_done"].values
        n = d["n_features"].values.astype(float)
        means = [np.mean(d[var].values[i][done[i]]) for i in range(n.size) if done[i].sum() >= 2]
        ns = [n[i] for i in range(n.size) if done[i].sum() >= 2]
        if len(ns) < 2 or min(means) <= 0:
            return math.nan, None
        slope, _ = np.polyfit(np.log(ns), np.log(means), 1)
        return float(slope), None

    return compute


def _random_overlap_slope(ds):
    """Weighted least-squares slope of ln mean|r| against ln N, with its standard error."""
    d = ds.sel(case="random")
    mean, se = mean_se(d["sim_r"].where(d["sim_done"]))
    k = d["sim_done"].sum("seed").values
    keep = k >= 2
    mean, se = mean.values[keep], se.values[keep]
    n = d["n_features"].values[keep].astype(float)
    if n.size < 3 or np.any(mean <= 0):
        return math.nan, None
    x, y, w = np.log(n), np.log(mean), (mean / se) ** 2
    design = np.column_stack([np.ones_like(x), x])
    cov = np.linalg.inv(design.T @ (design * w[:, None]))
    coef = cov @ (design.T @ (w * y))
    return Measurement(float(coef[1]), float(math.sqrt(cov[1, 1])), int(k[keep].min()))


def _fss_checks(settings):
    return [
        *ladder_checks(
            "r at α = 1, σ = 2.6 (DA)",
            "sim_r",
            theory=("theory_r", {"case": "learning"}),
            sel={"case": "learning"},
            note=(
                "RS-stable, unique minimum: the mean over samples has O(1/N) corrections; "
                "the spread over samples is ≈ 1.2/√N, so the quick ladder is smoke and the "
                "full one (N to 1600) evidence"
            ),
        ),
        Derived(
            "|r| at α = 0.125 < α_c, σ = 1.0 (split-random phase): log-log slope of the "
            "mean over samples vs N",
            _random_overlap_slope,
            # quick mode's 6 runs at N = 400 leave it without power (slope -0.43 +- 0.12)
            **({"upper": 0.0} if settings["n_max"] >= 1600 else {"reported": True}),
            source="simulation",
            scale=0.5,
            note=(
                "r = 0 at N → ∞ below α_c: |r| must fall with N (a learning state would "
                "level off, slope → 0); asymptotically like N^-1/2, but at α_c/2 the spike "
                "is 0.71 of the BBP threshold and N ≤ 1600 is still in the crossover: "
                "√N·|r| grows from 4.7 to 7.8 over N = 50 … 800 (full run), so an intercept "
                "fit in N^-1/2 is biased (0.125 ± 0.023) and is not the check"
            ),
        ),
        Derived(
            "log-log slope of the number of distinct minima found vs N (α = 1, σ = 1.0 < σ_AT)",
            _log_slope("sim_n_minima"),
            source="simulation",
            reported=True,
            note="saturates at the number of starts once every start finds its own minimum",
        ),
        Derived(
            "log-log slope of N·(energy spread of the minima found) vs N (σ = 1.0 < σ_AT)",
            _log_slope("sim_spread_nats"),
            source="simulation",
            reported=True,
            note="1 if the minima differ by O(1) per pattern, 0 if by O(1) nats in total",
        ),
    ]


FSS = FigureSpec(
    name="mixture-fss",
    paper=PAPER,
    citation=CITATION,
    figure="finite size (Figs. 1, 3)",
    caption=(
        "Finite-size scaling, u₀ = 2. Left: r of deterministic annealing at α = 1, σ = 2.6 "
        "(Fig. 3's RS-stable range) at a ladder of N with more samples at small N (equal "
        "standard error per rung), fitted by r(N) = r∞ + b/N; star: RS theory. Middle: |r| at "
        "α = 0.125, half the retarded-learning threshold α_c = 4u₀⁻⁴, where theory gives "
        "r = 0: the finite-N overlap falls like N^-1/2 (the rounding of the transition). "
        "Right: below σ_AT (α = 1, σ = 1.0) the number of distinct minima that random "
        "starts find and their energy spread, against N."
    ),
    grid={"case": tuple(FSS_CASES), "n_features": FSS_LADDER},
    settings={
        "quick": {
            "n_seeds": 48,
            "n_max": 400,
            "n_seeds_minima": 4,
            "n_max_minima": 200,
            "n_starts": 6,
        },
        "full": {
            "n_seeds": 768,
            "n_max": 1600,
            "n_seeds_minima": 8,
            "n_max_minima": 800,
            "n_starts": 10,
        },
    },
    outputs={
        "theory_r": (),
        "sim_r": (),
        "sim_n_minima": (),
        "sim_spread_nats": (),
    },
    coords=lambda s: {},
    theory=_fss_theory,
    simulation=_fss_simulation,
    seeds=_fss_seeds,
    plot=plot_fss,
    checks=_fss_checks,
    base_seed=19940501,
)

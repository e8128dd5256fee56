"""Fig. 2 of Dietrich & Opper: the angle Phi of soft selection over five decades of
alpha, simulated at the N each alpha needs.
"""

import math

import numpy as np

from statmechlearn.experiments import (
    Check,
    Derived,
    FigureSpec,
    plot_theory,
)
from statmechlearn.papers.outliers._common import (
    CITATION,
    GAMMA,
    PAPER,
    _axes,
    _errorbars,
    simulate_selection,
)
from statmechlearn.theory import outliers as theory

__all__ = ["FIG2", "FIG2_ALPHAS", "fig2_n_features", "plot_fig2"]


FIG2_ALPHAS = tuple(float(a) for a in np.geomspace(0.2, 2000.0, 17).round(3))


def _fig2_theory(point, settings):
    res = theory.soft_selection(point["alpha"], point["eta"], gamma=GAMMA).branch()
    asym = theory.soft_selection_asymptotics(point["eta"], gamma=GAMMA)
    return {
        "theory_Phi": res.Phi,
        # eq. (29): Phi ~ sqrt(c / alpha) / (pi R_inf), from its own saddle point at alpha = inf
        "theory_Phi_asymptote": math.sqrt(asym.c / point["alpha"]) / (math.pi * asym.R_inf),
    }


def fig2_n_features(alpha, settings):
    """N of the Fig. 2 simulation at alpha: n_features, capped so that P <= max_examples.

    X holds P * N doubles: at alpha = 2000 and N = 500 that is 4 GB per run,
    so beyond ``max_examples / n_features`` the simulation runs at
    ``N = max_examples / alpha`` (400 MB); Phi is self-averaging.
    """
    return int(min(settings["n_features"], settings["max_examples"] // alpha))


def _fig2_seeds(point, settings):
    simulated = point["eta"] == 0.0 and point["alpha"] <= settings["sim_alpha_max"]
    return settings["n_seeds"] if simulated else 0  # the paper simulates eta = 0 only


def _fig2_sim(point, settings, rng):
    N = fig2_n_features(point["alpha"], settings)
    runs = simulate_selection(point["alpha"], 0.0, n_features=N, n_runs=1, rng=rng)
    return {"sim_Phi": runs["soft"].Phi[0]}


def plot_fig2(ds, ax=None):
    """Phi(alpha) of EM at eta = 0 and 4 (paper Fig. 2)."""
    ax = _axes(ax)
    alphas = ds["alpha"].values
    for k, eta in enumerate(ds["eta"].values):
        plot_theory(
            ax,
            alphas,
            ds["theory_Phi"].sel(eta=eta),
            color=f"C{k}",
            label=rf"theory $\eta={eta:g}$",
        )
        sub = ds.sel(eta=eta)
        if np.isfinite(sub["sim_Phi"].values).any():
            _errorbars(
                ax, sub, "sim_Phi", alphas, color=f"C{k}", label=rf"simulation (EM) $\eta={eta:g}$"
            )
    tail = alphas >= 20
    ax.plot(
        alphas[tail],
        ds["theory_Phi_asymptote"].sel(eta=0.0).values[tail],
        ":",
        color="k",
        label=r"eq. (29), $\eta=0$",
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"$\alpha$")
    ax.set_ylabel(r"$\Phi$")
    ax.legend(fontsize=8)
    return ax


def _fig2_checks(settings):
    def slope(ds):
        phi = ds["theory_Phi"].sel(eta=0.0)
        a = phi["alpha"].values
        tail = a >= 200
        return float(np.polyfit(np.log(a[tail]), np.log(phi.values[tail]), 1)[0]), None

    def ratio(ds, eta):
        at = {"eta": eta, "alpha": ds["alpha"].values.max()}
        return float(ds["theory_Phi"].sel(at) / ds["theory_Phi_asymptote"].sel(at)), None

    checks = [
        Derived(
            "d ln Phi / d ln alpha at alpha >= 200, eta=0 (eq. 29: -1/2)",
            slope,
            lower=-0.52,
            upper=-0.48,
        ),
        Derived(
            "Phi / eq. (29) at alpha=2000, eta=0",
            lambda ds: ratio(ds, 0.0),
            lower=0.999,
            upper=1.001,
        ),
        Derived(
            "Phi / eq. (29) at alpha=2000, eta=4",
            lambda ds: ratio(ds, 4.0),
            lower=0.998,
            upper=1.002,
        ),
    ]
    for a in (0.5, 2.0, 20.0, 200.0, 2000.0):
        alpha = min(FIG2_ALPHAS, key=lambda x, a=a: abs(x - a))
        if alpha > settings["sim_alpha_max"]:
            continue
        checks.append(
            Check(
                f"Phi(alpha={alpha:g}, eta=0)",
                theory=("theory_Phi", {"alpha": alpha, "eta": 0.0}),
                simulation=("sim_Phi", {"alpha": alpha, "eta": 0.0}),
            )
        )
    return checks


FIG2 = FigureSpec(
    name="outliers-fig2",
    paper=PAPER,
    citation=CITATION,
    figure="Fig. 2",
    caption=(
        "Angle Phi between the EM estimate and B versus alpha at eta = 0 and eta = 4 "
        "(1.8% informative examples). Simulations at eta = 0 only, as in the paper; the "
        "dotted line is the asymptote eq. (29) with R_inf and c from the theory. At eta = 4 "
        "the curve drops discontinuously where the first-order transition is crossed. "
        "Full mode simulates the paper's whole range (alpha <= 2000) at N = 500, capped at "
        "P = alpha N <= 10^5 examples (N = 281 ... 50 above alpha = 200: X would take 4 GB "
        "per run at alpha = 2000, N = 500); quick mode stops at alpha = 20 for time (each "
        "further alpha costs about 1 s of CPU per seed at N = 200)."
    ),
    grid={"eta": (0.0, 4.0), "alpha": FIG2_ALPHAS},
    settings={
        "quick": {
            "n_seeds": 24,
            "n_features": 200,
            "sim_alpha_max": 20.0,
            "max_examples": 100_000,
        },
        "full": {
            "n_seeds": 100,
            "n_features": 500,
            "sim_alpha_max": 2000.0,
            "max_examples": 100_000,
        },
    },
    outputs={"theory_Phi": (), "theory_Phi_asymptote": (), "sim_Phi": ()},
    coords=lambda s: {},
    theory=_fig2_theory,
    simulation=_fig2_sim,
    seeds=_fig2_seeds,
    plot=plot_fig2,
    checks=_fig2_checks,
    base_seed=19960102,
)

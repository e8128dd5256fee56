"""Figs. 4 and 7 of Dietrich & Opper: the error of soft and hard selection against eta
at alpha = 20, every branch of the saddle point (three-solution regions, hysteresis).
"""

import numpy as np

from statmechlearn.experiments import (
    Check,
    Derived,
    FigureSpec,
    padded,
)
from statmechlearn.papers.outliers._common import (
    _LINES_COORDS,
    ALPHA_20,
    CITATION,
    GAMMA,
    MAX_BRANCHES,
    PAPER,
    _axes,
    _errorbars,
    _lines_outputs,
    _lines_shared,
    _theory_lines,
    simulate_selection,
)
from statmechlearn.theory import outliers as theory

__all__ = ["FIG4", "FIG4_ETAS", "FIG7", "plot_fig4", "plot_fig7"]


FIG4_ETAS = (0.0, 1.0, 2.0, 3.0, 3.5, 3.8, 3.9, 4.0, 4.2, 4.5, 5.0, 6.0)


def _fig4_theory(point, settings):
    eta = point["eta"]
    soft = theory.soft_selection(ALPHA_20, eta, gamma=GAMMA)
    hard = theory.hard_selection(ALPHA_20, eta, gamma=GAMMA)
    return {
        "theory_Phi_soft": soft.branch().Phi,
        "theory_Phi_hard": hard.branch().Phi,
        "theory_Phi_soft_branches": padded(soft.Phi[:MAX_BRANCHES], MAX_BRANCHES),
        "theory_n_branches": soft.n_branches,
    }


def _fig4_sim(point, settings, rng):
    runs = simulate_selection(
        ALPHA_20,
        point["eta"],
        n_features=settings["n_features"],
        n_runs=1,
        rng=rng,
        methods=("soft", "hard"),
    )
    return {"sim_Phi_soft": runs["soft"].Phi[0], "sim_Phi_hard": runs["hard"].Phi[0]}


def plot_fig4(ds, ax=None):
    """Phi vs eta at alpha = 20 with the three-solution region (paper Fig. 4)."""
    ax = _axes(ax)
    _theory_lines(ax, ds, "soft", "C0", "theory")
    _errorbars(
        ax, ds, "sim_Phi_soft", ds["eta"].values, color="C0", label="simulation: EM from Hebb"
    )
    ax.set_xlim(-0.2, 6.5)
    ax.set_xlabel(r"$\eta$")
    ax.set_ylabel(r"$\Phi$")
    ax.set_title(rf"soft selection, $\alpha=20$, N={ds.attrs.get('n_features')}")
    ax.legend(fontsize=8)
    return ax


def plot_fig7(ds, ax=None):
    """Soft against hard selection at alpha = 20 (paper Fig. 7)."""
    ax = _axes(ax)
    _theory_lines(ax, ds, "soft", "C0", "soft, theory")
    _theory_lines(ax, ds, "hard", "C1", "hard, theory")
    x = ds["eta"].values
    _errorbars(ax, ds, "sim_Phi_soft", x, color="C0", marker="D", label="soft (EM), simulation")
    _errorbars(
        ax,
        ds,
        "sim_Phi_hard",
        x + 0.04,
        color="C1",
        marker="v",
        label="hard (EM + flips), simulation",
    )
    ax.set_xlim(-0.2, 6.5)
    ax.set_xlabel(r"$\eta$")
    ax.set_ylabel(r"$\Phi$")
    ax.set_title(rf"$\alpha=20$, N={ds.attrs.get('n_features')}")
    ax.legend(fontsize=7)
    return ax


def _fig4_checks(settings):
    checks = [
        Check(
            f"Phi_soft(eta={e:g})",
            theory=("theory_Phi_soft", {"eta": e}),
            simulation=("sim_Phi_soft", {"eta": e}),
        )
        for e in (0.0, 1.0, 2.0, 3.0)
    ]

    def region(ds):
        lo, hi = ds["shared_spinodals_soft"].values
        return float(lo < float(ds["shared_eta_c_soft"]) < hi), None

    checks.append(
        Derived(
            "eta_c lies between the spinodals (three-solution region)",
            region,
            lower=1.0,
            smoke=True,
            note="true by construction (two branches can only exchange where both exist)",
        )
    )
    checks.append(
        Derived(
            "three saddle points at eta=3.9",
            lambda ds: (float(ds["theory_n_branches"].sel(eta=3.9)), None),
            lower=3.0,
            upper=3.0,
        )
    )
    return checks


def _fig7_checks(settings):
    checks = []
    for e in (0.0, 1.0, 2.0, 3.0):
        for sel in ("soft", "hard"):
            checks.append(
                Check(
                    f"Phi_{sel}(eta={e:g})",
                    theory=(f"theory_Phi_{sel}", {"eta": e}),
                    simulation=(f"sim_Phi_{sel}", {"eta": e}),
                    # every non-trivial RS branch of hard selection is AT-unstable
                    rs_unstable=sel == "hard",
                )
            )

    def soft_better(ds):
        diff = ds["theory_Phi_hard"] - ds["theory_Phi_soft"]
        return float(diff.sel(eta=[e for e in FIG4_ETAS if e <= 3.5]).min()), None

    checks.append(
        Derived(
            "min over eta <= 3.5 of Phi_hard - Phi_soft (soft is better)", soft_better, lower=0.0
        )
    )
    return checks


_FIG47_COMMON = {
    "paper": PAPER,
    "citation": CITATION,
    "grid": {"eta": FIG4_ETAS},
    "settings": {
        "quick": {"n_seeds": 40, "n_features": 100},
        "full": {"n_seeds": 100, "n_features": 100},
    },
    "outputs": {
        "theory_Phi_soft": (),
        "theory_Phi_hard": (),
        "theory_Phi_soft_branches": ("branch",),
        "theory_n_branches": (),
        "sim_Phi_soft": (),
        "sim_Phi_hard": (),
    }
    | _lines_outputs(("soft", "hard")),
    "coords": lambda s: {"branch": np.arange(MAX_BRANCHES)} | _LINES_COORDS,
    "theory": _fig4_theory,
    "shared": _lines_shared(("soft", "hard")),
    "simulation": _fig4_sim,
}


FIG4 = FigureSpec(
    name="outliers-fig4",
    figure="Fig. 4",
    caption=(
        "Phi of soft selection versus eta at alpha = 20 (N = 100, as in the paper). Dashed: "
        "every saddle point (the S-shaped branch; three coexist between the spinodals); "
        "solid: the global minimum, which jumps at the first-order transition eta_c. "
        "Points: EM from the Hebb vector, mean ± SE over runs; near eta_c single runs "
        "scatter between the metastable states."
    ),
    plot=plot_fig4,
    checks=_fig4_checks,
    base_seed=19960104,
    **_FIG47_COMMON,
)


FIG7 = FigureSpec(
    name="outliers-fig7",
    figure="Fig. 7",
    caption=(
        "Soft (MAP of J) against hard selection (MAP of the V's) at alpha = 20, N = 100. "
        "Hard selection: EM (26)-(28) from the soft solution, refined by single flips "
        "until no flip lowers the energy (10). Lines: the re-derived replica theory."
    ),
    plot=plot_fig7,
    checks=_fig7_checks,
    base_seed=19960107,
    **_FIG47_COMMON,
)

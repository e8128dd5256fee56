"""LVQ1 order parameters over a ladder of N: the simulation extrapolated to
N -> infinity against the ODEs.
"""

import numpy as np

from statmechlearn.experiments import (
    FigureSpec,
    extrapolate_dataset,
    ladder_checks,
    plot_extrapolation,
    seeds_for,
    select,
    simulation_label,
    subplots,
)
from statmechlearn.papers.lvq._common import CITATION, LABELS, PAPER, simulate_learning_curve
from statmechlearn.theory.lvq_dynamics import (
    learning_curve,
)

__all__ = ["FSS", "FSS_ALPHA", "FSS_LADDER", "plot_fss"]


#: The Fig. 2 point extrapolated in N: LVQ1 at α = 10, p₊ = 0.8, λ = 1, η = 0.2.
FSS_ALPHA = 10.0


FSS_LADDER = (50, 100, 200, 400, 800, 1600)


_FSS_QUANTITIES = {
    "ε_g": ("sim_eps_g", ("theory_eps_g", {}), {}),
    "R_{++}": ("sim_R", ("theory_R", {"S": 1, "sigma": 1}), {"S": 1, "sigma": 1}),
    "Q_{++}": ("sim_Q", ("theory_Q", {"S": 1, "T": 1}), {"S": 1, "T": 1}),
}


_FSS_NOTE = (
    "form 1/N: the overlaps follow a stochastic recursion whose drift is the ODE's and whose "
    "noise is O(N^-1/2) at fixed α; the drift is nonlinear, so the mean moves by O(1/N), "
    "and ε_g is a smooth function of the overlaps"
)


def _fss_coords(settings):
    return {"S": np.array(LABELS), "sigma": np.array(LABELS), "T": np.array(LABELS)}


def _fss_seeds(point, settings):
    """``seeds_for`` below ``n_max`` (SE ∝ 1/√(seeds·N) comparable on every rung), else 0."""
    n = int(point["n_features"])
    if n > int(settings["n_max"]):
        return 0
    return seeds_for(n, n_seeds=int(settings["n_seeds"]), n_ref=int(settings["n_ref"]))


def _fss_theory(point, settings):
    curve = learning_curve(
        "lvq1", [0.0, FSS_ALPHA], p_plus=point["p_plus"], lam=point["lam"], eta=point["eta"]
    )
    return {
        "theory_eps_g": curve.eps_g[-1],
        "theory_R": curve.R[-1],
        "theory_Q": curve.Q[-1],
    }


def _fss_simulation(point, settings, rng):
    R, Q, eps = simulate_learning_curve(
        "lvq1",
        [FSS_ALPHA],
        n_features=int(point["n_features"]),
        p_plus=point["p_plus"],
        lam=point["lam"],
        eta=point["eta"],
        rng=rng,
    )
    return {"sim_eps_g": eps[0, 0], "sim_R": R[0, 0], "sim_Q": Q[0, 0]}


def plot_fss(ds, ax=None):
    """Finite-size ladder: mean ± SE of ε_g, R₊₊, Q₊₊ at α = 10 against 1/N.

    Symbols: means over runs at each N; line: the weighted a + b/N fit (a guide);
    open square: its intercept ± SE; star: the ODE (N → ∞).

    Parameters
    ----------
    ds : xarray.Dataset
        Dataset of ``lvq-fss``.
    ax : sequence of three matplotlib Axes, optional

    Returns
    -------
    ndarray of three Axes
    """
    _, ax = subplots(ax, 1, 3, figsize=(12, 3.8))
    for panel, (name, (var, (tvar, tsel), sel)) in zip(ax, _FSS_QUANTITIES.items(), strict=True):
        ext = extrapolate_dataset(ds, var, sel=sel, form="1/N")
        theory = float(select(ds[tvar].isel(n_features=0), tsel, keep=()).values)
        before = set(panel.get_lines())
        plot_extrapolation(
            panel, ext, theory=theory, label=simulation_label(what=f"LVQ1 at α = {FSS_ALPHA:g}")
        )
        for line in panel.get_lines():
            if line not in before and line.get_linestyle() not in ("None", ""):
                line.set_gid("guide")  # the fitted a + b/N, drawn through the stored means
        panel.set_ylabel(f"${name}$" if name != "ε_g" else r"$\epsilon_g$")
        panel.set_title(
            f"N → ∞: {ext.value:.4f} ± {ext.se:.4f} (ODE {theory:.4f}); "
            f"χ²/dof = {ext.chi2:.1f}/{ext.dof}",
            fontsize=8,
        )
    ax[0].legend(frameon=False, fontsize=8)
    return ax


def _fss_checks(settings):
    checks = []
    for name, (var, theory, sel) in _FSS_QUANTITIES.items():
        checks += ladder_checks(
            f"{name}(α={FSS_ALPHA:g})", var, theory=theory, sel=sel, form="1/N", note=_FSS_NOTE
        )
    return checks


FSS = FigureSpec(
    name="lvq-fss",
    paper=PAPER,
    citation=CITATION,
    figure="finite size (Fig. 2 point)",
    caption=(
        "Finite-size scaling of the Fig. 2 point: on-line LVQ1 with p₊ = 0.8, λ = 1, "
        "η = 0.2 from the paper's start, ε_g, R₊₊ and Q₊₊ at α = 10, Monte Carlo at "
        "N = 50 … 400 (quick) or 50 … 1600 (full) with seeds ∝ 1/N (every rung has a "
        "comparable standard error), against 1/N; a weighted fit a + b/N extrapolates to "
        "N → ∞, compared with the ODEs of App. A (star). Form 1/N: the order parameters "
        "fluctuate by O(N^-1/2) about the ODE's solution and, the dynamics being "
        "nonlinear, their means are shifted by O(1/N)."
    ),
    grid={"n_features": FSS_LADDER, "p_plus": (0.8,), "lam": (1.0,), "eta": (0.2,)},
    settings={
        "quick": {"n_seeds": 256, "n_ref": 50, "n_max": 400},
        "full": {"n_seeds": 1024, "n_ref": 50, "n_max": 1600},
    },
    outputs={
        "theory_eps_g": (),
        "theory_R": ("S", "sigma"),
        "theory_Q": ("S", "T"),
        "sim_eps_g": (),
        "sim_R": ("S", "sigma"),
        "sim_Q": ("S", "T"),
    },
    coords=_fss_coords,
    theory=_fss_theory,
    simulation=_fss_simulation,
    seeds=_fss_seeds,
    plot=plot_fss,
    checks=_fss_checks,
    base_seed=20060601,
)

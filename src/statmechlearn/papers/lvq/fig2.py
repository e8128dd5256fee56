"""Fig. 2 of Biehl, Ghosh & Hammer: LVQ1 learning curves from the ODEs of App. A
against Monte Carlo at N = 200.
"""

import numpy as np

from statmechlearn.experiments import (
    Check,
    FigureSpec,
    mean_se,
    plot_simulation,
    plot_theory,
    simulation_label,
    subplots,
)
from statmechlearn.papers.lvq._common import (
    _SYMBOL,
    CITATION,
    LABELS,
    PAPER,
    _complete_runs,
    simulate_learning_curve,
)
from statmechlearn.theory.lvq_dynamics import (
    learning_curve,
)

__all__ = ["FIG2", "plot_fig2"]


def _fig2_coords(settings):
    return {
        "alpha": np.linspace(0.0, settings["alpha_max"], settings["n_theory_points"]),
        "alpha_sim": np.arange(0.0, settings["alpha_max"] + 1e-9, settings["alpha_step_sim"]),
        "S": np.array(LABELS),
        "sigma": np.array(LABELS),
        "T": np.array(LABELS),
    }


def _fig2_theory(point, settings):
    c = _fig2_coords(settings)
    alphas = np.union1d(c["alpha"], c["alpha_sim"])
    curve = learning_curve(
        "lvq1", alphas, p_plus=point["p_plus"], lam=point["lam"], eta=point["eta"]
    )
    take = np.searchsorted(alphas, c["alpha"])
    return {"theory_R": curve.R[take], "theory_Q": curve.Q[take], "theory_eps_g": curve.eps_g[take]}


def _fig2_simulation(point, settings, rng):
    alphas = _fig2_coords(settings)["alpha_sim"]
    R, Q, eps = simulate_learning_curve(
        "lvq1",
        alphas,
        n_features=settings["n_features"],
        p_plus=point["p_plus"],
        lam=point["lam"],
        eta=point["eta"],
        rng=rng,
    )
    return {"sim_R": R[0], "sim_Q": Q[0], "sim_eps_g": eps[0]}


def plot_fig2(ds, ax=None):
    """Fig. 2: R_{S sigma} (left) and Q_{ST} (right) versus alpha for LVQ1.

    Lines: ODE theory; symbols with error bars: simulation mean ± 1 SE.

    Parameters
    ----------
    ds : xarray.Dataset
        Dataset of ``lvq-fig2``.
    ax : sequence of two matplotlib Axes, optional
        Panels to draw into; a new figure with two panels by default.

    Returns
    -------
    ndarray of two Axes
    """
    import matplotlib.pyplot as plt

    _, ax = subplots(ax, 1, 2, figsize=(10, 4))
    ds = ds.squeeze([d for d in ("p_plus", "lam", "eta") if d in ds.dims], drop=False)
    pairs_R = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    pairs_Q = [(1, 1), (1, -1), (-1, -1)]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    n_seeds = int(ds["sim_done"].sum())
    for panel, var, dims, pairs in (
        (ax[0], "R", ("S", "sigma"), pairs_R),
        (ax[1], "Q", ("S", "T"), pairs_Q),
    ):
        mean, se = mean_se(_complete_runs(ds[f"sim_{var}"]))
        for i, (s, t) in enumerate(pairs):
            sel = {dims[0]: s, dims[1]: t}
            label = f"${var}_{{{_SYMBOL[s]}{_SYMBOL[t]}}}$"
            plot_theory(
                panel, ds["alpha"], ds[f"theory_{var}"].sel(sel), color=colors[i], label=label
            )
            plot_simulation(
                panel,
                ds["alpha_sim"],
                mean.sel(sel),
                se.sel(sel),
                color=colors[i],
                markerfacecolor="none",
                label=None,
            )
        # one legend entry for the line and one for the markers, in black
        plot_theory(panel, [], [], color="k", label="ODE theory")
        plot_simulation(
            panel, [], [], [], color="k", markerfacecolor="none", label=simulation_label(n_seeds)
        )
        panel.set_xlabel(r"$\alpha$")
        panel.set_ylabel(f"${var}$")
        panel.legend(frameon=False, fontsize=9)
    ax[0].set_title(f"LVQ1, N={ds.attrs['n_features']}, {n_seeds} runs", fontsize=10)
    return ax


def _fig2_checks(settings):
    alpha_max = float(settings["alpha_max"])
    checks = []
    for a in (10.0, alpha_max):
        for s in LABELS:
            for t in LABELS:
                q = f"R_{_SYMBOL[s]}{_SYMBOL[t]}(α={a:g})"
                checks.append(
                    Check(
                        q,
                        ("theory_R", {"alpha": a, "S": s, "sigma": t}),
                        ("sim_R", {"alpha_sim": a, "S": s, "sigma": t}),
                    )
                )
        for s, t in ((1, 1), (1, -1), (-1, -1)):
            q = f"Q_{_SYMBOL[s]}{_SYMBOL[t]}(α={a:g})"
            checks.append(
                Check(
                    q,
                    ("theory_Q", {"alpha": a, "S": s, "T": t}),
                    ("sim_Q", {"alpha_sim": a, "S": s, "T": t}),
                )
            )
        checks.append(
            Check(f"ε_g(α={a:g})", ("theory_eps_g", {"alpha": a}), ("sim_eps_g", {"alpha_sim": a}))
        )
    return checks


FIG2 = FigureSpec(
    name="lvq-fig2",
    paper=PAPER,
    citation=CITATION,
    figure="Fig. 2",
    caption=(
        "Overlaps R_{Sσ} (left) and Q_{ST} (right) versus α = μ/N for on-line LVQ1 "
        "with p₊ = 0.8, λ = 1, η = 0.2; prototypes start near the origin with "
        "R_{Sσ} = Q_{+-} = 0, Q_{++} = Q_{--} = 10⁻⁴. Lines: ODEs of App. A (derived "
        "form, docs/derivations/lvq_ode.md); symbols: Monte Carlo mean ± 1 SE over "
        "independent runs of the library's WTA kernel."
    ),
    grid={"p_plus": (0.8,), "lam": (1.0,), "eta": (0.2,)},
    settings={
        "quick": {
            "n_features": 200,
            "n_seeds": 24,
            "alpha_max": 50.0,
            "alpha_step_sim": 5.0,
            "n_theory_points": 201,
        },
        "full": {
            "n_features": 200,
            "n_seeds": 100,
            "alpha_max": 50.0,
            "alpha_step_sim": 2.5,
            "n_theory_points": 401,
        },
    },
    outputs={
        "theory_R": ("alpha", "S", "sigma"),
        "theory_Q": ("alpha", "S", "T"),
        "theory_eps_g": ("alpha",),
        "sim_R": ("alpha_sim", "S", "sigma"),
        "sim_Q": ("alpha_sim", "S", "T"),
        "sim_eps_g": ("alpha_sim",),
    },
    coords=_fig2_coords,
    theory=_fig2_theory,
    simulation=_fig2_simulation,
    plot=plot_fig2,
    checks=_fig2_checks,
    base_seed=20060202,
    # what `statmechlearn run lvq-fig2 --set KEY=VALUE` accepts (the model's and the ODEs' domain)
    ranges={
        "p_plus": "(0, 1)",
        "lam": "[0, inf)",
        "eta": "(0, inf)",
        "n_features": "[2, inf)",
        "n_seeds": "[2, inf)",
        "alpha_max": "(0, 1000]",
        "alpha_step_sim": "(0, inf)",
        "n_theory_points": "[2, 100001]",
    },
)

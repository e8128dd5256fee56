"""Fig. 5 of Dietrich & Opper: hysteresis of soft selection at alpha = 20, eta raised and
lowered step by step against every branch of the saddle point.
"""

import math

import numpy as np

from statmechlearn.experiments import (
    Check,
    Derived,
    FigureSpec,
    measure,
)
from statmechlearn.linear import soft_selection_em
from statmechlearn.models.outliers import OutlierMixture, informative_fraction
from statmechlearn.papers.outliers._common import (
    _LINES_COORDS,
    ALPHA_20,
    CITATION,
    GAMMA,
    PAPER,
    _axes,
    _errorbars,
    _lines_outputs,
    _lines_shared,
    _theory_lines,
)
from statmechlearn.theory import outliers as theory

__all__ = ["FIG5", "FIG5_ETAS", "plot_fig5"]


FIG5_ETAS = np.round(np.arange(2.0, 6.01, 0.25), 2)


def _fig5_theory(point, settings):
    return {
        "theory_Phi": np.array(
            [theory.soft_selection(ALPHA_20, float(e), gamma=GAMMA).branch().Phi for e in FIG5_ETAS]
        )
    }


def _fig5_sim(point, settings, rng):
    """One hysteresis loop: eta swept up then down, examples swapped, EM warm-started."""
    N = settings["n_features"]
    P = round(ALPHA_20 * N)
    model = OutlierMixture(N, 0.0, GAMMA)
    B = model.B
    noise = rng.standard_normal((P, N)) / math.sqrt(GAMMA)
    S = rng.choice([-1.0, 1.0], size=P)
    u = rng.random(P)  # example mu is informative at eta iff u_mu < 1/(1+e^eta)

    def data(eta):
        V = (u < informative_fraction(eta)).astype(float)
        return (noise + (V * S)[:, None] * B / math.sqrt(N))[None], S[None]

    out = {}
    for direction, etas in (("up", FIG5_ETAS), ("down", FIG5_ETAS[::-1])):
        J = None
        phis = []
        for eta in etas:
            X, Sb = data(eta)
            J = soft_selection_em(X, Sb, gamma=GAMMA, eta=eta, J0=J, max_iter=2000).J
            phis.append(float(model.order_parameters(J).Phi[0]))
        out[f"sim_Phi_{direction}"] = np.array(phis if direction == "up" else phis[::-1])
    return out


def plot_fig5(ds, ax=None):
    """Hysteresis of EM when eta is swept up and down (paper Fig. 5)."""
    ax = _axes(ax)
    _theory_lines(ax, ds, "soft", "C0", "theory")
    for var, colour, label in (
        ("sim_Phi_up", "C2", r"$\eta$ increasing"),
        ("sim_Phi_down", "C3", r"$\eta$ decreasing"),
    ):
        _errorbars(
            ax, ds.squeeze(), var, ds["eta"].values, color=colour, label=f"simulation, {label}"
        )
    ax.set_xlim(1.8, 6.2)
    ax.set_xlabel(r"$\eta$")
    ax.set_ylabel(r"$\Phi$")
    ax.set_title(rf"$\alpha=20$, N={ds.attrs.get('n_features')}, warm-started EM")
    ax.legend(fontsize=8)
    return ax


def _fig5_checks(settings):
    def loop_area(ds):
        # mean over the sweep of Phi(down) - Phi(up), paired by seed
        done = ds["sim_done"].squeeze().values.astype(bool)
        return measure((ds["sim_Phi_down"] - ds["sim_Phi_up"]).squeeze().values[done].mean(axis=1))

    return [
        Derived(
            "hysteresis: mean over the sweep of Phi(down) − Phi(up), paired by run (> 0)",
            loop_area,
            lower=0.0,
            scale=lambda ds: float(ds["shared_Phi_jump_soft"]),
            source="simulation",
            note="resolution relative to the theory's jump of Φ between the branches at η_c",
        ),
        Check(
            "Phi(eta=2), sweep up",
            theory=("theory_Phi", {"eta": 2.0}),
            simulation=("sim_Phi_up", {"eta": 2.0}),
        ),
    ]


FIG5 = FigureSpec(
    name="outliers-fig5",
    paper=PAPER,
    citation=CITATION,
    figure="Fig. 5",
    caption=(
        "Hysteresis at alpha = 20: eta is raised step by step (informative examples "
        "become outliers; each example's status is a fixed uniform number compared with "
        "1/(1+e^eta)) and lowered again, each EM started from the previous J. The "
        "metastable branches of the theory (dashed) are followed past eta_c."
    ),
    grid={"alpha": (ALPHA_20,)},
    settings={
        "quick": {"n_seeds": 64, "n_features": 100},
        "full": {"n_seeds": 100, "n_features": 100},
    },
    outputs={"theory_Phi": ("eta",), "sim_Phi_up": ("eta",), "sim_Phi_down": ("eta",)}
    | _lines_outputs(("soft",)),
    coords=lambda s: {"eta": FIG5_ETAS} | _LINES_COORDS,
    theory=_fig5_theory,
    shared=_lines_shared(("soft",)),
    simulation=_fig5_sim,
    plot=plot_fig5,
    checks=_fig5_checks,
    base_seed=19960105,
)

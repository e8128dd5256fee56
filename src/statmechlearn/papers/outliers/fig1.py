"""Fig. 1 of Dietrich & Opper: the squared deviation Delta of the soft-selection EM estimate
and of the Hebb rule from the teacher against alpha, at eta = 0.
"""

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

__all__ = ["FIG1", "FIG1_ALPHAS", "plot_fig1"]


FIG1_ALPHAS = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0)


def _fig1_theory(point, settings):
    a = point["alpha"]
    em = theory.soft_selection(a, 0.0, gamma=GAMMA).branch()
    hebb = theory.hebb(a, 0.0, gamma=GAMMA)
    dense = _dense(a)
    return {
        "theory_Delta_em": em.Delta,
        "theory_Phi_em": em.Phi,
        "theory_Delta_hebb": hebb.Delta,
        "theory_curve_alpha": dense,
        "theory_curve_em": np.array(
            [theory.soft_selection(x, 0.0, gamma=GAMMA).branch().Delta for x in dense]
        ),
        "theory_curve_hebb": np.array([theory.hebb(x, 0.0, gamma=GAMMA).Delta for x in dense]),
    }


#: The Hebb limit of soft selection: eta -> -inf at alpha = 5 (eta = -14 is far enough).
_HEBB_LIMIT = (5.0, -14.0)


def _fig1_shared(settings):
    alpha, eta = _HEBB_LIMIT
    return {
        "shared_R_em_hebb_limit": theory.soft_selection(alpha, eta, gamma=GAMMA).branch().R,
        "shared_R_hebb_limit": theory.hebb(alpha, eta, gamma=GAMMA).R,
    }


def _dense(alpha):
    """The theory line between this grid point and the previous one (drawn piecewise)."""
    i = FIG1_ALPHAS.index(alpha)
    lo = 0.2 if i == 0 else FIG1_ALPHAS[i - 1]
    return np.geomspace(lo, alpha, 6)


def _fig1_sim(point, settings, rng):
    runs = simulate_selection(
        point["alpha"],
        0.0,
        n_features=settings["n_features"],
        n_runs=1,
        rng=rng,
        methods=("soft", "hebb"),
    )
    return {
        "sim_Delta_em": runs["soft"].Delta[0],
        "sim_Phi_em": runs["soft"].Phi[0],
        "sim_Delta_hebb": runs["hebb"].Delta[0],
    }


def plot_fig1(ds, ax=None):
    """Delta(alpha) of EM and Hebb at eta = 0 (paper Fig. 1)."""
    ax = _axes(ax)
    alphas = ds["alpha"].values
    xs = ds["theory_curve_alpha"].values.ravel()
    for var, label, colour in (("em", "EM (soft selection)", "C0"), ("hebb", "Hebb", "C3")):
        plot_theory(
            ax, xs, ds[f"theory_curve_{var}"].values.ravel(), color=colour, label=f"theory, {label}"
        )
        _errorbars(ax, ds, f"sim_Delta_{var}", alphas, color=colour, label=f"simulation, {label}")
    ax.set_xscale("log")
    ax.set_xlabel(r"$\alpha$")
    ax.set_ylabel(r"$\Delta$")
    ax.set_title(rf"$\eta=0$, $\gamma=\tilde\gamma=10$, N={ds.attrs.get('n_features')}")
    ax.legend(fontsize=8)
    return ax


def _fig1_checks(settings):
    checks = []
    for a in (0.5, 1.0, 2.0, 5.0, 10.0):
        for var in ("Delta_em", "Phi_em"):
            checks.append(
                Check(
                    f"{var}(alpha={a:g})",
                    theory=(f"theory_{var}", {"alpha": a}),
                    simulation=(f"sim_{var}", {"alpha": a}),
                )
            )
        checks.append(
            Check(
                f"Delta_hebb(alpha={a:g})",
                theory=("theory_Delta_hebb", {"alpha": a}),
                simulation=("sim_Delta_hebb", {"alpha": a}),
            )
        )

    def hebb_limit(ds):
        # eta -> -inf of the soft-selection saddle point is the Hebb rule's closed form
        return float(ds["shared_R_em_hebb_limit"]), None

    checks.append(
        Derived(
            "Hebb limit: R of the soft-selection saddle point at eta=-14, alpha=5",
            hebb_limit,
            target=lambda ds: float(ds["shared_R_hebb_limit"]),
            tolerance=1e-5,
            note="expected: the Hebb rule's closed form eq. (25), solved independently",
        )
    )
    return checks


FIG1 = FigureSpec(
    name="outliers-fig1",
    paper=PAPER,
    citation=CITATION,
    figure="Fig. 1",
    caption=(
        "Squared deviation Delta = (J - B)^2 / N of the EM (soft-selection MAP) estimate "
        "and of the Hebb rule eq. (25) at eta = 0 (half the examples are outliers), "
        "gamma = gamma~ = 10. Lines: replica theory (exact zero-temperature limit) and "
        "the Hebb closed form; points: simulation, mean ± SE over runs."
    ),
    grid={"alpha": FIG1_ALPHAS},
    settings={
        "quick": {"n_seeds": 24, "n_features": 200},
        "full": {"n_seeds": 100, "n_features": 500},
    },
    outputs={
        "theory_Delta_em": (),
        "theory_Phi_em": (),
        "theory_Delta_hebb": (),
        "theory_curve_alpha": ("dense",),
        "theory_curve_em": ("dense",),
        "theory_curve_hebb": ("dense",),
        "shared_R_em_hebb_limit": (),
        "shared_R_hebb_limit": (),
        "sim_Delta_em": (),
        "sim_Phi_em": (),
        "sim_Delta_hebb": (),
    },
    coords=lambda s: {"dense": np.arange(6)},
    theory=_fig1_theory,
    shared=_fig1_shared,
    simulation=_fig1_sim,
    plot=plot_fig1,
    checks=_fig1_checks,
    base_seed=19960101,
)

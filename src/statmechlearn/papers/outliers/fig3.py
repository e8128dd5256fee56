"""Fig. 3 of Dietrich & Opper: the order parameters R and Q of the soft-selection MAP (the
global minimum of the replica free energy) over a grid of alpha and eta.
"""

import numpy as np

from statmechlearn.experiments import (
    Derived,
    FigureSpec,
    subplots,
)
from statmechlearn.papers.outliers._common import CITATION, GAMMA, PAPER
from statmechlearn.theory import outliers as theory

__all__ = ["FIG3", "FIG3_ALPHAS", "FIG3_ETAS", "plot_fig3", "relief"]


FIG3_ALPHAS = tuple(float(a) for a in np.geomspace(0.5, 100.0, 40).round(4))


FIG3_ETAS = np.linspace(-2.0, 8.0, 40)


def relief(alpha, etas, *, gamma=GAMMA):
    """R and Q of the global minimum along eta at fixed alpha (one continuation).

    Parameters
    ----------
    alpha : float
    etas : array_like
    gamma : float

    Returns
    -------
    R, Q : ndarray
    """
    rows = [theory.soft_selection(alpha, float(e), gamma=gamma).branch() for e in etas]
    return np.array([r.R for r in rows]), np.array([r.Q for r in rows])


def _fig3_theory(point, settings):
    R, Q = relief(point["alpha"], FIG3_ETAS)
    return {"theory_R": R, "theory_Q": Q}


def plot_fig3(ds, ax=None):
    """Relief of R and Q over (alpha, eta) (paper Fig. 3), as two colour maps."""
    if ax is None:
        fig, axes = subplots(None, 1, 2, figsize=(11, 4.4))
    else:
        fig, axes = ax.figure, [ax, ax.inset_axes([1.15, 0, 1, 1])]
    for a, var in zip(axes, ("R", "Q"), strict=True):
        mesh = a.pcolormesh(
            ds["alpha"].values,
            ds["eta"].values,
            ds[f"theory_{var}"].values.T,
            shading="auto",
            cmap="viridis",
        )
        a.set_xscale("log")
        a.set_xlabel(r"$\alpha$")
        a.set_ylabel(r"$\eta$")
        a.set_title(f"{var} of the global minimum")
        fig.colorbar(mesh, ax=a)
    return axes[0]


def _fig3_checks(settings):
    def jump(ds):
        # the largest jump of R between neighbouring eta is the first-order line
        R = ds["theory_R"].sel(alpha=max(FIG3_ALPHAS)).values
        return float(np.max(np.abs(np.diff(R)))), None

    def smooth_small_alpha(ds):
        R = ds["theory_R"].sel(alpha=min(FIG3_ALPHAS)).values
        return float(np.max(np.abs(np.diff(R)))), None

    return [
        Derived(
            "largest R jump between neighbouring eta at alpha=100 (first-order line)",
            jump,
            lower=0.3,
        ),
        Derived(
            "largest R step at alpha=0.5 (no transition: smooth)", smooth_small_alpha, upper=0.1
        ),
    ]


FIG3 = FigureSpec(
    name="outliers-fig3",
    paper=PAPER,
    citation=CITATION,
    figure="Fig. 3",
    caption=(
        "Order parameters R (left) and Q (right) of the soft-selection MAP, the global "
        "minimum of the replica free energy, over a 40 x 40 grid of alpha and eta "
        "(gamma = gamma~ = 10). The discontinuity is the first-order transition."
    ),
    grid={"alpha": FIG3_ALPHAS},
    settings={"quick": {"n_seeds": 0}, "full": {"n_seeds": 0}},
    outputs={"theory_R": ("eta",), "theory_Q": ("eta",)},
    coords=lambda s: {"eta": FIG3_ETAS},
    theory=_fig3_theory,
    plot=plot_fig3,
    checks=_fig3_checks,
    base_seed=19960103,
)

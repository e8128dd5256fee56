"""Fig. 1 of Barkai & Sompolinsky: sigma_1 and sigma_2 against alpha (the unsplit,
split-random and split-ordered phases).
"""

import math

import numpy as np

from statmechlearn.experiments import (
    Derived,
    FigureSpec,
    subplots,
)
from statmechlearn.papers.mixture._common import (
    ALPHAS_FIG1,
    CITATION,
    PAPER,
    _numeric_alpha_c,
    _numeric_sigma_1,
    _numeric_sigma_2,
)

__all__ = ["FIG1", "plot_fig1"]


_U0_CHECK = (1.0, 2.0)


def _fig1_shared(settings):
    return {"shared_alpha_c_numeric": np.array([_numeric_alpha_c(u0) for u0 in _U0_CHECK])}


def _fig1_theory(point, settings):
    from statmechlearn.theory import ml_mixture as mm

    pb = mm.phase_boundaries(point["alpha"], u0=point["u0"])
    ordered = point["alpha"] > pb.alpha_c
    return {
        "theory_sigma_1": np.array(pb.sigma_1),
        "theory_sigma_2": np.array(pb.sigma_2),
        "theory_sigma_3": np.array(pb.sigma_3),
        "theory_sigma_jump": np.array(pb.sigma_jump),
        "theory_sigma_at": np.array(pb.sigma_at),
        "theory_sigma_1_numeric": np.array(
            _numeric_sigma_1(point["alpha"], point["u0"]) if ordered else math.nan
        ),
        "theory_sigma_2_numeric": np.array(_numeric_sigma_2(point["alpha"], point["u0"])),
    }


def plot_fig1(ds, ax=None):
    """Phase diagram in the sigma-alpha plane."""
    _, ax = subplots(ax, figsize=(6.4, 4.6))
    d = ds.isel(u0=0)
    a = d["alpha"].values
    ax.plot(d["theory_sigma_1"], a, "C0-", label=r"$\sigma_1(\alpha)$: unsplit → ordered")
    ax.plot(d["theory_sigma_2"], a, "C1-", label=r"$\sigma_2(\alpha)$: unsplit → random")
    ax.plot(
        d["theory_sigma_3"],
        a,
        "C2o-",
        ms=3,
        label=r"$\sigma_3(\alpha)$: ordered → random (numerical)",
    )
    ax.plot(d["theory_sigma_at"], a, "k:", label="RS unstable below (replicon = 1)")
    ax.plot(d["theory_sigma_jump"], a, "k--", lw=0.8, label="field optimiser jumps below")
    ax.axhline(
        float(d["shared_alpha_c_numeric"].sel(u0_check=float(d["u0"]))), color="grey", lw=0.6
    )
    ax.set_yscale("log")
    ax.set_xlabel(r"$\sigma/\sigma_0$")
    ax.set_ylabel(r"$\alpha = P/N$")
    ax.set_title(r"RS theory, $u_0 = 1$ (grey: $\alpha_c = 4u_0^{-4}$)")
    ax.legend(fontsize=7)
    return ax


def _fig1_checks(settings):
    def numeric(var, alpha):
        def compute(ds):
            return float(ds[f"{var}_numeric"].sel(alpha=alpha).isel(u0=0)), None

        return compute

    def closed(var, alpha):
        return lambda ds: float(ds[var].sel(alpha=alpha).isel(u0=0))

    checks = []
    for name, var, alphas in (
        ("σ₁", "theory_sigma_1", (5.0, 10.0, 20.0)),
        ("σ₂", "theory_sigma_2", (1.0, 5.0)),
    ):
        for a in alphas:
            a_grid = min(ALPHAS_FIG1, key=lambda x, a=a: abs(x - a))
            checks.append(
                Derived(
                    f"{name}(α={a_grid:g}) from the saddle-point equations (order parameter "
                    "extrapolated to 0) vs the paper's closed form",
                    numeric(var, a_grid),
                    target=closed(var, a_grid),
                    tolerance=1e-3,
                )
            )
    for k, u0 in enumerate(_U0_CHECK):
        checks.append(
            Derived(
                f"α_c from the saddle point (u₀={u0:g}) vs the paper's 4u₀⁻⁴",
                lambda ds, k=k: (float(ds["shared_alpha_c_numeric"][k]), None),
                target=4 / u0**4,
                tolerance=1e-6 * 4 / u0**4,
            )
        )
    return checks


FIG1 = FigureSpec(
    name="mixture-fig1",
    paper=PAPER,
    citation=CITATION,
    figure="Fig. 1",
    caption=(
        "Phase diagram of the ML estimate, u₀ = 1: unsplit above σ₁ (α > α_c) or σ₂; "
        "split-ordered between σ₁ and σ₃; split-random below. σ₁, σ₂ are the paper's "
        "closed forms (checked against the saddle-point equations); σ₃ and the "
        "replica-symmetry instability lines are computed (the paper does not give them)."
    ),
    grid={"alpha": ALPHAS_FIG1, "u0": (1.0,)},
    settings={"quick": {"n_seeds": 0}, "full": {"n_seeds": 0}},
    outputs={
        "theory_sigma_1": (),
        "theory_sigma_2": (),
        "theory_sigma_3": (),
        "theory_sigma_jump": (),
        "theory_sigma_at": (),
        "theory_sigma_1_numeric": (),
        "theory_sigma_2_numeric": (),
        "shared_alpha_c_numeric": ("u0_check",),
    },
    coords=lambda s: {"u0_check": np.array(_U0_CHECK)},
    theory=_fig1_theory,
    shared=_fig1_shared,
    plot=plot_fig1,
    checks=_fig1_checks,
)

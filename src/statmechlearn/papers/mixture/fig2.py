"""Fig. 2 of Barkai & Sompolinsky: the classification error of the ML classifier against the
width sigma at alpha = 5, from the replica-symmetric ground state.
"""

import functools
import math

import numpy as np

from statmechlearn.experiments import (
    Derived,
    FigureSpec,
    subplots,
)
from statmechlearn.papers.mixture._common import (
    CITATION,
    PAPER,
    _ground,
    _numeric_sigma_1,
    _numeric_sigma_3,
)

__all__ = ["FIG2", "SIGMA_FIG2", "plot_fig2"]


SIGMA_FIG2 = tuple(float(s) for s in np.round(np.linspace(0.5, 2.5, 41), 4))


@functools.lru_cache(maxsize=16)
def _boundaries(alpha, u0):
    """Phase boundaries without the RS lines; shared by all sigma cells of one worker."""
    from statmechlearn.theory import ml_mixture as mm

    return mm.phase_boundaries(alpha, u0=u0, rs_lines=False)


def _fig2_theory(point, settings):
    b = _ground(point["alpha"], point["sigma"], point["u0"])
    eps = b.eps_c if b.phase != "unsplit" else math.nan
    pb = _boundaries(point["alpha"], point["u0"])
    return {
        "theory_eps_c": np.array(eps),
        "theory_r": np.array(b.R),
        "theory_q": np.array(b.Q),
        "theory_rs_stable": np.array(float(b.rs_stable)),
        "theory_sigma_1": np.array(pb.sigma_1),
        "theory_sigma_3": np.array(pb.sigma_3),
    }


def _fig2_shared(settings):
    alpha, u0 = 5.0, 1.0
    pb = _boundaries(alpha, u0)
    return {
        "shared_sigma_1_numeric": _numeric_sigma_1(alpha, u0),
        "shared_sigma_3_numeric": _numeric_sigma_3(alpha, u0, pb.sigma_3),
    }


def plot_fig2(ds, ax=None):
    """Classification error of the ML classifier against sigma, transitions marked."""
    _, ax = subplots(ax, figsize=(6.4, 4.4))
    d = ds.isel(alpha=0, u0=0)
    s = d["sigma"].values
    eps = d["theory_eps_c"].values
    ax.plot(s, eps, "C0-", label=r"$\epsilon_C$ (RS theory, ground state)")
    unstable = d["theory_rs_stable"].values < 0.5
    ax.plot(s[unstable], eps[unstable], "C3.", ms=4, label="RS unstable (replicon ≥ 1 or jump)")
    s1, s3 = float(d["theory_sigma_1"][0]), float(d["theory_sigma_3"][0])
    for x, name in ((s1, rf"$\sigma_1 = {s1:.2f}$"), (s3, rf"$\sigma_3 = {s3:.2f}$")):
        ax.annotate(name, (x, 0.5), xytext=(x, 0.44), arrowprops={"arrowstyle": "->"}, ha="center")
    ax.set_xlabel(r"$\sigma/\sigma_0$")
    ax.set_ylabel(r"$\epsilon_C$")
    ax.set_title(
        r"$\alpha = 5$, $u_0 = 1$ (unsplit phase above $\sigma_1$: $\epsilon_C$ undefined)"
    )
    ax.legend(fontsize=8, loc="lower right")
    return ax


def _fig2_checks(settings):
    def first(var):
        return lambda ds: (float(ds[var].isel(alpha=0, u0=0, sigma=0)), None)

    def eps_range(lo, hi, agg):
        def compute(ds):
            d = ds.isel(alpha=0, u0=0)
            sel = (d["sigma"] > lo) & (d["sigma"] < hi)
            return float(getattr(d["theory_eps_c"].where(sel), agg)()), None

        return compute

    def shared(var):
        return lambda ds: (float(ds[var]), None)

    return [
        Derived(
            "σ₁: transition to the ordered phase, from the saddle-point equations "
            "(r² of the ordered branch extrapolated to 0)",
            shared("shared_sigma_1_numeric"),
            paper_value="2.1",
            paper_source="Fig. 2 caption",
        ),
        Derived(
            "σ₃: end of the ordered branch (r² extrapolated to 0) vs the random branch's "
            "instability towards order (phase_boundaries)",
            shared("shared_sigma_3_numeric"),
            target=lambda ds: float(ds["theory_sigma_3"].isel(alpha=0, u0=0, sigma=0)),
            tolerance=1e-3,
            paper_value="0.90",
            paper_source="Fig. 2 caption",
            paper_checked=False,
            note=(
                "both determinations give 0.8936 (converged in the quadrature); the paper's "
                "0.90 is 1.3 units of its last digit above: at σ = 0.90 the ordered branch "
                "still has r = 0.034, ε_C = 0.488"
            ),
        ),
        Derived(
            "max ε_C of the ground state inside the ordered phase (0.92 < σ < 2.08): below ½",
            eps_range(0.92, 2.08, "max"),
            upper=0.4999,
            smoke=True,
            note="a sanity check of the branch choice, not an independent expectation",
        ),
    ]


FIG2 = FigureSpec(
    name="mixture-fig2",
    paper=PAPER,
    citation=CITATION,
    figure="Fig. 2",
    caption=(
        "Classification error ε_C = H(u₀ cos θ/√2) of the ML classifier against the "
        "width σ, α = 5, u₀ = 1, from the RS ground state. Arrows: σ₁ (unsplit → "
        "ordered, closed form) and σ₃ (ordered → random, where ε_C reaches 0.5 "
        "continuously). Red: the RS solution is locally unstable there."
    ),
    grid={"alpha": (5.0,), "u0": (1.0,), "sigma": SIGMA_FIG2},
    settings={"quick": {"n_seeds": 0}, "full": {"n_seeds": 0}},
    outputs={
        "theory_eps_c": (),
        "theory_r": (),
        "theory_q": (),
        "theory_rs_stable": (),
        "theory_sigma_1": (),
        "theory_sigma_3": (),
        "shared_sigma_1_numeric": (),
        "shared_sigma_3_numeric": (),
    },
    coords=lambda s: {},
    theory=_fig2_theory,
    shared=_fig2_shared,
    plot=plot_fig2,
    checks=_fig2_checks,
)

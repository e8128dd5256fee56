"""Fig. 3 of Biehl, Ghosh & Hammer: (a) VQ, LVQ+ and LVQ1 learning curves,
(b) their asymptotic errors against the Bayes-optimal linear error.
"""

import numpy as np

from statmechlearn.experiments import (
    Check,
    Derived,
    FigureSpec,
    mean_se,
    plot_simulation,
    plot_theory,
    simulation_label,
    subplots,
)
from statmechlearn.papers.lvq._common import (
    CITATION,
    PAPER,
    _complete_runs,
    simulate_learning_curve,
)
from statmechlearn.theory.lvq_dynamics import (
    asymptotic_error,
    bayes_error,
    learning_curve,
    trivial_error,
)

__all__ = ["FIG3A", "FIG3B", "FIG3_ALGORITHMS", "FIG3_INIT", "plot_fig3a", "plot_fig3b"]


#: Start of Fig. 3: the paper's (Q_++ = Q_-- = 1e-4, Q_+- = 0) with R = 1e-3 I, a tilt
#: of 10 % of |w| without which VQ's ODEs never leave the symmetric plateau.
FIG3_INIT = (1e-3 * np.eye(2), 1e-4 * np.eye(2))


FIG3_ALGORITHMS = ("vq", "lvq+", "lvq1")


_STYLE = {"vq": ("VQ", ":"), "lvq+": ("LVQ+", "--"), "lvq1": ("LVQ1", "-")}


def _fig3a_coords(settings):
    return {
        "alpha": np.linspace(0.0, settings["alpha_max"], settings["n_theory_points"]),
        "alpha_sim": np.arange(0.0, settings["alpha_max"] + 1e-9, settings["alpha_step_sim"]),
    }


def _fig3a_theory(point, settings):
    c = _fig3a_coords(settings)
    alphas = np.union1d(c["alpha"], c["alpha_sim"])
    curve = learning_curve(
        point["algorithm"],
        alphas,
        p_plus=point["p_plus"],
        lam=point["lam"],
        eta=point["eta"],
        init=FIG3_INIT,
    )
    take = np.searchsorted(alphas, c["alpha"])
    return {"theory_eps_g": curve.eps_g[take]}


def _fig3a_simulation(point, settings, rng):
    alphas = _fig3a_coords(settings)["alpha_sim"]
    if point["algorithm"] == "vq":
        # VQ leaves its plateau through finite-N fluctuations, not through the ODE's
        # tilt; that is the subject of lvq-vq-plateau, so no symbols here.
        return {"sim_eps_g": np.full(alphas.shape, np.nan)}
    _, _, eps = simulate_learning_curve(
        point["algorithm"],
        alphas,
        n_features=settings["n_features"],
        p_plus=point["p_plus"],
        lam=point["lam"],
        eta=point["eta"],
        rng=rng,
        init=FIG3_INIT,
    )
    return {"sim_eps_g": eps[0]}


def plot_fig3a(ds, ax=None):
    """Fig. 3 (left): eps_g(alpha) of VQ, LVQ+ and LVQ1.

    Parameters
    ----------
    ds : xarray.Dataset
        Dataset of ``lvq-fig3a``.
    ax : matplotlib Axes, optional

    Returns
    -------
    Axes
    """
    _, ax = subplots(ax, figsize=(6, 4))
    ds = ds.squeeze([d for d in ("p_plus", "lam", "eta") if d in ds.dims], drop=False)
    for alg in ds["algorithm"].values:
        name, style = _STYLE[str(alg)]
        sub = ds.sel(algorithm=alg)
        line = plot_theory(
            ax, sub["alpha"], sub["theory_eps_g"], linestyle=style, label=f"{name}, theory"
        )
        runs = _complete_runs(sub["sim_eps_g"])
        mean, se = mean_se(runs)
        if np.isfinite(mean.values).any():
            plot_simulation(
                ax,
                sub["alpha_sim"],
                mean,
                se,
                markerfacecolor="none",
                color=line.get_color(),
                label=simulation_label(runs.count("seed").max(), f"{name}, simulation"),
            )
    ax.set_xlabel(r"$\alpha$")
    ax.set_ylabel(r"$\epsilon_g$")
    ax.legend(frameon=False)
    p = float(ds["p_plus"])
    n_seeds = int(ds["sim_done"].any("algorithm").sum())
    ax.set_title(
        rf"$p_+={p:g}$, $\lambda={float(ds['lam']):g}$, $\eta={float(ds['eta']):g}$; "
        f"symbols: N={ds.attrs['n_features']}, {n_seeds} runs",
        fontsize=10,
    )
    return ax


def _largest_rise(eps):
    """Largest increase of a curve above its running minimum (0 if monotone)."""
    eps = np.asarray(eps)
    return float(np.max(eps - np.minimum.accumulate(eps)))


def _fig3a_checks(settings):
    checks = []
    for alg in ("lvq1", "lvq+"):
        a_max = float(settings["alpha_max"])
        for a in (10.0, a_max / 2, a_max):
            checks.append(
                Check(
                    f"{_STYLE[alg][0]} ε_g(α={a:g})",
                    ("theory_eps_g", {"algorithm": alg, "alpha": a}),
                    ("sim_eps_g", {"algorithm": alg, "alpha_sim": a}),
                )
            )
    checks.append(
        Derived(
            "LVQ1: largest rise of ε_g(α) above its running minimum (non-monotonic curve)",
            lambda ds: (_largest_rise(ds["theory_eps_g"].sel(algorithm="lvq1").squeeze()), None),
            lower=1e-3,
        )
    )
    checks.append(
        Derived(
            "ε_g(LVQ+) − ε_g(LVQ1) at α_max (p₊ ≠ ½: LVQ+ is worse)",
            lambda ds: (
                float(
                    (
                        ds["theory_eps_g"].sel(algorithm="lvq+")
                        - ds["theory_eps_g"].sel(algorithm="lvq1")
                    )
                    .isel(alpha=-1)
                    .squeeze()
                ),
                None,
            ),
            lower=0.01,
        )
    )
    return checks


FIG3A = FigureSpec(
    name="lvq-fig3a",
    paper=PAPER,
    citation=CITATION,
    figure="Fig. 3 (left)",
    caption=(
        "Learning curves ε_g(α) of unsupervised VQ (dotted), LVQ+ (dashed) and LVQ1 "
        "(solid) for λ = 1, η = 0.2 and p₊ = 0.8 (the paper does not state p₊; 0.8 is "
        "its Fig. 2 value, where LVQ1's non-monotonic curve is pronounced). Prototypes "
        "start at Q_{++} = Q_{--} = 10⁻⁴, Q_{+-} = 0 and R = 10⁻³·I, a tilt towards the "
        "own class of 10 % of |w| without which VQ's ODEs stay on the symmetric plateau "
        "for ever; its length depends on the tilt (lvq-vq-plateau). "
        "Lines: ODEs; symbols: Monte Carlo mean ± 1 SE for LVQ1 and LVQ+ (VQ's escape "
        "at finite N is fluctuation-driven: see lvq-vq-plateau)."
    ),
    grid={"algorithm": FIG3_ALGORITHMS, "p_plus": (0.8,), "lam": (1.0,), "eta": (0.2,)},
    settings={
        "quick": {
            "n_features": 200,
            "n_seeds": 24,
            "alpha_max": 100.0,
            "alpha_step_sim": 10.0,
            "n_theory_points": 201,
        },
        "full": {
            "n_features": 200,
            "n_seeds": 100,
            "alpha_max": 100.0,
            "alpha_step_sim": 5.0,
            "n_theory_points": 401,
        },
    },
    outputs={"theory_eps_g": ("alpha",), "sim_eps_g": ("alpha_sim",)},
    coords=_fig3a_coords,
    theory=_fig3a_theory,
    simulation=_fig3a_simulation,
    plot=plot_fig3a,
    checks=_fig3a_checks,
    base_seed=20060301,
)


def _fig3b_coords(settings):
    return {"algorithm": np.array(FIG3_ALGORITHMS)}


def _fig3b_theory(point, settings):
    kw = {"p_plus": point["p_plus"], "lam": point["lam"]}
    eps = [asymptotic_error(alg, **kw) for alg in FIG3_ALGORITHMS]
    return {
        "theory_eps_inf": np.array(eps),
        "theory_eps_min": np.array(bayes_error(**kw)),
        "theory_eps_triv": np.array(trivial_error(point["p_plus"])),
    }


def plot_fig3b(ds, ax=None):
    """Fig. 3 (right): asymptotic eps_g versus p_+ for LVQ1, LVQ+, VQ, optimum, trivial.

    Parameters
    ----------
    ds : xarray.Dataset
        Dataset of ``lvq-fig3b``.
    ax : matplotlib Axes, optional

    Returns
    -------
    Axes
    """
    _, ax = subplots(ax, figsize=(6, 4))
    ds = ds.squeeze("lam", drop=False)
    p = ds["p_plus"]
    ax.plot(p, ds["theory_eps_min"], "k-", lw=2.0, label=r"optimum $\epsilon_g^{min}$")
    ax.plot(p, ds["theory_eps_triv"], "k-", lw=0.7, label=r"trivial $\min(p_+,p_-)$")
    styles = {"lvq1": "--", "lvq+": "-", "vq": "-."}
    for alg in ds["algorithm"].values:
        ax.plot(
            p,
            ds["theory_eps_inf"].sel(algorithm=alg),
            ls=styles[str(alg)],
            lw=1.4,
            label=_STYLE[str(alg)][0],
        )
    ax.set_xlabel(r"$p_+$")
    ax.set_ylabel(r"$\epsilon_g^\infty$")
    ax.set_ylim(0, 0.52)
    ax.set_xlim(0, 1)
    ax.set_title(
        rf"$\eta\to 0$, $\eta\alpha\to\infty$, $\lambda={float(ds['lam']):g}$", fontsize=10
    )
    ax.legend(frameon=False, fontsize=8, loc="upper center", ncol=2)
    return ax


def _eps(ds, alg):
    return ds["theory_eps_inf"].sel(algorithm=alg).squeeze()


def _fig3b_checks(settings):
    def lvqplus_spread(ds):
        e = _eps(ds, "lvq+")
        return float(e.max() - e.min()), None

    def lvq1_gap(ds):
        return float((_eps(ds, "lvq1") - ds["theory_eps_min"].squeeze()).max()), None

    def lvq1_below_optimum(ds):
        return float((_eps(ds, "lvq1") - ds["theory_eps_min"].squeeze()).min()), None

    def vq_at_half(ds):
        return float(
            abs(_eps(ds, "vq").sel(p_plus=0.5) - ds["theory_eps_min"].sel(p_plus=0.5).squeeze())
        ), None

    def vq_edges(ds):
        e = _eps(ds, "vq")
        return float(0.5 - 0.5 * (e.isel(p_plus=0) + e.isel(p_plus=-1))), None

    def vq_monotone(ds):
        e = _eps(ds, "vq").sel(p_plus=slice(None, 0.5)).values
        return float(np.max(np.diff(e))), None

    def symmetry(ds):
        e = ds["theory_eps_inf"].squeeze()
        return float(np.abs(e.values - e.values[::-1]).max()), None

    def lvqplus_above_trivial(ds):
        above = _eps(ds, "lvq+") > ds["theory_eps_triv"].squeeze()
        return float(above.sum()), None

    return [
        Derived(
            "LVQ+: max − min of ε_∞ over p₊ (independent of the priors)", lvqplus_spread, upper=1e-8
        ),
        Derived(
            "LVQ1: largest gap ε_∞ − ε_min over p₊ (the paper: close to optimal)",
            lvq1_gap,
            reported=True,
        ),
        Derived(
            "LVQ1: smallest ε_∞ − ε_min (never below the optimum)", lvq1_below_optimum, lower=-1e-9
        ),
        Derived("VQ: |ε_∞ − ε_min| at p₊ = ½ (optimal)", vq_at_half, upper=1e-8),
        Derived(
            "VQ: ½ − ε_∞ at the smallest and largest p₊ (the paper: → ½)", vq_edges, reported=True
        ),
        Derived(
            "VQ: largest step of ε_∞ for p₊ → ½ (decreasing towards ½)", vq_monotone, upper=0.0
        ),
        Derived("all: max |ε_∞(p₊) − ε_∞(1 − p₊)| (label symmetry)", symmetry, upper=1e-8),
        Derived(
            "LVQ+: number of p₊ where it exceeds the trivial error", lvqplus_above_trivial, lower=1
        ),
    ]


FIG3B = FigureSpec(
    name="lvq-fig3b",
    paper=PAPER,
    citation=CITATION,
    figure="Fig. 3 (right)",
    caption=(
        "Asymptotic generalization error for η → 0, ηα → ∞ at λ = 1.2 versus the prior "
        "p₊: LVQ1 (dashed), LVQ+ (horizontal), VQ (chain), the best linear boundary "
        "ε_min (thick; the Bayes error for v₊ = v₋) and the trivial min(p₊, p₋) (thin). "
        "Fixed points of the rescaled ODEs, reached by integration from a small tilt "
        "towards the own class and refined by Newton's method."
    ),
    grid={"p_plus": tuple(np.round(np.linspace(0.02, 0.98, 49), 2)), "lam": (1.2,)},
    settings={"quick": {"n_seeds": 0}, "full": {"n_seeds": 0}},
    outputs={
        "theory_eps_inf": ("algorithm",),
        "theory_eps_min": (),
        "theory_eps_triv": (),
    },
    coords=_fig3b_coords,
    theory=_fig3b_theory,
    plot=plot_fig3b,
    checks=_fig3b_checks,
    base_seed=20060302,
)

"""Biehl, Ghosh & Hammer, *Learning Vector Quantization: the dynamics of WTA algorithms*.

``lvq-fig2``: order parameters R_{S sigma}(alpha) and Q_{ST}(alpha) of on-line
LVQ1 (p_+ = 0.8, lambda = 1, eta = 0.2): the ODEs of App. A
(:mod:`statmechlearn.theory.lvq_dynamics`) beside Monte Carlo runs of the
library's WTA kernel (:func:`statmechlearn.lvq.wta_online_updates`) on data
from :class:`statmechlearn.models.LabeledMixture`.
"""

import numpy as np

from statmechlearn.experiments._registry import register
from statmechlearn.experiments._spec import Check, Derived, FigureSpec
from statmechlearn.lvq import wta_online_updates, wta_rule
from statmechlearn.models import LabeledMixture
from statmechlearn.theory.lvq_dynamics import (
    asymptotic_error,
    bayes_error,
    learning_curve,
    paper_initial_overlaps,
    trivial_error,
)

__all__ = [
    "FIG2",
    "FIG3A",
    "FIG3B",
    "FIG3_INIT",
    "plot_fig2",
    "plot_fig3a",
    "plot_fig3b",
    "simulate_learning_curve",
]

PAPER = "lvq"
CITATION = (
    "M. Biehl, A. Ghosh, B. Hammer, Learning Vector Quantization: the dynamics of "
    "winner-takes-all algorithms"
)
LABELS = (1, -1)
_SYMBOL = {1: "+", -1: "-"}


def simulate_learning_curve(
    rule,
    alphas,
    *,
    n_features,
    p_plus,
    lam,
    eta,
    rng,
    v_plus=1.0,
    v_minus=1.0,
    init=None,
    n_runs=1,
):
    """Monte Carlo of on-line WTA learning with two prototypes (eq. 1).

    Parameters
    ----------
    rule : {"lvq1", "lvq+", "vq"}
        Update rule.
    alphas : array_like of shape (n_alphas,)
        Non-decreasing times alpha = mu / N at which overlaps are recorded;
        ``round(alpha * N)`` examples have been presented at each.
    n_features : int
        Dimension N.
    p_plus, lam, eta : float
        Model prior, separation and learning rate.
    v_plus, v_minus : float, default=1.0
        Cluster variances.
    rng : numpy.random.Generator
        Stream for the initial prototypes and the data.
    init : tuple (R, Q), optional
        Initial overlaps; default the paper's (R = 0, Q = diag(1e-4, 1e-4)).
    n_runs : int, default=1
        Independent runs advanced together along the kernel's run axis.

    Returns
    -------
    R : ndarray of shape (n_runs, n_alphas, 2, 2)
    Q : ndarray of shape (n_runs, n_alphas, 2, 2)
    eps_g : ndarray of shape (n_runs, n_alphas)
        Exact generalization error of the prototypes at each time.
    """
    a, b = wta_rule(rule)
    model = LabeledMixture(
        n_features=n_features, p_plus=p_plus, lam=lam, v_plus=v_plus, v_minus=v_minus
    )
    R0, Q0 = paper_initial_overlaps() if init is None else init
    W = np.stack([model.prototypes_from_overlaps(R0, Q0, rng) for _ in range(n_runs)])
    steps = np.round(np.asarray(alphas, dtype=float) * n_features).astype(np.int64)
    if np.any(np.diff(steps) < 0) or steps[0] < 0:
        raise ValueError("alphas must be non-negative and non-decreasing")
    R = np.empty((n_runs, steps.size, 2, 2))
    Q = np.empty((n_runs, steps.size, 2, 2))
    eps = np.empty((n_runs, steps.size))
    done = 0
    for i, target in enumerate(steps):
        if target > done:
            X, y = model.sample(int(target - done), rng, batch_shape=(n_runs,))
            wta_online_updates(W, X, y, LABELS, learning_rate=eta / n_features, a=a, b=b)
            done = int(target)
        R[:, i], Q[:, i] = model.overlaps(W)
        eps[:, i] = model.generalization_error(W, LABELS)
    return R, Q, eps


# ---------------------------------------------------------------- Fig. 2 ----


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


def _mean_se(da):
    done = da.notnull().all([d for d in da.dims if d not in ("seed", "alpha_sim")])
    n = done.sum("seed")
    mean = da.where(done).mean("seed")
    se = da.where(done).std("seed", ddof=1) / np.sqrt(n)
    return mean, se


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

    if ax is None:
        _, ax = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    ax = np.asarray(ax)
    ds = ds.squeeze([d for d in ("p_plus", "lam", "eta") if d in ds.dims], drop=False)
    pairs_R = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    pairs_Q = [(1, 1), (1, -1), (-1, -1)]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for panel, var, dims, pairs in (
        (ax[0], "R", ("S", "sigma"), pairs_R),
        (ax[1], "Q", ("S", "T"), pairs_Q),
    ):
        mean, se = _mean_se(ds[f"sim_{var}"])
        for i, (s, t) in enumerate(pairs):
            sel = {dims[0]: s, dims[1]: t}
            label = f"${var}_{{{_SYMBOL[s]}{_SYMBOL[t]}}}$"
            panel.plot(
                ds["alpha"], ds[f"theory_{var}"].sel(sel), color=colors[i], lw=1.5, label=label
            )
            panel.errorbar(
                ds["alpha_sim"],
                mean.sel(sel),
                yerr=se.sel(sel),
                fmt="o",
                ms=3.5,
                color=colors[i],
                mfc="none",
                capsize=2,
            )
        panel.set_xlabel(r"$\alpha$")
        panel.set_ylabel(f"${var}$")
        panel.legend(frameon=False, fontsize=9)
    n_seeds = int(ds["sim_done"].sum())
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


FIG2 = register(
    FigureSpec(
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
    )
)


# --------------------------------------------------------------- Fig. 3a ----

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
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4), constrained_layout=True)
    ds = ds.squeeze([d for d in ("p_plus", "lam", "eta") if d in ds.dims], drop=False)
    for alg in ds["algorithm"].values:
        name, style = _STYLE[str(alg)]
        sub = ds.sel(algorithm=alg)
        (line,) = ax.plot(sub["alpha"], sub["theory_eps_g"], ls=style, lw=1.6, label=name)
        mean, se = _mean_se(sub["sim_eps_g"])
        if np.isfinite(mean.values).any():
            ax.errorbar(
                sub["alpha_sim"],
                mean,
                yerr=se,
                fmt="o",
                ms=3.5,
                mfc="none",
                color=line.get_color(),
                capsize=2,
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


FIG3A = register(
    FigureSpec(
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
)


# --------------------------------------------------------------- Fig. 3b ----


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
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4), constrained_layout=True)
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


FIG3B = register(
    FigureSpec(
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
)

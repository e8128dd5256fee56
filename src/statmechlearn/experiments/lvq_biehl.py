"""Biehl, Ghosh & Hammer, *Learning Vector Quantization: the dynamics of WTA algorithms*.

``lvq-fig2``: order parameters R_{S sigma}(alpha) and Q_{ST}(alpha) of on-line
LVQ1 (p_+ = 0.8, lambda = 1, eta = 0.2): the ODEs of App. A
(:mod:`statmechlearn.theory.lvq_dynamics`) beside Monte Carlo runs of the
library's WTA kernel (:func:`statmechlearn.lvq.wta_online_updates`) on data
from :class:`statmechlearn.models.LabeledMixture`.
"""

import numpy as np

from statmechlearn.experiments._registry import register
from statmechlearn.experiments._spec import Check, FigureSpec
from statmechlearn.lvq import wta_online_updates, wta_rule
from statmechlearn.models import LabeledMixture
from statmechlearn.theory.lvq_dynamics import learning_curve, paper_initial_overlaps

__all__ = ["FIG2", "plot_fig2", "simulate_learning_curve"]

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

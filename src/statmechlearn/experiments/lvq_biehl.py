"""Biehl, Ghosh & Hammer, *Learning Vector Quantization: the dynamics of WTA algorithms*.

``lvq-fig1``: the data model (eq. 3) in N = 200: projections of 400 points on a
random orthonormal pair (no visible clusters) and on B₊, B₋ (two clusters),
with the model's exact moments checked over seeds.

``lvq-fig2``: order parameters R_{S sigma}(alpha) and Q_{ST}(alpha) of on-line
LVQ1 (p_+ = 0.8, lambda = 1, eta = 0.2): the ODEs of App. A
(:mod:`statmechlearn.theory.lvq_dynamics`) beside Monte Carlo runs of the
library's WTA kernel (:func:`statmechlearn.lvq.wta_online_updates`) on data
from :class:`statmechlearn.models.LabeledMixture`.

``lvq-fss``: the Fig. 2 point (α = 10) at a ladder of N, extrapolated to
N → ∞ with :mod:`statmechlearn.experiments._finite_size` and compared with the ODEs.
"""

import numpy as np

from statmechlearn.experiments._finite_size import (
    extrapolate_dataset,
    ladder_checks,
    plot_extrapolation,
    seeds_for,
)
from statmechlearn.experiments._plotting import (
    mean_se,
    plot_simulation,
    plot_theory,
    simulation_label,
    subplots,
)
from statmechlearn.experiments._spec import Check, Derived, FigureSpec, _select, measure
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
    "FIG1",
    "FIG2",
    "FIG3A",
    "FIG3B",
    "FIG3_INIT",
    "FSS",
    "plot_fig1",
    "plot_fig2",
    "plot_fig3a",
    "plot_fig3b",
    "plot_fss",
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


# ---------------------------------------------------------------- Fig. 1 ----

#: Fig. 1's model: p₊ = 0.4 (p₋ = 0.6), ℓ = 1.5, N = 200, 400 points, v₊ = v₋ = 1 (eq. 3).
FIG1_P_PLUS = 0.4
FIG1_LAM = 1.5


def _fig1_coords(settings):
    return {
        "point": np.arange(int(settings["n_points"])),
        "axis": np.array(LABELS),
        "sigma": np.array(LABELS),
    }


def _fig1_counts(p_plus, n_points):
    """Points per class ``(n_+, n_-)``: the priors' shares of ``n_points`` (as printed)."""
    n_plus = int(np.rint(p_plus * n_points))
    return n_plus, int(n_points) - n_plus


def _fig1_theory(point, settings):
    """What the model (eq. 3) says the projections must show, independently of any sample.

    In the plane of B₊, B₋ the class-σ mean of b_τ = B_τ·ξ is ℓ δ_τσ and its variance v_σ.
    On a random orthonormal pair w₊, w₋ the variance is v_σ too (|w| = 1), and the class
    centres project to ℓ w_S·B_σ. For w uniform on the sphere E[(w·u)²] = |u|²/N, so the
    squared separation of the projected centres along one axis, ℓ²(w_S·(B₊ − B₋))², has
    mean 2ℓ²/N; the separation of the sample class means adds the variance
    v₊/n₊ + v₋/n₋ of the difference of two sample means.
    """
    lam, n = float(point["lam"]), int(settings["n_features"])
    n_plus, n_minus = _fig1_counts(point["p_plus"], settings["n_points"])
    v = np.array([settings["v_plus"], settings["v_minus"]], dtype=float)
    centre_sep2 = 2.0 * lam**2 / n
    return {
        "theory_b_center": lam * np.eye(2),
        "theory_var": v,
        "theory_h_center_sep2": np.array(centre_sep2),
        "theory_h_sep2": np.array(centre_sep2 + v[0] / n_plus + v[1] / n_minus),
    }


def _random_planes(n_features, n_planes, rng):
    """``n_planes`` independent, uniformly random orthonormal pairs, shape (n_planes, 2, N).

    QR of a Gaussian matrix with the signs of R's diagonal moved into Q is Haar
    distributed (without the sign fix numpy's Householder QR biases each column's sign).
    """
    G = rng.standard_normal((n_planes, n_features, 2))
    Q, R = np.linalg.qr(G)
    Q = Q * np.sign(np.diagonal(R, axis1=-2, axis2=-1))[:, None, :]
    return np.swapaxes(Q, -1, -2)


def _class_stats(P, y):
    """Per-class mean and unbiased variance of projections ``P`` (..., points, axis).

    Returns arrays (..., axis, sigma) in the order of :data:`LABELS`.
    """
    means, variances = [], []
    for s in LABELS:
        part = P[..., y == s, :]
        means.append(part.mean(axis=-2))
        variances.append(part.var(axis=-2, ddof=1))
    return np.stack(means, axis=-1), np.stack(variances, axis=-1)


def _fig1_simulation(point, settings, rng):
    n = int(settings["n_features"])
    v = np.array([settings["v_plus"], settings["v_minus"]], dtype=float)
    model = LabeledMixture(
        n_features=n, p_plus=point["p_plus"], lam=point["lam"], v_plus=v[0], v_minus=v[1]
    )
    want = dict(zip(LABELS, _fig1_counts(point["p_plus"], settings["n_points"]), strict=True))
    # the caption's fixed counts: draw from the model until each class has its count and keep
    # the first ones (the labels are conditioned on; each class's points stay i.i.d.)
    parts = {s: [] for s in LABELS}
    while any(sum(len(p) for p in parts[s]) < want[s] for s in LABELS):
        X, y = model.sample(int(settings["n_points"]), rng)
        for s in LABELS:
            parts[s].append(X[y == s])
    X = np.concatenate([np.concatenate(parts[s])[: want[s]] for s in LABELS])
    y = np.repeat(np.array(LABELS), [want[s] for s in LABELS])

    b = X @ model.basis.T  # (points, axis): b_τ = B_τ · ξ
    b_mean, b_var = _class_stats(b, y)

    # statistics over n_planes random pairs (the first is the one drawn); many planes make
    # the per-seed mean squared separation nearly Gaussian instead of exponential
    W = _random_planes(n, int(settings["n_planes"]), rng)  # (planes, axis, N)
    H = np.einsum("pn,kan->kpa", X, W)  # (planes, points, axis)
    h_mean, h_var = _class_stats(H, y)  # (planes, axis, sigma)
    h_center = model.lam * W @ model.basis.T  # (planes, axis, sigma): ℓ w_S · B_σ
    return {
        "sim_h": H[0],
        "sim_b": b,
        "sim_label": y.astype(float),
        "sim_h_center": h_center[0],
        "sim_b_mean": b_mean,
        "sim_b_var": b_var,
        "sim_h_sep2": np.array(np.mean((h_mean[..., 0] - h_mean[..., 1]) ** 2)),
        "sim_h_center_sep2": np.array(np.mean((h_center[..., 0] - h_center[..., 1]) ** 2)),
        "sim_h_var_ratio": np.array(np.mean(h_var / v)),
    }


def plot_fig1(ds, ax=None):
    """Fig. 1: seed 0's data projected on a random orthonormal pair (left) and on B± (right).

    Open circles: class +1 (centre ℓB₊); filled: class −1 (centre ℓB₋); crosses: the
    cluster centres' projections (left: ℓ w_S·B_σ of the drawn plane; right: ℓ δ_Sσ).

    Parameters
    ----------
    ds : xarray.Dataset
        Dataset of ``lvq-fig1``.
    ax : sequence of two matplotlib Axes, optional

    Returns
    -------
    ndarray of two Axes
    """
    _, ax = subplots(ax, 1, 2, figsize=(10, 4.6))
    ds = ds.squeeze([d for d in ("p_plus", "lam") if d in ds.dims], drop=False)
    first = ds.isel(seed=0)
    label = first["sim_label"].values
    panels = (
        (ax[0], first["sim_h"], first["sim_h_center"], "h"),
        (ax[1], first["sim_b"], first["theory_b_center"], "b"),
    )
    lim = 0.0
    for panel, P, centre, sym in panels:
        for s, style in ((1, {"mfc": "none"}), (-1, {})):
            pts = P.isel(point=np.flatnonzero(label == s))
            panel.plot(
                pts.sel(axis=1),
                pts.sel(axis=-1),
                "o",
                ms=3.5,
                color="k",
                label=f"class {_SYMBOL[s]} ({pts.sizes['point']})",
                **style,
            )
            lim = max(lim, float(np.abs(P).max()))
        panel.plot(
            centre.sel(axis=1),
            centre.sel(axis=-1),
            "x",
            ms=11,
            mew=2.5,
            color="C3",
            label="cluster centres",
        )
        panel.set_xlabel(f"${sym}_+$")
        panel.set_ylabel(f"${sym}_-$")
        panel.set_aspect("equal")
    for panel in ax:
        panel.set_xlim(-1.05 * lim, 1.05 * lim)
        panel.set_ylim(-1.05 * lim, 1.05 * lim)
    ax[0].set_title(
        rf"random plane $h_\pm = w_\pm\cdot\xi$; N={int(ds.attrs['n_features'])}, "
        rf"$p_+$={float(ds['p_plus']):g}, $\ell$={float(ds['lam']):g}",
        fontsize=10,
    )
    ax[1].set_title(r"$b_\pm = B_\pm\cdot\xi$ (plane of $B_+, B_-$)", fontsize=10)
    ax[1].legend(frameon=False, fontsize=8, loc="lower left")
    return ax


def _done_seeds(ds, da):
    """Per-seed values of a scalar-per-seed ``da`` (grid squeezed), over finished seeds."""
    grid = [d for d in ("p_plus", "lam") if d in da.dims]
    da = da.squeeze(grid)
    done = ds["sim_done"].squeeze([d for d in grid if d in ds["sim_done"].dims])
    return da.values[np.asarray(done.values, dtype=bool)]


def _fig1_checks(settings):
    checks = []
    for s in LABELS:
        for a in LABELS:
            where = "own axis: ℓ" if a == s else "other axis: 0"
            checks.append(
                Check(
                    f"B-plane: mean of b_{_SYMBOL[a]} over class {_SYMBOL[s]} ({where})",
                    ("theory_b_center", {"axis": a, "sigma": s}),
                    ("sim_b_mean", {"axis": a, "sigma": s}),
                    scale=FIG1_LAM,
                )
            )
    for s in LABELS:
        for a in LABELS:
            checks.append(
                Check(
                    f"B-plane: variance of b_{_SYMBOL[a]} in class {_SYMBOL[s]} (v_{_SYMBOL[s]})",
                    ("theory_var", {"sigma": s}),
                    ("sim_b_var", {"axis": a, "sigma": s}),
                )
            )

    def b_ratio(ds):
        ratio = (ds["sim_b_var"] / ds["theory_var"]).mean(("axis", "sigma"))
        return measure(_done_seeds(ds, ratio))

    def h_ratio(ds):
        return measure(_done_seeds(ds, ds["sim_h_var_ratio"]))

    checks.append(
        Derived(
            "B-plane: within-class variance / v_σ, pooled over both axes and classes",
            b_ratio,
            target=1.0,
            target_from="model (eq. 3)",
            source="simulation",
        )
    )
    checks.append(
        Derived(
            "random planes: within-class variance of h / v_σ, pooled (|w| = 1: v_σ)",
            h_ratio,
            target=1.0,
            target_from="model (eq. 3)",
            source="simulation",
        )
    )
    checks.append(
        Check(
            "random planes: ℓ²(w_S·(B₊ − B₋))², mean over axes and planes (2ℓ²/N)",
            ("theory_h_center_sep2", {}),
            ("sim_h_center_sep2", {}),
            note="the projected centres are O(ℓ/√N) apart: E[(w·u)²] = |u|²/N for uniform w",
        )
    )
    checks.append(
        Check(
            "random planes: (⟨h_S⟩₊ − ⟨h_S⟩₋)² of the sample class means (2ℓ²/N + v₊/n₊ + v₋/n₋)",
            ("theory_h_sep2", {}),
            ("sim_h_sep2", {}),
            note="versus ℓ√2 ≈ 2.1 between the centres in the B-plane: no visible clusters",
        )
    )
    return checks


FIG1 = FigureSpec(
    name="lvq-fig1",
    paper=PAPER,
    citation=CITATION,
    figure="Fig. 1",
    caption=(
        "Data from the model density (3) in N = 200 dimensions with p₋ = 0.6, p₊ = 0.4, "
        "ℓ = 1.5, v₊ = v₋ = 1: 160 points about ℓB₊ (open circles) and 240 about ℓB₋ "
        "(filled), drawn by the library's LabeledMixture (class counts fixed as printed; "
        "the caption's 'open (filled) circles represent 240 (160) vectors from clusters "
        "centred about ℓB₊ (ℓB₋)' contradicts its own p₋ = 0.6, p₊ = 0.4, which we follow). "
        "Left: projections h± = w±·ξ on a uniformly random orthonormal pair w±; right: "
        "b± = B±·ξ; crosses: the projected cluster centres. Shown: seed 0. Checks use "
        "every seed (quick 32, full 200): class means and variances in the B-plane, and "
        "over 64 random planes per seed the variance v and the O(ℓ/√N) separation of the "
        "class means (mean square 2ℓ²/N for the centres), against the model's exact "
        "moments."
    ),
    grid={"p_plus": (FIG1_P_PLUS,), "lam": (FIG1_LAM,)},
    settings={
        "quick": {
            "n_features": 200,
            "n_points": 400,
            "v_plus": 1.0,
            "v_minus": 1.0,
            "n_planes": 64,
            "n_seeds": 32,
        },
        "full": {
            "n_features": 200,
            "n_points": 400,
            "v_plus": 1.0,
            "v_minus": 1.0,
            "n_planes": 64,
            "n_seeds": 200,
        },
    },
    outputs={
        "theory_b_center": ("axis", "sigma"),
        "theory_var": ("sigma",),
        "theory_h_center_sep2": (),
        "theory_h_sep2": (),
        "sim_h": ("point", "axis"),
        "sim_b": ("point", "axis"),
        "sim_label": ("point",),
        "sim_h_center": ("axis", "sigma"),
        "sim_b_mean": ("axis", "sigma"),
        "sim_b_var": ("axis", "sigma"),
        "sim_h_sep2": (),
        "sim_h_center_sep2": (),
        "sim_h_var_ratio": (),
    },
    coords=_fig1_coords,
    theory=_fig1_theory,
    simulation=_fig1_simulation,
    plot=plot_fig1,
    checks=_fig1_checks,
    base_seed=20060101,
)


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


def _complete_runs(da):
    """``da`` of the runs whose whole curve is finite (NaN elsewhere)."""
    done = da.notnull().all([d for d in da.dims if d not in ("seed", "alpha_sim")])
    return da.where(done)


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


# ----------------------------------------------------- finite-size ladder ----

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
        theory = float(_select(ds[tvar].isel(n_features=0), tsel, keep=()).values)
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

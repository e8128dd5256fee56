"""Fig. 1 of Biehl, Ghosh & Hammer: data from the model density (3) in N = 200 dimensions,
projected onto the plane of the cluster centres and onto random planes.
"""

import numpy as np

from statmechlearn.experiments import (
    Check,
    Derived,
    FigureSpec,
    measure,
    subplots,
)
from statmechlearn.models import LabeledMixture
from statmechlearn.papers.lvq._common import _SYMBOL, CITATION, LABELS, PAPER

__all__ = ["FIG1", "FIG1_LAM", "FIG1_P_PLUS", "plot_fig1"]


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

"""Barkai & Sompolinsky, ML density estimation of a two-Gaussian mixture: Figs. 1-4.

Theory: :mod:`statmechlearn.theory.ml_mixture` (zero-temperature RS).
Simulation: data from :class:`statmechlearn.models.TwoGaussians`, local maxima
of the likelihood by the library's batched deterministic-annealing kernel
(:func:`statmechlearn.cluster.two_centre_fixed_points`, the fixed points of
:class:`~statmechlearn.cluster.EqualWidthMixture`); deterministic annealing is
the library's :class:`~statmechlearn.cluster.EqualWidthMixture`, annealed down
to each width; random starts draw ``dU_0 ~ N(0, I/N)``. ``mixture-fss`` runs
the same cells at a ladder of N and extrapolates to N → ∞
(:mod:`statmechlearn.experiments._finite_size`).
"""

import functools
import math

import numpy as np

from statmechlearn.experiments._finite_size import (
    extrapolate_dataset,
    ladder_checks,
    plot_extrapolation,
    seeds_for,
)
from statmechlearn.experiments._plotting import mean_se, plot_simulation, plot_theory, subplots
from statmechlearn.experiments._spec import Check, Derived, FigureSpec, Measurement

__all__ = ["SIGMA_FIG3", "annealed_fixed_points", "follow_minima"]

PAPER = "mixture"
CITATION = (
    "N. Barkai, H. Sompolinsky, Statistical mechanics of the maximum-likelihood density estimation"
)
ALPHAS_FIG1 = tuple(float(a) for a in np.round(np.geomspace(0.5, 30.0, 14), 4))
SIGMA_FIG2 = tuple(float(s) for s in np.round(np.linspace(0.5, 2.5, 41), 4))
SIGMA_FIG3 = tuple(float(s) for s in np.round(np.linspace(6.0, 0.4, 29), 4))
SIGMA_FIG4_UP = tuple(float(s) for s in np.round(np.linspace(0.8, 3.0, 23), 4))
SIGMA_FIG4_DOWN = tuple(float(s) for s in np.round(np.linspace(0.8, 0.3, 11), 4))


# ------------------------------------------------------------------ Fig. 1 --
def _extrapolated_onset(sigma_c, order_parameter, offsets=(-4e-3, -8e-3)):
    """Width where an order parameter vanishing linearly at ``sigma_c`` reaches 0.

    Solves the saddle-point equations at ``sigma_c (1 + d)`` for the two
    relative ``offsets`` (below ``sigma_c`` by default, where the order
    parameter lives) and extrapolates the straight line through them, so the
    result tests ``sigma_c`` instead of assuming it.
    """
    pts = [sigma_c * (1 + d) for d in offsets]
    v = [order_parameter(s) for s in pts]
    return pts[0] - v[0] * (pts[1] - pts[0]) / (v[1] - v[0])


def _numeric_sigma_1(alpha, u0):
    """sigma_1 from the saddle-point equations: m^2 of the ordered branch extrapolated to 0."""
    from statmechlearn.theory import ml_mixture as mm

    return _extrapolated_onset(
        mm.sigma_ordered(alpha, u0),
        lambda s: 2 * mm.solve(alpha, s, u0=u0).branch("split-ordered").R ** 2,
    )


def _numeric_sigma_2(alpha, u0):
    """sigma_2 from the saddle-point equations: q of the random branch extrapolated to 0."""
    from statmechlearn.theory import ml_mixture as mm

    return _extrapolated_onset(
        mm.sigma_random(alpha), lambda s: mm.solve(alpha, s, u0=u0).branch("split-random").Q
    )


def _numeric_sigma_3(alpha, u0, sigma_3):
    """sigma_3 from the saddle-point equations: r^2 of the ordered branch extrapolated to 0.

    Independent of :func:`~statmechlearn.theory.ml_mixture.phase_boundaries`,
    which finds sigma_3 from the stability of the random branch.
    """
    from statmechlearn.theory import ml_mixture as mm

    # the ordered branch exists above sigma_3: extrapolate from there
    return _extrapolated_onset(
        sigma_3,
        lambda s: mm.solve(alpha, s, u0=u0).branch("split-ordered").R ** 2,
        offsets=(2e-3, 4e-3),
    )


def _numeric_alpha_c(u0):
    """alpha where the random branch's onset turns unstable towards order (gain = 1)."""
    from scipy.optimize import brentq

    from statmechlearn.theory import ml_mixture as mm

    def gain(alpha):
        return mm.ordered_gain(alpha, mm.sigma_random(alpha) * (1 - 1e-7), u0=u0) - 1.0

    ac = mm.alpha_critical(u0)
    return brentq(gain, 0.5 * ac, 2.0 * ac, xtol=1e-10)


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


# ------------------------------------------------------------------ Fig. 2 --
def _ground(alpha, sigma, u0):
    from statmechlearn.theory import ml_mixture as mm

    sol = mm.solve(alpha, sigma, u0=u0)
    return sol.branches[sol.ground]


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


# ------------------------------------------------------------------ Fig. 3 --
# Near sigma_1 a start close to the unsplit saddle moves by less than 1e-10 of
# the variance per iteration while still escaping it, so the default tolerance
# stops there, above the minimum (seen as DA "beaten" by ~1e-4 at N = 500).
_FIXED_POINT_TOL = 1e-14


# The annealer's own tolerance (its default) places the path; the polish at
# _FIXED_POINT_TOL then converges within the minimum the path reached.
_DA_TOL = 1e-6


def annealed_fixed_points(S, sigmas, rng):
    """Deterministic annealing down to each width, with the library's estimator.

    For every ``sigma`` :class:`~statmechlearn.cluster.EqualWidthMixture`
    anneals from above the sample's first critical width (geometric
    schedule, adaptive at the split) down to ``sigma``, exactly as a user
    fitting at that width gets it; the fixed point is then polished with
    :func:`~statmechlearn.cluster.two_centre_fixed_points` at
    ``_FIXED_POINT_TOL`` so that its energy compares with the random-start
    minima to 10⁻¹⁰ per pattern.

    Parameters
    ----------
    S : ndarray of shape (n_samples, n_features)
    sigmas : sequence of float
    rng : numpy.random.Generator
        Seeds each anneal's symmetry-breaking perturbation.

    Returns
    -------
    splitting_vectors : ndarray of shape (len(sigmas), n_features)
    energy : ndarray of shape (len(sigmas),)
    converged : ndarray of bool, shape (len(sigmas),)
    """
    from statmechlearn.cluster import EqualWidthMixture, two_centre_fixed_points

    out, energy, converged = [], [], []
    for sigma in sigmas:
        mixture = EqualWidthMixture(
            sigma=float(sigma), tol=_DA_TOL, max_iter=20000, random_state=int(rng.integers(2**31))
        ).fit(S)
        fp = two_centre_fixed_points(
            S, sigma, mixture.splitting_vector_[None], max_iter=20000, tol=_FIXED_POINT_TOL
        )
        out.append(fp.splitting_vector[0])
        energy.append(fp.energy[0])
        converged.append(fp.converged[0])
    return np.array(out), np.array(energy), np.array(converged)


def _fig3_theory(point, settings):
    r = [_ground(point["alpha"], s, point["u0"]).R for s in SIGMA_FIG3]
    return {"theory_r": np.array(r), "theory_sigma_at": _sigma_at(point["alpha"], point["u0"])}


def _fig3_simulation(point, settings, rng):
    from statmechlearn.cluster import two_centre_fixed_points
    from statmechlearn.models import TwoGaussians

    N = settings["n_features"]
    P = round(point["alpha"] * N)
    model = TwoGaussians(N, u0=point["u0"])
    S, _ = model.sample(P, rng)
    n_starts = settings["n_starts"]
    dU_da, e_da, ok_da = annealed_fixed_points(S, SIGMA_FIG3, rng)
    r_min, e_min, ok_min = [], [], []
    for sigma in SIGMA_FIG3:
        starts = rng.standard_normal((n_starts, N)) / math.sqrt(N)
        fp = two_centre_fixed_points(S, sigma, starts, max_iter=20000, tol=_FIXED_POINT_TOL)
        r_min.append(np.abs(model.order_parameters(fp.splitting_vector).R))
        e_min.append(fp.energy)
        ok_min.append(fp.converged)
    return {
        "sim_r_da": np.abs(model.order_parameters(dU_da).R),
        "sim_energy_da": e_da,
        "sim_converged_da": ok_da.astype(float),
        "sim_r_min": np.array(r_min),
        "sim_energy_min": np.array(e_min),
        "sim_converged_min": np.array(ok_min, dtype=float),
    }


def plot_fig3(ds, ax=None):
    """r against sigma: theory, DA path (mean over samples) and random-start minima."""
    _, ax = subplots(ax, figsize=(6.4, 4.4))
    d = ds.isel(alpha=0, u0=0)
    s = d["sigma"].values
    done = d["sim_done"]
    plot_theory(ax, s, d["theory_r"], color="k", label="RS theory")
    mean, se = mean_se(d["sim_r_da"].where(done))
    plot_simulation(
        ax,
        s,
        mean,
        se,
        color="C0",
        marker="none",
        linestyle="--",  # a dense path in sigma: joined, without markers
        label=f"simulation: DA, mean ± SE over {int(done.sum())} samples",
    )
    mins = d["sim_r_min"].where(done).isel(seed=0)
    for j in range(mins.sizes["start"]):
        ax.plot(
            s,
            mins.isel(start=j),
            "C1.",
            ms=3,
            label="random-start minima (sample 1)" if j == 0 else None,
        )
    s_at = float(d["theory_sigma_at"])
    ax.axvline(s_at, color="k", ls=":", lw=1, label=rf"$\sigma_{{AT}} = {s_at:.3f}$")
    ax.set_xlabel(r"$\sigma/\sigma_0$")
    ax.set_ylabel("$r$")
    ax.set_title(r"$\alpha = 1$, $u_0 = 2$")
    ax.legend(fontsize=8)
    return ax


@functools.lru_cache(maxsize=4)
def _sigma_at(alpha, u0):
    """de Almeida-Thouless width: below it the RS ground state is unstable."""
    from statmechlearn.theory import ml_mixture as mm

    return mm.phase_boundaries(alpha, u0=u0).sigma_at


# Energies are negative log-likelihoods per pattern, converged to ~1e-11; two
# minima closer than this are the same minimum.
_SAME_ENERGY = 1e-8


def _da_excess(ds):
    """Per (seed, sigma): DA energy minus the lowest random-start minimum, and the start spread."""
    d = ds.isel(alpha=0, u0=0)
    ok = (d["sim_converged_min"] > 0.5) & (d["sim_converged_da"] > 0.5) & d["sim_done"]
    e_min = d["sim_energy_min"].where(ok)
    excess = (d["sim_energy_da"] - e_min.min("start")).where(ok.all("start"))
    spread = e_min.max("start") - e_min.min("start")
    return d, excess, spread


def _fig3_checks(settings):
    shared_samples = (
        "the three σ share their samples (see the correlation below): one sample set "
        "that is low is low at every σ; the N → ∞ value is in mixture-fss"
    )
    checks = [
        Check(
            f"r(σ={s:g}), DA vs theory",
            ("theory_r", {"sigma": s}),
            ("sim_r_da", {"sigma": s}),
            note=shared_samples,
        )
        for s in (3.4, 2.6, 1.6)
    ]
    n_patterns = round(1.0 * settings["n_features"])

    def correlation_across_sigma(ds):
        d = ds.isel(alpha=0, u0=0)
        s = d["sigma"].values
        r = d["sim_r_da"].where(d["sim_done"]).values[:, (s > 1.6) & (s < 4.0)]
        r = r[np.isfinite(r).all(axis=1)]
        if len(r) < 3:
            return math.nan, None
        c = np.corrcoef(r.T)
        return float(c[np.triu_indices_from(c, 1)].mean()), None

    checks.append(
        Derived(
            "mean correlation over samples of DA r at two widths, 1.6 < σ < 4",
            correlation_across_sigma,
            source="simulation",
            reported=True,
            note="near 1: the z of the points above are one fluctuation, not independent ones",
        )
    )

    def beaten_unique(ds):
        d, excess, spread = _da_excess(ds)
        # cells left out because a fixed point did not converge are counted, not dropped
        cells = d["sim_done"].broadcast_like(excess)
        unconverged = int((cells & excess.isnull()).sum())
        beaten = float(((excess > _SAME_ENERGY) & (spread <= _SAME_ENERGY)).sum())
        return Measurement(beaten, None, int(cells.sum()) - unconverged, unconverged)

    def side_of_at(d, side):
        s_at = float(d["theory_sigma_at"])
        return d["sigma"] > s_at if side == "above" else d["sigma"] <= s_at

    def worst_excess(side):
        def compute(ds):
            d, excess, _ = _da_excess(ds)
            return float(n_patterns * excess.where(side_of_at(d, side)).max()), None

        return compute

    def beaten_fraction(side):
        def compute(ds):
            d, excess, _ = _da_excess(ds)
            ex = excess.where(side_of_at(d, side))
            return float((ex > _SAME_ENERGY).sum() / ex.notnull().sum()), None

        return compute

    def spread_high(ds):
        d = ds.isel(alpha=0, u0=0).sel(sigma=[s for s in SIGMA_FIG3 if 2.2 <= s <= 3.6])
        r = d["sim_r_min"].where(d["sim_done"])
        return float((r.max("start") - r.min("start")).max()), None

    checks += [
        Derived(
            "(sample, σ) where every random start reaches one minimum and DA is above it",
            beaten_unique,
            upper=0,
            source="simulation",
            note=(
                "deterministic per run: where every start reaches one minimum, the annealed "
                "fixed point must be it (energies equal within 10⁻⁸ per pattern)"
            ),
        ),
        Derived(
            "largest DA excess over the lowest minimum found where RS is stable (σ > σ_AT), "
            "nats of total log-likelihood",
            worst_excess("above"),
            source="simulation",
            reported=True,
        ),
        Derived(
            "largest DA excess over the lowest minimum found where RS is broken (σ ≤ σ_AT), "
            "nats of total log-likelihood",
            worst_excess("below"),
            source="simulation",
            reported=True,
        ),
        Derived(
            "fraction of (sample, σ > σ_AT) where a random start beats DA",
            beaten_fraction("above"),
            source="simulation",
            reported=True,
        ),
        Derived(
            "fraction of (sample, σ ≤ σ_AT) where a random start beats DA",
            beaten_fraction("below"),
            source="simulation",
            reported=True,
        ),
        Derived(
            "spread of r over random starts, 2.2 ≤ σ ≤ 3.6 (unique minimum)",
            spread_high,
            upper=1e-3,
            source="simulation",
            smoke=True,
            note="a worst case over the runs",
        ),
    ]
    return checks


FIG3 = FigureSpec(
    name="mixture-fig3",
    paper=PAPER,
    citation=CITATION,
    figure="Fig. 3",
    caption=(
        "Overlap r with the true splitting direction against σ, α = 1, u₀ = 2 (σ₁ = 4.5): "
        "RS theory (ground state), deterministic annealing (the library's "
        "EqualWidthMixture, annealed from above the first split down to each σ) averaged "
        "over independent samples, and the local "
        "minima reached from random starts at each σ for one sample; dotted: σ_AT, below "
        "which replica symmetry is broken. Checks: DA vs theory within 4 SE away from the "
        "transition (finite-size effects near σ₁); DA never above a minimum that every "
        "random start reaches; a unique minimum for 2.2 ≤ σ ≤ 3.6. How far DA is above the "
        "lowest minimum found, and how often, is reported on both sides of σ_AT: below it "
        "the near-degenerate minima of the broken phase differ by O(1) nats at this N "
        "(random starts spread over O(N) nats). The DA points at different σ come from the "
        "same samples and are strongly correlated (one low sample set is low at every σ); "
        "the finite-size ladder (mixture-fss) extrapolates r to N → ∞."
    ),
    grid={"alpha": (1.0,), "u0": (2.0,)},
    settings={
        "quick": {"n_seeds": 8, "n_features": 200, "n_starts": 6},
        "full": {"n_seeds": 20, "n_features": 500, "n_starts": 10},
    },
    outputs={
        "theory_r": ("sigma",),
        "theory_sigma_at": (),
        "sim_r_da": ("sigma",),
        "sim_energy_da": ("sigma",),
        "sim_converged_da": ("sigma",),
        "sim_r_min": ("sigma", "start"),
        "sim_energy_min": ("sigma", "start"),
        "sim_converged_min": ("sigma", "start"),
    },
    coords=lambda s: {"sigma": np.array(SIGMA_FIG3), "start": np.arange(s["n_starts"])},
    theory=_fig3_theory,
    simulation=_fig3_simulation,
    plot=plot_fig3,
    checks=_fig3_checks,
    base_seed=19940211,
)


# ------------------------------------------------------------------ Fig. 4 --
def follow_minima(S, sigmas, starts, *, max_iter=5000):
    """Follow local ML minima along a sequence of widths, each from the previous one.

    Parameters
    ----------
    S : ndarray of shape (n_samples, n_features)
    sigmas : sequence of float
    starts : ndarray of shape (n_minima, n_features)
        Splitting vectors at ``sigmas[0]`` (they are relaxed there first).
    max_iter : int, default=5000

    Returns
    -------
    energy : ndarray of shape (n_minima, len(sigmas))
    jumps : ndarray of bool, shape (n_minima, len(sigmas))
        True where the followed solution changed discontinuously (its
        splitting vector turned by more than 25 degrees in one step).
    """
    from statmechlearn.cluster import two_centre_fixed_points

    dU = np.asarray(starts, dtype=float)
    energy = np.empty((dU.shape[0], len(sigmas)))
    jumps = np.zeros_like(energy, dtype=bool)
    for i, sigma in enumerate(sigmas):
        fp = two_centre_fixed_points(S, sigma, dU, max_iter=max_iter, tol=_FIXED_POINT_TOL)
        new = fp.splitting_vector
        if i > 0:
            cos = np.einsum("bd,bd->b", new, dU) / (
                np.linalg.norm(new, axis=1) * np.linalg.norm(dU, axis=1) + 1e-300
            )
            jumps[:, i] = cos < math.cos(math.radians(25))
        dU = new
        energy[:, i] = fp.energy
    return energy, jumps


def _fig4_theory(point, settings):
    return {"theory_sigma_at": _sigma_at(point["alpha"], point["u0"])}


def _fig4_simulation(point, settings, rng):
    from statmechlearn.models import TwoGaussians

    N = settings["n_features"]
    model = TwoGaussians(N, u0=point["u0"])
    S, _ = model.sample(round(point["alpha"] * N), rng)
    starts = rng.standard_normal((settings["n_starts"], N)) / math.sqrt(N)
    up, jumps = follow_minima(S, SIGMA_FIG4_UP, starts)
    down, _ = follow_minima(S, SIGMA_FIG4_DOWN, starts)
    _, da_up, _ = annealed_fixed_points(S, SIGMA_FIG4_UP, rng)
    return {
        "sim_energy_up": up,
        "sim_jump_up": jumps.astype(float),
        "sim_energy_down": down,
        "sim_energy_da": da_up,
    }


def plot_fig4(ds, ax=None):
    """Energies of followed local minima: sigma rising (solid) and falling (dashed)."""
    _, ax = subplots(ax, figsize=(6.4, 4.4))
    d = ds.isel(alpha=0, u0=0, seed=0)
    for j in range(d.sizes["start"]):
        label = "minima followed up / down" if j == 0 else None
        ax.plot(
            d["sigma_up"],
            d["sim_energy_up"].isel(start=j),
            "-",
            color=f"C{j % 10}",
            lw=1,
            label=label,
        )
        ax.plot(d["sigma_down"], d["sim_energy_down"].isel(start=j), "--", color=f"C{j % 10}", lw=1)
    ax.plot(d["sigma_up"], d["sim_energy_da"], "k-", lw=2, label="DA path")
    ax.set_xlabel(r"$\sigma/\sigma_0$")
    ax.set_ylabel(r"$E/P - E_{\mathrm{unsplit}}/P$")
    ax.set_title(
        r"simulation, $\alpha = 1$, $u_0 = 2$: minima found at $\sigma = 0.8$, "
        "followed up (solid) / down (dashed)",
        fontsize=9,
    )
    ax.legend(fontsize=8)
    return ax


def _crossings(energy, tol=1e-7, gap=0.0):
    """Pairs of followed minima whose energy order changes (distinct pairs only).

    Parameters
    ----------
    energy : ndarray of shape (n_minima, n_sigma)
    tol : float, default=1e-7
        Energy differences below this are ties.
    gap : float, default=0.0
        Count only pairs at least this far apart where they were found
        (the first width).

    Returns
    -------
    n_crossing, n_pairs : int
        Pairs ``i < j`` whose energy difference changes sign (ignoring
        differences below ``tol``), out of the pairs that are distinct
        somewhere on the path.
    """
    n_crossing = n_pairs = 0
    for i in range(energy.shape[0]):
        for j in range(i + 1, energy.shape[0]):
            diff = energy[i] - energy[j]
            if abs(diff[0]) < gap:
                continue
            signs = np.sign(diff[np.abs(diff) > tol])
            if signs.size:
                n_pairs += 1
                n_crossing += int(np.any(signs != signs[0]))
    return n_crossing, n_pairs


def _fig4_checks(settings):
    n_patterns = round(1.0 * settings["n_features"])

    def jumps(ds):
        d = ds.isel(alpha=0, u0=0)
        return float(d["sim_jump_up"].where(d["sim_done"]).sum()), None

    def crossing_counts(ds, gap=0.0):
        d = ds.isel(alpha=0, u0=0)
        e = d["sim_energy_down"].values
        counts = [_crossings(e[k], gap=gap) for k in np.flatnonzero(d["sim_done"].values)]
        return sum(c for c, _ in counts), sum(n for _, n in counts)

    def crossings(ds):
        n_crossing, n_pairs = crossing_counts(ds)
        return n_crossing / n_pairs if n_pairs else math.nan, None

    def separated_crossings(ds):
        # minima more than a nat of total log-likelihood apart where found keep their order
        return float(crossing_counts(ds, gap=1.0 / n_patterns)[0]), None

    def excess(ds):
        d = ds.isel(alpha=0, u0=0)
        return (d["sim_energy_da"] - d["sim_energy_up"].min("start")).where(d["sim_done"])

    def worst_excess(side):
        def compute(ds):
            d = ds.isel(alpha=0, u0=0)
            stable = d["sigma_up"] > float(d["theory_sigma_at"])
            ex = excess(ds).where(stable if side == "above" else ~stable)
            return float(n_patterns * ex.max()), None

        return compute

    def beaten(ds):
        ex = excess(ds)
        return float((ex > _SAME_ENERGY).sum() / ex.notnull().sum()), None

    return [
        Derived(
            "jumps of followed minima as σ rises (minima disappear)",
            jumps,
            lower=1,
            source="simulation",
            smoke=True,
            note="a count over the runs",
        ),
        Derived(
            "pairs of followed minima more than 1 nat apart at σ = 0.8 whose energies cross as "
            "σ falls (the paper: the order is kept)",
            separated_crossings,
            upper=0,
            source="simulation",
            note="every pair of every run: one crossing would refute the kept order",
        ),
        Derived(
            "fraction of all pairs of followed minima whose energies cross as σ falls",
            crossings,
            source="simulation",
            reported=True,
        ),
        Derived(
            "largest DA excess over the lowest followed minimum where RS is stable "
            "(σ > σ_AT), nats of total log-likelihood",
            worst_excess("above"),
            source="simulation",
            reported=True,
        ),
        Derived(
            "largest DA excess over the lowest followed minimum where RS is broken "
            "(σ ≤ σ_AT), nats of total log-likelihood",
            worst_excess("below"),
            source="simulation",
            reported=True,
        ),
        Derived(
            "fraction of σ (all samples) where a followed minimum is below DA",
            beaten,
            source="simulation",
            reported=True,
        ),
    ]


FIG4 = FigureSpec(
    name="mixture-fig4",
    paper=PAPER,
    citation=CITATION,
    figure="Fig. 4",
    caption=(
        "Energies (per pattern, relative to the unsplit solution) of local minima found "
        "from random starts at σ = 0.8 and followed as σ rises to 3 (solid; a jump is a "
        "minimum disappearing) and falls to 0.3 (dashed); thick: the DA solution. α = 1, "
        "u₀ = 2. Checks: jumps on the way up; as σ falls no two minima more than a nat of "
        "total log-likelihood apart exchange their order (the few crossings are pairs within "
        "a fraction of a nat: their fraction is reported, as is how far and how often DA "
        "is above the lowest followed minimum)."
    ),
    grid={"alpha": (1.0,), "u0": (2.0,)},
    settings={
        "quick": {"n_seeds": 2, "n_features": 500, "n_starts": 6},
        "full": {"n_seeds": 6, "n_features": 500, "n_starts": 8},
    },
    outputs={
        "theory_sigma_at": (),
        "sim_energy_up": ("start", "sigma_up"),
        "sim_jump_up": ("start", "sigma_up"),
        "sim_energy_down": ("start", "sigma_down"),
        "sim_energy_da": ("sigma_up",),
    },
    coords=lambda s: {
        "start": np.arange(s["n_starts"]),
        "sigma_up": np.array(SIGMA_FIG4_UP),
        "sigma_down": np.array(SIGMA_FIG4_DOWN),
    },
    theory=_fig4_theory,
    simulation=_fig4_simulation,
    plot=plot_fig4,
    checks=_fig4_checks,
    base_seed=19940301,
)


# ------------------------------------------------------------ finite size --
# (alpha, sigma, u0) of each case: r where the RS ground state is the unique,
# stable minimum (Fig. 3's range); |r| in the split-random phase below
# alpha_c = 4 u0^-4 = 0.25 (theory: 0); the minima below sigma_AT = 1.55.
FSS_CASES = {
    "learning": (1.0, 2.6, 2.0),
    "random": (0.125, 1.0, 2.0),
    "minima": (1.0, 1.0, 2.0),
}
FSS_LADDER = (50, 100, 200, 400, 800, 1600)


def _fss_seeds(point, settings):
    n = point["n_features"]
    if point["case"] == "minima":
        return settings["n_seeds_minima"] if n <= settings["n_max_minima"] else 0
    if n > settings["n_max"]:
        return 0
    # n_seeds at the smallest rung, fewer (as 1/N) above it: equal SE per rung
    return seeds_for(n, n_seeds=settings["n_seeds"], n_ref=FSS_LADDER[0])


def _fss_theory(point, settings):
    alpha, sigma, u0 = FSS_CASES[point["case"]]
    return {"theory_r": _ground(alpha, sigma, u0).R}


def _fss_simulation(point, settings, rng):
    from statmechlearn.cluster import two_centre_fixed_points
    from statmechlearn.models import TwoGaussians

    alpha, sigma, u0 = FSS_CASES[point["case"]]
    N = int(point["n_features"])
    model = TwoGaussians(N, u0=u0)
    S, _ = model.sample(round(alpha * N), rng)
    out = {"sim_r": math.nan, "sim_n_minima": math.nan, "sim_spread_nats": math.nan}
    if point["case"] == "minima":
        starts = rng.standard_normal((settings["n_starts"], N)) / math.sqrt(N)
        fp = two_centre_fixed_points(S, sigma, starts, max_iter=20000, tol=_FIXED_POINT_TOL)
        e = np.sort(fp.energy[fp.converged])
        if e.size:
            out["sim_n_minima"] = 1 + int(np.sum(np.diff(e) > _SAME_ENERGY))
            out["sim_spread_nats"] = float(S.shape[0] * (e[-1] - e[0]))
        return out
    dU, _, ok = annealed_fixed_points(S, [sigma], rng)
    out["sim_r"] = float(abs(model.order_parameters(dU).R[0])) if ok[0] else math.nan
    return out


def plot_fss(ds, ax=None):
    """r against 1/N (learning), |r| against 1/√N (split-random), minima against N."""
    if ax is None:
        _, axes = subplots(None, 1, 3, figsize=(12.0, 3.8))
    else:
        axes = [ax, ax.inset_axes([0.62, 0.12, 0.35, 0.35]), None]
    learning = extrapolate_dataset(ds, "sim_r", sel={"case": "learning"})
    plot_extrapolation(
        axes[0],
        learning,
        theory=float(ds["theory_r"].sel(case="learning").isel(n_features=0)),
        label="DA, simulation (mean ± SE)",
    )
    axes[0].set_ylabel("$r$")
    axes[0].set_title(r"$\alpha = 1$, $\sigma = 2.6$: $r \to$ RS theory")
    axes[0].legend(fontsize=8)
    random = extrapolate_dataset(ds, "sim_r", sel={"case": "random"}, form="1/sqrt(N)")
    plot_extrapolation(axes[1], random, theory=0.0, color="C2")
    axes[1].set_ylabel("$|r|$")
    axes[1].set_title(r"$\alpha = 0.125 < \alpha_c$: $|r| \to 0$")
    if axes[2] is not None:
        d = ds.sel(case="minima")
        done = d["sim_done"]
        n = d["n_features"].values
        for var, color, label in (
            ("sim_n_minima", "C1", "distinct minima found (mean ± SE)"),
            ("sim_spread_nats", "C3", r"$N\cdot$(energy spread), nats (mean ± SE)"),
        ):
            mean, se = mean_se(d[var].where(done))
            keep = done.sum("seed").values >= 2
            plot_simulation(
                axes[2],
                n[keep],
                mean.values[keep],
                se.values[keep],
                linestyle="-",
                color=color,
                label=label,
            )
        axes[2].set_xscale("log")
        axes[2].set_yscale("log")
        axes[2].set_xlabel("$N$")
        axes[2].set_title(r"$\alpha = 1$, $\sigma = 1.0 < \sigma_{AT}$: random-start minima")
        axes[2].legend(fontsize=8)
    return axes[0]


def _log_slope(var):
    def compute(ds):
        d = ds.sel(case="minima")
        done = d["sim_done"].values
        n = d["n_features"].values.astype(float)
        means = [np.mean(d[var].values[i][done[i]]) for i in range(n.size) if done[i].sum() >= 2]
        ns = [n[i] for i in range(n.size) if done[i].sum() >= 2]
        if len(ns) < 2 or min(means) <= 0:
            return math.nan, None
        slope, _ = np.polyfit(np.log(ns), np.log(means), 1)
        return float(slope), None

    return compute


def _random_overlap_slope(ds):
    """Weighted least-squares slope of ln mean|r| against ln N, with its standard error."""
    d = ds.sel(case="random")
    mean, se = mean_se(d["sim_r"].where(d["sim_done"]))
    k = d["sim_done"].sum("seed").values
    keep = k >= 2
    mean, se = mean.values[keep], se.values[keep]
    n = d["n_features"].values[keep].astype(float)
    if n.size < 3 or np.any(mean <= 0):
        return math.nan, None
    x, y, w = np.log(n), np.log(mean), (mean / se) ** 2
    design = np.column_stack([np.ones_like(x), x])
    cov = np.linalg.inv(design.T @ (design * w[:, None]))
    coef = cov @ (design.T @ (w * y))
    return Measurement(float(coef[1]), float(math.sqrt(cov[1, 1])), int(k[keep].min()))


def _fss_checks(settings):
    return [
        *ladder_checks(
            "r at α = 1, σ = 2.6 (DA)",
            "sim_r",
            theory=("theory_r", {"case": "learning"}),
            sel={"case": "learning"},
            note=(
                "RS-stable, unique minimum: the mean over samples has O(1/N) corrections; "
                "the spread over samples is ≈ 1.2/√N, so the quick ladder is smoke and the "
                "full one (N to 1600) evidence"
            ),
        ),
        Derived(
            "|r| at α = 0.125 < α_c, σ = 1.0 (split-random phase): log-log slope of the "
            "mean over samples vs N",
            _random_overlap_slope,
            # quick mode's 6 runs at N = 400 leave it without power (slope -0.43 +- 0.12)
            **({"upper": 0.0} if settings["n_max"] >= 1600 else {"reported": True}),
            source="simulation",
            scale=0.5,
            note=(
                "r = 0 at N → ∞ below α_c: |r| must fall with N (a learning state would "
                "level off, slope → 0); asymptotically like N^-1/2, but at α_c/2 the spike "
                "is 0.71 of the BBP threshold and N ≤ 1600 is still in the crossover: "
                "√N·|r| grows from 4.7 to 7.8 over N = 50 … 800 (full run), so an intercept "
                "fit in N^-1/2 is biased (0.125 ± 0.023) and is not the check"
            ),
        ),
        Derived(
            "log-log slope of the number of distinct minima found vs N (α = 1, σ = 1.0 < σ_AT)",
            _log_slope("sim_n_minima"),
            source="simulation",
            reported=True,
            note="saturates at the number of starts once every start finds its own minimum",
        ),
        Derived(
            "log-log slope of N·(energy spread of the minima found) vs N (σ = 1.0 < σ_AT)",
            _log_slope("sim_spread_nats"),
            source="simulation",
            reported=True,
            note="1 if the minima differ by O(1) per pattern, 0 if by O(1) nats in total",
        ),
    ]


FSS = FigureSpec(
    name="mixture-fss",
    paper=PAPER,
    citation=CITATION,
    figure="finite size (Figs. 1, 3)",
    caption=(
        "Finite-size scaling, u₀ = 2. Left: r of deterministic annealing at α = 1, σ = 2.6 "
        "(Fig. 3's RS-stable range) at a ladder of N with more samples at small N (equal "
        "standard error per rung), fitted by r(N) = r∞ + b/N; star: RS theory. Middle: |r| at "
        "α = 0.125, half the retarded-learning threshold α_c = 4u₀⁻⁴, where theory gives "
        "r = 0: the finite-N overlap falls like N^-1/2 (the rounding of the transition). "
        "Right: below σ_AT (α = 1, σ = 1.0) the number of distinct minima that random "
        "starts find and their energy spread, against N."
    ),
    grid={"case": tuple(FSS_CASES), "n_features": FSS_LADDER},
    settings={
        "quick": {
            "n_seeds": 48,
            "n_max": 400,
            "n_seeds_minima": 4,
            "n_max_minima": 200,
            "n_starts": 6,
        },
        "full": {
            "n_seeds": 768,
            "n_max": 1600,
            "n_seeds_minima": 8,
            "n_max_minima": 800,
            "n_starts": 10,
        },
    },
    outputs={
        "theory_r": (),
        "sim_r": (),
        "sim_n_minima": (),
        "sim_spread_nats": (),
    },
    coords=lambda s: {},
    theory=_fss_theory,
    simulation=_fss_simulation,
    seeds=_fss_seeds,
    plot=plot_fss,
    checks=_fss_checks,
    base_seed=19940501,
)

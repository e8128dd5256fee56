"""Maximum-entropy inference against exact solutions: Jaynes' die and the discretised
Gaussian.
"""

import math

import numpy as np

from statmechlearn._core.information import entropy
from statmechlearn.experiments import (
    Check,
    Derived,
    FigureSpec,
    plot_theory,
    subplots,
)
from statmechlearn.papers.maxent._common import CITATION, PAPER

__all__ = ["MAXENT_INFERENCE"]


_FACES = np.arange(1.0, 7.0)


_DIE_MEANS = (1.5, 2.5, 3.5, 4.5, 5.5)


_DIE_DENSE = np.round(np.linspace(1.05, 5.95, 99), 4)


#: Jaynes' solution of the Brandeis dice problem (mean 4.5), as he prints it.
_JAYNES = ("0.05435", "0.07877", "0.11416", "0.16545", "0.23977", "0.34749")


_SPACINGS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)


_SIGMA = 1.0


def _die_exact(mu):
    """``λ`` of ``p_i ∝ exp(-λ i)`` on faces 1..6 with mean ``mu``: a bracketed 1-D root.

    Independent of :func:`maximum_entropy` (Newton on the dual): Brent's
    method on the mean, written with weights relative to the most probable
    face so that no exponential overflows.
    """
    from scipy.optimize import brentq

    def mean(lam):
        a = -lam * _FACES
        w = np.exp(a - a.max())
        return float(w @ _FACES / w.sum())

    if mu == 3.5:
        return 0.0
    # mean(λ) falls from 6 to 1; |λ| = 50 is far past any mean not within e^-50 of a face
    return brentq(lambda lam: mean(lam) - mu, -50.0, 50.0, xtol=1e-15, rtol=1e-15)


def _die_distribution(lam):
    a = -lam * _FACES
    w = np.exp(a - a.max())
    p = w / w.sum()
    return p, entropy(p, "nats")


def _gauss_grid(spacing):
    """A grid of spacing ``spacing`` through 0, out to ±14 σ (truncation below e^-98)."""
    half = math.floor(14.0 * _SIGMA / spacing)
    return spacing * np.arange(-half, half + 1)


def _gauss_exact(spacing):
    """``λ₂`` of the discrete Gaussian ``∝ exp(-λ₂ x²)`` on the grid with variance σ².

    The grid is symmetric about 0, so ``λ₁ = 0`` and one bracketed root remains.
    """
    from scipy.optimize import brentq

    x = _gauss_grid(spacing)

    def var(lam2):
        w = np.exp(-lam2 * x**2)
        return float(w @ x**2 / w.sum())

    # var falls from (grid's second moment) at λ₂ → 0 to 0 as λ₂ → ∞
    return brentq(lambda l2: var(l2) - _SIGMA**2, 1e-6, 50.0, xtol=1e-15, rtol=1e-15)


def _poisson_deviation(spacing):
    """Leading Poisson-summation term of ``2σ²λ₂ − 1`` on a grid through the mean.

    ``Σ_j exp(-(jΔ)²/2s²) = (√(2π) s/Δ)(1 + 2 exp(-2π²s²/Δ²) + ...)``, so the
    grid's variance is ``s² − 4 a s⁴ e^{-a s²}`` with ``a = 2π²/Δ²``; matching
    it to σ² gives ``2σ²λ₂ − 1 ≈ −4 a σ² e^{−a σ²}`` (see
    docs/derivations/maxent_inference.md).
    """
    a = 2.0 * math.pi**2 / spacing**2
    return -4.0 * a * _SIGMA**2 * math.exp(-a * _SIGMA**2)


def _maxent_theory(point, settings):
    lam = _die_exact(point["mean"])
    p, H = _die_distribution(lam)
    return {
        "theory_multiplier": np.array(lam),
        "theory_p": p,
        "theory_entropy": np.array(H),
        "theory_target": np.array(point["mean"]),
    }


def _maxent_simulation(point, settings, rng):
    from statmechlearn.model_selection import maximum_entropy

    res = maximum_entropy(_FACES[:, None], [point["mean"]])
    draws = rng.choice(_FACES, size=settings["n_draws"], p=res.probabilities)
    return {
        "sim_multiplier": np.array(res.multipliers[0]),
        "sim_p": res.probabilities,
        "sim_entropy": np.array(res.entropy),
        "sim_sample_mean": np.array(draws.mean()),
    }


def _maxent_shared(settings):
    from statmechlearn.model_selection import maximum_entropy

    dense_H = np.array([_die_distribution(_die_exact(mu))[1] for mu in _DIE_DENSE])
    lam_grid = np.array([_gauss_exact(d) for d in _SPACINGS])
    lam_maxent, H_maxent, mean_maxent = [], [], []
    for d in _SPACINGS:
        x = _gauss_grid(d)
        res = maximum_entropy(np.c_[x, x**2], [0.0, _SIGMA**2], base_measure=np.full(x.size, d))
        lam_maxent.append(res.multipliers)
        H_maxent.append(res.entropy)
        mean_maxent.append(res.probabilities @ x)
    lam_maxent = np.array(lam_maxent)
    # infeasible: a mean outside the faces, and a variance below what mean 3.5 allows
    infeasible = 0.0
    for feats, targets in ((_FACES[:, None], [6.5]), (np.c_[_FACES, _FACES**2], [3.5, 12.0])):
        try:
            maximum_entropy(feats, targets)
        except ValueError as exc:
            infeasible += float("infeasible" in str(exc))
    # redundant: E[3x − 1] = 3 E[x] − 1 adds nothing; only λ₁ + 3λ₂ is identifiable
    one = maximum_entropy(_FACES[:, None], [4.5])
    two = maximum_entropy(np.c_[_FACES, 3 * _FACES - 1], [4.5, 12.5])
    return {
        "shared_dense_entropy": dense_H,
        "shared_gauss_lambda2_exact": lam_grid,
        "shared_gauss_lambda2": lam_maxent[:, 1],
        "shared_gauss_lambda1": lam_maxent[:, 0],
        "shared_gauss_mean": np.array(mean_maxent),
        "shared_gauss_entropy": np.array(H_maxent),
        "shared_gauss_poisson": np.array([_poisson_deviation(d) for d in _SPACINGS]),
        # what panel (c) draws: |2σ²λ₂ − 1| of the exact discrete root, of maximum_entropy,
        # and of the leading Poisson term
        "shared_gauss_abs_deviation": np.stack(
            [
                np.abs(2 * _SIGMA**2 * lam_grid - 1),
                np.abs(2 * _SIGMA**2 * lam_maxent[:, 1] - 1),
                np.abs([_poisson_deviation(d) for d in _SPACINGS]),
            ]
        ),
        "shared_infeasible_raised": np.array(infeasible),
        "shared_redundant_p_diff": np.array(np.max(np.abs(one.probabilities - two.probabilities))),
        "shared_redundant_combination": np.array(two.multipliers[0] + 3 * two.multipliers[1]),
        "shared_single_multiplier": np.array(one.multipliers[0]),
    }


def _plot_maxent(ds, ax=None):
    _, ax = subplots(ax, 1, 3, figsize=(14, 4.2))
    first = ds.isel(seed=0)
    for j, mu in enumerate(ds["mean"].values):
        c = f"C{j}"
        plot_theory(ax[0], _FACES, ds["theory_p"].sel(mean=mu), color=c, label=f"mean {mu:g}")
        label = r"$\mathtt{maximum\_entropy}$ (circles)" if j == 0 else None
        ax[0].plot(_FACES, first["sim_p"].sel(mean=mu), "o", color=c, ms=5, mfc="none", label=label)
    ax[0].plot(
        _FACES, [float(v) for v in _JAYNES], "kx", ms=7, gid="guide", label="Jaynes (mean 4.5)"
    )
    ax[0].set_xlabel("face $i$")
    ax[0].set_ylabel("$p_i$")
    ax[0].set_title("(a) die: theory, exact (lines), against the solver (circles)", fontsize=9)
    ax[0].legend(fontsize=7)
    plot_theory(
        ax[1],
        ds["dense_mean"],
        ds["shared_dense_entropy"],
        color="k",
        label="theory: exact $H$(mean)",
    )
    ax[1].plot(ds["mean"], first["sim_entropy"], "C3o", label=r"$\mathtt{maximum\_entropy}$")
    ax[1].axhline(math.log(6), color="0.6", ls=":", lw=0.8, gid="guide")
    ax[1].set_xlabel("constrained mean $E[i]$")
    ax[1].set_ylabel(r"entropy, nats (dotted: $\log 6$)")
    ax[1].set_title("(b) entropy against the constraint", fontsize=9)
    ax[1].legend(fontsize=7)
    spacing = ds["spacing"].values
    dev = ds["shared_gauss_abs_deviation"]
    plot_theory(
        ax[2],
        spacing,
        dev.isel(gauss_curve=0),
        color="k",
        label="theory: exact discrete (1-D root)",
    )
    plot_theory(
        ax[2],
        spacing,
        dev.isel(gauss_curve=2),
        color="C0",
        linestyle="--",
        label="theory: Poisson summation, leading term",
    )
    ax[2].plot(spacing, dev.isel(gauss_curve=1), "C3o", label=r"$\mathtt{maximum\_entropy}$")
    ax[2].set_yscale("log")
    # below ~1e-12 the solvers' tolerances, not the grid, set the deviation
    ax[2].set_ylim(1e-16, 2.0)
    ax[2].set_xlabel(r"grid spacing $\Delta/\sigma$")
    ax[2].set_ylabel(r"$|2\sigma^2\lambda_2 - 1|$")
    ax[2].set_title("(c) Gaussian on a grid → continuous limit", fontsize=9)
    ax[2].legend(fontsize=7)
    return ax


def _maxent_checks(settings):
    def done(ds, var):
        return ds[var].where(ds["sim_done"])

    def max_abs_diff(sim, th):
        return lambda ds: (float(np.abs(done(ds, sim) - ds[th]).max()), None)

    checks = [
        Derived(
            "max |λ maximum_entropy − λ bracketed root| over means 1.5 … 5.5 (die)",
            max_abs_diff("sim_multiplier", "theory_multiplier"),
            upper=1e-8,
        ),
        Derived(
            "max |p maximum_entropy − p exact| over faces and means (die)",
            max_abs_diff("sim_p", "theory_p"),
            upper=1e-10,
        ),
        Derived(
            "max |H maximum_entropy − H exact| over means (die), nats",
            max_abs_diff("sim_entropy", "theory_entropy"),
            upper=1e-10,
        ),
    ]
    for i, v in enumerate(_JAYNES):

        def face(ds, i=i):
            return float(done(ds, "sim_p").sel(mean=4.5).isel(face=i).max()), None

        checks.append(
            Derived(
                f"Brandeis dice (mean 4.5): p_{i + 1}",
                face,
                reference_value=v,
                reference_source="E. T. Jaynes, Where do we stand on maximum entropy? (1978)",
            )
        )
    for mu in _DIE_MEANS:
        sel = {"mean": mu}
        checks.append(
            Check(
                f"sample mean of {settings['n_draws']} draws from the maxent die vs the "
                f"constraint {mu:g}",
                ("theory_target", sel),
                ("sim_sample_mean", sel),
            )
        )
    checks += [
        Derived(
            "Gaussian on a grid: max |λ₂ maximum_entropy / λ₂ exact discrete − 1| over Δ/σ "
            "= 0.5 … 2",
            lambda ds: (
                float(
                    np.abs(ds["shared_gauss_lambda2"] / ds["shared_gauss_lambda2_exact"] - 1).max()
                ),
                None,
            ),
            upper=1e-8,
        ),
        Derived(
            "Gaussian on a grid, Δ = σ/2: λ₂ vs the continuous 1/(2σ²) (Poisson: 1e-32)",
            lambda ds: (float(ds["shared_gauss_lambda2"].sel(spacing=0.5)), None),
            target=1 / (2 * _SIGMA**2),
            tolerance=1e-9,
        ),
        Derived(
            "Gaussian on a grid, Δ = σ/2: differential entropy vs ½ log(2πeσ²)",
            lambda ds: (float(ds["shared_gauss_entropy"].sel(spacing=0.5)), None),
            target=0.5 * math.log(2 * math.pi * math.e * _SIGMA**2),
            tolerance=1e-9,
        ),
        Derived(
            "Gaussian on a grid, Δ = σ: (2σ²λ₂ − 1) / Poisson leading term",
            lambda ds: (
                float(
                    (2 * _SIGMA**2 * ds["shared_gauss_lambda2"] - 1).sel(spacing=1.0)
                    / ds["shared_gauss_poisson"].sel(spacing=1.0)
                ),
                None,
            ),
            target=1.0,
            # set by the solver, not the series: tol = 1e-10 on E[x²] moves λ₂ by up to
            # ~1e-10, 1e-3 of the 2e-7 deviation; the next-order term (1 − aσ²)·4aσ²e^{−aσ²}
            # is 4e-6 of it
            tolerance=1e-3,
            note="deviation from the continuum 2e-7 at Δ = σ, 0.14 at Δ = 2σ",
        ),
        Derived(
            "infeasible constraint sets (mean 6.5; E[i²] = 12 at mean 3.5, a negative "
            "variance) refused with 'infeasible'",
            lambda ds: (float(ds["shared_infeasible_raised"]), None),
            target=2.0,
            tolerance=0.0,
        ),
        Derived(
            "redundant constraints E[i] = 4.5, E[3i − 1] = 12.5: max |Δp| against E[i] = 4.5 alone",
            lambda ds: (float(ds["shared_redundant_p_diff"]), None),
            upper=1e-12,
        ),
        Derived(
            "redundant constraints: λ₁ + 3λ₂ vs the single constraint's λ",
            lambda ds: (float(ds["shared_redundant_combination"]), None),
            target=lambda ds: float(ds["shared_single_multiplier"]),
            tolerance=1e-9,
        ),
    ]
    return checks


MAXENT_INFERENCE = FigureSpec(
    name="maxent-inference",
    paper=PAPER,
    citation=CITATION,
    figure="§2: maximum-entropy inference against known answers",
    caption=(
        "Maximum-entropy inference (§2) by maximum_entropy (Newton on the convex dual). "
        "(a) A die whose mean is known (Jaynes' Brandeis dice at mean 4.5, crosses his "
        "printed solution): p_i ∝ exp(−λ i), lines from λ solved independently as a "
        "bracketed 1-D root, circles maximum_entropy; samples drawn from it reproduce the "
        "constraint (checks, z over seeds). (b) The maximum entropy against the mean "
        "(line exact, markers maximum_entropy); log 6 at the fair die. (c) Mean 0 and "
        "variance σ² on a grid of spacing Δ: a discrete Gaussian whose λ₂ approaches the "
        "continuous 1/(2σ²) as exp(−2π²σ²/Δ²) (Poisson summation, dashed); black the "
        "exact discrete solution (1-D root), circles maximum_entropy (its 1e-10 tolerance "
        "is the floor at small Δ). An infeasible and a "
        "redundant constraint set are checked in the table."
    ),
    grid={"mean": _DIE_MEANS},
    settings={
        "quick": {"n_seeds": 16, "n_draws": 2000},
        "full": {"n_seeds": 40, "n_draws": 10000},
    },
    outputs={
        "theory_multiplier": (),
        "theory_p": ("face",),
        "theory_entropy": (),
        "theory_target": (),
        "sim_multiplier": (),
        "sim_p": ("face",),
        "sim_entropy": (),
        "sim_sample_mean": (),
        "shared_dense_entropy": ("dense_mean",),
        "shared_gauss_lambda2_exact": ("spacing",),
        "shared_gauss_lambda2": ("spacing",),
        "shared_gauss_lambda1": ("spacing",),
        "shared_gauss_mean": ("spacing",),
        "shared_gauss_entropy": ("spacing",),
        "shared_gauss_poisson": ("spacing",),
        "shared_gauss_abs_deviation": ("gauss_curve", "spacing"),
        "shared_infeasible_raised": (),
        "shared_redundant_p_diff": (),
        "shared_redundant_combination": (),
        "shared_single_multiplier": (),
    },
    coords=lambda s: {
        "face": np.arange(1, 7),
        "dense_mean": _DIE_DENSE,
        "spacing": np.array(_SPACINGS),
        "gauss_curve": ["exact discrete", "maximum_entropy", "Poisson leading term"],
    },
    theory=_maxent_theory,
    simulation=_maxent_simulation,
    shared=_maxent_shared,
    plot=_plot_maxent,
    checks=_maxent_checks,
    base_seed=20261208,
)

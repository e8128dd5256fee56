"""Random-walk Metropolis–Hastings on continuous targets with known answers (notes §9.6).

``sampling-metropolis``
    :func:`~statmechlearn.inference.metropolis_hastings` on a correlated
    5-dimensional Gaussian and on a 1-D two-component Gaussian mixture, whose
    means, variances and (for the Gaussian) acceptance rates are exact:

    (a) the acceptance rate against the proposal scale, measured and exact
        (Imhof's formula), and the acceptance after Robbins–Monro tuning
        against its target (0.234; 0.44 in one dimension), with the tuned
        scale against the exact scale that gives the target;
    (b) posterior means and variances against the exact ones, and the
        distribution of ``z = (estimate - exact) / MCSE`` with the Monte
        Carlo standard error from ArviZ's effective sample size: standard
        normal if the ESS is right;
    (c) bulk ESS per draw against the proposal scale ``l / sqrt(d)`` (the
        proposal covariance ``l^2 / d`` times the target's), with the
        optimum ``l = 2.38`` of Roberts, Gelman & Gilks (1997) marked and
        their ``d -> infinity`` limit drawn;
    (d) rank-normalised R-hat near 1 for converged chains and above 1.01 for
        short chains started over-dispersed.
"""

import math

import numpy as np

from statmechlearn.experiments import (
    Check,
    Derived,
    FigureSpec,
    mean_se,
    measure,
    plot_simulation,
    plot_theory,
    simulation_label,
    subplots,
)
from statmechlearn.papers.sampling._common import CITATION, PAPER

__all__ = ["METROPOLIS"]


#: Dimension of the Gaussian target.
_D = 5


#: The correlated Gaussian: mean, standard deviations, correlation rho^|i-j|.
_MU = np.array([1.0, -0.5, 2.0, 0.0, -1.5])


_SD = np.array([1.0, 0.8, 1.2, 1.0, 0.9])


_RHO = 0.3


#: The mixture: weights, means, standard deviations.
_MIX_W = np.array([0.3, 0.7])


_MIX_MU = np.array([-2.0, 1.5])


_MIX_SD = np.array([0.6, 1.0])


#: Proposal scales l (the proposal covariance is l^2 / d times the target's).
_ELLS = (0.6, 1.2, 1.8, 2.38, 3.2, 4.8)


_OPTIMAL_ELL = 2.38


#: Runs whose R-hat panel (d) shows.
_RHAT_RUNS = (
    "Gaussian, tuned",
    "mixture, tuned",
    "Gaussian, l = 2.38, long",
    "short, over-dispersed",
)


def _covariance():
    idx = np.arange(_MU.size)
    corr = _RHO ** np.abs(np.subtract.outer(idx, idx))
    return np.outer(_SD, _SD) * corr


def _gaussian_log_density(mu, cov):
    prec = np.linalg.inv(cov)

    def log_density(x):
        r = x - mu
        return -0.5 * np.einsum("ci,ij,cj->c", r, prec, r)

    return log_density


def _mixture_log_density(x):
    z = (x[:, :1] - _MIX_MU) / _MIX_SD
    log_terms = np.log(_MIX_W) - np.log(_MIX_SD) - 0.5 * z**2
    top = log_terms.max(axis=1, keepdims=True)
    return (top + np.log(np.exp(log_terms - top).sum(axis=1, keepdims=True)))[:, 0]


def _mixture_moments():
    mean = float(np.sum(_MIX_W * _MIX_MU))
    second = float(np.sum(_MIX_W * (_MIX_SD**2 + _MIX_MU**2)))
    return mean, second - mean**2


def _acceptance_exact(weights, scale):
    """Stationary acceptance rate of an isotropic random walk ``N(0, scale^2 I)`` on a Gaussian.

    With ``x ~ N(mu, Sigma)`` and step ``z``, ``log p(x+z) - log p(x)`` given
    ``z`` is ``N(-r^2/2, r^2)``, ``r^2 = z^T Sigma^-1 z``, and ``E min(1, e^D)
    = 2 Phi(-r/2) = P(N^2 > r^2/4)``. So the acceptance is ``P(Q > 0)`` for
    the Gaussian quadratic form ``Q = chi2_1 - (scale^2/4) sum_i w_i chi2_1``
    (``w`` the eigenvalues of ``Sigma^-1``), which Imhof's (1961) formula
    gives as one integral: ``1/2 + (1/pi) int_0^inf sin(theta(u)) / (u
    rho(u)) du``, ``theta = (1/2) sum arctan(lam_j u)``, ``rho = prod (1 +
    lam_j^2 u^2)^(1/4)``.
    """
    from scipy import integrate

    lam = np.concatenate([[1.0], -0.25 * scale**2 * np.asarray(weights, dtype=float)])

    def integrand(u):
        if u == 0.0:
            return 0.5 * float(np.sum(lam))
        theta = 0.5 * np.sum(np.arctan(lam * u))
        rho = np.prod((1.0 + (lam * u) ** 2) ** 0.25)
        return math.sin(theta) / (u * rho)

    value, _ = integrate.quad(integrand, 0.0, np.inf, limit=500, epsabs=1e-11, epsrel=1e-10)
    return 0.5 + value / math.pi


def _ess_limit(ell, d):
    """Bulk ESS per draw in the d -> infinity diffusion limit, ``l^2 Phi(-l/2) / (2 d)``.

    The coordinate becomes an Ornstein–Uhlenbeck process of speed ``h = 2
    l^2 Phi(-l/2)`` in time ``steps / d`` (Roberts, Gelman & Gilks 1997), so
    ``tau = 4 d / h`` steps.
    """
    from scipy.stats import norm

    ell = np.asarray(ell, dtype=float)
    return ell**2 * norm.cdf(-ell / 2.0) / (2.0 * d)


def _theory(point, settings):
    from scipy import optimize

    d = int(point["n_dim"])
    cov = _covariance()[:d, :d]
    iid = np.ones(d)
    acc = np.array([_acceptance_exact(iid, ell / math.sqrt(d)) for ell in _ELLS])
    # the isotropic proposal that "auto" tunes, on the correlated target
    weights = np.linalg.eigvalsh(np.linalg.inv(cov))
    target = 0.44 if d == 1 else 0.234
    scale = optimize.brentq(
        lambda s: _acceptance_exact(weights, s) - target, 1e-3, 20.0, xtol=1e-12
    )
    mean, var = _mixture_moments()
    return {
        "theory_acceptance": acc,
        "theory_tuned_scale": np.float64(scale),
        "theory_gauss_mean": _MU[:d].copy(),
        "theory_gauss_var": np.diag(cov).copy(),
        "theory_mixture_mean": np.float64(mean),
        "theory_mixture_var": np.float64(var),
    }


def _shared(settings):
    from scipy.stats import norm

    d = _D
    ell = np.geomspace(0.4, 7.0, 61)
    acc = np.array([_acceptance_exact(np.ones(d), e / math.sqrt(d)) for e in ell])
    z = np.linspace(-4.0, 4.0, 161)
    return {
        "shared_acceptance_dense": acc,
        "shared_ess_limit": _ess_limit(ell, d),
        "shared_normal_pdf": norm.pdf(z),
    }


def _group_z(draws, exact_mean, exact_var, group):
    """z of the mean and variance estimates of each group of ``group`` chains and coordinate.

    ``MCSE = sd / sqrt(ESS)`` with ArviZ's ESS of the trace (for the mean)
    and of the squared deviations (for the variance).
    """
    from statmechlearn.inference import effective_sample_size

    n_chains, _, d = draws.shape
    n_groups = n_chains // group
    z_mean = np.empty((n_groups, d))
    z_var = np.empty((n_groups, d))
    for g in range(n_groups):
        block = draws[g * group : (g + 1) * group]
        for j in range(d):
            x = block[:, :, j]
            m = x.mean()
            sq = (x - m) ** 2
            ess_m = effective_sample_size(x, method="mean")
            ess_v = effective_sample_size(sq, method="mean")
            z_mean[g, j] = (m - exact_mean[j]) / (x.std(ddof=1) / math.sqrt(ess_m))
            v = sq.sum() / (x.size - 1)
            z_var[g, j] = (v - exact_var[j]) / (sq.std(ddof=1) / math.sqrt(ess_v))
    return z_mean, z_var


def _simulation(point, settings, rng):
    from statmechlearn.inference import metropolis_hastings

    d = int(point["n_dim"])
    cov = _covariance()[:d, :d]
    chol = np.linalg.cholesky(cov)
    mu = _MU[:d]
    log_p = _gaussian_log_density(mu, cov)
    group, n_groups = settings["group_chains"], settings["n_groups"]
    n_chains = group * n_groups
    out = {}

    # (a, b) the default: isotropic proposal tuned to 0.234, chains over-dispersed at start
    init = mu + 3.0 * rng.standard_normal((n_chains, d)) @ chol.T
    tuned = metropolis_hastings(
        log_p,
        init,
        n_draws=settings["n_draws"],
        n_chains=n_chains,
        n_tune=settings["n_tune"],
        random_state=rng,
    )
    z_mean, z_var = _group_z(tuned.draws, mu, np.diag(cov), group)
    flat = tuned.draws.reshape(-1, d)
    out |= {
        "sim_tuned_acceptance": np.float64(tuned.acceptance_rate.mean()),
        "sim_tuned_scale": np.float64(tuned.proposal_scale),
        "sim_gauss_mean": flat.mean(axis=0),
        "sim_gauss_var": flat.var(axis=0, ddof=1),
        "sim_z_mean": z_mean,
        "sim_z_var": z_var,
    }

    # (a, b) the mixture, one dimension: tuned to 0.44
    mean, var = _mixture_moments()
    init = rng.normal(0.0, 3.0, size=(n_chains, 1))
    mix = metropolis_hastings(
        _mixture_log_density,
        init,
        n_draws=settings["n_draws"],
        n_chains=n_chains,
        n_tune=settings["n_tune"],
        random_state=rng,
    )
    mz_mean, mz_var = _group_z(mix.draws, [mean], [var], group)
    x = mix.draws[:, :, 0]
    out |= {
        "sim_mixture_acceptance": np.float64(mix.acceptance_rate.mean()),
        "sim_mixture_mean": np.float64(x.mean()),
        "sim_mixture_var": np.float64(x.var(ddof=1)),
        "sim_mixture_z_mean": mz_mean[:, 0],
        "sim_mixture_z_var": mz_var[:, 0],
    }

    # (c) fixed proposals l^2/d Sigma, chains started in the stationary distribution
    acc, ess = [], []
    n_sweep = settings["sweep_chains"]
    for ell in _ELLS:
        start = mu + rng.standard_normal((n_sweep, d)) @ chol.T
        res = metropolis_hastings(
            log_p,
            start,
            n_draws=settings["sweep_draws"],
            n_chains=n_sweep,
            n_tune=0,
            proposal_scale=(ell**2 / d) * cov,
            random_state=rng,
        )
        acc.append(res.acceptance_rate.mean())
        ess.append(np.mean(res.ess) / (n_sweep * settings["sweep_draws"]))

    # (d) converged: the optimal proposal started in equilibrium, long enough that R-hat - 1
    # (about tau / (2 n) for n draws per half chain) is well below 0.01
    n_conv = settings["converged_chains"]
    converged = metropolis_hastings(
        log_p,
        mu + rng.standard_normal((n_conv, d)) @ chol.T,
        n_draws=settings["converged_draws"],
        n_chains=n_conv,
        n_tune=0,
        proposal_scale=(_OPTIMAL_ELL**2 / d) * cov,
        random_state=rng,
    )
    # short chains started ten standard deviations out, nothing discarded
    wide = mu + 10.0 * rng.standard_normal((4, d)) @ chol.T
    short = metropolis_hastings(
        log_p,
        wide,
        n_draws=settings["short_draws"],
        n_chains=4,
        n_tune=0,
        proposal_scale=(_OPTIMAL_ELL**2 / d) * cov,
        random_state=rng,
    )
    out |= {
        "sim_acceptance": np.array(acc),
        "sim_ess_per_draw": np.array(ess),
        "sim_rhat_excess": np.array(
            [
                float(np.max(tuned.r_hat)) - 1.0,
                float(np.max(mix.r_hat)) - 1.0,
                float(np.max(converged.r_hat)) - 1.0,
                float(np.max(short.r_hat)) - 1.0,
            ]
        ),
    }
    return out


def _done(ds):
    return ds["sim_done"].values.astype(bool)


def _plot(ds, ax=None):
    _fig, ax = subplots(ax, 2, 2, figsize=(11, 8.5))
    ax = np.asarray(ax).ravel()
    ds = ds.isel(n_dim=0)
    d = int(ds["n_dim"])
    done = ds["sim_done"]
    ell = ds["ell"].values
    dense = ds["ell_dense"].values

    # (a) acceptance against the scale
    plot_theory(
        ax[0], dense, ds["shared_acceptance_dense"].values, color="k", label="theory: exact (Imhof)"
    )
    runs = ds["sim_acceptance"].where(done)
    m, se = mean_se(runs)
    label = simulation_label(runs.count("seed"), "measured, simulation")
    plot_simulation(ax[0], ell, m.values, se.values, color="C0", label=label)
    ax[0].axvline(_OPTIMAL_ELL, color="0.6", linestyle=":", label="$l = 2.38$")
    ax[0].axhline(0.234, color="C3", linestyle="--", linewidth=1, label="target 0.234")
    ax[0].set_xscale("log")
    ax[0].set_xticks(ell, [f"{v:g}" for v in ell])
    ax[0].minorticks_off()
    ax[0].set_xlabel(r"proposal scale $l$ (covariance $l^2\Sigma/d$)")
    ax[0].set_ylabel("acceptance rate")
    ax[0].set_title(f"(a) acceptance, Gaussian $d = {d}$", fontsize=9)
    ax[0].legend(fontsize=7)

    # (c) ESS per draw against the scale
    plot_theory(
        ax[1],
        dense,
        ds["shared_ess_limit"].values,
        color="k",
        linestyle="--",
        label=r"theory: $d\to\infty$ limit $l^2\Phi(-l/2)/2d$",
    )
    runs = ds["sim_ess_per_draw"].where(done)
    m, se = mean_se(runs)
    label = simulation_label(runs.count("seed"), "bulk ESS / draw, simulation")
    plot_simulation(ax[1], ell, m.values, se.values, color="C0", label=label)
    ax[1].axvline(_OPTIMAL_ELL, color="C3", linestyle=":", label="optimum $l = 2.38$ (RGG 1997)")
    ax[1].set_xscale("log")
    ax[1].set_xticks(ell, [f"{v:g}" for v in ell])
    ax[1].minorticks_off()
    ax[1].set_xlabel(r"proposal scale $l$")
    ax[1].set_ylabel("bulk ESS per draw (ArviZ)")
    ax[1].set_title("(c) efficiency", fontsize=9)
    ax[1].legend(fontsize=7)

    # (b) z of the estimates: standard normal if the ESS is right
    keep = _done(ds)
    z = np.concatenate(
        [
            ds["sim_z_mean"].values[keep].ravel(),
            ds["sim_z_var"].values[keep].ravel(),
            ds["sim_mixture_z_mean"].values[keep].ravel(),
            ds["sim_mixture_z_var"].values[keep].ravel(),
        ]
    )
    z = z[np.isfinite(z)]
    grid = ds["z_grid"].values
    ax[2].hist(
        z,
        bins=np.linspace(-4, 4, 33),
        density=True,
        color="C0",
        alpha=0.5,
        label=f"histogram: $z$ of means and variances ({z.size})",
    )
    plot_theory(ax[2], grid, ds["shared_normal_pdf"].values, color="k", label="theory: $N(0, 1)$")
    ax[2].set_xlabel(r"$z$ = (estimate − exact) / (SD / $\sqrt{\mathrm{ESS}}$)")
    ax[2].set_ylabel("density")
    ax[2].set_title("(b) Monte Carlo errors from the ESS", fontsize=9)
    ax[2].legend(fontsize=7)

    # (d) R-hat
    runs = [str(r) for r in ds["run"].values]
    m, se = mean_se(ds["sim_rhat_excess"].where(done))
    x = np.arange(len(runs))
    plot_simulation(
        ax[3], x, m.values, se.values, color="C0", label="max over coordinates (mean ± SE)"
    )
    ax[3].axhline(0.01, color="C3", linestyle="--", linewidth=1, label=r"$\hat{R} = 1.01$")
    ax[3].set_yscale("log")
    ax[3].set_xticks(x, runs, fontsize=7, rotation=15)
    ax[3].set_ylabel(r"$\hat{R} - 1$ (rank-normalised, ArviZ)")
    ax[3].set_title(r"(d) $\hat{R}$", fontsize=9)
    ax[3].legend(fontsize=7)
    return ax


def _checks(settings):
    d = _D
    at = {"n_dim": d}
    checks = []
    for ell in settings["check_ells"]:
        sel = at | {"ell": ell}
        checks.append(
            Check(
                f"acceptance at l = {ell:g}, proposal l²Σ/{d}: measured vs exact (Imhof)",
                ("theory_acceptance", sel),
                ("sim_acceptance", sel),
            )
        )

    def tuned(var):
        return lambda ds: measure(ds[var].sel(at).values[_done(ds.sel(at))])

    checks += [
        Derived(
            "acceptance after Robbins–Monro tuning, Gaussian (target 0.234)",
            tuned("sim_tuned_acceptance"),
            target=0.234,
            target_from="target_acceptance",
            source="simulation",
        ),
        Derived(
            "acceptance after Robbins–Monro tuning, 1-D mixture (target 0.44)",
            tuned("sim_mixture_acceptance"),
            target=0.44,
            target_from="target_acceptance",
            source="simulation",
        ),
        Check(
            "tuned isotropic scale vs the exact scale of acceptance 0.234 (Imhof)",
            ("theory_tuned_scale", at),
            ("sim_tuned_scale", at),
        ),
    ]
    for j in range(d):
        sel = at | {"coordinate": j}
        sd = float(_SD[j])
        checks += [
            Check(
                f"Gaussian mean, coordinate {j}",
                ("theory_gauss_mean", sel),
                ("sim_gauss_mean", sel),
                scale=sd,
            ),
            Check(
                f"Gaussian variance, coordinate {j}",
                ("theory_gauss_var", sel),
                ("sim_gauss_var", sel),
            ),
        ]
    mix_sd = math.sqrt(_mixture_moments()[1])
    checks += [
        Check("mixture mean", ("theory_mixture_mean", at), ("sim_mixture_mean", at), scale=mix_sd),
        Check("mixture variance", ("theory_mixture_var", at), ("sim_mixture_var", at)),
    ]

    def z_square(*names):
        def compute(ds):
            sel = ds.sel(at)
            keep = _done(sel)
            per_seed = np.concatenate(
                [sel[n].values[keep].reshape(int(keep.sum()), -1) ** 2 for n in names], axis=1
            )
            return measure(per_seed.mean(axis=1))

        return compute

    checks += [
        Derived(
            "E[z²] of the means, z = error / (sd/√ESS): 1 if ArviZ's ESS is right",
            z_square("sim_z_mean", "sim_mixture_z_mean"),
            target=1.0,
            target_from="z standard normal",
            source="simulation",
        ),
        Derived(
            "E[z²] of the variances, MCSE from the ESS of (x − mean)²",
            z_square("sim_z_var", "sim_mixture_z_var"),
            target=1.0,
            target_from="z standard normal",
            source="simulation",
        ),
    ]

    def ess_gain(other):
        def compute(ds):
            sel = ds.sel(at)
            e = sel["sim_ess_per_draw"].values[_done(sel)]
            i, k = _ELLS.index(_OPTIMAL_ELL), _ELLS.index(other)
            return measure(e[:, i] - e[:, k])

        return compute

    def ess_at_optimum(ds):
        sel = ds.sel(at)
        e = sel["sim_ess_per_draw"].sel(ell=_OPTIMAL_ELL).values[_done(sel)]
        return float(np.mean(e))

    for other in (_ELLS[0], _ELLS[-1]):
        checks.append(
            Derived(
                f"ESS/draw at l = 2.38 minus at l = {other:g}, paired (> 0: the optimum is "
                "between)",
                ess_gain(other),
                lower=0.0,
                scale=ess_at_optimum,
                source="simulation",
            )
        )

    def ess_ratio_to_limit(ds):
        sel = ds.sel(at)
        e = sel["sim_ess_per_draw"].sel(ell=_OPTIMAL_ELL).values[_done(sel)]
        return measure(e / float(_ess_limit(_OPTIMAL_ELL, d)))

    checks.append(
        Derived(
            f"ESS/draw at l = 2.38 over the d → ∞ limit (finite d = {d}: not exact)",
            ess_ratio_to_limit,
            source="simulation",
            reported=True,
        )
    )

    def rhat(run):
        return lambda ds: measure(
            ds["sim_rhat_excess"].sel(at | {"run": run}).values[_done(ds.sel(at))]
        )

    def smallest_short(ds):
        sel = ds["sim_rhat_excess"].sel(at | {"run": "short, over-dispersed"})
        return float(np.min(sel.values[_done(ds.sel(at))])), None

    checks += [
        Derived(
            f"R-hat − 1, converged chains: Gaussian, l = 2.38, started in equilibrium, "
            f"{settings['converged_chains']} × {settings['converged_draws']} draws",
            rhat("Gaussian, l = 2.38, long"),
            upper=0.01,
            source="simulation",
        ),
        Derived(
            "R-hat − 1, converged chains: 1-D mixture, tuned, after burn-in",
            rhat("mixture, tuned"),
            upper=0.01,
            source="simulation",
        ),
        Derived(
            "R-hat − 1, Gaussian, isotropic tuned proposal (after burn-in; τ ≈ 20 draws)",
            rhat("Gaussian, tuned"),
            source="simulation",
            reported=True,
        ),
        Derived(
            f"R-hat − 1, {settings['short_draws']} draws started 10 sd out, nothing "
            "discarded: smallest over seeds (every seed flagged)",
            smallest_short,
            lower=0.01,
            source="simulation",
        ),
    ]
    return checks


METROPOLIS = FigureSpec(
    name="sampling-metropolis",
    paper=PAPER,
    citation=CITATION,
    figure="§9.6: Metropolis–Hastings with continuous proposals",
    caption=(
        "Random-walk Metropolis–Hastings (metropolis_hastings: Gaussian proposal, symmetric, "
        "so the Hastings ratio is p(x')/p(x), notes §9.6) on a correlated Gaussian in d = 5 "
        "and a 1-D mixture 0.3 N(−2, 0.6²) + 0.7 N(1.5, 1), means and variances exact. "
        "(a) Acceptance against the scale l of the proposal covariance l²Σ/d: exact "
        "(Imhof's formula, line) and measured (markers, mean ± SE over seeds). "
        "(b) z of the posterior means and variances of groups of 4 chains, the Monte Carlo "
        "standard error from ArviZ's effective sample size (histogram), against N(0, 1) "
        "(line). (c) Bulk ESS per draw against l, with the d → ∞ limit l²Φ(−l/2)/2d and "
        "its optimum l = 2.38 (Roberts, Gelman & Gilks 1997). (d) Rank-normalised R-hat − 1 "
        "(max over coordinates, mean ± SE over seeds; log scale) for the tuned runs of "
        "(a, b), for 8 chains of 8000 draws with the optimal proposal started in equilibrium, "
        "and for 4 chains of 40 draws started 10 standard deviations out; dashed: 1.01. "
        "The default proposal is isotropic, its scale tuned by Robbins–Monro to acceptance "
        "0.234 (0.44 in 1-D) during the discarded burn-in (markers in (a) at fixed l)."
    ),
    grid={"n_dim": (_D,)},
    settings={
        "quick": {
            "n_seeds": 12,
            "group_chains": 4,
            "n_groups": 8,
            "n_draws": 4000,
            "n_tune": 1000,
            "sweep_chains": 4,
            "sweep_draws": 4000,
            "converged_chains": 8,
            "converged_draws": 8000,
            "short_draws": 40,
            "check_ells": (1.2, 2.38, 3.2),
        },
        "full": {
            "n_seeds": 40,
            "group_chains": 4,
            "n_groups": 16,
            "n_draws": 4000,
            "n_tune": 2000,
            "sweep_chains": 4,
            "sweep_draws": 8000,
            "converged_chains": 8,
            "converged_draws": 8000,
            "short_draws": 40,
            "check_ells": _ELLS,
        },
    },
    outputs={
        "theory_acceptance": ("ell",),
        "theory_tuned_scale": (),
        "theory_gauss_mean": ("coordinate",),
        "theory_gauss_var": ("coordinate",),
        "theory_mixture_mean": (),
        "theory_mixture_var": (),
        "shared_acceptance_dense": ("ell_dense",),
        "shared_ess_limit": ("ell_dense",),
        "shared_normal_pdf": ("z_grid",),
        "sim_tuned_acceptance": (),
        "sim_tuned_scale": (),
        "sim_gauss_mean": ("coordinate",),
        "sim_gauss_var": ("coordinate",),
        "sim_z_mean": ("group", "coordinate"),
        "sim_z_var": ("group", "coordinate"),
        "sim_mixture_acceptance": (),
        "sim_mixture_mean": (),
        "sim_mixture_var": (),
        "sim_mixture_z_mean": ("group",),
        "sim_mixture_z_var": ("group",),
        "sim_acceptance": ("ell",),
        "sim_ess_per_draw": ("ell",),
        "sim_rhat_excess": ("run",),
    },
    coords=lambda s: {
        "ell": np.array(_ELLS),
        "coordinate": np.arange(_D),
        "group": np.arange(s["n_groups"]),
        "ell_dense": np.geomspace(0.4, 7.0, 61),
        "z_grid": np.linspace(-4.0, 4.0, 161),
        "run": np.array(_RHAT_RUNS),
    },
    theory=_theory,
    simulation=_simulation,
    shared=_shared,
    plot=_plot,
    checks=_checks,
    base_seed=20261125,
)

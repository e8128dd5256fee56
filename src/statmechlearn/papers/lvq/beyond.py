"""Beyond Biehl, Ghosh & Hammer: the VQ plateau and self-averaging of the overlaps.

``lvq-vq-plateau``: unsupervised VQ first settles on a symmetric plateau
(eps_g = 1/2) and leaves it at a rate ``kappa`` (the unstable eigenvalue of
the ODEs there, :func:`~statmechlearn.theory.lvq_dynamics.plateau_instability`),
so the plateau's length grows like ``ln(1 / delta) / kappa`` with the initial
asymmetry ``delta``; at finite N the fluctuations of the data break the
symmetry first.

``lvq-self-averaging``: the spread of R and Q over independent runs falls
like N^(-1/2), the property the paper cites ("details will be published
elsewhere") and on which its N -> infinity theory rests.
"""

import numpy as np

from statmechlearn.experiments import (
    Derived,
    FigureSpec,
    Measurement,
    mean_se,
    measure,
    plot_simulation,
    plot_theory,
    simulation_label,
    subplots,
)
from statmechlearn.lvq import wta_overlap_updates
from statmechlearn.models import LabeledMixture
from statmechlearn.papers.lvq._common import CITATION, LABELS, PAPER, simulate_learning_curve
from statmechlearn.theory.lvq_dynamics import (
    generalization_error,
    learning_curve,
    plateau_instability,
)

__all__ = ["PLATEAU", "SELF_AVERAGING", "plot_plateau", "plot_self_averaging"]


_Q0 = 1e-4


_ESCAPE = 0.05  # the plateau ends when |eps_g - 1/2| first exceeds this


def _escape_time(alpha, eps):
    """First alpha with |eps - 1/2| > _ESCAPE, linearly interpolated; NaN if never."""
    dev = np.abs(np.asarray(eps) - 0.5) - _ESCAPE
    above = np.flatnonzero(dev > 0)
    if above.size == 0:
        return np.nan
    i = above[0]
    if i == 0:
        return float(alpha[0])
    t = dev[i - 1] / (dev[i - 1] - dev[i])
    return float(alpha[i - 1] + t * (alpha[i] - alpha[i - 1]))


def _plateau_coords(settings):
    return {"alpha": np.linspace(0.0, settings["alpha_max"], settings["n_theory_points"])}


def _plateau_theory(point, settings):
    alpha = _plateau_coords(settings)["alpha"]
    kw = {"p_plus": point["p_plus"], "lam": point["lam"], "eta": point["eta"]}
    init = (point["delta"] * np.eye(2), _Q0 * np.eye(2))
    # one integration on a 20x finer grid that contains the report grid
    refine = 20
    fine = learning_curve(
        "vq", np.linspace(0, alpha[-1], refine * (alpha.size - 1) + 1), init=init, **kw
    )
    return {
        "theory_eps_g": fine.eps_g[::refine],
        "theory_escape": np.array(_escape_time(fine.alpha, fine.eps_g)),
        "theory_kappa": np.array(plateau_instability(**kw).escape_rate),
    }


def _plateau_simulation(point, settings, rng):
    # the exact order-parameter chain: a plateau of thousands of N-dimensional examples
    # costs O(1) per example, and the same law as prototypes in N dimensions
    n = settings["n_features"]
    kw = {"p_plus": point["p_plus"], "lam": point["lam"]}
    model = LabeledMixture(n_features=n, **kw)
    R, Q = point["delta"] * np.eye(2), _Q0 * np.eye(2)
    step = settings["sim_alpha_step"]
    per_chunk = max(1, round(step * n))
    alpha, prev_alpha = 0.0, 0.0
    prev = float(generalization_error(R, Q, **kw))
    if abs(prev - 0.5) > _ESCAPE:
        return {"sim_escape": np.array(0.0)}
    while alpha < settings["sim_alpha_max"]:
        R, Q = wta_overlap_updates(
            R,
            Q,
            per_chunk,
            model=model,
            prototype_labels=LABELS,
            learning_rate=point["eta"] / n,
            a=1.0,
            b=0.0,
            random_state=rng,
        )
        alpha += per_chunk / n
        eps = float(generalization_error(R, Q, **kw))
        if abs(eps - 0.5) > _ESCAPE:
            t = _escape_time(np.array([prev_alpha, alpha]), np.array([prev, eps]))
            return {"sim_escape": np.array(t)}
        prev, prev_alpha = eps, alpha
    return {"sim_escape": np.array(np.nan)}


def _fit_line(x, y):
    A = np.vstack([np.ones_like(x), x]).T
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    return coef


def _small_delta(ds):
    d = ds["delta"].values
    return d <= np.sort(d)[len(d) // 2]  # the smaller half, far from the linear regime


def plot_plateau(ds, ax=None):
    """VQ plateau: eps_g(alpha) for several initial tilts, and the plateau length.

    Parameters
    ----------
    ds : xarray.Dataset
        Dataset of ``lvq-vq-plateau``.
    ax : sequence of two Axes, optional

    Returns
    -------
    ndarray of two Axes
    """
    _, ax = subplots(ax, 1, 2, figsize=(10, 4))
    ds = ds.squeeze([d for d in ("p_plus", "lam", "eta") if d in ds.dims], drop=False)
    for delta in ds["delta"].values:
        plot_theory(
            ax[0], ds["alpha"], ds["theory_eps_g"].sel(delta=delta), label=rf"$\delta$={delta:g}"
        )
    ax[0].set_xlabel(r"$\alpha$")
    ax[0].set_ylabel(r"$\epsilon_g$ (VQ, ODE theory)")
    ax[0].legend(frameon=False, fontsize=8)
    x = np.log(1.0 / ds["delta"].values)
    esc = ds["theory_escape"].values
    kappa = float(ds["theory_kappa"].isel(delta=0))
    small = _small_delta(ds)
    c0, _ = _fit_line(x[small], esc[small])
    xs = np.linspace(x.min() - 0.5, x.max() + 0.5, 50)
    ax[1].plot(x, esc, "ks", mfc="none", label="theory (ODE)")
    ax[1].plot(
        xs,
        c0 + xs / kappa,
        "k-",
        gid="guide",  # the slope 1/kappa through the ODE points, not a stored curve
        lw=0.8,
        label=rf"const + ln(1/$\delta$)/$\kappa$, $\kappa$={kappa:.4f}",
    )
    runs = ds["sim_escape"].where(ds["sim_done"])
    mean, se = mean_se(runs)
    label = simulation_label(runs.count("seed"), f"simulation, N = {ds.attrs['n_features']}")
    plot_simulation(ax[1], x, mean, se, label=label)
    ax[1].set_xlabel(r"$\ln(1/\delta)$, initial tilt $R=\delta I$")
    ax[1].set_ylabel(rf"plateau length $\alpha_P$ ($|\epsilon_g-\frac{{1}}{{2}}|>{_ESCAPE:g}$)")
    ax[1].legend(frameon=False, fontsize=8)
    return ax


def _plateau_checks(settings):
    def slope_vs_kappa(ds):
        small = _small_delta(ds)
        x = np.log(1.0 / ds["delta"].values[small])
        _, slope = _fit_line(x, ds["theory_escape"].squeeze().values[small])
        kappa = float(ds["theory_kappa"].squeeze().isel(delta=0))
        return slope * kappa, None

    def floor(ds):
        d_min = float(ds["delta"].min())
        th = float(ds["theory_escape"].sel(delta=d_min).squeeze())
        sim = ds["sim_escape"].sel(delta=d_min).squeeze()
        done = ds["sim_done"].sel(delta=d_min).squeeze().values.astype(bool)
        m = measure(sim.values[done])
        return Measurement(th - m.value, m.se, m.n, m.n_nonfinite)

    def ode_escape(ds):
        return float(ds["theory_escape"].sel(delta=float(ds["delta"].min())).squeeze())

    return [
        Derived(
            "ODE: slope of α_P vs ln(1/δ) times κ (=1: escape at the unstable eigenvalue of "
            "the fixed point, computed apart from the integration)",
            slope_vs_kappa,
            target=1.0,
            tolerance=1e-3,
        ),
        Derived(
            "smallest δ: α_P of the ODE − α_P simulated (> 0: finite-N fluctuations leave the "
            "plateau first)",
            floor,
            lower=0.0,
            scale=ode_escape,
            source="simulation",
        ),
    ]


PLATEAU = FigureSpec(
    name="lvq-vq-plateau",
    paper=PAPER,
    citation=CITATION,
    figure="beyond the paper: VQ plateau",
    caption=(
        "Symmetry breaking in unsupervised VQ (p₊ = 0.8, λ = 1, η = 0.2). Left: ODE "
        "learning curves from Q = 10⁻⁴·I and a tilt R = δ·I towards the own class. "
        "Right: the plateau length α_P (first α with |ε_g − ½| > 0.05) grows like "
        "ln(1/δ)/κ, κ the unstable eigenvalue of the ODEs at the symmetric fixed point; "
        "Monte Carlo runs at finite N (the exact chain of order parameters; mean ± SE; either "
        "labelling counts as escape) "
        "leave the plateau at a δ-independent time once δ is below the data's "
        "fluctuations."
    ),
    grid={
        "delta": (3e-3, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8),
        "p_plus": (0.8,),
        "lam": (1.0,),
        "eta": (0.2,),
    },
    settings={
        "quick": {
            "n_features": 200,
            "n_seeds": 16,
            "alpha_max": 700.0,
            "n_theory_points": 351,
            "sim_alpha_step": 1.0,
            "sim_alpha_max": 2000.0,
        },
        "full": {
            "n_features": 1000,
            "n_seeds": 48,
            "alpha_max": 700.0,
            "n_theory_points": 701,
            "sim_alpha_step": 0.5,
            "sim_alpha_max": 2000.0,
        },
    },
    outputs={
        "theory_eps_g": ("alpha",),
        "theory_escape": (),
        "theory_kappa": (),
        "sim_escape": (),
    },
    coords=_plateau_coords,
    theory=_plateau_theory,
    simulation=_plateau_simulation,
    plot=plot_plateau,
    checks=_plateau_checks,
    base_seed=20060401,
)


_SA_ALPHA = 10.0


_SA_SIZES = (50, 100, 200, 500, 1000, 2000)


_PAIRS = {
    "R_{++}": ("R", 0, 0),
    "R_{+-}": ("R", 0, 1),
    "R_{-+}": ("R", 1, 0),
    "R_{--}": ("R", 1, 1),
    "Q_{++}": ("Q", 0, 0),
    "Q_{+-}": ("Q", 0, 1),
    "Q_{--}": ("Q", 1, 1),
}


def _sa_coords(settings):
    return {"order_parameter": np.array(list(_PAIRS))}


def _sa_theory(point, settings):
    curve = learning_curve(
        "lvq1", [0.0, _SA_ALPHA], p_plus=point["p_plus"], lam=point["lam"], eta=point["eta"]
    )
    mats = {"R": curve.R[-1], "Q": curve.Q[-1]}
    return {"theory_value": np.array([mats[m][i, j] for m, i, j in _PAIRS.values()])}


def _sa_simulation(point, settings, rng):
    R, Q, _ = simulate_learning_curve(
        "lvq1",
        [_SA_ALPHA],
        n_features=int(point["n_features"]),
        p_plus=point["p_plus"],
        lam=point["lam"],
        eta=point["eta"],
        rng=rng,
        in_order_parameters=True,
    )
    mats = {"R": R[0, 0], "Q": Q[0, 0]}
    return {"sim_value": np.array([mats[m][i, j] for m, i, j in _PAIRS.values()])}


def _log_spread(ds, n_boot=400):
    """log std over seeds per (N, order parameter), and bootstrap SEs."""
    v = ds["sim_value"].squeeze([d for d in ("p_plus", "lam", "eta") if d in ds.dims])
    done = ds["sim_done"].squeeze([d for d in ("p_plus", "lam", "eta") if d in ds.dims])
    rng = np.random.default_rng(0)  # fixed: the check must be a function of the data
    n_sizes, n_par = v.sizes["n_features"], v.sizes["order_parameter"]
    log_s = np.full((n_sizes, n_par), np.nan)
    boot = np.full((n_boot, n_sizes, n_par), np.nan)
    for i in range(n_sizes):
        x = v.isel(n_features=i).transpose("seed", "order_parameter").values
        x = x[done.isel(n_features=i).values.astype(bool)]
        if x.shape[0] < 3:
            continue
        log_s[i] = np.log(x.std(axis=0, ddof=1))
        idx = rng.integers(0, x.shape[0], size=(n_boot, x.shape[0]))
        boot[:, i] = np.log(x[idx].std(axis=1, ddof=1))
    return log_s, boot


def _slopes(ds):
    log_n = np.log(ds["n_features"].values.astype(float))
    log_s, boot = _log_spread(ds)
    slope = np.polyfit(log_n, log_s, 1)[0]
    boot_slopes = np.array([np.polyfit(log_n, b, 1)[0] for b in boot])
    return slope, boot_slopes.std(axis=0, ddof=1)


def plot_self_averaging(ds, ax=None):
    """Spread of the overlaps over runs versus N, log-log, with the N^(-1/2) law.

    Parameters
    ----------
    ds : xarray.Dataset
        Dataset of ``lvq-self-averaging``.
    ax : matplotlib Axes, optional

    Returns
    -------
    Axes
    """
    _, ax = subplots(ax, figsize=(6, 4))
    n = ds["n_features"].values.astype(float)
    log_s, boot = _log_spread(ds)
    err = np.nanstd(boot, axis=0, ddof=1)
    slope, slope_se = _slopes(ds)
    for k, name in enumerate(ds["order_parameter"].values):
        ax.errorbar(
            n,
            np.exp(log_s[:, k]),
            yerr=np.exp(log_s[:, k]) * err[:, k],
            fmt="o-",
            ms=3,
            lw=0.8,
            capsize=2,
            label=f"${name}$: slope {slope[k]:.2f} ± {slope_se[k]:.2f}",
        )
    ref = np.exp(np.nanmean(log_s[0])) * (n / n[0]) ** -0.5
    ax.plot(n, ref, "k--", lw=1.2, gid="guide", label=r"$\propto N^{-1/2}$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N")
    ax.set_ylabel("standard deviation over runs (± bootstrap SE)")
    seeds = int(ds["sim_done"].sum("seed").min())
    ax.set_title(
        rf"LVQ1 at $\alpha$={_SA_ALPHA:g}, $p_+$=0.8, $\lambda$=1, $\eta$=0.2; "
        f"{seeds} runs per N",
        fontsize=9,
    )
    ax.legend(frameon=False, fontsize=7, ncol=2)
    return ax


def _sa_checks(settings):
    # the N -> infinity theory the spread shrinks onto: the ODE value at the largest N
    def at_largest(var, name):
        def compute(ds):
            sel = {"n_features": ds["n_features"].max(), "order_parameter": name}
            v = ds[var].sel(sel).squeeze()
            if var == "theory_value":
                return float(v)
            return measure(
                v.values[ds["sim_done"].sel(n_features=sel["n_features"]).values.ravel()]
            )

        return compute

    checks = [
        Derived(
            f"{name} at α = {_SA_ALPHA:g}, largest N: mean over runs vs the ODE",
            at_largest("sim_value", name),
            target=at_largest("theory_value", name),
            target_from="theory",
            source="simulation",
        )
        for name in ("R_{++}", "Q_{++}")
    ]
    for k, name in enumerate(_PAIRS):
        if name not in ("R_{++}", "R_{--}", "Q_{++}", "Q_{--}"):
            continue

        def compute(ds, k=k):
            slope, se = _slopes(ds)
            return slope[k], se[k]

        checks.append(
            Derived(
                f"slope of log std({name}) vs log N",
                compute,
                target=-0.5,
                source="simulation",
                n_standard_errors=4.0,
            )
        )
    return checks


SELF_AVERAGING = FigureSpec(
    name="lvq-self-averaging",
    paper=PAPER,
    citation=CITATION,
    figure="beyond the paper: self-averaging",
    caption=(
        "Self-averaging of the order parameters: standard deviation over independent "
        "LVQ1 runs of R_{Sσ} and Q_{ST} at α = 10 (p₊ = 0.8, λ = 1, η = 0.2, the "
        "paper's start) versus N from 50 to 2000, with least-squares slopes in log-log "
        "(± bootstrap SE over runs) and the N^(-1/2) law. Each run is the exact chain of "
        "order parameters (the law of N-dimensional prototypes at every N, with no "
        "N-dimensional vector formed; docs/derivations/lvq_order_parameter_chain.md)."
    ),
    grid={
        "n_features": _SA_SIZES,
        "p_plus": (0.8,),
        "lam": (1.0,),
        "eta": (0.2,),
    },
    settings={
        "quick": {"n_seeds": 32},
        "full": {"n_seeds": 1024},
    },
    outputs={"theory_value": ("order_parameter",), "sim_value": ("order_parameter",)},
    coords=_sa_coords,
    theory=_sa_theory,
    simulation=_sa_simulation,
    plot=plot_self_averaging,
    checks=_sa_checks,
    base_seed=20060501,
)

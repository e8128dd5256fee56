"""Fig. 4 of Barkai & Sompolinsky: metastable minima followed in sigma, up and down."""

import math

import numpy as np

from statmechlearn.experiments import (
    Derived,
    FigureSpec,
    subplots,
)
from statmechlearn.papers.mixture._common import (
    _FIXED_POINT_TOL,
    _SAME_ENERGY,
    CITATION,
    PAPER,
    _sigma_at,
    annealed_fixed_points,
)

__all__ = ["FIG4", "SIGMA_FIG4_DOWN", "SIGMA_FIG4_UP", "follow_minima", "plot_fig4"]


SIGMA_FIG4_UP = tuple(float(s) for s in np.round(np.linspace(0.8, 3.0, 23), 4))


SIGMA_FIG4_DOWN = tuple(float(s) for s in np.round(np.linspace(0.8, 0.3, 11), 4))


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

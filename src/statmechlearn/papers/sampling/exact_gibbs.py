"""Gibbs sampling and deterministic annealing against the exact Gibbs distribution
of a small clustering problem, enumerated.
"""

import math
import warnings

import numpy as np

from statmechlearn.experiments import (
    Check,
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
from statmechlearn.papers.sampling._common import CITATION, PAPER

__all__ = ["GIBBS_EXACT"]


_K = 3


_T_GRID = (0.3, 1.0, 3.0, 10.0, 100.0)


#: Pairs whose co-assignment is checked: together in the ground state {0, 5}, {1, 2, 3},
#: {4, 6, 7, 8}, and apart in it (point 0 lies far below its blob, with point 5).
_PAIRS = {"together at T→0 (1, 2)": (1, 2), "apart at T→0 (0, 1)": (0, 1)}


_SOLVERS = ("deterministic annealing", "Gibbs sampler, low T", "k-means++ (n_init=1)")


def _blobs(rng, n_per, std):
    """``n_per`` points around each corner of a triangle of side 3 (2-D)."""
    corners = np.array([[0.0, 0.0], [3.0, 0.0], [1.5, 1.5 * math.sqrt(3.0)]])
    return np.vstack([c + std * rng.normal(size=(n_per, 2)) for c in corners])


def _fixed_problem():
    """The nine points of the temperature sweep (drawn three per blob; the noise puts
    point 0 far from its blob, so the ground state is not the planted partition)."""
    return _blobs(np.random.default_rng(3), 3, 0.9)


def _enumerate(cost):
    """Every labeling (rows) and its cost ``R_km``: the exact reference of the figure."""
    n, k = cost.n_sites, cost.n_states
    labels = (np.arange(k**n)[:, None] // k ** np.arange(n)) % k
    return labels, cost.energy(labels)


def _boltzmann(E, T):
    w = np.exp(-(E - E.min()) / T)
    return w / w.sum()


def _ground(E):
    """Labelings within rounding of the minimum (the k! relabelings of the ground state)."""
    return E <= E.min() + 1e-9 * max(1.0, abs(E.min()))


def _gibbs_theory(point, settings):
    from statmechlearn.inference import KMeansCost, exact_gibbs

    X = _fixed_problem()
    cost = KMeansCost(X, _K)
    T = point["temperature"]
    ex = exact_gibbs(cost, T)
    labels, E = _enumerate(cost)
    p = _boltzmann(E, T)
    n = X.shape[0]
    scatter = float(np.sum((X - X.mean(axis=0)) ** 2))
    return {
        "theory_mean_energy": np.array(ex.mean_energy),
        "theory_free_energy": np.array(ex.free_energy),
        "theory_ground_energy": np.array(ex.ground_energy),
        "theory_coassign": np.array(
            [p @ (labels[:, i] == labels[:, j]) for i, j in _PAIRS.values()]
        ),
        "theory_ground_weight": np.array(p[_ground(E)].sum()),
        # T -> ∞: uniform labelings; DA's saddle point has every centroid at the mean
        "theory_uniform_energy": np.array(E.mean()),
        "theory_centroid_free_energy": np.array(scatter - n * T * math.log(_K)),
        "theory_gap_limit": np.array(scatter - E.mean()),
    }


def _gibbs_simulation(point, settings, rng):
    from statmechlearn.cluster import GibbsSamplerClustering
    from statmechlearn.inference import KMeansCost

    X = _fixed_problem()
    cost = KMeansCost(X, _K)
    T = point["temperature"]
    # uniformly random starts: no chain begins near a solution. At the lowest T the mean
    # cost relaxes from them as exp(-t / 6.5 sweeps) (measured), so discarding 2/3 of the
    # sweeps (60 of 90 in quick mode) leaves a bias below its Monte Carlo error
    est = GibbsSamplerClustering(
        _K,
        temperature=T,
        n_chains=settings["n_chains"],
        n_sweeps=settings["n_sweeps"],
        burn_in=2 * settings["n_sweeps"] // 3,
        init="random",
        random_state=rng,
    ).fit(X)
    kept = est.energy_trace_[:, est.sampling_.burn_in :]
    # the chains' final states are independent draws from the sampled distribution
    final = est.sampling_.labels
    _, E = _enumerate(cost)
    return {
        "sim_mean_energy": np.array(kept.mean()),
        "sim_coassign": np.array([np.mean(final[:, i] == final[:, j]) for i, j in _PAIRS.values()]),
        "sim_ground_fraction": np.array(
            np.mean(_ground(np.append(E, cost.energy(final)))[E.size :])
        ),
        "sim_r_hat": np.array(est.r_hat_),
    }


def _gibbs_shared(settings):
    from sklearn.cluster import KMeans

    from statmechlearn.cluster import DeterministicAnnealing, GibbsSamplerClustering
    from statmechlearn.inference import KMeansCost, exact_gibbs

    # DA along the temperature grid: deterministic but for the sign of the split
    # perturbations, so a few runs show its spread
    X = _fixed_problem()
    n = X.shape[0]
    n_runs = settings["n_da_runs"]
    da_free = np.zeros((len(_T_GRID), n_runs))
    da_coassign = np.zeros((len(_T_GRID), n_runs, len(_PAIRS)))
    da_gap = np.zeros((len(_T_GRID), n_runs))
    for t, T in enumerate(_T_GRID):
        exact = exact_gibbs(KMeansCost(X, _K), T).free_energy
        for r in range(n_runs):
            with warnings.catch_warnings():
                # above T_c DA keeps one distinct code vector and says so: its answer there
                warnings.simplefilter("ignore")
                da = DeterministicAnnealing(
                    _K, mass_constrained=False, min_temperature=T, random_state=r
                ).fit(X)
            # unconstrained DA (w = 1/k): -T log Z(y) over all k^n labelings is
            # n F_DA - n T log k
            da_free[t, r] = n * da.free_energy(X) - n * T * math.log(_K)
            da_gap[t, r] = da_free[t, r] - exact
            q = da.predict_proba(X)
            da_coassign[t, r] = [q[i] @ q[j] for i, j in _PAIRS.values()]
    n_problems = settings["n_problems"]
    found = np.zeros((n_problems, len(_SOLVERS)))
    excess = np.zeros((n_problems, len(_SOLVERS)))
    for b in range(n_problems):
        rng = np.random.default_rng([20261207, b])
        # overlapping blobs and a tenth point between them: a landscape with local minima
        X = np.vstack([_blobs(rng, 3, 1.3), rng.normal(size=(1, 2)) + 1.5])
        cost = KMeansCost(X, _K)
        _, E = _enumerate(cost)
        seed = int(rng.integers(2**31 - 1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            da = DeterministicAnnealing(_K, random_state=seed).fit(X)
        sampler = GibbsSamplerClustering(
            _K, temperature=0.1 * E.min() / X.shape[0], random_state=seed
        ).fit(X)
        km = KMeans(_K, n_init=1, init="k-means++", random_state=seed).fit(X)
        for s, labels in enumerate((da.labels_, sampler.labels_, km.labels_)):
            e = cost.energy(labels)
            excess[b, s] = float(e[0]) / E.min() - 1.0
            found[b, s] = float(_ground(np.append(E, e))[-1])
    return {
        "shared_da_free_energy": da_free,
        "shared_da_coassign": da_coassign,
        "shared_da_gap": da_gap,
        "shared_found": found,
        "shared_excess": excess,
    }


def _da_gap(ds):
    """``F_DA − F`` exact, shape (temperature, DA run)."""
    exact = ds["theory_free_energy"].sel(temperature=list(_T_GRID)).values
    return ds["shared_da_free_energy"].values - exact[:, None]


def _plot_gibbs(ds, ax=None):
    _, ax = subplots(ax, 2, 2, figsize=(10.5, 8.0))
    ax = np.asarray(ax).ravel()
    T = ds["temperature"].values
    done = ds["sim_done"]
    # (a) mean cost
    label = r"theory: $\langle R\rangle$ exact ($3^9$ labelings)"
    plot_theory(ax[0], T, ds["theory_mean_energy"], color="k", label=label)
    plot_theory(
        ax[0], T, ds["theory_ground_energy"], color="0.5", linestyle="--", label="ground state"
    )
    plot_theory(
        ax[0],
        T,
        ds["theory_uniform_energy"],
        color="0.5",
        linestyle=":",
        label=r"$\langle R\rangle$ uniform ($T\to\infty$)",
    )
    runs = ds["sim_mean_energy"].where(done)
    m, se = mean_se(runs)
    label = simulation_label(runs.count("seed"), "GibbsSamplerClustering, simulation")
    plot_simulation(ax[0], T, m, se, color="C0", label=label)
    ax[0].set_ylabel("k-means cost $R$")
    ax[0].set_title("(a) mean cost", fontsize=9)
    # (b) co-assignment
    for j, (name, color) in enumerate(zip(_PAIRS, ("C0", "C3"), strict=True)):
        sel = {"pair": name}
        plot_theory(
            ax[1], T, ds["theory_coassign"].sel(sel), color=color, label=f"theory (exact), {name}"
        )
        m, se = mean_se(ds["sim_coassign"].sel(sel).where(done))
        label = "sampler, simulation (mean ± SE)"
        plot_simulation(ax[1], T, m, se, color=color, label=label if j == 0 else None)
        # DA differs between runs only by the signs of its split perturbations: every run
        da = ds["shared_da_coassign"].isel(pair=j)
        for r in range(da.sizes["da_run"]):
            ax[1].plot(
                T,
                da.isel(da_run=r),
                "s",
                color=color,
                mfc="none",
                label="DA (factorised)" if j == 0 and r == 0 else None,
            )
    ax[1].axhline(1.0 / _K, color="0.6", lw=0.8, ls=":", gid="guide")
    ax[1].set_ylabel("$P(c(i) = c(j))$")
    ax[1].set_title("(b) co-assignment (dotted: $1/k$)", fontsize=9)
    # (c) free energies: DA's saddle point above the exact F
    gap = ds["shared_da_gap"]
    for r in range(gap.sizes["da_run"]):
        ax[2].plot(
            T,
            gap.isel(da_run=r),
            "C3s",
            mfc="none",
            label=r"$F_{\mathrm{DA}} - F$ exact" if r == 0 else None,
        )
    plot_theory(
        ax[2],
        T,
        ds["theory_gap_limit"],
        color="0.5",
        linestyle=":",
        label=r"theory: $T\to\infty$ limit $S - \langle R\rangle_{\mathrm{uniform}}$",
    )
    ax[2].axhline(0.0, color="k", lw=0.8, gid="guide")
    ax[2].set_ylabel("free-energy gap")
    ax[2].set_title("(c) DA's saddle point vs exact $F$", fontsize=9)
    for a in ax[:3]:
        a.set_xscale("log")
        a.set_xlabel("temperature $T$")
        a.legend(fontsize=7)
    # (d) global minimum found, random problems
    found = ds["shared_found"].values
    frac = found.mean(axis=0)
    se = np.sqrt(frac * (1 - frac) / found.shape[0])
    ax[3].bar(range(len(_SOLVERS)), frac, yerr=se, color=["C3", "C0", "0.5"], capsize=3)
    ax[3].set_xticks(range(len(_SOLVERS)))
    ax[3].set_xticklabels(_SOLVERS, fontsize=7)
    ax[3].set_ylim(0, 1.05)
    ax[3].set_ylabel("fraction finding the global minimum (± SE)")
    ax[3].set_title(f"(d) {found.shape[0]} random problems (n = 10, k = 3)", fontsize=9)
    return ax


def _gibbs_checks(settings):
    checks = []
    for T in _T_GRID:
        sel = {"temperature": T}
        checks.append(
            Check(
                f"⟨R_km⟩ GibbsSamplerClustering vs exact enumeration, T={T:g}",
                ("theory_mean_energy", sel),
                ("sim_mean_energy", sel),
            )
        )
        for name in _PAIRS:
            if T == min(_T_GRID) and _PAIRS[name] == (1, 2):
                # together in all but 6e-5 of the Gibbs weight: every seed's chains agree,
                # no spread to compare (the ground-state weight check covers this T)
                continue
            at = {"temperature": T, "pair": name}
            checks.append(
                Check(
                    f"P(c(i)=c(j)), {name}: sampler (final states of the chains) vs exact, T={T:g}",
                    ("theory_coassign", at),
                    ("sim_coassign", at),
                    scale=1.0,
                )
            )
    low = {"temperature": min(_T_GRID)}
    checks.append(
        Check(
            f"fraction of chains in a ground state vs its exact Gibbs weight, T={min(_T_GRID):g}",
            ("theory_ground_weight", low),
            ("sim_ground_fraction", low),
            scale=1.0,
        )
    )

    def min_gap(ds):
        return float(_da_gap(ds).min()), None

    checks.append(
        Derived(
            "min over T and DA runs of F_DA − F exact (R(c, y) ≥ R_km(c) for every centroid "
            "set y, so the saddle point bounds F from above)",
            min_gap,
            lower=0.0,
        )
    )
    hot = {"temperature": max(_T_GRID)}

    def da_hot(ds):
        v = ds["shared_da_free_energy"].values[-1]
        return float(np.abs(v - float(ds["theory_centroid_free_energy"].sel(hot))).max()), None

    checks.append(
        Derived(
            f"max over DA runs |F_DA − (S − nT log k)| at T={max(_T_GRID):g} (above T_c every "
            "centroid sits at the mean: the closed form)",
            da_hot,
            upper=1e-9 * 9 * max(_T_GRID) * math.log(_K),
        )
    )
    for t, T in enumerate(_T_GRID):

        def rel_gap(ds, t=t):
            return measure(_da_gap(ds)[t])

        checks.append(
            Derived(
                f"F_DA − F exact at T={T:g} (saddle point over centroids is not exact at n = 9)",
                rel_gap,
                reported=True,
            )
        )

    def found(s):
        def compute(ds):
            f = ds["shared_found"].values[:, s]
            p = float(f.mean())
            return Measurement(p, math.sqrt(p * (1 - p) / f.size), f.size)

        return compute

    for s, name in enumerate(_SOLVERS):
        checks.append(
            Derived(
                f"fraction of random problems where {name} finds the global minimum (enumeration)",
                found(s),
                source="simulation",
                reported=True,
            )
        )
    return checks


GIBBS_EXACT = FigureSpec(
    name="sampling-gibbs-exact",
    paper=PAPER,
    citation=CITATION,
    figure="§3.2, §3.3, §9.8: Gibbs sampler vs DA vs exact enumeration",
    caption=(
        "Nine points in three blobs, k = 3. Lines: the exact Gibbs distribution p(c) ∝ "
        "exp(−R_km(c)/T) over all 3^9 = 19683 labelings, R_km the k-means cost with each "
        "centroid at its cluster's mean (empty clusters allowed) — the distribution "
        "GibbsSamplerClustering samples (§3.2). Markers ± SE over seeds: the sampler's "
        "mean cost (a) and co-assignment probabilities from the chains' final states (b); "
        "deterministic annealing (unconstrained, annealed to T; open squares, every "
        "run) factorises p given the centroids (§3.3): its co-assignment and its free "
        "energy −T log Σ_c exp(−R(c, y)/T) at the saddle point y lie off the exact ones, "
        "F_DA ≥ F at every T (c), the gap tending to S − ⟨R⟩_uniform (dotted) as T → ∞ "
        "(S the total scatter: above T_c every centroid sits at the mean). (d) On random "
        "problems (10 points, overlapping blobs), how often DA, the sampler at T = 0.1 "
        "R_min/n and k-means++ reach the global minimum found by enumeration (§9.8)."
    ),
    grid={"temperature": _T_GRID},
    settings={
        "quick": {
            "n_seeds": 12,
            "n_chains": 768,
            "n_sweeps": 90,
            "n_da_runs": 2,
            "n_problems": 12,
        },
        "full": {
            "n_seeds": 30,
            "n_chains": 1024,
            "n_sweeps": 200,
            "n_da_runs": 5,
            "n_problems": 200,
        },
    },
    outputs={
        "theory_mean_energy": (),
        "theory_free_energy": (),
        "theory_ground_energy": (),
        "theory_coassign": ("pair",),
        "theory_ground_weight": (),
        "theory_uniform_energy": (),
        "theory_centroid_free_energy": (),
        "theory_gap_limit": (),
        "sim_mean_energy": (),
        "sim_coassign": ("pair",),
        "sim_ground_fraction": (),
        "sim_r_hat": (),
        "shared_da_free_energy": ("da_temperature", "da_run"),
        "shared_da_coassign": ("da_temperature", "da_run", "pair"),
        "shared_da_gap": ("da_temperature", "da_run"),
        "shared_found": ("problem", "solver"),
        "shared_excess": ("problem", "solver"),
    },
    coords=lambda s: {
        "pair": list(_PAIRS),
        "problem": np.arange(s["n_problems"]),
        "da_temperature": np.array(_T_GRID),
        "da_run": np.arange(s["n_da_runs"]),
        "solver": list(_SOLVERS),
    },
    theory=_gibbs_theory,
    simulation=_gibbs_simulation,
    shared=_gibbs_shared,
    plot=_plot_gibbs,
    checks=_gibbs_checks,
    base_seed=20261207,
)

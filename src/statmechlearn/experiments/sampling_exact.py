"""Gibbs sampling and maximum-entropy inference against exact answers (notes §2, §3.2–3.3, §9.8).

Two figures:

``sampling-gibbs-exact``
    Nine points in three blobs, three clusters: the Gibbs distribution
    ``p(c) ∝ exp(-R_km(c)/T)`` over all ``3^9 = 19683`` labelings of the
    k-means cost with each centroid at the mean of its cluster, enumerated
    exactly. :class:`~statmechlearn.cluster.GibbsSamplerClustering` samples
    exactly this distribution (its heat-bath moves use the Hartigan cost of
    :class:`~statmechlearn.inference.KMeansCost`, empty clusters allowed, as
    in the enumeration): its mean cost, co-assignment probabilities
    ``P(c(i) = c(j))`` and ground-state occupation against enumeration.
    Deterministic annealing replaces the sum over labelings by a saddle
    point in the centroids; its free energy lies above the exact one by a
    gap that is measured, and tends to ``S - <R>_uniform`` as ``T -> ∞``.
    On random small problems: how often DA, k-means++ and the sampler at low
    ``T`` find the global minimum found by enumeration.
``maxent-inference``
    Maximum-entropy inference (§2) against solutions found independently:
    Jaynes' Brandeis dice (faces 1..6 with a given mean; ``p_i ∝ exp(-λ i)``
    with ``λ`` a bracketed 1-D root), the entropy as a function of the
    mean, samples that reproduce the constraint, a Gaussian on a grid
    (mean and variance constraints: the discrete solution and its
    continuous limit, approached exponentially fast in ``(σ/Δ)²`` as the
    Poisson summation formula predicts), an infeasible and a redundant
    constraint set.
"""

import math
import warnings

import numpy as np

from statmechlearn._core.information import entropy
from statmechlearn.experiments import maxent_clustering, sampling_mean_field
from statmechlearn.experiments._plotting import (
    mean_se,
    plot_simulation,
    plot_theory,
    simulation_label,
    subplots,
)
from statmechlearn.experiments._spec import Check, Derived, FigureSpec, Measurement, measure

__all__ = ["GIBBS_EXACT", "MAXENT_INFERENCE"]

# ---------------------------------------------------------------- Gibbs sampler vs exact

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
    paper=sampling_mean_field.PAPER,
    citation=sampling_mean_field.CITATION,
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

# ---------------------------------------------------------------- maximum-entropy inference

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
    paper=maxent_clustering.PAPER,
    citation=maxent_clustering.CITATION,
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

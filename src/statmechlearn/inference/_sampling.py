"""Metropolis and heat-bath samplers of ``p(c) ∝ exp(-R(c)/T)``, simulated annealing, exact sums.

Lecture notes §3.2 (Metropolis sampler for clustering), §9.2 (Markov
chains, detailed balance), §9.5 (sum-product trick), §9.6 (Metropolis,
simulated annealing), §9.8 (simulated vs deterministic annealing).

A sweep visits every site once in the cost's ``sweep_order`` and draws two
uniforms per site and chain. The heat-bath (Gibbs) move draws ``c(i)`` from
its conditional ``∝ exp(-R(c with c(i)=nu)/T)``; the Metropolis move
proposes one of the other ``k - 1`` states uniformly and accepts with
``min(1, exp(-Delta R / T))``. Both satisfy detailed balance, so the Gibbs
distribution is stationary. Chains are independent and run side by side.
Costs with a ``compiled_sweep`` run a numba kernel; the NumPy path
(``compiled=False``) is its reference twin and uses the same uniforms.
"""

import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from statmechlearn._core.optional import import_optional
from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import (
    check_array_finite,
    check_choice,
    check_int,
    check_real,
)
from statmechlearn.inference._costs import check_labels
from statmechlearn.inference._diagnostics import integrated_autocorrelation_time, r_hat

__all__ = [
    "CoolingSchedule",
    "ExactGibbs",
    "SamplingResult",
    "SimulatedAnnealingResult",
    "exact_gibbs",
    "factorial_log_partition",
    "sample_assignments",
    "sampling_result",
    "simulated_annealing",
    "sweep",
    "thermodynamic_free_energy",
]

_METHODS = ("gibbs", "metropolis")


def _check_temperature(temperature, name="temperature"):
    return check_real(temperature, name, minimum=0.0, include_min=False)


def _choose_numpy(e, cur, u0, u1, beta, metropolis):
    """Vectorised twin of the kernels' ``_choose`` for rows of ``e`` (B, k)."""
    B, k = e.shape
    rows = np.arange(B)
    if metropolis:
        prop = (cur + 1 + (u0 * (k - 1)).astype(np.int64)) % k
        d = e[rows, prop] - e[rows, cur]
        with np.errstate(over="ignore"):
            accept = (d <= 0.0) | (u1 < np.exp(-beta * d))
        return np.where(accept, prop, cur)
    if k == 2:
        # the kernels' two-state form: P(0) = 1 / (1 + exp(-beta (e1 - e0)))
        with np.errstate(over="ignore"):
            return np.where(u0 * (1.0 + np.exp(-beta * (e[:, 1] - e[:, 0]))) < 1.0, 0, 1)
    w = np.exp(-beta * (e - e.min(axis=1, keepdims=True)))
    cum = np.cumsum(w, axis=1)
    new = np.sum(cum <= (u0 * cum[:, -1])[:, None], axis=1)
    return np.minimum(new, k - 1)


def sweep(cost, state, temperature, uniforms, *, method="gibbs", compiled=True):
    """One sweep over all sites of every chain, in place.

    Parameters
    ----------
    cost : cost object
        A :class:`~statmechlearn.inference.PairwiseMRFCost`,
        :class:`~statmechlearn.inference.KMeansCost` or anything with the
        same sampler methods.
    state : dict
        From ``cost.init_state``; updated in place.
    temperature : float
        ``T > 0``.
    uniforms : ndarray of shape (B, n_sites, 2)
        Uniform draws on [0, 1), two per site and chain.
    method : {"gibbs", "metropolis"}, default="gibbs"
    compiled : bool, default=True
        Use the cost's numba kernel when it has one.

    Returns
    -------
    ndarray of shape (B,)
        Number of sites that changed state in each chain.
    """
    temperature = _check_temperature(temperature)
    method = check_choice(method, "method", ("gibbs", "metropolis"))
    n_chains = cost.labels(state).shape[0]
    uniforms = check_array_finite(uniforms, "uniforms", shape=(n_chains, cost.n_sites, 2))
    if np.any(uniforms < 0.0) or np.any(uniforms >= 1.0):
        raise ValueError("uniforms must lie in [0, 1)")
    return _sweep(cost, state, temperature, uniforms, method, compiled)


def _sweep(cost, state, temperature, uniforms, method, compiled):
    """:func:`sweep` on checked arguments (the samplers' inner loop)."""
    beta = 1.0 / temperature
    metropolis = method == "metropolis"
    order = cost.sweep_order()
    if compiled and hasattr(cost, "compiled_sweep"):
        return cost.compiled_sweep(state, order, uniforms, temperature, metropolis)
    labels = cost.labels(state)
    changed = np.zeros(labels.shape[0], dtype=np.int64)
    for i in order:
        e = cost.site_energies(state, i)
        cur = labels[:, i].copy()
        new = _choose_numpy(e, cur, uniforms[:, i, 0], uniforms[:, i, 1], beta, metropolis)
        moved = new != cur
        if moved.any():
            cost.set_site(state, i, new)
            changed += moved
    return changed


def _initial_labels(cost, init, n_chains, rng):
    if init is None:
        return rng.integers(cost.n_states, size=(n_chains, cost.n_sites))
    L = check_labels(init, cost.n_sites, cost.n_states, "init")
    if L.shape[0] == 1:
        L = np.repeat(L, n_chains, axis=0)
    if L.shape[0] != n_chains:
        raise ValueError(f"init has {L.shape[0]} chains, n_chains={n_chains}")
    return L


@dataclass(frozen=True)
class SamplingResult:
    """Samples of the Gibbs distribution over assignments, with diagnostics.

    Attributes
    ----------
    marginals : ndarray of shape (n_sites, n_states)
        ``p(c(i) = nu)`` estimated from all kept sweeps of all chains.
    chain_marginals : ndarray of shape (n_chains, n_sites, n_states)
        The same per chain (their spread gives Monte Carlo errors).
    energies : ndarray of shape (n_chains, n_sweeps)
        ``R(c)`` after every sweep, burn-in included.
    mean_energy : float
        Mean of ``R`` over the kept sweeps.
    acceptance_rate : ndarray of shape (n_chains,)
        Fraction of site visits that changed the state, after burn-in.
    autocorrelation_time : float
        Integrated autocorrelation time of the energy, in sweeps.
    r_hat : float
        Split R-hat of the energy across chains (NaN with one chain).
    labels : ndarray of shape (n_chains, n_sites)
        Final state of each chain.
    burn_in : int
    temperature : float
    seconds : float
        Wall time of the sweeps.
    """

    marginals: np.ndarray
    chain_marginals: np.ndarray
    energies: np.ndarray
    mean_energy: float
    acceptance_rate: np.ndarray
    autocorrelation_time: float
    r_hat: float
    labels: np.ndarray
    burn_in: int
    temperature: float
    seconds: float


def sample_assignments(
    cost,
    temperature,
    *,
    n_chains=4,
    n_sweeps=1000,
    burn_in=None,
    method="gibbs",
    init=None,
    random_state=None,
    compiled=True,
    progress=False,
    verbose=0,
):
    """Sample ``p(c) ∝ exp(-R(c)/T)`` by single-site Metropolis or heat-bath sweeps.

    Parameters
    ----------
    cost : cost object
        See :func:`sweep`.
    temperature : float
        ``T > 0``, in the units of the cost.
    n_chains : int, default=4
        Independent chains, run side by side.
    n_sweeps : int, default=1000
        Sweeps per chain, burn-in included.
    burn_in : int, optional
        Sweeps discarded at the start; default ``n_sweeps // 4``.
    method : {"gibbs", "metropolis"}, default="gibbs"
        Heat-bath or Metropolis single-site moves.
    init : array-like of shape (n_sites,) or (n_chains, n_sites), optional
        Starting labels; uniformly random by default.
    random_state : int, Generator or None
    compiled : bool, default=True
        Use the numba kernel of the cost when it has one.
    progress : bool, default=False
        Show a tqdm bar over sweeps.
    verbose : int, default=0
        Above 0, print the chains' mean cost and the fraction of sites moved
        after every tenth of the sweeps.

    Returns
    -------
    SamplingResult

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.inference import KMeansCost, sample_assignments
    >>> X = np.r_[np.zeros((5, 2)), np.full((5, 2), 4.0)]
    >>> result = sample_assignments(KMeansCost(X, 2), temperature=1.0, n_sweeps=200,
    ...                             random_state=0)
    >>> result.marginals.shape
    (10, 2)
    """
    T = _check_temperature(temperature)
    n_chains = check_int(n_chains, "n_chains", minimum=1)
    n_sweeps = check_int(n_sweeps, "n_sweeps", minimum=1)
    burn_in = n_sweeps // 4 if burn_in is None else burn_in
    burn_in = check_int(burn_in, "burn_in", minimum=0, maximum=n_sweeps - 1)
    method = check_choice(method, "method", _METHODS)
    verbose = check_int(verbose, "verbose", minimum=0)
    rng = check_random_state(random_state)
    state = cost.init_state(_initial_labels(cost, init, n_chains, rng))
    n, k = cost.n_sites, cost.n_states
    counts = np.zeros((n_chains, n, k))
    energies = np.empty((n_chains, n_sweeps))
    changed = np.zeros(n_chains)
    iterator = range(n_sweeps)
    if progress:
        tqdm = import_optional("tqdm.auto", purpose="progress=True").tqdm

        iterator = tqdm(iterator, desc=f"{method} T={T:.3g}", unit="sweep")
    every = max(1, n_sweeps // 10)
    start = time.perf_counter()
    for t in iterator:
        moved = _sweep(cost, state, T, rng.random((n_chains, n, 2)), method, compiled)
        L = cost.labels(state)
        energies[:, t] = cost.energy(L)
        if t >= burn_in:
            for s in range(k):
                counts[:, :, s] += L == s
            changed += moved
        if verbose and ((t + 1) % every == 0 or t + 1 == n_sweeps):
            print(
                f"Sweep {t + 1}/{n_sweeps}: mean cost {energies[:, t].mean():.6g}, "
                f"{np.sum(moved) / (n_chains * n):.3g} of the sites moved"
                + (" (burn-in)." if t < burn_in else ".")
            )
    seconds = time.perf_counter() - start
    return sampling_result(
        energies, counts, changed, cost.labels(state).copy(), burn_in, T, seconds
    )


def sampling_result(energies, counts, changed, labels, burn_in, temperature, seconds):
    """A :class:`SamplingResult` from the tallies of a sampler's sweeps.

    Parameters
    ----------
    energies : ndarray of shape (n_chains, n_sweeps)
        Energy after each sweep.
    counts : ndarray of shape (n_chains, n_sites, n_states)
        Sweeps after burn-in that each site spent in each state.
    changed : ndarray of shape (n_chains,)
        Sites changed after burn-in.
    labels : ndarray of shape (n_chains, n_sites)
        The final labels.
    burn_in : int
    temperature : float
    seconds : float
        Sampling wall time.

    Returns
    -------
    SamplingResult
    """
    n_chains, n_sweeps = energies.shape
    kept = n_sweeps - burn_in
    chain_marginals = counts / kept
    tail = energies[:, burn_in:]
    return SamplingResult(
        marginals=chain_marginals.mean(axis=0),
        chain_marginals=chain_marginals,
        energies=energies,
        mean_energy=float(tail.mean()),
        acceptance_rate=changed / (kept * counts.shape[1]),
        autocorrelation_time=integrated_autocorrelation_time(tail) if kept >= 2 else math.nan,
        r_hat=r_hat(tail) if n_chains >= 2 and kept >= 4 else math.nan,
        labels=labels,
        burn_in=burn_in,
        temperature=temperature,
        seconds=seconds,
    )


class CoolingSchedule:
    """Temperatures of simulated annealing.

    Parameters
    ----------
    kind : {"exponential", "logarithmic", "adaptive"}, default="exponential"
        ``exponential``: ``T_t = T_max (T_min / T_max)^(t / (n_steps - 1))``, a
        geometric schedule with ``cooling_rate = (T_min / T_max)^(1 / (n_steps - 1))``.
        ``logarithmic``: ``T_t = T_0 log 2 / log(t + 2)`` (Geman & Geman's
        schedule, which reaches the ground state with probability one when
        ``T_0 = max_temperature`` exceeds the deepest barrier — and is far too slow to use
        for anything but small problems).
        ``adaptive``: Aarts & van Laarhoven,
        ``T_{t+1} = T_t / (1 + T_t log(1 + delta) / (3 sigma_t))`` with
        ``sigma_t`` the spread of the energy at ``T_t``: slow where the
        energy fluctuates (near transitions), fast elsewhere; stops below
        ``min_temperature`` or after ``n_steps``.
    max_temperature : float, default=10.0
        Initial temperature.
    min_temperature : float, default=0.01
        Final temperature (exponential), stopping temperature (adaptive);
        not used by the logarithmic schedule.
    n_steps : int, default=100
        Number of temperatures (the maximum for ``adaptive``).
    delta : float, default=0.1
        Adaptive cooling distance: larger cools faster.
    """

    def __init__(
        self,
        kind="exponential",
        max_temperature=10.0,
        min_temperature=0.01,
        n_steps=100,
        delta=0.1,
    ):
        self.kind = check_choice(kind, "kind", ("exponential", "logarithmic", "adaptive"))
        self.max_temperature = _check_temperature(max_temperature, "max_temperature")
        self.min_temperature = _check_temperature(min_temperature, "min_temperature")
        if self.kind != "logarithmic" and self.min_temperature >= self.max_temperature:
            raise ValueError(
                f"min_temperature must be below max_temperature={self.max_temperature:g}, "
                f"got {self.min_temperature:g}"
            )
        self.n_steps = check_int(n_steps, "n_steps", minimum=1)
        self.delta = check_real(delta, "delta", minimum=0.0, include_min=False)

    def __repr__(self):
        return (
            f"CoolingSchedule(kind={self.kind!r}, max_temperature={self.max_temperature:g}, "
            f"min_temperature={self.min_temperature:g}, n_steps={self.n_steps}, "
            f"delta={self.delta:g})"
        )

    def next_temperature(self, step, temperature, energy_std):
        """Temperature of step ``step + 1``, or None when the schedule ends.

        Parameters
        ----------
        step : int
            Index of the step just finished.
        temperature : float
            Its temperature.
        energy_std : float
            Spread of the energy sampled at it (adaptive schedule only).

        Returns
        -------
        float or None
        """
        if step + 1 >= self.n_steps:
            return None
        if self.kind == "exponential":
            if self.n_steps == 1:
                return None
            ratio = self.min_temperature / self.max_temperature
            return self.max_temperature * ratio ** ((step + 1) / (self.n_steps - 1))
        if self.kind == "logarithmic":
            return self.max_temperature * math.log(2.0) / math.log(step + 3.0)
        sigma = max(energy_std, 1e-12 * max(1.0, abs(temperature)))
        new = temperature / (1.0 + temperature * math.log1p(self.delta) / (3.0 * sigma))
        return None if new < self.min_temperature else new


@dataclass(frozen=True)
class SimulatedAnnealingResult:
    """Outcome of :func:`simulated_annealing`.

    Attributes
    ----------
    labels : ndarray of shape (n_chains, n_sites)
        Lowest-cost labeling each chain visited.
    energy : ndarray of shape (n_chains,)
        Its cost.
    best_labels : ndarray of shape (n_sites,)
        The lowest over chains.
    best_energy : float
    temperatures : ndarray of shape (n_steps,)
    mean_energy : ndarray of shape (n_steps,)
        Mean cost over chains and sweeps at each temperature.
    acceptance_rate : ndarray of shape (n_steps,)
        Fraction of site visits that changed state at each temperature.
    n_sweeps : int
        Sweeps per chain in total.
    seconds : float
    """

    labels: np.ndarray
    energy: np.ndarray
    best_labels: np.ndarray
    best_energy: float
    temperatures: np.ndarray
    mean_energy: np.ndarray
    acceptance_rate: np.ndarray
    n_sweeps: int
    seconds: float


def simulated_annealing(
    cost,
    schedule=None,
    *,
    sweeps_per_temperature=1,
    n_chains=1,
    method="metropolis",
    init=None,
    random_state=None,
    compiled=True,
    progress=False,
):
    """Minimise ``R(c)`` by sampling at falling temperatures (§9.6, §9.8).

    Parameters
    ----------
    cost : cost object
        See :func:`sweep`.
    schedule : CoolingSchedule, optional
        Default ``CoolingSchedule()`` (exponential, 10 → 0.01, 100 steps).
    sweeps_per_temperature : int, default=1
        Sweeps at each temperature; the adaptive schedule measures the
        energy spread over them (and over chains).
    n_chains : int, default=1
        Independent runs; the best is returned as ``best_labels``.
    method : {"metropolis", "gibbs"}, default="metropolis"
    init : array-like, optional
        Starting labels; uniformly random by default.
    random_state : int, Generator or None
    compiled : bool, default=True
    progress : bool, default=False
        Show a tqdm bar over temperatures.

    Returns
    -------
    SimulatedAnnealingResult

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.inference import CoolingSchedule, KMeansCost, simulated_annealing
    >>> X = np.r_[np.zeros((5, 2)), np.full((5, 2), 4.0)]
    >>> schedule = CoolingSchedule(max_temperature=10.0, min_temperature=0.01, n_steps=50)
    >>> result = simulated_annealing(KMeansCost(X, 2), schedule, random_state=0)
    >>> bool(result.best_energy < 1e-9)  # both clusters found: no spread within them
    True
    >>> len(set(result.best_labels.tolist()))
    2
    """
    schedule = CoolingSchedule() if schedule is None else schedule
    if not isinstance(schedule, CoolingSchedule):
        raise TypeError(f"schedule must be a CoolingSchedule, got {type(schedule).__name__}")
    per_t = check_int(sweeps_per_temperature, "sweeps_per_temperature", minimum=1)
    n_chains = check_int(n_chains, "n_chains", minimum=1)
    method = check_choice(method, "method", _METHODS)
    rng = check_random_state(random_state)
    state = cost.init_state(_initial_labels(cost, init, n_chains, rng))
    n = cost.n_sites
    best = cost.labels(state).copy()
    best_e = cost.energy(best)
    temps, means, rates = [], [], []
    T = schedule.max_temperature
    bar = None
    if progress:
        tqdm = import_optional("tqdm.auto", purpose="progress=True").tqdm

        bar = tqdm(total=schedule.n_steps, desc="simulated annealing", unit="T")
    start = time.perf_counter()
    step = 0
    while T is not None:
        e_t = np.empty((n_chains, per_t))
        moved = 0
        for s in range(per_t):
            moved += _sweep(cost, state, T, rng.random((n_chains, n, 2)), method, compiled).sum()
            L = cost.labels(state)
            e = cost.energy(L)
            e_t[:, s] = e
            better = e < best_e
            best[better] = L[better]
            best_e = np.where(better, e, best_e)
        temps.append(T)
        means.append(e_t.mean())
        rates.append(moved / (per_t * n_chains * n))
        if bar is not None:
            bar.update()
        T = schedule.next_temperature(step, T, float(e_t.std()))
        step += 1
    if bar is not None:
        bar.close()
    j = int(np.argmin(best_e))
    return SimulatedAnnealingResult(
        labels=best,
        energy=best_e,
        best_labels=best[j].copy(),
        best_energy=float(best_e[j]),
        temperatures=np.array(temps),
        mean_energy=np.array(means),
        acceptance_rate=np.array(rates),
        n_sweeps=step * per_t,
        seconds=time.perf_counter() - start,
    )


@dataclass(frozen=True)
class ExactGibbs:
    """The Gibbs distribution of a small problem by enumeration of all ``k^n`` labelings.

    Attributes
    ----------
    marginals : ndarray of shape (n_sites, n_states)
    free_energy : float
        ``F = -T log Z``.
    log_partition : float
        ``log Z``.
    mean_energy : float
        ``<R>``.
    entropy : float
        ``S = (<R> - F) / T`` in nats.
    ground_energy : float
        ``min_c R(c)``.
    ground_labels : ndarray of shape (n_sites,)
    """

    marginals: np.ndarray
    free_energy: float
    log_partition: float
    mean_energy: float
    entropy: float
    ground_energy: float
    ground_labels: np.ndarray


def exact_gibbs(cost, temperature, *, max_configurations=2_000_000):
    """Enumerate every labeling and return the exact Gibbs distribution's summaries.

    Parameters
    ----------
    cost : cost object
        Anything with ``energy``, ``n_sites`` and ``n_states``.
    temperature : float
    max_configurations : int, default=2_000_000
        Refuse larger problems (``k^n`` labelings).

    Returns
    -------
    ExactGibbs
    """
    T = _check_temperature(temperature)
    max_configurations = check_int(max_configurations, "max_configurations", minimum=1)
    n, k = cost.n_sites, cost.n_states
    total = k**n
    if total > max_configurations:
        raise ValueError(
            f"exact enumeration needs k**n = {k}**{n} = {total} labelings, above "
            f"max_configurations={max_configurations}"
        )
    powers = k ** np.arange(n)
    E = np.empty(total)
    chunk = 1 << 16
    for lo in range(0, total, chunk):
        idx = np.arange(lo, min(lo + chunk, total))
        E[lo : lo + idx.size] = cost.energy((idx[:, None] // powers) % k)
    logw = -E / T
    log_z = float(logsumexp(logw))
    p = np.exp(logw - log_z)
    marg = np.zeros((n, k))
    for i in range(n):
        marg[i] = np.bincount((np.arange(total) // powers[i]) % k, weights=p, minlength=k)
    mean_e = float(p @ E)
    F = -T * log_z
    g = int(np.argmin(E))
    return ExactGibbs(
        marginals=marg,
        free_energy=F,
        log_partition=log_z,
        mean_energy=mean_e,
        entropy=(mean_e - F) / T,
        ground_energy=float(E[g]),
        ground_labels=(g // powers) % k,
    )


def factorial_log_partition(unary, temperature):
    """``log Z`` of a cost that is a sum of single-site terms, by the sum–product trick (§9.5).

    ``Z = sum_c prod_i f_{i,c(i)} = prod_i sum_nu f_{i,nu}`` with
    ``f_{i,nu} = exp(-U[i, nu] / T)``: ``O(n k)`` instead of ``O(n k^n)``.
    For k-means with fixed centroids ``U[i, nu] = |x_i - y_nu|^2``.

    Parameters
    ----------
    unary : array-like of shape (n_sites, n_states)
    temperature : float

    Returns
    -------
    float
    """
    T = _check_temperature(temperature)
    U = check_array_finite(unary, "unary")
    if U.ndim != 2 or 0 in U.shape:
        raise ValueError("unary must be a finite (n_sites, n_states) array")
    return float(logsumexp(-U / T, axis=1).sum())


def thermodynamic_free_energy(
    cost,
    temperature,
    *,
    n_nodes=12,
    n_chains=8,
    n_sweeps=400,
    burn_in=None,
    method="gibbs",
    random_state=None,
):
    """Free energy ``F = -T log Z`` from samples, by thermodynamic integration.

    ``d(beta F)/d beta = <R>_beta`` and ``beta F -> -n log k`` as
    ``beta -> 0``, so ``beta F(beta) = -n log k + int_0^beta <R>_b db``,
    integrated by Gauss–Legendre over ``b`` with ``<R>_b`` sampled at each
    node. Each chain gives one estimate; their spread gives the error.

    Parameters
    ----------
    cost : cost object
    temperature : float
    n_nodes : int, default=12
        Quadrature nodes in ``(0, beta)``.
    n_chains, n_sweeps, burn_in, method, random_state
        As in :func:`sample_assignments`, at every node.

    Returns
    -------
    free_energy : float
    standard_error : float
        Over chains.
    """
    T = _check_temperature(temperature)
    n_nodes = check_int(n_nodes, "n_nodes", minimum=1)
    n_chains = check_int(n_chains, "n_chains", minimum=2)
    rng = check_random_state(random_state)
    beta = 1.0 / T
    x, w = np.polynomial.legendre.leggauss(n_nodes)
    b = 0.5 * beta * (x + 1.0)
    w = 0.5 * beta * w
    per_chain = np.zeros(n_chains)
    for bj, wj in zip(b, w, strict=True):
        res = sample_assignments(
            cost,
            1.0 / bj,
            n_chains=n_chains,
            n_sweeps=n_sweeps,
            burn_in=burn_in,
            method=method,
            random_state=rng,
        )
        per_chain += wj * res.energies[:, res.burn_in :].mean(axis=1)
    beta_f = -cost.n_sites * math.log(cost.n_states) + per_chain
    F = beta_f / beta
    return float(F.mean()), float(F.std(ddof=1) / math.sqrt(n_chains))

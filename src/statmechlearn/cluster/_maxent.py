"""Shared machinery of maximum-entropy clustering: Gibbs assignments, their fixed point, annealing.

Every clusterer of this family describes a Gibbs distribution over
assignments, factorised over objects:
``P[i, nu] = w_nu exp(-h[i, nu] / T) / Z_i``. For costs linear in the
assignments (histogram clustering, the information bottleneck) ``h`` is the
cost of putting object ``i`` in cluster ``nu`` given the cluster parameters,
which are themselves averages under ``P``; for quadratic costs (pairwise,
correlation clustering) ``h`` is the mean field ``E_P[R | c(i) = nu]``.
Either way an estimator supplies one function, ``field(P) -> (h, log_w)``,
and this module iterates ``P -> Gibbs(field(P))`` to its fixed point
(:func:`solve_fixed_point`) and lowers ``T`` along a schedule
(:func:`anneal`, on the loop of the annealing engine
:mod:`statmechlearn.cluster._schedule`), splitting a cluster in two where it has become unstable
and merging copies that close again, and recording the path (free energy,
number of clusters, iterations).
"""

from dataclasses import dataclass, field

import numpy as np

from statmechlearn._core.warn import warn
from statmechlearn.cluster._schedule import run_schedule

__all__ = [
    "AssignmentPath",
    "anneal",
    "assignment_entropy",
    "effective_clusters",
    "gibbs_assignments",
    "run_annealing",
    "solve_fixed_point",
    "warn_annealing",
]


def gibbs_assignments(h, temperature, log_weights=None):
    """Row-wise Gibbs distribution ``P[i, nu] ∝ w_nu exp(-h[i, nu] / T)``.

    Parameters
    ----------
    h : ndarray of shape (n, K)
        Costs (or mean fields).
    temperature : float
        ``T > 0``.
    log_weights : ndarray of shape (K,), optional
        ``log w_nu`` (cluster priors of mass-constrained variants).

    Returns
    -------
    P : ndarray of shape (n, K)
    log_z : ndarray of shape (n,)
        ``log Z_i``, the per-object log normaliser.
    """
    logits = h * (-1.0 / temperature)
    if log_weights is not None:
        logits += log_weights
    # By hand rather than scipy.special.logsumexp, whose array-API dispatch costs more than
    # the arithmetic at the sizes the fixed-point loop calls it with, thousands of times.
    top = logits.max(axis=1, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    logits -= top
    P = np.exp(logits)
    Z = P.sum(axis=1, keepdims=True)
    P /= Z
    return P, np.log(Z[:, 0]) + top[:, 0]


def assignment_entropy(P, weights=None):
    """``-sum_i a_i sum_nu P log P`` (nats), ``a_i = 1`` unless ``weights`` are given."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(P > 0, P * np.log(P), 0.0).sum(axis=1)
    return float(-(terms.sum() if weights is None else weights @ terms))


def information_free_energy(P, energy, temperature):
    """Variational free energy with cluster priors: ``E(P) + T sum_i sum_nu P log(P / w)``.

    ``w_nu`` is the mean of column ``nu``. The entropy term is ``n`` times the
    mutual information between object and cluster, so coincident copies of a
    cluster add nothing: the stationary points of this functional are the
    Gibbs assignments ``P ∝ w exp(-h / T)`` with ``h = dE/dP``, which is what
    :func:`solve_fixed_point` iterates.

    Parameters
    ----------
    P : ndarray of shape (n, K)
    energy : float
        ``E(P)``, the expected cost under the factorised distribution.
    temperature : float

    Returns
    -------
    float
    """
    w = P.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(P > 0, P * (np.log(P) - np.log(w)), 0.0)
    return float(energy + temperature * terms.sum())


def effective_clusters(P, atol=1e-3):
    """Number of distinct clusters among the columns of ``P``.

    Two clusters are the same while their columns are proportional: then
    they have the same parameters (centroid, histogram, mean field) and
    differ at most in prior mass. Columns are normalised to ``p(i|nu)`` and
    compared in max norm, relative to their largest entry; columns with
    total mass below ``atol`` are not counted.

    Parameters
    ----------
    P : ndarray of shape (n, K)
    atol : float, default=1e-3

    Returns
    -------
    int
    """
    mass = P.sum(axis=0)
    cols = [c / m for c, m in zip(P.T, mass, strict=True) if m > atol]
    distinct = []
    for c in cols:
        if not any(np.max(np.abs(c - d)) <= atol * max(c.max(), d.max()) for d in distinct):
            distinct.append(c)
    return len(distinct)


def solve_fixed_point(fn, P, temperature, *, damping=0.0, max_iter=500, tol=1e-8, sweep=None):
    """Iterate ``P <- (1 - d) Gibbs(field(P)) + d P`` until ``max |Delta P| < tol``.

    Parameters
    ----------
    fn : callable
        ``fn(P) -> (h, log_w)`` with ``log_w`` None or of shape (K,).
        Unused when ``sweep`` is given.
    P : ndarray of shape (n, K)
        Start.
    temperature : float
    damping : float, default=0.0
        Weight ``d`` of the old assignments (synchronous mean-field updates
        of quadratic costs can oscillate without it; frustrated couplings
        want an asynchronous ``sweep`` instead).
    max_iter : int, default=500
    tol : float, default=1e-8
    sweep : callable, optional
        ``sweep(P, T) -> (P_new, change)``, one update of all objects that
        replaces the synchronous Gibbs step (e.g. the asynchronous sweep of
        :mod:`statmechlearn.cluster._mean_field`); no damping is applied.

    Returns
    -------
    P : ndarray of shape (n, K)
    n_iter : int
    converged : bool
    change : float
        The last ``max |Delta P|``.
    """
    change = np.inf
    for it in range(1, max_iter + 1):
        if sweep is not None:
            P, change = sweep(P, temperature)
            if change < tol:
                return P, it, True, change
            continue
        h, log_w = fn(P)
        new, _ = gibbs_assignments(h, temperature, log_w)
        if damping:
            new = damping * P + (1.0 - damping) * new
        change = float(np.max(np.abs(new - P)))
        P = new
        if change < tol:
            return P, it, True, change
    return P, max_iter, False, change


def _column_gap(P, a, b):
    """Max-norm distance of the normalised columns ``a`` and ``b``, relative to their scale."""
    ca = P[:, a] / max(P[:, a].sum(), 1e-300)
    cb = P[:, b] / max(P[:, b].sum(), 1e-300)
    return float(np.max(np.abs(ca - cb)) / max(ca.max(), cb.max(), 1e-300))


def _merge_coincident(P, atol):
    """Sum columns whose normalised versions agree within ``atol`` (a split that closed again)
    and drop clusters whose mass has vanished (below ``1e-9`` objects)."""
    keep = []
    for k in range(P.shape[1]):
        if P[:, k].sum() <= 1e-9:
            continue
        for j in keep:
            if _column_gap(P, j, k) <= atol:
                P[:, j] += P[:, k]
                break
        else:
            keep.append(k)
    P = P[:, keep]
    return P / P.sum(axis=1, keepdims=True)


# Iterations of the first look at a split attempt, checked every _CHUNK.
_PROBE = 200
_CHUNK = 10


def _probe(fn, Q, k, T, gap0, min_mass, *, damping, max_iter, tol, sweep):
    """Iterate a split attempt until it converges, fails, or has had ``_PROBE`` iterations.

    It fails early when one copy has emptied (costs that reward large clusters drain the
    smaller copy) or the copies have closed to ``1e-4`` of their initial gap; a real
    instability, however small its share of the perturbation, is not damped that far.
    """
    total, conv = 0, False
    while total < min(max_iter, _PROBE):
        Q, it, conv, _ = solve_fixed_point(
            fn, Q, T, damping=damping, max_iter=_CHUNK, tol=tol, sweep=sweep
        )
        total += it
        if conv:
            break
        last = Q.shape[1] - 1
        if min(Q[:, k].sum(), Q[:, last].sum()) <= min_mass:
            break
        if _column_gap(Q, k, last) < 1e-4 * gap0:
            break
    return Q, total, conv


def _separating(Q, k, gap0, min_mass):
    """The two copies (columns ``k`` and last) have moved apart and both still hold objects."""
    return (
        _column_gap(Q, k, Q.shape[1] - 1) > 2.0 * gap0
        and min(Q[:, k].sum(), Q[:, -1].sum()) > min_mass
    )


def _split(P, k, rng, size):
    """Duplicate cluster ``k``: its column shared by two copies, unevenly (``1 +- size xi_i``)."""
    xi = size * rng.standard_normal(P.shape[0])
    half = 0.5 * P[:, k]
    return np.column_stack([P[:, :k], half * (1 + xi), P[:, k + 1 :], half * (1 - xi)])


@dataclass
class AssignmentPath:
    """What happened at each temperature of an annealing run.

    Attributes
    ----------
    temperature : list of float
    free_energy : list of float
        ``objective(P, T)`` at the fixed point (the estimator's free energy).
    n_effective : list of int
        Clusters after that temperature's merges and splits.
    n_iter : list of int
        Fixed-point iterations.
    converged : list of bool
    """

    temperature: list = field(default_factory=list)
    free_energy: list = field(default_factory=list)
    n_effective: list = field(default_factory=list)
    n_iter: list = field(default_factory=list)
    converged: list = field(default_factory=list)

    def transitions(self):
        """Temperatures at which the number of distinct clusters grew.

        Returns
        -------
        list of (float, int, int)
            ``(T, before, after)`` for each increase, ``T`` the first
            temperature with the larger count.
        """
        out = []
        for k in range(1, len(self.temperature)):
            if self.n_effective[k] > self.n_effective[k - 1]:
                out.append((self.temperature[k], self.n_effective[k - 1], self.n_effective[k]))
        return out


def anneal(
    fn,
    objective,
    n_samples,
    n_clusters,
    temperatures,
    *,
    rng,
    noise=1e-3,
    damping=0.0,
    max_iter=500,
    tol=1e-8,
    merge_tol=1e-5,
    callback=None,
    sweep=None,
):
    """Deterministic annealing of a Gibbs assignment with cluster splitting (Rose's scheme).

    Starts from one cluster. At each temperature: solve the fixed point,
    merge clusters whose assignment columns have become proportional again,
    then, while fewer than ``n_clusters`` exist, try to split each cluster
    in two (its column shared unevenly between two copies, relative
    perturbation ``noise``) and solve again; a split is real when the
    copies' gap grows instead of closing, both keep a share of the objects
    (at least ``1e-6 n_samples``) and ``objective`` goes down. Of the real
    splits the one of lowest ``objective`` is kept, and the search repeats. So a cluster
    splits at its own critical temperature, wherever the spare copies are.

    Parameters
    ----------
    fn : callable
        ``fn(P) -> (h, log_w)`` for ``P`` with any number of columns, as in
        :func:`solve_fixed_point`.
    objective : callable
        ``objective(P, T) -> float``, the free energy to record and to choose
        between splits.
    n_samples : int
    n_clusters : int
        Most clusters.
    temperatures : GeometricSchedule or sequence of float
        The cooling schedule, run by the annealing engine
        (:func:`statmechlearn.cluster._schedule.run_schedule`).
    rng : numpy.random.Generator
        Draws the split perturbations.
    noise : float, default=1e-3
    damping, max_iter, tol
        Passed to :func:`solve_fixed_point`.
    merge_tol : float, default=1e-5
        Relative gap below which two clusters are merged.
    callback : callable, optional
        ``callback(k, T, P)`` after temperature number ``k``; a long run can
        report progress or checkpoint from it.
    sweep : callable, optional
        Replaces the synchronous Gibbs step, see :func:`solve_fixed_point`.

    Returns
    -------
    P : ndarray of shape (n_samples, n_found)
        Assignments at the last temperature; ``n_found <= n_clusters``.
    path : AssignmentPath
    """
    path = AssignmentPath()
    min_mass = 1e-6 * n_samples

    def solve(state, T):
        P, n_iter, converged, _ = solve_fixed_point(
            fn, state[0], T, damping=damping, max_iter=max_iter, tol=tol, sweep=sweep
        )
        return P, n_iter, converged

    def transition(state, T):
        P, n_iter, converged = state
        P = _merge_coincident(P, merge_tol)
        # Clusters worth trying: all at first; after a split only those that split for real in
        # the last round, and the two halves (a cluster that stayed whole at this temperature
        # stays whole when a distant one splits, and retrying every cluster is O(K^2) probes).
        candidates = list(range(P.shape[1]))
        while P.shape[1] < n_clusters and candidates:
            current = objective(P, T)
            best, real = None, []
            for k in candidates:
                Q = _split(P, k, rng, noise)
                gap0 = _column_gap(Q, k, Q.shape[1] - 1)
                # A short probe first: most attempts close again (or one copy empties) at once.
                Q, it, conv = _probe(
                    fn,
                    Q,
                    k,
                    T,
                    gap0,
                    min_mass,
                    damping=damping,
                    max_iter=max_iter,
                    tol=tol,
                    sweep=sweep,
                )
                n_iter += it
                if not _separating(Q, k, gap0, min_mass):
                    continue
                if not conv:
                    Q, it, conv = solve((Q,), T)
                    n_iter += it
                # A real split: the copies move apart, both keep objects, and F goes down. (With
                # attractive couplings one copy can instead take everything from the other.)
                if _separating(Q, k, gap0, min_mass):
                    value = objective(Q, T)
                    if value < current - 1e-12 * abs(current):
                        real.append(k)
                        if best is None or value < best[0]:
                            best = (value, Q, conv, k)
            if best is None:
                break
            candidates = [k for k in real if k != best[3]] + [best[3], P.shape[1]]
            _, P, converged, _ = best
        return P, n_iter, converged

    def record(state, T):
        P, n_iter, converged = state
        path.temperature.append(float(T))
        path.free_energy.append(float(objective(P, T)))
        path.n_effective.append(P.shape[1])
        path.n_iter.append(n_iter)
        path.converged.append(converged)
        if callback is not None:
            callback(len(path.temperature) - 1, T, P)

    (P, _, _), _ = run_schedule(
        (np.ones((n_samples, 1)), 0, True),
        temperatures,
        solve=solve,
        transition=transition,
        record=record,
    )
    return P, path


def run_annealing(
    name, fn, objective, n_samples, n_clusters, temperatures, *, rng, warn_fewer=True, **kwargs
):
    """:func:`anneal`, then the warnings every estimator owes its user.

    Warns (``ConvergenceWarning``) when fewer than ``n_clusters`` clusters
    separated by the last temperature (unless ``warn_fewer`` is False: costs
    that choose their own number of clusters), or when the fixed point was
    not reached at the last temperature.

    Parameters
    ----------
    name : str
        Estimator name for the messages.
    fn, objective, n_samples, n_clusters, temperatures, rng, **kwargs
        As in :func:`anneal`.
    warn_fewer : bool, default=True

    Returns
    -------
    P : ndarray of shape (n_samples, n_found)
    path : AssignmentPath
    """
    P, path = anneal(fn, objective, n_samples, n_clusters, temperatures, rng=rng, **kwargs)
    warn_annealing(name, P, path, n_clusters, kwargs.get("max_iter", 500), warn_fewer=warn_fewer)
    return P, path


def warn_annealing(name, P, path, n_clusters, max_iter, *, warn_fewer=True):
    """The warnings an annealer owes its user about the end of its path.

    Parameters
    ----------
    name : str
        Estimator name for the messages.
    P : ndarray of shape (n_samples, n_found)
        Assignments at the last temperature.
    path : AssignmentPath
    n_clusters : int
        Clusters asked for.
    max_iter : int
        Iterations allowed per fixed point.
    warn_fewer : bool, default=True
        Warn when fewer than ``n_clusters`` clusters separated.

    Notes
    -----
    The warnings name the first line outside the library (:func:`~statmechlearn._core.warn.warn`),
    whichever estimator method called this function.
    """
    from statmechlearn._core.exceptions import ConvergenceWarning

    if warn_fewer and P.shape[1] < n_clusters:
        warn(
            f"{name}: only {P.shape[1]} of n_clusters={n_clusters} clusters separated by the "
            f"last temperature T={path.temperature[-1]:g}: min_temperature is above the next "
            "split, or the cost does not reward more clusters",
            ConvergenceWarning,
        )
    # Near a critical temperature the iteration slows down (its rate tends to one), and an
    # annealing path may lag there without harm; only the returned solution must be a fixed
    # point. Per-temperature convergence is in path.converged.
    if not path.converged[-1]:
        warn(
            f"{name}: the fixed point at the last temperature T={path.temperature[-1]:g} was not "
            f"reached in max_iter={max_iter} iterations; raise max_iter "
            "(or damping for mean-field costs)",
            ConvergenceWarning,
        )

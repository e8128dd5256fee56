"""Posterior agreement (approximation set coding) for centroid clusterers (notes §8.2–8.4).

Two halves ``X'``, ``X''`` of the data are clustered separately. With the
Boltzmann weights of §8.2 the posterior of a labeling given the code
vectors ``Y`` is factorial, ``p(c(i) = nu | Y) ∝ exp(-beta |x_i - y_nu|^2)``,
so the agreement kernel of §8.4 on a common set of ``n`` objects factorises,

    k(X', X'') = sum_c P(c | X') P(c | X'') = prod_i sum_nu p'_{i nu} p''_{i nu},

(the code vectors of the second half matched to the first by the Hungarian
method, as labels are exchangeable). The approximation capacity per object
is ``(1/n) log(|C| k(X', X''))`` with ``|C| = k^n`` labelings:

    I(beta) = (1/n) sum_i log(k sum_nu p'_{i nu} p''_{i nu})   (nats).

It is 0 at ``beta = 0`` (every labeling equally likely under both), tends
to ``log k`` per object where the two solutions agree and to ``-inf`` where
they disagree as ``beta -> inf``; its maximum over ``beta`` is the
informativeness the data support at that k (Buhmann 2010). The chosen k
maximises it.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.special import logsumexp

from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import check_array_finite, check_int, check_magnitude
from statmechlearn.model_selection._common import (
    check_clusterer,
    check_k_range,
    check_X,
    fit_labels,
)

__all__ = [
    "AnnealedAgreementResult",
    "PosteriorAgreementResult",
    "agreement_capacity",
    "assignment_costs",
    "capacity_from_costs",
    "posterior_agreement",
    "posterior_agreement_path",
]


def _check_betas(betas, Xc, *, allow_zero):
    """The inverse temperatures; by default 61 from 1e-2 to 1e3 over the mean |x - mean|^2."""
    if betas is None:
        scale = float(np.mean(np.sum(Xc**2, axis=1)))
        return np.geomspace(1e-2, 1e3, 61) / max(scale, 1e-300)
    if np.iscomplexobj(betas):
        raise TypeError("betas must be real inverse temperatures, got complex values")
    betas = np.asarray(betas, dtype=float)
    low_ok = np.all(betas >= 0) if allow_zero else np.all(betas > 0)
    if betas.ndim != 1 or betas.size == 0 or not np.all(np.isfinite(betas)) or not low_ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"betas must be a non-empty 1-D array of finite values {bound}")
    return betas


def _log_posterior(X, Y, beta):
    d = np.maximum(np.sum(X**2, axis=1)[:, None] - 2.0 * X @ Y.T + np.sum(Y**2, axis=1), 0.0)
    # measured from each row's nearest centre: at a large beta no row is all -inf (NaN)
    a = -beta * (d - d.min(axis=1, keepdims=True))
    return a - logsumexp(a, axis=1, keepdims=True)


def assignment_costs(estimator, X):
    """Costs ``h(x, nu)`` whose Gibbs distribution ``∝ exp(-beta h)`` is the posterior.

    Squared distances to ``cluster_centers_`` (KMeans, DeterministicAnnealing,
    GibbsSamplerClustering, …), or the estimator's own ``assignment_costs``
    (HistogramClustering: KL divergences; PairwiseClustering: mean fields).
    """
    if hasattr(estimator, "assignment_costs"):
        return np.asarray(estimator.assignment_costs(X), dtype=float)
    if hasattr(estimator, "cluster_centers_"):
        Y = np.asarray(estimator.cluster_centers_, dtype=float)
        d = np.sum(X**2, axis=1)[:, None] - 2.0 * X @ Y.T + np.sum(Y**2, axis=1)
        return np.maximum(d, 0.0)
    raise TypeError(
        f"posterior_agreement needs cluster_centers_ or assignment_costs; "
        f"{type(estimator).__name__} has neither"
    )


def capacity_from_costs(costs_a, costs_b, betas):
    """``I(beta)`` from the assignment costs of two solutions on the same objects.

    The second solution's clusters are matched to the first's by the
    Hungarian method on the confusion of their cheapest clusters.

    Parameters
    ----------
    costs_a, costs_b : ndarray of shape (n, k_a), (n, k_b)
    betas : array of float

    Returns
    -------
    ndarray of shape (len(betas),)
    """
    Ha = np.asarray(costs_a, dtype=float)
    Hb = np.asarray(costs_b, dtype=float)
    C = np.zeros((Ha.shape[1], Hb.shape[1]))
    np.add.at(C, (Ha.argmin(axis=1), Hb.argmin(axis=1)), 1.0)
    ra, rb = linear_sum_assignment(-C)
    k = max(Ha.shape[1], Hb.shape[1])
    out = np.empty(len(betas))
    for j, beta in enumerate(betas):
        la = -beta * Ha
        la -= logsumexp(la, axis=1, keepdims=True)
        lb = -beta * Hb
        lb -= logsumexp(lb, axis=1, keepdims=True)
        out[j] = float(np.mean(math.log(k) + logsumexp(la[:, ra] + lb[:, rb], axis=1)))
    return out


def agreement_capacity(X, centers_a, centers_b, betas):
    """``I(beta)`` of two sets of code vectors on the objects ``X`` (nats per object).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    centers_a, centers_b : ndarray of shape (k, d)
        Code vectors from the two halves; ``centers_b`` is matched to
        ``centers_a`` here.
    betas : array of float
        Inverse temperatures, ``>= 0``.

    Returns
    -------
    ndarray of shape (len(betas),)
    """
    X = check_X(X, min_samples=1)
    A = check_array_finite(centers_a, "centers_a", shape=(None, X.shape[1]))
    B = check_array_finite(centers_b, "centers_b", shape=A.shape)
    if A.shape[0] == 0:
        raise ValueError("centers_a must hold at least one code vector")
    check_magnitude(A, "centers_a")
    check_magnitude(B, "centers_b")
    betas = _check_betas(betas, X, allow_zero=True)
    k = A.shape[0]
    cost = np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=-1)
    _, perm = linear_sum_assignment(cost)
    B = B[perm]
    out = np.empty(len(betas))
    for j, beta in enumerate(betas):
        la = _log_posterior(X, A, beta)
        lb = _log_posterior(X, B, beta)
        out[j] = float(np.mean(math.log(k) + logsumexp(la + lb, axis=1)))
    return out


@dataclass(frozen=True)
class PosteriorAgreementResult:
    """Approximation capacity over k and beta.

    Attributes
    ----------
    n_clusters : int
        The k of largest ``max_beta I``.
    k_values : ndarray of int
    betas : ndarray
    capacity : ndarray of shape (n_k, n_beta)
        ``I(beta)`` averaged over splits (nats per object).
    capacity_se : ndarray of shape (n_k, n_beta)
    max_capacity : ndarray of shape (n_k,)
        ``max_beta I`` for each k.
    best_beta : ndarray of shape (n_k,)
        Its maximiser: the resolution the data support.
    """

    n_clusters: int
    k_values: np.ndarray
    betas: np.ndarray
    capacity: np.ndarray
    capacity_se: np.ndarray
    max_capacity: np.ndarray
    best_beta: np.ndarray

    def plot(self, ax=None):
        """``I(beta)`` for each k; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        for j, k in enumerate(self.k_values):
            ax.plot(
                self.betas,
                self.capacity[j],
                label=f"k = {k}",
                lw=2.5 if k == self.n_clusters else 1.0,
            )
        ax.set_xscale("log")
        ax.set_xlabel("β")
        ax.set_ylabel("approximation capacity I(β) [nats/object]")
        ax.axhline(0.0, color="0.6", lw=0.8)
        ax.legend(fontsize=7, ncol=2)
        return ax


def posterior_agreement(
    X,
    clusterer=None,
    k_range=range(2, 11),
    *,
    betas=None,
    n_splits=10,
    random_state=None,
):
    """Approximation capacity of a centroid clusterer as a function of beta and k (§8.4).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    clusterer : estimator, optional
        Must expose ``cluster_centers_`` (KMeans, DeterministicAnnealing,
        GibbsSamplerClustering: squared-distance costs) or
        ``assignment_costs`` (HistogramClustering: KL divergences of count
        rows; PairwiseClustering with a feature metric: mean fields) after
        fitting; default ``KMeans(n_init=10)``.
    k_range : iterable of int, default=range(2, 11)
    betas : array-like of float, optional
        Inverse temperatures; default 61 values over five decades around the
        inverse of the mean gap between each object's cheapest and dearest
        cluster (so in the units of the costs).
    n_splits : int, default=10
        Random halvings averaged over.
    random_state : int, Generator or None

    Returns
    -------
    PosteriorAgreementResult
    """
    X = check_X(X, min_samples=4)
    n = X.shape[0]
    half = n // 2
    ks = check_k_range(k_range, half, minimum=1)
    clusterer = check_clusterer(clusterer)
    n_splits = check_int(n_splits, "n_splits", minimum=2)
    if betas is not None:
        betas = _check_betas(betas, X, allow_zero=True)
    rng = check_random_state(random_state)
    pairs = []  # (split, k index, costs of the two solutions on the same objects)
    for s in range(n_splits):
        perm = rng.permutation(n)
        A, B = X[perm[:half]], X[perm[half : 2 * half]]
        both = X[perm[: 2 * half]]
        seed = int(rng.integers(2**31 - 1))
        for j, k in enumerate(ks):
            if k == 1:
                continue
            _, est_a = fit_labels(clusterer, A, k, seed)
            _, est_b = fit_labels(clusterer, B, k, seed + 1)
            pairs.append((s, j, assignment_costs(est_a, both), assignment_costs(est_b, both)))
    if betas is None:
        # five decades around the inverse of the typical gap between a point's cheapest
        # and dearest cluster, in whatever units the costs come (squared distance, KL, ...)
        spread = (
            np.mean([np.mean(h.max(axis=1) - h.min(axis=1)) for _, _, h, _ in pairs])
            if pairs
            else 1.0
        )
        betas = np.geomspace(1e-2, 1e3, 61) / max(float(spread), 1e-300)
    values = np.zeros((n_splits, ks.size, betas.size))  # k = 1: capacity 0 at every beta
    for s, j, ha, hb in pairs:
        values[s, j] = capacity_from_costs(ha, hb, betas)
    cap = values.mean(axis=0)
    se = values.std(axis=0, ddof=1) / math.sqrt(n_splits)
    best = cap.argmax(axis=1)
    max_cap = cap[np.arange(ks.size), best]
    return PosteriorAgreementResult(
        n_clusters=int(ks[np.argmax(max_cap)]),
        k_values=ks,
        betas=betas,
        capacity=cap,
        capacity_se=se,
        max_capacity=max_cap,
        best_beta=betas[best],
    )


@dataclass(frozen=True)
class AnnealedAgreementResult:
    """Approximation capacity along deterministic-annealing paths.

    Attributes
    ----------
    n_clusters : int
        Code vectors (of the first half) at ``best_beta``.
    best_beta : float
        The ``beta`` of largest capacity.
    betas : ndarray
    capacity : ndarray
        ``I(beta)`` averaged over splits (nats per object).
    capacity_se : ndarray
    n_effective : ndarray
        Mean number of code vectors of the two halves at each ``beta``.
    """

    n_clusters: int
    best_beta: float
    betas: np.ndarray
    capacity: np.ndarray
    capacity_se: np.ndarray
    n_effective: np.ndarray

    def plot(self, ax=None):
        """``I(beta)`` with the number of clusters on a second axis; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        ax.errorbar(self.betas, self.capacity, self.capacity_se, fmt="-", color="C0")
        ax.axvline(self.best_beta, color="C3", ls="--", label=f"k = {self.n_clusters}")
        ax.set_xscale("log")
        ax.set_xlabel("β = 1/T")
        ax.set_ylabel("I(β) [nats/object]")
        twin = ax.twinx()
        twin.step(self.betas, self.n_effective, where="post", color="0.5", lw=0.8)
        twin.set_ylabel("clusters on the path", color="0.5")
        ax.legend(fontsize=8)
        return ax


def _state_at(path, T):
    """Code vectors and weights of an annealing path at temperature ``T`` (last entry >= T)."""
    temps = np.asarray(path.temperature)
    idx = np.flatnonzero(temps >= T)
    j = idx[-1] if idx.size else 0
    return np.asarray(path.centers[j]), np.asarray(path.weights[j])


def _path_capacity(X, path_a, path_b, betas):
    out = np.empty(len(betas))
    k_eff = np.empty(len(betas))
    for j, beta in enumerate(betas):
        Ya, wa = _state_at(path_a, 1.0 / beta)
        Yb, wb = _state_at(path_b, 1.0 / beta)
        la = _log_posterior(X, Ya, beta) + np.log(np.maximum(wa, 1e-300))
        la -= logsumexp(la, axis=1, keepdims=True)
        lb = _log_posterior(X, Yb, beta) + np.log(np.maximum(wb, 1e-300))
        lb -= logsumexp(lb, axis=1, keepdims=True)
        cost = np.sum((Ya[:, None, :] - Yb[None, :, :]) ** 2, axis=-1)
        ra, rb = linear_sum_assignment(cost)
        k = max(Ya.shape[0], Yb.shape[0])
        # unmatched code vectors have no partner: their products are zero
        out[j] = float(np.mean(math.log(k) + logsumexp(la[:, ra] + lb[:, rb], axis=1)))
        k_eff[j] = 0.5 * (Ya.shape[0] + Yb.shape[0])
    return out, k_eff


def posterior_agreement_path(
    X, max_clusters=10, *, betas=None, n_splits=10, random_state=None, **annealing_params
):
    """Approximation capacity of deterministic annealing along its own path (§8.4).

    Each half is annealed by :class:`~statmechlearn.cluster.DeterministicAnnealing`
    up to ``max_clusters``; at inverse temperature ``beta`` each half's
    posterior is the Gibbs assignment ``p(nu | x) ∝ w_nu exp(-beta |x - y_nu|^2)``
    with the code vectors and weights its path holds at ``T = 1/beta`` (so
    the number of clusters is the one the annealing reached there). The
    chosen ``beta`` maximises the capacity, and the chosen k is the number
    of clusters at it: model order and resolution at once.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    max_clusters : int, default=10
    betas : array-like of float, optional
        Default 61 values from ``1e-2`` to ``1e3`` over the mean squared
        distance to the mean.
    n_splits : int, default=10
    random_state : int, Generator or None
    **annealing_params
        Passed to ``DeterministicAnnealing`` (``cooling_rate``, ``tol``, …).

    Returns
    -------
    AnnealedAgreementResult
    """
    import warnings

    from statmechlearn.cluster import DeterministicAnnealing

    X = check_X(X, min_samples=4)
    n = X.shape[0]
    half = n // 2
    max_clusters = check_int(max_clusters, "max_clusters", minimum=1, maximum=half)
    n_splits = check_int(n_splits, "n_splits", minimum=2)
    Xc = X - X.mean(axis=0)
    betas = _check_betas(betas, Xc, allow_zero=False)
    rng = check_random_state(random_state)
    values = np.empty((n_splits, betas.size))
    k_eff = np.empty((n_splits, betas.size))
    for s in range(n_splits):
        perm = rng.permutation(n)
        A, B = Xc[perm[:half]], Xc[perm[half : 2 * half]]
        paths = []
        for part in (A, B):
            da = DeterministicAnnealing(
                max_clusters, random_state=int(rng.integers(2**31 - 1)), **annealing_params
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                paths.append(da.fit(part).path_)
        values[s], k_eff[s] = _path_capacity(Xc[perm[: 2 * half]], *paths, betas)
    cap = values.mean(axis=0)
    se = values.std(axis=0, ddof=1) / math.sqrt(n_splits)
    best = int(np.argmax(cap))
    return AnnealedAgreementResult(
        n_clusters=round(float(k_eff[:, best].mean())),
        best_beta=float(betas[best]),
        betas=betas,
        capacity=cap,
        capacity_se=se,
        n_effective=k_eff.mean(axis=0),
    )

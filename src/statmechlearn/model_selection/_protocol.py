"""The two-instance communication protocol of approximation set coding, simulated (§8.4–8.5).

A sender and a receiver each cluster one of two noisy instances of the same objects;
the sender encodes a message as one of ``M = exp(n R)`` random permutations of the
objects, and the receiver decodes the permutation whose posterior agreement with its
own clustering is largest. :func:`simulate_protocol` measures the decoding error at
each rate against the union bound of §8.5 and the permutation-codebook capacity.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.special import logsumexp

from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import (
    check_choice,
    check_int,
    check_real,
)
from statmechlearn.model_selection._agreement import (
    _capacity_matched,
    assignment_costs,
)
from statmechlearn.model_selection._asc import (
    WEIGHTS,
    _log_joint_saddle,
    _log_z_saddle,
    excess_costs,
)
from statmechlearn.model_selection._common import (
    check_clusterer,
    check_X,
    check_X_second,
    fit_labels,
)

__all__ = ["ProtocolResult", "simulate_protocol"]


@dataclass(frozen=True)
class ProtocolResult:
    """The two-instance communication protocol of §8.4, simulated.

    Attributes
    ----------
    rates : ndarray
        ``R = log(M) / n`` (nats per object) actually used.
    n_codewords : ndarray of int
        ``M = round(exp(n R))`` transformations in the codebook.
    error_rate, error_se : ndarray
        Empirical probability of decoding the wrong transformation (ties
        broken uniformly) and its binomial standard error.
    union_bound : ndarray
        §8.5: ``min(1, (M - 1) E[E_tau k_tau / k])``, the expectation over
        trials, ``E_tau`` over fresh random permutations.
    capacity, capacity_se : float
        The permutation-codebook capacity ``(1/n) log(k / E_tau k_tau)``
        (annealed over independent partners) averaged over trials.
    bound_exponent : float
        ``-(1/n) log E[E_tau k_tau / k]``: the union bound is
        ``(M - 1) exp(-n bound_exponent)``.
    n_objects, n_trials : int
    """

    rates: np.ndarray
    n_codewords: np.ndarray
    error_rate: np.ndarray
    error_se: np.ndarray
    union_bound: np.ndarray
    capacity: float
    capacity_se: float
    bound_exponent: float
    n_objects: int
    n_trials: int


def _log_kernels(a, b_rows, weights, beta, gamma):
    """log of the unnormalised kernel ``sum_c w'(c) w''(c)`` for a batch of pairings."""
    if weights == "boltzmann":
        la = -beta * a
        la = la - logsumexp(la, axis=-1, keepdims=True)
        lb = -beta * b_rows
        lb = lb - logsumexp(lb, axis=-1, keepdims=True)
        return np.sum(logsumexp(la + lb, axis=-1), axis=-1)
    m = b_rows.shape[0]
    bb = np.full(m, np.inf if weights == "binary" else beta)
    gg = np.full(m, gamma)
    thr = a.shape[0] * gg
    _, lam_a = _log_z_saddle(a, weights, bb[:1], thr[:1])
    _, lam_b = _log_z_saddle(b_rows[0], weights, bb[:1], thr[:1])
    start = np.repeat(np.stack([lam_a, lam_b], -1), m, axis=0)
    return _log_joint_saddle(a, b_rows, weights, bb, thr, start)


def simulate_protocol(
    X,
    n_clusters,
    rates,
    *,
    X_second=None,
    clusterer=None,
    n_objects=20,
    weights="boltzmann",
    beta=1.0,
    gamma=0.0,
    n_trials=100,
    n_bound_samples=64,
    max_codewords=20000,
    random_state=None,
):
    """Simulate the communication protocol of approximation set coding (§8.4–8.5).

    With ``X_second``, a second measurement of the objects of ``X`` (row
    ``i`` of each measures object ``i``), the two instances are ``X' = X``
    and ``X'' = X_second``, as in the notes: each trial clusters both with
    ``n_clusters`` and draws ``n_objects`` random objects, whose posteriors
    are computed on the first instance's measurements under the first
    solution and on the second's under the second. Without it (a one-sample
    heuristic), each trial halves ``X`` into ``X'`` and ``X''`` and both
    solutions' posteriors are computed on the *same* random ``n_objects``
    rows of ``X``, so both see the same measurement noise. The second
    solution's clusters are matched to the first's by the Hungarian method.
    The transformations are random permutations ``tau`` of the common
    objects. Sender and receiver share ``M`` random ``tau_j`` (the codebook)
    and ``X'``; the sender sends ``tau_s``, the receiver sees
    ``tau_s o X''`` and decodes ``argmax_j k(tau_j o X', tau_s o X'')``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_clusters : int
    rates : array-like of float
        Rates ``R = log(M) / n`` in nats per object, ``> 0``.
    X_second : array-like of shape (n_samples, n_features), optional
        The second instance, row-aligned with ``X``; None: the split-sample
        heuristic.
    clusterer : estimator, optional
        Default ``KMeans(n_init=3)``.
    n_objects : int, default=20
        Objects in the common set (``n``).
    weights : {"boltzmann", "fermi", "binary"}, default="boltzmann"
    beta : float, default=1.0
        Inverse temperature (Boltzmann) or sharpness (Fermi), ``> 0``.
    gamma : float, default=0.0
        Per-object resolution ``>= 0`` (Fermi, binary).
    n_trials : int, default=100
    n_bound_samples : int, default=64
        Random permutations per trial for ``E_tau k_tau`` of the bound.
    max_codewords : int, default=20000
    random_state : int, Generator or None

    Returns
    -------
    ProtocolResult

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.model_selection import simulate_protocol
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 1.0, (40, 2)) for c in [(0, 0), (3, 0)]])
    >>> res = simulate_protocol(
    ...     X, 2, [0.1, 0.9], n_objects=10, beta=0.5, n_trials=40, random_state=0
    ... )
    >>> bool(res.rates[0] < res.capacity < res.rates[1])  # capacity about 0.5 nats
    True
    >>> float(res.error_rate[0]), bool(res.error_rate[1] > 0.05)
    (0.0, True)
    """
    X = check_X(X, min_samples=4)
    two = X_second is not None
    if two:
        X_second = check_X_second(X_second, X)
    n_clusters = check_int(
        n_clusters, "n_clusters", minimum=2, maximum=X.shape[0] if two else X.shape[0] // 2
    )
    n_objects = check_int(n_objects, "n_objects", minimum=2, maximum=X.shape[0])
    n_trials = check_int(n_trials, "n_trials", minimum=2)
    n_bound_samples = check_int(n_bound_samples, "n_bound_samples", minimum=1)
    max_codewords = check_int(max_codewords, "max_codewords", minimum=2)
    check_choice(weights, "weights", WEIGHTS)
    beta = check_real(beta, "beta", minimum=0.0, include_min=False, maximum=1e100)
    gamma = check_real(gamma, "gamma", minimum=0.0, maximum=1e100)
    if np.iscomplexobj(rates):
        raise TypeError("rates must be real, got complex values")
    rates = np.asarray(rates, dtype=float)
    if rates.ndim != 1 or rates.size == 0 or not np.all(np.isfinite(rates)) or np.any(rates <= 0):
        raise ValueError("rates must be a non-empty 1-D array of finite values > 0")
    M = np.maximum(2, np.rint(np.exp(np.minimum(n_objects * rates, 700.0)))).astype(float)
    if np.any(M > max_codewords):
        raise ValueError(
            f"rates must keep M = exp(n_objects * rate) <= max_codewords={max_codewords}; "
            f"the largest rate gives {M.max():.3g}"
        )
    M = M.astype(int)
    if clusterer is None:
        from sklearn.cluster import KMeans

        clusterer = KMeans(n_init=3)
    clusterer = check_clusterer(clusterer)
    rng = check_random_state(random_state)
    n, half = X.shape[0], X.shape[0] // 2
    errors = np.zeros((n_trials, M.size))
    ratios = np.empty(n_trials)
    caps = np.empty(n_trials)
    for t in range(n_trials):
        if two:
            seed = int(rng.integers(2**31 - 1))
            _, est_a = fit_labels(clusterer, X, n_clusters, seed)
            _, est_b = fit_labels(clusterer, X_second, n_clusters, seed + 1)
            idx = rng.choice(n, n_objects, replace=False)
            Ha, Hb = assignment_costs(est_a, X[idx]), assignment_costs(est_b, X_second[idx])
        else:
            perm = rng.permutation(n)
            seed = int(rng.integers(2**31 - 1))
            _, est_a = fit_labels(clusterer, X[perm[:half]], n_clusters, seed)
            _, est_b = fit_labels(clusterer, X[perm[half : 2 * half]], n_clusters, seed + 1)
            common = X[rng.choice(n, n_objects, replace=False)]
            Ha, Hb = assignment_costs(est_a, common), assignment_costs(est_b, common)
        C = np.zeros((Ha.shape[1], Hb.shape[1]))
        np.add.at(C, (Ha.argmin(axis=1), Hb.argmin(axis=1)), 1.0)
        ra, rb = linear_sum_assignment(-C)
        a, b = excess_costs(Ha[:, ra]), excess_costs(Hb[:, rb])
        caps[t] = _capacity_matched(
            a,
            b,
            np.array([beta]),
            None if weights == "boltzmann" else np.array([gamma]),
            weights,
            "permutations",
            "saddle",
            None,
            n_clusters,
        ).ravel()[0]
        tau_s = rng.permutation(n_objects)
        received = b[tau_s]
        # Markov bound: E_tau k(tau o X', tau_s o X'') / k(tau_s o X', tau_s o X'')
        taus = np.argsort(rng.random((n_bound_samples, n_objects)), axis=1)
        log_k_s = _log_kernels(a[tau_s], received[None], weights, beta, gamma)[0]
        log_k = _log_kernels(a, received[np.argsort(taus, axis=1)], weights, beta, gamma)
        ratios[t] = math.exp(float(logsumexp(log_k - log_k_s)) - math.log(n_bound_samples))
        top = int(M.max())
        # codebook: tau_s is codeword 0, the other M - 1 are fresh random permutations; the
        # kernel of codeword j pairs a[tau_j(i)] with b[tau_s(i)]
        others = np.argsort(rng.random((top - 1, n_objects)), axis=1)
        log_others = _log_kernels(a, received[np.argsort(others, axis=1)], weights, beta, gamma)
        for r, m in enumerate(M):
            wrong = log_others[: m - 1]
            best = wrong.max()
            tol = 1e-10 * max(1.0, abs(log_k_s))
            if best > log_k_s + tol:
                errors[t, r] = 1.0
            elif best >= log_k_s - tol:
                ties = int(np.sum(wrong >= log_k_s - tol))
                errors[t, r] = ties / (ties + 1.0)
    err = errors.mean(axis=0)
    se = np.sqrt(np.maximum(err * (1 - err), 1.0 / n_trials) / n_trials)
    mean_ratio = float(np.mean(ratios))
    return ProtocolResult(
        rates=np.log(M) / n_objects,
        n_codewords=M,
        error_rate=err,
        error_se=se,
        union_bound=np.minimum(1.0, (M - 1) * mean_ratio),
        capacity=float(caps.mean()),
        capacity_se=float(caps.std(ddof=1) / math.sqrt(n_trials)),
        bound_exponent=-math.log(max(mean_ratio, 1e-300)) / n_objects,
        n_objects=n_objects,
        n_trials=n_trials,
    )

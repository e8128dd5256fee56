"""The mean-field engine: factorial approximations of Gibbs distributions over assignments.

Lecture notes §6. The Gibbs distribution ``p(c) ∝ exp(-R(c)/T)`` is
approximated by ``Q(c) = prod_i q_i(c(i))`` with
``q_i(nu) ∝ exp(-h_{i,nu}/T)``, where the mean field
``h_{u,alpha} = E_Q[R | c(u) = alpha]`` (§6.3). The bound

    B(Q) = E_Q[R] + T sum_i sum_nu q_i(nu) log q_i(nu)  >=  F = -T log Z

(§6.2) is minimised exactly over one ``q_u`` by that update, since
``E_Q[R]`` is linear in each ``q_u`` and ``h_u`` does not depend on it.
So asynchronous updates (one site, or one group of sites that share no
cost term, at a time) never raise ``B`` and converge. Synchronous updates
(all sites from the old fields) are one vectorised step but can oscillate
with period two; ``damping`` mixes in the old ``Q`` to calm them.

Costs plug in by giving their mean fields: ``mean_fields(Q, sites)``,
``expected_cost(Q)`` and ``blocks()``
(:class:`~statmechlearn.inference.PairwiseMRFCost` has them in closed form).
"""

from dataclasses import dataclass

import numpy as np

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn._core.information import xlogy_sum
from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import (
    check_array_finite,
    check_choice,
    check_int,
    check_real,
)
from statmechlearn._core.warn import warn as warn_caller
from statmechlearn.inference._costs import check_labels

__all__ = [
    "MeanFieldResult",
    "iterated_conditional_modes",
    "mean_field",
    "mean_field_annealing",
    "variational_free_energy",
]

_UPDATES = ("asynchronous", "synchronous")


def _softmin(h, T):
    z = -h / T
    z -= z.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    return z


def variational_free_energy(cost, Q, temperature):
    """The mean-field bound ``B = E_Q[R] + T sum q log q`` (§6.2), ``>= -T log Z``.

    Parameters
    ----------
    cost : cost object with ``expected_cost``
    Q : ndarray of shape (n_sites, n_states)
    temperature : float

    Returns
    -------
    float
    """
    T = check_real(temperature, "temperature", minimum=0.0, include_min=False)
    Q = check_array_finite(Q, "Q", shape=(cost.n_sites, cost.n_states))
    if np.any(Q < 0) or not np.allclose(Q.sum(axis=1), 1.0, rtol=0.0, atol=1e-6):
        raise ValueError("Q must hold probabilities: rows >= 0 that sum to 1")
    return _free_energy(cost, Q, T)


def _free_energy(cost, Q, T):
    """:func:`variational_free_energy` of a checked ``Q`` (the mean-field loop's trace)."""
    return cost.expected_cost(Q) + T * xlogy_sum(Q)


def _check_q(Q, cost):
    if np.iscomplexobj(Q):
        raise TypeError("init must hold real probabilities, got complex values")
    Q = np.array(Q, dtype=float)
    if Q.shape != (cost.n_sites, cost.n_states):
        raise ValueError(f"init must have shape ({cost.n_sites}, {cost.n_states}), got {Q.shape}")
    if not np.all(np.isfinite(Q)) or np.any(Q < 0):
        raise ValueError("init must hold finite non-negative probabilities")
    s = Q.sum(axis=1, keepdims=True)
    if np.any(s <= 0):
        raise ValueError("init rows must not be all zero")
    return Q / s


@dataclass(frozen=True)
class MeanFieldResult:
    """Fixed point of the mean-field equations at one temperature.

    Attributes
    ----------
    Q : ndarray of shape (n_sites, n_states)
        Factorial assignment probabilities.
    bound : float
        ``B(Q) >= F``.
    bound_trace : ndarray of shape (n_iter + 1,)
        ``B`` before the first sweep and after each sweep.
    n_iter : int
        Sweeps done.
    converged : bool
        ``max |Delta Q| < tol`` reached.
    temperature : float
    """

    Q: np.ndarray
    bound: float
    bound_trace: np.ndarray
    n_iter: int
    converged: bool
    temperature: float


def mean_field(
    cost,
    temperature,
    *,
    init=None,
    update="asynchronous",
    damping=0.0,
    max_iter=500,
    tol=1e-6,
    random_state=None,
    warn=True,
    compiled=True,
):
    """Iterate the mean-field equations ``q_u ∝ exp(-h_u / T)`` to a fixed point (§6.4).

    Parameters
    ----------
    cost : cost object
        With ``mean_fields(Q, sites)``, ``expected_cost(Q)`` and ``blocks()``.
    temperature : float
        ``T > 0``.
    init : array-like of shape (n_sites, n_states), optional
        Starting ``Q``; rows are normalised. Default: uniform plus a small
        random perturbation (the uniform ``Q`` is itself a fixed point of
        symmetric costs).
    update : {"asynchronous", "synchronous"}, default="asynchronous"
        One block of non-interacting sites at a time (``B`` never rises), or
        all sites from the old fields.
    damping : float in [0, 1), default=0.0
        Synchronous only: ``Q <- damping Q_old + (1 - damping) Q_new``.
    max_iter : int, default=500
        Maximum sweeps.
    tol : float, default=1e-6
        Stop when no probability moved more than ``tol`` in a sweep.
    random_state : int, Generator or None
        For the default ``init``.
    warn : bool, default=True
        Warn with :class:`ConvergenceWarning` when ``max_iter`` is reached.
    compiled : bool, default=True
        Asynchronous sweeps by the cost's numba kernel when it has one
        (``compiled_mean_field_sweep``); the block-wise NumPy path is its twin.

    Returns
    -------
    MeanFieldResult

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.inference import ising_cost, mean_field
    >>> rng = np.random.default_rng(0)
    >>> clean = np.zeros((12, 12), dtype=bool); clean[3:9, 3:9] = True
    >>> noisy = clean ^ (rng.random(clean.shape) < 0.1)
    >>> result = mean_field(ising_cost(noisy, coupling=2.0), temperature=0.5, random_state=0)
    >>> result.Q.shape, bool(result.converged)
    ((144, 2), True)
    >>> denoised = result.Q.argmax(axis=1).reshape(clean.shape).astype(bool)
    >>> int((noisy != clean).sum()), bool((denoised != clean).sum() < 5)  # 15 flips, 4 left
    (15, True)
    """
    T = check_real(temperature, "temperature", minimum=0.0, include_min=False)
    update = check_choice(update, "update", _UPDATES)
    damping = check_real(damping, "damping", minimum=0.0, maximum=1.0, include_max=False)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_real(tol, "tol", minimum=0.0)
    rng = check_random_state(random_state)
    if init is None:
        Q = 1.0 + 1e-3 * rng.standard_normal((cost.n_sites, cost.n_states))
        Q = _check_q(np.abs(Q), cost)
    else:
        Q = _check_q(init, cost)
    blocks = cost.blocks() if update == "asynchronous" else None
    trace = [_free_energy(cost, Q, T)]
    converged = False
    n_iter = 0
    for _ in range(max_iter):
        n_iter += 1
        change = 0.0
        if blocks is not None and compiled and hasattr(cost, "compiled_mean_field_sweep"):
            change = cost.compiled_mean_field_sweep(Q, T)
        elif blocks is not None:
            for block in blocks:
                new = _softmin(cost.mean_fields(Q, block), T)
                change = max(change, float(np.max(np.abs(new - Q[block]))))
                Q[block] = new
        else:
            new = _softmin(cost.mean_fields(Q), T)
            new = damping * Q + (1.0 - damping) * new
            change = float(np.max(np.abs(new - Q)))
            Q = new
        trace.append(_free_energy(cost, Q, T))
        if change < tol:
            converged = True
            break
    if not converged and warn:
        warn_caller(
            f"mean field did not converge at T={T:.4g} in max_iter={max_iter} sweeps "
            f"(last max |dQ| = {change:.3g} > tol={tol:.3g}; bound B = {trace[-1]:.6g}); "
            "use update='asynchronous', more damping or a larger max_iter",
            ConvergenceWarning,
        )
    return MeanFieldResult(
        Q=Q,
        bound=trace[-1],
        bound_trace=np.array(trace),
        n_iter=n_iter,
        converged=converged,
        temperature=T,
    )


def mean_field_annealing(cost, temperatures, *, init=None, random_state=None, **kwargs):
    """Follow the mean-field fixed point down a sequence of temperatures.

    Each temperature starts from the previous solution (the homotopy that
    makes deterministic annealing work, §9.8).

    Parameters
    ----------
    cost : cost object
    temperatures : array-like of float
        Decreasing, all ``> 0``.
    init : array-like, optional
        Starting ``Q`` at the first temperature.
    random_state : int, Generator or None
    **kwargs
        Passed to :func:`mean_field` (``update``, ``damping``, ``max_iter``,
        ``tol``).

    Returns
    -------
    list of MeanFieldResult
        One per temperature.
    """
    temps = check_array_finite(temperatures, "temperatures")
    if temps.ndim != 1 or temps.size == 0:
        raise ValueError("temperatures must be a non-empty 1-D sequence")
    if not np.all(np.isfinite(temps)) or np.any(temps <= 0):
        raise ValueError("temperatures must be finite and > 0")
    if np.any(np.diff(temps) > 0):
        raise ValueError("temperatures must be non-increasing")
    rng = check_random_state(random_state)
    out = []
    Q = init
    for T in temps:
        res = mean_field(cost, float(T), init=Q, random_state=rng, **kwargs)
        out.append(res)
        Q = res.Q
    return out


def iterated_conditional_modes(cost, init, *, max_iter=100):
    """Besag's ICM: each site takes its cheapest state given the others, until nothing moves.

    The zero-temperature limit of the heat-bath sampler and of mean field;
    a block of sites that share no cost term moves at once. The cost never
    rises; ties keep the current state.

    Parameters
    ----------
    cost : cost object with ``mean_fields`` and ``blocks``
    init : array-like of shape (n_sites,)
        Starting labels.
    max_iter : int, default=100
        Maximum sweeps.

    Returns
    -------
    labels : ndarray of shape (n_sites,)
    n_iter : int
        Sweeps done (the last one moved nothing, unless ``max_iter`` was hit).
    """
    labels = check_labels(init, cost.n_sites, cost.n_states)
    if labels.shape[0] != 1:
        raise ValueError(f"init must be one labeling of shape ({cost.n_sites},)")
    labels = labels[0].copy()
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    blocks = cost.blocks()
    rows = np.arange(cost.n_sites)
    Q = np.zeros((cost.n_sites, cost.n_states))
    Q[rows, labels] = 1.0
    for it in range(1, max_iter + 1):
        moved = 0
        for block in blocks:
            h = cost.mean_fields(Q, block)
            cur = labels[block]
            best = np.argmin(h, axis=1)
            keep = h[np.arange(block.size), cur] <= h[np.arange(block.size), best]
            new = np.where(keep, cur, best)
            change = new != cur
            if change.any():
                moved += int(change.sum())
                idx = block[change]
                Q[idx, labels[idx]] = 0.0
                labels[idx] = new[change]
                Q[idx, labels[idx]] = 1.0
        if moved == 0:
            return labels, it
    return labels, max_iter

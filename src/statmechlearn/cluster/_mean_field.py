"""Asynchronous mean-field sweeps for clustering costs quadratic in the assignments.

For ``R = -(1/2) sum_nu P[:, nu]^T J P[:, nu]`` (``J`` symmetric, zero
diagonal) the mean fields are ``h = -J P``. Updating all objects at once
(synchronous, one BLAS product) can oscillate with period two when the
couplings are frustrated or repulsive (signed similarities, graph
partitioning): every object reacts to the others' old state. Updating one
object at a time, and the fields of all others after it, decreases the free
energy ``E + T sum P log(P / w)`` at every step (each row update, with the
priors ``w`` held, minimises it exactly over that row; re-estimating
``w = mean(P)`` minimises it over ``w``), so the sweeps converge. The cost
per sweep is the same ``O(n^2 K)``.

:func:`async_sweep` is numba-compiled; :func:`async_sweep_reference` is its
NumPy twin for the tests.
"""

import numba
import numpy as np

__all__ = ["async_sweep", "async_sweep_reference"]

_TINY = 1e-300


@numba.njit(cache=True, nogil=True)
def _async_sweep(J, P, temperature):
    n, K = P.shape
    P = P.copy()
    JP = J @ P
    mass = np.zeros(K)
    for i in range(n):
        for k in range(K):
            mass[k] += P[i, k]
    logits = np.empty(K)
    delta = np.empty(K)
    change = 0.0
    beta = 1.0 / temperature
    for i in range(n):
        top = -np.inf
        for k in range(K):
            logits[k] = JP[i, k] * beta + np.log(max(mass[k], _TINY) / n)
            top = max(top, logits[k])
        total = 0.0
        for k in range(K):
            logits[k] = np.exp(logits[k] - top)
            total += logits[k]
        moved = False
        for k in range(K):
            new = logits[k] / total
            delta[k] = new - P[i, k]
            if delta[k] != 0.0:
                moved = True
            change = max(change, abs(delta[k]))
            P[i, k] = new
            mass[k] += delta[k]
        if moved:
            # J is symmetric: row i is column i, read contiguously.
            for j in range(n):
                c = J[i, j]
                if c != 0.0:
                    for k in range(K):
                        JP[j, k] += c * delta[k]
    return P, change


def async_sweep(J, P, temperature):
    """One asynchronous mean-field sweep over the objects, in index order.

    Object ``i`` gets ``P[i] ∝ w exp((J P)[i] / T)`` with the current
    assignments of all others (those before ``i`` already updated) and the
    current priors ``w = mean(P, axis=0)``.

    Parameters
    ----------
    J : ndarray of shape (n, n)
        Symmetric couplings with zero diagonal.
    P : ndarray of shape (n, K)
        Assignments (rows sum to one); not modified.
    temperature : float

    Returns
    -------
    P : ndarray of shape (n, K)
        The updated assignments.
    change : float
        ``max |Delta P|`` over the sweep.
    """
    return _async_sweep(
        np.ascontiguousarray(J, dtype=float), np.ascontiguousarray(P, dtype=float), temperature
    )


def async_sweep_reference(J, P, temperature):
    """NumPy twin of :func:`async_sweep` (same order, same arithmetic).

    Parameters
    ----------
    J : ndarray of shape (n, n)
    P : ndarray of shape (n, K)
    temperature : float

    Returns
    -------
    P : ndarray of shape (n, K)
    change : float
    """
    P = np.array(P, dtype=float)
    n = P.shape[0]
    change = 0.0
    for i in range(n):
        w = np.maximum(P.sum(axis=0), _TINY) / n
        logits = (J[i] @ P) / temperature + np.log(w)
        new = np.exp(logits - logits.max())
        new /= new.sum()
        change = max(change, float(np.max(np.abs(new - P[i]))))
        P[i] = new
    return P, change

"""Compiled single-example updates of the LVQ family, and their NumPy twins.

Every update acts on one prototype matrix ``W`` of shape (n_prototypes,
n_features) and one example ``x``. The same ``@njit`` step functions drive
the batched teacher-student simulations (:mod:`statmechlearn.lvq._wta`, one
``W`` per run) and the estimators' training epochs (one ``W``, examples
visited in a given order), so the code that reproduces the paper is the code
users train with.

Labels are compared for equality only: for the WTA family
``g = a + b`` when the winner's label equals the example's and ``a - b``
otherwise, which is the paper's ``g = a + b S sigma`` for S, sigma = +-1 and
extends it to any number of classes.

The ``*_numpy`` functions are plain-NumPy reference twins with the same
contract (per-example loop, vectorised over prototypes); tests hold the
compiled kernels to them, and benchmarks time against them.
"""

import numba
import numpy as np

# Reassociation lets LLVM split the distance sums over several SIMD accumulators
# (a sequential sum is latency-bound); no nnan/ninf, the kernels compare with inf.
_FAST = {"reassoc", "contract"}

__all__ = [
    "ACTIVATIONS",
    "glvq_epoch",
    "glvq_epoch_numpy",
    "lvq21_epoch",
    "lvq21_epoch_numpy",
    "wta_epoch",
    "wta_epoch_numpy",
]

#: GLVQ activation functions f(mu) and their kernel codes.
ACTIVATIONS = {"identity": 0, "sigmoid": 1}


@numba.njit(cache=True, nogil=True, inline="always", fastmath=_FAST)
def _sqdist(W, k, x):  # pragma: no cover - compiled
    d = 0.0
    for i in range(x.shape[0]):
        diff = x[i] - W[k, i]
        d += diff * diff
    return d


@numba.njit(cache=True, nogil=True, inline="always", fastmath=_FAST)
def _move(W, k, x, step):  # pragma: no cover - compiled
    for i in range(x.shape[0]):
        W[k, i] += step * (x[i] - W[k, i])


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def wta_step(W, x, label, prototype_labels, learning_rate, a, b):  # pragma: no cover
    """Winner-takes-all update of Biehl, Ghosh & Hammer eq. (1); returns the winner."""
    best = 0
    best_d = np.inf
    for k in range(W.shape[0]):
        d = _sqdist(W, k, x)
        if d < best_d:
            best_d = d
            best = k
    g = a + b if prototype_labels[best] == label else a - b
    step = learning_rate * g
    if step != 0.0:
        _move(W, best, x, step)
    return best


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _nearest_same_other(W, x, label, prototype_labels):  # pragma: no cover - compiled
    j = k = -1
    dj = dk = np.inf
    for m in range(W.shape[0]):
        d = _sqdist(W, m, x)
        if prototype_labels[m] == label:
            if d < dj:
                dj, j = d, m
        elif d < dk:
            dk, k = d, m
    return j, dj, k, dk


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def lvq21_step(W, x, label, prototype_labels, learning_rate, s):  # pragma: no cover
    """Kohonen's LVQ2.1 with the window rule; returns 1 if an update happened."""
    # The two nearest prototypes overall must carry one correct and one wrong label.
    first = second = -1
    d1 = d2 = np.inf
    for m in range(W.shape[0]):
        d = _sqdist(W, m, x)
        if d < d1:
            second, d2 = first, d1
            first, d1 = m, d
        elif d < d2:
            second, d2 = m, d
    if second < 0:
        return 0
    c1 = prototype_labels[first] == label
    c2 = prototype_labels[second] == label
    if c1 == c2:
        return 0
    # window on Euclidean distances: min(d_i / d_j, d_j / d_i) > s; d1 <= d2
    if d2 == 0.0 or np.sqrt(d1 / d2) <= s:
        return 0
    j, k = (first, second) if c1 else (second, first)
    _move(W, j, x, learning_rate)
    _move(W, k, x, -learning_rate)
    return 1


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def glvq_step(W, x, label, prototype_labels, learning_rate, activation, beta):  # pragma: no cover
    """Stochastic-gradient step of Sato & Yamada's GLVQ cost; returns mu(x).

    The gradient is scaled by ``(d_J + d_K) / 2`` so that the step, like the
    cost, is invariant under a rescaling of the data.
    """
    j, dj, k, dk = _nearest_same_other(W, x, label, prototype_labels)
    total = dj + dk
    if j < 0 or k < 0 or total == 0.0:
        return 0.0
    mu = (dj - dk) / total
    if activation == 1:
        f = 1.0 / (1.0 + np.exp(-beta * mu))
        fprime = beta * f * (1.0 - f)
    else:
        fprime = 1.0
    scale = 2.0 * learning_rate * fprime / total
    _move(W, j, x, scale * dk)
    _move(W, k, x, -scale * dj)
    return mu


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def wta_epoch(
    W, X, y, prototype_labels, order, learning_rate, a, b, sample_weight=None
):  # pragma: no cover
    """Eq. (1) for examples ``X[order]`` in sequence, in place on ``W``.

    With ``sample_weight``, example n steps by ``learning_rate * sample_weight[n]``.
    """
    for t in range(order.shape[0]):
        n = order[t]
        rate = learning_rate if sample_weight is None else learning_rate * sample_weight[n]
        wta_step(W, X[n], y[n], prototype_labels, rate, a, b)


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def lvq21_epoch(
    W, X, y, prototype_labels, order, learning_rate, s, sample_weight=None
):  # pragma: no cover
    """LVQ2.1 over ``X[order]``; returns the number of updates.

    With ``sample_weight``, example n steps by ``learning_rate * sample_weight[n]``.
    """
    n_updates = 0
    for t in range(order.shape[0]):
        n = order[t]
        rate = learning_rate if sample_weight is None else learning_rate * sample_weight[n]
        n_updates += lvq21_step(W, X[n], y[n], prototype_labels, rate, s)
    return n_updates


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def glvq_epoch(
    W, X, y, prototype_labels, order, learning_rate, activation, beta, sample_weight=None
):  # pragma: no cover
    """GLVQ over ``X[order]``; returns the mean of mu(x) seen before each update.

    With ``sample_weight``, example n steps by ``learning_rate * sample_weight[n]``:
    stochastic gradient descent on ``sum_n sample_weight[n] f(mu_n)``.
    """
    total = 0.0
    for t in range(order.shape[0]):
        n = order[t]
        rate = learning_rate if sample_weight is None else learning_rate * sample_weight[n]
        total += glvq_step(W, X[n], y[n], prototype_labels, rate, activation, beta)
    return total / max(order.shape[0], 1)


# ------------------------------------------------------------ NumPy twins ----


def _sqdists(W, x):
    return np.sum((x - W) ** 2, axis=1)


def _rate(learning_rate, sample_weight, n):
    return learning_rate if sample_weight is None else learning_rate * sample_weight[n]


def wta_epoch_numpy(W, X, y, prototype_labels, order, learning_rate, a, b, sample_weight=None):
    """NumPy twin of :func:`wta_epoch` (same arguments, same result)."""
    for n in order:
        best = int(np.argmin(_sqdists(W, X[n])))
        g = a + b if prototype_labels[best] == y[n] else a - b
        W[best] += _rate(learning_rate, sample_weight, n) * g * (X[n] - W[best])


def lvq21_epoch_numpy(W, X, y, prototype_labels, order, learning_rate, s, sample_weight=None):
    """NumPy twin of :func:`lvq21_epoch`."""
    n_updates = 0
    for n in order:
        if W.shape[0] < 2:
            break
        d = _sqdists(W, X[n])
        first, second = np.argsort(d, kind="stable")[:2]
        c1 = prototype_labels[first] == y[n]
        c2 = prototype_labels[second] == y[n]
        if c1 == c2 or d[second] == 0.0 or np.sqrt(d[first] / d[second]) <= s:
            continue
        j, k = (first, second) if c1 else (second, first)
        rate = _rate(learning_rate, sample_weight, n)
        W[j] += rate * (X[n] - W[j])
        W[k] -= rate * (X[n] - W[k])
        n_updates += 1
    return n_updates


def glvq_epoch_numpy(
    W, X, y, prototype_labels, order, learning_rate, activation, beta, sample_weight=None
):
    """NumPy twin of :func:`glvq_epoch`."""
    total = 0.0
    for n in order:
        d = _sqdists(W, X[n])
        same = prototype_labels == y[n]
        if same.all() or not same.any():
            continue
        j = int(np.flatnonzero(same)[np.argmin(d[same])])
        k = int(np.flatnonzero(~same)[np.argmin(d[~same])])
        dj, dk = d[j], d[k]
        if dj + dk == 0.0:
            continue
        mu = (dj - dk) / (dj + dk)
        if activation == 1:
            f = 1.0 / (1.0 + np.exp(-beta * mu))
            fprime = beta * f * (1.0 - f)
        else:
            fprime = 1.0
        scale = 2.0 * _rate(learning_rate, sample_weight, n) * fprime / (dj + dk)
        xj, xk = X[n] - W[j], X[n] - W[k]
        W[j] += scale * dk * xj
        W[k] -= scale * dj * xk
        total += mu
    return total / max(len(order), 1)

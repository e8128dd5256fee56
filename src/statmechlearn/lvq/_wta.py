"""On-line winner-takes-all update eq. (1) of Biehl, Ghosh & Hammer.

``w_S <- w_S + learning_rate * Theta_S * g(S, sigma) * (xi - w_S)`` with
``g = a + b * S * sigma`` and ``Theta_S = 1`` for the prototype closest to xi.
Labels are compared for equality (``g = a + b`` if S equals sigma, else
``a - b``), which is the product form for labels +-1 and any number of classes.
For the paper's scaling pass ``learning_rate = eta / N``.

:func:`wta_online_updates` is the numba kernel; :func:`wta_online_updates_numpy`
is its plain-NumPy reference twin, used by the tests. Both take a leading
run axis so that a simulation advances many independent runs in one call.
"""

import numba
import numpy as np

from statmechlearn._core.validation import check_array_finite, check_magnitude, check_real
from statmechlearn.lvq._kernels import wta_step

__all__ = ["WTA_RULES", "wta_online_updates", "wta_online_updates_numpy", "wta_rule"]

#: ``(a, b)`` of g(S, sigma) = a + b S sigma for the paper's three schemes.
WTA_RULES = {"lvq1": (0.0, 1.0), "lvq+": (0.5, 0.5), "vq": (1.0, 0.0)}


def wta_rule(name):
    """``(a, b)`` of a named WTA rule: ``"lvq1"``, ``"lvq+"`` or ``"vq"`` (any case).

    Parameters
    ----------
    name : str

    Returns
    -------
    tuple of float
    """
    allowed = ", ".join(repr(k) for k in WTA_RULES)
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, one of {allowed}; got {name!r}")
    key = name.strip().lower()
    if key not in WTA_RULES:
        raise ValueError(f"name must be one of {allowed}; got {name!r}")
    return WTA_RULES[key]


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _wta_kernel(W, X, y, labels, learning_rate, a, b):  # pragma: no cover - compiled
    for r in range(X.shape[0]):
        for t in range(X.shape[1]):
            wta_step(W[r], X[r, t], y[r, t], labels, learning_rate, a, b)


def _check_inputs(W, X, y, prototype_labels):
    if not (isinstance(W, np.ndarray) and W.dtype == np.float64 and W.ndim == 3):
        raise TypeError("prototypes must be a float64 array of shape (n_runs, n_prototypes, N)")
    if not W.flags.writeable or not W.flags.c_contiguous:
        raise ValueError("prototypes must be a writeable, C-contiguous array (updated in place)")
    if not np.all(np.isfinite(W)):
        raise ValueError("prototypes must contain only finite values (no NaN or inf)")
    check_magnitude(W, "prototypes")
    X = np.ascontiguousarray(check_array_finite(X, "X"))
    check_magnitude(X, "X")
    y = np.ascontiguousarray(check_array_finite(y, "y"))
    labels = np.ascontiguousarray(check_array_finite(prototype_labels, "prototype_labels"))
    n_runs, n_protos, n_features = W.shape
    if X.ndim != 3 or X.shape[0] != n_runs or X.shape[2] != n_features:
        raise ValueError(
            f"X must have shape ({n_runs}, n_steps, {n_features}) to match prototypes, "
            f"got {X.shape}"
        )
    if y.shape != X.shape[:2]:
        raise ValueError(f"y must have shape {X.shape[:2]}, got {y.shape}")
    if labels.shape != (n_protos,):
        raise ValueError(f"prototype_labels must have shape ({n_protos},), got {labels.shape}")
    return X, y, labels


def wta_online_updates(prototypes, X, y, prototype_labels, *, learning_rate, a, b):
    """Apply eq. (1) for every example in sequence, in place (numba).

    Parameters
    ----------
    prototypes : ndarray of shape (n_runs, n_prototypes, n_features), float64
        Updated in place; must be C-contiguous.
    X : array_like of shape (n_runs, n_steps, n_features)
        Examples, presented in order along axis 1.
    y : array_like of shape (n_runs, n_steps)
        Labels of the examples (the ``sigma`` of eq. 1), usually +-1;
        compared with ``prototype_labels`` for equality.
    prototype_labels : array_like of shape (n_prototypes,)
        Labels ``S`` of the prototypes.
    learning_rate : float
        Step size per example (``eta / N`` in the paper's scaling).
    a, b : float
        Modulation ``g(S, sigma) = a + b S sigma`` (LVQ1: 0, 1; LVQ+: 1/2,
        1/2; VQ: 1, 0).

    Returns
    -------
    ndarray
        ``prototypes``, for chaining.

    Notes
    -----
    Ties between equidistant prototypes go to the lowest index (a
    probability-zero event for continuous data).
    """
    X, y, labels = _check_inputs(prototypes, X, y, prototype_labels)
    learning_rate = check_real(learning_rate, "learning_rate", minimum=0.0)
    a, b = check_real(a, "a"), check_real(b, "b")
    _wta_kernel(prototypes, X, y, labels, learning_rate, float(a), float(b))
    return prototypes


def wta_online_updates_numpy(prototypes, X, y, prototype_labels, *, learning_rate, a, b):
    """Plain-NumPy reference twin of :func:`wta_online_updates` (same contract).

    Parameters
    ----------
    prototypes, X, y, prototype_labels, learning_rate, a, b
        As in :func:`wta_online_updates`.

    Returns
    -------
    ndarray
        ``prototypes``, updated in place.
    """
    X, y, labels = _check_inputs(prototypes, X, y, prototype_labels)
    learning_rate = check_real(learning_rate, "learning_rate", minimum=0.0)
    a, b = check_real(a, "a"), check_real(b, "b")
    runs = np.arange(prototypes.shape[0])
    for t in range(X.shape[1]):
        x = X[:, t, :]
        d = np.sum((x[:, None, :] - prototypes) ** 2, axis=-1)
        best = np.argmin(d, axis=1)
        step = learning_rate * np.where(labels[best] == y[:, t], a + b, a - b)
        prototypes[runs, best] += step[:, None] * (x - prototypes[runs, best])
    return prototypes

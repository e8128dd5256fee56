"""Shared machinery of the prototype estimators: validation, initialisation, schedules.

Kept apart from the estimators so that :class:`~statmechlearn.lvq.VQ` (a
quantizer) and the classifiers share one tested implementation of the
parts that are not the learning rule.
"""

import numbers
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.cluster import KMeans
from sklearn.utils._param_validation import Interval, StrOptions

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn._core.validation import RANDOM_STATE
from statmechlearn._core.warn import warn

__all__ = [
    "COMMON_CONSTRAINTS",
    "INITS",
    "SCHEDULES",
    "check_finite_prototypes",
    "common_params",
    "data_scale",
    "epoch_learning_rate",
    "init_prototypes",
    "prototype_counts",
    "run_epochs",
]

#: Learning-rate schedules of ``fit``, as a function of the epoch e = 0, 1, ...
SCHEDULES = ("constant", "inverse", "linear")
#: Named initialisations of the prototypes.
INITS = ("class-mean", "kmeans", "random-sample")

#: ``_parameter_constraints`` shared by every prototype estimator (inf is excluded
#: from the open intervals: an infinite step or tolerance is never meant).
COMMON_CONSTRAINTS = {
    "init": [StrOptions(set(INITS)), "array-like"],
    "learning_rate": [Interval(Real, 0, np.inf, closed="neither")],
    "learning_rate_schedule": [StrOptions(set(SCHEDULES))],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "tol": [Interval(Real, 0, np.inf, closed="left")],
    "shuffle": ["boolean"],
    "random_state": [*RANDOM_STATE],
}


def common_params(est):
    """The hyper-parameters every prototype estimator shares, as ``run_epochs`` reads them.

    They are validated by the estimator's ``_parameter_constraints``
    (:data:`COMMON_CONSTRAINTS`) before ``fit`` or ``partial_fit`` gets here.

    Parameters
    ----------
    est : estimator
        Has ``learning_rate``, ``learning_rate_schedule``, ``max_iter`` and ``tol``.

    Returns
    -------
    dict
    """
    return {
        "learning_rate": float(est.learning_rate),
        "schedule": est.learning_rate_schedule,
        "max_iter": int(est.max_iter),
        "tol": float(est.tol),
    }


def epoch_learning_rate(learning_rate, schedule, epoch, max_iter):
    """Learning rate of epoch ``epoch`` (0-based) under a schedule.

    ``"constant"``: ``learning_rate``; ``"inverse"``: ``learning_rate / (1 +
    epoch)`` (steps sum to infinity, squares do not: the Robbins-Monro
    conditions, per epoch); ``"linear"``: ``learning_rate * (1 - epoch /
    max_iter)``, Kohonen's LVQ_PAK schedule.

    Parameters
    ----------
    learning_rate : float
    schedule : {"constant", "inverse", "linear"}
    epoch : int
    max_iter : int

    Returns
    -------
    float
    """
    if schedule == "constant":
        return learning_rate
    if schedule == "inverse":
        return learning_rate / (1.0 + epoch)
    return learning_rate * (1.0 - epoch / max_iter)


def prototype_counts(n_prototypes, n_classes):
    """Per-class prototype counts from an int or one count per class.

    Parameters
    ----------
    n_prototypes : int or array_like of int
        Prototypes per class.
    n_classes : int

    Returns
    -------
    ndarray of shape (n_classes,), int64
    """
    if isinstance(n_prototypes, numbers.Integral) and not isinstance(n_prototypes, bool):
        counts = np.full(n_classes, int(n_prototypes), dtype=np.int64)
    else:
        arr = np.asarray(n_prototypes)
        if arr.ndim != 1 or arr.size != n_classes or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(
                "n_prototypes_per_class must be a positive int or a sequence of "
                f"{n_classes} positive ints (one per class, in the order of classes_); "
                f"got {n_prototypes!r}"
            )
        counts = arr.astype(np.int64)
    if np.any(counts < 1):
        raise ValueError(
            f"n_prototypes_per_class must be >= 1 for every class; got {n_prototypes!r}"
        )
    return counts


def _check_init_array(init, shape):
    arr = np.array(init, dtype=np.float64)
    if arr.shape != shape:
        raise ValueError(f"init array must have shape {shape}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("init array must contain only finite values")
    return np.ascontiguousarray(arr)


def _class_block(Xc, k, init, rng, name):
    """``k`` starting prototypes from the samples ``Xc`` of one group."""
    if init == "class-mean" or (init == "kmeans" and k == 1):
        # k-means with one cluster is the mean; skip its fitting overhead
        mean = Xc.mean(axis=0)
        if k == 1:
            return mean[None, :]
        # identical copies would tie for ever (the lowest index always wins)
        scale = 1e-2 * (Xc.std(axis=0) + 1e-12)
        return mean + scale * rng.standard_normal((k, Xc.shape[1]))
    if Xc.shape[0] < k:
        raise ValueError(
            f"init={init!r} needs at least {k} samples of {name}, which has {Xc.shape[0]}; "
            "lower n_prototypes_per_class or use init='class-mean'"
        )
    if init == "random-sample":
        return Xc[rng.choice(Xc.shape[0], size=k, replace=False)]
    seed = int(rng.integers(2**31 - 1))
    with warnings.catch_warnings():
        # duplicate points give fewer distinct clusters than k; prototypes still separate
        warnings.simplefilter("ignore")
        km = KMeans(n_clusters=k, n_init=1, random_state=seed).fit(Xc)
    return km.cluster_centers_


def init_prototypes(X, y_codes, counts, init, rng, *, group_names=None):
    """Starting prototypes, grouped by class in the order of ``counts``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y_codes : ndarray of shape (n_samples,) of int or None
        Class index of each sample, or None for one group (unsupervised).
    counts : ndarray of shape (n_groups,)
        Prototypes per group.
    init : {"class-mean", "random-sample", "kmeans"} or array_like
        Strategy, or the prototypes themselves, shape (counts.sum(), n_features).
    rng : numpy.random.Generator
    group_names : sequence, optional
        Names used in error messages.

    Returns
    -------
    ndarray of shape (counts.sum(), n_features), C-contiguous float64
    """
    shape = (int(counts.sum()), X.shape[1])
    if not isinstance(init, str):
        return _check_init_array(init, shape)
    blocks = []
    for c, k in enumerate(counts):
        if y_codes is None:
            Xc, name = X, "the data"
        else:
            Xc = X[y_codes == c]
            label = np.asarray(group_names)[c : c + 1].tolist()[0] if group_names is not None else c
            name = f"class {label!r}"
            if Xc.shape[0] == 0:
                # partial_fit's first batch may lack a class: start at the batch mean
                Xc = X
        blocks.append(_class_block(Xc, int(k), init, rng, name))
    return np.ascontiguousarray(np.vstack(blocks), dtype=np.float64)


def data_scale(X):
    """Root-mean-square distance of the samples to their mean (1 if they coincide)."""
    centred = X - X.mean(axis=0)
    mean_sq = float(np.einsum("ij,ij->", centred, centred)) / X.shape[0]
    return np.sqrt(mean_sq) if mean_sq > 0 else 1.0


def check_finite_prototypes(est, learning_rate, when=""):
    """Raise if an update drove a prototype to inf/NaN (a too large learning rate)."""
    if not np.all(np.isfinite(est.prototypes_)):
        # a ValueError: the learning rate is too large for these data
        raise ValueError(
            f"{type(est).__name__} diverged{when}: prototypes became non-finite; lower "
            f"learning_rate (now {learning_rate:g})"
        )


def run_epochs(est, n_samples, epoch, params, shuffle, rng, scale):
    """The epoch loop of ``fit``: shuffle, schedule, update, stop on a small displacement.

    Parameters
    ----------
    est : estimator
        Has ``prototypes_``, ``n_iter_`` and ``n_updates_`` (updated here).
    n_samples : int
    epoch : callable
        ``epoch(order, learning_rate)`` applies the rule to the samples in ``order``.
    params : dict
        From :func:`common_params`.
    shuffle : bool
    rng : numpy.random.Generator
    scale : float
        Data scale the displacement is measured in (:func:`data_scale`).
    """
    shift = np.inf
    for e in range(params["max_iter"]):
        order = rng.permutation(n_samples) if shuffle else np.arange(n_samples)
        lr = epoch_learning_rate(params["learning_rate"], params["schedule"], e, params["max_iter"])
        before = est.prototypes_.copy()
        epoch(order, lr)
        est.n_iter_ = e + 1
        est.n_updates_ += n_samples
        check_finite_prototypes(est, params["learning_rate"], f" in epoch {e + 1}")
        shift = np.sqrt(np.max(np.sum((est.prototypes_ - before) ** 2, axis=1))) / scale
        if shift <= params["tol"]:
            return
    # a linear schedule ends at a zero step by design; there is nothing to warn about
    if params["tol"] > 0 and params["schedule"] != "linear":
        _warn_not_converged(est, params["max_iter"], shift)


def _warn_not_converged(est, max_iter, shift):
    """Issue the ConvergenceWarning of an estimator that used all its epochs."""
    warn(
        f"{type(est).__name__} did not converge in max_iter={max_iter} epochs: the "
        f"largest prototype displacement in the last epoch was {shift:.3g} (relative to "
        f"the data's scale), above tol={est.tol:g}. Increase max_iter or tol, or lower "
        "learning_rate: on-line updates keep moving by about learning_rate per epoch.",
        ConvergenceWarning,
    )

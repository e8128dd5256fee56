"""Shared machinery of the prototype estimators: validation, initialisation, schedules.

Kept apart from the estimators so that :class:`~statmechlearn.lvq.VQ` (a
quantizer) and the classifiers share one tested implementation of the
parts that are not the learning rule.
"""

import numbers
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import (
    _check_feature_names_in,
    check_is_fitted,
)

from statmechlearn._core.distances import squared_distances
from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn._core.validation import RANDOM_STATE, check_magnitude, validate_named
from statmechlearn._core.validation import check_sample_weight as _validated_weights
from statmechlearn._core.warn import warn

__all__ = [
    "COMMON_CONSTRAINTS",
    "INITS",
    "SCHEDULES",
    "PrototypeInputMixin",
    "check_finite_prototypes",
    "check_sample_weight",
    "common_params",
    "data_scale",
    "drop_zero_weight",
    "epoch_learning_rate",
    "init_prototypes",
    "prototype_counts",
    "run_epochs",
    "sq_distances",
    "validate_predict_X",
    "validate_train_X",
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
    "verbose": ["verbose"],
}

#: Input formats accepted by every method; sparse X is densified for training only.
SPARSE_FORMATS = ("csr", "csc")


def validate_train_X(est, X, y="no_validation", *, reset, **kwargs):
    """Validate training data and return it as the dense float64 rows the kernels step through.

    The on-line rules update the prototypes one example at a time with dense
    rows, so a sparse ``X`` is densified here, after validation. float32 is
    accepted and computed in float64 (one compiled specialisation per
    kernel); its dtype is returned so that fitted arrays can be given back in it.

    Parameters
    ----------
    est : estimator
    X : array-like or sparse matrix of shape (n_samples, n_features)
    y : array-like or "no_validation"
    reset : bool
        Passed to ``validate_data`` (True in ``fit`` and the first ``partial_fit``).
    **kwargs
        Further arguments of ``validate_data``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), C-contiguous float64
    y : ndarray or None
    dtype : numpy.dtype
        The validated input's float dtype.
    """
    out = validate_named(
        est,
        X,
        y,
        accept_sparse=SPARSE_FORMATS,
        dtype=[np.float64, np.float32],
        order="C",
        reset=reset,
        **kwargs,
    )
    X, y = (out, None) if isinstance(y, str) and y == "no_validation" else out
    dtype = X.dtype
    if sp.issparse(X):
        X = X.toarray()
    X = np.ascontiguousarray(X, dtype=np.float64)
    check_magnitude(X)
    return X, y, dtype


def validate_predict_X(est, X):
    """Validate data to predict: dense C float64 or CSR float64, and the input's dtype."""
    check_is_fitted(est, "prototypes_")
    X = validate_named(
        est, X, accept_sparse=SPARSE_FORMATS, dtype=[np.float64, np.float32], order="C", reset=False
    )
    dtype = X.dtype
    if sp.issparse(X):
        # distances to the prototypes are one sparse-dense product: no densifying
        X = sp.csr_matrix(X, dtype=np.float64)
        check_magnitude(X.data)
    else:
        X = np.ascontiguousarray(X, dtype=np.float64)
        check_magnitude(X)
    return X, dtype


def sq_distances(X, P):
    """Squared Euclidean distances of rows of dense or sparse ``X`` to the prototypes ``P``."""
    if not sp.issparse(X):
        return squared_distances(X, P)
    x_sq = np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
    D = np.asarray(X @ P.T, dtype=np.float64)
    D *= -2.0
    D += x_sq[:, None]
    D += np.einsum("ij,ij->i", P, P)[None, :]
    return np.maximum(D, 0.0, out=D)


def check_sample_weight(sample_weight, X):
    """Validated ``sample_weight`` (float64, finite, >= 0, not all 0), or None for unit weights.

    Unit weights take the unweighted code path, so that they reproduce an
    unweighted fit bit for bit.
    """
    if sample_weight is None:
        return None
    sw = _validated_weights(sample_weight, X)
    return None if np.all(sw == 1.0) else sw


def drop_zero_weight(sw, *arrays):
    """Rows of ``arrays`` with a non-zero weight, and those weights (None stays None).

    A zero-weight example is removed before anything else, so that it is the
    same as dropping the row: it draws no random number and takes no part in
    initialisation, the shuffled order or the stopping scale.
    """
    if sw is None:
        return (None, *arrays)
    keep = sw > 0
    if keep.all():
        return (sw, *arrays)
    return (sw[keep], *(a[keep] for a in arrays))


class PrototypeInputMixin:
    """Input tags and output feature names shared by the prototype estimators."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    @property
    def _n_features_out(self):
        """Number of columns of ``transform``: one distance per prototype."""
        return self.prototypes_.shape[0]

    def get_feature_names_out(self, input_features=None):
        """Names of the columns of ``transform``: ``<class name>_prototype<i>``.

        Column i is the distance to ``prototypes_[i]``, e.g. ``lvq1_prototype0``
        ... ``lvq1_prototype11``. The separator keeps the names unambiguous
        when the class name ends in a digit (scikit-learn's bare
        ``<class name><i>`` would make ``lvq11`` both LVQ1's prototype 1 and
        prototype 11 of an ``lvq`` prefix).

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Only checked against the feature names seen in ``fit``.

        Returns
        -------
        ndarray of str objects, shape (n_prototypes,)
        """
        check_is_fitted(self, "prototypes_")
        _check_feature_names_in(self, input_features, generate_names=False)
        prefix = type(self).__name__.lower()
        return np.asarray(
            [f"{prefix}_prototype{i}" for i in range(self._n_features_out)], dtype=object
        )


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


def _class_block(Xc, k, init, rng, name, wc=None):
    """``k`` starting prototypes from the samples ``Xc`` (weights ``wc``, or None) of one group."""
    if init == "class-mean" or (init == "kmeans" and k == 1):
        # k-means with one cluster is the mean; skip its fitting overhead
        mean = Xc.mean(axis=0) if wc is None else np.average(Xc, axis=0, weights=wc)
        if k == 1:
            return mean[None, :]
        # identical copies would tie for ever (the lowest index always wins)
        if wc is None:
            std = Xc.std(axis=0)
        else:
            std = np.sqrt(np.average((Xc - mean) ** 2, axis=0, weights=wc))
        scale = 1e-2 * (std + 1e-12)
        return mean + scale * rng.standard_normal((k, Xc.shape[1]))
    if Xc.shape[0] < k:
        raise ValueError(
            f"init={init!r} needs at least {k} samples of {name}, which has {Xc.shape[0]}; "
            "lower n_prototypes_per_class or use init='class-mean'"
        )
    if init == "random-sample":
        # a sample is drawn with probability proportional to its weight
        p = None if wc is None or np.all(wc == wc[0]) else wc / wc.sum()
        return Xc[rng.choice(Xc.shape[0], size=k, replace=False, p=p)]
    # imported here: sklearn.cluster adds about half a second to a first import, and
    # only several prototypes per class with init="kmeans" need it
    from sklearn.cluster import KMeans

    seed = int(rng.integers(2**31 - 1))
    with warnings.catch_warnings():
        # duplicate points give fewer distinct clusters than k; prototypes still separate
        warnings.simplefilter("ignore")
        km = KMeans(n_clusters=k, n_init=1, random_state=seed).fit(Xc, sample_weight=wc)
    return km.cluster_centers_


def init_prototypes(X, y_codes, counts, init, rng, *, group_names=None, sample_weight=None):
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
    sample_weight : ndarray of shape (n_samples,), optional
        Positive weights: means, k-means and the random draw are weighted.

    Returns
    -------
    ndarray of shape (counts.sum(), n_features), C-contiguous float64
    """
    shape = (int(counts.sum()), X.shape[1])
    if not isinstance(init, str):
        return _check_init_array(init, shape)
    blocks = []
    sw = sample_weight
    for c, k in enumerate(counts):
        if y_codes is None:
            Xc, wc, name = X, sw, "the data"
        else:
            member = y_codes == c
            Xc, wc = X[member], None if sw is None else sw[member]
            label = np.asarray(group_names)[c : c + 1].tolist()[0] if group_names is not None else c
            name = f"class {label!r}"
            if Xc.shape[0] == 0:
                # partial_fit's first batch may lack a class: start at the batch mean
                Xc, wc = X, sw
        blocks.append(_class_block(Xc, int(k), init, rng, name, wc))
    return np.ascontiguousarray(np.vstack(blocks), dtype=np.float64)


def data_scale(X, sample_weight=None):
    """Root-mean-square distance of the samples to their mean (1 if they coincide), weighted."""
    if sample_weight is None:
        centred = X - X.mean(axis=0)
        mean_sq = float(np.einsum("ij,ij->", centred, centred)) / X.shape[0]
    else:
        centred = X - np.average(X, axis=0, weights=sample_weight)
        sq = np.einsum("ij,ij->i", centred, centred)
        mean_sq = float(np.average(sq, weights=sample_weight))
    return np.sqrt(mean_sq) if mean_sq > 0 else 1.0


def check_finite_prototypes(est, learning_rate, when=""):
    """Raise if an update drove a prototype to inf/NaN (a too large learning rate)."""
    if not np.all(np.isfinite(est._W)):
        # a ValueError: the learning rate is too large for these data
        raise ValueError(
            f"{type(est).__name__} diverged{when}: prototypes became non-finite; lower "
            f"learning_rate (now {learning_rate:g})"
        )


def run_epochs(est, n_samples, epoch, params, shuffle, rng, scale, progress=None):
    """The epoch loop of ``fit``: shuffle, schedule, update, stop on a small displacement.

    Parameters
    ----------
    est : estimator
        Has ``_W`` (the float64 prototypes the rule updates), ``n_iter_`` and
        ``n_updates_`` (updated here), and ``verbose``.
    n_samples : int
    epoch : callable
        ``epoch(order, learning_rate)`` applies the rule to the samples in ``order``.
    params : dict
        From :func:`common_params`.
    shuffle : bool
    rng : numpy.random.Generator
    scale : float
        Data scale the displacement is measured in (:func:`data_scale`).
    progress : callable, optional
        ``progress()`` describes the fit's state after an epoch (e.g. "training
        error 0.03"); called only when ``est.verbose`` is at least 1.
    """
    shift = np.inf
    verbose = int(est.verbose)
    if verbose:
        print("Initialization complete")
    for e in range(params["max_iter"]):
        order = rng.permutation(n_samples) if shuffle else np.arange(n_samples)
        lr = epoch_learning_rate(params["learning_rate"], params["schedule"], e, params["max_iter"])
        before = est._W.copy()
        epoch(order, lr)
        est.n_iter_ = e + 1
        est.n_updates_ += n_samples
        check_finite_prototypes(est, params["learning_rate"], f" in epoch {e + 1}")
        shift = np.sqrt(np.max(np.sum((est._W - before) ** 2, axis=1))) / scale
        if verbose:
            state = f", {progress()}" if progress is not None else ""
            print(
                f"Epoch {e + 1}, learning rate {lr:.4g}{state}, largest prototype "
                f"displacement {shift:.4g}."
            )
        if shift <= params["tol"]:
            if verbose:
                print(
                    f"Converged at epoch {e + 1}: largest prototype displacement "
                    f"{shift:.4g} within tol={est.tol:g}."
                )
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

"""What the linear classifiers share: one-vs-rest multiclass, and the input they accept.

Every classifier of :mod:`statmechlearn.linear` is a two-class model. As
scikit-learn's linear models do, three or more classes are fitted one against the
rest inside the estimator: problem ``k`` labels ``classes_[k]`` +1 and every other
class -1, and is the binary fit unchanged. With two classes there is one problem,
``classes_[1]`` against ``classes_[0]``, as before.

* :func:`class_targets` gives ``classes_`` and the +-1 targets of every problem;
* :func:`fit_problems` runs the binary fit on each and stacks what they fitted
  (:func:`stack_fitted`): with two classes the attributes are the binary fit's,
  with ``K >= 3`` each gets a leading class axis of length ``K`` (``coef_`` and
  ``intercept_`` are concatenated, since the binary ones already have it);
* :func:`decision_output`, :func:`proba_output` and :func:`predict_output` turn
  the per-problem scores into scikit-learn's shapes: ``(n,)`` decision values
  with two classes and ``(n, K)`` with more, probabilities whose rows sum to 1
  (each problem's ``P(classes_[k] | x)`` divided by their sum, as
  :class:`~sklearn.multiclass.OneVsRestClassifier` does), and the class of the
  largest decision value.

The input helpers validate as the contract of the package's estimators asks:
CSR/CSC sparse input, float32 kept (the fit computes in float64 and returns its
arrays in the input's float dtype), and ``sample_weight``.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from statmechlearn._core.validation import check_magnitude, check_sample_weight, validate_named

__all__ = [
    "FLOAT_DTYPES",
    "SPARSE_FORMATS",
    "as_float64",
    "check_magnitude_any",
    "class_targets",
    "decision_output",
    "fit_problems",
    "log_of",
    "predict_output",
    "proba_output",
    "problem_name",
    "stack_fitted",
    "validate_fit_input",
    "validate_predict_input",
    "weights_or_none",
]

#: The float dtypes kept as they come (anything else becomes float64).
FLOAT_DTYPES = (np.float64, np.float32)
#: The sparse formats accepted.
SPARSE_FORMATS = ("csr", "csc")


def check_magnitude_any(X, name="X"):
    """:func:`~statmechlearn._core.validation.check_magnitude` of a dense or sparse ``X``."""
    check_magnitude(X.data if sp.issparse(X) else X, name)


def as_float64(X):
    """``X`` in float64 (a copy only when it is not already)."""
    return X.astype(np.float64, copy=False) if X.dtype != np.float64 else X


def validate_fit_input(estimator, X, y, sample_weight, *, magnitude=True, **kwargs):
    """``(X, y, sample_weight)`` validated for ``fit``, feature names set on ``estimator``.

    ``X`` keeps float32 (any other dtype becomes float64) and a CSR or CSC matrix;
    with ``magnitude`` its largest entry must lie in the range whose squares stay
    finite; ``sample_weight`` is None or finite, non-negative, of shape
    ``(n_samples,)`` and not all zero.
    """
    X, y = validate_named(
        estimator, X, y, accept_sparse=SPARSE_FORMATS, dtype=list(FLOAT_DTYPES), **kwargs
    )
    if magnitude:
        check_magnitude_any(X)
    if sample_weight is not None:
        sample_weight = check_sample_weight(sample_weight, X)
    return X, y, sample_weight


def weights_or_none(sample_weight):
    """None where every weight is 1: the unweighted computation, bit for bit."""
    if sample_weight is None or np.all(sample_weight == 1.0):
        return None
    return sample_weight


def validate_predict_input(estimator, X, *, magnitude=True):
    """``X`` validated for prediction against the fitted names and width (sparse allowed)."""
    check_is_fitted(estimator)
    X = validate_named(
        estimator, X, accept_sparse=SPARSE_FORMATS, dtype=list(FLOAT_DTYPES), reset=False
    )
    if magnitude:
        check_magnitude_any(X)
    return X


def class_targets(estimator, y, sample_weight=None):
    """``classes_`` and the +-1 targets of every binary problem.

    Two classes make one problem, ``classes_[1]`` = +1; ``K >= 3`` classes make
    ``K``, problem ``k`` labelling ``classes_[k]`` +1 and the rest -1. The classes
    are those of the examples of nonzero weight: a zero weight drops its example.

    Raises
    ------
    ValueError
        If ``y`` holds one class only (among the examples of nonzero weight).
    """
    check_classification_targets(y)
    classes = np.unique(y if sample_weight is None else y[sample_weight > 0])
    if classes.size < 2:
        which = "" if sample_weight is None else " of nonzero sample_weight"
        raise ValueError(
            f"{type(estimator).__name__} needs at least 2 classes in y; y has "
            f"{classes.size} class{which} ({classes.tolist()[:5]})"
        )
    if classes.size == 2:
        return classes, [np.where(y == classes[1], 1.0, -1.0)]
    return classes, [np.where(y == c, 1.0, -1.0) for c in classes]


def fit_problems(estimator, classes, targets, fit_binary):
    """``fit_binary(k, s)`` for every problem ``k`` and its targets; announced when verbose."""
    results = []
    verbose = getattr(estimator, "verbose", 0)
    for k, s in enumerate(targets):
        if verbose and len(targets) > 1:
            print(f"{type(estimator).__name__}: {problem_name(classes, k, len(targets))}")
        results.append(fit_binary(k, s))
    return results


def problem_name(classes, k, n_problems):
    """How warnings and verbose output name problem ``k``."""
    labels = classes.tolist()  # Python scalars: 0, not np.int64(0)
    if n_problems == 1:
        return f"class {labels[1]!r} against {labels[0]!r}"
    return f"class {labels[k]!r} against the rest"


def stack_fitted(results, concat=("coef_", "intercept_")):
    """The attributes of every problem's fit, one value per name.

    One problem: its values. Several: arrays of equal shape stacked on a new
    leading class axis (scalars become arrays of shape ``(K,)``), those named in
    ``concat`` (whose two-class shape already has that axis, of length 1)
    concatenated along it, and arrays whose shapes differ between problems (e.g.
    the indices of the retained features) kept as a list.
    """
    if len(results) == 1:
        return dict(results[0])
    out = {}
    for name in results[0]:
        values = [r[name] for r in results]
        if name in concat:
            out[name] = np.concatenate(values)
            continue
        arrays = [np.asarray(v) for v in values]
        if all(a.shape == arrays[0].shape for a in arrays):
            out[name] = np.stack(arrays)
        else:
            out[name] = values
    return out


def decision_output(scores):
    """Decision values from per-problem scores ``(n, n_problems)``: ``(n,)`` for one."""
    return scores[:, 0] if scores.shape[1] == 1 else scores


def proba_output(positive, negative=None):
    """Class probabilities from each problem's probability of its +1 class.

    One problem: ``[negative, positive]`` (``negative`` defaults to ``1 -
    positive``). Several: each row of ``positive`` divided by its sum, so the rows
    sum to 1; a row where every problem gives 0 becomes uniform.
    """
    if positive.shape[1] == 1:
        p1 = positive[:, 0]
        p0 = 1.0 - p1 if negative is None else negative[:, 0]
        return np.column_stack([p0, p1])
    total = positive.sum(axis=1, keepdims=True)
    uniform = np.full_like(positive, 1.0 / positive.shape[1])
    return np.divide(positive, total, out=uniform, where=total > 0)


def log_of(P):
    """``ln P`` with 0 mapped to the log of the dtype's smallest normal number.

    The decision values of the probabilistic multiclass fits: the logarithm of the
    probabilities in their own dtype, so that the largest is the largest probability.
    """
    return np.log(np.maximum(P, np.finfo(P.dtype).tiny))


def predict_output(classes, scores):
    """The class of the largest decision value; with two classes ``classes[1]`` where > 0."""
    if scores.shape[1] == 1:
        return classes[(scores[:, 0] > 0).astype(int)]
    return classes[np.argmax(scores, axis=1)]

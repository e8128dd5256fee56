"""What the clusterers of points and of relations do with a user's inputs.

Shared by the annealers of this package that take ``sample_weight``, sparse
matrices and float32 input: validation of the weights, the dense float64 copy
the fits compute on, and the tags scikit-learn's checks read.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils import ClassifierTags

from statmechlearn._core.validation import check_sample_weight

__all__ = ["dense_float64", "effective_weights", "proba_width_tags"]


def effective_weights(sample_weight, X):
    """Validated ``sample_weight`` (float64), or None where every weight is 1.

    Unit weights are the unweighted fit and take its path, so that they change
    no bit of its results. Negative, non-finite, wrongly shaped or all-zero
    weights raise ``ValueError`` naming ``sample_weight``.

    Parameters
    ----------
    sample_weight : array_like of shape (n_samples,) or None
    X : array_like or sparse matrix of shape (n_samples, ...)

    Returns
    -------
    ndarray of shape (n_samples,) or None
    """
    if sample_weight is None:
        return None
    try:
        w = check_sample_weight(sample_weight, X)
    except ValueError as exc:
        if "sample_weight" in str(exc):
            raise
        raise ValueError(f"sample_weight is invalid: {exc}") from exc
    return None if np.all(w == 1.0) else w


def dense_float64(X):
    """``X`` (validated, dense or sparse, float32 or float64) as a dense float64 array.

    The fits compute in float64 (one compiled specialisation per kernel); a float64
    ndarray passes through without a copy, a sparse matrix becomes a C-ordered array.
    """
    if sp.issparse(X):
        # C order whatever the format, so that a CSC matrix gives the fit of the C array
        return np.ascontiguousarray(X.toarray(), dtype=np.float64)
    return np.asarray(X, dtype=np.float64)


def proba_width_tags(tags, n_columns):
    """``tags`` declaring a two-column ``predict_proba`` where it has two columns.

    scikit-learn's sparse-input checks read the width of ``predict_proba`` from
    the classifier tags of any estimator that has the method, a clusterer
    included (whose tags have none, so the checks fail on an attribute error).
    A clusterer's probabilities have one column per cluster: with two clusters
    that is what ``ClassifierTags(multi_class=False)`` states; with another
    number no classifier tag describes it, and none is set.
    """
    if n_columns == 2:
        tags.classifier_tags = ClassifierTags(multi_class=False)
    return tags

"""What the squared-distance annealers take: dense float64 rows, optional sample weights.

The annealers (:class:`~statmechlearn.cluster.DeterministicAnnealing`,
:class:`~statmechlearn.cluster.SmoothKMeans`,
:class:`~statmechlearn.cluster.EntropyConstrainedClustering`,
:class:`~statmechlearn.cluster.EqualWidthMixture`) accept float32 and float64
arrays and CSR/CSC matrices as scikit-learn's ``KMeans`` does. Their kernels
read dense rows in float64 (one compiled specialisation each), so a sparse
matrix is converted to a dense array after validation and float32 is computed
in float64; the fitted arrays and the float outputs are returned in the
input's float dtype.
"""

import numpy as np
from scipy import sparse

from statmechlearn._core.validation import check_sample_weight, validate_named
from statmechlearn.cluster._checks import check_scale

__all__ = ["dense_rows", "sample_weights", "verbose_print"]


def dense_rows(estimator, X, *, reset, **kwargs):
    """Validated ``X`` as a dense float64 array, and the float dtype it came in.

    Parameters
    ----------
    estimator : BaseEstimator
    X : array-like or sparse matrix of shape (n_samples, n_features)
    reset : bool
        ``validate_data``'s: True in ``fit`` (sets ``n_features_in_`` and
        ``feature_names_in_``), False in the methods that read a fitted model.
    **kwargs
        Passed to ``validate_data`` (e.g. ``ensure_min_samples``).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64, C-contiguous
    dtype : numpy.dtype
        float32 or float64.
    """
    X = validate_named(
        estimator,
        X,
        dtype=[np.float64, np.float32],
        accept_sparse=("csr", "csc"),
        reset=reset,
        **kwargs,
    )
    dtype = X.dtype
    if sparse.issparse(X):
        X = X.toarray()
    X = np.ascontiguousarray(X, dtype=np.float64)
    if not X.flags.writeable:
        # a read-only array (a memory map) would compile the kernels a second time
        X = X.copy()
    if reset:
        check_scale(X)
    return X, dtype


def sample_weights(sample_weight, X):
    """Validated sample weights (float64, ``>= 0``, not all zero), or None for none.

    None stays None: the unweighted sums are the kernels' own, bit for bit.
    """
    if sample_weight is None:
        return None
    w = check_sample_weight(sample_weight, X)
    return np.array(w, dtype=np.float64, order="C")


def verbose_print(verbose, message):
    """Print ``message`` when ``verbose >= 1`` (scikit-learn's iterative estimators' style)."""
    if verbose:
        print(message)

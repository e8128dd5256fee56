"""Input validation whose errors name the parameter and its allowed range."""

import functools
import inspect
import numbers
import re

import numpy as np

__all__ = [
    "RANDOM_STATE",
    "check_array_finite",
    "check_choice",
    "check_int",
    "check_magnitude",
    "check_probability",
    "check_real",
    "check_sample_weight",
    "validate_named",
]


#: The ``_parameter_constraints`` entry of every ``random_state``: scikit-learn's
#: (None, int in [0, 2**32 - 1], RandomState) plus a :class:`numpy.random.Generator`,
#: which scikit-learn's own "random_state" constraint rejects. Resolve the value
#: with :func:`statmechlearn._core.rng.check_random_state`.
RANDOM_STATE = ("random_state", np.random.Generator)


def _is_bool(x):
    return isinstance(x, bool | np.bool_)


def check_real(value, name, *, minimum=None, maximum=None, include_min=True, include_max=True):
    """Return ``value`` as a finite float inside the given interval.

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        Parameter name used in the error message.
    minimum, maximum : float, optional
        Bounds of the allowed interval.
    include_min, include_max : bool, default=True
        Whether the bounds themselves are allowed.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If it is NaN, infinite or outside the interval; the message names
        ``name`` and the interval.
    """
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    lo = "(-inf" if minimum is None else ("[" if include_min else "(") + f"{minimum:g}"
    hi = "inf)" if maximum is None else f"{maximum:g}" + ("]" if include_max else ")")
    interval = f"{lo}, {hi}"
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite and in {interval}, got {value!r}")
    if minimum is not None and (value < minimum or (value == minimum and not include_min)):
        raise ValueError(f"{name} must be in {interval}, got {value!r}")
    if maximum is not None and (value > maximum or (value == maximum and not include_max)):
        raise ValueError(f"{name} must be in {interval}, got {value!r}")
    return value


def check_probability(value, name, *, open_interval=False):
    """Return ``value`` as a float in ``[0, 1]`` (or ``(0, 1)``).

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        Parameter name used in the error message.
    open_interval : bool, default=False
        Exclude the end points 0 and 1.

    Returns
    -------
    float
    """
    return check_real(
        value,
        name,
        minimum=0.0,
        maximum=1.0,
        include_min=not open_interval,
        include_max=not open_interval,
    )


def check_int(value, name, *, minimum=None, maximum=None):
    """Return ``value`` as an int inside ``[minimum, maximum]``.

    Parameters
    ----------
    value : object
        The value to check; integral floats are not accepted.
    name : str
        Parameter name used in the error message.
    minimum, maximum : int, optional
        Inclusive bounds.

    Returns
    -------
    int
    """
    if _is_bool(value) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    value = int(value)
    lo = "-inf" if minimum is None else str(minimum)
    hi = "inf" if maximum is None else str(maximum)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value}")
    return value


def check_choice(value, name, choices):
    """Return ``value`` if it is one of ``choices``.

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        Parameter name used in the error message.
    choices : iterable
        The allowed values.

    Returns
    -------
    object
    """
    choices = tuple(choices)
    if value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {allowed}; got {value!r}")
    return value


def check_array_finite(array, name, *, ndim=None, shape=None, dtype=float):
    """Return ``array`` as an ndarray, checking dimension, shape and finiteness.

    Parameters
    ----------
    array : array_like
        The array to check.
    name : str
        Parameter name used in the error message.
    ndim : int, optional
        Required number of dimensions.
    shape : tuple, optional
        Required shape; ``None`` entries match any length.
    dtype : dtype, default=float
        dtype to convert to.

    Returns
    -------
    ndarray
    """
    # NumPy casts a complex array to float with only a warning, dropping the imaginary part.
    if np.iscomplexobj(array) and not np.issubdtype(np.dtype(dtype), np.complexfloating):
        raise TypeError(f"{name} must be a real array, got complex values")
    try:
        out = np.asarray(array, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array: {exc}") from None
    if ndim is not None and out.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {out.shape}")
    if shape is not None:
        ok = out.ndim == len(shape) and all(
            s is None or s == t for s, t in zip(shape, out.shape, strict=True)
        )
        if not ok:
            want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name} must have shape {want}, got {out.shape}")
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name} must contain only finite values (no NaN or inf)")
    return out


#: Largest and smallest non-zero magnitude of data whose squared Euclidean
#: distances and inner products stay normal float64 numbers in any dimension
#: up to 1e7 (``1e150**2 * 1e7 < 1.8e308``).
MAGNITUDE_RANGE = (1e-150, 1e150)


def check_magnitude(X, name="X"):
    """Raise unless the largest ``|X|`` lies in :data:`MAGNITUDE_RANGE` (or is 0).

    Methods built on squared distances or inner products of the data would
    overflow (to inf, then NaN) or underflow (to ties at 0) outside it.

    Parameters
    ----------
    X : ndarray
        Finite data (checked by the caller).
    name : str, default="X"
        Parameter name used in the error message.

    Raises
    ------
    ValueError
        Naming ``name``, the largest magnitude found and the allowed range.
    """
    top = float(np.max(np.abs(X), initial=0.0))
    lo, hi = MAGNITUDE_RANGE
    if top > hi or 0.0 < top < lo:
        raise ValueError(
            f"{name} has entries of magnitude up to {top:.3g}; its largest magnitude must "
            f"lie in [{lo:g}, {hi:g}] (or be 0) so that squared distances and inner "
            "products stay finite float64 numbers: rescale it (e.g. StandardScaler)"
        )


def validate_named(estimator, X, y="no_validation", **kwargs):
    """scikit-learn's ``validate_data``, with every error naming ``X`` (or ``y``).

    Some of scikit-learn's messages ("Found array with dim 3", "Found array
    with 0 sample(s)") do not say which argument they are about; those get
    the argument's name in front, the others pass unchanged.

    Parameters
    ----------
    estimator : BaseEstimator
    X : array-like
    y : array-like or "no_validation", default="no_validation"
    **kwargs
        Passed to :func:`sklearn.utils.validation.validate_data`.

    Returns
    -------
    ndarray or tuple of ndarray
        What ``validate_data`` returns.
    """
    from sklearn.utils.validation import validate_data

    try:
        return validate_data(estimator, X, y, **kwargs)
    except ValueError as exc:
        message = str(exc)
        if re.search(r"\b[Xy]\b", message):
            raise
        what = "X" if isinstance(y, str) and y == "no_validation" else "X or y"
        raise ValueError(f"{what} is invalid for {type(estimator).__name__}: {message}") from exc


@functools.cache
def _sample_weight_options():
    """Keywords of scikit-learn's ``_check_sample_weight`` for this version, probed once."""
    from sklearn.utils.validation import _check_sample_weight

    options = {"dtype": np.float64, "ensure_non_negative": True}
    if "allow_all_zero_weights" in inspect.signature(_check_sample_weight).parameters:
        options["allow_all_zero_weights"] = True
    return options


def check_sample_weight(sample_weight, X, *, allow_all_zero=False):
    """scikit-learn's sample-weight check, the same on every version the project allows.

    Finite, non-negative, one weight per row of ``X``, as float64; all-zero
    weights are refused (scikit-learn refuses them only from 1.7 on) unless
    ``allow_all_zero``, for a caller that words that error itself.

    Parameters
    ----------
    sample_weight : array_like of shape (n_samples,) or float
    X : array_like or sparse matrix of shape (n_samples, ...)
    allow_all_zero : bool, default=False

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    from sklearn.utils.validation import _check_sample_weight

    try:
        weights = _check_sample_weight(sample_weight, X, **_sample_weight_options())
    except ValueError as exc:
        if "sample_weight" in str(exc):
            raise
        raise ValueError(f"sample_weight is invalid: {exc}") from exc
    if not allow_all_zero and not np.any(weights > 0):
        raise ValueError(
            "sample_weight must contain at least one non-zero number: all weights are zero"
        )
    return weights

"""Input validation whose errors name the parameter and its allowed range."""

import numbers

import numpy as np

__all__ = [
    "RANDOM_STATE",
    "check_array_finite",
    "check_choice",
    "check_int",
    "check_probability",
    "check_real",
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

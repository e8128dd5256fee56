"""Shannon quantities of discrete distributions, in bits or nats.

Shared by the information-bottleneck and rate–distortion solvers (and by
model validation). Every function checks that its input is a probability
distribution (finite, non-negative, summing to one within ``atol``) and says
which argument is not. ``0 log 0 = 0`` throughout.
"""

import math

import numpy as np
from scipy.special import rel_entr

__all__ = [
    "check_distribution",
    "conditional_entropy",
    "cross_entropy",
    "entropy",
    "kl_divergence",
    "mutual_information",
    "xlogy_sum",
]

_UNITS = {"bits": math.log(2.0), "nats": 1.0}


def _unit(base):
    try:
        return _UNITS[base]
    except (KeyError, TypeError):
        raise ValueError(f"base must be 'bits' or 'nats', got {base!r}") from None


def check_distribution(p, name, *, atol=1e-9, ndim=None):
    """Return ``p`` as a float array after checking it is a probability distribution.

    Parameters
    ----------
    p : array_like
        Probabilities; all entries together must sum to one.
    name : str
        Parameter name used in the error message.
    atol : float, default=1e-9
        Allowed deviation of the total from one.
    ndim : int, optional
        Required number of dimensions.

    Returns
    -------
    ndarray

    Raises
    ------
    ValueError
        If an entry is NaN, infinite or negative, the array is empty or has
        the wrong number of dimensions, or the total is not one.
    """
    # NumPy casts complex to float with only a warning, dropping the imaginary part
    if np.iscomplexobj(p):
        raise TypeError(f"{name} must be real probabilities, got complex values")
    p = np.asarray(p, dtype=float)
    if ndim is not None and p.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {p.shape}")
    if p.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(p)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if np.any(p < 0):
        raise ValueError(f"{name} must be non-negative, smallest entry {p.min():g}")
    total = float(p.sum())
    if abs(total - 1.0) > atol:
        raise ValueError(f"{name} must sum to 1 (within {atol:g}), sums to {total!r}")
    return p


def xlogy_sum(p):
    """``sum p log p`` in nats with ``0 log 0 = 0``, for any non-negative array (no checks)."""
    p = np.asarray(p, dtype=float)
    return float(np.sum(p[p > 0] * np.log(p[p > 0])))


def entropy(p, base="bits"):
    """Shannon entropy ``H(p) = -sum p log p``.

    Parameters
    ----------
    p : array_like
        A probability distribution (any shape; all entries together).
    base : {"bits", "nats"}, default="bits"

    Returns
    -------
    float
    """
    p = check_distribution(p, "p")
    return -xlogy_sum(p) / _unit(base)


def _check_pair(p, q):
    p = check_distribution(p, "p")
    q = check_distribution(q, "q")
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape, got {p.shape} and {q.shape}")
    return p, q


def kl_divergence(p, q, base="bits"):
    """Kullback–Leibler divergence ``D(p || q) = sum p log(p / q)``.

    Parameters
    ----------
    p, q : array_like of the same shape
        Probability distributions.
    base : {"bits", "nats"}, default="bits"

    Returns
    -------
    float
        ``inf`` where ``p`` puts mass on a point that ``q`` does not.
    """
    p, q = _check_pair(p, q)
    return float(np.sum(rel_entr(p, q))) / _unit(base)


def mutual_information(joint, base="bits"):
    """Mutual information ``I(X; Y)`` of a joint distribution ``p(x, y)``.

    Parameters
    ----------
    joint : array_like of shape (n_x, n_y)
        The joint distribution.
    base : {"bits", "nats"}, default="bits"

    Returns
    -------
    float
    """
    joint = check_distribution(joint, "joint", ndim=2)
    px, py = joint.sum(axis=1), joint.sum(axis=0)
    return float(np.sum(rel_entr(joint, np.outer(px, py)))) / _unit(base)


def conditional_entropy(joint, base="bits"):
    """Conditional entropy ``H(X | Y) = -sum p(x, y) log(p(x, y) / p(y))``.

    Parameters
    ----------
    joint : array_like of shape (n_x, n_y)
        The joint distribution, ``X`` along rows and ``Y`` along columns.
    base : {"bits", "nats"}, default="bits"

    Returns
    -------
    float
    """
    joint = check_distribution(joint, "joint", ndim=2)
    py = joint.sum(axis=0)
    return (xlogy_sum(py) - xlogy_sum(joint)) / _unit(base)


def cross_entropy(p, q, base="bits"):
    """Cross-entropy ``H(p, q) = -sum p log q = H(p) + D(p || q)``.

    Parameters
    ----------
    p, q : array_like of the same shape
        Probability distributions.
    base : {"bits", "nats"}, default="bits"

    Returns
    -------
    float
        ``inf`` where ``p`` puts mass on a point that ``q`` does not.
    """
    p, q = _check_pair(p, q)
    support = p > 0
    if np.any(q[support] == 0):
        return math.inf
    return float(-np.sum(p[support] * np.log(q[support]))) / _unit(base)

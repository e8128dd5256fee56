"""Small helpers that cell functions share (what they return is stored, so it is in the key)."""

import numpy as np

__all__ = ["padded"]


def padded(values, size):
    """``values`` as a float array of length ``size``, NaN after its end.

    Paths whose length a computation decides (a continued branch, an
    annealing path) are stored whole, never resampled, in a fixed-size
    output.

    Parameters
    ----------
    values : array_like of shape (n,)
    size : int
        Stored length; ``n`` may not exceed it.

    Returns
    -------
    ndarray of shape (size,)

    Raises
    ------
    ValueError
        When the path is longer than ``size``.
    """
    values = np.asarray(values, dtype=float).ravel()
    if values.size > size:
        raise ValueError(f"a path of {values.size} points does not fit the {size} stored")
    out = np.full(size, np.nan)
    out[: values.size] = values
    return out

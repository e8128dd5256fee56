"""The representable range of the clusterers' data (X is named by ``validate_named``).

The squared-distance clusterers work with ``|x - y|^2``, temperatures and
distortions in the same units, and sums of them over the samples. Data of
magnitude ``s`` make these ``s^2``: beyond ``1e100`` their sums overflow (or
``|x|^2 - 2 x.y + |y|^2`` does), and a spread below ``1e-100`` underflows to
the constant data set. Rescaling inside would not help, since the fitted
temperatures and distortions must be returned in the units of the data;
so data outside the range are refused with the remedy.
"""

import numpy as np

__all__ = ["MAX_ABS", "MIN_SPREAD", "check_scale"]

MAX_ABS = 1e100
MIN_SPREAD = 1e-100


def check_scale(X, name="X"):
    """Raise ``ValueError`` unless the squared distances of ``X`` are representable.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite data (already validated).
    name : str, default="X"
        The parameter name for the message.

    Returns
    -------
    X : ndarray
        Unchanged.
    """
    if X.size == 0:
        return X
    largest = float(np.max(np.abs(X)))
    if largest > MAX_ABS:
        raise ValueError(
            f"{name} has entries up to |{name}| = {largest:.3g}; squared distances must be "
            f"representable, which needs max |{name}| <= {MAX_ABS:g}: divide {name} (and the "
            "parameters in its units) by a constant"
        )
    spread = float(np.max(np.ptp(X, axis=0)))
    if 0.0 < spread < MIN_SPREAD:
        raise ValueError(
            f"{name} spans only {spread:.3g} (largest max - min of a feature); squared "
            f"distances must not underflow, which needs a spread of 0 or >= {MIN_SPREAD:g}: "
            f"multiply {name} (and the parameters in its units) by a constant"
        )
    return X

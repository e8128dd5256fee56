"""The paper key and citation of the lecture notes' model-selection figures."""

import math

import numpy as np

__all__ = ["CITATION", "PAPER", "simulate_second_instance", "simulate_setting"]


PAPER = "selection"


CITATION = (
    "Lecture notes, Statistical Learning Theory §7–8; Tibshirani, Walther & Hastie, "
    "Estimating the number of clusters in a data set via the gap statistic (2001)"
)


_K_MAX = 8


_TRUE_K = {
    "null, 10-D uniform": 1,
    "three clusters, 2-D": 3,
    "four sharp blobs": 4,
    "four blurred blobs": 4,
    "null, 2-D uniform": 1,
    "wine, standardised": 3,
}


#: Rows of the wine data drawn (without replacement) for one replicate.
_WINE_ROWS = 150


def _wine():
    from sklearn.datasets import load_wine

    X = load_wine().data
    return (X - X.mean(axis=0)) / X.std(axis=0)


def simulate_setting(name, rng):
    """One replicate data set of a named setting."""
    if name == "null, 10-D uniform":
        return rng.uniform(size=(200, 10))
    if name == "null, 2-D uniform":
        return rng.uniform(size=(200, 2))
    if name == "wine, standardised":
        # a random subsample per seed, so that replicates differ (178 wines, 3 cultivars)
        X = _wine()
        return X[rng.choice(X.shape[0], _WINE_ROWS, replace=False)]
    if name == "three clusters, 2-D":
        return np.vstack(
            [
                rng.normal([0, 0], 1, (25, 2)),
                rng.normal([0, 5], 1, (50, 2)),
                rng.normal([5, -3], 1, (25, 2)),
            ]
        )
    centres = np.array([(0, 0), (6, 0), (0, 6), (6, 6)], dtype=float)
    std = 0.7 if name == "four sharp blobs" else 2.0
    return np.vstack([rng.normal(c, std, (50, 2)) for c in centres])


def simulate_second_instance(name, rng):
    """A second measurement, row by row, of the objects :func:`simulate_setting` drew.

    An object of a mixture setting is its generating cluster: its second measurement is an
    independent draw from that cluster (rows in the order ``simulate_setting`` stacks them);
    an object of a uniform null has nothing to share, and the second instance is a fresh
    uniform sample. The wine rows have no second measurement: None.
    """
    if name == "wine, standardised":
        return None
    if name.startswith("null"):
        return simulate_setting(name, rng)
    if name == "three clusters, 2-D":
        centres = np.repeat([[0.0, 0.0], [0.0, 5.0], [5.0, -3.0]], [25, 50, 25], axis=0)
        return centres + rng.normal(0.0, 1.0, centres.shape)
    centres = np.repeat(np.array([(0, 0), (6, 0), (0, 6), (6, 6)], dtype=float), 50, axis=0)
    std = 0.7 if name == "four sharp blobs" else 2.0
    return centres + rng.normal(0.0, std, centres.shape)


def _binomial(p, n):
    # binomial SE, floored at one miss in n (a normal approximation: n is not given)
    return math.sqrt(max(p * (1 - p), 1.0 / n) / n) if n > 0 else math.nan

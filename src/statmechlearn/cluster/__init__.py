"""Clustering estimators of maximum-entropy (statistical-mechanics) type.

Classes
-------
DeterministicAnnealing
    Rose's deterministic annealing for squared-Euclidean distortion.
EqualWidthMixture
    The same fixed points as maximum-likelihood equal-weight isotropic
    Gaussian mixtures of width sigma (Barkai & Sompolinsky).
"""

from statmechlearn.cluster._annealing import AnnealingPath, DeterministicAnnealing
from statmechlearn.cluster._mixture import EqualWidthMixture, two_centre_fixed_points

__all__ = [
    "AnnealingPath",
    "DeterministicAnnealing",
    "EqualWidthMixture",
    "two_centre_fixed_points",
]

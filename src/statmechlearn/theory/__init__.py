"""Typical-case theory: one module per model/algorithm pair.

Modules
-------
annealing
    Critical temperatures of deterministic annealing.
lvq_dynamics
    On-line WTA LVQ dynamics (Biehl, Ghosh & Hammer).
ml_mixture
    Maximum-likelihood two-Gaussian mixtures (Barkai & Sompolinsky).
outliers
    Soft and hard selection of informative examples (Dietrich & Opper).
"""

from statmechlearn.theory import annealing, lvq_dynamics, ml_mixture, outliers

__all__ = ["annealing", "lvq_dynamics", "ml_mixture", "outliers"]

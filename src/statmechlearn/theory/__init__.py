"""Typical-case theory: one module per model/algorithm pair.

Modules
-------
annealing
    Critical temperatures of deterministic annealing.
lvq_dynamics
    On-line WTA LVQ dynamics (Biehl, Ghosh & Hammer).
ml_mixture
    Maximum-likelihood two-Gaussian mixtures (Barkai & Sompolinsky).
sparse_bayes
    Sparse Bayesian classifier: replica theory and state evolution (Uda & Kabashima).
outliers
    Soft and hard selection of informative examples (Dietrich & Opper).
"""

from typing import TYPE_CHECKING

from statmechlearn._core.lazy import attach

# Imported on first use (see statmechlearn._core.lazy): an estimator that needs one
# theory module does not import the other four.
if TYPE_CHECKING:
    from statmechlearn.theory import annealing, lvq_dynamics, ml_mixture, outliers, sparse_bayes

__all__ = ["annealing", "lvq_dynamics", "ml_mixture", "outliers", "sparse_bayes"]

__getattr__, __dir__ = attach(__name__, __file__)

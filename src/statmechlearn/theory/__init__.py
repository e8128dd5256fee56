"""Typical-case theory: one module per model/algorithm pair.

Modules
-------
lvq_dynamics
    On-line WTA LVQ dynamics (Biehl, Ghosh & Hammer).
outliers
    Soft and hard selection of informative examples (Dietrich & Opper).
"""

from statmechlearn.theory import lvq_dynamics, outliers

__all__ = ["lvq_dynamics", "outliers"]

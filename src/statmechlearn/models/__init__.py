"""Data-generating (teacher) models of the papers.

Modules
-------
labeled_mixture
    Two labelled Gaussian clusters (Biehl, Ghosh & Hammer).
outliers
    Two labelled clusters mixed with outliers (Dietrich & Opper).
two_gaussians
    Two orthogonal unlabelled Gaussian centres (Barkai & Sompolinsky).
"""

from statmechlearn.models import labeled_mixture, outliers, two_gaussians
from statmechlearn.models.labeled_mixture import LabeledMixture
from statmechlearn.models.outliers import OutlierMixture
from statmechlearn.models.two_gaussians import TwoGaussians

__all__ = [
    "LabeledMixture",
    "OutlierMixture",
    "TwoGaussians",
    "labeled_mixture",
    "outliers",
    "two_gaussians",
]

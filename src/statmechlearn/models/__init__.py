"""Data-generating (teacher) models of the papers.

Modules
-------
labeled_mixture
    Two labelled Gaussian clusters (Biehl, Ghosh & Hammer).
outliers
    Two labelled clusters mixed with outliers (Dietrich & Opper).
"""

from statmechlearn.models import labeled_mixture, outliers
from statmechlearn.models.labeled_mixture import LabeledMixture
from statmechlearn.models.outliers import OutlierMixture

__all__ = ["LabeledMixture", "OutlierMixture", "labeled_mixture", "outliers"]

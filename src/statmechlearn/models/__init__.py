"""Data-generating (teacher) models of the papers.

Modules
-------
labeled_mixture
    Two labelled Gaussian clusters (Biehl, Ghosh & Hammer).
"""

from statmechlearn.models import labeled_mixture
from statmechlearn.models.labeled_mixture import LabeledMixture

__all__ = ["LabeledMixture", "labeled_mixture"]

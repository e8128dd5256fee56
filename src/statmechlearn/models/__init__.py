"""Data-generating (teacher) models of the papers.

Modules
-------
labeled_mixture
    Two labelled Gaussian clusters (Biehl, Ghosh & Hammer).
outliers
    Two labelled clusters mixed with outliers (Dietrich & Opper).
sparse_perceptron
    Bernoulli–Gaussian perceptron teacher with a noisy label channel (Uda & Kabashima).
two_gaussians
    Two orthogonal unlabelled Gaussian centres (Barkai & Sompolinsky).
"""

from statmechlearn.models import labeled_mixture, outliers, sparse_perceptron, two_gaussians
from statmechlearn.models.labeled_mixture import LabeledMixture
from statmechlearn.models.outliers import OutlierMixture
from statmechlearn.models.sparse_perceptron import SparsePerceptron
from statmechlearn.models.two_gaussians import TwoGaussians

__all__ = [
    "LabeledMixture",
    "OutlierMixture",
    "SparsePerceptron",
    "TwoGaussians",
    "labeled_mixture",
    "outliers",
    "sparse_perceptron",
    "two_gaussians",
]

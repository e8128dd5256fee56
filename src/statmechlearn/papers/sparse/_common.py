"""The paper key and citation of Uda & Kabashima, and the kappa of its figures."""

__all__ = ["CITATION", "KAPPA", "PAPER"]


PAPER = "sparse"


CITATION = "Uda & Kabashima, Statistical mechanical development of a sparse Bayesian classifier"


KAPPA = 0.05

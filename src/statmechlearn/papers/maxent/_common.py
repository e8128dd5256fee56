"""The paper key and citation of the lecture notes' maximum-entropy figures."""

__all__ = ["CITATION", "PAPER"]


PAPER = "maxent"


CITATION = (
    "Lecture notes, Statistical Learning Theory: maximum-entropy clustering "
    "(histogram, IB, rate distortion, pairwise clustering)"
)

"""The paper key and citation of the lecture notes' sampling figures."""

__all__ = ["CITATION", "PAPER"]


PAPER = "sampling"


CITATION = (
    "Lecture notes, Statistical Learning Theory: Metropolis/Gibbs sampling, simulated and "
    "deterministic annealing, mean-field approximation, Ising de-noising"
)

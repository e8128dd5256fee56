"""Typical-case theory: one module per model/algorithm pair.

Modules
-------
lvq_dynamics
    On-line WTA LVQ dynamics (Biehl, Ghosh & Hammer).
"""

from statmechlearn.theory import lvq_dynamics

__all__ = ["lvq_dynamics"]

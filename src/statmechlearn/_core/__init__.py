"""Shared numerics and plumbing; knows nothing about any paper."""

from statmechlearn._core.exceptions import ConvergenceError, ConvergenceWarning

__all__ = ["ConvergenceError", "ConvergenceWarning"]

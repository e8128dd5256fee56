"""Shared numerics and plumbing; knows nothing about any paper."""

from typing import TYPE_CHECKING

from statmechlearn._core.lazy import attach

# Imported on first use: the exceptions import scikit-learn, which a package importing
# only this module's plumbing (the lazy loader itself) does not need yet.
if TYPE_CHECKING:
    from statmechlearn._core.exceptions import ConvergenceError, ConvergenceWarning

__all__ = ["ConvergenceError", "ConvergenceWarning"]

__getattr__, __dir__ = attach(__name__, __file__)

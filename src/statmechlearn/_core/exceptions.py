"""Exceptions and warnings raised by statmechlearn solvers."""

from sklearn.exceptions import ConvergenceWarning as _SklearnConvergenceWarning

__all__ = ["ConvergenceError", "ConvergenceWarning"]


class ConvergenceError(RuntimeError):
    """A solver failed to converge; the message carries its diagnostics.

    Parameters
    ----------
    message : str
        What failed and why.
    diagnostics : dict, optional
        Machine-readable details (iterations, residual, last state, ...).
    """

    def __init__(self, message, diagnostics=None):
        super().__init__(message)
        self.diagnostics = dict(diagnostics or {})


class ConvergenceWarning(_SklearnConvergenceWarning):
    """A solver stopped early or a result may be inaccurate.

    A subclass of scikit-learn's, so one warnings filter silences both.
    """

"""Warnings and errors that statmechlearn raises, for users to filter or catch.

:class:`ConvergenceWarning` subclasses scikit-learn's, so a filter on
``sklearn.exceptions.ConvergenceWarning`` also silences ours; parameter
errors are scikit-learn's :class:`~sklearn.utils._param_validation.InvalidParameterError`
(a ``ValueError`` and ``TypeError``) for estimators and ``ValueError`` or
``TypeError`` for functions, always naming the parameter and its range.

Examples
--------
>>> import warnings
>>> from statmechlearn.exceptions import ConvergenceWarning
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore", category=ConvergenceWarning)
"""

from statmechlearn._core.exceptions import ConvergenceError, ConvergenceWarning

__all__ = ["ConvergenceError", "ConvergenceWarning"]

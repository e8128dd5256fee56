"""Warnings that name the caller's line.

A fixed ``stacklevel`` is right for one call depth only. The same check is reached
from an estimator's ``fit`` (one frame deeper through scikit-learn's
``_fit_context`` wrapper, two through ``fit_predict``), from a theory function
through SciPy's root finders, or directly, and a constant that is right for one
of them names a line inside statmechlearn or scikit-learn for the others.
:func:`warn` counts the frames instead: the warning is attributed to the first
frame outside statmechlearn and the libraries it calls back through (what
``skip_file_prefixes`` does from Python 3.12; the package supports 3.11).
"""

import os
import sys
import warnings

import numpy
import scipy
import sklearn

__all__ = ["caller_stacklevel", "warn"]

# Libraries whose frames lie between a user's call and our warning: scikit-learn's
# wrappers (fit_context, fit_predict, set_output, meta-estimators), SciPy's solvers
# calling our functions back, NumPy's apply_along_axis and vectorize.
_LIBRARY_DIRS = (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,
    *(
        os.path.dirname(os.path.abspath(module.__file__)) + os.sep
        for module in (sklearn, scipy, numpy)
    ),
)


def caller_stacklevel(skip=_LIBRARY_DIRS):
    """The ``stacklevel`` that names the first frame outside ``skip``, seen from the caller.

    Parameters
    ----------
    skip : tuple of str, default=statmechlearn, scikit-learn, SciPy and NumPy
        Directory prefixes (ending in the path separator) of the frames to pass over.

    Returns
    -------
    int
        ``stacklevel`` for a :func:`warnings.warn` call made by the caller of this
        function; where every frame is in ``skip`` (a worker process running library
        code only), the outermost frame's.
    """
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and os.path.abspath(frame.f_code.co_filename).startswith(skip):
        frame = frame.f_back
        level += 1
    return level


def warn(message, category=UserWarning):
    """Warn, attributing the warning to the first frame outside the libraries.

    Parameters
    ----------
    message : str
    category : type of Warning, default=UserWarning

    Examples
    --------
    >>> import warnings
    >>> from statmechlearn._core.warn import warn
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("too few distinct points")
    >>> str(caught[0].message)
    'too few distinct points'
    """
    # this function's own frame is in the package, so it is counted and passed over
    warnings.warn(message, category, stacklevel=caller_stacklevel())

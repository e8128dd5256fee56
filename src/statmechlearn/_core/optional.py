"""Optional packages: imported where a feature needs them, with the install line when missing.

The core install (NumPy, SciPy, scikit-learn, numba) gives every estimator and
theory function; drawing a result's curve needs matplotlib and a progress bar
needs tqdm, both of the ``experiments`` extra. Importing them on use keeps
``import statmechlearn.cluster`` free of them.
"""

import importlib

__all__ = ["import_optional"]


def import_optional(module, *, purpose, extra="experiments"):
    """Import ``module``, or raise an ImportError that says what needs it and how to install it.

    Parameters
    ----------
    module : str
        Dotted module name, e.g. ``"matplotlib.pyplot"``.
    purpose : str
        What the caller wanted to do, e.g. ``"plot()"``; it starts the message.
    extra : str, default="experiments"
        The extra of ``statmechlearn`` that installs the package.

    Returns
    -------
    module

    Raises
    ------
    ImportError
        If the package is not installed.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        package = module.split(".")[0]
        raise ImportError(
            f"{purpose} needs {package}, which the core install does not include: "
            f"pip install 'statmechlearn[{extra}]' (or pip install {package})"
        ) from exc

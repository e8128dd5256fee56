"""Public names of a package imported on first use (PEP 562).

A package's ``__init__`` lists its public names as ordinary imports under
``if TYPE_CHECKING:`` (read by type checkers, IDEs and the import-layer tests)
and calls :func:`attach`, which reads that block and returns the module's
``__getattr__`` and ``__dir__``: ``import statmechlearn.cluster`` then imports
nothing of the estimators, and ``from statmechlearn.cluster import KohonenSOM``
imports the module that defines it and what that module needs, not every
estimator of the package with numba, the theory and scikit-learn's metrics.
"""

import ast
import importlib
import sys
from pathlib import Path

__all__ = ["attach", "lazy_names"]


def _is_type_checking(test):
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def lazy_names(path):
    """``{name: (module, attribute)}`` of the imports under ``if TYPE_CHECKING:`` in ``path``.

    Parameters
    ----------
    path : str or Path
        A package's ``__init__.py``.

    Returns
    -------
    dict
    """
    tree = ast.parse(Path(path).read_text(encoding="utf-8"), filename=str(path))
    names = {}
    for node in tree.body:
        if not (isinstance(node, ast.If) and _is_type_checking(node.test)):
            continue
        for statement in node.body:
            if not isinstance(statement, ast.ImportFrom) or statement.level != 0:
                raise TypeError(
                    f"{path}: only absolute 'from module import name' statements may stand "
                    "under 'if TYPE_CHECKING:'"
                )
            for alias in statement.names:
                names[alias.asname or alias.name] = (statement.module, alias.name)
    return names


def attach(package, path):
    """``(__getattr__, __dir__)`` of ``package`` whose public names load on first use.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    path : str or Path
        Its ``__file__``, whose ``if TYPE_CHECKING:`` block lists the names.

    Returns
    -------
    getattr, dir : callable
        To assign to the package's ``__getattr__`` and ``__dir__``. A name, once
        loaded, is stored in the package, so the next access is a plain lookup. An
        attribute that names a submodule (``package._kernel``) imports it, as a
        package that imported all its modules would have it.
    """
    names = lazy_names(path)

    def __getattr__(name):
        module = sys.modules[package]
        if name in names:
            source, attribute = names[name]
            if source == package:  # ``from package import submodule``
                value = importlib.import_module(f"{package}.{attribute}")
            else:
                value = getattr(importlib.import_module(source), attribute)
        elif name.startswith("__"):
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        else:
            try:
                value = importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise  # the submodule exists but needs a package that is missing
                raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        setattr(module, name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(names))

    return __getattr__, __dir__

"""Find every public estimator and function of the package, so that the
convention tests cover what exists, not a hand-picked list."""

import importlib
import inspect
import pkgutil

from sklearn.base import BaseEstimator

import statmechlearn

__all__ = ["public_estimators", "public_functions", "public_modules"]

# The experiment stack and the papers' figures are not part of the numeric API the
# conventions are about.
_SKIP = ("statmechlearn.experiments", "statmechlearn.papers", "statmechlearn.cli")


def public_modules():
    """Every module of statmechlearn whose dotted path has no private part."""
    out = [statmechlearn]
    for info in pkgutil.walk_packages(statmechlearn.__path__, "statmechlearn."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        if info.name.startswith(_SKIP):
            continue
        out.append(importlib.import_module(info.name))
    return out


def _exported():
    seen = {}
    for module in public_modules():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if getattr(obj, "__module__", "").startswith("statmechlearn"):
                seen.setdefault(id(obj), (f"{module.__name__}.{name}", obj))
    return sorted(seen.values(), key=lambda item: item[0])


def public_estimators():
    """(public path, class) of every scikit-learn estimator the package exports."""
    return [
        (path, obj)
        for path, obj in _exported()
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator)
    ]


def public_functions():
    """(public path, function) of every function the package exports."""
    return [(path, obj) for path, obj in _exported() if inspect.isfunction(obj)]

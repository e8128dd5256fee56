"""statmechlearn: the statistical mechanics of learning as working software."""

from statmechlearn._version import __version__

__all__ = ["__version__"]

# The public subpackages, imported on first use: ``statmechlearn.cluster`` works after a
# plain ``import statmechlearn``, which itself imports none of them.
_SUBPACKAGES = (
    "cluster",
    "datasets",
    "exceptions",
    "inference",
    "linear",
    "lvq",
    "model_selection",
    "models",
    "theory",
)


def __getattr__(name):
    if name in _SUBPACKAGES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SUBPACKAGES))

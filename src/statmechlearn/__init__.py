"""statmechlearn: the statistical mechanics of learning as working software."""

from statmechlearn._version import __version__

__all__ = ["__version__"]

"""Where a result came from: package version, git commit, machine."""

import platform
import subprocess
from functools import lru_cache
from pathlib import Path

from statmechlearn._version import __version__

__all__ = ["git_commit", "provenance"]


@lru_cache(maxsize=1)
def git_commit():
    """Commit of the checkout the package runs from (``+dirty`` if modified), or ``None``."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("+dirty" if dirty else "") if commit else None


def provenance():
    """Version, commit, Python and machine of the current process.

    Returns
    -------
    dict of str
    """
    return {
        "version": __version__,
        "git_commit": git_commit() or "unknown",
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}",
    }

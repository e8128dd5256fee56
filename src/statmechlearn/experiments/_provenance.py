"""Where a result came from: package and library versions, commit, machine,
CPU and threads, command line and wall time.

:func:`run_provenance` is what the runner writes into a result's dataset
attributes when it computes cells; the report shows those attributes per
experiment, and "not recorded" for results stored before they existed.
Everything is a string or a number, as NetCDF attributes must be; mappings
are JSON.
"""

import importlib.metadata
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from functools import lru_cache
from pathlib import Path

from statmechlearn._version import __version__

__all__ = [
    "CELL_THREADS",
    "RUN_ATTRS",
    "cpu_model",
    "git_commit",
    "library_versions",
    "provenance",
    "run_provenance",
    "thread_settings",
]

#: Threads a cell's BLAS and numba loops run on: ``_runner._execute_cell`` limits both to
#: one (cells are the unit of parallelism); a test runs a cell and compares.
CELL_THREADS = {"blas": 1, "numba": 1}

#: Distributions whose versions every result records (import names differ: sklearn).
CORE_DISTRIBUTIONS = ("statmechlearn", "numpy", "scipy", "scikit-learn", "numba")

#: The attributes :func:`run_provenance` adds beyond :func:`provenance`'s.
RUN_ATTRS = ("libraries_json", "cpu", "cpu_count", "threads_json", "command")


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


def _distribution_version(dist):
    if dist == "statmechlearn":
        return __version__
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def library_versions(peers=()):
    """Versions of the core numeric libraries, the package and the given peers.

    Parameters
    ----------
    peers : iterable of str
        Import names of optional packages an experiment compares against
        (``FigureSpec.peers``).

    Returns
    -------
    dict of str to str or None
        None for a peer that is not installed.
    """
    out = {dist: _distribution_version(dist) for dist in CORE_DISTRIBUTIONS}
    if peers:
        from statmechlearn.experiments._fingerprint import peer_versions

        out |= peer_versions(peers)
    return out


@lru_cache(maxsize=1)
def cpu_model():
    """The processor's model name, as the operating system reports it, or ``"unknown"``."""
    try:
        for line in (
            Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines()
        ):
            # x86 says "model name", some ARM kernels "Model" or "Hardware"
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Model", "Hardware") and value.strip():
                return value.strip()
    except OSError:
        pass
    if sys.platform == "darwin":
        try:
            name = subprocess.run(
                ["sysctl", "-n", "machdep.cpu.brand_string"],
                capture_output=True,
                text=True,
                timeout=5,
                check=True,
            ).stdout.strip()
            if name:
                return name
        except (OSError, subprocess.SubprocessError):
            pass
    return platform.processor() or "unknown"


def _usable_cpus():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def thread_settings():
    """Threads available to this process and those a cell runs on.

    Returns
    -------
    dict
        ``usable_cpus`` (CPUs this process may run on), ``blas`` (each BLAS
        library loaded: its API, implementation, version and default thread
        count), ``numba_threads`` and ``numba_layer`` (numba's default pool
        and threading layer), and ``cell`` (:data:`CELL_THREADS`).
    """
    from threadpoolctl import threadpool_info

    blas = [
        {
            "api": pool.get("internal_api"),
            "version": pool.get("version"),
            "threads": pool.get("num_threads"),
        }
        for pool in threadpool_info()
        if pool.get("user_api") == "blas"
    ]
    try:
        import numba

        numba_threads = int(numba.config.NUMBA_NUM_THREADS)
        numba_layer = str(numba.config.THREADING_LAYER)
    except ImportError:  # pragma: no cover - numba is a core dependency
        numba_threads, numba_layer = None, None
    return {
        "usable_cpus": _usable_cpus(),
        "blas": blas,
        "numba_threads": numba_threads,
        "numba_layer": numba_layer,
        "cell": dict(CELL_THREADS),
    }


def _command_line():
    argv = list(sys.argv) or ["python"]
    argv[0] = Path(argv[0]).name or argv[0]
    return shlex.join(argv)


def run_provenance(peers=(), wall_s=None, n_computed=None):
    """Everything a computed result records about how it was computed.

    Parameters
    ----------
    peers : iterable of str, default=()
        The experiment's optional peer packages (their versions are recorded).
    wall_s : float, optional
        Wall-clock seconds of the run that computed cells, from its start
        until its last cell finished (the final write follows); absent while
        the run has not finished.
    n_computed : int, optional
        Cells that run computed.

    Returns
    -------
    dict of str to str, int or float
        :func:`provenance` plus ``libraries_json``, ``cpu``, ``cpu_count``,
        ``threads_json``, ``command`` and, when given, ``run_wall_s``,
        ``run_cells_computed`` and ``run_finished``.
    """
    out = provenance() | {
        "libraries_json": json.dumps(library_versions(peers), sort_keys=True),
        "cpu": cpu_model(),
        "cpu_count": int(os.cpu_count() or 1),
        "threads_json": json.dumps(thread_settings(), sort_keys=True),
        "command": _command_line(),
    }
    if wall_s is not None:
        out["run_wall_s"] = float(wall_s)
        out["run_finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    if n_computed is not None:
        out["run_cells_computed"] = int(n_computed)
    return out

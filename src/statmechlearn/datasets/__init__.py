"""Readers for the real data sets the papers use (nothing is downloaded).

Data are read from a directory: ``STATMECHLEARN_DATA`` if set, else the
project's ``../shared/data`` (next to the repository checkout, or to the
current directory) when present.
"""

import os
from pathlib import Path

import numpy as np

__all__ = ["find_data_dir", "load_colon"]

_COLON_SAMPLES, _COLON_GENES = 62, 2000


def find_data_dir():
    """The data directory, or ``None`` when there is none.

    Returns
    -------
    pathlib.Path or None
        ``$STATMECHLEARN_DATA``, else the first existing ``../shared/data``
        relative to the repository root or the current directory.
    """
    env = os.environ.get("STATMECHLEARN_DATA")
    if env:
        return Path(env) if Path(env).is_dir() else None
    for base in (Path(__file__).resolve().parents[2], Path.cwd()):
        candidate = base.parent / "shared" / "data"
        if candidate.is_dir():
            return candidate
    return None


def _read_matrix(path, shape):
    try:
        values = np.loadtxt(path, dtype=float, ndmin=2)
    except (OSError, ValueError) as exc:
        raise ValueError(
            f"{path}: expected {shape[0]} lines of {shape[1]} whitespace-separated numbers ({exc})"
        ) from exc
    if values.shape != shape:
        raise ValueError(
            f"{path}: expected {shape[0]} lines of {shape[1]} numbers, found shape {values.shape}"
        )
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{path}: contains NaN or infinite values")
    return values


def load_colon(path=None):
    """Alon et al.'s colon-cancer microarray data (62 tissues x 2000 genes).

    Parameters
    ----------
    path : str or Path, optional
        Directory holding ``I2000.txt`` (2000 gene rows x 62 tissue columns),
        ``tissues.txt`` (62 signed integers: negative = tumour, positive =
        normal) and ``names.txt`` (2000 annotation lines). Default:
        ``find_data_dir() / "colon"``.

    Returns
    -------
    X : ndarray of shape (62, 2000)
        Raw intensities, one row per tissue.
    y : ndarray of shape (62,)
        ``+1`` normal (22), ``-1`` tumour (40).
    gene_names : list of str
        Annotation of each column of ``X``.

    Raises
    ------
    FileNotFoundError
        When the directory or a file is missing.
    ValueError
        When a file does not have the expected layout (the message names the
        file and the layout).
    """
    if path is None:
        root = find_data_dir()
        if root is None:
            raise FileNotFoundError(
                "no data directory: set STATMECHLEARN_DATA or place the data in ../shared/data"
            )
        path = root / "colon"
    path = Path(path)
    for name in ("I2000.txt", "tissues.txt", "names.txt"):
        if not (path / name).is_file():
            raise FileNotFoundError(f"{path / name}: missing (colon data set needs it)")
    X = _read_matrix(path / "I2000.txt", (_COLON_GENES, _COLON_SAMPLES)).T
    labels = _read_matrix(path / "tissues.txt", (_COLON_SAMPLES, 1))[:, 0]
    if np.any(labels == 0):
        raise ValueError(f"{path / 'tissues.txt'}: expected non-zero signed integers, found a 0")
    names = (path / "names.txt").read_text(errors="replace").splitlines()
    names = [n for n in names if n.strip()]
    if len(names) != _COLON_GENES:
        raise ValueError(
            f"{path / 'names.txt'}: expected {_COLON_GENES} annotation lines, found {len(names)}"
        )
    return X, np.sign(labels), names

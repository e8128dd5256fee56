"""Real data sets the papers use, shipped inside the package (nothing is downloaded).

Each data set lies in ``statmechlearn/datasets/data/<name>/`` in its
original published layout, gzip-compressed, next to a ``README.md`` with
its source, licence and citation. The loaders check every file against the
SHA-256 of the original (uncompressed) distribution before parsing it, so a
damaged install is an error, never silently different data.
"""

import gzip
import hashlib
import io
import os
from importlib import resources
from pathlib import Path

import numpy as np

__all__ = ["COLON_CITATION", "COLON_SHA256", "load_colon"]

_COLON_SAMPLES, _COLON_GENES = 62, 2000

#: SHA-256 of the original files of the colon data set (as distributed, uncompressed).
COLON_SHA256 = {
    "I2000.txt": "92a03c4b9c0e42acd1cdc0ccc10203529806364bf8fb5a769e04e03c5777c8fd",
    "tissues.txt": "716355bf5860d959c08755e2656700bf5a5e9c2674ac18287df72a5893f00086",
    "names.txt": "b4f801f25805436d4247159e425383944f18200305ea04b0272c54abf07c884e",
}

#: How to cite the colon data set.
COLON_CITATION = (
    "U. Alon, N. Barkai, D. A. Notterman, K. Gish, S. Ybarra, D. Mack, A. J. Levine, "
    "Broad patterns of gene expression revealed by clustering analysis of tumor and normal "
    "colon tissues probed by oligonucleotide arrays, PNAS 96 (1999) 6745-6750, "
    "doi:10.1073/pnas.96.12.6745"
)


def _read_shipped(name):
    """Bytes of a shipped file, checked against the original distribution's SHA-256."""
    resource = resources.files(__name__).joinpath("data", "colon", f"{name}.gz")
    try:
        data = gzip.decompress(resource.read_bytes())
    except (OSError, EOFError) as exc:
        raise ValueError(f"shipped colon file {name}.gz cannot be read ({exc})") from exc
    if hashlib.sha256(data).hexdigest() != COLON_SHA256[name]:
        raise ValueError(
            f"shipped colon file {name}.gz does not match the original's SHA-256 "
            f"{COLON_SHA256[name]}: the installation is damaged; reinstall statmechlearn"
        )
    return data


def _read_directory(path, name):
    file = Path(path) / name
    if not file.is_file():
        raise FileNotFoundError(f"{file}: missing (colon data set needs it)")
    return file.read_bytes()


def _parse_matrix(data, where, shape):
    try:
        values = np.loadtxt(io.BytesIO(data), dtype=float, ndmin=2)
    except ValueError as exc:
        raise ValueError(
            f"{where}: expected {shape[0]} lines of {shape[1]} whitespace-separated numbers ({exc})"
        ) from exc
    if values.shape != shape:
        raise ValueError(
            f"{where}: expected {shape[0]} lines of {shape[1]} numbers, found shape {values.shape}"
        )
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{where}: contains NaN or infinite values")
    return values


def load_colon(path=None):
    """Alon et al.'s colon-cancer microarray data (62 tissues x 2000 genes).

    The data of Uda & Kabashima's §5 and Table 1. By default the copy shipped
    with the package is read (compressed, checked against the SHA-256 of the
    original files; source and licence in ``datasets/data/colon/README.md``,
    citation in :data:`COLON_CITATION`).

    Parameters
    ----------
    path : str or Path, optional
        A directory holding the original files instead: ``I2000.txt`` (2000
        gene rows x 62 tissue columns), ``tissues.txt`` (62 signed integers:
        negative = tumour, positive = normal) and ``names.txt`` (2000
        annotation lines).

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
        When ``path`` is given and a file is missing.
    ValueError
        When a file does not have the expected layout (the message names the
        file and the layout), or a shipped file fails its checksum.

    Examples
    --------
    >>> from statmechlearn.datasets import load_colon
    >>> X, y, genes = load_colon()
    >>> X.shape, int((y == 1).sum()), int((y == -1).sum())
    ((62, 2000), 22, 40)
    """
    if path is not None and not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be None, a str or an os.PathLike, got {type(path).__name__}")
    if path is None:
        read, where = _read_shipped, "statmechlearn/datasets/data/colon/{}.gz".format
    else:
        read, where = (lambda name: _read_directory(path, name)), (lambda n: Path(path) / n)
    X = _parse_matrix(read("I2000.txt"), where("I2000.txt"), (_COLON_GENES, _COLON_SAMPLES)).T
    labels = _parse_matrix(read("tissues.txt"), where("tissues.txt"), (_COLON_SAMPLES, 1))[:, 0]
    if np.any(labels == 0):
        raise ValueError(f"{where('tissues.txt')}: expected non-zero signed integers, found a 0")
    names = read("names.txt").decode(errors="replace").splitlines()
    names = [n for n in names if n.strip()]
    if len(names) != _COLON_GENES:
        raise ValueError(
            f"{where('names.txt')}: expected {_COLON_GENES} annotation lines, found {len(names)}"
        )
    return X, np.sign(labels), names

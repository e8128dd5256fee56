"""The result store: one NetCDF file (h5netcdf) per figure and mode.

A file is keyed by a hash of the spec (grid, settings, outputs, functions,
seed) and the package version, so a changed spec or a new release never
reuses stale numbers. Writes go to a temporary file in the same folder
that is fsynced and renamed over the target, so a crash leaves either the
old or the new file, never a torn one. Every file carries a SHA-256 of
its contents; a file that cannot be opened, lacks variables or fails the
checksum is set aside as ``*.damaged`` and its cells are recomputed.
"""

import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path

import numpy as np
import xarray as xr

from statmechlearn._version import __version__

__all__ = ["ResultStore", "dataset_checksum", "spec_hash"]


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if callable(obj):
        return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"
    return obj


def spec_hash(spec, mode):
    """Hash of everything that determines a spec's numbers in one mode.

    Parameters
    ----------
    spec : FigureSpec
    mode : {"quick", "full"}

    Returns
    -------
    str
        Hex SHA-256.
    """
    payload = {
        "name": spec.name,
        "version": __version__,
        "mode": mode,
        "grid": spec.grid,
        "settings": spec.settings[mode],
        "outputs": spec.outputs,
        "theory": spec.theory,
        "simulation": spec.simulation,
        "base_seed": spec.base_seed,
    }
    text = json.dumps(_jsonable(payload), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def dataset_checksum(ds):
    """SHA-256 over the names, shapes and bytes of every variable and coordinate.

    Parameters
    ----------
    ds : xarray.Dataset

    Returns
    -------
    str
    """
    h = hashlib.sha256()
    for name in sorted(map(str, ds.variables)):
        values = np.ascontiguousarray(ds[name].values)
        h.update(name.encode())
        h.update(str(values.shape).encode())
        h.update(str(values.dtype.str).encode())
        h.update(values.tobytes())
    return h.hexdigest()


class ResultStore:
    """Folder of NetCDF datasets, one per (figure, mode, spec hash).

    Parameters
    ----------
    root : str or Path
        Folder; created on first write.
    """

    def __init__(self, root):
        self.root = Path(root)

    def path(self, spec, mode):
        """File of ``spec`` in ``mode``.

        Parameters
        ----------
        spec : FigureSpec
        mode : str

        Returns
        -------
        Path
        """
        return self.root / f"{spec.name}__{mode}__{spec_hash(spec, mode)[:16]}.nc"

    def load(self, spec, mode):
        """Stored dataset of ``spec``, or ``None`` if absent or damaged.

        Parameters
        ----------
        spec : FigureSpec
        mode : str

        Returns
        -------
        xarray.Dataset or None
        """
        path = self.path(spec, mode)
        if not path.exists():
            return None
        return self._read_verified(path, expected_hash=spec_hash(spec, mode))

    def _read_verified(self, path, expected_hash=None):
        try:
            with xr.open_dataset(path, engine="h5netcdf") as handle:
                ds = handle.load()
            problem = None
            if expected_hash is not None and ds.attrs.get("spec_hash") != expected_hash:
                problem = "spec hash does not match"
            elif ds.attrs.get("checksum") != dataset_checksum(ds):
                problem = "checksum does not match its contents"
        except Exception as exc:  # any read failure means the file is unusable
            problem = f"cannot be read ({type(exc).__name__}: {exc})"
        if problem is None:
            return ds
        damaged = path.with_suffix(path.suffix + ".damaged")
        os.replace(path, damaged)
        warnings.warn(
            f"stored result {path.name} {problem}; moved to {damaged.name}, recomputing",
            RuntimeWarning,
            stacklevel=3,
        )
        return None

    def save(self, ds, path):
        """Write ``ds`` atomically to ``path`` with a content checksum.

        Parameters
        ----------
        ds : xarray.Dataset
        path : Path
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        ds = ds.copy()
        ds.attrs["checksum"] = dataset_checksum(ds)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        os.close(fd)
        try:
            ds.to_netcdf(tmp, engine="h5netcdf")
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def latest(self, spec, modes=("quick", "full")):
        """Most recently written dataset of ``spec`` that matches its current hash.

        Files of an older version or a changed spec are ignored (they stay on
        disk until removed), so the report never mixes a spec with stale numbers.

        Parameters
        ----------
        spec : FigureSpec
        modes : sequence of str, default=("quick", "full")

        Returns
        -------
        xarray.Dataset or None
        """
        paths = [(self.path(spec, m), m) for m in modes]
        paths = sorted(
            (p for p in paths if p[0].exists()), key=lambda p: p[0].stat().st_mtime, reverse=True
        )
        for _, mode in paths:
            ds = self.load(spec, mode)
            if ds is not None:
                return ds
        return None

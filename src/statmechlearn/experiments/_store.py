"""The result store: one NetCDF file (h5netcdf) per figure and mode, content-addressed.

A file is keyed by a hash of everything that can change its numbers
(:func:`result_key`): the syntax tree of the package code its cells run
(:mod:`~statmechlearn.experiments._fingerprint`), the versions of Python,
NumPy, SciPy, numba and scikit-learn, which optional peers were
importable, the mode, grid, settings, per-cell coordinates and seed. An
edited theory or estimator therefore never serves an old number, and a
peer installed later gives a new key instead of a cached failure.

Writes go to a temporary file in the same folder that is fsynced and
renamed over the target, so a crash leaves either the old or the new file,
never a torn one. Every file carries a SHA-256 of its data *and*
attributes; a file that cannot be opened, lacks variables or fails the
checksum is set aside as ``*.damaged`` and its cells are recomputed.
"""

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np
import xarray as xr

from statmechlearn._core.warn import warn
from statmechlearn.experiments._fingerprint import cell_code, library_versions, peer_versions

__all__ = [
    "ResultStore",
    "StoreWriteError",
    "dataset_checksum",
    "key_digest",
    "result_key",
    "spec_hash",
]


class StoreWriteError(OSError):
    """The store could not be written (a full disk, a folder made read-only): the run stops,
    and what the store held before stays as it was (files are replaced only when written)."""


#: Bumped when the layout of stored datasets changes.
STORE_FORMAT = 2


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, float) and not np.isfinite(obj):
        return repr(obj)
    if callable(obj):
        return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"
    return obj


#: The runner's cell executor and seeding decide how any cell turns into numbers.
_RUNNER = "statmechlearn.experiments._runner"
_CELL_FUNCTIONS = ((_RUNNER, "_execute_cell"), (_RUNNER, "_missing_tasks"))
_CELL_MODULES = ("statmechlearn._core.rng",)


def result_key(spec, mode):
    """Everything that determines a spec's numbers in one mode.

    Parameters
    ----------
    spec : FigureSpec
    mode : {"quick", "full"}

    Returns
    -------
    dict
        JSON-able: ``format``, ``name``, ``mode``, ``grid``, ``settings``,
        ``outputs``, ``coords``, ``base_seed``, ``code`` (digests of every
        function, constant and module the cells reach), ``libraries`` and
        ``peers``.
    """
    settings = spec.settings[mode]
    coords = {k: np.asarray(v) for k, v in spec.coords(settings).items()}
    return _jsonable(
        {
            "format": STORE_FORMAT,
            "name": spec.name,
            "mode": mode,
            "grid": spec.grid,
            "settings": settings,
            "outputs": spec.outputs,
            "coords": {k: [str(v.dtype), v.tolist()] for k, v in coords.items()},
            "base_seed": spec.base_seed,
            "code": cell_code(
                (spec.theory, spec.simulation, spec.shared, spec.seeds),
                always=_CELL_FUNCTIONS,
                always_modules=_CELL_MODULES,
            ),
            "libraries": library_versions(),
            "peers": peer_versions(spec.peers),
        }
    )


def spec_hash(spec, mode):
    """SHA-256 of :func:`result_key`: the key a stored result is filed under.

    Parameters
    ----------
    spec : FigureSpec
    mode : {"quick", "full"}

    Returns
    -------
    str
        Hex SHA-256.
    """
    return key_digest(result_key(spec, mode))


def key_digest(key):
    """SHA-256 of a :func:`result_key` dict.

    Parameters
    ----------
    key : dict

    Returns
    -------
    str
    """
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def _attrs_text(attrs):
    return json.dumps(
        {k: _jsonable(v) for k, v in attrs.items() if k != "checksum"}, sort_keys=True
    )


def dataset_checksum(ds):
    """SHA-256 over every variable and coordinate (name, dims, dtype, bytes, attributes)
    and the dataset's attributes (all but the checksum itself).

    Parameters
    ----------
    ds : xarray.Dataset

    Returns
    -------
    str
    """
    h = hashlib.sha256()
    for name in sorted(map(str, ds.variables)):
        var = ds.variables[name]
        values = np.ascontiguousarray(var.values)
        h.update(name.encode())
        h.update(json.dumps(list(map(str, var.dims))).encode())
        h.update(str(values.shape).encode())
        h.update(str(values.dtype.str).encode())
        if values.dtype == object:
            h.update(repr(values.tolist()).encode())
        else:
            h.update(values.tobytes())
        h.update(_attrs_text(var.attrs).encode())
    h.update(_attrs_text(ds.attrs).encode())
    return h.hexdigest()


class ResultStore:
    """Folder of NetCDF datasets, one per (figure, mode, result key).

    Parameters
    ----------
    root : str or Path
        Folder; created on first write.
    """

    def __init__(self, root):
        self.root = Path(root)

    def path(self, spec, mode, key=None):
        """File of ``spec`` in ``mode``.

        Parameters
        ----------
        spec : FigureSpec
        mode : str
        key : str, optional
            :func:`spec_hash` when already computed.

        Returns
        -------
        Path
        """
        key = spec_hash(spec, mode) if key is None else key
        return self.root / f"{spec.name}__{mode}__{key[:16]}.nc"

    def load(self, spec, mode, key=None):
        """Stored dataset of ``spec`` under its current key, or ``None`` if absent or damaged.

        Parameters
        ----------
        spec : FigureSpec
        mode : str
        key : str, optional
            :func:`spec_hash` when already computed.

        Returns
        -------
        xarray.Dataset or None
        """
        key = spec_hash(spec, mode) if key is None else key
        path = self.path(spec, mode, key)
        if not path.exists():
            return None
        return self._read_verified(path, expected_hash=key)

    def _read_verified(self, path, expected_hash=None):
        try:
            with xr.open_dataset(path, engine="h5netcdf") as handle:
                ds = handle.load()
            problem = None
            if expected_hash is not None and ds.attrs.get("spec_hash") != expected_hash:
                problem = "key does not match"
            elif ds.attrs.get("checksum") != dataset_checksum(ds):
                problem = "checksum does not match its contents"
        except Exception as exc:  # any read failure means the file is unusable
            problem = f"cannot be read ({type(exc).__name__}: {exc})"
        if problem is None:
            return ds
        damaged = path.with_suffix(path.suffix + ".damaged")
        os.replace(path, damaged)
        warn(
            f"stored result {path.name} {problem}; moved to {damaged.name}, recomputing",
            RuntimeWarning,
        )
        return None

    def save(self, ds, path):
        """Write ``ds`` atomically to ``path`` with a checksum of data and attributes.

        Parameters
        ----------
        ds : xarray.Dataset
        path : Path
        """
        path = Path(path)
        ds = ds.copy()
        ds.attrs.pop("checksum", None)
        ds.attrs["checksum"] = dataset_checksum(ds)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        except OSError as exc:
            raise StoreWriteError(exc.errno, exc.strerror, str(path.parent)) from exc
        os.close(fd)
        # gzip every array: stored images and mostly-NaN padded paths shrink many-fold
        encoding = {
            name: {"zlib": True, "complevel": 4}
            for name, var in ds.data_vars.items()
            if var.ndim and var.dtype.kind in "fiub"
        }
        try:
            ds.to_netcdf(tmp, engine="h5netcdf", encoding=encoding)
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise StoreWriteError(exc.errno, exc.strerror or str(exc), str(path)) from exc
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def remove(self, spec, mode, key=None):
        """Delete the stored result of ``spec`` in ``mode`` (``run --force``).

        Parameters
        ----------
        spec : FigureSpec
        mode : str
        key : str, optional
        """
        self.path(spec, mode, key).unlink(missing_ok=True)

    def latest(self, spec, modes=("quick", "full")):
        """Most recently written dataset of ``spec`` that matches its current key.

        Files of older code, other library versions or a changed spec are
        ignored (they stay on disk until removed), so the report never shows
        numbers that the current code did not compute.

        Parameters
        ----------
        spec : FigureSpec
        modes : sequence of str, default=("quick", "full")

        Returns
        -------
        xarray.Dataset or None
        """
        keys = {m: spec_hash(spec, m) for m in modes}
        paths = [(self.path(spec, m, keys[m]), m) for m in modes]
        paths = sorted(
            (p for p in paths if p[0].exists()), key=lambda p: p[0].stat().st_mtime, reverse=True
        )
        for _, mode in paths:
            ds = self.load(spec, mode, keys[mode])
            if ds is not None:
                return ds
        return None

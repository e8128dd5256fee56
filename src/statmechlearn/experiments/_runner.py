"""Expand figure specs into cells and run them through one executor.

A cell is one parameter point of the theory, one (parameter point, seed)
of the simulation, or the figure's one shared cell (dense theory lines and
the like, computed once). Each simulation cell draws from its own stream,
``SeedSequence(base_seed, spawn_key=(point, seed))``, so results do not
depend on the backend or on the order in which cells finish. Finished cells
are written into the store every ``flush_interval`` seconds, at the end, and
when the run is interrupted, so a repeated run computes only what is missing.
An experiment whose required packages are missing is not run and says why.
"""

import hashlib
import importlib
import json
import math
import os
import sys
import threading
import time
import traceback
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass

import numpy as np
import xarray as xr

from statmechlearn._core.rng import cell_generator
from statmechlearn._core.validation import check_int
from statmechlearn.experiments._checks import MODES
from statmechlearn.experiments._fingerprint import cell_code, library_versions, peer_versions
from statmechlearn.experiments._progress import progress_reporter
from statmechlearn.experiments._provenance import run_provenance
from statmechlearn.experiments._store import (
    ResultStore,
    StoreWriteError,
    key_digest,
    result_key,
    spec_hash,
)

__all__ = [
    "RunSummary",
    "SchedulerUnavailableError",
    "empty_dataset",
    "executor",
    "missing_cells",
    "missing_requirements",
    "run_experiment",
    "run_experiments",
    "warm_worker",
]


class SchedulerUnavailableError(RuntimeError):
    """The dask scheduler named by ``--scheduler`` cannot be reached or started."""


@dataclass(frozen=True)
class RunSummary:
    """What a run did.

    Attributes
    ----------
    name, mode : str
    path : pathlib.Path or None
        Store file of the dataset (None when the experiment did not run).
    n_cells, n_computed, n_cached : int
        All cells, cells computed now, cells found in the store.
    wall_s : float
        Wall time of this run.
    dataset : xarray.Dataset or None
    not_run : str or None
        Why the experiment did not run (a missing package, an error), or
        None when it ran.
    """

    name: str
    mode: str
    path: object
    n_cells: int
    n_computed: int
    n_cached: int
    wall_s: float
    dataset: object
    not_run: str | None = None


def missing_requirements(spec):
    """Packages ``spec.requires`` names that cannot be imported here.

    Parameters
    ----------
    spec : FigureSpec

    Returns
    -------
    list of str
    """
    return [name for name, version in peer_versions(spec.requires).items() if version is None]


def empty_dataset(spec, mode):
    """Dataset of ``spec`` in ``mode`` with every cell missing (NaN, not done).

    Parameters
    ----------
    spec : FigureSpec
    mode : {"quick", "full"}

    Returns
    -------
    xarray.Dataset
    """
    settings = spec.settings[mode]
    n_seeds = settings["n_seeds"]
    grid_dims = tuple(spec.grid)
    grid_shape = spec.grid_shape()
    out_coords = {k: np.asarray(v) for k, v in spec.coords(settings).items()}
    coords = {k: np.asarray(v) for k, v in spec.grid.items()}
    coords |= out_coords
    coords["seed"] = np.arange(n_seeds)
    data_vars = {}
    for var, dims in spec.outputs.items():
        missing = [d for d in dims if d not in out_coords]
        if missing:
            raise ValueError(
                f"spec {spec.name!r}: output {var!r} has dims {missing} without coords"
            )
        shape = tuple(len(out_coords[d]) for d in dims)
        if var.startswith("shared_"):
            lead_dims, lead_shape = (), ()
        else:
            lead_dims = grid_dims + (("seed",) if var.startswith("sim_") else ())
            lead_shape = grid_shape + ((n_seeds,) if var.startswith("sim_") else ())
        data_vars[var] = (lead_dims + tuple(dims), np.full(lead_shape + shape, np.nan))
    if spec.shared is not None:
        data_vars["shared_done"] = ((), np.array(False))
        data_vars["shared_wall_s"] = ((), np.array(np.nan))
        data_vars["shared_cpu_s"] = ((), np.array(np.nan))
    if spec.theory is not None:
        data_vars["theory_done"] = (grid_dims, np.zeros(grid_shape, dtype=bool))
        data_vars["theory_wall_s"] = (grid_dims, np.full(grid_shape, np.nan))
        data_vars["theory_cpu_s"] = (grid_dims, np.full(grid_shape, np.nan))
    if spec.simulation is not None:
        data_vars["sim_done"] = ((*grid_dims, "seed"), np.zeros((*grid_shape, n_seeds), bool))
        data_vars["sim_wall_s"] = ((*grid_dims, "seed"), np.full((*grid_shape, n_seeds), np.nan))
        data_vars["sim_cpu_s"] = ((*grid_dims, "seed"), np.full((*grid_shape, n_seeds), np.nan))
    key = result_key(spec, mode)
    attrs = {
        "name": spec.name,
        "mode": mode,
        "spec_hash": key_digest(key),
        "key_json": json.dumps(key, sort_keys=True),
        "peers_json": json.dumps(key["peers"], sort_keys=True),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "paper": spec.paper,
        "citation": spec.citation,
        "figure": spec.figure,
        "caption": spec.caption,
        "base_seed": int(spec.base_seed),
        "n_seeds": int(n_seeds),
        "grid_json": json.dumps(
            {k: [x if isinstance(x, str) else float(x) for x in v] for k, v in spec.grid.items()}
        ),
    }
    if settings.get("n_features") is not None:
        attrs["n_features"] = int(settings["n_features"])
    attrs |= run_provenance(spec.peers)
    return xr.Dataset(data_vars, coords=coords, attrs=attrs)


def _execute_cell(task):
    """Run one cell; module-level so every backend can pickle it.

    BLAS and numba's parallel loops run on one thread inside a cell: cells
    are the unit of parallelism (two levels of threads on the same cores wait
    on each other), and a summation order that does not depend on the
    backend's thread count gives the same numbers serially, with loky and
    with dask.
    """
    import numba
    from threadpoolctl import threadpool_limits

    kind, fn, point, settings, seed_key, index = task
    start = time.perf_counter()
    # the cell's own processor time: what it costs on a quiet core, whatever else shares the machine
    cpu_start = time.thread_time()
    numba_threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            if kind == "shared":
                out = fn(dict(settings))
            elif kind == "theory":
                out = fn(dict(point), dict(settings))
            else:
                out = fn(dict(point), dict(settings), cell_generator(*seed_key))
    finally:
        numba.set_num_threads(numba_threads)
    wall = time.perf_counter() - start
    cpu = time.thread_time() - cpu_start
    return kind, index, {k: np.asarray(v, dtype=float) for k, v in out.items()}, wall, cpu


#: ``(modules, seconds)`` of each warm-up run in this process (a dask worker's; tests read it)
_WARM_UPS = []


def warm_worker(modules):
    """Prepare a dask worker, once, for the cells whose functions live in ``modules``.

    Imports them (the estimators the cells import inside their bodies, and numba
    with them) and loads their kernels' compiled specialisations from numba's cache
    (which local workers share) before the worker's first task, so that no cell pays
    for them.

    Parameters
    ----------
    modules : sequence of str
    """
    start = time.perf_counter()
    imported = []
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:
            # the key's walk reaches code a cell may never run (an optional peer's module):
            # a cell that needs it fails with its own message
            continue
        imported.append(name)
    _load_cached_kernels(imported)
    _WARM_UPS.append((tuple(modules), time.perf_counter() - start))


def _load_cached_kernels(modules):
    """Load every specialisation numba's cache holds for the kernels of ``modules``.

    What a worker's first cell would otherwise load at its first calls (a few tenths of
    a second), so that the cell's stored time is its own. Only entries compiled for
    this source and this machine are loaded, none is compiled; numba keeps its cache
    index private, so any failure leaves the kernel to load at its first call.

    Returns
    -------
    int
        Specialisations loaded.
    """
    from numba.core.dispatcher import Dispatcher

    loaded = 0
    for name in modules:
        for kernel in list(vars(sys.modules[name]).values()):
            if not isinstance(kernel, Dispatcher):
                continue
            try:
                cache, codegen = kernel._cache, kernel.targetctx.codegen()
                stored = cache._cache_file._load_index()
                for signature, *_ in list(stored):
                    if signature in kernel.overloads:
                        continue
                    if cache._index_key(signature, codegen) in stored:
                        kernel.compile(signature)
                        loaded += 1
            except Exception:  # an optimisation: the first call loads it anyway
                continue
    return loaded


def _cell_modules(tasks):
    """Modules the tasks' cell functions live in and reach, that a worker can import.

    The cell functions import the estimators inside their bodies; the modules they
    reach are those the result key covers (already walked for the key, so cached).
    """
    try:
        from cloudpickle import list_registry_pickle_by_value
    except ImportError:  # pragma: no cover - distributed depends on cloudpickle
        by_value = set()
    else:
        by_value = list_registry_pickle_by_value()
    functions = list({id(task[1]): task[1] for task in tasks}.values())
    names = {getattr(fn, "__module__", None) for fn in functions}
    names |= {key.split(":", 1)[1] for key in cell_code(functions) if key.startswith("module:")}
    # a --module file's functions travel by value: the workers cannot import it by name
    return tuple(sorted(n for n in names if n and n != "__main__" and n not in by_value))


def _missing_tasks(spec, mode, ds):
    settings = dict(spec.settings[mode])
    shape = spec.grid_shape()
    tasks = []
    if spec.shared is not None and not bool(ds["shared_done"].values):
        tasks.append(("shared", spec.shared, {}, settings, None, ()))
    for flat, point in enumerate(spec.points()):
        idx = np.unravel_index(flat, shape) if shape else ()
        idx = tuple(int(i) for i in idx)
        if spec.theory is not None and not bool(ds["theory_done"].values[idx]):
            tasks.append(("theory", spec.theory, point, settings, None, idx))
        if spec.simulation is not None:
            for seed in range(spec.seeds_at(point, mode)):
                if not bool(ds["sim_done"].values[(*idx, seed)]):
                    key = (spec.base_seed, flat, seed)
                    tasks.append(("sim", spec.simulation, point, settings, key, (*idx, seed)))
    return tasks


def missing_cells(spec, mode, ds):
    """Number of cells of ``spec`` in ``mode`` that the stored dataset ``ds`` lacks.

    Parameters
    ----------
    spec : FigureSpec
    mode : {"quick", "full"}
    ds : xarray.Dataset
        A stored (possibly partial) result of ``spec`` in ``mode``.

    Returns
    -------
    int
    """
    return len(_missing_tasks(spec, mode, ds))


def _store_cell(spec, ds, kind, index, out, wall, cpu):
    prefix = {"theory": "theory_", "sim": "sim_", "shared": "shared_"}[kind]
    expected = {v for v in spec.outputs if v.startswith(prefix)}
    if set(out) != expected:
        raise ValueError(f"{spec.name}: {kind} returned {sorted(out)}, expected {sorted(expected)}")
    for var, value in out.items():
        target = ds[var].values[index]
        if value.shape != target.shape:
            raise ValueError(f"{spec.name}: {var} has shape {value.shape}, expected {target.shape}")
        ds[var].values[index] = value
    ds[f"{prefix}done"].values[index] = True
    ds[f"{prefix}wall_s"].values[index] = wall
    ds[f"{prefix}cpu_s"].values[index] = cpu


class _SerialExecutor:
    def imap_unordered(self, fn, tasks):
        return map(fn, tasks)


#: Seconds between a worker's looks at whether the runner that started it is still alive.
_WATCH_INTERVAL = 0.5
_watching = []


def _watch_runner(runner_pid):
    """In a worker: exit once the runner is gone (killed with SIGKILL, it cannot stop us).

    loky keeps idle workers for minutes; orphaned, they would hold the runner's output pipe
    open, so a caller reading it (``| tee``, CI) would hang with them."""
    if os.getpid() == runner_pid or _watching:
        return
    parent = os.getppid()

    def watch():
        while True:
            time.sleep(_WATCH_INTERVAL)
            if os.getppid() != parent:  # re-parented: the runner has died
                os._exit(1)

    _watching.append(threading.Thread(target=watch, name="watch-runner", daemon=True))
    _watching[0].start()


def _run_in_worker(fn, task, runner_pid):
    _watch_runner(runner_pid)
    return fn(task)


class _LokyExecutor:
    def __init__(self, n_jobs):
        self.n_jobs = n_jobs

    def imap_unordered(self, fn, tasks):
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=self.n_jobs, backend="loky", return_as="generator_unordered")
        runner = os.getpid()
        return parallel(delayed(_run_in_worker)(fn, t, runner) for t in tasks)


class _DaskExecutor:
    def __init__(self, client):
        self.client = client

    def imap_unordered(self, fn, tasks):
        from distributed import as_completed

        from statmechlearn.experiments._worker_plugin import WarmUp

        tasks = list(tasks)
        modules = _cell_modules(tasks)
        if modules:
            # once per worker, those that join later (a restarted one) included; registering
            # the same modules again under the same name does nothing
            name = hashlib.sha256("\n".join(modules).encode()).hexdigest()[:16]
            self.client.register_plugin(
                WarmUp(warm_worker, modules), name=f"statmechlearn-warm-{name}"
            )
        futures = self.client.map(fn, tasks, pure=False)
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:
            self.client.cancel(futures)


def _workers(n_jobs):
    n_jobs = check_int(n_jobs, "n_jobs")
    if n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive integer or -1 (all cores), got {n_jobs}")
    return (os.cpu_count() or 1) if n_jobs == -1 else n_jobs


@contextmanager
def executor(n_jobs=1, scheduler=None, connect_timeout=10.0):
    """Context manager yielding the executor that runs cells.

    Parameters
    ----------
    n_jobs : int, default=1
        Worker processes: 1 runs in this process, -1 uses every core. With a
        scheduler ``"local"`` it is the number of dask workers.
    scheduler : str, optional
        ``None`` for joblib (loky); ``"local"`` to start a dask LocalCluster
        bound to 127.0.0.1; ``"tcp://HOST:PORT"`` for a running scheduler.
    connect_timeout : float, default=10.0
        Seconds to wait for a remote scheduler.

    Yields
    ------
    object with ``imap_unordered(fn, tasks)``
    """
    workers = _workers(n_jobs)
    if scheduler is None:
        yield _SerialExecutor() if workers == 1 else _LokyExecutor(workers)
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:  # optional extra
        raise SchedulerUnavailableError(
            "--scheduler needs dask.distributed: pip install 'statmechlearn[dask]'"
        ) from exc
    cluster = None
    try:
        if scheduler == "local":
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
            )
            client = Client(cluster)
        else:
            if not scheduler.startswith(("tcp://", "tls://", "inproc://", "ws://", "wss://")):
                raise SchedulerUnavailableError(
                    "scheduler must be 'local' or an address like tcp://HOST:PORT, "
                    f"got {scheduler!r}"
                )
            client = Client(scheduler, timeout=connect_timeout)
    except SchedulerUnavailableError:
        raise
    except (OSError, TimeoutError) as exc:
        if cluster is not None:
            cluster.close()
        raise SchedulerUnavailableError(
            f"cannot reach dask scheduler at {scheduler}: {exc}"
        ) from None
    try:
        _check_worker_versions(client)
        yield _DaskExecutor(client)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _source_digest():
    """SHA-256 of the package's Python sources as installed in this process."""
    import hashlib
    from pathlib import Path

    import statmechlearn

    root = Path(statmechlearn.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _versions_here():
    return {"statmechlearn sources": _source_digest(), **library_versions()}


def _check_worker_versions(client):
    # A result is filed under the key this process computes from its own sources and library
    # versions; a worker of another checkout or NumPy would put its numbers under that key.
    here = _versions_here()
    for worker, theirs in client.run(_versions_here).items():
        differ = [k for k in here if theirs.get(k) != here[k]]
        if differ:
            raise SchedulerUnavailableError(
                f"dask worker {worker} differs from this process in "
                + ", ".join(f"{k} ({theirs.get(k)} there, {here[k]} here)" for k in differ)
                + ": install the same statmechlearn and libraries on every worker"
            )


def run_experiment(
    spec,
    mode="quick",
    *,
    out="results",
    n_jobs=1,
    scheduler=None,
    progress=True,
    force=False,
    flush_interval=2.0,
    verbose=False,
    _executor=None,
):
    """Compute the missing cells of ``spec`` and store them.

    Parameters
    ----------
    spec : FigureSpec
    mode : {"quick", "full"}, default="quick"
    out : str or Path, default="results"
        Output folder; datasets go to ``out/store``.
    n_jobs : int, default=1
        Worker processes (see :func:`executor`).
    scheduler : str, optional
        dask scheduler (see :func:`executor`).
    progress : bool or {"auto", "bar", "log"}, default=True
        Progress on stderr. True (``"auto"``): a tqdm bar when stderr is a
        terminal, otherwise plain lines (a first line, then one per tenth of
        the cells at most every 10 s and at least every minute: readable in
        a log or CI). ``"bar"`` or ``"log"`` choose; False shows nothing.
    force : bool, default=False
        Recompute every cell, discarding what the store holds under the
        current key.
    flush_interval : float, default=2.0
        Seconds between writes of finished cells to the store.
    verbose : bool, default=False
        Also write the result key, the store file and one line per finished
        cell (kind, index, seconds) to stderr.

    Returns
    -------
    RunSummary
        With ``not_run`` set (and nothing computed) when a package the
        experiment requires is missing.

    Raises
    ------
    KeyboardInterrupt
        Re-raised after the finished cells were saved.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    start = time.perf_counter()
    missing = missing_requirements(spec)
    if missing:
        why = f"needs {', '.join(missing)} (pip install 'statmechlearn[peers]')"
        return RunSummary(spec.name, mode, None, 0, 0, 0, 0.0, None, not_run=why)
    store = ResultStore(os.path.join(out, "store"))
    key = spec_hash(spec, mode)
    path = store.path(spec, mode, key)
    if force:
        store.remove(spec, mode, key)
    ds = store.load(spec, mode, key)
    if ds is None:
        ds = empty_dataset(spec, mode)
    tasks = _missing_tasks(spec, mode, ds)
    n_cells = spec.n_cells(mode)
    computed = 0
    last_flush = time.monotonic()
    desc = f"{spec.name} ({mode})"
    if verbose and not tasks:
        progress_reporter(False, 0, desc, verbose=True).write(
            f"{desc}: all {n_cells} cells in the store, key {key[:16]}: {path}"
        )
    if tasks:
        ctx = executor(n_jobs, scheduler) if _executor is None else nullcontext(_executor)
        cached = n_cells - len(tasks)
        bar = progress_reporter(
            progress,
            len(tasks),
            desc,
            note=f" ({cached} from the store)" if cached else "",
            verbose=verbose,
        )
        if verbose:
            bar.write(f"{desc}: key {key[:16]}, {n_cells} cells, {cached} stored: {path}")
        try:
            with ctx as ex:
                for kind, index, result, wall, cpu in ex.imap_unordered(_execute_cell, tasks):
                    _store_cell(spec, ds, kind, index, result, wall, cpu)
                    computed += 1
                    if verbose:
                        bar.write(f"{desc}: {kind} cell {index} {wall:.3g} s")
                    bar.update()
                    if time.monotonic() - last_flush >= flush_interval:
                        _flush(store, ds, path)
                        last_flush = time.monotonic()
        finally:
            bar.close()
            if computed:
                ds.attrs |= run_provenance(spec.peers, time.perf_counter() - start, computed)
                _flush(store, ds, path)
    elif not path.exists():
        _flush(store, ds, path)
    return RunSummary(
        spec.name,
        mode,
        path,
        n_cells,
        computed,
        n_cells - len(tasks),
        time.perf_counter() - start,
        ds,
    )


def _flush(store, ds, path):
    for clock in ("wall", "cpu"):
        total = sum(
            float(np.nansum(ds[var].values))
            for var in (f"shared_{clock}_s", f"theory_{clock}_s", f"sim_{clock}_s")
            if var in ds
        )
        ds.attrs[f"cell_{clock}_s_total"] = total if math.isfinite(total) else 0.0
    ds.attrs["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    store.save(ds, path)


def run_experiments(
    specs,
    mode="quick",
    *,
    out="results",
    n_jobs=1,
    scheduler=None,
    progress=True,
    force=False,
    errors="raise",
    verbose=False,
):
    """Run several specs through one executor (one dask client for all).

    Parameters
    ----------
    specs : sequence of FigureSpec
    mode, out, n_jobs, scheduler, progress, force, verbose
        As in :func:`run_experiment`.
    errors : {"raise", "record"}, default="raise"
        What an exception inside an experiment does: propagate, or end that
        experiment (its finished cells are kept) with ``not_run`` giving the
        error, and go on with the next one.

    Returns
    -------
    list of RunSummary
    """
    if errors not in ("raise", "record"):
        raise ValueError(f"errors must be 'raise' or 'record', got {errors!r}")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    _workers(n_jobs)
    summaries = []
    with ExitStack() as stack:
        shared = _LazyExecutor(stack, n_jobs, scheduler)
        for spec in specs:
            try:
                summaries.append(
                    run_experiment(
                        spec,
                        mode,
                        out=out,
                        progress=progress,
                        force=force,
                        verbose=verbose,
                        _executor=shared,
                    )
                )
            except Exception as exc:
                # no other experiment could be stored either
                if errors == "raise" or isinstance(
                    exc, SchedulerUnavailableError | StoreWriteError
                ):
                    raise
                where = traceback.extract_tb(exc.__traceback__)[-1]
                why = (
                    f"error: {type(exc).__name__}: {exc} "
                    f"({os.path.basename(where.filename)}:{where.lineno})"
                )
                summaries.append(RunSummary(spec.name, mode, None, 0, 0, 0, 0.0, None, why))
    return summaries


class _LazyExecutor:
    """Starts the real executor on first use, so a fully cached run starts no workers."""

    def __init__(self, stack, n_jobs, scheduler):
        self._stack, self._args, self._executor = stack, (n_jobs, scheduler), None

    def imap_unordered(self, fn, tasks):
        if self._executor is None:
            self._executor = self._stack.enter_context(executor(*self._args))
        return self._executor.imap_unordered(fn, tasks)

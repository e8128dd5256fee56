"""dask workers are warmed once each, before their first task, not once per task."""

import importlib
import os
import sys

import pytest

from statmechlearn.experiments import _runner, run_experiment
from statmechlearn.experiments._runner import executor

# Run in the workers: lambdas travel by value (cloudpickle), so the workers need not import
# this test module. They read the runner's record of the warm-ups done in that worker.
_warm_ups = lambda: list(importlib.import_module(_runner.__name__)._WARM_UPS)  # noqa: E731
_pid_and_warm_ups = lambda task: (  # noqa: E731
    os.getpid(),
    len(importlib.import_module(_runner.__name__)._WARM_UPS),
)


def _tasks(spec):
    return _runner._missing_tasks(spec, "quick", _runner.empty_dataset(spec, "quick"))


def test_the_warm_up_runs_once_per_worker_not_per_task(tmp_path, small_spec):
    pytest.importorskip("distributed")
    n_cells = small_spec.n_cells("quick")
    with executor(2, "local") as dask:
        summary = run_experiment(small_spec, "quick", out=tmp_path, progress=False, _executor=dask)
        # the same cells again through the same workers: every one finds its worker warmed once
        seen = list(dask.imap_unordered(_pid_and_warm_ups, _tasks(small_spec)))
        warm = dask.client.run(_warm_ups)
    assert summary.n_computed == n_cells
    assert n_cells > 2 * len(warm)
    assert len(warm) == 2
    modules = _runner._cell_modules(_tasks(small_spec))
    for worker, calls in warm.items():
        assert [done for done, _ in calls] == [modules], worker
    assert {n for _, n in seen} == {1}


def test_the_warmed_modules_are_those_the_workers_can_import(small_spec):
    cloudpickle = pytest.importorskip("cloudpickle")
    modules = _runner._cell_modules(_tasks(small_spec))
    # the cells' own module, and the kernels they import inside their bodies
    assert small_spec.simulation.__module__ in modules
    assert "statmechlearn.lvq._wta" in modules

    def cell(point, settings, rng):
        return {}

    task = ("sim", cell, {}, {}, None, ())
    assert _runner._cell_modules([task]) == (__name__,)
    # a --module file's functions travel by value: the workers cannot import the file
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        assert _runner._cell_modules([task]) == ()
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def test_a_module_the_warm_up_cannot_import_is_left_to_the_cells(monkeypatch):
    monkeypatch.setattr(_runner, "_WARM_UPS", [])
    modules = ("statmechlearn.no_such_module", "statmechlearn.lvq._wta")
    _runner.warm_worker(modules)
    assert [done for done, _ in _runner._WARM_UPS] == [modules]
    assert "statmechlearn.lvq._wta" in sys.modules
    assert _runner._load_cached_kernels(["statmechlearn.experiments._runner"]) == 0

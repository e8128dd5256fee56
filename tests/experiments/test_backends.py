"""Same seeds give identical numbers on every backend."""

import os
import signal

import numpy as np
import pytest

from statmechlearn.experiments import SchedulerUnavailableError, run_experiment
from statmechlearn.experiments._runner import executor


def _values(summary):
    ds = summary.dataset
    return {v: ds[v].values for v in ds.data_vars if not v.endswith(("wall_s", "cpu_s"))}


def test_serial_loky_and_dask_give_identical_results(tmp_path, small_spec):
    pytest.importorskip("distributed")
    serial = run_experiment(small_spec, "quick", out=tmp_path / "serial", progress=False)
    loky = run_experiment(small_spec, "quick", out=tmp_path / "loky", n_jobs=2, progress=False)
    dask = run_experiment(
        small_spec, "quick", out=tmp_path / "dask", n_jobs=2, scheduler="local", progress=False
    )
    ref = _values(serial)
    for other in (loky, dask):
        got = _values(other)
        assert got.keys() == ref.keys()
        for name in ref:
            np.testing.assert_array_equal(got[name], ref[name], err_msg=name)


def test_a_dask_worker_killed_mid_run_loses_nothing(tmp_path, small_spec):
    """SIGKILL to one of two LocalCluster workers after the first cell: the scheduler gives
    its tasks to the other, the nanny restarts it, and every number is the serial run's."""
    pytest.importorskip("distributed")
    serial = run_experiment(small_spec, "quick", out=tmp_path / "serial", progress=False)
    with executor(2, "local") as dask:
        victim = sorted(dask.client.run(os.getpid).values())[0]

        class KillingOneWorker:
            def imap_unordered(self, fn, tasks):
                for i, result in enumerate(dask.imap_unordered(fn, tasks)):
                    if i == 0:
                        os.kill(victim, signal.SIGKILL)
                    yield result

        killed = run_experiment(
            small_spec,
            "quick",
            out=tmp_path / "killed",
            progress=False,
            _executor=KillingOneWorker(),
        )
        assert victim not in dask.client.run(os.getpid).values()
    assert killed.n_computed == small_spec.n_cells("quick")
    ref, got = _values(serial), _values(killed)
    assert got.keys() == ref.keys()
    for name in ref:
        np.testing.assert_array_equal(got[name], ref[name], err_msg=name)


def test_unreachable_scheduler_says_so():
    pytest.importorskip("distributed")
    unreachable = executor(1, "tcp://127.0.0.1:9", connect_timeout=1.0)
    with pytest.raises(SchedulerUnavailableError, match="cannot reach dask scheduler"):
        unreachable.__enter__()
    malformed = executor(1, "localhost:8786")
    with pytest.raises(SchedulerUnavailableError, match="tcp://HOST:PORT"):
        malformed.__enter__()


def test_cached_run_starts_no_workers(tmp_path, small_spec, monkeypatch):
    from statmechlearn.experiments import _runner, run_experiments

    run_experiments([small_spec], out=tmp_path, progress=False)
    started = []
    real = _runner.executor
    monkeypatch.setattr(_runner, "executor", lambda *a, **k: started.append(a) or real(*a, **k))
    (summary,) = run_experiments([small_spec], out=tmp_path, scheduler="local", progress=False)
    assert summary.n_computed == 0 and started == []


def test_a_dask_worker_of_other_sources_or_libraries_is_refused(monkeypatch):
    # the key is computed here; a worker running other code would file its numbers under it
    from statmechlearn.experiments import _runner

    class Client:
        def run(self, fn):
            theirs = fn()
            return {"tcp://w1": theirs, "tcp://w2": dict(theirs, numpy="0.0.1")}

    with pytest.raises(SchedulerUnavailableError, match=r"tcp://w2 differs .* numpy \(0\.0\.1"):
        _runner._check_worker_versions(Client())
    monkeypatch.setattr(_runner, "_source_digest", lambda: "edited")
    with pytest.raises(SchedulerUnavailableError, match="statmechlearn sources"):
        _runner._check_worker_versions(type("C", (), {"run": lambda self, fn: {"w": {}}})())

import numpy as np
import pytest
import xarray as xr

from statmechlearn.experiments import ResultStore, _runner, run_experiment
from statmechlearn.experiments._store import spec_hash


def _without_attrs(ds):
    # Dataset.drop_attrs needs xarray >= 2024.6; the declared floor is 2024.1
    out = ds.copy()
    out.attrs = {}
    for var in out.variables.values():
        var.attrs = {}
    return out


def test_round_trip_and_cache(tmp_path, small_spec):
    first = run_experiment(small_spec, "quick", out=tmp_path, progress=False)
    assert first.n_computed == first.n_cells == 2 * (1 + 6)
    stored = ResultStore(tmp_path / "store").load(small_spec, "quick")
    xr.testing.assert_identical(_without_attrs(stored), _without_attrs(first.dataset))
    assert bool(stored["sim_done"].all()) and bool(stored["theory_done"].all())
    again = run_experiment(small_spec, "quick", out=tmp_path, progress=False)
    assert again.n_computed == 0 and again.n_cached == first.n_cells


def test_spec_hash_tracks_settings_and_mode(small_spec):
    import dataclasses

    other = dataclasses.replace(
        small_spec,
        settings={**small_spec.settings, "quick": dict(small_spec.settings["quick"], n_seeds=7)},
    )
    assert spec_hash(small_spec, "quick") != spec_hash(other, "quick")
    assert spec_hash(small_spec, "quick") != spec_hash(small_spec, "full")
    assert spec_hash(small_spec, "full") == spec_hash(other, "full")


def test_resume_after_interruption_recomputes_only_missing(tmp_path, small_spec, interrupt_run):
    reference = run_experiment(small_spec, "quick", out=tmp_path / "ref", progress=False)
    interrupt_run(small_spec, tmp_path / "run", at=6)

    partial = ResultStore(tmp_path / "run" / "store").load(small_spec, "quick")
    n_saved = int(partial["sim_done"].sum() + partial["theory_done"].sum())
    assert n_saved == 5  # every finished cell was flushed on the interrupt

    resumed = run_experiment(small_spec, "quick", out=tmp_path / "run", progress=False)
    assert resumed.n_cached == 5 and resumed.n_computed == reference.n_cells - 5
    data_vars = [v for v in reference.dataset.data_vars if not v.endswith(("wall_s", "cpu_s"))]
    xr.testing.assert_identical(
        _without_attrs(resumed.dataset[data_vars]), _without_attrs(reference.dataset[data_vars])
    )


@pytest.mark.parametrize("damage", ["truncate", "garbage", "tamper"])
def test_damaged_file_is_detected_and_recomputed(tmp_path, small_spec, damage):
    first = run_experiment(small_spec, "quick", out=tmp_path, progress=False)
    path = first.path
    if damage == "truncate":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(b"not a netcdf file")
    else:  # readable file whose numbers were changed behind the checksum's back
        ds = xr.open_dataset(path, engine="h5netcdf").load()
        ds["sim_R"].values[..., 0, 0, 0] += 1.0
        path.unlink()
        ds.to_netcdf(path, engine="h5netcdf")
    with pytest.warns(RuntimeWarning, match="recomputing") as record:
        again = run_experiment(small_spec, "quick", out=tmp_path, progress=False)
    # only the store's own warning: pytest.warns records every warning in the window, and a
    # library (xarray) can warn from elsewhere in a shared worker process
    ours = [r for r in record if "recomputing" in str(r.message)]
    assert [r.filename for r in ours] == [__file__]  # the caller's line, not the store's
    assert again.n_computed == first.n_cells
    assert path.with_suffix(".nc.damaged").exists()
    np.testing.assert_array_equal(again.dataset["sim_R"].values, first.dataset["sim_R"].values)


def test_bad_mode_and_n_jobs(tmp_path, small_spec):
    with pytest.raises(ValueError, match="mode must be one of quick, full"):
        run_experiment(small_spec, "medium", out=tmp_path)
    with pytest.raises(ValueError, match="n_jobs must be a positive integer or -1"):
        run_experiment(small_spec, "quick", out=tmp_path, n_jobs=0)


def test_latest_ignores_files_of_a_changed_spec(tmp_path, small_spec):
    import dataclasses

    run_experiment(small_spec, "quick", out=tmp_path, progress=False)
    changed = dataclasses.replace(
        small_spec,
        settings={**small_spec.settings, "quick": dict(small_spec.settings["quick"], n_seeds=3)},
    )
    store = ResultStore(tmp_path / "store")
    assert store.latest(changed) is None
    assert store.latest(small_spec).attrs["n_seeds"] == 6


def test_a_cell_records_its_processor_time_apart_from_waiting():
    # a busy machine stretches a cell's wall time, not its processor time: list's estimates use
    # the latter, so a run measured beside other work still says what a quiet core would take
    import time

    def waits(settings):
        time.sleep(0.3)
        return {"shared_x": 1.0}

    *_, wall, cpu = _runner._execute_cell(("shared", waits, {}, {}, None, ()))
    assert wall >= 0.3
    assert 0.0 <= cpu < 0.1


def test_a_run_stores_every_finished_cells_processor_time(tmp_path, small_spec):
    ds = run_experiment(small_spec, "quick", out=tmp_path, progress=False).dataset
    for kind in ("theory", "sim"):
        cpu = ds[f"{kind}_cpu_s"].values
        assert np.isfinite(cpu).all() and (cpu >= 0).all()
        assert (cpu <= ds[f"{kind}_wall_s"].values + 0.05).all()
    assert ds.attrs["cell_cpu_s_total"] == pytest.approx(
        float(ds["theory_cpu_s"].sum() + ds["sim_cpu_s"].sum())
    )


def test_list_tells_an_interrupted_run_from_a_complete_one(tmp_path, small_spec, interrupt_run):
    from statmechlearn._experiment_index import stored_state

    store = ResultStore(tmp_path / "store")
    assert stored_state(store, small_spec, "quick") == "stale"  # nothing under today's key
    interrupt_run(small_spec, tmp_path, at=6)
    n_cells = 2 * (1 + 6)
    assert stored_state(store, small_spec, "quick") == f"partial ({n_cells - 5} cells to go)"
    run_experiment(small_spec, "quick", out=tmp_path, progress=False)
    assert stored_state(store, small_spec, "quick") == "current"

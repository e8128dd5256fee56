"""A run stopped for real: SIGTERM to the runner saves its cells and leaves no worker behind."""

import glob
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import xarray as xr
from typer.testing import CliRunner

from statmechlearn.cli import app

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and groups")

#: A quick experiment of 51 cells, both theory and simulation, made four times cheaper by
#: a variant (a tenth of a second a cell, 6 s in all on one process): the killed run's
#: workers take seconds to start, the store's first flush holds one cell, the next comes
#: 2 s later, so a kill 1 s after the first lands in the middle, and the rest and the
#: reference are cheap to run to the end.
_SLOW = "sampling-exactness"
_SLOW_SET = ["--set", "n_sweeps=100"]
#: A quick experiment that runs past its first progress line (a minute): only its start runs.
_LONG = "outliers-hard-thresholds"


def _group_alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_sigterm_saves_finished_cells_and_leaves_no_worker(tmp_path):
    exe = os.path.join(os.path.dirname(sys.executable), "statmechlearn")
    argv = [exe, "run", _LONG, "--quick", "--n-jobs", "2", "--out", str(tmp_path)]
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own group: every worker it starts is found by pgid
    )
    seen = []
    try:
        # progress lines come every few seconds when not on a terminal; stop after a cell
        for line in proc.stdout:
            seen.append(line)
            m = re.search(r"(\d+)/\d+ cells", line)
            if m and int(m.group(1)) >= 1:
                break
        else:
            pytest.fail("the run ended before a cell finished:\n" + "".join(seen))
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 128 + signal.SIGTERM, "".join(seen) + rest
    assert "finished cells are saved" in rest
    # the loky workers go with the runner instead of holding the output pipe open
    deadline = time.monotonic() + 15
    while _group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _group_alive(proc.pid), "worker processes outlived the runner"
    (path,) = glob.glob(str(tmp_path / "store" / f"{_LONG}__quick__*.nc"))
    with xr.open_dataset(path) as ds:
        done = int(ds["sim_done"].sum()) + int(ds["theory_done"].sum())
    assert done >= 1


def _values(path):
    with xr.open_dataset(path) as ds:
        # every stored number but the clocks, which differ from run to run
        return {
            name: ds[name].values.copy()
            for name in ds.data_vars
            if not name.endswith(("_wall_s", "_cpu_s"))
        }


def test_sigkill_loses_no_stored_cell_and_leaves_no_worker(tmp_path):
    """SIGKILL cannot be caught: what the store held must stay readable, the workers must
    notice, and the next run computes only what is missing, to the same numbers."""
    exe = os.path.join(os.path.dirname(sys.executable), "statmechlearn")
    killed, reference = tmp_path / "killed", tmp_path / "reference"
    proc = subprocess.Popen(
        [exe, "run", _SLOW, "--quick", *_SLOW_SET, "--n-jobs", "2", "--out", str(killed)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        store = killed / "store"
        # the store is flushed every 2 s: stop once it exists and a few more cells are done
        deadline = time.monotonic() + 120
        while not list(store.glob(f"{_SLOW}@*__quick__*.nc")) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while _group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    alive = _group_alive(proc.pid)
    if alive:
        os.killpg(proc.pid, signal.SIGKILL)
    assert not alive, "worker processes outlived the killed runner by more than 10 s"

    (path,) = store.glob(f"{_SLOW}@*__quick__*.nc")
    stored = _values(path)  # readable: the store replaces a file only once it is written
    done = int(stored["sim_done"].sum()) + int(stored["theory_done"].sum())
    total = stored["sim_done"].size + stored["theory_done"].size
    assert 1 <= done < total, "kill the run in the middle"
    # the rest in this process: a cell runs on one thread whatever the backend, so serial
    # cells are bit-identical to the killed run's workers' (and skip two interpreters)
    again = CliRunner().invoke(
        app, ["-v", "run", _SLOW, "--quick", *_SLOW_SET, "--out", str(killed)]
    )
    assert again.exit_code == 0, again.output
    assert f"{done} stored" in again.output
    ref = CliRunner().invoke(app, ["run", _SLOW, "--quick", *_SLOW_SET, "--out", str(reference)])
    assert ref.exit_code == 0, ref.output
    (ref_path,) = (reference / "store").glob(f"{_SLOW}@*__quick__*.nc")
    finished, expected = _values(path), _values(ref_path)
    assert finished.keys() == expected.keys()
    for name, value in expected.items():
        np.testing.assert_array_equal(finished[name], value, err_msg=name)

"""A run stopped for real: SIGTERM to the runner saves its cells and leaves no worker behind."""

import glob
import os
import re
import signal
import subprocess
import sys
import time

import pytest
import xarray as xr

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and groups")

#: A quick experiment whose cells take seconds each: long enough to stop in the middle.
_SLOW = "outliers-hard-thresholds"


def _group_alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_sigterm_saves_finished_cells_and_leaves_no_worker(tmp_path):
    exe = os.path.join(os.path.dirname(sys.executable), "statmechlearn")
    argv = [exe, "run", _SLOW, "--quick", "--n-jobs", "2", "--out", str(tmp_path)]
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
    (path,) = glob.glob(str(tmp_path / "store" / f"{_SLOW}__quick__*.nc"))
    with xr.open_dataset(path) as ds:
        done = int(ds["sim_done"].sum()) + int(ds["theory_done"].sum())
    assert done >= 1

"""Suite-wide set-up: the suite on every core, expensive shared fixtures computed once.

``make test`` runs the suite with pytest-xdist (``-n auto --dist loadgroup``).

- A session- or module-scoped fixture of the suite's own would be computed
  once per worker that runs a test needing it; the tests that share one are
  grouped on one worker, so it is computed once, as in a serial run.
- The report tests read a real quick reproduction (``quick_results``): by
  default of a few cheap experiments (``SUITE_EXPERIMENTS``), which
  starts in a background process as soon as the workers have collected, so it runs
  beside the rest of the suite instead of holding one worker; the tests that
  read it wait for it to finish. With ``--quick-results=DIR`` they read the
  store ``make reproduce`` wrote there instead and cover every experiment
  (``make test-report``; CI runs it after ``make reproduce``). The whole
  reproduction is the README's second command, not part of every test run:
  it is about 20 CPU-minutes, more than the rest of the suite.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

#: The fixture the background run serves, and the command it runs.
QUICK_FIXTURE = "quick_results"
#: What the suite reproduces itself, about 30 CPU-seconds: theory alone (mixture-fig2),
#: simulations with error bars (lvq-fig2), a finite-size ladder with its N -> oo limit
#: (lvq-fss), real data (outliers-real-data), and five of the seven papers' sections.
SUITE_EXPERIMENTS = (
    "lvq-fig2",
    "lvq-fss",
    "maxent-inference",
    "mixture-fig2",
    "outliers-real-data",
    "sparse-fig3",
)
QUICK_COMMAND = ("reproduce", *SUITE_EXPERIMENTS, "--quick", "--n-jobs", "1")
#: The marker of the tests that read the quick reproduction (``pytest -m reproduction``).
REPRODUCTION_MARK = "reproduction"
#: Folder of the background run, below the controller's base temporary directory.
QUICK_DIR = "quick-reproduction"


def pytest_addoption(parser):
    parser.addoption(
        "--quick-results",
        metavar="DIR",
        type=Path,
        default=None,
        help="folder holding the store of `make reproduce` (reproduce all --quick): the report "
        "tests read it and cover every experiment, instead of reproducing a few themselves",
    )


def reproduced_names(config):
    """The experiments the report tests cover: every one with --quick-results, else a few."""
    from statmechlearn.experiments import names

    return names() if config.getoption("quick_results") is not None else list(SUITE_EXPERIMENTS)


@pytest.fixture(scope="session")
def reproduced(request):
    """The names of the experiments ``quick_results`` holds."""
    return reproduced_names(request.config)


def pytest_generate_tests(metafunc):
    # the same list on every xdist worker: the registry's order
    if "reproduced_name" in metafunc.fixturenames:
        metafunc.parametrize("reproduced_name", reproduced_names(metafunc.config))


def _shared_fixture(item):
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    found = []
    for name, defs in info.name2fixturedefs.items():
        last = defs[-1]
        # the suite's own fixtures only: pytest's and plugins' have no baseid
        if last.scope in ("session", "package", "module") and last.baseid:
            found.append((last.scope != "session", f"{last.baseid}::{name}"))
    return min(found)[1] if found else None


def pytest_configure(config):
    # An xdist worker is one of as many processes as there are cores. Were its numba and BLAS
    # loops spread over every core too, each core would hold threads of several workers, and a
    # parallel loop waits at every iteration for a thread that is off its core: a fixed-point
    # iteration of DeterministicAnnealing took 150 s in the suite against 8 s alone. So each
    # worker runs on one thread; a test that is about threads sets its own count (the numba
    # configured maximum is still there to set).
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return
    import numba
    import scipy.linalg  # noqa: F401  (loads SciPy's BLAS so that the limit below reaches it)
    from threadpoolctl import threadpool_limits

    numba.set_num_threads(1)
    config._one_thread_per_worker = threadpool_limits(limits=1)


# per item as it is collected, so the mark is there before xdist reads the marks
def pytest_itemcollected(item):
    if QUICK_FIXTURE in getattr(item, "fixturenames", ()):
        item.add_marker(getattr(pytest.mark, REPRODUCTION_MARK))
    group = _shared_fixture(item)
    if group is not None:
        item.add_marker(pytest.mark.xdist_group(group))


def pytest_collection_finish(session):
    # xdist marks a grouped test by a suffix on its node id; without it every worker would
    # compute the shared fixtures again (the quick reproduction: minutes), so say so
    if not getattr(session.config.option, "loadgroup", False):
        return
    marked = [item for item in session.items if item.get_closest_marker("xdist_group")]
    if marked and not any("@" in item.nodeid for item in marked):
        raise pytest.UsageError(
            "pytest-xdist did not group the tests that share a fixture (this pytest keeps node "
            "ids where xdist cannot mark them): install the pytest pyproject.toml declares"
        )


def _start_quick_run(config):
    folder = Path(config._tmp_path_factory.getbasetemp()) / QUICK_DIR
    folder.mkdir()
    out, log = folder / "results", folder / "output.log"
    # the exit status is written last, so its file says the run is over
    runner = (
        "import subprocess, sys\n"
        "with open(sys.argv[1], 'w') as log:\n"
        "    code = subprocess.call([sys.executable, '-c', "
        "'from statmechlearn.cli import main; main()', *sys.argv[4:], '--out', sys.argv[2]],"
        " stdout=log, stderr=subprocess.STDOUT)\n"
        "open(sys.argv[3] + '.tmp', 'w').write(str(code))\n"
        "import os; os.replace(sys.argv[3] + '.tmp', sys.argv[3])\n"
    )
    env = dict(os.environ, COLUMNS="200")
    config._quick_process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            runner,
            str(log),
            str(out),
            str(folder / "exit-status"),
            *QUICK_COMMAND,
        ],
        env=env,
    )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    config = node.config
    if config.getoption("quick_results") is not None:
        return  # the report tests read a finished reproduction
    if getattr(config, "_quick_process", None) is None and any(
        f"::{QUICK_FIXTURE}" in i for i in ids
    ):
        _start_quick_run(config)


def pytest_unconfigure(config):
    process = getattr(config, "_quick_process", None)
    if process is not None and process.poll() is None:
        process.terminate()  # the session ended early (-x, Ctrl-C): do not leave it running
        process.wait(timeout=30)


class QuickRun:
    """What the background run left: its exit status and its console output."""

    def __init__(self, exit_code, output):
        self.exit_code = exit_code
        self.output = output


def background_quick_run(tmp_path_factory, timeout=3600.0):
    """``(out, QuickRun)`` of the run the controller started, or None when there is none."""
    folder = Path(tmp_path_factory.getbasetemp()).parent / QUICK_DIR
    if not folder.is_dir():
        return None
    status = folder / "exit-status"
    deadline = time.monotonic() + timeout
    while not status.exists():
        if time.monotonic() > deadline:
            pytest.fail(f"the background quick reproduction did not finish in {timeout:.0f} s")
        time.sleep(1.0)
    output = (folder / "output.log").read_text(encoding="utf-8", errors="replace")
    return folder / "results", QuickRun(int(status.read_text()), output)


@pytest.fixture(scope="session")
def quick_results(request, tmp_path_factory):
    """``(out, result)`` of a real quick reproduction: its folder, exit status and output.

    With ``--quick-results=DIR``, the report rebuilt from the store there (every experiment);
    otherwise ``reproduce SUITE_EXPERIMENTS --quick``, run once for the whole session: under xdist
    the controller starts it in the background as soon as the workers have collected, without
    xdist it runs here, in process.
    """
    from typer.testing import CliRunner

    from statmechlearn.cli import app

    given = request.config.getoption("quick_results")
    if given is not None:
        if not (given / "store").is_dir():
            pytest.fail(f"--quick-results {given}: no store/ there; run `make reproduce` first")
        return given, CliRunner().invoke(app, ["report", "--out", str(given)])
    shared = background_quick_run(tmp_path_factory)
    if shared is not None:
        return shared
    out = tmp_path_factory.mktemp("results")
    result = CliRunner().invoke(app, [*QUICK_COMMAND, "--out", str(out)])
    return out, result


@pytest.fixture
def all_threads():
    """Numba's every thread for one test (the suite's xdist workers run on one): the path of a
    kernel that splits its rows over the threads is taken only when there are several."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    try:
        yield numba.config.NUMBA_NUM_THREADS
    finally:
        numba.set_num_threads(before)

"""Suite-wide set-up: keep expensive shared fixtures on one xdist worker.

``make test`` runs the suite on every core with pytest-xdist (``-n auto
--dist loadgroup``). A session- or module-scoped fixture of the suite's own
(the real ``reproduce all --quick`` run, a module's package copy) would be
computed once per worker that runs a test needing it; grouping those tests
on one worker computes it once, as a serial run does.
"""

import pytest


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


# per item as it is collected, so the mark is there before xdist reads the marks
def pytest_itemcollected(item):
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

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


def pytest_collection_modifyitems(config, items):
    for item in items:
        group = _shared_fixture(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))

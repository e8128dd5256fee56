"""docs/lecture_notes.md: what it names exists, and every experiment of the notes is in it."""

import importlib
import pathlib
import re

import pytest

from statmechlearn.experiments import get, names

MAP = pathlib.Path(__file__).parents[2] / "docs" / "lecture_notes.md"
NOTES_PAPERS = {"maxent", "sampling", "selection"}


def _rows():
    rows = []
    for line in MAP.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] not in ("§", "---"):
            rows.append(cells)
    return rows


def _objects(cell):
    """Backticked names of a cell; a bare name belongs to the last package named before it."""
    package = None
    for token in re.findall(r"`([^`]+)`", cell):
        if token.startswith("sklearn."):
            yield token
            continue
        token = token.split(" ")[0].split("(")[0]
        if "." in token:
            package, _, token = token.rpartition(".")
        yield f"statmechlearn.{package}.{token}"


def test_the_map_has_every_section_with_a_method():
    sections = {row[0] for row in _rows()}
    for s in ("2", "3.1", "3.4", "3.5", "3.6", "4.1", "4.2", "5.2", "6.5", "8.1", "8.2–8.5", "9.4"):
        assert s in sections


@pytest.mark.parametrize("row", _rows(), ids=lambda r: r[0])
def test_every_named_object_and_experiment_exists(row):
    _, _, objects, experiments = row
    for dotted in _objects(objects):
        module, _, name = dotted.rpartition(".")
        assert hasattr(importlib.import_module(module), name), dotted
    listed = re.findall(r"`([^`]+)`", experiments)
    assert listed, row
    for name in listed:
        get(name)


def test_every_experiment_of_the_notes_is_in_the_map():
    mapped = {n for row in _rows() for n in re.findall(r"`([^`]+)`", row[3])}
    notes = {n for n in names() if get(n).paper in NOTES_PAPERS}
    assert notes - mapped == set()

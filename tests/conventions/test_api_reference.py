"""The API reference (docs/api.rst) lists every public name, so it cannot go stale.

Each public module's ``__all__`` must appear, name by name, in the
``.. currentmodule::`` section of that module: as an ``autosummary`` entry (which
generates its page) or, for a second public name of a class documented elsewhere,
as the target of a ``:class:`` reference. Every public ``statmechlearn.theory``
submodule with an ``__all__`` must have its own section, and no entry may name
something its module no longer exports.
"""

import importlib
import pathlib
import pkgutil
import re

import pytest

import statmechlearn.theory

API_RST = pathlib.Path(__file__).resolve().parents[2] / "docs" / "api.rst"

# The modules whose public API the reference documents, theory submodules aside.
DOCUMENTED = [
    "statmechlearn.cluster",
    "statmechlearn.lvq",
    "statmechlearn.linear",
    "statmechlearn.inference",
    "statmechlearn.model_selection",
    "statmechlearn.models",
    "statmechlearn.theory",
    "statmechlearn.datasets",
    "statmechlearn.exceptions",
    "statmechlearn.experiments",
]


def _theory_submodules():
    out = []
    for info in pkgutil.iter_modules(statmechlearn.theory.__path__, "statmechlearn.theory."):
        if info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        if hasattr(importlib.import_module(info.name), "__all__"):
            out.append(info.name)
    return out


MODULES = DOCUMENTED + _theory_submodules()

_CURRENTMODULE = re.compile(r"^\.\. currentmodule:: (\S+)\s*$")
_ROLE_TARGET = re.compile(r":(?:class|func|data|obj|mod):`~?([\w.]+)`")


def parse_sections(text):
    """``{module: (autosummary entries, role targets)}`` of an api.rst text."""
    sections = {}
    entries = targets = None
    in_autosummary = False
    for line in text.splitlines():
        match = _CURRENTMODULE.match(line)
        if match:
            entries, targets = sections.setdefault(match.group(1), (set(), set()))
            in_autosummary = False
            continue
        if entries is None:
            continue
        if line.startswith(".. autosummary::"):
            in_autosummary = True
            continue
        if in_autosummary:
            stripped = line.strip()
            if not stripped or stripped.startswith(":"):
                continue  # the blank line and the directive's options
            if line.startswith("   "):
                entries.add(stripped.lstrip("~"))
                continue
            in_autosummary = False
        targets.update(_ROLE_TARGET.findall(line))
    return sections


def missing_names(module_name, all_names, sections):
    """Names of ``all_names`` that the section of ``module_name`` does not list."""
    if module_name not in sections:
        return sorted(all_names)
    entries, targets = sections[module_name]
    aliases = {target.rsplit(".", 1)[-1] for target in targets}
    return sorted(name for name in all_names if name not in entries and name not in aliases)


@pytest.fixture(scope="module")
def sections():
    return parse_sections(API_RST.read_text(encoding="utf-8"))


def test_theory_submodules_are_found():
    # the discovery above must see the theory modules, or the check below checks nothing
    assert "statmechlearn.theory.lvq_dynamics" in MODULES


@pytest.mark.parametrize("module_name", MODULES)
def test_every_public_name_is_in_the_api_reference(module_name, sections):
    module = importlib.import_module(module_name)
    missing = missing_names(module_name, module.__all__, sections)
    assert not missing, (
        f"docs/api.rst lacks {missing} of {module_name}.__all__: add them to the "
        f"autosummary under '.. currentmodule:: {module_name}'"
    )


@pytest.mark.parametrize("module_name", MODULES)
def test_no_entry_names_a_removed_object(module_name, sections):
    module = importlib.import_module(module_name)
    entries, _ = sections.get(module_name, (set(), set()))
    stale = sorted(entries - set(module.__all__))
    assert not stale, f"docs/api.rst lists {stale} that {module_name}.__all__ does not export"


def test_the_parser_notices_a_missing_name():
    text = (
        ".. currentmodule:: pkg.mod\n\n"
        ".. autosummary::\n   :toctree: generated\n\n   Present\n\n"
        "``Alias`` is :class:`pkg.other.Alias`.\n"
    )
    sections = parse_sections(text)
    assert missing_names("pkg.mod", ["Present", "Alias", "Absent"], sections) == ["Absent"]
    assert missing_names("pkg.nowhere", ["Present"], sections) == ["Present"]

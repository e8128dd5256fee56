"""The project files a user looks for exist and agree with the code."""

import pathlib
import re
import tomllib

import pytest

import statmechlearn

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_license_is_the_one_pyproject_declares():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]["text"]
    assert declared == "BSD-3-Clause"
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "Neither the name of the copyright holder" in text


def test_citation_names_this_version_and_every_paper_of_the_report():
    experiments = pytest.importorskip("statmechlearn.experiments")
    sections = [experiments.paper_section(key) for key in experiments.papers()]
    text = (ROOT / "CITATION.cff").read_text()
    assert re.search(r"(?m)^cff-version: 1\.2\.0$", text)
    assert re.search(rf"(?m)^version: {re.escape(statmechlearn.__version__)}$", text)
    cited = set(re.findall(r"(?m)^\s+doi: (\S+)$", text))
    reported = {ref.doi for section in sections for ref in section.references if ref.doi}
    assert cited == reported
    titles = {ref.title.lower() for s in sections for ref in s.references}
    for title in titles:
        assert title.split(" (")[0] in text.lower(), title


def test_changelog_keeps_a_changelog():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert "keepachangelog.com" in text
    assert re.search(r"(?m)^## \[Unreleased\]$", text)
    # every section heading is one of Keep a Changelog's kinds, with an optional subject
    kinds = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")
    for heading in re.findall(r"(?m)^### (.+)$", text):
        assert heading.startswith(kinds), heading


def test_contributing_points_at_files_that_exist():
    text = (ROOT / "CONTRIBUTING.md").read_text()
    for target in ("make test", "make docs", "make test-floors", "Adding an experiment"):
        assert target in text
    named = r"`((?:docs|tests|src|experiments|cluster)/[\w/.\-]+\.(?:md|py|rst))`"
    paths = set(re.findall(named, text))
    paths |= set(re.findall(r"\]\(((?:docs/)?[\w/.\-]+\.md)\)", text))
    assert paths, "CONTRIBUTING.md names no file"
    for path in paths:
        candidates = [ROOT / path, ROOT / "src" / "statmechlearn" / path]
        assert any(p.exists() for p in candidates), f"CONTRIBUTING.md names a missing {path}"

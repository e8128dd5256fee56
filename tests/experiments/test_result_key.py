"""The store's key: the code a result's cells run, libraries, peers; checksums over attributes."""

import ast
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import statmechlearn
from statmechlearn.experiments import ResultStore, _store, names, result_key, run_experiment
from statmechlearn.experiments._store import dataset_checksum, spec_hash

PACKAGE = Path(statmechlearn.__file__).resolve().parent


def _insert_statement(path, function, statement="_edited = True"):
    """Add a statement at the top of ``function``'s body (after its docstring) in ``path``."""
    source = path.read_text()
    node = next(
        n
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.FunctionDef) and n.name == function
    )
    first = node.body[1] if ast.get_docstring(node) and len(node.body) > 1 else node.body[0]
    lines = source.splitlines(keepends=True)
    indent = " " * first.col_offset
    lines.insert(first.lineno - 1, f"{indent}{statement}\n")
    path.write_text("".join(lines))


_HASHES = """
import json, sys
from statmechlearn.experiments import get, names
from statmechlearn.experiments._store import spec_hash
json.dump({n: spec_hash(get(n), "quick") for n in names()}, sys.stdout)
"""


def _hashes(root):
    env = dict(os.environ, PYTHONPATH=str(root))
    out = subprocess.run(
        [sys.executable, "-c", _HASHES], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory):
    root = tmp_path_factory.mktemp("copy")
    shutil.copytree(PACKAGE, root / "statmechlearn", ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture(scope="module")
def baseline(package_copy):
    return _hashes(package_copy)


def _changed(package_copy, baseline, edit):
    pkg = package_copy / "statmechlearn"
    backups = {}

    def write(rel, fn):
        path = pkg / rel
        backups.setdefault(path, path.read_text())
        fn(path)

    try:
        edit(write)
        after = _hashes(package_copy)
    finally:
        for path, text in backups.items():
            path.write_text(text)
    assert set(after) == set(baseline)
    return {n for n in baseline if after[n] != baseline[n]}


def test_the_copy_reproduces_the_installed_keys(baseline):
    # the same code in another folder has the same keys: paths are not part of them
    assert baseline == {n: spec_hash(statmechlearn.experiments.get(n), "quick") for n in names()}


@pytest.mark.parametrize(
    ("module", "function", "expected"),
    [
        # a theory module: exactly the experiments whose cells solve its equations
        (
            "theory/sparse_bayes.py",
            "state_evolution",
            {"sparse-fig1", "sparse-fig3", "sparse-fig4", "sparse-fss"},
        ),
        # an estimator used by one simulation only
        ("lvq/_classifiers.py", "_doc", {"lvq-real-data"}),
        # a helper of cell functions inside a paper package: the specs that call it
        (
            "papers/lvq/_common.py",
            "simulate_learning_curve",
            {"lvq-fig2", "lvq-fig3a", "lvq-self-averaging", "lvq-fss"},
        ),
        # plots and checks compute nothing stored: editing them recomputes nothing
        ("papers/lvq/fig2.py", "plot_fig2", set()),
        ("papers/outliers/fig4_fig7.py", "_fig4_checks", set()),
    ],
)
def test_editing_a_function_body_changes_exactly_the_dependent_keys(
    package_copy, baseline, module, function, expected
):
    changed = _changed(
        package_copy,
        baseline,
        lambda write: write(module, lambda p: _insert_statement(p, function)),
    )
    assert changed == expected


def test_comments_and_docstrings_do_not_change_keys(package_copy, baseline):
    def edit(write):
        write(
            "theory/lvq_dynamics.py",
            lambda p: p.write_text(p.read_text().replace('"""', '"""Edited. ', 1) + "\n# note\n"),
        )

    assert _changed(package_copy, baseline, edit) == set()


def test_a_store_recomputes_after_a_code_edit_and_only_then(package_copy, tmp_path):
    """End to end, in the edited copy: a small LVQ run and a small sparse-Bayes run."""
    script = textwrap.dedent(
        f"""
        import dataclasses, json, sys
        from statmechlearn.experiments import get, run_experiment
        lvq = dataclasses.replace(
            get("lvq-fig2"),
            name="lvq-small",
            settings={{m: {{"n_features": 40, "n_seeds": 2, "alpha_max": 2.0,
                           "alpha_step_sim": 1.0, "n_theory_points": 5}}
                      for m in ("quick", "full")}},
        )
        sparse = dataclasses.replace(
            get("sparse-fig1"), name="sparse-small", grid={{"C_t": (0.2,), "C": (0.2,)}}
        )
        out = {{s.name: run_experiment(s, "quick", out={str(tmp_path)!r}, progress=False).n_computed
               for s in (lvq, sparse)}}
        json.dump(out, sys.stdout)
        """
    )
    env = dict(os.environ, PYTHONPATH=str(package_copy))

    def run():
        res = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        return json.loads(res.stdout.strip().splitlines()[-1])

    first = run()
    assert first["lvq-small"] > 0 and first["sparse-small"] > 0
    assert run() == {"lvq-small": 0, "sparse-small": 0}  # nothing changed: all from the store
    path = package_copy / "statmechlearn" / "theory" / "lvq_dynamics.py"
    original = path.read_text()
    try:
        _insert_statement(path, "learning_curve")
        again = run()
    finally:
        path.write_text(original)
    assert again == {"lvq-small": first["lvq-small"], "sparse-small": 0}


def test_key_names_libraries_peers_and_code(small_spec, monkeypatch):
    key = result_key(small_spec, "quick")
    assert {"numpy", "scipy", "numba", "scikit-learn", "python"} <= set(key["libraries"])
    assert any(k.endswith("theory.lvq_dynamics") for k in key["code"])
    assert any(k.endswith("papers.lvq.fig2._fig2_simulation") for k in key["code"])
    before = spec_hash(small_spec, "quick")
    with_peer = dataclasses.replace(small_spec, peers=("minisom",))
    monkeypatch.setattr(_store, "peer_versions", lambda peers: dict.fromkeys(peers))
    missing = spec_hash(with_peer, "quick")
    monkeypatch.setattr(_store, "peer_versions", lambda peers: dict.fromkeys(peers, "2.3.5"))
    present = spec_hash(with_peer, "quick")
    assert len({before, missing, present}) == 3  # a peer installed later is a new key
    monkeypatch.setattr(_store, "library_versions", lambda: {"numpy": "0.0", "python": "3.11.0"})
    assert spec_hash(small_spec, "quick") != before


def test_checksum_covers_every_attribute(tmp_path, small_spec):
    summary = run_experiment(small_spec, "quick", out=tmp_path, progress=False)
    store = ResultStore(tmp_path / "store")
    with xr.open_dataset(summary.path, engine="h5netcdf") as handle:
        pristine = handle.load()
    assert pristine.attrs["checksum"] == dataset_checksum(pristine)
    targets = [(None, k) for k in pristine.attrs if k != "checksum"]
    targets += [(v, "units") for v in ("sim_R", "theory_eps_g")]

    def edited(var, key):
        ds = pristine.copy(deep=True)
        attrs = ds.attrs if var is None else ds[var].attrs
        attrs[key] = f"{attrs.get(key, '')}x"
        return ds

    # every attribute is in the checksum ...
    for var, key in targets:
        assert dataset_checksum(edited(var, key)) != pristine.attrs["checksum"], (var, key)
    # ... and the store refuses a file whose checksum no longer matches (one file-level and
    # one variable's attribute, through a real write and load: 0.8 s each)
    for var, key in [targets[0], targets[-1]]:
        summary.path.unlink(missing_ok=True)
        edited(var, key).to_netcdf(summary.path, engine="h5netcdf")
        with pytest.warns(RuntimeWarning, match="checksum|key"):
            assert store.load(small_spec, "quick") is None, (var, key)
        summary.path.with_suffix(".nc.damaged").unlink()
    renamed = pristine.rename({"sim_R": "sim_R2"})
    assert dataset_checksum(renamed) != dataset_checksum(pristine)


def test_force_recomputes_and_the_report_shows_the_key(tmp_path, small_spec):
    first = run_experiment(small_spec, "quick", out=tmp_path, progress=False)
    cached = run_experiment(small_spec, "quick", out=tmp_path, progress=False)
    forced = run_experiment(small_spec, "quick", out=tmp_path, progress=False, force=True)
    assert cached.n_computed == 0 and forced.n_computed == first.n_cells
    attrs = forced.dataset.attrs
    assert attrs["spec_hash"] == spec_hash(small_spec, "quick")
    key = json.loads(attrs["key_json"])
    assert key["name"] == small_spec.name and "created" in attrs and "updated" in attrs
    np.testing.assert_array_equal(forced.dataset["sim_R"].values, first.dataset["sim_R"].values)

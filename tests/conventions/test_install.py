"""The core install: every estimator and theory function without the experiment stack.

A fresh ``pip install statmechlearn`` has NumPy, SciPy, scikit-learn, numba and
their own dependencies, nothing of the ``experiments`` extra. These tests run
the package in a subprocess whose import system refuses every package of the
extras, so a stray top-level import of xarray, typer, matplotlib… in the
estimators fails here, and so does a README example that needs more than it
says.
"""

import pathlib
import re
import subprocess
import sys
import textwrap
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: top-level modules of the extras (experiments, dask, peers, docs) and of arviz itself
EXTRAS_MODULES = (
    "xarray",
    "h5netcdf",
    "h5py",
    "pandas",
    "matplotlib",
    "typer",
    "click",
    "rich",
    "tqdm",
    "jinja2",
    "dask",
    "distributed",
    "arviz",
    "skimage",
    "minisom",
    "dit",
    "sklearn_rvm",
    "sphinx",
)

#: what a core install may depend on: the numeric core and scikit-learn's own dependencies
CORE_DEPENDENCIES = {
    "numpy",
    "scipy",
    "scikit-learn",
    "numba",
    "joblib",
    "threadpoolctl",
    "arviz-stats",
}

_BLOCKER = textwrap.dedent(
    f"""
    import importlib.abc, sys

    class _CoreInstallOnly(importlib.abc.MetaPathFinder):
        # the import system of a core install: the extras' packages are not there
        blocked = {EXTRAS_MODULES!r}

        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in self.blocked:
                raise ModuleNotFoundError(f"No module named {{name!r}} (core install)", name=name)
            return None

    sys.meta_path.insert(0, _CoreInstallOnly())
    """
)


def _run_core_only(code, timeout=600):
    """Run ``code`` in a fresh interpreter that cannot import the extras; return the process."""
    return subprocess.run(
        [sys.executable, "-c", _BLOCKER + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )


def _requirement_name(requirement):
    return re.match(r"[A-Za-z0-9_.\-]+", requirement).group(0).lower()


def test_core_dependencies_are_the_numeric_core():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {_requirement_name(r) for r in project["dependencies"]}
    assert names <= CORE_DEPENDENCIES, f"not core: {sorted(names - CORE_DEPENDENCIES)}"
    extras = project["optional-dependencies"]
    for extra in ("experiments", "dask", "peers", "docs", "dev", "test"):
        assert extra in extras, f"the {extra!r} extra is missing"
    stack = {_requirement_name(r) for r in extras["experiments"]}
    assert {"xarray", "typer", "jinja2", "h5netcdf", "matplotlib", "tqdm"} <= stack


@pytest.mark.slow
def test_every_estimator_imports_and_fits_without_the_extras():
    proc = _run_core_only(
        """
        import sys, warnings
        import numpy as np
        sys.path.insert(0, "tests")
        from conventions._discovery import public_estimators, public_modules
        from conventions._inputs import SMALL, fit_args

        modules = public_modules()
        estimators = public_estimators()
        rng = np.random.default_rng(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tiny inputs; convergence is not the point here
            for path, cls in estimators:
                name = cls.__name__
                cls(**SMALL.get(name, {})).fit(*fit_args(name, rng))
        print(len(modules), len(estimators))
        """
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    n_modules, n_estimators = map(int, proc.stdout.split())
    assert n_modules >= 10 and n_estimators >= 20, proc.stdout


def test_importing_an_estimator_imports_no_cli_stack():
    # no blocker here: with everything installed, the estimators still must not touch it
    code = """
        import sys
        import statmechlearn.cluster, statmechlearn.lvq, statmechlearn.linear
        import statmechlearn.inference, statmechlearn.model_selection
        import statmechlearn.models, statmechlearn.theory, statmechlearn.datasets
        from statmechlearn.cluster import DeterministicAnnealing
        import numpy as np
        DeterministicAnnealing(n_clusters=2).fit(np.random.default_rng(0).normal(size=(50, 2)))
        stack = ("xarray", "typer", "jinja2", "h5netcdf", "matplotlib", "tqdm", "dask", "arviz")
        ours = ("statmechlearn.experiments", "statmechlearn.papers", "statmechlearn.cli")
        print(sorted(m for m in sys.modules if m.split(".")[0] in stack or m.startswith(ours)))
    """
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "[]"


def test_the_command_line_names_its_extra_on_a_core_install():
    proc = _run_core_only("import statmechlearn.cli")
    assert proc.returncode != 0
    assert "statmechlearn[experiments]" in proc.stderr


def test_a_plot_names_its_extra_on_a_core_install():
    proc = _run_core_only(
        """
        import numpy as np
        from statmechlearn.model_selection import select_n_clusters
        X = np.random.default_rng(0).normal(size=(60, 2))
        res = select_n_clusters(X, k_range=range(1, 4), method="bic", random_state=0)
        try:
            res.plot()
        except ImportError as exc:
            print(exc)
        """
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "plot() needs matplotlib" in proc.stdout
    assert "statmechlearn[experiments]" in proc.stdout


def _readme_examples():
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_the_readme_has_examples():
    assert len(_readme_examples()) >= 5


@pytest.mark.slow
def test_readme_examples_run_on_a_core_install_without_warnings():
    # the README says when an example needs an extra ("needs the X extra"); none does today.
    # One interpreter for all of them, each in a namespace of its own with warnings as
    # errors: an interpreter per example cost its import of the library again.
    code = f"""
        import traceback, warnings
        failed = []
        for i, example in enumerate({_readme_examples()!r}, 1):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                try:
                    code = compile(example, f"<README example {{i}}>", "exec")
                    exec(code, {{"__name__": "__main__"}})
                except BaseException:
                    failed.append(i)
                    traceback.print_exc()
        print("failed:", failed)
        """
    proc = _run_core_only(code)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "failed: []" in proc.stdout, f"README examples:\n{proc.stderr[-5000:]}"

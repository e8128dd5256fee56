#!/usr/bin/env bash
# Install the lowest versions pyproject.toml allows for every direct dependency
# (uv's --resolution lowest-direct) into a throw-away environment and run the
# fast part of the suite there: a floor that is declared but not true fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
ENV_DIR=${FLOORS_VENV:-.venv-floors}
TOOLS=${TOOLS_VENV:-.venv}

if [ ! -x "$TOOLS/bin/uv" ]; then
    "$TOOLS/bin/python" -m pip install --quiet "uv>=0.4"
fi
rm -rf "$ENV_DIR"
"$TOOLS/bin/uv" venv --quiet --python "$PY" "$ENV_DIR"
VIRTUAL_ENV="$ENV_DIR" "$TOOLS/bin/uv" pip install --quiet --resolution lowest-direct \
    -e ".[experiments,test]"
"$ENV_DIR/bin/python" - <<'PY'
from importlib.metadata import version
for name in ["numpy", "scipy", "scikit-learn", "numba", "xarray", "h5netcdf", "matplotlib",
             "joblib", "typer", "tqdm", "jinja2", "pandas", "arviz-stats"]:
    print(f"{name:>14} {version(name)}")
PY
"$ENV_DIR/bin/python" -m pytest -q -p no:cacheprovider -m "not slow and not browser" \
    tests/core tests/theory tests/lvq tests/linear tests/inference tests/cluster \
    tests/model_selection tests/models tests/conventions tests/experiments/test_store_runner.py

import dataclasses

import pytest
from typer.testing import CliRunner

from statmechlearn.cli import app
from statmechlearn.experiments import get


@pytest.fixture(scope="session")
def quick_results(tmp_path_factory):
    """The real main job (`reproduce all --quick`), run once for the whole session."""
    out = tmp_path_factory.mktemp("results")
    result = CliRunner().invoke(
        app, ["reproduce", "all", "--quick", "--n-jobs", "2", "--out", str(out)]
    )
    return out, result


@pytest.fixture
def small_spec():
    """lvq-fig2 with a small grid: the real theory and simulation, fewer seeds and alphas."""
    base = get("lvq-fig2")
    small = {
        "n_features": 60,
        "n_seeds": 6,
        "alpha_max": 6.0,
        "alpha_step_sim": 3.0,
        "n_theory_points": 25,
    }
    return dataclasses.replace(
        base,
        name="lvq-fig2-small",
        grid={"p_plus": (0.8,), "lam": (1.0, 1.5), "eta": (0.2,)},
        settings={"quick": small, "full": dict(small, n_seeds=8)},
    )

import dataclasses

import pytest

from statmechlearn.experiments import get


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

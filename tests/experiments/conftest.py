import dataclasses

import pytest

from statmechlearn.experiments import _registry, get


@pytest.fixture(autouse=True)
def _registry_as_found(monkeypatch):
    """Every test here leaves the registry as it found it: a run with ``--set`` registers
    its variant in this process, and a later test listing the experiments (in whatever
    order the workers take them) must not see it."""
    _registry.names()
    for attr in ("_SPECS", "_ORIGIN", "_SECTIONS", "_FILES"):
        monkeypatch.setattr(_registry, attr, dict(getattr(_registry, attr)))


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


@pytest.fixture
def interrupt_run(monkeypatch):
    """``interrupt_run(spec, out, at)``: run ``spec`` in quick mode and press Ctrl-C as cell
    ``at`` starts (the cells before it finished), then restore the executor."""
    from statmechlearn.experiments import _runner, run_experiment

    def interrupt(spec, out, at):
        real, calls = _runner._execute_cell, {"n": 0}

        def interrupting(task):
            calls["n"] += 1
            if calls["n"] == at:
                raise KeyboardInterrupt
            return real(task)

        monkeypatch.setattr(_runner, "_execute_cell", interrupting)
        try:
            with pytest.raises(KeyboardInterrupt):
                run_experiment(spec, "quick", out=out, progress=False)
        finally:
            monkeypatch.setattr(_runner, "_execute_cell", real)

    return interrupt

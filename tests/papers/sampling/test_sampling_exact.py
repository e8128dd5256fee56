"""The Gibbs-sampler-vs-exact and maximum-entropy-inference figures and their references."""

import dataclasses
import math

import matplotlib
import numpy as np
import pytest

from statmechlearn.experiments import evaluate_checks, get, run_experiment
from statmechlearn.papers.maxent.inference import _die_exact, _gauss_exact, _poisson_deviation
from statmechlearn.papers.sampling.exact_gibbs import _enumerate, _fixed_problem

matplotlib.use("Agg")


def test_die_reference_is_jaynes_solution():
    lam = _die_exact(4.5)
    p = np.exp(-lam * np.arange(1, 7))
    p /= p.sum()
    # Jaynes (1978), Brandeis dice: 0.05435 0.07877 0.11416 0.16545 0.23977 0.34749
    np.testing.assert_allclose(p, [0.05435, 0.07877, 0.11416, 0.16545, 0.23977, 0.34749], atol=5e-6)
    assert p @ np.arange(1, 7) == pytest.approx(4.5, abs=1e-13)
    assert _die_exact(3.5) == 0.0
    # the die is symmetric under i -> 7 - i
    assert _die_exact(2.5) == pytest.approx(-_die_exact(4.5), abs=1e-13)


def test_gauss_reference_follows_poisson_summation():
    for spacing in (0.5, 1.0):
        lam2 = _gauss_exact(spacing)
        dev = 2 * lam2 - 1
        # leading term, relative accuracy O(a e^{-a}) from the next order (a = 2 pi^2 / spacing^2)
        assert dev == pytest.approx(_poisson_deviation(spacing), rel=1e-4, abs=1e-14)


def test_enumeration_matches_exact_gibbs():
    from statmechlearn.inference import KMeansCost, exact_gibbs

    cost = KMeansCost(_fixed_problem(), 3)
    labels, E = _enumerate(cost)
    assert labels.shape == (3**9, 9)
    ex = exact_gibbs(cost, 1.0)
    log_z = np.log(np.sum(np.exp(-(E - E.min())))) - E.min()
    assert -log_z == pytest.approx(ex.free_energy, rel=1e-12)
    assert E.min() == pytest.approx(ex.ground_energy, rel=1e-12)
    # every relabeling of the ground state is a ground state
    assert np.sum(E <= E.min() + 1e-9) == math.factorial(3)


@pytest.mark.parametrize(
    ("name", "small"),
    [
        ("maxent-inference", {"n_seeds": 4, "n_draws": 2000}),
        (
            "sampling-gibbs-exact",
            {"n_seeds": 6, "n_chains": 768, "n_sweeps": 90, "n_da_runs": 1, "n_problems": 3},
        ),
    ],
)
def test_figures_run_and_pass_their_checks(tmp_path, name, small):
    base = get(name)
    quick = dict(base.settings["quick"], **small)
    spec = dataclasses.replace(base, name=f"{name}-small", settings={"quick": quick, "full": quick})
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    spec.plot(ds)
    matplotlib.pyplot.close("all")
    results = evaluate_checks(spec, ds)
    evidence = [r for r in results if r.kind == "evidence"]
    assert evidence
    assert all(r.passed for r in results if r.kind == "evidence"), [
        (r.quantity, r.observed, r.expected) for r in evidence if not r.passed
    ]

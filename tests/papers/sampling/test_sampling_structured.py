"""Structured vs naive mean field experiment: a small run passes its evidence checks."""

import dataclasses

import matplotlib
import numpy as np
import pytest

from statmechlearn.experiments import evaluate_checks, get, run_experiment
from statmechlearn.inference import PairwiseMRFCost, exact_gibbs, grid_graph, mean_field
from statmechlearn.papers.sampling.structured import _high_temperature_gaps

matplotlib.use("Agg")


def test_runs_and_passes_its_evidence_checks(tmp_path):
    base = get("sampling-structured-mf")
    quick = dict(base.settings["quick"], n_seeds=3)
    spec = dataclasses.replace(
        base, name="sampling-structured-mf-small", settings={"quick": quick, "full": quick}
    )
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    spec.plot(ds)
    matplotlib.pyplot.close("all")
    results = evaluate_checks(spec, ds)
    evidence = [r for r in results if r.kind == "evidence"]
    assert len(evidence) >= 5
    assert all(r.passed for r in evidence), [r.quantity for r in evidence if not r.passed]


def test_high_temperature_gap_of_naive_mean_field():
    # T (B_naive - F) -> 1/2 sum_e W_e^2 Var_0(V): checked at large T against enumeration
    rng = np.random.default_rng(3)
    A = grid_graph((2, 3))
    W = A.multiply(rng.uniform(0.5, 1.5, A.shape))
    cost = PairwiseMRFCost(rng.normal(size=(6, 3)), (W + W.T) / 2)
    naive_limit, struct_limit, fraction = _high_temperature_gaps(cost, [[0, 1, 2], [3, 4, 5]])
    assert struct_limit < naive_limit and 0.0 < fraction < 1.0
    assert fraction == pytest.approx(1.0 - struct_limit / naive_limit, rel=1e-12)
    T = 400.0
    gap = mean_field(cost, T, tol=1e-13, max_iter=10000, random_state=0).bound
    gap -= exact_gibbs(cost, T).free_energy
    # the next order is O(1/T) relative
    assert T * gap == pytest.approx(naive_limit, rel=0.02)

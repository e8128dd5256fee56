"""The typical-set experiment (§8.1): exact counts against drawn sequences."""

import dataclasses

import matplotlib
import numpy as np

from statmechlearn.experiments import evaluate_checks, get, run_experiment

matplotlib.use("Agg")


def test_typical_set_figure_runs_and_its_evidence_passes(tmp_path):
    base = get("selection-typical-set")
    quick = dict(base.settings["quick"], n_seeds=6, n_sequences=600, check_n=(200,))
    spec = dataclasses.replace(
        base,
        name="selection-typical-set-small",
        grid={"n": (25, 200)},
        settings={"quick": quick, "full": quick},
    )
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    spec.plot(ds)
    matplotlib.pyplot.close("all")
    results = evaluate_checks(spec, ds)
    evidence = [r for r in results if r.kind == "evidence"]
    assert evidence and all(r.passed for r in evidence)
    # the exact probability is a probability and grows with n at this epsilon
    prob = ds["theory_probability"].values
    assert np.all((prob > 0) & (prob < 1)) and prob[1] > prob[0]


def test_the_most_likely_sequence_is_not_typical():
    from statmechlearn.model_selection import is_typical

    p = np.array([0.1, 0.9])
    for n in (10, 100, 1000):
        assert not is_typical(np.ones(n, dtype=int), p, 0.1)

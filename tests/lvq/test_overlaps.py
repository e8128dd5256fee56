"""The order-parameter chain of on-line WTA learning against N-dimensional prototypes."""

import numpy as np
import pytest

from statmechlearn.lvq import (
    WTA_RULES,
    wta_online_updates,
    wta_overlap_updates,
    wta_overlap_updates_numpy,
)
from statmechlearn.lvq._kernels import wta_step
from statmechlearn.lvq._overlaps import _chain_numpy, _check, _model_arrays
from statmechlearn.models import LabeledMixture
from statmechlearn.models.labeled_mixture import LABELS


def _start(model, K, rng):
    W = rng.standard_normal((K, model.n_features)) * 0.3
    R, Q = model.overlaps(W)
    return W, R, Q


@pytest.mark.parametrize("rule", ["lvq1", "vq", "lvq+"])
@pytest.mark.parametrize("K", [2, 3])
def test_compiled_chain_equals_its_numpy_twin(rule, K):
    model = LabeledMixture(n_features=30, p_plus=0.7, lam=1.2, v_plus=0.8, v_minus=1.5)
    _, R, Q = _start(model, K, np.random.default_rng(K))
    a, b = WTA_RULES[rule]
    kw = {"model": model, "prototype_labels": [1, -1, 1][:K], "learning_rate": 0.05, "a": a}
    got = wta_overlap_updates(R, Q, 400, b=b, random_state=3, **kw)
    want = wta_overlap_updates_numpy(R, Q, 400, b=b, random_state=3, **kw)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("K", [2, 3])
def test_each_step_is_eq1_on_prototypes_that_see_the_same_example(K):
    # rebuild, from the chain's own draws, an N-dimensional example whose projections
    # are the ones the chain used, and move real prototypes by eq. (1) with it
    model = LabeledMixture(n_features=12, p_plus=0.6, lam=1.0, v_plus=1.0, v_minus=2.0)
    rng = np.random.default_rng(10 + K)
    W, R, Q = _start(model, K, rng)
    labels = np.array([1, -1, -1][:K], dtype=float)
    n = 60
    R, Q, _, cluster, normals, chi2, *_ = _check(
        R, Q, n, model, labels, 0.1, 0.0, 1.0, random_state=7
    )
    B = model.basis
    for t in range(n):
        perp = W - (W @ B.T) @ B
        L = np.linalg.cholesky(perp @ perp.T)
        U = np.linalg.solve(L, perp)  # orthonormal rows spanning the prototypes' own part
        rest = rng.standard_normal(model.n_features)
        rest -= B.T @ (B @ rest) + U.T @ (U @ rest)
        z = B.T @ normals[t, :2] + U.T @ normals[t, 2:] + rest * np.sqrt(chi2[t] / (rest @ rest))
        sigma = cluster[t]
        x = model.centers[sigma] + np.sqrt(model.variances[sigma]) * z
        wta_step(W, x, float(LABELS[sigma]), labels, 0.1, 0.0, 1.0)
        step = slice(t, t + 1)
        _chain_numpy(
            R,
            Q,
            labels,
            cluster[step],
            normals[step],
            chi2[step],
            *_model_arrays(model),
            0.1,
            0.0,
            1.0,
        )
        R_w, Q_w = model.overlaps(W)
        np.testing.assert_allclose(R, R_w, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(Q, Q_w, rtol=1e-9, atol=1e-12)


def test_the_chain_has_the_law_of_the_n_dimensional_simulation():
    # small N, where the chi-square's degrees of freedom and the Cholesky part matter most
    N, K, runs, steps = 8, 2, 3000, 40
    model = LabeledMixture(n_features=N, p_plus=0.7, lam=1.0)
    labels = np.array([1.0, -1.0])
    rng = np.random.default_rng(2024)
    W0 = np.ascontiguousarray(
        np.broadcast_to(
            np.array([[0.3, 0.1] + [0.2] * (N - 2), [0.0, 0.4] + [-0.1] * (N - 2)]), (runs, K, N)
        )
    )
    R0, Q0 = model.overlaps(W0[0])
    X, y = model.sample(steps, rng, batch_shape=(runs,))
    W = wta_online_updates(W0.copy(), X, y, labels, learning_rate=1.0 / N, a=0.0, b=1.0)
    R_full, Q_full = model.overlaps(W)
    chain = [
        wta_overlap_updates(
            R0,
            Q0,
            steps,
            model=model,
            prototype_labels=labels,
            learning_rate=1.0 / N,
            a=0.0,
            b=1.0,
            random_state=rng,
        )
        for _ in range(runs)
    ]
    R_chain = np.array([c[0] for c in chain])
    Q_chain = np.array([c[1] for c in chain])
    full = np.concatenate([R_full.reshape(runs, -1), Q_full[:, [0, 0, 1], [0, 1, 1]]], axis=1)
    red = np.concatenate([R_chain.reshape(runs, -1), Q_chain[:, [0, 0, 1], [0, 1, 1]]], axis=1)
    for moment in (1, 2):
        a, b = full**moment, red**moment
        z = (a.mean(0) - b.mean(0)) / np.sqrt(a.var(0, ddof=1) / runs + b.var(0, ddof=1) / runs)
        assert np.all(np.abs(z) < 4.5), (moment, z)


def test_bad_input_is_named():
    model = LabeledMixture(n_features=4, p_plus=0.5, lam=1.0)
    kw = {"prototype_labels": [1, -1], "learning_rate": 0.1, "a": 0.0, "b": 1.0}
    with pytest.raises(ValueError, match="n_features must exceed 2 \\+ n_prototypes"):
        wta_overlap_updates(np.zeros((2, 2)), np.eye(2), 5, model=model, **kw)
    model = LabeledMixture(n_features=10, p_plus=0.5, lam=1.0)
    with pytest.raises(ValueError, match="Q must be symmetric"):
        wta_overlap_updates(np.zeros((2, 2)), [[1.0, 0.5], [0.0, 1.0]], 5, model=model, **kw)
    with pytest.raises(ValueError, match="R must have shape"):
        wta_overlap_updates(np.zeros((2, 3)), np.eye(2), 5, model=model, **kw)
    with pytest.raises(ValueError, match="n_steps"):
        wta_overlap_updates(np.zeros((2, 2)), np.eye(2), -1, model=model, **kw)

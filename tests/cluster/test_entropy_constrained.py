"""Entropy-constrained clustering: the number of clusters follows from the code-length cost."""

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from statmechlearn.cluster import EntropyConstrainedClustering


def _uniform_optimum(lam, k_max=20):
    """Equal cells of [0, 1]: distortion 1/(12 K^2), code length ln K nats."""
    K = np.arange(1, k_max + 1)
    return int(K[np.argmin(1.0 / (12 * K**2) + lam * np.log(K))])


@pytest.mark.parametrize("K", [2, 3, 5])
def test_uniform_source_gets_the_closed_form_number_of_equal_cells(K):
    """``1/(12 K^2) + λ ln K`` is least at ``K = 1/sqrt(6 λ)``; equal cells, centres at their
    middles, distortion and rate those of the uniform quantiser (within sampling error)."""
    lam = 1.0 / (6.0 * K**2)
    assert _uniform_optimum(lam) == K
    X = np.linspace(0, 1, 600)[:, None]
    model = EntropyConstrainedClustering(lam, random_state=K).fit(X)
    assert model.n_clusters_ == K
    centres = np.sort(model.cluster_centers_[:, 0])
    np.testing.assert_allclose(centres, (np.arange(K) + 0.5) / K, atol=0.02)
    assert model.distortion_ == pytest.approx(1 / (12 * K**2), rel=0.05)
    assert model.rate_ == pytest.approx(np.log2(K), abs=0.02)


def test_larger_weight_trades_rate_for_distortion():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 2))
    fits = [EntropyConstrainedClustering(lam, random_state=0).fit(X) for lam in (1.0, 0.3, 0.1)]
    rates = [m.rate_ for m in fits]
    distortions = [m.distortion_ for m in fits]
    assert np.all(np.diff(rates) > 0) and np.all(np.diff(distortions) < 0)
    assert [m.n_clusters_ for m in fits] == sorted(m.n_clusters_ for m in fits)


def test_zero_weight_uses_every_cluster_allowed():
    X = np.random.default_rng(1).standard_normal((200, 2))
    model = EntropyConstrainedClustering(0.0, max_clusters=5, random_state=0).fit(X)
    assert model.n_clusters_ == 5


def test_encoder_code_lengths_and_soft_assignments():
    X = np.random.default_rng(2).uniform(0, 1, (300, 1))
    model = EntropyConstrainedClustering(0.01, random_state=0).fit(X)
    np.testing.assert_array_equal(model.predict(X), model.labels_)
    np.testing.assert_allclose(model.weights_.sum(), 1.0)
    np.testing.assert_allclose(model.code_lengths_, -np.log2(model.weights_))
    cost = model.transform(X)
    expected = ((X - model.cluster_centers_.T) ** 2) - 0.01 * np.log(model.weights_)
    np.testing.assert_allclose(cost, expected, atol=1e-12)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(np.argmax(proba, axis=1), model.labels_)


def test_fewer_rows_than_max_clusters_anneal_with_at_most_one_cluster_per_row():
    X = np.random.default_rng(0).standard_normal((5, 2))
    model = EntropyConstrainedClustering(0.0, max_clusters=8, random_state=0).fit(X)
    assert 1 <= model.n_clusters_ <= 5
    assert model.assignments_.shape == (5, model.n_clusters_)
    np.testing.assert_allclose(model.weights_.sum(), 1.0)


def test_bad_input_is_named():
    X = np.random.default_rng(0).standard_normal((5, 2))
    with pytest.raises(InvalidParameterError, match="entropy_weight"):
        EntropyConstrainedClustering(-0.1).fit(X)
    with pytest.raises(ValueError, match="inf"):
        EntropyConstrainedClustering(max_clusters=2).fit(np.array([[0.0], [np.inf], [1.0]]))


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("n", "K", "d"), [(1, 1, 1), (30, 7, 3), (257, 32, 5)])
def test_compiled_step_matches_its_numpy_twin(seed, n, K, d):
    from statmechlearn.cluster._entropy_constrained import _gibbs_step, _gibbs_step_numpy

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * 3.0
    P = rng.dirichlet(np.ones(K), size=n)
    P[:, -1] = 0.0  # an empty cluster: its share is clipped, its column stays finite
    P /= np.maximum(P.sum(axis=1, keepdims=True), 1e-300)
    P[P.sum(axis=1) == 0, 0] = 1.0
    for lam, T in [(0.0, 5.0), (0.3, 0.5), (2.0, 1e-3)]:
        got, change = _gibbs_step(X, np.einsum("ij,ij->i", X, X), np.zeros(0), P, lam, T)
        want, want_change = _gibbs_step_numpy(X, P, lam, T)
        assert np.all(np.isfinite(got))
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
        assert change == pytest.approx(want_change, rel=1e-9, abs=1e-12)

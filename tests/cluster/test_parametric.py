"""Parametric distributional clustering: cluster histograms as rectified-Gaussian mixtures."""

import numpy as np
import pytest
from scipy.stats import truncnorm
from sklearn.metrics import adjusted_rand_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from statmechlearn.cluster import (
    HistogramClustering,
    ParametricDistributionalClustering,
    rectified_gaussian_bins,
)
from statmechlearn.cluster._parametric import _Mixture

_DOMAIN = {
    "check_clustering": "negative features (blobs): counts must be >= 0",
    **dict.fromkeys(
        ("check_estimator_sparse_array", "check_estimator_sparse_matrix"),
        "the sparse checks read classifier tags for any estimator with predict_proba "
        "(sparse input is tested in tests/cluster/test_count_inputs.py)",
    ),
    # each split attempt perturbs every row by its own random number, so repeated rows
    # anneal along another path: the same partition, in another cluster order and with
    # other last digits (test_count_inputs.py compares the weighted and repeated fits)
    **dict.fromkeys(
        (
            "check_sample_weight_equivalence_on_dense_data",
            "check_sample_weight_equivalence_on_sparse_data",
        ),
        "split perturbations are drawn per row: repeated rows anneal along another path",
    ),
}


def _bumps(rng, centres, n_per, m=24, width=1.5, total=40):
    """Sparse count histograms: ``total`` draws from a Gaussian bump, per object a jittered
    centre."""
    rows, labels = [], []
    grid = np.arange(m) + 0.5
    for label, c in enumerate(centres):
        for _ in range(n_per):
            p = np.exp(-0.5 * ((grid - c - rng.normal(0, 0.5)) / width) ** 2)
            rows.append(rng.multinomial(total, p / p.sum()))
            labels.append(label)
    return np.array(rows, dtype=float), np.array(labels)


def test_rectified_bins_are_the_truncated_normal():
    edges = np.array([0.0, 0.5, 1.5, 3.0, 4.0])
    means, widths = np.array([0.2, 2.0, 5.0]), np.array([1.0, 0.3, 2.0])
    G = rectified_gaussian_bins(edges, means, widths)
    for a in range(3):
        lo, hi = (edges[0] - means[a]) / widths[a], (edges[-1] - means[a]) / widths[a]
        want = np.diff(truncnorm.cdf(edges, lo, hi, loc=means[a], scale=widths[a]))
        np.testing.assert_allclose(G[:, a], want, rtol=1e-10)
    np.testing.assert_allclose(G.sum(axis=0), 1.0)


@pytest.mark.parametrize("seed", [0, 1])
def test_recovers_bumps_and_generalises_to_new_sparse_histograms(seed):
    rng = np.random.default_rng(seed)
    X, y = _bumps(rng, [7.0, 16.0], 25)
    model = ParametricDistributionalClustering(2, n_prototypes=6, random_state=seed).fit(X)
    assert adjusted_rand_score(y, model.labels_) == 1.0
    assert np.all(model.cluster_distributions_ > 0)  # smooth: every bin possible
    np.testing.assert_allclose(model.cluster_distributions_.sum(axis=1), 1.0)
    means = model.cluster_distributions_ @ (np.arange(24) + 0.5)
    assert sorted(means) == pytest.approx([7.0, 16.0], abs=0.6)
    X_new, y_new = _bumps(rng, [7.0, 16.0], 20, total=8)
    pred = model.predict(X_new)
    assert adjusted_rand_score(y_new, pred) == 1.0
    proba = model.predict_proba(X_new)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_cost_knows_the_bin_order_histogram_clustering_does_not():
    """Permuting the bins leaves the KL cost of histogram clustering unchanged (§4.1) but
    makes the histograms rough, which the smooth mixtures fit worse (§4.2)."""
    rng = np.random.default_rng(0)
    X, _ = _bumps(rng, [7.0, 16.0], 20)
    perm = rng.permutation(X.shape[1])
    hist = [HistogramClustering(2, random_state=0).fit(Z).cost_ for Z in (X, X[:, perm])]
    assert hist[0] == pytest.approx(hist[1], rel=1e-9)
    param = [
        ParametricDistributionalClustering(2, n_prototypes=6, random_state=0).fit(Z).cost_
        for Z in (X, X[:, perm])
    ]
    assert param[1] > param[0] + 0.1


def test_prototype_step_never_lowers_the_likelihood():
    rng = np.random.default_rng(3)
    X, y = _bumps(rng, [5.0, 12.0, 19.0], 10)
    cond = X / X.sum(axis=1, keepdims=True)
    edges = np.arange(25.0)
    mix = _Mixture(
        edges, np.array([3.0, 9.0, 15.0, 21.0]), np.full(4, 3.0), cond, np.full(30, 1 / 30), 0.25, 5
    )
    P = np.eye(3)[y]

    def loglik():
        q, _ = mix.distributions(P)
        N = cond.T @ (P / 30)
        return float(np.sum(N * np.log(q.T)))

    values = [loglik()]
    for _ in range(4):
        mix.update_prototypes(P, 10)
        values.append(loglik())
    assert np.all(np.diff(values) >= -1e-9)
    assert values[-1] > values[0]


def test_a_row_of_zeros_is_assigned_by_the_prior():
    rng = np.random.default_rng(0)
    X, _ = _bumps(rng, [6.0, 16.0], 10)
    X = np.r_[X, np.zeros((1, X.shape[1]))]
    est = ParametricDistributionalClustering(n_prototypes=3, random_state=0).fit(X)
    heaviest = int(np.argmax(est.cluster_weights_))
    assert est.labels_[-1] == heaviest
    assert est.predict(X[-1:])[0] == heaviest
    np.testing.assert_allclose(est.assignments_[-1], est.cluster_weights_, atol=1e-6)
    assert np.isfinite(est.cost_)


def test_bad_input_is_named():
    X = np.ones((4, 5))
    with pytest.raises(ValueError, match="bin_edges must have n_bins \\+ 1 = 6"):
        ParametricDistributionalClustering(bin_edges=np.arange(5.0)).fit(X)
    with pytest.raises(ValueError, match="strictly increasing"):
        ParametricDistributionalClustering(bin_edges=[0, 1, 1, 2, 3, 4]).fit(X)
    with pytest.raises(ValueError, match="Negative values"):
        ParametricDistributionalClustering().fit(-X)
    with pytest.raises(ValueError, match="no counts: every row is zero"):
        ParametricDistributionalClustering().fit(np.zeros((4, 5)))
    with pytest.raises(ValueError, match="n_features = 1 bin"):
        ParametricDistributionalClustering().fit(np.ones((4, 1)))
    with pytest.raises(ValueError, match="n_clusters=5 must be <= n_samples=4"):
        ParametricDistributionalClustering(5).fit(X)


@parametrize_with_checks(
    [ParametricDistributionalClustering(n_prototypes=3, random_state=0)],
    expected_failed_checks=lambda est: _DOMAIN,
)
def test_sklearn_contract(estimator, check):
    check(estimator)

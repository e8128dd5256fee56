"""GibbsSamplerClustering and SmoothKMeans: estimator contract, numbers, bad input."""

import warnings

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.utils.estimator_checks import parametrize_with_checks

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn.cluster import GibbsSamplerClustering, SmoothKMeans
from statmechlearn.inference import KMeansCost, exact_gibbs, grid_graph


def _accuracy(y, labels):
    k = max(y.max(), labels.max()) + 1
    C = np.zeros((k, k))
    np.add.at(C, (y, labels), 1)
    r, c = linear_sum_assignment(-C)
    return C[r, c].sum() / y.size


def _gibbs_failures(estimator):
    if not isinstance(estimator, GibbsSamplerClustering):
        return {}
    return {
        # scikit-learn's sparse checks expect 2 or 4 probability columns (classifier tags)
        "check_estimator_sparse_array": "three clusters, three probability columns",
        "check_estimator_sparse_matrix": "three clusters, three probability columns",
        # a weighted and a repeated fit draw different random streams, and their cluster
        # labels are exchangeable: the same Gibbs distribution, not the same draws
        "check_sample_weight_equivalence_on_dense_data": "Monte Carlo, exchangeable labels",
        "check_sample_weight_equivalence_on_sparse_data": "Monte Carlo, exchangeable labels",
    }


@parametrize_with_checks(
    [
        GibbsSamplerClustering(3, n_sweeps=20, random_state=0),
        SmoothKMeans(3, random_state=0),
    ],
    expected_failed_checks=_gibbs_failures,
)
def test_sklearn_contract(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


# ----------------------------------------------------------------- Gibbs sampler


def test_sampler_reaches_kmeans_optimum_at_low_temperature():
    X, y = make_blobs(300, centers=3, random_state=1)
    est = GibbsSamplerClustering(3, temperature=0.2, random_state=0).fit(X)
    km = KMeans(3, n_init=10, random_state=0).fit(X)
    assert est.inertia_ == pytest.approx(km.inertia_, rel=1e-3)
    np.testing.assert_allclose(est.marginals_.sum(axis=1), 1.0)
    assert est.r_hat_ < 1.1
    assert _accuracy(y, est.labels_) > 0.95


def test_sampler_mean_cost_matches_enumeration_of_a_small_problem():
    # two overlapping groups, hot enough that the chains mix between the two modes
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 1))
    X[:4] += 2.5
    T = 2.0
    est = GibbsSamplerClustering(2, temperature=T, n_chains=16, n_sweeps=3000, random_state=1)
    est.fit(X)
    # the label-free number the estimator exposes: the expected cost over the chains
    exact = exact_gibbs(KMeansCost(X, 2), T)
    e = est.energy_trace_[:, est.sampling_.burn_in :].mean(axis=1)
    assert abs(e.mean() - exact.mean_energy) < 5 * e.std(ddof=1) / np.sqrt(16)


def test_predict_proba_is_the_hartigan_boltzmann_weight():
    X, _ = make_blobs(120, centers=2, random_state=3)
    est = GibbsSamplerClustering(2, temperature=0.5, random_state=0).fit(X)
    x = np.array([[0.0, 0.0]])
    n_nu = est.cluster_sizes_
    d = ((x - est.cluster_centers_) ** 2).sum(1)
    w = np.exp(-(n_nu / (n_nu + 1)) * d / 0.5 - np.max(-(n_nu / (n_nu + 1)) * d / 0.5))
    np.testing.assert_allclose(est.predict_proba(x)[0], w / w.sum(), rtol=1e-10)
    assert est.predict(x)[0] == np.argmax(w)


def test_sampler_bad_input():
    X = np.zeros((5, 2))
    with pytest.raises(ValueError, match="n_clusters"):
        GibbsSamplerClustering(6).fit(X)
    with pytest.raises(ValueError, match="temperature"):
        GibbsSamplerClustering(2, temperature=0.0).fit(X)
    with pytest.raises(ValueError, match="burn_in"):
        GibbsSamplerClustering(2, n_sweeps=10, burn_in=10).fit(X)
    with pytest.raises(ValueError, match="NaN"):
        GibbsSamplerClustering(2).fit(np.array([[0.0], [np.nan], [1.0]]))


# ----------------------------------------------------------------- smooth k-means


def _noisy_regions(seed, sigma=0.7, size=48):
    rng = np.random.default_rng(seed)
    truth = np.zeros((size, size), dtype=int)
    truth[:, size // 2 :] = 1
    truth[size // 4 : size // 2, size // 8 : size // 3] = 2
    return truth, truth + rng.normal(0, sigma, truth.shape)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_smooth_kmeans_segments_better_than_kmeans(seed):
    truth, noisy = _noisy_regions(seed)
    X = noisy.reshape(-1, 1)
    W = grid_graph(noisy.shape)
    sk = SmoothKMeans(3, smoothness=0.5, connectivity=W, random_state=seed).fit(X)
    km = KMeans(3, n_init=10, random_state=seed).fit(X)
    a_sk, a_km = _accuracy(truth.ravel(), sk.labels_), _accuracy(truth.ravel(), km.labels_)
    # sigma = 0.7 with levels one apart: pixel-wise k-means cannot exceed ~0.7
    assert a_km < 0.75 and a_sk > 0.9
    assert sk.cost_ >= sk.inertia_
    temps = np.asarray(sk.path_.temperature)
    assert temps[0] == temps.max()  # restarts resume lower down


def test_smooth_kmeans_without_graph_is_annealed_kmeans():
    X, _ = make_blobs(400, centers=4, random_state=2)
    sk = SmoothKMeans(4, random_state=0).fit(X)
    km = KMeans(4, n_init=10, random_state=0).fit(X)
    assert sk.inertia_ == pytest.approx(km.inertia_, rel=1e-6)
    assert sk.cost_ == sk.inertia_


def test_smooth_kmeans_callable_connectivity():
    from sklearn.neighbors import kneighbors_graph

    X, y = make_blobs(200, centers=2, random_state=0)

    def knn(X):
        A = kneighbors_graph(X, 5, include_self=False)
        return ((A + A.T) > 0).astype(float)

    sk = SmoothKMeans(2, smoothness=1.0, connectivity=knn, random_state=0).fit(X)
    assert _accuracy(y, sk.labels_) > 0.95


def test_smooth_kmeans_bad_graphs():
    X = np.random.default_rng(0).normal(size=(4, 1))
    with pytest.raises(ValueError, match="self-loops"):
        SmoothKMeans(2, connectivity=np.eye(4)).fit(X)
    with pytest.raises(ValueError, match="symmetric"):
        SmoothKMeans(2, connectivity=np.triu(np.ones((4, 4)), 1)).fit(X)
    with pytest.raises(ValueError, match="non-negative"):
        SmoothKMeans(2, connectivity=-(np.ones((4, 4)) - np.eye(4))).fit(X)
    with pytest.raises(ValueError, match="shape"):
        SmoothKMeans(2, connectivity=np.zeros((3, 3))).fit(X)
    with pytest.raises(ValueError, match="n_clusters"):
        SmoothKMeans(5).fit(X)

"""Pairwise clustering and constant shift embedding."""

import warnings

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from statmechlearn.cluster import ConstantShiftEmbedding, PairwiseClustering, pairwise_cost
from statmechlearn.cluster._dissimilarity import centre as _centre
from statmechlearn.cluster._pairwise import _mean_fields, check_dissimilarity
from statmechlearn.cluster._pairwise_anneal import (
    ProductCounter,
    _extrapolated,
    cluster_critical_temperatures,
    free_energy,
    mean_fields,
    solve,
)
from statmechlearn.cluster._schedule import SPLIT_MARGIN


def _sq_dist(X):
    return ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)


def _random_dissimilarity(rng, n=40):
    A = rng.uniform(0, 1, (n, n))
    A = A + A.T
    np.fill_diagonal(A, 0.0)
    return A


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_constant_shift_embedding_steps_1_to_9(seed):
    """The notes' §9.10 recipe, step by step, against the estimator."""
    rng = np.random.default_rng(seed)
    D = _random_dissimilarity(rng)
    n = D.shape[0]
    Q = np.eye(n) - np.ones((n, n)) / n
    S_c = -0.5 * Q @ D @ Q  # steps 3-4
    lam_n = np.linalg.eigvalsh(S_c)[0]
    assert lam_n < 0  # a random matrix is not Euclidean
    S_t = S_c - lam_n * np.eye(n)  # step 5
    D_t = np.diag(S_t)[:, None] + np.diag(S_t)[None, :] - 2 * S_t  # step 6
    S_tc = Q @ S_t @ Q  # step 7
    D_tc = -2 * S_tc  # step 8
    np.testing.assert_allclose(D_tc, Q @ D_t @ Q, atol=1e-12)  # step 9
    cse = ConstantShiftEmbedding()
    E = cse.fit_transform(D)
    assert cse.shift_ == pytest.approx(-2 * lam_n)
    np.testing.assert_allclose(cse.shifted_dissimilarity_, D_t, atol=1e-12)
    # the shifted dissimilarities are squared Euclidean distances of the embedding
    np.testing.assert_allclose(_sq_dist(E), D_t, atol=1e-10)
    assert np.all(cse.eigenvalues_ >= -1e-12)
    np.testing.assert_allclose(_centre(D), Q @ D @ Q, atol=1e-12)


def test_no_shift_for_squared_euclidean_distances():
    X = np.random.default_rng(3).normal(size=(30, 4))
    cse = ConstantShiftEmbedding().fit(_sq_dist(X))
    assert cse.shift_ == pytest.approx(0.0, abs=1e-9)
    assert cse.n_components_ == 4
    np.testing.assert_allclose(_sq_dist(cse.fit_transform(_sq_dist(X))), _sq_dist(X), atol=1e-9)
    # metric="sqeuclidean" computes the same matrix from the vectors
    np.testing.assert_allclose(
        ConstantShiftEmbedding(metric="sqeuclidean").fit(X).shifted_dissimilarity_,
        cse.shifted_dissimilarity_,
        atol=1e-9,
    )


def test_mean_fields_of_squared_distances_are_distances_to_centroids():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(25, 3))
    P = rng.dirichlet(np.ones(3), size=25)
    h, mass = _mean_fields(_sq_dist(X), P)
    centroids = (P.T @ X) / mass[:, None]
    expected = ((X[:, None, :] - centroids[None]) ** 2).sum(-1)
    np.testing.assert_allclose(h, expected, atol=1e-10)


@pytest.mark.parametrize("seed", [0, 1])
def test_pairwise_clustering_of_squared_distances_is_kmeans(seed):
    X, _ = make_blobs(150, centers=3, cluster_std=1.2, random_state=seed)
    pc = PairwiseClustering(3, random_state=seed).fit(_sq_dist(X))
    km = KMeans(3, n_init=10, random_state=seed).fit(X)
    # R of the pairwise cost = k-means inertia on the same partition
    assert pairwise_cost(_sq_dist(X), km.labels_) == pytest.approx(km.inertia_, rel=1e-10)
    assert pc.cost_ == pytest.approx(km.inertia_, rel=1e-9)
    assert adjusted_rand_score(pc.labels_, km.labels_) == 1.0
    vec = PairwiseClustering(3, metric="sqeuclidean", random_state=seed).fit(X)
    assert adjusted_rand_score(vec.labels_, pc.labels_) == 1.0


def test_first_split_at_the_critical_temperature():
    X, _ = make_blobs(120, centers=2, cluster_std=1.0, random_state=5)
    pc = PairwiseClustering(2, random_state=0).fit(_sq_dist(X))
    Xc = X - X.mean(axis=0)
    t_c = 2 * np.linalg.eigvalsh(Xc.T @ Xc / len(X))[-1]
    assert pc.critical_temperature_ == pytest.approx(t_c)
    # The split is made once T is SPLIT_MARGIN below T_c, and the schedule lands exactly there.
    temps = np.array(pc.path_.temperature)
    below = temps[temps <= (1 - SPLIT_MARGIN) * t_c * (1 + 1e-12)][0]
    assert below == pytest.approx((1 - SPLIT_MARGIN) * t_c, rel=1e-9)
    assert pc.path_.transitions()[0][0] == below


def test_shift_changes_the_cost_by_a_constant_and_makes_it_kmeans():
    """R(D + c(1 - I)) = R(D) + c (n - K) / 2 for every partition, and after the constant
    shift R is the k-means cost of the embedding: pairwise clustering of D = k-means there."""
    X, _ = make_blobs(90, centers=3, cluster_std=1.5, random_state=8)
    L1 = np.abs(X[:, None, :] - X[None, :, :]).sum(-1)
    D = L1**2  # squared L1 distances are not squared Euclidean ones
    cse = ConstantShiftEmbedding()
    E = cse.fit_transform(D)
    assert cse.shift_ > 0
    rng = np.random.default_rng(0)
    for labels in [rng.integers(0, 3, 90) for _ in range(5)]:
        k = len(np.unique(labels))
        shifted = pairwise_cost(cse.shifted_dissimilarity_, labels)
        assert shifted - pairwise_cost(D, labels) == pytest.approx(cse.shift_ * (90 - k) / 2)
        centroids = np.array([E[labels == c].mean(axis=0) for c in np.unique(labels)])
        inertia = ((E - centroids[np.searchsorted(np.unique(labels), labels)]) ** 2).sum()
        assert shifted == pytest.approx(inertia, rel=1e-10)
    pc = PairwiseClustering(3, random_state=0).fit(cse.shifted_dissimilarity_)
    km = KMeans(3, n_init=10, random_state=0).fit(E)
    assert adjusted_rand_score(pc.labels_, km.labels_) == 1.0
    assert pc.cost_ == pytest.approx(km.inertia_, rel=1e-9)


def test_predict_from_dissimilarities_to_training_objects():
    X, _ = make_blobs(60, centers=2, random_state=7)
    D = _sq_dist(X)
    pc = PairwiseClustering(2, random_state=0).fit(D)
    np.testing.assert_array_equal(pc.predict(D), pc.labels_)
    proba = pc.predict_proba(D[:5])
    assert proba.shape == (5, 2) and np.allclose(proba.sum(axis=1), 1.0)
    with pytest.raises(
        ValueError, match=r"X has 10 features, but PairwiseClustering is expecting 60"
    ):
        pc.predict(D[:, :10])


def test_bad_dissimilarities():
    D = _sq_dist(np.arange(4.0)[:, None])
    with pytest.raises(ValueError, match="square"):
        PairwiseClustering().fit(D[:3])
    with pytest.raises(ValueError, match="Negative values"):
        PairwiseClustering().fit(-D)
    bad = D.copy()
    bad[0, 0] = 1.0
    with pytest.raises(ValueError, match="zero diagonal"):
        PairwiseClustering().fit(bad)
    nan = D.copy()
    nan[0, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        PairwiseClustering().fit(nan)
    with pytest.raises(ValueError, match="n_clusters=5 must be <= n_samples=4"):
        PairwiseClustering(5).fit(D)
    with pytest.raises(ValueError, match="metric must be"):
        PairwiseClustering(metric="nope").fit(D)
    with pytest.raises(InvalidParameterError, match="min_temperature"):
        PairwiseClustering(min_temperature=-1.0).fit(D)
    asym = D.copy()
    asym[0, 1] += 0.5
    with pytest.warns(UserWarning, match="not symmetric"):
        a = PairwiseClustering(2, random_state=0).fit(asym)
    sym = 0.5 * (asym + asym.T)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        b = PairwiseClustering(2, random_state=0).fit(sym)
    assert not any("not symmetric" in str(w.message) for w in caught)
    assert a.cost_ == pytest.approx(b.cost_)


def _label_permutations(estimator):
    if not isinstance(estimator, PairwiseClustering):
        return {}
    # the weighted and the repeated fits find the same partition (tested in
    # test_estimator_inputs.py) from different random streams, and cluster labels are
    # exchangeable: their predict_proba columns can come in another order
    reason = "the same partition under other cluster numbers"
    return dict.fromkeys(
        (
            "check_sample_weight_equivalence_on_dense_data",
            "check_sample_weight_equivalence_on_sparse_data",
        ),
        reason,
    )


@parametrize_with_checks(
    [
        PairwiseClustering(metric="sqeuclidean", random_state=0),
        PairwiseClustering(metric="euclidean", random_state=0),
        ConstantShiftEmbedding(metric="sqeuclidean"),
    ],
    expected_failed_checks=_label_permutations,
)
def test_sklearn_contract(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tiny random data can leave clusters unsplit
        check(estimator)


# ---------------------------------------------------------------- the annealing machinery


def _weighted_covariance_tc(X, p):
    w = p / p.sum()
    Xc = X - w @ X
    return 2.0 * np.linalg.eigvalsh((Xc * w[:, None]).T @ Xc)[-1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lanczos_critical_temperatures_are_twice_the_cluster_covariance_eigenvalue(seed):
    """Reference twin: the dense eigenvalue of each cluster's weighted covariance."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(80, 4)) * [3.0, 1.0, 0.5, 0.2]
    D = _sq_dist(X)
    P = rng.dirichlet(np.ones(3), size=80)
    product = ProductCounter(D)
    G = product(P)
    h, _, mass = mean_fields(P, G, 80)
    t_c, _, directions = cluster_critical_temperatures(
        P, h, mass, product, starts=[rng.standard_normal(80) for _ in range(3)], tol=1e-10
    )
    for k in range(3):
        assert t_c[k] == pytest.approx(_weighted_covariance_tc(X, P[:, k]), rel=1e-8)
        # the split direction is the projection on the top eigenvector of the covariance
        w = P[:, k] / P[:, k].sum()
        Xc = X - w @ X
        e = np.linalg.eigh((Xc * w[:, None]).T @ Xc)[1][:, -1]
        assert abs(np.corrcoef(directions[:, k], Xc @ e)[0, 1]) == pytest.approx(1.0, abs=1e-6)
    # one product per Lanczos step serves all three clusters (rank 4: at most 4 + 1 steps)
    assert product.count <= 1 + 5


@pytest.mark.parametrize("seed", [0, 1])
def test_anderson_fixed_point_is_the_plain_iterations_fixed_point(seed):
    X, _ = make_blobs(120, centers=3, cluster_std=1.5, random_state=seed)
    D = _sq_dist(X)
    rng = np.random.default_rng(seed)
    pc = PairwiseClustering(3, random_state=seed).fit(D)
    T = 0.1 * pc.critical_temperature_
    product = ProductCounter(D)
    # a start in the basin of the three-cluster fixed point (from a random one the two can end
    # in different local minima, or in copies of one cluster whose mass split is a neutral mode)
    P0 = 0.8 * pc.assignments_ + 0.2 * rng.dirichlet(np.ones(3), size=120)
    _, _, fast, it_fast, ok_fast = solve(P0, D @ P0, T, product, tol=1e-10)
    _, _, slow, it_slow, ok_slow = solve(P0, D @ P0, T, product, tol=1e-10, depth=0, max_iter=5000)
    assert ok_fast and ok_slow
    # plain iterations stop at a step below tol, which along a slow mode is still short of the
    # fixed point by tol / (1 - rate)
    np.testing.assert_allclose(fast, slow, atol=1e-6)
    assert free_energy(fast, D @ fast, T) == pytest.approx(free_energy(slow, D @ slow, T), rel=1e-9)
    assert it_fast < it_slow
    h, _ = _mean_fields(D, fast)
    mass = fast.sum(axis=0)
    from statmechlearn.cluster._maxent import gibbs_assignments

    np.testing.assert_allclose(gibbs_assignments(h, T, np.log(mass / 120))[0], fast, atol=1e-9)


@pytest.mark.parametrize("seed", range(10))
def test_anderson_from_a_random_start_ends_where_plain_iteration_ends(seed):
    """Anderson mixing finds roots, saddles included: unguarded, from random soft starts
    below the first split it ended at saddles 25-35 % higher in free energy than plain
    iteration's fixed point on all ten of these problems. A mixed step that raises the
    free energy is replaced by the plain one, so it ends where plain iteration ends, in
    fewer products."""
    X, _ = make_blobs(300, centers=6, cluster_std=1.0, random_state=seed, n_features=3)
    D = _sq_dist(X)
    P0 = np.random.default_rng(seed).dirichlet(np.ones(4), size=300)
    Xc = X - X.mean(axis=0)
    T = 0.5 * 2 * np.linalg.eigvalsh(Xc.T @ Xc / 300)[-1]
    ends = []
    for depth in (None, 0):
        kw = {} if depth is None else {"depth": depth}
        _, _, out, n_iter, ok = solve(P0, D @ P0, T, ProductCounter(D), max_iter=3000, **kw)
        assert ok
        ends.append((free_energy(out, D @ out, T), n_iter))
    # (the assignments themselves may differ: copies sharing a blob have a neutral mode)
    (f_mixed, it_mixed), (f_plain, it_plain) = ends
    assert f_mixed <= f_plain + 1e-9 * abs(f_plain)
    assert it_mixed <= it_plain


def test_landing_aims_where_the_temperature_meets_the_moving_critical_one():
    """T_c of a cluster falls with T; with a linear T_c(T) the secant through two values
    puts the landing exactly at T* = (1 - margin) T_c(T*)."""
    slope, offset, margin = 0.4, 5.0, SPLIT_MARGIN
    t_c = lambda T: offset + slope * T  # noqa: E731
    T0, T1 = 9.0, 8.5
    aim = _extrapolated(np.array([t_c(T1), 3.0]), T1, (T0, np.array([t_c(T0), 3.0])), margin)
    landing = (1 - margin) * aim[0]
    assert landing == pytest.approx((1 - margin) * t_c(landing), rel=1e-12)
    assert landing < T1
    # a T_c that does not move with T, and no earlier value, are aimed at as they are
    assert aim[1] == 3.0
    np.testing.assert_array_equal(_extrapolated(np.array([7.0]), T1, None, margin), [7.0])


def test_mean_fields_from_the_product_match_the_direct_ones():
    rng = np.random.default_rng(5)
    D = _random_dissimilarity(rng, 30)
    P = rng.dirichlet(np.ones(4), size=30)
    h, _, mass = mean_fields(P, D @ P, 30)
    h_ref, mass_ref = _mean_fields(D, P)
    np.testing.assert_allclose(h, h_ref, rtol=1e-12)
    np.testing.assert_allclose(mass, mass_ref, rtol=1e-12)


def test_fit_reads_a_symmetric_input_without_copying_or_keeping_it():
    X, _ = make_blobs(50, centers=2, random_state=3)
    D = _sq_dist(X)
    D = 0.5 * (D + D.T)
    assert check_dissimilarity(D, copy=False) is D
    assert check_dissimilarity(D) is not D
    before = D.copy()
    pc = PairwiseClustering(2, random_state=0).fit(D)
    np.testing.assert_array_equal(D, before)
    assert not any(isinstance(v, np.ndarray) and v.shape == D.shape for v in vars(pc).values())
    assert pc.cost_ == pytest.approx(pairwise_cost(D, pc.labels_), rel=1e-12)
    assert pc.n_products_ >= pc.n_iter_ > 0


def test_symmetrise_in_blocks_matches_the_dense_formula():
    rng = np.random.default_rng(0)
    A = rng.uniform(size=(600, 600))  # larger than one block
    np.fill_diagonal(A, 0.0)
    with pytest.warns(UserWarning, match="not symmetric"):
        S = check_dissimilarity(A)
    np.testing.assert_array_equal(S, S.T)
    np.testing.assert_allclose(S, 0.5 * (A + A.T), rtol=1e-15)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_non_euclidean_dissimilarities_reach_a_local_minimum(seed):
    """On squared L1 distances (not Euclidean: the critical temperatures are estimates),
    the labels found admit no single-object move that lowers the cost."""
    X, _ = make_blobs(60, centers=3, cluster_std=1.0, random_state=seed)
    D = np.abs(X[:, None, :] - X[None, :, :]).sum(-1) ** 2
    pc = PairwiseClustering(3, random_state=seed).fit(D)
    assert len(np.unique(pc.labels_)) == 3
    base = pc.cost_
    for i in range(60):
        for k in range(3):
            if k != pc.labels_[i]:
                moved = pc.labels_.copy()
                moved[i] = k
                assert pairwise_cost(D, moved) >= base - 1e-9 * base


def test_products_grow_sublinearly_in_the_number_of_temperatures():
    X, _ = make_blobs(200, centers=3, cluster_std=1.5, random_state=0)
    D = _sq_dist(X)
    coarse = PairwiseClustering(3, cooling_rate=0.8, random_state=0).fit(D)
    fine = PairwiseClustering(3, cooling_rate=0.95, random_state=0).fit(D)
    ratio_t = len(fine.path_.temperature) / len(coarse.path_.temperature)
    assert ratio_t > 3
    assert fine.n_products_ / coarse.n_products_ < ratio_t
    assert adjusted_rand_score(fine.labels_, coarse.labels_) == 1.0


def test_mean_fields_of_an_empty_cluster_are_finite():
    # an empty cluster's mass sits at its floor (1e-300), whose square underflows to 0: the
    # within-cluster term must not become 0/0
    from statmechlearn.cluster._pairwise_anneal import mean_fields

    rng = np.random.default_rng()
    D = rng.random((6, 6))
    D = D + D.T
    np.fill_diagonal(D, 0.0)
    P = np.zeros((6, 3))
    P[:, 0], P[:3, 2] = 1.0, 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h, _ = _mean_fields(D, P)
        h_anneal, _, _ = mean_fields(P, D @ P, 6)
    assert np.all(np.isfinite(h)) and np.all(np.isfinite(h_anneal))
    np.testing.assert_allclose(h[:, 1], 0.0, atol=0)
    np.testing.assert_allclose(h_anneal, h, rtol=1e-12, atol=1e-12)

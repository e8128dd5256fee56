"""Sparse input, sample weights, float32 and verbose output of the SOMs, the quadratic-cost
annealers, the Gibbs sampler and pairwise clustering.

Each weighted fit is held to the fit of the rows repeated (integer weights) or dropped
(zero weights); each sparse fit to the fit of the same rows dense.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn.cluster import (
    ConstantShiftEmbedding,
    CorrelationClustering,
    GibbsSamplerClustering,
    KohonenSOM,
    LeastAngleClustering,
    PairwiseClustering,
    TopologicalVQ,
    pairwise_cost,
)
from statmechlearn.cluster._pairwise_graph import check_dissimilarity_graph, complete_graph
from statmechlearn.cluster._quadratic import (
    _least_angle_cost,
    _weighted_async_reference,
    _weighted_async_sweep,
)
from statmechlearn.cluster._weighted_moves import (
    weighted_direction_moves,
    weighted_map_moves,
    weighted_pair_moves,
)
from statmechlearn.inference import KMeansCost, sample_assignments


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def _blobs(n=45, seed=0):
    X, y = make_blobs(n, centers=3, cluster_std=0.6, random_state=seed)
    return X, y


def _sqdist(X):
    return ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)


def _similarity(y, rng):
    S = np.where(y[:, None] == y[None, :], 1.0, -1.0) + 0.3 * rng.standard_normal((len(y),) * 2)
    S = (S + S.T) / 2
    np.fill_diagonal(S, 0.0)
    return S


#: estimator factory, and whether it clusters points (rows) or a square matrix
POINTS = {
    "TopologicalVQ": lambda: TopologicalVQ((2, 2), sigma=0.5, random_state=0),
    "KohonenSOM": lambda: KohonenSOM((2, 2), max_iter=5, random_state=0),
    "LeastAngleClustering": lambda: LeastAngleClustering(3, random_state=0),
    "GibbsSamplerClustering": lambda: GibbsSamplerClustering(
        3, temperature=0.2, n_sweeps=40, random_state=0
    ),
}


def _points(name):
    X, _ = _blobs()
    return X - X.mean(axis=0) if name == "LeastAngleClustering" else X


# ------------------------------------------------------------------------------ sparse input
@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("name", sorted(POINTS))
def test_sparse_points_give_the_dense_fit(name, fmt):
    X = _points(name)
    X[np.abs(X) < 0.5] = 0.0  # some stored zeros and some missing entries
    dense = POINTS[name]().fit(X)
    sparse = POINTS[name]().fit(sp.csr_matrix(X).asformat(fmt))
    np.testing.assert_array_equal(sparse.labels_, dense.labels_)
    for attribute in ("cluster_centers_", "cluster_directions_"):
        if hasattr(dense, attribute):
            np.testing.assert_array_equal(getattr(sparse, attribute), getattr(dense, attribute))
    for method in ("predict", "predict_proba", "transform"):
        if hasattr(dense, method):
            np.testing.assert_array_equal(
                getattr(sparse, method)(sp.csr_matrix(X).asformat(fmt)),
                getattr(dense, method)(X),
            )


@pytest.mark.parametrize("cost", ["correlation", "shifted_correlation", "graph_partitioning"])
def test_a_sparse_similarity_graph_is_its_dense_matrix_with_zeros(cost):
    rng = np.random.default_rng(0)
    X, y = _blobs(30)
    if cost == "graph_partitioning":
        M = _sqdist(X)
        M[M > np.median(M)] = 0.0  # the far pairs left out of the cost
    else:
        M = _similarity(y, rng)
        M[np.abs(M) < 0.5] = 0.0
    params = {"n_clusters": 3, "cost": cost, "threshold": 0.2, "random_state": 0}
    dense = CorrelationClustering(**params).fit(M)
    sparse = CorrelationClustering(**params).fit(sp.csr_matrix(M))
    np.testing.assert_array_equal(sparse.labels_, dense.labels_)
    assert sparse.cost_ == dense.cost_


def test_constant_shift_embedding_completes_a_sparse_graph_by_shortest_paths():
    from sklearn.neighbors import kneighbors_graph

    X, _ = _blobs(30)
    graph = kneighbors_graph(X, 6, mode="distance")
    D = complete_graph(check_dissimilarity_graph(graph))
    np.testing.assert_allclose(D, D.T)
    assert np.all(np.diag(D) == 0.0)
    stored = graph.toarray()
    known = (stored > 0) & (stored.T > 0)
    # a stored distance is already a shortest path (kNN distances satisfy the triangle rule)
    np.testing.assert_allclose(D[known], stored[known], rtol=1e-12)
    from_graph = ConstantShiftEmbedding().fit(graph)
    from_dense = ConstantShiftEmbedding().fit(D)
    np.testing.assert_allclose(from_graph.eigenvalues_, from_dense.eigenvalues_, rtol=1e-10)
    assert from_graph.shift_ == pytest.approx(from_dense.shift_, rel=1e-10)


def test_constant_shift_embedding_of_sparse_feature_vectors():
    X = sp.random(30, 5, density=0.5, random_state=1, format="csr")
    dense = ConstantShiftEmbedding(metric="sqeuclidean").fit(X.toarray())
    sparse = ConstantShiftEmbedding(metric="sqeuclidean").fit(X)
    np.testing.assert_allclose(sparse.eigenvalues_, dense.eigenvalues_, atol=1e-12)


# ------------------------------------------------------------------------------ sample weights
def _counts(n, seed=0, low=0):
    return np.random.default_rng(seed).integers(low, 4, size=n)


@pytest.mark.parametrize("low", [0, 1])  # with zero weights (dropped rows) and without
@pytest.mark.parametrize("name", ["TopologicalVQ", "LeastAngleClustering"])
def test_integer_weights_are_repeated_rows(name, low):
    X = _points(name)
    counts = _counts(len(X), low=low)
    idx = np.repeat(np.arange(len(X)), counts)
    weighted = POINTS[name]().fit(X, sample_weight=counts.astype(float))
    repeated = POINTS[name]().fit(X[idx])
    assert adjusted_rand_score(weighted.labels_[idx], repeated.labels_) == 1.0
    if name == "TopologicalVQ":
        # the same anneal (the noise is drawn per unit, not per row): the same codebook
        scale = np.ptp(X, axis=0).max()
        np.testing.assert_allclose(
            weighted.cluster_centers_, repeated.cluster_centers_, atol=1e-9 * scale
        )
        np.testing.assert_allclose(
            weighted.path_.free_energy, repeated.path_.free_energy, rtol=1e-9, atol=1e-9
        )
    else:
        assert weighted.cost_ == pytest.approx(repeated.cost_, rel=1e-12)


def test_gibbs_sampler_weights_are_repeated_rows_at_low_temperature():
    X, _ = _blobs()
    counts = _counts(len(X))
    idx = np.repeat(np.arange(len(X)), counts)
    make = POINTS["GibbsSamplerClustering"]
    weighted = make().fit(X, sample_weight=counts.astype(float))
    repeated = make().fit(X[idx])
    assert adjusted_rand_score(weighted.labels_[idx], repeated.labels_) == 1.0
    assert weighted.inertia_ == pytest.approx(repeated.inertia_, rel=1e-12)
    # the marginals are Monte Carlo estimates of different chains: close, not equal
    order = np.argsort(weighted.cluster_centers_[:, 0])
    np.testing.assert_allclose(
        weighted.cluster_centers_[order],
        repeated.cluster_centers_[np.argsort(repeated.cluster_centers_[:, 0])],
        atol=0.05,
    )


def _square_fits():
    rng = np.random.default_rng(3)
    X, y = _blobs(36, seed=3)
    D = _sqdist(X)
    S = _similarity(y, rng)
    return {
        "pairwise": (lambda: PairwiseClustering(3, random_state=0), D),
        "normalized": (
            lambda: CorrelationClustering(3, cost="normalized_graph_partitioning", random_state=0),
            D,
        ),
        "graph": (
            lambda: CorrelationClustering(3, cost="graph_partitioning", random_state=0),
            D,
        ),
        "correlation": (lambda: CorrelationClustering(random_state=0), S),
    }


@pytest.mark.parametrize("low", [0, 1])
@pytest.mark.parametrize("kind", ["pairwise", "normalized", "graph", "correlation"])
def test_integer_object_weights_are_repeated_objects(kind, low):
    make, M = _square_fits()[kind]
    counts = _counts(len(M), seed=1, low=low)
    idx = np.repeat(np.arange(len(M)), counts)
    weighted = make().fit(M, sample_weight=counts.astype(float))
    repeated = make().fit(M[np.ix_(idx, idx)])
    assert adjusted_rand_score(weighted.labels_[idx], repeated.labels_) == 1.0
    assert weighted.cost_ == pytest.approx(repeated.cost_, rel=1e-9)
    if kind == "pairwise":
        kept = counts > 0
        assert weighted.cost_ == pytest.approx(
            pairwise_cost(M[np.ix_(idx, idx)], weighted.labels_[idx]), rel=1e-9
        )
        # new objects' mean fields follow the weights
        costs = weighted.assignment_costs(M[:5][:, :])
        assert costs.shape == (5, weighted.assignments_.shape[1])
        assert np.all(weighted.predict(M[kept][:, :]) == weighted.labels_[kept])


def _every_fit():
    cases = {name: (make, _points(name)) for name, make in POINTS.items()}
    return {**cases, **_square_fits()}


@pytest.mark.parametrize("case", sorted(_every_fit()))
def test_unit_weights_are_the_unweighted_fit_and_bad_weights_are_named(case):
    make, X = _every_fit()[case]
    n = X.shape[0]
    plain = make().fit(X)
    ones = make().fit(X, sample_weight=np.ones(n))
    np.testing.assert_array_equal(plain.labels_, ones.labels_)
    for bad in (-np.ones(n), np.ones(n + 1), np.zeros(n), np.full(n, np.nan)):
        with pytest.raises(ValueError, match="sample_weight"):
            make().fit(X, sample_weight=bad)


def test_kohonen_weights_scale_the_steps():
    X = _points("KohonenSOM")
    n = len(X)
    plain = POINTS["KohonenSOM"]().fit(X)
    # the steps are scaled by w / mean(w): equal weights are the plain rule
    same = POINTS["KohonenSOM"]().fit(X, sample_weight=np.full(n, 3.0))
    np.testing.assert_array_equal(same.cluster_centers_, plain.cluster_centers_)
    # a heavy sample pulls its unit towards it; zero weights never move the map
    w = np.ones(n)
    w[0] = 20.0
    heavy = POINTS["KohonenSOM"]().fit(X, sample_weight=w)
    near = heavy.predict(X[:1])[0]
    assert np.linalg.norm(heavy.cluster_centers_[near] - X[0]) < np.linalg.norm(
        plain.cluster_centers_[plain.predict(X[:1])[0]] - X[0]
    )
    # with every other weight zero only X[0] moves the map: each unit slides towards it
    init = X[[1, 10, 20, 30]]
    frozen = KohonenSOM((2, 2), max_iter=3, init=init, random_state=0).fit(
        X, sample_weight=np.r_[1.0, np.zeros(n - 1)]
    )
    toward = X[0] - init
    t = np.sum((frozen.cluster_centers_ - init) * toward, axis=1) / np.sum(toward**2, axis=1)
    np.testing.assert_allclose(frozen.cluster_centers_, init + t[:, None] * toward, atol=1e-12)
    assert np.all((t > 0) & (t <= 1))


# the weighted moves end at local minima of their weighted costs
def _weighted_pair_cost(W, labels, w, normalised):
    total = 0.0
    for c in np.unique(labels):
        idx = labels == c
        block = W[np.ix_(idx, idx)] * np.outer(w[idx], w[idx])
        if normalised:
            mass = w[idx].sum()
            total += block.sum() / (2.0 * mass) if mass > 0 else 0.0
        else:
            total += (block.sum() - np.trace(block)) / 2.0
    return total


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("normalised", [True, False])
def test_weighted_pair_moves_reach_a_local_minimum(seed, normalised):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((25, 2))
    W = _sqdist(X) if normalised else -_similarity(rng.integers(0, 3, 25), rng)
    w = rng.uniform(0.0, 3.0, 25)
    labels, _ = weighted_pair_moves(W, rng.integers(0, 3, 25), 3, w, normalised=normalised)
    best = _weighted_pair_cost(W, labels, w, normalised)
    for i in range(25):
        if np.sum(labels == labels[i]) <= 1:
            continue
        for b in range(3):
            trial = labels.copy()
            trial[i] = b
            assert _weighted_pair_cost(W, trial, w, normalised) >= best - 1e-9 * abs(best)


@pytest.mark.parametrize("seed", range(3))
def test_weighted_direction_and_map_moves_reach_local_minima(seed):
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((30, 3))
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    w = rng.uniform(0.0, 3.0, 30)
    labels, _ = weighted_direction_moves(E, rng.integers(0, 3, 30), 3, w)
    best = _least_angle_cost(E, labels, sample_weight=w)
    for i in range(30):
        for b in range(3):
            trial = labels.copy()
            trial[i] = b
            if np.sum(labels == labels[i]) > 1:
                assert _least_angle_cost(E, trial, sample_weight=w) >= best - 1e-12

    from statmechlearn.cluster import grid_transmission
    from statmechlearn.cluster._kohonen import _grid_coordinates

    X = rng.standard_normal((30, 2))
    T = grid_transmission(_grid_coordinates((3,)), 0.6)

    def cost(lab):
        R = T[lab] * w[:, None]
        Y = (R.T @ X) / R.sum(axis=0)[:, None]
        D = _sqdist_to(X, Y)
        return float(np.sum(R * D))

    labels, _ = weighted_map_moves(X, rng.integers(0, 3, 30), T, w)
    best = cost(labels)
    for i in range(30):
        for b in range(3):
            trial = labels.copy()
            trial[i] = b
            assert cost(trial) >= best - 1e-9 * best


def _sqdist_to(X, Y):
    return ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)


def test_weighted_async_sweep_matches_its_numpy_twin():
    rng = np.random.default_rng(0)
    J = rng.standard_normal((20, 20))
    J = (J + J.T) / 2
    np.fill_diagonal(J, 0.0)
    P = rng.dirichlet(np.ones(3), 20)
    w = rng.integers(0, 4, 20).astype(float)
    a, change_a = _weighted_async_sweep(J, P, 0.5, w, w.sum())
    b, change_b = _weighted_async_reference(J, P, 0.5, w, w.sum())
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
    assert change_a == pytest.approx(change_b, rel=1e-12)


def test_the_gibbs_samplers_loop_is_sample_assignments():
    X, _ = _blobs(30)
    est = GibbsSamplerClustering(3, temperature=0.5, n_sweeps=15, random_state=0)
    init = np.random.default_rng(1).integers(0, 3, size=(4, 30))
    cost = KMeansCost(X, 3)
    ours = est._sample(cost, init, np.random.default_rng(7))
    reference = sample_assignments(
        KMeansCost(X, 3), 0.5, n_chains=4, n_sweeps=15, init=init, random_state=7
    )
    np.testing.assert_array_equal(ours.energies, reference.energies)
    np.testing.assert_array_equal(ours.chain_marginals, reference.chain_marginals)
    np.testing.assert_array_equal(ours.labels, reference.labels)


# ------------------------------------------------------------------------------ float32
FLOATS = {
    "TopologicalVQ": ("cluster_centers_", ("transform", "predict_proba")),
    "KohonenSOM": ("cluster_centers_", ("transform",)),
    "LeastAngleClustering": ("cluster_directions_", ("predict_proba",)),
    "GibbsSamplerClustering": ("cluster_centers_", ("predict_proba",)),
}


@pytest.mark.parametrize("name", sorted(FLOATS))
def test_float32_points_give_float32_results_close_to_float64(name):
    X = _points(name)
    X32 = X.astype(np.float32)
    est = POINTS[name]().fit(X32)
    ref = POINTS[name]().fit(X32.astype(np.float64))
    attribute, methods = FLOATS[name]
    assert getattr(est, attribute).dtype == np.float32
    np.testing.assert_allclose(
        getattr(est, attribute), getattr(ref, attribute), rtol=1e-5, atol=1e-5
    )
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    for method in methods:
        out = getattr(est, method)(X32)
        assert out.dtype == np.float32, method
        np.testing.assert_allclose(out, getattr(ref, method)(X), rtol=1e-4, atol=1e-5)
    # float64 input to a float32 fit gives float64 outputs
    assert getattr(est, methods[0])(X).dtype == np.float64


def test_float32_dissimilarities_and_embedding():
    X, _ = _blobs(30)
    D = _sqdist(X)
    pc = PairwiseClustering(3, random_state=0).fit(D.astype(np.float32))
    ref = PairwiseClustering(3, random_state=0).fit(D.astype(np.float32).astype(float))
    np.testing.assert_array_equal(pc.labels_, ref.labels_)
    assert pc.predict_proba(D.astype(np.float32)).dtype == np.float32
    assert pc.assignment_costs(D.astype(np.float32)).dtype == np.float32
    cse = ConstantShiftEmbedding().fit(np.sqrt(D).astype(np.float32))
    cse64 = ConstantShiftEmbedding().fit(np.sqrt(D).astype(np.float32).astype(float))
    assert cse.embedding_.dtype == np.float32
    assert cse.fit_transform(np.sqrt(D).astype(np.float32)).dtype == np.float32
    np.testing.assert_allclose(
        np.abs(cse.embedding_), np.abs(cse64.embedding_), rtol=1e-4, atol=1e-4
    )
    cc = CorrelationClustering(3, cost="graph_partitioning", random_state=0)
    np.testing.assert_array_equal(
        cc.fit(D.astype(np.float32)).labels_,
        CorrelationClustering(3, cost="graph_partitioning", random_state=0)
        .fit(D.astype(np.float32).astype(float))
        .labels_,
    )


# ------------------------------------------------------------------------------ verbose
VERBOSE = {
    "TopologicalVQ": ("Temperature 1:", "Final moves"),
    "KohonenSOM": ("Epoch 1/5:", "Epoch 5/5:"),
    "LeastAngleClustering": ("Temperature 1:", "Final moves"),
    "GibbsSamplerClustering": ("Sweep 4/40:", "Sweep 40/40:"),
}


@pytest.mark.parametrize("name", sorted(VERBOSE))
def test_verbose_points_fits_report_and_quiet_ones_do_not(name, capsys):
    X = _points(name)
    POINTS[name]().fit(X)
    assert capsys.readouterr().out == ""
    POINTS[name]().set_params(verbose=1).fit(X)
    out = capsys.readouterr().out
    for line in VERBOSE[name]:
        assert line in out, (line, out[:500])
    assert len(out.splitlines()) >= 2


@pytest.mark.parametrize("kind", ["pairwise", "normalized", "correlation"])
def test_verbose_matrix_fits_report_each_temperature(kind, capsys):
    make, M = _square_fits()[kind]
    est = make().fit(M)
    assert capsys.readouterr().out == ""
    est.set_params(verbose=1).fit(M)
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("Temperature ")]
    assert len(lines) == len(est.path_.temperature)
    assert "free energy" in lines[0]
    assert "Final moves" in out


@pytest.mark.filterwarnings("ignore:the graph has 3 connected components")
def test_weighted_fit_of_a_sparse_neighbour_graph():
    from sklearn.neighbors import kneighbors_graph

    X, y = make_blobs(60, centers=3, cluster_std=0.5, random_state=2)
    graph = kneighbors_graph(X, 8, mode="distance")
    w = np.random.default_rng(0).integers(1, 4, 60).astype(float)
    plain = PairwiseClustering(3, random_state=0).fit(graph)
    ones = PairwiseClustering(3, random_state=0).fit(graph, sample_weight=np.ones(60))
    np.testing.assert_array_equal(plain.labels_, ones.labels_)
    weighted = PairwiseClustering(3, random_state=0).fit(graph, sample_weight=w)
    assert adjusted_rand_score(weighted.labels_, y) == 1.0
    assert weighted.predict_proba(graph[:4]).shape == (4, 3)
    np.testing.assert_array_equal(weighted.predict(graph), weighted.labels_)

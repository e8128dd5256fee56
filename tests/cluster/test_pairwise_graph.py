"""Pairwise clustering of a sparse dissimilarity graph: completion, embedding, fit, predict."""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score, pairwise_distances
from sklearn.neighbors import NearestNeighbors, kneighbors_graph

from statmechlearn.cluster import PairwiseClustering, pairwise_cost
from statmechlearn.cluster._pairwise_graph import (
    EmbeddedProduct,
    GraphCompletion,
    check_dissimilarity_graph,
    min_plus_rows,
    min_plus_rows_numpy,
)


def _blobs(n, seed, std=0.5, centers=3, d=2):
    return make_blobs(n, n_features=d, centers=centers, cluster_std=std, random_state=seed)


# separated blobs make a graph of separate components; the warning that says so is
# tested on its own (test_disconnected_components_are_far_apart_with_a_warning)
_COMPONENTS = pytest.mark.filterwarnings("ignore:the graph has:UserWarning")


def test_graph_is_symmetrised_over_the_union_of_its_pattern():
    X = sp.csr_matrix(
        (np.array([1.0, 2.0, 4.0, 0.0]), (np.array([0, 1, 2, 1]), np.array([1, 0, 1, 2]))),
        shape=(3, 3),
    )
    with pytest.warns(UserWarning, match="not symmetric"):
        G = check_dissimilarity_graph(X).toarray()
    # (0, 1) stored both ways, 1 and 2: the mean; (1, 2) stored as 4 and as an explicit 0
    assert G[0, 1] == G[1, 0] == 1.5
    assert G[1, 2] == G[2, 1] == 2.0
    one_way = sp.csr_matrix((np.array([3.0]), (np.array([2]), np.array([0]))), shape=(3, 3))
    G = check_dissimilarity_graph(one_way)
    assert G[0, 2] == G[2, 0] == 3.0 and G.nnz == 2


def test_an_explicit_zero_is_a_known_zero_dissimilarity():
    X = sp.csr_matrix((np.array([0.0, 5.0]), (np.array([0, 1]), np.array([1, 2]))), shape=(3, 3))
    G = check_dissimilarity_graph(X)
    assert G.nnz == 4 and G[0, 1] == 0.0
    completion = GraphCompletion(3, np.random.default_rng(0)).fit(G)
    # 0 and 1 coincide: the same path lengths to every landmark, 5 from object 2
    d = completion.distances_
    assert np.array_equal(d[0], d[1])
    assert set(d[2].tolist()) <= {0.0, 5.0} and d[0, 0] + d[2, 0] == 5.0
    # once two landmarks cover every object at distance 0, no third is chosen
    assert completion.landmarks_.size == 2


@pytest.mark.parametrize(
    ("X", "match"),
    [
        (sp.csr_matrix(np.ones((2, 3))), "square"),
        (sp.csr_matrix(np.array([[0.0, -1.0], [-1.0, 0.0]])), "Negative"),
        (sp.csr_matrix(np.array([[0.0, np.nan], [1.0, 0.0]])), "finite"),
        (sp.csr_matrix(np.array([[1.0, 1.0], [1.0, 0.0]])), "zero diagonal"),
        (sp.csr_matrix((3, 3)), "stores no dissimilarity"),
        (sp.csr_matrix(np.array([[0.0, 1e300], [1e300, 0.0]])), "X"),
    ],
)
def test_bad_graphs_are_refused_by_name(X, match):
    with pytest.raises(ValueError, match=match):
        check_dissimilarity_graph(X)


def test_complex_graph_is_refused():
    with pytest.raises(TypeError, match="real"):
        check_dissimilarity_graph(sp.csr_matrix(np.array([[0, 1j], [1j, 0]])))


@settings(max_examples=40, deadline=None)
@given(
    n_new=st.integers(1, 12),
    n_train=st.integers(1, 30),
    n_land=st.integers(1, 8),
    density=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_min_plus_rows_matches_its_numpy_twin(n_new, n_train, n_land, density, seed):
    rng = np.random.default_rng(seed)
    X = sp.random(n_new, n_train, density=density, format="csr", random_state=rng)
    distances = rng.uniform(0, 10, (n_train, n_land))
    got = min_plus_rows(X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data, distances)
    # a minimum of sums is exact: no rounding differs between the two
    np.testing.assert_array_equal(got, min_plus_rows_numpy(X, distances))


def test_embedded_product_is_the_squared_distance_product():
    rng = np.random.default_rng(1)
    Y = rng.standard_normal((50, 4))
    Z = rng.uniform(size=(50, 3))
    D = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=-1)
    product = EmbeddedProduct(Y.T)
    scale = np.abs(D).max() * np.abs(Z).sum(axis=0)
    np.testing.assert_allclose(product(Z), D @ Z, rtol=0, atol=1e-12 * scale.max())
    np.testing.assert_allclose(product(Z[:, 0]), D @ Z[:, 0], rtol=0, atol=1e-12 * scale.max())
    assert product.count == 2


def test_path_lengths_complete_a_line_exactly_and_the_embedding_reproduces_them():
    # points on a line joined to their two nearest neighbours each side: every path
    # length is the distance, |x_i - x_j| is conditionally negative definite, so classical
    # scaling with every object a landmark embeds it exactly (as squared distances)
    rng = np.random.default_rng(3)
    x = np.sort(rng.uniform(0, 10, 40))
    G = kneighbors_graph(x[:, None], 4, mode="distance")
    completion = GraphCompletion(40, np.random.default_rng(0)).fit(check_dissimilarity_graph(G))
    exact = np.abs(x[:, None] - x[None, :])
    np.testing.assert_allclose(
        completion.distances_, exact[:, completion.landmarks_], rtol=1e-13, atol=1e-13
    )
    Y = completion.embedding_
    embedded = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=-1)
    np.testing.assert_allclose(embedded, exact, rtol=0, atol=1e-8 * exact.max())


def test_a_complete_graph_clusters_as_the_dense_matrix():
    # every pair stored and the dissimilarities a metric: the completion is D itself and
    # with every object a landmark the embedding holds it exactly, so the annealing is the
    # dense one's
    X, _ = _blobs(90, seed=4)
    D = pairwise_distances(X)
    graph = sp.csr_matrix(D)
    dense = PairwiseClustering(3, random_state=0).fit(D)
    sparse = PairwiseClustering(3, n_landmarks=90, random_state=0).fit(graph)
    assert adjusted_rand_score(dense.labels_, sparse.labels_) == 1.0
    np.testing.assert_allclose(sparse.cost_, pairwise_cost(D, sparse.labels_), rtol=1e-8)
    np.testing.assert_allclose(sparse.critical_temperature_, dense.critical_temperature_, rtol=1e-7)


@_COMPONENTS
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_neighbour_graph_of_separated_blobs_is_clustered_exactly(seed):
    X, y = _blobs(600, seed=seed + 10)
    graph = kneighbors_graph(X, 10, mode="distance")
    pc = PairwiseClustering(3, random_state=seed).fit(graph)
    assert adjusted_rand_score(y, pc.labels_) == 1.0
    assert pc.embedding_.shape[0] == 600 and pc.landmarks_.shape == (100,)
    assert np.array_equal(pc.predict(graph), pc.labels_)


def test_overlapping_blobs_get_the_dense_partition():
    # four overlapping blobs in five dimensions: the graph's partition is the dense
    # Euclidean matrix's up to the few points between blobs
    X, y = make_blobs(1500, n_features=5, centers=4, cluster_std=2.5, random_state=0)
    dense = PairwiseClustering(4, metric="euclidean", random_state=0).fit(X)
    sparse = PairwiseClustering(4, random_state=0).fit(kneighbors_graph(X, 10, mode="distance"))
    assert adjusted_rand_score(dense.labels_, sparse.labels_) > 0.95
    assert adjusted_rand_score(y, sparse.labels_) > adjusted_rand_score(y, dense.labels_) - 0.02


def test_disconnected_components_are_far_apart_with_a_warning():
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    X, y = make_blobs(300, centers=centres, cluster_std=0.5, random_state=5)
    graph = kneighbors_graph(X, 5, mode="distance")
    with pytest.warns(UserWarning, match="3 connected components"):
        pc = PairwiseClustering(3, random_state=0).fit(graph)
    assert adjusted_rand_score(y, pc.labels_) == 1.0


@_COMPONENTS
def test_new_objects_are_placed_through_their_paths_to_the_landmarks():
    X, _ = _blobs(400, seed=6)
    new, _ = _blobs(60, seed=6)  # the same centres
    new = new + 0.05
    graph = kneighbors_graph(X, 8, mode="distance")
    pc = PairwiseClustering(3, random_state=0).fit(graph)
    nn = NearestNeighbors(n_neighbors=8).fit(X)
    rows = nn.kneighbors_graph(new, mode="distance")
    nearest = pc.labels_[nn.kneighbors(new, 1, return_distance=False)[:, 0]]
    assert np.array_equal(pc.predict(rows), nearest)
    # a dense row is every dissimilarity known: the same clusters
    assert np.array_equal(pc.predict(pairwise_distances(new, X)), nearest)
    proba = pc.predict_proba(rows)
    assert proba.shape == (60, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # an object joined to no training object is as far as the graph allows from all
    assert pc.predict(sp.csr_matrix((1, 400))).shape == (1,)


@pytest.mark.parametrize("fmt", ["dok", "lil", "dia", "bsr", "csc", "coo", "csr", "csr_64"])
def test_every_sparse_format_fits_and_predicts(fmt):
    # scikit-learn's sparse checks, which stop at the classifier tags they expect
    rng = np.random.default_rng(0)
    X = pairwise_distances(rng.uniform(size=(40, 3)))
    X[X < 0.3] = 0.0
    graph = sp.csr_matrix(X)
    if fmt == "csr_64":
        graph.indices = graph.indices.astype(np.int64)
        graph.indptr = graph.indptr.astype(np.int64)
    else:
        graph = graph.asformat(fmt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        pc = PairwiseClustering(random_state=0).fit(graph)
        assert pc.predict(graph).shape == (40,)
        assert pc.predict_proba(graph).shape == (40, pc.assignments_.shape[1])


@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean", "cosine", "nan_euclidean"])
def test_sparse_rows_are_feature_vectors_for_a_feature_metric(metric):
    """With a metric, a sparse X holds feature vectors (not a graph): the fit is the
    dense rows' fit."""
    X = sp.random(40, 6, density=0.4, random_state=0, format="csr") * 5.0
    dense = PairwiseClustering(2, metric=metric, random_state=0).fit(X.toarray())
    sparse = PairwiseClustering(2, metric=metric, random_state=0).fit(X)
    np.testing.assert_array_equal(sparse.labels_, dense.labels_)
    np.testing.assert_allclose(sparse.predict_proba(X[:5]), dense.predict_proba(X[:5].toarray()))


def test_a_sparse_x_that_is_not_square_is_named_as_a_graph():
    rows = sp.random(40, 3, density=0.5, random_state=0, format="csr")
    with pytest.raises(ValueError, match=r"neighbour graph.*metric='sqeuclidean'"):
        PairwiseClustering().fit(rows)


@pytest.mark.parametrize("check", ["check_estimator_sparse_array", "check_estimator_sparse_matrix"])
def test_scikit_learns_sparse_checks_pass_at_the_defaults(check):
    from sklearn.utils import estimator_checks

    getattr(estimator_checks, check)("PairwiseClustering", PairwiseClustering())


@_COMPONENTS
def test_bad_new_rows_are_refused():
    X, _ = _blobs(60, seed=7)
    pc = PairwiseClustering(3, random_state=0).fit(kneighbors_graph(X, 5, mode="distance"))
    with pytest.raises(ValueError, match="60"):
        pc.predict(sp.csr_matrix((2, 59)))
    with pytest.raises(ValueError, match="non-negative"):
        pc.predict(sp.csr_matrix(-np.ones((1, 60))))
    with pytest.raises(ValueError, match="n_clusters=61"):
        PairwiseClustering(61).fit(kneighbors_graph(X, 5, mode="distance"))


def _fit_peak(n):
    X, _ = make_blobs(n, n_features=5, centers=4, cluster_std=2.5, random_state=0)
    graph = kneighbors_graph(X, 10, mode="distance")
    tracemalloc.start()
    try:
        PairwiseClustering(4, random_state=0).fit(graph)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak


def test_fit_memory_is_linear_in_n():
    # the fit holds the n x L path lengths, the n x p embedding, the Lanczos vectors of
    # the first critical temperature (at most p + 2 of them: D has that rank) and O(n K)
    # arrays; a dense D at n = 20 000 would take 3.2 GB
    small = _fit_peak(5000)
    large = _fit_peak(20000)
    assert large < 0.05 * 8 * 20000**2  # measured 65 MB, 2 % of the dense D
    assert large / small < 6.0  # 4 if linear, 16 if quadratic

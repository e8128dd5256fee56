"""KohonenSOM: the compiled on-line loop against its NumPy twin, the map it learns, its errors,
and the zero-temperature link to TopologicalVQ (docs/derivations/topographic_vq.md)."""

import numpy as np
import pytest

from statmechlearn.cluster import (
    KohonenSOM,
    TopologicalVQ,
    grid_transmission,
    quantization_error,
    topographic_error,
)
from statmechlearn.cluster._kohonen import som_epochs, som_epochs_numpy


@pytest.mark.parametrize("d", [1, 2, 3])
def test_compiled_loop_matches_numpy_twin_step_for_step(d):
    rng = np.random.default_rng(d)
    X = rng.normal(size=(60, d))
    grid = np.array([[i, j] for i in range(3) for j in range(4)], dtype=float)
    grid_sq = ((grid[:, None] - grid[None]) ** 2).sum(-1)
    order = rng.integers(0, 60, 300)
    rates = np.geomspace(0.5, 0.01, 300)
    sigmas = np.geomspace(2.0, 0.3, 300)
    a = X[rng.choice(60, 12, replace=False)].copy()
    b = a.copy()
    for t in range(300):  # one step at a time: every intermediate codebook agrees
        wa = som_epochs(a, X, order[t : t + 1], grid_sq, rates[t : t + 1], sigmas[t : t + 1])
        wb = som_epochs_numpy(b, X, order[t : t + 1], grid_sq, rates[t : t + 1], sigmas[t : t + 1])
        assert wa[0] == wb[0]
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    # and the whole run in one call
    c, e = X[:12].copy(), X[:12].copy()
    np.testing.assert_array_equal(
        som_epochs(c, X, order, grid_sq, rates, sigmas),
        som_epochs_numpy(e, X, order, grid_sq, rates, sigmas),
    )
    np.testing.assert_allclose(c, e, rtol=1e-12, atol=1e-14)


def test_single_step_is_kohonens_rule():
    Y = np.array([[0.0], [1.0], [2.0]])
    grid_sq = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]])
    x = np.array([[1.2]])
    winners = som_epochs(Y, x, np.array([0]), grid_sq, np.array([0.5]), np.array([1.0]))
    assert winners[0] == 1
    h = np.exp(-np.array([1.0, 0.0, 1.0]) / 2.0)
    np.testing.assert_allclose(Y[:, 0], [0.0, 1.0, 2.0] + 0.5 * h * (1.2 - np.array([0, 1, 2])))


def test_fit_learns_an_ordered_chain_near_the_optimal_quantiser():
    X = np.random.default_rng(0).uniform(0, 1, (2000, 1))
    som = KohonenSOM(8, random_state=0).fit(X)
    c = som.cluster_centers_[:, 0]
    assert np.all(np.diff(c) > 0) or np.all(np.diff(c) < 0)
    assert som.topographic_error_ == 0.0
    # 1/(4k) for k equal cells; the neighbourhood (final sigma 0.5) pulls the end units in,
    # which costs about 1.5 % (the exact fixed point, maxent-som); on 20000 fresh points the
    # error's sampling spread is ~0.2 %, the codebook's spread over training sets ~0.5 %
    fresh = np.random.default_rng(10).uniform(0, 1, (20000, 1))
    assert 0.995 < quantization_error(fresh, som.cluster_centers_) * 4 * 8 < 1.05
    assert 0.97 < som.quantization_error_ * 4 * 8 < 1.05
    assert som.labels_.shape == (2000,)
    np.testing.assert_array_equal(som.predict(X), som.labels_)
    np.testing.assert_array_equal(som.fit_predict(X), som.labels_)
    assert som.n_iter_ == 20


def test_square_map_unfolds_with_both_inits():
    X = np.random.default_rng(1).uniform(0, 1, (600, 2))
    for init in ("random", "pca"):
        som = KohonenSOM((4, 4), init=init, random_state=2).fit(X)
        assert som.topographic_error_ < 0.02, init
        assert som.grid_.shape == (16, 2)
        assert som.cluster_centers_.shape == (16, 2)


def test_array_init_fine_tunes_a_given_codebook():
    X = np.random.default_rng(11).uniform(0, 1, (400, 2))
    rough = KohonenSOM((3, 3), max_iter=5, random_state=0).fit(X)
    fine = KohonenSOM(
        (3, 3), sigma=0.5, init=rough.cluster_centers_, max_iter=5, random_state=0
    ).fit(X)
    assert fine.topographic_error_ == 0.0
    assert np.max(np.abs(fine.cluster_centers_ - rough.cluster_centers_)) < 0.1
    # the given codebook is copied, not trained in place
    init = rough.cluster_centers_.copy()
    KohonenSOM((3, 3), init=init, max_iter=1).fit(X)
    np.testing.assert_array_equal(init, rough.cluster_centers_)
    with pytest.raises(ValueError, match="init"):
        KohonenSOM((3, 3), init=np.zeros((4, 2))).fit(X)
    with pytest.raises(ValueError, match="init"):
        KohonenSOM((3, 3), init=np.full((9, 2), np.nan)).fit(X)


def test_transform_is_the_distance_to_each_unit():
    X = np.random.default_rng(3).normal(size=(50, 3))
    som = KohonenSOM((2, 3), max_iter=3, random_state=0).fit(X)
    D = som.transform(X)
    ref = np.linalg.norm(X[:, None, :] - som.cluster_centers_[None], axis=-1)
    np.testing.assert_allclose(D, ref, rtol=1e-10, atol=1e-12)
    assert list(som.get_feature_names_out()) == [f"kohonensom{i}" for i in range(6)]


def test_errors_are_refused_by_name():
    X = np.random.default_rng(4).normal(size=(5, 2))
    with pytest.raises(ValueError, match="grid_shape"):
        KohonenSOM((3, 3), init="random", random_state=0).fit(X)  # more units than samples
    KohonenSOM((3, 3), init="pca", random_state=0).fit(X)  # pca needs no samples per unit
    # "auto" (the default) draws samples where there are enough and lays out the plane otherwise
    for shape, init in (((3, 3), "pca"), ((2, 2), "random")):
        auto = KohonenSOM(shape, max_iter=2, random_state=0).fit(X)
        explicit = KohonenSOM(shape, init=init, max_iter=2, random_state=0).fit(X)
        np.testing.assert_array_equal(auto.cluster_centers_, explicit.cluster_centers_)
    with pytest.raises(ValueError, match="grid_shape"):
        KohonenSOM((2, 2, 2)).fit(X)
    with pytest.raises(ValueError, match="grid_shape"):
        KohonenSOM((0, 2)).fit(X)
    with pytest.raises(ValueError, match="codebook"):
        quantization_error(X, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="grid_shape"):
        topographic_error(X, np.zeros((4, 2)), (3,))


def test_metrics_match_their_definitions():
    rng = np.random.default_rng(5)
    X, Y = rng.normal(size=(200, 2)), rng.normal(size=(6, 2))
    D = np.linalg.norm(X[:, None] - Y[None], axis=-1)
    assert quantization_error(X, Y) == pytest.approx(D.min(axis=1).mean(), rel=1e-12)
    grid = np.array([[i, j] for i in range(2) for j in range(3)], dtype=float)
    first, second = np.argsort(D, axis=1)[:, 0], np.argsort(D, axis=1)[:, 1]
    far = np.linalg.norm(grid[first] - grid[second], axis=1) > 1.5
    assert topographic_error(X, Y, (2, 3)) == pytest.approx(far.mean())
    assert topographic_error(X, Y[:1], 1) == 0.0


def test_metrics_agree_with_topological_vq_methods():
    X = np.random.default_rng(6).uniform(0, 1, (300, 2))
    tvq = TopologicalVQ((3, 3), sigma=0.5, random_state=0).fit(X)
    assert quantization_error(X, tvq.cluster_centers_) == tvq.quantization_error(X)
    assert topographic_error(X, tvq.cluster_centers_, (3, 3)) == tvq.topographic_error(X)


def test_metrics_agree_with_minisom():
    minisom = pytest.importorskip("minisom")
    rng = np.random.default_rng(7)
    X = rng.uniform(0, 1, (300, 2))
    peer = minisom.MiniSom(3, 4, 2, sigma=1.0, random_seed=1)
    peer.random_weights_init(X)
    peer.train(X, 500)
    W = peer.get_weights().reshape(-1, 2)
    assert quantization_error(X, W) == pytest.approx(peer.quantization_error(X), rel=1e-10)
    assert topographic_error(X, W, (3, 4)) == pytest.approx(peer.topographic_error(X))


# ---------------------------------------------------------------- the zero-temperature limit


def _batch_fixed_point(X, H, Y, winner):
    """Batch SOM ``y_nu = sum_i H[c(i), nu] x_i / sum_i H[c(i), nu]``, iterated to rest."""
    for _ in range(2000):
        D = ((X[:, None, :] - Y[None]) ** 2).sum(-1)
        c = np.argmin(D if winner == "nearest" else D @ H.T, axis=1)
        W = H[c]
        new = (W.T @ X) / W.sum(axis=0)[:, None]
        if np.max(np.abs(new - Y)) < 1e-13:
            return new
        Y = new
    raise AssertionError("batch fixed point not reached")


def test_fixed_neighbourhood_online_map_reaches_the_batch_fixed_point():
    """Kohonen's rule with fixed h and a decaying rate is the stochastic approximation of
    the batch map with the nearest-unit winner (on the same sample)."""
    x = np.random.default_rng(8).uniform(0, 1, (1000, 1))
    k = 8
    g = np.arange(k, dtype=float)[:, None]
    H = np.exp(-((g - g.T) ** 2) / 2.0)
    som = KohonenSOM(
        k, sigma=1.0, final_sigma=1.0, final_learning_rate=0.001, max_iter=40, random_state=0
    ).fit(x)
    Y = np.sort(som.cluster_centers_, axis=0)
    ref = _batch_fixed_point(x, H, Y.copy(), "nearest")
    # on-line noise ~ sqrt(eta) * cell width: a few hundredths of the spacing 1/k
    assert np.max(np.abs(Y - ref)) * k < 0.05


def test_annealed_channel_map_reaches_the_zero_temperature_fixed_point():
    """TopologicalVQ at low temperature is the batch map with the least-expected-cost winner
    and the row-normalised transmission."""
    x = np.random.default_rng(9).uniform(0, 1, (600, 1))
    k = 6
    T = grid_transmission(np.arange(k, dtype=float)[:, None], 1.0)
    tvq = TopologicalVQ(k, sigma=1.0, min_temperature=1e-6, random_state=0).fit(x)
    Y = tvq.cluster_centers_.copy()
    ref = _batch_fixed_point(x, T, Y.copy(), "weighted")
    assert np.max(np.abs(Y - ref)) * k < 0.01

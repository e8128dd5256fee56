"""Soft topographic vector quantisation (the SOM as a noisy-channel code)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from statmechlearn.cluster import (
    TopologicalVQ,
    grid_transmission,
    topographic_critical_temperature,
)
from statmechlearn.cluster._kohonen import _grid_coordinates
from statmechlearn.cluster._maxent import assignment_entropy, gibbs_assignments
from statmechlearn.cluster._topographic_kernel import (
    NUMPY_ENTRIES,
    SPARSE_MIN_FEATURES,
    SPARSE_SHARE,
    _sparse_statistics,
    centres,
    gibbs_rows,
    gibbs_rows_numpy,
    solve_temperature,
    topographic_map,
)


def _elongated(rng, n=400):
    return rng.standard_normal((n, 2)) * [2.0, 0.5]


def test_transmission_rows_are_channel_probabilities():
    grid = np.column_stack([np.repeat(np.arange(3.0), 4), np.tile(np.arange(4.0), 3)])
    T = grid_transmission(grid, 0.8)
    np.testing.assert_allclose(T.sum(axis=1), 1.0)
    assert np.all(np.argmax(T, axis=1) == np.arange(12))  # an index mostly arrives intact
    np.testing.assert_array_equal(grid_transmission(grid, 0.0), np.eye(12))


@pytest.mark.parametrize("grid_shape", [4, (3, 3)])
@pytest.mark.parametrize("seed", [0, 1])
def test_map_unfolds_at_the_predicted_critical_temperature(grid_shape, seed):
    """Annealed down to 1.1 T_c every unit still sits at the mean; to 0.9 T_c the map has
    unfolded, along the leading principal axis."""
    rng = np.random.default_rng(seed)
    X = _elongated(rng)
    model = TopologicalVQ(grid_shape, sigma=0.8, max_iter=5000, tol=1e-9, random_state=seed)
    t_c = topographic_critical_temperature(X, grid_transmission(model.fit(X).grid_, 0.8))
    assert model.critical_temperature_ == pytest.approx(t_c)

    above = TopologicalVQ(**{**model.get_params(), "min_temperature": 1.1 * t_c}).fit(X)
    spread = np.ptp(above.cluster_centers_, axis=0)
    assert np.all(spread < 1e-3)
    below = TopologicalVQ(**{**model.get_params(), "min_temperature": 0.9 * t_c}).fit(X)
    spread = np.ptp(below.cluster_centers_, axis=0)
    assert spread[0] > 0.05 and spread[0] > 10 * spread[1]


def test_chain_orders_itself_along_a_line():
    X = np.linspace(-1, 1, 300)[:, None] * [1.0, 0.3]
    som = TopologicalVQ(8, sigma=0.6, random_state=0).fit(X)
    c = som.cluster_centers_[:, 0]
    assert np.all(np.diff(c) > 0) or np.all(np.diff(c) < 0)
    assert som.topographic_error(X) == 0.0
    assert som.quantization_error(X) < 2.0 / 8


def test_grid_covers_the_square_with_few_topographic_errors():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (600, 2))
    som = TopologicalVQ((5, 5), sigma=0.7, random_state=0).fit(X)
    assert som.topographic_error(X) < 0.05
    # 25 cells of side 0.2: the mean distance to a cell's centre is about 0.077
    assert som.quantization_error(X) < 0.1
    assert som.path_.transitions()[0][1] == 1  # one collapsed unit, then the map


def test_noiseless_channel_is_deterministic_annealing_with_fixed_units():
    X, y = make_blobs(n_samples=150, centers=3, cluster_std=0.5, random_state=0)
    som = TopologicalVQ(3, sigma=0.0, random_state=0).fit(X)
    assert adjusted_rand_score(y, som.labels_) == 1.0
    np.testing.assert_array_equal(som.predict(X), som.labels_)


def test_transform_predict_and_proba_agree():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((120, 3))
    som = TopologicalVQ((2, 3), sigma=0.5, random_state=1).fit(X)
    H = som.transform(X[:10])
    assert H.shape == (10, 6)
    np.testing.assert_array_equal(np.argmin(H, axis=1), som.predict(X[:10]))
    proba = som.predict_proba(X[:10])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(np.argmax(proba, axis=1), som.predict(X[:10]))


def test_the_default_map_has_more_units_than_a_small_data_set_has_rows():
    # with a neighbourhood every unit is a weighted mean of all objects, used or not
    X = np.random.default_rng(0).standard_normal((10, 2))
    som = TopologicalVQ(random_state=0).fit(X)
    assert som.cluster_centers_.shape == (25, 2)
    assert np.all(np.isfinite(som.cluster_centers_))
    np.testing.assert_array_equal(som.predict(X), som.labels_)


def test_bad_input_is_named():
    X = np.random.default_rng(0).standard_normal((10, 2))
    with pytest.raises(ValueError, match=r"K=12 units > n_samples=10, which sigma=0"):
        TopologicalVQ((3, 4), sigma=0).fit(X)
    with pytest.raises(ValueError, match="grid_shape must be"):
        TopologicalVQ((2, 2, 2)).fit(X)
    with pytest.raises(ValueError, match="grid_shape must be"):
        TopologicalVQ((0, 3)).fit(X)
    with pytest.raises(InvalidParameterError, match="sigma"):
        TopologicalVQ(3, sigma=-1.0).fit(X)
    with pytest.raises(ValueError, match="NaN"):
        TopologicalVQ(3).fit(np.where(np.eye(10, 2) > 0, np.nan, X))


def test_unconverged_last_temperature_warns():
    X = _elongated(np.random.default_rng(0), 100)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        TopologicalVQ(4, max_iter=2, tol=0.0, random_state=0).fit(X)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("share", [0.0, 0.02, 0.5 * SPARSE_SHARE, SPARSE_SHARE, 0.5, 1.0])
def test_sparse_statistics_are_the_product(seed, share):
    """``P^T X`` from the nonzero weights, to rounding, however many there are."""
    rng = np.random.default_rng(seed)
    n, K, d = 700, 12, 9
    X = rng.standard_normal((n, d))
    P = rng.random((n, K)) * (rng.random((n, K)) < share)
    S = np.full((K, d), np.nan)
    _sparse_statistics(P, X, S)
    exact = P.T @ X
    np.testing.assert_allclose(S, exact, rtol=0, atol=1e-13 * (np.abs(P).T @ np.abs(X)).max())


@pytest.mark.parametrize("d", [2, SPARSE_MIN_FEATURES])
def test_map_statistics_are_the_product_on_either_path(d):
    """Hard assignments (at a low temperature nearly every weight is zero): the map's
    centroid sums equal ``P^T X`` whether it takes the sparse loop (many features) or
    BLAS (few)."""
    rng = np.random.default_rng(d)
    n = NUMPY_ENTRIES // 9 + 1  # the compiled step, which counts the nonzero weights
    X = rng.standard_normal((n, d))
    X -= X.mean(axis=0)
    Tm = grid_transmission(_grid_coordinates((3, 3)), 0.3)
    Y = X[rng.choice(n, 9, replace=False)]
    P, L, m = np.full((n, 9), 1.0 / 9), np.empty((n, 9)), np.empty(9)
    S, *_ = topographic_map(X, Y, Tm, 1e-3, L, P, m)
    assert np.count_nonzero(P) <= SPARSE_SHARE * P.size
    np.testing.assert_allclose(S, P.T @ X, rtol=0, atol=1e-12 * np.abs(X).sum(axis=0).max())


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("temperature", [1e3, 1.0, 1e-2, 1e-5])
# one chunk of rows; two chunks; two blocks of rows (one per numba thread, from 2 x 2^17 entries)
@pytest.mark.parametrize("n", [50, 1500, 40000])
def test_compiled_gibbs_step_matches_its_numpy_twin(seed, temperature, n, all_threads):
    """Down to temperatures where most weights underflow to exactly zero."""
    rng = np.random.default_rng(seed)
    K = 7
    L, q = rng.standard_normal((n, K)), rng.standard_normal(K)
    start = rng.dirichlet(np.ones(K), n)
    P1, P2, m1, m2 = start.copy(), start.copy(), np.empty(K), np.empty(K)
    out1 = gibbs_rows(L, q, 1.0 / temperature, P1, m1)
    out2 = gibbs_rows_numpy(L, q, 1.0 / temperature, P2, m2)
    np.testing.assert_allclose(P1, P2, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(m1, m2, rtol=1e-12)
    np.testing.assert_allclose(out1[:3], out2[:3], rtol=1e-12, atol=1e-12 * n)
    assert out1[0] == pytest.approx(np.max(np.abs(P2 - start)), rel=1e-12)
    # the zeros are exact underflows in both, so their count is too
    assert out1[3] == out2[3] == np.count_nonzero(P1)


@pytest.mark.parametrize("n", [50, 1500])
def test_weighted_gibbs_step_matches_its_numpy_twin_and_unit_weights_change_no_bit(n):
    rng = np.random.default_rng(n)
    K = 5
    L, q = rng.standard_normal((n, K)), rng.standard_normal(K)
    w = rng.uniform(0.0, 3.0, n)
    start = rng.dirichlet(np.ones(K), n)
    P1, P2, P3, P4 = (start.copy() for _ in range(4))
    m1, m2, m3, m4 = (np.empty(K) for _ in range(4))
    out1 = gibbs_rows(L, q, 0.7, P1, m1, w)
    out2 = gibbs_rows_numpy(L, q, 0.7, P2, m2, w)
    np.testing.assert_allclose(P1, P2, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(m1, w @ P2, rtol=1e-12)
    np.testing.assert_allclose(m2, w @ P2, rtol=1e-12)
    np.testing.assert_allclose(out1[:3], out2[:3], rtol=1e-12, atol=1e-12 * n)
    # the weighted entropy and log-partition are the rows' values times w
    assert out2[1] == pytest.approx(assignment_entropy(P2, w), rel=1e-12)
    plain = gibbs_rows(L, q, 0.7, P3, m3)
    ones = gibbs_rows(L, q, 0.7, P4, m4, np.ones(n))
    assert plain == ones
    np.testing.assert_array_equal(P3, P4)
    np.testing.assert_array_equal(m3, m4)


def test_small_maps_take_the_numpy_step_large_ones_the_compiled_one(monkeypatch):
    """Below NUMPY_ENTRIES assignments the fit compiles no Gibbs kernel."""
    import statmechlearn.cluster._topographic_kernel as kernel

    calls = []
    monkeypatch.setattr(kernel, "gibbs_rows", lambda *a: calls.append("compiled") or _fail())
    X = _elongated(np.random.default_rng(0), 100)
    TopologicalVQ(4, sigma=0.8, random_state=0).fit(X)  # 400 assignments
    assert calls == []
    with pytest.raises(RuntimeError, match="compiled"):
        TopologicalVQ(4, sigma=0.8, random_state=0).fit(
            _elongated(np.random.default_rng(0), NUMPY_ENTRIES // 4 + 1)
        )


def _fail():
    raise RuntimeError("the compiled step was called")


@pytest.mark.parametrize("seed", range(3))
def test_iteration_on_statistics_is_the_channel_iteration_in_data_space(seed):
    """``h = D T^T`` and ``y = (P T)^T X / colsum(P T)``, written out, give the same step."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((80, 3))
    X -= X.mean(axis=0)
    Tm = grid_transmission(_grid_coordinates((2, 3)), 0.7)
    Y = rng.standard_normal((6, 3))
    temperature = 0.3
    D = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    P_ref = gibbs_assignments(D @ Tm.T, temperature)[0]
    W = P_ref @ Tm
    Y_ref = (W.T @ X) / W.sum(axis=0)[:, None]

    P, L, m = np.full((80, 6), 1.0 / 6), np.empty((80, 6)), np.empty(6)
    S, change, entropy, _ = topographic_map(X, Y, Tm, temperature, L, P, m)
    np.testing.assert_allclose(P, P_ref, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(centres(S, m, Tm), Y_ref, rtol=1e-10, atol=1e-12)
    assert entropy == pytest.approx(assignment_entropy(P_ref), rel=1e-10)
    assert change == pytest.approx(np.max(np.abs(P_ref - 1.0 / 6)), rel=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_accelerated_and_plain_iterations_reach_the_same_fixed_point(seed):
    rng = np.random.default_rng(seed)
    X = _elongated(rng, 300)
    X -= X.mean(axis=0)
    Tm = grid_transmission(_grid_coordinates((5,)), 0.8)
    temperature = 0.2 * topographic_critical_temperature(X, Tm)
    Y0 = 0.1 * rng.standard_normal((5, 2))
    books, iters = [], []
    for accelerate in (True, False):
        P, L, m = np.full((300, 5), 0.2), np.empty((300, 5)), np.empty(5)
        S, it, converged, _ = solve_temperature(
            X, Y0, Tm, temperature, L, P, m, max_iter=20000, tol=1e-11, accelerate=accelerate
        )
        assert converged
        books.append(centres(S, m, Tm))
        iters.append(it)
    scale = np.ptp(X, axis=0).max()
    np.testing.assert_allclose(books[0], books[1], atol=1e-7 * scale)
    assert iters[0] < iters[1]


def test_collapsed_state_above_critical_temperature_is_not_iterated():
    X = _elongated(np.random.default_rng(3))
    som = TopologicalVQ(4, sigma=0.8, random_state=0).fit(X)
    T = np.array(som.path_.temperature)
    n_iter = np.array(som.path_.n_iter)
    assert np.all(n_iter[T > som.critical_temperature_] == 0)
    assert np.all(n_iter[T < som.critical_temperature_] > 0)
    assert som.n_iter_ == n_iter.sum()


def test_recorded_free_energy_is_that_of_the_final_assignments():
    rng = np.random.default_rng(4)
    X = rng.uniform(0, 1, (200, 2))
    som = TopologicalVQ((3, 3), sigma=0.6, random_state=0).fit(X)
    P = som.assignments_
    h = ((X[:, None, :] - som.cluster_centers_[None]) ** 2).sum(-1) @ som.transmission_.T
    expected = np.sum(P * h) - som.temperature_ * assignment_entropy(P)
    assert som.path_.free_energy[-1] == pytest.approx(expected, rel=1e-9, abs=1e-12)


# scikit-learn's sparse checks read predict_proba's width (2 or 4 columns) from classifier
# tags; a 3-unit map's probabilities have 3 (fit and predict on sparse input pass first)
_PROBA_WIDTH = "the sparse checks expect 2 or 4 probability columns; a 3-unit map has 3"


@parametrize_with_checks(
    [TopologicalVQ(3, sigma=0.5, random_state=0)],
    expected_failed_checks=lambda est: dict.fromkeys(
        ("check_estimator_sparse_array", "check_estimator_sparse_matrix"), _PROBA_WIDTH
    ),
)
def test_sklearn_contract(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)

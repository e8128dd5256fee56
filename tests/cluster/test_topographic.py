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


def test_bad_input_is_named():
    X = np.random.default_rng(0).standard_normal((10, 2))
    with pytest.raises(ValueError, match=r"K=12 units > n_samples=10"):
        TopologicalVQ((3, 4)).fit(X)
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


@parametrize_with_checks([TopologicalVQ(3, sigma=0.5, random_state=0)])
def test_sklearn_contract(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)

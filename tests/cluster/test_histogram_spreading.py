"""Histogram clustering with counts spread to neighbouring bins (notes §4.1)."""

import numpy as np
import pytest
from scipy.ndimage import convolve1d
from sklearn.utils._param_validation import InvalidParameterError

from statmechlearn.cluster import HistogramClustering
from statmechlearn.cluster._distributional import _spread_counts


def _counts(seed=0, n_per=12, m=16, total=15):
    """Objects drawn from three shifted bumps on an ordered axis of ``m`` bins."""
    rng = np.random.default_rng(seed)
    j = np.arange(m)
    bumps = np.exp(-0.5 * ((j[None] - np.array([[4.0], [8.0], [12.0]])) / 1.5) ** 2)
    bumps /= bumps.sum(axis=1, keepdims=True)
    return np.vstack([rng.multinomial(total, b, size=n_per) for b in bumps]).astype(float)


def test_zero_spreading_returns_the_data_itself():
    X = _counts()
    assert _spread_counts(X, 0.0) is X
    assert _spread_counts(X, 0) is X


@pytest.mark.parametrize("method", ["annealing", "map"])
def test_zero_spreading_fits_exactly_as_without_it(method):
    X = _counts(1)
    a = HistogramClustering(3, method=method, smoothing=0.2, random_state=0).fit(X)
    b = HistogramClustering(3, method=method, smoothing=0.2, spreading=0.0, random_state=0).fit(X)
    for name in ("labels_", "cluster_histograms_", "assignments_", "cost_"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("spreading", [0.1, 0.5, 0.9])
def test_spreading_conserves_every_row_total(spreading):
    X = _counts(2)
    Y = _spread_counts(X, spreading)
    np.testing.assert_allclose(Y.sum(axis=1), X.sum(axis=1), rtol=1e-14)
    assert np.all(Y >= 0)
    grid = np.random.default_rng(0).integers(0, 5, size=(4, 6 * 7)).astype(float)
    Z = _spread_counts(grid, spreading, (6, 7))
    np.testing.assert_allclose(Z.sum(axis=1), grid.sum(axis=1), rtol=1e-14)


def test_spreading_is_the_three_tap_kernel_with_reflecting_ends():
    # the same pass written as a convolution (scipy's 'reflect' repeats the end bin)
    X = _counts(3)
    s = 0.3
    expected = convolve1d(X, [s / 2, 1 - s, s / 2], axis=1, mode="reflect")
    np.testing.assert_allclose(_spread_counts(X, s), expected, rtol=1e-13, atol=1e-13)
    # one count in the first bin: the end keeps the half that would leave the axis
    np.testing.assert_allclose(_spread_counts(np.array([[1.0, 0, 0]]), s), [[1 - s / 2, s / 2, 0]])


def test_two_dimensional_bins_spread_along_both_axes():
    s = 0.4
    image = np.zeros((5, 6))
    image[2, 3] = 1.0
    out = _spread_counts(image.reshape(1, -1), s, (5, 6)).reshape(5, 6)
    kernel = np.array([s / 2, 1 - s, s / 2])
    expected = np.zeros((5, 6))
    expected[1:4, 2:5] = np.outer(kernel, kernel)
    np.testing.assert_allclose(out, expected, atol=1e-15)
    est = HistogramClustering(2, spreading=s, bin_shape=(5, 6), random_state=0)
    est.fit(np.random.default_rng(1).integers(0, 4, size=(10, 30)) + 0.5)
    with pytest.raises(ValueError, match="bin_shape"):
        HistogramClustering(2, spreading=s, bin_shape=(4, 6)).fit(np.ones((10, 30)))


def test_spreading_commutes_with_the_pseudo_count():
    X = _counts(4)
    a = _spread_counts(X + 0.7, 0.5)
    b = _spread_counts(X, 0.5) + 0.7
    np.testing.assert_allclose(a, b, rtol=1e-14)


def test_fit_with_spreading_is_fit_on_spread_histograms():
    X = _counts(5)
    spread = _spread_counts(X + 0.1, 0.5)
    a = HistogramClustering(3, smoothing=0.1, spreading=0.5, random_state=0).fit(X)
    b = HistogramClustering(3, random_state=0).fit(spread)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_allclose(a.cluster_histograms_, b.cluster_histograms_, atol=1e-10)
    np.testing.assert_allclose(a.assignment_costs(X), b.assignment_costs(spread), atol=1e-9)
    np.testing.assert_array_equal(a.predict(X), b.predict(spread))


def test_kl_cost_is_permutation_invariant_but_spreading_is_not():
    X = _counts(6)
    perm = np.random.default_rng(0).permutation(X.shape[1])
    for spreading, invariant in ((0.0, True), (0.5, False)):
        kw = {"smoothing": 0.1, "spreading": spreading, "method": "map", "random_state": 0}
        a = HistogramClustering(3, **kw).fit(X)
        b = HistogramClustering(3, **kw).fit(X[:, perm])
        if invariant:
            # the same partition; which cluster is called 0, 1 or 2 may differ, since the
            # permuted sums round differently and the annealing splits in another order
            match = {int(i): int(j) for i, j in zip(b.labels_, a.labels_, strict=True)}
            np.testing.assert_array_equal([match[int(i)] for i in b.labels_], a.labels_)
            assert sorted(match.values()) == sorted(set(a.labels_.tolist()))
            assert a.cost_ == pytest.approx(b.cost_, rel=1e-12)
            order = [match[j] for j in range(len(match))]
            np.testing.assert_allclose(a.cluster_histograms_[order][:, perm], b.cluster_histograms_)
        else:
            assert abs(a.cost_ - b.cost_) > 1e-3


def test_spreading_brings_histograms_shifted_by_one_bin_closer():
    # one count each: in bin 5, one bin over and five bins over
    X = np.zeros((3, 12))
    X[0, 5] = X[1, 6] = X[2, 10] = 1.0
    for spreading, near_closer in ((0.0, False), (0.5, True)):
        est = HistogramClustering(1, smoothing=0.01, spreading=spreading, method="map").fit(X[:1])
        cost = est.assignment_costs(X)[:, 0]
        # without the bin order a neighbour is as far as a distant bin
        assert bool(cost[1] < cost[2] - 0.5) is near_closer


def test_spreading_is_validated():
    X = _counts()
    for bad in (-0.1, 1.0, 1.5):
        with pytest.raises(InvalidParameterError, match="spreading"):
            HistogramClustering(spreading=bad).fit(X)
    with pytest.raises(InvalidParameterError, match="bin_shape"):
        HistogramClustering(bin_shape=16).fit(X)
    with pytest.raises(ValueError, match="bin_shape"):
        HistogramClustering(spreading=0.2, bin_shape=(0, 16)).fit(X)
